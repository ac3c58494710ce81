//! The measurement layer every study shares. A run is cut into batches of completions as
//! it goes ([`tierlab_engine::Observer`]); from them:
//!
//! - **Steady state, detected** ([`Measurement`]): the warm-up ends once MSER-5 places the
//!   initial transient of every tracked figure — response time (open loop) or throughput
//!   (closed loop), power, and the study's own counters per request (a cache's hits, a
//!   tier's moves) — well inside the first half of the run so far, and the last two
//!   eighths of the run agree within 10 %. Warm-up only stops
//!   measuring; the run itself is the same. A warm-up that never ends is cut at a cap and
//!   said so.
//! - **Long enough, or said so**: the run goes on until every key figure's 95 % interval
//!   (batch means, [`Window`]) is within a target share of its mean, or a request cap.
//! - **Sustainable, or marked**: an open-loop run whose backlog grows with its arrivals
//!   stops early as one that cannot carry its load.
//! - **Intervals** ([`Interval`]): every figure of a window with its 95 % half-width, and
//!   [`Interval::ties`] for verdicts within the noise.
//!
//! The rules and their defaults are in `docs/measurement.md`.

pub mod cycles;
mod observer;
pub mod stats;
mod window;

pub use cycles::{CycleCounters, CycleMeasurement, CycleProbe, CycleProtocol, CycleSummary};
pub use observer::{CounterProbe, Measurement, Outcome, Protocol, SettledProbe, Stop, Summary};
pub use stats::Interval;
pub use window::{Sums, Window};

/// How every report names a design whose backlog grew with its arrivals: the load it was
/// offered and the most it completed (a closed-loop run's throughput, or what it served
/// while its queue grew).
pub fn cannot_sustain(offered_iops: f64, max_iops: f64) -> String {
    format!("cannot sustain {offered_iops:.1} IOPS (max {max_iops:.1})")
}
