//! `plan_speeds` returns exactly the brute-force optimum (with the documented tie rules),
//! on random and hand-built instances, with and without grouping, and through the
//! branch-and-bound fallback.

mod common;

use common::*;
use proptest::prelude::*;
use tierlab_hibernator_cr::*;

fn check_against_brute_force(disks: &[DiskForecast], p: &EpochParams) -> Plan {
    let want = brute_force(disks, p);
    let configs = [
        SolverConfig::default(),
        SolverConfig {
            group_identical: false,
            ..SolverConfig::default()
        },
        // Frontier cap 0: both phases must fall back to depth-first search.
        SolverConfig {
            max_frontier: 0,
            ..SolverConfig::default()
        },
        // A small cap: some phases fit, some fall back, in every combination.
        SolverConfig {
            max_frontier: 3,
            group_identical: false,
            ..SolverConfig::default()
        },
        // Identical disks split into chunks of at most 6 compositions (5 disks with 2
        // speeds, 2 with 3), by DP and by depth-first search.
        SolverConfig {
            max_group_compositions: 6,
            ..SolverConfig::default()
        },
        SolverConfig {
            max_group_compositions: 6,
            max_frontier: 0,
            ..SolverConfig::default()
        },
    ];
    let mut first = None;
    for cfg in configs {
        let plan = plan_speeds_with(disks, p, &cfg).unwrap();
        assert_eq!(plan.feasible, want.feasible, "feasibility, {cfg:?}");
        assert_eq!(
            plan.levels, want.levels,
            "levels, {cfg:?}\nplan {plan:?}\nwant {want:?}"
        );
        assert_eq!(plan.speed_changes, want.changes);
        if want.feasible {
            assert!(
                rel_close(plan.energy_j, want.energy_j, 1e-12),
                "{} vs {}",
                plan.energy_j,
                want.energy_j
            );
            assert!(plan.mean_response_s <= p.r_limit_s * (1.0 + 1e-9));
            if cfg.max_frontier == 0 {
                assert_eq!(plan.stats.method, SolveMethod::BranchAndBound);
            }
        } else {
            assert!(plan
                .levels
                .iter()
                .zip(disks)
                .all(|(&l, d)| l == d.options.len() - 1));
        }
        first.get_or_insert(plan);
    }
    first.unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn matches_brute_force((disks, p) in instance(12)) {
        check_against_brute_force(&disks, &p);
    }
}

/// Guards the generator: the random instances exercise feasible and infeasible cases,
/// binding constraints and duplicates (counted over a fixed-seed sample).
#[test]
fn random_instances_cover_the_interesting_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(Default::default()),
    );
    let strat = instance(8);
    let (mut infeasible, mut binding, mut duplicates, mut changes) = (0, 0, 0, 0);
    for _ in 0..300 {
        let (disks, p) = strat.new_tree(&mut runner).unwrap().current();
        let plan = check_against_brute_force(&disks, &p);
        if !plan.feasible {
            infeasible += 1;
        } else {
            // Binding: the plan is not simply "everything at its cheapest speed".
            let cheapest: f64 = disks
                .iter()
                .map(|d| {
                    (0..d.options.len())
                        .map(|j| evaluate_level(d, j, &p).unwrap())
                        .filter(|c| c.feasible)
                        .map(|c| c.energy_j)
                        .fold(f64::INFINITY, f64::min)
                })
                .sum();
            if plan.energy_j > cheapest * (1.0 + 1e-9) {
                binding += 1;
            }
            if plan.speed_changes > 0 {
                changes += 1;
            }
        }
        if plan.stats.groups < disks.len() {
            duplicates += 1;
        }
    }
    eprintln!("coverage: infeasible {infeasible} binding {binding} duplicates {duplicates} changes {changes}");
    assert!(infeasible >= 10, "infeasible {infeasible}");
    assert!(binding >= 10, "binding {binding}");
    assert!(duplicates >= 50, "duplicates {duplicates}");
    assert!(changes >= 10, "changes {changes}");
}

#[test]
fn hibernator_array_of_identical_disks() {
    // 24 disks currently fast; at α = 5/s each, a 10 ms limit lets only some slow down
    // (a transition costs ~21 ms × (1 + ρ) of epoch-average response on that disk).
    let p = paper_params(10.0 * MS);
    let disks: Vec<_> = (0..24).map(|_| paper_disk(5.0, 1)).collect();
    let plan = check_against_brute_force_grouped(&disks, &p);
    let slow = plan.levels.iter().filter(|&&l| l == 0).count();
    // Σ α R ≤ R_limit Σ α with k slow: k·37.316 + (24-k)·5.588 ≤ 240 → k ≤ 3.
    assert_eq!(slow, 3, "{plan:?}");
    // Canonical: the slowed disks are the last ones (faster speeds on lower indices).
    assert_eq!(&plan.levels[21..], &[0, 0, 0]);
    assert!(plan.feasible && plan.speed_changes == 3);
    assert_eq!(plan.stats.groups, 1);
}

/// For instances too big to enumerate per disk but made of identical disks: compare with
/// a brute force over compositions (how many of each group at each level).
fn check_against_brute_force_grouped(disks: &[DiskForecast], p: &EpochParams) -> Plan {
    let plan = plan_speeds(disks, p).unwrap();
    // Brute force over k = number of disks at level 0 (all disks identical, 2 levels).
    let n = disks.len();
    let c0 = evaluate_level(&disks[0], 0, p).unwrap();
    let c1 = evaluate_level(&disks[0], 1, p).unwrap();
    let a = disks[0].arrival_rate_per_s;
    let mut best: Option<(f64, usize)> = None;
    for k in 0..=n {
        let e = k as f64 * c0.energy_j + (n - k) as f64 * c1.energy_j;
        let w = a * (k as f64 * c0.epoch_response_s + (n - k) as f64 * c1.epoch_response_s);
        if w <= p.r_limit_s * a * n as f64 && best.is_none_or(|b| e < b.0) {
            best = Some((e, k));
        }
    }
    let (e, k) = best.unwrap();
    assert_eq!(plan.levels.iter().filter(|&&l| l == 0).count(), k);
    assert!(rel_close(plan.energy_j, e, 1e-12));
    plan
}

#[test]
fn infeasible_instance_falls_back_to_full_speed() {
    // The limit is below the fastest service time: nothing can meet it.
    let p = paper_params(4.0 * MS);
    let disks = vec![paper_disk(5.0, 0), paper_disk(50.0, 1), paper_disk(0.0, 0)];
    let plan = check_against_brute_force(&disks, &p);
    assert!(!plan.feasible);
    assert_eq!(plan.levels, vec![1, 1, 1]);
    assert_eq!(plan.speed_changes, 2);
    // Reported with the model's numbers at those speeds.
    let e: f64 = (0..3)
        .map(|i| evaluate_level(&disks[i], 1, &p).unwrap().energy_j)
        .sum();
    assert!(rel_close(plan.energy_j, e, 1e-12));
}

#[test]
fn overloaded_disk_falls_back_and_reports_saturation() {
    // 250 req/s at 5.5 ms is ρ = 1.375 even at full speed.
    let p = paper_params(50.0 * MS);
    let disks = vec![paper_disk(250.0, 1), paper_disk(1.0, 0)];
    let plan = check_against_brute_force(&disks, &p);
    assert!(!plan.feasible);
    assert_eq!(plan.levels, vec![1, 1]);
    assert_eq!(plan.mean_response_s, f64::INFINITY);
    // Saturated: busy the whole epoch at active power.
    assert!(rel_close(plan.disks[0].energy_j, 13.5 * 3600.0, 1e-12));
    assert!(plan.energy_j.is_finite());
}

#[test]
fn generous_limit_slows_everything_that_pays() {
    let p = paper_params(1.0);
    let disks = vec![paper_disk(5.0, 1), paper_disk(0.0, 1), paper_disk(20.0, 0)];
    let plan = check_against_brute_force(&disks, &p);
    assert_eq!(plan.levels, vec![0, 0, 0]);
}

/// Disk with three speeds whose energy is the same at every speed (power independent of
/// speed, no load) and optionally unusable at the slowest speed.
fn flat_power_disk(current_level: usize, alpha: f64) -> DiskForecast {
    DiskForecast {
        arrival_rate_per_s: alpha,
        current_level,
        options: (0..3)
            .map(|j| SpeedOption {
                level: j,
                rpm: 5000 * (j as u32 + 1),
                active_w: 8.0,
                idle_w: 8.0,
                service_mean_s: [30.0, 10.0, 5.0][j] * MS,
                service_var_s2: 0.0,
            })
            .collect(),
    }
}

#[test]
fn ties_prefer_fewer_changes_then_faster() {
    // Free transitions (0 s, 0 J) and speed-independent power: every assignment costs
    // the same energy, so the tie rules decide.
    let p = EpochParams {
        epoch_s: 3600.0,
        transition_s: 0.0,
        transition_energy_j: 0.0,
        r_limit_s: 1.0,
    };
    // Fewest changes: everyone stays.
    let disks = vec![
        flat_power_disk(0, 1.0),
        flat_power_disk(1, 1.0),
        flat_power_disk(2, 0.0),
    ];
    assert_eq!(check_against_brute_force(&disks, &p).levels, vec![0, 1, 2]);

    // A disk that must change (ρ ≥ 1 at its current, slowest speed: 40/s × 30 ms) goes
    // to the fastest of the equal-energy speeds.
    let disks = vec![flat_power_disk(0, 40.0), flat_power_disk(1, 1.0)];
    let plan = check_against_brute_force(&disks, &p);
    assert_eq!(plan.levels, vec![2, 1]);
    assert_eq!(plan.speed_changes, 1);

    // Ties within 1e-9 relative count as ties; beyond, energy wins.
    let mut a = flat_power_disk(0, 40.0);
    a.options[1].idle_w = 8.0 * (1.0 - 1e-12);
    a.options[1].active_w = 8.0 * (1.0 - 1e-12);
    assert_eq!(check_against_brute_force(&[a.clone()], &p).levels, vec![2]);
    a.options[1].idle_w = 8.0 * (1.0 - 1e-6);
    a.options[1].active_w = 8.0 * (1.0 - 1e-6);
    assert_eq!(check_against_brute_force(&[a], &p).levels, vec![1]);
}

#[test]
fn identical_disks_get_canonical_levels() {
    // Four identical disks, of which two may slow down: the slow ones are the last two,
    // whatever order the solver explores.
    let mut p = paper_params(0.0);
    let disks: Vec<_> = (0..4).map(|_| paper_disk(5.0, 1)).collect();
    // Budget for exactly two transitions: 2·37.316 + 2·5.588 = 85.8 ms·α over 4 disks.
    p.r_limit_s = 21.5 * MS;
    let plan = check_against_brute_force(&disks, &p);
    assert_eq!(plan.levels, vec![1, 1, 0, 0]);
}

#[test]
fn mixed_groups_and_singletons() {
    let p = paper_params(12.0 * MS);
    let mut disks = vec![];
    for i in 0..11 {
        // Three load classes interleaved, plus current levels that differ.
        let alpha = [2.0, 9.0, 30.0][i % 3];
        disks.push(paper_disk(alpha, (i / 3) % 2));
    }
    check_against_brute_force(&disks, &p);
}

#[test]
fn empty_array_gives_empty_plan() {
    let plan = plan_speeds(&[], &paper_params(0.01)).unwrap();
    assert!(plan.levels.is_empty() && plan.disks.is_empty());
    assert!(plan.feasible);
    assert_eq!(plan.energy_j, 0.0);
    assert_eq!(plan.mean_response_s, 0.0);
    assert_eq!(plan.speed_changes, 0);
}

#[test]
fn unloaded_array_is_unconstrained() {
    // Σ α = 0: the constraint is 0 ≤ 0, so every disk takes its cheapest speed.
    let p = paper_params(1e-6);
    let disks = vec![paper_disk(0.0, 1), paper_disk(0.0, 0)];
    let plan = check_against_brute_force(&disks, &p);
    assert!(plan.feasible);
    assert_eq!(plan.levels, vec![0, 0]);
    assert_eq!(plan.mean_response_s, 0.0);
}

#[test]
fn plan_serialises() {
    fn is_serialize<T: serde::Serialize>(_: &T) {}
    let plan = plan_speeds(&[paper_disk(5.0, 1)], &paper_params(0.01)).unwrap();
    is_serialize(&plan);
}
