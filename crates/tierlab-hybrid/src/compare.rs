//! Pricing runs: one configuration's outcome as a row of the four currencies
//! (performance, energy, endurance, dollars over α runs), and the whole matrix.

use crate::drive::Mode;
use crate::matrix::Matrix;
use crate::run::{simulate, Config, Run, Workload};
use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use tierlab_cost::{cost_curve, CostBreakdown, CostDevice, CostInputs, DemandBilling, PriceCatalog, Tariff, Wear};
use tierlab_types::SECONDS_PER_YEAR;
use tierlab_sim::DeviceRun;

/// How runs are priced.
#[derive(Clone, Debug, PartialEq)]
pub struct CostModel {
    /// Device prices and rated limits (a shipped catalog under catalog/cost).
    pub prices: String,
    /// Electricity tariff (a shipped tariff under catalog/cost).
    pub tariff: String,
    /// SSD wear counts reads times this ratio as well as writes.
    pub read_effect: f64,
    /// How often the tariff's demand charge is paid (the research: once per run).
    pub demand_billing: DemandBilling,
    /// Each row is also priced over this many years of service (α = the horizon over the
    /// run's span): the cost over a drive's life.
    pub horizon_years: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel { prices: "greendm-2012".into(), tariff: "lipa-285-recent".into(), read_effect: 0.1, demand_billing: DemandBilling::PerRun, horizon_years: 5.0 }
    }
}

/// The cost model's data, loaded once.
struct Pricing {
    prices: PriceCatalog,
    tariff: Tariff,
    read_effect: f64,
    demand_billing: DemandBilling,
    horizon_years: f64,
}

impl Pricing {
    fn load(m: &CostModel) -> Result<Pricing> {
        if !(m.read_effect.is_finite() && m.read_effect >= 0.0) {
            return Err(anyhow!("--read-effect: expected a non-negative ratio, found {}", m.read_effect));
        }
        if !(m.horizon_years.is_finite() && m.horizon_years > 0.0 && m.horizon_years <= 1000.0) {
            return Err(anyhow!("--years: expected a horizon of more than 0 and at most 1000 years, found {}", m.horizon_years));
        }
        Ok(Pricing {
            prices: tierlab_cost::builtin_prices(&m.prices)?,
            tariff: tierlab_cost::builtin_tariff(&m.tariff)?,
            read_effect: m.read_effect,
            demand_billing: m.demand_billing,
            horizon_years: m.horizon_years,
        })
    }
}

/// One configuration's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    pub config: String,
    pub mode: String,
    pub ssd_fraction: Option<f64>,
    pub extent_bytes: Option<u64>,
    pub pt: Option<u32>,
    pub mcml: Option<u32>,
    /// Tiering's demotion watermarks as run (set, or derived from the SSD's size).
    pub lt: Option<u32>,
    pub ht: Option<u32>,
    pub throughput_iops: f64,
    /// Response time, arrival to completion: the mean and the quantiles of its histogram.
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub energy_j: f64,
    pub average_power_w: f64,
    pub hdd_spun_down_fraction: f64,
    pub ssd_hit_ratio: Option<f64>,
    pub promotions: u64,
    pub demotions: u64,
    pub prefetches: u64,
    pub evictions: u64,
    pub write_backs: u64,
    pub ssd_write_bytes: u64,
    pub ssd_read_bytes: u64,
    pub hdd_start_stop_cycles: u64,
    /// Share of the SSD's rated life used, parts per million, with reads × 1/10 and × 1/100.
    pub ssd_eu_read_tenth: f64,
    pub ssd_eu_read_hundredth: f64,
    pub hdd_eu: f64,
    /// Total cost and its parts at each α of `tierlab_cost::ALPHAS`.
    pub cost: Vec<CostBreakdown>,
    /// The cost over the cost model's horizon (α = horizon / span, at least 1); its
    /// devices' `wear_fraction` × `alpha` is the share of rated life the horizon uses.
    pub horizon: CostBreakdown,
}

impl RunRow {
    /// Total cost in USD at `alpha` (one of `tierlab_cost::ALPHAS`), NaN if not computed.
    pub fn cost_at(&self, alpha: f64) -> f64 {
        self.cost.iter().find(|c| c.alpha == alpha).map_or(f64::NAN, |c| c.total_usd)
    }
}

/// A configuration that could not run on the workload, and why.
#[derive(Clone, Debug, Serialize)]
pub struct FailedRow {
    pub config: String,
    pub mode: String,
    pub error: String,
}

/// Every configuration's row, in matrix order, and those that could not run. Serialises
/// as one array: the rows, then the failed configurations (objects with `error`).
#[derive(Clone, Debug)]
pub struct CompareReport {
    pub rows: Vec<RunRow>,
    pub failed: Vec<FailedRow>,
}

impl Serialize for CompareReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Entry<'a> {
            Ran(&'a RunRow),
            Failed(&'a FailedRow),
        }
        let entries: Vec<Entry> = self.rows.iter().map(Entry::Ran).chain(self.failed.iter().map(Entry::Failed)).collect();
        entries.serialize(s)
    }
}

impl CompareReport {
    /// The row labelled `config`.
    pub fn row(&self, config: &str) -> Option<&RunRow> {
        self.rows.iter().find(|r| r.config == config)
    }
}

/// Run `config` (its `mode` must be set) on `workload` and price it.
pub fn run_config(label: &str, config: &Config, workload: &Workload, cost: &CostModel, progress: &mut dyn FnMut(u64)) -> Result<RunRow> {
    let pricing = Pricing::load(cost)?;
    let run = simulate(workload, config, progress).with_context(|| format!("configuration `{label}`"))?;
    row(label, config, &run, &pricing)
}

/// Run every configuration of `matrix` on `workload`; `progress` is told the label of
/// the configuration running and how many of its requests have completed. A
/// configuration that cannot run on the workload (an SSD too small to tier, say) becomes
/// a [`FailedRow`] saying why, and the others still run; only when none can run is the
/// comparison an error.
pub fn compare(matrix: &Matrix, workload: &Workload, cost: &CostModel, progress: &mut dyn FnMut(&str, u64)) -> Result<CompareReport> {
    let pricing = Pricing::load(cost)?;
    let (mut rows, mut failed) = (Vec::new(), Vec::new());
    for e in matrix.entries() {
        let outcome = simulate(workload, &e.config, &mut |n| progress(&e.label, n)).and_then(|run| row(&e.label, &e.config, &run, &pricing));
        match outcome {
            Ok(r) => rows.push(r),
            // A run the caller stopped stops the comparison; it is not a configuration's fault.
            Err(err) if interrupted(&err) => return Err(err),
            Err(err) => failed.push(FailedRow { config: e.label.clone(), mode: e.config.mode.unwrap_or(Mode::HddOnly).report_name(), error: format!("{err:#}") }),
        }
    }
    if rows.is_empty() {
        if let Some(f) = failed.first() {
            return Err(anyhow!("no configuration could run; the first, `{}`: {}", f.config, f.error));
        }
    }
    Ok(CompareReport { rows, failed })
}

/// Whether `err` is a run stopped through `tierlab_sim::interrupt`.
pub fn interrupted(err: &anyhow::Error) -> bool {
    err.chain().any(|c| matches!(c.downcast_ref::<tierlab_sim::SimError>(), Some(tierlab_sim::SimError::Interrupted)))
}

/// Fraction of the run the HDD spent in a standby (spun-down) state.
fn spun_down_fraction(hdd: Option<&DeviceRun>, span_s: f64) -> f64 {
    let span_ns = (span_s * 1e9).max(1.0);
    hdd.map_or(0.0, |d| d.device.states.iter().filter(|st| st.standby).map(|st| st.time_ns).sum::<u64>() as f64 / span_ns)
}

fn row(label: &str, config: &Config, run: &Run, p: &Pricing) -> Result<RunRow> {
    let (r, usage) = (&run.report, run.usage);
    let mode = config.mode.unwrap_or(Mode::HddOnly);
    let ssd = r.devices.iter().find(|d| d.device.kind == "ssd");
    let hdd = r.devices.iter().find(|d| d.device.kind == "hdd");
    let (ssd_write_bytes, ssd_read_bytes) = ssd.map_or((0, 0), |d| (d.write_bytes, d.read_bytes));
    let cycles = hdd.and_then(|d| d.device.counters.get("start_stop_cycles")).copied().unwrap_or(0.0) as u64;
    let mut devices = Vec::new();
    let mut ssd_eu = (0.0, 0.0);
    let mut hdd_eu = 0.0;
    if let Some(d) = ssd {
        let rated = p.prices.rated_limit(&d.device.name)?;
        let eu = |ratio: f64| (ssd_write_bytes as f64 + ssd_read_bytes as f64 * ratio) / rated as f64 * 1e6;
        ssd_eu = (eu(0.1), eu(0.01));
        devices.push(CostDevice {
            cost: p.prices.device_cost(&d.device.name, usage.ssd_bytes)?,
            wear: Wear::SsdBytes { write_bytes: ssd_write_bytes, read_bytes: ssd_read_bytes, read_effect_ratio: p.read_effect, rated_write_bytes: rated },
        });
    }
    if let Some(d) = hdd {
        let rated = p.prices.rated_limit(&d.device.name)?;
        hdd_eu = cycles as f64 / rated as f64 * 1e6;
        devices.push(CostDevice {
            cost: p.prices.device_cost(&d.device.name, usage.hdd_bytes)?,
            wear: Wear::HddCycles { start_stop_cycles: cycles, rated_cycles: rated },
        });
    }
    let inputs = CostInputs {
        devices,
        energy_j: r.energy_j,
        peak_power_w: None,
        duration_s: r.span_s,
        service_usd: p.prices.service_usd()?,
        demand_billing: p.demand_billing,
    };
    let cost = cost_curve(&inputs, &p.tariff).with_context(|| format!("pricing `{label}`"))?;
    let horizon_alpha = (p.horizon_years * SECONDS_PER_YEAR / r.span_s.max(1e-9)).max(1.0);
    let horizon = tierlab_cost::cost(&inputs, &p.tariff, horizon_alpha).with_context(|| format!("pricing `{label}` over {} years", p.horizon_years))?;
    let stats = &r.controller["stats"];
    let count = |k: &str| stats[k].as_u64().unwrap_or(0);
    let h = &config.hybrid;
    Ok(RunRow {
        config: label.to_string(),
        mode: mode.report_name(),
        ssd_fraction: mode.is_hybrid().then_some(h.ssd_fraction),
        extent_bytes: mode.is_hybrid().then_some(h.es),
        pt: mode.moves_data().then_some(h.pt),
        mcml: mode.moves_data().then_some(h.mcml),
        lt: run.watermarks.map(|w| w.0),
        ht: run.watermarks.map(|w| w.1),
        throughput_iops: r.throughput_iops,
        mean_ms: r.response_time.mean_ms,
        p50_ms: r.response_time.p50_ms,
        p90_ms: r.response_time.p90_ms,
        p99_ms: r.response_time.p99_ms,
        p999_ms: r.response_time.p999_ms,
        max_ms: r.response_time.max_ms,
        energy_j: r.energy_j,
        average_power_w: r.average_power_w,
        hdd_spun_down_fraction: spun_down_fraction(hdd, r.span_s),
        ssd_hit_ratio: r.controller["ssd_hit_ratio"].as_f64().or(match mode {
            Mode::SsdOnly => Some(1.0),
            Mode::HddOnly => Some(0.0),
            _ => None,
        }),
        promotions: count("promotions"),
        demotions: count("demotions"),
        prefetches: count("prefetches"),
        evictions: count("evictions"),
        write_backs: count("write_backs"),
        ssd_write_bytes,
        ssd_read_bytes,
        hdd_start_stop_cycles: cycles,
        ssd_eu_read_tenth: ssd_eu.0,
        ssd_eu_read_hundredth: ssd_eu.1,
        hdd_eu,
        cost,
        horizon,
    })
}
