mod common;

use common::{check_invariants, layout, random_temps, run_collect};
use tierlab_tiered_layout::{Layout, LayoutError, Migration, Shuffle, SlotContent};

fn tier_of_rb(l: &Layout, rb: u64) -> u32 {
    let loc = l.locate(rb).unwrap();
    l.tier_of_disk(loc.disk).unwrap()
}

fn tier_extremes(l: &Layout, tier: u32) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for rb in 0..l.n_rbs() {
        if tier_of_rb(l, rb) == tier {
            let t = l.temperature(rb).unwrap();
            lo = lo.min(t);
            hi = hi.max(t);
        }
    }
    (lo, hi)
}

#[test]
fn swaps_sort_the_tiers_by_temperature() {
    let mut l = layout(6, 60, 4, 2);
    run_collect(&mut l, &[3, 3], Shuffle::Randomized, 1);
    random_temps(&mut l, 8);
    let mut swaps = 0;
    while let Some(m) = l.next_swap(0.0).unwrap() {
        assert!(l.next_swap(0.0).is_err(), "one migration in flight");
        let Migration::Swap {
            hot,
            hot_at,
            cold,
            cold_at,
        } = m
        else {
            panic!("full tiers have no free slot: {m:?}");
        };
        assert_eq!(tier_of_rb(&l, hot), 1);
        assert_eq!(tier_of_rb(&l, cold), 0);
        assert!(l.temperature(hot).unwrap() > l.temperature(cold).unwrap());
        // The proposal is the hottest of tier 1 against the coldest of tier 0.
        assert_eq!(l.temperature(hot).unwrap(), tier_extremes(&l, 1).1);
        assert_eq!(l.temperature(cold).unwrap(), tier_extremes(&l, 0).0);
        l.commit_swap(&m).unwrap();
        assert_eq!(l.locate(hot).unwrap(), cold_at);
        assert_eq!(l.locate(cold).unwrap(), hot_at);
        swaps += 1;
        assert!(swaps <= 1000, "swapping does not terminate");
    }
    assert!(swaps > 10);
    let (min0, _) = tier_extremes(&l, 0);
    let (_, max1) = tier_extremes(&l, 1);
    assert!(min0 >= max1, "tier 0 min {min0} < tier 1 max {max1}");
    check_invariants(&l);
}

#[test]
fn hysteresis_holds_back_small_gains() {
    let mut l = layout(4, 2, 2, 2);
    run_collect(&mut l, &[2, 2], Shuffle::Randomized, 1);
    // Tiers of 2 disks: 1 data slot per stripe each; 2 RBs per tier.
    let t0: Vec<u64> = (0..4).filter(|&rb| tier_of_rb(&l, rb) == 0).collect();
    let t1: Vec<u64> = (0..4).filter(|&rb| tier_of_rb(&l, rb) == 1).collect();
    for &rb in &t0 {
        l.set_temperature(rb, 10.0).unwrap();
    }
    l.set_temperature(t1[0], 10.5).unwrap();
    l.set_temperature(t1[1], 1.0).unwrap();
    assert_eq!(l.next_swap(0.1).unwrap(), None);
    assert_eq!(l.swap_in_flight(), None);
    let m = l.next_swap(0.0).unwrap().expect("10.5 > 10");
    assert_eq!(l.swap_in_flight(), Some(m));
    assert_eq!(l.abort_swap().unwrap(), m);
    // Equal temperatures never migrate.
    l.set_temperature(t1[0], 10.0).unwrap();
    assert_eq!(l.next_swap(0.0).unwrap(), None);
    check_invariants(&l);
}

#[test]
fn recorded_accesses_drive_promotion() {
    let mut l = layout(4, 3, 2, 2);
    run_collect(&mut l, &[2, 2], Shuffle::Randomized, 1);
    let cold_rb = (0..6).find(|&rb| tier_of_rb(&l, rb) == 1).unwrap();
    assert_eq!(l.next_swap(0.0).unwrap(), None, "all temperatures 0");
    for i in 0..10 {
        l.record_access(cold_rb, f64::from(i)).unwrap();
    }
    let m = l
        .next_swap(0.0)
        .unwrap()
        .expect("a hot RB in the slow tier");
    match m {
        Migration::Swap { hot, .. } => assert_eq!(hot, cold_rb),
        Migration::Move { rb, .. } => assert_eq!(rb, cold_rb),
    }
    // Temperatures may change while the swap is in flight.
    l.record_access(cold_rb, 11.0).unwrap();
    l.commit_swap(&m).unwrap();
    assert_eq!(tier_of_rb(&l, cold_rb), 0);
    check_invariants(&l);
}

#[test]
fn promotion_into_a_free_slot() {
    // Two RBs per stripe: the cold-bound disks take both, tier 0 keeps parity and frees.
    let mut l = layout(6, 10, 2, 2);
    run_collect(&mut l, &[3, 3], Shuffle::Randomized, 1);
    check_invariants(&l);
    l.set_temperature(7, 3.0).unwrap();
    let before = l.locate(7).unwrap();
    assert_eq!(
        l.tier_temperatures()[0].0,
        0,
        "all RBs went to the colder tier"
    );
    assert_eq!(tier_of_rb(&l, 7), 1);
    let m = l.next_swap(0.0).unwrap().expect("promotion");
    let Migration::Move { rb, from, to } = m else {
        panic!("expected a move into a free slot, got {m:?}");
    };
    assert_eq!((rb, from), (7, before));
    assert_eq!(to.slot, from.slot, "moves stay in the stripe index");
    assert_eq!(l.content(to.disk, to.slot).unwrap(), SlotContent::Free);
    assert_eq!(l.tier_of_disk(to.disk).unwrap(), 0);
    // A different migration cannot be committed in its place.
    let wrong = Migration::Move {
        rb: 6,
        from: l.locate(6).unwrap(),
        to,
    };
    assert!(matches!(
        l.commit_swap(&wrong),
        Err(LayoutError::MigrationMismatch { .. })
    ));
    l.commit_swap(&m).unwrap();
    assert_eq!(l.locate(7).unwrap(), to);
    assert_eq!(l.content(from.disk, from.slot).unwrap(), SlotContent::Free);
    assert!(matches!(
        l.commit_swap(&m),
        Err(LayoutError::NoMigrationInFlight)
    ));
    check_invariants(&l);
    // No reorganisation while a migration is in flight.
    l.set_temperature(8, 5.0).unwrap();
    if l.next_swap(0.0).unwrap().is_some() {
        assert!(matches!(
            l.plan_reorg(&[6], Shuffle::Randomized, 0),
            Err(LayoutError::MigrationInFlight)
        ));
        l.abort_swap().unwrap();
    }
    l.run_reorg(&[6], Shuffle::Randomized, 0).unwrap();
    check_invariants(&l);
}
