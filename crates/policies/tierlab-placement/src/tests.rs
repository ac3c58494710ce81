use super::*;
use proptest::prelude::*;
use tierlab_cache::Algorithm;
use tierlab_hybrid_policy::{CachingParams, CachingPolicy, Geometry, LinearPolicy, TieringParams, TieringPolicy, WritePolicy};
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
    assert_eq!(r.policy().lookup(1).map(|(tier, _)| tier), Some(tierlab_hybrid_policy::Tier::Hdd));
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
        // Promotions, demotions and pre-fetches copy whole extents; a write-back copies the
        // pages written since the last one: at least one 4 KiB page, at most the extent.
        let whole = (moves - report.stats.write_backs) * geo.extent_bytes;
        prop_assert!(report.stats.bytes_moved >= whole + report.stats.write_backs * KB4);
        prop_assert!(report.stats.bytes_moved <= whole + report.stats.write_backs * geo.extent_bytes);
    }
}

fn curves(algs: &[Algorithm], sizes: &[u64], objects: CurveObjects, reqs: &[IoRequest]) -> Vec<CurvePoint> {
    let mut c = MissRatioCurves::new(algs, sizes, objects, 1_000).unwrap();
    for q in reqs {
        c.access(q).unwrap();
    }
    for (used, cap) in c.occupancy() {
        assert!(used <= cap, "{used} units held in a cache of {cap}");
    }
    c.points()
}

/// One 512-byte request at sector `s`: one whole-request object.
fn object(s: u64, len: u64) -> IoRequest {
    req(0, s * 512, len, Op::Read)
}

#[test]
fn fifo_shows_beladys_anomaly_and_lru_does_not() {
    // Belady's sequence: FIFO misses 9 times with 3 frames and 10 times with 4.
    let reqs: Vec<_> = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5].into_iter().map(|k| object(k, 512)).collect();
    let p = curves(&[Algorithm::Fifo, Algorithm::Lru], &[3, 4], CurveObjects::CountedObjects, &reqs);
    let misses: Vec<u64> = p.iter().map(|p| p.counts.object_misses).collect();
    assert_eq!(misses, [9, 10, 10, 8]);
    assert_eq!((p[0].algorithm, p[0].size, p[0].capacity_units), (Algorithm::Fifo, 3, 3));
}

#[test]
fn block_curves_count_requests_blocks_and_the_bytes_in_missed_blocks() {
    // 8 KiB of room (two blocks). A 4,000-byte read at 6,096 touches blocks 1 and 2 (both
    // miss); block 2, then block 1, hit. A 6,000-byte write at 7,000 touches blocks 1 and
    // 2 (1,192 and 4,096 bytes of it, hits) and 3 (712 bytes, a miss).
    let reqs = [req(0, 6096, 4000, Op::Read), req(0, 8192, 4096, Op::Read), req(0, 4096, 4096, Op::Read), req(0, 7000, 6000, Op::Write)];
    let p = &curves(&[Algorithm::Lru], &[8192], CurveObjects::BLOCK_4K, &reqs)[0];
    assert_eq!(p.capacity_units, 2);
    let c = p.counts;
    assert_eq!((c.requests, c.request_misses, c.objects, c.object_misses), (4, 2, 7, 3));
    assert_eq!((c.bytes, c.byte_misses), (4000 + 4096 + 4096 + 6000, 4000 + 712));
    assert_eq!(p.byte_miss_ratio, 4712.0 / 18192.0);
}

#[test]
fn a_request_looked_up_in_pieces_counts_once_and_misses_if_any_piece_does() {
    let piece = crate::curves::PIECE_BLOCKS;
    let blocks = piece * 2 + 5;
    // The last piece's blocks first; then the whole request, whose earlier pieces miss
    // and whose last one hits.
    let reqs = [req(0, piece * 2 * 4096, 5 * 4096, Op::Read), req(1, 0, blocks * 4096, Op::Read), req(2, 0, blocks * 4096, Op::Read)];
    let p = &curves(&[Algorithm::Lru], &[blocks * 4096], CurveObjects::BLOCK_4K, &reqs)[0];
    let c = p.counts;
    assert_eq!((c.requests, c.request_misses), (3, 2));
    assert_eq!((c.objects, c.object_misses), (5 + 2 * blocks, blocks));
    assert_eq!(c.byte_misses, blocks * 4096);
}

#[test]
fn sized_objects_fill_a_cache_of_bytes() {
    // 10,000 bytes of LRU: 4,000 + 4,000, a third of 4,000 evicts the first; 20,000 bytes
    // is never admitted (and evicts nothing); the second, then the third, still hit.
    let reqs = [object(1, 4000), object(2, 4000), object(3, 4000), object(4, 20_000), object(2, 4000), object(3, 512)];
    let p = &curves(&[Algorithm::Lru], &[10_000], CurveObjects::Objects, &reqs)[0];
    let c = p.counts;
    assert_eq!((c.objects, c.object_misses), (6, 4));
    // A hit counts the request's own length.
    assert_eq!((c.bytes, c.byte_misses), (36_512, 32_000));
    // Counted, the same cache holds 3 objects… of 10,000.
    let p = &curves(&[Algorithm::Lru], &[3], CurveObjects::CountedObjects, &reqs)[0];
    assert_eq!(p.counts.object_misses, 4);
}

proptest! {
    /// Numbered keys give every count the keys themselves give, whether the numbers last
    /// the whole run or run out part-way (the caches then go back to the keys), for block
    /// and whole-request objects, across batches, and for requests long enough to be
    /// looked up in pieces.
    #[test]
    fn numbered_keys_give_the_same_curves(
        reqs in proptest::collection::vec((0u64..400, 1u64..40_000, 1u32..3), 1..300),
        budget_numbers in 0u64..200,
        long_at in proptest::option::of(0usize..300),
        blocks in any::<bool>(),
    ) {
        let algs = Algorithm::ALL;
        let objects = if blocks { CurveObjects::BLOCK_4K } else { CurveObjects::Objects };
        let sizes = [4096 * 3, 4096 * 40, 1 << 20];
        let mut reqs: Vec<IoRequest> = reqs
            .into_iter()
            .enumerate()
            .map(|(i, (sector, len, volume))| IoRequest { volume, ..req(i as u64 * 1000, sector * 4096 + len % 4096, len, Op::Read) })
            .collect();
        if let Some(at) = long_at.filter(|&at| at < reqs.len()) {
            // More blocks than one piece holds, and than one batch's keys.
            reqs[at].len_bytes = (crate::curves::PIECE_BLOCKS * 2 + 5) * 4096;
        }
        let plain = curves(&algs, &sizes, objects, &reqs);
        let numbered = MissRatioCurves::new(&algs, &sizes, objects, 1_000).unwrap();
        let per_number = numbered.key_numbering_bytes();
        let mut numbered = numbered.with_key_numbering(budget_numbers * per_number);
        let mut footprint = FootprintCounter::new(objects);
        for q in &reqs {
            numbered.access(q).unwrap();
            Replay::access(&mut footprint, q).unwrap();
        }
        prop_assert_eq!(numbered.points(), plain);
        prop_assert_eq!(numbered.keys_numbered(), footprint.footprint().objects <= budget_numbers);
    }
}

#[test]
fn curve_settings_and_requests_are_checked() {
    let err = |r: Result<MissRatioCurves, PlacementError>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err(MissRatioCurves::new(&[Algorithm::Lru], &[4095], CurveObjects::BLOCK_4K, 0)).contains("at least one block (4096 bytes)"));
    assert!(err(MissRatioCurves::new(&[], &[4096], CurveObjects::BLOCK_4K, 0)).contains("algorithm"));
    assert!(err(MissRatioCurves::new(&[Algorithm::Lru], &[], CurveObjects::Objects, 0)).contains("cache size"));
    assert!(err(MissRatioCurves::new(&[Algorithm::Lru], &[1], CurveObjects::Blocks { block_bytes: 0 }, 0)).contains("block size"));
    let mut c = MissRatioCurves::new(&[Algorithm::Sieve], &[10], CurveObjects::CountedObjects, 0).unwrap();
    // Volume 0 may use ids beyond 2^40 (object traces)…
    c.access(&object(1 << 50, 512)).unwrap();
    // … but not beside another volume, which could share its keys.
    let e = c.access(&IoRequest { volume: 1, ..object(5, 512) }).unwrap_err();
    assert!(e.to_string().contains("one volume"), "{e}");
    assert!(c.access(&object(5, 0)).is_err());
    let mut c = MissRatioCurves::new(&[Algorithm::Lru], &[10], CurveObjects::CountedObjects, 0).unwrap();
    c.access(&IoRequest { volume: 1, ..object(5, 512) }).unwrap();
    assert!(c.access(&IoRequest { volume: 1, ..object(1 << 45, 512) }).is_err());
}

#[test]
fn footprint_counts_distinct_blocks_and_objects() {
    let reqs = [req(0, 6096, 4000, Op::Read), req(0, 8192, 4096, Op::Read), object(1, 300), object(1, 900)];
    let mut f = FootprintCounter::new(CurveObjects::BLOCK_4K);
    let mut o = FootprintCounter::new(CurveObjects::Objects);
    for q in &reqs {
        f.access(q).unwrap();
        o.access(q).unwrap();
    }
    assert_eq!(f.footprint(), Footprint { requests: 4, objects: 3, bytes: 3 * KB4 });
    // Objects named by first sector: 11, 16 and 1 (sized when first seen).
    assert_eq!(o.footprint(), Footprint { requests: 4, objects: 3, bytes: 4000 + 4096 + 300 });
}

proptest! {
    /// All algorithms at several sizes in one pass give what each gives alone, in every
    /// object definition.
    #[test]
    fn one_pass_equals_separate_runs(reqs in arb_requests(), which in 0usize..3) {
        let objects = [CurveObjects::BLOCK_4K, CurveObjects::Objects, CurveObjects::CountedObjects][which];
        let sizes: Vec<u64> = match objects {
            CurveObjects::CountedObjects => vec![1, 3, 10, 40],
            _ => vec![4096, 3 * 4096 + 7, 40_000, 160_000],
        };
        let all = curves(&Algorithm::ALL, &sizes, objects, &reqs);
        prop_assert_eq!(all.len(), Algorithm::ALL.len() * sizes.len());
        for p in &all {
            let alone = curves(&[p.algorithm], &[p.size], objects, &reqs);
            prop_assert_eq!(&alone[0], p);
            prop_assert_eq!(p.counts.requests, reqs.len() as u64);
            prop_assert!(p.counts.request_misses <= p.counts.object_misses);
            prop_assert!(p.counts.byte_misses <= p.counts.bytes);
        }
    }

    /// With one-unit objects the curves agree with the single-algorithm cache replay
    /// (a separate code path) on every hit and miss.
    #[test]
    fn block_curves_agree_with_cache_replay(reqs in arb_requests(), block in any::<bool>()) {
        let (objects, def) = if block { (CurveObjects::BLOCK_4K, ObjectDef::BLOCK_4K) } else { (CurveObjects::CountedObjects, ObjectDef::Request) };
        let units = [1usize, 3, 10, 40];
        let sizes: Vec<u64> = units.iter().map(|&u| if block { u as u64 * KB4 } else { u as u64 }).collect();
        for alg in Algorithm::ALL {
            let points = curves(&[alg], &sizes, objects, &reqs);
            for (p, r) in points.iter().zip(cache_run(alg, &units, def, &reqs)) {
                prop_assert_eq!(p.counts.object_misses, r.counts.objects().misses(), "{} at {}", alg, p.size);
                prop_assert_eq!(p.counts.request_misses, r.counts.requests().misses());
            }
        }
    }

    /// LRU is a stack algorithm: with one-unit objects a larger cache never misses more,
    /// by block, by request or by byte. (FIFO is not: see Belady's anomaly above.)
    #[test]
    fn lru_curves_never_rise(reqs in arb_requests(), block in any::<bool>()) {
        let objects = if block { CurveObjects::BLOCK_4K } else { CurveObjects::CountedObjects };
        let sizes: Vec<u64> = (1..=70).map(|u| if block { u * KB4 } else { u }).collect();
        let points = curves(&[Algorithm::Lru], &sizes, objects, &reqs);
        for w in points.windows(2) {
            prop_assert!(w[1].counts.object_misses <= w[0].counts.object_misses);
            prop_assert!(w[1].counts.request_misses <= w[0].counts.request_misses);
            prop_assert!(w[1].counts.byte_misses <= w[0].counts.byte_misses);
        }
    }
}
