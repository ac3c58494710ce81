//! The `tierlab plan` pipeline: a workload characterised into data classes
//! (`tierlab-classes`), each class's bandwidth on each device type measured with tierlab's
//! device models ([`bandwidth`]), the cheapest mix solved by MixPlan (`tierlab-mixplan`),
//! and the plan checked by simulating it.
//!
//! Units at the boundary: classes are measured in bytes and bytes per second; the planner
//! works in GB and KB/s of 10^9 and 10^3 bytes, the units device capacities and data
//! rates are sold in.

pub mod bandwidth;
pub mod check;
pub mod study;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use tierlab_classes::Classes;
use tierlab_mixedsim::{DeviceSpec, HddModel, SsdModel};
use tierlab_mixplan::catalog::{ModelRef, PlanCatalog, PlanDevice};
use tierlab_mixplan::{
    BandwidthForm, ClassNeed, CostModel, PlanError, Problem, SolverKind, Study, WearRate,
};

pub use bandwidth::{default_cache_dir, Probe};

/// The tierlab model of a planning device, as the simulation check builds it: an SSD
/// from `catalog/ssd` (its own model, or for one timed from its data sheet the
/// `internals` it names) at its rated erase cycles, a disk from `catalog/hdd` or from the
/// entry's data-sheet figures, drawing the entry's one power figure in every state (the
/// planning catalog has no other). `None` for an SSD timed from its data sheet that
/// names no internals: there is nothing to simulate.
pub fn model(d: &PlanDevice) -> Result<Option<DeviceSpec>> {
    let constant_power = || tierlab_power::PowerSpec {
        active_w: d.device_w,
        seek_w: d.device_w,
        idle_w: d.device_w,
        standby: Vec::new(),
        speeds: None,
    };
    Ok(Some(match &d.model {
        ModelRef::Ssd(id) => {
            let mut m = SsdModel::catalog(id)?;
            m.rated_erase_cycles = d.erase_cycles.map(|c| c as u32);
            DeviceSpec::Ssd(m)
        }
        ModelRef::Hdd(id) => {
            let mut m = HddModel::catalog(id)?;
            m.power = Some(constant_power());
            DeviceSpec::Hdd(m)
        }
        ModelRef::HddDatasheet(h) => {
            let sheet = tierlab_hdd::Datasheet {
                name: d.name.clone(),
                capacity_bytes: (d.capacity_gb * 1e9) as u64,
                rpm: h.rpm,
                seek_single_track_ms: None,
                seek_average_ms: h.average_seek_ms,
                seek_full_stroke_ms: None,
                sustained_transfer_mb_s: d.read_mb_s,
                cache_mib: h.cache_mib,
                sector_bytes: 512,
                timing: Default::default(),
                layout: None,
            };
            DeviceSpec::Hdd(HddModel::new(sheet, Some(constant_power())))
        }
        ModelRef::Datasheet(_) => match &d.internals {
            Some(id) => {
                let mut m = SsdModel::catalog(id)?;
                m.rated_erase_cycles = d.erase_cycles.map(|c| c as u32);
                DeviceSpec::Ssd(m)
            }
            None => return Ok(None),
        },
    }))
}

/// The planner's view of a characterised workload: one need per non-empty class, with
/// every bandwidth scaled by `rate_scale` (the research's 1x-8x arrival-rate projection).
pub fn needs(classes: &Classes, rate_scale: f64) -> Vec<ClassNeed> {
    let span_s = classes.span_s.max(1.0);
    classes
        .classes
        .iter()
        .filter(|c| c.size_bytes > 0)
        .map(|c| {
            let moved = (c.read_bytes + c.write_bytes) as f64;
            ClassNeed {
                label: c.label.clone(),
                size_gb: c.size_bytes as f64 / 1e9,
                bandwidth_kb_s: c.bandwidth_p95_bytes_s * rate_scale / 1e3,
                write_mean_kb_s: c.write_bytes as f64 / span_s * rate_scale / 1e3,
                write_fraction: if moved > 0.0 {
                    c.write_bytes as f64 / moved
                } else {
                    0.0
                },
                mean_request_bytes: c.mean_request_bytes,
                read_fraction: c.read_fraction,
            }
        })
        .collect()
}

/// Everything a plan is made with, besides the workload and the catalog.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    pub cost: CostModel,
    pub bandwidth_form: BandwidthForm,
    pub wear_rate: WearRate,
    /// The SSDs must last this long; the horizon when not set.
    pub lifetime_years: Option<f64>,
    pub max_devices: Option<u32>,
    pub solver: SolverKind,
    pub rate_scale: f64,
    pub runner_ups: usize,
    pub probe: Probe,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cost: CostModel::default(),
            bandwidth_form: BandwidthForm::Literal,
            wear_rate: WearRate::Mean,
            lifetime_years: None,
            max_devices: None,
            solver: SolverKind::best(),
            rate_scale: 1.0,
            runner_ups: 3,
            probe: Probe::default(),
        }
    }
}

/// A plan and what it was made from.
#[derive(Clone, Debug, Serialize)]
pub struct PlanReport {
    pub workload: String,
    pub catalog: String,
    pub options: Options,
    pub requests: u64,
    pub span_s: f64,
    pub classes: Vec<ClassNeed>,
    /// B_ij, KB/s, rows in catalog order.
    pub bandwidth_kb_s: Vec<Vec<f64>>,
    pub study: Study,
    /// For a synthesised workload: its statistics file's targets against what the
    /// synthesised stream achieved, and the targets it cannot meet.
    pub synthesis: Option<Synthesis>,
    /// Each design replayed (`--simulate`).
    pub simulated: Vec<check::Checked>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Synthesis {
    pub stats: String,
    pub rate_scale: f64,
    pub seed: u64,
    pub rows: Vec<tierlab_synth::ComparisonRow>,
    pub shortfalls: Vec<tierlab_synth::Shortfall>,
}

/// A statistics file: a shipped id (`catalog/workloads`) or a path.
pub fn load_stats(id_or_path: &str) -> Result<tierlab_synth::WorkloadStats> {
    match tierlab_synth::builtin(id_or_path) {
        Some(s) => Ok(s?),
        None => {
            let path = std::path::Path::new(id_or_path);
            if !path.exists() {
                let known: Vec<&str> = tierlab_synth::builtin_ids().collect();
                anyhow::bail!(
                    "--stats {id_or_path}: no such file, nor a shipped statistics file (known: {})",
                    known.join(", ")
                );
            }
            Ok(tierlab_synth::WorkloadStats::load(path)?)
        }
    }
}

/// A statistics file's synthesised stream, characterised, with its check.
pub fn characterise_stats(
    stats: &tierlab_synth::WorkloadStats,
    options: &tierlab_synth::SynthOptions,
    config: &tierlab_classes::ClassConfig,
) -> Result<(Classes, Synthesis)> {
    let e = tierlab_synth::evaluate(stats, options, config)?;
    let synthesis = Synthesis {
        stats: stats.id.clone(),
        rate_scale: options.rate_scale,
        seed: options.seed,
        rows: e.rows,
        shortfalls: e.plan.shortfalls,
    };
    Ok((e.classes, synthesis))
}

/// Plan `classes` with the devices of `catalog`.
pub fn plan(
    workload: &str,
    classes: &Classes,
    catalog: &PlanCatalog,
    options: &Options,
    cache_dir: Option<&std::path::Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<PlanReport> {
    let needs = needs(classes, options.rate_scale);
    let bandwidth_kb_s = bandwidth::measure(
        &catalog.devices,
        &needs,
        &options.probe,
        cache_dir,
        progress,
    )?;
    let problem = Problem {
        devices: catalog.devices.clone(),
        classes: needs.clone(),
        bandwidth_kb_s: bandwidth_kb_s.clone(),
        cost: options.cost,
        bandwidth_form: options.bandwidth_form,
        wear_rate: options.wear_rate,
        lifetime_years: options.lifetime_years.unwrap_or(options.cost.horizon_years),
        max_devices: options.max_devices,
        solver: options.solver,
    };
    let study = problem.study(options.runner_ups).map_err(|e| match e {
        PlanError::Infeasible(m) => anyhow::anyhow!("infeasible: {m}"),
        e => anyhow::anyhow!("{e}"),
    })?;
    Ok(PlanReport {
        workload: workload.into(),
        catalog: catalog.id.clone(),
        options: options.clone(),
        requests: classes.requests,
        span_s: classes.span_s,
        classes: needs,
        bandwidth_kb_s,
        study,
        synthesis: None,
        simulated: Vec::new(),
    })
}
