//! `tierlab simulate`: one workload, one device, one report. The run and its report are
//! `tierlab_hybrid_study`'s, the text `tierlab_render::simulate`'s; this module turns
//! flags into the run's configuration and writes what comes back.

use crate::args::TraceInput;
use crate::cmd_workload::load_spec;
use crate::devices::DeviceChoice;
use crate::hybrid::{DesignArgs, HybridArgs};
use crate::measure_args::MeasureArgs;
use crate::progress::{requests_bar, write_json};
use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use tierlab_hybrid_study::{Config, SimulateReport};
use tierlab_workload::Workload;
use tierlab_engine::{Replay, SchedulerKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReplayMode {
    /// Requests arrive at the trace's (or generator's) times.
    Open,
    /// Keep --depth requests outstanding, issuing the next as one completes.
    Closed,
}

/// `simulate`'s flags: a run's, and one design.
#[derive(Args, Clone)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub design: DesignArgs,
    /// Measure at steady state, as `overview` and `compare` always do
    /// (docs/measurement.md): warm up until the figures settle, go on until their 95 %
    /// intervals are narrow (a trace played again, a workload generated on), stop when the
    /// load cannot be sustained; the report covers the measured part and says how.
    #[arg(long)]
    pub measure: bool,
}

impl SimulateArgs {
    /// The run's configuration; `default_replay` applies when --replay is absent.
    pub fn config(&self, default_replay: ReplayMode) -> Config {
        self.run.config(&self.design, default_replay)
    }
}

/// The flags of a run besides its design: the workload, the devices, the hybrid drive's
/// other knobs, the replay and how a measurement settles (`simulate`, `overview` and
/// `compare`).
#[derive(Args, Clone)]
pub struct RunArgs {
    /// Replay this trace file (any format `tierlab trace formats` lists).
    #[arg(long, value_name = "FILE", conflicts_with = "workload")]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub input: TraceInput,
    /// A synthetic workload TOML file (see `tierlab workload show`); the bundled default
    /// workload is used when neither --trace nor --workload is given.
    #[arg(long, value_name = "FILE")]
    pub workload: Option<PathBuf>,
    #[command(flatten)]
    pub device: DeviceChoice,
    #[command(flatten)]
    pub hybrid: HybridArgs,
    /// Open-loop replay follows arrival times; closed-loop keeps --depth outstanding.
    /// Default: open for `simulate`, closed for `compare`.
    #[arg(long, value_enum)]
    pub replay: Option<ReplayMode>,
    /// Requests outstanding in closed-loop replay.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Device queue scheduler: fcfs, sstf, clook (by cylinder), clook-lba (by block address, as a host elevator), sptf (a drive's command queue: the quickest to reach of the 32 oldest) or clook-lba+sptf (the elevator feeding the drive's queue).
    #[arg(long, default_value_t = SchedulerKind::Fcfs)]
    pub scheduler: SchedulerKind,
    /// Fold requests beyond the device's end back into it instead of stopping (for traces
    /// recorded on larger volumes).
    #[arg(long)]
    pub wrap: bool,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub measurement: MeasureArgs,
}

impl RunArgs {
    /// The request source: the trace, the workload file, or the bundled default workload.
    pub fn workload(&self) -> Result<Workload> {
        match &self.trace {
            Some(path) => Ok(Workload::Trace { path: path.clone(), options: self.input.read_options()? }),
            None => {
                if self.input.format.is_some() || self.input.sort || !self.input.volumes.is_empty() {
                    return Err(anyhow!("--format, --sort and --volume apply to --trace only"));
                }
                Ok(Workload::Synthetic(load_spec(self.workload.as_deref())?))
            }
        }
    }

    /// The configuration of a run of `design`; `default_replay` applies when --replay is
    /// absent.
    pub fn config(&self, design: &DesignArgs, default_replay: ReplayMode) -> Config {
        let replay = match self.replay.unwrap_or(default_replay) {
            ReplayMode::Open => Replay::Open,
            ReplayMode::Closed => Replay::Closed { depth: self.depth },
        };
        Config {
            mode: design.mode,
            hybrid: self.hybrid.params(design),
            hdd: self.device.choice(),
            replay,
            scheduler: self.scheduler,
            wrap: self.wrap,
        }
    }
}

pub fn run(a: SimulateArgs) -> Result<()> {
    let config = a.config(ReplayMode::Open);
    let measure = a.measure;
    let a = a.run;
    let mut workload = a.workload()?;
    if a.trace.is_none() && a.workload.is_none() {
        let (spec, note) = tierlab_hybrid_study::default_workload(&config)?;
        note.iter().for_each(|n| eprintln!("note: {n}"));
        workload = Workload::Synthetic(spec);
    }
    let bar = requests_bar("simulating");
    let report = if measure {
        let protocol = a.measurement.protocol()?;
        let measured = tierlab_hybrid_study::simulate_measured(&workload, &config, &protocol, &mut |n| bar.set_position(n));
        bar.finish_and_clear();
        SimulateReport::of_measured(&config, measured?)?
    } else {
        let run = tierlab_hybrid_study::simulate(&workload, &config, &mut |n| bar.set_position(n));
        bar.finish_and_clear();
        SimulateReport::of_run(&config, run?)?
    };
    let mut out = crate::session::stdout();
    if a.json {
        write_json(&mut out, &report)?;
    } else {
        write!(out, "{}", tierlab_render::simulate::render(&report))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        simulate: SimulateArgs,
    }

    #[test]
    fn simulate_replays_open_loop_unless_told_otherwise() {
        assert_eq!(Flags::parse_from(["tierlab"]).simulate.config(ReplayMode::Open).replay, Replay::Open);
        let f = Flags::parse_from(["tierlab", "--replay", "closed", "--depth", "2"]);
        assert_eq!(f.simulate.config(ReplayMode::Open).replay, Replay::Closed { depth: 2 });
    }

    #[test]
    fn trace_only_flags_are_refused_without_a_trace() {
        let e = Flags::parse_from(["tierlab", "--sort"]).simulate.run.workload().unwrap_err();
        assert!(e.to_string().contains("--trace only"), "{e}");
    }
}
