//! `tierlab overview` (and `tierlab` with no command): the question tierlab exists to
//! answer, on one workload. Five drive designs — SSD-only, HDD-only, linear, GreenDM
//! tiering and caching — each with its throughput, mean latency, energy, wear and cost
//! over the drive's life, and a verdict: the fastest, the cheapest over the horizon, the
//! best per dollar. The runs and prices are `tierlab compare`'s (`tierlab_hybrid`); this
//! module picks the five designs and renders them to fit 80 columns.

use crate::cmd_simulate::{ReplayMode, SimulateArgs};
use crate::progress::{requests_bar, write_json};
use anyhow::{anyhow, Result};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use tierlab_cost::DemandBilling;
use tierlab_hybrid::{CostModel, FailedRow, Matrix, RunRow, Workload};
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

/// One design as the overview states it.
#[derive(Serialize)]
pub struct Design {
    /// `ssd-only`, `hdd-only`, `linear`, `tiering` or `caching`.
    pub design: String,
    pub config: String,
    /// Closed-loop throughput: as fast as the design goes.
    pub max_iops: f64,
    /// The rest: the workload at its own arrival times, over the horizon.
    pub mean_ms: f64,
    pub energy_kwh: f64,
    /// Share of the device's rated life the horizon uses, % (`None`: no such device).
    pub ssd_life_pct: Option<f64>,
    pub hdd_life_pct: Option<f64>,
    pub cost_usd: f64,
}

/// What the overview found.
#[derive(Serialize)]
pub struct Overview {
    pub workload: String,
    pub years: f64,
    pub spin_down: String,
    pub designs: Vec<Design>,
    pub fastest: Option<String>,
    pub cheapest: Option<String>,
    pub best_per_dollar: Option<String>,
    /// The runs behind the designs: at the workload's own times, and closed-loop.
    pub open_loop: Vec<RunRow>,
    pub closed_loop: Vec<RunRow>,
    pub failed: Vec<FailedRow>,
}

/// The design's short name: its mode (`ssd-only`, `linear`, `tiering`, …).
fn design(r: &RunRow) -> String {
    r.config.split_whitespace().next().unwrap_or(&r.config).to_string()
}

fn pick(designs: &[Design], key: impl Fn(&Design) -> f64) -> Option<String> {
    designs.iter().filter(|d| key(d).is_finite()).max_by(|a, b| key(a).total_cmp(&key(b))).map(|d| d.design.clone())
}

/// Spin the disk down after its break-even idle time where it has the figures for it, as
/// the research runs its drives; say what was done.
fn spin_down(a: &mut SimulateArgs) -> Result<String> {
    let choice = a.device.choice();
    if let Some(s) = a.device.spin_down_s {
        return Ok(format!("after {s} s idle (--spin-down-s)"));
    }
    let entry = tierlab_hybrid::catalog(choice.catalog.as_deref())?.hdd(&choice.device)?.clone();
    let profile = tierlab_hybrid::power_profile(&entry, choice.power_profile.as_deref())?;
    let Some(spec) = profile.map(|p| &p.spec) else {
        return Ok(format!("off ({}: no power figures)", entry.id));
    };
    let Some(level) = spec.deepest_standby().map(|i| &spec.standby[i]) else {
        return Ok(format!("off ({}: no standby figures)", entry.id));
    };
    let Some(timeout_s) = level.break_even_s(spec.idle_w).filter(|s| s.is_finite()) else {
        return Ok(format!("off ({}: standby saves nothing)", entry.id));
    };
    a.device.spin_down_s = Some(timeout_s);
    Ok(format!("after {timeout_s:.1} s idle (the break-even time of {})", entry.id))
}

pub fn run(a: OverviewArgs) -> Result<()> {
    let mut base = a.base.clone();
    if base.hybrid.hybrid.is_some() {
        return Err(anyhow!("--hybrid: the overview runs every design; use `tierlab simulate --hybrid` for one"));
    }
    let spin = spin_down(&mut base)?;
    let workload = base.workload()?;
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
    let config = base.config(ReplayMode::Open);
    let h = &config.hybrid;
    let matrix = |replay: ReplayMode| Matrix { base: base.config(replay), fractions: vec![h.ssd_fraction], pts: vec![h.pt], extents: vec![h.es], mcmls: vec![h.mcml] };
    let cost = CostModel { prices: a.prices.clone(), tariff: a.tariff.clone(), demand_billing: DemandBilling::Monthly, horizon_years: a.years, ..CostModel::default() };
    let bar = requests_bar("simulating");
    let mut progress = |label: &str, n: u64| {
        bar.set_message(label.split_whitespace().next().unwrap_or(label).to_string());
        bar.set_position(n);
    };
    let open = tierlab_hybrid::compare(&matrix(ReplayMode::Open), &workload, &cost, &mut progress);
    let closed = open.and_then(|open| Ok((open, tierlab_hybrid::compare(&matrix(ReplayMode::Closed), &workload, &cost, &mut progress)?)));
    bar.finish_and_clear();
    let (open, closed) = closed?;
    let designs: Vec<Design> = open
        .rows
        .iter()
        .map(|r| Design {
            design: design(r),
            config: r.config.clone(),
            max_iops: closed.row(&r.config).map_or(f64::NAN, |c| c.throughput_iops),
            mean_ms: r.mean_ms,
            energy_kwh: r.horizon.energy_kwh * r.horizon.alpha,
            ssd_life_pct: life_pct(r, true),
            hdd_life_pct: life_pct(r, false),
            cost_usd: r.horizon.total_usd,
        })
        .collect();
    let overview = Overview {
        workload: describe,
        years: a.years,
        spin_down: spin,
        fastest: pick(&designs, |d| d.max_iops),
        cheapest: pick(&designs, |d| -d.cost_usd),
        best_per_dollar: pick(&designs, |d| d.max_iops / d.cost_usd),
        designs,
        open_loop: open.rows,
        closed_loop: closed.rows,
        failed: open.failed.into_iter().chain(closed.failed).collect(),
    };
    let mut out = std::io::stdout().lock();
    if a.base.json {
        return write_json(&mut out, &overview);
    }
    write!(out, "{}", render(&overview, &config, &cost))?;
    Ok(())
}

/// Share of a device's rated life the horizon uses, %, or `None` without that device. A
/// row prices its SSD first where it has one, then its HDD.
fn life_pct(r: &RunRow, ssd: bool) -> Option<f64> {
    let (has_ssd, has_hdd) = (r.mode != "hddonly", r.mode != "ssdonly");
    let i = match (ssd, has_ssd, has_hdd) {
        (true, true, _) => 0,
        (false, _, true) => usize::from(has_ssd),
        _ => return None,
    };
    r.horizon.devices.get(i).map(|d| d.wear_fraction * r.horizon.alpha * 100.0)
}

/// The overview as people read it, within 80 columns. Byte-stable (golden-file tested).
pub fn render(o: &Overview, config: &tierlab_hybrid::Config, cost: &CostModel) -> String {
    let h = &config.hybrid;
    let mut s = String::new();
    s.push_str(&format!("workload   {}\n", o.workload));
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
