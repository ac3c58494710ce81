//! A run's workload: a trace file or a synthetic workload, and the length of one pass of it.

use crate::{Arrival, WorkloadSpec};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use tierlab_trace::{ReadOptions, TraceReader};

/// Where requests come from.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A trace file in any format `tierlab_trace` reads, with its read options.
    Trace { path: PathBuf, options: ReadOptions },
    /// A synthetic workload (validated by the caller or by `generate`).
    Synthetic(WorkloadSpec),
}

/// The trace at `path` opened for reading, or an error naming it.
pub fn open_trace(path: &Path, options: &ReadOptions) -> Result<TraceReader> {
    tierlab_trace::open(path, options).with_context(|| format!("cannot read trace {}", path.display()))
}

/// One pass of a trace: how many requests it has and the time from its first arrival to
/// its last.
fn trace_pass(path: &Path, options: &ReadOptions) -> Result<(u64, u64)> {
    let (mut n, mut first, mut last) = (0u64, u64::MAX, 0u64);
    for r in open_trace(path, options)? {
        let r = r.with_context(|| format!("cannot read trace {}", path.display()))?;
        n += 1;
        first = first.min(r.time_ns);
        last = last.max(r.time_ns);
    }
    Ok((n, last.saturating_sub(first.min(last))))
}

/// One pass of `workload` at its own arrival times: its requests and its length in
/// seconds, with one mean gap between arrivals added (what one of a cost model's α runs
/// stands for). The length is `None` for a workload without arrival times (back to back).
pub fn pass_of(workload: &Workload) -> Result<(u64, Option<f64>)> {
    Ok(match workload {
        Workload::Synthetic(spec) => match spec.arrival {
            Arrival::Poisson { iops } | Arrival::Fixed { iops } => (spec.requests, Some(spec.requests as f64 / iops)),
            Arrival::Back2back => (spec.requests, None),
        },
        Workload::Trace { path, options } => {
            let (n, span_ns) = trace_pass(path, options)?;
            (n, crate::pass_length_ns(n, 0, span_ns).map(|ns| ns as f64 / 1e9))
        }
    })
}

/// The length of one pass of `workload` at its own arrival times ([`pass_of`]).
pub fn pass_seconds(workload: &Workload) -> Result<Option<f64>> {
    Ok(pass_of(workload)?.1)
}
