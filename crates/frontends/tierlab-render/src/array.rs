//! An array comparison's context and table cells, shared by its text table and its HTML
//! report, so the command and the HTML page do not import each other.

use tierlab_report::with_interval;
use tierlab_array_sim::{CompareRow, Stop};

/// What a comparison varied, for the report and the charts.
#[derive(Clone, Debug)]
pub enum Study {
    /// Schemes across loads: the loads' labels in order, and what they are.
    Loads { labels: Vec<String>, axis: String },
    /// Schemes across R_limits at one load.
    RLimits { load: String, limits: Vec<f64> },
}

/// Everything a compare report says besides its rows.
#[derive(Clone, Debug)]
pub struct CompareContext {
    pub study: Study,
    pub array: String,
    pub workload: String,
    pub r_limit_ms: f64,
    /// The system the array sits in, when one is described.
    pub system: Option<String>,
}

/// The comparison's header and cells (the text table's and the HTML table's); with an
/// R_limit sweep there is an R_limit column. Figures measured through the layer carry
/// their 95 % intervals; a window that never settled is marked `~`, a run that cannot
/// sustain its load `!`.
pub fn compare_cells(rows: &[CompareRow], ctx: &CompareContext) -> (Vec<String>, Vec<Vec<String>>) {
    let sweep = matches!(ctx.study, Study::RLimits { .. });
    let measured = rows.iter().any(|r| r.run.measured.is_some());
    let mut header = vec!["load", "scheme"];
    if sweep {
        header.push("R_limit ms");
    }
    header.extend(["mean ms", "p99 ms", "goal"]);
    header.push(if measured { "power W" } else { "energy kJ" });
    header.push("saving %");
    let system = ctx.system.is_some();
    if system {
        header.extend(["system kJ", "system saving %"]);
    }
    header.extend(["speed changes/disk/day", "start-stops/disk/day", "guarantee activations"]);
    if measured {
        header.extend(["warm-up h", "window h"]);
    }
    header.push("note");
    let cells = rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.load.clone(), r.scheme.clone()];
            if sweep {
                cells.push(format!("{}", r.run.r_limit_ms));
            }
            let m = r.run.measured.as_ref();
            cells.push(match m {
                Some(m) => with_interval(m.mean_ms.mean, m.mean_ms.half_width, 3),
                None => format!("{:.3}", r.run.response_time.mean_ms),
            });
            cells.push(format!("{:.3}", r.run.response_time.p99_ms));
            cells.push(if r.run.goal_met { "✓" } else { "✗" }.to_string());
            cells.push(match m {
                Some(m) => with_interval(m.power_w.mean, m.power_w.half_width, 1),
                None => format!("{:.1}", r.run.energy_j / 1e3),
            });
            cells.push(match r.energy_saving_half_width {
                Some(hw) if hw > 0.0 && r.scheme != "raid5" => format!("{:.1} ±{:.1}", percent(r.energy_saving), hw * 100.0),
                _ => format!("{:.1}", percent(r.energy_saving)),
            });
            if system {
                cells.push(r.run.system.as_ref().map_or("-".into(), |e| format!("{:.1}", e.total_j / 1e3)));
                cells.push(r.system_saving.map_or("-".into(), |v| format!("{:.1}", percent(v))));
            }
            cells.extend([
                format!("{:.2}", r.run.speed_changes_per_disk_day),
                format!("{:.2}", r.run.start_stops_per_disk_day),
                r.run.scheme_report.guarantee_activations.to_string(),
            ]);
            if let Some(m) = m {
                cells.push(format!("{:.1}", m.warmup_s / 3600.0));
                let mark = match (m.stop, m.settled) {
                    (Stop::Unsustainable, _) => "!",
                    (_, false) => "~",
                    _ => "",
                };
                cells.push(format!("{mark}{:.1}", m.window_s / 3600.0));
            }
            cells.push(row_note(r));
            cells
        })
        .collect();
    (header.into_iter().map(str::to_string).collect(), cells)
}

/// A share as a percentage to one decimal, without a "-0.0".
pub fn percent(share: f64) -> f64 {
    let p = share * 100.0;
    if p.abs() < 0.05 {
        0.0
    } else {
        p
    }
}

/// Why a row is not what it seems: a scheme with the guarantee that missed its goal (how
/// long the guarantee held full speed), a window that never settled, a load not carried.
pub fn row_note(r: &CompareRow) -> String {
    let run = &r.run;
    let mut notes = Vec::new();
    if let Some(m) = &run.measured {
        if m.stop == Stop::Unsustainable {
            notes.push("cannot sustain the load".to_string());
        } else if !m.settled {
            notes.push("never settled".to_string());
        } else if m.stop == Stop::Limit {
            notes.push("intervals wider than the target at --hours".to_string());
        }
    }
    if r.scheme.ends_with('+') && !run.goal_met {
        let total_s = run.measured.as_ref().map_or(run.span_s, |m| m.warmup_s + m.window_s).max(1e-9);
        let held = run.scheme_report.guarantee_s / total_s * 100.0;
        notes.push(format!("missed: full speed held {held:.0} % of the run"));
    }
    notes.join("; ")
}
