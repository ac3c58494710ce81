//! An index-linked doubly linked list over a slab: O(1) push, unlink and move without
//! per-node allocation. Several lists can share one slab (ARC's T1/T2/B1/B2, 2Q's queues).
//! Each node carries its key's size in units, and each list the sum of its nodes' sizes.

pub const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub key: u64,
    pub prev: u32,
    pub next: u32,
    /// Which list the node is on (algorithm-defined), or `u8::MAX` when free.
    pub list: u8,
    /// Algorithm-defined bits (WSClock's reference bit, SIEVE's visited bit, …).
    pub flag: bool,
    /// An algorithm-defined small counter (S3-FIFO's access frequency).
    pub count: u8,
    /// The key's size in units (1 unless inserted with a size).
    pub size: u32,
    pub stamp_ns: u64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Ends {
    /// Most recently pushed.
    pub head: u32,
    /// Oldest.
    pub tail: u32,
    pub len: usize,
    /// The sizes of the nodes on the list, added up.
    pub units: u64,
}

impl Ends {
    pub const fn new() -> Self {
        Ends { head: NIL, tail: NIL, len: 0, units: 0 }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Slab {
    pub nodes: Vec<Node>,
    free: Vec<u32>,
}

impl Slab {
    pub fn alloc(&mut self, key: u64, size: u32, list: u8, stamp_ns: u64) -> u32 {
        let node = Node { key, prev: NIL, next: NIL, list, flag: false, count: 0, size, stamp_ns };
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, i: u32) {
        self.nodes[i as usize].list = u8::MAX;
        self.free.push(i);
    }

    /// Put node `i` at the head (most recent end) of `ends`.
    pub fn push_head(&mut self, ends: &mut Ends, i: u32) {
        let old = ends.head;
        {
            let n = &mut self.nodes[i as usize];
            n.prev = NIL;
            n.next = old;
        }
        if old != NIL {
            self.nodes[old as usize].prev = i;
        } else {
            ends.tail = i;
        }
        ends.head = i;
        ends.len += 1;
        ends.units += u64::from(self.nodes[i as usize].size);
    }

    pub fn unlink(&mut self, ends: &mut Ends, i: u32) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev != NIL {
            self.nodes[prev as usize].next = next;
        } else {
            ends.head = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        } else {
            ends.tail = prev;
        }
        ends.len -= 1;
        ends.units -= u64::from(self.nodes[i as usize].size);
    }
}
