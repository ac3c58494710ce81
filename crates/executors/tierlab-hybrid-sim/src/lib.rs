//! The simulator's executor for hybrid-drive policies: a [`tierlab_engine::Controller`] that
//! asks a [`Policy`] where each request goes, submits the pieces to the SSD and HDD
//! devices, parks writes the policy delays, and carries out the migrations the policy asks
//! for (read the source, then write the destination, then tell the policy). The block
//! device will execute the very same policy on real files.
//!
//! It also feeds the policy back: each host piece's response time (from its submission to
//! its device until it completes) goes to [`Policy::observe`], a timer wakes the policy at
//! the instant it asks for ([`Policy::next_wake_ns`]: work that falls due while the drive
//! is idle), and [`ssd_hints`] carries the policy's hint to hold the SSD's wear leveling
//! to the SSD device.

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tierlab_hybrid_policy::{Geometry, MapRecord, Migration, Piece, Place, Policy, PolicyError, PolicyStats, Routing, Tier};
use tierlab_engine::{Controller, Device, DeviceCommand, DeviceInfo, DeviceOp, DeviceReport, HostId, Io, SimError};
use tierlab_types::{IoRequest, Op};

/// Which engine device plays which part.
#[derive(Clone, Copy, Debug)]
pub struct Devices {
    pub ssd: usize,
    pub hdd: usize,
}

/// A request in the hybrid drive: its pieces and how many are still outstanding.
struct Outstanding {
    host: HostId,
    pieces: Vec<Piece>,
    left: usize,
    /// When the pieces were submitted to their devices.
    submit_ns: u64,
}

/// A request parked until a migration finishes.
struct Parked {
    host: HostId,
    index: u64,
    req: IoRequest,
}

const TOKEN_KIND_SHIFT: u32 = 61;
const KIND_PIECE: u64 = 0;
const KIND_MIGRATION_READ: u64 = 1;
const KIND_MIGRATION_WRITE: u64 = 2;
const KIND_RAM: u64 = 3;
const KIND_WAKE: u64 = 4;
/// A piece's token: the request's id in the low bits, the piece's index above them (a
/// request of more pieces than the index holds has its later pieces unobserved).
const PIECE_SHIFT: u32 = 40;
const PIECE_UNKNOWN: u64 = (1 << (TOKEN_KIND_SHIFT - PIECE_SHIFT)) - 1;

fn token(kind: u64, id: u64) -> u64 {
    (kind << TOKEN_KIND_SHIFT) | id
}

fn untoken(t: u64) -> (u64, u64) {
    (t >> TOKEN_KIND_SHIFT, t & ((1 << TOKEN_KIND_SHIFT) - 1))
}

fn piece_id(rid: u64, index: usize) -> u64 {
    ((index as u64).min(PIECE_UNKNOWN) << PIECE_SHIFT) | rid
}

fn split_piece_id(id: u64) -> (u64, u64) {
    (id & ((1 << PIECE_SHIFT) - 1), id >> PIECE_SHIFT)
}

/// Figures of the executor itself (the policy reports its own).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExecutorStats {
    pub ram_hits: u64,
    pub parked_requests: u64,
    pub migration_bytes_read: u64,
    pub migration_bytes_written: u64,
    /// Host pieces whose response time went to the policy.
    pub observed_pieces: u64,
    /// Timers that woke the policy for idle-time work.
    pub wake_ups: u64,
}

pub struct HybridController<P: Policy> {
    policy: P,
    devices: Devices,
    /// Time to serve a piece from the RAM copy of an extent being moved.
    ram_ns: u64,
    /// Requests in the drive, by id: a slot array with a free list (ids are reused once
    /// a request completes), so routing allocates nothing and finds a request in O(1).
    requests: Vec<Option<Outstanding>>,
    free_ids: Vec<u64>,
    migrations: BTreeMap<u64, Migration>,
    parked: BTreeMap<u64, Vec<Parked>>,
    scratch: Vec<Piece>,
    stats: ExecutorStats,
    /// The wake-up timer set, if one is pending.
    wake_at_ns: Option<u64>,
}

impl<P: Policy> HybridController<P> {
    pub fn new(policy: P, devices: Devices) -> Self {
        HybridController {
            policy,
            devices,
            ram_ns: 1_000,
            requests: Vec::new(),
            free_ids: Vec::new(),
            migrations: BTreeMap::new(),
            parked: BTreeMap::new(),
            scratch: Vec::new(),
            stats: ExecutorStats::default(),
            wake_at_ns: None,
        }
    }

    pub fn policy(&self) -> &P {
        &self.policy
    }

    pub fn policy_stats(&self) -> PolicyStats {
        self.policy.stats()
    }

    fn device_of(&self, tier: Tier) -> usize {
        match tier {
            Tier::Ssd => self.devices.ssd,
            Tier::Hdd => self.devices.hdd,
        }
    }

    fn route(&mut self, now_ns: u64, host: HostId, index: u64, req: IoRequest, io: &mut Io) -> Result<(), SimError> {
        let routing = self
            .policy
            .route(now_ns, req.op, req.offset_bytes, req.len_bytes, &mut self.scratch)
            .map_err(|e| SimError::Config(format!("request #{index}: {e}")))?;
        if let Routing::Wait(id) = routing {
            self.stats.parked_requests += 1;
            self.parked.entry(id).or_default().push(Parked { host, index, req });
            return Ok(());
        }
        let rid = self.free_ids.pop().unwrap_or(self.requests.len() as u64);
        let pieces = std::mem::take(&mut self.scratch);
        for (i, p) in pieces.iter().enumerate() {
            let id = piece_id(rid, i);
            match p.place {
                Place::Ram => {
                    self.stats.ram_hits += 1;
                    io.timer(now_ns + self.ram_ns, token(KIND_RAM, id));
                }
                Place::Ssd | Place::Hdd => {
                    let device = if p.place == Place::Ssd { self.devices.ssd } else { self.devices.hdd };
                    let op = DeviceOp { op: p.op, offset_bytes: p.device_offset_bytes, len_bytes: p.len_bytes, fua: false };
                    io.submit(device, op, token(KIND_PIECE, id));
                }
            }
        }
        // Migrations start from completions, not here: the extent this request touches is
        // busy until it completes, and the policy drops moves of busy extents.
        let outstanding = Some(Outstanding { host, left: pieces.len(), pieces, submit_ns: now_ns });
        match self.requests.get_mut(rid as usize) {
            Some(slot) => *slot = outstanding,
            None => self.requests.push(outstanding),
        }
        self.arm_wake(now_ns, io);
        Ok(())
    }

    /// Set a timer for the instant the policy wants to be woken, unless one is set for
    /// no later (an instant already past needs none: the calls just made saw it).
    fn arm_wake(&mut self, now_ns: u64, io: &mut Io) {
        let Some(at) = self.policy.next_wake_ns() else { return };
        if at > now_ns && self.wake_at_ns.is_none_or(|t| at < t || t <= now_ns) {
            self.wake_at_ns = Some(at);
            io.timer(at, token(KIND_WAKE, 0));
        }
    }

    fn piece_done(&mut self, now_ns: u64, id: u64, io: &mut Io) {
        let (rid, index) = split_piece_id(id);
        let Some(slot) = self.requests.get_mut(rid as usize) else { return };
        let Some(r) = slot.as_mut() else { return };
        if let Some(piece) = r.pieces.get(index as usize).filter(|_| index < PIECE_UNKNOWN) {
            self.policy.observe(now_ns, piece, now_ns.saturating_sub(r.submit_ns));
            self.stats.observed_pieces += 1;
        }
        r.left -= 1;
        if r.left == 0 {
            if let Some(r) = slot.take() {
                self.free_ids.push(rid);
                self.policy.done(&r.pieces);
                io.complete(r.host);
                self.scratch = r.pieces; // reuse the allocation
            }
            self.kick(now_ns, io);
        }
    }

    /// Start every migration the policy wants now.
    fn kick(&mut self, now_ns: u64, io: &mut Io) {
        while let Some(m) = self.policy.next_migration(now_ns) {
            let op = DeviceOp { op: Op::Read, offset_bytes: m.from_offset_bytes, len_bytes: m.len_bytes, fua: false };
            io.submit(self.device_of(m.from), op, token(KIND_MIGRATION_READ, m.id));
            self.migrations.insert(m.id, m);
        }
        self.arm_wake(now_ns, io);
    }

    fn migration_step(&mut self, now_ns: u64, kind: u64, id: u64, io: &mut Io) -> Result<(), SimError> {
        let Some(m) = self.migrations.get(&id).copied() else { return Ok(()) };
        if kind == KIND_MIGRATION_READ {
            self.stats.migration_bytes_read += m.len_bytes;
            self.policy.migration_copied(id);
            // The copy must be durable before the mapping points at it.
            let op = DeviceOp { op: Op::Write, offset_bytes: m.to_offset_bytes, len_bytes: m.len_bytes, fua: true };
            io.submit(self.device_of(m.to), op, token(KIND_MIGRATION_WRITE, id));
            return Ok(());
        }
        self.stats.migration_bytes_written += m.len_bytes;
        self.migrations.remove(&id);
        self.policy.migration_done(now_ns, id, true);
        for p in self.parked.remove(&id).unwrap_or_default() {
            self.route(now_ns, p.host, p.index, p.req, io)?;
        }
        self.kick(now_ns, io);
        Ok(())
    }
}

impl<P: Policy> Controller for HybridController<P> {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        let geo = *self.policy.geometry();
        for (role, idx, need) in [("SSD", self.devices.ssd, geo.ssd_bytes()), ("HDD", self.devices.hdd, geo.hdd_bytes())] {
            let d = devices.get(idx).ok_or_else(|| SimError::Config(format!("the hybrid drive's {role} (device {idx}) is missing")))?;
            if d.capacity_bytes < need {
                return Err(SimError::Config(format!(
                    "the hybrid drive needs {need} bytes of {role} but device `{}` holds {}",
                    d.name, d.capacity_bytes
                )));
            }
        }
        Ok(())
    }

    fn on_request(&mut self, now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        self.route(now_ns, host, index, *req, io)
    }

    fn on_device_done(&mut self, now_ns: u64, _device: usize, token: u64, io: &mut Io) {
        let (kind, id) = untoken(token);
        match kind {
            KIND_PIECE => self.piece_done(now_ns, id, io),
            // Parked requests were routable before; a failure now would be a policy bug.
            _ => {
                let _ = self.migration_step(now_ns, kind, id, io);
            }
        }
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        let (kind, id) = untoken(token);
        match kind {
            KIND_RAM => self.piece_done(now_ns, id, io),
            KIND_WAKE => {
                if self.wake_at_ns == Some(now_ns) {
                    self.wake_at_ns = None;
                }
                // After the last request, no new background work (it would only lengthen
                // the run).
                if !io.requests_finished() {
                    self.stats.wake_ups += 1;
                    self.kick(now_ns, io);
                }
            }
            _ => {}
        }
    }

    fn report(&self) -> serde_json::Value {
        let p = self.policy.stats();
        let mut report = serde_json::json!({
            "policy": self.policy.name(),
            "ssd_hit_ratio": p.ssd_hit_ratio(),
            "stats": p,
            "executor": self.stats,
            "migrations_in_flight_at_end": self.migrations.len(),
        });
        let counters = self.policy.counters();
        if !counters.is_empty() {
            let map: serde_json::Map<String, serde_json::Value> = counters.into_iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
            report["counters"] = serde_json::Value::Object(map);
        }
        report
    }
}

/// The channel that carries a policy's SSD hint (hold wear leveling) to the SSD device:
/// [`ssd_hints`] wraps the policy and the SSD; the policy side publishes the hint after
/// every call that may change it, and the SSD side applies it before the SSD serves an
/// operation or a command — the only moments the device acts, so the hint is never late.
#[derive(Clone, Debug, Default)]
pub struct SsdHints {
    paused: Arc<AtomicBool>,
}

/// Wrap `policy` and `ssd` so that the policy's [`Policy::ssd_wear_leveling_paused`]
/// reaches [`Device::set_wear_leveling_paused`]. Give the engine the device and the
/// executor the policy.
pub fn ssd_hints<P: Policy, D: Device + ?Sized>(policy: P, ssd: Box<D>) -> (HintedPolicy<P>, HintedDevice<D>) {
    let hints = SsdHints::default();
    (HintedPolicy { inner: policy, hints: hints.clone(), published: false }, HintedDevice { inner: ssd, hints, applied: false, changes: 0 })
}

/// A policy whose SSD hint is published on an [`SsdHints`] channel.
pub struct HintedPolicy<P> {
    inner: P,
    hints: SsdHints,
    published: bool,
}

impl<P: Policy> HintedPolicy<P> {
    pub fn inner(&self) -> &P {
        &self.inner
    }

    fn publish(&mut self) {
        let paused = self.inner.ssd_wear_leveling_paused();
        if paused != self.published {
            self.published = paused;
            self.hints.paused.store(paused, Ordering::Relaxed);
        }
    }
}

impl<P: Policy> Policy for HintedPolicy<P> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn geometry(&self) -> &Geometry {
        self.inner.geometry()
    }
    fn route(&mut self, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64, out: &mut Vec<Piece>) -> Result<Routing, PolicyError> {
        let r = self.inner.route(now_ns, op, offset_bytes, len_bytes, out);
        self.publish();
        r
    }
    fn done(&mut self, pieces: &[Piece]) {
        self.inner.done(pieces);
        self.publish();
    }
    fn next_migration(&mut self, now_ns: u64) -> Option<Migration> {
        let m = self.inner.next_migration(now_ns);
        self.publish();
        m
    }
    fn wants_to_move(&self) -> bool {
        self.inner.wants_to_move()
    }
    fn migration_copied(&mut self, id: u64) {
        self.inner.migration_copied(id)
    }
    fn migration_done(&mut self, now_ns: u64, id: u64, ok: bool) {
        self.inner.migration_done(now_ns, id, ok);
        self.publish();
    }
    fn set_checkpointing(&mut self, on: bool) {
        self.inner.set_checkpointing(on)
    }
    fn set_param(&mut self, name: &str, value: f64) -> Result<(), PolicyError> {
        let r = self.inner.set_param(name, value);
        self.publish();
        r
    }
    fn stats(&self) -> PolicyStats {
        self.inner.stats()
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        self.inner.params()
    }
    fn virtual_bytes(&self) -> u64 {
        self.inner.virtual_bytes()
    }
    fn extent_in_flight(&self, extent: u32) -> bool {
        self.inner.extent_in_flight(extent)
    }
    fn populate(&mut self, extents: u32) {
        self.inner.populate(extents)
    }
    fn enable_journal(&mut self) {
        self.inner.enable_journal()
    }
    fn take_changes(&mut self, out: &mut Vec<MapRecord>) {
        self.inner.take_changes(out)
    }
    fn snapshot(&self, out: &mut Vec<MapRecord>) {
        self.inner.snapshot(out)
    }
    fn restore(&mut self, records: &[MapRecord]) -> Result<(), PolicyError> {
        self.inner.restore(records)
    }
    fn observe(&mut self, now_ns: u64, piece: &Piece, response_ns: u64) {
        self.inner.observe(now_ns, piece, response_ns);
        self.publish();
    }
    fn next_wake_ns(&self) -> Option<u64> {
        self.inner.next_wake_ns()
    }
    fn ssd_wear_leveling_paused(&self) -> bool {
        self.inner.ssd_wear_leveling_paused()
    }
    fn counters(&self) -> Vec<(&'static str, f64)> {
        self.inner.counters()
    }
}

/// An SSD that follows the hints of an [`SsdHints`] channel.
pub struct HintedDevice<D: ?Sized> {
    inner: Box<D>,
    hints: SsdHints,
    applied: bool,
    changes: u64,
}

impl<D: Device + ?Sized> HintedDevice<D> {
    pub fn inner(&self) -> &D {
        &self.inner
    }

    fn apply(&mut self) {
        let paused = self.hints.paused.load(Ordering::Relaxed);
        if paused != self.applied {
            self.applied = paused;
            self.changes += 1;
            self.inner.set_wear_leveling_paused(paused);
        }
    }
}

impl<D: Device + ?Sized> Device for HintedDevice<D> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn capacity_bytes(&self) -> u64 {
        self.inner.capacity_bytes()
    }
    fn max_in_flight(&self) -> usize {
        self.inner.max_in_flight()
    }
    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        self.apply();
        self.inner.service(now_ns, op)
    }
    fn command(&mut self, now_ns: u64, cmd: DeviceCommand) -> u64 {
        self.apply();
        self.inner.command(now_ns, cmd)
    }
    fn position_key(&self, offset_bytes: u64) -> u64 {
        self.inner.position_key(offset_bytes)
    }
    fn current_position_key(&self) -> u64 {
        self.inner.current_position_key()
    }
    fn positioning_ns(&self, now_ns: u64, op: &DeviceOp) -> Option<u64> {
        self.inner.positioning_ns(now_ns, op)
    }
    fn finish(&mut self, end_ns: u64) {
        self.inner.finish(end_ns)
    }
    /// The SSD's report, with how often the wear-leveling hint changed.
    fn report(&self) -> DeviceReport {
        let mut r = self.inner.report();
        r.counters.insert("wear_leveling_hint_changes".into(), self.changes as f64);
        r
    }
    fn checkpoint(&mut self, now_ns: u64) -> DeviceReport {
        let mut r = self.inner.checkpoint(now_ns);
        r.counters.insert("wear_leveling_hint_changes".into(), self.changes as f64);
        r
    }
    fn set_wear_leveling_paused(&mut self, paused: bool) {
        self.inner.set_wear_leveling_paused(paused)
    }
}

#[cfg(test)]
mod tests;

/// What [`warm_instantly`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Warming {
    /// Host requests routed.
    pub requests: u64,
    /// Migrations carried out (each completed at once).
    pub migrations: u64,
    /// Whether the placement settled before the warming's cap (set by its caller).
    pub settled: bool,
}

/// Functional warming: drive `policy` through `requests` (virtual addresses, in arrival
/// order) as if both devices served every piece and every copy instantly, so that its
/// placement (which extents the SSD holds, what is dirty) reaches the state the workload
/// leads it to without simulating the time that takes. Each request is routed at its
/// arrival time and completes there; then every migration the policy wants starts and
/// completes, and so does any the policy wants at the instant it asks to be woken before
/// the next arrival. The policy sees the same requests, in the same order, at the same
/// times as in a timed run; what differs is that nothing waits — queueing, migration
/// throttling by device time and response-time feedback ([`Policy::observe`]) are absent,
/// so a timed run still detects its own warm-up after this one.
pub fn warm_instantly<P: Policy + ?Sized>(policy: &mut P, requests: impl Iterator<Item = IoRequest>) -> Result<Warming, PolicyError> {
    let mut w = Warming::default();
    let mut pieces = Vec::new();
    let migrate = |policy: &mut P, now_ns: u64, w: &mut Warming| {
        while let Some(m) = policy.next_migration(now_ns) {
            policy.migration_copied(m.id);
            policy.migration_done(now_ns, m.id, true);
            w.migrations += 1;
        }
    };
    for req in requests {
        // Work that fell due while the drive was idle, before this arrival.
        while let Some(at) = policy.next_wake_ns().filter(|&at| at < req.time_ns) {
            let before = w.migrations;
            migrate(policy, at, &mut w);
            if w.migrations == before {
                break;
            }
        }
        pieces.clear();
        // Migrations complete as they start, so no request has one to wait for.
        if let Routing::Go = policy.route(req.time_ns, req.op, req.offset_bytes, req.len_bytes, &mut pieces)? {
            policy.done(&pieces);
        }
        w.requests += 1;
        migrate(policy, req.time_ns, &mut w);
    }
    Ok(w)
}
