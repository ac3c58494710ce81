//! A run's measured window: its batches summed, cut into groups for batch means, and any
//! figure computed from those sums with its 95 % interval.

use crate::stats::{groups, interval, Interval};
use serde::Serialize;
use tierlab_engine::{Batch, BatchDevice};

/// Sums over a range of batches: what every figure of a window is computed from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Sums {
    pub seconds: f64,
    pub completed: f64,
    pub arrived: f64,
    /// Response times of the completed requests, summed, in seconds.
    pub response_s: f64,
    /// Per device: busy time, bytes, energy.
    pub devices: Vec<BatchDevice>,
    /// The study's own counters (a policy's hits, moves…), summed.
    pub counters: Vec<f64>,
}

impl Sums {
    fn add(&mut self, b: &Batch, counters: &[f64]) {
        self.seconds += b.duration_ns() as f64 / 1e9;
        self.completed += b.completed as f64;
        self.arrived += b.arrived as f64;
        self.response_s += b.response_ns / 1e9;
        if self.devices.len() < b.devices.len() {
            self.devices.resize(b.devices.len(), BatchDevice::default());
        }
        for (s, d) in self.devices.iter_mut().zip(&b.devices) {
            s.busy_ns += d.busy_ns;
            s.read_bytes += d.read_bytes;
            s.write_bytes += d.write_bytes;
            s.energy_j += d.energy_j;
        }
        if self.counters.len() < counters.len() {
            self.counters.resize(counters.len(), 0.0);
        }
        for (s, c) in self.counters.iter_mut().zip(counters) {
            *s += c;
        }
    }

    /// Completions per second.
    pub fn iops(&self) -> f64 {
        ratio(self.completed, self.seconds)
    }
    /// Arrivals per second: the load offered.
    pub fn offered_iops(&self) -> f64 {
        ratio(self.arrived, self.seconds)
    }
    /// Mean response time of the completed requests, ms.
    pub fn mean_ms(&self) -> f64 {
        ratio(self.response_s * 1e3, self.completed)
    }
    /// Average power of all devices, W.
    pub fn power_w(&self) -> f64 {
        ratio(self.devices.iter().map(|d| d.energy_j).sum(), self.seconds)
    }
    /// Share of the time device `i` was busy.
    pub fn utilisation(&self, i: usize) -> f64 {
        self.devices.get(i).map_or(0.0, |d| ratio(d.busy_ns as f64 / 1e9, self.seconds))
    }
    /// Counter `i` per second.
    pub fn counter_per_s(&self, i: usize) -> f64 {
        ratio(self.counters.get(i).copied().unwrap_or(0.0), self.seconds)
    }
    /// Counter `i` over counter `j` (a hit ratio from hits and accesses).
    pub fn counter_ratio(&self, i: usize, j: usize) -> f64 {
        ratio(self.counters.get(i).copied().unwrap_or(0.0), self.counters.get(j).copied().unwrap_or(0.0))
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// The measured window of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Window {
    /// Index of the window's first batch in the run.
    pub first_batch: usize,
    pub batches: usize,
    pub total: Sums,
    /// Consecutive groups of batches for batch means.
    #[serde(skip)]
    pub groups: Vec<Sums>,
}

impl Window {
    /// The window of `batches[first..]`; `counters[i]` are the study's counters for batch
    /// `i` (empty when it has none). Groups are cut so that their mean response times (open
    /// loop) or throughputs (closed loop) are nearly uncorrelated.
    pub fn new(batches: &[Batch], counters: &[Vec<f64>], first: usize, closed_loop: bool) -> Window {
        let first = first.min(batches.len());
        let measured = &batches[first..];
        let counters_of = |i: usize| counters.get(first + i).map_or(&[][..], |c| &c[..]);
        let sum = |r: std::ops::Range<usize>| {
            let mut s = Sums::default();
            for i in r {
                s.add(&measured[i], counters_of(i));
            }
            s
        };
        let key = |r: std::ops::Range<usize>| {
            let s = sum(r);
            if closed_loop {
                s.iops()
            } else {
                s.mean_ms()
            }
        };
        let cut = groups(measured.len(), &key);
        Window { first_batch: first, batches: measured.len(), total: sum(0..measured.len()), groups: cut.into_iter().map(sum).collect() }
    }

    /// `f` of the whole window, with the half-width of the 95 % interval of `f` over the
    /// groups (batch means).
    pub fn figure(&self, f: impl Fn(&Sums) -> f64) -> Interval {
        let values: Vec<f64> = self.groups.iter().map(&f).collect();
        let spread = interval(&values);
        Interval { mean: f(&self.total), half_width: spread.half_width, n: spread.n }
    }

    pub fn seconds(&self) -> f64 {
        self.total.seconds
    }
}
