//! Miss counts on the CloudPhysics trace against libCacheSim: LRU and ARC against its
//! `cachesim` (commit aa0fc40), and all six algorithms it shares with tierlab against its
//! Python package `libcachesim` 0.3.5 (how each was run is in this crate's README and in
//! `scripts/bench-cache.sh`). Skipped, with a note, when the shared traces are absent.

use std::path::Path;
use tierlab_cache::Algorithm;
use tierlab_placement::{replay_trace, CacheReplay, CurveObjects, MissRatioCurves, ObjectDef};
use tierlab_trace::{open, ReadOptions};

const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/traces/cloudphysics-io.csv");

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

/// The algorithms libCacheSim's Python package has too, in the order of the tables below.
const SHARED: [Algorithm; 6] = [Algorithm::Lru, Algorithm::Fifo, Algorithm::Arc, Algorithm::TwoQ, Algorithm::Sieve, Algorithm::S3Fifo];

const MIB: u64 = 1 << 20;

/// libcachesim 0.3.5 (`scripts/bench-cache.sh`): every request an object of its own size
/// (id = lbn), cache sizes in bytes; (misses, byte misses) of 113,872 requests and
/// 4,205,978,112 bytes, per algorithm of [`SHARED`], at 1, 4, 16, 64, 128, 256, 512 and
/// 1,024 MiB.
const SIZED_MIB: [u64; 8] = [1, 4, 16, 64, 128, 256, 512, 1024];
const LIBCACHESIM_SIZED: [[(u64, u64); 8]; 6] = [
    [(98456, 4127425024), (95968, 4115184128), (95032, 4106107392), (93994, 4073032192), (93151, 4035348480), (87793, 3841399808), (81609, 3613104640), (71702, 3059534336)],
    [(99825, 4133200384), (96755, 4118588928), (95371, 4107706368), (94122, 4073409536), (93185, 4034701824), (87058, 3806639104), (84005, 3750604800), (72140, 3080034816)],
    [(95306, 4113660416), (94458, 4108816384), (93624, 4094374912), (92057, 4021320704), (89372, 3902336512), (83253, 3632256000), (74233, 3259215872), (64759, 2707483648)],
    [(96112, 4115863040), (94802, 4109745152), (94245, 4098784256), (93295, 4050057728), (90871, 3951139328), (83339, 3654143488), (76632, 3252642816), (72074, 3079708160)],
    [(96453, 4119857664), (94138, 4106036736), (93767, 4098951168), (92738, 4054244352), (91359, 3988700672), (84473, 3723931648), (76644, 3415662080), (64376, 2690728448)],
    [(95635, 4115089920), (94290, 4106955264), (93787, 4096427008), (92199, 4021977088), (89929, 3892113920), (80087, 3456325632), (71891, 2989425152), (56051, 2331596800)],
];

/// libcachesim 0.3.5 with `ignore_obj_size` on the trace expanded to one record per
/// 4 KiB block (1,141,869): misses at 2,000, 20,000 and 200,000 blocks, per algorithm of
/// [`SHARED`] (the LRU and ARC figures are `cachesim`'s above as well).
const BLOCK_SIZES: [u64; 3] = [2_000, 20_000, 200_000];
const LIBCACHESIM_BLOCKS_ALL: [[u64; 3]; 6] = [
    [1_025_800, 1_005_820, 498_824],
    [1_027_058, 1_005_438, 501_832],
    [1_026_157, 963_176, 410_609],
    [1_021_864, 981_694, 477_888],
    [1_033_487, 960_234, 340_995],
    [1_024_178, 963_843, 345_812],
];

fn curves(objects: CurveObjects, sizes: &[u64]) -> Vec<tierlab_placement::CurvePoint> {
    let mut c = MissRatioCurves::new(&SHARED, sizes, objects, 0).expect("valid settings");
    let mut reader = open(Path::new(TRACE), &ReadOptions::default()).expect("trace opens");
    replay_trace(&mut reader, &mut c).expect("trace replays");
    c.points()
}

#[test]
fn six_algorithms_match_libcachesim_with_sized_objects() {
    if !Path::new(TRACE).exists() {
        println!("skipped: {TRACE} is absent");
        return;
    }
    let sizes: Vec<u64> = SIZED_MIB.iter().map(|m| m * MIB).collect();
    let points = curves(CurveObjects::Objects, &sizes);
    for (p, expected) in points.iter().zip(LIBCACHESIM_SIZED.iter().flatten()) {
        assert_eq!((p.counts.requests, p.counts.bytes), (113_872, 4_205_978_112));
        assert_eq!((p.counts.object_misses, p.counts.byte_misses), *expected, "{} at {} bytes", p.algorithm, p.size);
    }
}

#[test]
fn six_algorithms_match_libcachesim_with_4k_blocks() {
    if !Path::new(TRACE).exists() {
        println!("skipped: {TRACE} is absent");
        return;
    }
    let sizes: Vec<u64> = BLOCK_SIZES.iter().map(|b| b * 4096).collect();
    let points = curves(CurveObjects::BLOCK_4K, &sizes);
    for (p, expected) in points.iter().zip(LIBCACHESIM_BLOCKS_ALL.iter().flatten()) {
        assert_eq!(p.counts.objects, 1_141_869);
        assert_eq!(p.counts.object_misses, *expected, "{} at {} blocks", p.algorithm, p.capacity_units);
    }
}
