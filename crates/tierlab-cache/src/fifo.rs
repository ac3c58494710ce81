//! FIFO: evict the key admitted longest ago; hits change nothing.

use crate::list::{Ends, Slab};
use crate::{KeyMap, Replacement};

pub struct Fifo {
    capacity: usize,
    map: KeyMap,
    slab: Slab,
    queue: Ends,
}

impl Fifo {
    pub fn new(capacity: usize) -> Self {
        Fifo { capacity, map: KeyMap::default(), slab: Slab::default(), queue: Ends::new() }
    }
}

impl Replacement for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        self.map.contains_key(&key)
    }
    fn insert(&mut self, key: u64, now_ns: u64) {
        if self.map.contains_key(&key) {
            return;
        }
        let i = self.slab.alloc(key, 0, now_ns);
        self.slab.push_head(&mut self.queue, i);
        self.map.insert(key, i);
    }
    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        let i = self.queue.tail;
        if i == crate::list::NIL {
            return None;
        }
        self.slab.unlink(&mut self.queue, i);
        let key = self.slab.nodes[i as usize].key;
        self.slab.release(i);
        self.map.remove(&key);
        Some(key)
    }
    fn remove(&mut self, key: u64) -> bool {
        let Some(i) = self.map.remove(&key) else { return false };
        self.slab.unlink(&mut self.queue, i);
        self.slab.release(i);
        true
    }
    fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }
    fn len(&self) -> usize {
        self.map.len()
    }
    fn capacity(&self) -> usize {
        self.capacity
    }
}
