//! GreenDM's caching variant: the HDD holds the whole capacity and the SSD holds copies of
//! HDD extents. An uncached extent accessed PT times within TW is pre-fetched; a full
//! cache gives up a victim chosen by the replacement algorithm (a dirty victim is written
//! back first). Write policies:
//! - write-back: a write to a cached extent goes to the SSD only and marks it dirty; dirty
//!   extents are queued for asynchronous write-back (duplicates merged; when the queue is
//!   at its cap the write goes to both devices instead, so dirty data stays bounded). A
//!   write-back copies what the host dirtied, not the whole extent: the span from the
//!   first to the last dirty byte, widened to 4 KiB pages (GreenDM queues the pending
//!   write I/O and its write-back thread flushes those writes; the dirty flag is per
//!   extent). An extent restored dirty from the persisted map has no span on record and
//!   is written back whole;
//! - write-through: a write to a cached extent goes to both devices;
//! - write-around: writes go to the HDD and invalidate a cached copy (both devices while
//!   the copy has I/O in flight, so no read races the invalidation).
//!
//! Writes to uncached extents go to the HDD (no write-allocate); writes to an extent being
//! copied wait for the copy.
//!
//! Memory: 12 bytes per virtual (HDD) extent, 12 per SSD slot (its extent and its dirty
//! span), one bit per slot, and the replacement algorithm's state per cached extent.

use crate::bitmap::Bitmap;
use crate::persist::{bad_record, ChangeLog};
use crate::geometry::{tick, ticks, Geometry, PolicyError, Tier};
use crate::work::Work;
use crate::{split_extents, MapRecord, Migration, MoveKind, Piece, Place, Policy, PolicyStats, Routing, NO_LOCATION};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use tierlab_cache::{Algorithm, Replacement};
use tierlab_types::{Op, NS_PER_S};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    WriteBack,
    WriteThrough,
    WriteAround,
}

impl std::str::FromStr for WritePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "write-back" | "wb" => Ok(WritePolicy::WriteBack),
            "write-through" | "wt" => Ok(WritePolicy::WriteThrough),
            "write-around" | "wa" => Ok(WritePolicy::WriteAround),
            _ => Err(format!("unknown write policy `{s}`: expected write-back, write-through or write-around")),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CachingParams {
    /// Accesses within TW before an uncached extent is pre-fetched (≥ 1).
    pub pt: u32,
    pub tw_ns: u64,
    /// Maximum concurrent copies (pre-fetches and write-backs, ≥ 1).
    pub mcml: u32,
    pub write: WritePolicy,
    #[serde(with = "algorithm_name")]
    pub replacement: Algorithm,
    /// Longest the write-back queue may grow (≥ 1).
    pub writeback_queue_cap: u32,
}

mod algorithm_name {
    use serde::{Deserialize, Deserializer, Serializer};
    use tierlab_cache::Algorithm;
    pub fn serialize<S: Serializer>(a: &Algorithm, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&a.to_string())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Algorithm, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

impl Default for CachingParams {
    fn default() -> Self {
        CachingParams {
            pt: 2,
            tw_ns: 60 * NS_PER_S,
            mcml: 4,
            write: WritePolicy::WriteBack,
            replacement: Algorithm::Lru,
            writeback_queue_cap: 1024,
        }
    }
}

impl CachingParams {
    pub fn validate(&self, geo: &Geometry) -> Result<(), PolicyError> {
        let bad = |name, expected: &str, found: u32| Err(PolicyError::Param { name, expected: expected.into(), found: found.to_string() });
        if self.pt == 0 {
            return bad("pt", "a pre-fetch threshold of at least 1", 0);
        }
        if self.mcml == 0 {
            return bad("mcml", "at least 1 concurrent copy", 0);
        }
        if self.writeback_queue_cap == 0 {
            return bad("writeback_queue_cap", "at least 1", 0);
        }
        if geo.ssd_extents == 0 || geo.hdd_extents == 0 {
            return bad("ssd_bytes", "an SSD and an HDD of at least one extent each", geo.ssd_extents.min(geo.hdd_extents));
        }
        if geo.ssd_extents > geo.hdd_extents {
            return bad("ssd_bytes", "a cache no larger than the HDD it caches", geo.ssd_extents);
        }
        Ok(())
    }
}

const NONE: u32 = u32::MAX;
const DIRTY: u8 = 1;
const PREFETCH_QUEUED: u8 = 2;
const WB_QUEUED: u8 = 4;
const COPYING: u8 = 8;
/// Given up by the replacement algorithm; the slot is freed once written back.
const EVICTING: u8 = 16;
/// The unit a dirty span is widened to: the write-back copies whole 4 KiB pages.
const DIRTY_PAGE_BYTES: u32 = 4096;

/// The bytes of a cached extent written since its last write-back, as one span
/// `[lo, hi)` within the extent; empty when `hi` is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DirtySpan {
    lo: u32,
    hi: u32,
}

impl DirtySpan {
    const CLEAN: DirtySpan = DirtySpan { lo: 0, hi: 0 };

    fn add(&mut self, lo: u32, hi: u32) {
        *self = if self.hi == 0 { DirtySpan { lo, hi } } else { DirtySpan { lo: self.lo.min(lo), hi: self.hi.max(hi) } };
    }

    /// The span widened to whole pages within an extent of `extent_bytes`, as (offset,
    /// length); the whole extent when nothing is on record (a dirty extent always has a
    /// span, so that is only a safe default).
    fn pages(self, extent_bytes: u32) -> (u32, u32) {
        if self.hi == 0 {
            return (0, extent_bytes);
        }
        let lo = self.lo / DIRTY_PAGE_BYTES * DIRTY_PAGE_BYTES;
        let hi = self.hi.div_ceil(DIRTY_PAGE_BYTES).saturating_mul(DIRTY_PAGE_BYTES).min(extent_bytes);
        (lo, hi - lo)
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    slot: u32,
    last_tick: u32,
    count: u16,
    flags: u8,
}

pub struct CachingPolicy {
    geo: Geometry,
    params: CachingParams,
    table: Vec<Entry>,
    reverse: Vec<u32>,
    /// Per cache slot: what the host dirtied since the slot's last write-back.
    dirty_span: Vec<DirtySpan>,
    slots: Bitmap,
    repl: Box<dyn Replacement>,
    prefetch_queue: VecDeque<u32>,
    writeback_queue: VecDeque<u32>,
    work: Work,
    next_id: u64,
    checkpointing: bool,
    stats: PolicyStats,
    log: ChangeLog,
}

impl CachingPolicy {
    pub fn new(geo: Geometry, params: CachingParams) -> Result<Self, PolicyError> {
        params.validate(&geo)?;
        Ok(CachingPolicy {
            geo,
            params,
            table: vec![Entry { slot: NONE, last_tick: 0, count: 0, flags: 0 }; geo.hdd_extents as usize],
            reverse: vec![NONE; geo.ssd_extents as usize],
            dirty_span: vec![DirtySpan::CLEAN; geo.ssd_extents as usize],
            slots: Bitmap::new(geo.ssd_extents),
            repl: params.replacement.build(geo.ssd_extents as usize, params.tw_ns),
            prefetch_queue: VecDeque::new(),
            writeback_queue: VecDeque::new(),
            work: Work::default(),
            next_id: 1,
            checkpointing: false,
            stats: PolicyStats::default(),
            log: ChangeLog::default(),
        })
    }

    pub fn params(&self) -> &CachingParams {
        &self.params
    }

    fn slot_offset(&self, slot: u32) -> u64 {
        slot as u64 * self.geo.extent_bytes
    }

    fn hdd_offset(&self, v: u32) -> u64 {
        v as u64 * self.geo.extent_bytes
    }

    fn count_miss(&mut self, v: u32, now_ns: u64) {
        let now = tick(now_ns);
        let window = ticks(self.params.tw_ns);
        let e = &mut self.table[v as usize];
        e.count = if e.count > 0 && now.saturating_sub(e.last_tick) <= window { e.count.saturating_add(1) } else { 1 };
        e.last_tick = now;
        if e.count as u32 >= self.params.pt && e.flags & (PREFETCH_QUEUED | COPYING) == 0 {
            e.flags |= PREFETCH_QUEUED;
            self.prefetch_queue.push_back(v);
        }
    }

    fn queue_writeback(&mut self, v: u32) -> bool {
        let e = &mut self.table[v as usize];
        if e.flags & WB_QUEUED != 0 {
            return true;
        }
        if self.writeback_queue.len() >= self.params.writeback_queue_cap as usize {
            return false;
        }
        e.flags |= WB_QUEUED;
        self.writeback_queue.push_back(v);
        true
    }

    fn start(&mut self, kind: MoveKind, v: u32, slot: u32) -> Migration {
        let (from, from_offset_bytes, to, to_offset_bytes) = match kind {
            MoveKind::Prefetch => (Tier::Hdd, self.hdd_offset(v), Tier::Ssd, self.slot_offset(slot)),
            _ => (Tier::Ssd, self.slot_offset(slot), Tier::Hdd, self.hdd_offset(v)),
        };
        // A write-back copies the dirty pages; writes to the extent wait for the copy, so
        // the span cannot grow while it runs.
        let (within, len_bytes) = match kind {
            MoveKind::Prefetch => (0, self.geo.extent_bytes),
            _ => {
                let (lo, len) = self.dirty_span[slot as usize].pages(self.geo.extent_bytes as u32);
                (u64::from(lo), u64::from(len))
            }
        };
        let m = Migration {
            id: self.next_id,
            kind,
            extent: v,
            from,
            from_offset_bytes: from_offset_bytes + within,
            to,
            to_offset_bytes: to_offset_bytes + within,
            len_bytes,
        };
        self.next_id += 1;
        self.table[v as usize].flags |= COPYING;
        self.work.start(m, slot);
        m
    }

    fn free_slot(&mut self, v: u32) {
        let e = &mut self.table[v as usize];
        let slot = e.slot;
        e.slot = NONE;
        e.flags &= !(DIRTY | EVICTING | WB_QUEUED);
        if slot != NONE {
            self.reverse[slot as usize] = NONE;
            self.dirty_span[slot as usize] = DirtySpan::CLEAN;
            self.slots.clear(slot);
            self.log.note(MapRecord::new(v, NO_LOCATION, false));
        }
    }

    /// Make room for a pre-fetch: a free slot, or a clean victim's slot. A dirty victim is
    /// sent to write-back first (returned as the migration to start).
    fn make_room(&mut self, now_ns: u64) -> Result<u32, Option<Migration>> {
        if let Some(slot) = self.slots.alloc_in(0, self.geo.ssd_extents) {
            return Ok(slot);
        }
        // Busy victims are skipped and put back as recently used; bounded attempts.
        let mut skipped = Vec::new();
        let mut result = Err(None);
        for _ in 0..self.repl.len().min(64) {
            let Some(key) = self.repl.evict(now_ns) else { break };
            let v = key as u32;
            let e = self.table[v as usize];
            if e.flags & COPYING != 0 || self.work.busy(v) {
                skipped.push(v);
                continue;
            }
            self.stats.evictions += 1;
            if e.flags & DIRTY != 0 {
                self.table[v as usize].flags |= EVICTING;
                result = Err(Some(self.start(MoveKind::WriteBack, v, e.slot)));
            } else {
                let slot = e.slot;
                self.free_slot(v);
                self.slots.set(slot);
                result = Ok(slot);
            }
            break;
        }
        for v in skipped {
            self.repl.insert(v as u64, now_ns);
        }
        result
    }
}

impl Policy for CachingPolicy {
    fn name(&self) -> &'static str {
        "caching"
    }

    fn geometry(&self) -> &Geometry {
        &self.geo
    }

    fn route(&mut self, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64, out: &mut Vec<Piece>) -> Result<Routing, PolicyError> {
        let es = self.geo.extent_bytes;
        if let Some(id) = self.work.admit(op, es, offset_bytes, len_bytes, self.virtual_bytes(), &mut self.stats)? {
            return Ok(Routing::Wait(id));
        }
        out.clear();
        for (ext, within, len) in split_extents(es, offset_bytes, len_bytes) {
            let v = ext as u32;
            let e = self.table[v as usize];
            let cached = e.slot != NONE;
            let hdd = Piece { place: Place::Hdd, op, device_offset_bytes: self.hdd_offset(v) + within, len_bytes: len, extent: v };
            let busy = self.work.busy(v);
            let mut pieces = [None, None];
            if cached {
                if e.flags & EVICTING == 0 {
                    self.repl.access(v as u64, now_ns);
                }
                let ssd = Piece { place: Place::Ssd, device_offset_bytes: self.slot_offset(e.slot) + within, ..hdd };
                pieces[0] = Some(ssd);
                if op == Op::Write {
                    match self.params.write {
                        WritePolicy::WriteBack => {
                            if self.queue_writeback(v) {
                                if e.flags & DIRTY == 0 {
                                    self.log.note(MapRecord::new(v, e.slot, true));
                                }
                                self.table[v as usize].flags |= DIRTY;
                                self.dirty_span[e.slot as usize].add(within as u32, (within + len) as u32);
                            } else {
                                pieces[1] = Some(hdd);
                            }
                        }
                        WritePolicy::WriteThrough => pieces[1] = Some(hdd),
                        WritePolicy::WriteAround if busy => pieces[1] = Some(hdd),
                        WritePolicy::WriteAround => {
                            if e.flags & EVICTING == 0 {
                                self.repl.remove(v as u64);
                            }
                            self.free_slot(v);
                            pieces = [Some(hdd), None];
                        }
                    }
                }
            } else {
                let from_ram = self.work.served_from_ram(op, v);
                pieces[0] = Some(if from_ram { Piece { place: Place::Ram, device_offset_bytes: within, ..hdd } } else { hdd });
                self.count_miss(v, now_ns);
            }
            for p in pieces.into_iter().flatten() {
                self.work.issue(p, &mut self.stats, out);
            }
        }
        Ok(Routing::Go)
    }

    fn done(&mut self, pieces: &[Piece]) {
        self.work.done(pieces);
    }

    fn next_migration(&mut self, now_ns: u64) -> Option<Migration> {
        if self.checkpointing || self.work.active.len() >= self.params.mcml as usize {
            return None;
        }
        while let Some(v) = self.prefetch_queue.pop_front() {
            let e = &mut self.table[v as usize];
            e.flags &= !PREFETCH_QUEUED;
            if e.slot != NONE || e.flags & COPYING != 0 {
                continue;
            }
            if self.work.busy(v) {
                e.count = 0;
                self.stats.cancelled_migrations += 1;
                continue;
            }
            match self.make_room(now_ns) {
                Ok(slot) => return Some(self.start(MoveKind::Prefetch, v, slot)),
                Err(writeback) => {
                    // Retry this pre-fetch once the victim is clean (or a slot frees up).
                    self.table[v as usize].flags |= PREFETCH_QUEUED;
                    self.prefetch_queue.push_front(v);
                    return writeback;
                }
            }
        }
        for _ in 0..self.writeback_queue.len() {
            let Some(v) = self.writeback_queue.pop_front() else { break };
            let e = self.table[v as usize];
            if e.flags & DIRTY == 0 || e.slot == NONE || e.flags & COPYING != 0 {
                self.table[v as usize].flags &= !WB_QUEUED;
                continue;
            }
            if self.work.busy(v) {
                self.writeback_queue.push_back(v); // busy: try again later
                continue;
            }
            self.table[v as usize].flags &= !WB_QUEUED;
            return Some(self.start(MoveKind::WriteBack, v, e.slot));
        }
        None
    }

    fn wants_to_move(&self) -> bool {
        !self.prefetch_queue.is_empty() || !self.writeback_queue.is_empty()
    }

    fn migration_copied(&mut self, id: u64) {
        self.work.copied(id);
    }

    fn migration_done(&mut self, now_ns: u64, id: u64, ok: bool) {
        let Some(a) = self.work.finish(id) else { return };
        let v = a.m.extent;
        self.table[v as usize].flags &= !COPYING;
        match (a.m.kind, ok) {
            (MoveKind::Prefetch, true) => {
                let e = &mut self.table[v as usize];
                e.slot = a.target;
                e.count = 0;
                self.reverse[a.target as usize] = v;
                self.repl.insert(v as u64, now_ns);
                self.log.note(MapRecord::new(v, a.target, false));
                self.stats.prefetches += 1;
                self.stats.bytes_moved += a.m.len_bytes;
            }
            (MoveKind::Prefetch, false) => {
                self.slots.clear(a.target);
                self.stats.cancelled_migrations += 1;
            }
            (_, true) => {
                self.stats.write_backs += 1;
                self.stats.bytes_moved += a.m.len_bytes;
                if self.table[v as usize].flags & EVICTING != 0 {
                    self.free_slot(v);
                } else {
                    self.table[v as usize].flags &= !DIRTY;
                    self.dirty_span[a.target as usize] = DirtySpan::CLEAN;
                    self.log.note(MapRecord::new(v, a.target, false));
                }
            }
            (_, false) => {
                self.stats.cancelled_migrations += 1;
                if self.table[v as usize].flags & EVICTING != 0 {
                    // Still dirty and still cached: give it back to the replacement algorithm.
                    self.table[v as usize].flags &= !EVICTING;
                    self.repl.insert(v as u64, now_ns);
                }
                self.queue_writeback(v);
            }
        }
    }

    fn set_checkpointing(&mut self, on: bool) {
        self.checkpointing = on;
    }

    fn set_param(&mut self, name: &str, value: f64) -> Result<(), PolicyError> {
        let whole = || -> Result<u32, PolicyError> {
            if value.is_finite() && value >= 1.0 && value.fract() == 0.0 && value <= u32::MAX as f64 {
                Ok(value as u32)
            } else {
                Err(PolicyError::Param { name: "value", expected: "a whole number ≥ 1".into(), found: value.to_string() })
            }
        };
        match name {
            "pt" => self.params.pt = whole()?,
            "mcml" => self.params.mcml = whole()?,
            "writeback_queue_cap" => self.params.writeback_queue_cap = whole()?,
            "tw_s" | "tw" if value.is_finite() && value > 0.0 => self.params.tw_ns = (value * NS_PER_S as f64) as u64,
            "tw_s" | "tw" => {
                return Err(PolicyError::Param { name: "tw_s", expected: "a positive number of seconds".into(), found: value.to_string() })
            }
            _ => return Err(PolicyError::UnknownParam(name.to_string())),
        }
        Ok(())
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let p = &self.params;
        let tw_s = p.tw_ns as f64 / NS_PER_S as f64;
        vec![("pt", p.pt as f64), ("tw_s", tw_s), ("mcml", p.mcml as f64), ("writeback_queue_cap", p.writeback_queue_cap as f64)]
    }

    fn virtual_bytes(&self) -> u64 {
        self.geo.hdd_bytes()
    }

    fn extent_in_flight(&self, extent: u32) -> bool {
        self.work.busy(extent)
    }

    fn enable_journal(&mut self) {
        self.log.enable();
    }

    fn take_changes(&mut self, out: &mut Vec<MapRecord>) {
        self.log.take(out);
    }

    fn snapshot(&self, out: &mut Vec<MapRecord>) {
        let cached = self.table.iter().enumerate().filter(|(_, e)| e.slot != NONE);
        out.extend(cached.map(|(v, e)| MapRecord::new(v as u32, e.slot, e.flags & DIRTY != 0)));
    }

    fn restore(&mut self, records: &[MapRecord]) -> Result<(), PolicyError> {
        if !self.reverse.iter().all(|&v| v == NONE) || !self.work.active.is_empty() {
            return Err(PolicyError::Param { name: "restore", expected: "a new policy".into(), found: "one in use".into() });
        }
        for r in records {
            let Some(e) = self.table.get_mut(r.extent as usize) else {
                return Err(bad_record(r, format!("an extent below {}", self.table.len())));
            };
            if r.location != NO_LOCATION && r.location >= self.geo.ssd_extents {
                return Err(bad_record(r, format!("a cache slot below {}", self.geo.ssd_extents)));
            }
            e.slot = r.location;
            e.flags = if r.dirty && r.location != NO_LOCATION { DIRTY } else { 0 };
        }
        for v in 0..self.table.len() as u32 {
            let e = self.table[v as usize];
            if e.slot == NONE {
                continue;
            }
            if self.slots.is_set(e.slot) {
                return Err(bad_record(&MapRecord::new(v, e.slot, false), "each cache slot holding at most one extent".into()));
            }
            self.slots.set(e.slot);
            self.reverse[e.slot as usize] = v;
            self.repl.insert(v as u64, 0);
            if e.flags & DIRTY != 0 {
                // Which bytes were dirtied is not persisted: the whole extent is.
                self.dirty_span[e.slot as usize] = DirtySpan { lo: 0, hi: self.geo.extent_bytes as u32 };
                self.queue_writeback(v);
            }
        }
        Ok(())
    }

    fn stats(&self) -> PolicyStats {
        let dirty = self.table.iter().filter(|e| e.flags & DIRTY != 0).count() as u64;
        let cached = self.reverse.iter().filter(|&&v| v != NONE).count() as u64;
        PolicyStats {
            dirty_extents: dirty,
            free_ssd_extents: self.geo.ssd_extents as u64 - cached,
            mapped_extents: cached,
            ..self.stats.clone()
        }
    }
}
