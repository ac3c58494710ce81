//! Self-contained HTML reports of `tierlab replicate run` and `sweep`: charts drawn with
//! `plotters` as inline SVG (no scripts, no fonts, no network), then the tables. No
//! timestamps: the same run gives the same bytes.
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

use crate::cmd_replicate::{disk_cells, disk_tables, primary_line, scheme_cells, size_label, sweep_cells, sweep_lines, RunContext, SweepPoint, SweepReport};
use crate::html_array::esc;
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, KeyPointHint, ValueFormatter};
use plotters::prelude::*;
use std::fmt::Write;
use tierlab_replication_sim::Comparison;

const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// One line of a chart: (category index, value, filled marker).
pub struct Series {
    pub label: String,
    pub colour: usize,
    /// Dashed (a planned figure beside a measured one).
    pub dashed: bool,
    pub points: Vec<(f64, f64, bool)>,
}

pub struct Chart<'a> {
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub categories: &'a [String],
    pub series: &'a [Series],
    /// Join a series' points with lines (an ordered axis); unjoined markers otherwise.
    pub joined: bool,
}

const FONT: &str = "sans-serif";
const WIDTH: u32 = 900;
const HEIGHT: u32 = 420;
const LEGEND_W: u32 = 200;

/// A short, exact-enough axis number: 0.5, 2, 10, 12.5, 1000.
fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let decimals = if v.abs() >= 100.0 { 0 } else if v.abs() >= 1.0 { 2 } else { 4 };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// A category axis: categories 0 … n − 1 at equal spacing, a tick at each.
#[derive(Clone, Copy)]
struct Categories(usize);

impl Ranged for Categories {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let r = self.range();
        let f = (value - r.start) / (r.end - r.start);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        (0..self.0).map(|i| i as f64).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..self.0.max(1) as f64 - 0.5
    }
}

/// Draw `c` with the y axis `y` (linear or logarithmic) and return the `<svg>` element.
fn plot<Y>(c: &Chart, y: Y) -> Result<String>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (area, legend) = root.split_horizontally(WIDTH - LEGEND_W);
        let x = Categories(c.categories.len().max(1));
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(70)
            .build_cartesian_2d(x, y)
            .map_err(draw_err)?;
        let cats = c.categories;
        let x_fmt = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                cats.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        let y_fmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .x_desc(c.x_desc)
            .y_desc(c.y_desc)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .max_light_lines(4)
            .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()
            .map_err(draw_err)?;
        for s in c.series {
            let colour = PALETTE[s.colour % PALETTE.len()];
            let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0, p.1)).collect();
            if c.joined && s.dashed {
                chart.draw_series(DashedLineSeries::new(pts, 7, 4, colour.stroke_width(2))).map_err(draw_err)?;
            } else if c.joined {
                chart.draw_series(LineSeries::new(pts, colour.stroke_width(2))).map_err(draw_err)?;
            }
            for &(px, py, filled) in &s.points {
                chart.draw_series(std::iter::once(Circle::new((px, py), 5, colour.filled()))).map_err(draw_err)?;
                if !filled {
                    chart.draw_series(std::iter::once(Circle::new((px, py), 3, WHITE.filled()))).map_err(draw_err)?;
                }
            }
        }
        let mut y = 24;
        let text = (FONT, 13).into_font().color(&BLACK);
        for s in c.series {
            let colour = PALETTE[s.colour % PALETTE.len()];
            if s.dashed {
                legend.draw(&PathElement::new(vec![(8, y), (16, y)], colour.stroke_width(2))).map_err(draw_err)?;
                legend.draw(&PathElement::new(vec![(22, y), (30, y)], colour.stroke_width(2))).map_err(draw_err)?;
            } else {
                legend.draw(&PathElement::new(vec![(8, y), (30, y)], colour.stroke_width(2))).map_err(draw_err)?;
            }
            legend.draw(&Circle::new((19, y), 4, colour.filled())).map_err(draw_err)?;
            legend.draw(&Text::new(s.label.clone(), (38, y - 7), text.clone())).map_err(draw_err)?;
            y += 20;
        }
        root.present().map_err(draw_err)?;
    }
    // Inline SVG in HTML needs no namespace declaration; without it the page names no
    // outside address at all.
    Ok(svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1))
}

/// `c` with a linear y axis spanning its values and zero.
fn plot_linear(c: &Chart) -> Result<String> {
    let values = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.08).max(1.0);
    plot(c, (if lo < 0.0 { lo - pad } else { 0.0 })..(hi + pad))
}

/// `c` with a logarithmic y axis spanning its (positive) values.
fn plot_log(c: &Chart) -> Result<String> {
    let values = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo.is_finite() { (lo / 1.5, hi * 1.5) } else { (0.1, 10.0) };
    plot(c, (lo..hi).log_scale())
}

fn figure(out: &mut String, caption: &str, svg: &str) {
    let _ = write!(out, "<figure><figcaption>{}</figcaption>\n{svg}\n</figure>\n", esc(caption));
}

const HEAD: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TITLE</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}figure{margin:1.5em 0}figcaption{font-weight:600;margin-bottom:.4em}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}td:first-child{text-align:left}th{background:#f2f2f2}
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:600}dd{margin:0}td.t{text-align:left}.infeasible{color:#c0392b}</style></head><body>
"#;

fn head(title: &str) -> String {
    let mut s = HEAD.replace("TITLE", &esc(title));
    let _ = writeln!(s, "<h1>{}</h1>", esc(title));
    s
}

fn settings(out: &mut String, lines: &[(&str, String)]) {
    out.push_str("<dl>\n");
    for (k, v) in lines {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    out.push_str("</dl>\n");
}

fn html_table(out: &mut String, header: &[String], cells: &[Vec<String>]) {
    out.push_str("<table><thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>\n");
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
}

/// The page of a `run`.
pub fn render_run(c: &Comparison, ctx: &RunContext) -> Result<String> {
    let mut s = head("tierlab replicate run");
    settings(&mut s, &ctx.lines);
    let _ = writeln!(s, "<p>u = {:.3} (conventional data-disk utilisation). Primary: {}.</p>", c.u, esc(&primary_line(c)));
    let schemes: Vec<String> = c.rows.iter().map(|r| r.run.scheme.name().to_string()).collect();
    let at = |i: usize, v: f64| (i as f64, v, true);
    let power = [
        Series { label: "data disk".into(), colour: 0, dashed: false, points: c.rows.iter().enumerate().map(|(i, r)| at(i, r.run.data_disk_w)).collect() },
        Series { label: "log disk".into(), colour: 1, dashed: false, points: c.rows.iter().enumerate().map(|(i, r)| at(i, r.run.log_disk_w)).collect() },
    ];
    let chart = Chart { x_desc: "scheme", y_desc: "mean power per disk (W)", categories: &schemes, series: &power, joined: false };
    figure(&mut s, "Mean power of a data disk and of a log disk at the secondary, by scheme", &plot_linear(&chart)?);
    let saving = [
        Series { label: "data + log".into(), colour: 2, dashed: false, points: c.rows.iter().enumerate().map(|(i, r)| at(i, r.saving_total * 100.0)).collect() },
        Series { label: "weighted".into(), colour: 3, dashed: false, points: c.rows.iter().enumerate().map(|(i, r)| at(i, r.saving_weighted * 100.0)).collect() },
        Series { label: "data disks".into(), colour: 4, dashed: false, points: c.rows.iter().enumerate().map(|(i, r)| at(i, r.saving_data * 100.0)).collect() },
    ];
    let chart = Chart { x_desc: "scheme", y_desc: "saving against conventional (%)", categories: &schemes, series: &saving, joined: false };
    figure(&mut s, "Power saving against conventional replication, by scheme", &plot_linear(&chart)?);
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
    let mut s = head("tierlab replicate sweep");
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
                .map(|l| Series {
                    label: format!("{}{suffix}", l.label),
                    colour: l.colour,
                    dashed,
                    points: l.points.iter().filter_map(|p| value(p).map(|v| (window_index(r, p), v, p.infeasible.is_none()))).collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect()
        };
        let saving = series_of("", false, &|p| Some(p.row.saving_weighted * 100.0));
        let chart = Chart { x_desc, y_desc: "saving against conventional, weighted (%)", categories: &windows, series: &saving, joined: true };
        figure(&mut s, &format!("Power saving against window size, one line per RTO: {workload}, standby {level} (cf. the paper's Fig. 3)"), &plot_linear(&chart)?);
        let measured = |v: f64| (v.is_finite() && v > 0.0).then_some(v);
        let planned = |p: &SweepPoint| if p.infeasible.is_none() { measured(p.row.run.t_wnd_planned_s) } else { None };
        let mut t_wnd = series_of(", observed", false, &|p| if p.infeasible.is_none() { measured(p.row.run.t_wnd_observed_s) } else { None });
        t_wnd.extend(series_of(", planned", true, &planned));
        let chart = Chart { x_desc, y_desc: "batch interval T_wnd (s, log scale)", categories: &windows, series: &t_wnd, joined: true };
        figure(
            &mut s,
            &format!("Batch interval against window size, observed and planned (the batch formula at the measured r): {workload}, standby {level} (cf. the paper's Table 3)"),
            &plot_log(&chart)?,
        );
        let mut cycles = series_of(", observed", false, &|p| Some(p.row.run.cycles_per_day));
        cycles.extend(series_of(", planned", true, &|p| planned(p).map(|t| 86_400.0 / t)));
        let chart = Chart { x_desc, y_desc: "start/stop cycles per day", categories: &windows, series: &cycles, joined: true };
        figure(&mut s, &format!("Start/stop cycles a day against window size, observed and planned: {workload}, standby {level}"), &plot_linear(&chart)?);
    }
    if r.standby_levels.len() > 1 {
        let largest = r.windows_bytes.iter().copied().max().unwrap_or(0);
        let levels = &r.standby_levels;
        for w in &r.warehouses {
            let mut series = Vec::new();
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
                    series.push(Series { label, colour: si * r.rtos_s.len() + ri, dashed: false, points });
                }
            }
            let workload = w.map(|w| format!("{w} warehouses")).unwrap_or_else(|| "the workload".into());
            let chart = Chart { x_desc: "standby level", y_desc: "saving against conventional, weighted (%)", categories: levels, series: &series, joined: false };
            figure(
                &mut s,
                &format!("Power saving per standby level at each RTO: {workload}, window {} (cf. the paper's Fig. 4)", size_label(largest)),
                &plot_linear(&chart)?,
            );
        }
    }
    s.push_str("<h2>Table</h2>\n");
    let (header, cells) = sweep_cells(r);
    html_table(&mut s, &header, &cells);
    s.push_str("</body></html>\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_is_inline_svg_without_addresses() {
        let cats = vec!["4 MiB".to_string(), "<8> & more".to_string()];
        let series = vec![Series { label: "RTO 100 s".into(), colour: 0, dashed: false, points: vec![(0.0, 30.0, true), (1.0, 60.0, false)] }];
        let chart = Chart { x_desc: "window", y_desc: "%", categories: &cats, series: &series, joined: true };
        let svg = plot_linear(&chart).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("RTO 100 s") && svg.contains("&lt;8&gt; &amp; more"), "{svg}");
        assert!(!svg.contains("http"));
        assert!(plot_log(&chart).unwrap().starts_with("<svg"));
    }
}
