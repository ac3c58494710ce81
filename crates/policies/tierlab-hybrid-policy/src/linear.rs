//! Static linear concatenation (GreenDM's "Mylinear" baseline): the virtual space is the
//! SSD followed by the HDD, and nothing ever moves. With a zero-sized device it is the
//! SSD-only or HDD-only baseline.

use crate::geometry::{Geometry, PolicyError};
use crate::{Migration, Piece, Place, Policy, PolicyStats, Routing};
use tierlab_types::Op;

pub struct LinearPolicy {
    geo: Geometry,
    stats: PolicyStats,
}

impl LinearPolicy {
    pub fn new(geo: Geometry) -> Self {
        LinearPolicy { geo, stats: PolicyStats::default() }
    }

}

impl Policy for LinearPolicy {
    fn name(&self) -> &'static str {
        "linear"
    }

    fn geometry(&self) -> &Geometry {
        &self.geo
    }

    fn route(&mut self, _now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64, out: &mut Vec<Piece>) -> Result<Routing, PolicyError> {
        let capacity_bytes = self.virtual_bytes();
        let end = offset_bytes.checked_add(len_bytes).filter(|&e| len_bytes > 0 && e <= capacity_bytes);
        let Some(end) = end else {
            return Err(PolicyError::OutOfRange { offset_bytes, len_bytes, capacity_bytes });
        };
        out.clear();
        let boundary = self.geo.ssd_bytes();
        let es = self.geo.extent_bytes;
        if offset_bytes < boundary {
            let len = end.min(boundary) - offset_bytes;
            out.push(Piece { place: Place::Ssd, op, device_offset_bytes: offset_bytes, len_bytes: len, extent: (offset_bytes / es) as u32 });
            self.stats.ssd_hits += 1;
        }
        if end > boundary {
            let start = offset_bytes.max(boundary);
            out.push(Piece { place: Place::Hdd, op, device_offset_bytes: start - boundary, len_bytes: end - start, extent: (start / es) as u32 });
        }
        self.stats.pieces += out.len() as u64;
        Ok(Routing::Go)
    }

    fn done(&mut self, _pieces: &[Piece]) {}

    fn next_migration(&mut self, _now_ns: u64) -> Option<Migration> {
        None
    }

    fn wants_to_move(&self) -> bool {
        false
    }

    fn migration_copied(&mut self, _id: u64) {}

    fn migration_done(&mut self, _now_ns: u64, _id: u64, _ok: bool) {}

    fn stats(&self) -> PolicyStats {
        self.stats.clone()
    }

    fn virtual_bytes(&self) -> u64 {
        self.geo.ssd_bytes() + self.geo.hdd_bytes()
    }

    fn extent_in_flight(&self, _extent: u32) -> bool {
        false
    }
}
