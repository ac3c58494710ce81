//! `tierlab trace …`: statistics, HybridStore's data classes, the formats read.

use crate::args::TraceInput;
use crate::progress::requests_bar;
use anyhow::Result;
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use tierlab_classes::{ClassConfig, Classes};
use tierlab_report::{fmt_bytes, Table};
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
                write!(out, "{}", render_classes(&classes))?;
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

/// The classes as people read them: the non-empty ones, then how many are empty.
pub fn render_classes(c: &Classes) -> String {
    let mut s = format!(
        "requests    {} over {:.1} s; {} records of {} touched\n",
        c.requests,
        c.span_s,
        c.records_touched,
        fmt_bytes(c.config.record_bytes)
    );
    s.push_str(&match c.config.hot_window_s {
        0 => format!("hot         above {} IOPS on average over the trace\n", c.config.hot_iops),
        w => format!("hot         above {} IOPS in some {w}-s window\n", c.config.hot_iops),
    });
    if let Some(edge) = c.intensity_edge_iops {
        s.push_str(&format!("intensity   1 above {edge} requests in a second (the median record's peak)\n"));
    }
    s.push_str("class       H/C hot or cold, R/W by majority, s = size bin (edges ");
    s.push_str(&c.config.size_edges_bytes.iter().map(|&b| fmt_bytes(b)).collect::<Vec<_>>().join(", "));
    s.push_str("), i = intensity\n\n");
    let mut t = Table::new(["class", "records", "size", "requests", "read %", "mean request", "F_j p95 KB/s", "mean KB/s"]);
    for d in c.classes.iter().filter(|d| d.records > 0) {
        t.row([
            d.label.clone(),
            d.records.to_string(),
            fmt_bytes(d.size_bytes),
            d.requests.to_string(),
            format!("{:.1}", d.read_fraction * 100.0),
            fmt_bytes(d.mean_request_bytes.round() as u64),
            format!("{:.1}", d.bandwidth_p95_bytes_s / 1e3),
            format!("{:.1}", d.bandwidth_mean_bytes_s / 1e3),
        ]);
    }
    s.push_str(&t.render());
    let empty = c.classes.iter().filter(|d| d.records == 0).count();
    s.push_str(&format!("{} classes, {empty} of them empty (all in --json)\n", c.classes.len()));
    s
}
