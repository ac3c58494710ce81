//! Cache mode: one replacement algorithm at several cache sizes, fed in a single pass.
//!
//! Every object a request touches is one reference (look up; on a miss evict until there
//! is room, then admit). The cache is write-back and write-allocate: a written object is
//! dirty until evicted, and evicting a dirty object counts as a write-back. Operations
//! otherwise do not change the decisions, as in libCacheSim.

use crate::{Counts, ObjectDef, PlacementError, Replay};
use serde::Serialize;
use tierlab_cache::{reference, Algorithm, KeySet, Replacement};
use tierlab_types::{IoRequest, Op};

/// One cache size's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheReport {
    pub algorithm: String,
    pub objects: String,
    pub capacity_objects: usize,
    pub counts: Counts,
    /// Objects admitted (one per object miss when the capacity is not 0).
    pub insertions: u64,
    pub evictions: u64,
    /// Evictions of dirty objects.
    pub write_backs: u64,
    /// (insertions + write-backs) × object size, where objects have one size.
    pub bytes_moved: Option<u64>,
}

struct SizedCache {
    cache: Box<dyn Replacement>,
    counts: Counts,
    insertions: u64,
    evictions: u64,
    write_backs: u64,
    /// Dirty objects (made dirty and written back all run long: a set whose removes
    /// leave no deleted-slot markers).
    dirty: KeySet,
}

/// Replays requests through one algorithm at several cache sizes (in objects).
pub struct CacheReplay {
    algorithm: Algorithm,
    def: ObjectDef,
    caches: Vec<SizedCache>,
    /// Reused buffer for the victims of one reference.
    evicted: Vec<u64>,
}

impl CacheReplay {
    /// `window_ns` is WSClock's working-set window (ignored by the other algorithms).
    pub fn new(algorithm: Algorithm, capacities_objects: &[usize], def: ObjectDef, window_ns: u64) -> Result<Self, PlacementError> {
        def.validate()?;
        if capacities_objects.is_empty() {
            return Err(PlacementError::Config { name: "cache_sizes", expected: "at least one cache size".into(), found: "none".into() });
        }
        let caches = capacities_objects
            .iter()
            .map(|&c| SizedCache {
                cache: algorithm.build(c, window_ns),
                counts: Counts::default(),
                insertions: 0,
                evictions: 0,
                write_backs: 0,
                dirty: KeySet::new(),
            })
            .collect();
        Ok(CacheReplay { algorithm, def, caches, evicted: Vec::new() })
    }

    /// One report per cache size, in the order the sizes were given.
    pub fn reports(&self) -> Vec<CacheReport> {
        self.caches
            .iter()
            .map(|c| CacheReport {
                algorithm: self.algorithm.to_string(),
                objects: self.def.to_string(),
                capacity_objects: c.cache.capacity(),
                counts: c.counts,
                insertions: c.insertions,
                evictions: c.evictions,
                write_backs: c.write_backs,
                bytes_moved: self.def.object_bytes().map(|b| (c.insertions + c.write_backs) * b),
            })
            .collect()
    }
}

impl Replay for CacheReplay {
    fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError> {
        let keys = self.def.keys(req)?;
        let objects = keys.end - keys.start;
        for c in &mut self.caches {
            let mut hits = 0;
            for key in keys.clone() {
                self.evicted.clear();
                if reference(c.cache.as_mut(), key, req.time_ns, &mut self.evicted) {
                    hits += 1;
                } else if c.cache.capacity() > 0 {
                    c.insertions += 1;
                }
                c.evictions += self.evicted.len() as u64;
                for v in &self.evicted {
                    if c.dirty.remove(v) {
                        c.write_backs += 1;
                    }
                }
                if req.op == Op::Write && c.cache.capacity() > 0 {
                    c.dirty.insert(key);
                }
            }
            c.counts.record(req.op, objects, hits);
        }
        Ok(())
    }
}
