//! ARC, Adaptive Replacement Cache (N. Megiddo and D. S. Modha, FAST 2003).
//!
//! Resident keys are split between T1 (seen once recently) and T2 (seen at least twice);
//! ghost lists B1 and B2 remember keys recently evicted from each. A miss that hits a
//! ghost moves the target size `p` of T1 towards the list that would have kept it.
//!
//! `p` is a real number, as in the paper: a ghost hit moves it by δ = |B2|/|B1| (or
//! |B1|/|B2|), at least 1, without rounding, and REPLACE compares |T1| with it exactly.
//! Flooring δ to a whole number (as an earlier version did) adapts more slowly and makes
//! different decisions; with real `p` the miss counts match libCacheSim's ARC exactly.
//!
//! The paper's single `REQUEST(x)` is split into `access` (hit handling; on a miss, adapt
//! `p` and remember whether x was in B2), `evict` (the paper's `REPLACE`) and `insert`
//! (ghost-list trimming of case IV, then x into T1, or into T2 on a ghost hit). Run in that
//! order they make the paper's decisions; `remove` (invalidation) drops a key without
//! remembering it.

use crate::list::{Ends, Slab, NIL};
use crate::{KeyMap, Replacement};

const T1: u8 = 0;
const T2: u8 = 1;
const B1: u8 = 2;
const B2: u8 = 3;

pub struct Arc {
    c: usize,
    /// Target size of T1, 0 ≤ p ≤ c (real-valued, see the module documentation).
    p: f64,
    map: KeyMap,
    slab: Slab,
    lists: [Ends; 4],
    /// The last miss's key was found in B2 (consulted by `evict`).
    miss_in_b2: bool,
}

impl Arc {
    pub fn new(capacity: usize) -> Self {
        Arc { c: capacity, p: 0.0, map: KeyMap::default(), slab: Slab::default(), lists: [Ends::new(); 4], miss_in_b2: false }
    }

    /// The target size of T1 (exposed for tests and reports).
    pub fn target_t1(&self) -> f64 {
        self.p
    }

    fn len_of(&self, l: u8) -> usize {
        self.lists[l as usize].len
    }

    fn move_to(&mut self, i: u32, to: u8) {
        let from = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[from as usize], i);
        self.slab.nodes[i as usize].list = to;
        self.slab.push_head(&mut self.lists[to as usize], i);
    }

    /// Forget the oldest key of ghost list `l`.
    fn drop_lru(&mut self, l: u8) {
        let i = self.lists[l as usize].tail;
        if i != NIL {
            self.slab.unlink(&mut self.lists[l as usize], i);
            let key = self.slab.nodes[i as usize].key;
            self.map.remove(&key);
            self.slab.release(i);
        }
    }
}

impl Replacement for Arc {
    fn name(&self) -> &'static str {
        "arc"
    }

    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        self.miss_in_b2 = false;
        let Some(&i) = self.map.get(&key) else { return false };
        match self.slab.nodes[i as usize].list {
            T1 | T2 => {
                self.move_to(i, T2);
                true
            }
            B1 => {
                let delta = (self.len_of(B2) as f64 / self.len_of(B1) as f64).max(1.0);
                self.p = (self.p + delta).min(self.c as f64);
                false
            }
            _ => {
                let delta = (self.len_of(B1) as f64 / self.len_of(B2) as f64).max(1.0);
                self.p = (self.p - delta).max(0.0);
                self.miss_in_b2 = true;
                false
            }
        }
    }

    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        let t1 = self.len_of(T1);
        let t1_real = t1 as f64;
        let from_t1 = t1 >= 1 && (t1_real > self.p || (self.miss_in_b2 && t1_real == self.p));
        let (from, ghost) = if (from_t1 || self.len_of(T2) == 0) && t1 > 0 { (T1, B1) } else { (T2, B2) };
        let i = self.lists[from as usize].tail;
        if i == NIL {
            return None;
        }
        self.move_to(i, ghost);
        Some(self.slab.nodes[i as usize].key)
    }

    fn insert(&mut self, key: u64, now_ns: u64) {
        if let Some(&i) = self.map.get(&key) {
            match self.slab.nodes[i as usize].list {
                T1 | T2 => {}
                _ => self.move_to(i, T2), // a ghost hit comes back as frequent
            }
            return;
        }
        // Case IV: keep |T1| + |B1| ≤ c and the whole directory ≤ 2c.
        let (t1, b1) = (self.len_of(T1), self.len_of(B1));
        let total = t1 + b1 + self.len_of(T2) + self.len_of(B2);
        if t1 + b1 >= self.c && b1 > 0 {
            self.drop_lru(B1);
        } else if total >= 2 * self.c && self.len_of(B2) > 0 {
            self.drop_lru(B2);
        }
        let i = self.slab.alloc(key, T1, now_ns);
        self.slab.push_head(&mut self.lists[T1 as usize], i);
        self.map.insert(key, i);
    }

    fn remove(&mut self, key: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        let l = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[l as usize], i);
        self.slab.release(i);
        self.map.remove(&key);
        l == T1 || l == T2
    }

    fn contains(&self, key: u64) -> bool {
        self.map.get(&key).is_some_and(|&i| self.slab.nodes[i as usize].list <= T2)
    }

    fn len(&self) -> usize {
        self.len_of(T1) + self.len_of(T2)
    }

    fn capacity(&self) -> usize {
        self.c
    }
}
