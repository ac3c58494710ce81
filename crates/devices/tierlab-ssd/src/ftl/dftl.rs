//! DFTL (Gupta, Kim & Urgaonkar, ASPLOS 2009): page-level mapping kept on flash in
//! translation pages (page_bytes / 4 entries each, 512 for 2 KiB), a global translation
//! directory (GTD) in SRAM locating them, and a cached mapping table (CMT) in the rest
//! of SRAM managed as a segmented LRU. A miss reads the entry's translation page, unless
//! it is the one the controller read or wrote last (its copy is still in the controller's
//! buffer); evicting a dirty entry rewrites its translation page (read-modify-write). Garbage collection
//! copies lazily: a moved page whose entry is cached only dirties the cached entry, and
//! the other moved pages are updated in one batch per translation page.
//!
//! The simulator keeps one authoritative map; the CMT and GTD decide what each access
//! costs, which is what the model needs (the content of stale translation pages is never
//! read back).

use super::Ftl;
use crate::alloc::{PageAlloc, Stream};
use crate::error::OutOfSpace;
use crate::flash::{Flash, Purpose, MAP_TAG, NONE};
use crate::mem::{self, NoneTable};
use crate::spec::{FtlKind, SsdSpec};
use crate::stamps::Stamps;

/// One cached mapping entry: its logical page, its place in its segment's list and its
/// flags, together in 16 bytes so that touching an entry is one cache miss.
#[derive(Clone, Copy, Debug)]
struct Slot {
    lpn: u32,
    /// The previous entry in the list; while the lists are not kept (`SegLru::stamps`),
    /// the stamp of the entry's last touch.
    prev: u32,
    next: u32,
    /// 0 probationary, 1 protected.
    seg: u8,
    dirty: bool,
}

/// The words of an `entries` record.
const PPN: usize = 0;
const SLOT: usize = 1;

/// The page map and, over it, the CMT: a segmented LRU over logical page numbers. New
/// entries enter the probationary segment, a second touch promotes to the protected one,
/// whose overflow falls back to probationary; evictions take the probationary LRU end
/// first.
struct SegLru {
    /// Per logical page, side by side because every access reads both (one cache miss
    /// instead of two): where its data is (word `PPN`; `NONE` if never written) and its
    /// slot in the CMT (word `SLOT`; `NONE` if not cached).
    entries: NoneTable<2>,
    /// The slots used so far, at most `capacity`.
    slots: Vec<Slot>,
    capacity: usize,
    /// Per segment (0 probationary, 1 protected): most and least recently used.
    head: [u32; 2],
    tail: [u32; 2],
    len: [usize; 2],
    protected_cap: usize,
    /// Slots emptied by eviction, reused first.
    free: Vec<u32>,
    /// In use while the lists are not kept. Their order matters only once an entry must
    /// leave a segment (the first eviction, or the protected segment's first overflow);
    /// until then, and while the CMT is far larger than the working set that is the whole
    /// run, each slot's `prev` holds the stamp of its last touch instead, and `link_lists`
    /// builds the lists from the stamps when they are first needed.
    stamps: Stamps,
}

impl SegLru {
    fn new(logical_pages: usize, capacity: usize, protected_fraction: f64) -> Self {
        SegLru {
            entries: NoneTable::new(logical_pages),
            // Reserved, not filled: slots are taken in order, so only used ones are written.
            slots: mem::reserved(capacity),
            capacity,
            head: [NONE; 2],
            tail: [NONE; 2],
            len: [0; 2],
            protected_cap: ((capacity as f64) * protected_fraction) as usize,
            free: Vec::new(),
            stamps: Stamps::new(),
        }
    }

    /// Build the segment lists from the touch stamps (least recent pushed first, so the
    /// most recent ends in front) and keep them from now on.
    fn link_lists(&mut self) {
        if !self.stamps.stop() {
            return;
        }
        // No entry has been evicted yet, so every slot taken is in use.
        let mut order: Vec<(u32, u32)> = (0..self.slots.len() as u32)
            .map(|s| (self.slots[s as usize].prev, s))
            .collect();
        order.sort_unstable();
        self.len = [0; 2];
        for (_, s) in order {
            self.push_front(s, self.slots[s as usize].seg as usize);
        }
    }

    fn unlink(&mut self, s: u32) {
        let Slot {
            prev, next, seg, ..
        } = self.slots[s as usize];
        let g = seg as usize;
        if prev != NONE {
            self.slots[prev as usize].next = next;
        } else {
            self.head[g] = next;
        }
        if next != NONE {
            self.slots[next as usize].prev = prev;
        } else {
            self.tail[g] = prev;
        }
        self.len[g] -= 1;
    }

    fn push_front(&mut self, s: u32, g: usize) {
        let old = self.head[g];
        let slot = &mut self.slots[s as usize];
        slot.seg = g as u8;
        slot.prev = NONE;
        slot.next = old;
        if old != NONE {
            self.slots[old as usize].prev = s;
        } else {
            self.tail[g] = s;
        }
        self.head[g] = s;
        self.len[g] += 1;
    }

    /// Where `lpn`'s data is, `NONE` if it was never written.
    fn ppn(&self, lpn: u32) -> u32 {
        self.entries.word(lpn as usize, PPN)
    }

    fn set_ppn(&mut self, lpn: u32, ppn: u32) {
        self.entries.set_word(lpn as usize, PPN, ppn);
    }

    /// `lpn`'s slot in the CMT, `NONE` if it is not cached.
    fn slot(&self, lpn: u32) -> u32 {
        self.entries.word(lpn as usize, SLOT)
    }

    fn contains(&self, lpn: u32) -> bool {
        self.slot(lpn) != NONE
    }

    /// Touch `lpn`; true on a hit. Inlined for the common case, a touch recorded by its
    /// stamp alone.
    #[inline(always)]
    fn touch(&mut self, lpn: u32) -> bool {
        let s = self.slot(lpn);
        if s == NONE {
            return false;
        }
        let to = usize::from(self.protected_cap > 0);
        if self.stamps.in_use() {
            let from = self.slots[s as usize].seg as usize;
            if from == to || self.len[1] < self.protected_cap {
                // No entry leaves a segment: record the touch only.
                if let Some(stamp) = self.stamps.next() {
                    self.len[from] -= 1;
                    self.len[to] += 1;
                    let slot = &mut self.slots[s as usize];
                    slot.seg = to as u8;
                    slot.prev = stamp;
                    return true;
                }
            }
        }
        self.touch_listed(s, to);
        true
    }

    /// Move slot `s` to the front of segment `to` in the lists (built first if they are
    /// not kept yet), and let the protected segment's overflow fall back.
    #[inline(never)]
    fn touch_listed(&mut self, s: u32, to: usize) {
        self.link_lists();
        if self.head[to] == s {
            // Already the most recent entry of the segment it would move to: moving it
            // to the front changes nothing, and no segment grows.
            return;
        }
        self.unlink(s);
        if to == 0 {
            self.push_front(s, 0);
            return;
        }
        self.push_front(s, 1);
        if self.len[1] > self.protected_cap {
            let t = self.tail[1];
            self.unlink(t);
            self.push_front(t, 0);
        }
    }

    fn is_full(&self) -> bool {
        self.free.is_empty() && self.slots.len() == self.capacity
    }

    fn insert(&mut self, lpn: u32) {
        let stamp = self.stamps.next();
        if stamp.is_none() {
            // Before the slot is taken: building the lists links every slot taken so far.
            self.link_lists();
        }
        let fresh = Slot {
            lpn,
            prev: stamp.unwrap_or(NONE),
            next: NONE,
            seg: 0,
            dirty: false,
        };
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = fresh;
                s
            }
            None if self.slots.len() < self.capacity => {
                self.slots.push(fresh);
                (self.slots.len() - 1) as u32
            }
            None => return,
        };
        self.entries.set_word(lpn as usize, SLOT, s);
        if stamp.is_some() {
            self.len[0] += 1;
        } else {
            self.push_front(s, 0);
        }
    }

    /// Remove the least valuable entry: (lpn, dirty).
    fn evict(&mut self) -> Option<(u32, bool)> {
        self.link_lists();
        let s = if self.tail[0] != NONE {
            self.tail[0]
        } else {
            self.tail[1]
        };
        if s == NONE {
            return None;
        }
        self.unlink(s);
        let Slot { lpn, dirty, .. } = self.slots[s as usize];
        self.entries.set_word(lpn as usize, SLOT, NONE);
        self.free.push(s);
        Some((lpn, dirty))
    }

    fn set_dirty(&mut self, lpn: u32) {
        let s = self.slot(lpn);
        if s != NONE {
            self.slots[s as usize].dirty = true;
        }
    }

    /// Mark the cached entries of logical pages `lpns` clean (their translation page
    /// was just written with their current values).
    fn clean_range(&mut self, lpns: std::ops::Range<u32>) {
        for lpn in lpns {
            let s = if (lpn as usize) < self.entries.len() { self.slot(lpn) } else { NONE };
            if s != NONE {
                self.slots[s as usize].dirty = false;
            }
        }
    }

    /// Heap bytes allocated: the page map, the slots (all `capacity` of them, reserved
    /// up front) and the free list.
    fn heap_bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<[u32; 2]>()
            + self.capacity * std::mem::size_of::<Slot>()
            + self.free.capacity() * std::mem::size_of::<u32>()
    }
}

pub struct Dftl {
    alloc: PageAlloc,
    gtd: Vec<u32>,
    /// The authoritative page map and the CMT over it.
    cmt: SegLru,
    entries_per_tpage: u32,
    /// Translation pages to rewrite because the collector moved pages they map.
    pending: Vec<u32>,
    /// The last translation page read: which, from where, and when its copy is in the
    /// controller's buffer. Until another translation page is read or this one is
    /// rewritten, a miss on any of its entries finds it there (the pages of one request,
    /// and a sequential stream whose pages the write buffer destages one at a time).
    last_tpage_read: (u32, u32, u64),
    cmt_hits: u64,
    cmt_misses: u64,
    evict_writebacks: u64,
    gc_batch_updates: u64,
}

impl Dftl {
    pub fn new(spec: &SsdSpec) -> Self {
        let lp = spec.logical_pages() as usize;
        let cap = (spec.dftl_cmt_entries() as usize).min(lp).max(1);
        Dftl {
            alloc: PageAlloc::new(spec),
            gtd: vec![NONE; spec.translation_pages() as usize],
            cmt: SegLru::new(lp, cap, spec.ftl.dftl_protected_fraction),
            entries_per_tpage: spec.entries_per_translation_page() as u32,
            pending: Vec::new(),
            last_tpage_read: (NONE, 0, 0),
            cmt_hits: 0,
            cmt_misses: 0,
            evict_writebacks: 0,
            gc_batch_updates: 0,
        }
    }

    /// Apply the collector's moves: translation pages update the GTD; data pages update
    /// their cached entry (lazy copying) or queue their translation page (batch update).
    /// Called for every page written, nearly always with no move, so that check is inlined.
    #[inline]
    fn absorb_moves(&mut self) {
        if !self.alloc.moves.is_empty() {
            self.absorb_pending_moves();
        }
    }

    fn absorb_pending_moves(&mut self) {
        for m in self.alloc.moves.drain(..) {
            if m.owner & MAP_TAG != 0 {
                // The collector moved a translation page: a buffered copy of it is stale.
                let tp = m.owner & !MAP_TAG;
                self.gtd[tp as usize] = m.to;
                if self.last_tpage_read.0 == tp {
                    self.last_tpage_read = (NONE, 0, 0);
                }
            } else {
                self.cmt.set_ppn(m.owner, m.to);
                if self.cmt.contains(m.owner) {
                    self.cmt.set_dirty(m.owner);
                } else {
                    self.pending.push(m.owner / self.entries_per_tpage);
                }
            }
        }
    }

    /// Rewrite translation page `tp` (read the old copy, program the new one) with the
    /// current values of its entries; cached entries of `tp` become clean.
    fn write_tpage(&mut self, flash: &mut Flash, tp: u32, ready_ns: u64) -> Result<u64, OutOfSpace> {
        let epp = self.entries_per_tpage;
        self.cmt
            .clean_range(tp * epp..tp.saturating_add(1).saturating_mul(epp));
        let ppn = self.alloc.alloc_page(flash, Stream::Map, ready_ns)?;
        self.absorb_moves();
        let old = self.gtd[tp as usize];
        let mut t = ready_ns;
        if old != NONE {
            t = flash.read(old, ready_ns, Purpose::Map);
            flash.invalidate(old);
        }
        self.gtd[tp as usize] = ppn;
        // The new copy is in the controller's buffer once merged (after the old one's read).
        self.last_tpage_read = (tp, ppn, t);
        Ok(flash.program(ppn, MAP_TAG | tp, t, Purpose::Map))
    }

    /// Make `lpn`'s entry resident in the CMT; returns when its translation is known.
    /// Inlined for the hit, which needs no flash access.
    #[inline]
    fn ensure_cached(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        if self.cmt.touch(lpn) {
            self.cmt_hits += 1;
            return Ok(now_ns);
        }
        self.load_entry(flash, lpn, now_ns)
    }

    /// A CMT miss: make room (writing back a dirty victim's translation page), then read
    /// `lpn`'s translation page unless this request just read it.
    fn load_entry(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        self.cmt_misses += 1;
        let mut t = now_ns;
        if self.cmt.is_full() {
            if let Some((victim, true)) = self.cmt.evict() {
                self.evict_writebacks += 1;
                t = self.write_tpage(flash, victim / self.entries_per_tpage, t)?;
            }
        }
        let tp = lpn / self.entries_per_tpage;
        let at = self.gtd[tp as usize];
        let (last_tp, last_at, last_done) = self.last_tpage_read;
        if last_tp == tp && last_at == at {
            // The translation page last read, unchanged since: in the controller buffer.
            t = t.max(last_done);
        } else if at != NONE {
            t = flash.read(at, t, Purpose::Map);
            self.last_tpage_read = (tp, at, t);
        }
        self.cmt.insert(lpn);
        Ok(t)
    }

    /// Carry out the batched translation-page updates the collector queued. Called for
    /// every page and nearly always with nothing queued, so that check is inlined.
    #[inline]
    fn drain(&mut self, flash: &mut Flash, now_ns: u64) -> Result<u64, OutOfSpace> {
        if self.pending.is_empty() {
            return Ok(now_ns);
        }
        self.drain_pending(flash, now_ns)
    }

    fn drain_pending(&mut self, flash: &mut Flash, now_ns: u64) -> Result<u64, OutOfSpace> {
        let mut done = now_ns;
        loop {
            self.pending.sort_unstable();
            self.pending.dedup();
            let Some(tp) = self.pending.pop() else { break };
            self.gc_batch_updates += 1;
            done = done.max(self.write_tpage(flash, tp, now_ns)?);
        }
        Ok(done)
    }
}

impl Ftl for Dftl {
    fn kind(&self) -> FtlKind {
        FtlKind::Dftl
    }

    #[inline]
    fn read(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let t = self.ensure_cached(flash, lpn, now_ns)?;
        let side = self.drain(flash, now_ns)?;
        let done = match self.cmt.ppn(lpn) {
            NONE => t,
            ppn => flash.read(ppn, t, Purpose::User),
        };
        Ok(done.max(side))
    }

    #[inline]
    fn write(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let t = self.ensure_cached(flash, lpn, now_ns)?;
        let ppn = self.alloc.alloc_page(flash, Stream::Data, t)?;
        self.absorb_moves();
        let old = self.cmt.ppn(lpn);
        if old != NONE {
            flash.invalidate(old);
        }
        self.cmt.set_ppn(lpn, ppn);
        self.cmt.set_dirty(lpn);
        let done = flash.program(ppn, lpn, t, Purpose::User);
        Ok(done.max(self.drain(flash, now_ns)?))
    }

    fn lookup(&self, _flash: &Flash, lpn: u32) -> Option<u32> {
        Some(self.cmt.ppn(lpn)).filter(|&p| p != NONE)
    }

    fn relocate_cold(
        &mut self,
        flash: &mut Flash,
        block: u32,
        now_ns: u64,
    ) -> Result<bool, OutOfSpace> {
        let moved = self.alloc.relocate_cold(flash, block, now_ns);
        self.absorb_moves();
        self.drain(flash, now_ns)?;
        Ok(moved)
    }

    fn start_measurement(&mut self) {
        self.last_tpage_read = (NONE, 0, 0);
    }

    fn heap_bytes(&self) -> usize {
        self.gtd.len() * 4 + self.cmt.heap_bytes()
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("gc_runs", self.alloc.gc_runs as f64),
            (
                "gc_translation_page_copies",
                self.alloc.gc_map_copies as f64,
            ),
            ("cmt_hits", self.cmt_hits as f64),
            ("cmt_misses", self.cmt_misses as f64),
            ("translation_evict_writebacks", self.evict_writebacks as f64),
            ("translation_gc_batch_updates", self.gc_batch_updates as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::SegLru;
    use crate::flash::NONE;
    use crate::stamps::Stamps;
    use proptest::prelude::*;

    #[test]
    fn seglru_evicts_probationary_before_protected() {
        let mut c = SegLru::new(16, 3, 0.5); // protected holds 1
        c.insert(1);
        c.insert(2);
        assert!(c.touch(1)); // 1 promoted
        c.insert(3);
        assert!(c.is_full());
        c.set_dirty(2);
        assert_eq!(c.evict(), Some((2, true))); // LRU of probationary
        assert_eq!(c.evict(), Some((3, false)));
        assert_eq!(c.evict(), Some((1, false))); // protected last
        assert_eq!(c.evict(), None);
        assert!(!c.touch(1));
    }

    #[test]
    fn seglru_touching_the_most_recent_entry_again_keeps_the_order() {
        let mut c = SegLru::new(16, 4, 0.5); // protected holds 2
        for lpn in [1, 2, 3] {
            c.insert(lpn);
        }
        assert!(c.touch(2) && c.touch(2) && c.touch(3) && c.touch(3));
        assert!(c.touch(1) && c.touch(1)); // 2, the protected LRU, falls back
        assert_eq!(c.len, [1, 2]);
        assert_eq!(c.evict(), Some((2, false)));
        assert_eq!(c.evict(), Some((3, false)));
        assert_eq!(c.evict(), Some((1, false)));
    }

    /// The segmented LRU as two plain lists, most recent first: (lpn, dirty).
    struct Reference {
        seg: [Vec<(u32, bool)>; 2],
        capacity: usize,
        protected_cap: usize,
    }

    impl Reference {
        fn find(&self, lpn: u32) -> Option<(usize, usize)> {
            (0..2).find_map(|g| self.seg[g].iter().position(|e| e.0 == lpn).map(|i| (g, i)))
        }
        fn touch(&mut self, lpn: u32) -> bool {
            let Some((g, i)) = self.find(lpn) else {
                return false;
            };
            let e = self.seg[g].remove(i);
            let to = usize::from(self.protected_cap > 0);
            self.seg[to].insert(0, e);
            if self.seg[1].len() > self.protected_cap {
                if let Some(t) = self.seg[1].pop() {
                    self.seg[0].insert(0, t);
                }
            }
            true
        }
        fn insert(&mut self, lpn: u32) {
            if self.seg[0].len() + self.seg[1].len() < self.capacity {
                self.seg[0].insert(0, (lpn, false));
            }
        }
        fn evict(&mut self) -> Option<(u32, bool)> {
            self.seg[0].pop().or_else(|| self.seg[1].pop())
        }
        fn set_dirty(&mut self, lpn: u32, dirty: bool) {
            if let Some((g, i)) = self.find(lpn) {
                self.seg[g][i].1 = dirty;
            }
        }
    }

    proptest! {
        /// Hits, evictions (with their dirty flags) and fullness agree with the plain
        /// lists under any sequence of operations the FTL makes, and the page map keeps
        /// what was stored whatever the cache does.
        #[test]
        fn seglru_matches_reference(
            capacity in 1usize..12,
            protected_fraction in prop::sample::select(vec![0.0, 0.25, 0.5, 0.9]),
            ops in prop::collection::vec((0u8..7, 0u32..24), 1..400),
            // Also start a few touches before the stamps would wrap.
            first_stamp in prop::sample::select(vec![0, u32::MAX - 5]),
        ) {
            let mut c = SegLru::new(24, capacity, protected_fraction);
            c.stamps = Stamps::starting_at(Some(first_stamp));
            let mut r = Reference {
                seg: [Vec::new(), Vec::new()],
                capacity,
                protected_cap: c.protected_cap,
            };
            let mut map = [NONE; 24];
            for (step, (op, lpn)) in ops.into_iter().enumerate() {
                match op {
                    0 => prop_assert_eq!(c.touch(lpn), r.touch(lpn)),
                    // Twice in a row: the second touch of a hit finds it in front.
                    5 => {
                        prop_assert_eq!(c.touch(lpn), r.touch(lpn));
                        prop_assert_eq!(c.touch(lpn), r.touch(lpn));
                    }
                    6 => {
                        c.set_ppn(lpn, step as u32);
                        map[lpn as usize] = step as u32;
                    }
                    1 => {
                        // The FTL inserts only entries it does not hold, evicting first
                        // when full.
                        if !c.contains(lpn) {
                            if c.is_full() {
                                prop_assert_eq!(c.evict(), r.evict());
                            }
                            c.insert(lpn);
                            r.insert(lpn);
                        }
                    }
                    2 => prop_assert_eq!(c.evict(), r.evict()),
                    3 => {
                        c.set_dirty(lpn);
                        r.set_dirty(lpn, true);
                    }
                    _ => {
                        c.clean_range(lpn..lpn + 4);
                        for l in lpn..lpn + 4 {
                            r.set_dirty(l, false);
                        }
                    }
                }
                prop_assert_eq!(c.is_full(), r.seg[0].len() + r.seg[1].len() == capacity);
                prop_assert_eq!(c.len, [r.seg[0].len(), r.seg[1].len()]);
                prop_assert!((0..24).all(|l| c.ppn(l) == map[l as usize]));
            }
        }
    }
}
