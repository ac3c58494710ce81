//! The measurement rules on a device whose behaviour is known exactly.

use std::collections::BTreeMap;
use tierlab_measure::{Measurement, Protocol, Stop, Window};
use tierlab_engine::{Device, DeviceOp, DeviceReport, Direct, Replay, SchedulerKind, Simulation};
use tierlab_types::{IoRequest, Op};

/// Serves its first `slow_ops` operations in times falling evenly from `slow_ns` to
/// `fast_ns` (a cache warming), then in `fast_ns`; draws 1 W while busy. Counts its
/// operations.
struct Warming {
    slow_ops: u64,
    slow_ns: u64,
    fast_ns: u64,
    ops: u64,
    busy_ns: u64,
}

impl Device for Warming {
    fn name(&self) -> &str {
        "warming"
    }
    fn capacity_bytes(&self) -> u64 {
        1 << 40
    }
    fn service(&mut self, now_ns: u64, _op: &DeviceOp) -> u64 {
        self.ops += 1;
        let left = self.slow_ops.saturating_sub(self.ops);
        let t = self.fast_ns + (self.slow_ns - self.fast_ns) * left / self.slow_ops.max(1);
        self.busy_ns += t;
        now_ns + t
    }
    fn finish(&mut self, _end_ns: u64) {}
    fn report(&self) -> DeviceReport {
        let mut counters = BTreeMap::new();
        counters.insert("ops".to_string(), self.ops as f64);
        DeviceReport { name: "warming".into(), kind: "test".into(), energy_j: self.busy_ns as f64 / 1e9, states: Vec::new(), counters }
    }
}

fn requests(n: u64, gap_ns: u64) -> impl Iterator<Item = Result<IoRequest, std::convert::Infallible>> {
    (0..n).map(move |i| Ok(IoRequest { time_ns: i * gap_ns, volume: 0, offset_bytes: (i % 1000) * 4096, len_bytes: 4096, op: Op::Read }))
}

fn protocol() -> Protocol {
    Protocol { batch_requests: 100, max_requests: 200_000, ..Protocol::default() }
}

#[test]
fn a_warming_device_is_measured_after_it_settles_and_reports_how_long_that_took() {
    let mut dev = Warming { slow_ops: 5_000, slow_ns: 400_000, fast_ns: 100_000, ops: 0, busy_ns: 0 };
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(&mut dev));
    let mut m = Measurement::new(&protocol(), true, None);
    let report = sim.run_observed(requests(200_000, 0), Replay::Closed { depth: 1 }, &mut Direct::default(), Some(&mut m), &mut |_| {}).unwrap();
    let outcome = m.finish();
    assert!(outcome.settled);
    // The transient lasts 50 batches; the rule waits until it ends before half the run.
    assert!((50..=125).contains(&outcome.warmup_batches), "warm-up {} batches", outcome.warmup_batches);
    assert_eq!(report.warmup_batches, outcome.warmup_batches);
    assert_eq!(outcome.stop, Stop::Precise);
    let w = Window::new(&report.batches, &outcome.counters, outcome.warmup_batches, true);
    let iops = w.figure(|s| s.iops());
    assert!((iops.mean - 10_000.0).abs() < 1.0, "{iops:?}");
    // The engine's own report measures the same window.
    assert!((report.throughput_iops - 10_000.0).abs() < 50.0, "{}", report.throughput_iops);
}

#[test]
fn warm_up_only_stops_measuring_the_device_sees_the_same_run() {
    let run = |observe: bool| {
        let mut dev = Warming { slow_ops: 300, slow_ns: 300_000, fast_ns: 100_000, ops: 0, busy_ns: 0 };
        let mut sim = Simulation::new(SchedulerKind::Fcfs);
        sim.add_device(Box::new(&mut dev));
        let p = Protocol { max_requests: 1_000_000, min_requests: 1_000_000, ..protocol() };
        let mut m = Measurement::new(&p, false, None);
        let obs: Option<&mut dyn tierlab_engine::Observer> = if observe { Some(&mut m) } else { None };
        let r = sim.run_observed(requests(20_000, 150_000), Replay::Open, &mut Direct::default(), obs, &mut |_| {}).unwrap();
        (dev.ops, dev.busy_ns, r.warmup_batches)
    };
    let (plain, observed) = (run(false), run(true));
    assert_eq!((plain.0, plain.1), (observed.0, observed.1));
    assert!(observed.2 > 0, "the observed run detected no warm-up");
}

#[test]
fn arrivals_faster_than_the_device_are_stopped_as_unsustainable() {
    let mut dev = Warming { slow_ops: 0, slow_ns: 1_000_000, fast_ns: 1_000_000, ops: 0, busy_ns: 0 };
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(&mut dev));
    let mut m = Measurement::new(&protocol(), false, None);
    // 1,250 requests/s offered to a device that serves 1,000.
    let report = sim.run_observed(requests(200_000, 800_000), Replay::Open, &mut Direct::default(), Some(&mut m), &mut |_| {}).unwrap();
    let outcome = m.finish();
    assert_eq!(outcome.stop, Stop::Unsustainable);
    assert!(report.requests < 20_000, "ran {} requests before stopping", report.requests);
    let w = Window::new(&report.batches, &outcome.counters, report.batches.len() / 2, false);
    assert!((w.figure(|s| s.iops()).mean - 1_000.0).abs() < 20.0);
    assert!((w.figure(|s| s.offered_iops()).mean - 1_250.0).abs() < 30.0);
}

#[test]
fn a_sustainable_open_loop_run_is_not_marked() {
    let mut dev = Warming { slow_ops: 0, slow_ns: 500_000, fast_ns: 500_000, ops: 0, busy_ns: 0 };
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(&mut dev));
    let mut m = Measurement::new(&protocol(), false, None);
    sim.run_observed(requests(50_000, 800_000), Replay::Open, &mut Direct::default(), Some(&mut m), &mut |_| {}).unwrap();
    assert_ne!(m.finish().stop, Stop::Unsustainable);
}

#[test]
fn a_short_source_that_never_settles_says_so() {
    let mut dev = Warming { slow_ops: 1_000_000, slow_ns: 400_000, fast_ns: 100_000, ops: 0, busy_ns: 0 };
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(&mut dev));
    let mut m = Measurement::new(&protocol(), true, None);
    sim.run_observed(requests(999, 0), Replay::Closed { depth: 1 }, &mut Direct::default(), Some(&mut m), &mut |_| {}).unwrap();
    let o = m.finish();
    assert!(!o.settled);
    assert_eq!(o.stop, Stop::SourceEnd);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]
    /// Batches tile the observed part of a run: no gap, no overlap, time never runs
    /// backwards, and every completion before the stop is in exactly one batch.
    #[test]
    fn batches_tile_the_run_and_lose_no_request(gap_ns in 50_000u64..2_000_000, service_ns in 100_000u64..1_500_000, n in 500u64..6_000, closed in proptest::bool::ANY) {
        let mut dev = Warming { slow_ops: 0, slow_ns: service_ns, fast_ns: service_ns, ops: 0, busy_ns: 0 };
        let mut sim = Simulation::new(SchedulerKind::Fcfs);
        sim.add_device(Box::new(&mut dev));
        let p = Protocol { batch_requests: 50, max_requests: 100_000, min_warmup_batches: 20, ..Protocol::default() };
        let mut m = Measurement::new(&p, closed, None);
        let replay = if closed { Replay::Closed { depth: 2 } } else { Replay::Open };
        let r = sim.run_observed(requests(n, gap_ns), replay, &mut Direct::default(), Some(&mut m), &mut |_| {}).unwrap();
        let outcome = m.finish();
        let b = &r.batches;
        proptest::prop_assert!(b.windows(2).all(|w| w[0].end_ns == w[1].start_ns && w[0].start_ns <= w[0].end_ns));
        proptest::prop_assert!(b.iter().all(|x| x.completed >= 50));
        let observed: u64 = b.iter().map(|x| x.completed).sum();
        let arrived: u64 = b.iter().map(|x| x.arrived).sum();
        proptest::prop_assert!(observed <= dev.ops && arrived >= observed);
        if outcome.stop == Stop::SourceEnd {
            // Every request completed; the batches hold all but the last partial batch.
            proptest::prop_assert_eq!(dev.ops, n);
            proptest::prop_assert!(n - observed < 50 + 2);
        }
        proptest::prop_assert!(outcome.warmup_batches <= b.len());
    }
}

#[test]
fn the_warm_up_waits_for_the_studys_own_settled_condition() {
    // The same steady device; the study says it has settled only from its 60th batch on.
    let mut dev = Warming { slow_ops: 1, slow_ns: 100_000, fast_ns: 100_000, ops: 0, busy_ns: 0 };
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(&mut dev));
    let mut seen = 0;
    let mut m = Measurement::new(&protocol(), true, None).with_settled(Box::new(move |_| {
        seen += 1;
        seen >= 60
    }));
    sim.run_observed(requests(200_000, 0), Replay::Closed { depth: 1 }, &mut Direct::default(), Some(&mut m), &mut |_| {}).unwrap();
    let outcome = m.finish();
    assert!(outcome.settled);
    assert_eq!(outcome.warmup_batches, 60);
}
