//! Hybrid SSD+HDD drives as a library: build a configuration (SSD-only, HDD-only, the
//! linear baseline "Mylinear", GreenDM tiering or caching), run it on a workload in the
//! simulator, and price the outcome in the four currencies — performance, energy,
//! endurance and dollars.
//!
//! The `tierlab` command line is a thin layer over this crate (argument parsing and
//! rendering only), so that other front ends — Python bindings, distributed sweeps — get
//! the same runs and the same numbers:
//!
//! - [`simulate`]: one [`Config`] on one [`Workload`] → a [`Run`] (the engine's report and
//!   the bytes of each device the drive uses).
//! - [`simulate_measured`]: the same, measured at steady state as a [`Protocol`] says.
//! - [`SimulateReport`]: a run's report with its HDD's wear and, measured, a
//!   [`MeasuredSummary`] (`tierlab simulate`'s report).
//! - [`run_config`]: one configuration measured and priced by a [`CostModel`] → one
//!   [`RunRow`], every figure with its 95 % interval.
//! - [`compare`]: every configuration of a [`Matrix`] → a [`CompareReport`].
//! - [`overview`]: the five designs and a verdict among those that carry the load.
//! - [`default_workload`]: the bundled default workload, its span shrunk to fit the
//!   drive a [`Config`] builds.
//!
//! Errors are `anyhow` errors whose messages say which input was wrong and what was
//! expected; nothing here panics on bad input.

mod compare;
mod default_workload;
mod drive;
mod hdd_wear;
mod matrix;
mod overview;
mod report;
mod run;

pub use compare::{compare, run_config, CompareReport, CostModel, FailedRow, HalfWidths, RunNote, RunRow, READ_EFFECT};
pub use default_workload::default_workload;
pub use drive::{build, Built, HybridParams, Mode};
pub use hdd_wear::{HddRatings, HddWear};
pub use matrix::{Matrix, MatrixEntry};
pub use overview::{overview, spin_down_at_break_even, Design, NotJudged, Overview};
pub use report::{MeasuredSummary, SimulateReport};
pub use run::{simulate, simulate_measured, Config, Measured, Run, Usage};
pub use tierlab_measure::Protocol;

#[cfg(test)]
mod tests;
