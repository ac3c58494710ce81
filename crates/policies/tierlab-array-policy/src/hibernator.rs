//! Hibernator (Zhu et al., SOSP 2005): CR's per-epoch speed plan over a multi-tier
//! layout. Disks of one speed form a tier with its own parity (`tierlab-tiered-layout`);
//! relocation blocks (RBs) carry a temperature; hot RBs are promoted and cold ones demoted
//! while disks are idle; when CR changes the tier sizes, whole disks change tier and the
//! tier's stripes are reshuffled (randomized shuffling by default).
//!
//! Decisions the paper leaves open, and the choices made here (`docs/arrays.md`):
//! - **What a temperature counts**: accesses that reach the disks (NVRAM read misses and
//!   destaged writes), since the layout exists to shape disk load.
//! - **Tier-load forecast for a candidate tier-size vector**: every RB's rate is its
//!   disk-reaching accesses in the last epoch over the epoch's length (the paper does not
//!   say how it predicts tier loads). RBs are ranked by that rate and the fastest tier is
//!   filled first. A tier's disk-operation rate is its RBs' rate times the last epoch's
//!   disk operations per disk-reaching access (parity and read-modify-write fan-out),
//!   spread evenly over its disks. Temperatures (k accesses, ξ) still decide placement
//!   and swaps; they only reach RBs with k accesses, and ranking the others by a shared
//!   average would hide the workload's skew from the forecast (`forecast_by_temperature`
//!   keeps that older forecast for comparison).
//! - **Service-time moments** per tier: measured on the disks of the tier at that speed
//!   last epoch where there are any, else on all disks, rescaled to the speed
//!   (`crate::service`).
//! - **Reorganisation in the model**: a tier whose size changes is charged the
//!   reorganisation phase `2·Scan/(1−ρ)²` with Scan = disk bytes / media rate at its speed.
//! - **Small-scale migration** runs only outside reorganisations, one swap at a time, with
//!   hysteresis `swap_hysteresis` (default 0.1: a swap needs the slower tier's hottest RB
//!   10 % hotter than the faster tier's coldest).
//! - **Reorganisation per tier**: the block copies of consecutive stripes run in batches,
//!   [`DATA_BATCHES_IN_FLIGHT`] at once, applied in stripe order, together with the parity
//!   of the tiers that gain disks (updated incrementally from the blocks read). The parity
//!   of a tier slower than every tier that gains disks is rewritten at that tier's own
//!   pace instead: once a stripe's copies are applied its parity joins the tier's queue
//!   and is recomputed from the stripe's members (read them, write the parity) by a
//!   yielding move, so the fast tier's shuffle never waits for a slow tier's parity.
//!   Until then the old parity still covers the stripe's old members, all of which hold
//!   their data somewhere.
//! - **A plan still running at an epoch boundary** (copies or parity) finishes first;
//!   that epoch keeps its tiers. A small-scale migration in flight at the boundary is aborted instead, so that
//!   the epoch's tier plan can be laid out.

use crate::cr::DEFAULT_REQUEST_BYTES;
use crate::scheme::{ArraySetup, ArrayView, Command, DiskCounters, Location, Move, MoveOp, Placement, Scheme, SchemeReport};
use crate::service::moments_at;
use serde::{Deserialize, Serialize};
use tierlab_hibernator_cr::{plan_tiers, EpochParams, SpeedOption, TierForecast};
use tierlab_tiered_layout::{Layout, LayoutConfig, Migration, ReorgPlan, ReorgStep, Shuffle, TemperatureParams, TemperatureSnapshot};

/// The arrival rate given to every tier of a tier-size vector the layout cannot hold: it
/// saturates any disk, so the planner never chooses the vector.
const UNUSABLE_RATE_PER_S: f64 = 1e9;

/// Hibernator's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HibernatorParams {
    /// Relocation-block size, bytes (the paper's sizing example: 256 KiB).
    pub rb_bytes: u64,
    /// Accesses between temperature updates (k) and the history factor (ξ).
    pub temperature_k: u32,
    pub temperature_xi: f64,
    /// How a tier's stripes are reshuffled when disks join it.
    pub shuffle: ShuffleKind,
    /// Swap hysteresis h (see the module documentation).
    pub swap_hysteresis: f64,
    /// Include the reorganisation phase in CR's forecast.
    pub model_reorganisation: bool,
    /// Stripes a reorganisation copies at once: their blocks on one disk are adjacent,
    /// so each disk reads and writes them in larger sequential operations (the paper's
    /// batching through the controller cache). The batch also bounds how long a
    /// foreground request can wait behind one: 4 stripes of 256 KiB = 1 MiB, 66 ms at
    /// 3,000 rpm's 16 MB/s.
    pub reorg_batch_stripes: u32,
    pub seed: u64,
    /// Tier sizes (fastest first) to use at successive epochs instead of CR's choice, for
    /// experiments on the layout itself (e.g. the cost of moving one disk between tiers).
    /// Empty: CR decides every epoch; after the schedule's end, CR decides.
    pub tier_schedule: Vec<Vec<u32>>,
    /// Forecast tier loads from temperatures, RBs without one sharing the rate of the
    /// last epoch's accesses to such RBs equally (instead of every RB's last-epoch count).
    pub forecast_by_temperature: bool,
}

impl Default for HibernatorParams {
    fn default() -> Self {
        HibernatorParams { rb_bytes: 256 * 1024, temperature_k: 10, temperature_xi: 0.8, shuffle: ShuffleKind::Randomized, swap_hysteresis: 0.1, model_reorganisation: true, reorg_batch_stripes: 4, seed: 1, tier_schedule: Vec::new(), forecast_by_temperature: false }
    }
}

/// The shuffling algorithms of the paper (§3.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShuffleKind {
    Randomized,
    Permutational,
    Sorted,
}

impl ShuffleKind {
    fn to_layout(self) -> Shuffle {
        match self {
            ShuffleKind::Randomized => Shuffle::Randomized,
            ShuffleKind::Permutational => Shuffle::Permutational,
            ShuffleKind::Sorted => Shuffle::Sorted,
        }
    }
}

/// Batches of reorganisation copies in flight at once: enough that the disks joining a
/// tier keep busy while the blocks leaving a slow tier are read at its speed (the
/// controller then holds the blocks of at most 32 stripes by default, read but not yet
/// written).
pub const DATA_BATCHES_IN_FLIGHT: usize = 8;

/// Consecutive stripes of a reorganisation whose copies are in flight (applied in order
/// once done).
struct StepBatch {
    id: u64,
    steps: Vec<ReorgStep>,
    done: bool,
}

/// A parity rewrite left to its tier's pace: stripe `slot` of target tier `tier`, whose
/// parity is on `disk`.
#[derive(Clone, Copy, Debug)]
struct ParityJob {
    slot: u32,
    tier: u32,
    disk: u32,
}

/// Parity moves of one deferred tier in flight at once (one's writes overlap the next
/// one's reads).
const PARITY_MOVES_IN_FLIGHT: usize = 2;

/// A tier whose parity is rewritten at its own pace.
#[derive(Default)]
struct ParityLane {
    queue: std::collections::VecDeque<ParityJob>,
    in_flight: Vec<u64>,
}

/// Counts for the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HibernatorStats {
    pub epochs: u64,
    pub infeasible_epochs: u64,
    pub reorganisations: u64,
    pub reorganisation_s: f64,
    pub stripes_reorganised: u64,
    pub rb_copies: u64,
    pub parity_writes: u64,
    pub swaps: u64,
    /// Swaps dropped because an epoch's plan came while they were in flight.
    pub swaps_aborted: u64,
    /// Epochs in a row (the latest) that kept the tier sizes, no reorganisation running.
    pub stable_epochs: u64,
    /// Each reorganisation's length, s (from its plan to its last parity rewrite).
    pub reorganisation_lengths_s: Vec<f64>,
    /// Each reorganisation's shuffle, s: from its plan until every block is in place and
    /// the tiers that gain disks have their parity (what the disks joining a tier take).
    pub shuffle_lengths_s: Vec<f64>,
    /// Parity rewrites left to a slower tier's pace.
    pub deferred_parity_writes: u64,
    /// Tier sizes (fastest first) chosen at each epoch, the first dozen.
    pub tier_sizes: Vec<Vec<u32>>,
    /// CR's predicted mean response time per epoch (ms), the first dozen.
    pub predicted_mean_ms: Vec<f64>,
}

/// The Hibernator scheme.
pub struct Hibernator {
    p: HibernatorParams,
    epoch_s: f64,
    setup: Option<ArraySetup>,
    layout: Option<Layout>,
    plan: Option<ReorgPlan>,
    plan_started_ns: u64,
    /// The running plan's copies in flight, oldest first.
    batches: std::collections::VecDeque<StepBatch>,
    /// Per target tier of the running plan: whether its parity waits for its own pace.
    deferred: Vec<bool>,
    lanes: Vec<ParityLane>,
    /// Every step of the running plan is applied.
    shuffled: bool,
    swap: Option<(u64, Migration)>,
    next_id: u64,
    next_ns: u64,
    /// Disk-reaching accesses this epoch, and those to RBs without a temperature.
    accesses: u64,
    untracked_accesses: u64,
    /// Per RB: disk-reaching accesses this epoch (saturating).
    epoch_counts: Vec<u16>,
    levels: Vec<usize>,
    /// Next entry of `tier_schedule` to use.
    schedule_pos: usize,
    stats: HibernatorStats,
    notes: Vec<String>,
}

impl Hibernator {
    pub fn new(p: HibernatorParams, epoch_s: f64) -> Hibernator {
        Hibernator {
            p,
            epoch_s,
            setup: None,
            layout: None,
            plan: None,
            plan_started_ns: 0,
            batches: std::collections::VecDeque::new(),
            deferred: Vec::new(),
            lanes: Vec::new(),
            shuffled: false,
            swap: None,
            next_id: 0,
            next_ns: (epoch_s * 1e9) as u64,
            accesses: 0,
            untracked_accesses: 0,
            epoch_counts: Vec::new(),
            levels: Vec::new(),
            schedule_pos: 0,
            stats: HibernatorStats::default(),
            notes: Vec::new(),
        }
    }

    pub fn layout(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    pub fn stats(&self) -> &HibernatorStats {
        &self.stats
    }

    fn finish_reorganisation(&mut self, now_ns: u64) {
        let length_s = now_ns.saturating_sub(self.plan_started_ns) as f64 / 1e9;
        self.stats.reorganisation_s += length_s;
        self.stats.reorganisation_lengths_s.push(length_s);
        self.plan = None;
        self.batches.clear();
        self.lanes.clear();
        self.deferred.clear();
    }

    /// Whether a reorganisation is running (copies or parity rewrites outstanding).
    fn reorganising(&self) -> bool {
        self.plan.is_some()
    }

    /// Ends the running reorganisation once every step is applied and every deferred
    /// parity rewrite done.
    fn maybe_finish(&mut self, now_ns: u64) {
        let Some(plan) = self.plan.as_ref() else { return };
        if !self.shuffled && self.batches.is_empty() && plan.steps_produced() >= plan.steps_total() {
            self.shuffled = true;
            self.stats.shuffle_lengths_s.push(now_ns.saturating_sub(self.plan_started_ns) as f64 / 1e9);
        }
        if self.shuffled && self.lanes.iter().all(|l| l.queue.is_empty() && l.in_flight.is_empty()) {
            self.finish_reorganisation(now_ns);
        }
    }

    /// Applies the finished batches at the head of the queue, in stripe order, and
    /// queues their deferred parity rewrites.
    fn apply_done_batches(&mut self) {
        while self.batches.front().is_some_and(|b| b.done) {
            let Some(batch) = self.batches.pop_front() else { break };
            let Some(layout) = self.layout.as_mut() else { return };
            for step in &batch.steps {
                if layout.apply_step(step).is_err() && self.notes.len() < 8 {
                    self.notes.push("a reorganisation step could not be applied".into());
                }
                for pw in step.parity_writes() {
                    if self.deferred.get(pw.tier as usize).copied().unwrap_or(false) {
                        if let Some(lane) = self.lanes.get_mut(pw.tier as usize) {
                            lane.queue.push_back(ParityJob { slot: step.slot(), tier: pw.tier, disk: pw.disk });
                            self.stats.deferred_parity_writes += 1;
                        }
                    }
                }
            }
        }
    }

    /// The next deferred parity move of a tier with room in flight: up to
    /// `reorg_batch_stripes` stripes, each read from its other members and its parity
    /// written.
    fn next_parity_move(&mut self) -> Option<Move> {
        let batch = self.p.reorg_batch_stripes.max(1) as usize;
        let plan = self.plan.as_ref()?;
        let t = self.lanes.iter().position(|l| l.in_flight.len() < PARITY_MOVES_IN_FLIGHT && !l.queue.is_empty())?;
        let members: Vec<u32> = plan.target_tier_disks(t as u32).ok()?.to_vec();
        let id = self.next_id;
        let lane = &mut self.lanes[t];
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for _ in 0..batch {
            let Some(job) = lane.queue.pop_front() else { break };
            debug_assert_eq!(job.tier as usize, t);
            for &m in members.iter().filter(|&&m| m != job.disk) {
                reads.push(Location { disk: m, offset_bytes: u64::from(job.slot) * self.p.rb_bytes });
            }
            writes.push(Location { disk: job.disk, offset_bytes: u64::from(job.slot) * self.p.rb_bytes });
        }
        lane.in_flight.push(id);
        self.next_id += 1;
        let mut ops = merge_adjacent(reads, self.p.rb_bytes, false);
        ops.extend(merge_adjacent(writes, self.p.rb_bytes, true));
        Some(Move { id, ops, yielding: true })
    }

    /// Speed level of layout tier `t` (tier 0 is the fastest).
    fn level_of_tier(&self, t: usize) -> usize {
        let top = self.setup.as_ref().map_or(0, ArraySetup::top_level);
        top.saturating_sub(t)
    }

    fn location(&self, disk: u32, slot: u32) -> Location {
        Location { disk, offset_bytes: u64::from(slot) * self.p.rb_bytes }
    }

    /// Every RB's forecast rate (see the module documentation).
    fn rate_snapshot(&self, layout: &Layout) -> TemperatureSnapshot {
        if !self.p.forecast_by_temperature {
            return TemperatureSnapshot::from_counts(&self.epoch_counts, 1.0 / self.epoch_s, layout.n_disks(), layout.slots_per_disk());
        }
        let n = layout.n_rbs();
        let untracked = (0..n).filter(|&rb| !layout.has_temperature(rb).unwrap_or(false)).count() as f64;
        let share = if untracked > 0.0 { self.untracked_accesses as f64 / self.epoch_s / untracked } else { 0.0 };
        let rates: Vec<f32> = (0..n)
            .map(|rb| if layout.has_temperature(rb).unwrap_or(false) { layout.temperature(rb).unwrap_or(0.0) as f32 } else { share as f32 })
            .collect();
        TemperatureSnapshot::new(&rates, layout.n_disks(), layout.slots_per_disk())
    }

    fn plan_epoch(&mut self, view: &ArrayView, out: &mut Vec<Command>) {
        let (Some(setup), Some(layout)) = (self.setup.clone(), self.layout.as_ref()) else { return };
        let n = setup.disks;
        let levels = setup.speeds.len();
        let snapshot = self.rate_snapshot(layout);
        let disk_ops: u64 = view.since_tick.iter().take(n).map(|c| c.ops).sum();
        let ops_per_access = if self.accesses > 0 { disk_ops as f64 / self.accesses as f64 } else { 1.0 };
        // Service measurements per speed level, pooled over the disks at that level.
        let mut per_level = vec![DiskCounters::default(); levels];
        let mut all = DiskCounters::default();
        for d in 0..n {
            let c = &view.since_tick[d];
            per_level[view.status[d].level.min(levels - 1)].add(c);
            all.add(c);
        }
        let top = setup.top_level();
        let measured_level = (0..levels).rev().find(|&l| per_level[l].timed_ops() > 0).unwrap_or(top);
        let moments = |level: usize| {
            let (c, at) = if per_level[level].timed_ops() > 0 { (&per_level[level], level) } else { (&all, measured_level) };
            moments_at(c, &setup.speeds[at], &setup.speeds[level], setup.average_seek_s, DEFAULT_REQUEST_BYTES)
        };
        let moments: Vec<(f64, f64)> = (0..levels).map(moments).collect();
        let fill = layout.fill_factor().clamp(1e-9, 1.0);
        let disk_bytes = setup.disk_capacity_bytes as f64;
        // Current sizes per speed level (slowest first).
        let tier_sizes = layout.tier_sizes();
        let mut current = vec![0usize; levels];
        for (t, &size) in tier_sizes.iter().enumerate() {
            current[self.level_of_tier(t)] += size as usize;
        }
        let model_reorg = self.p.model_reorganisation;
        let predict = |sizes: &[usize]| -> Vec<TierForecast> {
            // Layout tiers are fastest first; `sizes` is slowest first.
            let by_tier: Vec<u32> = sizes.iter().rev().map(|&s| s as u32).collect();
            // A vector the layout cannot hold (a one-disk tier) is made infeasible.
            let loads = snapshot.predict(&by_tier, fill).ok();
            (0..levels)
                .map(|level| {
                    let t = levels - 1 - level;
                    let disks = sizes[level].max(1) as f64;
                    let rate = match &loads {
                        Some(l) => l.get(t).map_or(0.0, |l| l.rate) * ops_per_access / disks,
                        None => UNUSABLE_RATE_PER_S,
                    };
                    let s = &setup.speeds[level];
                    TierForecast {
                        arrival_rate_per_s: rate,
                        option: SpeedOption { level, rpm: s.rpm, active_w: s.active_w, idle_w: s.idle_w, service_mean_s: moments[level].0, service_var_s2: moments[level].1 },
                        scan_s: (model_reorg && s.media_bytes_per_s > 0.0).then(|| disk_bytes / s.media_bytes_per_s),
                    }
                })
                .collect()
        };
        let params = EpochParams { epoch_s: self.epoch_s, transition_s: setup.speed_change.time_s, transition_energy_j: setup.speed_change.energy_j, r_limit_s: setup.r_limit_s };
        let plan = match plan_tiers(n, &current, predict, &params) {
            Ok(p) => p,
            Err(e) => {
                if self.notes.len() < 8 {
                    self.notes.push(format!("epoch {}: no tier plan ({e}); tiers unchanged", self.stats.epochs));
                }
                return;
            }
        };
        if !plan.feasible {
            self.stats.infeasible_epochs += 1;
        }
        if self.stats.predicted_mean_ms.len() < 12 {
            self.stats.predicted_mean_ms.push(plan.mean_response_s * 1e3);
        }
        // A one-disk tier cannot hold parity: fold it into the next faster tier.
        let chosen: Vec<u32> = match self.p.tier_schedule.get(self.schedule_pos) {
            Some(fixed) => {
                self.schedule_pos += 1;
                fixed.clone()
            }
            None => plan.sizes.iter().rev().map(|&s| s as u32).collect(),
        };
        let target: Vec<u32> = tierlab_tiered_layout::merge_single_disk_tiers(&chosen);
        if self.stats.tier_sizes.len() < 12 {
            self.stats.tier_sizes.push(target.clone());
        }
        let same = target.iter().zip(tier_sizes.iter().chain(std::iter::repeat(&0))).all(|(a, b)| a == b);
        if same {
            return;
        }
        let Some(layout) = self.layout.as_mut() else { return };
        match layout.plan_reorg(&target, self.p.shuffle.to_layout(), self.p.seed.wrapping_add(self.stats.epochs)) {
            Ok(reorg) => {
                for m in reorg.disk_moves() {
                    let level = self.setup.as_ref().map_or(0, |s| s.top_level()).saturating_sub(m.to_tier as usize);
                    let disk = m.disk as usize;
                    if self.levels[disk] != level {
                        self.levels[disk] = level;
                        out.push(Command::SetSpeed { disk, level });
                    }
                }
                // Tiers slower than every tier that gains disks rewrite their parity at
                // their own pace.
                let tiers = reorg.target_sizes().len();
                let slowest_gaining = reorg.disk_moves().iter().map(|m| m.to_tier as usize).max().unwrap_or(tiers);
                self.deferred = (0..tiers).map(|t| t > slowest_gaining).collect();
                self.lanes = (0..tiers).map(|_| ParityLane::default()).collect();
                self.batches.clear();
                self.shuffled = false;
                self.stats.reorganisations += 1;
                self.plan_started_ns = view.now_ns;
                self.plan = Some(reorg);
                out.push(Command::Reorganise);
            }
            Err(e) => {
                if self.notes.len() < 8 {
                    self.notes.push(format!("epoch {}: tier sizes {target:?} cannot be laid out ({e})", self.stats.epochs));
                }
            }
        }
    }

    /// The disk operations of consecutive reorganisation steps: copy every block (all
    /// reads, then all writes) and update each rewritten parity of a tier not deferred
    /// (read, write: the paper's six I/Os for a two-block exchange); operations of one
    /// disk on adjacent slots are merged.
    fn steps_move(&self, id: u64, steps: &[ReorgStep]) -> Move {
        let rb = self.p.rb_bytes;
        // (Each list allocated once, for the most it can hold.)
        let sizes = || steps.iter().map(|s| s.moves().len() + s.parity_writes().len());
        let mut reads = Vec::with_capacity(sizes().sum());
        let mut writes = Vec::with_capacity(sizes().sum());
        let mut read_disks = Vec::with_capacity(sizes().max().unwrap_or(0));
        for step in steps {
            read_disks.clear();
            for m in step.moves() {
                reads.push(self.location(m.from.disk, m.from.slot));
                read_disks.push(m.from.disk);
                writes.push(self.location(m.to.disk, m.to.slot));
            }
            // Parity is updated incrementally (old parity XOR the blocks that left and
            // joined the stripe, which are read anyway): read it, write it back.
            for pw in step.parity_writes().iter().filter(|pw| !self.deferred.get(pw.tier as usize).copied().unwrap_or(false)) {
                let at = self.location(pw.disk, step.slot());
                if !read_disks.contains(&pw.disk) {
                    read_disks.push(pw.disk);
                    reads.push(at);
                }
                writes.push(at);
            }
        }
        let mut ops = merge_adjacent(reads, rb, false);
        ops.extend(merge_adjacent(writes, rb, true));
        Move { id, ops, yielding: false }
    }

    /// A small-scale migration's operations: read the blocks and both stripes' parity,
    /// then write the blocks at their new places and the updated parity.
    fn swap_move(&self, id: u64, m: &Migration) -> Move {
        let rb = self.p.rb_bytes;
        let layout = self.layout.as_ref();
        let parity = |l: tierlab_tiered_layout::Location| layout.and_then(|x| x.parity_of(l.disk, l.slot).ok()).map(|d| self.location(d, l.slot));
        let (places, moves): (Vec<tierlab_tiered_layout::Location>, Vec<(tierlab_tiered_layout::Location, tierlab_tiered_layout::Location)>) = match *m {
            Migration::Swap { hot_at, cold_at, .. } => (vec![hot_at, cold_at], vec![(hot_at, cold_at), (cold_at, hot_at)]),
            Migration::Move { from, to, .. } => (vec![from, to], vec![(from, to)]),
        };
        let mut ops = Vec::new();
        let parities: Vec<Location> = places.iter().filter_map(|&l| parity(l)).collect();
        for &(from, _) in &moves {
            ops.push(MoveOp { at: self.location(from.disk, from.slot), len_bytes: rb, write: false });
        }
        for &p in &parities {
            ops.push(MoveOp { at: p, len_bytes: rb, write: false });
        }
        for &(_, to) in &moves {
            ops.push(MoveOp { at: self.location(to.disk, to.slot), len_bytes: rb, write: true });
        }
        for &p in &parities {
            ops.push(MoveOp { at: p, len_bytes: rb, write: true });
        }
        Move { id, ops, yielding: false }
    }
}

impl Scheme for Hibernator {
    fn name(&self) -> String {
        "hibernator".into()
    }

    fn start(&mut self, setup: &ArraySetup, _out: &mut Vec<Command>) {
        self.levels = vec![setup.top_level(); setup.disks];
        let slots = (setup.disk_capacity_bytes / self.p.rb_bytes.max(1)).min(u64::from(u32::MAX)) as u32;
        let max_tiers = setup.speeds.len().max(1) as u32;
        let n_disks = setup.disks as u32;
        let capacity_rbs = u64::from(n_disks.saturating_sub(max_tiers)) * u64::from(slots);
        let cfg = LayoutConfig {
            max_tiers,
            rb_bytes: self.p.rb_bytes,
            temperature: TemperatureParams { k: self.p.temperature_k, xi: self.p.temperature_xi, ..TemperatureParams::default() },
            ..LayoutConfig::new(n_disks, slots, capacity_rbs)
        };
        match Layout::new(cfg) {
            Ok(l) => {
                if !self.p.forecast_by_temperature {
                    self.epoch_counts = vec![0; l.n_rbs() as usize];
                }
                self.layout = Some(l);
            }
            Err(e) => self.notes.push(format!("no tiered layout: {e}")),
        }
        if setup.speed_change.time_s >= self.epoch_s {
            self.notes.push(format!("the epoch ({} s) is not longer than a speed change ({} s)", self.epoch_s, setup.speed_change.time_s));
        }
        self.setup = Some(setup.clone());
    }

    fn next_tick_ns(&self) -> Option<u64> {
        Some(self.next_ns)
    }

    fn tick(&mut self, view: &ArrayView, out: &mut Vec<Command>) {
        self.next_ns = view.now_ns + (self.epoch_s * 1e9) as u64;
        self.stats.epochs += 1;
        // A small-scale migration in flight yields to the epoch's tier plan: the swap is
        // dropped (its copies land where nothing refers to them), and the layout is free
        // to reorganise.
        if self.swap.take().is_some() {
            if let Some(l) = self.layout.as_mut() {
                let _ = l.abort_swap();
            }
            self.stats.swaps_aborted += 1;
        }
        if !self.reorganising() {
            self.plan_epoch(view, out);
        } else if self.notes.len() < 8 {
            self.notes.push(format!("epoch {}: the previous reorganisation is still running; tiers kept", self.stats.epochs));
        }
        if self.reorganising() {
            self.stats.stable_epochs = 0;
        } else {
            self.stats.stable_epochs += 1;
        }
        self.accesses = 0;
        self.untracked_accesses = 0;
        self.epoch_counts.fill(0);
        if let Some(l) = self.layout.as_mut() {
            l.epoch_boundary();
        }
    }

    fn planned_levels(&self) -> Option<Vec<usize>> {
        Some(self.levels.clone())
    }

    fn placement(&mut self) -> Option<&mut dyn Placement> {
        if self.layout.is_some() {
            Some(self)
        } else {
            None
        }
    }

    fn report(&self) -> SchemeReport {
        SchemeReport {
            decisions: self.stats.epochs,
            infeasible_decisions: self.stats.infeasible_epochs,
            notes: self.notes.clone(),
            stable_epochs: Some(self.stats.stable_epochs),
            details: serde_json::to_value(&self.stats).unwrap_or_default(),
            ..SchemeReport::default()
        }
    }
}

impl Placement for Hibernator {
    fn rb_bytes(&self) -> u64 {
        self.p.rb_bytes
    }

    fn capacity_bytes(&self) -> u64 {
        self.layout.as_ref().map_or(0, |l| l.n_rbs() * self.p.rb_bytes)
    }

    fn locate(&self, rb: u64) -> Option<(Location, Option<Location>)> {
        let layout = self.layout.as_ref()?;
        let at = layout.locate(rb).ok()?;
        let parity = layout.parity_of(at.disk, at.slot).ok().map(|d| self.location(d, at.slot));
        Some((self.location(at.disk, at.slot), parity))
    }

    fn record_access(&mut self, rb: u64, _write: bool, now_ns: u64) {
        let Some(layout) = self.layout.as_mut() else { return };
        self.accesses += 1;
        if let Some(c) = self.epoch_counts.get_mut(rb as usize) {
            *c = c.saturating_add(1);
        }
        if !layout.has_temperature(rb).unwrap_or(true) {
            self.untracked_accesses += 1;
        }
        let _ = layout.record_access(rb, now_ns as f64 / 1e9);
    }

    fn next_move(&mut self, now_ns: u64, _idle: &dyn Fn(u32) -> bool) -> Option<Move> {
        if self.reorganising() {
            if let Some(mv) = self.next_parity_move() {
                return Some(mv);
            }
            if self.batches.len() >= DATA_BATCHES_IN_FLIGHT {
                return None;
            }
            let plan = self.plan.as_mut()?;
            let layout = self.layout.as_ref()?;
            let mut steps = Vec::with_capacity(self.p.reorg_batch_stripes.max(1) as usize);
            let mut failed = false;
            while steps.len() < self.p.reorg_batch_stripes.max(1) as usize {
                match plan.next_step(layout) {
                    Ok(Some(step)) => steps.push(step),
                    Ok(None) => break,
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            }
            if steps.is_empty() {
                if failed && self.batches.is_empty() {
                    if self.notes.len() < 8 {
                        self.notes.push("a reorganisation step could not be planned; the plan was dropped".into());
                    }
                    self.finish_reorganisation(now_ns);
                } else {
                    self.maybe_finish(now_ns);
                }
                return None;
            }
            let id = self.next_id;
            self.next_id += 1;
            for step in &steps {
                self.stats.stripes_reorganised += 1;
                self.stats.rb_copies += u64::from(step.stats().rb_moves);
                self.stats.parity_writes += u64::from(step.stats().parity_writes);
            }
            let mv = self.steps_move(id, &steps);
            self.batches.push_back(StepBatch { id, steps, done: false });
            return Some(mv);
        }
        if self.swap.is_some() {
            return None;
        }
        let layout = self.layout.as_mut()?;
        let m = layout.next_swap(self.p.swap_hysteresis).ok()??;
        let id = self.next_id;
        self.next_id += 1;
        self.stats.swaps += 1;
        let mv = self.swap_move(id, &m);
        self.swap = Some((id, m));
        Some(mv)
    }

    fn max_moves_in_flight(&self) -> usize {
        DATA_BATCHES_IN_FLIGHT + PARITY_MOVES_IN_FLIGHT * self.setup.as_ref().map_or(1, |s| s.speeds.len())
    }

    fn move_done(&mut self, id: u64, now_ns: u64) {
        if self.swap.as_ref().is_some_and(|(fid, _)| *fid == id) {
            if let (Some((_, m)), Some(layout)) = (self.swap.take(), self.layout.as_mut()) {
                let _ = layout.commit_swap(&m);
            }
            return;
        }
        if let Some(lane) = self.lanes.iter_mut().find(|l| l.in_flight.contains(&id)) {
            lane.in_flight.retain(|&x| x != id);
        } else if let Some(batch) = self.batches.iter_mut().find(|b| b.id == id) {
            batch.done = true;
            self.apply_done_batches();
        } else {
            return;
        }
        self.maybe_finish(now_ns);
    }

    fn report(&self) -> serde_json::Value {
        serde_json::to_value(&self.stats).unwrap_or(serde_json::Value::Null)
    }
}

/// One operation per run of adjacent `rb`-sized places on a disk.
fn merge_adjacent(mut places: Vec<Location>, rb: u64, write: bool) -> Vec<MoveOp> {
    places.sort_by_key(|l| (l.disk, l.offset_bytes));
    places.dedup();
    let mut ops: Vec<MoveOp> = Vec::with_capacity(places.len());
    for at in places {
        match ops.last_mut() {
            Some(last) if last.at.disk == at.disk && last.at.offset_bytes + last.len_bytes == at.offset_bytes => last.len_bytes += rb,
            _ => ops.push(MoveOp { at, len_bytes: rb, write }),
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SpeedInfo, Transition};

    fn setup() -> ArraySetup {
        let s = |rpm, idle_w| SpeedInfo { rpm, active_w: idle_w + 3.3, seek_w: 13.5, idle_w, media_bytes_per_s: 80e6 * f64::from(rpm) / 15e3 };
        ArraySetup {
            disks: 6,
            disk_capacity_bytes: 1000 * 256 * 1024,
            speeds: vec![s(3000, 2.8), s(15000, 10.2)],
            speed_change: Transition { time_s: 12.4, energy_j: 152.0 },
            standby: None,
            average_seek_s: 3.4e-3,
            r_limit_s: 0.01,
        }
    }

    /// Share of the forecast rate on the `hot` hottest RBs after an epoch in which 100 RBs
    /// had 3 accesses each (fewer than k = 10) and no other RB any.
    fn forecast_share_of_the_accessed(p: HibernatorParams) -> f64 {
        let mut h = Hibernator::new(p, 3600.0);
        h.start(&setup(), &mut Vec::new());
        for rb in 0..100u64 {
            for i in 0..3 {
                h.record_access(rb * 37 % 4000, false, (rb * 3 + i) * 1_000_000_000);
            }
        }
        let layout = h.layout.as_ref().unwrap();
        let snap = h.rate_snapshot(layout);
        snap.rate_of_ranks(0, 100) / snap.total_rate()
    }

    #[test]
    fn the_tier_forecast_sees_skew_below_k_accesses() {
        // Last epoch's counts: the 100 accessed RBs carry all of the forecast rate.
        let share = forecast_share_of_the_accessed(HibernatorParams::default());
        assert!((share - 1.0).abs() < 1e-6, "share {share}");
        // Temperatures alone: untracked RBs share the rate equally, so the accessed 100 of
        // 4,000 carry 2.5 % of it.
        let flat = forecast_share_of_the_accessed(HibernatorParams { forecast_by_temperature: true, ..HibernatorParams::default() });
        assert!(flat < 0.05, "share {flat}");
    }

    #[test]
    fn an_epochs_tier_plan_is_laid_out_even_with_a_swap_in_flight() {
        use crate::DiskStatus;
        let p = HibernatorParams { tier_schedule: vec![vec![4, 2], vec![6]], ..HibernatorParams::default() };
        let mut h = Hibernator::new(p, 3600.0);
        h.start(&setup(), &mut Vec::new());
        let status = vec![DiskStatus { level: 1, standby: false, queued: 0 }; 6];
        let counters = vec![DiskCounters::default(); 6];
        let view = |now_ns| ArrayView { now_ns, status: &status, since_tick: &counters };
        // Epoch 1: 6 → 4 + 2; carry the reorganisation out.
        h.tick(&view(3_600_000_000_000), &mut Vec::new());
        assert_eq!(h.stats.reorganisations, 1);
        let idle = |_: u32| true;
        while h.plan.is_some() {
            let mv = h.next_move(0, &idle).expect("a reorganisation step");
            h.move_done(mv.id, 0);
        }
        // A hot RB in the slow tier: a swap goes in flight.
        let layout = h.layout.as_mut().unwrap();
        let slow_rb = (0..layout.n_rbs()).find(|&rb| layout.locate(rb).is_ok_and(|l| layout.tier_of_disk(l.disk).unwrap_or(0) == 1)).unwrap();
        layout.set_temperature(slow_rb, 50.0).unwrap();
        let mv = h.next_move(0, &idle).expect("a swap");
        assert!(matches!(h.swap, Some((id, _)) if id == mv.id));
        // Epoch 2 wants one tier again: the swap is aborted and the plan laid out.
        h.tick(&view(7_200_000_000_000), &mut Vec::new());
        assert_eq!(h.stats.reorganisations, 2, "notes: {:?}", h.notes);
        assert_eq!(h.stats.swaps_aborted, 1);
        // The aborted swap's completion changes nothing.
        h.move_done(mv.id, 0);
        assert!(h.plan.is_some());
    }
}
