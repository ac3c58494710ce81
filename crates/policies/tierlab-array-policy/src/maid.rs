//! MAID (Colarelli & Grunwald): a few always-on cache disks hold copies of recently read
//! data in front of data disks that spin down when idle.
//!
//! - **Data disks** are disks `0..n` (`ArraySetup::disks`). Relocation blocks (RBs,
//!   `rb_bytes`) are striped across them with no parity: RB `i` is on disk `i mod n`,
//!   slot `i / n`. MAID as published is a JBOD-like archive without redundancy, and
//!   plain striping keeps the comparison about the cache, not about parity updates.
//! - **Cache disks** are disks `n..n + cache_disks`, *beyond* `ArraySetup::disks`: the
//!   executor adds them ([`Maid::cache_disks`], `ArrayController::with_extra_disks`).
//!   Together they hold `cache_disks × slots` RB copies, replaced least recently used
//!   first. They never spin down.
//! - A **read miss** schedules a copy of the RB to a cache slot: one background write,
//!   because the foreground read just brought the data into the controller. The copy is
//!   written to a free slot, or over the least recently used copy (the copies are clean,
//!   so an evicted one is simply forgotten). Eviction takes the least recently used copy
//!   among the cache disks that are idle when the copy starts, which is the global LRU
//!   order whenever they all are. The RB is located on the cache disk only once the copy
//!   is reported done. Misses waiting for a cache disk queue up to `max_pending_copies`;
//!   beyond that the oldest is forgotten.
//! - A **write** invalidates the RB's copy (and any copy waiting or under way): writes
//!   go to the data disks (through the executor's NVRAM), and the cache keeps clean
//!   copies only.
//! - **Data disks** use fixed-timeout spin-down (TPM): an idle timeout of `idle_timeout_s`
//!   (default: the break-even time at full speed) is set at the start for the data disks
//!   only.
//!
//! The executor reports every host request's RBs to `record_access`, NVRAM hits
//! included, so a read served from NVRAM can also start a copy.

use crate::scheme::{ArraySetup, ArrayView, Command, Location, Move, MoveOp, Placement, Scheme, SchemeReport};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// MAID's settings; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MaidParams {
    /// Bytes per relocation block (the unit cached).
    pub rb_bytes: u64,
    /// Always-on cache disks beyond the data disks.
    pub cache_disks: usize,
    /// Data disks' idle time before spinning down, s (`None`: the break-even time).
    pub idle_timeout_s: Option<f64>,
    /// Read misses waiting for a copy at most.
    pub max_pending_copies: usize,
}

impl Default for MaidParams {
    fn default() -> Self {
        MaidParams { rb_bytes: 256 * 1024, cache_disks: 3, idle_timeout_s: None, max_pending_copies: 1024 }
    }
}

/// A cached copy: which cache disk (0-based among the cache disks), which slot, and when
/// it was last used.
#[derive(Clone, Copy, Debug)]
struct Entry {
    cache: u32,
    slot: u32,
    stamp: u64,
}

/// A copy under way.
#[derive(Clone, Copy, Debug)]
struct CopyJob {
    rb: u64,
    cache: u32,
    slot: u32,
    cancelled: bool,
}

/// Counts for the report.
#[derive(Clone, Debug, Default, Serialize)]
struct MaidStats {
    read_hits: u64,
    read_misses: u64,
    copies_started: u64,
    copies_done: u64,
    /// Copies made void by a write while waiting or under way.
    copies_cancelled: u64,
    /// Misses forgotten because too many copies were waiting.
    copies_dropped: u64,
    evictions: u64,
    invalidations: u64,
}

/// The MAID scheme and its placement; see the module documentation.
#[derive(Clone, Debug)]
pub struct Maid {
    p: MaidParams,
    rb_bytes: u64,
    data_disks: usize,
    slots: u32,
    cached: HashMap<u64, Entry>,
    /// Per cache disk: last use → RB, oldest first.
    lru: Vec<BTreeMap<u64, u64>>,
    /// Per cache disk: slots never used yet start at `fresh`; freed ones are in `freed`.
    fresh: Vec<u32>,
    freed: Vec<Vec<u32>>,
    pending: VecDeque<u64>,
    pending_set: HashSet<u64>,
    in_flight: HashMap<u64, CopyJob>,
    in_flight_rb: HashMap<u64, u64>,
    stamp: u64,
    next_id: u64,
    stats: MaidStats,
    notes: Vec<String>,
}

impl Maid {
    pub fn new(p: MaidParams) -> Maid {
        Maid {
            p,
            rb_bytes: p.rb_bytes.max(512),
            data_disks: 0,
            slots: 0,
            cached: HashMap::new(),
            lru: vec![BTreeMap::new(); p.cache_disks],
            fresh: vec![0; p.cache_disks],
            freed: vec![Vec::new(); p.cache_disks],
            pending: VecDeque::new(),
            pending_set: HashSet::new(),
            in_flight: HashMap::new(),
            in_flight_rb: HashMap::new(),
            stamp: 0,
            next_id: 0,
            stats: MaidStats::default(),
            notes: Vec::new(),
        }
    }

    /// Cache disks the executor must add beyond `ArraySetup::disks` (they are numbered
    /// from `ArraySetup::disks` on).
    pub fn cache_disks(&self) -> usize {
        self.p.cache_disks
    }

    pub fn params(&self) -> &MaidParams {
        &self.p
    }

    /// RB copies the cache holds now.
    pub fn cached_blocks(&self) -> usize {
        self.cached.len()
    }

    fn in_range(&self, rb: u64) -> bool {
        rb < self.data_disks as u64 * u64::from(self.slots)
    }

    fn free_slot(&mut self, cache: usize, slot: u32) {
        self.freed[cache].push(slot);
    }

    fn has_free(&self, cache: usize) -> bool {
        !self.freed[cache].is_empty() || self.fresh[cache] < self.slots
    }

    fn free_count(&self, cache: usize) -> u64 {
        self.freed[cache].len() as u64 + u64::from(self.slots - self.fresh[cache].min(self.slots))
    }

    fn take_free(&mut self, cache: usize) -> Option<u32> {
        if let Some(s) = self.freed[cache].pop() {
            return Some(s);
        }
        (self.fresh[cache] < self.slots).then(|| {
            self.fresh[cache] += 1;
            self.fresh[cache] - 1
        })
    }

    fn remove_cached(&mut self, rb: u64) -> Option<Entry> {
        let e = self.cached.remove(&rb)?;
        self.lru[e.cache as usize].remove(&e.stamp);
        Some(e)
    }

    /// A slot for a new copy on an idle cache disk: a free one (on the idle disk with most
    /// free slots), else the least recently used copy's.
    fn slot_for_copy(&mut self, idle: &dyn Fn(u32) -> bool) -> Option<(u32, u32)> {
        let base = self.data_disks as u32;
        let idle_caches: Vec<usize> = (0..self.p.cache_disks).filter(|&c| idle(base + c as u32)).collect();
        if let Some(&c) = idle_caches.iter().filter(|&&c| self.has_free(c)).max_by_key(|&&c| (self.free_count(c), std::cmp::Reverse(c))) {
            let slot = self.take_free(c)?;
            return Some((c as u32, slot));
        }
        let c = idle_caches.into_iter().filter_map(|c| self.lru[c].first_key_value().map(|(&stamp, _)| (stamp, c))).min()?.1;
        let (_, victim) = self.lru[c].pop_first()?;
        let e = self.cached.remove(&victim)?;
        self.stats.evictions += 1;
        Some((c as u32, e.slot))
    }
}

impl Scheme for Maid {
    fn name(&self) -> String {
        "maid".into()
    }

    fn start(&mut self, setup: &ArraySetup, out: &mut Vec<Command>) {
        self.data_disks = setup.disks;
        let slots = setup.disk_capacity_bytes / self.rb_bytes;
        self.slots = slots.min(u64::from(u32::MAX)) as u32;
        self.notes.push(format!(
            "{} data disks striped without parity; {} always-on cache disks (disks {}..{}) holding {} relocation blocks",
            setup.disks,
            self.p.cache_disks,
            setup.disks,
            setup.disks + self.p.cache_disks,
            self.p.cache_disks as u64 * u64::from(self.slots)
        ));
        if let Some(note) = crate::baseline::spin_down_when_idle(setup, 0..setup.disks, self.p.idle_timeout_s, out) {
            self.notes.push(format!("data disks: {note}"));
        }
    }

    fn next_tick_ns(&self) -> Option<u64> {
        None
    }

    fn tick(&mut self, _view: &ArrayView, _out: &mut Vec<Command>) {}

    fn placement(&mut self) -> Option<&mut dyn Placement> {
        Some(self)
    }

    fn report(&self) -> SchemeReport {
        let s = &self.stats;
        let mut notes = self.notes.clone();
        let reads = s.read_hits + s.read_misses;
        let ratio = if reads > 0 { s.read_hits as f64 / reads as f64 } else { 0.0 };
        notes.push(format!(
            "cache: {} read hits, {} misses (hit ratio {:.3}); copies {} done, {} cancelled by writes, {} dropped; {} evictions, {} invalidations",
            s.read_hits, s.read_misses, ratio, s.copies_done, s.copies_cancelled, s.copies_dropped, s.evictions, s.invalidations
        ));
        SchemeReport { notes, ..SchemeReport::default() }
    }
}

impl Placement for Maid {
    fn rb_bytes(&self) -> u64 {
        self.rb_bytes
    }

    fn capacity_bytes(&self) -> u64 {
        self.data_disks as u64 * u64::from(self.slots) * self.rb_bytes
    }

    fn locate(&self, rb: u64) -> Option<(Location, Option<Location>)> {
        if !self.in_range(rb) {
            return None;
        }
        if let Some(e) = self.cached.get(&rb) {
            let disk = (self.data_disks + e.cache as usize) as u32;
            return Some((Location { disk, offset_bytes: u64::from(e.slot) * self.rb_bytes }, None));
        }
        let n = self.data_disks as u64;
        Some((Location { disk: (rb % n) as u32, offset_bytes: rb / n * self.rb_bytes }, None))
    }

    fn record_access(&mut self, rb: u64, write: bool, _now_ns: u64) {
        if !self.in_range(rb) || self.p.cache_disks == 0 {
            return;
        }
        if write {
            if let Some(e) = self.remove_cached(rb) {
                self.free_slot(e.cache as usize, e.slot);
                self.stats.invalidations += 1;
            }
            if self.pending_set.remove(&rb) {
                self.stats.copies_cancelled += 1;
            }
            if let Some(id) = self.in_flight_rb.remove(&rb) {
                if let Some(c) = self.in_flight.get_mut(&id) {
                    c.cancelled = true;
                    self.stats.copies_cancelled += 1;
                }
            }
            return;
        }
        self.stamp += 1;
        if let Some(e) = self.cached.get_mut(&rb) {
            self.lru[e.cache as usize].remove(&e.stamp);
            e.stamp = self.stamp;
            self.lru[e.cache as usize].insert(self.stamp, rb);
            self.stats.read_hits += 1;
            return;
        }
        self.stats.read_misses += 1;
        if self.pending_set.contains(&rb) || self.in_flight_rb.contains_key(&rb) {
            return;
        }
        self.pending_set.insert(rb);
        self.pending.push_back(rb);
        while self.pending_set.len() > self.p.max_pending_copies.max(1) {
            let Some(old) = self.pending.pop_front() else { break };
            if self.pending_set.remove(&old) {
                self.stats.copies_dropped += 1;
            }
        }
    }

    fn next_move(&mut self, _now_ns: u64, idle: &dyn Fn(u32) -> bool) -> Option<Move> {
        let rb = loop {
            let &rb = self.pending.front()?;
            if self.pending_set.contains(&rb) {
                break rb;
            }
            self.pending.pop_front();
        };
        let (cache, slot) = self.slot_for_copy(idle)?;
        self.pending.pop_front();
        self.pending_set.remove(&rb);
        let id = self.next_id;
        self.next_id += 1;
        self.in_flight.insert(id, CopyJob { rb, cache, slot, cancelled: false });
        self.in_flight_rb.insert(rb, id);
        self.stats.copies_started += 1;
        let at = Location { disk: self.data_disks as u32 + cache, offset_bytes: u64::from(slot) * self.rb_bytes };
        Some(Move { id, ops: vec![MoveOp { at, len_bytes: self.rb_bytes, write: true }], yielding: false })
    }

    fn move_done(&mut self, id: u64, _now_ns: u64) {
        let Some(c) = self.in_flight.remove(&id) else { return };
        if self.in_flight_rb.get(&c.rb) == Some(&id) {
            self.in_flight_rb.remove(&c.rb);
        }
        if c.cancelled {
            self.free_slot(c.cache as usize, c.slot);
            return;
        }
        self.stats.copies_done += 1;
        self.stamp += 1;
        self.cached.insert(c.rb, Entry { cache: c.cache, slot: c.slot, stamp: self.stamp });
        self.lru[c.cache as usize].insert(self.stamp, c.rb);
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rb_bytes": self.rb_bytes,
            "cache_disks": self.p.cache_disks,
            "cache_slots": self.p.cache_disks as u64 * u64::from(self.slots),
            "cached_blocks": self.cached.len(),
            "stats": self.stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::{SpeedInfo, StandbyInfo, Transition};

    const RB: u64 = 256 * 1024;

    fn setup(disks: usize, slots: u64, standby: bool) -> ArraySetup {
        let speeds = vec![SpeedInfo { rpm: 15_000, active_w: 13.5, seek_w: 13.5, idle_w: 10.2, media_bytes_per_s: 80e6 }];
        let standby = standby.then_some(StandbyInfo { power_w: 2.5, enter: Transition { time_s: 1.5, energy_j: 13.0 }, leave: Transition { time_s: 10.9, energy_j: 135.0 } });
        ArraySetup { disks, disk_capacity_bytes: slots * RB, speeds, speed_change: Transition { time_s: 0.0, energy_j: 0.0 }, standby, average_seek_s: 3.4e-3, r_limit_s: 0.01 }
    }

    /// 2 data disks of 4 RBs; `cache_disks` cache disks of 4 RBs each.
    fn maid(cache_disks: usize) -> Maid {
        let mut m = Maid::new(MaidParams { cache_disks, ..MaidParams::default() });
        m.start(&setup(2, 4, true), &mut Vec::new());
        m
    }

    fn disk_of(m: &Maid, rb: u64) -> u32 {
        m.locate(rb).unwrap().0.disk
    }

    /// Read `rb` and run the copy a miss starts, if any; the copy's id.
    fn read_and_copy(m: &mut Maid, rb: u64) -> Option<u64> {
        m.record_access(rb, false, 0);
        let mv = m.next_move(0, &|_| true)?;
        m.move_done(mv.id, 0);
        Some(mv.id)
    }

    #[test]
    fn a_read_miss_copies_the_block_once_and_later_reads_find_it_on_the_cache_disk() {
        let mut m = maid(1);
        assert_eq!(m.cache_disks(), 1);
        assert_eq!(m.locate(5).unwrap().0, Location { disk: 1, offset_bytes: 2 * RB });
        m.record_access(5, false, 0);
        // Still on the data disk until the copy is done.
        assert_eq!(disk_of(&m, 5), 1);
        // The cache disk is busy: the copy waits.
        assert_eq!(m.next_move(0, &|d| d != 2), None);
        let mv = m.next_move(0, &|_| true).unwrap();
        assert_eq!(mv.ops, vec![MoveOp { at: Location { disk: 2, offset_bytes: 0 }, len_bytes: RB, write: true }]);
        assert_eq!(m.next_move(0, &|_| true), None);
        // Another read while the copy is under way is a miss that starts nothing.
        m.record_access(5, false, 0);
        assert_eq!(m.next_move(0, &|_| true), None);
        assert_eq!(disk_of(&m, 5), 1);
        m.move_done(mv.id, 0);
        assert_eq!(m.locate(5), Some((Location { disk: 2, offset_bytes: 0 }, None)));
        m.record_access(5, false, 0);
        assert_eq!(m.next_move(0, &|_| true), None);
        assert_eq!((m.stats.read_hits, m.stats.read_misses, m.stats.copies_done), (1, 2, 1));
    }

    #[test]
    fn the_least_recently_used_copy_is_evicted() {
        let mut m = maid(1);
        for rb in 0..4 {
            read_and_copy(&mut m, rb).unwrap();
        }
        assert_eq!((0..4).map(|rb| disk_of(&m, rb)).collect::<Vec<_>>(), vec![2; 4]);
        // Use 0 again: 1 is now the least recently used, then 2.
        m.record_access(0, false, 0);
        let slot_of_1 = m.locate(1).unwrap().0.offset_bytes;
        read_and_copy(&mut m, 4).unwrap();
        assert_eq!(disk_of(&m, 1), 1);
        assert_eq!(m.locate(4).unwrap().0, Location { disk: 2, offset_bytes: slot_of_1 });
        read_and_copy(&mut m, 5).unwrap();
        assert_eq!(disk_of(&m, 2), 0);
        assert_eq!([0, 3, 4, 5].map(|rb| disk_of(&m, rb)), [2; 4]);
        assert_eq!(m.stats.evictions, 2);
        assert_eq!(m.cached_blocks(), 4);
    }

    #[test]
    fn copies_fill_free_slots_across_idle_cache_disks_and_evict_only_when_full() {
        // 3 data disks (12 RBs), cache disks 3 and 4 (8 slots).
        let mut m = Maid::new(MaidParams { cache_disks: 2, ..MaidParams::default() });
        m.start(&setup(3, 4, true), &mut Vec::new());
        for rb in 0..8 {
            read_and_copy(&mut m, rb).unwrap();
        }
        assert_eq!(m.stats.evictions, 0);
        let mut places: Vec<(u32, u64)> = (0..8).map(|rb| m.locate(rb).unwrap().0).map(|l| (l.disk, l.offset_bytes)).collect();
        places.sort();
        places.dedup();
        assert_eq!(places.len(), 8);
        assert!(places.iter().all(|&(d, o)| (3..5).contains(&d) && o < 4 * RB));
        // With cache disk 3 busy, the oldest copy on disk 4 makes room.
        let oldest_on_4 = (0..8).find(|&rb| disk_of(&m, rb) == 4).unwrap();
        m.record_access(8, false, 0);
        let mv = m.next_move(0, &|d| d != 3).unwrap();
        m.move_done(mv.id, 0);
        assert_eq!(disk_of(&m, 8), 4);
        assert!(disk_of(&m, oldest_on_4) < 3);
        assert_eq!(m.stats.evictions, 1);
    }

    #[test]
    fn a_write_invalidates_the_copy_and_voids_copies_waiting_or_under_way() {
        let mut m = maid(1);
        read_and_copy(&mut m, 3).unwrap();
        assert_eq!(disk_of(&m, 3), 2);
        m.record_access(3, true, 0);
        assert_eq!(m.locate(3).unwrap().0, Location { disk: 1, offset_bytes: RB });
        // Waiting: the write cancels it.
        m.record_access(6, false, 0);
        m.record_access(6, true, 0);
        assert_eq!(m.next_move(0, &|_| true), None);
        // Under way: done, but not used.
        m.record_access(7, false, 0);
        let mv = m.next_move(0, &|_| true).unwrap();
        m.record_access(7, true, 0);
        m.move_done(mv.id, 0);
        assert_eq!(disk_of(&m, 7), 1);
        assert_eq!(m.cached_blocks(), 0);
        // The slots came back: four new copies fit without evicting anything.
        for rb in 0..4 {
            read_and_copy(&mut m, rb).unwrap();
        }
        assert_eq!(m.stats.evictions, 0);
    }

    #[test]
    fn only_the_data_disks_get_the_break_even_idle_timeout() {
        let s = setup(4, 8, true);
        let mut m = Maid::new(MaidParams::default());
        let mut out = Vec::new();
        m.start(&s, &mut out);
        let be = s.standby.unwrap().break_even_s(10.2);
        let ns = (be * 1e9).round() as u64;
        assert_eq!(out, (0..4).map(|disk| Command::IdleTimeout { disk, timeout_ns: Some(ns) }).collect::<Vec<_>>());
        assert_eq!(m.cache_disks(), 3);
        assert_eq!(m.next_tick_ns(), None);
        // A set timeout, and no standby state at all.
        let mut m = Maid::new(MaidParams { idle_timeout_s: Some(2.0), ..MaidParams::default() });
        let mut out = Vec::new();
        m.start(&s, &mut out);
        assert_eq!(out[3], Command::IdleTimeout { disk: 3, timeout_ns: Some(2_000_000_000) });
        let mut m = Maid::new(MaidParams::default());
        let mut out = Vec::new();
        m.start(&setup(4, 8, false), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn blocks_outside_the_layout_are_not_located_and_start_nothing() {
        let mut m = maid(1);
        assert_eq!(m.locate(8), None);
        assert_eq!(m.locate(u64::MAX), None);
        m.record_access(8, false, 0);
        m.record_access(u64::MAX, true, 0);
        assert_eq!(m.next_move(0, &|_| true), None);
        // Before `start` nothing is in the layout.
        let mut fresh = Maid::new(MaidParams::default());
        assert_eq!(fresh.locate(0), None);
        fresh.record_access(0, false, 0);
        assert_eq!(fresh.next_move(0, &|_| true), None);
        fresh.move_done(17, 0);
    }

    #[test]
    fn the_waiting_list_is_bounded() {
        let mut m = Maid::new(MaidParams { cache_disks: 1, max_pending_copies: 2, ..MaidParams::default() });
        m.start(&setup(2, 4, true), &mut Vec::new());
        for rb in [1, 2, 3] {
            m.record_access(rb, false, 0);
        }
        assert_eq!(m.stats.copies_dropped, 1);
        let first = m.next_move(0, &|_| true).unwrap();
        m.move_done(first.id, 0);
        assert_eq!(disk_of(&m, 2), 2);
        assert_eq!(disk_of(&m, 1), 1);
    }
}
