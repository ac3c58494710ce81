//! 2Q, the full version (T. Johnson and D. Shasha, VLDB 1994): new keys enter a FIFO
//! `A1in` (25 % of the cache); keys evicted from it are remembered in a ghost FIFO `A1out`
//! (as many units as half the cache); a key referenced again while remembered is admitted
//! to the LRU `Am` (the other 75 %). Hits in `A1in` change nothing (correlated
//! references).
//!
//! A victim comes from `Am` while `A1in` is within its share, from `A1in` otherwise. A
//! remembered key is forgotten by the access that finds it. When that key comes into
//! `Am`, `Am` also makes room within its own share (its LRU keys go first), as
//! libCacheSim's 2Q does; with one-unit keys the whole cache's evictions have always made
//! that room already. Shares are rounded down to whole units (at least one).

use crate::index::Indexed;
use crate::list::{Ends, Slab, NIL};
use crate::Replacement;
use tierlab_keymap::KeyIndex;

const A1IN: u8 = 0;
const AM: u8 = 1;
const A1OUT: u8 = 2;

pub struct TwoQ {
    capacity: usize,
    /// `A1in`'s share, `A1out`'s size and `Am`'s share, in units.
    k_in: u64,
    k_out: u64,
    k_am: u64,
    map: KeyIndex,
    slab: Slab,
    lists: [Ends; 3],
    /// The key of the current miss when `A1out` remembered it (set by `access`).
    ghost_hit: Option<u64>,
    /// The size of the key about to be admitted (`admits`; 1 otherwise).
    incoming: u64,
}

impl TwoQ {
    pub fn new(capacity: usize) -> Self {
        let c = capacity as u64;
        let k_in = ((c as f64 * 0.25) as u64).max(1);
        TwoQ {
            capacity,
            k_in,
            k_out: ((c as f64 * 0.5) as u64).max(1),
            k_am: c.saturating_sub(k_in).max(1),
            map: KeyIndex::default(),
            slab: Slab::default(),
            lists: [Ends::new(); 3],
            ghost_hit: None,
            incoming: 1,
        }
    }

    fn move_to(&mut self, i: u32, to: u8) {
        let from = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[from as usize], i);
        self.slab.nodes[i as usize].list = to;
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

    fn ends(&self, l: u8) -> &Ends {
        &self.lists[l as usize]
    }

    /// Whether the remembered key about to come in must first make room in `Am`'s share.
    fn am_needs_room(&self, size: u64) -> bool {
        self.ghost_hit.is_some() && size <= self.k_am && self.ends(AM).len > 0 && self.ends(AM).units + size > self.k_am
    }
}

impl Indexed for TwoQ {
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab) {
        (&mut self.map, &mut self.slab)
    }
    fn end_reference(&mut self) {
        self.ghost_hit = None;
    }
}

impl Replacement for TwoQ {
    fn name(&self) -> &'static str {
        "2q"
    }

    #[inline]
    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        self.ghost_hit = None;
        let Some(&i) = self.map.get(&key) else { return false };
        match self.slab.nodes[i as usize].list {
            AM => {
                self.move_to(i, AM);
                true
            }
            A1IN => true,
            _ => {
                self.forget(i);
                self.ghost_hit = Some(key);
                false
            }
        }
    }

    #[inline]
    fn admits(&mut self, _key: u64, size: u32) -> bool {
        self.incoming = u64::from(size);
        u64::from(size) <= self.capacity as u64
    }

    #[inline]
    fn needs_room(&self, size: u32) -> bool {
        let size = u64::from(size);
        self.occupied() + size > self.capacity as u64 || self.am_needs_room(size)
    }

    #[inline]
    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        let (a1in, am) = (*self.ends(A1IN), *self.ends(AM));
        // Room in Am's own share, for a remembered key, once the whole cache has room.
        let am_share = self.ghost_hit.is_some() && self.occupied() + self.incoming <= self.capacity as u64;
        if am.len > 0 && (am_share || a1in.units <= self.k_in || a1in.len == 0) {
            return Some(self.forget(am.ends.tail));
        }
        let i = a1in.ends.tail;
        if i == NIL {
            return None;
        }
        let key = self.slab.nodes[i as usize].key;
        if u64::from(self.slab.nodes[i as usize].size) > self.k_out {
            self.forget(i);
            return Some(key);
        }
        self.move_to(i, A1OUT);
        while self.ends(A1OUT).units > self.k_out {
            self.forget(self.ends(A1OUT).ends.tail);
        }
        Some(key)
    }

    #[inline]
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        let to = if self.ghost_hit == Some(key) { AM } else { A1IN };
        // Larger than Am's whole share: not admitted.
        let k_am = self.k_am;
        let fits = |to: u8| to == A1IN || u64::from(size) <= k_am;
        let (i, known) = if fits(to) {
            let (slab, lists) = (&mut self.slab, &mut self.lists);
            self.map.insert_with(key, || {
                let i = slab.alloc(key, size, to, now_ns);
                slab.push_head(&mut lists[to as usize], i);
                i
            })
        } else {
            self.map.get(&key).map_or((NIL, false), |&i| (i, true))
        };
        if known {
            if self.slab.nodes[i as usize].list != A1OUT {
                return; // resident
            }
            // Remembered, and admitted without an access first.
            self.forget(i);
            if fits(AM) {
                let i = self.slab.alloc(key, size, AM, now_ns);
                self.slab.push_head(&mut self.lists[AM as usize], i);
                self.map.insert(key, i);
            }
        }
        self.ghost_hit = None;
        self.incoming = 1;
    }

    fn remove(&mut self, key: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        let resident = self.slab.nodes[i as usize].list != A1OUT;
        self.forget(i);
        resident
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        self.map.prefetch(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.map.get(&key).is_some_and(|&i| self.slab.nodes[i as usize].list != A1OUT)
    }

    fn len(&self) -> usize {
        self.ends(A1IN).len + self.ends(AM).len
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.ends(A1IN).units + self.ends(AM).units
    }
}
