//! `tierlab trace …`

use crate::args::TraceInput;
use crate::progress::requests_bar;
use anyhow::Result;
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
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
    /// List the trace formats tierlab reads.
    Formats {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: TraceCommand) -> Result<()> {
    let mut out = std::io::stdout().lock();
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
