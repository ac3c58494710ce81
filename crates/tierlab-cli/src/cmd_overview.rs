//! `tierlab overview` (and `tierlab` with no command): the question tierlab exists to
//! answer, on one workload. Five drive designs — SSD-only, HDD-only, linear, GreenDM
//! tiering and caching — each with its throughput, mean latency, energy, wear and cost
//! over the drive's life, and a verdict: the fastest, the cheapest over the horizon, the
//! best per dollar. The runs, prices and verdict are `tierlab_hybrid::overview`'s; this
//! module turns flags into its inputs and renders the result to fit 80 columns.

use crate::cmd_simulate::{ReplayMode, SimulateArgs};
use crate::progress::{requests_bar, write_json};
use anyhow::Result;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use tierlab_cost::DemandBilling;
use tierlab_hybrid::{CostModel, Overview, Workload};
use tierlab_report::{fmt_bytes, Table};

#[derive(Args, Clone)]
pub struct OverviewArgs {
    /// The workload, devices and hybrid knobs, as `tierlab simulate` takes them. The
    /// designs replay closed-loop unless `--replay open` is given, as `compare` does.
    #[command(flatten)]
    pub base: SimulateArgs,
    /// The drive's life: each design is priced over this many years.
    #[arg(long, default_value_t = 5.0)]
    pub years: f64,
    /// Device prices and rated limits (catalog/cost).
    #[arg(long, default_value = "greendm-2012")]
    pub prices: String,
    /// Electricity tariff (catalog/cost).
    #[arg(long, default_value = "lipa-285-recent")]
    pub tariff: String,
}

pub fn run(a: OverviewArgs) -> Result<()> {
    let workload = a.base.workload()?;
    let describe = match &workload {
        Workload::Trace { path, .. } => format!("trace {}", path.display()),
        Workload::Synthetic(spec) => format!(
            "{} ({} requests over {}, {:.0} % reads)",
            spec.name,
            spec.requests,
            fmt_bytes(spec.span_bytes),
            spec.read_fraction * 100.0
        ),
    };
    let config = a.base.config(ReplayMode::Closed);
    let cost = CostModel { prices: a.prices.clone(), tariff: a.tariff.clone(), demand_billing: DemandBilling::Monthly, horizon_years: a.years, ..CostModel::default() };
    let bar = requests_bar("simulating");
    let result = tierlab_hybrid::overview(&config, &workload, &cost, &mut |label, n| {
        bar.set_message(label.split_whitespace().next().unwrap_or(label).to_string());
        bar.set_position(n);
    });
    bar.finish_and_clear();
    let overview = result?;
    let mut out = crate::session::stdout();
    if a.base.json {
        return write_json(&mut out, &Report { workload: describe, overview: &overview });
    }
    write!(out, "{}", render(&describe, &overview, &config, &cost))?;
    Ok(())
}

/// The JSON: the workload described, then the overview's fields.
#[derive(Serialize)]
struct Report<'a> {
    workload: String,
    #[serde(flatten)]
    overview: &'a Overview,
}

/// The overview as people read it, within 80 columns. Byte-stable (golden-file tested).
pub fn render(workload: &str, o: &Overview, config: &tierlab_hybrid::Config, cost: &CostModel) -> String {
    let h = &config.hybrid;
    let mut s = String::new();
    s.push_str(&format!("workload   {workload}\n"));
    s.push_str(&format!("devices    SSD {}, HDD {}\n", h.ssd, config.hdd.device));
    s.push_str(&format!("hybrids    SSD share {}, extents {}, PT {}, MCML {}\n", h.ssd_fraction, fmt_bytes(h.es), h.pt, h.mcml));
    s.push_str(&format!("spin-down  {}\n", o.spin_down));
    s.push_str(&format!("prices     {}, tariff {} (demand billed monthly)\n", cost.prices, cost.tariff));
    let years = o.years;
    s.push_str(&format!("replay     max IOPS: closed loop, one request outstanding; the others: the\n           workload at its own arrival times, for {years} years\n\n"));
    let mut t = Table::new(["design", "max IOPS", "mean ms", &format!("kWh/{years}y"), "SSD life %", "HDD life %", &format!("$/{years}y")]);
    let pct = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
    for d in &o.designs {
        t.row([d.design.clone(), format!("{:.1}", d.max_iops), format!("{:.3}", d.mean_ms), format!("{:.1}", d.energy_kwh), pct(d.ssd_life_pct), pct(d.hdd_life_pct), format!("{:.2}", d.cost_usd)]);
    }
    s.push_str(&t.render());
    for f in &o.failed {
        s.push_str(&format!("not run: {}: {}\n", f.config, f.error));
    }
    s.push('\n');
    let name = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    s.push_str(&format!(
        "verdict    fastest {}, cheapest over {years} years {}, best IOPS/$ {}\n",
        name(&o.fastest),
        name(&o.cheapest),
        name(&o.best_per_dollar)
    ));
    s.push_str("more       tierlab compare (sweeps), tierlab simulate (one design), --help\n");
    s
}
