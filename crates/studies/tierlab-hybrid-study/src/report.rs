//! What `simulate` reports: the engine's report of one run with its HDD's wear, and for a
//! run measured at steady state how it was measured and its key figures with their 95 %
//! intervals.

use crate::compare::RunNote;
use crate::hdd_wear::HddWear;
use crate::run::{Config, Measured, Run};
use anyhow::Result;
use serde::Serialize;
use tierlab_engine::{Replay, SimReport};
use tierlab_measure::Interval;

/// One run's report. Serialises as the engine report's fields, then `hdd_wear`, then
/// (for a measured run only) `measurement`.
#[derive(Serialize)]
pub struct SimulateReport {
    #[serde(flatten)]
    pub report: SimReport,
    /// The HDD's wear, where the design has an HDD.
    pub hdd_wear: Option<HddWear>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measurement: Option<MeasuredSummary>,
}

impl SimulateReport {
    /// The report of a run of `config` replayed once.
    pub fn of_run(config: &Config, run: Run) -> Result<Self> {
        let hdd_wear = HddWear::of_report(&config.hdd, &run.report)?;
        Ok(SimulateReport { report: run.report, hdd_wear, measurement: None })
    }

    /// The report of a run of `config` measured at steady state: its statistics cover the
    /// measured part.
    pub fn of_measured(config: &Config, m: Measured) -> Result<Self> {
        let summary = MeasuredSummary::of(&m, matches!(config.replay, Replay::Closed { .. }));
        let hdd_wear = HddWear::of_report(&config.hdd, &m.run.report)?;
        Ok(SimulateReport { report: m.run.report, hdd_wear, measurement: Some(summary) })
    }
}

/// How a measured run went, and its key figures with their 95 % intervals.
#[derive(Clone, Debug, Serialize)]
pub struct MeasuredSummary {
    #[serde(flatten)]
    pub run: RunNote,
    pub warmup_batches: usize,
    pub throughput_iops: Interval,
    /// The load offered at the workload's own times (NaN, written `null`, in closed loop).
    pub offered_iops: f64,
    pub mean_ms: Interval,
    pub average_power_w: Interval,
}

impl MeasuredSummary {
    /// `m`'s summary; `closed`: replayed closed-loop, where no load is offered.
    pub fn of(m: &Measured, closed: bool) -> Self {
        let w = &m.window;
        MeasuredSummary {
            run: m.note(),
            warmup_batches: m.outcome.warmup_batches,
            throughput_iops: w.figure(|s| s.iops()),
            offered_iops: if closed { f64::NAN } else { w.total.offered_iops() },
            mean_ms: w.figure(|s| s.mean_ms()),
            average_power_w: w.figure(|s| s.power_w()),
        }
    }
}
