//! The policies driven by a model executor that really stores data: every block carries the
//! version last written to it, migrations copy it, and every read must see the latest
//! version — whatever the interleaving of requests, in-flight I/O and migrations.

use super::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};
use tierlab_cache::Algorithm;

const BLOCK: u64 = 4096;
const ES: u64 = 4 * BLOCK;

#[derive(Default)]
struct Model {
    ssd: HashMap<u64, u64>,
    hdd: HashMap<u64, u64>,
    /// Migration id → (the migration, its RAM copy once read).
    moving: BTreeMap<u64, (Migration, Option<Vec<u64>>)>,
    /// Virtual block → latest version written.
    truth: HashMap<u64, u64>,
    /// Writes routed but not yet completed: (pieces, virtual blocks, version).
    pending: Vec<(Vec<Piece>, Vec<u64>, u64)>,
    version: u64,
}

impl Model {
    fn dev(&mut self, place: Place) -> &mut HashMap<u64, u64> {
        match place {
            Place::Ssd => &mut self.ssd,
            _ => &mut self.hdd,
        }
    }

    fn dev_of(&mut self, tier: Tier) -> &mut HashMap<u64, u64> {
        match tier {
            Tier::Ssd => &mut self.ssd,
            Tier::Hdd => &mut self.hdd,
        }
    }

    fn read_block(&self, p: &Piece, k: u64) -> u64 {
        let off = p.device_offset_bytes + k * BLOCK;
        match p.place {
            Place::Ssd => self.ssd.get(&off).copied().unwrap_or(0),
            Place::Hdd => self.hdd.get(&off).copied().unwrap_or(0),
            Place::Ram => {
                let (m, ram) = self.moving.values().find(|(m, _)| m.extent == p.extent).expect("RAM read of an extent not moving");
                // The copy starts where the migration's source does within the extent.
                let first = m.from_offset_bytes % ES;
                ram.as_ref().expect("RAM read before the copy was made")[((off - first) / BLOCK) as usize]
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Step {
    Read(u64, u64),
    Write(u64, u64),
    CompleteWrite,
    StartMigration,
    CopyMigration,
    FinishMigration(bool),
}

fn step_strategy(blocks: u64) -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..blocks, 1u64..6).prop_map(|(b, n)| Step::Read(b, n)),
        4 => (0..blocks, 1u64..6).prop_map(|(b, n)| Step::Write(b, n)),
        2 => Just(Step::CompleteWrite),
        3 => Just(Step::StartMigration),
        2 => Just(Step::CopyMigration),
        3 => Just(Step::FinishMigration(true)),
        1 => Just(Step::FinishMigration(false)),
    ]
}

fn complete_write(m: &mut Model, policy: &mut dyn Policy) {
    if m.pending.is_empty() {
        return;
    }
    let (pieces, _blocks, version) = m.pending.remove(0);
    for p in &pieces {
        for k in 0..p.len_bytes / BLOCK {
            let off = p.device_offset_bytes + k * BLOCK;
            m.dev(p.place).insert(off, version);
        }
    }
    policy.done(&pieces);
}

/// Run `steps` against `policy`; time advances 1 s per step. With `fresh` (a new policy of
/// the same settings), also check that the journal the policy emits rebuilds its mapping.
fn drive(policy: &mut dyn Policy, capacity_bytes: u64, steps: Vec<Step>) -> Result<(), TestCaseError> {
    drive_journaled(policy, capacity_bytes, steps, None)
}

fn drive_journaled(policy: &mut dyn Policy, capacity_bytes: u64, steps: Vec<Step>, fresh: Option<&dyn Fn() -> Box<dyn Policy>>) -> Result<(), TestCaseError> {
    let mut m = Model::default();
    let mut pieces = Vec::new();
    let mut journal = Vec::new();
    if fresh.is_some() {
        policy.enable_journal();
    }
    for (t, step) in steps.into_iter().enumerate() {
        if let Some(fresh) = fresh {
            policy.take_changes(&mut journal);
            let (mut now, mut rebuilt) = (Vec::new(), Vec::new());
            policy.snapshot(&mut now);
            let mut q = fresh();
            q.restore(&journal).map_err(|e| TestCaseError::fail(format!("restore at step {t}: {e}")))?;
            q.snapshot(&mut rebuilt);
            prop_assert_eq!(&rebuilt, &now, "the journal does not rebuild the mapping at step {}", t);
        }
        let now = t as u64 * 1_000_000_000;
        match step {
            Step::Read(b, n) | Step::Write(b, n) => {
                let is_write = matches!(step, Step::Write(..));
                let off = b * BLOCK;
                if off >= capacity_bytes {
                    continue;
                }
                let len = (n * BLOCK).min(capacity_bytes - off);
                let blocks: Vec<u64> = (off / BLOCK..(off + len) / BLOCK).collect();
                // Reads of blocks with a write in flight have no defined answer: skip them.
                if !is_write && m.pending.iter().any(|(_, bs, _)| bs.iter().any(|x| blocks.contains(x))) {
                    continue;
                }
                let op = if is_write { Op::Write } else { Op::Read };
                match policy.route(now, op, off, len, &mut pieces).map_err(|e| TestCaseError::fail(e.to_string()))? {
                    Routing::Wait(id) => prop_assert!(m.moving.contains_key(&id), "told to wait for migration {} that is not running", id),
                    Routing::Go => {
                        let covered: u64 = pieces.iter().filter(|p| !(is_write && p.place == Place::Ssd && pieces.iter().any(|q| q.place == Place::Hdd && q.extent == p.extent))).map(|p| p.len_bytes).sum();
                        prop_assert!(covered >= len, "pieces cover {} of {} bytes", covered, len);
                        if is_write {
                            m.version += 1;
                            for x in &blocks {
                                m.truth.insert(*x, m.version);
                            }
                            m.pending.push((pieces.clone(), blocks, m.version));
                        } else {
                            let mut vb = off / BLOCK;
                            for p in &pieces {
                                for k in 0..p.len_bytes / BLOCK {
                                    // A block never written may read as anything (as on a real disk).
                                    if let Some(&want) = m.truth.get(&(vb + k)) {
                                        let got = m.read_block(p, k);
                                        prop_assert_eq!(got, want, "block {} read from {:?} at step {}", vb + k, p.place, t);
                                    }
                                }
                                vb += p.len_bytes / BLOCK;
                            }
                            policy.done(&pieces);
                        }
                    }
                }
            }
            Step::CompleteWrite => complete_write(&mut m, policy),
            Step::StartMigration => {
                if let Some(mig) = policy.next_migration(now) {
                    prop_assert!(!m.pending.iter().any(|(ps, _, _)| ps.iter().any(|p| p.extent == mig.extent)), "migration of extent {} with a write in flight", mig.extent);
                    m.moving.insert(mig.id, (mig, None));
                }
            }
            Step::CopyMigration => {
                if let Some((&id, _)) = m.moving.iter().find(|(_, (_, ram))| ram.is_none()) {
                    let mig = m.moving[&id].0;
                    // What the migration copies: a whole extent, or a write-back's dirty pages.
                    let data: Vec<u64> = (0..mig.len_bytes / BLOCK)
                        .map(|k| m.dev_of(mig.from).get(&(mig.from_offset_bytes + k * BLOCK)).copied().unwrap_or(0))
                        .collect();
                    m.moving.get_mut(&id).unwrap().1 = Some(data);
                    policy.migration_copied(id);
                }
            }
            Step::FinishMigration(ok) => {
                if let Some((&id, _)) = m.moving.iter().find(|(_, (_, ram))| ram.is_some()) {
                    let (mig, ram) = m.moving.remove(&id).unwrap();
                    if ok {
                        for (k, v) in ram.unwrap().into_iter().enumerate() {
                            m.dev_of(mig.to).insert(mig.to_offset_bytes + k as u64 * BLOCK, v);
                        }
                    }
                    policy.migration_done(now, id, ok);
                }
            }
        }
        let s = policy.stats();
        prop_assert!(s.ssd_hits <= s.pieces);
    }
    Ok(())
}

fn geo() -> Geometry {
    Geometry::new(ES, 8 * ES, 40 * ES).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn tiering_never_loses_a_write(
        pt in 1u32..4, mcml in 1u32..4, tw_s in 1u64..30,
        steps in proptest::collection::vec(step_strategy(44 * 4), 1..400),
    ) {
        let params = TieringParams { pt, tw_ns: tw_s * 1_000_000_000, mcml, lt: 1, ht: 3, reserved_hdd_extents: 3 + mcml };
        let mut p = TieringPolicy::new(geo(), params).unwrap();
        let cap = p.virtual_bytes();
        let fresh = || -> Box<dyn Policy> { Box::new(TieringPolicy::new(geo(), params).unwrap()) };
        drive_journaled(&mut p, cap, steps, Some(&fresh))?;
    }

    #[test]
    fn caching_never_loses_a_write(
        pt in 1u32..4, mcml in 1u32..4, write in 0usize..3, alg in 0usize..5, cap in 1u32..4,
        steps in proptest::collection::vec(step_strategy(40 * 4), 1..400),
    ) {
        let write = [WritePolicy::WriteBack, WritePolicy::WriteThrough, WritePolicy::WriteAround][write];
        let params = CachingParams { pt, tw_ns: 20_000_000_000, mcml, write, replacement: Algorithm::ALL[alg], writeback_queue_cap: cap };
        let mut p = CachingPolicy::new(geo(), params).unwrap();
        let c = p.virtual_bytes();
        let fresh = || -> Box<dyn Policy> { Box::new(CachingPolicy::new(geo(), params).unwrap()) };
        drive_journaled(&mut p, c, steps, Some(&fresh))?;
    }

    #[test]
    fn linear_never_loses_a_write(steps in proptest::collection::vec(step_strategy(48 * 4), 1..200)) {
        let mut p = LinearPolicy::new(geo());
        let c = p.virtual_bytes();
        drive(&mut p, c, steps)?;
    }
}

/// First touches without letting migrations run: the SSD fills, then the HDD.
fn touch(p: &mut dyn Policy, extents: std::ops::Range<u64>) {
    let mut pieces = Vec::new();
    for v in extents {
        p.route(0, Op::Write, v * ES, BLOCK, &mut pieces).unwrap();
        p.done(&pieces.clone());
    }
}

fn run_accesses(p: &mut dyn Policy, accesses: &[(u64, Op, u64)]) {
    let mut pieces = Vec::new();
    for &(t_s, op, ext) in accesses {
        let now = t_s * 1_000_000_000;
        if let Ok(Routing::Go) = p.route(now, op, ext * ES, BLOCK, &mut pieces) {
            let done = pieces.clone();
            p.done(&done);
        }
        while let Some(m) = p.next_migration(now) {
            p.migration_copied(m.id);
            p.migration_done(now, m.id, true);
        }
    }
}

#[test]
fn first_touch_fills_the_ssd_first() {
    let mut p = TieringPolicy::new(geo(), TieringParams { pt: 2, tw_ns: 10_000_000_000, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 }).unwrap();
    let mut pieces = Vec::new();
    for v in 0..10u64 {
        p.route(0, Op::Write, v * ES, BLOCK, &mut pieces).unwrap();
        let expected = if v < 8 { Place::Ssd } else { Place::Hdd };
        assert_eq!(pieces[0].place, expected, "extent {v}");
        p.done(&pieces.clone());
    }
    assert_eq!(p.lookup(9), Some((Tier::Hdd, ES)));
}

#[test]
fn two_misses_within_the_window_promote_one_outside_does_not() {
    let params = TieringParams { pt: 2, tw_ns: 10_000_000_000, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 };
    let mut p = TieringPolicy::new(geo(), params).unwrap();
    // Extents 0-7 fill the SSD; 8 and 9 land on the HDD (first touch counts as miss 1).
    touch(&mut p, 0..10);
    run_accesses(
        &mut p,
        &[
            (20, Op::Read, 8), // 20 s after its last miss: the count restarts at 1
            (25, Op::Read, 8), // 5 s later, within TW: count 2 = PT, promoted
            (40, Op::Read, 9), // 40 s after its last miss: restarts at 1, not promoted
        ],
    );
    let s = p.stats();
    assert_eq!(s.promotions, 1, "{s:?}");
    assert_eq!(p.lookup(8).map(|x| x.0), Some(Tier::Ssd));
    assert_eq!(p.lookup(9).map(|x| x.0), Some(Tier::Hdd));
    // The SSD was full (free 0 ≤ LT = 1): demotion freed HT = 3 extents first.
    assert_eq!(s.demotions, 3);
}

#[test]
fn demotion_refills_free_extents_to_the_high_watermark() {
    let params = TieringParams { pt: 2, tw_ns: 5_000_000_000, mcml: 2, lt: 1, ht: 3, reserved_hdd_extents: 5 };
    let mut p = TieringPolicy::new(geo(), params).unwrap();
    touch(&mut p, 0..21); // extent 20 is on the HDD
    run_accesses(&mut p, &[(100, Op::Read, 20), (101, Op::Read, 20)]);
    let s = p.stats();
    assert_eq!(s.free_ssd_extents, 2, "demotion to HT (3) then one promotion: {s:?}");
    assert_eq!(s.promotions, 1);
    assert_eq!(s.demotions, 3);
}

#[test]
fn demotion_sweep_settles_for_the_oldest_of_a_bounded_scan() {
    let limit = tierlab_cache::WSCLOCK_SCAN_CANDIDATES as u64;
    let geo = Geometry::new(ES, 3 * limit * ES, 10 * limit * ES).unwrap();
    let params = TieringParams { pt: 1, tw_ns: 1_000 * 1_000_000_000, mcml: 1, lt: 1, ht: 2, reserved_hdd_extents: 3 };
    let mut p = TieringPolicy::new(geo, params).unwrap();
    // Fill the SSD, one extent a second; extent 2·limit + 20 is used first of all. No
    // migration runs yet, and everything stays inside the window.
    let oldest = 2 * limit + 20;
    let mut pieces = Vec::new();
    for v in 0..3 * limit {
        let t_s = if v == oldest { 1 } else { 10 + v };
        p.route(t_s * 1_000_000_000, Op::Write, v * ES, BLOCK, &mut pieces).unwrap();
        p.done(&pieces.clone());
    }
    let now = 400 * 1_000_000_000;
    while let Some(m) = p.next_migration(now) {
        assert_eq!(m.kind, MoveKind::Demote);
        p.migration_copied(m.id);
        p.migration_done(now, m.id, true);
    }
    // The first turn clears reference bits; the second passes `limit` extents at a time
    // and takes the oldest of each stretch: extents 0 and `limit`, not the oldest overall.
    assert_eq!(p.stats().demotions, 2);
    assert_eq!(p.lookup(0).map(|x| x.0), Some(Tier::Hdd));
    assert_eq!(p.lookup(limit as u32).map(|x| x.0), Some(Tier::Hdd));
    assert_eq!(p.lookup(oldest as u32).map(|x| x.0), Some(Tier::Ssd));
}

#[test]
fn populate_lays_extents_in_address_order_ssd_first() {
    let params = TieringParams { pt: 2, tw_ns: 10_000_000_000, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 };
    let mut p = TieringPolicy::new(geo(), params).unwrap();
    p.populate(12);
    for v in 0..12 {
        let tier = if v < 8 { Tier::Ssd } else { Tier::Hdd };
        assert_eq!(p.lookup(v), Some((tier, u64::from(v % 8) * ES)), "extent {v}");
    }
    assert_eq!(p.lookup(12), None);
    assert_eq!(p.stats().mapped_extents, 12);
    // The SSD is full: the first request sets demotion going, down to HT free extents.
    run_accesses(&mut p, &[(1, Op::Read, 0)]);
    assert_eq!(p.stats().demotions, 3);
    // Asking for more than the drive holds maps what there is.
    let mut q = TieringPolicy::new(geo(), params).unwrap();
    q.populate(u32::MAX);
    assert_eq!(q.stats().mapped_extents * ES, q.virtual_bytes());
}

#[test]
fn promotion_is_cancelled_while_the_extent_has_io_in_flight() {
    let params = TieringParams { pt: 1, tw_ns: 5_000_000_000, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 };
    let mut p = TieringPolicy::new(geo(), params).unwrap();
    let mut pieces = Vec::new();
    for v in 0..4u64 {
        p.route(0, Op::Write, v * ES, BLOCK, &mut pieces).unwrap();
        p.done(&pieces.clone());
    }
    // Extent 20 is laid on the first free extent, which is on the SSD; fill the SSD first.
    for v in 4..8u64 {
        p.route(0, Op::Write, v * ES, BLOCK, &mut pieces).unwrap();
        p.done(&pieces.clone());
    }
    p.route(1, Op::Read, 20 * ES, BLOCK, &mut pieces).unwrap(); // in flight, queued for promotion
    let held = pieces.clone();
    // Demotions come first (SSD full); then the promotion is found busy and dropped.
    while let Some(m) = p.next_migration(1) {
        assert_ne!(m.kind, MoveKind::Promote);
        p.migration_done(1, m.id, true);
    }
    assert_eq!(p.stats().cancelled_migrations, 1);
    p.done(&held);
}

#[test]
fn checkpointing_holds_migrations() {
    let params = TieringParams { pt: 1, tw_ns: 5_000_000_000, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 };
    let mut p = TieringPolicy::new(geo(), params).unwrap();
    let mut pieces = Vec::new();
    for v in 0..9u64 {
        p.route(0, Op::Write, v * ES, BLOCK, &mut pieces).unwrap();
        p.done(&pieces.clone());
    }
    p.set_checkpointing(true);
    assert!(p.next_migration(0).is_none());
    p.set_checkpointing(false);
    assert!(p.next_migration(0).is_some());
}

#[test]
fn bad_parameters_are_named() {
    let g = geo();
    let e = |p: TieringParams| match TieringPolicy::new(g, p) {
        Err(PolicyError::Param { name, .. }) => name,
        other => panic!("expected a parameter error, got {:?}", other.map(|_| ())),
    };
    let ok = TieringParams { pt: 1, tw_ns: 1, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 };
    assert_eq!(e(TieringParams { pt: 0, ..ok }), "pt");
    assert_eq!(e(TieringParams { lt: 3, ..ok }), "lt");
    assert_eq!(e(TieringParams { ht: 8, ..ok }), "ht");
    assert_eq!(e(TieringParams { reserved_hdd_extents: 2, ..ok }), "reserved_hdd_extents");
    assert!(matches!(Geometry::new(6000, 1 << 30, 1 << 30), Err(PolicyError::Param { name: "es", .. })));
    assert!(matches!(Geometry::new(2 << 20, 1 << 30, 1 << 30), Err(PolicyError::Param { name: "es", .. })));
    let mut p = TieringPolicy::new(g, ok).unwrap();
    assert!(p.set_param("es", 8192.0).is_err());
    assert!(p.set_param("lt", 5.0).is_err(), "lt ≥ ht is refused at run time too");
    p.set_param("pt", 4.0).unwrap();
    assert_eq!(p.params().pt, 4);
    let big = CachingParams::default();
    assert!(CachingPolicy::new(Geometry::new(ES, 50 * ES, 40 * ES).unwrap(), big).is_err(), "SSD larger than the HDD");
}

#[test]
fn out_of_range_requests_are_errors() {
    let mut p = TieringPolicy::new(geo(), TieringParams { pt: 1, tw_ns: 1, mcml: 1, lt: 1, ht: 3, reserved_hdd_extents: 4 }).unwrap();
    let cap = p.virtual_bytes();
    let mut pieces = Vec::new();
    assert!(p.route(0, Op::Read, cap - BLOCK, 2 * BLOCK, &mut pieces).is_err());
    assert!(p.route(0, Op::Read, u64::MAX, 1, &mut pieces).is_err());
    assert!(p.route(0, Op::Read, 0, 0, &mut pieces).is_err());
}

#[test]
fn mapping_state_is_at_most_16_bytes_per_extent() {
    // 1 TiB of 1 MiB extents with the SSD at a quarter: 12 B entry + 1 B reverse share + bitmap.
    let g = Geometry::new(1 << 20, 256 << 30, 768 << 30).unwrap();
    let p = TieringPolicy::new(g, TieringParams::default()).unwrap();
    let b = p.bytes_per_extent();
    assert!(b <= 16.0, "{b} bytes per extent");
    assert!(b > 12.0);
}

#[test]
fn caching_prefetches_after_pt_accesses_and_writes_back_dirty_data() {
    let params = CachingParams { pt: 2, tw_ns: 10_000_000_000, mcml: 1, write: WritePolicy::WriteBack, replacement: Algorithm::Lru, writeback_queue_cap: 8 };
    let mut p = CachingPolicy::new(geo(), params).unwrap();
    run_accesses(&mut p, &[(0, Op::Read, 3), (1, Op::Read, 3)]);
    assert_eq!(p.stats().prefetches, 1);
    let mut pieces = Vec::new();
    p.route(2, Op::Read, 3 * ES, BLOCK, &mut pieces).unwrap();
    assert_eq!(pieces[0].place, Place::Ssd);
    p.done(&pieces.clone());
    p.route(3, Op::Write, 3 * ES, BLOCK, &mut pieces).unwrap();
    assert_eq!(pieces.len(), 1);
    assert_eq!(pieces[0].place, Place::Ssd);
    assert_eq!(p.stats().dirty_extents, 1);
    p.done(&pieces.clone());
    let m = p.next_migration(4).expect("a write-back");
    assert_eq!(m.kind, MoveKind::WriteBack);
    p.migration_done(4, m.id, true);
    assert_eq!(p.stats().dirty_extents, 0);
    assert_eq!(p.stats().write_backs, 1);
}

/// A caching policy (16 KiB extents of four pages) holding extent 3 in the SSD, clean.
fn caching_with_extent_3_cached() -> CachingPolicy {
    let params = CachingParams { pt: 2, tw_ns: 10_000_000_000, mcml: 1, write: WritePolicy::WriteBack, replacement: Algorithm::Lru, writeback_queue_cap: 8 };
    let mut p = CachingPolicy::new(geo(), params).unwrap();
    run_accesses(&mut p, &[(0, Op::Read, 3), (1, Op::Read, 3)]);
    assert_eq!(p.stats().prefetches, 1);
    p
}

#[test]
fn a_write_back_copies_the_pages_the_host_dirtied_not_the_whole_extent() {
    let mut p = caching_with_extent_3_cached();
    let mut pieces = Vec::new();
    // 512 bytes into the second page, and the first 100 bytes of the third: the span is
    // the second and third pages.
    for (t, off, len) in [(2, BLOCK + 512, 512), (3, 2 * BLOCK, 100)] {
        p.route(t, Op::Write, 3 * ES + off, len, &mut pieces).unwrap();
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].place, Place::Ssd);
        p.done(&pieces.clone());
    }
    let m = p.next_migration(4).expect("a write-back");
    assert_eq!(m.kind, MoveKind::WriteBack);
    assert_eq!((m.to_offset_bytes, m.len_bytes), (3 * ES + BLOCK, 2 * BLOCK), "the dirty pages, placed where they belong on the HDD");
    assert_eq!(m.from_offset_bytes % ES, BLOCK, "read from the same place in the cache slot");
    p.migration_done(4, m.id, true);
    assert_eq!(p.stats().bytes_moved, ES + 2 * BLOCK, "one pre-fetch of the extent, one write-back of two pages");
    // Clean again: the next write starts a new span.
    p.route(5, Op::Write, 3 * ES + 3 * BLOCK, 8, &mut pieces).unwrap();
    p.done(&pieces.clone());
    let m = p.next_migration(6).expect("a write-back");
    assert_eq!((m.to_offset_bytes, m.len_bytes), (3 * ES + 3 * BLOCK, BLOCK));
}

#[test]
fn an_extent_restored_dirty_is_written_back_whole() {
    let mut p = caching_with_extent_3_cached();
    let mut pieces = Vec::new();
    p.route(2, Op::Write, 3 * ES, 512, &mut pieces).unwrap();
    p.done(&pieces.clone());
    let mut records = Vec::new();
    p.snapshot(&mut records);
    assert!(records.iter().any(|r| r.extent == 3 && r.dirty), "{records:?}");
    // After a restart the map says only "dirty": which bytes is not on record.
    let params = *p.params();
    let mut q = CachingPolicy::new(geo(), params).unwrap();
    q.restore(&records).unwrap();
    // A later small write does not shrink what must be written back.
    q.route(3, Op::Write, 3 * ES + 3 * BLOCK, 512, &mut pieces).unwrap();
    q.done(&pieces.clone());
    let m = q.next_migration(4).expect("a write-back");
    assert_eq!((m.to_offset_bytes, m.len_bytes), (3 * ES, ES));
}

#[test]
fn default_watermarks_keep_greendms_on_large_ssds_and_scale_down_on_small_ones() {
    let w = TieringParams::default_watermarks;
    assert_eq!(w(1), None, "one extent cannot tier");
    assert_eq!(w(2), Some((0, 1)));
    assert_eq!(w(8), Some((1, 2)));
    assert_eq!(w(103), Some((12, 25)));
    assert_eq!(w(511), Some((63, 127)));
    assert_eq!(w(512), Some((64, 128)));
    assert_eq!(w(8192), Some((64, 128)));
    // Every SSD of two extents or more gets watermarks the policy accepts.
    for n in 2..3000u32 {
        let (lt, ht) = w(n).unwrap();
        let p = TieringParams { lt, ht, reserved_hdd_extents: ht + 4, ..TieringParams::default() };
        let geo = Geometry::new(ES, u64::from(n) * ES, (u64::from(ht) + 64) * ES).unwrap();
        p.validate(&geo).unwrap_or_else(|e| panic!("{n} extents: {e}"));
        assert!(u64::from(ht) * 4 <= u64::from(n).max(4), "{n}: HT {ht} is more than a quarter");
    }
}
