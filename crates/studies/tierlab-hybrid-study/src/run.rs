//! One configuration on one workload: build the devices and the policy, replay the
//! requests through the simulator, and say which bytes of each device the drive used.

use crate::drive::{build, HybridParams, Mode};
use anyhow::{Context, Result};
use std::path::Path;
use tierlab_hybrid_sim::{warm_instantly, Devices, HybridController, Warming};
use tierlab_hybrid_policy::Policy;
use tierlab_measure::{CounterProbe, Measurement, Outcome, Protocol, Window};
use tierlab_engine::{Controller, Direct, Observer, Replay, SchedulerKind, SimError, SimReport, Simulation};
use tierlab_devices::{build_hdd, HddChoice};
use tierlab_trace::{AddressMap, ReadOptions, TraceError};
use tierlab_types::IoRequest;
use tierlab_workload::{open_trace, pass_seconds, Generator, Looped, Workload, WorkloadSpec};

/// Everything one run needs besides the workload.
#[derive(Clone, Debug)]
pub struct Config {
    /// The drive design; `None`: the HDD alone, at its full capacity (plain simulation).
    pub mode: Option<Mode>,
    pub hybrid: HybridParams,
    pub hdd: HddChoice,
    pub replay: Replay,
    pub scheduler: SchedulerKind,
    /// Plain simulation only: fold requests beyond the disk's end back into it.
    pub wrap: bool,
}

impl Default for Config {
    /// The HDD alone, open-loop, FCFS.
    fn default() -> Self {
        Config {
            mode: None,
            hybrid: HybridParams::default(),
            hdd: HddChoice::default(),
            replay: Replay::Open,
            scheduler: SchedulerKind::Fcfs,
            wrap: false,
        }
    }
}

/// Bytes of each kind of device a run used (what the cost model prices).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub ssd_bytes: u64,
    pub hdd_bytes: u64,
}

/// The outcome of one run.
#[derive(Clone, Debug)]
pub struct Run {
    pub report: SimReport,
    pub usage: Usage,
    /// Tiering's demotion watermarks `(LT, HT)` as run.
    pub watermarks: Option<(u32, u32)>,
    /// A measured tiering or caching run's functional warming before its timed run.
    pub warming: Option<Warming>,
}

/// The request source of a run: a trace (its addresses mapped onto a hybrid drive) or a
/// synthetic workload's generator.
enum Source {
    Trace(Box<dyn Iterator<Item = Result<IoRequest, TraceError>>>, Option<AddressMap>),
    Workload(Generator),
}

impl Source {
    fn run(self, sim: Simulation, replay: Replay, c: &mut dyn Controller, observer: Option<&mut dyn Observer>, progress: &mut dyn FnMut(u64)) -> Result<SimReport, SimError> {
        match self {
            Source::Trace(r, None) => sim.run_observed(r, replay, c, observer, progress),
            Source::Trace(r, Some(layout)) => sim.run_observed(r.map(move |x| x.map(|q| layout.map(q))), replay, c, observer, progress),
            Source::Workload(g) => sim.run_observed(g, replay, c, observer, progress),
        }
    }
}

/// Run `config` on `workload`; `progress` is told how many requests have completed.
///
/// A hybrid drive exposes `hybrid.capacity_bytes`, or else the workload's span (a trace's
/// volumes end to end, or its touched extents packed densely with `hybrid.compact`). A
/// tiering drive starts holding the whole span unless `hybrid.populated` is off (new and
/// empty: GreenDM maps an extent lazily on its first access, SSD first).
pub fn simulate(workload: &Workload, config: &Config, progress: &mut dyn FnMut(u64)) -> Result<Run> {
    Ok(execute(workload, config, None, progress)?.0)
}

/// A run measured by the measurement layer (`tierlab-measure`): warmed up until steady,
/// long enough for the protocol's interval, stopped early when the design cannot carry the
/// load. The report's statistics cover the measured part; `window` holds its batches.
pub struct Measured {
    pub run: Run,
    pub outcome: Outcome,
    pub window: Window,
}

/// Run `config` on `workload` as `protocol` measures: a synthetic workload generates on
/// (from its seed) and a trace plays pass after pass until the protocol stops the run.
/// The hybrid policies' hits, accesses and moves must settle as well.
pub fn simulate_measured(workload: &Workload, config: &Config, protocol: &Protocol, progress: &mut dyn FnMut(u64)) -> Result<Measured> {
    protocol.validate().map_err(|e| anyhow::anyhow!(e))?;
    let (run, outcome) = execute(workload, config, Some(protocol), progress)?;
    let outcome = outcome.context("a measured run without its outcome")?;
    let closed_loop = matches!(config.replay, Replay::Closed { .. });
    let window = Window::new(&run.report.batches, &outcome.counters, outcome.warmup_batches, closed_loop);
    Ok(Measured { run, outcome, window })
}

/// The counters a hybrid policy's steady state is judged on: SSD hits, pieces routed, and
/// extents moved (promotions, demotions, pre-fetches, evictions, write-backs).
fn policy_counters(controller: &dyn Controller) -> Vec<f64> {
    let report = controller.report();
    let stats = &report["stats"];
    let n = |k: &str| stats[k].as_f64().unwrap_or(0.0);
    vec![n("ssd_hits"), n("pieces"), n("promotions") + n("demotions") + n("prefetches") + n("evictions") + n("write_backs")]
}

fn execute(workload: &Workload, config: &Config, protocol: Option<&Protocol>, progress: &mut dyn FnMut(u64)) -> Result<(Run, Option<Outcome>)> {
    let requests = |path: &Path, options: &ReadOptions| -> Result<Box<dyn Iterator<Item = Result<IoRequest, TraceError>>>> {
        let first = open_trace(path, options)?;
        // A trace without a span (one request, or all at one instant) has no rate to
        // repeat it at: it plays once, and its result is marked as never settled.
        let pass_s = match protocol {
            Some(_) => pass_seconds(workload)?,
            None => None,
        };
        Ok(match pass_s {
            None => Box::new(first),
            Some(s) => {
                let pass_ns = ((s * 1e9) as u64).max(1);
                let (path, options) = (path.to_path_buf(), options.clone());
                Box::new(Looped::new(first, pass_ns, move || tierlab_trace::open(&path, &options).ok()))
            }
        })
    };
    let (source, span_bytes) = match workload {
        Workload::Trace { path, options } => match config.mode {
            Some(_) => {
                let layout = AddressMap::learn(config.hybrid.compact, config.hybrid.es, open_trace(path, options)?)?;
                let span = layout.capacity_bytes();
                (Source::Trace(requests(path, options)?, Some(layout)), span)
            }
            None => (Source::Trace(requests(path, options)?, None), 0),
        },
        Workload::Synthetic(spec) => {
            let mut spec = spec.clone();
            if let Some(p) = protocol {
                // The protocol stops the run; the generator goes on from the same seed.
                spec.requests = spec.requests.max(p.max_requests);
            }
            (Source::Workload(spec.generate()?), spec.span_bytes)
        }
    };
    let closed_loop = matches!(config.replay, Replay::Closed { .. });
    let mut sim = Simulation::new(config.scheduler);
    let Some(mode) = config.mode else {
        let hdd = build_hdd(&config.hdd)?;
        let usage = Usage { ssd_bytes: 0, hdd_bytes: hdd.capacity_bytes() };
        sim.add_device(hdd);
        let mut controller = if config.wrap { Direct::wrapping() } else { Direct::default() };
        let mut m = protocol.map(|p| Measurement::new(p, closed_loop, None));
        let report = source.run(sim, config.replay, &mut controller, m.as_mut().map(|m| m as &mut dyn Observer), progress)?;
        return Ok((Run { report, usage, watermarks: None, warming: None }, m.map(Measurement::finish)));
    };
    let capacity = config.hybrid.capacity_bytes.unwrap_or(span_bytes);
    let built = build(mode, &config.hybrid, &config.hdd, capacity)?;
    let usage = Usage { ssd_bytes: built.ssd_used_bytes, hdd_bytes: built.hdd_used_bytes };
    let watermarks = built.watermarks;
    for d in built.devices {
        sim.add_device(d);
    }
    let mut policy = built.policy;
    let warming = match (policy.as_mut(), protocol) {
        // A new, empty tiering drive (`populated` off) is measured as new, so it is not warmed.
        (Some(p), Some(proto)) if proto.detect_warmup && (mode == Mode::Caching || (mode == Mode::Tiering && config.hybrid.populated)) => {
            let stream: Box<dyn Iterator<Item = IoRequest>> = match workload {
                Workload::Trace { path, options } => {
                    // The address map the timed run learned, not a second pass to learn it.
                    let Source::Trace(_, Some(layout)) = &source else { anyhow::bail!("a hybrid drive's trace source without its address map") };
                    let layout = layout.clone();
                    Box::new(requests(path, options)?.map_while(Result::ok).map(move |q| layout.map(q)))
                }
                Workload::Synthetic(spec) => {
                    // An independent sample of the same workload: the timed run does not
                    // replay the very requests the policy was warmed on.
                    let warm = WorkloadSpec { seed: spec.seed ^ WARMING_SEED, requests: u64::MAX, ..spec.clone() };
                    Box::new(warm.generate()?.map_while(Result::ok))
                }
            };
            Some(warm_policy(p.as_mut(), stream, proto)?)
        }
        _ => None,
    };
    let (report, outcome) = match policy {
        Some(p) => {
            let probe: CounterProbe = Box::new(policy_counters);
            let mut m = protocol.map(|p| Measurement::new(p, closed_loop, Some(probe)));
            let report = source.run(sim, config.replay, &mut HybridController::new(p, Devices { ssd: 0, hdd: 1 }), m.as_mut().map(|m| m as &mut dyn Observer), progress)?;
            (report, m.map(Measurement::finish))
        }
        None => {
            let mut m = protocol.map(|p| Measurement::new(p, closed_loop, None));
            let report = source.run(sim, config.replay, &mut Direct::default(), m.as_mut().map(|m| m as &mut dyn Observer), progress)?;
            (report, m.map(Measurement::finish))
        }
    };
    Ok((Run { report, usage, watermarks, warming }, outcome))
}

/// Mixed into a synthetic workload's seed for the stream a policy is warmed on.
const WARMING_SEED: u64 = 0x5741_524d_494e_4721;

/// Functional warming of a moving policy before its timed run (`warm_instantly`), in
/// chunks of 20 batches of the protocol, until a chunk's SSD hit ratio is within 0.01 of
/// the chunk's before and its moves per request within 10 % (or 0.002) of them — the
/// placement has settled — or ten times the protocol's request cap has been used.
fn warm_policy(policy: &mut dyn Policy, mut stream: Box<dyn Iterator<Item = IoRequest>>, protocol: &Protocol) -> Result<Warming> {
    let chunk = 20 * protocol.batch_requests;
    let cap = protocol.max_requests.saturating_mul(10);
    let mut total = Warming::default();
    let mut before: Option<(f64, f64)> = None;
    let mut last = policy.stats();
    while total.requests < cap {
        let w = warm_instantly(policy, stream.by_ref().take(chunk.min(cap - total.requests) as usize)).map_err(|e| anyhow::anyhow!("warming the policy: {e}"))?;
        total.requests += w.requests;
        total.migrations += w.migrations;
        let now = policy.stats();
        let pieces = now.pieces.saturating_sub(last.pieces).max(1) as f64;
        let hit = now.ssd_hits.saturating_sub(last.ssd_hits) as f64 / pieces;
        let moves = w.migrations as f64 / w.requests.max(1) as f64;
        last = now;
        if w.requests < chunk {
            break; // the stream ended
        }
        if let Some((hit0, moves0)) = before {
            if (hit - hit0).abs() <= 0.01 && (moves - moves0).abs() <= (0.1 * moves0).max(0.002) {
                total.settled = true;
                break;
            }
        }
        before = Some((hit, moves));
    }
    Ok(total)
}
