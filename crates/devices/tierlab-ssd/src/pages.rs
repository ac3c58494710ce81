//! The owner tag of every NAND page (`FREE`, `INVALID` or what it holds), kept only for
//! the blocks that need one. A block's tags live in a chunk of `pages_per_block` words,
//! taken when its first page is programmed and given back when it is erased, or when it is
//! written out and its last valid page is superseded: its pages are then all invalid,
//! which a marker says without the chunk. Memory therefore follows the blocks holding
//! data (open, or sealed with a valid page), not every block a run has ever written: a
//! drive rewriting the same data reuses the same chunks, however long it runs, where a
//! table over the whole array fills up as wear leveling rotates writes through every
//! block.

use crate::flash::{FREE, INVALID};

/// A block whose pages are all free (erased, no chunk).
const ERASED: u32 = u32::MAX;
/// A block whose pages are all invalid (written out, no valid page left, no chunk).
const SUPERSEDED: u32 = u32::MAX - 1;

#[derive(Clone, Debug)]
pub(crate) struct PageStore {
    ppb: usize,
    /// Per block slot: its chunk, `ERASED` or `SUPERSEDED`.
    chunk_of: Vec<u32>,
    /// The chunks, `ppb` words each, stored inverted (0 reads `FREE`), so a new chunk is
    /// zeros. Reserved for the whole array (untouched, so it costs nothing until used).
    words: Vec<u32>,
    /// Chunks given back, reused first (last given back first: still in the cache).
    spare: Vec<u32>,
}

impl PageStore {
    pub(crate) fn new(blocks: usize, pages_per_block: u32) -> Self {
        PageStore {
            ppb: pages_per_block as usize,
            chunk_of: vec![ERASED; blocks],
            words: Vec::with_capacity(blocks.saturating_mul(pages_per_block as usize)),
            spare: Vec::new(),
        }
    }

    /// Pages in the array.
    pub(crate) fn len(&self) -> usize {
        self.chunk_of.len() * self.ppb
    }

    /// The tag of page `offset` of the block stored at `slot`.
    #[inline]
    pub(crate) fn get(&self, slot: usize, offset: usize) -> u32 {
        match self.chunk_of[slot] {
            ERASED => FREE,
            SUPERSEDED => INVALID,
            c => !self.words[c as usize * self.ppb + offset],
        }
    }

    /// Set the tag of page `offset` of the block at `slot`, giving the block a chunk if it
    /// has none (a superseded block has none and is never written before its erase).
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, offset: usize, tag: u32) {
        let mut c = self.chunk_of[slot];
        if c >= SUPERSEDED {
            debug_assert_eq!(c, ERASED, "a page of a superseded block written before its erase");
            c = self.take_chunk();
            self.chunk_of[slot] = c;
        }
        self.words[c as usize * self.ppb + offset] = !tag;
    }

    fn take_chunk(&mut self) -> u32 {
        if let Some(c) = self.spare.pop() {
            return c;
        }
        let c = (self.words.len() / self.ppb) as u32;
        self.words.resize(self.words.len() + self.ppb, 0);
        c
    }

    fn give_back(&mut self, slot: usize, now: u32) {
        let c = self.chunk_of[slot];
        if c < SUPERSEDED {
            let at = c as usize * self.ppb;
            self.words[at..at + self.ppb].fill(0);
            self.spare.push(c);
        }
        self.chunk_of[slot] = now;
    }

    /// The block at `slot` is erased: every page free.
    pub(crate) fn erase(&mut self, slot: usize) {
        self.give_back(slot, ERASED);
    }

    /// The block at `slot` is written out and holds no valid page: every page invalid.
    pub(crate) fn supersede(&mut self, slot: usize) {
        self.give_back(slot, SUPERSEDED);
    }

    /// The tags of the block at `slot`, in page order.
    pub(crate) fn block(&self, slot: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.ppb).map(move |i| self.get(slot, i))
    }

    /// Heap bytes in use: the chunks made so far and the per-block index.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.words.len() + self.chunk_of.len() + self.spare.capacity()) * std::mem::size_of::<u32>()
    }

    /// Chunks made so far (the most blocks that held data at once).
    #[cfg(test)]
    pub(crate) fn chunks(&self) -> usize {
        self.words.len() / self.ppb
    }
}

#[cfg(test)]
mod tests {
    use super::PageStore;
    use crate::flash::{FREE, INVALID};

    #[test]
    fn tags_read_free_until_set_and_chunks_are_reused() {
        let mut s = PageStore::new(4, 3);
        assert_eq!((s.len(), s.get(2, 1), s.chunks()), (12, FREE, 0));
        s.set(2, 1, 7);
        s.set(3, 0, 9);
        assert_eq!((s.get(2, 0), s.get(2, 1), s.get(3, 0), s.chunks()), (FREE, 7, 9, 2));
        s.supersede(2);
        assert_eq!(s.block(2).collect::<Vec<_>>(), [INVALID; 3]);
        s.erase(2);
        assert_eq!(s.block(2).collect::<Vec<_>>(), [FREE; 3]);
        // The chunk given back is reused, cleared: no new one is made.
        s.set(0, 2, 5);
        assert_eq!((s.block(0).collect::<Vec<_>>(), s.chunks()), (vec![FREE, FREE, 5], 2));
    }
}
