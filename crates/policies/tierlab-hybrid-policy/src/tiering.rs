//! GreenDM's tiering policy: the SSD is primary storage for hot extents, the HDD for cold.
//!
//! - The mapping from virtual to physical extents fills lazily: the first access to a
//!   virtual extent takes the lowest free physical extent, so the SSD (low physical
//!   numbers) fills first.
//! - Promotion: an access to an extent on the HDD is a miss. Two misses within the time
//!   window TW grow the extent's miss count; a miss outside it restarts the count at 1.
//!   Past the promotion threshold PT the extent is queued. A queued promotion is cancelled
//!   when it would start while the SSD has no free extent, while metadata is being
//!   checkpointed (it waits), or while the extent has I/O in flight; at most MCML
//!   migrations run at once.
//! - Demotion: once free SSD extents fall to LT, cold extents chosen by WSClock (window TW)
//!   move to the HDD until HT are free (or on their way to being free). A sweep that finds
//!   none outside the window settles for the oldest of the 64 idle extents it passed.
//! - `reserved_hdd_extents` physical extents are never exposed as virtual capacity, so a
//!   demotion always finds room on the HDD.
//!
//! Memory: 12 bytes per virtual extent (physical extent, last-access tick, counter,
//! flags), 4 bytes per SSD extent (the reverse map WSClock sweeps) and one bit per physical
//! extent; in-flight I/O and migrations are held only while they exist.

use crate::bitmap::Bitmap;
use crate::persist::{bad_record, ChangeLog};
use crate::geometry::{tick, ticks, Geometry, PolicyError, Tier};
use crate::work::Work;
use crate::{split_extents, MapRecord, Migration, MoveKind, Piece, Place, Policy, PolicyStats, Routing, NO_LOCATION};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use tierlab_types::{Op, NS_PER_S};
use tierlab_cache::SweepFallback;

/// GreenDM's tunables (ES is the geometry's extent size, fixed at creation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TieringParams {
    /// Promotion threshold: misses within TW before an extent is promoted (≥ 1).
    pub pt: u32,
    /// Time window for counting misses, and WSClock's working-set window.
    pub tw_ns: u64,
    /// Maximum concurrent migrations (≥ 1).
    pub mcml: u32,
    /// Low watermark: demotion starts when free SSD extents fall to this.
    pub lt: u32,
    /// High watermark: demotion stops when this many SSD extents are free (> LT).
    pub ht: u32,
    /// Physical HDD extents kept out of the virtual capacity so demotion never stalls.
    pub reserved_hdd_extents: u32,
}

impl Default for TieringParams {
    /// GreenDM's defaults: TW 60 s, LT 64, HT 128; PT 2 and MCML 4 as tierlab's choice.
    fn default() -> Self {
        TieringParams { pt: 2, tw_ns: 60 * NS_PER_S, mcml: 4, lt: 64, ht: 128, reserved_hdd_extents: 132 }
    }
}

impl TieringParams {
    /// Default demotion watermarks `(LT, HT)` for an SSD of `ssd_extents` extents, for
    /// when the user sets none: GreenDM's LT 64 / HT 128 while HT is at most a quarter of
    /// the SSD (512 extents or more); on a smaller SSD, HT = ⌊N/4⌋ (at least 1) and
    /// LT = ⌊HT/2⌋, so that a demotion batch never frees more than a quarter of the SSD.
    /// `None` when the SSD is too small to tier at all (one extent: no HT below it).
    ///
    /// GreenDM's values are absolute: with its 8 GB SSD in 1 MiB extents (8,192 extents)
    /// HT is 1/64 of the SSD, in 256 KiB extents 1/256.
    pub fn default_watermarks(ssd_extents: u32) -> Option<(u32, u32)> {
        let d = TieringParams::default();
        if ssd_extents < 2 {
            return None;
        }
        let ht = d.ht.min((ssd_extents / 4).max(1));
        let lt = if ht == d.ht { d.lt } else { ht / 2 };
        Some((lt, ht))
    }

    pub fn validate(&self, geo: &Geometry) -> Result<(), PolicyError> {
        let bad = |name, expected: String, found: String| Err(PolicyError::Param { name, expected, found });
        if self.pt == 0 {
            return bad("pt", "a promotion threshold of at least 1".into(), "0".into());
        }
        if self.mcml == 0 {
            return bad("mcml", "at least 1 concurrent migration".into(), "0".into());
        }
        if self.lt >= self.ht {
            return bad("lt", format!("a low watermark below the high watermark ht = {}", self.ht), self.lt.to_string());
        }
        if self.ht >= geo.ssd_extents {
            return bad("ht", format!("fewer than the SSD's {} extents", geo.ssd_extents), self.ht.to_string());
        }
        let need = self.ht + self.mcml;
        if self.reserved_hdd_extents < need {
            return bad("reserved_hdd_extents", format!("at least ht + mcml = {need}"), self.reserved_hdd_extents.to_string());
        }
        if self.reserved_hdd_extents >= geo.hdd_extents {
            return bad("reserved_hdd_extents", format!("fewer than the HDD's {} extents", geo.hdd_extents), self.reserved_hdd_extents.to_string());
        }
        Ok(())
    }
}

const UNMAPPED: u32 = u32::MAX;
const REFERENCED: u8 = 1;
const QUEUED: u8 = 2;
const MIGRATING: u8 = 4;

/// One virtual extent (12 bytes).
#[derive(Clone, Copy, Debug)]
struct Entry {
    phys: u32,
    last_tick: u32,
    /// Miss count while on the HDD; use count while on the SSD.
    count: u16,
    flags: u8,
}

pub struct TieringPolicy {
    geo: Geometry,
    params: TieringParams,
    table: Vec<Entry>,
    /// Per SSD extent: the virtual extent stored there, or UNMAPPED.
    reverse: Vec<u32>,
    occupied: Bitmap,
    free_ssd: u32,
    queue: VecDeque<u32>,
    work: Work,
    hand: u32,
    demoting: bool,
    checkpointing: bool,
    next_id: u64,
    stats: PolicyStats,
    log: ChangeLog,
}

impl TieringPolicy {
    pub fn new(geo: Geometry, params: TieringParams) -> Result<Self, PolicyError> {
        params.validate(&geo)?;
        let virtual_extents = geo.physical_extents() - params.reserved_hdd_extents;
        Ok(TieringPolicy {
            geo,
            params,
            table: vec![Entry { phys: UNMAPPED, last_tick: 0, count: 0, flags: 0 }; virtual_extents as usize],
            reverse: vec![UNMAPPED; geo.ssd_extents as usize],
            occupied: Bitmap::new(geo.physical_extents()),
            free_ssd: geo.ssd_extents,
            queue: VecDeque::new(),
            work: Work::default(),
            hand: 0,
            demoting: false,
            checkpointing: false,
            next_id: 1,
            stats: PolicyStats::default(),
            log: ChangeLog::default(),
        })
    }

    pub fn params(&self) -> &TieringParams {
        &self.params
    }

    /// Bytes of mapping state per virtual extent, as laid out now.
    pub fn bytes_per_extent(&self) -> f64 {
        let bytes = self.table.len() * std::mem::size_of::<Entry>() + self.reverse.len() * 4 + self.occupied.bytes();
        bytes as f64 / self.table.len().max(1) as f64
    }

    /// Where virtual extent `v` lives now, if mapped.
    pub fn lookup(&self, v: u32) -> Option<(Tier, u64)> {
        let e = self.table.get(v as usize)?;
        (e.phys != UNMAPPED).then(|| self.geo.locate(e.phys))
    }

    fn map_lazily(&mut self, v: u32) -> u32 {
        let e = &mut self.table[v as usize];
        if e.phys == UNMAPPED {
            // Capacity is sized so that a free physical extent always exists.
            let p = self.occupied.alloc_in(0, self.geo.physical_extents()).unwrap_or(UNMAPPED);
            e.phys = p;
            if p < self.geo.ssd_extents {
                self.reverse[p as usize] = v;
                self.free_ssd -= 1;
            }
            self.stats.mapped_extents += 1;
            self.log.note(MapRecord { fresh: true, ..MapRecord::new(v, p, false) });
        }
        self.table[v as usize].phys
    }

    fn note_access(&mut self, v: u32, now_ns: u64) {
        let now = tick(now_ns);
        let window = ticks(self.params.tw_ns);
        let ssd = self.geo.ssd_extents;
        let pt = self.params.pt;
        let e = &mut self.table[v as usize];
        if e.phys >= ssd {
            e.count = if e.count > 0 && now.saturating_sub(e.last_tick) <= window { e.count.saturating_add(1) } else { 1 };
            if e.count as u32 >= pt && e.flags & (QUEUED | MIGRATING) == 0 {
                e.flags |= QUEUED;
                self.queue.push_back(v);
            }
        } else {
            e.flags |= REFERENCED;
            e.count = e.count.saturating_add(1);
        }
        e.last_tick = now;
    }

    /// WSClock over the SSD extents: the next cold, idle extent to demote. When the sweep
    /// finds none outside the window it settles by `tierlab_cache`'s [`SweepFallback`]
    /// rule (the oldest of the first 64 idle extents it passed), which bounds a demotion's
    /// cost when the whole SSD is in the working set.
    fn demotion_victim(&mut self, now_ns: u64) -> Option<u32> {
        let ssd = self.geo.ssd_extents;
        let now = tick(now_ns);
        let window = ticks(self.params.tw_ns);
        let mut fallback = SweepFallback::default();
        // At most two turns: the first may only clear reference bits.
        for _ in 0..2 * ssd {
            let i = self.hand;
            self.hand = (self.hand + 1) % ssd;
            let v = self.reverse[i as usize];
            if v == UNMAPPED || self.work.busy(v) {
                continue;
            }
            let e = &mut self.table[v as usize];
            if e.flags & MIGRATING != 0 {
                continue;
            }
            if e.flags & REFERENCED != 0 {
                e.flags &= !REFERENCED;
                continue;
            }
            if now.saturating_sub(e.last_tick) > window {
                return Some(v);
            }
            if fallback.offer(v, u64::from(e.last_tick)) {
                break;
            }
        }
        fallback.oldest()
    }

    fn start(&mut self, kind: MoveKind, v: u32, dest: u32) -> Migration {
        let (from, from_offset_bytes) = self.geo.locate(self.table[v as usize].phys);
        let (to, to_offset_bytes) = self.geo.locate(dest);
        let m = Migration {
            id: self.next_id,
            kind,
            extent: v,
            from,
            from_offset_bytes,
            to,
            to_offset_bytes,
            len_bytes: self.geo.extent_bytes,
        };
        self.next_id += 1;
        self.table[v as usize].flags |= MIGRATING;
        self.work.start(m, dest);
        m
    }

    fn demotions_in_flight(&self) -> u32 {
        self.work.active.iter().filter(|a| a.m.kind == MoveKind::Demote).count() as u32
    }
}

impl Policy for TieringPolicy {
    fn name(&self) -> &'static str {
        "tiering"
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
            let phys = self.map_lazily(v);
            self.note_access(v, now_ns);
            let ram = self.work.served_from_ram(op, v);
            let piece = if ram {
                Piece { place: Place::Ram, op, device_offset_bytes: within, len_bytes: len, extent: v }
            } else {
                let (tier, base) = self.geo.locate(phys);
                Piece { place: tier.into(), op, device_offset_bytes: base + within, len_bytes: len, extent: v }
            };
            self.work.issue(piece, &mut self.stats, out);
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
        if self.free_ssd <= self.params.lt {
            self.demoting = true;
        }
        if self.demoting {
            if self.free_ssd + self.demotions_in_flight() >= self.params.ht {
                self.demoting = false;
            } else if let Some(v) = self.demotion_victim(now_ns) {
                if let Some(dest) = self.occupied.alloc_in(self.geo.ssd_extents, self.geo.physical_extents()) {
                    return Some(self.start(MoveKind::Demote, v, dest));
                }
            }
        }
        while let Some(v) = self.queue.pop_front() {
            let e = &mut self.table[v as usize];
            e.flags &= !QUEUED;
            if e.phys < self.geo.ssd_extents || e.flags & MIGRATING != 0 {
                continue;
            }
            if self.free_ssd == 0 || self.work.busy(v) {
                e.count = 0;
                self.stats.cancelled_migrations += 1;
                continue;
            }
            let Some(dest) = self.occupied.alloc_in(0, self.geo.ssd_extents) else { continue };
            self.free_ssd -= 1;
            return Some(self.start(MoveKind::Promote, v, dest));
        }
        None
    }

    fn wants_to_move(&self) -> bool {
        !self.queue.is_empty() || self.demoting || self.free_ssd <= self.params.lt
    }

    fn migration_copied(&mut self, id: u64) {
        self.work.copied(id);
    }

    fn migration_done(&mut self, _now_ns: u64, id: u64, ok: bool) {
        let Some(a) = self.work.finish(id) else { return };
        let v = a.m.extent;
        let ssd = self.geo.ssd_extents;
        let e = &mut self.table[v as usize];
        e.flags &= !MIGRATING;
        e.count = 0;
        let (release, was_ssd) = if ok {
            let old = e.phys;
            e.phys = a.target;
            self.log.note(MapRecord::new(v, a.target, false));
            if a.target < ssd {
                self.reverse[a.target as usize] = v;
            }
            self.stats.bytes_moved += a.m.len_bytes;
            match a.m.kind {
                MoveKind::Promote => self.stats.promotions += 1,
                _ => self.stats.demotions += 1,
            }
            (old, old < ssd)
        } else {
            self.stats.cancelled_migrations += 1;
            (a.target, a.target < ssd)
        };
        // The source (or the unused destination) is freed only now.
        self.occupied.clear(release);
        if was_ssd {
            self.reverse[release as usize] = UNMAPPED;
            self.free_ssd += 1;
        }
    }

    fn set_checkpointing(&mut self, on: bool) {
        self.checkpointing = on;
    }

    fn set_param(&mut self, name: &str, value: f64) -> Result<(), PolicyError> {
        let mut p = self.params;
        let whole = || -> Result<u32, PolicyError> {
            if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= u32::MAX as f64 {
                Ok(value as u32)
            } else {
                Err(PolicyError::Param { name: "value", expected: "a whole number".into(), found: value.to_string() })
            }
        };
        match name {
            "pt" => p.pt = whole()?,
            "mcml" => p.mcml = whole()?,
            "lt" => p.lt = whole()?,
            "ht" => p.ht = whole()?,
            "tw_s" | "tw" => {
                if !(value.is_finite() && value > 0.0) {
                    return Err(PolicyError::Param { name: "tw_s", expected: "a positive number of seconds".into(), found: value.to_string() });
                }
                p.tw_ns = (value * NS_PER_S as f64) as u64;
            }
            "es" => {
                return Err(PolicyError::Param { name: "es", expected: "no change: the extent size is fixed when the drive is created".into(), found: value.to_string() })
            }
            _ => return Err(PolicyError::UnknownParam(name.to_string())),
        }
        // The reserve was fixed at creation; a new HT must still fit within it.
        p.validate(&self.geo)?;
        self.params = p;
        Ok(())
    }

    fn stats(&self) -> PolicyStats {
        PolicyStats { free_ssd_extents: self.free_ssd as u64, ..self.stats.clone() }
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let p = &self.params;
        vec![("pt", p.pt as f64), ("tw_s", p.tw_ns as f64 / NS_PER_S as f64), ("mcml", p.mcml as f64), ("lt", p.lt as f64), ("ht", p.ht as f64)]
    }

    fn virtual_bytes(&self) -> u64 {
        self.table.len() as u64 * self.geo.extent_bytes
    }

    fn extent_in_flight(&self, extent: u32) -> bool {
        self.work.busy(extent)
    }

    fn populate(&mut self, extents: u32) {
        for v in 0..extents.min(self.table.len() as u32) {
            self.map_lazily(v);
        }
    }

    fn enable_journal(&mut self) {
        self.log.enable();
    }

    fn take_changes(&mut self, out: &mut Vec<MapRecord>) {
        self.log.take(out);
    }

    fn snapshot(&self, out: &mut Vec<MapRecord>) {
        let mapped = self.table.iter().enumerate().filter(|(_, e)| e.phys != UNMAPPED);
        out.extend(mapped.map(|(v, e)| MapRecord::new(v as u32, e.phys, false)));
    }

    fn restore(&mut self, records: &[MapRecord]) -> Result<(), PolicyError> {
        if self.stats.mapped_extents != 0 || !self.work.active.is_empty() {
            return Err(PolicyError::Param { name: "restore", expected: "a new policy".into(), found: "one in use".into() });
        }
        for r in records {
            let Some(e) = self.table.get_mut(r.extent as usize) else {
                return Err(bad_record(r, format!("an extent below {}", self.table.len())));
            };
            if r.location != NO_LOCATION && r.location >= self.geo.physical_extents() {
                return Err(bad_record(r, format!("a physical extent below {}", self.geo.physical_extents())));
            }
            e.phys = r.location;
        }
        for (v, e) in self.table.iter().enumerate() {
            if e.phys == UNMAPPED {
                continue;
            }
            if self.occupied.is_set(e.phys) {
                let r = MapRecord::new(v as u32, e.phys, false);
                return Err(bad_record(&r, "each physical extent mapped by at most one virtual extent".into()));
            }
            self.occupied.set(e.phys);
            self.stats.mapped_extents += 1;
            if e.phys < self.geo.ssd_extents {
                self.reverse[e.phys as usize] = v as u32;
                self.free_ssd -= 1;
            }
        }
        Ok(())
    }
}
