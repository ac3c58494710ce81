//! tierlab's study commands, for every front end: each command's parameters (one clap
//! definition, which `tierlab COMMAND --help`, the Python functions' signatures and the
//! checks of a Python call all read), turned into its study's configuration, run, and its
//! report written as text, JSON, CSV or HTML.
//!
//! The `tierlab` binary (`tierlab-cli`) parses a command line into a [`Command`] and
//! [`execute`]s it; the Python package (`tierlab-py`) calls a command by its path and
//! named parameters ([`api::Job::call`]) on a thread of its own, its report kept in memory.
//! The commands that serve, probe or browse (serve, ctl, fsck, hdd, validate, catalog,
//! bench, sweep) are the binary's own.

mod cmd_array;
mod cmd_cache;
mod cmd_compare;
mod cmd_overview;
mod cmd_plan;
mod cmd_replicate;
mod cmd_simulate;
mod cmd_ssd;
mod cmd_system;
mod cmd_trace;
mod cmd_workload;
mod describe;
mod measure_args;
mod params;
pub mod api;
pub mod args;
pub mod devices;
pub mod hybrid;
pub mod memory;
pub mod progress;
pub mod session;

use clap::Subcommand;

/// The study commands, in the order `tierlab --help` lists them.
#[derive(Subcommand)]
pub enum Command {
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
}

/// Run `command`, writing its report to [`session::stdout`].
pub fn execute(command: Command) -> anyhow::Result<()> {
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
    }
}

/// The study commands as a command line of their own (`tierlab` with one of them), for
/// [`api`] and [`describe`](api::describe).
#[derive(clap::Parser)]
#[command(name = "tierlab")]
struct Commands {
    #[command(subcommand)]
    command: Command,
}
