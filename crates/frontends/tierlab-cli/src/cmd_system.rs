//! `tierlab system …`: what a storage system draws besides its disks. `controllers` and
//! `enclosures` print the catalog's storage controllers and disk enclosures with the
//! figures the GreenDM dissertation's chapter 4 derives from them; `savings` recomputes
//! its Figure 4.4 (how many enclosures must have every disk spun or powered down before
//! the whole system saves 20 %); `show` resolves a system description file. The figures
//! are `tierlab_system_power`'s; this module turns flags into its calls and renders what
//! comes back.

use tierlab_render::charts::{column_notes, esc, figure, page_head, plot_linear, Chart, Marker, Reference, Series, Style, XAxis, PALETTE};
use tierlab_report::csv_field;
use crate::progress::{write_file, write_json};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use tierlab_report::Table;
use tierlab_system_power::study::{controller_figures, enclosure_figures, figure_4_4, managed_curve, ControllerFigures, CurvePoint, EnclosureFigures, PairSummary};
use tierlab_system_power::{builtin, EnclosureEntry, LowPower, System, SystemCatalog, SystemSpec};

/// The largest `--enclosures` accepted: a curve has one point per enclosure and each point
/// accounts every disk, so the work grows with its square.
const MAX_ENCLOSURES: u32 = 1000;

/// The saving Figure 4.4 asks about.
const TARGET: f64 = 0.2;

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
    /// Print the summary (or the pair's curve) as JSON.
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

/// A share as a percentage, without a "-0.0".
fn percent(share: f64) -> f64 {
    let p = share * 100.0;
    if p.abs() < 0.005 {
        0.0
    } else {
        p
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$}")).unwrap_or_else(|| "-".into())
}

// ---------------------------------------------------------------- controllers

fn controllers(a: ListArgs) -> Result<()> {
    let catalog = builtin();
    let figures: Vec<ControllerFigures> = catalog.controllers().map(controller_figures).collect();
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &figures);
    }
    write!(out, "{}", render_controllers(&figures))?;
    Ok(())
}

/// The controllers table and its source. Byte-stable (golden-file tested).
pub fn render_controllers(figures: &[ControllerFigures]) -> String {
    let workloads: BTreeSet<&str> = figures.iter().flat_map(|f| f.loaded.iter().map(|(w, _, _)| w.as_str())).collect();
    let mut header = vec!["controller".to_string(), "ship year".into(), "idle W".into(), "max TB".into(), "idle W/TB".into()];
    header.extend(workloads.iter().map(|w| format!("{w} W (rise)")));
    header.push("deep C idle W".into());
    let mut t = Table::new(header);
    for f in figures {
        let mut row = vec![
            f.id.clone(),
            f.ship_year.map(|y| y.to_string()).unwrap_or_else(|| "-".into()),
            format!("{:.1}", f.idle_w),
            opt(f.max_capacity_tb, 0),
            opt(f.idle_w_per_tb, 3),
        ];
        for w in &workloads {
            row.push(match f.loaded.iter().find(|(name, _, _)| name == w) {
                Some((_, rise, loaded)) => format!("{loaded:.1} (+{:.0} %)", percent(*rise)),
                None => "-".into(),
            });
        }
        row.push(opt(f.deep_c_idle_w, 1));
        t.row(row);
    }
    let mut s = t.render();
    s.push_str(
        "\nSource: GreenDM dissertation, chapter 4: Table 4.4 (idle power), Table 4.5 (rise from idle to loaded under \
         WL-A (NFS), WL-B (OST), WL-C (BOOST)), section 4.3.1 (maximum usable capacities; DD990 in C6, the only one \
         with a deep C-state).\n",
    );
    s
}

// ---------------------------------------------------------------- enclosures

/// An enclosure's figures with the entry's lists of derived and estimated keys.
#[derive(Serialize)]
struct EnclosureReport {
    #[serde(flatten)]
    figures: EnclosureFigures,
    slot_power_on_s: Option<f64>,
    derived: Vec<String>,
    estimates: Vec<String>,
}

fn enclosures(a: ListArgs) -> Result<()> {
    let catalog = builtin();
    let entries: Vec<&EnclosureEntry> = catalog.enclosures().collect();
    let mut out = crate::session::stdout();
    if a.json {
        let reports: Vec<EnclosureReport> = entries
            .iter()
            .map(|e| EnclosureReport {
                figures: enclosure_figures(e),
                slot_power_on_s: e.slot_power_on_s,
                derived: e.derived.clone(),
                estimates: e.estimates.clone(),
            })
            .collect();
        return write_json(&mut out, &reports);
    }
    write!(out, "{}", render_enclosures(&entries))?;
    Ok(())
}

const DERIVED: &str = "*";
const ESTIMATE: &str = "†";

/// A value followed by its marker: `*` if the entry derived it, `†` if it estimated it,
/// a space otherwise (so that marked and unmarked numbers line up).
fn marked(value: String, e: &EnclosureEntry, key: &str, used: &mut BTreeSet<&'static str>) -> String {
    let mark = if e.derived.iter().any(|k| k == key) {
        DERIVED
    } else if e.estimates.iter().any(|k| k == key) {
        ESTIMATE
    } else {
        " "
    };
    if mark != " " {
        used.insert(mark);
    }
    format!("{value}{mark}")
}

fn range_check(in_range: Option<bool>, range: Option<[f64; 2]>) -> String {
    match (in_range, range) {
        (Some(ok), Some([lo, hi])) => format!("{} {lo}-{hi}", if ok { "in" } else { "OUTSIDE" }),
        _ => "-".into(),
    }
}

/// The enclosures' measured states, the model's split, and the legend. Byte-stable
/// (golden-file tested).
pub fn render_enclosures(entries: &[&EnclosureEntry]) -> String {
    let mut used = BTreeSet::new();
    let mut t = Table::new([
        "enclosure", "ship year", "slots", "idle W", "spun down W", "saving %", "powered down W", "saving %", "max W", "rise %",
    ]);
    for e in entries {
        let f = enclosure_figures(e);
        t.row([
            f.id.clone(),
            e.ship_year.map(|y| y.to_string()).unwrap_or_else(|| "-".into()),
            f.slots.to_string(),
            marked(format!("{:.1}", f.idle_w), e, "idle_w", &mut used),
            marked(format!("{:.1}", f.spun_down_w), e, "spun_down_w", &mut used),
            marked(format!("{:.1}", percent(f.spun_down_saving)), e, "spun_down_w", &mut used),
            marked(opt(f.powered_down_w, 1), e, "powered_down_w", &mut used),
            marked(opt(f.powered_down_saving.map(percent), 1), e, "powered_down_w", &mut used),
            marked(opt(f.max_w, 1), e, "max_w", &mut used),
            marked(opt(f.max_rise.map(percent), 1), e, "max_w", &mut used),
        ]);
    }
    let mut s = String::from("measured, with the disks inside (saving and rise against idle)\n\n");
    s.push_str(&t.render());

    let mut t = Table::new([
        "enclosure", "base W", "per-slot W", "disk standby W", "disk idle W", "vendor idle W", "disk active W", "vendor active W", "slot power-on s",
    ]);
    for e in entries {
        let f = enclosure_figures(e);
        let m = &f.model;
        t.row([
            f.id.clone(),
            marked(format!("{:.2}", m.base_w), e, "powered_down_w", &mut used),
            format!("{:.3} ", m.slot_w),
            marked(format!("{:.2}", m.measured_standby_w), e, "measured_disk.standby_w", &mut used),
            format!("{:.3} ", m.implied_idle_w),
            range_check(f.implied_idle_in_range, e.measured_disk.idle_w_range),
            m.implied_active_w.map(|w| format!("{w:.3} ")).unwrap_or_else(|| "- ".into()),
            range_check(f.implied_active_in_range, e.measured_disk.active_w_range),
            marked(opt(e.slot_power_on_s, 1), e, "slot_power_on_s", &mut used),
        ]);
    }
    s.push_str("\nthe model: enclosure W = base + per-slot × powered slots + the disks' own W\n\n");
    s.push_str(&t.render());
    s.push_str(
        "\nbase: every slot powered down; per-slot: the spun-down figure less base and the disks' standby power, per slot;\n\
         disk idle and active: the idle and max figures less base and the slots, per disk, as the enclosure measured them,\n\
         checked against the vendor ranges the chapter quotes for the drives inside.\n",
    );
    if used.contains(DERIVED) {
        s.push_str(&format!("{DERIVED} derived from printed figures, not printed itself (the entry's `assumptions` say how)\n"));
    }
    if used.contains(ESTIMATE) {
        s.push_str(&format!("{ESTIMATE} an estimate, not a measurement (the entry's `assumptions` say why)\n"));
    }
    s.push_str(
        "Source: GreenDM dissertation, chapter 4: Table 4.2 (slots, ship year), Table 4.6 (idle and max power), section \
         4.3.2 and Figure 4.3 (spin-down and power-down), section 4.2 (the drives: 6-8 W idle, 8-12 W active, under 1 W \
         spun down).\n",
    );
    s
}

// ---------------------------------------------------------------- savings

fn check_enclosures(n: u32) -> Result<u32> {
    if n == 0 || n > MAX_ENCLOSURES {
        bail!("--enclosures: expected 1 to {MAX_ENCLOSURES} enclosures, found {n}");
    }
    Ok(n)
}

/// One controller × enclosure curve in one mode.
struct Curve {
    controller: String,
    enclosure: String,
    slots: u32,
    mode: LowPower,
    points: Vec<CurvePoint>,
}

/// The pair's curve, with flags named in errors.
fn pair_curve(catalog: &SystemCatalog, controller: &str, enclosure: &str, n: u32, mode: LowPower) -> Result<Curve> {
    let c = catalog.controller(controller).map_err(|e| anyhow!("--controller: {e}"))?;
    let e = catalog.enclosure(enclosure).map_err(|e| anyhow!("--enclosure: {e}"))?;
    if let Some(max) = c.max_enclosures {
        if n > max {
            bail!("--enclosures: `{}` attaches at most {max} enclosures, found {n}", c.id);
        }
    }
    if mode == LowPower::PowerDown && !e.power_down {
        bail!("--power-down: `{}` cannot power its slots down (power_down = false in its entry)", e.id);
    }
    let points = managed_curve(catalog, controller, enclosure, n, mode).map_err(anyhow::Error::msg).with_context(|| format!("{controller} with {n} × {enclosure}"))?;
    Ok(Curve { controller: c.id.clone(), enclosure: e.id.clone(), slots: e.slots, mode, points })
}

/// Every pair's curve in the order of `summary`.
fn curves_of(catalog: &SystemCatalog, summary: &[PairSummary], n: u32) -> Result<Vec<Curve>> {
    summary.iter().map(|p| pair_curve(catalog, &p.controller, &p.enclosure, n, p.mode)).collect()
}

fn savings(a: SavingsArgs) -> Result<()> {
    let n = check_enclosures(a.enclosures)?;
    let catalog = builtin();
    let mut out = crate::session::stdout();
    if let (Some(controller), Some(enclosure)) = (&a.controller, &a.enclosure) {
        let mode = if a.power_down { LowPower::PowerDown } else { LowPower::SpinDown };
        let curve = pair_curve(&catalog, controller, enclosure, n, mode)?;
        if let Some(path) = &a.csv {
            write_file(path, render_csv(std::slice::from_ref(&curve)))?;
        }
        if let Some(path) = &a.html {
            let mut both = vec![pair_curve(&catalog, controller, enclosure, n, LowPower::SpinDown)?];
            if catalog.enclosure(enclosure).is_ok_and(|e| e.power_down) {
                both.push(pair_curve(&catalog, controller, enclosure, n, LowPower::PowerDown)?);
            }
            write_file(path, render_html(&catalog, &both, &[], n)?)?;
        }
        if a.json {
            return write_json(&mut out, &curve.points);
        }
        write!(out, "{}", render_curve(&curve, n))?;
        return Ok(());
    }
    let summary = figure_4_4(&catalog, n).map_err(anyhow::Error::msg)?;
    if summary.is_empty() {
        bail!("--enclosures: no catalog controller attaches {n} enclosures");
    }
    if a.csv.is_some() || a.html.is_some() {
        let curves = curves_of(&catalog, &summary, n)?;
        if let Some(path) = &a.csv {
            write_file(path, render_csv(&curves))?;
        }
        if let Some(path) = &a.html {
            write_file(path, render_html(&catalog, &curves, &summary, n)?)?;
        }
    }
    if a.json {
        return write_json(&mut out, &summary);
    }
    write!(out, "{}", render_summary(&catalog, &summary, n))?;
    Ok(())
}

/// The controllers Figure 4.4 leaves out at `n` enclosures, with why.
fn left_out(catalog: &SystemCatalog, n: u32) -> Vec<String> {
    catalog
        .controllers()
        .filter_map(|c| c.max_enclosures.filter(|&m| m < n).map(|m| format!("{} (attaches at most {m} enclosures)", c.id)))
        .collect()
}

/// "13 of 32" and "40.6", or "never" and "-".
fn target_cells(managed: Option<u32>, share: Option<f64>, n: u32) -> (String, String) {
    match (managed, share) {
        (Some(k), Some(s)) => (format!("{k} of {n}"), format!("{:.1}", percent(s))),
        _ => ("never".into(), "-".into()),
    }
}

/// Figure 4.4 in one row per pair and mode. Byte-stable (golden-file tested).
const SUMMARY_HEADER: [&str; 7] = ["controller", "enclosure", "low power", "unmanaged W", "managed for 20 %", "disks %", "all managed saving %"];

/// One pair's row of the Figure 4.4 summary (text and HTML).
fn summary_cells(p: &PairSummary, n: u32) -> [String; 7] {
    let (k, share) = target_cells(p.managed_for_20pct, p.disk_share_for_20pct, n);
    [p.controller.clone(), p.enclosure.clone(), p.mode.name().to_string(), format!("{:.1}", p.unmanaged_w), k, share, format!("{:.1}", percent(p.saving_all))]
}

pub fn render_summary(catalog: &SystemCatalog, summary: &[PairSummary], n: u32) -> String {
    let mut s = format!(
        "system      an idle controller with {n} idle enclosures full of their measured disks (GreenDM Figure 4.4)\n\
         managed     enclosures with every disk spun down (spin-down) or every slot powered down (power-down)\n\
         saving      1 − system power / the unmanaged system's; the target is {:.0} %\n",
        TARGET * 100.0
    );
    let out = left_out(catalog, n);
    if !out.is_empty() {
        s.push_str(&format!("left out    {}\n", out.join(", ")));
    }
    s.push('\n');
    let mut t = Table::new(SUMMARY_HEADER);
    for p in summary {
        t.row(summary_cells(p, n));
    }
    s.push_str(&t.render());
    s.push_str(&format!(
        "\n`tierlab system savings --controller ID --enclosure ID [--power-down]` shows a pair's curve for k = 0..{n}.\n"
    ));
    s
}

/// One pair's curve, k = 0..n. Byte-stable for a given pair.
fn render_curve(c: &Curve, n: u32) -> String {
    let disks = u64::from(c.slots) * u64::from(n);
    let mut s = format!(
        "system      idle {} + {n} × idle {} ({disks} disks)\nmanaged     k enclosures with every {}\nsaving      1 − system power / the unmanaged system's\n",
        c.controller,
        c.enclosure,
        if c.mode == LowPower::PowerDown { "slot powered down" } else { "disk spun down" }
    );
    match c.points.iter().find(|p| p.saving >= TARGET - 1e-12) {
        Some(p) => s.push_str(&format!(
            "20 %        reached at k = {} ({:.1} % of the disks)\n",
            p.managed,
            percent(f64::from(p.managed) / f64::from(n))
        )),
        None => s.push_str("20 %        never reached\n"),
    }
    s.push('\n');
    let mut t = Table::new(["managed enclosures", "managed disks", "system W", "saving %"]);
    for p in &c.points {
        t.row([
            p.managed.to_string(),
            (u64::from(p.managed) * u64::from(c.slots)).to_string(),
            format!("{:.1}", p.total_w),
            format!("{:.1}", percent(p.saving)),
        ]);
    }
    s.push_str(&t.render());
    s
}

fn render_csv(curves: &[Curve]) -> String {
    let mut s = String::from("controller,enclosure,mode,enclosures,managed,managed_disks,total_w,saving\n");
    for c in curves {
        let n = c.points.len().saturating_sub(1);
        for p in &c.points {
            let _ = writeln!(
                s,
                "{},{},{},{n},{},{},{},{}",
                csv_field(&c.controller),
                csv_field(&c.enclosure),
                c.mode.name(),
                p.managed,
                u64::from(p.managed) * u64::from(c.slots),
                p.total_w,
                p.saving
            );
        }
    }
    s
}

const STYLE: Style = Style { height: 460, legend_width: 200, zero_based: true };

/// Category labels 0..=n, thinned to about 16 so that they stay readable.
fn k_labels(n: u32) -> Vec<String> {
    let step = [1, 2, 5, 10, 20, 50, 100, 200].into_iter().find(|s| n / s <= 16).unwrap_or(100);
    (0..=n).map(|k| if k % step == 0 { k.to_string() } else { String::new() }).collect()
}

/// The chapter's Figure 4.4 (a) and (b), then the summary table when there is one.
fn render_html(catalog: &SystemCatalog, curves: &[Curve], summary: &[PairSummary], n: u32) -> Result<String> {
    let mut s = page_head(
        "tierlab system savings",
        "table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}td:nth-child(-n+3){text-align:left}th{background:#f2f2f2}",
    );
    let _ = writeln!(
        s,
        "<p>An idle controller with {n} idle enclosures full of their measured disks; k of the enclosures have every disk spun down \
         (a) or every slot powered down (b). The saving is 1 − system power / the unmanaged system's (cf. the GreenDM dissertation, \
         Figure 4.4). A controller keeps its colour; each enclosure has its own marker and line.</p>"
    );
    let controllers: Vec<String> = catalog.controllers().map(|c| c.id.clone()).collect();
    let enclosures: Vec<String> = catalog.enclosures().map(|e| e.id.clone()).collect();
    let labels = k_labels(n);
    for (mode, caption) in [
        (LowPower::SpinDown, "(a) Disk spin-down: system power saved against enclosures with every disk spun down"),
        (LowPower::PowerDown, "(b) Disk power-down: system power saved against enclosures with every slot powered down"),
    ] {
        let series: Vec<Series> = curves
            .iter()
            .filter(|c| c.mode == mode)
            .map(|c| {
                let ci = controllers.iter().position(|id| *id == c.controller).unwrap_or(0);
                let ei = enclosures.iter().position(|id| *id == c.enclosure).unwrap_or(0);
                Series {
                    label: format!("{} + {}", c.controller, c.enclosure),
                    colour: PALETTE[ci % PALETTE.len()],
                    dashed: ei % 2 == 1,
                    marker: if ei % 2 == 1 { Marker::Triangle } else { Marker::Circle },
                    points: c.points.iter().map(|p| (f64::from(p.managed), p.saving * 100.0, true)).collect(),
                }
            })
            .collect();
        if series.is_empty() {
            let _ = writeln!(s, "<p>{}: no enclosure here can power its slots down.</p>", esc(caption));
            continue;
        }
        let chart = Chart::new("enclosures with power-managed disks", "total system power saved (%)", XAxis::Categories(&labels), &series)
            .joined()
            .reference(Reference::level("20 % saved", TARGET * 100.0));
        figure(&mut s, caption, &plot_linear(&chart, STYLE)?);
    }
    if !summary.is_empty() {
        s.push_str("<h2>Table</h2>\n<table><thead><tr>");
        for h in SUMMARY_HEADER {
            let _ = write!(s, "<th>{}</th>", esc(h));
        }
        s.push_str("</tr></thead><tbody>\n");
        for p in summary {
            s.push_str("<tr>");
            for c in &summary_cells(p, n) {
                let _ = write!(s, "<td>{}</td>", esc(c));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table>\n");
        column_notes(
            &mut s,
            &[
                ("controller, enclosure", "the pair of the system"),
                ("low power", "spin-down: every disk of a managed enclosure spun down; power-down: every slot powered down"),
                ("unmanaged W", "power of the whole system with no disk power-managed"),
                ("managed for 20 %", "enclosures that must be power-managed for the system to save 20 % of its power"),
                ("disks %", "the share of the system's disks those enclosures hold"),
                ("all managed saving %", "power saved with every enclosure power-managed, 1 − system power / the unmanaged system's"),
            ],
        );
    }
    s.push_str("</body></html>\n");
    Ok(s)
}

// ---------------------------------------------------------------- show

/// The resolved system with the figures `show` prints.
#[derive(Serialize)]
struct ShowReport<'a> {
    description: String,
    #[serde(flatten)]
    system: &'a System,
    /// Each enclosure's own power with its disks' slots powered, W.
    enclosures_own_w: Vec<f64>,
    controller_loaded_w: f64,
    /// Controller idle + every enclosure's own power, disks excluded, W.
    idle_w_excluding_disks: f64,
}

/// The disks `show` places by default: the enclosures' `disks` when every table gives
/// them, else every slot (enclosure models the catalog lacks count none: resolving then
/// names them).
fn default_disks(spec: &SystemSpec) -> usize {
    let given: Option<u64> = spec.enclosures.iter().map(|g| g.disks.map(|d| u64::from(d) * u64::from(g.count))).sum();
    if let Some(d) = given {
        return d as usize;
    }
    let catalog = match &spec.catalog {
        Some(dir) => SystemCatalog::with_dir(dir).ok(),
        None => Some(builtin()),
    };
    let Some(catalog) = catalog else { return 0 };
    spec.enclosures
        .iter()
        .filter_map(|g| catalog.enclosure(&g.model).ok().map(|e| u64::from(e.slots) * u64::from(g.count)))
        .sum::<u64>() as usize
}

fn show(a: ShowArgs) -> Result<()> {
    let path = &a.file;
    let spec: SystemSpec = tierlab_config::load_toml_validated(path)?;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let disks = a.disks.unwrap_or_else(|| default_disks(&spec));
    let system = spec.resolve_with_own_catalog(disks).map_err(|e| tierlab_config::field_error(&text, &path.display().to_string(), e))?;
    let own: Vec<f64> = system.enclosures.iter().zip(&system.disks_per_enclosure).map(|(e, &d)| e.own_w(f64::from(d))).collect();
    let report = ShowReport {
        description: system.describe(),
        enclosures_own_w: own.clone(),
        controller_loaded_w: system.controller.power_w(1.0),
        idle_w_excluding_disks: system.controller.idle_w + own.iter().sum::<f64>(),
        system: &system,
    };
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &report);
    }
    write!(out, "{}", render_show(path, &report))?;
    Ok(())
}

fn render_show(path: &Path, r: &ShowReport) -> String {
    let sys = r.system;
    let c = &sys.controller;
    let mut s = format!("file        {}\nsystem      {}\n", path.display(), r.description);
    let low = match sys.power_down_extra_s() {
        Some(extra) => format!("power-down: a managed disk's slot is cut; it comes back {extra:.1} s slower than from a spin-down"),
        None => "spin-down: a managed disk stops its spindle; its slot stays powered".into(),
    };
    s.push_str(&format!("low power   {low}\n"));
    let load = match (&c.workload, c.rated_mb_s) {
        (Some(w), Some(r)) => format!("loaded {:.1} W ({w}, +{:.0} %) at {r} MB/s", c.power_w(1.0), percent(c.rise)),
        (Some(w), None) => format!("loaded {:.1} W ({w}, +{:.0} %) when it moves data as fast as all its disks stream", c.power_w(1.0), percent(c.rise)),
        (None, _) => "no load figures: its power stays at idle".into(),
    };
    s.push_str(&format!("controller  {}: idle {:.1} W, {load}\n\n", c.id, c.idle_w));
    let mut t = Table::new(["enclosure", "disks", "slots", "base W", "per-slot W", "own W"]);
    for (i, (e, &d)) in sys.enclosures.iter().zip(&sys.disks_per_enclosure).enumerate() {
        t.row([
            format!("{i}: {}", e.id),
            d.to_string(),
            e.slots.to_string(),
            format!("{:.2}", e.base_w),
            format!("{:.3}", e.slot_w),
            format!("{:.2}", r.enclosures_own_w[i]),
        ]);
    }
    s.push_str(&t.render());
    let enclosures_w: f64 = r.enclosures_own_w.iter().sum();
    s.push_str(&format!(
        "\nown W: base + per-slot × the enclosure's disks (their slots powered), the disks' own power excluded\n\
         idle, disks excluded: {:.1} W (controller {:.1} W + enclosures {:.1} W)\n",
        r.idle_w_excluding_disks, c.idle_w, enclosures_w
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_thin_out_on_long_axes() {
        assert_eq!(k_labels(4), ["0", "1", "2", "3", "4"]);
        let l = k_labels(32);
        assert_eq!((l[0].as_str(), l[1].as_str(), l[2].as_str(), l[32].as_str()), ("0", "", "2", "32"));
        assert!(k_labels(1000).iter().filter(|s| !s.is_empty()).count() <= 17);
    }

    #[test]
    fn percentages_have_no_negative_zero() {
        assert_eq!(format!("{:.1}", percent(-1e-9)), "0.0");
        assert_eq!(format!("{:.1}", percent(0.406)), "40.6");
    }
}
