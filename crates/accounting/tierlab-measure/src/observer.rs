//! The rules that decide, while a run goes on, when its warm-up is over, when it has run
//! long enough, and when it cannot carry its load.

use crate::stats::mser5;
use crate::stats::Interval;
use crate::window::Window;
use serde::{Deserialize, Serialize};
use tierlab_engine::{Batch, Controller, Decision, Observer};

/// How a study measures a run. The defaults are the ones every study uses unless told
/// otherwise (`docs/measurement.md`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Protocol {
    /// Host completions per batch: the unit of every rule below.
    pub batch_requests: u64,
    /// Detect the end of the warm-up from the run itself (otherwise the whole run counts).
    pub detect_warmup: bool,
    /// Batches seen before the warm-up may be judged. After them the run is steady once,
    /// for every tracked figure, MSER-5 cuts its transient well inside the first half of
    /// the batches so far (so the warm-up lasts at least twice the transient).
    pub min_warmup_batches: usize,
    /// A run is long enough when every key figure's 95 % interval is within this share of
    /// its mean…
    pub target_relative_half_width: f64,
    /// …over at least this many measured batches.
    pub min_batches: usize,
    /// The run takes at most this many requests (warm-up included). A warm-up not over by
    /// half of them ends there, and the result says it never settled.
    pub max_requests: u64,
    /// The run takes at least this many requests (a workload's own length).
    pub min_requests: u64,
    /// Stop an open-loop run whose backlog grows with its arrivals, as one that cannot
    /// carry its load. A study that knows the design's capacity exceeds the load (from a
    /// closed-loop run) turns this off, so that a transient overload during the warm-up
    /// (a cache still filling) is not mistaken for one.
    pub detect_overload: bool,
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol {
            batch_requests: 1_000,
            detect_warmup: true,
            min_warmup_batches: 20,
            target_relative_half_width: 0.05,
            min_batches: 20,
            max_requests: 400_000,
            min_requests: 0,
            detect_overload: true,
        }
    }
}

impl Protocol {
    /// Checks every field; the error names it and what was expected.
    pub fn validate(&self) -> Result<(), String> {
        let bad = |field: &str, expected: &str| Err(format!("measurement `{field}`: expected {expected}"));
        if self.batch_requests == 0 {
            return bad("batch_requests", "at least 1");
        }
        if self.min_warmup_batches < 20 {
            return bad("min_warmup_batches", "at least 20 (MSER-5 needs four groups of five)");
        }
        if !(self.target_relative_half_width.is_finite() && self.target_relative_half_width > 0.0) {
            return bad("target_relative_half_width", "a positive share");
        }
        if self.min_batches < 2 {
            return bad("min_batches", "at least 2");
        }
        if self.max_requests < self.batch_requests.saturating_mul(self.min_batches as u64) {
            return bad("max_requests", "room for at least min_batches batches");
        }
        Ok(())
    }
}

/// Why a run stopped taking requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// Every key figure reached the target interval.
    Precise,
    /// The request limit came first: the intervals may be wider than the target.
    Limit,
    /// The source ran out first (a trace played to its end).
    SourceEnd,
    /// The design cannot carry the offered load: its backlog grew with the arrivals.
    Unsustainable,
}

/// What a measured run amounts to, besides its batches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// Batches before the measured window.
    pub warmup_batches: usize,
    /// Whether the steady-state rule ended the warm-up (false: the limit or the source's
    /// end did, and the window starts where MSER-5 cuts the transient).
    pub settled: bool,
    pub stop: Stop,
    /// The study's counters, per batch (deltas).
    pub counters: Vec<Vec<f64>>,
}

/// Cumulative counters a study reads off its controller after each batch (a policy's
/// hits and accesses, its moves). The observer keeps their per-batch differences, and
/// treats each per request as a figure that must settle.
pub type CounterProbe<'a> = Box<dyn FnMut(&dyn Controller) -> Vec<f64> + 'a>;

/// A study's own condition for the end of the warm-up, read off its controller after each
/// batch (a disk array's tiers unchanged for two epochs): the warm-up ends only once it
/// holds and the layer's own rules do.
pub type SettledProbe<'a> = Box<dyn FnMut(&dyn Controller) -> bool + 'a>;

/// The measurement layer's [`Observer`]: give it to `Simulation::run_observed`.
pub struct Measurement<'a> {
    protocol: Protocol,
    closed_loop: bool,
    probe: Option<CounterProbe<'a>>,
    settled_probe: Option<SettledProbe<'a>>,
    last_counters: Vec<f64>,
    /// Per batch: the tracked figures (the primary one, power, counters per request).
    tracked: Vec<Vec<f64>>,
    batches: Vec<Batch>,
    counters: Vec<Vec<f64>>,
    requests: u64,
    measure_from: Option<usize>,
    settled: bool,
    stop: Option<Stop>,
}

impl<'a> Measurement<'a> {
    /// Measure a closed-loop run (throughput is the figure) or an open one (response time
    /// is, and arrivals outrunning completions mark it unsustainable).
    pub fn new(protocol: &Protocol, closed_loop: bool, probe: Option<CounterProbe<'a>>) -> Self {
        Measurement {
            protocol: protocol.clone(),
            closed_loop,
            probe,
            settled_probe: None,
            last_counters: Vec::new(),
            tracked: Vec::new(),
            batches: Vec::new(),
            counters: Vec::new(),
            requests: 0,
            measure_from: if protocol.detect_warmup { None } else { Some(0) },
            settled: !protocol.detect_warmup,
            stop: None,
        }
    }

    /// Also require `settled` of the controller before the warm-up may end.
    pub fn with_settled(mut self, settled: SettledProbe<'a>) -> Self {
        self.settled_probe = Some(settled);
        self
    }

    fn primary(&self, b: &Batch) -> f64 {
        let secs = b.duration_ns() as f64 / 1e9;
        if self.closed_loop {
            if secs > 0.0 {
                b.completed as f64 / secs
            } else {
                0.0
            }
        } else if b.completed > 0 {
            b.response_ns / b.completed as f64 / 1e6
        } else {
            0.0
        }
    }

    /// Whether every tracked figure is steady: MSER-5 ends its initial transient a group of
    /// five or more before half of the batches so far (a transient that decays), and its
    /// means over the last two eighths of the run differ by at most 10 % (one still under
    /// way at the end, which MSER-5 does not see), or by 0.02 for a count per request.
    fn steady(&self) -> bool {
        let n = self.tracked.len();
        if n < self.protocol.min_warmup_batches {
            return false;
        }
        let w = (n / 8).max(5);
        let figures = self.tracked[n - 1].len();
        (0..figures).all(|f| {
            let series: Vec<f64> = self.tracked.iter().map(|r| r.get(f).copied().unwrap_or(0.0)).collect();
            let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
            let (older, newer) = (mean(&series[n - 2 * w..n - w]), mean(&series[n - w..]));
            let floor = if f >= 2 { 0.02 } else { 0.0 };
            let agree = (older - newer).abs() <= (0.10 * older.abs().max(newer.abs())).max(floor);
            agree && mser5(&series) + 5 < n / 2
        })
    }

    /// Arrivals outran completions over the second half of the run so far: the backlog grew
    /// by more than 5 % of what arrived, and holds more than a batch.
    fn outrun(&self) -> bool {
        let n = self.batches.len();
        if self.closed_loop || !self.protocol.detect_overload || n < self.protocol.min_warmup_batches {
            return false;
        }
        let half = n / 2;
        let arrived: u64 = self.batches[half..].iter().map(|b| b.arrived).sum();
        let (from, to) = (self.batches[half - 1].backlog, self.batches[n - 1].backlog);
        to > self.protocol.batch_requests && (to.saturating_sub(from)) as f64 > 0.05 * arrived as f64
    }

    fn precise(&self) -> bool {
        let Some(from) = self.measure_from else { return false };
        if self.batches.len() - from < self.protocol.min_batches || self.requests < self.protocol.min_requests {
            return false;
        }
        let w = Window::new(&self.batches, &self.counters, from, self.closed_loop);
        let target = self.protocol.target_relative_half_width;
        let primary = if self.closed_loop { w.figure(|s| s.iops()) } else { w.figure(|s| s.mean_ms()) };
        primary.relative() <= target && w.figure(|s| s.power_w()).relative() <= target
    }

    /// The outcome, once the run is over: where the window starts and why the run stopped.
    pub fn finish(self) -> Outcome {
        let (warmup_batches, settled) = match self.measure_from {
            Some(from) => (from, self.settled),
            None => {
                let primary: Vec<f64> = self.batches.iter().map(|b| self.primary(b)).collect();
                (mser5(&primary), false)
            }
        };
        Outcome { warmup_batches, settled, stop: self.stop.unwrap_or(Stop::SourceEnd), counters: self.counters }
    }
}

impl Observer for Measurement<'_> {
    fn batch_requests(&self) -> u64 {
        self.protocol.batch_requests
    }

    fn on_batch(&mut self, batch: &Batch, controller: &dyn Controller, _measuring: bool) -> Decision {
        self.requests += batch.completed;
        let now = self.probe.as_mut().map(|p| p(controller)).unwrap_or_default();
        let deltas: Vec<f64> = now.iter().enumerate().map(|(i, v)| v - self.last_counters.get(i).copied().unwrap_or(0.0)).collect();
        self.last_counters = now;
        let secs = batch.duration_ns() as f64 / 1e9;
        let power = if secs > 0.0 { batch.devices.iter().map(|d| d.energy_j).sum::<f64>() / secs } else { 0.0 };
        let per_request = deltas.iter().map(|d| if batch.completed > 0 { d / batch.completed as f64 } else { 0.0 });
        let tracked: Vec<f64> = [self.primary(batch), power].into_iter().chain(per_request).collect();
        self.tracked.push(tracked);
        self.counters.push(deltas);
        self.batches.push(batch.clone());

        if self.outrun() {
            self.stop = Some(Stop::Unsustainable);
            return Decision::Stop;
        }
        let mut decision = Decision::Continue;
        if self.measure_from.is_none() {
            let study_settled = self.settled_probe.as_mut().is_none_or(|p| p(controller));
            if study_settled && self.steady() {
                self.measure_from = Some(self.batches.len());
                self.settled = true;
                decision = Decision::Measure;
            } else if self.requests >= self.protocol.max_requests / 2 {
                self.measure_from = Some(self.batches.len());
                decision = Decision::Measure;
            }
        } else if self.precise() {
            self.stop = Some(Stop::Precise);
            return Decision::Stop;
        }
        if self.requests >= self.protocol.max_requests {
            self.stop = Some(Stop::Limit);
            return Decision::Stop;
        }
        decision
    }
}

/// A measured run in brief, as a report states it: where its window starts, why the run
/// stopped, and the window's key figures with their 95 % intervals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Virtual time before the measured window, s, and the batches it took.
    pub warmup_s: f64,
    pub warmup_batches: usize,
    /// Whether the warm-up ended by the rules (false: the cap ended it: never settled).
    pub settled: bool,
    pub stop: Stop,
    pub batch_requests: u64,
    /// The window: its length, batches, and figures.
    pub window_s: f64,
    pub window_batches: usize,
    pub mean_ms: Interval,
    pub power_w: Interval,
}

impl Summary {
    /// The summary of a run cut into `batches` of `batch_requests` completions, measured
    /// as `outcome` says; also the window itself, for a study's own figures.
    pub fn new(batches: &[Batch], outcome: &Outcome, batch_requests: u64, closed_loop: bool) -> (Summary, Window) {
        let warm = outcome.warmup_batches.min(batches.len());
        let window = Window::new(batches, &outcome.counters, warm, closed_loop);
        let warmup_s = batches.get(warm).or(batches.last()).map_or(0.0, |b| b.start_ns as f64 / 1e9);
        let summary = Summary {
            warmup_s,
            warmup_batches: warm,
            settled: outcome.settled,
            stop: outcome.stop,
            batch_requests,
            window_s: window.seconds(),
            window_batches: window.batches,
            mean_ms: window.figure(|s| s.mean_ms()),
            power_w: window.figure(|s| s.power_w()),
        };
        (summary, window)
    }
}
