//! `tierlab workload …`

use anyhow::{Context, Result};
use clap::Subcommand;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tierlab_hybrid_study::{Config, Mode};
use tierlab_engine::Device;
use tierlab_types::{Op, GIB, MIB, SECTOR_BYTES};
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

/// The bundled default workload, its span shrunk where the drive `config` builds cannot
/// hold it (an 18 GB disk, a 4 GB SSD's share of a hybrid drive): to 95 % of the room the
/// smallest device leaves, in whole GiB (MiB below 1 GiB). Also says, for stderr, what was
/// shrunk; `None` when the default fits as it is.
pub fn default_for(config: &Config) -> Result<(WorkloadSpec, Option<String>)> {
    let mut spec = load_spec(None)?;
    let mut limits: Vec<(u64, String)> = Vec::new();
    if config.mode != Some(Mode::SsdOnly) {
        let hdd = &config.hdd;
        let (name, bytes) = match &hdd.disksim {
            Some(dir) => {
                let imported = tierlab_disksim::import_drive(dir).with_context(|| format!("cannot import DiskSim drive {}", dir.display()))?;
                (format!("DiskSim drive {}", dir.display()), tierlab_hdd::Mechanics::new(imported.spec)?.capacity_bytes())
            }
            None => (format!("HDD `{}`", hdd.device), tierlab_devices::build_hdd(hdd)?.capacity_bytes()),
        };
        limits.push((bytes, format!("{name} holds {}", tierlab_report::fmt_bytes(bytes))));
    }
    if let Some(mode) = config.mode.filter(|m| *m != Mode::HddOnly) {
        let id = &config.hybrid.ssd;
        let ssd = tierlab_ssd::catalog::builtin(id)?.ssd.capacity_bytes();
        let (room, why) = if mode == Mode::SsdOnly {
            (ssd, String::new())
        } else {
            let share = config.hybrid.ssd_fraction;
            ((ssd as f64 / share.clamp(f64::MIN_POSITIVE, 1.0)).min(u64::MAX as f64) as u64, format!(", the SSD's share being {share}"))
        };
        limits.push((room, format!("SSD `{id}` holds {}{why}", tierlab_report::fmt_bytes(ssd))));
    }
    let Some((room, why)) = limits.into_iter().min_by_key(|(room, _)| *room) else {
        return Ok((spec, None));
    };
    if room >= spec.span_bytes {
        return Ok((spec, None));
    }
    let fit = room / 20 * 19;
    let unit = if fit >= GIB { GIB } else { MIB };
    let span = (fit / unit * unit).max(spec.align_bytes.max(65536));
    let note = format!(
        "the bundled default workload's span is {} instead of {}: {why} (give --workload FILE for another; `tierlab workload show` prints the default)",
        tierlab_report::fmt_bytes(span),
        tierlab_report::fmt_bytes(spec.span_bytes)
    );
    spec.span_bytes = span;
    Ok((spec, Some(note)))
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
