//! The simulator's executor for hybrid-drive policies: a [`tierlab_sim::Controller`] that
//! asks a [`Policy`] where each request goes, submits the pieces to the SSD and HDD
//! devices, parks writes the policy delays, and carries out the migrations the policy asks
//! for (read the source, then write the destination, then tell the policy). The block
//! device will execute the very same policy on real files.

use serde::Serialize;
use std::collections::BTreeMap;
use tierlab_policy::{Migration, Piece, Place, Policy, PolicyStats, Routing, Tier};
use tierlab_sim::{Controller, DeviceInfo, DeviceOp, HostId, Io, SimError};
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
}

/// A request parked until a migration finishes.
struct Parked {
    host: HostId,
    index: u64,
    req: IoRequest,
}

const TOKEN_KIND_SHIFT: u32 = 62;
const KIND_PIECE: u64 = 0;
const KIND_MIGRATION_READ: u64 = 1;
const KIND_MIGRATION_WRITE: u64 = 2;
const KIND_RAM: u64 = 3;

fn token(kind: u64, id: u64) -> u64 {
    (kind << TOKEN_KIND_SHIFT) | id
}

fn untoken(t: u64) -> (u64, u64) {
    (t >> TOKEN_KIND_SHIFT, t & ((1 << TOKEN_KIND_SHIFT) - 1))
}

/// Figures of the executor itself (the policy reports its own).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExecutorStats {
    pub ram_hits: u64,
    pub parked_requests: u64,
    pub migration_bytes_read: u64,
    pub migration_bytes_written: u64,
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
        for p in &pieces {
            match p.place {
                Place::Ram => {
                    self.stats.ram_hits += 1;
                    io.timer(now_ns + self.ram_ns, token(KIND_RAM, rid));
                }
                Place::Ssd | Place::Hdd => {
                    let device = if p.place == Place::Ssd { self.devices.ssd } else { self.devices.hdd };
                    let op = DeviceOp { op: p.op, offset_bytes: p.device_offset_bytes, len_bytes: p.len_bytes, fua: false };
                    io.submit(device, op, token(KIND_PIECE, rid));
                }
            }
        }
        // Migrations start from completions, not here: the extent this request touches is
        // busy until it completes, and the policy drops moves of busy extents.
        let outstanding = Some(Outstanding { host, left: pieces.len(), pieces });
        match self.requests.get_mut(rid as usize) {
            Some(slot) => *slot = outstanding,
            None => self.requests.push(outstanding),
        }
        Ok(())
    }

    fn piece_done(&mut self, now_ns: u64, rid: u64, io: &mut Io) {
        let Some(slot) = self.requests.get_mut(rid as usize) else { return };
        let Some(r) = slot.as_mut() else { return };
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
        if kind == KIND_RAM {
            self.piece_done(now_ns, id, io);
        }
    }

    fn report(&self) -> serde_json::Value {
        let p = self.policy.stats();
        serde_json::json!({
            "policy": self.policy.name(),
            "ssd_hit_ratio": p.ssd_hit_ratio(),
            "stats": p,
            "executor": self.stats,
            "migrations_in_flight_at_end": self.migrations.len(),
        })
    }
}

#[cfg(test)]
mod tests;
