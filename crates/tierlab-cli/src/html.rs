//! A self-contained HTML report of `tierlab compare`: SVG charts drawn with `plotters`
//! (no scripts, no network), readable in any browser and printable. Each design family
//! (SSD-only, HDD-only, linear, tiering, caching) has one colour throughout.

use crate::charts::{esc, figure, num, page_head, plot_log, Chart, Marker, Reference, Series, Style, WIDTH};
use crate::cmd_compare::{render_failed, render_text};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::fmt::Write;
use tierlab_hybrid::{FailedRow, RunRow};

/// The design families, in the order the legends list them, with their colours.
const FAMILIES: [(&str, &str, RGBColor); 5] = [
    ("ssdonly", "SSD-only", RGBColor(0xd6, 0x27, 0x28)),
    ("hddonly", "HDD-only", RGBColor(0x7f, 0x7f, 0x7f)),
    ("linear", "linear", RGBColor(0x8c, 0x56, 0x4b)),
    ("tiering", "tiering", RGBColor(0x1f, 0x77, 0xb4)),
    ("caching", "caching", RGBColor(0x2c, 0xa0, 0x2c)),
];

/// A row's family: (index, name, colour).
fn family(r: &RunRow) -> (usize, &'static str, RGBColor) {
    let i = FAMILIES.iter().position(|f| f.0 == r.mode).unwrap_or(0);
    (i, FAMILIES[i].1, FAMILIES[i].2)
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// Inline SVG needs no namespace declaration; without it the page names no address.
fn inline(svg: String) -> String {
    svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1)
}

/// The family legend, drawn at the right of a chart.
fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, present: &[bool]) -> Result<()> {
    let text = ("sans-serif", 13).into_font().color(&BLACK);
    let mut y = 24;
    for (f, _) in FAMILIES.iter().zip(present).filter(|(_, p)| **p) {
        area.draw(&Rectangle::new([(8, y - 6), (22, y + 6)], f.2.filled())).map_err(draw_err)?;
        area.draw(&Text::new(f.1.to_string(), (30, y - 7), text.clone())).map_err(draw_err)?;
        y += 20;
    }
    Ok(())
}

fn families_present(rows: &[RunRow]) -> Vec<bool> {
    let mut present = vec![false; FAMILIES.len()];
    for r in rows {
        present[family(r).0] = true;
    }
    present
}

/// Horizontal bars, one per design, coloured by family, with the value at the bar's end.
fn bars(rows: &[RunRow], unit: &str, value: impl Fn(&RunRow) -> f64) -> Result<String> {
    let n = rows.len().max(1);
    let height = 60 + 22 * n as u32;
    let max = rows.iter().map(&value).filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    let top = if max > 0.0 { max * 1.18 } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (area, side) = root.split_horizontally(WIDTH - 130);
        let mut chart = ChartBuilder::on(&area)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(290)
            .build_cartesian_2d(0.0..top, (0..n).into_segmented())
            .map_err(draw_err)?;
        let label = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) => n.checked_sub(i + 1).and_then(|k| rows.get(k)).map(|r| r.config.clone()).unwrap_or_default(),
            _ => String::new(),
        };
        let x_fmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&label)
            .x_label_formatter(&x_fmt)
            .x_desc(unit)
            .label_style(("sans-serif", 12))
            .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()
            .map_err(draw_err)?;
        for (i, r) in rows.iter().enumerate() {
            let v = value(r);
            let slot = n - 1 - i;
            let v = if v.is_finite() { v.max(0.0) } else { 0.0 };
            let colour = family(r).2;
            chart
                .draw_series(std::iter::once(Rectangle::new([(0.0, SegmentValue::Exact(slot)), (v, SegmentValue::Exact(slot + 1))], colour.filled())))
                .map_err(draw_err)?;
            chart
                .draw_series(std::iter::once(Text::new(num(value(r)), (v + top * 0.01, SegmentValue::CenterOf(slot)), ("sans-serif", 11).into_font())))
                .map_err(draw_err)?;
        }
        legend(&side, &families_present(rows))?;
        root.present().map_err(draw_err)?;
    }
    Ok(inline(svg))
}

/// Whether `r` is on the Pareto front of throughput (more is better) against the cost
/// over the drive's life (less is better): no other design is at least as fast and at
/// most as dear, and better in one.
pub fn on_front(r: &RunRow, rows: &[RunRow]) -> bool {
    let (t, c) = (r.throughput_iops, r.horizon.total_usd);
    !rows.iter().any(|o| o.throughput_iops >= t && o.horizon.total_usd <= c && (o.throughput_iops > t || o.horizon.total_usd < c))
}

/// Cost over the drive's life against throughput, one point per design coloured by
/// family, the Pareto front joined and its designs named.
fn pareto(rows: &[RunRow]) -> Result<String> {
    let pts: Vec<(f64, f64)> = rows.iter().map(|r| (r.throughput_iops, r.horizon.total_usd)).filter(|p| p.0.is_finite() && p.1.is_finite() && p.1 > 0.0).collect();
    let (xmax, ymin, ymax) = pts.iter().fold((0.0f64, f64::INFINITY, 0.0f64), |(x, lo, hi), p| (x.max(p.0), lo.min(p.1), hi.max(p.1)));
    let (ylo, yhi) = if ymin.is_finite() { (ymin / 1.6, ymax * 1.6) } else { (1.0, 10.0) };
    let mut front: Vec<&RunRow> = rows.iter().filter(|r| on_front(r, rows)).collect();
    front.sort_by(|a, b| a.throughput_iops.total_cmp(&b.throughput_iops));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (area, side) = root.split_horizontally(WIDTH - 130);
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..(xmax * 1.12).max(1.0), (ylo..yhi).log_scale())
            .map_err(draw_err)?;
        let fmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .x_desc("throughput (IOPS)")
            .y_desc(format!("cost over {} years (USD, log)", rows.first().map_or(5.0, |r| (r.horizon.years * 10.0).round() / 10.0)))
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()
            .map_err(draw_err)?;
        chart
            .draw_series(LineSeries::new(front.iter().map(|r| (r.throughput_iops, r.horizon.total_usd)), BLACK.stroke_width(1)))
            .map_err(draw_err)?;
        for r in rows {
            let p = (r.throughput_iops, r.horizon.total_usd);
            if !(p.0.is_finite() && p.1 > 0.0) {
                continue;
            }
            let colour = family(r).2;
            if on_front(r, rows) {
                chart.draw_series(std::iter::once(Circle::new(p, 8, BLACK.filled()))).map_err(draw_err)?;
                chart.draw_series(std::iter::once(Circle::new(p, 6, colour.filled()))).map_err(draw_err)?;
            } else {
                // Rings, so that designs on the same spot stay visible.
                chart.draw_series(std::iter::once(Circle::new(p, 5, colour.stroke_width(2)))).map_err(draw_err)?;
            }
        }
        // Name each front point once; designs within 1 % of it on both axes are counted
        // with it. Labels right of the middle end at their point, so they stay inside.
        let near = |a: &RunRow, b: &RunRow| {
            (a.throughput_iops - b.throughput_iops).abs() <= 0.01 * a.throughput_iops.max(b.throughput_iops)
                && (a.horizon.total_usd - b.horizon.total_usd).abs() <= 0.01 * a.horizon.total_usd.max(b.horizon.total_usd)
        };
        let mut named: Vec<&RunRow> = Vec::new();
        for r in &front {
            if named.iter().any(|n| near(n, r)) {
                continue;
            }
            named.push(r);
            let ties = front.iter().filter(|o| near(o, r)).count();
            let label = if ties > 1 { format!("{} (+{} within 1 %)", r.config, ties - 1) } else { r.config.clone() };
            let anchor = if r.throughput_iops > xmax * 0.55 { HPos::Right } else { HPos::Left };
            let style = ("sans-serif", 12).into_font().into_text_style(&area).pos(Pos::new(anchor, VPos::Bottom));
            let p = (r.throughput_iops, r.horizon.total_usd * 1.15);
            chart.draw_series(std::iter::once(Text::new(label, p, style))).map_err(draw_err)?;
        }
        legend(&side, &families_present(rows))?;
        let text = ("sans-serif", 12).into_font().color(&BLACK);
        let y = 24 + 20 * families_present(rows).iter().filter(|p| **p).count() as i32 + 10;
        side.draw(&Circle::new((15, y), 7, BLACK.filled())).map_err(draw_err)?;
        side.draw(&Text::new("Pareto front".to_string(), (30, y - 7), text)).map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    Ok(inline(svg))
}

/// Total cost at each α relative to HDD-only's at the same α, one line per design.
fn relative_cost(rows: &[RunRow]) -> Result<Option<String>> {
    let Some(hdd) = rows.iter().find(|r| r.mode == "hddonly") else { return Ok(None) };
    let cats: Vec<String> = hdd.cost.iter().map(|c| num(c.alpha)).collect();
    let mut shown_per_family = [0usize; FAMILIES.len()];
    let series: Vec<Series> = rows
        .iter()
        .map(|r| {
            let (fi, _, colour) = family(r);
            let k = shown_per_family[fi];
            shown_per_family[fi] += 1;
            let points = r.cost.iter().zip(&hdd.cost).enumerate().map(|(i, (c, h))| (i as f64, c.total_usd / h.total_usd, true)).collect();
            Series { label: r.config.clone(), colour, dashed: k % 2 == 1, marker: if k % 4 < 2 { Marker::Circle } else { Marker::Triangle }, points }
        })
        .collect();
    let reference = Reference { label: "HDD-only".into(), points: vec![(-0.5, 1.0), (cats.len() as f64 - 0.5, 1.0)] };
    let chart = Chart { x_desc: "α (runs of the workload)", y_desc: "total cost / HDD-only's (log)", categories: &cats, series: &series, joined: true, reference: Some(reference) };
    Ok(Some(plot_log(&chart, Style { height: 560, legend_width: 330, zero_based: false })?))
}

pub fn render(rows: &[RunRow], failed: &[FailedRow]) -> Result<String> {
    let mut s = page_head("tierlab compare", "pre{font-size:12px;overflow-x:auto;background:#eee;padding:1em}");
    s.push_str("<p>One workload on each drive design, in four currencies: performance, energy, endurance and dollars. Colours are design families.</p>\n");
    figure(&mut s, "Cost over the drive's life against throughput; the Pareto front (faster for less) is joined and named", &pareto(rows)?);
    figure(&mut s, "Throughput (IOPS)", &bars(rows, "IOPS", |r| r.throughput_iops)?);
    figure(&mut s, "Mean response time (ms)", &bars(rows, "ms", |r| r.mean_ms)?);
    figure(&mut s, "Energy (J)", &bars(rows, "J", |r| r.energy_j)?);
    figure(&mut s, "SSD endurance used, parts per million of rated life (reads count 1/10)", &bars(rows, "ppm", |r| r.ssd_eu_read_tenth)?);
    if let Some(svg) = relative_cost(rows)? {
        figure(&mut s, "Total cost against α, relative to HDD-only at the same α", &svg);
    }
    let _ = writeln!(s, "<h2>Table</h2><pre>{}{}</pre></body></html>", esc(&render_text(rows)), esc(&render_failed(failed)));
    Ok(s)
}
