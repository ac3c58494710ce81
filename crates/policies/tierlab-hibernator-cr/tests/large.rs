//! A 1,000-disk array in 10 load classes: the planner finishes, and agrees with slower
//! exact methods (branch and bound on the full array; brute force on a small copy).

mod common;

use common::*;
use tierlab_hibernator_cr::*;

/// `per_class` disks in each of 10 load classes, 3 speeds, classes interleaved.
fn array(per_class: usize) -> Vec<DiskForecast> {
    let mut disks = Vec::new();
    for _ in 0..per_class {
        for class in 0..10 {
            let alpha = 1.0 + 4.0 * class as f64;
            let fast = 4.0 + 0.3 * class as f64;
            let options = vec![
                SpeedOption {
                    level: 0,
                    rpm: 5400,
                    active_w: 6.1,
                    idle_w: 2.8,
                    service_mean_s: 2.6 * fast * MS,
                    service_var_s2: (1.6 * fast * MS).powi(2),
                },
                SpeedOption {
                    level: 1,
                    rpm: 10000,
                    active_w: 9.4,
                    idle_w: 6.1,
                    service_mean_s: 1.5 * fast * MS,
                    service_var_s2: (1.1 * fast * MS).powi(2),
                },
                SpeedOption {
                    level: 2,
                    rpm: 15000,
                    active_w: 13.5,
                    idle_w: 10.2,
                    service_mean_s: fast * MS,
                    service_var_s2: (0.8 * fast * MS).powi(2),
                },
            ];
            disks.push(DiskForecast {
                arrival_rate_per_s: alpha,
                current_level: class % 3,
                options,
            });
        }
    }
    disks
}

fn params() -> EpochParams {
    EpochParams {
        epoch_s: 3600.0,
        transition_s: 12.4,
        transition_energy_j: 152.0,
        r_limit_s: 30.0 * MS,
    }
}

#[test]
fn thousand_disks_in_ten_classes() {
    let disks = array(100);
    let p = params();
    let t = std::time::Instant::now();
    let plan = plan_speeds(&disks, &p).unwrap();
    eprintln!("1000 disks: {:?}, stats {:?}", t.elapsed(), plan.stats);
    assert!(plan.feasible);
    assert_eq!(plan.stats.groups, 10);
    assert_eq!(plan.stats.method, SolveMethod::ParetoFrontier);
    assert!(plan.mean_response_s <= p.r_limit_s * (1.0 + 1e-9));
    // The limit binds: not every disk is at its cheapest speed.
    let cheapest: f64 = disks
        .iter()
        .map(|d| {
            (0..3)
                .map(|j| evaluate_level(d, j, &p).unwrap())
                .filter(|c| c.feasible)
                .map(|c| c.energy_j)
                .fold(f64::INFINITY, f64::min)
        })
        .sum();
    assert!(
        plan.energy_j > cheapest * (1.0 + 1e-6),
        "{} vs {cheapest}",
        plan.energy_j
    );

    // Same answer from depth-first branch and bound (frontier cap 0).
    let t = std::time::Instant::now();
    let bb = plan_speeds_with(
        &disks,
        &p,
        &SolverConfig {
            max_frontier: 0,
            ..SolverConfig::default()
        },
    )
    .unwrap();
    eprintln!("1000 disks by B&B: {:?}", t.elapsed());
    assert_eq!(bb.stats.method, SolveMethod::BranchAndBound);
    assert_eq!(bb.levels, plan.levels);
}

#[test]
fn small_copy_matches_brute_force() {
    // One disk per class: 3^10 assignments, enumerated. Tight enough a limit that the
    // answer is not trivial.
    for r_ms in [12.0, 20.0, 30.0] {
        let p = EpochParams {
            r_limit_s: r_ms * MS,
            ..params()
        };
        let disks = array(1);
        let plan = plan_speeds(&disks, &p).unwrap();
        let want = brute_force(&disks, &p);
        assert_eq!(plan.levels, want.levels);
        assert_eq!(plan.feasible, want.feasible);
    }
    // Twenty per class, grouped (10 decisions) and not (200).
    let p = params();
    let disks = array(20);
    let grouped = plan_speeds(&disks, &p).unwrap();
    let single = plan_speeds_with(
        &disks,
        &p,
        &SolverConfig {
            group_identical: false,
            ..SolverConfig::default()
        },
    )
    .unwrap();
    assert_eq!(grouped.stats.groups, 10);
    assert_eq!(single.stats.groups, 200);
    assert_eq!(grouped.levels, single.levels);
}

#[test]
fn big_families_split_into_chunks() {
    // 3,000 identical two-speed disks: the answer is "slow down k of them", k found by
    // enumeration. Solved whole (one decision) and split into 31 chunks of 99 disks.
    let p = EpochParams {
        r_limit_s: 9.0 * MS,
        ..params()
    };
    let disks: Vec<_> = (0..3000).map(|_| paper_disk(5.0, 1)).collect();
    let c0 = evaluate_level(&disks[0], 0, &p).unwrap();
    let c1 = evaluate_level(&disks[0], 1, &p).unwrap();
    let n = disks.len();
    let best_k = (0..=n)
        .filter(|&k| {
            let w = 5.0 * (k as f64 * c0.epoch_response_s + (n - k) as f64 * c1.epoch_response_s);
            w <= p.r_limit_s * 5.0 * n as f64
        })
        .min_by(|&a, &b| {
            let e = |k: usize| k as f64 * c0.energy_j + (n - k) as f64 * c1.energy_j;
            e(a).total_cmp(&e(b))
        })
        .unwrap();
    assert!(best_k > 0 && best_k < n, "{best_k}");
    for max_group_compositions in [1 << 21, 100] {
        let t = std::time::Instant::now();
        let cfg = SolverConfig {
            max_group_compositions,
            ..SolverConfig::default()
        };
        let plan = plan_speeds_with(&disks, &p, &cfg).unwrap();
        eprintln!(
            "3000 identical, {:?}: {:?} {:?}",
            max_group_compositions,
            t.elapsed(),
            plan.stats
        );
        // Canonical: the slow disks are the last best_k.
        let mut want = vec![1; n];
        want[n - best_k..].fill(0);
        assert_eq!(plan.levels, want);
    }

    // 600 identical three-speed disks (currently at the middle speed), whole and in
    // chunks of 43, must agree.
    let mut d = array(1)[5].clone();
    d.current_level = 1;
    let disks = vec![d; 600];
    let p = EpochParams {
        r_limit_s: 12.0 * MS,
        ..params()
    };
    let whole = plan_speeds(&disks, &p).unwrap();
    let t = std::time::Instant::now();
    let cfg = SolverConfig {
        max_group_compositions: 1000,
        ..SolverConfig::default()
    };
    let chunked = plan_speeds_with(&disks, &p, &cfg).unwrap();
    eprintln!(
        "600 identical in chunks: {:?} {:?}",
        t.elapsed(),
        chunked.stats
    );
    assert_eq!(whole.stats.groups, 1);
    assert_eq!(chunked.stats.groups, 14);
    assert!(whole.feasible);
    let hist = |l: &[usize]| {
        (0..3)
            .map(|j| l.iter().filter(|&&x| x == j).count())
            .collect::<Vec<_>>()
    };
    eprintln!("600 identical: {:?}", hist(&whole.levels));
    assert_eq!(whole.levels, chunked.levels);
}
