use super::*;
use proptest::prelude::*;
use tierlab_cache::Algorithm;
use tierlab_policy::{CachingParams, CachingPolicy, Geometry, LinearPolicy, TieringParams, TieringPolicy, WritePolicy};
use tierlab_types::{Op, NS_PER_S};

const KB4: u64 = 4096;

fn req(time_ns: u64, offset_bytes: u64, len_bytes: u64, op: Op) -> IoRequest {
    IoRequest { time_ns, volume: 0, offset_bytes, len_bytes, op }
}

/// One 4 KiB read of block `b`.
fn read_block(b: u64) -> IoRequest {
    req(0, b * KB4, KB4, Op::Read)
}

fn cache_run(alg: Algorithm, caps: &[usize], def: ObjectDef, reqs: &[IoRequest]) -> Vec<CacheReport> {
    let mut r = CacheReplay::new(alg, caps, def, 1_000).unwrap();
    for q in reqs {
        r.access(q).unwrap();
    }
    r.reports()
}

#[test]
fn block_keys_cover_every_touched_block() {
    let def = ObjectDef::BLOCK_4K;
    assert_eq!(def.keys(&req(0, 4096, 6656, Op::Read)).unwrap(), 1..3);
    assert_eq!(def.keys(&req(0, 4095, 2, Op::Read)).unwrap(), 0..2);
    assert_eq!(def.keys(&req(0, 8192, 4096, Op::Read)).unwrap(), 2..3);
    // The request definition names the first sector, whatever the length.
    assert_eq!(ObjectDef::Request.keys(&req(0, 42_932_745 * 512, 6656, Op::Read)).unwrap(), 42_932_745..42_932_746);
    // Volumes never share keys.
    let v3 = IoRequest { volume: 3, ..req(0, 0, 512, Op::Read) };
    assert_eq!(def.keys(&v3).unwrap(), 3 << INDEX_BITS..(3 << INDEX_BITS) + 1);
}

#[test]
fn bad_requests_and_settings_are_errors_naming_the_field() {
    let def = ObjectDef::BLOCK_4K;
    let field = |e: PlacementError| match e {
        PlacementError::Request { at, .. } => at.field,
        other => panic!("unexpected {other}"),
    };
    assert_eq!(field(def.keys(&req(0, 0, 0, Op::Read)).unwrap_err()), "len_bytes");
    assert_eq!(field(def.keys(&req(0, u64::MAX, 2, Op::Read)).unwrap_err()), "len_bytes");
    assert_eq!(field(def.keys(&req(0, 1 << 60, 1, Op::Read)).unwrap_err()), "offset_bytes");
    assert_eq!(field(def.keys(&IoRequest { volume: 1 << 24, ..read_block(0) }).unwrap_err()), "volume");
    assert!(ObjectDef::Block { block_bytes: 0 }.validate().is_err());
    assert!(CacheReplay::new(Algorithm::Lru, &[], def, 0).is_err());
    assert_eq!("block".parse::<ObjectDef>().unwrap(), ObjectDef::BLOCK_4K);
    assert_eq!("block:8192".parse::<ObjectDef>().unwrap(), ObjectDef::Block { block_bytes: 8192 });
    assert_eq!("Request".parse::<ObjectDef>().unwrap(), ObjectDef::Request);
    for bad in ["block:0", "block:x", "lbn", ""] {
        assert!(bad.parse::<ObjectDef>().is_err(), "{bad}");
    }
    let e = PlacementError::request("offset_bytes", "x", "y").at("t.csv", 7);
    assert_eq!(e.to_string(), "t.csv:7: field `offset_bytes`: expected x, found y");
}

#[test]
fn lru_hand_computed() {
    // Capacity 2: 1 m, 2 m, 1 h, 3 m (evicts 2), 2 m (evicts 1), 1 m (evicts 3), 2 h.
    let reqs: Vec<_> = [1, 2, 1, 3, 2, 1, 2].into_iter().map(read_block).collect();
    let r = &cache_run(Algorithm::Lru, &[2], ObjectDef::BLOCK_4K, &reqs)[0];
    assert_eq!(r.counts.objects(), HitCounts { accesses: 7, hits: 2 });
    assert_eq!((r.insertions, r.evictions), (5, 3));
}

#[test]
fn arc_hand_computed() {
    // Capacity 2 (FAST'03 pseudocode): 1 2 → T1 = [2 1]. 1 hits → T2 = [1]. 3 misses:
    // |T1| = 1 > p = 0, so 2 goes to B1. 2 misses in B1: p = 1, |T1| = 1 = p so T2's 1
    // goes to B2; 2 enters T2. 1 misses in B2: p = 0, T1's 3 goes to B1; 1 enters T2.
    // 2 and 1 now hit; 3 misses in B1 (p = 1) and T2's LRU, 2, goes.
    let reqs: Vec<_> = [1, 2, 1, 3, 2, 1, 2, 1, 3].into_iter().map(read_block).collect();
    let r = &cache_run(Algorithm::Arc, &[2], ObjectDef::BLOCK_4K, &reqs)[0];
    assert_eq!(r.counts.objects(), HitCounts { accesses: 9, hits: 3 });
    assert_eq!(r.evictions, 4);
}

#[test]
fn a_request_hits_only_when_all_its_blocks_do() {
    let reqs = [req(0, 0, 2 * KB4, Op::Read), req(0, KB4, 2 * KB4, Op::Read), req(0, 0, 2 * KB4, Op::Read)];
    let r = &cache_run(Algorithm::Lru, &[8], ObjectDef::BLOCK_4K, &reqs)[0];
    assert_eq!(r.counts.read_requests, HitCounts { accesses: 3, hits: 1 });
    assert_eq!(r.counts.read_objects, HitCounts { accesses: 6, hits: 3 });
    // As whole-request objects the second request is a different object (sector 8).
    let r = &cache_run(Algorithm::Lru, &[8], ObjectDef::Request, &reqs)[0];
    assert_eq!(r.counts.objects(), HitCounts { accesses: 3, hits: 1 });
    assert_eq!(r.bytes_moved, None);
}

#[test]
fn dirty_victims_are_written_back() {
    // One block of room: write 0, read 1 (0 is dirty: write-back), read 0 (1 is clean).
    let reqs = [req(0, 0, KB4, Op::Write), read_block(1), read_block(0)];
    let r = &cache_run(Algorithm::Lru, &[1], ObjectDef::BLOCK_4K, &reqs)[0];
    assert_eq!((r.insertions, r.evictions, r.write_backs), (3, 2, 1));
    assert_eq!(r.bytes_moved, Some(4 * KB4));
    assert_eq!(r.counts.write_objects, HitCounts { accesses: 1, hits: 0 });
    // A cache of size 0 admits nothing and never hits.
    let r = &cache_run(Algorithm::Arc, &[0], ObjectDef::BLOCK_4K, &reqs)[0];
    assert_eq!((r.counts.objects().hits, r.insertions, r.write_backs), (0, 0, 0));
}

#[test]
fn caching_policy_hand_computed() {
    let geo = Geometry::new(KB4, 2 * KB4, 16 * KB4).unwrap();
    let params = CachingParams {
        pt: 2,
        tw_ns: 60 * NS_PER_S,
        mcml: 1,
        write: WritePolicy::WriteBack,
        replacement: Algorithm::Lru,
        writeback_queue_cap: 1024,
    };
    let mut r = PolicyReplay::new(CachingPolicy::new(geo, params).unwrap());
    // e0 m m (pre-fetched) h; e1 m m h; e2 m m (evicts clean e0); write e2 h (written
    // back at once); e0 m.
    let script = [(0, Op::Read), (0, Op::Read), (0, Op::Read), (1, Op::Read), (1, Op::Read), (1, Op::Read), (2, Op::Read), (2, Op::Read), (2, Op::Write), (0, Op::Read)];
    for (e, op) in script {
        r.access(&req(0, e * KB4, KB4, op)).unwrap();
    }
    let rep = r.report();
    assert_eq!(rep.counts.read_requests, HitCounts { accesses: 9, hits: 2 });
    assert_eq!(rep.counts.write_requests, HitCounts { accesses: 1, hits: 1 });
    assert_eq!((rep.stats.prefetches, rep.stats.evictions, rep.stats.write_backs), (3, 1, 1));
    assert_eq!((rep.stats.bytes_moved, rep.migrations), (4 * KB4, 4));
    assert_eq!(rep.stats.dirty_extents, 0);
}

#[test]
fn tiering_policy_hand_computed() {
    let geo = Geometry::new(KB4, 4 * KB4, 16 * KB4).unwrap();
    let params = TieringParams { pt: 2, tw_ns: 60 * NS_PER_S, mcml: 1, lt: 1, ht: 2, reserved_hdd_extents: 3 };
    let mut r = PolicyReplay::new(TieringPolicy::new(geo, params).unwrap());
    // v0 v1 v2 land on the SSD (hits); free SSD extents fall to LT, so the coldest, v0,
    // is demoted. v0 misses twice and is promoted; that demotes the coldest, v1, which
    // then misses.
    for (t, v) in [(0, 0), (1, 1), (2, 2), (3, 0), (4, 0), (5, 1)] {
        r.access(&req(t * NS_PER_S, v * KB4, KB4, Op::Read)).unwrap();
    }
    let rep = r.report();
    assert_eq!(rep.counts.read_objects, HitCounts { accesses: 6, hits: 3 });
    assert_eq!((rep.stats.promotions, rep.stats.demotions, rep.migrations), (1, 2, 3));
    assert_eq!(rep.stats.bytes_moved, 3 * KB4);
    assert_eq!(r.policy().lookup(1).map(|(tier, _)| tier), Some(tierlab_policy::Tier::Hdd));
}

#[test]
fn policy_blocks_follow_the_first_piece_of_each_extent() {
    // Linear: 2 SSD extents of 8 KiB, then the HDD. Blocks 3..5 span the boundary.
    let geo = Geometry::new(2 * KB4, 4 * KB4, 8 * KB4).unwrap();
    let mut r = PolicyReplay::new(LinearPolicy::new(geo));
    r.access(&req(0, 3 * KB4 + 100, 2 * KB4, Op::Read)).unwrap();
    r.access(&req(0, 100, 2 * KB4, Op::Write)).unwrap();
    let c = r.report().counts;
    assert_eq!(c.read_objects, HitCounts { accesses: 3, hits: 1 });
    assert_eq!(c.read_requests, HitCounts { accesses: 1, hits: 0 });
    assert_eq!(c.write_objects, HitCounts { accesses: 3, hits: 3 });
    // Out of range and a second volume are errors, not panics.
    assert!(r.access(&req(0, 100 * KB4, KB4, Op::Read)).is_err());
    assert!(r.access(&IoRequest { volume: 1, ..read_block(0) }).is_err());
}

#[test]
fn trace_replay_names_the_file_and_line_of_a_rejected_request() {
    use std::io::Cursor;
    use tierlab_trace::{ReadOptions, TraceReader};
    let csv = "version,time,op,size,lbn\n1,5,28,4096,0\n1,5,2a,4096,100000\n";
    let open = || TraceReader::from_bufread(Cursor::new(csv.as_bytes().to_vec()), "mem.csv", &ReadOptions::default()).unwrap();
    // A 1 MiB linear drive: the second request (line 3) is beyond it.
    let geo = Geometry::new(KB4, 64 * KB4, 192 * KB4).unwrap();
    let mut r = PolicyReplay::new(LinearPolicy::new(geo));
    let e = replay_trace(&mut open(), &mut r).unwrap_err();
    assert!(e.to_string().starts_with("mem.csv:3: field `offset_bytes`"), "{e}");
    assert_eq!(r.report().counts.requests().accesses, 1);
    // In cache mode both replay; a malformed line is the reader's error.
    let mut c = CacheReplay::new(Algorithm::Lru, &[4], ObjectDef::BLOCK_4K, 0).unwrap();
    assert_eq!(replay_trace(&mut open(), &mut c).unwrap(), 2);
    let bad = "version,time,op,size,lbn\n1,5,28,4096,0\n1,5,28,x,0\n";
    let mut reader = TraceReader::from_bufread(Cursor::new(bad.as_bytes().to_vec()), "bad.csv", &ReadOptions::default()).unwrap();
    assert!(matches!(replay_trace(&mut reader, &mut c), Err(PlacementError::Trace(_))));
}

fn arb_requests() -> impl Strategy<Value = Vec<IoRequest>> {
    proptest::collection::vec((0u64..64, 1u64..4, any::<bool>(), 0u64..50), 1..300).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (b, n, w, skew))| {
                let op = if w { Op::Write } else { Op::Read };
                req(i as u64 * 1_000, b * KB4 + skew * 512, n * KB4 - skew * 10, op)
            })
            .collect()
    })
}

proptest! {
    /// Hits + misses = accesses for requests and objects, whatever the algorithm and
    /// definition; request hits never exceed object-level evidence; a replay is
    /// deterministic.
    #[test]
    fn counts_add_up_and_replays_repeat(alg in 0usize..5, reqs in arb_requests(), block in any::<bool>()) {
        let alg = Algorithm::ALL[alg];
        let def = if block { ObjectDef::BLOCK_4K } else { ObjectDef::Request };
        let caps = [0, 1, 3, 10, 40];
        let a = cache_run(alg, &caps, def, &reqs);
        prop_assert_eq!(&a, &cache_run(alg, &caps, def, &reqs));
        let objects: u64 = reqs.iter().map(|q| def.keys(q).unwrap().count() as u64).sum();
        for r in &a {
            let c = r.counts;
            prop_assert_eq!(c.requests().accesses, reqs.len() as u64);
            prop_assert_eq!(c.objects().accesses, objects);
            prop_assert_eq!(c.objects().hits + c.objects().misses(), objects);
            prop_assert!(c.requests().hits <= c.objects().hits);
            prop_assert!(r.evictions <= r.insertions);
            prop_assert!(r.insertions - r.evictions <= r.capacity_objects as u64);
            prop_assert!(r.write_backs <= r.evictions);
            if r.capacity_objects > 0 {
                prop_assert_eq!(r.insertions, c.objects().misses());
            }
        }
    }

    /// LRU is a stack algorithm: a larger cache holds a superset, so misses never grow
    /// with the size (per object and per request).
    #[test]
    fn lru_misses_do_not_grow_with_size(reqs in arb_requests(), block in any::<bool>()) {
        let def = if block { ObjectDef::BLOCK_4K } else { ObjectDef::Request };
        let caps: Vec<usize> = (0..=70).collect();
        let reports = cache_run(Algorithm::Lru, &caps, def, &reqs);
        for w in reports.windows(2) {
            prop_assert!(w[1].counts.objects().misses() <= w[0].counts.objects().misses());
            prop_assert!(w[1].counts.requests().misses() <= w[0].counts.requests().misses());
        }
    }

    /// Policy mode: the same counts hold, and the tiering policy never loses track of an
    /// extent (every request it accepted can be routed again).
    #[test]
    fn policy_counts_add_up(reqs in arb_requests(), caching in any::<bool>()) {
        // 8 KiB extents: a piece may cover one or two 4 KiB blocks.
        let geo = Geometry::new(2 * KB4, 16 * KB4, 256 * KB4).unwrap();
        let params = TieringParams { pt: 2, tw_ns: 60 * NS_PER_S, mcml: 2, lt: 1, ht: 3, reserved_hdd_extents: 5 };
        let report = if caching {
            let mut r = PolicyReplay::new(CachingPolicy::new(geo, CachingParams { pt: 2, ..CachingParams::default() }).unwrap());
            for q in &reqs { r.access(q).unwrap(); }
            r.report()
        } else {
            let mut r = PolicyReplay::new(TieringPolicy::new(geo, params).unwrap());
            for q in &reqs { r.access(q).unwrap(); }
            r.report()
        };
        let blocks: u64 = reqs.iter().map(|q| ObjectDef::BLOCK_4K.keys(q).unwrap().count() as u64).sum();
        prop_assert_eq!(report.counts.objects().accesses, blocks);
        prop_assert_eq!(report.counts.requests().accesses, reqs.len() as u64);
        prop_assert!(report.counts.requests().hits <= report.counts.objects().hits);
        let moves = report.stats.promotions + report.stats.demotions + report.stats.prefetches + report.stats.write_backs;
        prop_assert_eq!(moves, report.migrations);
        prop_assert_eq!(report.stats.bytes_moved, moves * geo.extent_bytes);
    }
}
