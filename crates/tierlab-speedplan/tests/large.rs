//! A 1,000-disk array in 10 load classes: the planner finishes, and agrees with slower
//! exact methods (branch and bound on the full array; brute force on a small copy).

mod common;

use common::*;
use tierlab_speedplan::*;

/// `per_class` disks in each of 10 load classes, 3 speeds, classes interleaved.
fn array(per_class: usize) -> Vec<DiskForecast> {
    let mut disks = Vec::new();
    for i in 0..per_class {
        for class in 0..10 {
            let alpha = 1.0 + 4.0 * class as f64 + 0.0 * i as f64;
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
    assert!(plan.energy_j > cheapest * (1.0 + 1e-6), "{} vs {cheapest}", plan.energy_j);

    // Same answer from depth-first branch and bound (frontier cap 0).
    let t = std::time::Instant::now();
    let bb = plan_speeds_with(
        &disks,
        &p,
        &SolverConfig {
            max_frontier: 0,
            group_identical: true,
        },
    )
    .unwrap();
    eprintln!("1000 disks by B&B: {:?}", t.elapsed());
    assert_eq!(bb.stats.method, SolveMethod::BranchAndBound);
    assert_eq!(bb.levels, plan.levels);
}

#[test]
fn small_copy_matches_brute_force() {
    // One disk per class (3^10 assignments) and two per class with grouping off.
    let p = params();
    for per_class in [1] {
        let disks = array(per_class);
        let plan = plan_speeds(&disks, &p).unwrap();
        let want = brute_force(&disks, &p);
        assert_eq!(plan.levels, want.levels);
        assert_eq!(plan.feasible, want.feasible);
    }
    let disks = array(4);
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
    assert_eq!(single.stats.groups, 40);
    assert_eq!(grouped.levels, single.levels);
}

#[test]
fn zz_explore() {
    use std::time::Instant;
    // Distinct disks: every disk its own α.
    for (n, levels) in [(1000usize, 3usize), (1000, 2), (24, 3)] {
        for r in [10.0, 15.0, 20.0, 30.0] {
            let mut disks = array(n / 10);
            for (i, d) in disks.iter_mut().enumerate() {
                d.arrival_rate_per_s *= 1.0 + 1e-3 * i as f64;
                d.options.truncate(levels);
                d.options.last_mut().unwrap().rpm = 15000;
                d.current_level %= levels;
            }
            let p = EpochParams { r_limit_s: r * MS, ..params() };
            let t = Instant::now();
            let plan = plan_speeds(&disks, &p).unwrap();
            eprintln!("n {n} s {levels} r {r}: {:?} feasible {} changes {} {:?}", t.elapsed(), plan.feasible, plan.speed_changes, plan.stats);
        }
    }
}
