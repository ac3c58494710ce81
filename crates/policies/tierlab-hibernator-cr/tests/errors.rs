//! Every bad input is an error naming the field, never a panic.

mod common;

use common::*;
use proptest::prelude::*;
use tierlab_hibernator_cr::*;

fn field_of(e: &PlanError) -> &'static str {
    match e {
        PlanError::InvalidParam { field, .. } => field,
        PlanError::EpochShorterThanTransition { .. } => "epoch_s",
        other => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn each_bad_epoch_param_is_reported() {
    let good = paper_params(0.01);
    assert_eq!(good.validate(), Ok(()));
    type Mutate = fn(&mut EpochParams);
    let cases: Vec<(Mutate, &str)> = vec![
        (|p| p.epoch_s = f64::NAN, "epoch_s"),
        (|p| p.epoch_s = 0.0, "epoch_s"),
        (|p| p.epoch_s = -3600.0, "epoch_s"),
        (|p| p.epoch_s = f64::INFINITY, "epoch_s"),
        (|p| p.epoch_s = 10.0, "epoch_s"), // shorter than the 12.4 s transition
        (|p| p.epoch_s = 12.4, "epoch_s"), // equal: no room for any work
        (|p| p.transition_s = f64::NAN, "transition_s"),
        (|p| p.transition_s = -1.0, "transition_s"),
        (|p| p.transition_s = f64::INFINITY, "transition_s"),
        (|p| p.transition_energy_j = f64::NAN, "transition_energy_j"),
        (|p| p.transition_energy_j = -152.0, "transition_energy_j"),
        (
            |p| p.transition_energy_j = f64::INFINITY,
            "transition_energy_j",
        ),
        (|p| p.transition_s = 0.0, "transition_energy_j"), // 152 J in 0 s
        (|p| p.r_limit_s = 0.0, "r_limit_s"),
        (|p| p.r_limit_s = -0.01, "r_limit_s"),
        (|p| p.r_limit_s = f64::NAN, "r_limit_s"),
        (|p| p.r_limit_s = f64::INFINITY, "r_limit_s"),
    ];
    for (mutate, field) in cases {
        let mut p = good;
        mutate(&mut p);
        let err = p.validate().unwrap_err();
        assert_eq!(field_of(&err), field, "{p:?} -> {err}");
        assert!(err.to_string().contains(field), "{err}");
        assert!(err.to_string().contains("expected"), "{err}");
        // The planners refuse too.
        // (Compared as text: a NaN value makes the errors themselves unequal.)
        let text = err.to_string();
        assert_eq!(
            plan_speeds(&[paper_disk(5.0, 1)], &p)
                .unwrap_err()
                .to_string(),
            text
        );
        assert_eq!(
            plan_tiers(1, &[0, 1], |_| unreachable!(), &p)
                .unwrap_err()
                .to_string(),
            text
        );
    }
    let err = EpochParams {
        epoch_s: 10.0,
        ..good
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        err,
        PlanError::EpochShorterThanTransition {
            epoch_s: 10.0,
            transition_s: 12.4
        }
    );
    // Free transitions are fine.
    let free = EpochParams {
        transition_s: 0.0,
        transition_energy_j: 0.0,
        ..good
    };
    assert_eq!(free.validate(), Ok(()));
}

#[test]
fn bad_disks_are_reported() {
    let p = paper_params(0.01);
    let ok = paper_disk(5.0, 1);

    let mut d = ok.clone();
    d.arrival_rate_per_s = f64::NAN;
    let e = plan_speeds(&[ok.clone(), d], &p).unwrap_err();
    assert!(
        matches!(
            e,
            PlanError::InvalidDisk {
                disk: 1,
                field: "arrival_rate_per_s",
                ..
            }
        ),
        "{e}"
    );
    for bad in [-1.0, f64::INFINITY] {
        let mut d = ok.clone();
        d.arrival_rate_per_s = bad;
        assert!(matches!(
            plan_speeds(&[d], &p),
            Err(PlanError::InvalidDisk { disk: 0, .. })
        ));
    }

    let mut d = ok.clone();
    d.options.clear();
    assert_eq!(plan_speeds(&[d], &p), Err(PlanError::NoOptions { disk: 0 }));

    // Mismatched option lengths.
    let mut d = ok.clone();
    d.options.pop();
    d.current_level = 0;
    assert_eq!(
        plan_speeds(&[ok.clone(), ok.clone(), d], &p),
        Err(PlanError::OptionCountMismatch {
            disk: 2,
            expected: 2,
            found: 1
        })
    );

    let mut d = ok.clone();
    d.current_level = 2;
    assert_eq!(
        plan_speeds(&[d], &p),
        Err(PlanError::CurrentLevelOutOfRange {
            disk: 0,
            current: 2,
            levels: 2
        })
    );

    let mut d = ok.clone();
    d.options[1].level = 0;
    assert_eq!(
        plan_speeds(&[d], &p),
        Err(PlanError::LevelIndexMismatch {
            disk: 0,
            index: 1,
            level: 0
        })
    );

    let mut d = ok.clone();
    d.options[1].rpm = 3000;
    assert_eq!(
        plan_speeds(&[d], &p),
        Err(PlanError::RpmNotIncreasing {
            disk: 0,
            index: 1,
            rpm: 3000,
            previous: 3000
        })
    );

    type Mutate = fn(&mut SpeedOption);
    let fields: Vec<(Mutate, &str)> = vec![
        (|o| o.active_w = f64::NAN, "active_w"),
        (|o| o.idle_w = -1.0, "idle_w"),
        (|o| o.service_mean_s = f64::INFINITY, "service_mean_s"),
        (|o| o.service_var_s2 = -1e-6, "service_var_s2"),
    ];
    for (mutate, field) in fields {
        let mut d = ok.clone();
        mutate(&mut d.options[0]);
        let e = plan_speeds(&[d], &p).unwrap_err();
        assert!(
            matches!(e, PlanError::InvalidOption { disk: 0, option: 0, field: f, .. } if f == field),
            "{e}"
        );
        assert!(e.to_string().contains(field));
    }

    let mut d = ok.clone();
    d.options = (0..300)
        .map(|j| SpeedOption {
            level: j,
            rpm: 1000 + j as u32,
            ..ok.options[0]
        })
        .collect();
    assert!(matches!(
        plan_speeds(&[d], &p),
        Err(PlanError::TooManyLevels { levels: 300, .. })
    ));

    assert!(matches!(
        evaluate_level(&ok, 2, &p),
        Err(PlanError::LevelOutOfRange {
            level: 2,
            levels: 2
        })
    ));
}

#[test]
fn bad_tier_inputs_are_reported() {
    let p = paper_params(0.02);
    let fc = |level: usize, alpha: f64| TierForecast {
        arrival_rate_per_s: alpha,
        option: paper_disk(0.0, 0).options[level],
        scan_s: None,
    };
    let good = |_: &[usize]| vec![fc(0, 1.0), fc(1, 5.0)];

    assert_eq!(plan_tiers(3, &[], good, &p), Err(PlanError::NoTiers));
    assert_eq!(
        plan_tiers(3, &[1, 1], good, &p),
        Err(PlanError::TierSizesMismatch { n_disks: 3, sum: 2 })
    );
    assert_eq!(
        plan_tiers(3, &[usize::MAX, 1], good, &p),
        Err(PlanError::TierSizesMismatch {
            n_disks: 3,
            sum: usize::MAX
        })
    );
    let huge = plan_tiers(100_000, &[0, 0, 0, 100_000], good, &p);
    assert!(
        matches!(huge, Err(PlanError::TooManyCompositions { .. })),
        "{huge:?}"
    );
    assert!(matches!(
        plan_tiers(2, &[0, 2], |_| vec![fc(0, 1.0)], &p),
        Err(PlanError::ForecastCountMismatch {
            expected: 2,
            found: 1,
            ..
        })
    ));
    // A bad forecast for a non-empty tier is an error...
    let e = plan_tiers(2, &[0, 2], |_| vec![fc(0, f64::NAN), fc(1, 5.0)], &p).unwrap_err();
    assert!(
        matches!(
            &e,
            PlanError::InvalidTierForecast {
                tier: 0,
                field: "arrival_rate_per_s",
                ..
            }
        ),
        "{e}"
    );
    let e = plan_tiers(2, &[0, 2], |_| vec![fc(1, 1.0), fc(1, 5.0)], &p).unwrap_err();
    assert!(
        matches!(
            &e,
            PlanError::InvalidTierForecast {
                field: "option.level",
                ..
            }
        ),
        "{e}"
    );
    let e = plan_tiers(
        2,
        &[0, 2],
        |_| {
            let mut f = fc(1, 5.0);
            f.scan_s = Some(-1.0);
            vec![fc(0, 1.0), f]
        },
        &p,
    )
    .unwrap_err();
    assert!(
        matches!(
            &e,
            PlanError::InvalidTierForecast {
                field: "scan_s",
                ..
            }
        ),
        "{e}"
    );
    // ...but an empty tier's forecast is ignored (a predictor may well divide by zero).
    let plan = plan_tiers(
        2,
        &[0, 2],
        |sizes| {
            vec![
                fc(0, 5.0 * 2.0 / sizes[0] as f64),
                fc(1, 5.0 * 2.0 / sizes[1] as f64),
            ]
        },
        &p,
    )
    .unwrap();
    assert_eq!(plan.compositions_evaluated, 3);

    // No disks: an empty plan, predictor never called.
    let plan = plan_tiers(0, &[0, 0], |_| unreachable!(), &p).unwrap();
    assert!(plan.feasible && plan.tiers.is_empty() && plan.energy_j == 0.0);
    assert_eq!(plan.sizes, vec![0, 0]);
}

fn any_option() -> impl Strategy<Value = SpeedOption> {
    (
        0usize..3,
        any::<u32>(),
        any::<f64>(),
        any::<f64>(),
        any::<f64>(),
        any::<f64>(),
    )
        .prop_map(
            |(level, rpm, active_w, idle_w, service_mean_s, service_var_s2)| SpeedOption {
                level,
                rpm,
                active_w,
                idle_w,
                service_mean_s,
                service_var_s2,
            },
        )
}

fn any_disk() -> impl Strategy<Value = DiskForecast> {
    (
        any::<f64>(),
        0usize..4,
        proptest::collection::vec(any_option(), 0..4),
    )
        .prop_map(
            |(arrival_rate_per_s, current_level, options)| DiskForecast {
                arrival_rate_per_s,
                current_level,
                options,
            },
        )
}

fn any_params() -> impl Strategy<Value = EpochParams> {
    (any::<f64>(), any::<f64>(), any::<f64>(), any::<f64>()).prop_map(|(a, b, c, d)| EpochParams {
        epoch_s: a,
        transition_s: b,
        transition_energy_j: c,
        r_limit_s: d,
    })
}

proptest! {
    /// Arbitrary (mostly garbage) input: an error or a plan, never a panic.
    #[test]
    fn never_panics_on_garbage(disks in proptest::collection::vec(any_disk(), 0..5),
                               p in any_params()) {
        let _ = plan_speeds(&disks, &p);
        let _ = plan_speeds_with(&disks, &p, &SolverConfig { max_frontier: 0, max_group_compositions: 2, ..SolverConfig::default() });
        for d in &disks {
            for j in 0..4 {
                let _ = evaluate_level(d, j, &p);
            }
        }
    }

    /// Valid parameters, arbitrary numeric disk fields in valid shape.
    #[test]
    fn never_panics_on_extreme_values(
        alphas in proptest::collection::vec(prop_oneof![Just(0.0), Just(f64::MAX), Just(f64::MIN_POSITIVE), 0.0..1e6f64], 1..5),
        mean in prop_oneof![Just(0.0), Just(f64::MAX), 0.0..1.0f64],
        var in prop_oneof![Just(0.0), Just(f64::MAX), 0.0..1.0f64],
        power in prop_oneof![Just(0.0), Just(f64::MAX), 0.0..100.0f64],
        p in epoch_params(),
    ) {
        let disks: Vec<_> = alphas.iter().map(|&a| {
            let mut d = paper_disk(a, 0);
            d.options[0].service_mean_s = mean;
            d.options[0].service_var_s2 = var;
            d.options[1].active_w = power;
            d
        }).collect();
        let plan = plan_speeds(&disks, &p).unwrap();
        prop_assert_eq!(plan.levels.len(), disks.len());
        let tp = plan_tiers(3, &[1, 2], |_| disks.iter().take(2).enumerate().map(|(t, d)| TierForecast {
            arrival_rate_per_s: d.arrival_rate_per_s,
            option: d.options[t],
            scan_s: Some(mean),
        }).chain(std::iter::repeat(TierForecast {
            arrival_rate_per_s: 1.0,
            option: paper_disk(0.0, 0).options[1],
            scan_s: None,
        })).take(2).collect(), &p);
        let acceptable = tp.is_ok() || matches!(tp, Err(PlanError::InvalidTierForecast { .. }));
        prop_assert!(acceptable);
    }
}
