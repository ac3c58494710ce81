use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap as Map;
use tierlab_policy::{CachingParams, CachingPolicy, Geometry, LinearPolicy, TieringParams, TieringPolicy, WritePolicy};
use tierlab_sim::{Device, DeviceReport, Replay, SchedulerKind, SimReport, Simulation};

const ES: u64 = 64 * 1024;

/// A device with a fixed latency per operation (plus a per-byte cost).
struct Fake {
    name: &'static str,
    capacity_bytes: u64,
    op_ns: u64,
    ns_per_kib: u64,
    ops: u64,
    bytes_written: u64,
}

impl Device for Fake {
    fn name(&self) -> &str {
        self.name
    }
    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }
    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        assert!(op.offset_bytes + op.len_bytes <= self.capacity_bytes, "{} op beyond capacity: {op:?}", self.name);
        self.ops += 1;
        if op.op == Op::Write {
            self.bytes_written += op.len_bytes;
        }
        now_ns + self.op_ns + op.len_bytes / 1024 * self.ns_per_kib
    }
    fn finish(&mut self, _end_ns: u64) {}
    fn report(&self) -> DeviceReport {
        let counters = Map::from([("ops".to_string(), self.ops as f64), ("bytes_written".to_string(), self.bytes_written as f64)]);
        DeviceReport { name: self.name.into(), kind: "fake".into(), energy_j: 0.0, states: vec![], counters }
    }
}

fn sim() -> Simulation<'static> {
    let mut s = Simulation::new(SchedulerKind::Fcfs);
    s.add_device(Box::new(Fake { name: "ssd", capacity_bytes: 16 * ES, op_ns: 100_000, ns_per_kib: 100, ops: 0, bytes_written: 0 }));
    s.add_device(Box::new(Fake { name: "hdd", capacity_bytes: 256 * ES, op_ns: 8_000_000, ns_per_kib: 10_000, ops: 0, bytes_written: 0 }));
    s
}

fn requests(n: u64, hot_extents: u64, gap_ns: u64, write_every: u64) -> Vec<Result<IoRequest, std::convert::Infallible>> {
    (0..n)
        .map(|i| {
            let ext = (i * 7919) % hot_extents;
            let op = if write_every > 0 && i % write_every == 0 { Op::Write } else { Op::Read };
            Ok(IoRequest { time_ns: i * gap_ns, volume: 0, offset_bytes: ext * ES + (i % 16) * 4096, len_bytes: 4096, op })
        })
        .collect()
}

fn run<P: Policy>(policy: P, reqs: Vec<Result<IoRequest, std::convert::Infallible>>, replay: Replay) -> (SimReport, PolicyStats) {
    let mut c = HybridController::new(policy, Devices { ssd: 0, hdd: 1 });
    let r = sim().run(reqs.into_iter(), replay, &mut c, &mut |_| {}).unwrap();
    (r, c.policy_stats())
}

fn tiering() -> TieringPolicy {
    let geo = Geometry::new(ES, 16 * ES, 256 * ES).unwrap();
    TieringPolicy::new(geo, TieringParams { pt: 2, tw_ns: 60_000_000_000, mcml: 2, lt: 2, ht: 4, reserved_hdd_extents: 8 }).unwrap()
}

#[test]
fn a_hot_set_moves_to_the_ssd_and_gets_faster() {
    // First touches of 40 extents with no time for migrations between them: 0-15 fill the
    // SSD, 16-39 land on the HDD. Then 10 of the HDD ones are read again and again.
    let mut reqs: Vec<_> = (0..40u64)
        .map(|e| Ok::<_, std::convert::Infallible>(IoRequest { time_ns: 0, volume: 0, offset_bytes: e * ES, len_bytes: 4096, op: Op::Write }))
        .collect();
    for i in 0..2000u64 {
        let ext = 30 + i % 10;
        reqs.push(Ok(IoRequest { time_ns: 1_000_000_000 + i * 20_000_000, volume: 0, offset_bytes: ext * ES, len_bytes: 4096, op: Op::Read }));
    }
    let mut c = HybridController::new(tiering(), Devices { ssd: 0, hdd: 1 });
    let r = sim().run(reqs.into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap();
    let s = c.policy_stats();
    assert_eq!(r.requests, 2040);
    assert!(s.promotions >= 10, "{s:?}");
    for e in 30..40 {
        assert_eq!(c.policy().lookup(e).map(|l| l.0), Some(Tier::Ssd), "extent {e}");
    }
    assert!(s.ssd_hit_ratio() > 0.9, "{s:?}");
    // Migrations really went to the devices: SSD writes include the promoted extents.
    let ssd_written = r.devices[0].device.counters["bytes_written"];
    assert!(ssd_written >= (s.promotions * ES) as f64);
    assert_eq!(r.controller["stats"]["promotions"], s.promotions);
}

#[test]
fn tiering_beats_hdd_only_linear_on_a_skewed_load() {
    let reqs = requests(3000, 12, 0, 5); // 12 hot extents fit the 16-extent SSD
    let hdd_only = LinearPolicy::new(Geometry::new(ES, 0, 256 * ES).unwrap());
    let (lin, _) = run(hdd_only, reqs.clone(), Replay::Closed { depth: 1 });
    let (tier, _) = run(tiering(), reqs, Replay::Closed { depth: 1 });
    assert!(tier.throughput_iops > 3.0 * lin.throughput_iops, "tiering {} vs HDD-only {}", tier.throughput_iops, lin.throughput_iops);
}

#[test]
fn caching_write_back_keeps_writes_on_the_ssd() {
    let geo = Geometry::new(ES, 16 * ES, 256 * ES).unwrap();
    let params = CachingParams { pt: 2, mcml: 2, write: WritePolicy::WriteBack, ..CachingParams::default() };
    let (r, s) = run(CachingPolicy::new(geo, params).unwrap(), requests(2000, 8, 20_000_000, 2), Replay::Open);
    assert_eq!(r.requests, 2000);
    assert!(s.prefetches >= 8 && s.ssd_hit_ratio() > 0.8, "{s:?}");
}

#[test]
fn requests_beyond_the_virtual_capacity_are_errors() {
    let mut c = HybridController::new(tiering(), Devices { ssd: 0, hdd: 1 });
    let cap = c.policy().virtual_bytes();
    let reqs = vec![Ok::<_, std::convert::Infallible>(IoRequest { time_ns: 0, volume: 0, offset_bytes: cap, len_bytes: 4096, op: Op::Read })];
    let e = sim().run(reqs.into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("request #0"), "{e}");
}

#[test]
fn a_device_too_small_for_the_geometry_is_refused() {
    let geo = Geometry::new(ES, 32 * ES, 256 * ES).unwrap(); // the fake SSD holds 16
    let p = TieringPolicy::new(geo, TieringParams { pt: 2, tw_ns: 1, mcml: 1, lt: 2, ht: 4, reserved_hdd_extents: 8 }).unwrap();
    let mut c = HybridController::new(p, Devices { ssd: 0, hdd: 1 });
    let e = sim().run(Vec::<Result<IoRequest, std::convert::Infallible>>::new().into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("SSD"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]
    /// Every request completes, whatever the mix, depth and policy; runs are deterministic.
    #[test]
    fn no_request_is_lost(n in 1u64..600, hot in 1u64..200, write_every in 0u64..4, depth in 0u32..5, which in 0usize..3) {
        let reqs = requests(n, hot, 300_000, write_every);
        let replay = if depth == 0 { Replay::Open } else { Replay::Closed { depth } };
        let go = |reqs| -> String {
            let (r, s) = match which {
                0 => run(tiering(), reqs, replay),
                1 => {
                    let geo = Geometry::new(ES, 16 * ES, 256 * ES).unwrap();
                    run(CachingPolicy::new(geo, CachingParams { pt: 1, mcml: 3, ..CachingParams::default() }).unwrap(), reqs, replay)
                }
                _ => run(LinearPolicy::new(Geometry::new(ES, 16 * ES, 200 * ES).unwrap()), reqs, replay),
            };
            assert_eq!(r.requests, n);
            assert_eq!(r.response_time.count, n);
            assert!(s.ssd_hits <= s.pieces);
            serde_json::to_string(&r).unwrap()
        };
        prop_assert_eq!(go(reqs.clone()), go(reqs));
    }
}
