//! `tierlab system …`: what a storage system draws besides its disks. `controllers` and
//! `enclosures` print the catalog's storage controllers and disk enclosures with the
//! figures the GreenDM dissertation's chapter 4 derives from them; `savings` recomputes
//! its Figure 4.4 (how many enclosures must have every disk spun or powered down before
//! the whole system saves 20 %); `show` resolves a system description file. The studies
//! are `tierlab_system_study`'s and their rendering `tierlab_render::system`'s; this
//! module turns flags into their configurations and writes what comes back.

use crate::progress::{write_file, write_json};
use anyhow::{anyhow, Result};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use tierlab_render::system::{render_controllers, render_csv, render_curve, render_enclosures, render_show, render_summary};
use tierlab_system_power::study::{controller_figures, ControllerFigures};
use tierlab_system_power::{builtin, EnclosureEntry, LowPower};
use tierlab_system_study::{enclosure_reports, Pair, SavingsConfig, ShowConfig, SystemStudyError};

#[derive(Subcommand)]
pub enum SystemCommand {
    /// The catalog's storage controllers: idle power, usable capacity and idle watts per
    /// TB, power under each measured workload, idle power in the deepest CPU C-state.
    Controllers(ListArgs),
    /// The catalog's disk enclosures as measured with their disks inside (idle, every disk
    /// spun down, every slot powered down, every disk saturated), and the model's split of
    /// that power into a fixed part, a part per powered slot and the disks' own.
    Enclosures(ListArgs),
    /// Figure 4.4 recomputed: an idle controller with N idle enclosures full of disks, and
    /// the system's power as more of them have every disk spun down (or powered down).
    /// Without --controller: every controller that attaches N enclosures with every
    /// enclosure, summarised; with --controller and --enclosure: that pair's whole curve.
    Savings(SavingsArgs),
    /// Resolve a system description (a TOML file: controller, low_power, [[enclosures]])
    /// against the catalog and show where the disks sit and what the system draws besides
    /// them.
    Show(ShowArgs),
}

#[derive(Args)]
pub struct ListArgs {
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SavingsArgs {
    /// Enclosures attached to the controller (the chapter's 32).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub enclosures: u32,
    /// Show one controller's whole curve (a catalog id, `tierlab system controllers`);
    /// needs --enclosure.
    #[arg(long, value_name = "ID", requires = "enclosure")]
    pub controller: Option<String>,
    /// The enclosure of that curve (a catalog id, `tierlab system enclosures`); needs
    /// --controller.
    #[arg(long, value_name = "ID", requires = "controller")]
    pub enclosure: Option<String>,
    /// With --controller: power the managed enclosures' slots down instead of spinning
    /// their disks down (Figure 4.4(b)).
    #[arg(long, requires = "controller")]
    pub power_down: bool,
    /// Also write the curves as CSV here: the pair's, or every pair's in both modes.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write a self-contained HTML page with Figure 4.4's two charts here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print the whole report as JSON: the summary (or the pair's curve), the controllers
    /// left out, and the catalog's ids.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ShowArgs {
    /// The system description: `controller = "emc-dd880"`, optional `low_power`
    /// ("spin-down" or "power-down"), `controller_workload`, `controller_rated_mb_s`,
    /// `catalog` (a directory with system/controller/ and system/enclosure/ entries of
    /// its own), and one or more `[[enclosures]]` tables (model, count, disks).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Disks to place (default: the enclosures' `disks` if every table gives them, else
    /// every slot filled).
    #[arg(long, value_name = "N")]
    pub disks: Option<usize>,
    /// Print the resolved system as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: SystemCommand) -> Result<()> {
    match cmd {
        SystemCommand::Controllers(a) => controllers(a),
        SystemCommand::Enclosures(a) => enclosures(a),
        SystemCommand::Savings(a) => savings(a),
        SystemCommand::Show(a) => show(a),
    }
}

fn controllers(a: ListArgs) -> Result<()> {
    let figures: Vec<ControllerFigures> = builtin().controllers().map(controller_figures).collect();
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &figures);
    }
    write!(out, "{}", render_controllers(&figures))?;
    Ok(())
}

fn enclosures(a: ListArgs) -> Result<()> {
    let catalog = builtin();
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &enclosure_reports(&catalog));
    }
    let entries: Vec<&EnclosureEntry> = catalog.enclosures().collect();
    write!(out, "{}", render_enclosures(&entries))?;
    Ok(())
}

/// A study error named after the flag that set its field.
fn flag_error(e: SystemStudyError) -> anyhow::Error {
    let flag = match e.field() {
        Some("enclosures") => "--enclosures",
        Some("pair.controller") => "--controller",
        Some("pair.enclosure") => "--enclosure",
        Some("pair.mode") => "--power-down",
        _ => return e.into(),
    };
    anyhow!("{flag}: {}", e.message())
}

fn savings(a: SavingsArgs) -> Result<()> {
    let pair = match (&a.controller, &a.enclosure) {
        (Some(controller), Some(enclosure)) => Some(Pair {
            controller: controller.clone(),
            enclosure: enclosure.clone(),
            mode: if a.power_down { LowPower::PowerDown } else { LowPower::SpinDown },
        }),
        _ => None,
    };
    let cfg = SavingsConfig { enclosures: a.enclosures, pair, curves: a.csv.is_some() || a.html.is_some() };
    let report = tierlab_system_study::savings(&cfg).map_err(flag_error)?;
    if let Some(path) = &a.csv {
        // A pair's CSV has its own mode's curve; the summary's, every pair's.
        let curves = match &report.curve {
            Some(c) => std::slice::from_ref(c),
            None => &report.curves[..],
        };
        write_file(path, render_csv(curves))?;
    }
    if let Some(path) = &a.html {
        write_file(path, tierlab_render::system_html::render_savings(&report)?)?;
    }
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &report);
    }
    match &report.curve {
        Some(c) => Ok(write!(out, "{}", render_curve(c, report.enclosures))?),
        None => Ok(write!(out, "{}", render_summary(&report))?),
    }
}

fn show(a: ShowArgs) -> Result<()> {
    let report = tierlab_system_study::show(&ShowConfig { file: a.file.clone(), disks: a.disks })?;
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &report);
    }
    write!(out, "{}", render_show(&a.file, &report))?;
    Ok(())
}
