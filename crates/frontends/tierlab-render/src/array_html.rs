//! A self-contained HTML report of `tierlab array compare`: the Hibernator paper's charts
//! (inline SVG, drawn by `crate::charts`), then the table.
//!
//! - across loads: mean response time per scheme, log y, with R_limit as a horizontal
//!   line (the paper's Fig. 7), and energy saving against RAID-5 (Fig. 8);
//! - across R_limits (`--r-limits`): energy saving against R_limit (Fig. 10), and mean
//!   response time against R_limit with the goal itself as a line.
//!
//! A scheme keeps its colour in every chart; a `+` (guaranteed) variant has its base
//! scheme's colour, a dashed line and triangles. Filled markers met the goal, hollow ones
//! missed it.

use crate::charts::{column_notes, esc, figure, num, page_head, plot_linear, plot_log, Chart, Colour, Marker, Reference, Series, Style, XAxis, PALETTE};
use crate::array::{compare_cells, CompareContext, Study};
use anyhow::Result;
use std::fmt::Write;
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_array_sim::CompareRow;

/// One colour per scheme kind (in `SchemeKind::ALL` order): RAID-5, the reference, black.
const KIND_COLOURS: [Colour; 7] = [PALETTE[6], PALETTE[7], PALETTE[0], PALETTE[3], PALETTE[2], PALETTE[4], PALETTE[1]];
const OTHER_COLOUR: Colour = PALETTE[5];

/// A scheme label's colour and whether it is a guaranteed (`+`) variant.
fn look(scheme: &str) -> (Colour, bool) {
    match SchemeConfig::named(scheme) {
        Ok(c) => {
            let i = SchemeKind::ALL.iter().position(|k| *k == c.kind).unwrap_or(0);
            (KIND_COLOURS[i], c.guarantee)
        }
        Err(_) => (OTHER_COLOUR, scheme.ends_with('+')),
    }
}

/// Linear axes are padded below their lowest value, zero included (RAID-5's saving of 0
/// stays off the edge).
const STYLE: Style = Style { height: 460, legend_width: 170, zero_based: false };

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
            None => {
                let (colour, plus) = look(&r.scheme);
                let marker = if plus { Marker::Triangle } else { Marker::Circle };
                out.push(Series { label: r.scheme.clone(), colour, dashed: plus, marker, points: vec![p] });
            }
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The whole page.
pub fn render(rows: &[CompareRow], ctx: &CompareContext) -> Result<String> {
    let mut s = page_head(
        "tierlab array compare",
        "table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #ccc;padding:3px 6px}td{text-align:right;white-space:nowrap}td:nth-child(-n+2){text-align:left}\
         td.note{white-space:normal;text-align:left;min-width:10em}th{background:#f2f2f2}\n\
         .met{color:#2a7d2a}.missed{color:#c0392b;font-weight:600}",
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
            let reference = Reference::level(format!("R_limit {} ms", num(ctx.r_limit_ms)), ctx.r_limit_ms);
            let chart = Chart::new(x_desc, "mean response time (ms, log scale)", XAxis::Categories(labels), &mean).joined().reference(reference).unit("ms");
            figure(&mut s, "Mean response time per scheme across loads, with the goal R_limit (cf. Hibernator, Fig. 7)", &plot_log(&chart, STYLE)?);
            let saving = series_of(rows, at, |r| r.energy_saving * 100.0, false);
            let chart = Chart::new(x_desc, "energy saving against RAID-5 (%)", XAxis::Categories(labels), &saving).joined();
            figure(&mut s, "Energy saving against RAID-5 per scheme across loads (cf. Hibernator, Fig. 8)", &plot_linear(&chart, STYLE)?);
        }
        Study::RLimits { load, limits } => {
            let labels: Vec<String> = limits.iter().map(|l| num(*l)).collect();
            // RAID-5 is the reference (saving 0 whatever the goal): not charted.
            let at = |r: &CompareRow| if r.scheme == "raid5" { None } else { limits.iter().position(|l| *l == r.run.r_limit_ms) };
            let x_desc = "R_limit, the mean response-time goal (ms)";
            let saving = series_of(rows, at, |r| r.energy_saving * 100.0, false);
            let chart = Chart::new(x_desc, "energy saving against RAID-5 (%)", XAxis::Categories(&labels), &saving).joined();
            figure(&mut s, &format!("Energy saving against R_limit at {load} (cf. Hibernator, Fig. 10)"), &plot_linear(&chart, STYLE)?);
            let mean = series_of(rows, at, |r| r.run.response_time.mean_ms, true);
            let reference = Reference { solid: false, ..Reference::through("R_limit", limits.iter().enumerate().map(|(i, l)| (i as f64, *l)).collect()) };
            let chart = Chart::new(x_desc, "mean response time (ms, log scale)", XAxis::Categories(&labels), &mean).joined().reference(reference).unit("ms");
            figure(&mut s, &format!("Mean response time against R_limit at {load}"), &plot_log(&chart, STYLE)?);
        }
    }
    let (header, cells) = compare_cells(rows, ctx);
    s.push_str("<h2>Table</h2>\n<table><thead><tr>");
    for h in &header {
        // Long headers (speed changes/disk/day) may break after a slash.
        let _ = write!(s, "<th>{}</th>", esc(h).replace('/', "/<wbr>"));
    }
    s.push_str("</tr></thead><tbody>\n");
    for (r, row) in rows.iter().zip(&cells) {
        s.push_str("<tr>");
        for (h, c) in header.iter().zip(row) {
            if h == "note" {
                let _ = write!(s, r#"<td class="note">{}</td>"#, esc(c));
            } else if h == "goal" {
                let class = if r.run.goal_met { "met" } else { "missed" };
                let _ = write!(s, r#"<td class="{class}">{}</td>"#, esc(c));
            } else {
                let _ = write!(s, "<td>{}</td>", esc(c));
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    let notes: Vec<(&str, &str)> = header.iter().filter_map(|h| column_note(h).map(|n| (h.as_str(), n))).collect();
    column_notes(&mut s, &notes);
    s.push_str("</body></html>\n");
    Ok(s)
}

/// What a column of the table measures.
fn column_note(header: &str) -> Option<&'static str> {
    Some(match header {
        "load" => "the offered load the workload was run at",
        "scheme" => "the energy scheme; + is its variant with the performance guarantee",
        "R_limit ms" => "the goal: mean response time the scheme must keep",
        "mean ms" => "mean response time, arrival to completion, over the measured window",
        "p99 ms" => "99th percentile of the response time",
        "goal" => "✓ the mean met R_limit, ✗ it did not",
        "energy kJ" => "energy of the array's disks over the run",
        "power W" => "mean power of the array's disks over the measured window",
        "saving %" => "1 − the disks' power (energy) / RAID-5's at the same load",
        "system kJ" => "energy of the whole system (controller, enclosures, disks) over the run",
        "system saving %" => "1 − system energy / RAID-5's system energy at the same load",
        "speed changes/disk/day" => "disk speed (RPM) changes per disk per day",
        "start-stops/disk/day" => "spin-downs and spin-ups per disk per day",
        "guarantee activations" => "times the performance guarantee spun every disk up to full speed",
        "warm-up h" => "simulated hours before the measured window, until the run had settled",
        "window h" => "simulated hours measured",
        "note" => "how the row was measured, or why it is not like the others",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_keep_their_colour_and_plus_variants_share_it() {
        assert_eq!(look("pdc-ld").0, look("pdc-ld+").0);
        assert!(!look("pdc-ld").1 && look("pdc-ld+").1);
        assert_ne!(look("maid").0, look("hibernator").0);
    }
}
