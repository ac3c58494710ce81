use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap as Map;
use tierlab_hybrid_policy::{CachingParams, CachingPolicy, Geometry, LinearPolicy, TieringParams, TieringPolicy, WritePolicy};
use tierlab_engine::{Device, DeviceReport, Replay, SchedulerKind, SimReport, Simulation};

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
    fn no_request_is_lost(n in 1u64..600, hot in 1u64..200, write_every in 0u64..4, depth in 0u32..5, which in 0usize..4) {
        let reqs = requests(n, hot, 300_000, write_every);
        let replay = if depth == 0 { Replay::Open } else { Replay::Closed { depth } };
        let go = |reqs| -> String {
            let (r, s) = match which {
                0 => run(tiering(), reqs, replay),
                1 => {
                    let geo = Geometry::new(ES, 16 * ES, 256 * ES).unwrap();
                    run(CachingPolicy::new(geo, CachingParams { pt: 1, mcml: 3, ..CachingParams::default() }).unwrap(), reqs, replay)
                }
                2 => run(LinearPolicy::new(Geometry::new(ES, 16 * ES, 200 * ES).unwrap()), reqs, replay),
                _ => run(mixdyn(MixDynParams { train_ssd: 20, train_hdd: 5, idle_ns: 1_000_000, low_free: 0.1, high_free: 0.2, ..MixDynParams::mixdyn() }), reqs, replay),
            };
            assert_eq!(r.requests, n);
            assert_eq!(r.response_time.count, n);
            assert!(s.ssd_hits <= s.pieces);
            serde_json::to_string(&r).unwrap()
        };
        prop_assert_eq!(go(reqs.clone()), go(reqs));
    }
}

// ---- MixDyn: the feedback hook, wake-ups, the SSD hint ----------------------------------

use tierlab_mixdyn::{MixDynParams, MixDynPolicy, Partitioner, PAGE_BYTES};

fn mixdyn(params: MixDynParams) -> MixDynPolicy {
    // The fake SSD's 16 extents are 256 pages; the drive exposes the HDD's 4096.
    MixDynPolicy::new(Geometry::new(PAGE_BYTES, 16 * ES, 256 * ES).unwrap(), params).unwrap()
}

/// Writes of 4–16 KiB and some reads over 1,000 pages, in bursts of 50 requests 2 ms
/// apart with 3 s of quiet between bursts.
fn bursts(n: u64) -> Vec<Result<IoRequest, std::convert::Infallible>> {
    (0..n)
        .map(|i| {
            let time_ns = (i / 50) * 3_000_000_000 + (i % 50) * 2_000_000;
            let page = (i * 7919) % 1000;
            let len = [4096, 4096, 8192, 16384][(i % 4) as usize];
            let op = if i % 11 == 0 { Op::Read } else { Op::Write };
            Ok(IoRequest { time_ns, volume: 0, offset_bytes: page * PAGE_BYTES, len_bytes: len, op })
        })
        .collect()
}

#[test]
fn mixdyn_learns_from_the_responses_and_flushes_when_idle() {
    let n = 3000;
    let params = MixDynParams { train_ssd: 300, train_hdd: 50, ..MixDynParams::mixdyn() };
    let mut c = HybridController::new(mixdyn(params), Devices { ssd: 0, hdd: 1 });
    let r = sim().run(bursts(n).into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap();
    // No request lost.
    assert_eq!((r.requests, r.response_time.count), (n, n));
    let p = c.policy();
    // The hook fired for every piece, and every response found its request.
    let pieces = p.stats().pieces;
    assert_eq!(r.controller["executor"]["observed_pieces"], pieces);
    assert_eq!(p.awaiting_response(), 0);
    let counters = &r.controller["counters"];
    assert_eq!(counters["observed_ssd"].as_f64().unwrap() + counters["observed_hdd"].as_f64().unwrap(), pieces as f64 - r.controller["executor"]["ram_hits"].as_f64().unwrap());
    // Trained on the fake devices: the SSD answers in ~0.1 ms, the HDD in 8+ ms, so the
    // predictor sends the larger writes to the SSD too.
    let fit = p.fit().expect("trained");
    assert!(fit.observations >= 300);
    assert!(counters["predicted_ssd"].as_f64().unwrap() > 0.0, "{counters}");
    assert!(p.hdd_training_mean_ms().unwrap() > 5.0);
    // Idle periods woke the policy, and the buster moved pages to the HDD in them.
    assert!(r.controller["executor"]["wake_ups"].as_u64().unwrap() > 0);
    assert!(counters["flush_rounds"].as_f64().unwrap() >= 1.0, "{counters}");
    assert!(counters["flushed_bytes_idle"].as_f64().unwrap() > 0.0, "{counters}");
    p.check().unwrap();
    // Migrations really went to the devices.
    assert_eq!(r.controller["executor"]["migration_bytes_written"], p.stats().bytes_moved);
}

#[test]
fn mixdyn_runs_are_deterministic_and_static4k_splits_by_size() {
    let go = |params: MixDynParams| {
        let mut c = HybridController::new(mixdyn(params), Devices { ssd: 0, hdd: 1 });
        let r = sim().run(bursts(800).into_iter(), Replay::Closed { depth: 3 }, &mut c, &mut |_| {}).unwrap();
        assert_eq!(r.requests, 800);
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(go(MixDynParams::mixdyn()), go(MixDynParams::mixdyn()));
    let mut c = HybridController::new(mixdyn(MixDynParams::static4k()), Devices { ssd: 0, hdd: 1 });
    let r = sim().run(bursts(800).into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap();
    let counters = &r.controller["counters"];
    // Writes are i % 4 == 0, 1 (4 KiB) → SSD, 2, 3 (8, 16 KiB) → HDD; reads are every 11th.
    let writes = (0..800u64).filter(|i| i % 11 != 0);
    let small = writes.clone().filter(|i| i % 4 < 2).count() as f64;
    assert_eq!(counters["writes_to_ssd"].as_f64().unwrap(), small);
    assert_eq!(counters["writes_to_hdd"].as_f64().unwrap(), writes.count() as f64 - small);
    assert_eq!(r.controller["policy"], "static4k");
}

/// An SSD with explicit wear leveling that starts at once: the hint reaches it through
/// the executor and holds it.
#[test]
fn the_policy_can_hold_the_ssds_wear_leveling() {
    use tierlab_ssd::{FtlKind, Precondition, Ssd, SsdSpec, WearLeveling};
    let run = |adaptive: bool| -> f64 {
        let mut spec = SsdSpec::study_slc(128, FtlKind::Page);
        spec.wear_leveling.mode = WearLeveling::Explicit;
        spec.wear_leveling.gap_erases = 2;
        spec.wear_leveling.check_interval_erases = 1;
        let mut ssd = Ssd::new(spec).unwrap();
        ssd.precondition(&Precondition { occupancy: 0.5, random_overwrites: 0.0, seed: 1 }).unwrap();
        // A budget any write exceeds, detected after 100 ms; nothing redirected.
        let params = MixDynParams {
            partitioner: Partitioner::Static,
            flush_fraction: 0.0,
            redirect_p: 0.0,
            erase_cycles: 1,
            lifetime_s: 1e12,
            regulator_window_ns: 1_000_000_000,
            regulator_sustain_ns: 100_000_000,
            adaptive_wear_leveling: adaptive,
            ..MixDynParams::mixdyn()
        };
        let policy = MixDynPolicy::new(Geometry::new(PAGE_BYTES, 8 << 20, 64 << 20).unwrap(), params).unwrap();
        let (policy, ssd) = ssd_hints(policy, Box::new(ssd));
        let mut s = Simulation::new(SchedulerKind::Fcfs);
        s.add_device(Box::new(ssd));
        s.add_device(Box::new(Fake { name: "hdd", capacity_bytes: 64 << 20, op_ns: 8_000_000, ns_per_kib: 10_000, ops: 0, bytes_written: 0 }));
        // 4 KiB writes to 100 hot pages, one every 2 ms.
        let reqs = (0..20_000u64).map(|i| Ok::<_, std::convert::Infallible>(IoRequest { time_ns: i * 2_000_000, volume: 0, offset_bytes: (i % 100) * PAGE_BYTES, len_bytes: 4096, op: Op::Write }));
        let mut c = HybridController::new(policy, Devices { ssd: 0, hdd: 1 });
        let r = s.run(reqs, Replay::Open, &mut c, &mut |_| {}).unwrap();
        assert_eq!(r.requests, 20_000);
        assert_eq!(c.policy().inner().ssd_wear_leveling_paused(), adaptive);
        assert_eq!(r.devices[0].device.counters["wear_leveling_hint_changes"], if adaptive { 1.0 } else { 0.0 });
        r.devices[0].device.counters["page_writes_wear_leveling"]
    };
    let normal = run(false);
    assert!(normal > 0.0, "explicit wear leveling ran: {normal}");
    let held = run(true);
    assert!(held < normal / 10.0, "held: {held} vs {normal}");
}

#[test]
fn instant_warming_leaves_the_policy_where_the_timed_run_takes_it() {
    // The same stream as `a_hot_set_moves_to_the_ssd_and_gets_faster`: 40 first writes,
    // then 10 HDD extents read again and again.
    let mut reqs: Vec<IoRequest> = (0..40u64).map(|e| IoRequest { time_ns: 0, volume: 0, offset_bytes: e * ES, len_bytes: 4096, op: Op::Write }).collect();
    for i in 0..2000u64 {
        reqs.push(IoRequest { time_ns: 1_000_000_000 + i * 20_000_000, volume: 0, offset_bytes: (30 + i % 10) * ES, len_bytes: 4096, op: Op::Read });
    }
    let mut warmed = tiering();
    let w = warm_instantly(&mut warmed, reqs.iter().copied()).unwrap();
    assert_eq!(w.requests, 2040, "every request routed");
    let s = warmed.stats();
    assert_eq!(w.migrations, s.promotions + s.demotions, "{w:?} {s:?}");
    assert_eq!(s.pieces, 2040, "{s:?}");
    for e in 30..40 {
        assert_eq!(warmed.lookup(e).map(|l| l.0), Some(Tier::Ssd), "extent {e}");
    }
    // Nothing is in flight afterwards, so a timed run starts from a quiet drive: the hot
    // set is served by the SSD from its first request.
    let hot: Vec<_> = (0..200u64).map(|i| Ok::<_, std::convert::Infallible>(IoRequest { time_ns: 100_000_000_000 + i * 20_000_000, volume: 0, offset_bytes: (30 + i % 10) * ES, len_bytes: 4096, op: Op::Read })).collect();
    let mut c = HybridController::new(warmed, Devices { ssd: 0, hdd: 1 });
    sim().run(hot.into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap();
    let after = c.policy_stats();
    assert_eq!(after.ssd_hits - s.ssd_hits, 200, "{after:?}");
    assert_eq!(after.promotions, s.promotions, "no moves left to make");
}
