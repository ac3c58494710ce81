//! The replacement algorithms' nodes and lists: a slab of nodes threaded into lists by
//! `tierlab-index-list` (O(1) push, unlink and move without per-node allocation; several
//! lists share one slab: ARC's T1/T2/B1/B2, 2Q's queues). Each node carries its key's size
//! in units, and each list its length and the sum of its nodes' sizes.

pub use tierlab_index_list::NIL;
use tierlab_index_list::{Linked, Links};

#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub key: u64,
    /// Its neighbours in its list.
    pub links: Links,
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

impl Linked for Node {
    fn links(&self) -> &Links {
        &self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// One list over the slab.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ends {
    /// Its head (most recently pushed) and tail (oldest).
    pub ends: tierlab_index_list::Ends,
    pub len: usize,
    /// The sizes of the nodes on the list, added up.
    pub units: u64,
}

impl Ends {
    pub const fn new() -> Self {
        Ends { ends: tierlab_index_list::Ends::EMPTY, len: 0, units: 0 }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Slab {
    pub nodes: Vec<Node>,
    free: Vec<u32>,
}

impl Slab {
    pub fn alloc(&mut self, key: u64, size: u32, list: u8, stamp_ns: u64) -> u32 {
        let node = Node { key, links: Links::NONE, list, flag: false, count: 0, size, stamp_ns };
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
        ends.ends.push_head(&mut self.nodes, i);
        ends.len += 1;
        ends.units += u64::from(self.nodes[i as usize].size);
    }

    pub fn unlink(&mut self, ends: &mut Ends, i: u32) {
        ends.ends.unlink(&mut self.nodes, i);
        ends.len -= 1;
        ends.units -= u64::from(self.nodes[i as usize].size);
    }

    /// Move node `i`, which is on `ends`, to its head (its length and units unchanged).
    pub fn move_to_head(&mut self, ends: &mut Ends, i: u32) {
        ends.ends.move_to_head(&mut self.nodes, i);
    }
}
