//! Accounting helpers shared by every report: a latency histogram with its summary, a
//! plain-text table renderer for people, and the process's own CPU time and peak memory
//! ([`process`], for benchmarks).

pub mod process;
mod format;
mod table;
pub use format::{csv_field, with_interval};
pub use table::Table;

use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency histogram in nanoseconds (HDR, 3 significant digits: every recorded value is
/// kept to within 0.1 %; memory is bounded, independent of how many values are recorded).
///
/// Recording is on the simulator's hot path (several values per request), so it is a
/// plain increment into an array laid out like hdrhistogram's (lowest value 1 ns, 2048
/// sub-buckets per power of two). The figures come from an hdrhistogram built from the
/// array when they are asked for: each bucket's count recorded at the bucket's lowest
/// value lands in the same bucket, so quantiles and maximum are hdrhistogram's own.
#[derive(Clone, Debug, Default)]
pub struct LatencyHistogram {
    /// Counts by HDR bucket index (grown on demand: at most 56,320 entries, for `u64::MAX`).
    counts: Vec<u64>,
    count: u64,
    sum_ns: u128,
}

/// log2 of the sub-buckets per power of two: 2048 keeps 3 significant digits.
const SUB_BUCKET_BITS: u32 = 11;
const HALF_BITS: u32 = SUB_BUCKET_BITS - 1;
const HALF_COUNT: u64 = 1 << HALF_BITS;
/// The HDR bucket index of `value` (≥ 1): values below 2048 have their own bucket, larger
/// ones share one per 1/1024 of their power of two.
const fn index_of(value: u64) -> usize {
    let magnitude = 64 - SUB_BUCKET_BITS - (value | ((1 << SUB_BUCKET_BITS) - 1)).leading_zeros();
    let sub = value >> magnitude;
    (((magnitude as u64 + 1) << HALF_BITS) + sub - HALF_COUNT) as usize
}

/// The lowest value of bucket `index` (the inverse of [`index_of`] on bucket bounds).
fn lowest_value(index: usize) -> u64 {
    let sub = (index as u64 & (HALF_COUNT - 1)) + HALF_COUNT;
    match (index >> HALF_BITS).checked_sub(1) {
        None => sub - HALF_COUNT,
        Some(magnitude) => sub << magnitude,
    }
}

impl LatencyHistogram {
    /// An empty histogram; its buckets grow to the largest value recorded (a device that
    /// only ever sees milliseconds holds a few hundred KiB at most).
    pub fn new() -> Self {
        LatencyHistogram { counts: Vec::new(), count: 0, sum_ns: 0 }
    }

    pub fn record(&mut self, value_ns: u64) {
        // HDR cannot hold 0: record it as the smallest bucket (1 ns); the mean stays exact.
        let i = index_of(value_ns.max(1));
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.count += 1;
        self.sum_ns += value_ns as u128;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_ns(&self) -> f64 {
        if self.count() == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count() as f64
        }
    }

    /// The hdrhistogram holding the same counts per bucket.
    fn hdr(&self) -> Histogram<u64> {
        // 1 ns .. ~1.2 hours without resizing; auto-resize keeps larger values exact too.
        let mut hist = Histogram::new_with_bounds(1, 1 << 42, 3).expect("valid static HDR bounds");
        hist.auto(true);
        for (i, &n) in self.counts.iter().enumerate().filter(|&(_, &n)| n > 0) {
            let _ = hist.record_n(lowest_value(i), n);
        }
        hist
    }

    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.hdr().value_at_quantile(q)
        }
    }

    pub fn max_ns(&self) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.hdr().max()
        }
    }

    pub fn merge(&mut self, other: &LatencyHistogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.count += other.count;
        self.sum_ns += other.sum_ns;
    }

    pub fn summary(&self) -> LatencySummary {
        if self.count() == 0 {
            return LatencySummary::default();
        }
        let hist = self.hdr();
        let ms = |ns: u64| ns as f64 / 1e6;
        LatencySummary {
            count: self.count(),
            mean_ms: self.mean_ns() / 1e6,
            p50_ms: ms(hist.value_at_quantile(0.50)),
            p90_ms: ms(hist.value_at_quantile(0.90)),
            p99_ms: ms(hist.value_at_quantile(0.99)),
            p999_ms: ms(hist.value_at_quantile(0.999)),
            max_ms: ms(hist.max()),
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

/// A number with thousands grouped by commas, to `decimals` places: 913,310.
pub fn grouped(v: f64, decimals: usize) -> String {
    let s = format!("{:.decimals$}", v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(i, f)| (i, f));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    let sign = if v < 0.0 && s.chars().any(|c| c.is_ascii_digit() && c != '0') { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{out}")
    } else {
        format!("{sign}{out}.{frac}")
    }
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

    #[test]
    fn bucket_indices_match_hdr_bounds() {
        assert_eq!(index_of(1), 1);
        assert_eq!(index_of(2047), 2047);
        assert_eq!(index_of(2048), 2048);
        assert_eq!(index_of(2049), 2048, "2048 and 2049 share a bucket");
        let max_index = index_of(u64::MAX);
        assert_eq!(max_index, 56319);
        for i in 1..=max_index {
            assert_eq!(index_of(lowest_value(i)), i);
        }
    }

    /// The same values straight into hdrhistogram, as the histogram did before.
    fn reference(values: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, 1 << 42, 3).expect("bounds");
        h.auto(true);
        for &v in values {
            h.record(v.max(1)).expect("auto-resize");
        }
        h
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Quantiles and maximum are exactly hdrhistogram's, for values of any size.
        #[test]
        fn figures_equal_plain_hdrhistogram(values in proptest::collection::vec(
            proptest::prop_oneof![0u64..5000, 0u64..1 << 40, proptest::num::u64::ANY], 1..200)) {
            let mut h = LatencyHistogram::new();
            let (left, right) = values.split_at(values.len() / 2);
            let mut other = LatencyHistogram::new();
            left.iter().for_each(|&v| h.record(v));
            right.iter().for_each(|&v| other.record(v));
            h.merge(&other);
            let r = reference(&values);
            proptest::prop_assert_eq!(h.count(), r.len());
            proptest::prop_assert_eq!(h.max_ns(), r.max());
            for q in [0.0, 0.5, 0.9, 0.99, 0.999, 1.0] {
                proptest::prop_assert_eq!(h.quantile_ns(q), r.value_at_quantile(q));
            }
        }
    }
}
