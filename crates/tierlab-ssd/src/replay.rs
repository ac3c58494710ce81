//! A small open-loop replay driver: each request is issued at its trace time and its
//! response is completion minus arrival, so waiting for busy channels and planes shows
//! up as response time. It stands in for the simulation engine of `tierlab-sim` until
//! `compare_ftl` is switched to it; keep it small and isolated.

use crate::error::SsdError;
use crate::ssd::Ssd;
use hdrhistogram::Histogram;
use serde::Serialize;
use tierlab_sim::DeviceOp;
use tierlab_types::IoRequest;

/// Response-time summary of one replay.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ResponseStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub mean_ns: f64,
    pub mean_read_ns: f64,
    pub mean_write_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
}

/// Replay `requests` (time-ordered; earlier-than-previous times are served at the
/// previous time) against `ssd`; stop at the first request the drive refuses.
pub fn replay(
    ssd: &mut Ssd,
    requests: impl Iterator<Item = IoRequest>,
) -> Result<ResponseStats, SsdError> {
    let mut hist =
        Histogram::<u64>::new(3).map_err(|e| SsdError::spec("histogram", e.to_string()))?;
    let (mut sum, mut sum_r, mut sum_w) = (0u128, 0u128, 0u128);
    let mut s = ResponseStats::default();
    let mut last = 0u64;
    for r in requests {
        let now = r.time_ns.max(last);
        last = now;
        let op = DeviceOp {
            op: r.op,
            offset_bytes: r.offset_bytes,
            len_bytes: r.len_bytes,
            fua: false,
        };
        let done = ssd.try_service(now, &op)?;
        let resp = done - r.time_ns.min(now);
        // Auto-resizing histogram: recording only fails on allocation limits.
        let _ = hist.record(resp.max(1));
        s.requests += 1;
        sum += resp as u128;
        if r.op.is_read() {
            s.reads += 1;
            sum_r += resp as u128;
        } else {
            s.writes += 1;
            sum_w += resp as u128;
        }
        s.max_ns = s.max_ns.max(resp);
    }
    let mean = |total: u128, n: u64| if n == 0 { 0.0 } else { total as f64 / n as f64 };
    s.mean_ns = mean(sum, s.requests);
    s.mean_read_ns = mean(sum_r, s.reads);
    s.mean_write_ns = mean(sum_w, s.writes);
    if s.requests > 0 {
        s.p50_ns = hist.value_at_quantile(0.5);
        s.p99_ns = hist.value_at_quantile(0.99);
    }
    tierlab_sim::Device::finish(ssd, last);
    Ok(s)
}
