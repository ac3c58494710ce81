//! Hybrid-drive policies as pure decision code. A policy sees accesses (time, op, range)
//! and the completion of work it asked for; it answers with where each piece of a request
//! is served and which extents to move. It has no clock and does no I/O, so the same code
//! runs in the simulator (virtual time) and in the block device (wall time).
//!
//! The executor's side of the contract, in order:
//! 1. `route(now, op, offset, len, &mut pieces)` → `Routing::Go` with one [`Piece`] per
//!    extent touched (device and device offset, or the RAM copy of an extent being moved),
//!    or `Routing::Wait(id)`: retry after migration `id` finishes (a write to an extent
//!    being moved is delayed, never raced).
//! 2. `done(&pieces)` when the request's I/O has finished (per-extent in-flight counts).
//! 3. `next_migration(now)` as long as it returns work: copy `len_bytes` from `from` to
//!    `to`; call `migration_copied(id)` once the data is in RAM and
//!    `migration_done(now, id, ok)` once the copy is durable. Only then does the policy
//!    point the mapping at the new place and free the old one.
//!
//! Optional, with no-op defaults: `observe` reports each completed piece's response time
//! (for policies that predict device performance), `next_wake_ns` asks for a wake-up when
//! work falls due without a completion (idle-time moves), `ssd_wear_leveling_paused` is a
//! hint for the SSD, and `counters` adds policy-specific figures to a report.
//!
//! A real drive also persists the mapping: `enable_journal()` once, then after every call
//! that may change it (`route`, `next_migration`, `migration_done`) `take_changes` yields
//! [`MapRecord`]s to make durable; `snapshot` lists the whole mapping for a checkpoint and
//! `restore` rebuilds a new policy from recovered records.

mod bitmap;
mod caching;
mod geometry;
mod linear;
mod persist;
mod tiering;
mod work;

pub use caching::{CachingParams, CachingPolicy, WritePolicy};
pub use geometry::{Geometry, PolicyError, Tier, EXTENT_ALIGN_BYTES, MAX_EXTENT_BYTES};
pub use linear::LinearPolicy;
pub use persist::{MapRecord, NO_LOCATION};
pub use tiering::{TieringParams, TieringPolicy};

use serde::Serialize;
use tierlab_types::Op;

/// Where a piece of a request is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    Ssd,
    Hdd,
    /// The in-memory copy of an extent being migrated (reads only).
    Ram,
}

impl From<Tier> for Place {
    fn from(t: Tier) -> Place {
        match t {
            Tier::Ssd => Place::Ssd,
            Tier::Hdd => Place::Hdd,
        }
    }
}

/// One extent's share of a host request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub place: Place,
    pub op: Op,
    /// Offset on the device (`place`), or within the extent for `Place::Ram`.
    pub device_offset_bytes: u64,
    pub len_bytes: u64,
    /// The virtual extent the piece belongs to.
    pub extent: u32,
}

/// The answer to `route`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    Go,
    /// Retry after migration `id` completes.
    Wait(u64),
}

/// Why data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveKind {
    /// Tiering: HDD → SSD, the SSD copy becomes the only one.
    Promote,
    /// Tiering: SSD → HDD.
    Demote,
    /// Caching: HDD → SSD copy.
    Prefetch,
    /// Caching: dirty SSD copy → HDD.
    WriteBack,
}

/// A copy the executor must carry out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Migration {
    pub id: u64,
    pub kind: MoveKind,
    pub extent: u32,
    pub from: Tier,
    pub from_offset_bytes: u64,
    pub to: Tier,
    pub to_offset_bytes: u64,
    pub len_bytes: u64,
}

/// Counts every policy reports; unused ones stay 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PolicyStats {
    /// Pieces served by the SSD (or RAM copy) / all pieces.
    pub ssd_hits: u64,
    pub pieces: u64,
    pub promotions: u64,
    pub demotions: u64,
    pub prefetches: u64,
    pub evictions: u64,
    pub write_backs: u64,
    pub cancelled_migrations: u64,
    pub delayed_requests: u64,
    pub bytes_moved: u64,
    pub dirty_extents: u64,
    pub free_ssd_extents: u64,
    pub mapped_extents: u64,
}

impl PolicyStats {
    pub fn ssd_hit_ratio(&self) -> f64 {
        if self.pieces == 0 {
            0.0
        } else {
            self.ssd_hits as f64 / self.pieces as f64
        }
    }
}

/// A hybrid-drive policy; see the crate documentation for the protocol.
pub trait Policy {
    fn name(&self) -> &'static str;
    fn geometry(&self) -> &Geometry;
    /// Route a host request of `len_bytes` at virtual `offset_bytes`.
    fn route(&mut self, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64, out: &mut Vec<Piece>) -> Result<Routing, PolicyError>;
    /// The pieces of a routed request have completed.
    fn done(&mut self, pieces: &[Piece]);
    /// The next copy to start now, if any (the policy enforces its concurrency limit).
    fn next_migration(&mut self, now_ns: u64) -> Option<Migration>;
    /// Whether `next_migration` might return work now (a cheap hint, so that an executor
    /// wakes its copy threads only when there is something to do).
    fn wants_to_move(&self) -> bool {
        true
    }
    /// The source data of migration `id` is in RAM: reads may be served from it.
    fn migration_copied(&mut self, id: u64);
    /// Migration `id` is durable at its destination (`ok`) or failed.
    fn migration_done(&mut self, now_ns: u64, id: u64, ok: bool);
    /// Metadata is being checkpointed: no new migrations start meanwhile.
    fn set_checkpointing(&mut self, on: bool) {
        let _ = on;
    }
    /// Change a tunable while running (`pt`, `tw_s`, `mcml`, `lt`, `ht`, …).
    fn set_param(&mut self, name: &str, value: f64) -> Result<(), PolicyError> {
        let _ = value;
        Err(PolicyError::UnknownParam(name.to_string()))
    }
    fn stats(&self) -> PolicyStats;
    /// The tunables `set_param` accepts, with their current values.
    fn params(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// The capacity the drive exposes to its host.
    fn virtual_bytes(&self) -> u64;
    /// Whether host I/O routed to `extent` has not yet been reported `done`.
    fn extent_in_flight(&self, extent: u32) -> bool;
    /// Before any request: place the first `extents` virtual extents in address order, as
    /// if a data set had been copied onto the drive, so that a run starts from a drive in
    /// use rather than a new one. Default: nothing (a static layout, or a cache that
    /// starts cold).
    fn populate(&mut self, extents: u32) {
        let _ = extents;
    }
    /// Start collecting mapping changes for [`Policy::take_changes`] (off by default).
    fn enable_journal(&mut self) {}
    /// Move the mapping changes made since the last call into `out`, oldest first.
    fn take_changes(&mut self, out: &mut Vec<MapRecord>) {
        let _ = out;
    }
    /// Every placed extent, for a checkpoint.
    fn snapshot(&self, out: &mut Vec<MapRecord>) {
        let _ = out;
    }
    /// Rebuild the mapping of a new policy from records (a later record for an extent
    /// replaces an earlier one). Fails if they are inconsistent with the geometry.
    fn restore(&mut self, records: &[MapRecord]) -> Result<(), PolicyError> {
        match records.first() {
            None => Ok(()),
            Some(r) => Err(persist::bad_record(r, format!("no records: the {} policy keeps no mapping", self.name()))),
        }
    }
    /// Feedback: the device piece `piece` of a host request (as `route` returned it) has
    /// completed at `now_ns`, `response_ns` after the executor submitted it to its device
    /// (queueing plus service; for a `Place::Ram` piece, the copy's time). Called before
    /// `done` for the request. Default: ignored.
    fn observe(&mut self, now_ns: u64, piece: &Piece, response_ns: u64) {
        let _ = (now_ns, piece, response_ns);
    }
    /// The instant at which `next_migration` may have work although nothing completes
    /// before it (work that waits for the drive to fall idle): an executor wakes the
    /// policy then (a timer) unless something else did first. `None` (the default): work
    /// only ever becomes due when a request or a copy completes.
    fn next_wake_ns(&self) -> Option<u64> {
        None
    }
    /// A hint for the SSD: hold its explicit wear leveling (swaps of cold data into worn
    /// blocks) now, resume when this turns false. Default: never held.
    fn ssd_wear_leveling_paused(&self) -> bool {
        false
    }
    /// Policy-specific counts and figures beyond [`PolicyStats`], by name, for reports.
    /// Default: none.
    fn counters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// Split `[offset, offset + len)` into per-extent pieces: (extent, offset within, length).
pub fn split_extents(extent_bytes: u64, offset_bytes: u64, len_bytes: u64) -> impl Iterator<Item = (u64, u64, u64)> {
    let end = offset_bytes + len_bytes;
    let mut pos = offset_bytes;
    std::iter::from_fn(move || {
        if pos >= end {
            return None;
        }
        let ext = pos / extent_bytes;
        let within = pos % extent_bytes;
        let len = (extent_bytes - within).min(end - pos);
        pos += len;
        Some((ext, within, len))
    })
}

#[cfg(test)]
mod tests;

/// A boxed policy is a policy, so executors can choose one at run time.
impl<P: Policy + ?Sized> Policy for Box<P> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn geometry(&self) -> &Geometry {
        (**self).geometry()
    }
    fn route(&mut self, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64, out: &mut Vec<Piece>) -> Result<Routing, PolicyError> {
        (**self).route(now_ns, op, offset_bytes, len_bytes, out)
    }
    fn done(&mut self, pieces: &[Piece]) {
        (**self).done(pieces)
    }
    fn next_migration(&mut self, now_ns: u64) -> Option<Migration> {
        (**self).next_migration(now_ns)
    }
    fn wants_to_move(&self) -> bool {
        (**self).wants_to_move()
    }
    fn migration_copied(&mut self, id: u64) {
        (**self).migration_copied(id)
    }
    fn migration_done(&mut self, now_ns: u64, id: u64, ok: bool) {
        (**self).migration_done(now_ns, id, ok)
    }
    fn set_checkpointing(&mut self, on: bool) {
        (**self).set_checkpointing(on)
    }
    fn set_param(&mut self, name: &str, value: f64) -> Result<(), PolicyError> {
        (**self).set_param(name, value)
    }
    fn stats(&self) -> PolicyStats {
        (**self).stats()
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        (**self).params()
    }
    fn virtual_bytes(&self) -> u64 {
        (**self).virtual_bytes()
    }
    fn extent_in_flight(&self, extent: u32) -> bool {
        (**self).extent_in_flight(extent)
    }
    fn populate(&mut self, extents: u32) {
        (**self).populate(extents)
    }
    fn enable_journal(&mut self) {
        (**self).enable_journal()
    }
    fn take_changes(&mut self, out: &mut Vec<MapRecord>) {
        (**self).take_changes(out)
    }
    fn snapshot(&self, out: &mut Vec<MapRecord>) {
        (**self).snapshot(out)
    }
    fn restore(&mut self, records: &[MapRecord]) -> Result<(), PolicyError> {
        (**self).restore(records)
    }
    fn observe(&mut self, now_ns: u64, piece: &Piece, response_ns: u64) {
        (**self).observe(now_ns, piece, response_ns)
    }
    fn next_wake_ns(&self) -> Option<u64> {
        (**self).next_wake_ns()
    }
    fn ssd_wear_leveling_paused(&self) -> bool {
        (**self).ssd_wear_leveling_paused()
    }
    fn counters(&self) -> Vec<(&'static str, f64)> {
        (**self).counters()
    }
}
