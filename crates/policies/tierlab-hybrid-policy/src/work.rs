//! Bookkeeping both GreenDM policies share: host I/O in flight per extent, the migrations
//! under way, and the checks a request goes through before it is routed.

use crate::geometry::PolicyError;
use crate::{split_extents, Migration, Piece, Place, PolicyStats};
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use tierlab_types::Op;

/// A migration under way; `target` is the policy's own destination (a physical extent or
/// a cache slot).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Active {
    pub m: Migration,
    pub target: u32,
    pub copied: bool,
}

#[derive(Default)]
pub(crate) struct Work {
    pub active: Vec<Active>,
    inflight: FxHashMap<u32, u32>,
}

impl Work {
    /// The migration moving extent `v`, if any (at most MCML are under way: a short scan).
    pub fn migration_of(&self, v: u32) -> Option<&Active> {
        self.active.iter().find(|a| a.m.extent == v)
    }

    /// Whether extent `v` has host I/O in flight (the research's rule drops its moves).
    pub fn busy(&self, v: u32) -> bool {
        // Often nothing is in flight (between requests, when migrations are chosen): skip
        // the hashing then, as the WSClock sweep asks for many extents in a row.
        !self.inflight.is_empty() && self.inflight.contains_key(&v)
    }

    /// The checks a request passes before it is routed: it must lie within the drive, and a
    /// write must wait (for the returned migration) while any of its extents is being
    /// copied — writes never race a copy.
    pub fn admit(
        &self,
        op: Op,
        extent_bytes: u64,
        offset_bytes: u64,
        len_bytes: u64,
        capacity_bytes: u64,
        stats: &mut PolicyStats,
    ) -> Result<Option<u64>, PolicyError> {
        if len_bytes == 0 || offset_bytes.checked_add(len_bytes).is_none_or(|end| end > capacity_bytes) {
            return Err(PolicyError::OutOfRange { offset_bytes, len_bytes, capacity_bytes });
        }
        if op == Op::Read {
            return Ok(None);
        }
        let wait = split_extents(extent_bytes, offset_bytes, len_bytes).find_map(|(ext, _, _)| self.migration_of(ext as u32).map(|a| a.m.id));
        if wait.is_some() {
            stats.delayed_requests += 1;
        }
        Ok(wait)
    }

    /// A read of extent `v` is served from the RAM copy of its migration, once made.
    pub fn served_from_ram(&self, op: Op, v: u32) -> bool {
        op == Op::Read && self.migration_of(v).is_some_and(|a| a.copied)
    }

    /// Record a routed piece: in flight until `done`, and counted in the stats.
    pub fn issue(&mut self, piece: Piece, stats: &mut PolicyStats, out: &mut Vec<Piece>) {
        stats.pieces += 1;
        if piece.place != Place::Hdd {
            stats.ssd_hits += 1;
        }
        *self.inflight.entry(piece.extent).or_insert(0) += 1;
        out.push(piece);
    }

    pub fn done(&mut self, pieces: &[Piece]) {
        for p in pieces {
            // One look-up for the decrement and the removal.
            if let Entry::Occupied(mut n) = self.inflight.entry(p.extent) {
                *n.get_mut() -= 1;
                if *n.get() == 0 {
                    n.remove();
                }
            }
        }
    }

    pub fn start(&mut self, m: Migration, target: u32) {
        self.active.push(Active { m, target, copied: false });
    }

    pub fn copied(&mut self, id: u64) {
        if let Some(a) = self.active.iter_mut().find(|a| a.m.id == id) {
            a.copied = true;
        }
    }

    /// The migration `id`, now finished, removed from the work under way.
    pub fn finish(&mut self, id: u64) -> Option<Active> {
        let pos = self.active.iter().position(|a| a.m.id == id)?;
        Some(self.active.swap_remove(pos))
    }
}
