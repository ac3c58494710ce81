//! tierlab-ssd-datasheet: an SSD timed from the figures its data sheet publishes, for
//! drives whose NAND internals are unknown (most current ones) and for runs that need
//! SSD timing at the cost of a few arithmetic steps per request instead of a flash
//! translation layer's page operations (`tierlab-ssd` is the FlashSim-class model).
//!
//! The drive is `units` parallel command slots in front of one data path:
//!
//! - a request takes the slot that frees first and holds it for at least `hold_ns` of
//!   its direction, `units / iops` — so random 4 KiB requests at depth run at the data
//!   sheet's IOPS — and until it completes;
//! - its data crosses the shared path at the sequential bandwidth of its direction,
//!   after the transfers booked before it — so large requests, alone or together, run at
//!   the sequential bandwidth;
//! - it completes at the later of the QD1 latency (plus the transfer beyond the first
//!   4 KiB, which the latency already includes) after its start and the end of its
//!   transfer — so a lone 4 KiB request takes exactly the data sheet's latency.
//!
//! `units` is the smallest whole number of slots that reaches both IOPS figures at the
//! QD1 latencies: `ceil(iops × latency)` for the larger direction.
//!
//! Power: the idle figure all along, plus (active − idle) of a direction for the share of
//! the drive's full-load capacity each request uses (its slot time over `units`, or its
//! transfer time if longer). A drive kept at full load therefore draws the data sheet's
//! active power; an idle one its idle power. Wear is host bytes written against the rated
//! endurance (no erase counts: that needs the internals).
//!
//! Not modelled: garbage collection and write cliffs after an SLC cache fills (data
//! sheets give the post-cache rate for few drives), power states below idle, and reads
//! of never-written data being faster. Time is u64 nanoseconds; the model is exact
//! integer arithmetic, so runs are deterministic.

use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use thiserror::Error;
use tierlab_engine::{Device, DeviceOp, DeviceReport, StateEnergy};
use tierlab_types::{Op, NS_PER_S, SECONDS_PER_YEAR};

/// The request size data sheets quote latency and IOPS for.
const SMALL_BYTES: u64 = 4096;

/// A drive's data-sheet figures (catalog section `[datasheet]`). Bandwidths are decimal,
/// as data sheets give them (1 MB/s = 10^6 bytes/s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasheetSpec {
    /// One 4 KiB read at queue depth 1, issue to completion.
    pub read_latency_ns: u64,
    /// One 4 KiB write at queue depth 1.
    pub write_latency_ns: u64,
    /// Sustained sequential read bandwidth.
    pub read_bytes_per_s: u64,
    /// Sustained sequential write bandwidth.
    pub write_bytes_per_s: u64,
    /// Random 4 KiB reads per second at the data sheet's queue depth (usually 32).
    pub read_iops: u64,
    /// Random 4 KiB writes per second at the data sheet's queue depth.
    pub write_iops: u64,
    /// Average power while reading at full load.
    pub active_read_w: f64,
    /// Average power while writing at full load.
    pub active_write_w: f64,
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum DatasheetError {
    /// A figure is missing its meaning (zero, negative, absurd) or contradicts another.
    #[error("invalid data-sheet SSD: `{field}`: {reason}")]
    Invalid { field: String, reason: String },
    #[error("request at byte {offset_bytes} has `len_bytes` = 0; expected > 0")]
    EmptyRequest { offset_bytes: u64 },
    #[error("request at byte {offset_bytes} of {len_bytes} bytes ends beyond the device capacity `capacity_bytes` = {capacity_bytes}")]
    OutOfRange { offset_bytes: u64, len_bytes: u64, capacity_bytes: u64 },
}

fn invalid(field: &str, reason: impl Into<String>) -> DatasheetError {
    DatasheetError::Invalid { field: field.to_string(), reason: reason.into() }
}

/// At most this many command slots (a data sheet implying more is a typo).
const MAX_UNITS: u64 = 1 << 16;

impl DatasheetSpec {
    /// Check every figure; `idle_w` is the drive's idle power (from its catalog entry).
    pub fn validate(&self, idle_w: f64) -> Result<(), DatasheetError> {
        for (field, ns) in [("read_latency_ns", self.read_latency_ns), ("write_latency_ns", self.write_latency_ns)] {
            if ns == 0 || ns > NS_PER_S {
                return Err(invalid(field, format!("expected 1 ns to 1 s, found {ns}")));
            }
        }
        for (field, v) in [("read_bytes_per_s", self.read_bytes_per_s), ("write_bytes_per_s", self.write_bytes_per_s)] {
            if !(1_000..=1_000_000_000_000).contains(&v) {
                return Err(invalid(field, format!("expected 1 kB/s to 1 TB/s, found {v}")));
            }
        }
        for (field, iops, latency) in [("read_iops", self.read_iops, self.read_latency_ns), ("write_iops", self.write_iops, self.write_latency_ns)] {
            if iops == 0 || units_for(iops, latency) > MAX_UNITS {
                return Err(invalid(field, format!("expected 1 to {MAX_UNITS} requests in flight at the QD1 latency, found {iops} IOPS")));
            }
        }
        if !(idle_w.is_finite() && idle_w >= 0.0) {
            return Err(invalid("idle_w", format!("expected a finite power >= 0, found {idle_w}")));
        }
        for (field, w) in [("active_read_w", self.active_read_w), ("active_write_w", self.active_write_w)] {
            if !(w.is_finite() && w >= idle_w && w <= 1000.0) {
                return Err(invalid(field, format!("expected a power between the idle power ({idle_w} W) and 1000 W, found {w}")));
            }
        }
        Ok(())
    }

    /// Command slots: enough for both IOPS figures at the QD1 latencies.
    pub fn units(&self) -> u64 {
        units_for(self.read_iops, self.read_latency_ns).max(units_for(self.write_iops, self.write_latency_ns))
    }
}

/// Requests in flight that `iops` needs when each takes `latency_ns`, rounded up (>= 1).
fn units_for(iops: u64, latency_ns: u64) -> u64 {
    (u128::from(iops) * u128::from(latency_ns)).div_ceil(u128::from(NS_PER_S)).clamp(1, u128::from(u64::MAX)) as u64
}

/// `bytes` at `bytes_per_s`, in ns.
fn transfer_ns(bytes: u64, bytes_per_s: u64) -> u64 {
    (u128::from(bytes) * u128::from(NS_PER_S) / u128::from(bytes_per_s)).min(u128::from(u64::MAX / 4)) as u64
}

/// The figures of one direction, as the model uses them.
#[derive(Clone, Copy, Debug)]
struct Direction {
    latency_ns: u64,
    bytes_per_s: u64,
    /// Minimum slot time: `units / iops`.
    hold_ns: u64,
    /// Active power above idle.
    extra_w: f64,
}

/// What one direction did during the run.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    requests: u64,
    bytes: u64,
    /// Full-load-equivalent time: the sum of each request's share of the drive.
    busy_ns: u64,
    active_j: f64,
}

pub struct DatasheetSsd {
    name: String,
    capacity_bytes: u64,
    idle_w: f64,
    rated_write_bytes: Option<u64>,
    units: u64,
    /// Read, write.
    dirs: [Direction; 2],
    /// When each slot frees, earliest on top.
    slots: BinaryHeap<Reverse<u64>>,
    /// When the data path frees.
    path_free_ns: u64,
    tally: [Tally; 2],
    rejected: u64,
    start_ns: Option<u64>,
    end_ns: u64,
}

impl DatasheetSsd {
    /// An idle drive of `capacity_bytes` named `name` (the name prices and rated limits are
    /// looked up by), drawing `idle_w` when idle; `rated_write_bytes` is its rated
    /// endurance (TBW), for the lifetime figure.
    pub fn new(name: &str, capacity_bytes: u64, spec: &DatasheetSpec, idle_w: f64, rated_write_bytes: Option<u64>) -> Result<DatasheetSsd, DatasheetError> {
        spec.validate(idle_w)?;
        let units = spec.units();
        let dir = |latency_ns: u64, bytes_per_s: u64, iops: u64, active_w: f64| Direction {
            latency_ns,
            bytes_per_s,
            hold_ns: (u128::from(units) * u128::from(NS_PER_S) / u128::from(iops)) as u64,
            extra_w: active_w - idle_w,
        };
        Ok(DatasheetSsd {
            name: name.to_string(),
            capacity_bytes,
            idle_w,
            rated_write_bytes,
            units,
            dirs: [
                dir(spec.read_latency_ns, spec.read_bytes_per_s, spec.read_iops, spec.active_read_w),
                dir(spec.write_latency_ns, spec.write_bytes_per_s, spec.write_iops, spec.active_write_w),
            ],
            slots: (0..units).map(|_| Reverse(0)).collect(),
            path_free_ns: 0,
            tally: [Tally::default(); 2],
            rejected: 0,
            start_ns: None,
            end_ns: 0,
        })
    }

    /// Serve `op` issued at `now_ns`: its completion time, or why the drive refuses it.
    pub fn try_service(&mut self, now_ns: u64, op: &DeviceOp) -> Result<u64, DatasheetError> {
        if op.len_bytes == 0 {
            return Err(DatasheetError::EmptyRequest { offset_bytes: op.offset_bytes });
        }
        if op.offset_bytes.checked_add(op.len_bytes).is_none_or(|end| end > self.capacity_bytes) {
            return Err(DatasheetError::OutOfRange { offset_bytes: op.offset_bytes, len_bytes: op.len_bytes, capacity_bytes: self.capacity_bytes });
        }
        let i = match op.op {
            Op::Read => 0,
            Op::Write => 1,
        };
        let d = self.dirs[i];
        let mut slot = self.slots.peek_mut().expect("a drive has at least one slot");
        let start = now_ns.max(slot.0);
        let transfer = transfer_ns(op.len_bytes, d.bytes_per_s);
        let beyond_small = transfer - transfer_ns(op.len_bytes.min(SMALL_BYTES), d.bytes_per_s);
        self.path_free_ns = start.max(self.path_free_ns).saturating_add(transfer);
        let done = start.saturating_add(d.latency_ns).saturating_add(beyond_small).max(self.path_free_ns);
        let slot_free = done.max(start.saturating_add(d.hold_ns));
        slot.0 = slot_free;
        drop(slot);
        let share_ns = ((slot_free - start) / self.units).max(transfer);
        let t = &mut self.tally[i];
        t.requests += 1;
        t.bytes += op.len_bytes;
        t.busy_ns = t.busy_ns.saturating_add(share_ns);
        t.active_j += d.extra_w * share_ns as f64 / NS_PER_S as f64;
        self.start_ns.get_or_insert(now_ns);
        self.end_ns = self.end_ns.max(done);
        Ok(done)
    }

    fn elapsed_ns(&self) -> u64 {
        self.start_ns.map_or(0, |s| self.end_ns.saturating_sub(s))
    }
}

impl Device for DatasheetSsd {
    fn name(&self) -> &str {
        &self.name
    }
    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }
    fn max_in_flight(&self) -> usize {
        self.units as usize
    }
    /// A request the drive refuses (see `try_service`) completes at once and is counted
    /// in `rejected_requests`: the trait has no error channel.
    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        self.try_service(now_ns, op).unwrap_or_else(|_| {
            self.rejected += 1;
            now_ns
        })
    }
    fn finish(&mut self, end_ns: u64) {
        self.end_ns = self.end_ns.max(end_ns);
    }
    fn report(&self) -> DeviceReport {
        let elapsed_ns = self.elapsed_ns();
        let idle_j = self.idle_w * elapsed_ns as f64 / NS_PER_S as f64;
        let [r, w] = self.tally;
        let state = |name: &str, time_ns: u64, energy_j: f64| StateEnergy { state: name.into(), time_ns, energy_j, standby: false };
        let mut counters = BTreeMap::new();
        for (k, v) in [
            ("host_read_requests", r.requests),
            ("host_write_requests", w.requests),
            ("host_read_bytes", r.bytes),
            ("host_write_bytes", w.bytes),
            ("rejected_requests", self.rejected),
            ("parallel_units", self.units),
        ] {
            counters.insert(k.to_string(), v as f64);
        }
        let secs = elapsed_ns as f64 / NS_PER_S as f64;
        if let (Some(rated), true) = (self.rated_write_bytes, w.bytes > 0 && secs > 0.0) {
            counters.insert("lifetime_years_rated".into(), rated as f64 / (w.bytes as f64 / secs) / SECONDS_PER_YEAR);
        }
        DeviceReport {
            name: self.name.clone(),
            kind: "ssd".into(),
            energy_j: idle_j + r.active_j + w.active_j,
            states: vec![state("idle", elapsed_ns, idle_j), state("read", r.busy_ns, r.active_j), state("write", w.busy_ns, w.active_j)],
            counters,
        }
    }
}

#[cfg(test)]
mod tests;
