//! The overview: the five drive designs on one workload, each with its throughput,
//! latency, energy, wear and cost over a horizon, and a verdict. Two runs per design:
//! closed-loop for how fast it can go, and at the workload's own times, priced over the
//! horizon, for what the workload costs on it.

use crate::compare::{compare, CostModel, FailedRow, RunRow};
use crate::hdd::{catalog, power_profile, HddChoice};
use crate::matrix::Matrix;
use crate::run::{Config, Workload};
use anyhow::{anyhow, Result};
use serde::Serialize;
use tierlab_sim::Replay;

/// One design as the overview states it.
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
pub struct Overview {
    pub years: f64,
    /// How the disk was spun down: after its break-even idle time, as set, or not (why).
    pub spin_down: String,
    pub designs: Vec<Design>,
    pub fastest: Option<String>,
    pub cheapest: Option<String>,
    pub best_per_dollar: Option<String>,
    /// The runs behind the designs: at the workload's own times, and closed-loop.
    pub open_loop: Vec<RunRow>,
    pub closed_loop: Vec<RunRow>,
    /// Designs that could not run (in either replay).
    pub failed: Vec<FailedRow>,
}

/// Spin `hdd` down after its break-even idle time where its catalog entry has the
/// figures, as the research runs its drives (a timeout already set is kept); says what
/// was done.
pub fn spin_down_at_break_even(hdd: &mut HddChoice) -> Result<String> {
    if let Some(s) = hdd.spin_down_s {
        return Ok(format!("after {s} s idle (as set)"));
    }
    let entry = catalog(hdd.catalog.as_deref())?.hdd(&hdd.device)?.clone();
    let Some(spec) = power_profile(&entry, hdd.power_profile.as_deref())?.map(|p| &p.spec) else {
        return Ok(format!("off ({}: no power figures)", entry.id));
    };
    let Some(level) = spec.deepest_standby().map(|i| &spec.standby[i]) else {
        return Ok(format!("off ({}: no standby figures)", entry.id));
    };
    let Some(timeout_s) = level.break_even_s(spec.idle_w).filter(|s| s.is_finite()) else {
        return Ok(format!("off ({}: standby saves nothing)", entry.id));
    };
    hdd.spin_down_s = Some(timeout_s);
    Ok(format!("after {timeout_s:.1} s idle (the break-even time of {})", entry.id))
}

/// The overview of `base`'s five designs on `workload` (its hybrid knobs give the
/// hybrids' SSD share, ES, PT and MCML; its replay's depth the closed-loop runs'), priced
/// with `cost` over its horizon. `progress` hears each run's label and completions.
pub fn overview(base: &Config, workload: &Workload, cost: &CostModel, progress: &mut dyn FnMut(&str, u64)) -> Result<Overview> {
    if base.mode.is_some() {
        return Err(anyhow!("--hybrid: the overview runs every design; use `tierlab simulate --hybrid` for one"));
    }
    let mut base = base.clone();
    let spin_down = spin_down_at_break_even(&mut base.hdd)?;
    let depth = match base.replay {
        Replay::Closed { depth } => depth,
        Replay::Open => 1,
    };
    let h = &base.hybrid;
    let matrix = |replay: Replay| Matrix { base: Config { replay, ..base.clone() }, fractions: vec![h.ssd_fraction], pts: vec![h.pt], extents: vec![h.es], mcmls: vec![h.mcml], modes: Matrix::DESIGNS.to_vec() };
    let open = compare(&matrix(Replay::Open), workload, cost, progress)?;
    let closed = compare(&matrix(Replay::Closed { depth }), workload, cost, progress)?;
    let designs: Vec<Design> = open
        .rows
        .iter()
        .map(|r| Design {
            design: r.config.split_whitespace().next().unwrap_or(&r.config).to_string(),
            config: r.config.clone(),
            max_iops: closed.row(&r.config).map_or(f64::NAN, |c| c.throughput_iops),
            mean_ms: r.mean_ms,
            energy_kwh: r.horizon.energy_kwh * r.horizon.alpha,
            ssd_life_pct: life_pct(r, true),
            hdd_life_pct: life_pct(r, false),
            cost_usd: r.horizon.total_usd,
        })
        .collect();
    let pick = |key: &dyn Fn(&Design) -> f64| designs.iter().filter(|d| key(d).is_finite()).max_by(|a, b| key(a).total_cmp(&key(b))).map(|d| d.design.clone());
    let (fastest, cheapest, best_per_dollar) = (pick(&|d| d.max_iops), pick(&|d| -d.cost_usd), pick(&|d| d.max_iops / d.cost_usd));
    let mut failed = open.failed;
    failed.extend(closed.failed.into_iter().filter(|c| !failed.iter().any(|o| o.config == c.config)).collect::<Vec<_>>());
    Ok(Overview { years: cost.horizon_years, spin_down, designs, fastest, cheapest, best_per_dollar, open_loop: open.rows, closed_loop: closed.rows, failed })
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
