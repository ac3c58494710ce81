//! Runs that repeat a cycle — a replica whose data disks sleep, wake, apply a window of log
//! and sleep again — measured over whole cycles. Batches of a fixed number of requests cut
//! such a run across its phases (a batch in the sleep draws a few watts, one in the apply
//! the full power), so their means swing with the phase and say little; a whole cycle is
//! the unit that repeats. Each cycle is one observation of (energy, time), and the power
//! over the window is the regenerative ratio estimator ΣE/ΣT, with its 95 % interval from
//! the cycles' spread (`docs/measurement.md`).
//!
//! Two cycles alike end the warm-up, but a level that moves slowly (a replica whose apply
//! speeds up as its batches grow) passes that test long before it stops moving. So the
//! window is checked for drift as it grows: while the trend of the cycles' power or length
//! moves the level across the window by more than the target share, and by more than its
//! own 95 % interval, the window's earlier half joins the warm-up.

use crate::stats::{t_975, Interval};
use serde::{Deserialize, Serialize};
use tierlab_engine::{Batch, Controller, Decision, Observer};

/// How a cyclic run is measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CycleProtocol {
    /// Host completions per engine batch: how finely cycle boundaries are placed.
    pub batch_requests: u64,
    /// The warm-up lasts at least this long (what settles outside the cycles, such as a
    /// primary's buffer pool), s.
    pub min_warmup_s: f64,
    /// A run with no cycles of its own (a replica applying at once) is cut into cycles of
    /// this length, s: batch means over time.
    pub period_s: f64,
    /// The warm-up is over once the last two whole cycles agree within this share, in
    /// length and in power.
    pub settle_tolerance: f64,
    /// A run is long enough once the power's 95 % interval is within this share of its
    /// mean, and its trend moves the level across it by no more than this share…
    pub target_relative_half_width: f64,
    /// …over at least this many whole cycles.
    pub min_cycles: usize,
    /// A warm-up not over by this time ends there, and the result says it never settled, s.
    pub max_warmup_s: f64,
}

impl Default for CycleProtocol {
    fn default() -> Self {
        CycleProtocol {
            batch_requests: 100,
            min_warmup_s: 600.0,
            period_s: 60.0,
            settle_tolerance: 0.10,
            target_relative_half_width: 0.05,
            min_cycles: 5,
            max_warmup_s: f64::INFINITY,
        }
    }
}

impl CycleProtocol {
    /// Checks every field; the error names it and what was expected.
    pub fn validate(&self) -> Result<(), String> {
        let bad = |field: &str, expected: &str| Err(format!("measurement `{field}`: expected {expected}"));
        if self.batch_requests == 0 {
            return bad("batch_requests", "at least 1");
        }
        if !(self.min_warmup_s.is_finite() && self.min_warmup_s >= 0.0) {
            return bad("min_warmup_s", "0 or more seconds");
        }
        if !(self.period_s.is_finite() && self.period_s > 0.0) {
            return bad("period_s", "a positive number of seconds");
        }
        if !(self.settle_tolerance.is_finite() && self.settle_tolerance > 0.0) {
            return bad("settle_tolerance", "a positive share");
        }
        if !(self.target_relative_half_width.is_finite() && self.target_relative_half_width > 0.0) {
            return bad("target_relative_half_width", "a positive share");
        }
        if self.min_cycles < 2 {
            return bad("min_cycles", "at least 2");
        }
        if self.max_warmup_s.is_nan() || self.max_warmup_s < self.min_warmup_s {
            return bad("max_warmup_s", "at least min_warmup_s");
        }
        Ok(())
    }
}

/// One whole cycle: its time span, per device energy and busy time, and how much each of
/// the study's counters grew in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Cycle {
    pub start_ns: u64,
    pub end_ns: u64,
    pub energy_j: Vec<f64>,
    pub busy_ns: Vec<u64>,
    pub completed: u64,
    pub counters: Vec<f64>,
}

impl Cycle {
    pub fn seconds(&self) -> f64 {
        (self.end_ns - self.start_ns) as f64 / 1e9
    }

    fn power_w(&self) -> f64 {
        let s = self.seconds();
        if s > 0.0 {
            self.energy_j.iter().sum::<f64>() / s
        } else {
            0.0
        }
    }

    fn add(&mut self, b: &Batch) {
        if self.energy_j.is_empty() {
            self.start_ns = b.start_ns;
            self.energy_j = vec![0.0; b.devices.len()];
            self.busy_ns = vec![0; b.devices.len()];
        }
        self.end_ns = b.end_ns;
        self.completed += b.completed;
        for (i, d) in b.devices.iter().enumerate() {
            self.energy_j[i] += d.energy_j;
            self.busy_ns[i] += d.busy_ns;
        }
    }
}

/// Why a cyclic run stopped, and what its window holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CycleSummary {
    /// Virtual time before the window, s.
    pub warmup_s: f64,
    /// Whether the warm-up ended by the rules (false: `max_warmup_s` or the run's end did).
    pub settled: bool,
    /// Whether the power's interval reached the target (false: the source ended first).
    pub precise: bool,
    /// Whole cycles in the window, and their time, s.
    pub cycles: usize,
    pub window_s: f64,
    /// Whether the cycles are the study's own (false: fixed periods of a run without any).
    pub own_cycles: bool,
    /// Mean cycle length with its interval, s.
    pub cycle_s: Interval,
    /// Power of all devices over the window, with its interval, W.
    pub power_w: Interval,
    /// How much the cycles' power moves across the window by its least-squares trend, as a
    /// share of its mean (0 with fewer than four cycles).
    pub drift: f64,
    /// Whether the window ended still drifting (then `settled` is false too).
    pub drifting: bool,
    /// Times the window's earlier half joined the warm-up because the level still moved.
    pub drift_restarts: usize,
}

/// Where the latest cycle of a study began, read off its controller after each batch
/// (`None` while it has not begun one).
pub type CycleProbe<'a> = Box<dyn FnMut(&dyn Controller) -> Option<u64> + 'a>;

/// The study's cumulative counters (bytes applied, seconds spent applying…), read off its
/// controller at each cycle boundary; each cycle holds how much they grew in it.
pub type CycleCounters<'a> = Box<dyn FnMut(&dyn Controller) -> Vec<f64> + 'a>;

/// The observer of a cyclic run: give it to `Simulation::run_observed`. The warm-up ends,
/// and the window starts, where a cycle starts; the run stops where one ends, once the
/// window is precise. Cycles still open when the source ends are left out of the window;
/// a window left with fewer than two whole cycles takes the last two (the caller's
/// statistics that restarted with the window then cover less than it).
pub struct CycleMeasurement<'a> {
    protocol: CycleProtocol,
    probe: Option<CycleProbe<'a>>,
    counters: Option<CycleCounters<'a>>,
    /// The counters at the last boundary.
    counted: Vec<f64>,
    last_start: Option<u64>,
    open: Cycle,
    cycles: Vec<Cycle>,
    /// Index in `cycles` of the window's first cycle.
    window_from: Option<usize>,
    settled: bool,
    precise: bool,
    drift_restarts: usize,
}

impl<'a> CycleMeasurement<'a> {
    /// `probe` gives the start of the study's latest cycle; without one the run is cut into
    /// cycles of `period_s`. A study with a probe that begins fewer than two whole cycles
    /// (cycles longer than the run, or a replica that never sleeps) has no window: its
    /// summary says so with zero cycles, and its report covers the whole run.
    pub fn new(protocol: &CycleProtocol, probe: Option<CycleProbe<'a>>) -> Self {
        CycleMeasurement { protocol: protocol.clone(), probe, counters: None, counted: Vec::new(), last_start: None, open: Cycle::default(), cycles: Vec::new(), window_from: None, settled: false, precise: false, drift_restarts: 0 }
    }

    /// Also record how much the study's counters grow in each cycle.
    pub fn with_counters(mut self, counters: CycleCounters<'a>) -> Self {
        self.counters = Some(counters);
        self
    }

    fn own_cycles(&self) -> bool {
        self.probe.is_some() && self.last_start.is_some()
    }

    /// The last two whole cycles agree in length and power.
    fn steady(&self) -> bool {
        let n = self.cycles.len();
        if n < 2 {
            return false;
        }
        let (a, b) = (&self.cycles[n - 2], &self.cycles[n - 1]);
        let close = |x: f64, y: f64| (x - y).abs() <= self.protocol.settle_tolerance * x.abs().max(y.abs());
        close(a.seconds(), b.seconds()) && close(a.power_w(), b.power_w())
    }

    fn window(&self) -> &[Cycle] {
        self.window_from.map_or(&[][..], |from| &self.cycles[from..])
    }

    /// How far the level moves across `window`: the least-squares trend of the cycles'
    /// power against time, over the window's span, as a share of the window's power; and
    /// whether the level still moves — the trend of power or of cycle length is above
    /// `tolerance` of its mean over the span and its 95 % interval excludes no trend.
    pub fn drift(window: &[Cycle], tolerance: f64) -> (f64, bool) {
        if window.len() < 4 {
            return (0.0, false);
        }
        let at_s: Vec<f64> = window.iter().map(|c| (c.start_ns + c.end_ns) as f64 / 2e9).collect();
        let span_s = at_s[at_s.len() - 1] - at_s[0];
        let power: Vec<f64> = window.iter().map(Cycle::power_w).collect();
        let length: Vec<f64> = window.iter().map(Cycle::seconds).collect();
        let moves = |ys: &[f64]| -> (f64, bool) {
            let t = crate::stats::trend(&at_s, ys);
            let mean = ys.iter().sum::<f64>() / ys.len() as f64;
            let share = if mean != 0.0 { t.mean * span_s / mean } else { 0.0 };
            (share, share.abs() > tolerance && t.mean.abs() > t.half_width)
        };
        let (share, power_moves) = moves(&power);
        (share, power_moves || moves(&length).1)
    }

    /// The window's power, ΣE/ΣT over whole cycles with the energies `numerator` picks
    /// from each cycle's per-device energies, and its 95 % interval.
    pub fn figure(cycles: &[Cycle], numerator: impl Fn(&[f64]) -> f64) -> Interval {
        ratio_interval(&cycles.iter().map(|c| (numerator(&c.energy_j), c.seconds())).collect::<Vec<_>>())
    }

    /// The window's whole cycles and the summary.
    pub fn finish(self) -> (Vec<Cycle>, CycleSummary) {
        let own_cycles = self.own_cycles();
        let n = self.cycles.len();
        let (from, settled) = match self.window_from {
            // A window that holds fewer than two whole cycles (the run ended soon after the
            // warm-up) takes the last two, which the warm-up rule found alike.
            Some(f) if n - f < 2 => (n.saturating_sub(2), self.settled),
            Some(f) => (f, self.settled),
            // The run ended inside the warm-up: its last whole cycles are the window.
            None => (n.saturating_sub(self.protocol.min_cycles.min(n)), false),
        };
        let window: Vec<Cycle> = self.cycles[from..].to_vec();
        let warmup_s = window.first().map_or(0.0, |c| c.start_ns as f64 / 1e9);
        let (drift, drifting) = Self::drift(&window, self.protocol.target_relative_half_width);
        // A window cut for drift is checked at every wake-up as it grows again: one
        // that ends too short to check (under four cycles) was never found steady.
        let drifting = drifting || (self.drift_restarts > 0 && window.len() < 4);
        let summary = CycleSummary {
            warmup_s,
            settled: settled && !drifting,
            drift,
            drifting,
            drift_restarts: self.drift_restarts,
            precise: self.precise,
            cycles: window.len(),
            window_s: window.iter().map(Cycle::seconds).sum(),
            own_cycles,
            cycle_s: crate::stats::interval(&window.iter().map(Cycle::seconds).collect::<Vec<_>>()),
            power_w: Self::figure(&window, |e| e.iter().sum()),
        };
        (window, summary)
    }
}

/// The ratio estimator ΣE/ΣT over independent cycles (E_i, T_i) and its 95 % interval
/// (the regenerative method: the variance of E_i − R·T_i, by the delta method).
pub fn ratio_interval(cycles: &[(f64, f64)]) -> Interval {
    let n = cycles.len();
    let (e, t): (f64, f64) = cycles.iter().fold((0.0, 0.0), |(e, t), (a, b)| (e + a, t + b));
    if t <= 0.0 {
        return Interval { mean: 0.0, half_width: f64::INFINITY, n };
    }
    let r = e / t;
    if n < 2 {
        return Interval { mean: r, half_width: f64::INFINITY, n };
    }
    let s2 = cycles.iter().map(|(a, b)| (a - r * b).powi(2)).sum::<f64>() / (n - 1) as f64;
    let mean_t = t / n as f64;
    Interval { mean: r, half_width: t_975(n - 1) * s2.sqrt() / (mean_t * (n as f64).sqrt()), n }
}

impl Observer for CycleMeasurement<'_> {
    fn batch_requests(&self) -> u64 {
        self.protocol.batch_requests
    }

    fn on_batch(&mut self, batch: &Batch, controller: &dyn Controller, _measuring: bool) -> Decision {
        self.open.add(batch);
        let now_s = batch.end_ns as f64 / 1e9;
        let (boundary, whole) = match self.probe.as_mut() {
            Some(p) => match p(controller) {
                // The study began a new cycle within this batch. The stretch before its
                // first one is not a whole cycle.
                Some(s) => {
                    let before = self.last_start.replace(s);
                    (before != Some(s), before.is_some())
                }
                None => (false, false),
            },
            None => (self.open.seconds() >= self.protocol.period_s, true),
        };
        if !boundary {
            return Decision::Continue;
        }
        let mut closed = std::mem::take(&mut self.open);
        if let Some(read) = self.counters.as_mut() {
            let now = read(controller);
            closed.counters = now.iter().enumerate().map(|(i, v)| v - self.counted.get(i).copied().unwrap_or(0.0)).collect();
            self.counted = now;
        }
        if whole {
            self.cycles.push(closed);
        }
        match self.window_from {
            None => {
                let warm = now_s >= self.protocol.min_warmup_s;
                if warm && self.steady() {
                    self.settled = true;
                    self.window_from = Some(self.cycles.len());
                    Decision::Measure
                } else if now_s >= self.protocol.max_warmup_s {
                    self.window_from = Some(self.cycles.len());
                    Decision::Measure
                } else {
                    Decision::Continue
                }
            }
            Some(from) => {
                let target = self.protocol.target_relative_half_width;
                if Self::drift(self.window(), target).1 {
                    self.window_from = Some(from + self.window().len() / 2);
                    self.drift_restarts += 1;
                }
                let w = self.window();
                if w.len() >= self.protocol.min_cycles && Self::figure(w, |e| e.iter().sum()).relative() <= target {
                    self.precise = true;
                    Decision::Stop
                } else {
                    Decision::Continue
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use tierlab_engine::{BatchDevice, Direct};

    /// A replica-like run of one device: cycles of 100 s, asleep at 10 W for 80 s, then
    /// 20 s applying at 100 W; the cycle starts when it wakes. Batches of one second.
    /// Returns the decisions and the measurement.
    fn cyclic(protocol: &CycleProtocol, seconds: u64) -> (Vec<(u64, Decision)>, (Vec<Cycle>, CycleSummary)) {
        let start = Cell::new(None);
        let mut m = CycleMeasurement::new(protocol, Some(Box::new(|_: &dyn Controller| start.get())));
        let mut decisions = Vec::new();
        for t in 0..seconds {
            // Wakes at 80 s into every 100 s.
            let phase = t % 100;
            if phase == 80 {
                start.set(Some(t * 1_000_000_000));
            }
            let w = if phase >= 80 { 100.0 } else { 10.0 };
            let b = Batch { start_ns: t * 1_000_000_000, end_ns: (t + 1) * 1_000_000_000, completed: 10, arrived: 10, backlog: 0, response_ns: 0.0, devices: vec![BatchDevice { energy_j: w, ..Default::default() }] };
            let d = m.on_batch(&b, &Direct::default(), false);
            if d != Decision::Continue {
                decisions.push((t, d));
                if d == Decision::Stop {
                    break;
                }
            }
        }
        (decisions, m.finish())
    }

    #[test]
    fn a_cyclic_run_is_measured_over_whole_cycles_from_a_wake_up_to_a_wake_up() {
        let p = CycleProtocol { min_warmup_s: 250.0, ..CycleProtocol::default() };
        let (decisions, (window, s)) = cyclic(&p, 10_000);
        // Boundaries fall in the batch where the device wakes (80, 180, …): the first
        // whole cycle is 80–180, the warm-up needs 250 s and two whole cycles alike.
        assert_eq!(decisions[0], (280, Decision::Measure));
        assert_eq!(decisions[1], (780, Decision::Stop), "identical cycles are precise after min_cycles");
        assert_eq!(window.len(), 5);
        assert!(s.settled && s.precise && s.own_cycles);
        assert!((s.power_w.mean - 28.0).abs() < 1e-9, "{s:?}");
        assert!((s.cycle_s.mean - 100.0).abs() < 1e-9);
        assert_eq!(s.window_s, 500.0);
        assert_eq!(s.warmup_s, 281.0);
    }

    #[test]
    fn a_run_that_ends_soon_after_its_warm_up_is_measured_over_its_last_two_cycles() {
        let p = CycleProtocol { min_warmup_s: 250.0, ..CycleProtocol::default() };
        let (decisions, (window, s)) = cyclic(&p, 350);
        assert_eq!(decisions, [(280, Decision::Measure)]);
        assert_eq!(window.len(), 2);
        assert_eq!((s.warmup_s, s.window_s), (81.0, 200.0));
        assert!(!s.precise && (s.power_w.mean - 28.0).abs() < 1e-9, "{s:?}");
    }

    #[test]
    fn a_run_without_cycles_of_its_own_is_cut_into_periods() {
        let p = CycleProtocol { min_warmup_s: 0.0, period_s: 50.0, ..CycleProtocol::default() };
        let mut m = CycleMeasurement::new(&p, None);
        for t in 0..1_000u64 {
            let b = Batch { start_ns: t * 1_000_000_000, end_ns: (t + 1) * 1_000_000_000, completed: 1, arrived: 1, backlog: 0, response_ns: 0.0, devices: vec![BatchDevice { energy_j: 7.0, ..Default::default() }] };
            if m.on_batch(&b, &Direct::default(), false) == Decision::Stop {
                break;
            }
        }
        let (window, s) = m.finish();
        assert!(!s.own_cycles && s.precise);
        assert!(window.iter().all(|c| c.seconds() == 50.0));
        assert!((s.power_w.mean - 7.0).abs() < 1e-12 && s.power_w.half_width == 0.0);
    }

    #[test]
    fn the_ratio_interval_is_the_regenerative_one() {
        // E = 2T exactly: no spread around the ratio.
        let exact = ratio_interval(&[(2.0, 1.0), (4.0, 2.0), (6.0, 3.0)]);
        assert_eq!((exact.mean, exact.half_width, exact.n), (2.0, 0.0, 3));
        // Residuals E − R·T of ±1 around R = 2 over T = 1, 1.
        let spread = ratio_interval(&[(1.0, 1.0), (3.0, 1.0)]);
        assert_eq!(spread.mean, 2.0);
        let expected = t_975(1) * 2f64.sqrt() / 2f64.sqrt();
        assert!((spread.half_width - expected).abs() < 1e-12, "{spread:?}");
        assert!(ratio_interval(&[(1.0, 1.0)]).half_width.is_infinite());
    }

    /// Cycles of `sleep(k)` s asleep at 10 W then 20 s applying at 100 W, the cycle starting
    /// when the device wakes; batches of one second; a counter that grows by 3 a second
    /// while applying. Stops where the measurement says or after `seconds`.
    fn growing(protocol: &CycleProtocol, seconds: u64, sleep: impl Fn(u64) -> u64) -> (Option<u64>, (Vec<Cycle>, CycleSummary)) {
        let start = Cell::new(None);
        let applied = Cell::new(0.0);
        let mut m = CycleMeasurement::new(protocol, Some(Box::new(|_: &dyn Controller| start.get()))).with_counters(Box::new(|_: &dyn Controller| vec![applied.get()]));
        let (mut k, mut wake_at, mut stopped) = (0, sleep(0), None);
        for t in 0..seconds {
            if t == wake_at {
                start.set(Some(t * 1_000_000_000));
            }
            let applying = t >= wake_at;
            if applying {
                applied.set(applied.get() + 3.0);
            }
            if t + 1 == wake_at + 20 {
                k += 1;
                wake_at = t + 1 + sleep(k);
            }
            let w = if applying { 100.0 } else { 10.0 };
            let b = Batch { start_ns: t * 1_000_000_000, end_ns: (t + 1) * 1_000_000_000, completed: 10, arrived: 10, backlog: 0, response_ns: 0.0, devices: vec![BatchDevice { energy_j: w, ..Default::default() }] };
            if m.on_batch(&b, &Direct::default(), false) == Decision::Stop {
                stopped = Some(t);
                break;
            }
        }
        (stopped, m.finish())
    }

    /// A level that moves slowly passes the two-cycles test at once: cycles that lengthen
    /// by 2 % each for 60 cycles (power falling from 28 W to 17.6 W) must not be measured
    /// during the rise, where five cycles are precise to 5 % and two in a row agree.
    #[test]
    fn a_window_that_still_drifts_is_not_the_steady_state() {
        let p = CycleProtocol { min_warmup_s: 250.0, ..CycleProtocol::default() };
        let sleep = |k: u64| (80.0 * 1.02f64.powi(k.min(60) as i32)).round() as u64;
        let plateau_w = (10.0 * sleep(60) as f64 + 100.0 * 20.0) / (sleep(60) + 20) as f64;
        let (stopped, (window, s)) = growing(&p, 200_000, sleep);
        assert!(stopped.is_some() && s.precise && s.settled && !s.drifting, "{s:?}");
        assert!(s.drift_restarts >= 1, "{s:?}");
        assert!((s.power_w.mean / plateau_w - 1.0).abs() < 0.03, "measured {} W against the plateau's {plateau_w} W: {s:?}", s.power_w.mean);
        assert!(s.drift.abs() < p.target_relative_half_width, "{s:?}");
        // Each cycle's counter is what it applied: 20 s at 3 a second.
        assert!(window.iter().all(|c| c.counters == [60.0]), "{:?}", window.iter().map(|c| &c.counters).collect::<Vec<_>>());
    }

    /// A run that ends while its level still moves says so: not settled, drifting.
    #[test]
    fn a_run_that_ends_still_drifting_is_never_settled() {
        let p = CycleProtocol { min_warmup_s: 250.0, ..CycleProtocol::default() };
        let (stopped, (_, s)) = growing(&p, 8_000, |k| 80 + 8 * k);
        assert_eq!(stopped, None);
        assert!(s.drifting && !s.settled && s.drift_restarts >= 1, "{s:?}");
    }

    /// Periods would measure one phase of a cycle longer than the run (a replica asleep
    /// all along), not the cycle: such a run has no window and says so.
    #[test]
    fn a_study_whose_cycles_are_longer_than_the_run_has_no_window() {
        let p = CycleProtocol { min_warmup_s: 0.0, period_s: 10.0, max_warmup_s: 100.0, ..CycleProtocol::default() };
        let mut m = CycleMeasurement::new(&p, Some(Box::new(|_: &dyn Controller| None)));
        for t in 0..400u64 {
            let b = Batch { start_ns: t * 1_000_000_000, end_ns: (t + 1) * 1_000_000_000, completed: 1, arrived: 1, backlog: 0, response_ns: 0.0, devices: vec![BatchDevice { energy_j: 3.0, ..Default::default() }] };
            if m.on_batch(&b, &Direct::default(), false) == Decision::Stop {
                break;
            }
        }
        let (window, s) = m.finish();
        assert!(window.is_empty() && s.cycles == 0 && !s.settled && !s.precise, "{s:?}");
    }
}
