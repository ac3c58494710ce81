//! The NAND array: per-page state (the owner recorded in the OOB area), per-block
//! metadata, free-block pools per plane, the reclaim index garbage collectors search,
//! and the busy timelines of channel buses and planes that turn each operation into a
//! completion time. Every FTL drives flash only through this type, so operation counts,
//! energy and timing are accounted in one place.

use crate::bus::Bus;
use crate::divide::Divisor;
use crate::layout::Layout;
use crate::mem;
use crate::pages::PageStore;
use crate::rng::SplitMix64;
use crate::spec::{SsdSpec, VictimPolicy, WearLeveling};
use crate::stamps::Stamps;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Page state: never programmed since the last erase.
pub const FREE: u32 = u32::MAX;
/// Page state: programmed, then superseded.
pub const INVALID: u32 = u32::MAX - 1;
/// "No page / no block" in mapping tables.
pub const NONE: u32 = u32::MAX;
/// Owner tag bit marking a DFTL translation page (its owner is a translation page number).
pub const MAP_TAG: u32 = 1 << 31;

/// Why a flash operation happened, for the report's split of page operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Host data.
    User = 0,
    /// Garbage collection and merges.
    Gc = 1,
    /// Mapping (DFTL translation pages).
    Map = 2,
    /// Explicit wear leveling.
    Wear = 3,
}

/// What a block holds, for erases counted by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Data,
    Map,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockState {
    /// In a free pool.
    Free,
    /// Allocated and owned by an FTL (being written, a data or log block, or a GC victim).
    Open,
    /// Sealed by a page-mapped FTL: a candidate in the reclaim index.
    Full,
}

/// Everything a page operation reads or writes about its block, in one aligned 32-byte
/// slot: an operation on a block not in cache costs one cache miss, not one per field.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct BlockMeta {
    erase_count: u32,
    valid: u32,
    next_page: u32,
    /// Neighbours in the reclaim index list (sealed blocks only), `NONE` at the ends;
    /// `prev` is a stamp instead while the index is not kept (`Flash::reclaim_stamps`).
    prev: u32,
    next: u32,
    state: BlockState,
    kind: BlockKind,
    last_write_ns: u64,
}

/// Operation counts and energy since the last reset.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlashCounters {
    /// Page reads by purpose: user, gc, mapping, wear leveling.
    pub page_reads: [u64; 4],
    pub page_writes: [u64; 4],
    pub erases_data: u64,
    pub erases_map: u64,
    pub copy_backs: u64,
    pub read_j: f64,
    pub program_j: f64,
    pub erase_j: f64,
}

impl FlashCounters {
    pub fn page_ops(&self) -> u64 {
        self.page_reads.iter().sum::<u64>() + self.page_writes.iter().sum::<u64>()
    }
}

pub struct Flash {
    ppb: u32,
    /// Block and page numbering, and where their state is stored in `blocks`, `pages`
    /// and `erase_base`.
    layout: Layout,
    /// Planes per channel.
    per_channel: Divisor,
    t_read: u64,
    t_prog: u64,
    t_erase: u64,
    t_cmd: u64,
    t_xfer: u64,
    e_read: f64,
    e_prog: f64,
    e_erase: f64,
    copy_back: bool,
    /// Owner tag of every page (`FREE` until programmed), by block slot and page offset,
    /// stored for the blocks holding data only.
    pages: PageStore,
    blocks: Vec<BlockMeta>,
    /// Free blocks per plane, smallest key first (erase count or FIFO sequence).
    pools: Vec<BinaryHeap<Reverse<(u64, u32)>>>,
    fifo_seq: u64,
    wear: WearLeveling,
    alloc_cursor: usize,
    /// Reclaim index: doubly linked lists of Full blocks by (plane, valid count),
    /// linked through `BlockMeta::prev` and `next`, most recently linked first.
    heads: Vec<u32>,
    /// In use while the reclaim index is not kept. Only the collector reads it, and a
    /// drive that has not needed to collect yet (a fresh or roomy one, as a hybrid drive's
    /// SSD mostly is) would relink a block on every page it invalidates for nothing: until
    /// then each sealed block's `prev` holds the stamp of its last link, and the index is
    /// built from the stamps when first read.
    reclaim_stamps: Stamps,
    buses: Vec<Bus>,
    plane_free_ns: Vec<u64>,
    /// Erase counts at the last `reset_stats`, stored like `blocks`.
    erase_base: Vec<u32>,
    pub counters: FlashCounters,
    /// Erases since the wear leveler last looked.
    pub erases_since_wl_check: u64,
    /// Data versions per page, kept only when verification is on (empty otherwise):
    /// each host page program gets the next version, copies carry theirs along.
    versions: Vec<u32>,
    pub version_clock: u32,
}

impl Flash {
    /// An erased array. `spec` must be validated.
    pub fn new(spec: &SsdSpec) -> Flash {
        let g = &spec.geometry;
        let planes = spec.planes() as usize;
        let nblocks = spec.total_blocks() as usize;
        let ppb = g.pages_per_block;
        let mut f = Flash {
            ppb,
            layout: Layout::new(ppb, g.blocks_per_plane, planes),
            per_channel: Divisor::new(spec.planes_per_channel() as u32),
            t_read: spec.timing.page_read_ns,
            t_prog: spec.timing.page_program_ns,
            t_erase: spec.timing.block_erase_ns,
            t_cmd: spec.timing.command_ns,
            t_xfer: spec.transfer_ns(),
            e_read: spec.energy.page_read_j,
            e_prog: spec.energy.page_program_j,
            e_erase: spec.energy.block_erase_j,
            copy_back: spec.timing.copy_back,
            pages: PageStore::new(nblocks, ppb),
            blocks: mem::filled(
                nblocks,
                BlockMeta {
                    erase_count: 0,
                    valid: 0,
                    next_page: 0,
                    prev: NONE,
                    next: NONE,
                    state: BlockState::Free,
                    kind: BlockKind::Data,
                    last_write_ns: 0,
                },
            ),
            pools: vec![BinaryHeap::new(); planes],
            fifo_seq: 0,
            wear: spec.wear_leveling.mode,
            alloc_cursor: 0,
            heads: vec![NONE; planes * (ppb as usize + 1)],
            reclaim_stamps: Stamps::new(),
            buses: vec![Bus::default(); g.channels as usize],
            plane_free_ns: vec![0; planes],
            erase_base: vec![0; nblocks],
            counters: FlashCounters::default(),
            erases_since_wl_check: 0,
            versions: Vec::new(),
            version_clock: 0,
        };
        for b in 0..nblocks as u32 {
            f.push_free(b);
        }
        f
    }

    /// State of block `b`.
    fn meta(&self, b: u32) -> &BlockMeta {
        &self.blocks[self.layout.block_slot(b)]
    }

    fn meta_mut(&mut self, b: u32) -> &mut BlockMeta {
        &mut self.blocks[self.layout.block_slot(b)]
    }

    pub fn pages_per_block(&self) -> u32 {
        self.ppb
    }
    pub fn planes(&self) -> usize {
        self.pools.len()
    }
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }
    pub fn plane_of(&self, block: u32) -> usize {
        self.layout.plane_of(block)
    }
    pub fn block_of(&self, ppn: u32) -> u32 {
        self.layout.block_of(ppn)
    }
    pub fn first_page(&self, block: u32) -> u32 {
        block * self.ppb
    }
    /// Owner tag of a page, or `FREE` / `INVALID`.
    pub fn owner(&self, ppn: u32) -> u32 {
        let (b, slot, _) = self.layout.locate(ppn);
        self.pages.get(slot, (ppn - b * self.ppb) as usize)
    }
    pub fn is_valid(&self, ppn: u32) -> bool {
        self.owner(ppn) < INVALID
    }
    pub fn is_free(&self, ppn: u32) -> bool {
        self.owner(ppn) == FREE
    }
    pub fn valid_count(&self, block: u32) -> u32 {
        self.meta(block).valid
    }
    pub fn erase_count(&self, block: u32) -> u32 {
        self.meta(block).erase_count
    }
    /// Erases of a block since the last `reset_stats`.
    pub fn run_erases(&self, block: u32) -> u32 {
        let slot = self.layout.block_slot(block);
        self.blocks[slot].erase_count - self.erase_base[slot]
    }
    pub fn is_block_free(&self, block: u32) -> bool {
        self.meta(block).state == BlockState::Free
    }
    pub fn block_kind(&self, block: u32) -> BlockKind {
        self.meta(block).kind
    }
    pub fn free_blocks(&self, plane: usize) -> usize {
        self.pools[plane].len()
    }
    pub fn total_free_blocks(&self) -> usize {
        self.pools.iter().map(|p| p.len()).sum()
    }
    /// Sequential write pointer of a block has reached its end.
    pub fn block_written_out(&self, block: u32) -> bool {
        self.meta(block).next_page >= self.ppb
    }

    // ---- timelines -------------------------------------------------------------------

    fn channel_of(&self, plane: usize) -> usize {
        self.per_channel.div(plane as u32) as usize
    }

    /// Command, array read, and (unless `transfer` is false) data out over the bus.
    #[inline]
    fn time_read(&mut self, plane: usize, ready_ns: u64, transfer: bool) -> u64 {
        let ch = self.channel_of(plane);
        let cmd = self.buses[ch].reserve(ready_ns.max(self.plane_free_ns[plane]), self.t_cmd);
        let array_done = cmd + self.t_cmd + self.t_read;
        let done = if transfer {
            self.buses[ch].reserve(array_done, self.t_xfer) + self.t_xfer
        } else {
            array_done
        };
        self.plane_free_ns[plane] = done;
        done
    }

    /// Command and (unless `transfer` is false) data in over the bus, then the program
    /// with the bus free.
    #[inline]
    fn time_program(&mut self, plane: usize, ready_ns: u64, transfer: bool) -> u64 {
        let ch = self.channel_of(plane);
        let bus = self.t_cmd + if transfer { self.t_xfer } else { 0 };
        let start = self.buses[ch].reserve(ready_ns.max(self.plane_free_ns[plane]), bus);
        self.plane_free_ns[plane] = start + bus + self.t_prog;
        self.plane_free_ns[plane]
    }

    fn time_erase(&mut self, plane: usize, ready_ns: u64) -> u64 {
        let ch = self.channel_of(plane);
        let start = self.buses[ch].reserve(ready_ns.max(self.plane_free_ns[plane]), self.t_cmd);
        self.plane_free_ns[plane] = start + self.t_cmd + self.t_erase;
        self.plane_free_ns[plane]
    }

    // ---- operations ------------------------------------------------------------------

    /// Read one page for `purpose`; returns when its data is out of the device.
    pub fn read(&mut self, ppn: u32, ready_ns: u64, purpose: Purpose) -> u64 {
        self.counters.page_reads[purpose as usize] += 1;
        self.counters.read_j += self.e_read;
        self.time_read(self.plane_of(self.block_of(ppn)), ready_ns, true)
    }

    /// Program a free page with `owner`; returns when the program is done.
    pub fn program(&mut self, ppn: u32, owner: u32, ready_ns: u64, purpose: Purpose) -> u64 {
        debug_assert!(self.is_free(ppn), "program of a used page {ppn}");
        debug_assert!(owner < INVALID);
        let (b, block_slot, _) = self.layout.locate(ppn);
        self.pages.set(block_slot, (ppn - b * self.ppb) as usize, owner);
        self.bump_valid(b, block_slot, true);
        self.counters.page_writes[purpose as usize] += 1;
        self.counters.program_j += self.e_prog;
        if !self.versions.is_empty() {
            let v = if purpose == Purpose::User {
                self.version_clock += 1;
                self.version_clock
            } else {
                0
            };
            self.versions[ppn as usize] = v;
        }
        let done = self.time_program(self.plane_of(b), ready_ns, true);
        self.blocks[block_slot].last_write_ns = done;
        done
    }

    /// Move a valid page to a free page (read + program; copy-back inside a plane when
    /// enabled), invalidating the source. Returns when the program is done.
    pub fn copy(&mut self, src: u32, dst: u32, ready_ns: u64, purpose: Purpose) -> u64 {
        let owner = self.owner(src);
        debug_assert!(owner < INVALID, "copy of a page that is not valid");
        let (ps, pd) = (
            self.plane_of(self.block_of(src)),
            self.plane_of(self.block_of(dst)),
        );
        let internal = self.copy_back && ps == pd;
        self.counters.page_reads[purpose as usize] += 1;
        self.counters.read_j += self.e_read;
        let t = self.time_read(ps, ready_ns, !internal);
        self.invalidate(src);
        let (db, db_slot, _) = self.layout.locate(dst);
        self.pages.set(db_slot, (dst - db * self.ppb) as usize, owner);
        self.bump_valid(db, db_slot, true);
        self.counters.page_writes[purpose as usize] += 1;
        self.counters.program_j += self.e_prog;
        if internal {
            self.counters.copy_backs += 1;
        }
        if !self.versions.is_empty() {
            self.versions[dst as usize] = self.versions[src as usize];
        }
        let done = self.time_program(pd, t, !internal);
        self.blocks[db_slot].last_write_ns = done;
        done
    }

    /// Mark a valid page superseded.
    pub fn invalidate(&mut self, ppn: u32) {
        let (b, block_slot, _) = self.layout.locate(ppn);
        let offset = (ppn - b * self.ppb) as usize;
        let page = self.pages.get(block_slot, offset);
        debug_assert!(page < INVALID, "invalidate of a page that is not valid");
        if page >= INVALID {
            return;
        }
        self.pages.set(block_slot, offset, INVALID);
        self.bump_valid(b, block_slot, false);
        let m = &self.blocks[block_slot];
        // Written out (pages are taken in order, each programmed before the next is
        // taken, so the last one programmed means all are) and nothing valid left: every
        // page is invalid until the erase.
        if m.valid == 0 && m.next_page >= self.ppb && self.pages.get(block_slot, self.ppb as usize - 1) != FREE {
            self.pages.supersede(block_slot);
        }
    }

    /// Count a page of block `b` (stored at `slot`) in (`up`) or out of its valid
    /// pages; a sealed block moves to the reclaim-index list of its new count.
    fn bump_valid(&mut self, b: u32, slot: usize, up: bool) {
        let full = self.blocks[slot].state == BlockState::Full;
        if full {
            self.unlink(b);
        }
        let m = &mut self.blocks[slot];
        if up {
            m.valid += 1;
        } else {
            m.valid -= 1;
        }
        if full {
            self.link(b);
        }
    }

    /// Erase a block that holds no valid page and return it to its plane's pool.
    pub fn erase(&mut self, block: u32, ready_ns: u64) -> u64 {
        debug_assert_eq!(
            self.meta(block).valid,
            0,
            "erase of a block with valid pages"
        );
        if self.meta(block).state == BlockState::Full {
            self.unlink(block);
        }
        self.pages.erase(self.layout.block_slot(block));
        let kind = self.meta(block).kind;
        match kind {
            BlockKind::Data => self.counters.erases_data += 1,
            BlockKind::Map => self.counters.erases_map += 1,
        }
        self.counters.erase_j += self.e_erase;
        self.erases_since_wl_check += 1;
        let m = self.meta_mut(block);
        m.erase_count += 1;
        m.valid = 0;
        m.next_page = 0;
        let done = self.time_erase(self.plane_of(block), ready_ns);
        self.push_free(block);
        done
    }

    // ---- free pools ------------------------------------------------------------------

    fn pool_key(&mut self, block: u32) -> u64 {
        match self.wear {
            WearLeveling::None => {
                self.fifo_seq += 1;
                self.fifo_seq
            }
            WearLeveling::Implicit | WearLeveling::Explicit => self.meta(block).erase_count as u64,
        }
    }

    fn push_free(&mut self, block: u32) {
        let key = self.pool_key(block);
        self.meta_mut(block).state = BlockState::Free;
        let plane = self.plane_of(block);
        self.pools[plane].push(Reverse((key, block)));
    }

    fn open(&mut self, block: u32, kind: BlockKind) -> u32 {
        let m = self.meta_mut(block);
        m.state = BlockState::Open;
        m.kind = kind;
        m.next_page = 0;
        block
    }

    /// Take a free block of `plane` (least erased first under implicit/explicit wear
    /// leveling, first-in first-out otherwise).
    pub fn alloc_block(&mut self, plane: usize, kind: BlockKind) -> Option<u32> {
        let Reverse((_, b)) = self.pools[plane].pop()?;
        Some(self.open(b, kind))
    }

    /// Take a free block from the next plane (round robin) that has one.
    pub fn alloc_block_any(&mut self, kind: BlockKind) -> Option<u32> {
        let n = self.planes();
        for i in 0..n {
            let p = (self.alloc_cursor + i) % n;
            if !self.pools[p].is_empty() {
                self.alloc_cursor = (p + 1) % n;
                return self.alloc_block(p, kind);
            }
        }
        None
    }

    /// Take the most erased free block of `plane` (explicit wear leveling puts cold data
    /// there).
    pub fn alloc_most_worn(&mut self, plane: usize, kind: BlockKind) -> Option<u32> {
        let Reverse((_, worn)) = *self.pools[plane]
            .iter()
            .max_by_key(|Reverse((_, b))| (self.meta(*b).erase_count, Reverse(*b)))?;
        self.pools[plane].retain(|Reverse((_, b))| *b != worn);
        Some(self.open(worn, kind))
    }

    /// Next page of a block written sequentially, or None when it is written out.
    pub fn take_page(&mut self, block: u32) -> Option<u32> {
        let ppb = self.ppb;
        let m = self.meta_mut(block);
        if m.next_page >= ppb {
            return None;
        }
        m.next_page += 1;
        Some(block * ppb + m.next_page - 1)
    }

    /// Switch the free-pool order (wear-leveling mode) at run time.
    pub fn set_wear_leveling(&mut self, mode: WearLeveling) {
        self.wear = mode;
        for plane in 0..self.pools.len() {
            let mut free: Vec<u32> = self.pools[plane].drain().map(|Reverse((_, b))| b).collect();
            free.sort_unstable();
            for b in free {
                self.push_free(b);
            }
        }
    }

    // ---- reclaim index (page-mapped FTLs) -------------------------------------------

    fn bucket(&self, b: u32) -> usize {
        self.plane_of(b) * (self.ppb as usize + 1) + self.meta(b).valid as usize
    }

    /// Put sealed block `b` in front of the list of its valid count (or, while the index
    /// is not kept, stamp it).
    #[inline]
    fn link(&mut self, b: u32) {
        if !self.reclaim_stamps.in_use() {
            self.link_listed(b);
        } else if let Some(stamp) = self.reclaim_stamps.next() {
            self.meta_mut(b).prev = stamp;
        } else {
            // Stamps ran out: build the index, `b` last, so in front of its list.
            self.meta_mut(b).prev = u32::MAX;
            self.build_reclaim_index();
        }
    }

    /// `link` while the index is kept.
    #[inline(never)]
    fn link_listed(&mut self, b: u32) {
        let h = self.bucket(b);
        let old = self.heads[h];
        let m = self.meta_mut(b);
        m.prev = NONE;
        m.next = old;
        if old != NONE {
            self.meta_mut(old).prev = b;
        }
        self.heads[h] = b;
    }

    /// Take sealed block `b` out of its list (nothing to do while the index is not kept).
    #[inline]
    fn unlink(&mut self, b: u32) {
        if !self.reclaim_stamps.in_use() {
            self.unlink_listed(b);
        }
    }

    /// `unlink` while the index is kept.
    #[inline(never)]
    fn unlink_listed(&mut self, b: u32) {
        let m = self.meta_mut(b);
        let (p, n) = (m.prev, m.next);
        m.prev = NONE;
        m.next = NONE;
        if p != NONE {
            self.meta_mut(p).next = n;
        } else {
            let h = self.bucket(b);
            self.heads[h] = n;
        }
        if n != NONE {
            self.meta_mut(n).prev = p;
        }
    }

    /// Start keeping the reclaim index now (`None`), or stamp links from `next` on.
    #[cfg(test)]
    pub(crate) fn set_reclaim_stamps(&mut self, next: Option<u32>) {
        self.reclaim_stamps = Stamps::starting_at(next);
    }

    /// Build the reclaim index from the stamps (least recently linked first, so each
    /// list ends up most recent first, as linking one by one leaves it) and keep it from
    /// now on.
    fn build_reclaim_index(&mut self) {
        if !self.reclaim_stamps.stop() {
            return;
        }
        let mut sealed: Vec<(u32, u32)> = (0..self.blocks.len() as u32)
            .filter(|&b| self.meta(b).state == BlockState::Full)
            .map(|b| (self.meta(b).prev, b))
            .collect();
        sealed.sort_unstable();
        for (_, b) in sealed {
            self.link_listed(b);
        }
    }

    /// A written-out block becomes a garbage-collection candidate.
    pub fn seal(&mut self, block: u32) {
        if self.meta(block).state == BlockState::Open {
            self.meta_mut(block).state = BlockState::Full;
            self.link(block);
        }
    }

    /// Choose and claim (remove from the index) a block of `plane` worth reclaiming:
    /// a sealed block with at least one invalid page. None if there is none.
    pub fn take_victim(
        &mut self,
        plane: usize,
        policy: VictimPolicy,
        rng: &mut SplitMix64,
        now_ns: u64,
    ) -> Option<u32> {
        self.build_reclaim_index();
        let base = plane * (self.ppb as usize + 1);
        let reclaimable = base..base + self.ppb as usize; // valid counts 0..ppb-1
        let victim = match policy {
            VictimPolicy::Greedy => reclaimable.map(|h| self.heads[h]).find(|&b| b != NONE)?,
            VictimPolicy::CostBenefit => {
                let mut best: Option<(f64, u32)> = None;
                for h in reclaimable {
                    let mut b = self.heads[h];
                    while b != NONE {
                        let m = self.meta(b);
                        let u = m.valid as f64 / self.ppb as f64;
                        let age = now_ns.saturating_sub(m.last_write_ns) as f64 + 1.0;
                        let score = (1.0 - u) / (2.0 * u).max(1e-9) * age;
                        let better = match best {
                            None => true,
                            Some((s, bb)) => score > s || (score == s && b < bb),
                        };
                        if better {
                            best = Some((score, b));
                        }
                        b = self.meta(b).next;
                    }
                }
                best?.1
            }
            VictimPolicy::Random => {
                let mut cands = 0u64;
                for h in reclaimable.clone() {
                    let mut b = self.heads[h];
                    while b != NONE {
                        cands += 1;
                        b = self.meta(b).next;
                    }
                }
                if cands == 0 {
                    return None;
                }
                let mut k = rng.below(cands);
                let mut pick = NONE;
                'outer: for h in reclaimable {
                    let mut b = self.heads[h];
                    while b != NONE {
                        if k == 0 {
                            pick = b;
                            break 'outer;
                        }
                        k -= 1;
                        b = self.meta(b).next;
                    }
                }
                pick
            }
        };
        self.unlink(victim);
        self.meta_mut(victim).state = BlockState::Open;
        Some(victim)
    }

    /// Claim a specific sealed block (explicit wear leveling's cold block).
    pub fn claim_full(&mut self, block: u32) -> bool {
        if self.meta(block).state != BlockState::Full {
            return false;
        }
        self.unlink(block);
        self.meta_mut(block).state = BlockState::Open;
        true
    }

    /// Start tracking data versions (tests of the mapping).
    pub fn enable_versions(&mut self) {
        self.versions = vec![0; self.pages.len()];
    }

    /// Version of the data in a page (0 when versions are off or it predates them).
    pub fn version(&self, ppn: u32) -> u32 {
        self.versions.get(ppn as usize).copied().unwrap_or(0)
    }

    // ---- statistics ------------------------------------------------------------------

    /// Start a measurement: zero counters and timelines, remember erase counts.
    pub fn reset_stats(&mut self) {
        self.counters = FlashCounters::default();
        self.buses.iter_mut().for_each(|b| *b = Bus::default());
        self.plane_free_ns.iter_mut().for_each(|t| *t = 0);
        for (base, m) in self.erase_base.iter_mut().zip(&self.blocks) {
            *base = m.erase_count;
        }
        for m in &mut self.blocks {
            m.last_write_ns = 0;
        }
    }

    /// The largest erase count of any block, and the wear leveler's candidate: the least
    /// erased sealed block (page-mapped FTLs; their open blocks are being written), or,
    /// where nothing is sealed (block-mapped FTLs), the least erased block in use.
    pub fn wear_candidate(&self) -> (u32, Option<u32>) {
        let mut max = 0;
        let mut sealed: Option<(u32, u32)> = None;
        let mut in_use: Option<(u32, u32)> = None;
        for b in 0..self.blocks.len() as u32 {
            let m = self.meta(b);
            max = max.max(m.erase_count);
            let slot = match m.state {
                BlockState::Free => continue,
                BlockState::Full => &mut sealed,
                BlockState::Open => &mut in_use,
            };
            if !slot.is_some_and(|(e, _)| m.erase_count >= e) {
                *slot = Some((m.erase_count, b));
            }
        }
        (max, sealed.or(in_use).map(|(_, b)| b))
    }

    /// Check the array's bookkeeping: valid counts match page states, the reclaim index
    /// holds exactly the sealed blocks under their valid counts, free blocks are erased.
    pub fn check(&self) -> Result<(), String> {
        let mut in_pool = vec![false; self.blocks.len()];
        for pool in &self.pools {
            for Reverse((_, b)) in pool.iter() {
                in_pool[*b as usize] = true;
            }
        }
        for (b, free) in (0..self.blocks.len() as u32).zip(in_pool) {
            let m = self.meta(b);
            let slot = self.layout.block_slot(b);
            let pages = || self.pages.block(slot);
            let valid = pages().filter(|&p| p < INVALID).count() as u32;
            if valid != m.valid {
                return Err(format!(
                    "block {b}: valid count {} but {valid} valid pages",
                    m.valid
                ));
            }
            let want_map = m.kind == BlockKind::Map;
            if pages().any(|p| p < INVALID && (p & MAP_TAG != 0) != want_map)
            {
                return Err(format!(
                    "block {b} of kind {:?} holds a page of the other kind",
                    m.kind
                ));
            }
            if (m.state == BlockState::Free) != free {
                return Err(format!(
                    "block {b}: state {:?} disagrees with the free pool",
                    m.state
                ));
            }
            if m.state == BlockState::Free && pages().any(|p| p != FREE) {
                return Err(format!("free block {b} holds programmed pages"));
            }
        }
        let mut linked = 0;
        for h in 0..self.heads.len() {
            let mut b = self.heads[h];
            let mut prev = NONE;
            while b != NONE {
                linked += 1;
                if self.meta(b).state != BlockState::Full
                    || self.bucket(b) != h
                    || self.meta(b).prev != prev
                {
                    return Err(format!("reclaim index corrupt at block {b}"));
                }
                prev = b;
                b = self.meta(b).next;
            }
        }
        let sealed = self.blocks.iter().filter(|m| m.state == BlockState::Full).count();
        let expected = if self.reclaim_stamps.in_use() { 0 } else { sealed };
        if linked != expected {
            return Err(format!("reclaim index holds {linked} blocks, expected {expected} ({sealed} sealed)"));
        }
        Ok(())
    }

    /// Bytes of simulator state per page and per block (for the memory figure).
    pub fn state_bytes(&self) -> (usize, usize) {
        let per_page = std::mem::size_of::<u32>();
        // metadata (with the reclaim-index links), erase baseline, free-pool entry
        let per_block = std::mem::size_of::<BlockMeta>() + std::mem::size_of::<u32>() + 16;
        (per_page, per_block)
    }

    /// Heap bytes of the per-page state.
    pub fn page_state_bytes(&self) -> usize {
        self.pages.heap_bytes()
    }

    /// Heap bytes of the array's state.
    pub fn heap_bytes(&self) -> usize {
        let (per_page, per_block) = self.state_bytes();
        let _ = per_page;
        self.pages.heap_bytes()
            + self.blocks.len() * per_block
            + self.heads.len() * 4
            + self.versions.len() * 4
    }
}
