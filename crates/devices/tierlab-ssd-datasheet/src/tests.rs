use super::*;
use proptest::prelude::*;

/// The Intel SSD 320 300 GB's data sheet (as in catalog/ssd/intel-320-300gb.toml).
fn intel_320() -> DatasheetSpec {
    DatasheetSpec {
        read_latency_ns: 75_000,
        write_latency_ns: 90_000,
        read_bytes_per_s: 270_000_000,
        write_bytes_per_s: 205_000_000,
        read_iops: 39_500,
        write_iops: 23_000,
        active_read_w: 2.0,
        active_write_w: 3.0,
    }
}

const GB: u64 = 1_000_000_000;

fn drive(spec: &DatasheetSpec) -> DatasheetSsd {
    DatasheetSsd::new("test", 300 * GB, spec, 0.1, Some(36_500 * GB)).unwrap_or_else(|e| panic!("{e}"))
}

fn op(op: Op, offset_bytes: u64, len_bytes: u64) -> DeviceOp {
    DeviceOp { op, offset_bytes, len_bytes, fua: false }
}

/// Closed loop at `depth`: each completion issues the next request, `n` in all; returns
/// when the last completes. Requests go round `span` bytes in `len`-byte steps.
fn closed_loop(ssd: &mut DatasheetSsd, kind: Op, len: u64, depth: usize, n: u64) -> u64 {
    let mut in_flight: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let (mut now, mut end) = (0, 0);
    for k in 0..n {
        if in_flight.len() == depth {
            now = in_flight.pop().map_or(now, |Reverse(t)| t);
        }
        let done = ssd.service(now, &op(kind, (k * len) % (100 * GB), len));
        assert!(done >= now);
        end = end.max(done);
        in_flight.push(Reverse(done));
    }
    end
}

#[test]
fn units_reach_both_iops_at_the_qd1_latencies() {
    let s = intel_320();
    // 39,500 x 75 us = 2.96 and 23,000 x 90 us = 2.07 requests in flight: 3 slots.
    assert_eq!(s.units(), 3);
    assert_eq!(drive(&s).max_in_flight(), 3);
}

#[test]
fn a_lone_small_request_takes_the_data_sheet_latency() {
    let mut d = drive(&intel_320());
    assert_eq!(d.service(1_000, &op(Op::Read, 0, 4096)), 76_000);
    assert_eq!(d.service(10_000_000, &op(Op::Write, 0, 4096)), 10_090_000);
    assert_eq!(d.service(20_000_000, &op(Op::Read, 8192, 512)), 20_075_000);
}

#[test]
fn random_small_requests_at_depth_run_at_the_data_sheet_iops() {
    for (kind, iops) in [(Op::Read, 39_500.0), (Op::Write, 23_000.0)] {
        let mut d = drive(&intel_320());
        let n = 100_000;
        let secs = closed_loop(&mut d, kind, 4096, 32, n) as f64 / 1e9;
        let measured = n as f64 / secs;
        assert!((measured / iops - 1.0).abs() < 0.01, "{kind:?}: {measured} IOPS, data sheet {iops}");
    }
}

#[test]
fn large_requests_run_at_the_sequential_bandwidth_alone_or_together() {
    for depth in [1, 32] {
        for (kind, bw) in [(Op::Read, 270e6), (Op::Write, 205e6)] {
            let mut d = drive(&intel_320());
            let (n, len) = (2_000, 1 << 20);
            let secs = closed_loop(&mut d, kind, len, depth, n) as f64 / 1e9;
            let measured = (n * len) as f64 / secs;
            // At depth 1 the QD1 latency adds 75-90 us to each 3.9-5.1 ms transfer.
            assert!(measured <= bw * 1.000_1 && measured > bw * 0.97, "{kind:?} depth {depth}: {measured} B/s, data sheet {bw}");
        }
    }
}

#[test]
fn full_load_draws_active_power_and_an_idle_drive_its_idle_power() {
    let s = intel_320();
    for (kind, len, watts) in [(Op::Read, 4096, 2.0), (Op::Write, 4096, 3.0), (Op::Read, 1 << 20, 2.0), (Op::Write, 1 << 20, 3.0)] {
        let mut d = drive(&s);
        let end = closed_loop(&mut d, kind, len, 32, 20_000);
        d.finish(end);
        let r = d.report();
        let power = r.energy_j / (end as f64 / 1e9);
        assert!((power / watts - 1.0).abs() < 0.02, "{kind:?} {len}: {power} W, data sheet {watts} W");
    }
    // Two small reads a second apart: almost all idle.
    let mut d = drive(&s);
    d.service(0, &op(Op::Read, 0, 4096));
    d.service(NS_PER_S, &op(Op::Read, 0, 4096));
    d.finish(2 * NS_PER_S);
    let r = d.report();
    assert!((r.energy_j - 0.2).abs() < 0.001, "{}", r.energy_j);
    assert_eq!(r.counters["host_read_requests"], 2.0);
    assert_eq!(r.counters["host_read_bytes"], 8192.0);
}

#[test]
fn lifetime_is_the_rated_endurance_at_the_run_s_write_rate() {
    let mut d = drive(&intel_320());
    // 36.5 TB rated; 1 MiB a second for a run of 10 s.
    for s in 0..10 {
        d.service(s * NS_PER_S, &op(Op::Write, 0, 1_000_000));
    }
    d.finish(10 * NS_PER_S);
    let years = d.report().counters["lifetime_years_rated"];
    let expected = 36_500.0 * 1e9 / 1e6 / SECONDS_PER_YEAR;
    assert!((years / expected - 1.0).abs() < 1e-9, "{years} vs {expected}");
}

#[test]
fn refused_requests_complete_at_once_and_are_counted() {
    let mut d = drive(&intel_320());
    assert_eq!(d.try_service(5, &op(Op::Read, 0, 0)), Err(DatasheetError::EmptyRequest { offset_bytes: 0 }));
    assert!(matches!(d.try_service(5, &op(Op::Read, 300 * GB - 4096, 8192)), Err(DatasheetError::OutOfRange { .. })));
    assert!(matches!(d.try_service(5, &op(Op::Read, u64::MAX, 2)), Err(DatasheetError::OutOfRange { .. })));
    assert_eq!(d.service(7, &op(Op::Write, u64::MAX - 1, 4096)), 7);
    assert_eq!(d.report().counters["rejected_requests"], 1.0);
}

#[test]
fn bad_figures_are_named() {
    let field = |s: DatasheetSpec, idle_w: f64| match s.validate(idle_w) {
        Err(DatasheetError::Invalid { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(field(DatasheetSpec { read_latency_ns: 0, ..intel_320() }, 0.1), "read_latency_ns");
    assert_eq!(field(DatasheetSpec { write_latency_ns: 2 * NS_PER_S, ..intel_320() }, 0.1), "write_latency_ns");
    assert_eq!(field(DatasheetSpec { write_bytes_per_s: 0, ..intel_320() }, 0.1), "write_bytes_per_s");
    assert_eq!(field(DatasheetSpec { read_iops: 0, ..intel_320() }, 0.1), "read_iops");
    assert_eq!(field(DatasheetSpec { write_iops: u64::MAX, ..intel_320() }, 0.1), "write_iops");
    assert_eq!(field(DatasheetSpec { active_read_w: 0.05, ..intel_320() }, 0.1), "active_read_w");
    assert_eq!(field(DatasheetSpec { active_write_w: f64::NAN, ..intel_320() }, 0.1), "active_write_w");
    assert_eq!(field(intel_320(), -1.0), "idle_w");
    assert!(DatasheetSsd::new("x", GB, &DatasheetSpec { read_iops: 0, ..intel_320() }, 0.1, None).is_err());
}

proptest! {
    /// Any stream of requests (sizes, directions, gaps, some refused): every request is
    /// either served, no earlier than issued, or counted as refused; and the same stream
    /// gives the same times.
    #[test]
    fn no_request_lost_and_time_never_runs_backwards(
        reqs in prop::collection::vec((any::<bool>(), 0u64..2 * GB, 0u64..(4 << 20), 0u64..2_000_000), 1..400),
        read_iops in 1u64..2_000_000,
        write_iops in 1u64..2_000_000,
        latency_us in 1u64..2_000,
    ) {
        let spec = DatasheetSpec { read_iops, write_iops, read_latency_ns: latency_us * 1000, write_latency_ns: latency_us * 500 + 1, ..intel_320() };
        let run = || {
            let mut d = DatasheetSsd::new("p", GB, &spec, 0.1, None).unwrap_or_else(|e| panic!("{e}"));
            let (mut now, mut times) = (0u64, Vec::new());
            for &(read, offset, len, gap) in &reqs {
                now += gap;
                let kind = if read { Op::Read } else { Op::Write };
                times.push((now, d.service(now, &op(kind, offset, len))));
            }
            (d.report(), times)
        };
        let (report, times) = run();
        let served = report.counters["host_read_requests"] + report.counters["host_write_requests"];
        prop_assert_eq!(served + report.counters["rejected_requests"], reqs.len() as f64);
        prop_assert!(times.iter().all(|&(t, d)| d >= t));
        prop_assert_eq!(run().1, times);
    }
}
