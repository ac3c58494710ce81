//! Page allocation and garbage collection shared by the page-mapped FTLs (ideal page
//! mapping and DFTL). Writes are striped round robin over planes, each plane keeping one
//! open block per stream (data, and DFTL's translation pages). A plane collects garbage
//! when its free blocks, not counting the one reserved for the collector, fall below
//! the threshold; victims are copied inside the plane
//! and the moves are handed back to the FTL to fix its mapping. One free block per plane
//! stays reserved for the collector, so collection can always finish (no deadlock).

use crate::error::OutOfSpace;
use crate::flash::{BlockKind, Flash, Purpose, NONE};
use crate::rng::SplitMix64;
use crate::spec::{SsdSpec, VictimPolicy};

/// A valid page the collector (or wear leveler) moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub owner: u32,
    pub from: u32,
    pub to: u32,
}

/// Which open block a page goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Data = 0,
    Map = 1,
}

impl Stream {
    fn kind(self) -> BlockKind {
        match self {
            Stream::Data => BlockKind::Data,
            Stream::Map => BlockKind::Map,
        }
    }
    fn of(kind: BlockKind) -> Stream {
        match kind {
            BlockKind::Data => Stream::Data,
            BlockKind::Map => Stream::Map,
        }
    }
}

pub struct PageAlloc {
    active: Vec<u32>,
    /// Next plane per stream. Separate cursors keep each stream evenly striped even when
    /// the streams alternate (DFTL writes a translation page after many data pages).
    cursor: [usize; 2],
    threshold: usize,
    policy: VictimPolicy,
    rng: SplitMix64,
    /// Moves made since the FTL last drained them.
    pub moves: Vec<Move>,
    pub gc_runs: u64,
    /// Collector copies of translation pages (DFTL), a subset of all collector copies.
    pub gc_map_copies: u64,
}

impl PageAlloc {
    pub fn new(spec: &SsdSpec) -> Self {
        PageAlloc {
            active: vec![NONE; spec.planes() as usize * 2],
            cursor: [0; 2],
            threshold: spec.gc.free_block_threshold as usize,
            policy: spec.gc.victim,
            rng: SplitMix64::new(spec.gc.seed),
            moves: Vec::new(),
            gc_runs: 0,
            gc_map_copies: 0,
        }
    }

    /// A free page for a host or mapping write, from the next plane that can give one
    /// (collecting garbage there first if it is short of free blocks).
    pub fn alloc_page(
        &mut self,
        flash: &mut Flash,
        stream: Stream,
        now_ns: u64,
    ) -> Result<u32, OutOfSpace> {
        let planes = flash.planes();
        for _ in 0..planes {
            // The cursor stays below `planes`; stepping it needs no division.
            let cursor = &mut self.cursor[stream as usize];
            let p = *cursor;
            *cursor = if p + 1 >= planes { 0 } else { p + 1 };
            if let Some(ppn) = self.try_plane(flash, p, stream, now_ns) {
                return Ok(ppn);
            }
        }
        Err(OutOfSpace)
    }

    #[inline]
    fn try_plane(
        &mut self,
        flash: &mut Flash,
        p: usize,
        stream: Stream,
        now_ns: u64,
    ) -> Option<u32> {
        // The threshold does not count the block reserved for the collector.
        if flash.free_blocks(p) <= self.threshold {
            self.collect_until_above_threshold(flash, p, now_ns);
        }
        self.page_in(flash, p, stream, true)
    }

    /// Collect in plane `p` until it has more free blocks than the threshold, or nothing
    /// is left to reclaim. Kept out of line: the page-allocation path that calls it is hot
    /// and it runs only when a plane runs short.
    #[inline(never)]
    fn collect_until_above_threshold(&mut self, flash: &mut Flash, p: usize, now_ns: u64) {
        while flash.free_blocks(p) <= self.threshold {
            if !self.collect(flash, p, now_ns) {
                break;
            }
        }
    }

    /// A page for a collector copy: the plane's open block of the stream, else a new one
    /// (the reserved block may be used).
    fn gc_page(&mut self, flash: &mut Flash, p: usize, stream: Stream) -> Option<u32> {
        self.page_in(flash, p, stream, false)
    }

    /// The next page of plane `p`'s open block for `stream`, opening a new block when it is
    /// full; with `keep_reserve`, the plane's last free block stays for the collector.
    #[inline]
    fn page_in(&mut self, flash: &mut Flash, p: usize, stream: Stream, keep_reserve: bool) -> Option<u32> {
        let a = self.active[p * 2 + stream as usize];
        if a != NONE {
            if let Some(ppn) = flash.take_page(a) {
                return Some(ppn);
            }
        }
        self.open_block(flash, p, stream, keep_reserve)
    }

    /// Seal plane `p`'s written-out block of `stream` (if any) and take the first page of
    /// a new one; once per block, so out of line.
    #[inline(never)]
    fn open_block(&mut self, flash: &mut Flash, p: usize, stream: Stream, keep_reserve: bool) -> Option<u32> {
        let slot = p * 2 + stream as usize;
        let a = self.active[slot];
        if a != NONE {
            flash.seal(a);
            self.active[slot] = NONE;
        }
        if keep_reserve && flash.free_blocks(p) < 2 {
            return None;
        }
        let b = flash.alloc_block(p, stream.kind())?;
        self.active[slot] = b;
        flash.take_page(b)
    }

    /// Reclaim one block of plane `p`. Returns false when nothing can be reclaimed.
    pub fn collect(&mut self, flash: &mut Flash, p: usize, now_ns: u64) -> bool {
        let Some(victim) = flash.take_victim(p, self.policy, &mut self.rng, now_ns) else {
            return false;
        };
        let stream = Stream::of(flash.block_kind(victim));
        let first = flash.first_page(victim);
        for src in first..first + flash.pages_per_block() {
            if !flash.is_valid(src) {
                continue;
            }
            let Some(dst) = self.gc_page(flash, p, stream) else {
                // Cannot happen while the reserve holds; put the victim back untouched.
                flash.seal(victim);
                return false;
            };
            let owner = flash.owner(src);
            flash.copy(src, dst, now_ns, Purpose::Gc);
            self.moves.push(Move {
                owner,
                from: src,
                to: dst,
            });
            if stream == Stream::Map {
                self.gc_map_copies += 1;
            }
        }
        flash.erase(victim, now_ns);
        self.gc_runs += 1;
        true
    }

    /// Explicit wear leveling: move the valid pages of sealed block `cold` into the most
    /// worn free block of its plane, then erase `cold` so hot data can wear it.
    pub fn relocate_cold(&mut self, flash: &mut Flash, cold: u32, now_ns: u64) -> bool {
        let p = flash.plane_of(cold);
        if flash.free_blocks(p) < 2 || !flash.claim_full(cold) {
            return false;
        }
        let kind = flash.block_kind(cold);
        let Some(worn) = flash.alloc_most_worn(p, kind) else {
            flash.seal(cold);
            return false;
        };
        let first = flash.first_page(cold);
        for src in first..first + flash.pages_per_block() {
            if !flash.is_valid(src) {
                continue;
            }
            let Some(dst) = flash.take_page(worn) else {
                break;
            };
            let owner = flash.owner(src);
            flash.copy(src, dst, now_ns, Purpose::Wear);
            self.moves.push(Move {
                owner,
                from: src,
                to: dst,
            });
        }
        flash.seal(worn);
        flash.erase(cold, now_ns);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::FtlKind;

    /// Regression: the streams once shared one round-robin cursor, so when DFTL wrote a
    /// translation page after every data page, data landed on every other plane only;
    /// those planes filled with valid data and their collection copied nearly full blocks.
    #[test]
    fn each_stream_stripes_over_every_plane_when_streams_alternate() {
        let spec = SsdSpec::study_slc(64, FtlKind::Dftl);
        let mut flash = Flash::new(&spec);
        let mut alloc = PageAlloc::new(&spec);
        let mut data_planes = vec![0u32; flash.planes()];
        for _ in 0..4 * flash.planes() {
            let Ok(d) = alloc.alloc_page(&mut flash, Stream::Data, 0) else {
                panic!("no page")
            };
            data_planes[flash.plane_of(flash.block_of(d))] += 1;
            assert!(alloc.alloc_page(&mut flash, Stream::Map, 0).is_ok());
        }
        assert!(data_planes.iter().all(|&n| n == 4), "{data_planes:?}");
    }
}
