//! Self-contained HTML reports of `tierlab replicate run` and `sweep`: charts (inline SVG,
//! drawn by `crate::charts`), then the tables. No timestamps: the same run gives the same
//! bytes.
//!
//! - `run`: mean power of a data disk and of a log disk per scheme, and each scheme's
//!   saving against conventional replication;
//! - `sweep`: the weighted saving against the window size, one line per RTO (the paper's
//!   Fig. 3), for each warehouse count and standby level; with several standby levels the
//!   saving per level at each RTO (Fig. 4); the observed batch interval T_wnd and the
//!   start/stop cycles a day against the window size.
//!
//! A series keeps its colour across charts; filled markers are points where the data
//! volume slept, hollow ones where it never did (infeasible).

use crate::charts::{column_notes, esc, figure, table_head, num, page_head, plot_linear, plot_log, Chart, Marker, PointLabel, Reference, Series, Style, XAxis, PALETTE};
use crate::replicate::{disk_cells, disk_tables, primary_line, scheme_cells, size_label, sweep_cells, sweep_lines, RunContext, SweepPoint, SweepReport};
use anyhow::Result;
use std::fmt::Write;
use tierlab_replication_sim::Comparison;

/// Linear axes start at zero unless a value is negative.
const STYLE: Style = Style { height: 420, legend_width: 200, zero_based: true };

/// A series in palette colour `colour` (taken round the palette), marked with circles.
fn series(label: String, colour: usize, dashed: bool, points: Vec<(f64, f64, bool)>) -> Series {
    Series { label, colour: PALETTE[colour % PALETTE.len()], dashed, marker: Marker::Circle, points }
}

/// The report's own styles, after those `crate::charts::page_head` gives every page.
const CSS: &str = "table{border-collapse:collapse;font-size:13px;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}td:first-child{text-align:left}th{background:#f2f2f2}\n\
                   dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:600}dd{margin:0}td.t{text-align:left}.infeasible{color:#c0392b}";

fn settings(out: &mut String, lines: &[(&str, String)]) {
    out.push_str("<dl>\n");
    for (k, v) in lines {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    out.push_str("</dl>\n");
}

fn html_table(out: &mut String, header: &[String], cells: &[Vec<String>]) {
    table_head(out, header);
    for row in cells {
        out.push_str("<tr>");
        for c in row {
            if c.starts_with("infeasible") {
                let _ = write!(out, r#"<td class="t infeasible">{}</td>"#, esc(c));
            } else if c.contains(' ') {
                let _ = write!(out, r#"<td class="t">{}</td>"#, esc(c));
            } else {
                let _ = write!(out, "<td>{}</td>", esc(c));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    let notes: Vec<(&str, &str)> = header.iter().filter_map(|h| column_note(h).map(|n| (h.as_str(), n))).collect();
    column_notes(out, &notes);
}

/// What a column of the reports' tables measures.
fn column_note(header: &str) -> Option<&'static str> {
    Some(match header {
        "scheme" => "conventional (the secondary applies the log as it arrives) or proposed (it batches the log and its data disks sleep between batches)",
        "saving %" => "1 − the secondary's power (data and log disks) / conventional replication's",
        "weighted %" | "weighted saving %" => "the saving weighted as the paper's reference system (data and log disks)",
        "data %" | "data saving %" => "the saving of the data disks alone",
        "system %" => "the saving of the whole secondary system's power (controller, enclosures, disks)",
        "R_gen MiB/s" => "log the primary generates per second",
        "R_apl MiB/s" => "log the secondary applies per second of apply time",
        "r" => "R_apl / R_gen: how much faster than it arrives the log is applied",
        "T_wnd plan s" => "batch interval the batch formula gives at the measured r",
        "T_wnd obs s" => "batch interval observed between spin-ups",
        "cycles/day" => "start/stop cycles of the data disks a day",
        "worst recovery s" => "the longest the secondary would have needed to recover (apply its outstanding log) at any moment",
        "RTO violations" | "violations" => "times the exposed recovery time went above the RTO",
        "data disk W" => "mean power of one data disk",
        "log disk W" => "mean power of one log disk",
        "disk" => "the disk",
        "role" => "what it holds",
        "W" => "its mean power",
        "util %" => "share of the time it is busy",
        "start/stops/day" => "its spin-downs and spin-ups a day",
        "energy by state (s / J)" => "time and energy in each power state",
        "warehouses" => "TPC-C warehouses of the primary's workload (or the workload's name)",
        "standby" => "the low-power state the data disks sleep in",
        "window" => "log bytes compacted per apply",
        "RTO s" => "the recovery time objective",
        "note" => "infeasible (n): the data disks never slept at that point, for reason n given below the table",
        _ => return None,
    })
}

/// The page of a `run`.
pub fn render_run(c: &Comparison, ctx: &RunContext) -> Result<String> {
    let mut s = page_head("tierlab replicate run", CSS);
    settings(&mut s, &ctx.lines);
    let _ = writeln!(s, "<p>u = {:.3} (conventional data-disk utilisation). Primary: {}.</p>", c.u, esc(&primary_line(c)));
    let schemes: Vec<String> = c.rows.iter().map(|r| r.run.scheme.name().to_string()).collect();
    let at = |i: usize, v: f64| (i as f64, v, true);
    let power = [
        series("data disk".into(), 0, false, c.rows.iter().enumerate().map(|(i, r)| at(i, r.run.data_disk_w)).collect()),
        series("log disk".into(), 1, false, c.rows.iter().enumerate().map(|(i, r)| at(i, r.run.log_disk_w)).collect()),
    ];
    let chart = Chart::new("scheme", "mean power per disk (W)", XAxis::Categories(&schemes), &power);
    figure(&mut s, "Mean power of a data disk and of a log disk at the secondary, by scheme", &plot_linear(&chart, STYLE)?);
    let saving = [
        series("data + log".into(), 2, false, c.rows.iter().enumerate().map(|(i, r)| at(i, r.saving_total * 100.0)).collect()),
        series("weighted".into(), 3, false, c.rows.iter().enumerate().map(|(i, r)| at(i, r.saving_weighted * 100.0)).collect()),
        series("data disks".into(), 4, false, c.rows.iter().enumerate().map(|(i, r)| at(i, r.saving_data * 100.0)).collect()),
    ];
    let chart = Chart::new("scheme", "saving against conventional (%)", XAxis::Categories(&schemes), &saving);
    figure(&mut s, "Power saving against conventional replication, by scheme", &plot_linear(&chart, STYLE)?);
    s.push_str("<h2>Schemes</h2>\n");
    let (header, cells) = scheme_cells(c);
    html_table(&mut s, &header, &cells);
    for row in &c.rows {
        if let Some(why) = &row.run.policy.stayed_up_because {
            let _ = writeln!(s, "<p class=\"infeasible\">{}: stayed up because {}</p>", esc(row.run.scheme.name()), esc(why));
        }
    }
    for run in disk_tables(c, ctx.all_disks) {
        let _ = writeln!(s, "<h2>Per disk: {}</h2>", esc(run.scheme.name()));
        let (header, cells) = disk_cells(run);
        html_table(&mut s, &header, &cells);
    }
    s.push_str("</body></html>\n");
    Ok(s)
}

/// What one line of a sweep chart holds besides its x position.
struct Line<'a> {
    label: String,
    colour: usize,
    points: Vec<&'a SweepPoint>,
}

/// Points with the given warehouses, standby and scheme, grouped into one line per RTO
/// (and per scheme when several ran), each ordered by window.
fn lines_by_rto<'a>(r: &'a SweepReport, keep: impl Fn(&SweepPoint) -> bool) -> Vec<Line<'a>> {
    let many_schemes = r.schemes.len() > 1;
    let mut out = Vec::new();
    for (si, scheme) in r.schemes.iter().enumerate() {
        for (ri, rto) in r.rtos_s.iter().enumerate() {
            let points: Vec<&SweepPoint> = r.points.iter().filter(|p| p.scheme == *scheme && p.rto_s == *rto && keep(p)).collect();
            if points.is_empty() {
                continue;
            }
            let label = if many_schemes { format!("{}, RTO {} s", scheme.name(), num(*rto)) } else { format!("RTO {} s", num(*rto)) };
            out.push(Line { label, colour: si * r.rtos_s.len() + ri, points });
        }
    }
    out
}

fn window_index(r: &SweepReport, p: &SweepPoint) -> f64 {
    r.windows_bytes.iter().position(|w| *w == p.window_bytes).unwrap_or(0) as f64
}

/// The page of a `sweep`.
pub fn render_sweep(r: &SweepReport) -> Result<String> {
    let mut s = page_head("tierlab replicate sweep", CSS);
    settings(&mut s, &sweep_lines(r));
    s.push_str(
        "<p>Savings are 1 − power / conventional replication's power of the same workload, weighted as the paper's reference system \
         (data and log disks). Filled markers: the data volume slept; hollow: it never did (infeasible at that point).</p>\n",
    );
    let windows: Vec<String> = r.windows_bytes.iter().map(|&w| size_label(w)).collect();
    let x_desc = "window size (log bytes compacted per apply)";
    let groups: Vec<(Option<u32>, String)> =
        r.warehouses.iter().flat_map(|w| r.standby_levels.iter().map(move |l| (*w, l.clone()))).collect();
    for (w, level) in &groups {
        let keep = |p: &SweepPoint| p.warehouses == *w && p.standby == *level;
        let lines = lines_by_rto(r, keep);
        if lines.is_empty() {
            continue;
        }
        let workload = match w {
            Some(w) => format!("{w} warehouses"),
            None => lines[0].points[0].workload.clone(),
        };
        let series_of = |suffix: &str, dashed: bool, value: &dyn Fn(&SweepPoint) -> Option<f64>| -> Vec<Series> {
            lines
                .iter()
                .map(|l| {
                    let points = l.points.iter().filter_map(|p| value(p).map(|v| (window_index(r, p), v, p.infeasible.is_none()))).collect();
                    series(format!("{}{suffix}", l.label), l.colour, dashed, points)
                })
                .filter(|s| !s.points.is_empty())
                .collect()
        };
        let saving = series_of("", false, &|p| Some(p.row.saving_weighted * 100.0));
        let chart = Chart::new(x_desc, "saving against conventional, weighted (%)", XAxis::Categories(&windows), &saving).joined();
        figure(&mut s, &format!("Power saving against window size, one line per RTO: {workload}, standby {level} (cf. the paper's Fig. 3)"), &plot_linear(&chart, STYLE)?);
        let measured = |v: f64| (v.is_finite() && v > 0.0).then_some(v);
        let planned = |p: &SweepPoint| if p.infeasible.is_none() { measured(p.row.run.t_wnd_planned_s) } else { None };
        let mut t_wnd = series_of(", observed", false, &|p| if p.infeasible.is_none() { measured(p.row.run.t_wnd_observed_s) } else { None });
        t_wnd.extend(series_of(", planned", true, &planned));
        let chart = Chart::new(x_desc, "batch interval T_wnd (s, log scale)", XAxis::Categories(&windows), &t_wnd).joined();
        figure(
            &mut s,
            &format!("Batch interval against window size, observed and planned (the batch formula at the measured r): {workload}, standby {level} (cf. the paper's Table 3)"),
            &plot_log(&chart, STYLE)?,
        );
        // Observed cycles need two spin-ups in the run; an infeasible point never cycles.
        let mut cycles = series_of(", observed", false, &|p| if p.infeasible.is_some() { Some(0.0) } else { measured(p.row.run.cycles_per_day) });
        cycles.extend(series_of(", planned", true, &|p| planned(p).map(|t| 86_400.0 / t)));
        let chart = Chart::new(x_desc, "start/stop cycles per day", XAxis::Categories(&windows), &cycles).joined();
        figure(&mut s, &format!("Start/stop cycles a day against window size, observed and planned: {workload}, standby {level}"), &plot_linear(&chart, STYLE)?);
        // Recovery against each RTO: the worst recovery time per point, hollow and labelled
        // where recoveries took longer than the RTO.
        let recovery: Vec<Series> = lines
            .iter()
            .map(|l| {
                let points = l
                    .points
                    .iter()
                    .filter_map(|p| measured(p.row.run.policy.worst_recovery_s).map(|v| (window_index(r, p), v, p.row.run.policy.rto_violations == 0)))
                    .collect();
                series(l.label.clone(), l.colour, false, points)
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        let labels: Vec<PointLabel> = lines
            .iter()
            .flat_map(|l| l.points.iter())
            .filter(|p| p.row.run.policy.rto_violations > 0 && measured(p.row.run.policy.worst_recovery_s).is_some())
            .map(|p| PointLabel { x: window_index(r, p), y: p.row.run.policy.worst_recovery_s, text: format!("{} over RTO {} s", p.row.run.policy.rto_violations, num(p.rto_s)) })
            .collect();
        if !recovery.is_empty() {
            let mut chart = Chart::new(x_desc, "worst recovery time (s, log scale)", XAxis::Categories(&windows), &recovery).joined().labels(labels).unit("s");
            // Each RTO as a dashed line in its series' colour (the first scheme's).
            for (ri, rto) in r.rtos_s.iter().enumerate() {
                chart = chart.reference(Reference::level(format!("the goal, RTO {} s", num(*rto)), *rto).coloured(PALETTE[ri % PALETTE.len()]));
            }
            let violations: u64 = lines.iter().flat_map(|l| l.points.iter()).map(|p| p.row.run.policy.rto_violations).sum();
            let over = if violations == 1 { "1 excursion".to_string() } else { format!("{violations} excursions") };
            figure(
                &mut s,
                &format!("Worst recovery time against window size, one line per RTO, the RTO itself dashed: {workload}, standby {level}; {over} of the recovery time above its RTO (hollow markers)"),
                &plot_log(&chart, STYLE)?,
            );
        }
    }
    if r.standby_levels.len() > 1 {
        let largest = r.windows_bytes.iter().copied().max().unwrap_or(0);
        let levels = &r.standby_levels;
        for w in &r.warehouses {
            let mut by_rto = Vec::new();
            for (si, scheme) in r.schemes.iter().enumerate() {
                for (ri, rto) in r.rtos_s.iter().enumerate() {
                    let points: Vec<(f64, f64, bool)> = r
                        .points
                        .iter()
                        .filter(|p| p.warehouses == *w && p.window_bytes == largest && p.scheme == *scheme && p.rto_s == *rto)
                        .filter_map(|p| levels.iter().position(|l| *l == p.standby).map(|i| (i as f64, p.row.saving_weighted * 100.0, p.infeasible.is_none())))
                        .collect();
                    if points.is_empty() {
                        continue;
                    }
                    let label = if r.schemes.len() > 1 { format!("{}, RTO {} s", scheme.name(), num(*rto)) } else { format!("RTO {} s", num(*rto)) };
                    by_rto.push(series(label, si * r.rtos_s.len() + ri, false, points));
                }
            }
            let workload = w.map(|w| format!("{w} warehouses")).unwrap_or_else(|| "the workload".into());
            let chart = Chart::new("standby level", "saving against conventional, weighted (%)", XAxis::Categories(levels), &by_rto);
            figure(
                &mut s,
                &format!("Power saving per standby level at each RTO: {workload}, window {} (cf. the paper's Fig. 4)", size_label(largest)),
                &plot_linear(&chart, STYLE)?,
            );
        }
    }
    s.push_str("<h2>Table</h2>\n");
    let (header, cells, reasons) = sweep_cells(r);
    html_table(&mut s, &header, &cells);
    for (i, why) in reasons.iter().enumerate() {
        let _ = writeln!(s, "<p class=\"infeasible\">infeasible ({}): {}</p>", i + 1, esc(why));
    }
    s.push_str("</body></html>\n");
    Ok(s)
}
