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
fn names_round_trip() {
    for a in Algorithm::ALL {
        assert_eq!(a.to_string().parse::<Algorithm>().unwrap(), a);
        assert_eq!(a.build(1, 0).name(), a.to_string());
    }
    assert!("mru".parse::<Algorithm>().is_err());
}

proptest! {
    /// For every algorithm: never more resident keys than the capacity; a key just
    /// referenced is resident; what `contains` says matches a model of inserts and
    /// evictions; removal drops exactly the key.
    #[test]
    fn residency_is_consistent(alg in 0usize..5, cap in 1usize..20, ops in proptest::collection::vec((0u64..40, 0u8..10), 1..400)) {
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
