//! PDC + LD: Pinheiro & Bianchini's popular data concentration, with Carrera et al.'s
//! load-directed speed setting (the Hibernator study's `PDC_LD`).
//!
//! **Layout.** Data lives in relocation blocks (RBs, `rb_bytes`), each stored once on one
//! disk at one slot; a disk holds `disk_capacity_bytes / rb_bytes` slots and the logical
//! space is that many RBs per disk. There is **no parity**: PDC as published keeps no
//! redundancy, and the Hibernator paper does not say it added any. At the start RB `i`
//! is on disk `i mod n`, slot `i / n` (striped like the RAID layout it replaces).
//!
//! **Popularity.** Accesses per RB are counted over a period (`period_s`, default one
//! hour; the papers do not give PDC's period, an hour matches the Hibernator study's
//! epochs) and forgotten at its end. Then the accessed RBs, most accessed first (ties by
//! RB number), are assigned to disk 0 until it is full or its expected load (accesses per
//! second of the RBs placed on it) would exceed `load_cap` × its maximum throughput at
//! full speed, then to disk 1, and so on; the last disk takes whatever is left. Maximum
//! throughput is 1 / the mean service time at top speed
//! ([`crate::service::moments_at`] with the disks' average seek and the period's mean
//! request size). RBs nobody accessed have no target and fill the remaining slots where
//! they are.
//!
//! **Migration.** Moves are swaps: a hot RB that is not on its target disk exchanges
//! places with an RB on that disk which does not belong there (first a hot RB whose
//! target is the first RB's disk, then an unaccessed RB, then any misplaced hot RB, which
//! is then moved on in turn). The hottest RBs are planned first, and at most
//! `max_moves_per_period` swaps are planned each period (default: as many as take
//! `move_share` of the period on one disk at full speed). A swap reads both RBs and then
//! writes each at the other's place; the executor starts it only when both disks are
//! idle. Swaps still waiting when the next period starts are dropped; the layout points
//! at the new places once a swap is reported done.
//!
//! **LD.** Every `ld_window_s` each disk's load (operations per second over the window,
//! background moves included) is compared with `ld_threshold` × its throughput at the
//! lowest speed (1 / the mean service time there, estimated from what the disk did in the
//! window): below, the lowest speed; otherwise the top speed. Only changes are commanded.
//! With single-speed disks LD has nothing to choose and only PDC acts. The window length
//! is not given by the papers; the default, 60 s, is about five times the Table 2 disk's
//! 12.4 s speed change, so a window is not dominated by the time a change takes, and it
//! still follows load changes within minutes.
//!
//! The executor resets its per-tick counters at every tick, so the scheme ticks once per
//! LD window and counts PDC periods in ticks (`round(period_s / ld_window_s)` ticks).

use crate::scheme::{ArraySetup, ArrayView, Command, DiskCounters, Location, Move, MoveOp, Placement, Scheme, SchemeReport, SpeedInfo};
use crate::service::moments_at;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet, VecDeque};

/// How many queued swaps `next_move` looks through for one whose disks are idle.
const LOOKAHEAD: usize = 64;

/// PDC + LD settings; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PdcParams {
    /// Bytes per relocation block.
    pub rb_bytes: u64,
    /// Seconds between PDC reorganisations.
    pub period_s: f64,
    /// Share of a disk's full-speed throughput PDC loads it to.
    pub load_cap: f64,
    /// Swaps planned per period at most (`None`: as many as take `move_share` of the
    /// period on one disk at full speed).
    pub max_moves_per_period: Option<u64>,
    /// Share of a period the swaps may take on one disk, when `max_moves_per_period` is
    /// `None`.
    pub move_share: f64,
    /// LD's measurement window, s (the scheme ticks once a window; a period shorter
    /// than the window shortens the window to the period).
    pub ld_window_s: f64,
    /// LD's threshold: the low speed while the load is below this share of the disk's
    /// throughput at that speed.
    pub ld_threshold: f64,
    /// The disks' average seek time, s (the service-time estimate's seek part when nothing
    /// was measured). Replaced at start by the array's disk figure; the default is the
    /// Hibernator study's disk (Table 2), 3.4 ms.
    pub average_seek_s: f64,
    /// Request size assumed when nothing was measured, bytes.
    pub default_request_bytes: f64,
}

impl Default for PdcParams {
    fn default() -> Self {
        PdcParams {
            rb_bytes: 256 * 1024,
            period_s: 3600.0,
            load_cap: 0.8,
            max_moves_per_period: None,
            move_share: 0.05,
            ld_window_s: 60.0,
            ld_threshold: 0.8,
            average_seek_s: 3.4e-3,
            default_request_bytes: 8192.0,
        }
    }
}

/// A planned swap: `x` (a hot RB, now on disk `x_disk`) and `y` (on `y_disk`) exchange
/// places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Swap {
    x: u32,
    y: u32,
    x_disk: u32,
    y_disk: u32,
}

/// A swap handed to the executor: the RBs and the places they had then.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    x: u32,
    y: u32,
    px: u32,
    py: u32,
}

/// Counts for the report.
#[derive(Clone, Debug, Default, Serialize)]
struct PdcStats {
    periods: u64,
    swaps_planned: u64,
    swaps_started: u64,
    swaps_done: u64,
    /// Planned swaps still waiting when the next period began.
    swaps_dropped_new_period: u64,
    /// Swaps whose RBs were no longer where the plan had them.
    swaps_dropped_stale: u64,
    /// Periods whose plan stopped at the swap limit.
    periods_at_move_limit: u64,
    hot_rbs_last_period: u64,
    /// Disks the last period's hot RBs were assigned to.
    hot_disks_last_period: u64,
    /// The last period's per-disk load cap, operations/s.
    load_cap_ops_s: f64,
    ld_checks: u64,
    ld_speed_commands: u64,
}

/// PDC with LD; see the module documentation.
#[derive(Clone, Debug)]
pub struct PdcLd {
    p: PdcParams,
    rb_bytes: u64,
    disks: usize,
    slots: u32,
    speeds: Vec<SpeedInfo>,
    /// RB → place (`disk * slots + slot`).
    fwd: Vec<u32>,
    /// Place → RB.
    inv: Vec<u32>,
    /// Accesses per RB in the current period.
    counts: HashMap<u32, u32>,
    /// Host-side disk operations and bytes this period (swaps taken out).
    period_ops: u64,
    period_bytes: u64,
    period_swaps_done: u64,
    period_start_ns: u64,
    queue: VecDeque<Swap>,
    in_flight: HashMap<u64, InFlight>,
    busy: HashSet<u32>,
    next_id: u64,
    levels: Vec<usize>,
    tick_ns: u64,
    next_tick_ns: u64,
    last_tick_ns: u64,
    ticks_per_period: u64,
    ticks_in_period: u64,
    stats: PdcStats,
    notes: Vec<String>,
}

impl PdcLd {
    pub fn new(p: PdcParams) -> PdcLd {
        let tick_s = p.ld_window_s.min(p.period_s).max(1e-3);
        let tick_ns = (tick_s * 1e9).round() as u64;
        let ticks_per_period = ((p.period_s / tick_s).round() as u64).max(1);
        PdcLd {
            p,
            rb_bytes: p.rb_bytes.max(512),
            disks: 0,
            slots: 0,
            speeds: Vec::new(),
            fwd: Vec::new(),
            inv: Vec::new(),
            counts: HashMap::new(),
            period_ops: 0,
            period_bytes: 0,
            period_swaps_done: 0,
            period_start_ns: 0,
            queue: VecDeque::new(),
            in_flight: HashMap::new(),
            busy: HashSet::new(),
            next_id: 0,
            levels: Vec::new(),
            tick_ns,
            next_tick_ns: tick_ns,
            last_tick_ns: 0,
            ticks_per_period,
            ticks_in_period: 0,
            stats: PdcStats::default(),
            notes: Vec::new(),
        }
    }

    pub fn params(&self) -> &PdcParams {
        &self.p
    }

    /// Relocation blocks per disk.
    pub fn slots_per_disk(&self) -> u32 {
        self.slots
    }

    /// Swaps planned and not yet handed out.
    pub fn queued_moves(&self) -> usize {
        self.queue.len()
    }

    fn disk_of(&self, place: u32) -> u32 {
        place / self.slots.max(1)
    }

    fn location(&self, place: u32) -> Location {
        let slots = self.slots.max(1);
        Location { disk: place / slots, offset_bytes: u64::from(place % slots) * self.rb_bytes }
    }

    fn top(&self) -> usize {
        self.speeds.len().saturating_sub(1)
    }

    /// Mean service time at full speed of a request of `bytes`, s.
    fn top_service_s(&self, bytes: f64) -> f64 {
        let Some(top) = self.speeds.last() else { return f64::INFINITY };
        moments_at(&DiskCounters::default(), top, top, self.p.average_seek_s, bytes).0
    }

    /// The speed level LD picks for a disk that did `c` over `window_s` at level `level`.
    fn ld_level(&self, c: &DiskCounters, level: usize, window_s: f64) -> usize {
        let (Some(low), Some(at)) = (self.speeds.first(), self.speeds.get(level).or(self.speeds.last())) else { return 0 };
        let load = c.ops as f64 / window_s;
        let (mean, _) = moments_at(c, at, low, self.p.average_seek_s, self.p.default_request_bytes);
        let low_capacity = if mean > 0.0 { 1.0 / mean } else { f64::INFINITY };
        if load < self.p.ld_threshold * low_capacity {
            0
        } else {
            self.top()
        }
    }

    /// The end of a period: plan the next layout from the period's counts.
    fn plan_period(&mut self, now_ns: u64) -> bool {
        let elapsed_s = (now_ns.saturating_sub(self.period_start_ns) as f64 / 1e9).max(1e-9);
        self.period_start_ns = now_ns;
        self.stats.periods += 1;
        self.stats.swaps_dropped_new_period += self.queue.len() as u64;
        self.queue.clear();
        let counts = std::mem::take(&mut self.counts);
        let swap_ops = 4 * self.period_swaps_done;
        let ops = self.period_ops.saturating_sub(swap_ops);
        let bytes = self.period_bytes.saturating_sub(swap_ops * self.rb_bytes);
        let mean_bytes = if ops > 0 { bytes as f64 / ops as f64 } else { self.p.default_request_bytes };
        (self.period_ops, self.period_bytes, self.period_swaps_done) = (0, 0, 0);
        if self.disks == 0 || self.slots == 0 {
            return false;
        }
        let mut hot: Vec<(u32, u32)> = counts.into_iter().collect();
        hot.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let cap = self.p.load_cap * (1.0 / self.top_service_s(mean_bytes));
        let targets = assign_targets(&hot, elapsed_s, cap, self.disks, self.slots);
        self.stats.hot_rbs_last_period = hot.len() as u64;
        self.stats.hot_disks_last_period = targets.iter().collect::<HashSet<_>>().len() as u64;
        self.stats.load_cap_ops_s = cap;
        let target: HashMap<u32, u32> = hot.iter().zip(&targets).map(|(&(rb, _), &d)| (rb, d)).collect();
        let limit = self.move_limit();
        let order: Vec<u32> = hot.iter().take(targets.len()).map(|&(rb, _)| rb).collect();
        let (swaps, at_limit) = self.plan_swaps(&order, &target, limit);
        self.stats.swaps_planned += swaps.len() as u64;
        self.stats.periods_at_move_limit += u64::from(at_limit);
        self.queue = swaps.into();
        !self.queue.is_empty()
    }

    /// Swaps allowed this period.
    fn move_limit(&self) -> u64 {
        if let Some(m) = self.p.max_moves_per_period {
            return m;
        }
        // Each disk of a swap reads one RB and writes one.
        let per_disk_s = 2.0 * self.top_service_s(self.rb_bytes as f64);
        if !(per_disk_s.is_finite() && per_disk_s > 0.0) {
            return 0;
        }
        (self.p.move_share.max(0.0) * self.p.period_s / per_disk_s).floor() as u64
    }

    /// Swaps that bring the RBs of `order` (hottest first) to their `target` disks, at
    /// most `limit` of them; also whether the limit stopped the plan. Planned on the
    /// layout as it will be once the swaps in flight are done.
    fn plan_swaps(&self, order: &[u32], target: &HashMap<u32, u32>, limit: u64) -> (Vec<Swap>, bool) {
        let slots = self.slots;
        let mut plan = Overlay { fwd: &self.fwd, inv: &self.inv, fwd_new: HashMap::new(), inv_new: HashMap::new() };
        for f in self.in_flight.values() {
            plan.set(f.x, f.py);
            plan.set(f.y, f.px);
        }
        let disk = |place: u32| place / slots;
        // Hot RBs off their target disk, by (disk they are on, target), and by disk.
        let mut by_pair: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        let mut by_disk: HashMap<u32, Vec<u32>> = HashMap::new();
        for &rb in order.iter().rev() {
            let (on, to) = (disk(plan.place(rb)), target[&rb]);
            if on != to {
                by_pair.entry((on, to)).or_default().push(rb);
                by_disk.entry(on).or_default().push(rb);
            }
        }
        // Unaccessed RBs: a cursor over each disk's slots, and places one arrived at.
        let mut cold_cursor = vec![0u32; self.disks];
        let mut cold_extra: Vec<Vec<u32>> = vec![Vec::new(); self.disks];
        let mut work: VecDeque<u32> = order.iter().copied().collect();
        let mut swaps = Vec::new();
        while let Some(x) = work.pop_front() {
            let px = plan.place(x);
            let (a, t) = (disk(px), target[&x]);
            if a == t {
                continue;
            }
            if swaps.len() as u64 >= limit {
                return (swaps, true);
            }
            let perfect = pop_valid(by_pair.get_mut(&(t, a)), |y| disk(plan.place(y)) == t && target.get(&y) == Some(&a));
            let y = perfect.or_else(|| {
                let ti = t as usize;
                while let Some(place) = cold_extra[ti].pop() {
                    let y = plan.rb_at(place);
                    if !target.contains_key(&y) {
                        return Some(y);
                    }
                }
                while cold_cursor[ti] < slots {
                    let place = t * slots + cold_cursor[ti];
                    cold_cursor[ti] += 1;
                    let y = plan.rb_at(place);
                    if !target.contains_key(&y) {
                        return Some(y);
                    }
                }
                None
            });
            let y = y.or_else(|| pop_valid(by_disk.get_mut(&t), |y| disk(plan.place(y)) == t && target.get(&y).is_some_and(|&g| g != t)));
            let Some(y) = y else {
                // Cannot happen while no disk is assigned more hot RBs than it has slots.
                continue;
            };
            let py = plan.place(y);
            plan.set(x, py);
            plan.set(y, px);
            swaps.push(Swap { x, y, x_disk: a, y_disk: t });
            match target.get(&y) {
                None => cold_extra[a as usize].push(px),
                Some(&g) if g != a => {
                    by_pair.entry((a, g)).or_default().push(y);
                    by_disk.entry(a).or_default().push(y);
                    work.push_back(y);
                }
                Some(_) => {}
            }
        }
        (swaps, false)
    }

    #[cfg(test)]
    fn check_consistent(&self) -> bool {
        self.fwd.iter().enumerate().all(|(rb, &place)| self.inv.get(place as usize) == Some(&(rb as u32)))
    }
}

/// Pop entries off `list` until one passes `valid`.
fn pop_valid(list: Option<&mut Vec<u32>>, valid: impl Fn(u32) -> bool) -> Option<u32> {
    let list = list?;
    while let Some(y) = list.pop() {
        if valid(y) {
            return Some(y);
        }
    }
    None
}

/// The layout with planned changes on top.
struct Overlay<'a> {
    fwd: &'a [u32],
    inv: &'a [u32],
    fwd_new: HashMap<u32, u32>,
    inv_new: HashMap<u32, u32>,
}

impl Overlay<'_> {
    fn place(&self, rb: u32) -> u32 {
        self.fwd_new.get(&rb).copied().unwrap_or(self.fwd[rb as usize])
    }
    fn rb_at(&self, place: u32) -> u32 {
        self.inv_new.get(&place).copied().unwrap_or(self.inv[place as usize])
    }
    fn set(&mut self, rb: u32, place: u32) {
        self.fwd_new.insert(rb, place);
        self.inv_new.insert(place, rb);
    }
}

/// PDC's target disk for each of `hot` ((RB, accesses), most accessed first): fill disk 0
/// until it has no free slot or the next RB would take its load (accesses / `elapsed_s`)
/// past `cap_ops_s`, then disk 1, and so on; the last disk takes the rest. A disk always
/// takes at least one RB, however hot.
fn assign_targets(hot: &[(u32, u32)], elapsed_s: f64, cap_ops_s: f64, disks: usize, slots: u32) -> Vec<u32> {
    let mut used = vec![0u32; disks];
    let mut load = vec![0.0f64; disks];
    let mut d = 0usize;
    let mut out = Vec::with_capacity(hot.len());
    for &(_, count) in hot {
        let rate = f64::from(count) / elapsed_s;
        while d + 1 < disks && (used[d] >= slots || (used[d] > 0 && load[d] + rate > cap_ops_s)) {
            d += 1;
        }
        let k = if used[d] < slots {
            d
        } else {
            match (0..disks).find(|&k| used[k] < slots) {
                Some(k) => k,
                None => break,
            }
        };
        used[k] += 1;
        load[k] += rate;
        out.push(k as u32);
    }
    out
}

impl Scheme for PdcLd {
    fn name(&self) -> String {
        "pdc-ld".into()
    }

    fn start(&mut self, setup: &ArraySetup, _out: &mut Vec<Command>) {
        self.speeds = setup.speeds.clone();
        self.disks = setup.disks;
        if setup.average_seek_s > 0.0 {
            self.p.average_seek_s = setup.average_seek_s;
        }
        let mut slots = setup.disk_capacity_bytes / self.rb_bytes;
        let most = u64::from(u32::MAX) / (setup.disks.max(1) as u64);
        if slots > most {
            self.notes.push(format!("layout limited to {most} relocation blocks per disk (of {slots}): RB numbers are 32-bit"));
            slots = most;
        }
        self.slots = slots as u32;
        let total = setup.disks as u64 * slots;
        let n = setup.disks as u64;
        self.fwd = (0..total).map(|i| ((i % n) * slots + i / n) as u32).collect();
        self.inv = vec![0; total as usize];
        for (rb, &place) in self.fwd.iter().enumerate() {
            self.inv[place as usize] = rb as u32;
        }
        self.levels = vec![self.top(); setup.disks];
        self.notes.push("PDC keeps one copy of each relocation block and no parity, as published".into());
        if self.speeds.len() < 2 {
            self.notes.push("single-speed disks: LD has no speed to choose, only PDC acts".into());
        }
    }

    fn next_tick_ns(&self) -> Option<u64> {
        Some(self.next_tick_ns)
    }

    fn tick(&mut self, view: &ArrayView, out: &mut Vec<Command>) {
        let now = view.now_ns;
        let window_s = now.saturating_sub(self.last_tick_ns) as f64 / 1e9;
        self.last_tick_ns = now;
        self.next_tick_ns = now + self.tick_ns;
        for c in view.since_tick.iter().take(self.disks) {
            self.period_ops += c.ops;
            self.period_bytes += c.bytes;
        }
        if self.speeds.len() >= 2 && window_s > 0.0 {
            self.stats.ld_checks += 1;
            for disk in 0..self.disks.min(view.since_tick.len()) {
                let measured_at = view.status.get(disk).map_or(self.levels[disk], |s| s.level);
                let level = self.ld_level(&view.since_tick[disk], measured_at, window_s);
                if level != self.levels[disk] {
                    self.levels[disk] = level;
                    self.stats.ld_speed_commands += 1;
                    out.push(Command::SetSpeed { disk, level });
                }
            }
        }
        self.ticks_in_period += 1;
        if self.ticks_in_period >= self.ticks_per_period {
            self.ticks_in_period = 0;
            if self.plan_period(now) {
                out.push(Command::Reorganise);
            }
        }
    }

    fn planned_levels(&self) -> Option<Vec<usize>> {
        Some(self.levels.clone())
    }

    fn placement(&mut self) -> Option<&mut dyn Placement> {
        Some(self)
    }

    fn report(&self) -> SchemeReport {
        let s = &self.stats;
        let mut notes = self.notes.clone();
        notes.push(format!(
            "{} periods; swaps: {} planned, {} done, {} dropped at a new period, {} stale; {} periods hit the swap limit",
            s.periods, s.swaps_planned, s.swaps_done, s.swaps_dropped_new_period, s.swaps_dropped_stale, s.periods_at_move_limit
        ));
        if self.speeds.len() >= 2 {
            notes.push(format!("LD: {} checks, {} speed commands", s.ld_checks, s.ld_speed_commands));
        }
        SchemeReport { decisions: s.ld_checks + s.periods, notes, ..SchemeReport::default() }
    }
}

impl Placement for PdcLd {
    fn rb_bytes(&self) -> u64 {
        self.rb_bytes
    }

    fn capacity_bytes(&self) -> u64 {
        self.fwd.len() as u64 * self.rb_bytes
    }

    fn locate(&self, rb: u64) -> Option<(Location, Option<Location>)> {
        let place = *self.fwd.get(usize::try_from(rb).ok()?)?;
        Some((self.location(place), None))
    }

    fn record_access(&mut self, rb: u64, _write: bool, _now_ns: u64) {
        if rb < self.fwd.len() as u64 {
            let c = self.counts.entry(rb as u32).or_insert(0);
            *c = c.saturating_add(1);
        }
    }

    fn next_move(&mut self, _now_ns: u64, idle: &dyn Fn(u32) -> bool) -> Option<Move> {
        // Swaps touching an RB of a swap passed over wait too, so each RB's swaps run in
        // the order planned.
        let mut blocked: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < self.queue.len().min(LOOKAHEAD) {
            let s = self.queue[i];
            // Busy disks first: the cheap test that most often holds a swap back.
            if !idle(s.x_disk) || !idle(s.y_disk) || blocked.contains(&s.x) || blocked.contains(&s.y) || self.busy.contains(&s.x) || self.busy.contains(&s.y) {
                blocked.extend([s.x, s.y]);
                i += 1;
                continue;
            }
            let (px, py) = (self.fwd[s.x as usize], self.fwd[s.y as usize]);
            let (dx, dy) = (self.disk_of(px), self.disk_of(py));
            if dx != s.x_disk || dy != s.y_disk || dx == dy {
                self.queue.remove(i);
                self.stats.swaps_dropped_stale += 1;
                continue;
            }
            self.queue.remove(i);
            let id = self.next_id;
            self.next_id += 1;
            self.in_flight.insert(id, InFlight { x: s.x, y: s.y, px, py });
            self.busy.extend([s.x, s.y]);
            self.stats.swaps_started += 1;
            let (lx, ly) = (self.location(px), self.location(py));
            let len_bytes = self.rb_bytes;
            let ops = vec![
                MoveOp { at: lx, len_bytes, write: false },
                MoveOp { at: ly, len_bytes, write: false },
                MoveOp { at: ly, len_bytes, write: true },
                MoveOp { at: lx, len_bytes, write: true },
            ];
            return Some(Move { id, ops, yielding: false });
        }
        None
    }

    fn move_done(&mut self, id: u64, _now_ns: u64) {
        let Some(f) = self.in_flight.remove(&id) else { return };
        self.fwd[f.x as usize] = f.py;
        self.fwd[f.y as usize] = f.px;
        self.inv[f.py as usize] = f.x;
        self.inv[f.px as usize] = f.y;
        self.busy.remove(&f.x);
        self.busy.remove(&f.y);
        self.stats.swaps_done += 1;
        self.period_swaps_done += 1;
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rb_bytes": self.rb_bytes,
            "slots_per_disk": self.slots,
            "parity": false,
            "stats": self.stats,
            "levels": self.levels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::{DiskStatus, Transition};
    use proptest::prelude::*;

    const RB: u64 = 256 * 1024;

    fn speed(rpm: u32, mb_s: f64) -> SpeedInfo {
        SpeedInfo { rpm, active_w: 13.5, seek_w: 13.5, idle_w: 10.2, media_bytes_per_s: mb_s * 1e6 }
    }

    /// `disks` disks of `slots` RBs, two speeds (Table 2's 3,000 and 15,000 rpm) or one.
    fn setup(disks: usize, slots: u64, two_speeds: bool) -> ArraySetup {
        let speeds = if two_speeds { vec![speed(3_000, 16.0), speed(15_000, 80.0)] } else { vec![speed(15_000, 80.0)] };
        ArraySetup { disks, disk_capacity_bytes: slots * RB, speeds, speed_change: Transition { time_s: 12.4, energy_j: 152.0 }, standby: None, average_seek_s: 3.4e-3, r_limit_s: 0.01 }
    }

    fn started(p: PdcParams, s: &ArraySetup) -> PdcLd {
        let mut pdc = PdcLd::new(p);
        let mut out = Vec::new();
        pdc.start(s, &mut out);
        assert!(out.is_empty());
        pdc
    }

    fn tick(pdc: &mut PdcLd, now_ns: u64, status: &[DiskStatus], counters: &[DiskCounters]) -> Vec<Command> {
        let mut out = Vec::new();
        pdc.tick(&ArrayView { now_ns, status, since_tick: counters }, &mut out);
        out
    }

    fn disk_of(pdc: &PdcLd, rb: u64) -> u32 {
        pdc.locate(rb).unwrap().0.disk
    }

    /// Run every queued swap with all disks idle.
    fn drain(pdc: &mut PdcLd) -> Vec<Move> {
        let mut moves = Vec::new();
        while let Some(m) = pdc.next_move(0, &|_| true) {
            pdc.move_done(m.id, 0);
            moves.push(m);
        }
        moves
    }

    #[test]
    fn targets_fill_disk_0_up_to_the_load_cap_then_the_next() {
        // Rates over 3,600 s: 0.1, 0.05, 0.05, 0.02, 0.01 accesses/s; cap 0.16 per disk.
        let hot = [(7, 360), (3, 180), (5, 180), (1, 72), (9, 36)];
        // Disk 0: 0.1 + 0.05 = 0.15 fits, + 0.05 would not; disk 1 takes the rest.
        assert_eq!(assign_targets(&hot, 3600.0, 0.16, 3, 3), vec![0, 0, 1, 1, 1]);
        // Two slots a disk: capacity, not load, moves on to the next disk.
        assert_eq!(assign_targets(&hot, 3600.0, 100.0, 3, 2), vec![0, 0, 1, 1, 2]);
        // A cap so low nothing fits: still one RB per disk, the last disk takes the rest.
        assert_eq!(assign_targets(&hot, 3600.0, 0.001, 3, 3), vec![0, 1, 2, 2, 2]);
        // Every slot hot and the last disk full: the rest goes where there is room.
        let all: Vec<(u32, u32)> = (0..6).map(|i| (i, 100 - i)).collect();
        assert_eq!(assign_targets(&all, 1.0, 150.0, 3, 2), vec![0, 1, 2, 2, 0, 1]);
    }

    #[test]
    fn a_period_concentrates_the_most_accessed_blocks_on_disk_0_up_to_the_load_cap() {
        // 3 disks of 4 RBs, one 100 s period. Full speed, 8 KiB: 3.4 + 2 + 0.1024 ms =
        // 5.5024 ms, 181.74 ops/s, cap 0.8 × that = 145.39 ops/s.
        let p = PdcParams { period_s: 100.0, ld_window_s: 100.0, ..PdcParams::default() };
        let s = setup(3, 4, true);
        let mut pdc = started(p, &s);
        assert_eq!(pdc.slots_per_disk(), 4);
        // RBs 2, 5, 8, 11 start on disk 2 (i mod 3), slots 0..3.
        for rb in [2, 5, 8, 11] {
            assert_eq!(pdc.locate(rb).unwrap().0, Location { disk: 2, offset_bytes: rb / 3 * RB });
        }
        // 100 / s and 40 / s fit on disk 0 (140 ≤ 145.39); + 10 / s would not.
        for (rb, n) in [(5u64, 10_000), (8, 4_000), (2, 1_000), (11, 10)] {
            for _ in 0..n {
                pdc.record_access(rb, false, 0);
            }
        }
        let status = [DiskStatus { level: 1, ..DiskStatus::default() }; 3];
        let out = tick(&mut pdc, 100_000_000_000, &status, &[DiskCounters::default(); 3]);
        assert!((pdc.stats.load_cap_ops_s - 0.8 / 5.5024e-3).abs() < 1e-3, "{}", pdc.stats.load_cap_ops_s);
        assert_eq!(out.last(), Some(&Command::Reorganise));
        assert_eq!(pdc.queued_moves(), 4);
        let moves = drain(&mut pdc);
        assert_eq!(moves.len(), 4);
        assert_eq!([5, 8, 2, 11].map(|rb| disk_of(&pdc, rb)), [0, 0, 1, 1]);
        // The cold RBs that made room went to disk 2, into the places the hot ones left.
        assert_eq!([0, 3, 1, 4].map(|rb| disk_of(&pdc, rb)), [2, 2, 2, 2]);
        assert!(pdc.check_consistent());
        // The next period with the same counts moves nothing.
        for (rb, n) in [(5u64, 10_000), (8, 4_000), (2, 1_000), (11, 10)] {
            for _ in 0..n {
                pdc.record_access(rb, false, 0);
            }
        }
        let out = tick(&mut pdc, 200_000_000_000, &status, &[DiskCounters::default(); 3]);
        assert!(!out.contains(&Command::Reorganise));
        assert_eq!(pdc.queued_moves(), 0);
    }

    #[test]
    fn a_swap_reads_both_blocks_then_writes_each_at_the_others_place() {
        let p = PdcParams { period_s: 1.0, ld_window_s: 1.0, ..PdcParams::default() };
        let mut pdc = started(p, &setup(2, 3, false));
        pdc.record_access(1, false, 0); // disk 1, slot 0
        tick(&mut pdc, 1_000_000_000, &[DiskStatus::default(); 2], &[DiskCounters::default(); 2]);
        // Disk 0 busy: nothing starts.
        assert_eq!(pdc.next_move(0, &|d| d != 0), None);
        let m = pdc.next_move(0, &|_| true).unwrap();
        let (a, b) = (Location { disk: 1, offset_bytes: 0 }, Location { disk: 0, offset_bytes: 0 });
        assert_eq!(m.ops, vec![MoveOp { at: a, len_bytes: RB, write: false }, MoveOp { at: b, len_bytes: RB, write: false }, MoveOp { at: b, len_bytes: RB, write: true }, MoveOp { at: a, len_bytes: RB, write: true }]);
        // Until it is done the layout still points at the old places.
        assert_eq!(pdc.locate(1).unwrap().0, a);
        pdc.move_done(m.id, 0);
        assert_eq!(pdc.locate(1).unwrap().0, b);
        assert_eq!(pdc.locate(0).unwrap().0, a);
        assert_eq!(pdc.locate(6), None);
        assert_eq!(pdc.locate(u64::MAX), None);
    }

    #[test]
    fn stale_moves_are_dropped_at_a_new_period_and_the_limit_holds() {
        let p = PdcParams { period_s: 1.0, ld_window_s: 1.0, max_moves_per_period: Some(2), ..PdcParams::default() };
        let mut pdc = started(p, &setup(3, 4, false));
        for rb in [1, 2, 4, 5, 7] {
            pdc.record_access(rb, false, 0);
        }
        tick(&mut pdc, 1_000_000_000, &[DiskStatus::default(); 3], &[DiskCounters::default(); 3]);
        assert_eq!(pdc.queued_moves(), 2);
        assert_eq!(pdc.stats.periods_at_move_limit, 1);
        tick(&mut pdc, 2_000_000_000, &[DiskStatus::default(); 3], &[DiskCounters::default(); 3]);
        assert_eq!(pdc.queued_moves(), 0);
        assert_eq!(pdc.stats.swaps_dropped_new_period, 2);
        // By default, swaps take 5 % of an hour on one disk: each disk reads and writes
        // one 256 KiB RB a swap, 2 × (3.4 + 2 + 3.2768) ms = 17.3536 ms at full speed;
        // 180 s / 17.3536 ms = 10,372.5.
        let pdc = started(PdcParams::default(), &setup(3, 4, true));
        assert_eq!(pdc.move_limit(), 10_372);
    }

    #[test]
    fn ld_picks_the_low_speed_below_80_percent_of_its_throughput_and_the_top_above() {
        // Low speed, 8 KiB, nothing timed: 3.4 + 10 + 0.512 ms = 13.912 ms, 71.88 ops/s;
        // 80 % of it is 57.50 ops/s, 3,450 operations in a 60 s window.
        let p = PdcParams::default();
        let mut pdc = started(p, &setup(2, 4, true));
        let untimed = |ops: u64| DiskCounters { ops, bytes: ops * 8192, delayed_ops: ops, ..DiskCounters::default() };
        let mut status = [DiskStatus { level: 1, ..DiskStatus::default() }; 2];
        let out = tick(&mut pdc, 60_000_000_000, &status, &[untimed(3_400), untimed(3_500)]);
        assert_eq!(out, vec![Command::SetSpeed { disk: 0, level: 0 }]);
        assert_eq!(pdc.planned_levels(), Some(vec![0, 1]));
        status[0].level = 0;
        let out = tick(&mut pdc, 120_000_000_000, &status, &[untimed(3_500), untimed(3_400)]);
        assert_eq!(out, vec![Command::SetSpeed { disk: 0, level: 1 }, Command::SetSpeed { disk: 1, level: 0 }]);
        // Measured at full speed: 6 ms a request, 8 KiB. The seek part, 6 − 2 − 0.1024 ms,
        // is kept: 14.4096 ms at low speed, 69.40 ops/s, threshold 55.52 ops/s.
        let timed = |ops: u64| DiskCounters { ops, bytes: ops * 8192, service_s: ops as f64 * 0.006, service_sq_s2: ops as f64 * 0.006 * 0.006, ..DiskCounters::default() };
        let status = [DiskStatus { level: 1, ..DiskStatus::default() }; 2];
        let mut pdc = started(p, &setup(2, 4, true));
        let out = tick(&mut pdc, 60_000_000_000, &status, &[timed(3_300), timed(3_340)]);
        assert_eq!(out, vec![Command::SetSpeed { disk: 0, level: 0 }]);
        // Single-speed disks: LD never commands anything.
        let mut pdc = started(p, &setup(2, 4, false));
        let out = tick(&mut pdc, 60_000_000_000, &[DiskStatus::default(); 2], &[untimed(0), untimed(0)]);
        assert!(out.is_empty());
        assert!(Scheme::report(&pdc).notes.iter().any(|n| n.contains("single-speed")));
    }

    #[test]
    fn periods_are_counted_in_ld_windows() {
        let p = PdcParams { period_s: 180.0, ld_window_s: 60.0, ..PdcParams::default() };
        let mut pdc = started(p, &setup(2, 4, false));
        pdc.record_access(1, false, 0);
        let (st, c) = ([DiskStatus::default(); 2], [DiskCounters::default(); 2]);
        assert_eq!(pdc.next_tick_ns(), Some(60_000_000_000));
        assert!(tick(&mut pdc, 60_000_000_000, &st, &c).is_empty());
        assert_eq!(pdc.next_tick_ns(), Some(120_000_000_000));
        assert!(tick(&mut pdc, 120_000_000_000, &st, &c).is_empty());
        assert_eq!(tick(&mut pdc, 180_000_000_000, &st, &c), vec![Command::Reorganise]);
        assert_eq!(pdc.stats.periods, 1);
    }

    #[derive(Clone, Debug)]
    enum Step {
        Access(u64),
        Tick,
        Next(u8),
        Done(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0u64..18).prop_map(Step::Access),
            1 => Just(Step::Tick),
            2 => any::<u8>().prop_map(Step::Next),
            2 => (0usize..8).prop_map(Step::Done),
        ]
    }

    proptest! {
        #[test]
        fn a_plan_run_to_the_end_puts_every_accessed_block_on_its_target(counts in proptest::collection::vec(0u32..400, 15), cap_share in 0.001f64..1.0) {
            // (A 1 s period would allow only two swaps by `move_share`.)
            let p = PdcParams { period_s: 1.0, ld_window_s: 1.0, load_cap: cap_share, max_moves_per_period: Some(1_000), ..PdcParams::default() };
            let mut pdc = started(p, &setup(3, 5, true));
            for (rb, &n) in counts.iter().enumerate() {
                for _ in 0..n {
                    pdc.record_access(rb as u64, false, 0);
                }
            }
            let off_target_before = {
                let mut hot: Vec<(u32, u32)> = counts.iter().enumerate().filter(|(_, &n)| n > 0).map(|(rb, &n)| (rb as u32, n)).collect();
                hot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                hot
            };
            tick(&mut pdc, 1_000_000_000, &[DiskStatus::default(); 3], &[DiskCounters::default(); 3]);
            let targets = assign_targets(&off_target_before, 1.0, pdc.stats.load_cap_ops_s, 3, 5);
            let misplaced = off_target_before.iter().zip(&targets).filter(|(&(rb, _), &t)| disk_of(&pdc, u64::from(rb)) != t).count();
            let moves = drain(&mut pdc);
            // Every swap brings at least one block home.
            prop_assert!(moves.len() <= misplaced, "{} swaps for {} misplaced blocks", moves.len(), misplaced);
            for (&(rb, _), &t) in off_target_before.iter().zip(&targets) {
                prop_assert_eq!(disk_of(&pdc, u64::from(rb)), t, "RB {}", rb);
            }
            prop_assert!(pdc.check_consistent());
        }

        #[test]
        fn every_block_is_always_at_exactly_one_place(limit in proptest::option::of(0u64..6), steps in proptest::collection::vec(step(), 1..300)) {
            let p = PdcParams { period_s: 1.0, ld_window_s: 1.0, max_moves_per_period: limit, ..PdcParams::default() };
            let disks = 3;
            let mut pdc = started(p, &setup(disks, 5, true));
            let mut now = 0u64;
            let mut started_moves: Vec<u64> = Vec::new();
            let status = [DiskStatus::default(); 3];
            let counters = [DiskCounters::default(); 3];
            for s in steps {
                match s {
                    Step::Access(rb) => pdc.record_access(rb, rb % 2 == 0, now),
                    Step::Tick => {
                        now += 1_000_000_000;
                        tick(&mut pdc, now, &status, &counters);
                    }
                    Step::Next(mask) => {
                        if let Some(m) = pdc.next_move(now, &|d| mask & (1 << d) != 0) {
                            // A swap: two reads on two idle disks, then the two writes exchanged.
                            prop_assert_eq!(m.ops.len(), 4);
                            prop_assert!(!m.ops[0].write && !m.ops[1].write && m.ops[2].write && m.ops[3].write);
                            prop_assert_eq!(m.ops[2].at, m.ops[1].at);
                            prop_assert_eq!(m.ops[3].at, m.ops[0].at);
                            prop_assert!(m.ops[0].at.disk != m.ops[1].at.disk);
                            prop_assert!(m.disks().all(|d| mask & (1 << d) != 0));
                            started_moves.push(m.id);
                        }
                    }
                    Step::Done(i) => {
                        if !started_moves.is_empty() {
                            let id = started_moves.remove(i % started_moves.len());
                            pdc.move_done(id, now);
                        }
                    }
                }
                prop_assert!(pdc.check_consistent());
                let mut places = std::collections::HashSet::new();
                for rb in 0..15 {
                    let (l, parity) = pdc.locate(rb).unwrap();
                    prop_assert!(parity.is_none());
                    prop_assert!((l.disk as usize) < disks && l.offset_bytes < 5 * RB && l.offset_bytes % RB == 0);
                    prop_assert!(places.insert((l.disk, l.offset_bytes)));
                }
                prop_assert_eq!(pdc.locate(15), None);
            }
            // Finish what is under way, then whatever the last plan still holds.
            for id in started_moves {
                pdc.move_done(id, now);
            }
            drain(&mut pdc);
            prop_assert!(pdc.check_consistent());
        }
    }
}
