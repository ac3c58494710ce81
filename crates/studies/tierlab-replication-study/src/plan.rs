//! The batch planner studied without simulation: the cycle length, apply time, cycles a
//! day, worst recovery and the analytic power saving of one apply speed-up and RTO on a
//! drive's standby level ([`plan`]), or over the paper's grid of speed-ups, RTOs and
//! standby levels ([`grid`]). The formulas are `tierlab_update_log`'s.

use anyhow::anyhow;
use serde::{Deserialize, Serialize};
use tierlab_replication_sim::{data_standby, DataStandby, ReplicationConfig};
use tierlab_update_log::{
    analytic_power, check_window, days_to_cycles, plan as batch_plan, AnalyticPower, BatchPlan, PlanError, PlanMode, PowerInputs, DEFAULT_DATA_FRACTION,
};

/// The paper's apply speed-ups: Table 3's three windows at 160 warehouses (inverted from
/// its batch intervals) and the largest speed-up it quotes.
pub const PAPER_RATIOS: [f64; 4] = [4.030, 9.5835, 20.4486, 49.3];
/// The RTOs of the paper's Figure 3.
pub const PAPER_RTOS_S: [f64; 4] = [30.0, 100.0, 300.0, 1000.0];

fn default_disk() -> String {
    ReplicationConfig::default().disk
}

/// Replication's: the paper's figures.
fn default_power_profile() -> Option<String> {
    ReplicationConfig::default().power_profile
}

fn default_rto_s() -> f64 {
    ReplicationConfig::default().rto_s
}

fn default_u() -> f64 {
    1.0
}

/// The drive of a plan: a catalog drive, its power profile and the standby level its data
/// volume sleeps in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveChoice {
    #[serde(default = "default_disk")]
    pub disk: String,
    /// `None`: the drive's own default profile.
    #[serde(default = "default_power_profile")]
    pub power_profile: Option<String>,
    /// `None`: the profile's deepest level (a plan) or every level (the grid).
    #[serde(default)]
    pub standby: Option<String>,
}

impl Default for DriveChoice {
    fn default() -> Self {
        DriveChoice { disk: default_disk(), power_profile: default_power_profile(), standby: None }
    }
}

impl DriveChoice {
    fn config(&self, standby: Option<String>) -> ReplicationConfig {
        ReplicationConfig { disk: self.disk.clone(), power_profile: self.power_profile.clone(), standby, ..ReplicationConfig::default() }
    }
}

/// One plan: a speed-up (r, or the rates whose ratio it is) and an RTO on a drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanConfig {
    #[serde(default)]
    pub drive: DriveChoice,
    /// The apply speed-up r = R_apl / R_gen; or give both rates.
    #[serde(default)]
    pub r: Option<f64>,
    #[serde(default)]
    pub r_gen_bytes_s: Option<f64>,
    #[serde(default)]
    pub r_apl_bytes_s: Option<f64>,
    #[serde(default = "default_rto_s")]
    pub rto_s: f64,
    #[serde(default)]
    pub mode: PlanMode,
    /// Check that one batch of log fits a log volume of this size.
    #[serde(default)]
    pub log_volume_bytes: Option<u64>,
    /// Check that a compaction window of this size fits the log volume.
    #[serde(default)]
    pub window_bytes: Option<u64>,
    /// The conventional secondary's data-disk utilisation, for the analytic power model.
    #[serde(default = "default_u")]
    pub u: f64,
}

impl Default for PlanConfig {
    fn default() -> Self {
        PlanConfig {
            drive: DriveChoice::default(),
            r: None,
            r_gen_bytes_s: None,
            r_apl_bytes_s: None,
            rto_s: default_rto_s(),
            mode: PlanMode::default(),
            log_volume_bytes: None,
            window_bytes: None,
            u: default_u(),
        }
    }
}

/// The paper's grid on a drive: [`PAPER_RATIOS`] × [`PAPER_RTOS_S`] × its standby levels
/// (the one the drive choice names, else every level of the profile).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridConfig {
    #[serde(default)]
    pub drive: DriveChoice,
    #[serde(default)]
    pub mode: PlanMode,
    #[serde(default = "default_u")]
    pub u: f64,
}

impl Default for GridConfig {
    fn default() -> Self {
        GridConfig { drive: DriveChoice::default(), mode: PlanMode::default(), u: default_u() }
    }
}

/// The drive a plan is for.
#[derive(Clone, Debug, Serialize)]
pub struct PlanDisk {
    pub disk: String,
    pub power_profile: Option<String>,
    /// Its rated cycles of the kind the standby level wears ("start_stop" or
    /// "load_unload"), when the catalog knows them.
    pub cycle_kind: String,
    pub rated_cycles: Option<u64>,
}

/// One plan: the batch formulas, the disk's limits and the analytic power model.
#[derive(Clone, Debug, Serialize)]
pub struct PlanReport {
    pub disk: PlanDisk,
    pub standby: DataStandby,
    pub r: f64,
    /// Only when given: without the rates, byte figures are not known.
    pub r_gen_bytes_s: Option<f64>,
    pub r_apl_bytes_s: Option<f64>,
    pub plan: BatchPlan,
    pub u_max_bytes: Option<f64>,
    pub batch_bytes: Option<f64>,
    pub days_to_rated_cycles: Option<f64>,
    pub log_volume_bytes: Option<u64>,
    pub window_bytes: Option<u64>,
    pub u: f64,
    pub log_disk_w: f64,
    pub data_fraction: f64,
    pub power: AnalyticPower,
    /// In paper mode, when its worst recovery exceeds the RTO: the strict plan of the
    /// same r and RTO, which does not.
    pub strict: Option<StrictAlternative>,
}

/// The strict plan beside a paper-mode plan that overruns the RTO.
#[derive(Clone, Debug, Serialize)]
pub struct StrictAlternative {
    pub t_wnd_s: f64,
    pub cycles_per_day: f64,
    pub worst_recovery_s: f64,
    pub saving_total: f64,
}

/// One cell of the grid.
#[derive(Clone, Debug, Serialize)]
pub struct GridCell {
    pub standby: String,
    pub r: f64,
    pub rto_s: f64,
    pub feasible: bool,
    pub reason: Option<String>,
    pub t_wnd_s: Option<f64>,
    pub cycles_per_day: Option<f64>,
    pub worst_recovery_s: Option<f64>,
    pub saving_total: Option<f64>,
    pub saving_data: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GridReport {
    pub disk: PlanDisk,
    pub mode: PlanMode,
    pub u: f64,
    pub standby: Vec<DataStandby>,
    pub cells: Vec<GridCell>,
}

/// Why a plan could not be made. A `Field` error names the configuration field at fault
/// first, in backticks.
#[derive(Debug, thiserror::Error)]
pub enum PlanStudyError {
    #[error("`{field}`: {message}")]
    Field { field: &'static str, message: String },
    /// Neither r nor both rates were given.
    #[error("`r`: give the speed-up r, or the rates r_gen_bytes_s and r_apl_bytes_s")]
    NoSpeed,
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl PlanStudyError {
    fn field(field: &'static str, message: impl ToString) -> Self {
        PlanStudyError::Field { field, message: message.to_string() }
    }
}

fn check_u(u: f64) -> Result<(), PlanStudyError> {
    if !(u.is_finite() && (0.0..=1.0).contains(&u)) {
        return Err(PlanStudyError::field("u", format!("expected a utilisation from 0 to 1, found {u}")));
    }
    Ok(())
}

/// A drive's standby levels in its profile's order, each with the kind of wear entering
/// it counts, and the drive's rated cycles of each kind.
struct DriveLevels {
    levels: Vec<(String, String)>,
    start_stop_cycles: Option<u64>,
    load_unload_cycles: Option<u64>,
}

fn drive_levels(cfg: &ReplicationConfig) -> anyhow::Result<DriveLevels> {
    let cat = tierlab_devices::catalog(None)?;
    let entry = cat.hdd(&cfg.disk)?;
    let profile = tierlab_devices::power_profile(entry, cfg.power_profile.as_deref())?
        .ok_or_else(|| anyhow!("drive `{}` has no power figures", cfg.disk))?;
    let levels = profile
        .spec
        .standby
        .iter()
        .map(|l| {
            let kind = serde_json::to_value(l.cycle).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            (l.name.clone(), kind)
        })
        .collect();
    Ok(DriveLevels { levels, start_stop_cycles: entry.start_stop_cycles, load_unload_cycles: entry.load_unload_cycles })
}

fn plan_disk(cfg: &ReplicationConfig, level: &str) -> anyhow::Result<PlanDisk> {
    let d = drive_levels(cfg)?;
    let kind = d.levels.iter().find(|(n, _)| n == level).map(|(_, k)| k.clone()).unwrap_or_default();
    let rated_cycles = match kind.as_str() {
        "start_stop" => d.start_stop_cycles,
        "load_unload" => d.load_unload_cycles,
        _ => None,
    };
    Ok(PlanDisk { disk: cfg.disk.clone(), power_profile: cfg.power_profile.clone(), cycle_kind: kind, rated_cycles })
}

fn power_inputs(standby: &DataStandby, r: f64, t_wnd_s: f64, u: f64) -> PowerInputs {
    PowerInputs {
        active_w: standby.active_w,
        idle_w: standby.idle_w,
        costs: standby.costs,
        r,
        t_wnd_s,
        u,
        log_disk_w: standby.idle_w,
        data_fraction: DEFAULT_DATA_FRACTION,
    }
}

fn power(standby: &DataStandby, r: f64, t_wnd_s: f64, u: f64) -> anyhow::Result<AnalyticPower> {
    analytic_power(&power_inputs(standby, r, t_wnd_s, u)).map_err(|e| anyhow!("the analytic power model: {e}"))
}

/// Plan one batch cycle as `cfg` says.
pub fn plan(cfg: &PlanConfig) -> Result<PlanReport, PlanStudyError> {
    check_u(cfg.u)?;
    let drive = cfg.drive.config(cfg.drive.standby.clone());
    let standby = data_standby(&drive)?;
    let rto = cfg.rto_s;
    if !(rto.is_finite() && rto > 0.0) {
        return Err(PlanStudyError::field("rto_s", format!("expected a positive number of seconds, found {rto}")));
    }
    let (r_gen, r_apl, r) = match (cfg.r, cfg.r_gen_bytes_s, cfg.r_apl_bytes_s) {
        (Some(r), _, _) => {
            if !r.is_finite() {
                return Err(PlanStudyError::field("r", format!("expected a number, found {r}")));
            }
            if r <= 1.0 {
                return Err(PlanStudyError::field("r", PlanError::RatioNotAboveOne { r }));
            }
            (None, None, r)
        }
        (None, Some(g), Some(p)) => (Some(g), Some(p), p / g),
        _ => return Err(PlanStudyError::NoSpeed),
    };
    let p = batch_plan(r_gen.unwrap_or(1.0), r_apl.unwrap_or(r), rto, &standby.costs, cfg.mode).map_err(|e| match &e {
        PlanError::RatioNotAboveOne { .. } => PlanStudyError::field(if cfg.r.is_some() { "r" } else { "r_gen_bytes_s" }, e),
        PlanError::RtoTooShort { .. } => PlanStudyError::field("rto_s", format!("{e} ({}, standby `{}`)", drive.disk, standby.level)),
        PlanError::OutOfRange { field: "t_rto_s", .. } | PlanError::NonFinite { field: "t_rto_s", .. } => PlanStudyError::field("rto_s", e),
        _ => PlanStudyError::Other(anyhow!("plan: {e}")),
    })?;
    if let Some(log) = cfg.log_volume_bytes {
        if let Some(w) = cfg.window_bytes {
            check_window(w, log).map_err(|e| PlanStudyError::field("window_bytes", e))?;
        }
        if r_gen.is_some() {
            p.check_log_volume(log)
                .map_err(|e| PlanStudyError::field("log_volume_bytes", format!("{e} (log generated over one cycle of {:.1} s)", p.t_wnd_s)))?;
        }
    }
    let disk = plan_disk(&drive, &standby.level)?;
    let power_w = power(&standby, p.r, p.t_wnd_s, cfg.u)?;
    let strict = if p.mode == PlanMode::Paper && p.worst_recovery_s > p.t_rto_s {
        match batch_plan(r_gen.unwrap_or(1.0), r_apl.unwrap_or(r), rto, &standby.costs, PlanMode::Strict) {
            Ok(q) => {
                let w = power(&standby, q.r, q.t_wnd_s, cfg.u)?;
                Some(StrictAlternative { t_wnd_s: q.t_wnd_s, cycles_per_day: q.cycles_per_day, worst_recovery_s: q.worst_recovery_s, saving_total: w.saving_total })
            }
            Err(_) => None,
        }
    } else {
        None
    };
    Ok(PlanReport {
        strict,
        days_to_rated_cycles: disk.rated_cycles.map(|c| days_to_cycles(c as f64, p.t_wnd_s)),
        disk,
        log_disk_w: standby.idle_w,
        standby,
        r: p.r,
        r_gen_bytes_s: r_gen,
        r_apl_bytes_s: r_apl,
        u_max_bytes: r_gen.map(|_| p.u_max_bytes),
        batch_bytes: r_gen.map(|_| p.batch_bytes),
        plan: p,
        log_volume_bytes: cfg.log_volume_bytes,
        window_bytes: cfg.window_bytes,
        u: cfg.u,
        data_fraction: DEFAULT_DATA_FRACTION,
        power: power_w,
    })
}

/// The paper's grid as `cfg` says: every cell planned, infeasible ones with why.
pub fn grid(cfg: &GridConfig) -> Result<GridReport, PlanStudyError> {
    check_u(cfg.u)?;
    let base = cfg.drive.config(None);
    let all_levels = drive_levels(&base)?.levels;
    let levels: Vec<String> = match &cfg.drive.standby {
        Some(l) => vec![l.clone()],
        None => all_levels.iter().map(|(n, _)| n.clone()).collect(),
    };
    if levels.is_empty() {
        return Err(anyhow!("drive `{}` has no standby level to plan for", base.disk).into());
    }
    let mut standby = Vec::new();
    let mut cells = Vec::new();
    for level in &levels {
        let sb = data_standby(&cfg.drive.config(Some(level.clone())))?;
        for &r in &PAPER_RATIOS {
            for &rto in &PAPER_RTOS_S {
                let cell = match batch_plan(1.0, r, rto, &sb.costs, cfg.mode) {
                    Ok(p) => {
                        let w = power(&sb, p.r, p.t_wnd_s, cfg.u)?;
                        GridCell {
                            standby: sb.level.clone(),
                            r,
                            rto_s: rto,
                            feasible: true,
                            reason: None,
                            t_wnd_s: Some(p.t_wnd_s),
                            cycles_per_day: Some(p.cycles_per_day),
                            worst_recovery_s: Some(p.worst_recovery_s),
                            saving_total: Some(w.saving_total),
                            saving_data: Some(w.saving_data),
                        }
                    }
                    Err(e) => GridCell {
                        standby: sb.level.clone(),
                        r,
                        rto_s: rto,
                        feasible: false,
                        reason: Some(e.to_string()),
                        t_wnd_s: None,
                        cycles_per_day: None,
                        worst_recovery_s: None,
                        saving_total: None,
                        saving_data: None,
                    },
                };
                cells.push(cell);
            }
        }
        standby.push(sb);
    }
    let disk = plan_disk(&base, &standby[0].level)?;
    Ok(GridReport { disk, mode: cfg.mode, u: cfg.u, standby, cells })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_round_trip_through_json() {
        let cfg = PlanConfig {
            r_gen_bytes_s: Some(1048576.0),
            r_apl_bytes_s: Some(20.0 * 1048576.0),
            log_volume_bytes: Some(4 << 30),
            window_bytes: Some(512 << 20),
            mode: PlanMode::Strict,
            u: 0.5,
            ..PlanConfig::default()
        };
        assert_eq!(serde_json::from_str::<PlanConfig>(&serde_json::to_string(&cfg).unwrap()).unwrap(), cfg);
        assert_eq!(serde_json::from_str::<PlanConfig>("{}").unwrap(), PlanConfig::default());
        assert!(serde_json::from_str::<PlanConfig>(r#"{"rto": 3}"#).is_err(), "unknown fields are refused");
        let grid = GridConfig { drive: DriveChoice { standby: Some("stopped".into()), ..DriveChoice::default() }, ..GridConfig::default() };
        assert_eq!(serde_json::from_str::<GridConfig>(&serde_json::to_string(&grid).unwrap()).unwrap(), grid);
        assert_eq!(serde_json::from_str::<GridConfig>("{}").unwrap(), GridConfig::default());
        assert_eq!(GridConfig::default().u, 1.0, "a conventional secondary kept busy, as the paper's");
    }

    fn field_of(e: PlanStudyError) -> &'static str {
        match e {
            PlanStudyError::Field { field, .. } => field,
            other => panic!("not a field error: {other}"),
        }
    }

    #[test]
    fn errors_name_the_field_at_fault() {
        let at = |c: PlanConfig| plan(&c).unwrap_err();
        assert_eq!(field_of(at(PlanConfig { r: Some(0.8), ..PlanConfig::default() })), "r");
        assert_eq!(field_of(at(PlanConfig { r: Some(20.0), rto_s: -1.0, ..PlanConfig::default() })), "rto_s");
        assert_eq!(field_of(at(PlanConfig { r: Some(20.0), rto_s: 30.0, ..PlanConfig::default() })), "rto_s");
        assert_eq!(field_of(at(PlanConfig { r: Some(20.0), u: 2.0, ..PlanConfig::default() })), "u");
        let window = PlanConfig { r: Some(20.0), log_volume_bytes: Some(1 << 20), window_bytes: Some(2 << 20), ..PlanConfig::default() };
        assert_eq!(field_of(at(window)), "window_bytes");
        let rates = PlanConfig { r_gen_bytes_s: Some(1048576.0), r_apl_bytes_s: Some(20.0 * 1048576.0), log_volume_bytes: Some(1 << 30), ..PlanConfig::default() };
        assert_eq!(field_of(at(rates)), "log_volume_bytes");
        assert!(matches!(at(PlanConfig::default()), PlanStudyError::NoSpeed));
        assert_eq!(field_of(grid(&GridConfig { u: -0.1, ..GridConfig::default() }).unwrap_err()), "u");
    }

    #[test]
    fn a_plan_follows_the_batch_formulas() {
        let r = plan(&PlanConfig { r: Some(20.4486), ..PlanConfig::default() }).unwrap();
        let p = &r.plan;
        assert!((p.t_apl_s * p.r - p.t_wnd_s).abs() < 1e-6 * p.t_wnd_s, "T_apl is 1/r of the cycle");
        assert!((p.t_apl_s + p.t_idle_s - p.t_wnd_s).abs() < 1e-6 * p.t_wnd_s);
        assert!(r.u_max_bytes.is_none() && r.batch_bytes.is_none(), "no byte figures without rates");
        assert!(r.power.saving_total > 0.0 && r.power.saving_total < 1.0);
        let strict = plan(&PlanConfig { r: Some(20.4486), mode: PlanMode::Strict, ..PlanConfig::default() }).unwrap();
        assert!(strict.plan.worst_recovery_s <= strict.plan.t_rto_s + 1e-9);
    }

    #[test]
    fn the_grid_has_every_cell_of_every_level() {
        let g = grid(&GridConfig::default()).unwrap();
        assert!(!g.standby.is_empty());
        assert_eq!(g.cells.len(), g.standby.len() * PAPER_RATIOS.len() * PAPER_RTOS_S.len());
        assert!(g.cells.iter().all(|c| c.feasible == c.reason.is_none() && c.feasible == c.t_wnd_s.is_some()));
        assert!(g.cells.iter().any(|c| c.feasible));
    }
}
