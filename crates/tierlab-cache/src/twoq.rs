//! 2Q, the full version (T. Johnson and D. Shasha, VLDB 1994): new keys enter a FIFO
//! `A1in` (25 % of the cache); keys evicted from it are remembered in a ghost FIFO `A1out`
//! (as many as half the cache); a key referenced again while remembered is admitted to the
//! LRU `Am`. Hits in `A1in` change nothing (correlated references).

use crate::list::{Ends, Slab, NIL};
use crate::{KeyMap, Replacement};

const A1IN: u8 = 0;
const AM: u8 = 1;
const A1OUT: u8 = 2;

pub struct TwoQ {
    capacity: usize,
    k_in: usize,
    k_out: usize,
    map: KeyMap,
    slab: Slab,
    lists: [Ends; 3],
}

impl TwoQ {
    pub fn new(capacity: usize) -> Self {
        TwoQ {
            capacity,
            k_in: (capacity / 4).max(1),
            k_out: (capacity / 2).max(1),
            map: KeyMap::default(),
            slab: Slab::default(),
            lists: [Ends::new(); 3],
        }
    }

    fn move_to(&mut self, i: u32, to: u8) {
        let from = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[from as usize], i);
        self.slab.nodes[i as usize].list = to;
        self.slab.push_head(&mut self.lists[to as usize], i);
    }

    fn forget(&mut self, i: u32) {
        let l = self.slab.nodes[i as usize].list;
        self.slab.unlink(&mut self.lists[l as usize], i);
        let key = self.slab.nodes[i as usize].key;
        self.map.remove(&key);
        self.slab.release(i);
    }
}

impl Replacement for TwoQ {
    fn name(&self) -> &'static str {
        "2q"
    }

    fn access(&mut self, key: u64, _now_ns: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        match self.slab.nodes[i as usize].list {
            AM => {
                self.move_to(i, AM);
                true
            }
            A1IN => true,
            _ => false,
        }
    }

    fn evict(&mut self, _now_ns: u64) -> Option<u64> {
        let a1in = self.lists[A1IN as usize].len;
        if a1in > self.k_in || (a1in > 0 && self.lists[AM as usize].len == 0) {
            let i = self.lists[A1IN as usize].tail;
            self.move_to(i, A1OUT);
            if self.lists[A1OUT as usize].len > self.k_out {
                self.forget(self.lists[A1OUT as usize].tail);
            }
            return Some(self.slab.nodes[i as usize].key);
        }
        let i = self.lists[AM as usize].tail;
        if i == NIL {
            return None;
        }
        let key = self.slab.nodes[i as usize].key;
        self.forget(i);
        Some(key)
    }

    fn insert(&mut self, key: u64, now_ns: u64) {
        match self.map.get(&key).map(|&i| (i, self.slab.nodes[i as usize].list)) {
            Some((i, A1OUT)) => self.move_to(i, AM),
            Some(_) => {}
            None => {
                let i = self.slab.alloc(key, A1IN, now_ns);
                self.slab.push_head(&mut self.lists[A1IN as usize], i);
                self.map.insert(key, i);
            }
        }
    }

    fn remove(&mut self, key: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        let resident = self.slab.nodes[i as usize].list != A1OUT;
        self.forget(i);
        resident
    }

    fn contains(&self, key: u64) -> bool {
        self.map.get(&key).is_some_and(|&i| self.slab.nodes[i as usize].list != A1OUT)
    }

    fn len(&self) -> usize {
        self.lists[A1IN as usize].len + self.lists[AM as usize].len
    }

    fn capacity(&self) -> usize {
        self.capacity
    }
}
