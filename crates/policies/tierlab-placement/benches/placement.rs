//! Placement-only replay speed on the CloudPhysics trace (target: ≥ 5 M requests/s on
//! one core), and the tiering mapping's bytes per extent. Prints figures; asserts nothing.
//!
//! `cargo bench -p tierlab-placement` (single-threaded; the trace is parsed once into
//! memory and replayed several times, so parsing is timed apart from replay).

use std::path::Path;
use std::time::Instant;
use tierlab_cache::Algorithm;
use tierlab_placement::{replay_trace, CacheReplay, ObjectDef, PolicyReplay, Replay};
use tierlab_hybrid_policy::{CachingParams, CachingPolicy, Geometry, TieringParams, TieringPolicy};
use tierlab_trace::{open, ReadOptions};
use tierlab_types::{IoRequest, GIB, MIB};

const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/traces/cloudphysics-io.csv");
/// Replays of the trace per figure in cache mode, and in policy mode.
const CACHE_PASSES: u64 = 20;
const POLICY_PASSES: u64 = 2;
/// A figure stops early after this long (small extents on a small SSD make the tiering
/// policy's demotion sweep slow); it then covers the requests replayed so far.
const BUDGET_S: f64 = 20.0;
/// An SSD well below the trace's 1 GiB of distinct 4 KiB blocks, so that data must move.
const SSD_BYTES: u64 = 256 * MIB;
const HDD_BYTES: u64 = 40 * GIB;

/// Replays `reqs` `passes` times (times shifted so they keep increasing), or until
/// `BUDGET_S` has passed; returns the requests replayed and requests per second.
fn time_replay(replay: &mut dyn Replay, reqs: &[IoRequest], passes: u64) -> (u64, f64) {
    let span_ns = reqs.last().map_or(0, |r| r.time_ns + 1);
    let start = Instant::now();
    let mut done = 0u64;
    'passes: for pass in 0..passes {
        for r in reqs {
            let shifted = IoRequest { time_ns: r.time_ns + pass * span_ns, ..*r };
            if let Err(e) = replay.access(&shifted) {
                eprintln!("replay failed: {e}");
                break 'passes;
            }
            done += 1;
            if done.is_multiple_of(4096) && start.elapsed().as_secs_f64() > BUDGET_S {
                break 'passes;
            }
        }
    }
    (done, done as f64 / start.elapsed().as_secs_f64())
}

fn main() {
    if !Path::new(TRACE).exists() {
        println!("skipped: {TRACE} is absent");
        return;
    }
    let start = Instant::now();
    let reqs: Vec<IoRequest> = match open(TRACE.as_ref(), &ReadOptions::default()).and_then(|r| r.collect()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("cannot read the trace: {e}");
            return;
        }
    };
    let parse_s = start.elapsed().as_secs_f64();
    println!("trace: {} requests, parsed in {:.3} s ({:.2} M req/s)", reqs.len(), parse_s, reqs.len() as f64 / parse_s / 1e6);

    // End to end from the file: parsing included.
    let start = Instant::now();
    let Ok(mut c) = CacheReplay::new(Algorithm::Lru, &[16_384], ObjectDef::Request, 0) else { return };
    match open(TRACE.as_ref(), &ReadOptions::default()).map_err(Into::into).and_then(|mut r| replay_trace(&mut r, &mut c)) {
        Ok(n) => println!("streaming from the file (parse + LRU replay): {:.2} M req/s", n as f64 / start.elapsed().as_secs_f64() / 1e6),
        Err(e) => eprintln!("streaming replay failed: {e}"),
    }

    for def in [ObjectDef::Request, ObjectDef::BLOCK_4K] {
        for alg in [Algorithm::Lru, Algorithm::Arc, Algorithm::TwoQ, Algorithm::Fifo] {
            let Ok(mut c) = CacheReplay::new(alg, &[16_384], def, 0) else { return };
            let (done, rps) = time_replay(&mut c, &reqs, CACHE_PASSES);
            let objects_per_req = c.reports()[0].counts.objects().accesses as f64 / done.max(1) as f64;
            println!(
                "cache mode  {alg:<7} objects={def:<7} 16384 objects: {:6.2} M req/s ({:6.2} M objects/s)",
                rps / 1e6,
                rps * objects_per_req / 1e6
            );
        }
    }

    let es_list = [MIB, 64 * 1024, 4096];
    for es in es_list {
        let Ok(geo) = Geometry::new(es, SSD_BYTES, HDD_BYTES) else { return };
        let Ok(t) = TieringPolicy::new(geo, TieringParams::default()) else { return };
        let bytes_per_extent = t.bytes_per_extent();
        let mut p = PolicyReplay::new(t);
        let (done, rps) = time_replay(&mut p, &reqs, POLICY_PASSES);
        let rep = p.report();
        println!(
            "policy mode tiering ES {:>7} B: {:6.2} M req/s over {done} requests; 4K-block hit ratio {:.4}; promotions {} demotions {}; mapping {:.2} bytes/extent",
            es,
            rps / 1e6,
            rep.counts.objects().hit_ratio(),
            rep.stats.promotions,
            rep.stats.demotions,
            bytes_per_extent
        );
    }
    for es in es_list {
        let Ok(geo) = Geometry::new(es, SSD_BYTES, HDD_BYTES) else { return };
        let Ok(c) = CachingPolicy::new(geo, CachingParams::default()) else { return };
        let mut p = PolicyReplay::new(c);
        let (done, rps) = time_replay(&mut p, &reqs, POLICY_PASSES);
        let rep = p.report();
        println!(
            "policy mode caching ES {:>7} B: {:6.2} M req/s over {done} requests; 4K-block hit ratio {:.4}; prefetches {} evictions {} write-backs {}",
            es,
            rps / 1e6,
            rep.counts.objects().hit_ratio(),
            rep.stats.prefetches,
            rep.stats.evictions,
            rep.stats.write_backs
        );
    }

}
