//! A self-contained HTML page of `tierlab system savings`: the GreenDM dissertation's
//! Figure 4.4 (a) and (b) as inline SVG charts (drawn by `crate::charts`), then the
//! summary table when there is one. No timestamps: the same study gives the same bytes.

use crate::charts::{column_notes, esc, figure, page_head, plot_linear, table_head, Chart, Marker, Reference, Series, Style, XAxis, PALETTE};
use crate::system::{summary_cells, SUMMARY_HEADER};
use anyhow::Result;
use std::fmt::Write as _;
use tierlab_system_power::LowPower;
use tierlab_system_study::{SavingsReport, TARGET};

const STYLE: Style = Style { height: 460, legend_width: 200, zero_based: true };

/// Category labels 0..=n, thinned to about 16 so that they stay readable.
fn k_labels(n: u32) -> Vec<String> {
    let step = [1, 2, 5, 10, 20, 50, 100, 200].into_iter().find(|s| n / s <= 16).unwrap_or(100);
    (0..=n).map(|k| if k % step == 0 { k.to_string() } else { String::new() }).collect()
}

/// The chapter's Figure 4.4 (a) and (b) from the report's curves, then its summary table
/// when there is one.
pub fn render_savings(r: &SavingsReport) -> Result<String> {
    let n = r.enclosures;
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
    let labels = k_labels(n);
    for (mode, caption) in [
        (LowPower::SpinDown, "(a) Disk spin-down: system power saved against enclosures with every disk spun down"),
        (LowPower::PowerDown, "(b) Disk power-down: system power saved against enclosures with every slot powered down"),
    ] {
        let series: Vec<Series> = r
            .curves
            .iter()
            .filter(|c| c.mode == mode)
            .map(|c| {
                let ci = r.controller_ids.iter().position(|id| *id == c.controller).unwrap_or(0);
                let ei = r.enclosure_ids.iter().position(|id| *id == c.enclosure).unwrap_or(0);
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
    if !r.summary.is_empty() {
        s.push_str("<h2>Table</h2>\n");
        table_head(&mut s, &SUMMARY_HEADER);
        for p in &r.summary {
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
}
