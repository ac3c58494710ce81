//! Hit counts, split by reads and writes and counted both per request and per object.

use serde::Serialize;
use tierlab_types::Op;

/// Accesses and the hits among them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HitCounts {
    pub accesses: u64,
    pub hits: u64,
}

impl HitCounts {
    pub fn misses(&self) -> u64 {
        self.accesses - self.hits
    }

    /// Hits / accesses (0 when nothing was accessed).
    pub fn hit_ratio(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.hits as f64 / self.accesses as f64
        }
    }

    /// Misses / accesses (0 when nothing was accessed).
    pub fn miss_ratio(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.misses() as f64 / self.accesses as f64
        }
    }

    fn add(&mut self, hit: bool) {
        self.accesses += 1;
        self.hits += u64::from(hit);
    }

    fn add_many(&mut self, accesses: u64, hits: u64) {
        self.accesses += accesses;
        self.hits += hits;
    }

    fn sum(self, other: HitCounts) -> HitCounts {
        HitCounts { accesses: self.accesses + other.accesses, hits: self.hits + other.hits }
    }
}

/// What a replay saw. A request hits when every object it touches hits. Objects are the
/// cache's objects in cache mode and 4 KiB blocks in policy mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub read_requests: HitCounts,
    pub write_requests: HitCounts,
    pub read_objects: HitCounts,
    pub write_objects: HitCounts,
}

impl Counts {
    /// All requests, reads and writes.
    pub fn requests(&self) -> HitCounts {
        self.read_requests.sum(self.write_requests)
    }

    /// All objects, reads and writes.
    pub fn objects(&self) -> HitCounts {
        self.read_objects.sum(self.write_objects)
    }

    /// Adds one request of `op` that touched `objects` objects, `hits` of them hits.
    pub(crate) fn record(&mut self, op: Op, objects: u64, hits: u64) {
        let (requests, per_object) = match op {
            Op::Read => (&mut self.read_requests, &mut self.read_objects),
            Op::Write => (&mut self.write_requests, &mut self.write_objects),
        };
        requests.add(hits == objects);
        per_object.add_many(objects, hits);
    }
}
