mod common;

use common::{check_invariants, layout};
use tierlab_tiered_layout::{
    merge_single_disk_tiers, validate_tier_sizes, Layout, LayoutConfig, LayoutError, Location,
    Shuffle, SlotContent, TemperatureParams,
};

#[test]
fn temperature_worked_value() {
    let mut l = layout(4, 10, 2, 2);
    // First window: 10 accesses spanning 5 s -> first value k / T_last = 2.0.
    for i in 0..10 {
        let r = l.record_access(3, f64::from(i) * 5.0 / 9.0).unwrap();
        assert_eq!(r.is_some(), i == 9, "update only at the k-th access");
    }
    assert!((l.temperature(3).unwrap() - 2.0).abs() < 1e-6);
    // Next 10 accesses end 2 s after the previous window: 0.2 * 2 + 0.8 * 10 / 2 = 4.4.
    let mut last = None;
    for i in 1..=10 {
        last = l.record_access(3, 5.0 + f64::from(i) * 0.2).unwrap();
    }
    let t = last.expect("updated at the 10th access");
    assert!((t - 4.4).abs() < 1e-5, "got {t}");
    assert!((l.temperature(3).unwrap() - 4.4).abs() < 1e-5);
    // Other RBs untouched; no decay without accesses.
    assert_eq!(l.temperature(2).unwrap(), 0.0);
    assert!(!l.has_temperature(2).unwrap());
    l.epoch_boundary();
    assert!((l.temperature(3).unwrap() - 4.4).abs() < 1e-5);
}

#[test]
fn temperature_from_set_value_and_decay() {
    let mut cfg = LayoutConfig::new(4, 10, 20);
    cfg.temperature = TemperatureParams {
        epoch_decay: Some(0.5),
        ..TemperatureParams::default()
    };
    let mut l = Layout::new(cfg).unwrap();
    l.set_temperature(0, 2.0).unwrap();
    // The window starts at the first access: 10 accesses from t = 0 to t = 2 (9 gaps).
    for i in 0..10 {
        l.record_access(0, f64::from(i) * 2.0 / 9.0).unwrap();
    }
    assert!((l.temperature(0).unwrap() - 4.4).abs() < 1e-5);
    l.epoch_boundary();
    assert!((l.temperature(0).unwrap() - 2.2).abs() < 1e-5);
    l.decay_temperatures(0.5).unwrap();
    assert!((l.temperature(0).unwrap() - 1.1).abs() < 1e-5);
    check_invariants(&l);
    // Simultaneous accesses use the minimum span instead of dividing by zero.
    for _ in 0..10 {
        l.record_access(1, 7.0).unwrap();
    }
    let t = l.temperature(1).unwrap();
    assert!(t.is_finite() && t > 1e6, "got {t}");
}

#[test]
fn map_sizes() {
    let l = layout(5, 100, 3, 2);
    let mb = l.map_bytes();
    assert_eq!(mb.forward, 8 * 300, "8 bytes per RB");
    assert_eq!(mb.inverse, 4 * 5 * 100, "4 bytes per slot");
    let tib = 1u64 << 40;
    assert_eq!(
        Layout::forward_map_bytes_for(10 * tib, 256 * 1024),
        Some(320 * 1024 * 1024),
        "the paper's 320 MB for 10 TB of 256 KB RBs"
    );
    assert_eq!(Layout::forward_map_bytes_for(tib, 0), None);
}

#[test]
fn initial_layout_is_left_symmetric_and_in_stripe_order() {
    let l = layout(5, 8, 3, 2);
    check_invariants(&l);
    assert_eq!(l.tier_sizes(), vec![5]);
    assert_eq!(l.stripe_rbs(), 3);
    for s in 0..8u32 {
        let p = 4 - (s % 5);
        assert_eq!(l.content(p, s).unwrap(), SlotContent::Parity);
        for i in 0..3u32 {
            let rb = u64::from(s * 3 + i);
            assert_eq!(
                l.locate(rb).unwrap(),
                Location {
                    disk: (p + 1 + i) % 5,
                    slot: s
                }
            );
            assert_eq!(l.parity_of((p + 1 + i) % 5, s).unwrap(), p);
        }
        assert_eq!(l.content((p + 4) % 5, s).unwrap(), SlotContent::Free);
    }
    assert_eq!(l.byte_offset(3).unwrap(), 3 * 256 * 1024);
    assert_eq!(l.tier_of_disk(4).unwrap(), 0);
    assert_eq!(l.tier_disks(0).unwrap(), &[0, 1, 2, 3, 4]);
}

#[test]
fn uneven_rb_count_spreads_over_all_stripes() {
    let l = Layout::new(LayoutConfig::new(6, 10, 25)).unwrap();
    assert_eq!(l.stripe_rbs(), 3);
    check_invariants(&l);
}

#[test]
fn bad_configurations_are_rejected() {
    let base = LayoutConfig::new(6, 10, 20);
    let err = |f: &dyn Fn(&mut LayoutConfig)| {
        let mut c = base.clone();
        f(&mut c);
        Layout::new(c).err().expect("must be rejected")
    };
    assert!(matches!(err(&|c| c.n_disks = 0), LayoutError::Config(_)));
    assert!(matches!(err(&|c| c.n_disks = 1), LayoutError::Config(_)));
    assert!(matches!(
        err(&|c| c.slots_per_disk = 0),
        LayoutError::Config(_)
    ));
    assert!(matches!(err(&|c| c.rb_bytes = 0), LayoutError::Config(_)));
    assert!(matches!(
        err(&|c| c.rb_bytes = u64::MAX),
        LayoutError::Config(_)
    ));
    assert!(matches!(err(&|c| c.max_tiers = 0), LayoutError::Config(_)));
    assert!(matches!(err(&|c| c.max_tiers = 4), LayoutError::Config(_)));
    assert!(matches!(
        err(&|c| c.temperature.k = 0),
        LayoutError::Config(_)
    ));
    assert!(matches!(
        err(&|c| c.temperature.k = 1),
        LayoutError::Config(_)
    ));
    assert!(matches!(
        err(&|c| c.temperature.k = 128),
        LayoutError::Config(_)
    ));
    assert!(matches!(
        err(&|c| c.temperature.xi = 0.0),
        LayoutError::Config(_)
    ));
    assert!(matches!(
        err(&|c| c.temperature.xi = f64::NAN),
        LayoutError::Config(_)
    ));
    assert!(matches!(
        err(&|c| c.temperature.min_span_s = 0.0),
        LayoutError::Config(_)
    ));
    assert!(matches!(
        err(&|c| c.temperature.epoch_decay = Some(1.5)),
        LayoutError::BadDecay(_)
    ));
    let e = err(&|c| c.n_rbs = 41);
    assert!(
        matches!(e, LayoutError::DoesNotFit { capacity: 40, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("at most 40 RBs"), "{e}");
    // Exactly full is fine; fill-factor helper.
    assert!(Layout::new(LayoutConfig::new(6, 10, 40)).is_ok());
    let c = LayoutConfig::with_fill_factor(6, 10, 0.5).unwrap();
    assert_eq!(c.n_rbs, 20);
    assert!(LayoutConfig::with_fill_factor(6, 10, 0.0).is_err());
    assert!(LayoutConfig::with_fill_factor(6, 10, 1.5).is_err());
    // Zero RBs is a valid, empty array.
    let mut l = Layout::new(LayoutConfig::new(4, 3, 0)).unwrap();
    check_invariants(&l);
    l.run_reorg(&[2, 2], Shuffle::Randomized, 1).unwrap();
    check_invariants(&l);
}

#[test]
fn out_of_range_queries_are_errors() {
    let mut l = layout(4, 5, 2, 2);
    assert!(matches!(
        l.locate(10),
        Err(LayoutError::RbOutOfRange { rb: 10, n_rbs: 10 })
    ));
    assert!(matches!(
        l.content(4, 0),
        Err(LayoutError::DiskOutOfRange { .. })
    ));
    assert!(matches!(
        l.content(0, 5),
        Err(LayoutError::SlotOutOfRange { .. })
    ));
    assert!(l.parity_of(9, 0).is_err());
    assert!(l.parity_of(0, 9).is_err());
    assert!(l.tier_of_disk(4).is_err());
    assert!(l.tier_at(0, 5).is_err());
    assert!(matches!(
        l.tier_disks(1),
        Err(LayoutError::TierOutOfRange { tier: 1, tiers: 1 })
    ));
    assert!(l.byte_offset(5).is_err());
    assert!(l.temperature(10).is_err());
    assert!(l.record_access(10, 0.0).is_err());
    assert!(matches!(
        l.record_access(0, f64::NAN),
        Err(LayoutError::BadTime(_))
    ));
    assert!(l.record_access(0, f64::INFINITY).is_err());
    assert!(matches!(
        l.set_temperature(0, -1.0),
        Err(LayoutError::BadTemperature(_))
    ));
    assert!(l.set_temperature(0, f64::NAN).is_err());
    assert!(l.set_temperature(10, 1.0).is_err());
    assert!(l.decay_temperatures(0.0).is_err());
    assert!(matches!(
        l.next_swap(-0.1),
        Err(LayoutError::BadHysteresis(_))
    ));
    assert!(l.next_swap(f64::NAN).is_err());
    assert!(matches!(
        l.abort_swap(),
        Err(LayoutError::NoMigrationInFlight)
    ));
    check_invariants(&l);
}

#[test]
fn bad_tier_sizes_are_errors_and_change_nothing() {
    let mut l = layout(6, 5, 4, 2);
    let before: Vec<_> = (0..l.n_rbs()).map(|rb| l.locate(rb).unwrap()).collect();
    for bad in [
        &[3u32, 2][..],
        &[3, 4],
        &[5, 1],
        &[1, 5],
        &[0, 0],
        &[],
        &[6, 0, 1],
    ] {
        let e = l.plan_reorg(bad, Shuffle::Randomized, 0).unwrap_err();
        assert!(
            matches!(e, LayoutError::BadTierSizes { .. }),
            "{bad:?}: {e}"
        );
    }
    // Three tiers leave 3 data slots per stripe; stripes hold 4 RBs.
    let e = l
        .plan_reorg(&[2, 2, 2], Shuffle::Randomized, 0)
        .unwrap_err();
    assert!(
        matches!(
            e,
            LayoutError::StripeCapacity {
                data_slots: 3,
                stripe_rbs: 4,
                ..
            }
        ),
        "{e}"
    );
    let after: Vec<_> = (0..l.n_rbs()).map(|rb| l.locate(rb).unwrap()).collect();
    assert_eq!(before, after);
    assert_eq!(l.reorg_progress(), None);
    check_invariants(&l);
    assert_eq!(validate_tier_sizes(&[0, 2, 0, 4], 6), Ok(2));
}

#[test]
fn plan_protocol_errors() {
    let mut l = layout(6, 4, 4, 2);
    let mut plan = l.plan_reorg(&[3, 3], Shuffle::Randomized, 5).unwrap();
    assert_eq!(plan.steps_total(), 4);
    // Nothing else may start while the plan runs.
    assert!(matches!(
        l.plan_reorg(&[2, 4], Shuffle::Randomized, 5),
        Err(LayoutError::ReorgInProgress {
            applied: 0,
            slots: 4
        })
    ));
    assert!(matches!(
        l.next_swap(0.0),
        Err(LayoutError::ReorgInProgress { .. })
    ));
    let s0 = plan.next_step(&l).unwrap().unwrap();
    let s1 = plan.next_step(&l).unwrap().unwrap();
    assert!(matches!(
        l.apply_step(&s1),
        Err(LayoutError::StepOutOfOrder {
            got: 1,
            expected: 0
        })
    ));
    l.apply_step(&s0).unwrap();
    assert!(matches!(
        l.apply_step(&s0),
        Err(LayoutError::StepOutOfOrder {
            got: 0,
            expected: 1
        })
    ));
    l.verify().unwrap();
    // Stripe 0 is already in the new layout, stripe 1 not yet.
    let moved = plan.disk_moves()[0];
    assert_eq!(l.tier_at(moved.disk, 0).unwrap(), moved.to_tier);
    assert_eq!(l.tier_at(moved.disk, 1).unwrap(), moved.from_tier);
    assert_eq!(l.tier_of_disk(moved.disk).unwrap(), moved.from_tier);
    l.apply_step(&s1).unwrap();
    while let Some(s) = plan.next_step(&l).unwrap() {
        l.apply_step(&s).unwrap();
    }
    assert!(plan.next_step(&l).unwrap().is_none());
    assert!(matches!(
        l.apply_step(&s1),
        Err(LayoutError::NoReorgInProgress)
    ));
    assert_eq!(l.tier_of_disk(moved.disk).unwrap(), moved.to_tier);
    check_invariants(&l);
    // A step of an old plan is refused by a newer plan.
    let mut p2 = l.plan_reorg(&[2, 4], Shuffle::Randomized, 6).unwrap();
    let st = p2.next_step(&l).unwrap().unwrap();
    assert!(matches!(
        l.apply_step(&s0),
        Err(LayoutError::PlanMismatch { .. })
    ));
    l.apply_step(&st).unwrap();
    while let Some(s) = p2.next_step(&l).unwrap() {
        l.apply_step(&s).unwrap();
    }
    check_invariants(&l);
}

#[test]
fn steps_do_not_cross_layouts() {
    let mut a = layout(6, 4, 4, 2);
    let mut b = layout(6, 4, 4, 2);
    let mut pa = a.plan_reorg(&[3, 3], Shuffle::Randomized, 1).unwrap();
    let mut pb = b.plan_reorg(&[3, 3], Shuffle::Randomized, 1).unwrap();
    assert_ne!(pa.id(), pb.id());
    let sa = pa.next_step(&a).unwrap().unwrap();
    assert!(matches!(
        b.apply_step(&sa),
        Err(LayoutError::PlanMismatch { .. })
    ));
    assert!(matches!(
        pa.next_step(&b),
        Err(LayoutError::PlanMismatch { .. })
    ));
    let sb = pb.next_step(&b).unwrap().unwrap();
    assert_eq!(sa.moves(), sb.moves(), "same seed, same layout, same step");
    a.apply_step(&sa).unwrap();
    b.apply_step(&sb).unwrap();
    a.verify().unwrap();
    b.verify().unwrap();
}

#[test]
fn unchanged_target_has_no_steps() {
    let mut l = layout(6, 4, 4, 2);
    let plan = l.plan_reorg(&[6, 0], Shuffle::Sorted, 1).unwrap();
    assert_eq!(plan.steps_total(), 0);
    assert_eq!(l.reorg_progress(), None);
    assert_eq!(l.tier_sizes(), vec![6, 0]);
    check_invariants(&l);
}

#[test]
fn merging_single_disk_tiers() {
    assert_eq!(merge_single_disk_tiers(&[3, 1, 2]), vec![4, 0, 2]);
    assert_eq!(merge_single_disk_tiers(&[1, 0, 5]), vec![0, 0, 6]);
    assert_eq!(merge_single_disk_tiers(&[1, 1, 0]), vec![0, 2, 0]);
    assert_eq!(merge_single_disk_tiers(&[0, 4, 1, 1]), vec![0, 6, 0, 0]);
    assert_eq!(merge_single_disk_tiers(&[1]), vec![1]);
    for v in [vec![3, 1, 2], vec![1, 1, 1, 1, 1], vec![2, 1, 0, 1]] {
        let m = merge_single_disk_tiers(&v);
        assert_eq!(m.iter().sum::<u32>(), v.iter().sum::<u32>());
        assert!(
            validate_tier_sizes(&m, v.iter().sum()).is_ok(),
            "{v:?} -> {m:?}"
        );
    }
}
