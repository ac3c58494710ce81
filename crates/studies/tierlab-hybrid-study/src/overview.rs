//! The overview: the five drive designs on one workload, each with its throughput,
//! latency, energy, wear and cost over a horizon, and a verdict. Two measured runs per
//! design (`tierlab-measure`): closed-loop for how fast it can go, and at the workload's
//! own times for what the workload costs on it — each warmed up to steady state, each
//! figure with its 95 % interval. A design that cannot carry the offered load is marked
//! and left out of the verdict, which names what it chose among and calls ties.

use crate::compare::{compare, CostModel, FailedRow, RunRow};
use crate::matrix::Matrix;
use crate::run::Config;
use anyhow::{anyhow, Result};
use serde::Serialize;
use tierlab_measure::{Interval, Protocol};
use tierlab_devices::{catalog, power_profile, HddChoice};
use tierlab_engine::Replay;
use tierlab_workload::Workload;

/// One design as the overview states it; each figure with the half-width of its 95 %
/// interval (`*_hw`).
#[derive(Clone, Debug, Serialize)]
pub struct Design {
    /// `ssd-only`, `hdd-only`, `linear`, `tiering` or `caching`.
    pub design: String,
    pub config: String,
    /// Closed-loop throughput: as fast as the design goes.
    pub max_iops: f64,
    pub max_iops_hw: f64,
    /// The load the workload offers, and whether the design carries it.
    pub offered_iops: f64,
    pub sustainable: bool,
    /// Whether both runs settled before they were measured (false: the figures come from
    /// a run whose warm-up was cut at the cap).
    pub settled: bool,
    /// The rest: the workload at its own arrival times, over the horizon.
    pub mean_ms: f64,
    pub mean_ms_hw: f64,
    pub energy_kwh: f64,
    pub energy_kwh_hw: f64,
    /// Share of the device's rated life the horizon uses, % (`None`: no such device).
    pub ssd_life_pct: Option<f64>,
    pub ssd_life_pct_hw: f64,
    pub hdd_life_pct: Option<f64>,
    pub cost_usd: f64,
    pub cost_usd_hw: f64,
}

impl Design {
    fn max_iops(&self) -> Interval {
        Interval { mean: self.max_iops, half_width: self.max_iops_hw, n: 0 }
    }
    fn cost(&self) -> Interval {
        Interval { mean: self.cost_usd, half_width: self.cost_usd_hw, n: 0 }
    }
    /// Max IOPS per dollar, its half-width from the two relative half-widths.
    fn per_dollar(&self) -> Interval {
        let mean = self.max_iops / self.cost_usd;
        let rel = (self.max_iops().relative().powi(2) + self.cost().relative().powi(2)).sqrt();
        Interval { mean, half_width: mean * rel, n: 0 }
    }
}

/// A design the verdict could not judge, and why.
#[derive(Clone, Debug, Serialize)]
pub struct NotJudged {
    pub design: String,
    pub reason: String,
}

/// What the overview found.
#[derive(Clone, Debug, Serialize)]
pub struct Overview {
    pub years: f64,
    /// How every run was measured.
    pub measurement: Protocol,
    /// How the disk was spun down: after its break-even idle time, as set, or not (why).
    pub spin_down: String,
    pub designs: Vec<Design>,
    /// The designs the verdict chose among.
    pub judged: Vec<String>,
    /// The designs it could not judge (could not run, or cannot carry the load), and why.
    pub not_judged: Vec<NotJudged>,
    /// The best design by each criterion, and every design within the noise of it (a tie).
    pub fastest: Vec<String>,
    pub cheapest: Vec<String>,
    pub best_per_dollar: Vec<String>,
    /// The rows behind the designs (the four currencies, how each run was measured).
    pub rows: Vec<RunRow>,
    /// Designs that could not run.
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
/// with `cost` over its horizon and measured as `protocol` says. `progress` hears each
/// run's label and completions.
pub fn overview(base: &Config, workload: &Workload, cost: &CostModel, protocol: &Protocol, progress: &mut dyn FnMut(&str, u64)) -> Result<Overview> {
    if base.mode.is_some() {
        return Err(anyhow!("--mode: the overview runs every design; use `tierlab simulate --mode` for one"));
    }
    let mut base = base.clone();
    let spin_down = spin_down_at_break_even(&mut base.hdd)?;
    let depth = match base.replay {
        Replay::Closed { depth } => depth,
        Replay::Open => 1,
    };
    let h = &base.hybrid;
    let matrix = Matrix {
        base: Config { replay: Replay::Closed { depth }, ..base.clone() },
        fractions: vec![h.ssd_fraction],
        pts: vec![h.pt],
        extents: vec![h.es],
        mcmls: vec![h.mcml],
        modes: Matrix::DESIGNS.to_vec(),
    };
    let report = compare(&matrix, workload, cost, protocol, progress)?;
    let designs: Vec<Design> = report.rows.iter().map(design).collect();
    let mut not_judged: Vec<NotJudged> = report.failed.iter().map(|f| NotJudged { design: name(&f.config), reason: format!("could not run: {}", f.error) }).collect();
    for d in designs.iter().filter(|d| !d.sustainable) {
        not_judged.push(NotJudged { design: d.design.clone(), reason: tierlab_measure::cannot_sustain(d.offered_iops, d.max_iops) });
    }
    let judged: Vec<&Design> = designs.iter().filter(|d| d.sustainable).collect();
    let fastest = best(&judged, Design::max_iops);
    let cheapest = best(&judged, |d| d.cost().scale(-1.0));
    let best_per_dollar = best(&judged, Design::per_dollar);
    Ok(Overview {
        years: cost.horizon_years,
        measurement: protocol.clone(),
        spin_down,
        judged: judged.iter().map(|d| d.design.clone()).collect(),
        not_judged,
        designs,
        fastest,
        cheapest,
        best_per_dollar,
        rows: report.rows,
        failed: report.failed,
    })
}

/// The design name of a row label (`tiering ssd=1/4 …` → `tiering`).
fn name(config: &str) -> String {
    config.split_whitespace().next().unwrap_or(config).to_string()
}

fn design(r: &RunRow) -> Design {
    let horizon_passes = r.horizon.alpha;
    let ssd_life_pct = life_pct(r, true);
    Design {
        design: name(&r.config),
        config: r.config.clone(),
        max_iops: r.throughput_iops,
        max_iops_hw: r.half_width.throughput_iops,
        offered_iops: r.offered_iops,
        sustainable: r.sustainable,
        settled: r.settled(),
        mean_ms: r.mean_ms,
        mean_ms_hw: r.half_width.mean_ms,
        energy_kwh: r.horizon.energy_kwh,
        energy_kwh_hw: r.half_width.energy_j * horizon_passes / 3.6e6,
        ssd_life_pct,
        // ssd_eu is parts per million of rated life per pass.
        ssd_life_pct_hw: if ssd_life_pct.is_some() { r.half_width.ssd_eu_read_tenth * horizon_passes / 1e4 } else { 0.0 },
        hdd_life_pct: life_pct(r, false),
        cost_usd: r.horizon.total_usd,
        cost_usd_hw: r.half_width.horizon_usd,
    }
}

/// The designs whose `key` is highest, and those within the noise of the highest.
fn best(designs: &[&Design], key: impl Fn(&Design) -> Interval) -> Vec<String> {
    let Some(top) = designs.iter().map(|d| key(d)).filter(|k| k.mean.is_finite()).max_by(|a, b| a.mean.total_cmp(&b.mean)) else {
        return Vec::new();
    };
    let mut tied: Vec<(f64, String)> = designs.iter().map(|d| (key(d), d.design.clone())).filter(|(k, _)| k.mean.is_finite() && k.ties(&top)).map(|(k, n)| (k.mean, n)).collect();
    tied.sort_by(|a, b| b.0.total_cmp(&a.0));
    tied.into_iter().map(|(_, n)| n).collect()
}

/// Share of a device's rated life the horizon uses, %, or `None` without that device. A
/// row prices its SSD first where it has one, then its HDD.
fn life_pct(r: &RunRow, ssd: bool) -> Option<f64> {
    let (has_ssd, has_hdd) = (r.mode != "hdd-only", r.mode != "ssd-only");
    let i = match (ssd, has_ssd, has_hdd) {
        (true, true, _) => 0,
        (false, _, true) => usize::from(has_ssd),
        _ => return None,
    };
    r.horizon.devices.get(i).map(|d| d.wear_fraction * 100.0)
}
