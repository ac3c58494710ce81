//! The array controller's NVRAM cache: a write-back cache of fixed-size blocks.
//!
//! - A write is acknowledged once its blocks are in NVRAM (they are dirty until destaged).
//!   When every block is dirty and nothing clean can be evicted, the write must wait for a
//!   destage ([`Nvram::write`] says so) — a full cache throttles the host.
//! - A read whose blocks are all cached is a hit, served from NVRAM. A miss is read from
//!   the disks and its blocks are then cached clean ([`Nvram::fill`]).
//! - Replacement is LRU over the clean blocks (dirty ones cannot be evicted and keep no
//!   recency: a destaged block joins the clean blocks as the most recently used, so
//!   eviction never walks past dirty ones).
//! - Destaging takes the oldest dirty block and the dirty blocks contiguous with it, up to
//!   `max_destage_bytes`, as one range ([`Nvram::next_destage`]). It is due when dirty
//!   data passes the high watermark or the oldest dirty block is older than `max_age_ns`.
//!   A block written again while its destage is in flight stays dirty.
//! - The dirty blocks not being destaged are kept in the order they became dirty (a
//!   second list through the same links: a block is in the clean list, in this one, or,
//!   while its destage is in flight, in neither), so the oldest is at its tail: no
//!   search, however many blocks are dirty.
//! - Blocks are kept in aligned pairs (blocks 2k and 2k + 1): the block map has one entry
//!   per pair with a block cached, and a pair's two slots share one 64-byte line, so a
//!   request for both blocks of a pair (an 8 KiB one) looks up one map entry and loads
//!   one line of slots, and evicting both removes one map entry. Which slot a block has
//!   is not visible outside: every decision (hits, evictions, destages) is the block's.
//!
//! Memory: 32 bytes per slot, two slots per pair with a block cached (32 bytes per cached
//! block when the cached blocks come in pairs, up to 64 when each is alone), and 32 to 64
//! bytes per pair in the block map, a table sized for the capacity in pairs from the start
//! (2 GiB of 4 KiB blocks in pairs: 16 MiB of slots, 16 MiB of map).

use serde::Serialize;
use tierlab_index_list::{Ends, Linked, Links, NIL};

/// Settings of the cache.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NvramConfig {
    pub capacity_bytes: u64,
    pub block_bytes: u64,
    /// Destage when dirty data exceeds this share of the capacity…
    pub high_watermark: f64,
    /// …or when the oldest dirty block is older than this.
    pub max_age_ns: u64,
    /// The largest range one destage writes.
    pub max_destage_bytes: u64,
}

impl NvramConfig {
    /// `capacity_bytes` of 4 KiB blocks; destage above half full or after 30 s, at most
    /// `max_destage_bytes` per destage.
    pub fn new(capacity_bytes: u64, max_destage_bytes: u64) -> NvramConfig {
        NvramConfig { capacity_bytes, block_bytes: 4096, high_watermark: 0.5, max_age_ns: 30_000_000_000, max_destage_bytes: max_destage_bytes.max(4096) }
    }
}

/// Counters for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NvramStats {
    pub read_hits: u64,
    pub read_misses: u64,
    pub writes_absorbed: u64,
    pub writes_throttled: u64,
    pub destages: u64,
    pub destaged_bytes: u64,
}

/// The list of clean blocks, most recently used at its head.
const CLEAN: usize = 0;
/// The list of dirty blocks not being destaged, the most recently dirtied at its head.
const AGING: usize = 1;

/// Aligned to 32 bytes (its size), so that a pair's two slots share a 64-byte line.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Slot {
    block: u64,
    /// Neighbours in the slot's list ([`Slot::list`]).
    links: Links,
    /// The slot holds a block (its pair's other slot may, while this one does not).
    live: bool,
    dirty: bool,
    /// A destage of this block is in flight.
    destaging: bool,
    /// Written again while its destage was in flight: stays dirty when that completes.
    rewritten: bool,
    dirty_since_ns: u64,
}

impl Linked for Slot {
    fn links(&self) -> &Links {
        &self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

const _: () = assert!(std::mem::size_of::<Slot>() == 32);

impl Slot {
    const EMPTY: Slot = Slot { block: 0, links: Links::NONE, live: false, dirty: false, destaging: false, rewritten: false, dirty_since_ns: 0 };

    /// The list the slot is in: none while its destage is in flight.
    fn list(&self) -> Option<usize> {
        match (self.dirty, self.destaging) {
            (false, _) => Some(CLEAN),
            (true, false) => Some(AGING),
            (true, true) => None,
        }
    }
}

/// Pair number (block / 2) → the pair's slots ([`Nvram::slot_of`]). Blocks come and go
/// without end as the cache fills and evicts, so the map is one without deleted-slot
/// markers, whose lookups cost the same on the last request of a run as on the first.
type BlockMap = tierlab_keymap::KeyMap;

/// The most slots reserved at once (4 GiB of 4 KiB blocks in pairs): a larger cache grows
/// its slots as it fills, and pairs may then straddle lines (slower, the same results).
const MAX_RESERVED_SLOTS: u64 = 2 << 20;

/// The cache; see the module documentation.
pub struct Nvram {
    cfg: NvramConfig,
    /// log2 of the block size when it is a power of two (as it is by default): block
    /// numbers are then a shift away from byte offsets instead of a division.
    block_shift: Option<u32>,
    capacity_blocks: u64,
    /// Blocks cached.
    cached_blocks: u64,
    map: BlockMap,
    /// Pair `p`'s slots are `first_slot + 2p` (its even block) and the one after; the
    /// slots before `first_slot` (none or one) are unused, so that pairs start on a line.
    slots: Vec<Slot>,
    first_slot: u32,
    /// Pairs whose slots are both empty.
    free: Vec<u32>,
    /// The lists [`CLEAN`] and [`AGING`].
    lists: [Ends; 2],
    dirty_blocks: u64,
    stats: NvramStats,
}

impl Nvram {
    pub fn new(cfg: NvramConfig) -> Nvram {
        let block = cfg.block_bytes.max(512);
        let cfg = NvramConfig { block_bytes: block, ..cfg };
        let capacity_blocks = cfg.capacity_bytes / block;
        // Reserved for the capacity at once (pages are touched only as slots are used), so
        // the slots never move and pairs stay on the lines they start on.
        let mut slots: Vec<Slot> = Vec::with_capacity((2 * capacity_blocks + 1).min(MAX_RESERVED_SLOTS) as usize);
        let first_slot = u32::from(!(slots.as_ptr() as usize).is_multiple_of(64));
        slots.extend((0..first_slot).map(|_| Slot::EMPTY));
        Nvram {
            block_shift: block.is_power_of_two().then(|| block.trailing_zeros()),
            capacity_blocks,
            cached_blocks: 0,
            cfg,
            // Sized at once for the capacity in pairs and one pair more (up to 4 GiB of
            // 4 KiB blocks; a larger cache, or one whose blocks come alone, grows it as it
            // fills): the cache fills, and growing the map on the way would rehash every
            // pair it holds at each doubling. (A full cache of whole pairs that takes a
            // new pair's first block in evicts one block of another pair, and holds one
            // pair more than half its blocks: sized for the half alone, the map would
            // double then.)
            map: BlockMap::with_capacity((capacity_blocks.div_ceil(2).min(1 << 19) + 1) as usize),
            slots,
            first_slot,
            free: Vec::new(),
            lists: [Ends::EMPTY; 2],
            dirty_blocks: 0,
            stats: NvramStats::default(),
        }
    }

    pub fn config(&self) -> &NvramConfig {
        &self.cfg
    }

    pub fn stats(&self) -> NvramStats {
        self.stats
    }

    /// Warms the cache with `requests` (offset, length, is-write) before a run, as a
    /// trace's first part warms a simulated cache: reads fill it, writes dirty it, and every
    /// destage that falls due completes at once. It stops once the dirty data has passed
    /// the high watermark and as many requests again have gone through (or the requests
    /// end), so the cache holds what the workload keeps there at steady state; the
    /// counters start again from zero. Returns the requests used.
    pub fn warm(&mut self, requests: impl IntoIterator<Item = (u64, u64, bool)>) -> u64 {
        let mut used = 0u64;
        let mut until: Option<u64> = None;
        let mut requests = requests.into_iter().fuse();
        // The two requests after the current one, whose memory starts loading while it is
        // handled: the block map's entries of the second, the slots of the first (whose
        // entries have loaded by then), and what an eviction touches
        // ([`Nvram::prefetch_early`], [`Nvram::prefetch_request`]).
        let mut ahead = [requests.next(), requests.next()];
        for &(o, l, _) in ahead.iter().flatten() {
            self.prefetch(o, l);
        }
        while let Some((offset_bytes, len_bytes, write)) = ahead[0] {
            ahead = [ahead[1], requests.next()];
            if until.is_some_and(|u| used >= u) {
                break;
            }
            used += 1;
            if let Some((o, l, _)) = ahead[1] {
                self.prefetch_early(o, l);
            }
            if let Some((o, l, _)) = ahead[0] {
                self.prefetch_request(o, l);
            }
            if !write {
                if !self.read(offset_bytes, len_bytes) {
                    self.fill(offset_bytes, len_bytes);
                }
                continue;
            }
            if !self.can_hold(len_bytes) {
                self.invalidate(offset_bytes, len_bytes);
                continue;
            }
            loop {
                while self.destage_due(0) {
                    until.get_or_insert(2 * used);
                    let Some((o, l)) = self.next_destage() else { break };
                    self.destaged(0, o, l);
                }
                if self.write(0, offset_bytes, len_bytes) {
                    break;
                }
                // Full of dirty data: destage the oldest and retry.
                let Some((o, l)) = self.next_destage() else { break };
                self.destaged(0, o, l);
            }
        }
        self.stats = NvramStats::default();
        used
    }

    pub fn dirty_bytes(&self) -> u64 {
        self.dirty_blocks * self.cfg.block_bytes
    }

    fn blocks(&self, offset_bytes: u64, len_bytes: u64) -> std::ops::Range<u64> {
        self.block_floor(offset_bytes)..self.block_ceil(offset_bytes + len_bytes)
    }

    /// `bytes / block_bytes`.
    fn block_floor(&self, bytes: u64) -> u64 {
        match self.block_shift {
            Some(sh) => bytes >> sh,
            None => bytes / self.cfg.block_bytes,
        }
    }

    /// `bytes.div_ceil(block_bytes)`.
    fn block_ceil(&self, bytes: u64) -> u64 {
        match self.block_shift {
            Some(sh) => (bytes >> sh) + u64::from(bytes & ((1 << sh) - 1) != 0),
            None => bytes.div_ceil(self.cfg.block_bytes),
        }
    }

    /// Start loading the block map's entries of (the pairs of the first 8 blocks of) a
    /// range, so that their lookups wait on memory together rather than one after
    /// another. A hint: it changes nothing.
    pub fn prefetch(&self, offset_bytes: u64, len_bytes: u64) {
        let blocks = self.blocks(offset_bytes, len_bytes);
        let end = blocks.end.min(blocks.start.saturating_add(8));
        for pair in blocks.start >> 1..end.div_ceil(2) {
            self.map.prefetch(pair);
        }
    }

    /// Start loading the slots of (the pairs of the first 8 blocks of) a range that are
    /// cached, as [`Nvram::prefetch`] the map's entries. A hint: it changes nothing.
    fn prefetch_slots(&self, offset_bytes: u64, len_bytes: u64) {
        let blocks = self.blocks(offset_bytes, len_bytes);
        let end = blocks.end.min(blocks.start.saturating_add(8));
        for pair in blocks.start >> 1..end.div_ceil(2) {
            if let Some(&p) = self.map.get(&pair) {
                tierlab_keymap::prefetch(&self.slots[(self.first_slot + 2 * p) as usize]);
            }
        }
    }

    /// Start loading what a request for `[offset, offset + len)` that comes next will
    /// touch, best when [`Nvram::prefetch_early`] was told of it a while before: the slots
    /// of its first 8 blocks that are cached, and the block-map entry of the least
    /// recently used clean block (evicted first should the request bring new blocks in;
    /// its pair leaves the map once both blocks are gone). A hint: it changes nothing.
    pub fn prefetch_request(&self, offset_bytes: u64, len_bytes: u64) {
        let tail = self.lists[CLEAN].tail;
        if tail != NIL {
            self.map.prefetch(self.slots[tail as usize].block >> 1);
        }
        self.prefetch_slots(offset_bytes, len_bytes);
    }

    /// [`Nvram::prefetch`], and the slot of the least recently used clean block, for a
    /// request that comes after the next ([`Nvram::prefetch_request`] then finds both
    /// loaded). A hint: it changes nothing.
    pub fn prefetch_early(&self, offset_bytes: u64, len_bytes: u64) {
        let tail = self.lists[CLEAN].tail;
        if tail != NIL {
            tierlab_keymap::prefetch(&self.slots[tail as usize]);
        }
        self.prefetch(offset_bytes, len_bytes);
    }

    /// The slot of block `b`, if it is cached.
    #[inline]
    fn slot_of(&self, b: u64) -> Option<u32> {
        let &p = self.map.get(&(b >> 1))?;
        let i = self.first_slot + 2 * p + (b & 1) as u32;
        self.slots[i as usize].live.then_some(i)
    }

    /// The slot of the other block of slot `i`'s pair.
    fn sibling(&self, i: u32) -> u32 {
        ((i - self.first_slot) ^ 1) + self.first_slot
    }

    /// Take the clean block in slot `i` (on no list any more) out of the cache; its pair
    /// leaves the map once both of its slots are empty.
    fn drop_block(&mut self, i: u32) {
        let s = &mut self.slots[i as usize];
        s.live = false;
        let block = s.block;
        self.cached_blocks -= 1;
        if !self.slots[self.sibling(i) as usize].live {
            self.map.remove(&(block >> 1));
            self.free.push((i - self.first_slot) / 2);
        }
    }

    /// Whether a write of `len_bytes` may go through the cache: at most half of it, so
    /// that one write can never wait for room that cannot be made.
    pub fn can_hold(&self, len_bytes: u64) -> bool {
        self.block_ceil(len_bytes) < self.capacity_blocks / 2
    }

    /// Drop the cached copies of `[offset, offset + len)` that are clean (a write that
    /// bypasses the cache makes them stale); dirty ones stay and are destaged later.
    pub fn invalidate(&mut self, offset_bytes: u64, len_bytes: u64) {
        for b in self.blocks(offset_bytes, len_bytes) {
            if let Some(i) = self.slot_of(b) {
                let s = self.slots[i as usize];
                if !s.dirty && !s.destaging {
                    self.lists[CLEAN].unlink(&mut self.slots, i);
                    self.drop_block(i);
                }
            }
        }
    }

    /// A read: `true` (a hit, counted) when every block is cached.
    pub fn read(&mut self, offset_bytes: u64, len_bytes: u64) -> bool {
        let range = self.blocks(offset_bytes, len_bytes);
        self.prefetch(offset_bytes, len_bytes);
        // One lookup per block: remember the slots (most reads span a few blocks).
        let mut found: [u32; 8] = [NIL; 8];
        let small = range.end - range.start <= found.len() as u64;
        for (i, b) in range.clone().enumerate() {
            match self.slot_of(b) {
                Some(slot) if small => found[i] = slot,
                Some(_) => {}
                None => {
                    self.stats.read_misses += 1;
                    return false;
                }
            }
        }
        if small {
            for &slot in found.iter().take((range.end - range.start) as usize) {
                self.touch(slot);
            }
        } else {
            for b in range {
                if let Some(i) = self.slot_of(b) {
                    self.touch(i);
                }
            }
        }
        self.stats.read_hits += 1;
        true
    }

    /// Cache what a missed read brought from the disks (clean), as room allows.
    pub fn fill(&mut self, offset_bytes: u64, len_bytes: u64) {
        self.prefetch(offset_bytes, len_bytes);
        for b in self.blocks(offset_bytes, len_bytes) {
            match self.slot_of(b) {
                Some(i) => self.touch(i),
                None => {
                    if self.make_room() {
                        self.insert(b, false, 0);
                    }
                }
            }
        }
    }

    /// A write at `now_ns`: `true` when absorbed (acknowledge now); `false` when the cache
    /// cannot take it until a destage completes (nothing changed; retry then).
    pub fn write(&mut self, now_ns: u64, offset_bytes: u64, len_bytes: u64) -> bool {
        let range = self.blocks(offset_bytes, len_bytes);
        self.prefetch(offset_bytes, len_bytes);
        let blocks = range.end - range.start;
        let room = (self.capacity_blocks - self.cached_blocks) + (self.cached_blocks - self.dirty_blocks);
        // New blocks need a free or evictable slot; the write's own clean blocks turn
        // dirty and cannot be evicted for it. Counting matters only when room is short.
        if 2 * blocks > room {
            let (mut needed, mut own_clean) = (0, 0);
            for b in range.clone() {
                match self.slot_of(b) {
                    None => needed += 1,
                    Some(i) if !self.slots[i as usize].dirty => own_clean += 1,
                    Some(_) => {}
                }
            }
            if needed > room - own_clean || blocks > self.capacity_blocks {
                self.stats.writes_throttled += 1;
                return false;
            }
        }
        for b in range {
            match self.slot_of(b) {
                Some(i) => {
                    let s = &mut self.slots[i as usize];
                    if s.destaging {
                        s.rewritten = true;
                    } else if !s.dirty {
                        self.lists[CLEAN].unlink(&mut self.slots, i);
                        let s = &mut self.slots[i as usize];
                        s.dirty = true;
                        s.dirty_since_ns = now_ns;
                        self.dirty_blocks += 1;
                        self.lists[AGING].push_head(&mut self.slots, i);
                    }
                }
                None => {
                    self.make_room();
                    self.insert(b, true, now_ns);
                }
            }
        }
        self.stats.writes_absorbed += 1;
        true
    }

    /// Whether a destage is due at `now_ns`.
    pub fn destage_due(&self, now_ns: u64) -> bool {
        if self.dirty_blocks == 0 {
            return false;
        }
        if self.dirty_blocks as f64 > self.cfg.high_watermark * self.capacity_blocks as f64 {
            return true;
        }
        // (`u64::MAX`: no age limit.)
        self.cfg.max_age_ns < u64::MAX && self.oldest_dirty_ns().is_some_and(|t| now_ns.saturating_sub(t) >= self.cfg.max_age_ns)
    }

    /// When the oldest dirty block not yet being destaged became dirty.
    pub fn oldest_dirty_ns(&self) -> Option<u64> {
        let oldest = self.lists[AGING].tail;
        (oldest != NIL).then(|| self.slots[oldest as usize].dirty_since_ns)
    }

    /// The next range to destage (oldest dirty block and its dirty neighbours), marked as
    /// in flight; `None` when nothing is dirty.
    pub fn next_destage(&mut self) -> Option<(u64, u64)> {
        let oldest = self.lists[AGING].tail;
        if oldest == NIL {
            return None;
        }
        let b = self.slots[oldest as usize].block;
        let max_blocks = (self.cfg.max_destage_bytes / self.cfg.block_bytes).max(1);
        let ready = |s: &Self, x: u64| s.slot_of(x).is_some_and(|i| { let sl = s.slots[i as usize]; sl.dirty && !sl.destaging });
        // Align the window to `max_destage_bytes` so a destage never crosses a stripe row.
        let window_start = b / max_blocks * max_blocks;
        let mut lo = b;
        while lo > window_start && ready(self, lo - 1) {
            lo -= 1;
        }
        let mut hi = b + 1;
        while hi < window_start + max_blocks && ready(self, hi) {
            hi += 1;
        }
        for x in lo..hi {
            if let Some(i) = self.slot_of(x) {
                self.lists[AGING].unlink(&mut self.slots, i);
                self.slots[i as usize].destaging = true;
            }
        }
        self.stats.destages += 1;
        self.stats.destaged_bytes += (hi - lo) * self.cfg.block_bytes;
        Some((lo * self.cfg.block_bytes, (hi - lo) * self.cfg.block_bytes))
    }

    /// A destage of `[offset, offset + len)` is on disk: its blocks are clean unless
    /// written again meanwhile.
    pub fn destaged(&mut self, now_ns: u64, offset_bytes: u64, len_bytes: u64) {
        for b in self.blocks(offset_bytes, len_bytes) {
            let Some(i) = self.slot_of(b) else { continue };
            let s = self.slots[i as usize];
            if !s.dirty {
                continue;
            }
            if !s.destaging {
                // Not being destaged (a range it was not part of): it leaves the list of
                // dirty blocks as it turns clean below.
                self.lists[AGING].unlink(&mut self.slots, i);
            }
            let s = &mut self.slots[i as usize];
            s.destaging = false;
            if s.rewritten {
                s.rewritten = false;
                s.dirty_since_ns = now_ns;
                self.lists[AGING].push_head(&mut self.slots, i);
            } else {
                s.dirty = false;
                self.dirty_blocks -= 1;
                self.lists[CLEAN].push_head(&mut self.slots, i);
            }
        }
    }

    /// Make a clean block the most recently used (a dirty one keeps no recency).
    fn touch(&mut self, i: u32) {
        if self.slots[i as usize].list() == Some(CLEAN) {
            self.lists[CLEAN].move_to_head(&mut self.slots, i);
        }
    }

    /// Free one slot if the cache is full by evicting the least recently used clean
    /// block; `false` when every block is dirty.
    fn make_room(&mut self) -> bool {
        if self.cached_blocks < self.capacity_blocks {
            return true;
        }
        let i = self.lists[CLEAN].tail;
        if i == NIL {
            return false;
        }
        self.lists[CLEAN].unlink(&mut self.slots, i);
        self.drop_block(i);
        true
    }

    fn insert(&mut self, block: u64, dirty: bool, now_ns: u64) {
        let slot = Slot { block, links: Links::NONE, live: true, dirty, destaging: false, rewritten: false, dirty_since_ns: now_ns };
        let pair = match self.map.get(&(block >> 1)) {
            Some(&p) => p,
            None => {
                let p = self.free.pop().unwrap_or_else(|| {
                    self.slots.extend([Slot::EMPTY; 2]);
                    (self.slots.len() as u32 - 2 - self.first_slot) / 2
                });
                self.map.insert(block >> 1, p);
                p
            }
        };
        let i = self.first_slot + 2 * pair + (block & 1) as u32;
        self.slots[i as usize] = slot;
        self.cached_blocks += 1;
        if dirty {
            self.dirty_blocks += 1;
            self.lists[AGING].push_head(&mut self.slots, i);
        } else {
            self.lists[CLEAN].push_head(&mut self.slots, i);
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    impl Nvram {
        /// The oldest dirty block not being destaged, found by looking at every cached
        /// block: (when it became dirty, the blocks dirty since then).
        fn oldest_by_scan(&self) -> Option<(u64, Vec<u64>)> {
            let aging = || self.slots.iter().filter(|s| s.live && s.dirty && !s.destaging);
            let t = aging().map(|s| s.dirty_since_ns).min()?;
            Some((t, aging().filter(|s| s.dirty_since_ns == t).map(|s| s.block).collect()))
        }
    }

    proptest! {
        /// Block numbers from byte offsets are the divisions they stand for, for a block
        /// size that is a power of two (a shift) and one that is not.
        #[test]
        fn block_numbers_are_the_divisions(bytes in any::<u64>(), pick in 0usize..4) {
            let block = [512u64, 4096, 65536, 3000][pick];
            let n = Nvram::new(NvramConfig { capacity_bytes: 64 * block, block_bytes: block, high_watermark: 0.5, max_age_ns: 10, max_destage_bytes: block });
            prop_assert_eq!(n.block_floor(bytes), bytes / block);
            prop_assert_eq!(n.block_ceil(bytes), bytes.div_ceil(block));
        }

        /// The dirty list's tail is the oldest dirty block a scan of every block finds, after
        /// any mix of reads, fills, writes, invalidations and destages (started and
        /// finished out of order, blocks written again while in flight), and the next
        /// destage starts from it.
        #[test]
        fn the_dirty_list_gives_the_oldest_dirty_block_a_scan_does(
            ops in prop::collection::vec((0u8..6, 0u64..48, 1u64..4), 1..400),
            cap in 4u64..32,
            destage_blocks in 1u64..6,
        ) {
            let mut n = Nvram::new(NvramConfig { capacity_bytes: cap * 4096, block_bytes: 4096, high_watermark: 0.5, max_age_ns: 10, max_destage_bytes: destage_blocks * 4096 });
            let mut in_flight: Vec<(u64, u64)> = Vec::new();
            for (t, &(kind, block, len)) in ops.iter().enumerate() {
                let (now, off, len) = (t as u64, block * 4096, len * 4096);
                match kind {
                    0 => { n.read(off, len); }
                    1 => n.fill(off, len),
                    2 | 3 => { if n.can_hold(len) { n.write(now, off, len); } }
                    4 => n.invalidate(off, len),
                    _ => {
                        let oldest = n.oldest_by_scan();
                        match n.next_destage() {
                            Some((o, l)) => {
                                let (_, blocks) = oldest.expect("a destage needs a dirty block");
                                prop_assert!(blocks.iter().any(|&b| (o / 4096..(o + l) / 4096).contains(&b)), "destage {o}+{l} misses the oldest {blocks:?}");
                                in_flight.push((o, l));
                            }
                            None => prop_assert!(oldest.is_none()),
                        }
                        if in_flight.len() > 2 {
                            // Finish one at random, not the oldest.
                            let (o, l) = in_flight.remove(block as usize % in_flight.len());
                            n.destaged(now, o, l);
                        }
                    }
                }
                prop_assert_eq!(n.oldest_dirty_ns(), n.oldest_by_scan().map(|(t, _)| t));
            }
        }
    }
}
