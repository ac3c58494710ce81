//! Data classes on hand-made traces: labels, sizes, F_j, the untouched space, and the
//! invariants on random traces (every byte in one class, sizes add up).

use proptest::prelude::*;
use tierlab_classes::{label, measure, ClassConfig, Classes, DataClass};
use tierlab_types::{IoRequest, Op, NS_PER_S};

const MIB: u64 = 1 << 20;

fn req(t_s: f64, volume: u32, offset: u64, len: u64, op: Op) -> IoRequest {
    IoRequest {
        time_ns: (t_s * NS_PER_S as f64) as u64,
        volume,
        offset_bytes: offset,
        len_bytes: len,
        op,
    }
}

fn run(cfg: &ClassConfig, trace: &[IoRequest]) -> Classes {
    let ok = |r: &IoRequest| Ok::<_, std::convert::Infallible>(*r);
    let l = label(cfg, trace.iter().map(ok)).unwrap();
    measure(l, trace.iter().map(ok)).unwrap()
}

fn class<'a>(c: &'a Classes, label: &str) -> &'a DataClass {
    c.classes.iter().find(|d| d.label == label).unwrap()
}

#[test]
fn records_are_labelled_and_measured() {
    let mut trace = Vec::new();
    // 100 s. Record 0: 3 reads of 4 KiB every second (3 IOPS: hot, reads, size bin 0).
    // Record 2: one 128 KiB write every 10 s (0.1 IOPS: cold, writes, size bin 3).
    for s in 0..100 {
        for k in 0..3 {
            trace.push(req(s as f64 + k as f64 * 0.1, 0, k * 4096, 4096, Op::Read));
        }
        if s % 10 == 0 {
            trace.push(req(s as f64 + 0.5, 0, 2 * MIB, 128 << 10, Op::Write));
        }
    }
    trace.sort_by_key(|r| r.time_ns);
    let c = run(&ClassConfig::default(), &trace);
    assert_eq!(c.classes.len(), 17, "2 × 2 × 4 + 1");
    assert_eq!(c.records_touched, 2);
    let hot = class(&c, "H-R-s0-i0");
    assert_eq!((hot.records, hot.size_bytes, hot.requests), (1, MIB, 300));
    assert_eq!(hot.read_fraction, 1.0);
    // 12 KiB every second: F_j is 12 KiB/s.
    assert!(
        (hot.bandwidth_p95_bytes_s - 12_288.0).abs() <= 12_288.0 * 0.001,
        "{}",
        hot.bandwidth_p95_bytes_s
    );
    let cold = class(&c, "C-W-s3-i0");
    assert_eq!(
        (cold.records, cold.requests, cold.write_bytes),
        (1, 10, 10 * (128 << 10))
    );
    // Busy one second in ten: the 95th percentile of its per-second series is 128 KiB/s.
    assert!(
        (cold.bandwidth_p95_bytes_s - 131_072.0).abs() <= 131.0,
        "{}",
        cold.bandwidth_p95_bytes_s
    );
    assert!((cold.bandwidth_mean_bytes_s - 10.0 * 131_072.0 / c.span_s).abs() < 1e-6);
    // Record 1 lies between the two touched ones and is never touched.
    assert_eq!(class(&c, "untouched").records, 1);
    // The 33-class taxonomy splits by peak one-second rate: record 0 peaks at 3, record 2
    // at 1; the median of {1, 3} is 1, so record 0 is intense.
    let c33 = run(
        &ClassConfig {
            intensity_bins: 2,
            ..ClassConfig::default()
        },
        &trace,
    );
    assert_eq!(c33.classes.len(), 33);
    assert_eq!(c33.intensity_edge_iops, Some(1.0));
    assert_eq!(class(&c33, "H-R-s0-i1").records, 1);
    assert_eq!(class(&c33, "C-W-s3-i0").records, 1);
}

#[test]
fn hot_is_judged_by_the_peak_rate_in_a_window() {
    // Record 0: two reads in one second, and one more at 200 s (mean 0.015 IOPS).
    // Record 1: one read a second for 99 s (never above 1 IOPS, by mean or by window).
    let mut trace = vec![
        req(0.1, 0, 0, 4096, Op::Read),
        req(0.2, 0, 4096, 4096, Op::Read),
        req(200.0, 0, 8192, 4096, Op::Read),
    ];
    for s in 0..99 {
        trace.push(req(s as f64 + 0.5, 0, MIB, 4096, Op::Read));
    }
    trace.sort_by_key(|r| r.time_ns);
    let peak = run(&ClassConfig::default(), &trace);
    assert_eq!(
        class(&peak, "H-R-s0-i0").records,
        1,
        "the burst makes record 0 hot"
    );
    assert_eq!(class(&peak, "C-R-s0-i0").records, 1);
    let span = run(
        &ClassConfig {
            hot_window_s: 0,
            ..ClassConfig::default()
        },
        &trace,
    );
    assert_eq!(
        class(&span, "H-R-s0-i0").records,
        0,
        "by the mean, neither is hot"
    );
    assert_eq!(class(&span, "C-R-s0-i0").records, 2);
    // A 10 s window: record 1 has 10 requests in 10 s (1 IOPS, not above); record 0 has 2.
    let ten = run(
        &ClassConfig {
            hot_window_s: 10,
            ..ClassConfig::default()
        },
        &trace,
    );
    assert_eq!(class(&ten, "H-R-s0-i0").records, 0);
}

#[test]
fn a_request_across_records_counts_in_each_with_its_bytes() {
    // 1 MiB starting half-way through record 0.
    let trace = [req(0.0, 0, MIB / 2, MIB, Op::Read)];
    let c = run(&ClassConfig::default(), &trace);
    assert_eq!(c.records_touched, 2);
    let total: u64 = c.classes.iter().map(|d| d.read_bytes).sum();
    assert_eq!(total, MIB);
    let requests: u64 = c.classes.iter().map(|d| d.requests).sum();
    assert_eq!(requests, 1, "both halves land in one class, counted once");
}

#[test]
fn bad_settings_name_the_setting() {
    for (cfg, what) in [
        (
            ClassConfig {
                record_bytes: 1000,
                ..ClassConfig::default()
            },
            "record size",
        ),
        (
            ClassConfig {
                hot_iops: -1.0,
                ..ClassConfig::default()
            },
            "hot threshold",
        ),
        (
            ClassConfig {
                size_edges_bytes: vec![16, 4],
                ..ClassConfig::default()
            },
            "size edges",
        ),
        (
            ClassConfig {
                intensity_bins: 3,
                ..ClassConfig::default()
            },
            "intensity bins",
        ),
    ] {
        assert!(cfg.check().unwrap_err().starts_with(what), "{what}");
    }
    assert!(ClassConfig::default().check().is_ok());
}

proptest! {
    /// Every byte lands in exactly one class, class sizes add up to the space up to each
    /// volume's highest touched record, and no class has more requests than the trace.
    #[test]
    fn every_byte_in_one_class(reqs in proptest::collection::vec((0u64..600, 0u32..3, 0u64..(64 * MIB), 1u64..(3 * MIB), any::<bool>()), 1..300), two in any::<bool>()) {
        let mut trace: Vec<IoRequest> = reqs.iter().map(|&(t, v, o, l, w)| req(t as f64 * 0.5, v, o, l, if w { Op::Write } else { Op::Read })).collect();
        trace.sort_by_key(|r| r.time_ns);
        let cfg = ClassConfig { intensity_bins: if two { 2 } else { 1 }, ..ClassConfig::default() };
        let c = run(&cfg, &trace);
        let bytes: u64 = trace.iter().map(|r| r.len_bytes).sum();
        prop_assert_eq!(c.classes.iter().map(|d| d.read_bytes + d.write_bytes).sum::<u64>(), bytes);
        let mut space = 0u64;
        for v in 0..3u32 {
            if let Some(top) = trace.iter().filter(|r| r.volume == v).map(|r| (r.offset_bytes + r.len_bytes - 1) / MIB).max() {
                space += (top + 1) * MIB;
            }
        }
        prop_assert_eq!(c.classes.iter().map(|d| d.size_bytes).sum::<u64>(), space);
        prop_assert_eq!(c.classes.iter().filter(|d| d.key.is_some()).map(|d| d.records).sum::<u64>(), c.records_touched);
        for d in &c.classes {
            prop_assert!(d.requests <= trace.len() as u64);
            prop_assert!(d.bandwidth_p95_bytes_s >= 0.0 && d.bandwidth_p95_bytes_s.is_finite());
        }
    }
}
