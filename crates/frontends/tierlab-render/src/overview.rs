//! `tierlab overview`'s report as people read it, fitting 80 columns: the workload, the
//! devices and knobs, how each design was measured, one row per design with its 95 %
//! intervals, the designs that cannot carry the load marked, and the verdict.

use tierlab_hybrid_study::{Config, CostModel, Overview};
use tierlab_report::{fmt_bytes, with_interval, Table};
use tierlab_workload::{Arrival, Workload, WorkloadSpec};

/// The workload in one phrase: a trace's path, or a synthetic workload's name, arrivals,
/// span and read share.
pub fn describe_workload(workload: &Workload) -> String {
    match workload {
        Workload::Trace { path, .. } => format!("trace {}", path.display()),
        Workload::Synthetic(spec) => format!("{} ({}, {}, {:.0} % reads)", spec.name, rate(spec), fmt_bytes(spec.span_bytes), spec.read_fraction * 100.0),
    }
}

/// A synthetic workload's arrivals, as the overview's header states them.
fn rate(spec: &WorkloadSpec) -> String {
    match spec.arrival {
        Arrival::Poisson { iops } => format!("Poisson, {iops} IOPS"),
        Arrival::Fixed { iops } => format!("fixed rate, {iops} IOPS"),
        Arrival::Back2back => "back to back".into(),
    }
}

/// Names joined for a sentence: `a`, `a and b`, `a, b and c`.
fn joined(names: &[String]) -> String {
    match names {
        [] => "-".into(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The overview as people read it, within 80 columns: `workload` as [`describe_workload`]
/// gives it, run as `config` says and priced by `cost`. Byte-stable (golden-file tested).
pub fn render(workload: &str, o: &Overview, config: &Config, cost: &CostModel) -> String {
    let h = &config.hybrid;
    let mut s = String::new();
    s.push_str(&format!("workload   {workload}\n"));
    s.push_str(&format!("devices    SSD {}, HDD {}\n", h.ssd, config.hdd.device));
    let start = if h.populated { "holding their data" } else { "new and empty" };
    s.push_str(&format!("hybrids    SSD share {}, extents {}, PT {}, MCML {}, {start}\n", h.ssd_fraction, fmt_bytes(h.es), h.pt, h.mcml));
    s.push_str(&format!("spin-down  {}\n", o.spin_down));
    s.push_str(&format!("prices     {}, tariff {} (demand billed {})\n", cost.prices, cost.tariff, cost.demand_billing));
    let hdd = o.rows.iter().find_map(|r| r.hdd_ratings.as_ref()).map_or("no HDD".to_string(), |h| h.describe());
    let wear = format!("SSD: bytes written, reads count {} of a write; HDD: {hdd}", cost.read_effect);
    s.push_str(&crate::compare::wrapped(&wear, "wear       ", "           ", 80));
    let years = o.years;
    let target = o.measurement.target_relative_half_width * 100.0;
    s.push_str(&format!("measured   each run warmed up until steady, then run until its 95 % interval\n           (±) is within {target} %; max IOPS: closed loop, one request outstanding;\n           the rest: the workload at its own arrival times, for {years} years\n\n"));
    let mut t = Table::new(["design", "max IOPS", "mean ms", &format!("kWh/{years}y"), "SSD life %", "HDD life %", &format!("$/{years}y")]);
    for d in &o.designs {
        let mark = match (d.sustainable, d.settled) {
            (false, _) => "!",
            (true, false) => "~",
            (true, true) => "",
        };
        let life = |v: Option<f64>, hw: f64| v.map_or("-".into(), |v| with_interval(v, hw, 1));
        t.row([
            format!("{}{mark}", d.design),
            with_interval(d.max_iops, d.max_iops_hw, 0),
            with_interval(d.mean_ms, d.mean_ms_hw, 3),
            with_interval(d.energy_kwh, d.energy_kwh_hw, 1),
            life(d.ssd_life_pct, d.ssd_life_pct_hw),
            life(d.hdd_life_pct, 0.0),
            with_interval(d.cost_usd, d.cost_usd_hw, 0),
        ]);
    }
    s.push_str(&t.render());
    for d in o.designs.iter().filter(|d| !d.sustainable) {
        s.push_str(&format!("! {}: {}; its figures are a saturated run's\n", d.design, tierlab_measure::cannot_sustain(d.offered_iops, d.max_iops)));
    }
    if o.designs.iter().any(|d| d.sustainable && !d.settled) {
        s.push_str("~ never settled: the warm-up was cut at the run's cap (--run-requests)\n");
    }
    for f in &o.failed {
        s.push_str(&format!("not run: {}: {}\n", f.config, f.error));
    }
    s.push('\n');
    let verdict = |names: &[String]| match names.len() {
        0 => "-".to_string(),
        1 => names[0].clone(),
        _ => format!("{} (a tie: within each other's 95 % interval)", joined(names)),
    };
    s.push_str(&format!("verdict    among {}\n", joined(&o.judged)));
    s.push_str(&format!("           fastest {}\n", verdict(&o.fastest)));
    s.push_str(&format!("           cheapest over {years} years {}\n", verdict(&o.cheapest)));
    s.push_str(&format!("           best IOPS/$ {}\n", verdict(&o.best_per_dollar)));
    for n in &o.not_judged {
        s.push_str(&format!("not judged {}: {}\n", n.design, n.reason));
    }
    s.push_str("more       tierlab compare (sweeps), tierlab simulate (one design), --help\n");
    s
}
