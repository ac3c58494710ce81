//! A capacity plan rendered as text: what it was made with, the best plan and where it
//! puts each class, the runner-ups, each device type alone, and (when the plan was
//! checked) the designs replayed against what the planner assumed.

use crate::charts::{grouped, num};
use crate::doc::Doc;
use std::fmt::Write as _;
use tierlab_mixplan::catalog::PlanCatalog;
use tierlab_plan_study::PlanReport;
use tierlab_report::{with_interval, Table};

pub(crate) fn usd(v: f64) -> String {
    format!("${v:.2}")
}

/// The text report.
pub fn render_text(r: &PlanReport, catalog: &PlanCatalog) -> String {
    render_doc(r, catalog).text()
}

/// The report's lines and tables, for the terminal and the HTML page.
pub(crate) fn render_doc(r: &PlanReport, catalog: &PlanCatalog) -> Doc {
    let o = &r.options;
    let s = &r.study;
    let mut t = Doc::default();
    t.field("plan", format_args!("{} with catalog {} (solver: {})", r.workload, r.catalog, o.solver.name()));
    let cost = &o.cost;
    t.field(
        "cost",
        format_args!(
        "purchase{}",
        if cost.recurring {
            format!(" + {} years of power at ${}/kWh{}", num(cost.horizon_years), num(cost.usd_per_kwh), match cost.cooling_factor {
                1.0 => ", no cooling".to_string(),
                2.0 => ", cooling equal to the electricity".to_string(),
                f => format!(", cooling {} x the electricity", num(f - 1.0)),
            })
        } else {
            " only".into()
        }
    ),
    );
    t.field(
        "constraints",
        format_args!(
        "capacity, bandwidth ({}), SSD lifetime >= {} years ({} write rate){}{}",
        format!("{:?}", o.bandwidth_form).to_lowercase(),
        num(o.lifetime_years.unwrap_or(cost.horizon_years)),
        format!("{:?}", o.wear_rate).to_lowercase(),
        o.max_devices.map_or(String::new(), |m| format!(", at most {m} devices")),
        if o.rate_scale != 1.0 { format!("; bandwidth needs x{}", num(o.rate_scale)) } else { String::new() },
    ),
    );
    if o.probe.ssd_internals {
        t.field("bandwidth", "SSDs timed from a data sheet measured on their internals model instead, filled and aged");
    }
    let footprint: f64 = r.classes.iter().map(|c| c.size_gb).sum();
    t.field("workload", format_args!("{} requests over {:.0} s; {} non-empty classes, {:.1} GB", r.requests, r.span_s, r.classes.len(), footprint));
    t.push_str("\n");
    if let Some(syn) = &r.synthesis {
        let _ = writeln!(t, "synthesised from statistics file {} (seed {}, rate x{}): target against achieved", syn.stats, syn.seed, num(syn.rate_scale));
        let mut st = Table::new(["statistic", "target", "achieved", "difference"]);
        for row in &syn.rows {
            st.row([format!("{} ({})", row.label, row.unit), format!("{:.4}", row.target), format!("{:.4}", row.achieved), format!("{:+.2} %", row.deviation_percent())]);
        }
        t.table(st);
        for f in &syn.shortfalls {
            let _ = writeln!(t, "cannot meet {}: {}", f.key, f.message);
        }
        t.push_str("\n");
    }
    let b = &s.best;
    t.field("best", format_args!("{}: {} = {} purchase + {} electricity + {} cooling", b.summary(), usd(b.total_usd), usd(b.cost.install_usd), usd(b.cost.electricity_usd), usd(b.cost.cooling_usd)));
    t.push_str("\n");
    let mut tt = Table::new(["device", "count", "placed GB", "need: capacity", "bandwidth", "lifetime", "binds", "SSD years", "cost"]);
    for u in b.types.iter().filter(|u| u.count > 0) {
        tt.row([
            u.device.clone(),
            u.count.to_string(),
            format!("{:.1}", u.placed_gb.iter().sum::<f64>()),
            format!("{:.2}", u.need_capacity),
            format!("{:.2}", u.need_bandwidth),
            format!("{:.2}", u.need_lifetime),
            u.binding.map_or("-".into(), |b| format!("{b:?}").to_lowercase()),
            u.lifetime_years.map_or("-".into(), |y| format!("{y:.1}")),
            usd(u.cost.total_usd()),
        ]);
    }
    t.table(tt);
    t.push_str("\nplacement, GB per class (F_j: 95th-percentile KB/s; B: what one device gives the class, KB/s)\n");
    let used: Vec<usize> = b.types.iter().enumerate().filter(|(_, u)| u.count > 0).map(|(i, _)| i).collect();
    let mut header = vec!["class".to_string(), "size GB".into(), "F_j".into()];
    for &i in &used {
        header.push(b.types[i].device.clone());
        header.push(format!("B {}", b.types[i].device));
    }
    let mut pt = Table::new(header);
    for (j, c) in r.classes.iter().enumerate() {
        let mut row = vec![c.label.clone(), format!("{:.2}", c.size_gb), format!("{:.1}", c.bandwidth_kb_s)];
        for &i in &used {
            row.push(format!("{:.2}", b.types[i].placed_gb[j]));
            row.push(if c.bandwidth_kb_s > 0.0 { format!("{:.0}", r.bandwidth_kb_s[i][j]) } else { "-".into() });
        }
        pt.row(row);
    }
    t.table(pt);
    if !s.runner_ups.is_empty() {
        t.push_str("\nrunner-ups (the cheapest plan of each other set of device types)\n");
        let mut rt = Table::new(["plan", "total", "purchase", "recurring", "vs best"]);
        for p in &s.runner_ups {
            rt.row([p.summary(), usd(p.total_usd), usd(p.cost.install_usd), usd(p.cost.recurring_usd()), format!("+{:.1} %", (p.total_usd / b.total_usd - 1.0) * 100.0)]);
        }
        t.table(rt);
    }
    t.push_str("\none device type alone (saving: what the best plan saves against it)\n");
    let mut st = Table::new(["only", "plan", "total", "purchase", "recurring", "binds", "saving"]);
    for one in &s.single_type {
        match &one.plan {
            Some(p) => {
                let binds = p.types.iter().find(|u| u.count > 0).and_then(|u| u.binding).map_or("-".into(), |b| format!("{b:?}").to_lowercase());
                st.row([one.device.clone(), p.summary(), usd(p.total_usd), usd(p.cost.install_usd), usd(p.cost.recurring_usd()), binds, one.saving_percent.map_or("-".into(), |v| format!("{v:.1} %"))]);
            }
            None => {
                st.row([one.device.clone(), one.infeasible.clone().unwrap_or_default(), "-".into(), "-".into(), "-".into(), "-".into(), "-".into()]);
            }
        }
    }
    t.table(st);
    if !r.simulated.is_empty() {
        render_simulated(&mut t, &r.simulated);
    }
    let estimated: Vec<String> = catalog.devices.iter().filter(|d| !d.estimates.is_empty()).map(|d| format!("{} ({})", d.id, d.estimates.join(", "))).collect();
    if !estimated.is_empty() {
        t.push_str("\n");
        t.field("estimates", estimated.join("; "));
    }
    t
}

/// The designs replayed, and where the planner's assumptions and the simulation differ.
fn render_simulated(t: &mut Doc, checked: &[tierlab_plan_study::check::Checked]) {
    use tierlab_plan_study::check::difference_percent;
    let pct = |p: f64, s: f64| difference_percent(p, s).map_or("-".into(), |d| format!("{d:+.0} %"));
    t.push_str("\nsimulated: each design replayed on tierlab's device models\n");
    let mut dt = Table::new(["design", "devices", "mean ms", "p95 ms", "p99 ms", "mean W", "energy kJ", "SSD erases", "measured"]);
    for c in checked {
        if let Some(r) = &c.report {
            let rt = &r.system.response_time;
            let erases: u64 = r.groups.iter().filter_map(|g| g.ssd.as_ref()).map(|s| s.block_erases).sum();
            let (mean, power) = match &c.measured {
                Some(m) => (with_interval(m.summary.mean_ms.mean, m.summary.mean_ms.half_width, 3), with_interval(m.summary.power_w.mean, m.summary.power_w.half_width, 1)),
                None => (format!("{:.3}", rt.mean_ms), format!("{:.1}", r.system.mean_power_w)),
            };
            let mark = if c.measured.as_ref().is_some_and(|m| !m.sustained()) { "!" } else { "" };
            dt.row([format!("{}{mark}", c.design), c.devices.clone(), mean, format!("{:.3}", rt.p95_ms), format!("{:.3}", rt.p99_ms), power, format!("{:.1}", r.system.energy_j / 1e3), erases.to_string(), c.measured.as_ref().map_or("one replay".into(), measured_note)]);
        }
    }
    t.table(dt);
    for c in checked {
        if let Some(m) = c.measured.as_ref().filter(|m| !m.sustained()) {
            let _ = writeln!(t, "{}! {}", c.design, tierlab_measure::cannot_sustain(m.offered_iops, m.iops.mean));
        }
    }
    for c in checked.iter().filter(|c| c.report.is_none()) {
        let _ = writeln!(t, "not simulated: {} ({}): {}", c.design, c.devices, c.skipped.clone().unwrap_or_default());
    }
    t.push_str("\nplanner against simulation, per device type (load: planned bandwidth share at F_j against the simulated busy fraction)\n");
    let mut pt = Table::new(["design", "device", "W planned", "W simulated", "diff", "load planned", "busy simulated", "SSD years planned", "SSD years simulated", "diff"]);
    for c in checked.iter().filter(|c| c.report.is_some()) {
        for ty in &c.types {
            let years = |y: Option<f64>| y.map_or("-".into(), |y| if y > 1e4 { ">10000".into() } else { format!("{y:.1}") });
            pt.row([
                c.design.clone(),
                format!("{} x {}", ty.count, ty.device),
                format!("{:.1}", ty.planned_power_w),
                format!("{:.1}", ty.simulated_power_w),
                pct(ty.planned_power_w, ty.simulated_power_w),
                format!("{:.3}", ty.planned_load),
                format!("{:.3}", ty.simulated_busy),
                years(ty.planned_lifetime_years),
                years(ty.simulated_lifetime_years),
                match (ty.planned_lifetime_years, ty.simulated_lifetime_years) {
                    (Some(p), Some(s)) => pct(p, s),
                    _ => "-".into(),
                },
            ]);
        }
    }
    t.table(pt);
}

/// How a design's replay was measured: its warm-up and window, or why it was cut short.
fn measured_note(m: &tierlab_plan_study::check::Measured) -> String {
    let s = &m.summary;
    let warm = if s.settled { format!("warm-up {} s", grouped(s.warmup_s, 1)) } else { "never settled".to_string() };
    format!("{warm}, window {} s", grouped(s.window_s, 1))
}

