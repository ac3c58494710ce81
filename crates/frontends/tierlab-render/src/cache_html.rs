//! A miss-ratio study's self-contained HTML page.

use crate::cache::{describe_objects, size_label};
use crate::charts::{column_notes, esc, figure, page_head, plot_linear, Chart, Marker, Series, Style, XAxis, PALETTE};
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;
use tierlab_cache::Algorithm;
use tierlab_cache_study::CacheReport;
use tierlab_placement::{CurveObjects, CurvePoint};
use tierlab_report::fmt_bytes;

/// One charted quantity of a point.
type Metric = fn(&CurvePoint) -> f64;

/// A self-contained page: one chart per miss ratio (every algorithm against the cache
/// size, log scale), then the points as a table.
pub fn render(r: &CacheReport) -> Result<String> {
    let name = Path::new(&r.trace).file_name().map_or(r.trace.clone(), |n| n.to_string_lossy().into_owned());
    let mut out = page_head(&format!("Miss-ratio curves: {name}"), "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}");
    let requested = if r.sized_requests { format!(", {} requested", fmt_bytes(r.bytes)) } else { String::new() };
    let _ = writeln!(
        out,
        "<p>{} ({}): {} requests{}. Objects: {}.</p>",
        esc(&r.trace),
        esc(&r.format),
        r.requests,
        esc(&requested),
        esc(&describe_objects(r.objects))
    );
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for p in &r.points {
        if !algorithms.contains(&p.algorithm) {
            algorithms.push(p.algorithm);
        }
    }
    let style = Style { height: 420, legend_width: 130, zero_based: true };
    let blocks = matches!(r.objects, CurveObjects::Blocks { .. });
    let mut metrics: Vec<(&str, Metric)> = vec![("Request miss ratio", |p| 100.0 * p.request_miss_ratio)];
    if blocks {
        metrics.push(("Block miss ratio", |p| 100.0 * p.object_miss_ratio));
    }
    if r.sized_requests {
        metrics.push(("Byte miss ratio", |p| 100.0 * p.byte_miss_ratio));
    }
    for (title, value) in metrics {
        let series: Vec<Series> = algorithms
            .iter()
            .enumerate()
            .map(|(i, &alg)| Series {
                label: alg.to_string(),
                colour: PALETTE[i % PALETTE.len()],
                dashed: i >= Marker::ALL.len(),
                marker: Marker::ALL[i % Marker::ALL.len()],
                points: r
                    .points
                    .iter()
                    .filter(|p| p.algorithm == alg)
                    .map(|p| (p.size as f64, value(p), true))
                    .collect(),
            })
            .collect();
        let x_desc = if r.objects.sizes_are_counts() { "cache size (objects, log scale)" } else { "cache size (log scale)" };
        let y_desc = format!("{}, %", title.to_lowercase());
        let x = if r.objects.sizes_are_counts() { XAxis::Log } else { XAxis::LogBytes };
        let chart = Chart::new(x_desc, &y_desc, x, &series).joined();
        figure(&mut out, &format!("{title} by cache size"), &plot_linear(&chart, style)?);
    }
    out.push_str("<table>\n<tr><th>algorithm</th><th>cache size</th><th>request miss ratio</th>");
    if blocks {
        out.push_str("<th>block miss ratio</th>");
    }
    if r.sized_requests {
        out.push_str("<th>byte miss ratio</th>");
    }
    out.push_str("<th>misses</th></tr>\n");
    for p in &r.points {
        let _ = write!(out, "<tr><td>{}</td><td>{}</td><td>{:.4}</td>", p.algorithm, esc(&size_label(r.objects, p.size)), p.request_miss_ratio);
        if blocks {
            let _ = write!(out, "<td>{:.4}</td>", p.object_miss_ratio);
        }
        if r.sized_requests {
            let _ = write!(out, "<td>{:.4}</td>", p.byte_miss_ratio);
        }
        let _ = writeln!(out, "<td>{}</td></tr>", p.counts.object_misses);
    }
    out.push_str("</table>\n");
    let mut notes = vec![
        ("algorithm", "the replacement algorithm"),
        ("cache size", if r.objects.sizes_are_counts() { "the cache's capacity in objects" } else { "the cache's capacity in bytes" }),
        ("request miss ratio", "share of requests not served wholly from the cache"),
    ];
    if blocks {
        notes.push(("block miss ratio", "share of block accesses that missed"));
    }
    if r.sized_requests {
        notes.push(("byte miss ratio", "share of the requested bytes that missed"));
    }
    notes.push(("misses", "objects (blocks) fetched into the cache on a miss"));
    column_notes(&mut out, &notes);
    out.push_str("</body></html>\n");
    Ok(out)
}
