//! A self-contained HTML report of `tierlab compare`: SVG charts (no scripts, no network),
//! readable in any browser and printable. Each design family (SSD-only, HDD-only, linear,
//! tiering, caching) has its colour of `charts::DESIGN_FAMILIES` throughout. Every cost
//! is the workload at its own rate (the open-loop run); a closed-loop run gives only the
//! throughput, how fast the design can go, and is never priced.

use crate::charts::{bars, column_notes, esc, figure, num, page_head, plot_log, Bar, Chart, Colour, Marker, PointLabel, Reference, Series, Style, XAxis, DESIGN_FAMILIES};
use crate::compare::{render_failed, table_cells};
use anyhow::Result;
use std::fmt::Write;
use tierlab_hybrid_study::{FailedRow, RunRow};

/// A row's family: (index, name, colour).
fn family(r: &RunRow) -> (usize, &'static str, Colour) {
    let i = DESIGN_FAMILIES.iter().position(|f| f.0 == r.mode).unwrap_or(0);
    (i, DESIGN_FAMILIES[i].0, DESIGN_FAMILIES[i].1)
}

/// The families present, as legend swatches.
fn family_legend(rows: &[RunRow]) -> Vec<(Colour, String)> {
    DESIGN_FAMILIES.iter().enumerate().filter(|(i, _)| rows.iter().any(|r| family(r).0 == *i)).map(|(_, f)| (f.1, f.0.to_string())).collect()
}

/// Bars of one figure per design, hatched where the design cannot carry the load.
fn bar_chart(rows: &[RunRow], unit: &str, value: impl Fn(&RunRow) -> f64) -> Result<String> {
    let bs: Vec<Bar> = rows
        .iter()
        .map(|r| Bar { label: r.config.clone(), value: value(r), colour: family(r).2, note: (!r.sustainable).then(|| "(cannot carry the load)".to_string()) })
        .collect();
    bars(&bs, unit, &family_legend(rows))
}

/// Whether `r` is on the Pareto front of throughput (more is better) against the cost
/// over the horizon (less is better) among the designs that carry the load: no other
/// such design is at least as fast and at most as dear, and better in one. A design that
/// cannot carry the load is never on it.
pub fn on_front(r: &RunRow, rows: &[RunRow]) -> bool {
    let (t, c) = (r.throughput_iops, r.horizon.total_usd);
    r.sustainable
        && t.is_finite()
        && c.is_finite()
        && !rows.iter().filter(|o| o.sustainable).any(|o| o.throughput_iops >= t && o.horizon.total_usd <= c && (o.throughput_iops > t || o.horizon.total_usd < c))
}

/// What the throughput axis measures: a closed-loop run's rate, or the open-loop one's.
fn throughput_desc(rows: &[RunRow]) -> String {
    match rows.first().and_then(|r| r.runs.iter().find(|n| n.replay.starts_with("closed"))) {
        Some(c) => format!("throughput, as fast as the design goes ({}), IOPS", c.replay),
        None => "throughput at the workload's own arrival times, IOPS".into(),
    }
}

fn years(rows: &[RunRow]) -> String {
    num(rows.first().map_or(5.0, |r| (r.horizon.years * 10.0).round() / 10.0))
}

/// Cost over the horizon against throughput, one point per design coloured by family;
/// the front (filled) joined and named, designs off it hollow, those that cannot carry
/// the load crossed out of it (grey diamonds).
fn pareto(rows: &[RunRow]) -> Result<String> {
    let mut series: Vec<Series> = Vec::new();
    for (fi, f) in DESIGN_FAMILIES.iter().enumerate() {
        let points: Vec<(f64, f64, bool)> =
            rows.iter().filter(|r| family(r).0 == fi && r.sustainable).map(|r| (r.throughput_iops, r.horizon.total_usd, on_front(r, rows))).collect();
        if !points.is_empty() {
            series.push(Series { label: f.0.to_string(), colour: f.1, dashed: false, marker: Marker::Circle, points });
        }
    }
    let slow: Vec<(f64, f64, bool)> = rows.iter().filter(|r| !r.sustainable).map(|r| (r.throughput_iops, r.horizon.total_usd, false)).collect();
    if !slow.is_empty() {
        series.push(Series { label: "cannot carry the load".into(), colour: Colour(0x99, 0x99, 0x99), dashed: false, marker: Marker::Diamond, points: slow });
    }
    let mut front: Vec<&RunRow> = rows.iter().filter(|r| on_front(r, rows)).collect();
    front.sort_by(|a, b| a.throughput_iops.total_cmp(&b.throughput_iops));
    // Name each front point once; designs within 1 % of it on both axes are counted with it.
    let near = |a: &RunRow, b: &RunRow| {
        (a.throughput_iops - b.throughput_iops).abs() <= 0.01 * a.throughput_iops.max(b.throughput_iops)
            && (a.horizon.total_usd - b.horizon.total_usd).abs() <= 0.01 * a.horizon.total_usd.max(b.horizon.total_usd)
    };
    let mut labels: Vec<PointLabel> = Vec::new();
    let mut named: Vec<&RunRow> = Vec::new();
    for r in &front {
        if named.iter().any(|n| near(n, r)) {
            continue;
        }
        named.push(r);
        let ties = front.iter().filter(|o| near(o, r)).count();
        let text = if ties > 1 { format!("{} (+{} within 1 %)", r.config, ties - 1) } else { r.config.clone() };
        labels.push(PointLabel { x: r.throughput_iops, y: r.horizon.total_usd, text });
    }
    // Throughputs an order of magnitude apart (an SSD beside disks) go on a log axis, so
    // that the slower designs are not crowded against its left end.
    let shown: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).filter(|t| t.is_finite() && *t > 0.0).collect();
    let spread = shown.iter().copied().fold(0.0, f64::max) / shown.iter().copied().fold(f64::INFINITY, f64::min);
    let (x_axis, x_desc) = if spread >= 10.0 { (XAxis::Log, format!("{} (log)", throughput_desc(rows))) } else { (XAxis::Linear, throughput_desc(rows)) };
    let y_desc = format!("cost over {} years at the workload's rate, USD (log)", years(rows));
    let front_line = Reference::through("Pareto front (filled)", front.iter().map(|r| (r.throughput_iops, r.horizon.total_usd)).collect());
    let chart = Chart::new(&x_desc, &y_desc, x_axis, &series).reference(front_line).labels(labels).unit("USD");
    plot_log(&chart, Style { height: 520, legend_width: 190, zero_based: false })
}

/// 1, 10, 100, then 10³, 10⁴ …; other values as they are.
fn power_of_ten(v: f64) -> String {
    let e = v.log10().round();
    if v <= 0.0 || (10f64.powf(e) - v).abs() > 1e-9 * v || e < 3.0 {
        return num(v);
    }
    let sup: String = (e as i64).to_string().chars().map(|d| ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'][d.to_digit(10).unwrap_or(0) as usize]).collect();
    format!("10{sup}")
}

/// At most this many designs of a family in the cost-against-α chart.
const PER_FAMILY: usize = 3;

/// Total cost at each α relative to HDD-only's at the same α: the baselines and, of each
/// family, the designs cheapest at some α (at most [`PER_FAMILY`]). Returns the chart and
/// how many designs it leaves out.
fn relative_cost(rows: &[RunRow]) -> Result<Option<(String, usize)>> {
    let Some(hdd) = rows.iter().find(|r| r.mode == "hdd-only") else { return Ok(None) };
    let cats: Vec<String> = hdd.cost.iter().map(|c| power_of_ten(c.alpha)).collect();
    let mut picked: Vec<&RunRow> = Vec::new();
    for (fi, _) in DESIGN_FAMILIES.iter().enumerate() {
        let members: Vec<&RunRow> = rows.iter().filter(|r| family(r).0 == fi && r.mode != "hdd-only" && r.sustainable).collect();
        let mut mine: Vec<&RunRow> = Vec::new();
        for i in 0..hdd.cost.len() {
            let best = members.iter().filter(|r| r.cost.get(i).is_some_and(|c| c.total_usd.is_finite())).min_by(|a, b| a.cost[i].total_usd.total_cmp(&b.cost[i].total_usd));
            if let Some(b) = best {
                if !mine.iter().any(|m| std::ptr::eq(*m, *b)) && mine.len() < PER_FAMILY {
                    mine.push(b);
                }
            }
        }
        picked.extend(mine);
    }
    let left_out = rows.iter().filter(|r| r.mode != "hdd-only").count() - picked.len();
    let mut shown_per_family = [0usize; DESIGN_FAMILIES.len()];
    let series: Vec<Series> = picked
        .iter()
        .map(|r| {
            let (fi, _, colour) = family(r);
            let k = shown_per_family[fi];
            shown_per_family[fi] += 1;
            let points = r.cost.iter().zip(&hdd.cost).enumerate().map(|(i, (c, h))| (i as f64, c.total_usd / h.total_usd, true)).collect();
            Series { label: r.config.clone(), colour: colour.lighter(0.3 * k as f64), dashed: k == 1, marker: Marker::ALL[k % Marker::ALL.len()], points }
        })
        .collect();
    let chart = Chart::new("α, passes of the workload at its own rate", "total cost / HDD-only's at the same α (log)", XAxis::Categories(&cats), &series)
        .joined()
        .reference(Reference::level("HDD-only", 1.0));
    Ok(Some((plot_log(&chart, Style { height: 480, legend_width: 280, zero_based: false })?, left_out)))
}

/// What each column of the table measures.
fn notes(rows: &[RunRow]) -> Vec<(&'static str, String)> {
    let pass = rows.first().map_or(String::new(), |r| format!(" ({:.1} s, {:.1} IOPS offered)", r.pass_s, r.offered_iops));
    vec![
        ("config", "the design: family, SSD share of the capacity, promotion or pre-fetch threshold (pt), extent size (es), concurrent migrations (mcml); ! cannot carry the offered load, ~ never settled before it was measured".into()),
        ("IOPS", throughput_desc(rows)),
        ("mean ms, p99 ms", "response time from arrival to completion, the workload at its own arrival times, at steady state".into()),
        ("energy J", format!("energy of one pass of the workload{pass}, at steady-state power")),
        ("avg W", "mean power of the drive's devices".into()),
        ("spun down %", "share of the time the disk is spun down".into()),
        ("SSD hit %", "share of requests the SSD serves".into()),
        ("moves", "per pass: promotions ↑ / demotions ↓ (tiering), or pre-fetches p / evictions e / write-backs w (caching)".into()),
        ("SSD eu", "share of the SSD's rated write life one pass uses, parts per million (reads count 1/10)".into()),
        ("HDD eu", "share of the disk's rated start/stop cycles one pass uses, parts per million".into()),
        ("$ α=…", "total cost, USD, of α passes of the workload at its own rate: purchase, energy, demand charges and wear".into()),
    ]
}

pub fn render(rows: &[RunRow], failed: &[FailedRow]) -> Result<String> {
    let mut s = page_head(
        "tierlab compare",
        "table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #ccc;padding:2px 5px}td{text-align:right;white-space:nowrap}\
         td:first-child{text-align:left}th{background:#f2f2f2}tr.slow td{color:#a33}",
    );
    s.push_str(
        "<p>One workload on each drive design, in four currencies: performance, energy, endurance and dollars. Colours are design \
         families. Costs are the workload at its own rate; throughput is how fast the design can go. A hatched bar or grey \
         diamond is a design that cannot carry the offered load: it is shown, never on the front.</p>\n",
    );
    figure(&mut s, &format!("Cost over {} years against throughput; the Pareto front (faster for less) is joined and named", years(rows)), &pareto(rows)?);
    figure(&mut s, "Throughput (IOPS)", &bar_chart(rows, "IOPS", |r| r.throughput_iops)?);
    figure(&mut s, "Mean response time at the workload's own arrival times (ms)", &bar_chart(rows, "ms", |r| r.mean_ms)?);
    figure(&mut s, "Energy of one pass of the workload (J)", &bar_chart(rows, "J", |r| r.energy_j)?);
    figure(&mut s, "SSD endurance one pass uses, parts per million of rated life (reads count 1/10)", &bar_chart(rows, "ppm", |r| r.ssd_eu_read_tenth)?);
    if let Some((svg, left_out)) = relative_cost(rows)? {
        let rest = if left_out > 0 { format!("; the other {left_out} designs are in the table") } else { String::new() };
        figure(&mut s, &format!("Total cost against α relative to HDD-only at the same α: each family's designs cheapest at some α{rest}"), &svg);
    }
    let (header, cells) = table_cells(rows);
    s.push_str("<h2>Table</h2>\n<table><thead><tr>");
    for h in &header {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead><tbody>\n");
    for (r, row) in rows.iter().zip(&cells) {
        s.push_str(if r.sustainable { "<tr>" } else { "<tr class=\"slow\">" });
        for c in row {
            let _ = write!(s, "<td>{}</td>", esc(c));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    let notes = notes(rows);
    let notes: Vec<(&str, &str)> = notes.iter().map(|(a, b)| (*a, b.as_str())).collect();
    column_notes(&mut s, &notes);
    if !failed.is_empty() {
        let _ = writeln!(s, "<pre>{}</pre>", esc(&render_failed(failed)));
    }
    s.push_str("</body></html>\n");
    Ok(s)
}
