//! A self-contained HTML report of `tierlab array compare`: the Hibernator paper's charts
//! drawn with `plotters` as inline SVG (no scripts, no fonts, no network), then the table.
//!
//! - across loads: mean response time per scheme, log y, with R_limit as a horizontal
//!   line (the paper's Fig. 7), and energy saving against RAID-5 (Fig. 8);
//! - across R_limits (`--r-limits`): energy saving against R_limit (Fig. 10), and mean
//!   response time against R_limit with the goal itself as a line.
//!
//! A scheme keeps its colour in every chart; a `+` (guaranteed) variant has its base
//! scheme's colour, a dashed line and triangles. Filled markers met the goal, hollow ones
//! missed it.

use crate::cmd_array::{compare_cells, CompareContext, Study};
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, KeyPointHint, ValueFormatter};
use plotters::prelude::*;
use std::fmt::Write;
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_array_sim::CompareRow;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// One colour per scheme kind (in `SchemeKind::ALL` order).
const KIND_COLOURS: [RGBColor; 7] = [
    RGBColor(0x7f, 0x7f, 0x7f), // raid5
    RGBColor(0x8c, 0x56, 0x4b), // tpm
    RGBColor(0x1f, 0x77, 0xb4), // raid-drpm
    RGBColor(0x94, 0x67, 0xbd), // raid-cr
    RGBColor(0x2c, 0xa0, 0x2c), // pdc-ld
    RGBColor(0xff, 0x7f, 0x0e), // maid
    RGBColor(0xd6, 0x27, 0x28), // hibernator
];
const OTHER_COLOUR: RGBColor = RGBColor(0x17, 0xbe, 0xcf);

/// A scheme label's colour and whether it is a guaranteed (`+`) variant.
fn look(scheme: &str) -> (RGBColor, bool) {
    match SchemeConfig::named(scheme) {
        Ok(c) => {
            let i = SchemeKind::ALL.iter().position(|k| *k == c.kind).unwrap_or(0);
            (KIND_COLOURS[i], c.guarantee)
        }
        Err(_) => (OTHER_COLOUR, scheme.ends_with('+')),
    }
}

/// One line of a chart: (category index, value, goal met).
struct Series {
    label: String,
    points: Vec<(f64, f64, bool)>,
}

/// A line drawn in black behind the schemes (R_limit).
struct Reference {
    label: String,
    points: Vec<(f64, f64)>,
}

struct Chart<'a> {
    x_desc: &'a str,
    y_desc: &'a str,
    categories: &'a [String],
    series: &'a [Series],
    reference: Option<Reference>,
}

const FONT: &str = "sans-serif";
const WIDTH: u32 = 900;
const HEIGHT: u32 = 460;
const LEGEND_W: u32 = 170;

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
        let n = c.categories.len().max(1);
        let x = Categories(n);
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
        if let Some(r) = &c.reference {
            chart
                .draw_series(DashedLineSeries::new(r.points.iter().copied(), 8, 5, BLACK.stroke_width(2)))
                .map_err(draw_err)?;
        }
        for s in c.series {
            let (colour, plus) = look(&s.label);
            let line = colour.stroke_width(2);
            let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0, p.1)).collect();
            if plus {
                chart.draw_series(DashedLineSeries::new(pts.iter().copied(), 7, 4, line)).map_err(draw_err)?;
            } else {
                chart.draw_series(LineSeries::new(pts.iter().copied(), line)).map_err(draw_err)?;
            }
            // Filled markers met the goal; a hollow one (a white marker inside) missed it.
            for &(px, py, met) in &s.points {
                if plus {
                    chart.draw_series(std::iter::once(TriangleMarker::new((px, py), 7, colour.filled()))).map_err(draw_err)?;
                    if !met {
                        chart.draw_series(std::iter::once(TriangleMarker::new((px, py), 3, WHITE.filled()))).map_err(draw_err)?;
                    }
                } else {
                    chart.draw_series(std::iter::once(Circle::new((px, py), 5, colour.filled()))).map_err(draw_err)?;
                    if !met {
                        chart.draw_series(std::iter::once(Circle::new((px, py), 3, WHITE.filled()))).map_err(draw_err)?;
                    }
                }
            }
        }
        // The legend, beside the plot.
        let mut y = 24;
        let text = (FONT, 13).into_font().color(&BLACK);
        for s in c.series {
            let (colour, plus) = look(&s.label);
            let line = colour.stroke_width(2);
            if plus {
                legend.draw(&PathElement::new(vec![(8, y), (16, y)], line)).map_err(draw_err)?;
                legend.draw(&PathElement::new(vec![(22, y), (30, y)], line)).map_err(draw_err)?;
                legend.draw(&TriangleMarker::new((19, y), 6, colour.filled())).map_err(draw_err)?;
            } else {
                legend.draw(&PathElement::new(vec![(8, y), (30, y)], line)).map_err(draw_err)?;
                legend.draw(&Circle::new((19, y), 4, colour.filled())).map_err(draw_err)?;
            }
            legend.draw(&Text::new(s.label.clone(), (38, y - 7), text.clone())).map_err(draw_err)?;
            y += 20;
        }
        if let Some(r) = &c.reference {
            legend.draw(&PathElement::new(vec![(8, y), (16, y)], BLACK.stroke_width(2))).map_err(draw_err)?;
            legend.draw(&PathElement::new(vec![(22, y), (30, y)], BLACK.stroke_width(2))).map_err(draw_err)?;
            legend.draw(&Text::new(r.label.clone(), (38, y - 7), text.clone())).map_err(draw_err)?;
        }
        root.present().map_err(draw_err)?;
    }
    // Inline SVG in HTML needs no namespace declaration; without it the page names no
    // outside address at all.
    Ok(svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1))
}

/// `c` with a logarithmic y axis spanning its values (and the reference line's).
fn plot_log(c: &Chart) -> Result<String> {
    let values = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(c.reference.iter().flat_map(|r| r.points.iter().map(|p| p.1)));
    let (lo, hi) = values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo.is_finite() { (lo / 1.5, hi * 1.5) } else { (0.1, 10.0) };
    plot(c, (lo..hi).log_scale())
}

/// `c` with a linear y axis spanning its values and zero.
fn plot_linear(c: &Chart) -> Result<String> {
    let values = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.08).max(1.0);
    plot(c, (lo - pad)..(hi + pad))
}

/// Schemes in the order they first appear, each with its points; `x` places a row on the
/// category axis (None: not charted), `y` is its value (non-finite values are skipped, and
/// with `positive` so are values <= 0).
fn series_of(rows: &[CompareRow], x: impl Fn(&CompareRow) -> Option<usize>, y: impl Fn(&CompareRow) -> f64, positive: bool) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows {
        let (Some(i), v) = (x(r), y(r)) else { continue };
        if !v.is_finite() || (positive && v <= 0.0) {
            continue;
        }
        let p = (i as f64, v, r.run.goal_met);
        match out.iter_mut().find(|s| s.label == r.scheme) {
            Some(s) => s.points.push(p),
            None => out.push(Series { label: r.scheme.clone(), points: vec![p] }),
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

fn figure(out: &mut String, caption: &str, svg: &str) {
    let _ = write!(out, "<figure><figcaption>{}</figcaption>\n{svg}\n</figure>\n", esc(caption));
}

/// The whole page.
pub fn render(rows: &[CompareRow], ctx: &CompareContext) -> Result<String> {
    let mut s = String::from(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tierlab array compare</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}figure{margin:1.5em 0}figcaption{font-weight:600;margin-bottom:.4em}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}td:nth-child(-n+2){text-align:left}th{background:#f2f2f2}
.met{color:#2a7d2a}.missed{color:#c0392b;font-weight:600}</style></head><body>
<h1>tierlab array compare</h1>
"#,
    );
    let _ = writeln!(s, "<p>Array: {}.<br>Workload: {}.</p>", esc(&ctx.array), esc(&ctx.workload));
    s.push_str(
        "<p>Energy saving is 1 − energy / RAID-5's energy at the same load. Each scheme keeps its colour; a <code>+</code> variant \
         (with the performance guarantee) is dashed with triangles. Filled markers met the response-time goal, hollow ones missed it.</p>\n",
    );
    match &ctx.study {
        Study::Loads { labels, axis } => {
            let at = |r: &CompareRow| labels.iter().position(|l| *l == r.load);
            let x_desc = axis.as_str();
            let mean = series_of(rows, at, |r| r.run.response_time.mean_ms, true);
            let n = labels.len().max(1) as f64;
            let reference = Reference { label: format!("R_limit {} ms", num(ctx.r_limit_ms)), points: vec![(-0.5, ctx.r_limit_ms), (n - 0.5, ctx.r_limit_ms)] };
            let chart = Chart { x_desc, y_desc: "mean response time (ms, log scale)", categories: labels, series: &mean, reference: Some(reference) };
            figure(&mut s, "Mean response time per scheme across loads, with the goal R_limit (cf. Hibernator, Fig. 7)", &plot_log(&chart)?);
            let saving = series_of(rows, at, |r| r.energy_saving * 100.0, false);
            let chart = Chart { x_desc, y_desc: "energy saving against RAID-5 (%)", categories: labels, series: &saving, reference: None };
            figure(&mut s, "Energy saving against RAID-5 per scheme across loads (cf. Hibernator, Fig. 8)", &plot_linear(&chart)?);
        }
        Study::RLimits { load, limits } => {
            let labels: Vec<String> = limits.iter().map(|l| num(*l)).collect();
            // RAID-5 is the reference (saving 0 whatever the goal): not charted.
            let at = |r: &CompareRow| if r.scheme == "raid5" { None } else { limits.iter().position(|l| *l == r.run.r_limit_ms) };
            let x_desc = "R_limit, the mean response-time goal (ms)";
            let saving = series_of(rows, at, |r| r.energy_saving * 100.0, false);
            let chart = Chart { x_desc, y_desc: "energy saving against RAID-5 (%)", categories: &labels, series: &saving, reference: None };
            figure(&mut s, &format!("Energy saving against R_limit at {load} (cf. Hibernator, Fig. 10)"), &plot_linear(&chart)?);
            let mean = series_of(rows, at, |r| r.run.response_time.mean_ms, true);
            let reference = Reference { label: "R_limit".into(), points: limits.iter().enumerate().map(|(i, l)| (i as f64, *l)).collect() };
            let chart = Chart { x_desc, y_desc: "mean response time (ms, log scale)", categories: &labels, series: &mean, reference: Some(reference) };
            figure(&mut s, &format!("Mean response time against R_limit at {load}"), &plot_log(&chart)?);
        }
    }
    let (header, cells) = compare_cells(rows, ctx);
    s.push_str("<h2>Table</h2>\n<table><thead><tr>");
    for h in &header {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead><tbody>\n");
    for (r, row) in rows.iter().zip(&cells) {
        s.push_str("<tr>");
        for (h, c) in header.iter().zip(row) {
            if h == "goal" {
                let class = if r.run.goal_met { "met" } else { "missed" };
                let _ = write!(s, r#"<td class="{class}">{}</td>"#, esc(c));
            } else {
                let _ = write!(s, "<td>{}</td>", esc(c));
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n</body></html>\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_numbers_are_short() {
        assert_eq!(esc(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!((num(10.0), num(0.5), num(12.5), num(1400.0), num(0.0)), ("10".into(), "0.5".into(), "12.5".into(), "1400".into(), "0".into()));
    }

    #[test]
    fn schemes_keep_their_colour_and_plus_variants_share_it() {
        assert_eq!(look("pdc-ld").0, look("pdc-ld+").0);
        assert!(!look("pdc-ld").1 && look("pdc-ld+").1);
        assert_ne!(look("maid").0, look("hibernator").0);
    }

    #[test]
    fn a_chart_renders_as_inline_svg_without_fonts_or_addresses() {
        let cats = vec!["7 req/s".to_string(), "<14> & more".to_string()];
        let series = vec![Series { label: "hibernator+".into(), points: vec![(0.0, 3.0, true), (1.0, 30.0, false)] }];
        let chart = Chart { x_desc: "load", y_desc: "ms", categories: &cats, series: &series, reference: Some(Reference { label: "R_limit 10 ms".into(), points: vec![(-0.5, 10.0), (1.5, 10.0)] }) };
        let svg = plot_log(&chart).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("hibernator+") && svg.contains("&lt;14&gt; &amp; more"), "{svg}");
        assert!(!svg.contains("http"));
        let svg = plot_linear(&Chart { reference: None, ..chart }).unwrap();
        assert!(!svg.contains("R_limit") && svg.contains("<svg"));
    }
}
