//! One configuration on one workload: build the devices and the policy, replay the
//! requests through the simulator, and say which bytes of each device the drive used.

use crate::address::AddressMap;
use crate::drive::{build, HybridParams, Mode};
use crate::hdd::{build_hdd, HddChoice};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use tierlab_hybrid_sim::{Devices, HybridController};
use tierlab_sim::{Controller, Direct, Replay, SchedulerKind, SimError, SimReport, Simulation};
use tierlab_trace::{ReadOptions, TraceReader};
use tierlab_workload::{Generator, WorkloadSpec};

/// Where requests come from.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A trace file in any format `tierlab_trace` reads, with its read options.
    Trace { path: PathBuf, options: ReadOptions },
    /// A synthetic workload (validated by the caller or by `generate`).
    Synthetic(WorkloadSpec),
}

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
}

fn open_trace(path: &Path, options: &ReadOptions) -> Result<TraceReader> {
    tierlab_trace::open(path, options).with_context(|| format!("cannot read trace {}", path.display()))
}

/// The request source of a run: a trace (its addresses mapped onto a hybrid drive) or a
/// synthetic workload's generator.
enum Source {
    Trace(TraceReader, Option<AddressMap>),
    Workload(Generator),
}

impl Source {
    fn run(self, sim: Simulation, replay: Replay, c: &mut dyn Controller, progress: &mut dyn FnMut(u64)) -> Result<SimReport, SimError> {
        match self {
            Source::Trace(r, None) => sim.run(r, replay, c, progress),
            Source::Trace(r, Some(layout)) => sim.run(r.map(move |x| x.map(|q| layout.map(q))), replay, c, progress),
            Source::Workload(g) => sim.run(g, replay, c, progress),
        }
    }
}

/// Run `config` on `workload`; `progress` is told how many requests have completed.
///
/// A hybrid drive exposes `hybrid.capacity_bytes`, or else the workload's span (a trace's
/// volumes end to end, or its touched extents packed densely with `hybrid.compact`). Its
/// mapping starts empty: GreenDM maps an extent lazily on its first access, SSD first.
pub fn simulate(workload: &Workload, config: &Config, progress: &mut dyn FnMut(u64)) -> Result<Run> {
    let (source, span_bytes) = match workload {
        Workload::Trace { path, options } => match config.mode {
            Some(_) => {
                let layout = AddressMap::learn(config.hybrid.compact, config.hybrid.es, open_trace(path, options)?)?;
                let span = layout.capacity_bytes();
                (Source::Trace(open_trace(path, options)?, Some(layout)), span)
            }
            None => (Source::Trace(open_trace(path, options)?, None), 0),
        },
        Workload::Synthetic(spec) => (Source::Workload(spec.generate()?), spec.span_bytes),
    };
    let mut sim = Simulation::new(config.scheduler);
    let Some(mode) = config.mode else {
        let hdd = build_hdd(&config.hdd)?;
        let usage = Usage { ssd_bytes: 0, hdd_bytes: hdd.capacity_bytes() };
        sim.add_device(hdd);
        let mut controller = if config.wrap { Direct::wrapping() } else { Direct::default() };
        return Ok(Run { report: source.run(sim, config.replay, &mut controller, progress)?, usage, watermarks: None });
    };
    let capacity = config.hybrid.capacity_bytes.unwrap_or(span_bytes);
    let built = build(mode, &config.hybrid, &config.hdd, capacity)?;
    let usage = Usage { ssd_bytes: built.ssd_used_bytes, hdd_bytes: built.hdd_used_bytes };
    let watermarks = built.watermarks;
    for d in built.devices {
        sim.add_device(d);
    }
    let report = match built.policy {
        Some(p) => source.run(sim, config.replay, &mut HybridController::new(p, Devices { ssd: 0, hdd: 1 }), progress)?,
        None => source.run(sim, config.replay, &mut Direct::default(), progress)?,
    };
    Ok(Run { report, usage, watermarks })
}
