//! Shared helpers for the integration tests: instance builders, brute-force reference
//! solvers and proptest strategies.
#![allow(dead_code)]

use proptest::prelude::*;
use tierlab_hibernator_cr::{evaluate_level, DiskForecast, EpochParams, SpeedOption, TierForecast};

pub const MS: f64 = 1e-3;

/// The paper's parameters: 1-hour epoch, 12.4 s / 152 J transitions.
pub fn paper_params(r_limit_s: f64) -> EpochParams {
    EpochParams {
        epoch_s: 3600.0,
        transition_s: 12.4,
        transition_energy_j: 152.0,
        r_limit_s,
    }
}

/// Two-speed Sony-like disk (Table 2 powers) with the given service moments.
pub fn two_speed(
    alpha: f64,
    current_level: usize,
    slow: (f64, f64),
    fast: (f64, f64),
) -> DiskForecast {
    DiskForecast {
        arrival_rate_per_s: alpha,
        current_level,
        options: vec![
            SpeedOption {
                level: 0,
                rpm: 3000,
                active_w: 6.1,
                idle_w: 2.8,
                service_mean_s: slow.0,
                service_var_s2: slow.1,
            },
            SpeedOption {
                level: 1,
                rpm: 15000,
                active_w: 13.5,
                idle_w: 10.2,
                service_mean_s: fast.0,
                service_var_s2: fast.1,
            },
        ],
    }
}

/// The notes' standard moments: slow 13.9 ms / 40 ms², fast 5.5 ms / 4 ms².
pub fn paper_disk(alpha: f64, current_level: usize) -> DiskForecast {
    two_speed(
        alpha,
        current_level,
        (13.9 * MS, 40.0 * MS * MS),
        (5.5 * MS, 4.0 * MS * MS),
    )
}

/// Reference result: levels and whether the instance was feasible.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub levels: Vec<usize>,
    pub feasible: bool,
    pub energy_j: f64,
    pub changes: usize,
}

/// Brute force over every level vector (odometer), with the documented tie rules:
/// minimum energy E*, then among W <= B and E <= E* (1 + 1e-9): fewest changes, largest
/// level sum, lexicographically largest level vector.
pub fn brute_force(disks: &[DiskForecast], p: &EpochParams) -> Reference {
    let n = disks.len();
    let costs: Vec<Vec<_>> = disks
        .iter()
        .map(|d| {
            (0..d.options.len())
                .map(|j| evaluate_level(d, j, p).expect("valid test instance"))
                .collect()
        })
        .collect();
    let rate: f64 = disks.iter().map(|d| d.arrival_rate_per_s).sum();
    let budget = p.r_limit_s * rate;
    let btol = budget + budget * 1e-12;
    // Enumerate once, collecting every feasible assignment's totals.
    let mut feasible_set: Vec<(Vec<usize>, f64, usize, usize)> = Vec::new();
    let mut levels = vec![0usize; n];
    loop {
        let mut ok = true;
        let (mut e, mut w) = (0.0, 0.0);
        for i in 0..n {
            let c = &costs[i][levels[i]];
            ok &= c.feasible;
            e += c.energy_j;
            let a = disks[i].arrival_rate_per_s;
            w += if a == 0.0 {
                0.0
            } else {
                a * c.epoch_response_s
            };
        }
        if ok && w <= btol {
            let changes = (0..n)
                .filter(|&i| levels[i] != disks[i].current_level)
                .count();
            let lsum = levels.iter().sum();
            feasible_set.push((levels.clone(), e, changes, lsum));
        }
        // Odometer increment.
        let mut i = 0;
        loop {
            if i == n {
                break;
            }
            levels[i] += 1;
            if levels[i] < disks[i].options.len() {
                break;
            }
            levels[i] = 0;
            i += 1;
        }
        if i == n {
            break;
        }
    }
    if feasible_set.is_empty() {
        let levels: Vec<usize> = disks.iter().map(|d| d.options.len() - 1).collect();
        let changes = (0..n)
            .filter(|&i| levels[i] != disks[i].current_level)
            .count();
        return Reference {
            levels,
            feasible: false,
            energy_j: f64::NAN,
            changes,
        };
    }
    let e_star = feasible_set
        .iter()
        .map(|x| x.1)
        .fold(f64::INFINITY, f64::min);
    let ceiling = e_star + e_star.abs() * 1e-9;
    let best = feasible_set
        .into_iter()
        .filter(|x| x.1 <= ceiling)
        .min_by(|a, b| {
            a.2.cmp(&b.2)
                .then(b.3.cmp(&a.3))
                .then_with(|| b.0.cmp(&a.0))
        })
        .unwrap();
    Reference {
        levels: best.0,
        feasible: true,
        energy_j: best.1,
        changes: best.2,
    }
}

pub fn rel_close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
}

/// A random disk "type"; instances draw disks from a small pool of types so that
/// identical disks are common.
pub fn disk_type(levels: usize) -> impl Strategy<Value = DiskForecast> {
    let alpha = prop_oneof![1 => Just(0.0), 5 => 0.0..80.0f64];
    let fast_mean = 2.0 * MS..10.0 * MS;
    let slowdowns = proptest::collection::vec(1.2..3.0f64, levels - 1);
    let var_factors = proptest::collection::vec(0.0..1.5f64, levels);
    let power_jitter = proptest::collection::vec(0.8..1.2f64, 2 * levels);
    (
        alpha,
        0..levels,
        fast_mean,
        slowdowns,
        var_factors,
        power_jitter,
    )
        .prop_map(
            move |(alpha, current, fast_mean, slowdowns, var_factors, jitter)| {
                // Means from the fastest down.
                let mut means = vec![fast_mean; levels];
                for j in (0..levels - 1).rev() {
                    means[j] = means[j + 1] * slowdowns[j];
                }
                let options = (0..levels)
                    .map(|j| {
                        // Powers grow with speed: slowest ~ (6.1, 2.8), fastest ~ (13.5, 10.2).
                        let x = if levels == 1 {
                            1.0
                        } else {
                            j as f64 / (levels - 1) as f64
                        };
                        SpeedOption {
                            level: j,
                            rpm: 3000 + 12000 * j as u32 / (levels as u32 - 1).max(1),
                            active_w: (6.1 + 7.4 * x) * jitter[2 * j],
                            idle_w: (2.8 + 7.4 * x) * jitter[2 * j + 1],
                            service_mean_s: means[j],
                            service_var_s2: means[j] * means[j] * var_factors[j],
                        }
                    })
                    .collect();
                DiskForecast {
                    arrival_rate_per_s: alpha,
                    current_level: current,
                    options,
                }
            },
        )
}

pub fn epoch_params() -> impl Strategy<Value = EpochParams> {
    (
        prop_oneof![Just(600.0), Just(1800.0), Just(3600.0)],
        prop_oneof![1 => Just(0.0), 4 => 0.5..15.0f64],
        0.0..200.0f64,
        prop_oneof![1 => 1.0 * MS..6.0 * MS, 6 => 6.0 * MS..40.0 * MS],
    )
        .prop_map(|(epoch_s, transition_s, energy, r_limit_s)| EpochParams {
            epoch_s,
            transition_s,
            transition_energy_j: if transition_s == 0.0 { 0.0 } else { energy },
            r_limit_s,
        })
}

/// 1..=max_disks disks with 2 or 3 speeds, drawn from a pool of 1..=5 types.
pub fn instance(max_disks: usize) -> impl Strategy<Value = (Vec<DiskForecast>, EpochParams)> {
    (2usize..=3)
        .prop_flat_map(move |levels| {
            (
                proptest::collection::vec(disk_type(levels), 1..=5),
                proptest::collection::vec(any::<proptest::sample::Index>(), 1..=max_disks),
                epoch_params(),
            )
        })
        .prop_map(|(pool, picks, p)| {
            let disks = picks
                .iter()
                .map(|ix| pool[ix.index(pool.len())].clone())
                .collect();
            (disks, p)
        })
}

/// Parameters of a synthetic tier predictor: total load, skew, per-level service moments
/// and powers, optional scan times.
#[derive(Debug, Clone)]
pub struct TierModel {
    pub total_rate: f64,
    /// Cumulative load of the hottest fraction x of the data is x^skew.
    pub skew: f64,
    pub options: Vec<SpeedOption>,
    pub scan_s: Option<Vec<f64>>,
}

impl TierModel {
    /// Per-tier forecast for a tier-size vector: tiers filled hottest data first from the
    /// fastest tier; load spread evenly within a tier.
    pub fn predict(&self, sizes: &[usize]) -> Vec<TierForecast> {
        let n: usize = sizes.iter().sum();
        let mut out = vec![];
        let mut cum_before = 0.0f64;
        let mut forecasts = vec![None; sizes.len()];
        for t in (0..sizes.len()).rev() {
            let cum_after = cum_before + sizes[t] as f64 / n.max(1) as f64;
            let load = self.total_rate * (cum_after.powf(self.skew) - cum_before.powf(self.skew));
            let alpha = if sizes[t] == 0 {
                f64::NAN
            } else {
                load / sizes[t] as f64
            };
            forecasts[t] = Some(TierForecast {
                arrival_rate_per_s: alpha,
                option: self.options[t],
                scan_s: self.scan_s.as_ref().map(|s| s[t]),
            });
            cum_before = cum_after;
        }
        for f in forecasts {
            out.push(f.unwrap());
        }
        out
    }
}

/// Independent evaluation of one tier-size vector with the CR equations (written out
/// again here, not calling the crate): (energy, Σ α R, Σ α, changes, feasible).
pub fn tier_eval_reference(
    sizes: &[usize],
    current: &[usize],
    f: &[TierForecast],
    p: &EpochParams,
) -> (f64, f64, f64, usize, bool) {
    let t_ep = p.epoch_s;
    let p3 = if p.transition_s > 0.0 {
        p.transition_energy_j / p.transition_s
    } else {
        0.0
    };
    let (mut energy, mut wsum, mut rate, mut changes, mut ok) = (0.0, 0.0, 0.0, 0, true);
    for t in 0..sizes.len() {
        let n = sizes[t];
        if n == 0 {
            continue;
        }
        let moved = n.saturating_sub(current[t]);
        let a = f[t].arrival_rate_per_s;
        let o = &f[t].option;
        let rho = a * o.service_mean_s;
        let r2 = if rho >= 1.0 {
            f64::INFINITY
        } else {
            o.service_mean_s
                + a * (o.service_mean_s.powi(2) + o.service_var_s2) / (2.0 * (1.0 - rho))
        };
        let reorg = if n != current[t] { f[t].scan_s } else { None };
        for (count, ti) in [(n - moved, 0.0), (moved, p.transition_s)] {
            if count == 0 {
                continue;
            }
            let r1 = ti / 2.0 * (1.0 + rho);
            let tr = match reorg {
                Some(scan) if rho < 1.0 => (2.0 * scan / (1.0 - rho).powi(2)).min(t_ep - ti),
                Some(_) => t_ep - ti,
                None => 0.0,
            };
            let r_reorg = r2 + o.service_mean_s / 2.0;
            let mut r = ti * r1 + (t_ep - ti - tr) * r2;
            if tr > 0.0 {
                r += tr * r_reorg;
            }
            r /= t_ep;
            let e = o.active_w * t_ep * rho + o.idle_w * (t_ep - t_ep * rho - ti) + p3 * ti;
            ok &= rho < 1.0 && t_ep * rho + ti <= t_ep && r.is_finite();
            energy += count as f64 * e;
            wsum += count as f64 * a * r;
        }
        rate += n as f64 * a;
        changes += moved;
    }
    ok &= wsum <= p.r_limit_s * rate * (1.0 + 1e-12);
    (energy, wsum, rate, changes, ok)
}

/// All compositions of n into s parts, by recursion (independent of the crate's order).
pub fn compositions(n: usize, s: usize) -> Vec<Vec<usize>> {
    fn rec(n: usize, s: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if s == 1 {
            prefix.push(n);
            out.push(prefix.clone());
            prefix.pop();
            return;
        }
        for k in 0..=n {
            prefix.push(k);
            rec(n - k, s - 1, prefix, out);
            prefix.pop();
        }
    }
    let mut out = vec![];
    rec(n, s, &mut vec![], &mut out);
    out
}

/// Brute-force tier plan: (sizes, energy, feasible).
pub fn tier_brute_force(
    n: usize,
    current: &[usize],
    model: &TierModel,
    p: &EpochParams,
) -> (Vec<usize>, f64, bool) {
    let s = current.len();
    let evals: Vec<_> = compositions(n, s)
        .into_iter()
        .map(|c| {
            let f = model.predict(&c);
            let r = tier_eval_reference(&c, current, &f, p);
            (c, r)
        })
        .collect();
    let e_star = evals
        .iter()
        .filter(|x| x.1 .4)
        .map(|x| x.1 .0)
        .fold(f64::INFINITY, f64::min);
    if e_star.is_infinite() {
        let mut sizes = vec![0; s];
        sizes[s - 1] = n;
        let f = model.predict(&sizes);
        let r = tier_eval_reference(&sizes, current, &f, p);
        return (sizes, r.0, false);
    }
    let ceiling = e_star + e_star * 1e-9;
    let lsum = |c: &[usize]| c.iter().enumerate().map(|(t, k)| t * k).sum::<usize>();
    let best = evals
        .into_iter()
        .filter(|x| x.1 .4 && x.1 .0 <= ceiling)
        .min_by(|a, b| {
            a.1 .3
                .cmp(&b.1 .3)
                .then(lsum(&b.0).cmp(&lsum(&a.0)))
                .then_with(|| b.0.iter().rev().cmp(a.0.iter().rev()))
        })
        .unwrap();
    (best.0, best.1 .0, true)
}
