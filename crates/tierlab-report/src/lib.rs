//! Accounting helpers shared by every report: a latency histogram with its summary, and a
//! plain-text table renderer for people.

mod table;
pub use table::Table;

use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency histogram in nanoseconds (HDR, 3 significant digits: every recorded value is
/// kept to within 0.1 %; memory is fixed, independent of how many values are recorded).
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    sum_ns: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        // 1 ns .. ~1.8 hours without resizing; auto-resize keeps larger values exact too.
        let mut hist = Histogram::new_with_bounds(1, 1 << 42, 3).expect("valid static HDR bounds");
        hist.auto(true);
        LatencyHistogram { hist, sum_ns: 0 }
    }

    pub fn record(&mut self, value_ns: u64) {
        // HDR cannot hold 0: record it as the smallest bucket (1 ns); the mean stays exact.
        let _ = self.hist.record(value_ns.max(1));
        self.sum_ns += value_ns as u128;
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn mean_ns(&self) -> f64 {
        if self.count() == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count() as f64
        }
    }

    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.hist.value_at_quantile(q)
        }
    }

    pub fn max_ns(&self) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.hist.max()
        }
    }

    pub fn merge(&mut self, other: &LatencyHistogram) {
        let _ = self.hist.add(&other.hist);
        self.sum_ns += other.sum_ns;
    }

    pub fn summary(&self) -> LatencySummary {
        let ms = |ns: u64| ns as f64 / 1e6;
        LatencySummary {
            count: self.count(),
            mean_ms: self.mean_ns() / 1e6,
            p50_ms: ms(self.quantile_ns(0.50)),
            p90_ms: ms(self.quantile_ns(0.90)),
            p99_ms: ms(self.quantile_ns(0.99)),
            p999_ms: ms(self.quantile_ns(0.999)),
            max_ms: ms(self.max_ns()),
        }
    }
}

/// The figures people quote for a latency distribution, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

/// Format a quantity with a fixed number of significant decimals, trimming nothing: the
/// report text must be byte-stable for golden files.
pub fn fmt_f(value: f64, decimals: usize) -> String {
    format!("{value:.decimals$}")
}

/// Human-readable byte count with binary units (KiB, MiB, …).
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values() {
        let mut h = LatencyHistogram::new();
        for v in 1..=1000u64 {
            h.record(v * 1_000_000); // 1..1000 ms
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert!((s.mean_ms - 500.5).abs() < 1e-9, "mean is exact: {}", s.mean_ms);
        assert!((s.p50_ms - 500.0).abs() / 500.0 < 0.002, "p50 {}", s.p50_ms);
        assert!((s.p99_ms - 990.0).abs() / 990.0 < 0.002, "p99 {}", s.p99_ms);
        assert!((s.max_ms - 1000.0).abs() / 1000.0 < 0.002, "max {}", s.max_ms);
    }

    #[test]
    fn empty_histogram_reports_zeros() {
        let s = LatencyHistogram::new().summary();
        assert_eq!(s, LatencySummary::default());
    }

    #[test]
    fn zero_is_recorded_and_mean_stays_exact() {
        let mut h = LatencyHistogram::new();
        h.record(0);
        h.record(10);
        assert_eq!(h.count(), 2);
        assert_eq!(h.mean_ns(), 5.0);
    }

    #[test]
    fn merge_adds_counts_and_sums() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        a.record(100);
        b.record(300);
        a.merge(&b);
        assert_eq!(a.count(), 2);
        assert_eq!(a.mean_ns(), 200.0);
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(fmt_bytes(512), "512 B");
        assert_eq!(fmt_bytes(4096), "4.00 KiB");
        assert_eq!(fmt_bytes(3 * 1024 * 1024 * 1024), "3.00 GiB");
    }
}
