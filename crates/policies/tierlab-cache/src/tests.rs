use super::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

fn run(alg: Algorithm, cap: usize, keys: &[u64]) -> (u64, Box<dyn Replacement>) {
    let mut c = alg.build(cap, 1_000);
    let mut hits = 0;
    let mut ev = Vec::new();
    for (t, k) in keys.iter().enumerate() {
        if reference(c.as_mut(), *k, t as u64 * 100, &mut ev) {
            hits += 1;
        }
    }
    (hits, c)
}

#[test]
fn lru_evicts_least_recent() {
    let (_, c) = run(Algorithm::Lru, 3, &[1, 2, 3, 1, 4]);
    assert!(c.contains(1) && c.contains(3) && c.contains(4) && !c.contains(2));
}

#[test]
fn fifo_ignores_hits() {
    let (_, c) = run(Algorithm::Fifo, 3, &[1, 2, 3, 1, 4]);
    assert!(!c.contains(1) && c.contains(2));
}

#[test]
fn arc_resists_a_scan_that_flushes_lru() {
    // A hot set of 50 keys referenced repeatedly, interleaved with a long one-time scan.
    let mut keys = Vec::new();
    let mut scan = 1_000_000u64;
    for round in 0..200 {
        for k in 0..50u64 {
            keys.push(k);
        }
        for _ in 0..(if round % 2 == 0 { 80 } else { 0 }) {
            keys.push(scan);
            scan += 1;
        }
    }
    let (lru_hits, _) = run(Algorithm::Lru, 100, &keys);
    let (arc_hits, _) = run(Algorithm::Arc, 100, &keys);
    let (twoq_hits, _) = run(Algorithm::TwoQ, 100, &keys);
    assert!(arc_hits > lru_hits + 1000, "ARC {arc_hits} vs LRU {lru_hits}");
    assert!(twoq_hits > lru_hits + 1000, "2Q {twoq_hits} vs LRU {lru_hits}");
}

#[test]
fn arc_ghost_hit_grows_t1_target() {
    let mut c = Arc::new(2);
    let mut ev = Vec::new();
    for k in [1, 2, 1, 3] {
        reference(&mut c, k, 0, &mut ev);
    }
    assert_eq!(ev, vec![2]); // 2 (seen once) leaves T1 for the ghost list B1
    assert_eq!(c.target_t1(), 0.0);
    assert!(!reference(&mut c, 2, 0, &mut ev)); // a miss that hits the ghost in B1
    assert_eq!(c.target_t1(), 1.0);
    assert_eq!(ev, vec![2, 1]); // T1 is at its target now, so T2's LRU goes
    assert!(c.contains(2) && c.contains(3));
}

#[test]
fn arc_target_moves_by_the_unrounded_ratio() {
    // The last reference hits key 16 in B1 while |B2| / |B1| = 1.5: p goes from 2 to 3.5
    // (the paper's real-valued adaptation, which libCacheSim also uses; a floored ratio
    // would give 3).
    let mut c = Arc::new(5);
    let mut ev = Vec::new();
    let keys = [6, 9, 2, 1, 2, 12, 6, 16, 13, 9, 10, 13, 4, 12, 0, 16];
    for k in &keys[..keys.len() - 1] {
        reference(&mut c, *k, 0, &mut ev);
    }
    assert_eq!(c.target_t1(), 2.0);
    assert!(!reference(&mut c, 16, 0, &mut ev));
    assert_eq!(c.target_t1(), 3.5);
}

#[test]
fn twoq_admits_to_am_only_on_a_remembered_rereference() {
    let mut c = TwoQ::new(4); // A1in holds 1, A1out remembers 2
    let mut ev = Vec::new();
    for k in [1, 2, 3, 4, 5] {
        reference(&mut c, k, 0, &mut ev);
    }
    assert_eq!(ev, vec![1]);
    assert!(!reference(&mut c, 1, 0, &mut ev)); // a miss, but remembered: goes to Am
    assert!(c.contains(1));
}

#[test]
fn wsclock_prefers_keys_outside_the_window() {
    let mut c = WsClock::new(3, 1_000);
    c.insert(1, 0);
    c.insert(2, 5_000);
    c.insert(3, 5_000);
    // At 5,500 only key 1 is older than the window.
    assert_eq!(c.evict(5_500), Some(1));
    // Referenced keys get a second chance.
    c.insert(4, 5_600);
    assert!(c.access(2, 5_700));
    assert_eq!(c.evict(9_000), Some(3));
}

#[test]
fn wsclock_sweep_settles_for_the_oldest_of_a_bounded_scan() {
    let limit = WSCLOCK_SCAN_CANDIDATES as u64;
    let mut c = WsClock::new(3 * limit as usize, 1_000_000);
    // Sweep order is insertion order; key 2·limit + 20 is the oldest of all but sits in
    // the third stretch of `limit` keys. Everything is inside the window.
    let oldest = 2 * limit + 20;
    for k in 0..3 * limit {
        c.insert(k, if k == oldest { 0 } else { 1_000 + k });
    }
    assert_eq!(c.evict(5_000), Some(0), "the oldest of the first stretch");
    assert_eq!(c.evict(5_000), Some(limit), "the sweep goes on where it stopped");
    assert_eq!(c.evict(5_000), Some(oldest));
}

#[test]
fn sieve_hand_worked() {
    // Capacity 3. 1 2 3 miss (queue, newest first: 3 2 1). 1 hits (visited). 4: the hand
    // starts at the tail, clears 1's bit, evicts 2 and rests on 3. 5 evicts 3 (unvisited)
    // and the hand rests on 4. 1 and 4 hit. 6: 4's bit is cleared, 5 is evicted, and the
    // hand has passed the head. 7: from the tail again, 1's bit is cleared and 4 (cleared
    // before) is evicted. Queue: 7 6 1.
    let mut c = Sieve::new(3);
    let mut ev = Vec::new();
    let hits: Vec<bool> = [1, 2, 3, 1, 4, 5, 1, 4, 6, 7].into_iter().map(|k| reference(&mut c, k, 0, &mut ev)).collect();
    assert_eq!(hits, [false, false, false, true, false, false, true, true, false, false]);
    assert_eq!(ev, [2, 3, 5, 4]);
    assert!(c.contains(7) && c.contains(6) && c.contains(1));
    // LRU on the same keys gives up 1, the key that SIEVE keeps.
    let (_, lru) = run(Algorithm::Lru, 3, &[1, 2, 3, 1, 4, 5, 1, 4, 6, 7]);
    assert!(!lru.contains(1));
}

#[test]
fn sieve_removal_of_the_key_under_the_hand_moves_the_hand_on() {
    let mut c = Sieve::new(3);
    let mut ev = Vec::new();
    for k in [1, 2, 3, 1, 4] {
        reference(&mut c, k, 0, &mut ev);
    }
    // The hand rests on 3 (see above); removing 3 moves it to 4, which is then the victim.
    assert!(c.remove(3));
    c.insert(5, 0);
    assert_eq!(c.evict(0), Some(4));
}

#[test]
fn s3fifo_hand_worked() {
    // Capacity 10: S holds 1 unit, M 9, G remembers 9. Until the first eviction, keys
    // that find S full go to M: 1 → S, 2…10 → M.
    let mut c = S3Fifo::new(10);
    let mut ev = Vec::new();
    for k in 1..=10 {
        assert!(!reference(&mut c, k, 0, &mut ev));
    }
    assert!(ev.is_empty());
    // 11: S's tail (1, never hit) goes to G; 11 → S.
    reference(&mut c, 11, 0, &mut ev);
    // 1: G remembers it, so it goes to M; making room sends 11 from S to G.
    assert!(!reference(&mut c, 1, 0, &mut ev));
    // 12: M is over its share (10 > 9): M's tail, 2, is evicted; 12 → S.
    reference(&mut c, 12, 0, &mut ev);
    assert_eq!(ev, [1, 11, 2]);
    // 12 hit twice in S, 3 once in M.
    for k in [12, 12, 3] {
        assert!(reference(&mut c, k, 0, &mut ev));
    }
    // 13: S's tail, 12, was hit twice: it moves to M, S is empty, so M evicts: its tail 3
    // has a count and goes back to M's head (count 0); 4 has none and is the victim.
    reference(&mut c, 13, 0, &mut ev);
    assert_eq!(ev, [1, 11, 2, 4]);
    for k in [13, 12, 3, 1, 5, 10] {
        assert!(c.contains(k), "{k}");
    }
    assert_eq!((c.len(), c.occupied()), (10, 10));
    // 11 is still remembered by G: a miss that goes straight to M. M is within its
    // share, so S's tail, 13 (not hit), makes the room and goes to G.
    assert!(!reference(&mut c, 11, 0, &mut ev));
    assert_eq!(ev, [1, 11, 2, 4, 13]);
    assert!(c.contains(11) && !c.contains(13));
}

#[test]
fn s3fifo_and_sieve_resist_a_scan_that_flushes_lru() {
    // As for ARC above: a hot set of 50 keys, and a one-time scan every other round.
    let mut keys = Vec::new();
    let mut scan = 1_000_000u64;
    for round in 0..200 {
        keys.extend(0..50u64);
        if round % 2 == 0 {
            keys.extend(scan..scan + 80);
            scan += 80;
        }
    }
    let (lru_hits, _) = run(Algorithm::Lru, 100, &keys);
    let (s3_hits, _) = run(Algorithm::S3Fifo, 100, &keys);
    let (sieve_hits, _) = run(Algorithm::Sieve, 100, &keys);
    assert!(s3_hits > lru_hits + 2000, "S3-FIFO {s3_hits} vs LRU {lru_hits}");
    assert!(sieve_hits > lru_hits + 2000, "SIEVE {sieve_hits} vs LRU {lru_hits}");
}

#[test]
fn sized_keys_fill_the_capacity_in_units() {
    // LRU over 10 units: 4 + 4, then 4 more evicts the oldest; 11 units are not admitted
    // and evict nothing; 8 units evict both of the others.
    let mut c = Lru::new(10);
    let mut ev = Vec::new();
    for (k, size) in [(1, 4), (2, 4), (3, 4)] {
        reference_sized(&mut c, k, size, 0, &mut ev);
    }
    assert_eq!((ev.clone(), c.occupied()), (vec![1], 8));
    assert!(!reference_sized(&mut c, 4, 11, 0, &mut ev));
    assert_eq!((ev.len(), c.contains(4)), (1, false));
    reference_sized(&mut c, 5, 8, 0, &mut ev);
    assert_eq!((ev, c.len(), c.occupied()), (vec![1, 2, 3], 1, 8));
    // S3-FIFO admits only what fits in its small queue (10 % of 100 units).
    let mut s = S3Fifo::new(100);
    assert!(!s.admits(1, 11) && s.admits(1, 10));
}

#[test]
fn names_round_trip() {
    for a in Algorithm::ALL {
        assert_eq!(a.to_string().parse::<Algorithm>().unwrap(), a);
        assert_eq!(a.build(1, 0).name(), a.to_string());
    }
    assert!("mru".parse::<Algorithm>().is_err());
    assert_eq!("S3-FIFO".parse::<Algorithm>(), Ok(Algorithm::S3Fifo));
}

proptest! {
    /// For every algorithm: never more resident keys than the capacity; a key just
    /// referenced is resident; what `contains` says matches a model of inserts and
    /// evictions; removal drops exactly the key.
    #[test]
    fn residency_is_consistent(alg in 0usize..7, cap in 1usize..20, ops in proptest::collection::vec((0u64..40, 0u8..10), 1..400)) {
        let alg = Algorithm::ALL[alg];
        let mut c = alg.build(cap, 300);
        let mut model = BTreeSet::new();
        let mut ev = Vec::new();
        for (t, (key, what)) in ops.into_iter().enumerate() {
            let now = t as u64 * 100;
            if what == 0 {
                prop_assert_eq!(c.remove(key), model.remove(&key));
            } else {
                ev.clear();
                let hit = reference(c.as_mut(), key, now, &mut ev);
                prop_assert_eq!(hit, model.contains(&key));
                for v in &ev {
                    prop_assert!(model.remove(v), "{} evicted {} which was not resident", alg, v);
                }
                model.insert(key);
                prop_assert!(c.contains(key));
            }
            prop_assert!(c.len() <= cap);
            prop_assert_eq!(c.len(), model.len());
            for k in 0..40u64 {
                prop_assert_eq!(c.contains(k), model.contains(&k));
            }
        }
    }
}

proptest! {
    /// Keys of different sizes: victims were resident, nothing else changes, the units
    /// held are the sizes of the resident keys added up, never more than the capacity.
    #[test]
    fn sized_residency_is_consistent(alg in 0usize..7, cap in 1usize..40, ops in proptest::collection::vec((0u64..30, 1u32..9), 1..400)) {
        let alg = Algorithm::ALL[alg];
        let mut c = alg.cache(cap, 300);
        let mut model = std::collections::BTreeMap::new();
        let mut ev = Vec::new();
        for (t, (key, size)) in ops.into_iter().enumerate() {
            ev.clear();
            let hit = reference_sized(&mut c, key, size, t as u64 * 100, &mut ev);
            prop_assert_eq!(hit, model.contains_key(&key));
            for v in &ev {
                prop_assert!(model.remove(v).is_some(), "{} evicted {} which was not resident", alg, v);
            }
            if !hit && c.contains(key) {
                model.insert(key, u64::from(size));
            }
            prop_assert_eq!(c.occupied(), model.values().sum::<u64>());
            prop_assert!(c.occupied() <= cap as u64);
            prop_assert_eq!(c.len(), model.len());
            for k in 0..30u64 {
                prop_assert_eq!(c.contains(k), model.contains_key(&k));
            }
        }
    }
}

/// Inserting a key already resident admits nothing (LRU counts it as an access); a key
/// that ARC, 2Q or S3-FIFO remembers as a ghost, inserted without an access first, comes
/// in once, to the queue for keys seen before.
#[test]
fn inserting_a_resident_or_remembered_key_admits_it_once() {
    for alg in Algorithm::ALL {
        let mut c = alg.cache(4, 1_000);
        c.insert_sized(1, 2, 0);
        c.insert_sized(2, 1, 10);
        c.insert_sized(1, 2, 20);
        assert_eq!((c.len(), c.occupied()), (2, 3), "{alg}");
        if alg == Algorithm::Lru {
            assert_eq!(c.evict(30), Some(2), "the second insert of 1 was an access");
        }
    }
    // ARC: 2 goes from T1 to B1, then is inserted again without an access: into T2, so
    // that after T1's 3 the next victim is T2's oldest, 1 (not 2, as from T1).
    let mut arc = Arc::new(3);
    let mut ev = Vec::new();
    for (t, key) in [1, 2, 3, 1].into_iter().enumerate() {
        reference(&mut arc, key, t as u64, &mut ev);
    }
    assert!(!arc.access(4, 4));
    assert_eq!(arc.evict(4), Some(2));
    arc.insert(2, 5);
    assert_eq!((arc.len(), arc.occupied()), (3, 3));
    assert_eq!(arc.evict(6), Some(3));
    assert_eq!(arc.evict(6), Some(1));
    for alg in [Algorithm::TwoQ, Algorithm::S3Fifo] {
        // Evicted from the queue of new keys (to the ghosts), then inserted again.
        let mut c = alg.cache(10, 0);
        for key in 0..10 {
            c.insert(key, 0);
        }
        let victim = c.evict(0).unwrap();
        assert!(!c.contains(victim));
        c.insert(victim, 0);
        assert!(c.contains(victim), "{alg}");
        assert_eq!((c.len(), c.occupied()), (10, 10), "{alg}");
    }
}

/// A visitor runs on the concrete cache: the same hits as the same references made
/// through the trait object.
#[test]
fn a_visitor_sees_the_cache_inside_any_cache() {
    struct Refs<'a>(&'a [u64]);
    impl CacheVisitor for Refs<'_> {
        type Output = (&'static str, u64);
        fn visit<C: Replacement>(self, cache: &mut C) -> (&'static str, u64) {
            (cache.name(), self.0.iter().map(|&k| u64::from(touch(cache, k, 1, 0))).sum())
        }
    }
    let keys: Vec<u64> = (0..500u64).map(|i| (i * 7919) % 37).collect();
    for alg in Algorithm::ALL {
        let (name, hits) = alg.cache(8, 1_000).visit(Refs(&keys));
        assert_eq!(name, alg.to_string());
        let mut c = alg.build(8, 1_000);
        let expected: u64 = keys.iter().map(|&k| u64::from(touch(c.as_mut(), k, 1, 0))).sum();
        assert_eq!(hits, expected, "{alg}");
    }
}

proptest! {
    /// A cache given dense keys (the keys numbered in order of first sight) decides
    /// exactly as one given the keys themselves, victim for victim; and after `rekey`
    /// back to the keys at any point it goes on doing so.
    #[test]
    fn dense_keys_and_rekeying_change_no_decision(
        alg in 0usize..7,
        cap in 1usize..40,
        ops in proptest::collection::vec((0u64..60, 1u32..9), 1..400),
        rekey_at in 0usize..400,
    ) {
        let alg = Algorithm::ALL[alg];
        let mut plain = alg.cache(cap, 300);
        let mut dense = alg.cache(cap, 300);
        dense.use_dense_keys();
        // Keys far apart, as block numbers of a volume are; numbers handed out in order.
        let key_of = |k: u64| (k << 40) ^ (k * 4096);
        let mut numbers: std::collections::HashMap<u64, u64> = Default::default();
        let mut keys: Vec<u64> = Vec::new();
        let mut numbered = true;
        let (mut ev_plain, mut ev_dense) = (Vec::new(), Vec::new());
        for (t, (k, size)) in ops.into_iter().enumerate() {
            if t == rekey_at && numbered {
                dense.rekey(&|n| keys[n as usize]);
                numbered = false;
            }
            let key = key_of(k);
            let dense_key = if numbered {
                *numbers.entry(key).or_insert_with(|| {
                    keys.push(key);
                    keys.len() as u64 - 1
                })
            } else {
                key
            };
            ev_plain.clear();
            ev_dense.clear();
            let now = t as u64 * 100;
            let hit = reference_sized(&mut plain, key, size, now, &mut ev_plain);
            prop_assert_eq!(reference_sized(&mut dense, dense_key, size, now, &mut ev_dense), hit);
            let victims: Vec<u64> = ev_dense.iter().map(|&v| if numbered { keys[v as usize] } else { v }).collect();
            prop_assert_eq!(&victims, &ev_plain);
            prop_assert_eq!((dense.len(), dense.occupied()), (plain.len(), plain.occupied()));
        }
        if numbered {
            dense.rekey(&|n| keys[n as usize]);
        }
        for k in 0..60u64 {
            prop_assert_eq!(dense.contains(key_of(k)), plain.contains(key_of(k)));
        }
    }
}
