//! `tierlab bench …`: the simulator's own speed and memory, measured in-process with
//! getrusage so that CPU time (not wall time on a shared machine) is what counts.

use tierlab_commands::args::TraceInput;
use tierlab_commands::devices::DeviceChoice;
use tierlab_commands::hybrid::{DesignArgs, HybridArgs};
use anyhow::{anyhow, Result};
use clap::Subcommand;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tierlab_devices::build_hdd;
use tierlab_hybrid_study::build;
use tierlab_trace::AddressMap;
use tierlab_hybrid_sim::{Devices, HybridController};
use tierlab_engine::{Controller, Direct, Replay, SchedulerKind, Simulation};

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Replay a trace closed-loop (depth 1) on one HDD, or on a hybrid drive with
    /// `--mode`, `--repeat` times over in one run, and print requests simulated per
    /// CPU-second and the peak resident memory.
    Simulate {
        trace: PathBuf,
        #[command(flatten)]
        input: TraceInput,
        #[command(flatten)]
        device: DeviceChoice,
        #[command(flatten)]
        design: DesignArgs,
        #[command(flatten)]
        hybrid: HybridArgs,
        /// Replay the trace this many times back to back (memory must not grow with it).
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Serialize)]
struct BenchResult {
    trace: String,
    /// `hdd`, or the hybrid mode.
    drive: String,
    repeat: u32,
    requests: u64,
    cpu_s: f64,
    requests_per_cpu_s: f64,
    max_rss_bytes: u64,
}

/// (user + system CPU seconds, peak resident set in bytes) of this process so far.
fn rusage() -> (f64, u64) {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_maxrss as u64 * 1024)
}

pub fn run(cmd: BenchCommand) -> Result<()> {
    let BenchCommand::Simulate { trace, input, device, design, hybrid, repeat, json } = cmd;
    if repeat == 0 {
        return Err(anyhow!("--repeat: expected at least 1"));
    }
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    let opts = input.read_options()?;
    // A hybrid drive's address map is learned from one pass before the clock starts.
    let (layout, mut controller): (Option<AddressMap>, Box<dyn Controller>) = match design.mode {
        None => {
            sim.add_device(build_hdd(&device.choice())?);
            (None, Box::new(Direct::default()))
        }
        Some(mode) => {
            let params = hybrid.params(&design);
            let layout = AddressMap::learn(params.compact, params.es, tierlab_trace::open(&trace, &opts)?)?;
            let built = build(mode, &params, &device.choice(), params.capacity_bytes.unwrap_or(layout.capacity_bytes()))?;
            for d in built.devices {
                sim.add_device(d);
            }
            let controller: Box<dyn Controller> = match built.policy {
                Some(p) => Box::new(HybridController::new(p, Devices { ssd: 0, hdd: 1 })),
                None => Box::new(Direct::default()),
            };
            (Some(layout), controller)
        }
    };
    // One pass open at a time, so memory is that of one streaming reader however many
    // passes there are. The first open checks the file; a later one failing ends the run.
    tierlab_trace::open(&trace, &opts)?;
    let passes = (0..repeat).map_while(|_| tierlab_trace::open(&trace, &opts).ok()).flatten();
    let passes = passes.map(|r| r.map(|q| layout.as_ref().map_or(q, |l| l.map(q))));
    let (cpu0, _) = rusage();
    let report = sim.run(passes, Replay::Closed { depth: 1 }, controller.as_mut(), &mut |_| {})?;
    let (cpu1, rss) = rusage();
    let cpu_s = cpu1 - cpu0;
    let r = BenchResult {
        trace: trace.display().to_string(),
        drive: design.mode.map_or("hdd".to_string(), |m| m.report_name()),
        repeat,
        requests: report.requests,
        cpu_s,
        requests_per_cpu_s: if cpu_s > 0.0 { report.requests as f64 / cpu_s } else { 0.0 },
        max_rss_bytes: rss,
    };
    let mut out = tierlab_commands::session::stdout();
    if json {
        serde_json::to_writer(&mut out, &r)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} x{} ({}): {} requests in {:.3} CPU-s = {:.0} requests/CPU-s; peak RSS {:.1} MiB",
            r.trace,
            r.repeat,
            r.drive,
            r.requests,
            r.cpu_s,
            r.requests_per_cpu_s,
            r.max_rss_bytes as f64 / 1048576.0
        )?;
    }
    Ok(())
}
