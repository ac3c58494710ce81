//! `tierlab sweep FILE`: a sweep runs on Ray, whose driver is Python, so this command hands
//! the file to the Python package (`python -m tierlab sweep`), which runs every task with
//! this same code compiled into it. The interpreter is `$TIERLAB_PYTHON`, else `python3`.

use anyhow::{anyhow, Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::Command;

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep file (TOML): `[[workloads]]`, `[[designs]]` (lists expand to every
    /// combination), `[options]` common to every run, and `out` (see docs/python.md).
    pub file: PathBuf,
    /// The Parquet dataset (a directory) the rows are written to as runs complete; an
    /// interrupted sweep started again skips what it holds. Default: the file's `out`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A Ray cluster to run on (`ray://host:10001` or `host:6379`); default `$RAY_ADDRESS`,
    /// else a Ray started on this machine for the sweep.
    #[arg(long)]
    pub address: Option<String>,
    /// CPUs of the local Ray (when no cluster is given): tasks running at once.
    #[arg(long, value_name = "N")]
    pub workers: Option<u32>,
    /// Forget the rows already in the output and run everything again.
    #[arg(long)]
    pub restart: bool,
    /// Print the rows as one JSON array instead of a summary.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: SweepArgs) -> Result<()> {
    let python = std::env::var_os("TIERLAB_PYTHON").unwrap_or_else(|| "python3".into());
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "tierlab", "sweep"]).arg(&a.file);
    if let Some(out) = &a.out {
        cmd.arg("--out").arg(out);
    }
    if let Some(address) = &a.address {
        cmd.args(["--address", address]);
    }
    if let Some(n) = a.workers {
        cmd.args(["--workers", &n.to_string()]);
    }
    if a.restart {
        cmd.arg("--restart");
    }
    if a.json {
        cmd.arg("--json");
    }
    let has_package = Command::new(&python)
        .args(["-c", "import tierlab._native"])
        .output()
        .with_context(|| format!("cannot run {} (set TIERLAB_PYTHON to the Python that has the tierlab package)", python.to_string_lossy()))?
        .status
        .success();
    if !has_package {
        return Err(anyhow!(
            "`tierlab sweep` runs on Ray through tierlab's Python package, which {} cannot import: \
             install it with `pip install ./python ray` (from the repository), or set TIERLAB_PYTHON \
             to the interpreter that has it",
            python.to_string_lossy()
        ));
    }
    // Become the sweep rather than wait for it, so that Ctrl-C reaches one process, which
    // saves the rows that completed, stops its tasks and says how to resume.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let e = cmd.exec();
        return Err(anyhow!("cannot run {}: {e}", python.to_string_lossy()));
    }
    #[cfg(not(unix))]
    let status = cmd.status().with_context(|| format!("cannot run {}", python.to_string_lossy()))?;
    #[cfg(not(unix))]
    if status.success() {
        Ok(())
    } else {
        Err(anyhow!("the sweep failed ({status})"))
    }
}
