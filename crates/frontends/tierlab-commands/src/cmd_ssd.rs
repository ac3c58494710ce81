//! `tierlab ssd …`: the SSD catalog listed (`tierlab_render::ssd`), and a trace replayed
//! under every FTL (`tierlab_ssd::compare_ftl`).

use crate::args::TraceInput;
use anyhow::{anyhow, Context, Result};
use clap::{Args, Subcommand};
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use tierlab_ssd::{compare_ftl, CompareOptions, FtlKind, Precondition, SsdSpec};
use tierlab_trace::Compactor;
use tierlab_types::{IoRequest, KIB};

#[derive(Subcommand)]
pub enum SsdCommand {
    /// List the SSD catalog: capacity, FTL, rated endurance, and the data-sheet figures of
    /// the drives that have them (those can be timed with `--ssd-timing datasheet`).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Replay a trace on the same SSD under every FTL (page, block, BAST, FAST, DFTL) and
    /// print one table: response time, page reads/writes for data, GC and mapping, erases,
    /// merges, write amplification, wear and projected lifetime, energy.
    CompareFtl(CompareFtlArgs),
}

#[derive(Args)]
pub struct CompareFtlArgs {
    trace: PathBuf,
    #[command(flatten)]
    input: TraceInput,
    /// An SSD description (a `catalog/ssd/*.toml` file). Default: the study's SLC drive
    /// sized so that the trace's footprint fills --occupancy of it.
    #[arg(long, value_name = "FILE")]
    spec: Option<PathBuf>,
    /// Share of the drive's user capacity the trace's data fills (default drive only).
    #[arg(long, default_value_t = 0.75)]
    occupancy: f64,
    /// One channel, one die (FlashSim's serial drive) for the default drive.
    #[arg(long)]
    serial: bool,
    /// Replays of the trace before the measured one, to age the drive with its own locality.
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Only these FTLs (repeatable): page, block, bast, fast, dftl.
    #[arg(long = "ftl", value_name = "FTL")]
    ftls: Vec<FtlKind>,
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: SsdCommand) -> Result<()> {
    match cmd {
        SsdCommand::List { json } => list(json),
        SsdCommand::CompareFtl(a) => compare(a),
    }
}

fn list(json: bool) -> Result<()> {
    let listed = tierlab_render::ssd::list()?;
    let mut out = crate::session::stdout();
    if json {
        serde_json::to_writer_pretty(&mut out, &listed)?;
        writeln!(out)?;
        return Ok(());
    }
    write!(out, "{}", tierlab_render::ssd::render_list(&listed))?;
    Ok(())
}

fn compare(a: CompareFtlArgs) -> Result<()> {
    let CompareFtlArgs { trace, input, spec, occupancy, serial, warmup, ftls, json } = a;
    if !(occupancy > 0.0 && occupancy <= 1.0) {
        return Err(anyhow!("--occupancy: expected a share above 0 and at most 1, found {occupancy}"));
    }
    // Pass 1 learns the trace's footprint and reports any bad input; later passes re-read
    // the same bytes, so they cannot fail differently.
    let error = RefCell::new(None);
    let requests = || -> Result<Box<dyn Iterator<Item = IoRequest> + '_>> {
        let reader = input.open(&trace)?;
        Ok(Box::new(reader.map_while(|r| r.map_err(|e| *error.borrow_mut() = Some(e)).ok())))
    };
    let compactor = Compactor::build(128 * KIB, requests()?);
    if let Some(e) = error.borrow_mut().take() {
        return Err(e).with_context(|| format!("cannot read trace {}", trace.display()));
    }
    let base = match &spec {
        Some(path) => tierlab_ssd::catalog::load_catalog_file(path)?.ssd,
        None => {
            let mut s = SsdSpec::study_slc_for_footprint(compactor.footprint_bytes(), occupancy, serial, FtlKind::Page);
            s.name = format!("study-slc{}", if serial { "-serial" } else { "" });
            s
        }
    };
    let fill = (compactor.footprint_bytes() as f64 / base.capacity_bytes() as f64).min(1.0);
    let opts = CompareOptions {
        ftls: if ftls.is_empty() { FtlKind::ALL.to_vec() } else { ftls },
        precondition: Precondition { occupancy: fill, random_overwrites: 0.0, seed: 1 },
        warmup_passes: warmup,
        ..CompareOptions::default()
    };
    let mut passes = || {
        requests().map(|it| it.filter_map(|r| compactor.map(&r))).into_iter().flatten()
    };
    let cmp = compare_ftl(&mut passes, &base, &opts)?;
    let mut out = crate::session::stdout();
    if json {
        serde_json::to_writer_pretty(&mut out, &cmp)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{}: footprint {:.1} MiB on {:.1} MiB of flash ({:.0} % full)",
            trace.display(),
            compactor.footprint_bytes() as f64 / (1 << 20) as f64,
            base.capacity_bytes() as f64 / (1 << 20) as f64,
            fill * 100.0
        )?;
        write!(out, "{}", cmp.to_text())?;
    }
    Ok(())
}
