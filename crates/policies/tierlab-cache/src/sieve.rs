//! SIEVE (Y. Zhang, J. Yang, Y. Yue, Y. Vigfusson and K. V. Rashmi, NSDI 2024): one FIFO
//! queue and a hand. A hit sets the key's visited bit and moves nothing; a new key enters
//! at the head. To evict, the hand walks from where it last stopped towards the head
//! (from the tail the first time, and back to the tail after passing the head): a visited
//! key has its bit cleared and stays where it is; the first unvisited key is the victim,
//! and the hand rests on the key after it (towards the head). Old keys that were hit
//! survive in place while new ones are sifted out quickly.

use crate::index::Indexed;
use crate::list::{Ends, Slab, NIL};
use crate::Replacement;
use tierlab_keymap::KeyIndex;

pub struct Sieve {
    capacity: usize,
    map: KeyIndex,
    slab: Slab,
    /// Head: newest; tail: oldest. A node's `prev` is its newer neighbour.
    queue: Ends,
    /// Where the next sweep starts (NIL: at the tail).
    hand: u32,
}

impl Sieve {
    pub fn new(capacity: usize) -> Self {
        Sieve { capacity, map: KeyIndex::default(), slab: Slab::default(), queue: Ends::new(), hand: NIL }
    }

    fn take(&mut self, i: u32) -> u64 {
        if self.hand == i {
            self.hand = self.slab.nodes[i as usize].links.prev;
        }
        self.slab.unlink(&mut self.queue, i);
        let key = self.slab.nodes[i as usize].key;
        self.slab.release(i);
        self.map.remove(&key);
        key
    }
}

impl Indexed for Sieve {
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab) {
        (&mut self.map, &mut self.slab)
    }
}

impl Replacement for Sieve {
    fn name(&self) -> &'static str {
        "sieve"
    }

    #[inline]
    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        self.slab.nodes[i as usize].flag = true;
        true
    }

    #[inline]
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        let (slab, queue) = (&mut self.slab, &mut self.queue);
        self.map.insert_with(key, || {
            let i = slab.alloc(key, size, 0, now_ns);
            slab.push_head(queue, i);
            i
        });
    }

    #[inline]
    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        if self.queue.len == 0 {
            return None;
        }
        let mut i = if self.hand == NIL { self.queue.ends.tail } else { self.hand };
        // Terminates: every visited key passed loses its bit, so within one turn and a
        // key the hand finds an unvisited one.
        while self.slab.nodes[i as usize].flag {
            self.slab.nodes[i as usize].flag = false;
            i = match self.slab.nodes[i as usize].links.prev {
                NIL => self.queue.ends.tail,
                p => p,
            };
        }
        self.hand = i;
        Some(self.take(i))
    }

    fn remove(&mut self, key: u64) -> bool {
        match self.map.get(&key) {
            Some(&i) => {
                self.take(i);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        self.map.prefetch(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.queue.units
    }
}
