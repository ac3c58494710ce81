//! Replaying requests on one SSD through the simulation engine (`tierlab-engine`), open loop:
//! each request arrives at its trace time; the engine queues what the drive cannot take
//! yet (more than one operation per plane), so a response splits into time queued in the
//! host and time in the device (which includes waiting for busy channels and planes).

use crate::error::SsdError;
use crate::ssd::Ssd;
use serde::Serialize;
use tierlab_report::LatencySummary;
use tierlab_engine::{Direct, Replay, SchedulerKind, SimError, Simulation};
use tierlab_types::IoRequest;

/// Response-time summary of one replay.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ResponseStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// System response time: queueing plus device time.
    pub mean_ns: f64,
    pub mean_read_ns: f64,
    pub mean_write_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    /// Time waiting in the host queue before the drive took the request.
    pub queue: LatencySummary,
    /// Time from the drive taking the request to its completion.
    pub device: LatencySummary,
}

/// Replay `requests` (time-ordered) against `ssd`, which the caller keeps; stop with the
/// first request the drive refuses.
pub fn replay(ssd: &mut Ssd, requests: impl Iterator<Item = IoRequest>) -> Result<ResponseStats, SsdError> {
    let ms_to_ns = |ms: f64| (ms * 1e6).round() as u64;
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(&mut *ssd));
    let r = sim.run(requests.map(Ok::<_, std::convert::Infallible>), Replay::Open, &mut Direct::default(), &mut |_| {});
    let r = match r {
        Ok(r) => r,
        Err(SimError::OutOfRange { offset_bytes, len_bytes, capacity_bytes, .. }) => {
            return Err(SsdError::OutOfRange { offset_bytes, len_bytes, capacity_bytes })
        }
        Err(e) => return Err(SsdError::spec("replay", e.to_string())),
    };
    if let Some(e) = ssd.take_refusal() {
        return Err(e);
    }
    let d = r.devices.first().cloned();
    Ok(ResponseStats {
        requests: r.requests,
        reads: r.reads,
        writes: r.writes,
        mean_ns: r.response_time.mean_ms * 1e6,
        mean_read_ns: r.read_response_time.mean_ms * 1e6,
        mean_write_ns: r.write_response_time.mean_ms * 1e6,
        p50_ns: ms_to_ns(r.response_time.p50_ms),
        p99_ns: ms_to_ns(r.response_time.p99_ms),
        max_ns: ms_to_ns(r.response_time.max_ms),
        queue: d.as_ref().and_then(|d| d.queue_time.clone()).unwrap_or_default(),
        device: d.and_then(|d| d.service_time).unwrap_or_default(),
    })
}
