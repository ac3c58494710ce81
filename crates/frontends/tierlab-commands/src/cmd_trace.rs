//! `tierlab trace …`: statistics, HybridStore's data classes, the formats read. The
//! classes are `tierlab_plan_study`'s and their text `tierlab_render::trace`'s.

use crate::args::TraceInput;
use crate::progress::requests_bar;
use anyhow::Result;
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use tierlab_classes::ClassConfig;
use tierlab_plan_study::study::PlanProgress;
use tierlab_trace::Format;

#[derive(Subcommand)]
pub enum TraceCommand {
    /// Count requests, bytes, sizes, working set, sequentiality and volumes in a trace.
    Stats {
        /// The trace file (gzip, bzip2, xz and zstd are undone transparently).
        file: PathBuf,
        #[command(flatten)]
        input: TraceInput,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Cut the address space into records (1 MiB) and group them into HybridStore's data
    /// classes: hot or cold (above 1 IOPS in some second), read or write (majority of requests),
    /// request-size bin, and with `--classes 33` an intensity bin; per class its size and
    /// the 95th percentile of its per-second bandwidth (the capacity planner's S_j, F_j).
    Classes {
        file: PathBuf,
        #[command(flatten)]
        input: TraceInput,
        /// 17 (hot/cold × read/write × 4 sizes + untouched) or 33 (× 2 intensities).
        #[arg(long, default_value_t = 17)]
        classes: u32,
        /// Record size: bytes, or with a unit (1M).
        #[arg(long, value_name = "BYTES", default_value = "1M", value_parser = crate::args::parse_bytes)]
        record_size: u64,
        /// A record is hot above this IOPS in some window.
        #[arg(long, default_value_t = 1.0)]
        hot_iops: f64,
        /// The window for the hot test, seconds; 0 takes the mean over the whole trace.
        #[arg(long, value_name = "SECONDS", default_value_t = 1)]
        hot_window: u64,
        /// Upper edges of the request-size bins but the last (mean request size).
        #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "4K,16K,64K", value_parser = crate::args::parse_bytes)]
        size_edges: Vec<u64>,
        #[arg(long)]
        json: bool,
    },
    /// List the trace formats tierlab reads.
    Formats {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: TraceCommand) -> Result<()> {
    let mut out = crate::session::stdout();
    match cmd {
        TraceCommand::Stats { file, input, json } => {
            let reader = input.open(&file)?;
            let bar = requests_bar("reading");
            let stats = tierlab_trace::stats_with_progress(reader, &mut |n| bar.set_position(n))?;
            bar.finish_and_clear();
            if json {
                serde_json::to_writer_pretty(&mut out, &stats)?;
                writeln!(out)?;
            } else {
                write!(out, "{}", tierlab_trace::render_text(&stats))?;
            }
        }
        TraceCommand::Classes { file, input, classes, record_size, hot_iops, hot_window, size_edges, json } => {
            let intensity_bins = match classes {
                17 => 1,
                33 => 2,
                n => anyhow::bail!("--classes: expected 17 or 33, found {n}"),
            };
            let cfg = ClassConfig { record_bytes: record_size, hot_iops, hot_window_s: hot_window, size_edges_bytes: size_edges, intensity_bins };
            let bar = requests_bar("labelling records");
            let classes = tierlab_plan_study::study::characterise(&cfg, || input.open(&file), &mut |p| match p {
                PlanProgress::Labelling { requests } => bar.set_position(requests),
                PlanProgress::MeasuringClasses => bar.set_message("measuring classes"),
                _ => {}
            });
            bar.finish_and_clear();
            let classes = classes?;
            if json {
                serde_json::to_writer_pretty(&mut out, &classes)?;
                writeln!(out)?;
            } else {
                write!(out, "{}", tierlab_render::trace::render_classes(&classes))?;
            }
        }
        TraceCommand::Formats { json } => {
            if json {
                let list: Vec<_> = Format::ALL
                    .iter()
                    .map(|f| serde_json::json!({ "name": f.name(), "description": f.description() }))
                    .collect();
                serde_json::to_writer_pretty(&mut out, &list)?;
                writeln!(out)?;
            } else {
                for f in Format::ALL {
                    writeln!(out, "{:<18} {}", f.name(), f.description())?;
                }
            }
        }
    }
    Ok(())
}
