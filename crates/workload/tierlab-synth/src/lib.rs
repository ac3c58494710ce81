//! A trace-like request stream built from a workload's published statistics, for
//! running tierlab's planning pipeline (classify → plan → simulate) where only a
//! paper's table of a trace survives, not the trace.
//!
//! HybridStore's capacity-planning research (Y. Kim, PhD dissertation, Penn State 2009)
//! publishes its workloads as footprint, hot and cold GB, mean bandwidth or inter-arrival
//! time, mean request size, read share and sequentiality (Tables 4.3 and 5.3). Those rows
//! ship as statistics files under `catalog/workloads/` ([`builtin`], schema in that
//! folder's README); [`WorkloadStats::load`] reads others with file/line/key errors.
//!
//! [`Synth`] turns a file, a seed and an arrival-rate scale into an iterator of
//! [`tierlab_types::IoRequest`] in time order, deterministic from the seed, in constant
//! memory whatever the stream's length or footprint. It is made so that
//! `tierlab-classes` with its default rules (1 MiB records; hot = two or more requests in
//! one aligned second) finds the file's hot GB, its cold GB as cold plus untouched
//! records, and its bandwidth, request size, read share and sequentiality:
//! - every hot record gets a burst of two or more requests inside one second;
//! - cold records are visited in a permutation order, once each as far as the request
//!   budget reaches (never twice in one second), the footprint's highest record first;
//! - request sizes follow a law with the file's mean in 512-byte sectors, and no
//!   request crosses a record;
//! - reads and sequential requests are placed with exact counts.
//!
//! Where the statistics cannot all hold in the duration (a hot GB needing more requests
//! than the rate gives), [`Plan`] says which target falls short, by how much and what to
//! change, and the stream is the closest one. [`evaluate`] classifies a stream and
//! returns target-versus-achieved rows ([`ComparisonRow`]).

mod measure;
mod perm;
mod plan;
mod rate;
mod sizes;
mod stats;
mod synth;

pub use measure::{classify, compare, evaluate, Achieved, ComparisonRow, Evaluation, StreamStats};
pub use plan::{plan, Infeasible, Plan, Shortfall, SynthOptions, MAX_STREAM_REQUESTS};
pub use rate::RateRegions;
pub use stats::{
    builtin, builtin_files, builtin_ids, Targets, WorkloadStats, ESTIMABLE_KEYS, GB_TOLERANCE,
    RECORDS_PER_GB, RECORD_BYTES,
};
pub use synth::Synth;

use tierlab_config::FieldError;

/// Why a stream cannot be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SynthError {
    /// Statistics built in code that a file would have been refused for.
    #[error("workload statistics: {0}")]
    Stats(FieldError),
    #[error("rate scale: expected a finite multiplier above 0 and at most 1e6, found {0}")]
    RateScale(f64),
    #[error("the stream would hold {0:.3e} requests, more than {max:.0e}: lower the rate scale or the duration", max = MAX_STREAM_REQUESTS)]
    TooManyRequests(f64),
}
