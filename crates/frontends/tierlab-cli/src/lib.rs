//! The `tierlab` command line: the study commands of `tierlab-commands` (overview,
//! compare, array, replicate, system, plan, simulate, cache, ssd, trace, workload) and the
//! command line's own — serving a hybrid drive over NBD (serve, ctl, fsck), probing and
//! validating disks (hdd, validate), the catalog, benchmarks and the Ray sweep launcher.
//! The `tierlab` binary runs [`main`]; so does the `tierlab` command the Python wheel
//! installs.

mod cmd_bench;
mod cmd_catalog;
mod cmd_hdd;
mod cmd_serve;
mod cmd_sweep;
mod cmd_validate;

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
    #[command(flatten)]
    Study(tierlab_commands::Command),
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
        Command::Study(c) => tierlab_commands::execute(c),
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
