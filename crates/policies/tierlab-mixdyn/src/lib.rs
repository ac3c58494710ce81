//! HybridStore's dynamic controller (MixDyn; Y. Kim, PhD dissertation, Penn State 2009,
//! chapter 5) as a hybrid-drive policy: pure decision code that the simulator's executor
//! (`tierlab-hybrid-sim`) and the block device's run alike.
//!
//! **Placement.** The HDD is the home of every address: logical page `p` (4 KiB, the page
//! of the file systems on top and the research's smallest request of interest) lives at
//! byte `p × 4096` of the HDD unless the location table says its current copy is on the
//! SSD, in a slot of its own. Only writes are partitioned; reads go wherever the table
//! says the data is. A write routed to one device makes the other copy stale: a write to
//! the HDD drops the page's SSD copy, and a write to the SSD supersedes the HDD's copy
//! (which is simply no longer read). A page enters the SSD only through a write of the
//! whole page — a partial write of a page whose data is on the HDD goes to the HDD, as
//! the SSD copy would otherwise lack the rest of the page. A write to a page being moved
//! waits for the move (`Routing::Wait`); a read of it is served from the move's RAM copy
//! once made, and a slot whose page still has I/O in flight is reused only after it ends.
//!
//! **Partitioners.** [`Partitioner::Static`]: writes of at most 4 KiB go to the SSD,
//! larger ones (taken as sequential) to the HDD. [`Partitioner::Predictive`]
//! ("dynamism-aware"): each write goes to the device whose predicted response time is
//! smaller — the SSD's from a multiple linear regression over a sliding window of its
//! recent requests, the HDD's from the training phase's mean or from its queue (see
//! [`HddPredictor`] for the two HDD models). Until the training phase ends (a
//! number of SSD and HDD responses observed through [`Policy::observe`]) it routes by the
//! static rule, so that both devices are observed.
//!
//! **SSD full.** A write bound for the SSD that needs a new slot when none is free goes
//! to the HDD. When free slots fall below `low_free` of the SSD, the least recently used
//! pages are flushed (demoted) to the HDD until `high_free` are free (or on their way),
//! busy or not.
//!
//! **Fragmentation buster.** Once the drive is idle — no host request for `idle_ns` and
//! none in flight; the research found idle periods by profiling traces offline, this
//! detector works online — a round flushes `flush_fraction` (a quarter) of the
//! SSD-resident pages, least recently used first (an LRU list of valid SSD pages by
//! logical page), at most `mcml` moves at a time and only while the drive stays idle; a
//! round left unfinished goes on in the next idle period, and a new round starts at most
//! once per `flush_period_ns`. Flushing frees the policy's slots; it can only help the
//! SSD's own garbage collection when the executor can tell the SSD the old copy is dead
//! (the simulator's SSD learns it when the slot is next written).
//!
//! **Write regulator and adaptive wear leveling.** A detector compares the bytes written
//! to the SSD over a sliding window with the SSD's lifetime budget rate (see
//! [`MixDynParams::budget_bytes_per_s`]). While the budget has been exceeded for a
//! sustained period, a fraction `redirect_p` of the flash-bound writes (0.25: Red₂₅,
//! 0.5: Red₅₀), chosen uniformly at random with a seeded generator, go to the HDD
//! instead, and — with `adaptive_wear_leveling` — the policy asks the SSD to hold its
//! explicit wear leveling ([`Policy::ssd_wear_leveling_paused`]) until the rate is back
//! within the budget.
//!
//! Memory: 4 bytes per logical page, 12 per SSD slot, and while they exist the requests in
//! flight and awaiting their response. Deterministic: no clock of its own, a seeded
//! generator.

mod predict;
mod regress;
mod regulator;
mod rng;
mod table;

pub use predict::{HddPredictor, Score, Scores};
pub use regress::{Accumulator, Fit, FEATURES};

use predict::Predictor;
use regulator::Detector;
use rng::SplitMix64;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::hash_map::Entry;
use table::{Table, NONE};
use tierlab_hybrid_policy::{
    split_extents, Geometry, MapRecord, Migration, MoveKind, Piece, Place, Policy, PolicyError,
    PolicyStats, Routing, Tier, NO_LOCATION,
};
use tierlab_types::{Op, NS_PER_S, SECONDS_PER_YEAR};

/// The location table's page: the unit a piece of the SSD holds.
pub const PAGE_BYTES: u64 = 4096;

/// The names of the SSD predictor's features, in [`Fit::coefficients`] order.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "read_ratio",
    "sequentiality",
    "inter_arrival_ms",
    "request_kib",
    "s_avg_ms",
];

/// How writes are split between the devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partitioner {
    /// Writes of at most `static_max_bytes` to the SSD, the rest to the HDD.
    Static,
    /// To the device with the smaller predicted response time (static while training).
    Predictive,
}

/// MixDyn's tunables. Times in ns, fractions 0..=1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MixDynParams {
    pub partitioner: Partitioner,
    /// The static rule's limit: writes of at most this many bytes go to the SSD.
    pub static_max_bytes: u64,
    /// Requests in the SSD predictor's sliding window (w).
    pub window: u32,
    /// The training phase ends once this many SSD responses …
    pub train_ssd: u64,
    /// … and this many HDD responses have been observed.
    pub train_hdd: u64,
    pub hdd_predictor: HddPredictor,
    /// Idle after this long without a host request (and none in flight).
    pub idle_ns: u64,
    /// Share of the SSD-resident pages a buster round flushes (0: no buster).
    pub flush_fraction: f64,
    /// Shortest time between the starts of two buster rounds.
    pub flush_period_ns: u64,
    /// Moves at a time.
    pub mcml: u32,
    /// Flushing for room starts when fewer than this share of the SSD's slots are free …
    pub low_free: f64,
    /// … and stops when this share is free or on its way.
    pub high_free: f64,
    /// Share of flash-bound writes redirected while the regulator is engaged (0: none).
    pub redirect_p: f64,
    /// The SSD's rated erase cycles per block.
    pub erase_cycles: u64,
    /// The lifetime the SSD must last.
    pub lifetime_s: f64,
    /// Write amplification assumed by the lifetime budget.
    pub write_amplification: f64,
    /// The regulator's sliding window …
    pub regulator_window_ns: u64,
    /// … and how long the budget must be exceeded before it acts.
    pub regulator_sustain_ns: u64,
    /// Hold the SSD's explicit wear leveling while the regulator's detector is engaged.
    pub adaptive_wear_leveling: bool,
    pub seed: u64,
}

impl MixDynParams {
    /// MixDyn as evaluated: the predictive partitioner with the research's HDD predictor,
    /// the fragmentation buster (a quarter per round, idle after 1 s, a round per minute
    /// at most), Red₂₅ against a 5-year budget of 10,000 erase cycles, adaptive wear
    /// leveling.
    ///
    /// Choices where the research gives no number: window 32 requests; training until
    /// 2,000 SSD and 100 HDD responses (the research trained on half a trace, 32,289
    /// SSD observations on Financial); idle after 1 s (Financial's mean gap is 133.5 ms,
    /// so shorter thresholds would call ordinary gaps idle); 2 moves at a time (one HDD);
    /// room flushing between 2 % and 5 % free; a 60 s window and 30 s of sustained excess
    /// for the regulator.
    pub fn mixdyn() -> Self {
        MixDynParams {
            partitioner: Partitioner::Predictive,
            static_max_bytes: 4096,
            window: 32,
            train_ssd: 2000,
            train_hdd: 100,
            hdd_predictor: HddPredictor::TrainingMean,
            idle_ns: NS_PER_S,
            flush_fraction: 0.25,
            flush_period_ns: 60 * NS_PER_S,
            mcml: 2,
            low_free: 0.02,
            high_free: 0.05,
            redirect_p: 0.25,
            erase_cycles: 10_000,
            lifetime_s: 5.0 * SECONDS_PER_YEAR,
            write_amplification: 1.0,
            regulator_window_ns: 60 * NS_PER_S,
            regulator_sustain_ns: 30 * NS_PER_S,
            adaptive_wear_leveling: true,
            seed: 1,
        }
    }

    /// The research's static baseline: writes of at most 4 KiB to the SSD, nothing else
    /// (no buster, no regulation); room is still made when the SSD is full.
    pub fn static4k() -> Self {
        MixDynParams {
            partitioner: Partitioner::Static,
            flush_fraction: 0.0,
            redirect_p: 0.0,
            adaptive_wear_leveling: false,
            ..Self::mixdyn()
        }
    }

    /// The SSD's lifetime budget as a write rate: `ssd_bytes` × erase cycles over the
    /// lifetime, divided by the write amplification.
    pub fn budget_bytes_per_s(&self, ssd_bytes: u64) -> f64 {
        ssd_bytes as f64 * self.erase_cycles as f64 / self.lifetime_s / self.write_amplification
    }

    pub fn validate(&self) -> Result<(), PolicyError> {
        let bad = |name: &'static str, expected: &str, found: String| {
            Err(PolicyError::Param {
                name,
                expected: expected.into(),
                found,
            })
        };
        let fraction = |x: f64| (0.0..=1.0).contains(&x);
        if self.window == 0 {
            return bad("window", "at least 1 request", "0".into());
        }
        if self.mcml == 0 {
            return bad("mcml", "at least 1 move at a time", "0".into());
        }
        for (name, v) in [
            ("flush_fraction", self.flush_fraction),
            ("redirect_p", self.redirect_p),
            ("low_free", self.low_free),
            ("high_free", self.high_free),
        ] {
            if !fraction(v) {
                return bad(name, "a share from 0 to 1", v.to_string());
            }
        }
        if self.low_free > self.high_free {
            return bad("low_free", "at most high_free", self.low_free.to_string());
        }
        if !(self.lifetime_s.is_finite() && self.lifetime_s > 0.0) {
            return bad(
                "lifetime_years",
                "a positive lifetime",
                (self.lifetime_s / SECONDS_PER_YEAR).to_string(),
            );
        }
        if !(self.write_amplification.is_finite() && self.write_amplification >= 1.0) {
            return bad(
                "write_amplification",
                "at least 1",
                self.write_amplification.to_string(),
            );
        }
        if self.regulator_window_ns < 60 {
            return bad(
                "regulator_window_s",
                "a positive window",
                (self.regulator_window_ns as f64 / 1e9).to_string(),
            );
        }
        Ok(())
    }
}

/// MixDyn's own counts (beyond [`PolicyStats`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MixDynStats {
    /// Write requests the partitioner (and regulator) sent to the SSD / the HDD.
    pub writes_to_ssd: u64,
    pub writes_to_hdd: u64,
    /// Bytes written by host writes to each device.
    pub write_bytes_ssd: u64,
    pub write_bytes_hdd: u64,
    /// Host requests served wholly by flash (SSD or RAM), wholly by the HDD, or by both.
    pub requests_flash: u64,
    pub requests_disk: u64,
    pub requests_both: u64,
    /// Writes the predictor decided (after training), by device.
    pub predicted_ssd: u64,
    pub predicted_hdd: u64,
    /// Flash-bound writes while the regulator was engaged, and those it redirected.
    pub flash_bound_regulated: u64,
    pub redirected_writes: u64,
    /// Pages of SSD-bound writes that went to the HDD: partial pages not on the SSD, and
    /// whole pages that found no free slot.
    pub partial_pages_to_hdd: u64,
    pub full_ssd_pages_to_hdd: u64,
    /// Bytes flushed to the HDD by the buster when idle, and to make room.
    pub flushed_bytes_idle: u64,
    pub flushed_bytes_room: u64,
    pub flush_rounds: u64,
}

/// A move under way.
#[derive(Clone, Copy, Debug)]
struct Active {
    m: Migration,
    slot: u32,
    copied: bool,
    idle: bool,
}

pub struct MixDynPolicy {
    geo: Geometry,
    params: MixDynParams,
    table: Table,
    /// Slots whose page left the SSD while I/O to it was in flight: reused once it ends.
    limbo: Vec<(u32, u32)>,
    inflight: FxHashMap<u32, u32>,
    /// Host pieces in flight per device (SSD, HDD).
    outstanding: [u32; 2],
    active: Vec<Active>,
    next_id: u64,
    checkpointing: bool,
    last_arrival_ns: Option<u64>,
    flush_left: u64,
    last_round_ns: Option<u64>,
    making_room: bool,
    predictor: Predictor,
    detector: Detector,
    rng: SplitMix64,
    trained_at_ns: Option<u64>,
    last_ns: u64,
    stats: PolicyStats,
    counts: MixDynStats,
    journal: Option<Vec<MapRecord>>,
}

fn page_span(offset_bytes: u64, len_bytes: u64) -> (u32, u32) {
    (
        ((offset_bytes / PAGE_BYTES) as u32),
        ((offset_bytes + len_bytes - 1) / PAGE_BYTES) as u32,
    )
}

/// The pages a routed piece covers: from its extent on, as many as its bytes span.
fn piece_pages(p: &Piece) -> std::ops::Range<u32> {
    let within = p.device_offset_bytes % PAGE_BYTES;
    let n = (within + p.len_bytes)
        .div_ceil(PAGE_BYTES)
        .min(u32::MAX as u64) as u32;
    p.extent..p.extent.saturating_add(n)
}

impl MixDynPolicy {
    /// A policy over `geo`, whose extents must be [`PAGE_BYTES`]: `geo.ssd_extents` SSD
    /// slots, and `geo.hdd_extents` logical pages (the HDD holds every one; the drive
    /// exposes the HDD's size).
    pub fn new(geo: Geometry, params: MixDynParams) -> Result<Self, PolicyError> {
        if geo.extent_bytes != PAGE_BYTES {
            return Err(PolicyError::Param {
                name: "es",
                expected: format!("{PAGE_BYTES}-byte pages"),
                found: geo.extent_bytes.to_string(),
            });
        }
        if geo.hdd_extents == 0 {
            return Err(PolicyError::Param {
                name: "hdd_bytes",
                expected: "an HDD of at least one page".into(),
                found: "0".into(),
            });
        }
        params.validate()?;
        Ok(MixDynPolicy {
            geo,
            table: Table::new(geo.hdd_extents, geo.ssd_extents),
            limbo: Vec::new(),
            inflight: FxHashMap::default(),
            outstanding: [0, 0],
            active: Vec::new(),
            next_id: 1,
            checkpointing: false,
            last_arrival_ns: None,
            flush_left: 0,
            last_round_ns: None,
            making_room: false,
            predictor: Predictor::new(params.window as usize, params.train_ssd, params.train_hdd),
            detector: Detector::new(
                params.budget_bytes_per_s(geo.ssd_bytes()),
                params.regulator_window_ns,
                params.regulator_sustain_ns,
            ),
            rng: SplitMix64::new(params.seed),
            trained_at_ns: None,
            last_ns: 0,
            params,
            stats: PolicyStats::default(),
            counts: MixDynStats::default(),
            journal: None,
        })
    }

    pub fn mixdyn_params(&self) -> &MixDynParams {
        &self.params
    }

    pub fn mixdyn_stats(&self) -> &MixDynStats {
        &self.counts
    }

    /// The SSD predictor's coefficients, once the training phase has ended.
    pub fn fit(&self) -> Option<&Fit> {
        self.predictor.fit()
    }

    /// The HDD's mean response over the training phase (ms), once it has ended.
    pub fn hdd_training_mean_ms(&self) -> Option<f64> {
        self.predictor.hdd_mean_ms()
    }

    /// How well each predictor has done since the training phase.
    pub fn scores(&self) -> Scores {
        self.predictor.scores
    }

    /// When the training phase ended.
    pub fn trained_at_ns(&self) -> Option<u64> {
        self.trained_at_ns
    }

    /// Where logical page `page`'s current copy is (`None` beyond the drive).
    pub fn location(&self, page: u32) -> Option<Tier> {
        (page < self.table.pages()).then(|| {
            if self.table.slot(page).is_some() {
                Tier::Ssd
            } else {
                Tier::Hdd
            }
        })
    }

    /// The SSD slot holding `page`, if any.
    pub fn slot_of(&self, page: u32) -> Option<u32> {
        self.table.slot(page)
    }

    /// Whether the regulator's detector is engaged (the budget exceeded, sustained).
    pub fn regulating(&self) -> bool {
        self.detector.engaged()
    }

    /// The SSD write rate over the regulator's window, and the budget (bytes/s).
    pub fn write_rate_bytes_per_s(&self) -> (f64, f64) {
        (
            self.detector.rate_bytes_per_s(),
            self.detector.budget_bytes_per_s(),
        )
    }

    /// Device requests whose response has not been observed yet (bounded).
    pub fn awaiting_response(&self) -> usize {
        self.predictor.pending()
    }

    /// SSD slots held back until I/O to their former page ends.
    pub fn held_slots(&self) -> usize {
        self.limbo.len()
    }

    fn busy(&self, page: u32) -> bool {
        !self.inflight.is_empty() && self.inflight.contains_key(&page)
    }

    fn note(&mut self, r: MapRecord) {
        if let Some(j) = &mut self.journal {
            j.push(r);
        }
    }

    /// Drop `page`'s SSD copy; its slot is reused once no I/O to the page is in flight.
    fn drop_ssd_copy(&mut self, page: u32) {
        if let Some(slot) = self.table.unmap(page) {
            if self.busy(page) {
                self.limbo.push((page, slot));
            } else {
                self.table.release(slot);
            }
            self.note(MapRecord::new(page, NO_LOCATION, false));
        }
    }

    /// Requests on the HDD now: host pieces and moves (each writes to it).
    fn hdd_depth(&self) -> u32 {
        self.outstanding[1] + self.active.len() as u32
    }

    fn room_marks(&self) -> (u32, u32) {
        let slots = self.table.slots() as f64;
        (
            (self.params.low_free * slots).ceil() as u32,
            (self.params.high_free * slots).ceil() as u32,
        )
    }

    fn idle(&self, now_ns: u64) -> bool {
        self.outstanding == [0, 0]
            && self
                .last_arrival_ns
                .is_some_and(|t| now_ns >= t.saturating_add(self.params.idle_ns))
    }

    /// Whether a write of `len_bytes` goes to the SSD.
    fn decide(&mut self, now_ns: u64, len_bytes: u64) -> bool {
        let by_rule = len_bytes <= self.params.static_max_bytes;
        let flash = match self.params.partitioner {
            Partitioner::Static => by_rule,
            Partitioner::Predictive => {
                let ssd = self.predictor.predict_ssd(now_ns, len_bytes);
                let hdd = self
                    .predictor
                    .predict_hdd(self.params.hdd_predictor, self.hdd_depth());
                match (ssd, hdd) {
                    (Some(s), Some(h)) => {
                        let flash = s <= h;
                        if flash {
                            self.counts.predicted_ssd += 1;
                        } else {
                            self.counts.predicted_hdd += 1;
                        }
                        flash
                    }
                    _ => by_rule,
                }
            }
        };
        if flash && self.detector.engaged() {
            self.counts.flash_bound_regulated += 1;
            if self.rng.next_f64() < self.params.redirect_p {
                self.counts.redirected_writes += 1;
                return false;
            }
        }
        flash
    }

    fn push_piece(out: &mut Vec<Piece>, piece: Piece) {
        if let Some(last) = out.last_mut() {
            let joins = piece.place != Place::Ram
                && last.place == piece.place
                && last.device_offset_bytes + last.len_bytes == piece.device_offset_bytes;
            if joins {
                last.len_bytes += piece.len_bytes;
                return;
            }
        }
        out.push(piece);
    }

    fn route_read(&mut self, offset_bytes: u64, len_bytes: u64, out: &mut Vec<Piece>) {
        for (page, within, len) in split_extents(PAGE_BYTES, offset_bytes, len_bytes) {
            let page = page as u32;
            let ram = self.active.iter().any(|a| a.m.extent == page && a.copied);
            let (place, device_offset_bytes) = if ram {
                (Place::Ram, within)
            } else if let Some(slot) = self.table.slot(page) {
                self.table.touch(slot);
                (Place::Ssd, slot as u64 * PAGE_BYTES + within)
            } else {
                (Place::Hdd, page as u64 * PAGE_BYTES + within)
            };
            Self::push_piece(
                out,
                page_piece(place, Op::Read, device_offset_bytes, len, page),
            );
        }
    }

    fn route_write(
        &mut self,
        now_ns: u64,
        offset_bytes: u64,
        len_bytes: u64,
        out: &mut Vec<Piece>,
    ) {
        let to_ssd = self.decide(now_ns, len_bytes);
        if to_ssd {
            self.counts.writes_to_ssd += 1;
        } else {
            self.counts.writes_to_hdd += 1;
        }
        for (page, within, len) in split_extents(PAGE_BYTES, offset_bytes, len_bytes) {
            let page = page as u32;
            let mut slot = None;
            if to_ssd {
                slot = self.table.slot(page);
                match slot {
                    Some(s) => self.table.touch(s),
                    None if len < PAGE_BYTES => self.counts.partial_pages_to_hdd += 1,
                    None => {
                        slot = self.table.alloc(page);
                        match slot {
                            Some(s) => self.note(MapRecord::new(page, s, false)),
                            None => self.counts.full_ssd_pages_to_hdd += 1,
                        }
                    }
                }
            } else {
                self.drop_ssd_copy(page);
            }
            let (place, device_offset_bytes) = match slot {
                Some(s) => {
                    self.counts.write_bytes_ssd += len;
                    (Place::Ssd, s as u64 * PAGE_BYTES + within)
                }
                None => {
                    self.counts.write_bytes_hdd += len;
                    (Place::Hdd, page as u64 * PAGE_BYTES + within)
                }
            };
            Self::push_piece(
                out,
                page_piece(place, Op::Write, device_offset_bytes, len, page),
            );
        }
    }

    fn start(&mut self, slot: u32, page: u32, idle: bool) -> Migration {
        let m = Migration {
            id: self.next_id,
            kind: MoveKind::Demote,
            extent: page,
            from: Tier::Ssd,
            from_offset_bytes: slot as u64 * PAGE_BYTES,
            to: Tier::Hdd,
            to_offset_bytes: page as u64 * PAGE_BYTES,
            len_bytes: PAGE_BYTES,
        };
        self.next_id += 1;
        if idle {
            self.flush_left = self.flush_left.saturating_sub(1);
        }
        self.active.push(Active {
            m,
            slot,
            copied: false,
            idle,
        });
        m
    }

    /// The least recently used SSD page that may move now (no I/O in flight, not moving).
    fn victim(&self) -> Option<(u32, u32)> {
        self.table
            .coldest()
            .take(256)
            .find(|&(_, page)| !self.busy(page) && !self.active.iter().any(|a| a.m.extent == page))
    }

    /// Check every invariant of the mapping (for tests): the table's own, every held slot
    /// belonging to a page with I/O in flight, and no move of an unmapped page.
    #[doc(hidden)]
    pub fn check(&self) -> Result<(), String> {
        self.table.check(self.limbo.len())?;
        for a in &self.active {
            if self.table.slot(a.m.extent) != Some(a.slot) {
                return Err(format!(
                    "move {} of page {} from slot {} that no longer holds it",
                    a.m.id, a.m.extent, a.slot
                ));
            }
        }
        Ok(())
    }
}

impl Policy for MixDynPolicy {
    fn name(&self) -> &'static str {
        match self.params.partitioner {
            Partitioner::Static => "static4k",
            Partitioner::Predictive => "mixdyn",
        }
    }

    fn geometry(&self) -> &Geometry {
        &self.geo
    }

    fn route(
        &mut self,
        now_ns: u64,
        op: Op,
        offset_bytes: u64,
        len_bytes: u64,
        out: &mut Vec<Piece>,
    ) -> Result<Routing, PolicyError> {
        let capacity_bytes = self.virtual_bytes();
        if len_bytes == 0
            || offset_bytes
                .checked_add(len_bytes)
                .is_none_or(|e| e > capacity_bytes)
        {
            return Err(PolicyError::OutOfRange {
                offset_bytes,
                len_bytes,
                capacity_bytes,
            });
        }
        let now_ns = now_ns.max(self.last_ns);
        self.last_ns = now_ns;
        self.last_arrival_ns = Some(now_ns);
        self.detector.advance(now_ns);
        let (first, last) = page_span(offset_bytes, len_bytes);
        if op == Op::Write {
            if let Some(a) = self
                .active
                .iter()
                .find(|a| (first..=last).contains(&a.m.extent))
            {
                self.stats.delayed_requests += 1;
                return Ok(Routing::Wait(a.m.id));
            }
        }
        out.clear();
        match op {
            Op::Read => self.route_read(offset_bytes, len_bytes, out),
            Op::Write => self.route_write(now_ns, offset_bytes, len_bytes, out),
        }
        let mut ssd_bytes = 0;
        let (mut flash, mut disk) = (false, false);
        for p in out.iter() {
            self.stats.pieces += 1;
            for page in piece_pages(p) {
                *self.inflight.entry(page).or_insert(0) += 1;
            }
            match p.place {
                Place::Ssd => {
                    self.predictor
                        .submit_ssd(now_ns, p.op, p.device_offset_bytes, p.len_bytes);
                    self.outstanding[0] += 1;
                    if p.op == Op::Write {
                        ssd_bytes += p.len_bytes;
                    }
                    self.stats.ssd_hits += 1;
                    flash = true;
                }
                Place::Hdd => {
                    self.predictor.submit_hdd(
                        p.op,
                        p.device_offset_bytes,
                        p.len_bytes,
                        self.hdd_depth(),
                    );
                    self.outstanding[1] += 1;
                    disk = true;
                }
                Place::Ram => {
                    self.stats.ssd_hits += 1;
                    flash = true;
                }
            }
        }
        match (flash, disk) {
            (true, false) => self.counts.requests_flash += 1,
            (false, true) => self.counts.requests_disk += 1,
            _ => self.counts.requests_both += 1,
        }
        if ssd_bytes > 0 {
            self.detector.add(now_ns, ssd_bytes);
        }
        Ok(Routing::Go)
    }

    fn done(&mut self, pieces: &[Piece]) {
        for p in pieces {
            for page in piece_pages(p) {
                if let Entry::Occupied(mut n) = self.inflight.entry(page) {
                    *n.get_mut() -= 1;
                    if *n.get() == 0 {
                        n.remove();
                    }
                }
            }
            match p.place {
                Place::Ssd => self.outstanding[0] = self.outstanding[0].saturating_sub(1),
                Place::Hdd => self.outstanding[1] = self.outstanding[1].saturating_sub(1),
                Place::Ram => {}
            }
        }
        if !self.limbo.is_empty() {
            let mut held = std::mem::take(&mut self.limbo);
            held.retain(|&(page, slot)| {
                let busy = self.busy(page);
                if !busy {
                    self.table.release(slot);
                }
                busy
            });
            self.limbo = held;
        }
    }

    fn observe(&mut self, now_ns: u64, piece: &Piece, response_ns: u64) {
        let ssd = match piece.place {
            Place::Ssd => true,
            Place::Hdd => false,
            Place::Ram => return,
        };
        if self.predictor.observe(
            ssd,
            piece.op,
            piece.device_offset_bytes,
            piece.len_bytes,
            response_ns,
        ) {
            self.trained_at_ns = Some(now_ns);
        }
    }

    fn next_migration(&mut self, now_ns: u64) -> Option<Migration> {
        if self.checkpointing
            || self.active.len() >= self.params.mcml as usize
            || self.table.slots() == 0
        {
            return None;
        }
        let (low, high) = self.room_marks();
        let free = self.table.free() + self.limbo.len() as u32;
        if free < low {
            self.making_room = true;
        }
        let moving = self.active.len() as u32;
        if self.making_room && free + moving >= high {
            self.making_room = false;
        }
        let idle = self.idle(now_ns);
        if idle
            && self.flush_left == 0
            && self.params.flush_fraction > 0.0
            && self.table.valid() > 0
        {
            let due = self
                .last_round_ns
                .is_none_or(|t| now_ns >= t.saturating_add(self.params.flush_period_ns));
            if due {
                self.flush_left =
                    (self.table.valid() as f64 * self.params.flush_fraction).ceil() as u64;
                self.last_round_ns = Some(now_ns);
                self.counts.flush_rounds += 1;
            }
        }
        let for_idle = idle && self.flush_left > 0;
        if !self.making_room && !for_idle {
            return None;
        }
        let (slot, page) = self.victim()?;
        Some(self.start(slot, page, !self.making_room))
    }

    fn wants_to_move(&self) -> bool {
        let (low, _) = self.room_marks();
        self.making_room
            || self.table.free() < low
            || (self.params.flush_fraction > 0.0 && self.table.valid() > 0)
    }

    fn next_wake_ns(&self) -> Option<u64> {
        if self.params.flush_fraction <= 0.0 || self.table.valid() == 0 {
            return None;
        }
        let idle_at = self.last_arrival_ns?.saturating_add(self.params.idle_ns);
        if self.flush_left > 0 {
            return Some(idle_at);
        }
        let due = self
            .last_round_ns
            .map_or(0, |t| t.saturating_add(self.params.flush_period_ns));
        Some(idle_at.max(due))
    }

    fn migration_copied(&mut self, id: u64) {
        if let Some(a) = self.active.iter_mut().find(|a| a.m.id == id) {
            a.copied = true;
        }
    }

    fn migration_done(&mut self, now_ns: u64, id: u64, ok: bool) {
        self.last_ns = self.last_ns.max(now_ns);
        let Some(pos) = self.active.iter().position(|a| a.m.id == id) else {
            return;
        };
        let a = self.active.swap_remove(pos);
        if !ok || self.table.slot(a.m.extent) != Some(a.slot) {
            self.stats.cancelled_migrations += 1;
            return;
        }
        self.drop_ssd_copy(a.m.extent);
        self.stats.demotions += 1;
        self.stats.bytes_moved += a.m.len_bytes;
        if a.idle {
            self.counts.flushed_bytes_idle += a.m.len_bytes;
        } else {
            self.counts.flushed_bytes_room += a.m.len_bytes;
        }
    }

    fn set_checkpointing(&mut self, on: bool) {
        self.checkpointing = on;
    }

    fn set_param(&mut self, name: &str, value: f64) -> Result<(), PolicyError> {
        let mut p = self.params;
        let bad = |expected: &str| PolicyError::Param {
            name: "value",
            expected: format!("{expected} for `{name}`"),
            found: value.to_string(),
        };
        let whole = || -> Result<u64, PolicyError> {
            if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= u32::MAX as f64
            {
                Ok(value as u64)
            } else {
                Err(bad("a whole number"))
            }
        };
        let seconds = || -> Result<u64, PolicyError> {
            if value.is_finite() && value >= 0.0 && value * 1e9 < u64::MAX as f64 {
                Ok((value * 1e9) as u64)
            } else {
                Err(bad("a non-negative number of seconds"))
            }
        };
        let flag = || -> Result<bool, PolicyError> {
            if value == 0.0 {
                Ok(false)
            } else if value == 1.0 {
                Ok(true)
            } else {
                Err(bad("0 or 1"))
            }
        };
        match name {
            "partitioner" => {
                p.partitioner = if flag()? {
                    Partitioner::Predictive
                } else {
                    Partitioner::Static
                }
            }
            "static_max_bytes" => p.static_max_bytes = whole()?,
            "window" => p.window = whole()? as u32,
            "train_ssd" => p.train_ssd = whole()?,
            "train_hdd" => p.train_hdd = whole()?,
            "hdd_predictor" => {
                p.hdd_predictor = if flag()? {
                    HddPredictor::Queue
                } else {
                    HddPredictor::TrainingMean
                }
            }
            "idle_s" => p.idle_ns = seconds()?,
            "flush_fraction" => p.flush_fraction = value,
            "flush_period_s" => p.flush_period_ns = seconds()?,
            "mcml" => p.mcml = whole()? as u32,
            "low_free" => p.low_free = value,
            "high_free" => p.high_free = value,
            "redirect_p" => p.redirect_p = value,
            "erase_cycles" => p.erase_cycles = whole()?,
            "lifetime_years" => p.lifetime_s = value * SECONDS_PER_YEAR,
            "write_amplification" => p.write_amplification = value,
            "regulator_window_s" => {
                if self.stats.pieces > 0 {
                    return Err(bad(
                        "no change once requests have been routed (the window's slices are fixed)",
                    ));
                }
                p.regulator_window_ns = seconds()?
            }
            "regulator_sustain_s" => p.regulator_sustain_ns = seconds()?,
            "adaptive_wear_leveling" => p.adaptive_wear_leveling = flag()?,
            "seed" => {
                if self.stats.pieces > 0 {
                    return Err(bad("no change once requests have been routed"));
                }
                p.seed = whole()?
            }
            _ => return Err(PolicyError::UnknownParam(name.to_string())),
        }
        p.validate()?;
        self.params = p;
        self.predictor.set_window(p.window as usize);
        self.predictor.set_training(p.train_ssd, p.train_hdd);
        self.detector
            .set_budget(p.budget_bytes_per_s(self.geo.ssd_bytes()));
        self.detector.set_sustain(p.regulator_sustain_ns);
        if name == "regulator_window_s" {
            self.detector = Detector::new(
                p.budget_bytes_per_s(self.geo.ssd_bytes()),
                p.regulator_window_ns,
                p.regulator_sustain_ns,
            );
        }
        if name == "seed" {
            self.rng = SplitMix64::new(p.seed);
        }
        Ok(())
    }

    fn stats(&self) -> PolicyStats {
        PolicyStats {
            free_ssd_extents: self.table.free() as u64,
            mapped_extents: self.table.valid() as u64,
            ..self.stats.clone()
        }
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let p = &self.params;
        let s = |ns: u64| ns as f64 / 1e9;
        vec![
            (
                "partitioner",
                (p.partitioner == Partitioner::Predictive) as u8 as f64,
            ),
            ("static_max_bytes", p.static_max_bytes as f64),
            ("window", p.window as f64),
            ("train_ssd", p.train_ssd as f64),
            ("train_hdd", p.train_hdd as f64),
            (
                "hdd_predictor",
                (p.hdd_predictor == HddPredictor::Queue) as u8 as f64,
            ),
            ("idle_s", s(p.idle_ns)),
            ("flush_fraction", p.flush_fraction),
            ("flush_period_s", s(p.flush_period_ns)),
            ("mcml", p.mcml as f64),
            ("low_free", p.low_free),
            ("high_free", p.high_free),
            ("redirect_p", p.redirect_p),
            ("erase_cycles", p.erase_cycles as f64),
            ("lifetime_years", p.lifetime_s / SECONDS_PER_YEAR),
            ("write_amplification", p.write_amplification),
            ("regulator_window_s", s(p.regulator_window_ns)),
            ("regulator_sustain_s", s(p.regulator_sustain_ns)),
            (
                "adaptive_wear_leveling",
                p.adaptive_wear_leveling as u8 as f64,
            ),
            ("seed", p.seed as f64),
        ]
    }

    fn virtual_bytes(&self) -> u64 {
        self.table.pages() as u64 * PAGE_BYTES
    }

    fn extent_in_flight(&self, extent: u32) -> bool {
        self.busy(extent)
    }

    fn ssd_wear_leveling_paused(&self) -> bool {
        self.params.adaptive_wear_leveling && self.detector.engaged()
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let c = &self.counts;
        let sc = self.predictor.scores;
        let (rate, budget) = self.write_rate_bytes_per_s();
        let (train_ssd, train_hdd) = self.predictor.training_samples();
        let regulated_s = self.detector.engaged_ns_at(self.last_ns) as f64 / 1e9;
        let mut v = vec![
            ("writes_to_ssd", c.writes_to_ssd as f64),
            ("writes_to_hdd", c.writes_to_hdd as f64),
            ("write_bytes_ssd", c.write_bytes_ssd as f64),
            ("write_bytes_hdd", c.write_bytes_hdd as f64),
            ("requests_flash", c.requests_flash as f64),
            ("requests_disk", c.requests_disk as f64),
            ("requests_both", c.requests_both as f64),
            ("predicted_ssd", c.predicted_ssd as f64),
            ("predicted_hdd", c.predicted_hdd as f64),
            ("flash_bound_regulated", c.flash_bound_regulated as f64),
            ("redirected_writes", c.redirected_writes as f64),
            ("regulator_engagements", self.detector.engagements as f64),
            ("regulated_s", regulated_s),
            (
                "wear_leveling_paused_s",
                if self.params.adaptive_wear_leveling {
                    regulated_s
                } else {
                    0.0
                },
            ),
            ("ssd_write_rate_bytes_per_s", rate),
            ("ssd_budget_bytes_per_s", budget),
            ("partial_pages_to_hdd", c.partial_pages_to_hdd as f64),
            ("full_ssd_pages_to_hdd", c.full_ssd_pages_to_hdd as f64),
            ("flushed_bytes_idle", c.flushed_bytes_idle as f64),
            ("flushed_bytes_room", c.flushed_bytes_room as f64),
            ("flush_rounds", c.flush_rounds as f64),
            ("ssd_pages", self.table.valid() as f64),
            ("observed_ssd", self.predictor.observed[0] as f64),
            ("observed_hdd", self.predictor.observed[1] as f64),
            ("training_ssd_samples", train_ssd as f64),
            ("training_hdd_samples", train_hdd as f64),
            ("trained", self.predictor.trained() as u8 as f64),
        ];
        if let Some(t) = self.trained_at_ns {
            v.push(("trained_at_s", t as f64 / 1e9));
        }
        if let Some(f) = self.predictor.fit() {
            v.push(("fit_observations", f.observations as f64));
            v.push(("fit_r2", f.r2));
            v.push(("fit_adj_r2", f.adj_r2));
            v.push(("fit_std_err_ms", f.std_err));
            v.push(("fit_intercept", f.intercept));
            const COEF: [&str; FEATURES] = [
                "fit_c_read_ratio",
                "fit_c_sequentiality",
                "fit_c_inter_arrival_ms",
                "fit_c_request_kib",
                "fit_c_s_avg_ms",
            ];
            for (name, c) in COEF.iter().zip(f.coefficients) {
                v.push((name, c));
            }
        }
        if let Some(m) = self.predictor.hdd_mean_ms() {
            v.push(("hdd_training_mean_ms", m));
        }
        for (name, s) in [
            ("mae_ssd_regression_ms", sc.ssd_regression),
            ("mae_ssd_last_value_ms", sc.ssd_last_value),
            ("mae_hdd_training_mean_ms", sc.hdd_training_mean),
            ("mae_hdd_queue_ms", sc.hdd_queue),
        ] {
            if s.count > 0 {
                v.push((name, s.mean_abs_ms()));
            }
        }
        v
    }

    fn enable_journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }

    fn take_changes(&mut self, out: &mut Vec<MapRecord>) {
        if let Some(j) = &mut self.journal {
            out.append(j);
        }
    }

    /// Every SSD-resident page: `extent` the logical page, `location` its SSD slot.
    fn snapshot(&self, out: &mut Vec<MapRecord>) {
        out.extend(
            self.table
                .mapped()
                .map(|(page, slot)| MapRecord::new(page, slot, false)),
        );
    }

    /// From records of pages and SSD slots (`NO_LOCATION`: back on the HDD).
    fn restore(&mut self, records: &[MapRecord]) -> Result<(), PolicyError> {
        if self.table.valid() != 0 || self.stats.pieces != 0 {
            return Err(PolicyError::Param {
                name: "restore",
                expected: "a new policy".into(),
                found: "one in use".into(),
            });
        }
        let pairs: Vec<(u32, u32)> = records
            .iter()
            .map(|r| {
                (
                    r.extent,
                    if r.location == NO_LOCATION {
                        NONE
                    } else {
                        r.location
                    },
                )
            })
            .collect();
        let mut table = Table::new(self.table.pages(), self.table.slots());
        table
            .restore(&pairs)
            .map_err(|(page, slot)| PolicyError::Param {
                name: "mapping record",
                expected: format!(
                    "a page below {} in its own slot below {}",
                    self.table.pages(),
                    self.table.slots()
                ),
                found: format!("page {page} at {slot}"),
            })?;
        self.table = table;
        Ok(())
    }
}

#[cfg(test)]
mod tests;

/// A piece of page `page`.
fn page_piece(place: Place, op: Op, device_offset_bytes: u64, len_bytes: u64, page: u32) -> Piece {
    Piece {
        place,
        op,
        device_offset_bytes,
        len_bytes,
        extent: page,
    }
}
