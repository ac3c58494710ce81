//! A self-contained HTML report of `tierlab compare`: inline SVG charts (no scripts, no
//! network), readable in any browser and printable.

use crate::cmd_compare::render_text;
use tierlab_hybrid::RunRow;
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const PALETTE: [&str; 10] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

/// Horizontal bars, one per configuration.
fn bars(title: &str, unit: &str, rows: &[RunRow], value: impl Fn(&RunRow) -> f64) -> String {
    let (label_w, bar_w, row_h) = (330.0, 420.0, 18.0);
    let max = rows.iter().map(&value).filter(|v| v.is_finite()).fold(0.0f64, f64::max).max(f64::MIN_POSITIVE);
    let h = 40.0 + row_h * rows.len() as f64;
    let mut s = format!(r#"<figure><figcaption>{}</figcaption><svg width="{}" height="{h}" role="img">"#, esc(title), label_w + bar_w + 90.0);
    for (i, r) in rows.iter().enumerate() {
        let v = value(r);
        let y = 20.0 + row_h * i as f64;
        let w = if v.is_finite() { bar_w * v / max } else { 0.0 };
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end" font-size="12">{}</text><rect x="{label_w}" y="{}" width="{w:.1}" height="{}" fill="{}"/><text x="{}" y="{}" font-size="11">{} {}</text>"#,
            label_w - 6.0,
            y + 12.0,
            esc(&r.config),
            y + 2.0,
            row_h - 4.0,
            PALETTE[i % PALETTE.len()],
            label_w + w + 4.0,
            y + 12.0,
            fmt_num(v),
            esc(unit)
        );
    }
    s.push_str("</svg></figure>");
    s
}

fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// Total cost against α, both axes logarithmic, one line per configuration.
fn cost_chart(rows: &[RunRow]) -> String {
    let (w, h, left, bottom) = (760.0, 420.0, 70.0, 40.0);
    let points: Vec<(f64, f64)> = rows.iter().flat_map(|r| r.cost.iter().map(|c| (c.alpha, c.total_usd))).collect();
    let (xmin, xmax) = (1.0f64, points.iter().map(|p| p.0).fold(10.0, f64::max));
    let ymin = points.iter().map(|p| p.1).filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min).max(1e-3);
    let ymax = points.iter().map(|p| p.1).fold(ymin * 10.0, f64::max);
    let (lx0, lx1, ly0, ly1) = (xmin.log10(), xmax.log10(), ymin.log10().floor(), ymax.log10().ceil());
    let x = |a: f64| left + (a.max(xmin).log10() - lx0) / (lx1 - lx0).max(1e-9) * (w - left - 20.0);
    let y = |c: f64| (h - bottom) - (c.max(10f64.powf(ly0)).log10() - ly0) / (ly1 - ly0).max(1e-9) * (h - bottom - 20.0);
    let mut s = format!(r#"<figure><figcaption>Total cost (USD) against α, the number of times the workload runs (log–log)</figcaption><svg width="{}" height="{h}" role="img">"#, w + 300.0);
    let _ = write!(s, r#"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{left}" y1="20" x2="{left}" y2="{}" stroke="black"/>"#, h - bottom, w - 20.0, h - bottom, h - bottom);
    for e in (lx0 as i32)..=(lx1.ceil() as i32) {
        let a = 10f64.powi(e);
        let _ = write!(s, r#"<text x="{:.1}" y="{}" font-size="11" text-anchor="middle">1e{e}</text>"#, x(a), h - bottom + 16.0);
    }
    for e in (ly0 as i32)..=(ly1 as i32) {
        let c = 10f64.powi(e);
        let _ = write!(s, r##"<text x="{}" y="{:.1}" font-size="11" text-anchor="end">$1e{e}</text><line x1="{left}" y1="{:.1}" x2="{}" y2="{:.1}" stroke="#ddd"/>"##, left - 4.0, y(c) + 4.0, y(c), w - 20.0, y(c));
    }
    for (i, r) in rows.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let path: Vec<String> = r.cost.iter().map(|c| format!("{:.1},{:.1}", x(c.alpha), y(c.total_usd))).collect();
        let _ = write!(s, r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"/>"#, path.join(" "));
        let _ = write!(s, r#"<rect x="{}" y="{}" width="10" height="10" fill="{color}"/><text x="{}" y="{}" font-size="11">{}</text>"#, w, 20.0 + 15.0 * i as f64, w + 14.0, 29.0 + 15.0 * i as f64, esc(&r.config));
    }
    s.push_str("</svg></figure>");
    s
}

pub fn render(rows: &[RunRow]) -> String {
    let mut s = String::from(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tierlab compare</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}figure{margin:1.5em 0}figcaption{font-weight:600;margin-bottom:.4em}pre{font-size:12px;overflow-x:auto;background:#eee;padding:1em}</style></head><body>
<h1>tierlab compare</h1><p>One workload on each drive design, in four currencies: performance, energy, endurance and dollars.</p>"#,
    );
    s.push_str(&bars("Throughput", "IOPS", rows, |r| r.throughput_iops));
    s.push_str(&bars("Mean response time", "ms", rows, |r| r.mean_ms));
    s.push_str(&bars("Energy", "J", rows, |r| r.energy_j));
    s.push_str(&bars("SSD endurance used (reads count 1/10)", "ppm", rows, |r| r.ssd_eu_read_tenth));
    s.push_str(&cost_chart(rows));
    let _ = writeln!(s, "<h2>Table</h2><pre>{}</pre></body></html>", esc(&render_text(rows)));
    s
}
