//! Hibernator's layout variant (`plan_tiers`): disks in a tier are interchangeable, so
//! the decision is how many disks each speed tier gets.

use serde::{Deserialize, Serialize};

use crate::model::{check_option, level_cost, saturated_energy_j, weighted_response};
use crate::solver::{FEASIBILITY_RELATIVE, TIE_RELATIVE};
use crate::{EpochParams, LevelCost, PlanError, SpeedOption};

/// Most tier-size vectors [`plan_tiers`] will enumerate.
pub const MAX_COMPOSITIONS: usize = 2_000_000;

/// The predicted per-disk load of one tier, for one candidate tier-size vector.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TierForecast {
    /// α: arrival rate at *each* disk of the tier (requests/s); the layout balances load
    /// uniformly within a tier.
    pub arrival_rate_per_s: f64,
    /// The tier's speed: powers, and the service-time moments of this tier's workload at
    /// that speed. `option.level` must be the tier's index.
    pub option: SpeedOption,
    /// Sequential scan time of one disk of this tier (s), used for the reorganisation
    /// phase T_R = 2 Scan / (1 − ρ)² when the tier's membership changes. `None` leaves
    /// reorganisation out of the model.
    pub scan_s: Option<f64>,
}

/// What the model predicts for one tier of the chosen layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierOutcome {
    /// Speed level of the tier.
    pub level: usize,
    /// Number of disks in the tier.
    pub disks: usize,
    /// Disks that join the tier and therefore change speed.
    pub moved_in: usize,
    /// Whether a reorganisation phase was charged (size changed and a scan time given).
    pub reorganised: bool,
    /// Per-disk arrival rate (requests/s).
    pub arrival_rate_per_s: f64,
    /// Prediction for a disk that was already at this speed (`None` if there is none).
    pub staying: Option<LevelCost>,
    /// Prediction for a disk that joins the tier (`None` if there is none).
    pub moving: Option<LevelCost>,
    /// Energy of all the tier's disks (J).
    pub energy_j: f64,
}

/// The chosen tier sizes for the next epoch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierPlan {
    /// Disks per speed level (slowest first), summing to the array size.
    pub sizes: Vec<usize>,
    /// Predicted array energy over the epoch (J).
    pub energy_j: f64,
    /// Predicted request-weighted mean response time (s); 0 with no load.
    pub mean_response_s: f64,
    /// `false` if no tier-size vector meets R_limit (then all disks are in the fastest tier).
    pub feasible: bool,
    /// Disks that change speed: Σ_t max(0, sizes_t − current_t).
    pub speed_changes: usize,
    /// Per-tier predictions.
    pub tiers: Vec<TierOutcome>,
    /// Number of tier-size vectors evaluated.
    pub compositions_evaluated: usize,
}

/// Number of tier-size vectors of `n` disks over `s` tiers, C(n + s − 1, s − 1), if it is
/// at most `limit`.
pub fn composition_count(n: usize, s: usize, limit: usize) -> Option<usize> {
    if s == 0 {
        return (n == 0 && limit >= 1).then_some(1);
    }
    // C(n + k, k) for k = s − 1, built up multiplicatively (each prefix is an integer).
    let mut c: u128 = 1;
    for i in 1..s as u128 {
        c = c.checked_mul(n as u128 + i)? / i;
        if c > limit as u128 {
            return None;
        }
    }
    usize::try_from(c).ok().filter(|&c| c <= limit)
}

struct Eval {
    sizes: Vec<usize>,
    energy: f64,
    weighted: f64,
    rate: f64,
    changes: usize,
    feasible: bool,
    tiers: Vec<TierOutcome>,
}

impl Eval {
    fn level_sum(&self) -> usize {
        self.sizes.iter().enumerate().map(|(t, &n)| t * n).sum()
    }
}

/// Chooses the tier-size vector (n_1 … n_s), Σ = `n_disks`, that minimises predicted
/// energy subject to the array's mean response time ≤ R_limit, by evaluating every
/// vector (C(n + s − 1, s − 1) of them) with the CR equations.
///
/// `current_sizes[t]` is the number of disks now at speed level t (slowest first). For a
/// candidate, the Σ_t max(0, cand_t − cur_t) disks that join a tier change speed and are
/// charged one transition; every disk of a tier whose size changes is charged a
/// reorganisation phase if its forecast gives a scan time. `predict(sizes)` returns one
/// [`TierForecast`] per level for that candidate; forecasts of empty tiers are ignored.
///
/// Ties in energy (within 1e-9 relative) go to fewer speed changes, then to a larger Σ
/// t·n_t, then to more disks in the fastest tier, the next fastest, and so on. If no
/// vector is feasible, all disks go to the fastest tier and `feasible` is `false`.
pub fn plan_tiers<F>(
    n_disks: usize,
    current_sizes: &[usize],
    mut predict: F,
    p: &EpochParams,
) -> Result<TierPlan, PlanError>
where
    F: FnMut(&[usize]) -> Vec<TierForecast>,
{
    p.validate()?;
    let s = current_sizes.len();
    if s == 0 {
        return Err(PlanError::NoTiers);
    }
    let sum = current_sizes
        .iter()
        .try_fold(0usize, |a, &b| a.checked_add(b))
        .unwrap_or(usize::MAX);
    if sum != n_disks {
        return Err(PlanError::TierSizesMismatch { n_disks, sum });
    }
    if composition_count(n_disks, s, MAX_COMPOSITIONS).is_none() {
        return Err(PlanError::TooManyCompositions {
            n_disks,
            levels: s,
            max: MAX_COMPOSITIONS,
        });
    }
    if n_disks == 0 {
        return Ok(TierPlan {
            sizes: vec![0; s],
            energy_j: 0.0,
            mean_response_s: 0.0,
            feasible: true,
            speed_changes: 0,
            tiers: Vec::new(),
            compositions_evaluated: 0,
        });
    }

    let mut all_fast = vec![0; s];
    all_fast[s - 1] = n_disks;
    let mut fallback: Option<Eval> = None;
    let mut running_min = f64::INFINITY;
    let mut near: Vec<Eval> = Vec::new();
    let mut evaluated = 0usize;

    let mut sizes = vec![0usize; s];
    sizes[0] = n_disks;
    loop {
        let forecasts = predict(&sizes);
        let eval = evaluate(&sizes, current_sizes, &forecasts, p)?;
        evaluated += 1;
        if eval.feasible {
            if eval.energy < running_min {
                running_min = eval.energy;
                let ceiling = running_min + running_min.abs() * TIE_RELATIVE;
                near.retain(|e| e.energy <= ceiling);
            }
            if eval.energy <= running_min + running_min.abs() * TIE_RELATIVE {
                near.push(eval);
            }
        } else if sizes == all_fast {
            fallback = Some(eval);
        }
        if !next_composition(&mut sizes) {
            break;
        }
    }

    let ceiling = running_min + running_min.abs() * TIE_RELATIVE;
    let best = near
        .into_iter()
        .filter(|e| e.energy <= ceiling)
        .min_by(|a, b| {
            a.changes
                .cmp(&b.changes)
                .then(b.level_sum().cmp(&a.level_sum()))
                .then_with(|| b.sizes.iter().rev().cmp(a.sizes.iter().rev()))
        });
    let (eval, feasible) = match best {
        Some(e) => (e, true),
        None => match fallback {
            Some(e) => (e, false),
            // The all-fastest vector is always enumerated; this only guards the logic.
            None => (
                evaluate(&all_fast, current_sizes, &predict(&all_fast), p)?,
                false,
            ),
        },
    };
    Ok(TierPlan {
        mean_response_s: if eval.rate > 0.0 {
            eval.weighted / eval.rate
        } else {
            0.0
        },
        sizes: eval.sizes,
        energy_j: eval.energy,
        feasible,
        speed_changes: eval.changes,
        tiers: eval.tiers,
        compositions_evaluated: evaluated,
    })
}

/// Advances `sizes` to the next composition with the same sum (moving one disk at a time
/// towards faster tiers); `false` after the last (all in the fastest tier).
fn next_composition(sizes: &mut [usize]) -> bool {
    let s = sizes.len();
    // Find the rightmost non-zero entry before the last position.
    let Some(i) = (0..s.saturating_sub(1)).rev().find(|&i| sizes[i] > 0) else {
        return false;
    };
    // Move one unit from i to i+1 and gather everything right of i+1 back into i+1.
    let tail: usize = sizes[i + 2..].iter().sum();
    for x in &mut sizes[i + 2..] {
        *x = 0;
    }
    sizes[i] -= 1;
    sizes[i + 1] += 1 + tail;
    true
}

fn evaluate(
    sizes: &[usize],
    current: &[usize],
    forecasts: &[TierForecast],
    p: &EpochParams,
) -> Result<Eval, PlanError> {
    if forecasts.len() != sizes.len() {
        return Err(PlanError::ForecastCountMismatch {
            sizes: sizes.to_vec(),
            expected: sizes.len(),
            found: forecasts.len(),
        });
    }
    let mut energy = 0.0;
    let mut weighted = 0.0;
    let mut rate = 0.0;
    let mut changes = 0;
    let mut feasible = true;
    let mut tiers = Vec::new();
    for (t, ((&n, &cur), f)) in sizes.iter().zip(current).zip(forecasts).enumerate() {
        if n == 0 {
            continue;
        }
        validate_forecast(sizes, t, f)?;
        let moved = n.saturating_sub(cur);
        let staying = n - moved;
        let reorg = if n != cur { f.scan_s } else { None };
        let alpha = f.arrival_rate_per_s;
        let cost = |changes: bool| {
            let mut c = level_cost(alpha, &f.option, changes, reorg, p);
            if !c.feasible {
                c.energy_j = saturated_energy_j(alpha, &f.option, changes, p);
            }
            c
        };
        let stay_cost = (staying > 0).then(|| cost(false));
        let move_cost = (moved > 0).then(|| cost(true));
        let mut tier_energy = 0.0;
        for (count, c) in [(staying, &stay_cost), (moved, &move_cost)] {
            if let Some(c) = c {
                feasible &= c.feasible;
                tier_energy += count as f64 * c.energy_j;
                weighted += count as f64 * weighted_response(alpha, c.epoch_response_s);
            }
        }
        energy += tier_energy;
        rate += n as f64 * alpha;
        changes += moved;
        tiers.push(TierOutcome {
            level: t,
            disks: n,
            moved_in: moved,
            reorganised: reorg.is_some(),
            arrival_rate_per_s: alpha,
            staying: stay_cost,
            moving: move_cost,
            energy_j: tier_energy,
        });
    }
    let budget = p.r_limit_s * rate;
    feasible &= weighted <= budget + budget * FEASIBILITY_RELATIVE;
    Ok(Eval {
        sizes: sizes.to_vec(),
        energy,
        weighted,
        rate,
        changes,
        feasible,
        tiers,
    })
}

fn validate_forecast(sizes: &[usize], tier: usize, f: &TierForecast) -> Result<(), PlanError> {
    let err = |field, value, expected| PlanError::InvalidTierForecast {
        sizes: sizes.to_vec(),
        tier,
        field,
        value,
        expected,
    };
    if !(f.arrival_rate_per_s.is_finite() && f.arrival_rate_per_s >= 0.0) {
        return Err(err(
            "arrival_rate_per_s",
            f.arrival_rate_per_s,
            "a finite rate in requests/s >= 0",
        ));
    }
    if f.option.level != tier {
        return Err(err(
            "option.level",
            f.option.level as f64,
            "the tier's own index (tiers are indexed by speed level, slowest first)",
        ));
    }
    check_option(&f.option, err)?;
    if let Some(scan) = f.scan_s {
        if !(scan.is_finite() && scan >= 0.0) {
            return Err(err("scan_s", scan, "a finite time in seconds >= 0"));
        }
    }
    Ok(())
}
