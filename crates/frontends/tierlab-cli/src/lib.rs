//! The `tierlab` command as a library: the `tierlab` binary runs it from a shell, and the
//! Python package (`tierlab-py`) runs the same commands in-process through [`api`], so
//! both give the same reports from the same code.

mod args;
mod cmd_array;
mod cmd_bench;
mod cmd_cache;
mod cmd_catalog;
mod cmd_compare;
mod cmd_hdd;
mod cmd_overview;
mod cmd_plan;
mod cmd_replicate;
mod cmd_serve;
mod cmd_simulate;
mod cmd_ssd;
mod cmd_sweep;
mod cmd_system;
mod cmd_trace;
mod cmd_validate;
mod cmd_workload;
mod devices;
mod hybrid;
mod memory;
mod measure_args;
mod progress;
mod session;
mod describe;
pub mod api;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tierlab",
    version,
    about = "Simulate storage built from unlike devices (SSD, HDD, spin-down and multi-speed disks) \
             and report what a design costs in performance, energy, endurance and dollars.",
    long_about = None,
    after_help = "Start with `tierlab` alone: five drive designs on the bundled default workload, in four \
                  currencies, and a verdict. Then `tierlab overview --trace FILE` on a trace of your own."
)]
struct Cli {
    /// Without a command: `tierlab overview` on the bundled default workload.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// What each design costs on one workload: SSD-only, HDD-only, linear, GreenDM
    /// tiering and caching, with throughput, mean latency, energy, wear and cost over the
    /// drive's life, and a verdict (fastest, cheapest, best per dollar). The default.
    Overview(Box<cmd_overview::OverviewArgs>),
    /// Run one workload on a matrix of drive designs (SSD-only, HDD-only, linear, GreenDM
    /// tiering and caching over sweeps of SSD share, PT and ES) and report performance,
    /// energy, endurance and cost over α runs, as a table, JSON, CSV or HTML.
    Compare(Box<cmd_compare::CompareArgs>),
    /// Disk arrays under energy-management schemes (RAID-5, TPM, DRPM, CR, PDC, MAID,
    /// Hibernator): simulate one, or compare schemes across loads or response-time goals.
    #[command(subcommand)]
    Array(cmd_array::ArrayCommand),
    /// Power-aware remote replication: simulate a primary and a secondary that defers and
    /// compacts its apply, sweep windows, RTOs and standby levels, plan batch intervals,
    /// write update logs.
    #[command(subcommand)]
    Replicate(cmd_replicate::ReplicateCommand),
    /// Whole-system power: storage controllers and disk enclosures beside the disks (the
    /// GreenDM dissertation's chapter 4): the catalog's figures, how many enclosures must
    /// be spun or powered down to save 20 %, and a system description file resolved.
    #[command(subcommand)]
    System(cmd_system::SystemCommand),
    /// HybridStore's capacity planner (MixPlan): the cheapest mix of SSDs and HDDs for a
    /// workload's data classes over a horizon — device counts, each class's placement,
    /// purchase and recurring cost, what binds — solved as an integer program (HiGHS),
    /// each class's bandwidth measured on tierlab's device models.
    Plan(Box<cmd_plan::PlanArgs>),
    /// Replay a trace or synthetic workload against a device and report latency, throughput,
    /// energy and wear. With no arguments: the bundled default workload on the default HDD.
    Simulate(cmd_simulate::SimulateArgs),
    /// Miss-ratio curves: hit and miss ratios of LRU, FIFO, ARC, 2Q, WSClock, SIEVE and
    /// S3-FIFO at many cache sizes in one pass over a trace, by request and by byte, for
    /// fixed-size blocks or whole requests (libCacheSim's object traces included).
    Cache(Box<cmd_cache::CacheArgs>),
    /// The SSD model: compare flash translation layers on a trace.
    #[command(subcommand)]
    Ssd(cmd_ssd::SsdCommand),
    /// Read block I/O traces: statistics, formats.
    #[command(subcommand)]
    Trace(cmd_trace::TraceCommand),
    /// Synthetic workloads: show the bundled default, generate requests as a trace.
    #[command(subcommand)]
    Workload(cmd_workload::WorkloadCommand),
    /// Disks as they are laid out and as timing reveals them: the model's tracks, and a
    /// drive (model or real device) characterised by timing reads.
    #[command(subcommand)]
    Hdd(cmd_hdd::HddCommand),
    /// Check device models against measurements from real drives.
    #[command(subcommand)]
    Validate(cmd_validate::ValidateCommand),
    /// The device catalog: drives with their datasheet and power figures, each cited.
    #[command(subcommand)]
    Catalog(cmd_catalog::CatalogCommand),
    /// Serve a hybrid drive (an SSD path and an HDD path, files or block devices) as a
    /// real block device over NBD, moving extents with the same policy code `simulate` uses.
    Serve(Box<cmd_serve::ServeArgs>),
    /// Talk to a running `tierlab serve`: get and set tunables, stats, the mapping table.
    Ctl(cmd_serve::CtlArgs),
    /// Check a drive's metadata on both stores (and repair it with --repair).
    Fsck(cmd_serve::FsckArgs),
    /// Measure the simulator's own speed and memory.
    #[command(subcommand)]
    Bench(cmd_bench::BenchCommand),
    /// Run every workload × design of a sweep file as Ray tasks, on this machine or a
    /// cluster, into a resumable Parquet dataset (the Python package does the work:
    /// `pip install ./python`; see docs/python.md).
    Sweep(cmd_sweep::SweepArgs),
}

/// `tierlab ARGS…` (`args` includes the program name): parse, run, print any error the
/// way a shell user reads it, and say how it went in the exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let Some(command) = command_of(Cli::parse_from(args)) else {
        eprintln!("error: `overview` does not parse");
        return ExitCode::FAILURE;
    };
    match execute(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe (`tierlab … | head`) is not an error worth a message.
            let broken_pipe = |c: &(dyn std::error::Error + 'static)| {
                c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                    || c.downcast_ref::<serde_json::Error>().is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
            };
            if e.chain().any(broken_pipe) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e}");
            // A cause a message already quotes (an I/O error its reader's message names) is
            // not said again.
            let mut said = e.to_string();
            for cause in e.chain().skip(1).map(|c| c.to_string()) {
                if !said.contains(&cause) {
                    eprintln!("  caused by: {cause}");
                    said = cause;
                }
            }
            ExitCode::FAILURE
        }
    }
}

/// The command a parsed command line runs: `overview` when it names none.
fn command_of(cli: Cli) -> Option<Command> {
    cli.command.or_else(|| Cli::try_parse_from(["tierlab", "overview"]).ok().and_then(|c| c.command))
}

fn execute(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Overview(a) => cmd_overview::run(*a),
        Command::Compare(a) => cmd_compare::run(*a),
        Command::Array(c) => cmd_array::run(c),
        Command::Replicate(c) => cmd_replicate::run(c),
        Command::System(c) => cmd_system::run(c),
        Command::Plan(a) => cmd_plan::run(*a),
        Command::Simulate(a) => cmd_simulate::run(a),
        Command::Cache(a) => cmd_cache::run(*a),
        Command::Ssd(c) => cmd_ssd::run(c),
        Command::Trace(c) => cmd_trace::run(c),
        Command::Workload(c) => cmd_workload::run(c),
        Command::Validate(c) => cmd_validate::run(c),
        Command::Hdd(c) => cmd_hdd::run(c),
        Command::Catalog(c) => cmd_catalog::run(c),
        Command::Bench(c) => cmd_bench::run(c),
        Command::Serve(a) => cmd_serve::serve(*a),
        Command::Ctl(a) => cmd_serve::ctl(a),
        Command::Fsck(a) => cmd_serve::fsck(a),
        Command::Sweep(a) => cmd_sweep::run(a),
    }
}
