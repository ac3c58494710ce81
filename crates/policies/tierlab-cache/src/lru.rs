//! LRU: evict the key used longest ago. FIFO is the same queue without the reordering on
//! a hit: evict the key admitted longest ago.

use crate::index::Indexed;
use crate::list::{Ends, Slab, NIL};
use crate::Replacement;
use tierlab_keymap::KeyIndex;

pub struct Lru {
    capacity: usize,
    map: KeyIndex,
    slab: Slab,
    order: Ends,
    /// Hits move the key to the head (LRU); without it the queue is FIFO.
    reorder_on_hit: bool,
}

/// FIFO replacement: an `Lru` whose hits change nothing.
pub type Fifo = Lru;

impl Lru {
    pub fn new(capacity: usize) -> Self {
        Lru { capacity, map: KeyIndex::default(), slab: Slab::default(), order: Ends::new(), reorder_on_hit: true }
    }

    pub fn fifo(capacity: usize) -> Self {
        Lru { reorder_on_hit: false, ..Lru::new(capacity) }
    }
}

impl Indexed for Lru {
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab) {
        (&mut self.map, &mut self.slab)
    }
}

impl Replacement for Lru {
    fn name(&self) -> &'static str {
        if self.reorder_on_hit {
            "lru"
        } else {
            "fifo"
        }
    }
    #[inline]
    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        if self.reorder_on_hit {
            self.slab.move_to_head(&mut self.order, i);
        }
        true
    }
    #[inline]
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        let (slab, order) = (&mut self.slab, &mut self.order);
        let (i, resident) = self.map.insert_with(key, || {
            let i = slab.alloc(key, size, 0, now_ns);
            slab.push_head(order, i);
            i
        });
        // A resident key counts as an access.
        if resident && self.reorder_on_hit {
            self.slab.move_to_head(&mut self.order, i);
        }
    }
    #[inline]
    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        let i = self.order.ends.tail;
        if i == NIL {
            return None;
        }
        self.slab.unlink(&mut self.order, i);
        let key = self.slab.nodes[i as usize].key;
        self.slab.release(i);
        self.map.remove(&key);
        Some(key)
    }
    fn remove(&mut self, key: u64) -> bool {
        let Some(i) = self.map.remove(&key) else { return false };
        self.slab.unlink(&mut self.order, i);
        self.slab.release(i);
        true
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
        self.order.units
    }
}
