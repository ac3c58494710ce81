//! S3-FIFO (J. Yang, Y. Zhang, Z. Qiu, Y. Yue and K. V. Rashmi, SOSP 2023): three FIFO
//! queues. A small queue S (10 % of the cache) takes new keys; a main queue M (the rest)
//! holds keys that proved themselves; a ghost queue G remembers keys recently evicted
//! from S (as many units as 90 % of the cache). Each resident key has a two-bit access
//! count, raised by hits (to at most 3); nothing moves on a hit.
//!
//! - A miss that G remembers goes to M's head (and G forgets it); any other miss to S's
//!   head.
//! - To evict: from M when M is over its share or S is empty, from S otherwise.
//! - From S: the tail key moves to M's head (its count reset) if it was hit at least
//!   twice in S, and the next tail is tried; the first key hit fewer times is the victim
//!   and goes to G (whose oldest keys go when G is over its size).
//! - From M: a tail key with a count above 0 goes back to M's head with its count one
//!   lower (CLOCK-like); the first with count 0 is the victim.
//!
//! Choices where the paper leaves room, made as libCacheSim's `S3FIFO` makes them (so
//! that miss counts are equal): a key is moved from S to M at two hits ("accessed more
//! than once" after its first access); until the first eviction, new keys that find S
//! at its share go to M, so that the cache fills both queues; shares are units (bytes
//! for sized keys), rounded down (S gets at least one unit); a key larger than S is not
//! admitted. One difference: libCacheSim also leaves out a key exactly as large as S
//! (after making room for it), which with one-unit keys makes caches of 10 to 19 keys
//! admit nothing to S; here such a key is admitted.

use crate::index::Indexed;
use crate::list::{Ends, Slab, NIL};
use crate::Replacement;
use tierlab_keymap::KeyIndex;

const SMALL: u8 = 0;
const MAIN: u8 = 1;
const GHOST: u8 = 2;

/// A key hit this many times in S moves to M when it reaches S's tail.
const MOVE_TO_MAIN_HITS: u8 = 2;
/// The largest access count (two bits).
const MAX_COUNT: u8 = 3;

pub struct S3Fifo {
    capacity: usize,
    small_share: u64,
    main_share: u64,
    ghost_size: u64,
    map: KeyIndex,
    slab: Slab,
    lists: [Ends; 3],
    /// The key of the current miss when G remembered it (set by `access`).
    ghost_hit: Option<u64>,
    /// Whether anything was evicted yet (until then S's overflow goes to M).
    has_evicted: bool,
}

impl S3Fifo {
    pub fn new(capacity: usize) -> Self {
        let c = capacity as u64;
        let small_share = ((c as f64 * 0.1) as u64).max(1).min(c);
        S3Fifo {
            capacity,
            small_share,
            main_share: c - small_share,
            ghost_size: (c as f64 * 0.9) as u64,
            map: KeyIndex::default(),
            slab: Slab::default(),
            lists: [Ends::new(); 3],
            ghost_hit: None,
            has_evicted: false,
        }
    }

    fn ends(&self, l: u8) -> &Ends {
        &self.lists[l as usize]
    }

    fn move_to(&mut self, i: u32, to: u8) {
        let from = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[from as usize], i);
        let n = &mut self.slab.nodes[i as usize];
        n.list = to;
        n.count = 0;
        self.slab.push_head(&mut self.lists[to as usize], i);
    }

    fn forget(&mut self, i: u32) -> u64 {
        let l = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[l as usize], i);
        let key = self.slab.nodes[i as usize].key;
        self.map.remove(&key);
        self.slab.release(i);
        key
    }

    /// Evict from S: promote its tail keys hit often enough, until one is not; that one
    /// goes to G. `None` if S empties first.
    fn evict_small(&mut self) -> Option<u64> {
        loop {
            let i = self.ends(SMALL).ends.tail;
            if i == NIL {
                return None;
            }
            let n = self.slab.nodes[i as usize];
            if n.count >= MOVE_TO_MAIN_HITS {
                self.move_to(i, MAIN);
                continue;
            }
            if u64::from(n.size) > self.ghost_size {
                return Some(self.forget(i));
            }
            self.move_to(i, GHOST);
            while self.ends(GHOST).units > self.ghost_size {
                self.forget(self.ends(GHOST).ends.tail);
            }
            return Some(n.key);
        }
    }

    /// Evict from M: reinsert tail keys with a count, one lower, until one has none.
    fn evict_main(&mut self) -> Option<u64> {
        loop {
            let i = self.ends(MAIN).ends.tail;
            if i == NIL {
                return None;
            }
            let count = self.slab.nodes[i as usize].count;
            if count == 0 {
                return Some(self.forget(i));
            }
            self.slab.nodes[i as usize].count = count - 1;
            self.slab.move_to_head(&mut self.lists[MAIN as usize], i);
        }
    }
}

impl Indexed for S3Fifo {
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab) {
        (&mut self.map, &mut self.slab)
    }
    fn end_reference(&mut self) {
        self.ghost_hit = None;
    }
}

impl Replacement for S3Fifo {
    fn name(&self) -> &'static str {
        "s3fifo"
    }

    #[inline]
    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        self.ghost_hit = None;
        let Some(&i) = self.map.get(&key) else { return false };
        if self.slab.nodes[i as usize].list == GHOST {
            self.forget(i);
            self.ghost_hit = Some(key);
            return false;
        }
        let n = &mut self.slab.nodes[i as usize];
        n.count = (n.count + 1).min(MAX_COUNT);
        true
    }

    #[inline]
    fn admits(&mut self, _key: u64, size: u32) -> bool {
        u64::from(size) <= self.small_share
    }

    #[inline]
    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        self.has_evicted = true;
        if self.ends(MAIN).units > self.main_share || self.ends(SMALL).len == 0 {
            return self.evict_main().or_else(|| self.evict_small());
        }
        self.evict_small().or_else(|| self.evict_main())
    }

    #[inline]
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        let to = if self.ghost_hit == Some(key) || (!self.has_evicted && self.ends(SMALL).units >= self.small_share) { MAIN } else { SMALL };
        let (slab, lists) = (&mut self.slab, &mut self.lists);
        let (i, known) = self.map.insert_with(key, || {
            let i = slab.alloc(key, size, to, now_ns);
            slab.push_head(&mut lists[to as usize], i);
            i
        });
        if known {
            if self.slab.nodes[i as usize].list != GHOST {
                return; // resident
            }
            // Remembered, and admitted without an access first.
            self.forget(i);
            let i = self.slab.alloc(key, size, MAIN, now_ns);
            self.slab.push_head(&mut self.lists[MAIN as usize], i);
            self.map.insert(key, i);
        }
        self.ghost_hit = None;
    }

    fn remove(&mut self, key: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        let resident = self.slab.nodes[i as usize].list != GHOST;
        self.forget(i);
        resident
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        self.map.prefetch(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.map.get(&key).is_some_and(|&i| self.slab.nodes[i as usize].list != GHOST)
    }

    fn len(&self) -> usize {
        self.ends(SMALL).len + self.ends(MAIN).len
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.ends(SMALL).units + self.ends(MAIN).units
    }
}
