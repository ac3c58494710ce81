//! `tierlab workload …`

use anyhow::{Context, Result};
use clap::Subcommand;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tierlab_types::{Op, SECTOR_BYTES};
use tierlab_workload::WorkloadSpec;

#[derive(Subcommand)]
pub enum WorkloadCommand {
    /// Print a workload spec (the bundled default when no file is given) as TOML or JSON.
    Show {
        /// A workload TOML file (the keys of `tierlab workload show`).
        file: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Generate a workload's requests as a DiskSim ASCII trace (`arrival_ms devno
    /// lba_sectors size_sectors flags`: arrival in milliseconds, as DiskSim reads it, to the
    /// nanosecond; flags 1 for a read, 0 for a write), readable by `tierlab trace` (format
    /// `disksim-ms`) and by DiskSim.
    Generate {
        file: Option<PathBuf>,
        /// Write here instead of standard output.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
}

/// The workload in `file`, or the bundled default.
pub fn load_spec(file: Option<&Path>) -> Result<WorkloadSpec> {
    let spec = match file {
        Some(path) => tierlab_config::load_toml::<WorkloadSpec>(path)?,
        None => WorkloadSpec::bundled_default(),
    };
    spec.validate().with_context(|| match file {
        Some(p) => format!("in {}", p.display()),
        None => "in the bundled default workload".to_string(),
    })?;
    Ok(spec)
}

pub fn run(cmd: WorkloadCommand) -> Result<()> {
    match cmd {
        WorkloadCommand::Show { file, json } => {
            let spec = load_spec(file.as_deref())?;
            let mut out = crate::session::stdout();
            if json {
                serde_json::to_writer_pretty(&mut out, &spec)?;
                writeln!(out)?;
            } else {
                write!(out, "{}", toml::to_string(&spec)?)?;
            }
        }
        WorkloadCommand::Generate { file, out } => {
            let spec = load_spec(file.as_deref())?;
            let sink: Box<dyn Write> = match &out {
                Some(p) => Box::new(std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?),
                None => Box::new(crate::session::stdout()),
            };
            let mut w = BufWriter::new(sink);
            for r in spec.generate()? {
                let Ok(r) = r;
                // Sub-sector sizes round up: DiskSim counts whole sectors.
                let sectors = r.len_bytes.div_ceil(SECTOR_BYTES);
                let op = if r.op == Op::Read { 1 } else { 0 };
                let (ms, ns) = (r.time_ns / 1_000_000, r.time_ns % 1_000_000);
                writeln!(w, "{ms}.{ns:06} {} {} {sectors} {op}", r.volume, r.offset_bytes / SECTOR_BYTES)?;
            }
            w.flush()?;
        }
    }
    Ok(())
}
