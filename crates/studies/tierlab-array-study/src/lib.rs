//! The energy-managed disk array studies behind `tierlab array`: [`simulate`] runs one
//! scheme on one workload ([`ArraySimulateConfig`] to an [`ArrayRun`]); [`compare`] runs
//! schemes across loads, or across response-time goals at one load, and states each
//! scheme's saving against RAID-5 ([`ArrayCompareConfig`] to an [`ArrayCompareReport`]).
//! The runs are `tierlab_array_sim`'s; this crate checks a configuration, builds its
//! workloads and refuses a run whose memory would pass the limit, before any run starts.
//!
//! The configurations are serde types, so a study can be written down and run again.
//! [`load_config`] reads the `[array]`/`[scheme]` TOML file the command line takes; its
//! errors name the file, line and key.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_array_sim::{common_span_bytes, oltp_workload_with, run_array, ArrayConfig, ArrayRun, CompareRow, DiskModel, Load, OltpSkew};
use tierlab_config::{field_error, ConfigError, FieldError};
use tierlab_raid::Geometry;
use tierlab_trace::ReadOptions;
use tierlab_workload::{Arrival, Workload, WorkloadSpec};

/// The OLTP workload's default length in hours (the cap of a measured run).
pub const DEFAULT_HOURS: f64 = 48.0;

/// The OLTP loads a comparison runs when none are listed, requests/s.
pub const DEFAULT_LOADS_IOPS: [f64; 5] = [7.0, 14.0, 140.0, 700.0, 1400.0];

/// The smallest NVRAM accepted (other than none).
pub const MIN_NVRAM_BYTES: u64 = 1 << 20;

/// The synthetic OLTP workload: its length, seed and skew.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Oltp {
    /// With the measurement layer, the most a run may take, warm-up included; with a
    /// fixed warm-up, the run's length.
    pub hours: f64,
    pub seed: u64,
    pub skew: OltpSkew,
}

impl Default for Oltp {
    fn default() -> Self {
        Oltp { hours: DEFAULT_HOURS, seed: 1, skew: OltpSkew::Zipf }
    }
}

/// What one simulated run replays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSource {
    /// The synthetic OLTP workload at `iops` requests/s.
    Oltp {
        iops: f64,
        #[serde(flatten)]
        oltp: Oltp,
    },
    /// A trace file, in any format `tierlab_trace` reads.
    Trace {
        path: PathBuf,
        #[serde(default)]
        read: ReadOptions,
    },
    /// A synthetic workload TOML file.
    File { path: PathBuf },
}

/// The loads a comparison runs each scheme at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Loads {
    /// The synthetic OLTP workload at each rate, requests/s; empty: [`DEFAULT_LOADS_IOPS`]
    /// (the memory check then counts no queue: the defaults are the paper's loads).
    Oltp {
        rates_iops: Vec<f64>,
        #[serde(flatten)]
        oltp: Oltp,
    },
    /// A trace replayed at each of `speeds` (its read options' speed replaced).
    Trace {
        path: PathBuf,
        #[serde(default)]
        read: ReadOptions,
        speeds: Vec<f64>,
    },
    /// One synthetic workload TOML file.
    File { path: PathBuf },
}

/// One scheme on one workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArraySimulateConfig {
    pub array: ArrayConfig,
    pub scheme: SchemeConfig,
    pub workload: WorkloadSource,
    /// Refuse a run whose memory would exceed this.
    pub memory_limit_bytes: u64,
}

/// Schemes across loads (or across R_limits at the first load), each against RAID-5.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayCompareConfig {
    pub array: ArrayConfig,
    /// The schemes in order; RAID-5 runs first at each load whether listed or not. The
    /// first one's settings are the reference's.
    pub schemes: Vec<SchemeConfig>,
    pub loads: Loads,
    /// Sweep the response-time goal instead of the load: every scheme at each of these
    /// R_limits (ms) at the first load.
    #[serde(default)]
    pub r_limits: Option<Vec<f64>>,
    pub memory_limit_bytes: u64,
}

/// What a comparison varied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Study {
    /// Schemes across loads: the loads' labels in order, and what they are.
    Loads { labels: Vec<String>, axis: String },
    /// Schemes across R_limits at one load.
    RLimits { load: String, limits: Vec<f64> },
}

/// A comparison's rows: each scheme at each load (RAID-5 first at each).
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct ArrayCompareReport {
    pub rows: Vec<CompareRow>,
}

impl ArrayCompareReport {
    /// What `cfg` varied, read off the rows' loads.
    pub fn study(&self, cfg: &ArrayCompareConfig) -> Study {
        let mut labels: Vec<String> = Vec::new();
        for r in &self.rows {
            if labels.last() != Some(&r.load) {
                labels.push(r.load.clone());
            }
        }
        match &cfg.r_limits {
            Some(limits) => Study::RLimits { load: labels.first().cloned().unwrap_or_default(), limits: limits.clone() },
            None => Study::Loads { labels, axis: cfg.loads.axis().to_string() },
        }
    }
}

impl Loads {
    /// What the loads are, for a chart's axis.
    pub fn axis(&self) -> &'static str {
        match self {
            Loads::Oltp { .. } => "load (requests/s)",
            Loads::Trace { .. } => "trace replay speed (×)",
            Loads::File { .. } => "workload",
        }
    }
}

impl ArrayCompareConfig {
    /// The runs the comparison makes (for a progress bar).
    pub fn runs(&self) -> usize {
        let limits = self.r_limits.as_ref().map_or(1, Vec::len);
        let loads = match (&self.r_limits, &self.loads) {
            (Some(_), _) | (None, Loads::File { .. }) => 1,
            (None, Loads::Oltp { rates_iops, .. }) => if rates_iops.is_empty() { DEFAULT_LOADS_IOPS.len() } else { rates_iops.len() },
            (None, Loads::Trace { speeds, .. }) => speeds.len(),
        };
        (1 + limits * self.schemes.iter().filter(|sc| sc.kind != SchemeKind::Raid5 || sc.guarantee).count()) * loads
    }
}

/// Why a study could not run. Each names the configuration field at fault first, in
/// backticks, where there is one; a configuration file's errors name its file, line and
/// key.
#[derive(Debug, thiserror::Error)]
pub enum ArrayStudyError {
    #[error(transparent)]
    File(#[from] ConfigError),
    #[error("cannot read {path}")]
    Read { path: String, source: std::io::Error },
    #[error("`{field}`: expected {what} > 0, found {found}")]
    NotPositive { field: &'static str, what: &'static str, found: f64 },
    #[error("`{field}`: expected at least one {what}")]
    Empty { field: &'static str, what: &'static str },
    #[error("`{field}`: expected {expected}, found {found}")]
    Field { field: &'static str, expected: &'static str, found: String },
    #[error("`array`: cannot build a {level} array of {disks} × {disk}: {message}")]
    Geometry { level: String, disks: usize, disk: String, message: String },
    #[error("an array of {disks} × {disk} ({per_disk_bytes:.0} bytes a disk, {queued_requests:.0} requests queued beyond what its disks serve) needs about {need_bytes:.0} bytes of memory, more than the limit of {limit_bytes}")]
    Memory { disks: usize, disk: String, per_disk_bytes: f64, queued_requests: f64, need_bytes: f64, limit_bytes: u64 },
    #[error("in {path}")]
    WorkloadFile { path: String, source: tierlab_workload::SpecError },
    #[error("the OLTP workload")]
    OltpWorkload(#[source] tierlab_workload::SpecError),
    /// The disk model or the array's span could not be had (before any run).
    #[error(transparent)]
    Model(anyhow::Error),
    /// A run failed.
    #[error(transparent)]
    Run(anyhow::Error),
}

type Result<T, E = ArrayStudyError> = std::result::Result<T, E>;

/// What a `[array]`/`[scheme]` configuration file holds.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSettings {
    pub array: ArrayConfig,
    pub scheme: SchemeConfig,
    /// Whether the file named the scheme (`[scheme] kind`).
    pub kind_from_file: bool,
}

/// The configuration file: both tables optional, every key checked.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    array: Option<ArrayConfig>,
    #[serde(default)]
    scheme: Option<SchemeConfig>,
}

/// A TOML file with an `[array]` and a `[scheme]` table, both optional; the scheme's
/// settings, the system the array sits in and the warm-up are checked, each error naming
/// the file, line and key.
pub fn load_config(path: &Path) -> Result<FileSettings> {
    let file: ConfigFile = tierlab_config::load_toml(path)?;
    let text = std::fs::read_to_string(path).map_err(|source| ArrayStudyError::Read { path: path.display().to_string(), source })?;
    let name = path.display().to_string();
    let kind_from_file = text
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("scheme").and_then(|s| s.as_table()).map(|s| s.contains_key("kind")))
        .unwrap_or(false);
    let scheme = file.scheme.unwrap_or_default();
    if let Err((key, expected)) = scheme.check() {
        return Err(field_error(&text, &name, FieldError::new(format!("scheme.{key}"), format!("expected {expected}"))).into());
    }
    if let Some(spec) = file.array.as_ref().and_then(|a| a.system.as_ref()) {
        let disks = file.array.as_ref().map_or(ArrayConfig::default().disks, |a| a.disks);
        if let Err(e) = spec.resolve_with_own_catalog(disks) {
            return Err(field_error(&text, &name, e.within("array.system")).into());
        }
    }
    if let Some(w) = file.array.as_ref().and_then(|a| a.warmup_s) {
        if !(w.is_finite() && w >= 0.0) {
            let e = FieldError::new("array.warmup_s", format!("expected a warm-up >= 0 s, found {w}"));
            return Err(field_error(&text, &name, e).into());
        }
    }
    Ok(FileSettings { array: file.array.unwrap_or_default(), scheme, kind_from_file })
}

/// The array's settings that no run can use: an NVRAM too small to hold a write (it
/// would hold it for ever), a negative destage age, no requests outstanding in closed
/// loop, a negative warm-up, a measurement target that is not a share.
pub fn check_array(array: &ArrayConfig) -> Result<()> {
    let field = |field, expected, found: String| Err(ArrayStudyError::Field { field, expected, found });
    if array.nvram_bytes > 0 && array.nvram_bytes < MIN_NVRAM_BYTES {
        return field("array.nvram_bytes", "0 (none) or at least 1 MiB", format!("{} bytes", array.nvram_bytes));
    }
    if !(array.nvram_max_age_s.is_finite() && array.nvram_max_age_s >= 0.0) {
        return field("array.nvram_max_age_s", "an age >= 0 s (0: destage only above the high watermark)", array.nvram_max_age_s.to_string());
    }
    if array.closed_depth == Some(0) {
        return field("array.closed_depth", "at least 1 request outstanding", "0".into());
    }
    if let Some(w) = array.warmup_s.filter(|w| !(w.is_finite() && *w >= 0.0)) {
        return field("array.warmup_s", "a warm-up >= 0 s", w.to_string());
    }
    if let Some(t) = array.measure.as_ref().map(|m| m.target_relative_half_width).filter(|t| !(t.is_finite() && *t > 0.0)) {
        return field("array.measure.target_relative_half_width", "a share > 0", t.to_string());
    }
    Ok(())
}

fn positive(v: f64, field: &'static str, what: &'static str) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(ArrayStudyError::NotPositive { field, what, found: v })
    }
}

/// Checks the array can be built and returns the span of the OLTP workload on it
/// (`tierlab_array_sim::common_span_bytes`).
pub fn oltp_span(array: &ArrayConfig, scheme: &SchemeConfig) -> Result<u64> {
    let model = DiskModel::from_catalog(&array.disk, array.power_profile.as_deref()).map_err(ArrayStudyError::Model)?;
    Geometry::new(array.level, array.disks, array.stripe_unit_bytes, model.capacity_bytes).map_err(|e| ArrayStudyError::Geometry {
        level: array.level.to_string(),
        disks: array.disks,
        disk: array.disk.clone(),
        message: e.to_string(),
    })?;
    common_span_bytes(array, scheme).map_err(ArrayStudyError::Model)
}

/// Refuses a run whose memory would exceed `limit_bytes`: each disk's model, the
/// per-block tables of the schemes that keep them (Hibernator's temperatures, PDC's
/// popularity order), and the requests an OLTP workload at `rates` for `hours` would
/// queue beyond what the disks can serve (none for a trace or a workload file).
fn check_memory(array: &ArrayConfig, kinds: &[SchemeKind], rates: &[f64], hours: f64, limit_bytes: u64) -> Result<()> {
    // Measured on the default array (bytes per stripe unit of a disk; per request queued).
    // A disk: 7.3 KiB (peak RSS of RAID-5 arrays of 1,000 and 4,000 disks without NVRAM,
    // 2026-11-29), counted twice over.
    const DISK_BYTES: f64 = 16.0 * 1024.0;
    const QUEUED_REQUEST_BYTES: f64 = 256.0;
    const BASE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;
    let per_unit = |k: &SchemeKind| match k {
        SchemeKind::Hibernator => 12.0,
        SchemeKind::PdcLd => 2.5,
        _ => 0.0,
    };
    let model = DiskModel::from_catalog(&array.disk, array.power_profile.as_deref()).map_err(ArrayStudyError::Model)?;
    let units = model.capacity_bytes as f64 / array.stripe_unit_bytes.max(1) as f64;
    let disks = array.disks as f64;
    let per_disk = DISK_BYTES + units * kinds.iter().map(per_unit).fold(0.0, f64::max);
    // What the disks can serve: one request per average seek and half a turn each.
    let rpm = model.speeds.iter().map(|l| l.rpm).max().unwrap_or(7200).max(1);
    let disk_iops = 1.0 / (model.average_seek_s + 30.0 / f64::from(rpm)).max(1e-6);
    let span_s = hours * 3600.0;
    let queued = rates.iter().map(|&r| (r - disks * disk_iops).max(0.0) * span_s).fold(0.0, f64::max);
    let need = BASE_BYTES + disks * per_disk + queued * QUEUED_REQUEST_BYTES;
    if !(need <= limit_bytes as f64) {
        return Err(ArrayStudyError::Memory {
            disks: array.disks,
            disk: array.disk.clone(),
            per_disk_bytes: per_disk,
            queued_requests: queued,
            need_bytes: need,
            limit_bytes,
        });
    }
    Ok(())
}

/// The OLTP workload at `iops` on `span` bytes, named with its skew.
fn oltp_spec(span: u64, iops: f64, o: &Oltp, iops_field: &'static str, hours_field: &'static str) -> Result<WorkloadSpec> {
    positive(iops, iops_field, "a rate")?;
    let hours = positive(o.hours, hours_field, "a duration")?;
    let mut spec = oltp_workload_with(span, iops, hours * 3600.0, o.seed, o.skew);
    spec.name = format!("{}-{}", spec.name, skew_name(o.skew));
    spec.validate().map_err(ArrayStudyError::OltpWorkload)?;
    Ok(spec)
}

/// A skew's name, as its configuration spells it.
pub fn skew_name(skew: OltpSkew) -> &'static str {
    match skew {
        OltpSkew::Zipf => "zipf",
        OltpSkew::HotCold => "hot-cold",
    }
}

/// A synthetic workload file, checked; with its rate when it has one.
fn workload_file(path: &Path) -> Result<(WorkloadSpec, Option<f64>)> {
    let spec: WorkloadSpec = tierlab_config::load_toml(path)?;
    spec.validate().map_err(|source| ArrayStudyError::WorkloadFile { path: path.display().to_string(), source })?;
    let iops = match spec.arrival {
        Arrival::Poisson { iops } | Arrival::Fixed { iops } => Some(iops),
        Arrival::Back2back => None,
    };
    Ok((spec, iops))
}

/// Runs one scheme on one workload; `progress` hears the requests done.
pub fn simulate(cfg: &ArraySimulateConfig, progress: &mut dyn FnMut(u64)) -> Result<ArrayRun> {
    check_array(&cfg.array)?;
    // The array is checked first, so that an impossible one is reported as such.
    let span = oltp_span(&cfg.array, &cfg.scheme)?;
    let (rates, hours) = match &cfg.workload {
        WorkloadSource::Oltp { iops, oltp } => (vec![*iops], oltp.hours),
        _ => (Vec::new(), 0.0),
    };
    check_memory(&cfg.array, &[cfg.scheme.kind], &rates, hours, cfg.memory_limit_bytes)?;
    let workload = match &cfg.workload {
        WorkloadSource::Oltp { iops, oltp } => Workload::Synthetic(oltp_spec(span, *iops, oltp, "workload.iops", "workload.hours")?),
        WorkloadSource::Trace { path, read } => Workload::Trace { path: path.clone(), options: read.clone() },
        WorkloadSource::File { path } => Workload::Synthetic(workload_file(path)?.0),
    };
    run_array(&cfg.array, &cfg.scheme, &workload, progress).map_err(ArrayStudyError::Run)
}

/// Runs every scheme at every load (or at every R_limit at the first load), RAID-5 first
/// at each; `progress(done, total, label)` hears as runs finish.
pub fn compare(cfg: &ArrayCompareConfig, progress: &mut dyn FnMut(usize, usize, &str)) -> Result<ArrayCompareReport> {
    check_array(&cfg.array)?;
    let Some(first) = cfg.schemes.first() else {
        return Err(ArrayStudyError::Empty { field: "schemes", what: "scheme" });
    };
    // The array is checked first, so that an impossible one is reported as such.
    let span = oltp_span(&cfg.array, first)?;
    let kinds: Vec<SchemeKind> = cfg.schemes.iter().map(|sc| sc.kind).collect();
    let (rates, hours): (&[f64], f64) = match &cfg.loads {
        Loads::Oltp { rates_iops, oltp } => (rates_iops, oltp.hours),
        _ => (&[], 0.0),
    };
    check_memory(&cfg.array, &kinds, rates, hours, cfg.memory_limit_bytes)?;
    let mut loads = loads(&cfg.loads, span)?;
    let mut schemes = cfg.schemes.clone();
    if let Some(limits) = &cfg.r_limits {
        if limits.is_empty() {
            return Err(ArrayStudyError::Empty { field: "r_limits", what: "R_limit" });
        }
        for &l in limits {
            positive(l, "r_limits", "a response-time goal in ms")?;
        }
        loads.truncate(1);
        schemes = schemes.iter().flat_map(|sc| limits.iter().map(move |&l| SchemeConfig { r_limit_ms: l, ..sc.clone() })).collect();
    }
    let rows = tierlab_array_sim::compare(&cfg.array, &schemes, &loads, progress).map_err(ArrayStudyError::Run)?;
    Ok(ArrayCompareReport { rows })
}

/// The loads, each labelled.
fn loads(l: &Loads, span: u64) -> Result<Vec<Load>> {
    match l {
        Loads::Trace { path, read, speeds } => {
            if speeds.is_empty() {
                return Err(ArrayStudyError::Empty { field: "loads.speeds", what: "speed" });
            }
            let mut list = Vec::with_capacity(speeds.len());
            for &sp in speeds {
                positive(sp, "loads.speeds", "a replay speed")?;
                let options = ReadOptions { speed: sp, ..read.clone() };
                list.push(Load { label: format!("×{sp}"), iops: None, workload: Workload::Trace { path: path.clone(), options } });
            }
            Ok(list)
        }
        Loads::File { path } => {
            let (spec, iops) = workload_file(path)?;
            Ok(vec![Load { label: spec.name.clone(), iops, workload: Workload::Synthetic(spec) }])
        }
        Loads::Oltp { rates_iops, oltp } => {
            let rates = if rates_iops.is_empty() { &DEFAULT_LOADS_IOPS[..] } else { &rates_iops[..] };
            let mut list = Vec::with_capacity(rates.len());
            for &r in rates {
                positive(r, "loads.rates_iops", "a rate in requests/s")?;
                list.push(Load { label: format!("{r} req/s"), iops: Some(r), workload: Workload::Synthetic(oltp_spec(span, r, oltp, "loads.rates_iops", "loads.hours")?) });
            }
            Ok(list)
        }
    }
}

#[cfg(test)]
mod tests;
