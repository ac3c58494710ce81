//! LRU and ARC miss counts on the CloudPhysics trace against libCacheSim's `cachesim`
//! (commit aa0fc40; how it was run is in this crate's README). Skipped, with a note, when
//! the shared traces are absent.

use std::path::Path;
use tierlab_cache::Algorithm;
use tierlab_placement::{replay_trace, CacheReplay, ObjectDef};
use tierlab_trace::{open, ReadOptions};

const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/cloudphysics-io.csv");

/// (cache size in objects, LRU misses, ARC misses) from libCacheSim, each touched 4 KiB
/// block one object: 1,141,869 accesses.
const LIBCACHESIM_BLOCKS: [(usize, u64, u64); 8] = [
    (1_000, 1_029_095, 1_029_279),
    (2_000, 1_025_800, 1_026_157),
    (5_000, 1_021_125, 1_014_706),
    (10_000, 1_015_043, 986_768),
    (20_000, 1_005_820, 963_176),
    (50_000, 944_899, 924_225),
    (100_000, 690_171, 695_441),
    (200_000, 498_824, 410_609),
];

/// The same, each request one object named by its lbn: 113,872 accesses.
const LIBCACHESIM_REQUESTS: [(usize, u64, u64); 7] = [
    (500, 95_398, 94_218),
    (1_000, 94_823, 94_027),
    (2_000, 94_189, 92_829),
    (5_000, 91_527, 87_770),
    (10_000, 79_438, 79_413),
    (20_000, 72_053, 64_422),
    (40_000, 48_994, 48_999),
];

/// Our misses and accesses at each size.
fn ours(alg: Algorithm, def: ObjectDef, sizes: &[usize]) -> Vec<(u64, u64)> {
    let mut replay = CacheReplay::new(alg, sizes, def, 0).expect("valid settings");
    let mut reader = open(Path::new(TRACE), &ReadOptions::default()).expect("trace opens");
    replay_trace(&mut reader, &mut replay).expect("trace replays");
    replay.reports().iter().map(|r| (r.counts.objects().misses(), r.counts.objects().accesses)).collect()
}

fn compare(def: ObjectDef, table: &[(usize, u64, u64)], accesses: u64) {
    if !Path::new(TRACE).exists() {
        println!("skipped: {TRACE} is absent");
        return;
    }
    let sizes: Vec<usize> = table.iter().map(|t| t.0).collect();
    let lru = ours(Algorithm::Lru, def, &sizes);
    let arc = ours(Algorithm::Arc, def, &sizes);
    println!("objects = {def}\n{:>8} {:>10} {:>10} {:>10} {:>10}", "size", "LRU lcs", "LRU ours", "ARC lcs", "ARC ours");
    for (i, &(size, lru_lcs, arc_lcs)) in table.iter().enumerate() {
        println!("{size:>8} {lru_lcs:>10} {:>10} {arc_lcs:>10} {:>10}", lru[i].0, arc[i].0);
    }
    for (i, &(size, lru_lcs, arc_lcs)) in table.iter().enumerate() {
        assert_eq!(lru[i].1, accesses, "accesses at {size}");
        assert_eq!(lru[i].0, lru_lcs, "LRU misses at {size}");
        assert_eq!(arc[i].0, arc_lcs, "ARC misses at {size}");
    }
}

#[test]
fn lru_and_arc_match_libcachesim_with_4k_blocks() {
    compare(ObjectDef::BLOCK_4K, &LIBCACHESIM_BLOCKS, 1_141_869);
}

#[test]
fn lru_and_arc_match_libcachesim_with_one_object_per_request() {
    compare(ObjectDef::Request, &LIBCACHESIM_REQUESTS, 113_872);
}
