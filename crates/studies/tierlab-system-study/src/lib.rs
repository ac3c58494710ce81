//! What a storage system draws besides its disks, studied as a library: a typed
//! configuration in, a typed report out, the same for the command line, Python and tests.
//!
//! - [`savings`]: the GreenDM dissertation's Figure 4.4 — an idle controller with N idle
//!   enclosures full of their measured disks, and the system's power as more of them have
//!   every disk spun down or every slot powered down; every catalog pair summarised, or
//!   one pair's whole curve.
//! - [`enclosure_reports`]: the catalog's enclosures with the model's split of their power.
//! - [`show`]: a system description file resolved against the catalog.
//!
//! The figures themselves are `tierlab_system_power::study`'s.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tierlab_system_power::study::{enclosure_figures, figure_4_4, managed_curve, CurvePoint, EnclosureFigures, PairSummary};
use tierlab_system_power::{builtin, EnclosureEntry, LowPower, System, SystemCatalog, SystemSpec};

/// The largest number of enclosures a savings study takes: a curve has one point per
/// enclosure and each point accounts every disk, so the work grows with its square.
pub const MAX_ENCLOSURES: u32 = 1000;

/// The saving Figure 4.4 asks about.
pub const TARGET: f64 = 0.2;

/// One Figure 4.4 study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavingsConfig {
    /// Enclosures attached to the controller (the chapter's 32).
    #[serde(default = "default_enclosures")]
    pub enclosures: u32,
    /// One pair's whole curve instead of every pair's summary.
    #[serde(default)]
    pub pair: Option<Pair>,
    /// Also compute the curves behind the report (every summarised pair's, or the pair's
    /// in both modes), which the CSV and HTML forms draw.
    #[serde(default)]
    pub curves: bool,
}

fn default_enclosures() -> u32 {
    32
}

impl Default for SavingsConfig {
    fn default() -> Self {
        SavingsConfig { enclosures: default_enclosures(), pair: None, curves: false }
    }
}

/// A controller and an enclosure of the catalog, and what a managed enclosure does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    pub controller: String,
    pub enclosure: String,
    #[serde(default)]
    pub mode: LowPower,
}

/// One controller × enclosure curve in one mode.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    pub controller: String,
    pub enclosure: String,
    /// Slots of the enclosure, each holding a disk.
    pub slots: u32,
    pub mode: LowPower,
    /// k = 0..=enclosures managed enclosures.
    pub points: Vec<CurvePoint>,
}

/// What a savings study found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SavingsReport {
    pub enclosures: u32,
    /// The pair's curve, when the configuration names a pair.
    pub curve: Option<Curve>,
    /// Every catalog pair that attaches the enclosures, both modes (empty for a pair).
    pub summary: Vec<PairSummary>,
    /// The catalog's controllers that attach fewer enclosures, with why.
    pub left_out: Vec<String>,
    /// With [`SavingsConfig::curves`]: the summary's curves in its order, or the pair's
    /// in spin-down and, where the enclosure can, power-down.
    pub curves: Vec<Curve>,
    /// The catalog's controller and enclosure ids in its order (charts keep a controller's
    /// colour and an enclosure's marker by them).
    pub controller_ids: Vec<String>,
    pub enclosure_ids: Vec<String>,
}

/// Why a study could not run. Each names the configuration field at fault first, in
/// backticks, where there is one.
#[derive(Debug, thiserror::Error)]
pub enum SystemStudyError {
    #[error("`enclosures`: expected 1 to {MAX_ENCLOSURES} enclosures, found {0}")]
    Enclosures(u32),
    #[error("`enclosures`: `{controller}` attaches at most {max} enclosures, found {found}")]
    TooManyEnclosures { controller: String, max: u32, found: u32 },
    #[error("`enclosures`: no catalog controller attaches {0} enclosures")]
    NoController(u32),
    #[error("`pair.controller`: {0}")]
    Controller(String),
    #[error("`pair.enclosure`: {0}")]
    Enclosure(String),
    #[error("`pair.mode`: `{0}` cannot power its slots down (power_down = false in its entry)")]
    NoPowerDown(String),
    /// The curve of a pair could not be accounted.
    #[error("{context}")]
    Curve { context: String, source: Box<dyn std::error::Error + Send + Sync> },
    #[error("{0}")]
    Catalog(String),
}

impl SystemStudyError {
    /// The configuration field at fault, when there is one.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            SystemStudyError::Enclosures(_) | SystemStudyError::TooManyEnclosures { .. } | SystemStudyError::NoController(_) => Some("enclosures"),
            SystemStudyError::Controller(_) => Some("pair.controller"),
            SystemStudyError::Enclosure(_) => Some("pair.enclosure"),
            SystemStudyError::NoPowerDown(_) => Some("pair.mode"),
            SystemStudyError::Curve { .. } | SystemStudyError::Catalog(_) => None,
        }
    }

    /// What is wrong, without the field.
    pub fn message(&self) -> String {
        let text = self.to_string();
        match self.field() {
            Some(f) => text.strip_prefix(&format!("`{f}`: ")).unwrap_or(&text).to_string(),
            None => text,
        }
    }
}

/// Run the savings study `cfg` over the built-in catalog.
pub fn savings(cfg: &SavingsConfig) -> Result<SavingsReport, SystemStudyError> {
    savings_in(&builtin(), cfg)
}

/// Run the savings study `cfg` over `catalog`.
pub fn savings_in(catalog: &SystemCatalog, cfg: &SavingsConfig) -> Result<SavingsReport, SystemStudyError> {
    let n = cfg.enclosures;
    if n == 0 || n > MAX_ENCLOSURES {
        return Err(SystemStudyError::Enclosures(n));
    }
    let mut report = SavingsReport {
        enclosures: n,
        curve: None,
        summary: Vec::new(),
        left_out: left_out(catalog, n),
        curves: Vec::new(),
        controller_ids: catalog.controllers().map(|c| c.id.clone()).collect(),
        enclosure_ids: catalog.enclosures().map(|e| e.id.clone()).collect(),
    };
    if let Some(p) = &cfg.pair {
        report.curve = Some(pair_curve(catalog, &p.controller, &p.enclosure, n, p.mode)?);
        if cfg.curves {
            report.curves.push(pair_curve(catalog, &p.controller, &p.enclosure, n, LowPower::SpinDown)?);
            if catalog.enclosure(&p.enclosure).is_ok_and(|e| e.power_down) {
                report.curves.push(pair_curve(catalog, &p.controller, &p.enclosure, n, LowPower::PowerDown)?);
            }
        }
        return Ok(report);
    }
    report.summary = figure_4_4(catalog, n).map_err(SystemStudyError::Catalog)?;
    if report.summary.is_empty() {
        return Err(SystemStudyError::NoController(n));
    }
    if cfg.curves {
        report.curves = report.summary.iter().map(|p| pair_curve(catalog, &p.controller, &p.enclosure, n, p.mode)).collect::<Result<_, _>>()?;
    }
    Ok(report)
}

/// One pair's curve in one mode, checked against the catalog.
fn pair_curve(catalog: &SystemCatalog, controller: &str, enclosure: &str, n: u32, mode: LowPower) -> Result<Curve, SystemStudyError> {
    let c = catalog.controller(controller).map_err(|e| SystemStudyError::Controller(e.to_string()))?;
    let e = catalog.enclosure(enclosure).map_err(|e| SystemStudyError::Enclosure(e.to_string()))?;
    if let Some(max) = c.max_enclosures {
        if n > max {
            return Err(SystemStudyError::TooManyEnclosures { controller: c.id.clone(), max, found: n });
        }
    }
    if mode == LowPower::PowerDown && !e.power_down {
        return Err(SystemStudyError::NoPowerDown(e.id.clone()));
    }
    let points = managed_curve(catalog, controller, enclosure, n, mode)
        .map_err(|m| SystemStudyError::Curve { context: format!("{controller} with {n} × {enclosure}"), source: m.into() })?;
    Ok(Curve { controller: c.id.clone(), enclosure: e.id.clone(), slots: e.slots, mode, points })
}

/// The controllers Figure 4.4 leaves out at `n` enclosures, with why.
fn left_out(catalog: &SystemCatalog, n: u32) -> Vec<String> {
    catalog
        .controllers()
        .filter_map(|c| c.max_enclosures.filter(|&m| m < n).map(|m| format!("{} (attaches at most {m} enclosures)", c.id)))
        .collect()
}

/// An enclosure's figures with the entry's lists of derived and estimated keys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnclosureReport {
    #[serde(flatten)]
    pub figures: EnclosureFigures,
    pub slot_power_on_s: Option<f64>,
    pub derived: Vec<String>,
    pub estimates: Vec<String>,
}

/// Every enclosure of `catalog`, in its order.
pub fn enclosure_reports(catalog: &SystemCatalog) -> Vec<EnclosureReport> {
    catalog.enclosures().map(enclosure_report).collect()
}

fn enclosure_report(e: &EnclosureEntry) -> EnclosureReport {
    EnclosureReport { figures: enclosure_figures(e), slot_power_on_s: e.slot_power_on_s, derived: e.derived.clone(), estimates: e.estimates.clone() }
}

/// A system description file to resolve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShowConfig {
    pub file: PathBuf,
    /// Disks to place; `None`: the enclosures' `disks` if every table gives them, else
    /// every slot filled.
    #[serde(default)]
    pub disks: Option<usize>,
}

/// The resolved system with the figures that describe it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShowReport {
    pub description: String,
    #[serde(flatten)]
    pub system: System,
    /// Each enclosure's own power with its disks' slots powered, W.
    pub enclosures_own_w: Vec<f64>,
    pub controller_loaded_w: f64,
    /// Controller idle + every enclosure's own power, disks excluded, W.
    pub idle_w_excluding_disks: f64,
}

/// Resolve the system description `cfg.file`; errors name its file, line and key.
pub fn show(cfg: &ShowConfig) -> anyhow::Result<ShowReport> {
    let path = &cfg.file;
    let spec: SystemSpec = tierlab_config::load_toml_validated(path)?;
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::Error::new(e).context(format!("cannot read {}", path.display())))?;
    let disks = cfg.disks.unwrap_or_else(|| default_disks(&spec));
    let system = spec.resolve_with_own_catalog(disks).map_err(|e| tierlab_config::field_error(&text, &path.display().to_string(), e))?;
    let own: Vec<f64> = system.enclosures.iter().zip(&system.disks_per_enclosure).map(|(e, &d)| e.own_w(f64::from(d))).collect();
    Ok(ShowReport {
        description: system.describe(),
        controller_loaded_w: system.controller.power_w(1.0),
        idle_w_excluding_disks: system.controller.idle_w + own.iter().sum::<f64>(),
        enclosures_own_w: own,
        system,
    })
}

/// The disks `show` places by default: the enclosures' `disks` when every table gives
/// them, else every slot (enclosure models the catalog lacks count none: resolving then
/// names them).
fn default_disks(spec: &SystemSpec) -> usize {
    let given: Option<u64> = spec.enclosures.iter().map(|g| g.disks.map(|d| u64::from(d) * u64::from(g.count))).sum();
    if let Some(d) = given {
        return d as usize;
    }
    let catalog = match &spec.catalog {
        Some(dir) => SystemCatalog::with_dir(dir).ok(),
        None => Some(builtin()),
    };
    let Some(catalog) = catalog else { return 0 };
    spec.enclosures
        .iter()
        .filter_map(|g| catalog.enclosure(&g.model).ok().map(|e| u64::from(e.slots) * u64::from(g.count)))
        .sum::<u64>() as usize
}

/// A system description read from `path` for a volume of `disks` disks, resolved once to
/// check it; errors name the file, line and key.
pub fn load_system(path: &Path, disks: usize) -> anyhow::Result<SystemSpec> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::Error::new(e).context(format!("cannot read the system description {}", path.display())))?;
    let name = path.display().to_string();
    let spec: SystemSpec = tierlab_config::parse_toml_validated(&text, &name)?;
    spec.resolve_with_own_catalog(disks).map_err(|e| tierlab_config::field_error(&text, &name, e))?;
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_round_trip_through_json() {
        let cfg = SavingsConfig {
            enclosures: 8,
            pair: Some(Pair { controller: "emc-dd880".into(), enclosure: "emc-es20".into(), mode: LowPower::PowerDown }),
            curves: true,
        };
        let text = serde_json::to_string(&cfg).unwrap();
        assert_eq!(serde_json::from_str::<SavingsConfig>(&text).unwrap(), cfg);
        assert_eq!(serde_json::from_str::<SavingsConfig>("{}").unwrap(), SavingsConfig::default());
        assert!(serde_json::from_str::<SavingsConfig>(r#"{"enclosure": 3}"#).is_err(), "unknown fields are refused");
        let show = ShowConfig { file: "examples/system-hibernator.toml".into(), disks: Some(24) };
        assert_eq!(serde_json::from_str::<ShowConfig>(&serde_json::to_string(&show).unwrap()).unwrap(), show);
    }

    #[test]
    fn errors_name_the_field_at_fault() {
        let e = savings(&SavingsConfig { enclosures: 0, ..SavingsConfig::default() }).unwrap_err();
        assert_eq!((e.field(), e.message().as_str()), (Some("enclosures"), "expected 1 to 1000 enclosures, found 0"));
        let pair = |c: &str, e: &str, mode| SavingsConfig { enclosures: 4, pair: Some(Pair { controller: c.into(), enclosure: e.into(), mode }), curves: false };
        let e = savings(&pair("emc-dd999", "emc-es30", LowPower::SpinDown)).unwrap_err();
        assert_eq!(e.field(), Some("pair.controller"));
        assert!(e.to_string().starts_with("`pair.controller`: ") && e.message().contains("emc-dd999"), "{e}");
        assert_eq!(savings(&pair("emc-dd880", "nope", LowPower::SpinDown)).unwrap_err().field(), Some("pair.enclosure"));
        let e = savings(&SavingsConfig { enclosures: 32, ..pair("emc-dd670", "emc-es30", LowPower::SpinDown) }).unwrap_err();
        assert!(matches!(e, SystemStudyError::TooManyEnclosures { max: 4, found: 32, .. }), "{e}");
        let e = savings(&SavingsConfig { enclosures: 1001, ..SavingsConfig::default() }).unwrap_err();
        assert!(matches!(e, SystemStudyError::Enclosures(1001)), "{e}");
    }

    #[test]
    fn a_pair_curve_starts_unmanaged_and_saves_more_with_each_enclosure() {
        let cfg = SavingsConfig {
            enclosures: 4,
            pair: Some(Pair { controller: "emc-dd860".into(), enclosure: "emc-es30".into(), mode: LowPower::SpinDown }),
            curves: true,
        };
        let r = savings(&cfg).unwrap();
        let c = r.curve.as_ref().unwrap();
        assert_eq!(c.points.len(), 5);
        assert_eq!(c.points[0].saving, 0.0);
        assert!(c.points.windows(2).all(|w| w[1].saving > w[0].saving && w[1].total_w < w[0].total_w));
        assert!(r.summary.is_empty());
        assert_eq!(r.curves[0], *c, "the spin-down curve drawn is the one reported");
        assert!(r.curves.iter().all(|k| k.controller == "emc-dd860" && k.slots == c.slots));
    }

    #[test]
    fn the_summary_has_a_curve_per_pair_when_asked() {
        let r = savings(&SavingsConfig { enclosures: 8, pair: None, curves: true }).unwrap();
        assert!(!r.summary.is_empty());
        assert_eq!(r.curves.len(), r.summary.len());
        for (s, c) in r.summary.iter().zip(&r.curves) {
            assert_eq!((&s.controller, &s.enclosure, s.mode), (&c.controller, &c.enclosure, c.mode));
            assert_eq!(c.points.last().unwrap().saving, s.saving_all);
        }
        assert!(savings(&SavingsConfig { enclosures: 8, pair: None, curves: false }).unwrap().curves.is_empty());
    }
}
