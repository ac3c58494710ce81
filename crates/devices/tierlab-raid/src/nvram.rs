//! The array controller's NVRAM cache: a write-back cache of fixed-size blocks.
//!
//! - A write is acknowledged once its blocks are in NVRAM (they are dirty until destaged).
//!   When every block is dirty and nothing clean can be evicted, the write must wait for a
//!   destage ([`Nvram::write`] says so) — a full cache throttles the host.
//! - A read whose blocks are all cached is a hit, served from NVRAM. A miss is read from
//!   the disks and its blocks are then cached clean ([`Nvram::fill`]).
//! - Replacement is LRU over the clean blocks (dirty ones cannot be evicted; they wait in
//!   a list of their own until destaged, so eviction never walks past them).
//! - Destaging takes the oldest dirty block and the dirty blocks contiguous with it, up to
//!   `max_destage_bytes`, as one range ([`Nvram::next_destage`]). It is due when dirty
//!   data passes the high watermark or the oldest dirty block is older than `max_age_ns`.
//!   A block written again while its destage is in flight stays dirty.
//!
//! Memory: about 40 bytes per cached block (2 GiB of 4 KiB blocks: 20 MiB).

use serde::Serialize;
use std::collections::VecDeque;

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

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Slot {
    block: u64,
    prev: u32,
    next: u32,
    dirty: bool,
    /// A destage of this block is in flight.
    destaging: bool,
    /// Written again while its destage was in flight: stays dirty when that completes.
    rewritten: bool,
    /// Set from a cache-wide counter when the block becomes dirty; a dirty-queue entry
    /// with another value is stale.
    gen: u64,
    dirty_since_ns: u64,
}

/// Block number → slot. Blocks come and go without end as the cache fills and evicts, so
/// the map is one without deleted-slot markers, whose lookups cost the same on the last
/// request of a run as on the first.
type BlockMap = tierlab_keymap::KeyMap;

/// The cache; see the module documentation.
pub struct Nvram {
    cfg: NvramConfig,
    capacity_blocks: u64,
    map: BlockMap,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Most recently used first: [clean list, dirty list] (a block is in the list of
    /// its `dirty` flag).
    head: [u32; 2],
    tail: [u32; 2],
    dirty_blocks: u64,
    /// (block, gen) in the order blocks became dirty; stale entries are skipped.
    dirty_queue: VecDeque<(u64, u64)>,
    next_gen: u64,
    stats: NvramStats,
}

impl Nvram {
    pub fn new(cfg: NvramConfig) -> Nvram {
        let block = cfg.block_bytes.max(512);
        let cfg = NvramConfig { block_bytes: block, ..cfg };
        Nvram {
            capacity_blocks: cfg.capacity_bytes / block,
            cfg,
            map: BlockMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            head: [NIL; 2],
            tail: [NIL; 2],
            dirty_blocks: 0,
            dirty_queue: VecDeque::new(),
            next_gen: 0,
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
        for (offset_bytes, len_bytes, write) in requests {
            if until.is_some_and(|u| used >= u) {
                break;
            }
            used += 1;
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
        let b = self.cfg.block_bytes;
        offset_bytes / b..(offset_bytes + len_bytes).div_ceil(b)
    }

    /// Whether a write of `len_bytes` may go through the cache: at most half of it, so
    /// that one write can never wait for room that cannot be made.
    pub fn can_hold(&self, len_bytes: u64) -> bool {
        len_bytes.div_ceil(self.cfg.block_bytes) < self.capacity_blocks / 2
    }

    /// Drop the cached copies of `[offset, offset + len)` that are clean (a write that
    /// bypasses the cache makes them stale); dirty ones stay and are destaged later.
    pub fn invalidate(&mut self, offset_bytes: u64, len_bytes: u64) {
        for b in self.blocks(offset_bytes, len_bytes) {
            if let Some(&i) = self.map.get(&b) {
                let s = self.slots[i as usize];
                if !s.dirty && !s.destaging {
                    self.unlink(i);
                    self.map.remove(&b);
                    self.free.push(i);
                }
            }
        }
    }

    /// A read: `true` (a hit, counted) when every block is cached.
    pub fn read(&mut self, offset_bytes: u64, len_bytes: u64) -> bool {
        let range = self.blocks(offset_bytes, len_bytes);
        // One lookup per block: remember the slots (most reads span a few blocks).
        let mut found: [u32; 8] = [NIL; 8];
        let small = range.end - range.start <= found.len() as u64;
        for (i, b) in range.clone().enumerate() {
            match self.map.get(&b) {
                Some(&slot) if small => found[i] = slot,
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
                if let Some(&i) = self.map.get(&b) {
                    self.touch(i);
                }
            }
        }
        self.stats.read_hits += 1;
        true
    }

    /// Cache what a missed read brought from the disks (clean), as room allows.
    pub fn fill(&mut self, offset_bytes: u64, len_bytes: u64) {
        for b in self.blocks(offset_bytes, len_bytes) {
            match self.map.get(&b) {
                Some(&i) => self.touch(i),
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
        let blocks = range.end - range.start;
        let room = (self.capacity_blocks - self.map.len() as u64) + (self.map.len() as u64 - self.dirty_blocks);
        // New blocks need a free or evictable slot; the write's own clean blocks turn
        // dirty and cannot be evicted for it. Counting matters only when room is short.
        if 2 * blocks > room {
            let (mut needed, mut own_clean) = (0, 0);
            for b in range.clone() {
                match self.map.get(&b) {
                    None => needed += 1,
                    Some(&i) if !self.slots[i as usize].dirty => own_clean += 1,
                    Some(_) => {}
                }
            }
            if needed > room - own_clean || blocks > self.capacity_blocks {
                self.stats.writes_throttled += 1;
                return false;
            }
        }
        for b in range {
            match self.map.get(&b).copied() {
                Some(i) => {
                    let s = &mut self.slots[i as usize];
                    if s.destaging {
                        s.rewritten = true;
                        self.touch(i);
                    } else if !s.dirty {
                        self.unlink(i);
                        let s = &mut self.slots[i as usize];
                        s.dirty = true;
                        s.dirty_since_ns = now_ns;
                        self.next_gen += 1;
                        s.gen = self.next_gen;
                        self.dirty_blocks += 1;
                        self.dirty_queue.push_back((b, s.gen));
                        self.push_front(i);
                    } else {
                        self.touch(i);
                    }
                }
                None => {
                    self.make_room();
                    let i = self.insert(b, true, now_ns);
                    self.dirty_queue.push_back((b, self.slots[i as usize].gen));
                }
            }
        }
        self.stats.writes_absorbed += 1;
        true
    }

    /// Whether a destage is due at `now_ns`.
    pub fn destage_due(&mut self, now_ns: u64) -> bool {
        if self.dirty_blocks == 0 {
            return false;
        }
        if self.dirty_blocks as f64 > self.cfg.high_watermark * self.capacity_blocks as f64 {
            return true;
        }
        self.oldest_dirty_ns().is_some_and(|t| now_ns.saturating_sub(t) >= self.cfg.max_age_ns)
    }

    /// When the oldest dirty block not yet being destaged became dirty.
    pub fn oldest_dirty_ns(&mut self) -> Option<u64> {
        while let Some(&(b, gen)) = self.dirty_queue.front() {
            if let Some(&i) = self.map.get(&b) {
                let s = self.slots[i as usize];
                if s.dirty && !s.destaging && s.gen == gen {
                    return Some(s.dirty_since_ns);
                }
            }
            self.dirty_queue.pop_front();
        }
        None
    }

    /// The next range to destage (oldest dirty block and its dirty neighbours), marked as
    /// in flight; `None` when nothing is dirty.
    pub fn next_destage(&mut self) -> Option<(u64, u64)> {
        self.oldest_dirty_ns()?;
        let (b, _) = self.dirty_queue.pop_front()?;
        let max_blocks = (self.cfg.max_destage_bytes / self.cfg.block_bytes).max(1);
        let ready = |s: &Self, x: u64| s.map.get(&x).is_some_and(|&i| { let sl = s.slots[i as usize]; sl.dirty && !sl.destaging });
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
            if let Some(&i) = self.map.get(&x) {
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
            let Some(&i) = self.map.get(&b) else { continue };
            let s = &mut self.slots[i as usize];
            s.destaging = false;
            if s.rewritten {
                s.rewritten = false;
                s.dirty_since_ns = now_ns;
                self.next_gen += 1;
                s.gen = self.next_gen;
                self.dirty_queue.push_back((b, s.gen));
            } else if s.dirty {
                self.unlink(i);
                self.slots[i as usize].dirty = false;
                self.dirty_blocks -= 1;
                self.push_front(i);
            }
        }
    }

    fn list(&self, i: u32) -> usize {
        usize::from(self.slots[i as usize].dirty)
    }

    fn touch(&mut self, i: u32) {
        if self.head[self.list(i)] == i {
            return;
        }
        self.unlink(i);
        self.push_front(i);
    }

    fn unlink(&mut self, i: u32) {
        let l = self.list(i);
        let Slot { prev, next, .. } = self.slots[i as usize];
        if prev != NIL { self.slots[prev as usize].next = next } else { self.head[l] = next }
        if next != NIL { self.slots[next as usize].prev = prev } else { self.tail[l] = prev }
    }

    fn push_front(&mut self, i: u32) {
        let l = self.list(i);
        let old = self.head[l];
        {
            let s = &mut self.slots[i as usize];
            s.prev = NIL;
            s.next = old;
        }
        if old != NIL { self.slots[old as usize].prev = i } else { self.tail[l] = i }
        self.head[l] = i;
    }

    /// Free one slot if the cache is full by evicting the least recently used clean
    /// block; `false` when every block is dirty.
    fn make_room(&mut self) -> bool {
        if (self.map.len() as u64) < self.capacity_blocks {
            return true;
        }
        let i = self.tail[0];
        if i == NIL {
            return false;
        }
        let block = self.slots[i as usize].block;
        self.unlink(i);
        self.map.remove(&block);
        self.free.push(i);
        true
    }

    fn insert(&mut self, block: u64, dirty: bool, now_ns: u64) -> u32 {
        let mut gen = 0;
        if dirty {
            self.next_gen += 1;
            gen = self.next_gen;
        }
        let slot = Slot { block, prev: NIL, next: NIL, dirty, destaging: false, rewritten: false, gen, dirty_since_ns: now_ns };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.map.insert(block, i);
        self.push_front(i);
        if dirty {
            self.dirty_blocks += 1;
        }
        i
    }
}

