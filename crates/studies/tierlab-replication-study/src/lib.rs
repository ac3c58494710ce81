//! Power-aware replication studied as a library: a typed configuration in, a typed report
//! out, the same for the command line, Python and tests.
//!
//! - [`run`]: a primary and its secondary under conventional replication and the chosen
//!   schemes, each scheme's saving against conventional replication.
//! - [`sweep`]: every combination of windows, RTOs, TPC-C warehouse counts and standby
//!   levels, each scheme against conventional replication of the same workload (run once
//!   per workload, with its pooled variant when asked).
//! - [`plan()`] and [`grid`]: the batch planner and its analytic power model without
//!   simulation, for one speed-up and RTO or over the paper's grid.
//! - [`write_log`]: an update stream written to a log file that a run replays.
//!
//! The simulations are `tierlab_replication_sim`'s; the batch formulas and the analytic
//! model `tierlab_update_log`'s.

mod log;
mod plan;
mod run;

pub use log::{write_log, LogConfig, LogReport, LogSource, WriteLogError};
pub use plan::{grid, plan, DriveChoice, GridCell, GridConfig, GridReport, PlanConfig, PlanDisk, PlanReport, PlanStudyError, StrictAlternative, PAPER_RATIOS, PAPER_RTOS_S};
pub use run::{run, RunConfig, RunReport};

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use tierlab_replication_sim::{data_standby, run_replication, ReplicationConfig, ReplicationRun, Scheme, SchemeRow, SourceSpec};

/// What a sweep varies, over the settings every point starts from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfig {
    /// The settings every point starts from.
    pub base: ReplicationConfig,
    pub windows_bytes: Vec<u64>,
    pub rtos_s: Vec<f64>,
    /// TPC-C warehouse counts; `None` runs the base's source as it is.
    pub warehouses: Vec<Option<u32>>,
    /// Standby levels of the data volume; `None` is the base's (its profile's deepest
    /// unless it names one).
    pub standby_levels: Vec<Option<String>>,
    /// The schemes compared with conventional replication, which runs once per workload.
    pub schemes: Vec<Scheme>,
    /// Also run `conventional-pooled` per workload and state each saving against it.
    pub with_pooled: bool,
}

impl SweepConfig {
    /// The points' lists checked: none empty, and a scheme to compare besides the
    /// baselines. The error names the list.
    pub fn validate(&self) -> Result<()> {
        if self.windows_bytes.is_empty() {
            bail!("`windows_bytes`: expected at least one window size");
        }
        if self.rtos_s.is_empty() {
            bail!("`rtos_s`: expected at least one RTO");
        }
        if self.warehouses.is_empty() {
            bail!("`warehouses`: expected at least one warehouse count");
        }
        if self.standby_levels.is_empty() {
            bail!("`standby_levels`: expected at least one level");
        }
        if self.schemes.iter().all(|&s| is_baseline(s)) {
            bail!("`schemes`: conventional replication is the reference a sweep runs anyway; name at least one other scheme");
        }
        Ok(())
    }

    /// The configuration of one point.
    pub fn point(&self, warehouses: Option<u32>, standby: &Option<String>, window_bytes: u64, rto_s: f64) -> ReplicationConfig {
        let mut cfg = self.base.clone();
        if let (Some(w), SourceSpec::Tpcc(t)) = (warehouses, &mut cfg.source) {
            t.warehouses = w;
        }
        cfg.standby = standby.clone();
        cfg.window_bytes = window_bytes;
        cfg.rto_s = rto_s;
        cfg
    }

    /// Every point's configuration, in the order the sweep runs them.
    pub fn points(&self) -> impl Iterator<Item = ReplicationConfig> + '_ {
        self.warehouses.iter().flat_map(move |&w| {
            self.standby_levels.iter().flat_map(move |level| {
                self.windows_bytes.iter().flat_map(move |&window| self.rtos_s.iter().map(move |&rto| self.point(w, level, window, rto)))
            })
        })
    }

    /// The schemes run at each point (the baselines run once per workload).
    pub fn compared(&self) -> Vec<Scheme> {
        self.schemes.iter().copied().filter(|&s| !is_baseline(s)).collect()
    }

    /// How many runs the sweep makes.
    pub fn runs(&self) -> usize {
        let per_workload = self.standby_levels.len() * self.windows_bytes.len() * self.rtos_s.len() * self.compared().len();
        self.warehouses.len() * (1 + usize::from(self.with_pooled) + per_workload)
    }
}

fn is_baseline(s: Scheme) -> bool {
    matches!(s, Scheme::Conventional | Scheme::ConventionalPooled)
}

/// Conventional replication of one workload: the reference of every point that has it.
#[derive(Clone, Debug, Serialize)]
pub struct Baseline {
    pub workload: String,
    pub warehouses: Option<u32>,
    /// The conventional run's mean data-disk utilisation.
    pub u: f64,
    pub run: ReplicationRun,
    /// The pooled baseline of the same workload, when `conventional-pooled` is listed.
    pub pooled: Option<ReplicationRun>,
}

/// One scheme at one point of the sweep.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    pub workload: String,
    pub warehouses: Option<u32>,
    pub standby: String,
    pub window_bytes: u64,
    pub rto_s: f64,
    pub scheme: Scheme,
    /// The data volume never slept (a deferring scheme): why.
    pub infeasible: Option<String>,
    pub row: SchemeRow,
}

/// What a sweep ran and found.
#[derive(Clone, Debug, Serialize)]
pub struct SweepReport {
    /// The settings every point starts from.
    pub config: ReplicationConfig,
    pub windows_bytes: Vec<u64>,
    pub rtos_s: Vec<f64>,
    pub warehouses: Vec<Option<u32>>,
    /// The standby levels the data volume slept in, by name.
    pub standby_levels: Vec<String>,
    pub schemes: Vec<Scheme>,
    pub baselines: Vec<Baseline>,
    pub points: Vec<SweepPoint>,
}

/// Run the sweep `cfg`: per workload its baselines, then every point with every compared
/// scheme. `progress` hears, before each run, what it is and how many runs are done.
pub fn sweep(cfg: &SweepConfig, progress: &mut dyn FnMut(&str, usize)) -> Result<SweepReport> {
    cfg.validate()?;
    let schemes = cfg.compared();
    let mut standby_levels = Vec::new();
    for &w in &cfg.warehouses {
        for level in &cfg.standby_levels {
            let name = data_standby(&cfg.point(w, level, cfg.windows_bytes[0], cfg.rtos_s[0]))?.level;
            if !standby_levels.contains(&name) {
                standby_levels.push(name);
            }
        }
    }
    let mut done = 0;
    let mut run = |point: &ReplicationConfig, scheme: Scheme, label: String| -> Result<ReplicationRun> {
        progress(&label, done);
        let r = run_replication(point, scheme, &mut |_| {})?;
        done += 1;
        Ok(r)
    };
    let mut baselines = Vec::new();
    let mut points = Vec::new();
    for &w in &cfg.warehouses {
        let base_cfg = cfg.point(w, &None, cfg.windows_bytes[0], cfg.rtos_s[0]);
        let workload = base_cfg.source.label();
        let base = run(&base_cfg, Scheme::Conventional, format!("{workload}: conventional"))?;
        let pooled = match cfg.with_pooled {
            true => Some(run(&base_cfg, Scheme::ConventionalPooled, format!("{workload}: conventional-pooled"))?),
            false => None,
        };
        for level in &cfg.standby_levels {
            for &window in &cfg.windows_bytes {
                for &rto in &cfg.rtos_s {
                    let point = cfg.point(w, level, window, rto);
                    for &scheme in &schemes {
                        let r = run(&point, scheme, format!("{workload}: {} at {} MiB, RTO {rto} s", scheme.name(), window as f64 / (1 << 20) as f64))?;
                        let row = SchemeRow::against(r, &base, point.data_disk_share);
                        let row = match &pooled {
                            Some(p) => row.with_pooled(p, point.data_disk_share),
                            None => row,
                        };
                        points.push(SweepPoint {
                            workload: workload.clone(),
                            warehouses: w,
                            standby: row.run.standby.level.clone(),
                            window_bytes: window,
                            rto_s: rto,
                            scheme,
                            infeasible: never_slept(&row.run),
                            row,
                        });
                    }
                }
            }
        }
        baselines.push(Baseline { workload, warehouses: w, u: base.data_utilisation, run: base, pooled });
    }
    Ok(SweepReport {
        config: cfg.base.clone(),
        windows_bytes: cfg.windows_bytes.clone(),
        rtos_s: cfg.rtos_s.clone(),
        warehouses: cfg.warehouses.clone(),
        standby_levels,
        schemes,
        baselines,
        points,
    })
}

/// Whether the data volume never entered standby in a run of a deferring scheme, and why.
pub fn never_slept(run: &ReplicationRun) -> Option<String> {
    let defers = matches!(run.scheme, Scheme::Proposed | Scheme::DeferredOnly);
    let level = &run.standby.level;
    let in_standby = |name: &str| name == level || name.strip_suffix(level.as_str()).is_some_and(|p| p.ends_with('_'));
    let slept = run
        .disks
        .iter()
        .any(|d| d.role == "data" && (d.start_stop_cycles > 0.0 || d.states.iter().any(|(name, time_s, _)| *time_s > 0.0 && in_standby(name))));
    (defers && !slept).then(|| run.policy.stayed_up_because.clone().unwrap_or_else(|| "the data volume never slept".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SweepConfig {
        SweepConfig {
            base: ReplicationConfig::default(),
            windows_bytes: vec![32 << 20, 512 << 20],
            rtos_s: vec![30.0, 100.0, 300.0],
            warehouses: vec![Some(16), Some(160)],
            standby_levels: vec![None],
            schemes: vec![Scheme::Conventional, Scheme::Proposed, Scheme::DeferredOnly],
            with_pooled: true,
        }
    }

    #[test]
    fn a_sweep_counts_its_runs_and_lays_each_value_over_the_base() {
        let c = config();
        assert_eq!(c.compared(), [Scheme::Proposed, Scheme::DeferredOnly]);
        assert_eq!(c.runs(), 2 * (2 + 2 * 3 * 2));
        let points: Vec<ReplicationConfig> = c.points().collect();
        assert_eq!(points.len(), 2 * 2 * 3);
        let last = points.last().unwrap();
        assert_eq!((last.window_bytes, last.rto_s), (512 << 20, 300.0));
        match &last.source {
            SourceSpec::Tpcc(t) => assert_eq!(t.warehouses, 160),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn empty_lists_and_baselines_alone_are_refused_naming_the_list() {
        let e = SweepConfig { rtos_s: vec![], ..config() }.validate().unwrap_err().to_string();
        assert!(e.starts_with("`rtos_s`"), "{e}");
        let e = SweepConfig { schemes: vec![Scheme::Conventional, Scheme::ConventionalPooled], ..config() }.validate().unwrap_err().to_string();
        assert!(e.starts_with("`schemes`"), "{e}");
    }

    #[test]
    fn a_sweep_configuration_round_trips_through_json() {
        let c = config();
        let back: SweepConfig = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
    }
}
