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
//! The paper's single `REQUEST(x)` is split into the steps of [`Replacement`]:
//!
//! - `access`: a hit moves x to T2's MRU end. A ghost hit adapts `p`, forgets the ghost
//!   and remembers that the miss was one (cases II and III).
//! - `admits`: notes the size of the key about to come in.
//! - `evict`: after a ghost hit, the paper's `REPLACE`. After any other miss, case IV
//!   first: when T1 and B1 would exceed the cache with the newcomer, drop B1's LRU ghost
//!   and `REPLACE` (or, with B1 empty, drop T1's LRU outright); otherwise, when the whole
//!   directory has reached twice the cache, drop B2's LRU ghost, then `REPLACE`.
//! - `insert`: x into T1, or into T2 after a ghost hit.
//!
//! Run in that order they make the paper's decisions. `remove` (invalidation) drops a key
//! without remembering it.
//!
//! **Sizes.** With keys of different sizes, list lengths and `p` are in units (bytes),
//! and case IV compares with the newcomer's size, as libCacheSim's ARC does; δ stays the
//! ratio of the ghost lists' sizes (at least 1), so a ghost hit moves `p` by a few units
//! whatever the key's size, and a cache of large objects adapts slowly (libCacheSim
//! does the same). With every size 1 this is the paper's ARC.

use crate::index::Indexed;
use crate::list::{Ends, Slab, NIL};
use crate::Replacement;
use tierlab_keymap::KeyIndex;

const T1: u8 = 0;
const T2: u8 = 1;
const B1: u8 = 2;
const B2: u8 = 3;

pub struct Arc {
    c: usize,
    /// Target size of T1, 0 ≤ p ≤ c (real-valued, see the module documentation).
    p: f64,
    map: KeyIndex,
    slab: Slab,
    lists: [Ends; 4],
    /// The key of the current miss, when it hit a ghost, and whether in B2. Set by
    /// `access`, used by `evict` and `insert`.
    ghost_hit: Option<(u64, bool)>,
    /// Whether the latest ghost hit was in B2 (REPLACE's tie rule); cleared by a hit and
    /// by admitting the ghost-hit key, kept over misses that hit no ghost.
    last_ghost_in_b2: bool,
    /// The size of the key about to be admitted (`admits`; 1 otherwise).
    incoming: u64,
}

impl Arc {
    pub fn new(capacity: usize) -> Self {
        Arc {
            c: capacity,
            p: 0.0,
            map: KeyIndex::default(),
            slab: Slab::default(),
            lists: [Ends::new(); 4],
            ghost_hit: None,
            last_ghost_in_b2: false,
            incoming: 1,
        }
    }

    /// The target size of T1 (exposed for tests and reports).
    pub fn target_t1(&self) -> f64 {
        self.p
    }

    fn units(&self, l: u8) -> u64 {
        self.lists[l as usize].units
    }

    fn move_to(&mut self, i: u32, to: u8) {
        let from = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[from as usize], i);
        self.slab.nodes[i as usize].list = to;
        self.slab.push_head(&mut self.lists[to as usize], i);
    }

    /// Unlink node `i` from its list and forget its key.
    fn drop_node(&mut self, i: u32) -> u64 {
        let l = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[l as usize], i);
        let key = self.slab.nodes[i as usize].key;
        self.map.remove(&key);
        self.slab.release(i);
        key
    }

    /// Forget the oldest key of list `l`, if any.
    fn drop_lru(&mut self, l: u8) -> Option<u64> {
        let i = self.lists[l as usize].ends.tail;
        (i != NIL).then(|| self.drop_node(i))
    }

    /// The paper's REPLACE: T1's LRU key to B1, or T2's to B2.
    fn replace(&mut self) -> Option<u64> {
        let t1 = self.units(T1);
        let t1_real = t1 as f64;
        let from_t1 = t1 > 0 && (t1_real > self.p || (self.last_ghost_in_b2 && t1_real == self.p));
        let (from, ghost) = if (from_t1 || self.lists[T2 as usize].len == 0) && t1 > 0 { (T1, B1) } else { (T2, B2) };
        let i = self.lists[from as usize].ends.tail;
        if i == NIL {
            return None;
        }
        self.move_to(i, ghost);
        Some(self.slab.nodes[i as usize].key)
    }
}

impl Indexed for Arc {
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab) {
        (&mut self.map, &mut self.slab)
    }
    fn end_reference(&mut self) {
        self.ghost_hit = None;
    }
}

impl Replacement for Arc {
    fn name(&self) -> &'static str {
        "arc"
    }

    #[inline]
    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        self.ghost_hit = None;
        let Some(&i) = self.map.get(&key) else { return false };
        match self.slab.nodes[i as usize].list {
            T1 | T2 => {
                self.last_ghost_in_b2 = false;
                self.move_to(i, T2);
                true
            }
            B1 => {
                let delta = (self.units(B2) as f64 / self.units(B1) as f64).max(1.0);
                self.p = (self.p + delta).min(self.c as f64);
                self.drop_node(i);
                self.ghost_hit = Some((key, false));
                self.last_ghost_in_b2 = false;
                false
            }
            _ => {
                let delta = (self.units(B1) as f64 / self.units(B2) as f64).max(1.0);
                self.p = (self.p - delta).max(0.0);
                self.drop_node(i);
                self.ghost_hit = Some((key, true));
                self.last_ghost_in_b2 = true;
                false
            }
        }
    }

    #[inline]
    fn admits(&mut self, _key: u64, size: u32) -> bool {
        self.incoming = u64::from(size);
        u64::from(size) <= self.c as u64
    }

    #[inline]
    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        if self.ghost_hit.is_some() {
            return self.replace();
        }
        let c = self.c as u64;
        if self.units(T1) + self.units(B1) + self.incoming > c {
            // Case IV(a): T1 ∪ B1 is full.
            if self.units(B1) > 0 {
                self.drop_lru(B1);
                return self.replace();
            }
            if self.lists[T1 as usize].len > 0 {
                return self.drop_lru(T1);
            }
        } else if self.lists.iter().map(|l| l.units).sum::<u64>() >= 2 * c && self.units(B2) > 0 {
            // Case IV(b): the directory is full.
            self.drop_lru(B2);
        }
        self.replace()
    }

    #[inline]
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        let to = if self.ghost_hit.is_some_and(|(k, _)| k == key) { T2 } else { T1 };
        let (slab, lists) = (&mut self.slab, &mut self.lists);
        let (i, known) = self.map.insert_with(key, || {
            let i = slab.alloc(key, size, to, now_ns);
            slab.push_head(&mut lists[to as usize], i);
            i
        });
        if known {
            if self.slab.nodes[i as usize].list <= T2 {
                return; // resident
            }
            // A ghost admitted without an access first: it comes back as frequent.
            self.drop_node(i);
            let i = self.slab.alloc(key, size, T2, now_ns);
            self.slab.push_head(&mut self.lists[T2 as usize], i);
            self.map.insert(key, i);
        } else if to == T2 {
            self.last_ghost_in_b2 = false;
        }
        self.ghost_hit = None;
        self.incoming = 1;
    }

    fn remove(&mut self, key: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        let l = self.slab.nodes[i as usize].list;
        self.drop_node(i);
        l == T1 || l == T2
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        self.map.prefetch(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.map.get(&key).is_some_and(|&i| self.slab.nodes[i as usize].list <= T2)
    }

    fn len(&self) -> usize {
        self.lists[T1 as usize].len + self.lists[T2 as usize].len
    }

    fn capacity(&self) -> usize {
        self.c
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.units(T1) + self.units(T2)
    }
}
