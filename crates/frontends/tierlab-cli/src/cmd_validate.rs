//! `tierlab validate …`: DiskSim drives validated (`tierlab_disksim::validate_path_as`)
//! and their table (`tierlab_render::validate`).

use anyhow::Result;
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ValidateCommand {
    /// Import DiskSim drive descriptions (.parv, .diskspecs, .model, .seek), replay each
    /// drive's validation trace, and report the demerit figure (distance between the
    /// service-time distributions) and the mean per-request error against the real drive.
    Disksim {
        /// A drive directory, or a directory of drive directories.
        dir: PathBuf,
        /// Whose behaviour to follow where DiskSim 4.0's code and the validated drives part
        /// ways: `drive` (the model's own) or `disksim` (DiskSim 4.0's timing of the same files).
        #[arg(long, value_enum, default_value_t = SemanticsArg::Drive)]
        semantics: SemanticsArg,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SemanticsArg {
    Drive,
    Disksim,
}

impl From<SemanticsArg> for tierlab_disksim::Semantics {
    fn from(s: SemanticsArg) -> Self {
        match s {
            SemanticsArg::Drive => tierlab_disksim::Semantics::Drive,
            SemanticsArg::Disksim => tierlab_disksim::Semantics::Disksim,
        }
    }
}

pub fn run(cmd: ValidateCommand) -> Result<()> {
    let ValidateCommand::Disksim { dir, semantics, json } = cmd;
    let semantics = tierlab_disksim::Semantics::from(semantics);
    let results = tierlab_disksim::validate_path_as(&dir, semantics)?;
    if results.is_empty() {
        return Err(anyhow::anyhow!("no DiskSim drive (a folder with a .parv file) found in {}", dir.display()));
    }
    let mut out = tierlab_commands::session::stdout();
    if json {
        serde_json::to_writer_pretty(&mut out, &results)?;
        writeln!(out)?;
        return Ok(());
    }
    write!(out, "{}", tierlab_render::validate::render_table(&results))?;
    // What each import approximates, on stderr beside the table.
    for v in &results {
        for n in &v.notes {
            eprintln!("note: {}: {n}", v.drive);
        }
    }
    Ok(())
}
