//! `tierlab simulate`: one workload, one device, one report.

use crate::args::TraceInput;
use crate::cmd_workload::load_spec;
use crate::devices::DeviceChoice;
use crate::hybrid::{DesignArgs, HybridArgs};
use crate::measure_args::MeasureArgs;
use crate::progress::requests_bar;
use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use tierlab_hybrid_study::{Config, HddWear, Run};
use tierlab_workload::Workload;
use tierlab_report::{fmt_bytes, LatencySummary, Table};
use tierlab_engine::{Replay, SchedulerKind, SimReport};

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
        let (spec, note) = crate::cmd_workload::default_for(&config)?;
        note.iter().for_each(|n| eprintln!("note: {n}"));
        workload = Workload::Synthetic(spec);
    }
    let bar = requests_bar("simulating");
    if measure {
        let protocol = a.measurement.protocol()?;
        let measured = tierlab_hybrid_study::simulate_measured(&workload, &config, &protocol, &mut |n| bar.set_position(n));
        bar.finish_and_clear();
        let m = measured?;
        let summary = MeasuredSummary::of(&m, matches!(config.replay, tierlab_engine::Replay::Closed { .. }));
        let hdd_wear = HddWear::of_report(&config.hdd, &m.run.report)?;
        let mut out = crate::session::stdout();
        if a.json {
            #[derive(serde::Serialize)]
            struct Report<'a> {
                #[serde(flatten)]
                report: &'a SimReport,
                hdd_wear: &'a Option<HddWear>,
                measurement: &'a MeasuredSummary,
            }
            serde_json::to_writer_pretty(&mut out, &Report { report: &m.run.report, hdd_wear: &hdd_wear, measurement: &summary })?;
            writeln!(out)?;
        } else {
            write!(out, "{}{}", summary.render(), render_text(&m.run.report, hdd_wear.as_ref()))?;
        }
        return Ok(());
    }
    let Run { report, .. } = tierlab_hybrid_study::simulate(&workload, &config, &mut |n| bar.set_position(n))?;
    bar.finish_and_clear();
    let hdd_wear = HddWear::of_report(&config.hdd, &report)?;
    let mut out = crate::session::stdout();
    if a.json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            #[serde(flatten)]
            report: &'a SimReport,
            hdd_wear: &'a Option<HddWear>,
        }
        serde_json::to_writer_pretty(&mut out, &Report { report: &report, hdd_wear: &hdd_wear })?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render_text(&report, hdd_wear.as_ref()))?;
    }
    Ok(())
}

/// How a measured run went, and its key figures with their 95 % intervals.
#[derive(serde::Serialize)]
struct MeasuredSummary {
    #[serde(flatten)]
    run: tierlab_hybrid_study::RunNote,
    warmup_batches: usize,
    throughput_iops: tierlab_measure::Interval,
    offered_iops: f64,
    mean_ms: tierlab_measure::Interval,
    average_power_w: tierlab_measure::Interval,
}

impl MeasuredSummary {
    fn of(m: &tierlab_hybrid_study::Measured, closed: bool) -> Self {
        let w = &m.window;
        MeasuredSummary {
            run: m.note(),
            warmup_batches: m.outcome.warmup_batches,
            throughput_iops: w.figure(|s| s.iops()),
            offered_iops: if closed { f64::NAN } else { w.total.offered_iops() },
            mean_ms: w.figure(|s| s.mean_ms()),
            average_power_w: w.figure(|s| s.power_w()),
        }
    }

    fn render(&self) -> String {
        let o = &self.run;
        let settled = if o.settled { "settled" } else { "never settled: cut at the cap" };
        let stop = match o.stop {
            tierlab_measure::Stop::Precise => "intervals within target".to_string(),
            tierlab_measure::Stop::Limit => "the request cap (--run-requests)".to_string(),
            tierlab_measure::Stop::SourceEnd => "the trace ended".to_string(),
            tierlab_measure::Stop::Unsustainable => tierlab_measure::cannot_sustain(self.offered_iops, self.throughput_iops.mean),
        };
        let f = |i: &tierlab_measure::Interval, d: usize| tierlab_report::with_interval(i.mean, i.half_width, d);
        format!(
            "measured    warm-up {} requests ({:.1} s), {settled}\n            then {} requests ({:.1} s), stopped by {stop}\n            IOPS {}, mean ms {}, power W {} (95 % intervals)\n\n",
            o.warmup_requests,
            o.warmup_s,
            o.measured_requests,
            o.measured_s,
            f(&self.throughput_iops, 1),
            f(&self.mean_ms, 3),
            f(&self.average_power_w, 2)
        )
    }
}

fn latency_row(t: &mut Table, name: &str, s: &LatencySummary) {
    let f = |v: f64| format!("{v:.3}");
    t.row([name.to_string(), s.count.to_string(), f(s.mean_ms), f(s.p50_ms), f(s.p90_ms), f(s.p99_ms), f(s.p999_ms), f(s.max_ms)]);
}

/// The report as people read it, with the HDD's wear where there is one. Byte-stable for
/// a given report (golden-file tested).
pub fn render_text(r: &SimReport, hdd_wear: Option<&HddWear>) -> String {
    let mut s = String::new();
    s.push_str(&format!("replay      {} ({} scheduler)\n", r.replay, r.scheduler));
    s.push_str(&format!(
        "requests    {} ({} reads, {} writes; {} read, {} written)\n",
        r.requests,
        r.reads,
        r.writes,
        fmt_bytes(r.read_bytes),
        fmt_bytes(r.write_bytes)
    ));
    s.push_str(&format!("span        {:.3} s\n", r.span_s));
    s.push_str(&format!("throughput  {:.1} IOPS, {:.3} MiB/s\n", r.throughput_iops, r.throughput_mib_s));
    let unpowered: Vec<&str> = r.devices.iter().filter(|d| d.device.states.is_empty()).map(|d| d.device.name.as_str()).collect();
    if !unpowered.is_empty() && unpowered.len() == r.devices.len() {
        s.push_str(&format!("energy      not modelled: {} has no power model\n\n", unpowered.join(", ")));
    } else if !unpowered.is_empty() {
        s.push_str(&format!("energy      {:.1} J, average {:.2} W (without {}: no power model)\n\n", r.energy_j, r.average_power_w, unpowered.join(", ")));
    } else {
        s.push_str(&format!("energy      {:.1} J, average {:.2} W\n\n", r.energy_j, r.average_power_w));
    }

    let mut t = Table::new(["response time (ms)", "count", "mean", "p50", "p90", "p99", "p99.9", "max"]);
    latency_row(&mut t, "all", &r.response_time);
    latency_row(&mut t, "reads", &r.read_response_time);
    latency_row(&mut t, "writes", &r.write_response_time);
    for d in &r.devices {
        if let (Some(queue), Some(service)) = (&d.queue_time, &d.service_time) {
            latency_row(&mut t, &format!("{} queue", d.device.name), queue);
            latency_row(&mut t, &format!("{} service", d.device.name), service);
        }
    }
    s.push_str(&t.render());

    if let Some(policy) = r.controller.get("policy").and_then(|p| p.as_str()) {
        let st = &r.controller["stats"];
        let n = |k: &str| st[k].as_u64().unwrap_or(0);
        s.push_str(&format!(
            "\nhybrid drive ({policy}): SSD hit ratio {:.1} %, {} promotions, {} demotions, {} pre-fetches, {} evictions, {} write-backs, {} moved\n",
            r.controller["ssd_hit_ratio"].as_f64().unwrap_or(0.0) * 100.0,
            n("promotions"),
            n("demotions"),
            n("prefetches"),
            n("evictions"),
            n("write_backs"),
            fmt_bytes(n("bytes_moved"))
        ));
    }
    for d in &r.devices {
        s.push_str(&format!(
            "\ndevice {} ({}): {} ops, utilisation {:.1} % (an operation in service), mean queue {:.2}, max queue {}\n",
            d.device.name,
            d.device.kind,
            d.ops,
            d.utilisation * 100.0,
            d.mean_queue_length,
            d.max_queue_length
        ));
        if let Some(share) = mechanism_share(&d.device) {
            s.push_str(&format!(
                "mechanism working {:.1} % (active + seek, media work after completion such as write-back included)\n",
                share * 100.0
            ));
        }
        let mut t = Table::new(["power state", "time (s)", "energy (J)"]);
        for st in &d.device.states {
            t.row([st.state.clone(), format!("{:.3}", st.time_ns as f64 / 1e9), format!("{:.1}", st.energy_j)]);
        }
        if !t.is_empty() {
            s.push_str(&t.render());
        }
        if !d.device.counters.is_empty() {
            let mut t = Table::new(["counter", "value"]);
            for (k, v) in &d.device.counters {
                t.row([k.clone(), if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.3}") }]);
            }
            s.push_str(&t.render());
        }
        if let Some(w) = hdd_wear.filter(|_| d.device.kind == "hdd") {
            s.push_str(&w.render());
        }
    }
    s
}

/// Share of the time its power model accounts for that a disk's mechanism works (its
/// "active" and "seek" states, at any speed); `None` without such states.
fn mechanism_share(d: &tierlab_engine::DeviceReport) -> Option<f64> {
    let working = |name: &str| name.starts_with("active") || name.starts_with("seek");
    let working_ns: u64 = d.states.iter().filter(|st| working(&st.state)).map(|st| st.time_ns).sum();
    let total_ns: u64 = d.states.iter().map(|st| st.time_ns).sum();
    (working_ns > 0 && total_ns > 0).then(|| working_ns as f64 / total_ns as f64)
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
