//! Where the per-block and per-page state of the NAND array is stored. Blocks are
//! numbered plane by plane (block `b` is block `b % blocks_per_plane` of plane
//! `b / blocks_per_plane`), but stored interleaved: block `k` of every plane side by side.
//! Writes are striped round robin over the planes, so the open blocks of all planes
//! advance in step (same `k`, same page); stored plane after plane, their state would lie
//! a power-of-two stride apart (2 MiB of page state for 2048 blocks of 256 pages) and
//! compete for the same few cache sets, missing the cache on nearly every page program.

use crate::divide::Divisor;
#[cfg(test)]
use std::ops::Range;

/// Block and page numbering of the array, and their storage slots.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    ppb: u32,
    blocks_per_plane: u32,
    planes: usize,
    per_block: Divisor,
    per_plane: Divisor,
}

impl Layout {
    pub(crate) fn new(pages_per_block: u32, blocks_per_plane: u32, planes: usize) -> Layout {
        Layout {
            ppb: pages_per_block,
            blocks_per_plane,
            planes,
            per_block: Divisor::new(pages_per_block),
            per_plane: Divisor::new(blocks_per_plane),
        }
    }

    pub(crate) fn block_of(&self, ppn: u32) -> u32 {
        self.per_block.div(ppn)
    }

    pub(crate) fn plane_of(&self, block: u32) -> usize {
        self.per_plane.div(block) as usize
    }

    /// Storage slot of block `b`'s state.
    pub(crate) fn block_slot(&self, b: u32) -> usize {
        let plane = self.per_plane.div(b);
        let k = b - plane * self.blocks_per_plane;
        k as usize * self.planes + plane as usize
    }

    /// Storage slots of block `b`'s pages, in page order, in a table over the whole
    /// array.
    #[cfg(test)]
    pub(crate) fn pages_of(&self, b: u32) -> Range<usize> {
        let first = self.block_slot(b) * self.ppb as usize;
        first..first + self.ppb as usize
    }

    /// Storage slot of page `ppn`'s state in a table over the whole array.
    #[cfg(test)]
    pub(crate) fn page_slot(&self, ppn: u32) -> usize {
        self.locate(ppn).2
    }

    /// Page `ppn`'s block, that block's slot and the page's slot, each computed once (a
    /// program or copy needs all three).
    pub(crate) fn locate(&self, ppn: u32) -> (u32, usize, usize) {
        let b = self.per_block.div(ppn);
        let block_slot = self.block_slot(b);
        let page_slot = block_slot * self.ppb as usize + (ppn - b * self.ppb) as usize;
        (b, block_slot, page_slot)
    }
}

#[cfg(test)]
mod tests {
    use super::Layout;

    /// Slots are a bijection onto 0..n, a block's pages are contiguous, and block k of
    /// every plane is adjacent.
    #[test]
    fn slots_cover_the_array_once_with_blocks_interleaved() {
        for (ppb, bpp, planes) in [(4u32, 3u32, 5usize), (8, 4, 2), (1, 1, 1), (3, 7, 4)] {
            let l = Layout::new(ppb, bpp, planes);
            let nblocks = bpp * planes as u32;
            let mut seen = vec![false; (nblocks * ppb) as usize];
            for b in 0..nblocks {
                assert_eq!(l.block_of(b * ppb), b);
                assert_eq!(l.plane_of(b), (b / bpp) as usize);
                let pages = l.pages_of(b);
                assert_eq!(pages.start, l.block_slot(b) * ppb as usize);
                for (i, slot) in pages.enumerate() {
                    assert_eq!(l.page_slot(b * ppb + i as u32), slot);
                    assert_eq!(l.locate(b * ppb + i as u32), (b, l.block_slot(b), slot));
                    assert!(!seen[slot], "slot {slot} used twice");
                    seen[slot] = true;
                }
            }
            assert!(seen.iter().all(|&s| s));
            if planes > 1 {
                assert_eq!(l.block_slot(bpp), l.block_slot(0) + 1); // block 0 of plane 1
            }
        }
    }
}
