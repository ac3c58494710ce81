//! A plan checked by simulation: the planned system built from tierlab's device models,
//! each class placed as planned, the workload replayed on it and on each device type
//! alone (the all-HDD and SSD-only alternatives), and what the planner assumed set beside
//! what happened.
//!
//! What is compared, per device type of a design:
//! - **power**: the planner charges each device its catalog `device_w` for the whole
//!   horizon; the simulation gives each model's energy over the run. Disks of a planning
//!   catalog draw that same constant figure in the simulation (the research's table has
//!   one power figure per disk), so they agree by construction; SSDs run their own energy
//!   model (page reads, programs, erases, idle) and can differ;
//! - **load**: the planner's bandwidth need (Σ_j F_j x_ij / (S_j B_ij) per device, from
//!   95th-percentile rates) against the simulated busy fraction (a mean);
//! - **SSD lifetime**: the planner's Eq. 4.8 years (host writes, no write amplification)
//!   against years at the simulated block-erase rate with perfect wear leveling.
//!
//! A design whose device type has no internals model (an SSD timed from its data sheet)
//! or that needs more than [`MAX_SIMULATED_SSDS`] SSD models is listed as not simulated,
//! with the reason.

use crate::PlanReport;
use anyhow::{anyhow, Result};
use serde::Serialize;
use tierlab_classes::{Classes, Labelled};
use tierlab_measure::{Interval, Measurement, Protocol, Stop, Summary};
use tierlab_mixedsim::{GroupSpec, Layout, MixedConfig, MixedReport, Placement};
use tierlab_workload::{pass_length_ns, Looped};
use tierlab_mixplan::catalog::{PlanCatalog, PlanDevice};
use tierlab_mixplan::{Plan, TypeUse};
use tierlab_types::IoRequest;

/// SSD models kept in memory at once by one check (each holds its mapping tables).
pub const MAX_SIMULATED_SSDS: u32 = 16;

/// One design replayed.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    pub design: String,
    pub devices: String,
    /// None with `skipped` set when the design was not simulated.
    pub report: Option<MixedReport>,
    /// How the replay was measured, when the measurement layer measured it: `report`
    /// then covers the measured window.
    pub measured: Option<Measured>,
    pub skipped: Option<String>,
    pub types: Vec<TypeCheck>,
}

/// A device type of a design: assumed against simulated.
#[derive(Clone, Debug, Serialize)]
pub struct TypeCheck {
    pub device: String,
    pub count: u32,
    pub planned_power_w: f64,
    pub simulated_power_w: f64,
    /// Planner's need per device (share of one device's bandwidth).
    pub planned_load: f64,
    pub simulated_busy: f64,
    pub planned_lifetime_years: Option<f64>,
    pub simulated_lifetime_years: Option<f64>,
}

/// A design's replay as the measurement layer measured it (`docs/measurement.md`).
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    #[serde(flatten)]
    pub summary: Summary,
    /// Arrivals per second over the window: the load the trace offers.
    pub offered_iops: f64,
    /// Completions per second over the window. For a design that cannot carry the load
    /// (`stop` = unsustainable) this is what it managed while its queue grew: its capacity.
    pub iops: Interval,
}

impl Measured {
    /// Whether the design carried the offered load.
    pub fn sustained(&self) -> bool {
        self.summary.stop != Stop::Unsustainable
    }
}

/// Relative difference, %: (simulated − planned) / planned.
pub fn difference_percent(planned: f64, simulated: f64) -> Option<f64> {
    (planned.abs() > 1e-12 && simulated.is_finite())
        .then(|| (simulated - planned) / planned * 100.0)
}

fn group_of(d: &PlanDevice, count: u32) -> Result<GroupSpec> {
    let device = crate::model(d)?.ok_or_else(|| {
        anyhow!(
            "{} is timed from its data sheet and has no internals model to simulate",
            d.id
        )
    })?;
    Ok(GroupSpec::new(d.id.clone(), device, count))
}

/// The designs to replay: the plan, then each device type alone.
pub fn designs(r: &PlanReport) -> Vec<(String, &Plan)> {
    let mut out = vec![("planned".to_string(), &r.study.best)];
    for one in &r.study.single_type {
        if let Some(p) = &one.plan {
            if p.counts() != r.study.best.counts() {
                out.push((format!("only {}", one.device), p));
            }
        }
    }
    out
}

/// Replay `open()`'s requests on each design of `r`: measured as `protocol` says (the
/// trace played pass after pass until the design is steady and its figures precise, or
/// stopped as one that cannot carry the load), or, without one, once from its first
/// request to its last.
pub fn check<E, I>(
    r: &PlanReport,
    catalog: &PlanCatalog,
    classes: &Classes,
    labelled: &Labelled,
    open: &dyn Fn() -> Result<I>,
    protocol: Option<&Protocol>,
    progress: &mut dyn FnMut(&str, u64),
) -> Result<Vec<Checked>>
where
    I: Iterator<Item = Result<IoRequest, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    if let Some(p) = protocol {
        p.validate().map_err(|e| anyhow!(e))?;
    }
    // The labelled trace is the trace replayed: one pass of it is as long as its span.
    let (requests, first_ns, last_ns) = labelled.arrivals();
    let pass_ns = pass_length_ns(requests, first_ns, last_ns);
    let mut out = Vec::new();
    for (design, plan) in designs(r) {
        let used: Vec<(usize, &TypeUse)> = plan
            .types
            .iter()
            .enumerate()
            .filter(|(_, u)| u.count > 0)
            .collect();
        let ssds: u32 = used
            .iter()
            .filter(|(i, _)| catalog.devices[*i].kind == tierlab_mixplan::catalog::Kind::Ssd)
            .map(|(_, u)| u.count)
            .sum();
        let mut checked = Checked {
            design: design.clone(),
            devices: plan.summary(),
            report: None,
            measured: None,
            skipped: None,
            types: Vec::new(),
        };
        let groups: Result<Vec<GroupSpec>> = used
            .iter()
            .map(|(i, u)| group_of(&catalog.devices[*i], u.count))
            .collect();
        let groups = match groups {
            Err(e) => {
                checked.skipped = Some(format!("{e:#}"));
                out.push(checked);
                continue;
            }
            Ok(_) if ssds > MAX_SIMULATED_SSDS => {
                checked.skipped = Some(format!("{ssds} SSD models: more than the {MAX_SIMULATED_SSDS} one check keeps in memory"));
                out.push(checked);
                continue;
            }
            Ok(g) => g,
        };
        let mut placement = Placement::new();
        for (j, need) in r.classes.iter().enumerate() {
            let Some(key) = classes
                .classes
                .iter()
                .find(|c| c.label == need.label)
                .and_then(|c| c.key)
            else {
                continue;
            };
            // Shares of what the plan placed (Σ_i x_ij, which the solver's rounding can
            // put an ulp off S_j), so that they add up to 1.
            let placed_gb: f64 = used.iter().map(|(_, u)| u.placed_gb[j].max(0.0)).sum();
            let shares: Vec<(&str, f64)> = used
                .iter()
                .filter(|(_, u)| u.placed_gb[j] > 0.0)
                .map(|(_, u)| (u.device.as_str(), (u.placed_gb[j] / placed_gb).min(1.0)))
                .collect();
            if !shares.is_empty() {
                placement = placement.with_class(key, &shares);
            }
        }
        let config = MixedConfig::new(groups, placement);
        let layout = Layout::place(&config.groups, &config.placement, labelled, config.seed)?;
        let mut tell = |n| progress(&design, n);
        let report = match protocol {
            None => layout.simulate(open()?, config.replay, config.scheduler, &mut tell)?,
            Some(p) => {
                let first = open()?;
                let source: Box<dyn Iterator<Item = Result<IoRequest, E>> + '_> = match pass_ns {
                    Some(ns) => Box::new(Looped::new(first, ns, || open().ok())),
                    None => Box::new(first),
                };
                let mut m = Measurement::new(p, false, None);
                let (report, batches) =
                    layout.simulate_observed(source, config.replay, config.scheduler, &mut m, &mut tell)?;
                let (summary, window) = Summary::new(&batches, &m.finish(), p.batch_requests, false);
                checked.measured = Some(Measured {
                    summary,
                    offered_iops: window.total.offered_iops(),
                    iops: window.figure(|s| s.iops()),
                });
                report
            }
        };
        for (i, u) in &used {
            let d = &catalog.devices[*i];
            let g = report.groups.iter().find(|g| g.name == d.id);
            checked.types.push(TypeCheck {
                device: d.id.clone(),
                count: u.count,
                planned_power_w: d.device_w * f64::from(u.count),
                simulated_power_w: g.map_or(0.0, |g| g.mean_power_w),
                planned_load: u.need_bandwidth / f64::from(u.count.max(1)),
                simulated_busy: g.map_or(0.0, |g| g.busy_fraction),
                planned_lifetime_years: u.lifetime_years,
                simulated_lifetime_years: g
                    .and_then(|g| g.ssd.as_ref())
                    .and_then(|s| s.lifetime_years),
            });
        }
        checked.report = Some(report);
        out.push(checked);
    }
    Ok(out)
}
