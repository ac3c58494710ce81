//! The whole `tierlab plan` study from one configuration: the inputs checked, the catalog
//! edited (device types left out, prices set), the workload characterised (a trace, or a
//! statistics file's synthesised stream), the plan solved and, when asked, checked by
//! simulation.

use crate::check::{self, Checked};
use crate::{characterise_stats, load_stats, plan, Options, PlanReport};
use anyhow::{anyhow, Context};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use tierlab_classes::{ClassConfig, Classes, Labelled};
use tierlab_measure::Protocol;
use tierlab_mixplan::catalog::PlanCatalog;
use tierlab_trace::ReadOptions;

/// The largest rate scale: a million times the workload's rate already asks for more
/// devices than any catalog's prices were quoted for, and far larger factors make the
/// program's coefficients too far apart for the solver to be trusted.
pub const MAX_SCALE: f64 = 1e6;
/// The longest horizon or required SSD life, in years.
pub const MAX_YEARS: f64 = 1000.0;

/// Where a plan's workload comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum PlanWorkload {
    /// A trace file, in any format `tierlab_trace` reads.
    Trace {
        path: PathBuf,
        #[serde(default)]
        read: ReadOptions,
    },
    /// A workload statistics file, or the id of a shipped one (`catalog/workloads`): a
    /// stream synthesised from it with `seed` stands in for the trace.
    Stats { stats: String, seed: u64 },
}

/// A device type's price set in place of the catalog's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceSetting {
    pub device: String,
    pub usd_per_gb: f64,
}

/// One capacity plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanConfig {
    pub workload: PlanWorkload,
    /// A shipped planning catalog's id (hybridstore-2009, recent) or a file.
    pub catalog: String,
    /// Device types of the catalog left out.
    #[serde(default)]
    pub without: Vec<String>,
    /// Prices set, in order.
    #[serde(default)]
    pub prices: Vec<PriceSetting>,
    /// 17 or 33 data classes.
    pub classes: u32,
    pub options: Options,
    /// Where measured bandwidths are cached; `None`: measured anew.
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
    /// Check the plan by simulation (the plan, and each device type alone, built from
    /// tierlab's device models and replayed), each design measured with this protocol.
    #[serde(default)]
    pub simulate: Option<Protocol>,
}

/// A plan, and the catalog it was made from (after the configuration's edits).
#[derive(Clone, Debug)]
pub struct Planned {
    pub report: PlanReport,
    pub catalog: PlanCatalog,
}

/// Where a study is.
#[derive(Clone, Copy, Debug)]
pub enum PlanProgress<'a> {
    /// Labelling a trace's records into classes: the records read so far.
    Labelling { requests: u64 },
    /// Measuring the labelled classes (a second pass).
    MeasuringClasses,
    /// Synthesising a statistics file's stream and labelling it.
    Synthesising,
    /// Measuring a device type's bandwidth for the classes.
    Bandwidth(&'a str),
    /// Replaying a design: the requests replayed so far.
    Simulating { design: &'a str, requests: u64 },
}

/// Why a study could not run. Each names the configuration field at fault first, in
/// backticks, where there is one.
#[derive(Debug, thiserror::Error)]
pub enum PlanStudyError {
    #[error("`{field}`: expected {expected}, found {found}")]
    Range { field: &'static str, expected: String, found: String },
    #[error("`classes`: expected 17 or 33, found {0}")]
    Classes(u32),
    #[error("`catalog`: {catalog}: {message}")]
    Catalog { catalog: String, message: String },
    #[error("`without`: {device}: no such device type in catalog `{catalog}` (it has {known})")]
    Without { device: String, catalog: String, known: String },
    #[error("`prices`: {device}: expected a price from 0 to 1e6 $/GB, found {found}")]
    PriceRange { device: String, found: f64 },
    #[error("`prices`: no device type `{device}` in the catalog (it has {known})")]
    Price { device: String, known: String },
    #[error(transparent)]
    Run(#[from] anyhow::Error),
}

/// Numbers that would reach the solver out of its range, each with its field and the
/// range expected.
pub fn check_inputs(o: &Options) -> Result<(), PlanStudyError> {
    let within = |field: &'static str, v: f64, lo: f64, lo_open: bool, hi: f64, expected: String| {
        let ok = v.is_finite() && (if lo_open { v > lo } else { v >= lo }) && v <= hi;
        if ok {
            return Ok(());
        }
        let found = if v.is_finite() && v.abs() >= 1e9 { format!("{v:e}") } else { v.to_string() };
        Err(PlanStudyError::Range { field, expected, found })
    };
    let years = format!("a number of years above 0 and at most {MAX_YEARS}");
    within("options.rate_scale", o.rate_scale, 0.0, true, MAX_SCALE, format!("a factor above 0 and at most {MAX_SCALE:e}"))?;
    within("options.cost.horizon_years", o.cost.horizon_years, 0.0, true, MAX_YEARS, years.clone())?;
    if let Some(y) = o.lifetime_years {
        within("options.lifetime_years", y, 0.0, true, MAX_YEARS, years)?;
    }
    within("options.cost.usd_per_kwh", o.cost.usd_per_kwh, 0.0, false, 1000.0, "a price from 0 to 1000 $/kWh".into())?;
    within("options.cost.cooling_factor", o.cost.cooling_factor, 0.0, false, 100.0, "a factor from 0 to 100".into())?;
    Ok(())
}

fn ids(c: &PlanCatalog) -> String {
    c.devices.iter().map(|d| d.id.as_str()).collect::<Vec<_>>().join(", ")
}

/// The catalog with the configuration's device types left out and prices set.
pub fn edited_catalog(cfg: &PlanConfig) -> Result<PlanCatalog, PlanStudyError> {
    let mut catalog = tierlab_mixplan::catalog::load(&cfg.catalog).map_err(|e| PlanStudyError::Catalog { catalog: cfg.catalog.clone(), message: e.to_string() })?;
    for id in &cfg.without {
        let before = catalog.devices.len();
        catalog.devices.retain(|d| &d.id != id);
        if catalog.devices.len() == before {
            return Err(PlanStudyError::Without { device: id.clone(), catalog: catalog.id.clone(), known: ids(&catalog) });
        }
    }
    for p in &cfg.prices {
        if !(p.usd_per_gb.is_finite() && (0.0..=1e6).contains(&p.usd_per_gb)) {
            return Err(PlanStudyError::PriceRange { device: p.device.clone(), found: p.usd_per_gb });
        }
        let known = ids(&catalog);
        let d = catalog.devices.iter_mut().find(|d| d.id == p.device).ok_or_else(|| PlanStudyError::Price { device: p.device.clone(), known })?;
        d.price_usd_per_gb = Some(p.usd_per_gb);
    }
    Ok(catalog)
}

/// A trace's data classes: its records labelled in one pass, the classes measured in a
/// second.
pub fn characterise<I, E>(cfg: &ClassConfig, open: impl Fn() -> anyhow::Result<I>, progress: &mut dyn FnMut(PlanProgress)) -> anyhow::Result<Classes>
where
    I: Iterator<Item = Result<tierlab_types::IoRequest, E>>,
    E: Into<anyhow::Error>,
{
    cfg.check().map_err(|e| anyhow!("{e}"))?;
    let mut n = 0u64;
    progress(PlanProgress::Labelling { requests: 0 });
    let labelled = tierlab_classes::label(
        cfg,
        open()?.inspect(|_| {
            n += 1;
            if n.is_multiple_of(1 << 16) {
                progress(PlanProgress::Labelling { requests: n })
            }
        }),
    )
    .map_err(Into::into)?;
    progress(PlanProgress::MeasuringClasses);
    tierlab_classes::measure(labelled, open()?).map_err(Into::into)
}

/// Runs the study.
pub fn run(cfg: &PlanConfig, progress: &mut dyn FnMut(PlanProgress)) -> Result<Planned, PlanStudyError> {
    check_inputs(&cfg.options)?;
    let intensity_bins = match cfg.classes {
        17 => 1,
        33 => 2,
        n => return Err(PlanStudyError::Classes(n)),
    };
    let classes_cfg = ClassConfig { intensity_bins, ..ClassConfig::default() };
    let catalog = edited_catalog(cfg)?;
    let report = planned(cfg, &classes_cfg, &catalog, progress)?;
    Ok(Planned { report, catalog })
}

fn planned(cfg: &PlanConfig, classes_cfg: &ClassConfig, catalog: &PlanCatalog, progress: &mut dyn FnMut(PlanProgress)) -> anyhow::Result<PlanReport> {
    let cache = cfg.cache_dir.as_deref();
    match &cfg.workload {
        PlanWorkload::Trace { path, read } => {
            let open = || tierlab_trace::open(path, read).with_context(|| format!("cannot read trace {}", path.display()));
            let classes = characterise(classes_cfg, open, progress)?;
            let mut report = plan(&path.display().to_string(), &classes, catalog, &cfg.options, cache, &mut |m| progress(PlanProgress::Bandwidth(m)))?;
            if let Some(protocol) = &cfg.simulate {
                let labelled = tierlab_classes::label(classes_cfg, open()?)?;
                report.simulated = simulate(&report, catalog, &classes, &labelled, &open, protocol, progress)?;
            }
            Ok(report)
        }
        PlanWorkload::Stats { stats, seed } => {
            let stats = load_stats(stats)?;
            // The stream is made at the projected rate, so the needs are not scaled again.
            let synth = tierlab_synth::SynthOptions { seed: *seed, rate_scale: cfg.options.rate_scale };
            let options = Options { rate_scale: 1.0, ..cfg.options.clone() };
            progress(PlanProgress::Synthesising);
            let (classes, synthesis) = characterise_stats(&stats, &synth, classes_cfg)?;
            let mut report = plan(&format!("{} ({})", stats.id, stats.description), &classes, catalog, &options, cache, &mut |m| progress(PlanProgress::Bandwidth(m)))?;
            report.options.rate_scale = synth.rate_scale;
            report.synthesis = Some(synthesis);
            if let Some(protocol) = &cfg.simulate {
                let open = || -> anyhow::Result<_> { Ok(tierlab_synth::Synth::new(&stats, &synth)?.map(Ok::<_, std::convert::Infallible>)) };
                let labelled = tierlab_classes::label(classes_cfg, open()?).map_err(|e| anyhow!("{e}"))?;
                report.simulated = simulate(&report, catalog, &classes, &labelled, &open, protocol, progress)?;
            }
            Ok(report)
        }
    }
}

fn simulate<I, E>(
    report: &PlanReport,
    catalog: &PlanCatalog,
    classes: &Classes,
    labelled: &Labelled,
    open: &dyn Fn() -> anyhow::Result<I>,
    protocol: &Protocol,
    progress: &mut dyn FnMut(PlanProgress),
) -> anyhow::Result<Vec<Checked>>
where
    I: Iterator<Item = Result<tierlab_types::IoRequest, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    check::check(report, catalog, classes, labelled, open, Some(protocol), &mut |design, requests| progress(PlanProgress::Simulating { design, requests }))
}

#[cfg(test)]
mod tests;
