//! A capacity plan's self-contained HTML report: costs of the best, runner-up and
//! single-type plans, where the best plan puts each class, the designs replayed, and the
//! text report's tables.

use crate::charts::{bars, column_notes, esc, figure, grouped, num, page_head, plot_linear, plot_log, Bar, Chart, Marker, Series, Style, XAxis, PALETTE};
use crate::plan::{render_doc, usd};
use anyhow::Result;
use std::fmt::Write as _;
use tierlab_mixplan::catalog::PlanCatalog;
use tierlab_mixplan::Plan;
use tierlab_plan_study::PlanReport;

const STYLE: Style = Style { height: 420, legend_width: 200, zero_based: true };

/// The HTML report: costs of the best, runner-up and single-type plans, and the placement.
pub fn render(r: &PlanReport, catalog: &PlanCatalog) -> Result<String> {
    let mut s = page_head(
        &format!("Plan for {}", r.workload),
        "table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}td:first-child{text-align:left}th{background:#f2f2f2}\n\
         h3{font-size:15px;margin:1.4em 0 .5em}.warn{color:#a00;font-weight:600;border-left:4px solid #a00;padding-left:.6em}",
    );
    let b = &r.study.best;
    let _ = writeln!(s, "<p>Catalog <code>{}</code> ({}). Best plan: <b>{}</b>, {} over {} years.</p>", esc(&r.catalog), esc(&catalog.description), esc(&b.summary()), usd(b.total_usd), num(r.options.cost.horizon_years));
    if let Some(warning) = overload_warning(&r.simulated) {
        let _ = writeln!(s, "<p class=\"warn\">{}</p>", esc(&warning));
    }
    let mut plans: Vec<(String, &Plan)> = vec![(format!("best: {}", b.summary()), b)];
    plans.extend(r.study.runner_ups.iter().map(|p| (p.summary(), p)));
    // The single-type plans not already among them.
    for p in r.study.single_type.iter().filter_map(|o| o.plan.as_ref()) {
        if !plans.iter().any(|(_, q)| q.counts() == p.counts()) {
            plans.push((p.summary(), p));
        }
    }
    let categories: Vec<String> = plans.iter().map(|(l, _)| l.clone()).collect();
    type Part = (&'static str, fn(&Plan) -> f64);
    let parts: [Part; 4] = [
        ("total", |p| p.total_usd),
        ("purchase", |p| p.cost.install_usd),
        ("electricity", |p| p.cost.electricity_usd),
        ("cooling", |p| p.cost.cooling_usd),
    ];
    let series: Vec<Series> = parts
        .iter()
        .enumerate()
        .map(|(k, (label, f))| Series { label: label.to_string(), colour: PALETTE[k], dashed: false, marker: Marker::ALL[k], points: plans.iter().enumerate().map(|(i, (_, p))| (i as f64, f(p).max(0.01), true)).collect() })
        .collect();
    let chart = Chart::new("plan", "cost over the horizon ($, log scale)", XAxis::Categories(&categories), &series);
    figure(&mut s, "Cost of the best plan, the runner-ups and each device type alone", &plot_log(&chart, STYLE)?);
    let labels: Vec<String> = r.classes.iter().map(|c| c.label.clone()).collect();
    let series: Vec<Series> = b
        .types
        .iter()
        .enumerate()
        .filter(|(_, u)| u.count > 0)
        .map(|(k, u)| Series {
            label: u.device.clone(),
            colour: PALETTE[k % PALETTE.len()],
            dashed: false,
            marker: Marker::ALL[k % Marker::ALL.len()],
            points: u.placed_gb.iter().enumerate().map(|(j, gb)| (j as f64, *gb, true)).collect(),
        })
        .collect();
    let chart = Chart::new("data class (H/C hot or cold, R/W, size bin, intensity bin)", "GB placed on the type", XAxis::Categories(&labels), &series).unit("GB");
    figure(&mut s, "Where the best plan puts each data class (cf. the research's Figure 4.6)", &plot_linear(&chart, STYLE)?);
    let simulated: Vec<Bar> = r
        .simulated
        .iter()
        .filter_map(|c| {
            let report = c.report.as_ref()?;
            Some(Bar {
                label: format!("{}: {}", c.design, c.devices),
                value: report.system.response_time.mean_ms,
                colour: if c.design == "planned" { PALETTE[0] } else { PALETTE[8] },
                note: flag(c, &r.simulated).map(|why| format!("({why})")),
            })
        })
        .collect();
    if !simulated.is_empty() {
        let legend = [(PALETTE[0], "the plan".to_string()), (PALETTE[8], "one type alone".to_string())];
        figure(&mut s, "Mean response time of each design replayed on tierlab's device models (hatched: does not serve the workload)", &bars(&simulated, "mean response time, ms", &legend)?);
    }
    s.push_str("<h2>Report</h2>\n");
    s.push_str(&render_doc(r, catalog).html());
    column_notes(&mut s, PLAN_COLUMNS);
    s.push_str("</body></html>\n");
    Ok(s)
}

/// A simulated device this busy cannot keep up: its queue grows for the whole run.
const OVERLOADED_BUSY: f64 = 0.95;
/// A design whose simulated mean response time is this many times the fastest simulated
/// design's (and above [`SLOW_MS`]) is flagged as too slow for the workload.
const SLOW_FACTOR: f64 = 10.0;
const SLOW_MS: f64 = 50.0;

/// A design's busiest device type in simulation: (device, busy fraction).
fn busiest(c: &tierlab_plan_study::check::Checked) -> Option<(&str, f64)> {
    c.types.iter().filter(|t| t.simulated_busy.is_finite()).max_by(|a, b| a.simulated_busy.total_cmp(&b.simulated_busy)).map(|t| (t.device.as_str(), t.simulated_busy))
}

/// The fastest simulated design: (design, mean ms).
fn fastest(checked: &[tierlab_plan_study::check::Checked]) -> Option<(&str, f64)> {
    checked.iter().filter_map(|c| Some((c.design.as_str(), c.report.as_ref()?.system.response_time.mean_ms))).filter(|(_, m)| m.is_finite()).min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Why a simulated design does not serve the workload, if it does not: a device type
/// (nearly) always busy, or a mean response time far above the fastest design's.
fn flag(c: &tierlab_plan_study::check::Checked, checked: &[tierlab_plan_study::check::Checked]) -> Option<String> {
    let mean = c.report.as_ref()?.system.response_time.mean_ms;
    if let Some(m) = c.measured.as_ref().filter(|m| !m.sustained()) {
        return Some(tierlab_measure::cannot_sustain(m.offered_iops, m.iops.mean));
    }
    if let Some((device, busy)) = busiest(c).filter(|(_, b)| *b >= OVERLOADED_BUSY) {
        return Some(format!("overloaded: {device} {:.1} % busy", busy * 100.0));
    }
    let (best, best_ms) = fastest(checked)?;
    (mean >= SLOW_MS && mean >= SLOW_FACTOR * best_ms).then(|| format!("{} times the mean of {best}", grouped(mean / best_ms, 0)))
}

/// What to say when the planned design, replayed, does not serve the workload.
fn overload_warning(checked: &[tierlab_plan_study::check::Checked]) -> Option<String> {
    let c = checked.iter().find(|c| c.design == "planned")?;
    let rt = &c.report.as_ref()?.system.response_time;
    let why = flag(c, checked)?;
    Some(format!(
        "Replayed on tierlab's device models, the best plan does not serve this workload: mean response time {} ms, p99 {} ms ({why}). \
         The planner's constraints (capacity, bandwidth at the classes' 95th-percentile rates, lifetime) passed it; see the simulation below.",
        grouped(rt.mean_ms, 1),
        grouped(rt.p99_ms, 1)
    ))
}

/// What the columns of the report's tables measure.
const PLAN_COLUMNS: &[(&str, &str)] = &[
    ("need: capacity, bandwidth, lifetime", "devices of the type each constraint alone needs for what the plan places on it"),
    ("binds", "the constraint that sets the device count"),
    ("SSD years", "the SSDs' lifetime at the planned write rate"),
    ("cost", "purchase plus power (and cooling) over the horizon, USD"),
    ("size GB, F_j", "a data class's size and its 95th-percentile bandwidth, KB/s"),
    ("B device", "the bandwidth one device of the type gives the class, KB/s"),
    ("total, purchase, recurring", "the plan's cost over the horizon and its parts, USD"),
    ("vs best, saving", "how much dearer than the best plan, and what the best plan saves against it"),
    ("mean ms, p95 ms, p99 ms", "simulated response time, arrival to completion, over the measured window; ± is the 95 % interval of the mean"),
    ("mean W, energy kJ", "simulated mean power (± its 95 % interval) and energy over the measured window"),
    ("measured", "the warm-up before the window and the window's length, in simulated time (the trace played pass after pass)"),
    ("SSD erases", "blocks the simulated SSDs erased"),
    ("load planned, busy simulated", "the planner's bandwidth share per device, against the share of time the simulated devices were busy"),
];
