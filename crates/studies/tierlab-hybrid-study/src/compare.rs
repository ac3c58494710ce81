//! Pricing designs: each configuration measured at steady state by the measurement layer
//! (`tierlab-measure`) — at the workload's own arrival times for what it costs, and
//! closed-loop for how fast it can go — and stated as a row of the four currencies
//! (performance, energy, endurance, dollars), every figure with its 95 % interval.

use crate::drive::Mode;
use crate::hdd_wear::HddRatings;
use crate::matrix::Matrix;
use crate::run::{simulate_measured, Config, Measured};
use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use tierlab_cost::{CostBreakdown, CostDevice, CostInputs, DemandBilling, PriceCatalog, Tariff, Wear, ALPHAS};
use tierlab_measure::{Protocol, Stop, Sums};
use tierlab_engine::Replay;
use tierlab_hybrid_sim::Warming;
use tierlab_types::SECONDS_PER_YEAR;
use tierlab_workload::{pass_of, Workload};

/// SSD wear counts reads times this ratio as well as writes: the GreenDM dissertation
/// prices its cost results with a read-to-write effect of 1/10 (ch. 8, "the current cost
/// results are based on the assumption that the ratio of read-to-write effect is 1/10"),
/// and also reports 1/100.
pub const READ_EFFECT: f64 = 0.1;

/// How runs are priced.
#[derive(Clone, Debug, PartialEq)]
pub struct CostModel {
    /// Device prices and rated limits (a shipped catalog under catalog/cost).
    pub prices: String,
    /// Electricity tariff (a shipped tariff under catalog/cost).
    pub tariff: String,
    /// SSD wear counts reads times this ratio as well as writes ([`READ_EFFECT`]).
    pub read_effect: f64,
    /// How often the tariff's demand charge is paid: monthly, as bills are issued (the
    /// research's once-per-run is [`DemandBilling::PerRun`]).
    pub demand_billing: DemandBilling,
    /// Each row is also priced over this many years of service: the workload at its own
    /// rate for that long, idle time included.
    pub horizon_years: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel { prices: "greendm-2012".into(), tariff: "lipa-285-recent".into(), read_effect: READ_EFFECT, demand_billing: DemandBilling::Monthly, horizon_years: 5.0 }
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

/// How one run behind a row was measured.
#[derive(Clone, Debug, Serialize)]
pub struct RunNote {
    /// `open-loop` (the workload at its own arrival times) or `closed-loop, depth N`.
    pub replay: String,
    /// The warm-up before the measured window: requests completed and simulated seconds.
    pub warmup_requests: u64,
    pub warmup_s: f64,
    /// The measured window.
    pub measured_requests: u64,
    pub measured_s: f64,
    /// Whether the warm-up ended because the run settled (false: it was cut at the cap or
    /// the trace's end, and the figures may still be moving).
    pub settled: bool,
    /// Why the run stopped: `precise` (every key interval within target), `limit` (the
    /// request cap), `source-end`, or `unsustainable`.
    pub stop: Stop,
    /// A tiering or caching policy's functional warming before the timed run: requests
    /// it was driven through with instant devices, migrations, and whether its placement
    /// settled (0 requests: the policy started as built). Always present, so that rows of
    /// every design flatten to the same columns.
    pub policy_warming: Warming,
}

/// Half-widths of the 95 % intervals of a row's figures (same units as the figures).
#[derive(Clone, Debug, Default, Serialize)]
pub struct HalfWidths {
    pub throughput_iops: f64,
    pub mean_ms: f64,
    pub energy_j: f64,
    pub average_power_w: f64,
    pub ssd_hit_ratio: f64,
    pub ssd_eu_read_tenth: f64,
    /// Of the total cost over the horizon.
    pub horizon_usd: f64,
}

/// One configuration's outcome, measured at steady state. Per-run figures (energy, bytes,
/// moves, wear, the cost curve's α) are for one pass of the workload at its own arrival
/// rate (`pass_s` seconds); the horizon is that rate kept up for the horizon's years.
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
    /// Closed-loop throughput (as fast as the design goes) where the replay is closed,
    /// else the completions per second at the workload's own arrival times.
    pub throughput_iops: f64,
    /// The load the workload offers: arrivals per second at its own times.
    pub offered_iops: f64,
    /// Whether the design carries the offered load (its backlog does not grow). A design
    /// that does not is kept in tables, marked, and left out of every verdict.
    pub sustainable: bool,
    /// Response time at the workload's own arrival times, arrival to completion: the mean
    /// and the quantiles of the measured window's histogram.
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    /// Energy of one pass (steady-state power × `pass_s`), and the power.
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
    /// The HDD's head load/unload cycles and bytes transferred (read + written) in one
    /// pass, and that transfer as an annual rate (TB per 8,760 power-on hours).
    pub hdd_load_unload_cycles: u64,
    pub hdd_transfer_bytes: u64,
    pub hdd_workload_tb_per_year: f64,
    /// The limits the HDD's wear (`hdd_eu`, the horizon's `wear_fraction`) is counted
    /// against; left out without an HDD (so that a row without one adds no column a
    /// table of rows with one would not have).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hdd_ratings: Option<HddRatings>,
    /// Share of the SSD's rated life one pass uses, parts per million, with reads × 1/10
    /// and × 1/100.
    pub ssd_eu_read_tenth: f64,
    pub ssd_eu_read_hundredth: f64,
    /// Share of the HDD's rated life one pass uses, parts per million: the largest of its
    /// rated fractions (start/stop, load/unload, transfer against the rated workload).
    pub hdd_eu: f64,
    /// Total cost and its parts for α = 1 … 100,000 passes of the workload at its own
    /// rate: each breakdown's energy and its devices' `wear_fraction` are those of all α
    /// passes.
    pub cost: Vec<CostBreakdown>,
    /// The cost over the cost model's horizon (`alpha` = horizon / `pass_s` passes); its
    /// energy and its devices' `wear_fraction` are the horizon's.
    pub horizon: CostBreakdown,
    /// One pass of the workload at its own arrival times, seconds.
    pub pass_s: f64,
    /// The 95 % intervals' half-widths.
    pub half_width: HalfWidths,
    /// How each run behind the row was measured (at the workload's own times first).
    pub runs: Vec<RunNote>,
}

impl RunRow {
    /// Total cost in USD at `alpha` (one of `tierlab_cost::ALPHAS`), NaN if not computed.
    pub fn cost_at(&self, alpha: f64) -> f64 {
        self.cost.iter().find(|c| c.alpha == alpha).map_or(f64::NAN, |c| c.total_usd)
    }

    /// Whether every run behind the row settled before it was measured.
    pub fn settled(&self) -> bool {
        self.runs.iter().all(|r| r.settled)
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

/// Run `config` (its `mode` must be set) on `workload` as `protocol` measures, and price it.
pub fn run_config(label: &str, config: &Config, workload: &Workload, cost: &CostModel, protocol: &Protocol, progress: &mut dyn FnMut(u64)) -> Result<RunRow> {
    let pricing = Pricing::load(cost)?;
    let pass = pass_of(workload)?;
    measure_row(label, config, workload, &pricing, protocol, pass, progress)
}

/// Run every configuration of `matrix` on `workload`; `progress` is told the label of
/// the configuration running and how many of its requests have completed. A
/// configuration that cannot run on the workload (an SSD too small to tier, say) becomes
/// a [`FailedRow`] saying why, and the others still run; only when none can run is the
/// comparison an error.
pub fn compare(matrix: &Matrix, workload: &Workload, cost: &CostModel, protocol: &Protocol, progress: &mut dyn FnMut(&str, u64)) -> Result<CompareReport> {
    let pricing = Pricing::load(cost)?;
    let pass = pass_of(workload)?;
    let (mut rows, mut failed) = (Vec::new(), Vec::new());
    for e in matrix.entries() {
        match measure_row(&e.label, &e.config, workload, &pricing, protocol, pass, &mut |n| progress(&e.label, n)) {
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

/// Whether `err` is a run stopped through `tierlab_engine::interrupt`.
pub fn interrupted(err: &anyhow::Error) -> bool {
    err.chain().any(|c| matches!(c.downcast_ref::<tierlab_engine::SimError>(), Some(tierlab_engine::SimError::Interrupted)))
}

impl Measured {
    /// How the run was measured: its warm-up, its window, why it stopped.
    pub fn note(&self) -> RunNote {
        let b = &self.run.report.batches;
        let warm = &b[..self.outcome.warmup_batches.min(b.len())];
        RunNote {
            replay: self.run.report.replay.clone(),
            warmup_requests: warm.iter().map(|b| b.completed).sum(),
            warmup_s: warm.iter().map(|b| b.duration_ns()).sum::<u64>() as f64 / 1e9,
            measured_requests: self.window.total.completed as u64,
            measured_s: self.window.seconds(),
            settled: self.outcome.settled,
            stop: self.outcome.stop,
            policy_warming: self.run.warming.unwrap_or_default(),
        }
    }
}

/// Rates of a design at the workload's own arrival times, per second.
#[derive(Clone, Copy, Debug, Default)]
struct Rates {
    power_w: f64,
    ssd_write_bps: f64,
    ssd_read_bps: f64,
    hdd_cycles_per_s: f64,
    hdd_load_unloads_per_s: f64,
    hdd_transfer_bps: f64,
}

/// The configuration's devices as the cost model sees them, and where they sit in the run.
struct Priced {
    ssd: Option<(usize, CostDevice)>,
    hdd: Option<(usize, CostDevice)>,
}

/// Measure `config` closed-loop (where its replay is) and at the workload's own times.
/// A design whose closed-loop capacity at depth one exceeds the offered load by 5 % carries
/// it at steady state (a queue only adds to what a device can overlap), so its run at the
/// workload's times is not stopped as unsustainable for a backlog that a warm-up builds.
fn measure_row(label: &str, config: &Config, workload: &Workload, p: &Pricing, protocol: &Protocol, pass: (u64, Option<f64>), progress: &mut dyn FnMut(u64)) -> Result<RunRow> {
    let context = || format!("configuration `{label}`");
    let closed = match config.replay {
        Replay::Closed { .. } => Some(simulate_measured(workload, config, protocol, progress).with_context(context)?),
        Replay::Open => None,
    };
    let offered = pass.1.map(|s| pass.0 as f64 / s);
    let capacity_suffices = closed.as_ref().zip(offered).is_some_and(|(c, offered)| c.window.total.iops() >= 1.05 * offered);
    let at_rate = Config { replay: Replay::Open, ..config.clone() };
    let protocol = Protocol { detect_overload: protocol.detect_overload && !capacity_suffices, ..protocol.clone() };
    let open = simulate_measured(workload, &at_rate, &protocol, progress).with_context(context)?;
    row(label, config, &open, closed.as_ref(), p, pass.1)
}

/// Fraction of the measured time the HDD spent in a standby (spun-down) state.
fn spun_down_fraction(m: &Measured) -> f64 {
    let r = &m.run.report;
    let span_ns = (r.span_s * 1e9).max(1.0);
    r.devices.iter().find(|d| d.device.kind == "hdd").map_or(0.0, |d| d.device.states.iter().filter(|st| st.standby).map(|st| st.time_ns).sum::<u64>() as f64 / span_ns)
}

fn row(label: &str, config: &Config, open: &Measured, closed: Option<&Measured>, p: &Pricing, pass_s: Option<f64>) -> Result<RunRow> {
    let r = &open.run.report;
    let w = &open.window;
    let mode = config.mode.unwrap_or(Mode::HddOnly);
    let ssd_i = r.devices.iter().position(|d| d.device.kind == "ssd");
    let hdd_i = r.devices.iter().position(|d| d.device.kind == "hdd");
    // A workload without its own arrival times is priced over the open-loop run's window.
    let pass_s = pass_s.unwrap_or_else(|| w.seconds()).max(1e-9);
    let counter = |k: &str| hdd_i.and_then(|i| r.devices[i].device.counters.get(k)).copied().unwrap_or(0.0);
    let (cycles, load_unloads) = (counter("start_stop_cycles"), counter("load_unload_cycles"));
    let measured_s = r.span_s.max(1e-9);
    let rates = |s: &Sums| {
        let bps = |i: Option<usize>, write: bool| {
            i.and_then(|i| s.devices.get(i)).map_or(0.0, |d| if s.seconds > 0.0 { (if write { d.write_bytes } else { d.read_bytes }) as f64 / s.seconds } else { 0.0 })
        };
        Rates {
            power_w: s.power_w(),
            ssd_write_bps: bps(ssd_i, true),
            ssd_read_bps: bps(ssd_i, false),
            hdd_cycles_per_s: cycles / measured_s,
            hdd_load_unloads_per_s: load_unloads / measured_s,
            hdd_transfer_bps: bps(hdd_i, true) + bps(hdd_i, false),
        }
    };
    let mut priced = Priced { ssd: None, hdd: None };
    if let Some(i) = ssd_i {
        let d = &r.devices[i].device;
        let rated = p.prices.rated_limit(&d.name)?;
        let cost = p.prices.device_cost(&d.name, open.run.usage.ssd_bytes)?;
        priced.ssd = Some((i, CostDevice { cost, wear: Wear::SsdBytes { write_bytes: 0, read_bytes: 0, read_effect_ratio: p.read_effect, rated_write_bytes: rated } }));
    }
    let mut hdd_ratings = None;
    if let Some(i) = hdd_i {
        let d = &r.devices[i].device;
        // The price catalog's start/stop limit (the research's) where it has one, the
        // drive catalog's load/unload and workload ratings.
        let ratings = HddRatings::of(&config.hdd, p.prices.rated_limit(&d.name).ok())?;
        let cost = p.prices.device_cost(&d.name, open.run.usage.hdd_bytes)?;
        priced.hdd = Some((i, CostDevice { cost, wear: ratings.wear(0, 0, 0) }));
        hdd_ratings = Some(ratings);
    }
    let hdd_wear = |rates: &Rates, seconds: f64| {
        let n = |per_s: f64| (per_s * seconds).round() as u64;
        hdd_ratings.as_ref().map(|h| h.wear(n(rates.hdd_cycles_per_s), n(rates.hdd_load_unloads_per_s), n(rates.hdd_transfer_bps)))
    };
    // The cost of the workload at `rates` for `seconds`, as one run.
    let cost_over = |rates: &Rates, seconds: f64| -> Result<CostBreakdown> {
        let mut devices = Vec::new();
        if let Some((_, d)) = &priced.ssd {
            let mut d = d.clone();
            if let Wear::SsdBytes { write_bytes, read_bytes, .. } = &mut d.wear {
                *write_bytes = (rates.ssd_write_bps * seconds).round() as u64;
                *read_bytes = (rates.ssd_read_bps * seconds).round() as u64;
            }
            devices.push(d);
        }
        if let Some((_, d)) = &priced.hdd {
            let mut d = d.clone();
            d.wear = hdd_wear(rates, seconds).unwrap_or(Wear::None);
            devices.push(d);
        }
        let inputs = CostInputs { devices, energy_j: rates.power_w * seconds, peak_power_w: None, duration_s: seconds, service_usd: p.prices.service_usd()?, demand_billing: p.demand_billing };
        let mut c = tierlab_cost::cost(&inputs, &p.tariff, 1.0)?;
        if p.demand_billing == DemandBilling::PerRun {
            // The research pays the demand charge once per pass of the workload.
            let extra = c.power_usd * (seconds / pass_s - 1.0).max(0.0);
            c.power_usd += extra;
            c.tco_usd += extra;
            c.total_usd += extra;
        }
        Ok(c)
    };
    let point = rates(&w.total);
    let horizon_s = p.horizon_years * SECONDS_PER_YEAR;
    let curve = ALPHAS
        .iter()
        .map(|&alpha| cost_over(&point, alpha * pass_s).map(|c| CostBreakdown { alpha, ..c }))
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("pricing `{label}`"))?;
    let horizon = cost_over(&point, horizon_s).map(|c| CostBreakdown { alpha: horizon_s / pass_s, ..c }).with_context(|| format!("pricing `{label}` over {} years", p.horizon_years))?;
    let horizon_usd = w.figure(|s| cost_over(&rates(s), horizon_s).map_or(f64::NAN, |c| c.total_usd));

    let rated_ssd = priced.ssd.as_ref().and_then(|(_, d)| match d.wear {
        Wear::SsdBytes { rated_write_bytes, .. } => Some(rated_write_bytes as f64),
        _ => None,
    });
    let eu = |s: &Sums, ratio: f64| {
        let r = rates(s);
        rated_ssd.map_or(0.0, |rated| (r.ssd_write_bps + r.ssd_read_bps * ratio) * pass_s / rated * 1e6)
    };
    let hdd_eu = match hdd_wear(&point, pass_s) {
        Some(w) => w.fraction("hdd").with_context(|| format!("pricing `{label}`"))? * 1e6,
        None => 0.0,
    };

    // Policy counts over the measured window, scaled to one pass.
    let per_pass = pass_s / measured_s;
    let before = r.controller_at_measurement.as_ref().map(|c| &c["stats"]);
    let count = |k: &str| {
        let end = r.controller["stats"][k].as_f64().unwrap_or(0.0);
        let start = before.and_then(|b| b[k].as_f64()).unwrap_or(0.0);
        ((end - start).max(0.0) * per_pass).round() as u64
    };
    let hit = w.figure(|s| s.counter_ratio(0, 1));
    let is_policy = r.controller.get("policy").is_some();
    let h = &config.hybrid;
    let throughput = match closed {
        Some(c) => c.window.figure(|s| s.iops()),
        None => w.figure(|s| s.iops()),
    };
    let mean_ms = w.figure(|s| s.mean_ms());
    let power = w.figure(|s| s.power_w());
    let ssd_eu = w.figure(|s| eu(s, 0.1));
    let sustainable = open.outcome.stop != Stop::Unsustainable;
    let mut runs = vec![open.note()];
    runs.extend(closed.map(Measured::note));
    Ok(RunRow {
        config: label.to_string(),
        mode: mode.report_name(),
        ssd_fraction: mode.is_hybrid().then_some(h.ssd_fraction),
        extent_bytes: mode.is_hybrid().then_some(h.es),
        pt: mode.moves_data().then_some(h.pt),
        mcml: mode.moves_data().then_some(h.mcml),
        lt: open.run.watermarks.map(|w| w.0),
        ht: open.run.watermarks.map(|w| w.1),
        throughput_iops: throughput.mean,
        offered_iops: w.total.offered_iops(),
        sustainable,
        mean_ms: mean_ms.mean,
        p50_ms: r.response_time.p50_ms,
        p90_ms: r.response_time.p90_ms,
        p99_ms: r.response_time.p99_ms,
        p999_ms: r.response_time.p999_ms,
        max_ms: r.response_time.max_ms,
        energy_j: power.mean * pass_s,
        average_power_w: power.mean,
        hdd_spun_down_fraction: spun_down_fraction(open),
        ssd_hit_ratio: if is_policy {
            Some(hit.mean)
        } else {
            match mode {
                Mode::SsdOnly => Some(1.0),
                Mode::HddOnly => Some(0.0),
                _ => None,
            }
        },
        promotions: count("promotions"),
        demotions: count("demotions"),
        prefetches: count("prefetches"),
        evictions: count("evictions"),
        write_backs: count("write_backs"),
        ssd_write_bytes: (point.ssd_write_bps * pass_s).round() as u64,
        ssd_read_bytes: (point.ssd_read_bps * pass_s).round() as u64,
        hdd_start_stop_cycles: (point.hdd_cycles_per_s * pass_s).round() as u64,
        hdd_load_unload_cycles: (point.hdd_load_unloads_per_s * pass_s).round() as u64,
        hdd_transfer_bytes: (point.hdd_transfer_bps * pass_s).round() as u64,
        hdd_workload_tb_per_year: point.hdd_transfer_bps * tierlab_cost::SECONDS_PER_365_DAY_YEAR / 1e12,
        hdd_ratings,
        ssd_eu_read_tenth: ssd_eu.mean,
        ssd_eu_read_hundredth: eu(&w.total, 0.01),
        hdd_eu,
        cost: curve,
        horizon,
        pass_s,
        half_width: HalfWidths {
            throughput_iops: throughput.half_width,
            mean_ms: mean_ms.half_width,
            energy_j: power.half_width * pass_s,
            average_power_w: power.half_width,
            ssd_hit_ratio: if is_policy { hit.half_width } else { 0.0 },
            ssd_eu_read_tenth: ssd_eu.half_width,
            horizon_usd: horizon_usd.half_width,
        },
        runs,
    })
}
