//! The exact per-disk speed planner (`plan_speeds`).
//!
//! Each disk picks one speed; speed j of disk i costs E_ij joules and adds
//! W_ij = α_i R_ij to the response budget B = R_limit Σ α. That is a multiple-choice
//! knapsack. It is solved exactly over *groups* of disks that have bitwise identical
//! per-speed costs (and the same current speed), so that a group of g disks contributes
//! its compositions "k_j of them at speed j" rather than s^g products. Each group's
//! compositions are first reduced to their own (energy, W) Pareto set. A family of
//! identical disks with more than [`SolverConfig::max_group_compositions`] compositions
//! is split into chunks of consecutive disks; phase 2 then only considers *canonical*
//! assignments (speeds non-increasing along the family's disk indices), which lose
//! nothing: permuting identical disks changes neither energy nor response, and the
//! canonical order is the tie-break's favourite.
//!
//! 1. **Minimum energy E\***.
//!    * An incumbent: a Lagrangian heuristic (each group minimising e + λ w, with λ
//!      bisected until the choice fits the budget) improved by local search, then a
//!      depth-first branch and bound limited to [`BB_PROBE_NODES`] nodes.
//!    * Dynamic programming from the last group back, keeping for every suffix of the
//!      groups the Pareto frontier of (energy, W). A point is dropped only if another
//!      dominates it, if even the least-W prefix cannot fit the budget with it, or if a
//!      lower bound on the best prefix (Lagrangian, valid for any λ ≥ 0:
//!      min {E : W ≤ b} ≥ Σ min (e + λ w) − λ b) plus the point exceeds the incumbent.
//!      E\* is the cheapest point of the full frontier within budget.
//!    * If a frontier ever exceeds [`SolverConfig::max_frontier`], unlimited branch and
//!      bound computes E\* instead.
//! 2. **Tie-break**: among assignments with W ≤ B and E ≤ E\* (1 + 1e-9), the one with
//!    the fewest speed changes, then the largest sum of levels, then the
//!    lexicographically fastest level vector (disk 0 first). A forward DP over groups
//!    keeps states not dominated in (energy, W, key); a state survives only if the
//!    suffix frontier of phase 1 says it can still be completed within both ceilings
//!    (an exact test), so very few do. Over the cap, a depth-first search under the same
//!    ceilings (with Lagrangian completion bounds when the frontiers are missing) takes
//!    over.
//!
//! Nothing is discretised: states carry exact floating-point sums, and comparisons
//! against limits allow only a 1e-12 relative slack for summation-order rounding.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::{level_cost, saturated_energy_j, validate_disk, weighted_response};
use crate::{DiskForecast, EpochParams, LevelCost, PlanError};

/// Energies within this relative distance of the minimum count as ties.
pub const TIE_RELATIVE: f64 = 1e-9;
/// The response constraint Σ α R ≤ R_limit Σ α is checked as
/// Σ α R ≤ R_limit Σ α · (1 + `FEASIBILITY_RELATIVE`), absorbing summation-order rounding.
pub const FEASIBILITY_RELATIVE: f64 = 1e-12;
/// Extra relative slack used only when *pruning* on bounds, so that rounding never
/// discards a state that could still complete within the exact limits.
const PRUNE_SLACK: f64 = 1e-12;
/// (energy, W) points; as a Pareto frontier: energy ascending, W strictly descending.
type Frontier = Vec<(f64, f64)>;

/// Nodes the preliminary branch and bound may visit before handing over to the DP.
pub(crate) const BB_PROBE_NODES: u64 = 100_000;

/// Tuning of [`plan_speeds_with`]. Neither field changes the answer, only the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolverConfig {
    /// Largest frontier (or tie-break state set) the dynamic programmes may hold; beyond
    /// it the solver switches to depth-first branch and bound, which is still exact but
    /// has no polynomial bound on its work. Default 2^18; 0 forces branch and bound.
    pub max_frontier: usize,
    /// Merge disks whose per-speed costs are identical into one decision (compositions).
    /// Default `true`; `false` treats every disk separately (for cross-checking).
    pub group_identical: bool,
    /// Largest number of compositions one merged decision may have; a bigger set of
    /// identical disks is split into consecutive chunks (solved jointly, with the chunks
    /// kept in canonical order). Default 2^21 (for 3 speeds: about 2,000 disks a chunk).
    pub max_group_compositions: usize,
}

impl Default for SolverConfig {
    fn default() -> Self {
        Self {
            max_frontier: 1 << 18,
            group_identical: true,
            max_group_compositions: 1 << 21,
        }
    }
}

/// Which exact method produced a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SolveMethod {
    /// No search was needed: no disks, or no assignment can meet the limit.
    Trivial,
    /// Pareto-frontier dynamic programming (both phases).
    ParetoFrontier,
    /// At least one phase hit the frontier cap and used depth-first search.
    BranchAndBound,
}

/// How a plan was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SolverStats {
    /// The method used.
    pub method: SolveMethod,
    /// Number of decision groups (disks with identical costs share one).
    pub groups: usize,
    /// Largest frontier held by the dynamic programme.
    pub peak_frontier: usize,
}

/// The chosen speed of every disk for the next epoch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Speed level per disk (index into its `options`).
    pub levels: Vec<usize>,
    /// Predicted array energy over the epoch (J), Σ E_ij.
    pub energy_j: f64,
    /// Predicted request-weighted mean response time (s), Σ α R / Σ α; 0 when no disk has
    /// load, infinite if the fallback leaves a loaded disk saturated.
    pub mean_response_s: f64,
    /// `false` when no assignment meets R_limit: then every disk is at its fastest speed
    /// and the caller should report the violation.
    pub feasible: bool,
    /// Number of disks whose level differs from their current level.
    pub speed_changes: usize,
    /// Per-disk predictions at the chosen speeds.
    pub disks: Vec<LevelCost>,
    /// Solver diagnostics.
    pub stats: SolverStats,
}

/// [`plan_speeds_with`] with the default [`SolverConfig`].
pub fn plan_speeds(disks: &[DiskForecast], p: &EpochParams) -> Result<Plan, PlanError> {
    plan_speeds_with(disks, p, &SolverConfig::default())
}

/// Chooses one speed per disk minimising Σ E_ij subject to Σ α_i R_ij ≤ R_limit Σ α_i,
/// exactly. Ties in energy (within [`TIE_RELATIVE`]) go to fewer speed changes, then to a
/// larger sum of levels, then to the lexicographically fastest level vector. If nothing is
/// feasible, every disk gets its fastest speed and `feasible` is `false`.
///
/// Errors on invalid parameters or forecasts (see [`PlanError`]); an empty slice gives an
/// empty, feasible plan.
pub fn plan_speeds_with(
    disks: &[DiskForecast],
    p: &EpochParams,
    config: &SolverConfig,
) -> Result<Plan, PlanError> {
    p.validate()?;
    for (i, d) in disks.iter().enumerate() {
        validate_disk(i, d)?;
        let expected = disks[0].options.len();
        if d.options.len() != expected {
            return Err(PlanError::OptionCountMismatch {
                disk: i,
                expected,
                found: d.options.len(),
            });
        }
    }

    // Per-disk, per-level costs.
    let costs: Vec<Vec<LevelCost>> = disks
        .iter()
        .map(|d| {
            d.options
                .iter()
                .map(|o| level_cost(d.arrival_rate_per_s, o, o.level != d.current_level, None, p))
                .collect()
        })
        .collect();
    let total_rate: f64 = disks.iter().map(|d| d.arrival_rate_per_s).sum();
    let budget = p.r_limit_s * total_rate;
    let btol = budget + budget * FEASIBILITY_RELATIVE;

    let groups = build_groups(
        disks,
        &costs,
        config.group_identical,
        config.max_group_compositions,
    );
    let mut stats = SolverStats {
        method: SolveMethod::Trivial,
        groups: groups.len(),
        peak_frontier: 0,
    };
    if disks.is_empty() {
        return Ok(assemble(disks, &costs, Vec::new(), true, p, stats));
    }
    let fallback = |stats: SolverStats| {
        let levels = disks.iter().map(|d| d.options.len() - 1).collect();
        assemble(disks, &costs, levels, false, p, stats)
    };
    if groups.iter().any(|g| g.opts.is_empty()) {
        return Ok(fallback(stats));
    }

    // Phase 1 inputs: each group's Pareto set of composition values, and the least
    // energy / W that the groups before (pre_*) and from (rest_*) each index can add.
    let lists: Vec<Vec<(f64, f64)>> = groups.iter().map(pareto_compositions).collect();
    let n_groups = groups.len();
    let min_e: Vec<f64> = lists
        .iter()
        .map(|l| l.iter().map(|c| c.0).fold(f64::INFINITY, f64::min))
        .collect();
    let min_w: Vec<f64> = lists
        .iter()
        .map(|l| l.iter().map(|c| c.1).fold(f64::INFINITY, f64::min))
        .collect();
    let mut rest_e = vec![0.0; n_groups + 1];
    let mut rest_w = vec![0.0; n_groups + 1];
    for gi in (0..n_groups).rev() {
        rest_e[gi] = rest_e[gi + 1] + min_e[gi];
        rest_w[gi] = rest_w[gi + 1] + min_w[gi];
    }
    let mut pre_e = vec![0.0; n_groups + 1];
    let mut pre_w = vec![0.0; n_groups + 1];
    for gi in 0..n_groups {
        pre_e[gi + 1] = pre_e[gi] + min_e[gi];
        pre_w[gi + 1] = pre_w[gi] + min_w[gi];
    }
    // The least-W assignment; if even it breaks the budget nothing is feasible.
    let min_w_pick: Vec<usize> = lists.iter().map(|l| l.len() - 1).collect();
    let (min_w_e, min_w_w) = fold_pick(&lists, &min_w_pick);
    if min_w_w > btol {
        return Ok(fallback(stats));
    }
    // Lagrangian multipliers around the one where the relaxed optimum meets the budget;
    // its feasible side also seeds a good incumbent.
    let (lambda, lambda_pick) = critical_multiplier(&lists, btol);
    let lag = Lagrange::new(&lists, lambda);
    let mut ub = greedy_upper_bound(&lists, min_w_pick, btol).unwrap_or(min_w_e);
    if let Some(pick) = lambda_pick {
        if let Some(e) = greedy_upper_bound(&lists, pick, btol) {
            ub = ub.min(e);
        }
    }

    let mut used_bb = false;
    let bounds = Bounds {
        rest_e: &rest_e,
        rest_w: &rest_w,
        pre_e: &pre_e,
        pre_w: &pre_w,
        lag: &lag,
        btol,
    };
    // A short branch-and-bound run tightens the incumbent (and often proves it optimal),
    // which keeps the frontiers below small.
    let (ub, proven) = min_energy_bb(&lists, &bounds, ub, Some(BB_PROBE_NODES));
    // Suffix frontiers give E* and phase 2 exact completion bounds; without them (cap
    // hit) phase 2 uses Lagrangian bounds.
    let suffix = suffix_frontiers(&lists, &bounds, ub, config.max_frontier);
    let e_star = match &suffix {
        Some((front, peak)) => {
            stats.peak_frontier = *peak;
            front[0]
                .iter()
                .find(|&&(_, w)| w <= btol)
                .map_or(ub, |&(e, _)| e)
        }
        None => {
            used_bb = true;
            stats.peak_frontier = config.max_frontier;
            if proven {
                ub
            } else {
                min_energy_bb(&lists, &bounds, ub, None).0
            }
        }
    };
    let ceiling = e_star + e_star.abs() * TIE_RELATIVE;

    // Phase 2: best tie-break key under the energy ceiling.
    let phase2 = Phase2 {
        groups: &groups,
        n_disks: disks.len(),
        bounds,
        suffix: suffix.as_ref().map(|(f, _)| f.as_slice()),
        ceiling,
    };
    let best = match phase2.dp(config.max_frontier, &mut stats.peak_frontier) {
        Some(best) => best,
        None => {
            used_bb = true;
            phase2.dfs()
        }
    };
    stats.method = if used_bb {
        SolveMethod::BranchAndBound
    } else {
        SolveMethod::ParetoFrontier
    };
    match best {
        Some(levels) => {
            let levels = levels.into_iter().map(usize::from).collect();
            Ok(assemble(disks, &costs, levels, true, p, stats))
        }
        // Unreachable in exact arithmetic (the E* assignment qualifies); kept so that a
        // rounding surprise degrades to the documented fallback rather than a panic.
        None => Ok(fallback(stats)),
    }
}

/// Builds the plan for given levels from the per-disk costs, summing in disk order.
fn assemble(
    disks: &[DiskForecast],
    costs: &[Vec<LevelCost>],
    levels: Vec<usize>,
    feasible: bool,
    p: &EpochParams,
    stats: SolverStats,
) -> Plan {
    let mut energy = 0.0;
    let mut weighted = 0.0;
    let mut rate = 0.0;
    let mut changes = 0;
    let mut out = Vec::with_capacity(disks.len());
    for ((d, c), &level) in disks.iter().zip(costs).zip(&levels) {
        let mut cost = c[level];
        if !cost.feasible {
            cost.energy_j = saturated_energy_j(
                d.arrival_rate_per_s,
                &d.options[level],
                level != d.current_level,
                p,
            );
        }
        energy += cost.energy_j;
        weighted += weighted_response(d.arrival_rate_per_s, cost.epoch_response_s);
        rate += d.arrival_rate_per_s;
        changes += usize::from(level != d.current_level);
        out.push(cost);
    }
    Plan {
        levels,
        energy_j: energy,
        mean_response_s: if rate > 0.0 { weighted / rate } else { 0.0 },
        feasible,
        speed_changes: changes,
        disks: out,
        stats,
    }
}

/// A feasible speed of a disk, as the solver sees it.
#[derive(Debug, Clone, Copy)]
struct Opt {
    level: u8,
    e: f64,
    w: f64,
    change: bool,
}

/// Disks with identical costs at every speed and the same current speed (a whole
/// *family* of such disks, or one chunk of a large family).
#[derive(Debug)]
struct Group {
    /// Member disks, ascending.
    disks: Vec<usize>,
    /// Feasible speeds, ascending level.
    opts: Vec<Opt>,
    /// Family id; the chunks of one family are consecutive and in disk order.
    family: usize,
}

fn build_groups(
    disks: &[DiskForecast],
    costs: &[Vec<LevelCost>],
    merge: bool,
    max_compositions: usize,
) -> Vec<Group> {
    let mut families: Vec<(Vec<usize>, Vec<Opt>)> = Vec::new();
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    for (i, (d, c)) in disks.iter().zip(costs).enumerate() {
        let opts: Vec<Opt> = c
            .iter()
            .filter(|lc| lc.feasible)
            .map(|lc| Opt {
                // validate_disk caps levels at MAX_LEVELS = 255, so this never saturates.
                level: u8::try_from(lc.level).unwrap_or(u8::MAX),
                e: lc.energy_j,
                w: weighted_response(d.arrival_rate_per_s, lc.epoch_response_s),
                change: lc.level != d.current_level,
            })
            .collect();
        if merge {
            let mut key = Vec::with_capacity(1 + 3 * opts.len());
            key.push(d.current_level as u64);
            for o in &opts {
                key.extend([u64::from(o.level), o.e.to_bits(), o.w.to_bits()]);
            }
            if let Some(&f) = index.get(&key) {
                families[f].0.push(i);
                continue;
            }
            index.insert(key, families.len());
        }
        families.push((vec![i], opts));
    }
    let mut groups = Vec::with_capacity(families.len());
    for (family, (members, opts)) in families.into_iter().enumerate() {
        let chunk = chunk_size(members.len(), opts.len(), max_compositions);
        for part in members.chunks(chunk) {
            groups.push(Group {
                disks: part.to_vec(),
                opts: opts.clone(),
                family,
            });
        }
    }
    groups
}

/// Largest chunk (at least 1, at most `size`) whose number of compositions over
/// `levels` speeds is within `max_compositions`.
fn chunk_size(size: usize, levels: usize, max_compositions: usize) -> usize {
    let fits = |g: usize| crate::composition_count(g, levels, max_compositions).is_some();
    if size <= 1 || fits(size) {
        return size.max(1);
    }
    let (mut lo, mut hi) = (1usize, size); // fits(lo) is taken as true, fits(hi) false
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `a <= b` up to the pruning slack (relative to the limit `b`; an infinite `a` never
/// passes a finite limit).
fn le_slack(a: f64, b: f64) -> bool {
    a <= b + PRUNE_SLACK * b.abs()
}

/// Keeps the Pareto-minimal (energy, W) points, sorted by energy ascending (W strictly
/// descending). Exact comparisons.
fn prune_pareto(points: &mut Vec<(f64, f64)>) {
    points.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut min_w = f64::INFINITY;
    points.retain(|&(_, w)| {
        if w < min_w {
            min_w = w;
            true
        } else {
            false
        }
    });
}

/// Collects points and prunes lazily, so memory stays near the frontier size.
struct ParetoAcc {
    points: Vec<(f64, f64)>,
    threshold: usize,
    /// Size after the latest pruning (a lower bound on the final frontier size).
    pruned: usize,
}

impl ParetoAcc {
    fn new() -> Self {
        Self {
            points: Vec::new(),
            threshold: 4096,
            pruned: 0,
        }
    }
    fn push(&mut self, p: (f64, f64)) {
        self.points.push(p);
        if self.points.len() >= self.threshold {
            prune_pareto(&mut self.points);
            self.pruned = self.points.len();
            self.threshold = (2 * self.points.len()).max(4096);
        }
    }
    fn finish(mut self) -> Vec<(f64, f64)> {
        prune_pareto(&mut self.points);
        self.points
    }
}

/// Canonical value of a composition: fold over the group's speeds in ascending order of
/// `acc + k_j · x_j`, starting from 0. Both phases compute composition values this way,
/// so the same composition always has bit-identical values.
fn comp_step(acc: f64, k: u32, x: f64) -> f64 {
    acc + f64::from(k) * x
}

/// Pareto set of (energy, W) over all compositions of the group, by a DP over its speeds
/// (state: disks placed so far; values folded as in [`comp_step`], so dominance at an
/// intermediate speed is preserved by the monotone rounding of later additions).
fn pareto_compositions(g: &Group) -> Vec<(f64, f64)> {
    let size = g.disks.len();
    let mut by_placed: Vec<Vec<(f64, f64)>> = vec![Vec::new(); size + 1];
    by_placed[0].push((0.0, 0.0));
    let last = g.opts.len() - 1;
    for (j, o) in g.opts.iter().enumerate() {
        let mut next: Vec<ParetoAcc> = (0..=size).map(|_| ParetoAcc::new()).collect();
        for (placed, states) in by_placed.iter().enumerate() {
            let left = size - placed;
            let ks = if j == last { left..=left } else { 0..=left };
            for k in ks {
                let k32 = k as u32;
                for &(e, w) in states {
                    next[placed + k].push((comp_step(e, k32, o.e), comp_step(w, k32, o.w)));
                }
            }
        }
        by_placed = next.into_iter().map(ParetoAcc::finish).collect();
    }
    by_placed.pop().unwrap_or_default()
}

fn fold_pick(lists: &[Vec<(f64, f64)>], pick: &[usize]) -> (f64, f64) {
    lists
        .iter()
        .zip(pick)
        .fold((0.0, 0.0), |(e, w), (l, &k)| (e + l[k].0, w + l[k].1))
}

/// Energy of a feasible assignment found by local search from `pick` (repeatedly, each
/// group takes its cheapest composition that the remaining budget allows, until nothing
/// changes), or `None` if the result is not feasible (rounding, or an infeasible start).
fn greedy_upper_bound(lists: &[Vec<(f64, f64)>], mut pick: Vec<usize>, btol: f64) -> Option<f64> {
    for _ in 0..64 {
        let (_, w0) = fold_pick(lists, &pick);
        let mut slack = btol - w0;
        let mut changed = false;
        for (gi, l) in lists.iter().enumerate() {
            let cur = l[pick[gi]].1;
            // Sorted by energy, so the first composition that fits is the cheapest.
            if let Some(k) = l.iter().position(|c| c.1 - cur <= slack) {
                if k != pick[gi] {
                    slack -= l[k].1 - cur;
                    pick[gi] = k;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let (e, w) = fold_pick(lists, &pick);
    (w <= btol).then_some(e)
}

/// Suffix lower bounds and the W budget shared by both phases.
#[derive(Clone, Copy)]
struct Bounds<'a> {
    /// rest_e\[g\]: least energy groups g.. can add.
    rest_e: &'a [f64],
    /// rest_w\[g\]: least W groups g.. can add.
    rest_w: &'a [f64],
    /// pre_e\[g\]: least energy groups ..g (before g) can add.
    pre_e: &'a [f64],
    /// pre_w\[g\]: least W groups ..g can add.
    pre_w: &'a [f64],
    /// Lagrangian energy bounds under a W budget.
    lag: &'a Lagrange,
    /// The W budget including the feasibility tolerance.
    btol: f64,
}

/// Index of the composition minimising `e + λ w` (ties to the smaller W).
fn relaxed_pick(list: &[(f64, f64)], lambda: f64) -> usize {
    let mut best = 0;
    for (i, &(e, w)) in list.iter().enumerate() {
        let (be, bw) = list[best];
        let (v, bv) = (e + lambda * w, be + lambda * bw);
        if v < bv || (v == bv && w < bw) {
            best = i;
        }
    }
    best
}

/// The multiplier λ* at which the relaxed optimum (each group minimising e + λ w) just
/// fits the W budget, found by doubling then bisection, and the relaxed optimum's choice
/// at the feasible end (if any was found). λ* = 0 if the unconstrained optimum fits.
fn critical_multiplier(lists: &[Vec<(f64, f64)>], btol: f64) -> (f64, Option<Vec<usize>>) {
    let pick_at = |lambda: f64| -> (Vec<usize>, f64) {
        let pick: Vec<usize> = lists.iter().map(|l| relaxed_pick(l, lambda)).collect();
        let w = fold_pick(lists, &pick).1;
        (pick, w)
    };
    let (p0, w0) = pick_at(0.0);
    if w0 <= btol {
        return (0.0, Some(p0));
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut hi_pick = None;
    for _ in 0..400 {
        let (p, w) = pick_at(hi);
        if w <= btol {
            hi_pick = Some(p);
            break;
        }
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return (lo, None);
        }
    }
    let Some(mut best) = hi_pick else {
        return (lo, None);
    };
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let (p, w) = pick_at(mid);
        if w <= btol {
            hi = mid;
            best = p;
        } else {
            lo = mid;
        }
    }
    (hi, Some(best))
}

/// Lagrangian lower bounds on the energy of a range of groups under a W budget B: for
/// every λ ≥ 0, min {E : W ≤ B} ≥ Σ_g min_c (e_c + λ w_c) − λ B. Kept for a few λ around
/// the critical multiplier (and λ = 0), as prefix and suffix sums over the groups.
struct Lagrange {
    lambdas: Vec<f64>,
    /// pre\[m\]\[g\]: Σ over groups ..g for multiplier m.
    pre: Vec<Vec<f64>>,
    /// suf\[m\]\[g\]: Σ over groups g.. for multiplier m.
    suf: Vec<Vec<f64>>,
}

impl Lagrange {
    fn new(lists: &[Vec<(f64, f64)>], critical: f64) -> Self {
        let mut lambdas = vec![0.0];
        if critical > 0.0 && critical.is_finite() {
            lambdas.extend((-4..=4).map(|k| critical * 2f64.powi(k)));
        }
        let n = lists.len();
        let mut pre = Vec::with_capacity(lambdas.len());
        let mut suf = Vec::with_capacity(lambdas.len());
        for &lambda in &lambdas {
            let mins: Vec<f64> = lists
                .iter()
                .map(|l| {
                    l.iter()
                        .map(|&(e, w)| e + lambda * w)
                        .fold(f64::INFINITY, f64::min)
                })
                .collect();
            let mut p = vec![0.0; n + 1];
            let mut s = vec![0.0; n + 1];
            for g in 0..n {
                p[g + 1] = p[g] + mins[g];
            }
            for g in (0..n).rev() {
                s[g] = s[g + 1] + mins[g];
            }
            pre.push(p);
            suf.push(s);
        }
        Self { lambdas, pre, suf }
    }

    fn bound(&self, sums: &[Vec<f64>], g: usize, w_budget: f64) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for (m, &lambda) in self.lambdas.iter().enumerate() {
            let sum = sums[m][g];
            let pen = lambda * w_budget;
            // Widen by a rounding margin: the sums and the difference are inexact.
            let lb = sum - pen - 1e-10 * (sum.abs() + pen.abs());
            if lb > best {
                best = lb;
            }
        }
        best
    }

    /// Lower bound on the energy groups ..g add with W ≤ `w_budget`.
    fn prefix_lb(&self, g: usize, w_budget: f64) -> f64 {
        self.bound(&self.pre, g, w_budget)
    }

    /// Lower bound on the energy groups g.. add with W ≤ `w_budget`.
    fn suffix_lb(&self, g: usize, w_budget: f64) -> f64 {
        self.bound(&self.suf, g, w_budget)
    }
}

/// Phase 1 by Pareto DP, run from the last group back: `front[g]` is the Pareto frontier
/// (energy ascending, W descending) of what groups g.. can add, keeping only points that
/// the cheapest choice for groups ..g could still complete within the W budget and within
/// the energy upper bound (widened so that nothing within the tie ceiling is lost).
/// `front[0]` yields E*, and `front[g + 1]` gives phase 2 an exact completion bound.
/// `None` if a frontier outgrows `cap`; else the frontiers and the peak size.
fn suffix_frontiers(
    lists: &[Vec<(f64, f64)>],
    b: &Bounds,
    ub: f64,
    cap: usize,
) -> Option<(Vec<Frontier>, usize)> {
    let n = lists.len();
    let e_limit = ub + ub.abs() * (2.0 * TIE_RELATIVE);
    let mut front: Vec<Frontier> = vec![Vec::new(); n + 1];
    front[n] = vec![(0.0, 0.0)];
    let mut peak = 1;
    for gi in (0..n).rev() {
        let mut acc = ParetoAcc::new();
        for &(ce, cw) in &lists[gi] {
            for &(se, sw) in &front[gi + 1] {
                let (ne, nw) = (ce + se, cw + sw);
                if le_slack(b.pre_w[gi] + nw, b.btol)
                    && le_slack(b.pre_e[gi] + ne, e_limit)
                    && le_slack(b.lag.prefix_lb(gi, b.btol - nw) + ne, e_limit)
                {
                    acc.push((ne, nw));
                }
            }
            if acc.pruned > cap {
                return None;
            }
        }
        front[gi] = acc.finish();
        peak = peak.max(front[gi].len());
        if front[gi].len() > cap {
            return None;
        }
    }
    Some((front, peak))
}

/// Least energy of a point of `front` with W ≤ `w_budget` (∞ if none). `front` is sorted
/// by energy ascending with W strictly descending.
fn min_completion(front: &[(f64, f64)], w_budget: f64) -> f64 {
    let i = front.partition_point(|&(_, w)| w > w_budget);
    front.get(i).map_or(f64::INFINITY, |p| p.0)
}

/// Phase 1 by depth-first branch and bound from the feasible incumbent energy `ub`
/// (iterative; lists are sorted by energy, so the first composition whose plain bound
/// exceeds the incumbent ends that level). Returns the best energy found and whether the
/// search completed (then it is E*); with `node_limit` it may stop early, still
/// returning a feasible energy.
fn min_energy_bb(
    lists: &[Vec<(f64, f64)>],
    b: &Bounds,
    ub: f64,
    node_limit: Option<u64>,
) -> (f64, bool) {
    let n = lists.len();
    let mut best = ub;
    let mut nodes = 0u64;
    // Frame: (next composition to try, energy and W before this group).
    let mut frames: Vec<(usize, f64, f64)> = vec![(0, 0.0, 0.0)];
    while !frames.is_empty() {
        nodes += 1;
        if node_limit.is_some_and(|limit| nodes > limit) {
            return (best, false);
        }
        let d = frames.len() - 1;
        let top = &mut frames[d];
        let (idx, e0, w0) = *top;
        let Some(&(ce, cw)) = lists[d].get(idx) else {
            frames.pop();
            continue;
        };
        top.0 += 1;
        let ne = e0 + ce;
        if !le_slack(ne + b.rest_e[d + 1], best) {
            frames.pop();
            continue;
        }
        let nw = w0 + cw;
        if !le_slack(nw + b.rest_w[d + 1], b.btol)
            || !le_slack(ne + b.lag.suffix_lb(d + 1, b.btol - nw), best)
        {
            continue;
        }
        if d + 1 == n {
            if nw <= b.btol && ne < best {
                best = ne;
            }
        } else {
            frames.push((0, ne, nw));
        }
    }
    (best, true)
}

/// A partial assignment in phase 2.
#[derive(Debug, Clone)]
struct KeyState {
    e: f64,
    w: f64,
    changes: u64,
    level_sum: u64,
    /// Level per disk; disks of groups not yet decided hold `u8::MAX`, the same in every
    /// state of a layer, so comparing whole vectors compares the decided positions.
    levels: Vec<u8>,
    /// Fastest speed the next group may use (the slowest speed of the previous chunk of
    /// the same family), or `u8::MAX`.
    floor: u8,
}

/// Tie-break order: `Less` means `a` is preferred.
fn key_cmp(a: &KeyState, b: &KeyState) -> Ordering {
    a.changes
        .cmp(&b.changes)
        .then(b.level_sum.cmp(&a.level_sum))
        .then_with(|| b.levels.cmp(&a.levels))
}

struct Phase2<'a> {
    groups: &'a [Group],
    n_disks: usize,
    bounds: Bounds<'a>,
    /// Suffix frontiers from phase 1, when it completed: exact completion bounds.
    suffix: Option<&'a [Vec<(f64, f64)>]>,
    /// Energy ceiling E* (1 + tie tolerance).
    ceiling: f64,
}

impl Phase2<'_> {
    /// Calls `f(counts, e, w)` for every composition of group `gi` (counts per feasible
    /// speed, values folded canonically) that, added to (e0, w0), can still complete
    /// within the energy ceiling and the W budget.
    /// Only speeds up to `max_level` are used (canonical order between the chunks of a
    /// family).
    fn for_each_comp(
        &self,
        gi: usize,
        e0: f64,
        w0: f64,
        max_level: u8,
        f: &mut dyn FnMut(&[u32], f64, f64),
    ) {
        let g = &self.groups[gi];
        let allowed = g.opts.partition_point(|o| o.level <= max_level);
        if allowed == 0 {
            return;
        }
        let opts = &g.opts[..allowed];
        let s = opts.len();
        // Least energy / W per disk over speeds j.. (suffix minima).
        let mut suf_e = vec![f64::INFINITY; s + 1];
        let mut suf_w = vec![f64::INFINITY; s + 1];
        for j in (0..s).rev() {
            suf_e[j] = suf_e[j + 1].min(opts[j].e);
            suf_w[j] = suf_w[j + 1].min(opts[j].w);
        }
        let walk = CompWalk {
            opts,
            suf_e: &suf_e,
            suf_w: &suf_w,
            base_e: e0,
            base_w: w0,
            rest_e: self.bounds.rest_e[gi + 1],
            rest_w: self.bounds.rest_w[gi + 1],
            suffix: self.suffix.map(|f| f[gi + 1].as_slice()),
            lag: self.bounds.lag,
            next_group: gi + 1,
            ceiling: self.ceiling,
            btol: self.bounds.btol,
        };
        // Counts cover every feasible speed; those above `max_level` stay 0.
        let mut counts = vec![0u32; g.opts.len()];
        walk.rec(0, g.disks.len() as u32, 0.0, 0.0, &mut counts, f);
    }

    /// The speed cap for group `gi` after a state with `floor`: the floor if the
    /// previous group is an earlier chunk of the same family, else none.
    fn max_level(&self, gi: usize, floor: u8) -> u8 {
        if gi > 0 && self.groups[gi - 1].family == self.groups[gi].family {
            floor
        } else {
            u8::MAX
        }
    }

    /// The floor to carry after group `gi` took `counts`: its slowest used speed if the
    /// next group continues the family, else none.
    fn next_floor(&self, gi: usize, counts: &[u32]) -> u8 {
        let g = &self.groups[gi];
        let continues = self
            .groups
            .get(gi + 1)
            .is_some_and(|next| next.family == g.family);
        if !continues {
            return u8::MAX;
        }
        g.opts
            .iter()
            .zip(counts)
            .find(|(_, &k)| k > 0)
            .map_or(u8::MAX, |(o, _)| o.level)
    }

    /// Writes the canonical levels of a composition (fastest speeds to the lowest disk
    /// indices) and returns (changes, level sum).
    fn apply(&self, gi: usize, counts: &[u32], levels: &mut [u8]) -> (u64, u64) {
        let g = &self.groups[gi];
        let mut disks = g.disks.iter();
        let (mut changes, mut level_sum) = (0u64, 0u64);
        for (o, &k) in g.opts.iter().zip(counts).rev() {
            for _ in 0..k {
                if let Some(&d) = disks.next() {
                    levels[d] = o.level;
                }
            }
            changes += u64::from(o.change) * u64::from(k);
            level_sum += u64::from(o.level) * u64::from(k);
        }
        (changes, level_sum)
    }

    /// Phase 2 by DP with dominance on (energy, W, key). `None` if the states outgrow
    /// `cap` (or a memory bound: each state carries one byte per disk).
    fn dp(&self, cap: usize, peak: &mut usize) -> Option<Option<Vec<u8>>> {
        let cap = cap.min(((1usize << 26) / (self.n_disks + 64)).max(64));
        let mut states = vec![KeyState {
            e: 0.0,
            w: 0.0,
            changes: 0,
            level_sum: 0,
            levels: vec![u8::MAX; self.n_disks],
            floor: u8::MAX,
        }];
        for gi in 0..self.groups.len() {
            let mut cands: Vec<KeyState> = Vec::new();
            let mut threshold = 1024usize;
            let mut over = false;
            for st in &states {
                let max_level = self.max_level(gi, st.floor);
                self.for_each_comp(gi, st.e, st.w, max_level, &mut |counts, ce, cw| {
                    if over {
                        return;
                    }
                    let mut levels = st.levels.clone();
                    let (c, l) = self.apply(gi, counts, &mut levels);
                    cands.push(KeyState {
                        e: st.e + ce,
                        w: st.w + cw,
                        changes: st.changes + c,
                        level_sum: st.level_sum + l,
                        levels,
                        floor: self.next_floor(gi, counts),
                    });
                    if cands.len() >= threshold {
                        cands = prune_keyed(std::mem::take(&mut cands));
                        over = cands.len() > cap;
                        threshold = (2 * cands.len()).max(1024);
                    }
                });
                if over {
                    return None;
                }
            }
            states = prune_keyed(cands);
            *peak = (*peak).max(states.len());
            if states.len() > cap {
                return None;
            }
        }
        // States are sorted best key first; all survived the final ceilings with slack,
        // so check them exactly.
        Some(
            states
                .into_iter()
                .find(|s| s.e <= self.ceiling && s.w <= self.bounds.btol)
                .map(|s| s.levels),
        )
    }

    /// Phase 2 by depth-first search under the same ceilings, pruning branches whose
    /// key cannot beat the best found (fewest changes / largest level sum still
    /// reachable).
    fn dfs(&self) -> Option<Vec<u8>> {
        // Each frame holds its group's compositions admissible after the frames above.
        struct Frame {
            comps: Vec<(Vec<u32>, f64, f64)>,
            next: usize,
            e: f64,
            w: f64,
            changes: u64,
            level_sum: u64,
        }
        let n = self.groups.len();
        // Least changes / most level sum the groups g.. can still add.
        let mut min_changes = vec![0u64; n + 1];
        let mut max_levels = vec![0u64; n + 1];
        for (g, grp) in self.groups.iter().enumerate().rev() {
            let size = grp.disks.len() as u64;
            let stays = grp.opts.iter().any(|o| !o.change);
            min_changes[g] = min_changes[g + 1] + if stays { 0 } else { size };
            let top = grp.opts.last().map_or(0, |o| u64::from(o.level));
            max_levels[g] = max_levels[g + 1] + size * top;
        }
        let hopeless = |best: &Option<KeyState>, g: usize, changes: u64, level_sum: u64| {
            best.as_ref().is_some_and(|b| {
                let c = changes + min_changes[g];
                c > b.changes || (c == b.changes && level_sum + max_levels[g] < b.level_sum)
            })
        };
        let mut best: Option<KeyState> = None;
        let mut levels = vec![u8::MAX; self.n_disks];
        let collect = |gi: usize, e: f64, w: f64, floor: u8| {
            let mut comps = Vec::new();
            let max_level = self.max_level(gi, floor);
            self.for_each_comp(gi, e, w, max_level, &mut |c, ce, cw| {
                comps.push((c.to_vec(), ce, cw))
            });
            comps
        };
        let mut frames = vec![Frame {
            comps: collect(0, 0.0, 0.0, u8::MAX),
            next: 0,
            e: 0.0,
            w: 0.0,
            changes: 0,
            level_sum: 0,
        }];
        while !frames.is_empty() {
            let gi = frames.len() - 1;
            let top = &mut frames[gi];
            let Some((counts, ce, cw)) = top.comps.get(top.next).cloned() else {
                frames.pop();
                continue;
            };
            top.next += 1;
            let (e, w) = (top.e + ce, top.w + cw);
            let (c, l) = self.apply(gi, &counts, &mut levels);
            let (changes, level_sum) = (top.changes + c, top.level_sum + l);
            if hopeless(&best, gi + 1, changes, level_sum) {
                continue;
            }
            if gi + 1 == n {
                if e <= self.ceiling && w <= self.bounds.btol {
                    let cand = KeyState {
                        e,
                        w,
                        changes,
                        level_sum,
                        levels: levels.clone(),
                        floor: u8::MAX,
                    };
                    if best
                        .as_ref()
                        .is_none_or(|b| key_cmp(&cand, b) == Ordering::Less)
                    {
                        best = Some(cand);
                    }
                }
            } else {
                let floor = self.next_floor(gi, &counts);
                frames.push(Frame {
                    comps: collect(gi + 1, e, w, floor),
                    next: 0,
                    e,
                    w,
                    changes,
                    level_sum,
                });
            }
        }
        best.map(|b| b.levels)
    }
}

/// Bounded enumeration of one group's compositions (speed by speed, recursion depth =
/// number of speeds).
struct CompWalk<'a> {
    opts: &'a [Opt],
    suf_e: &'a [f64],
    suf_w: &'a [f64],
    base_e: f64,
    base_w: f64,
    rest_e: f64,
    rest_w: f64,
    /// Frontier of the groups after this one, if known (exact completion bound).
    suffix: Option<&'a [(f64, f64)]>,
    /// Otherwise, Lagrangian bounds for the groups from `next_group` on.
    lag: &'a Lagrange,
    next_group: usize,
    ceiling: f64,
    btol: f64,
}

impl CompWalk<'_> {
    /// Places `k` of the `left` remaining disks at speed `j` for every admissible `k`;
    /// (ce, cw) are the composition's values folded over speeds `..j`.
    fn rec(
        &self,
        j: usize,
        left: u32,
        ce: f64,
        cw: f64,
        counts: &mut [u32],
        f: &mut dyn FnMut(&[u32], f64, f64),
    ) {
        let last = j + 1 == self.opts.len();
        let o = self.opts[j];
        let first_k = if last { left } else { 0 };
        for k in first_k..=left {
            let ne = comp_step(ce, k, o.e);
            let nw = comp_step(cw, k, o.w);
            let r = left - k;
            let (lb_e, lb_w) = if r == 0 {
                (0.0, 0.0)
            } else {
                (
                    f64::from(r) * self.suf_e[j + 1],
                    f64::from(r) * self.suf_w[j + 1],
                )
            };
            if !le_slack(self.base_e + ne + lb_e + self.rest_e, self.ceiling)
                || !le_slack(self.base_w + nw + lb_w + self.rest_w, self.btol)
            {
                continue;
            }
            if last {
                let w = self.base_w + nw;
                let budget = self.btol - w + PRUNE_SLACK * self.btol.abs().max(w.abs());
                let completion = match self.suffix {
                    Some(front) => min_completion(front, budget),
                    None => self.lag.suffix_lb(self.next_group, budget),
                };
                if !le_slack(self.base_e + ne + completion, self.ceiling) {
                    continue;
                }
                counts[j] = k;
                f(counts, ne, nw);
            } else {
                counts[j] = k;
                self.rec(j + 1, r, ne, nw, counts, f);
            }
        }
        counts[j] = 0;
    }
}

/// Drops every state dominated by another with the same floor, energy ≤, W ≤ and a
/// key at least as good. Returns the survivors by floor, then best key first.
fn prune_keyed(mut cands: Vec<KeyState>) -> Vec<KeyState> {
    cands.sort_by(|a, b| {
        a.floor
            .cmp(&b.floor)
            .then_with(|| key_cmp(a, b))
            .then(a.e.total_cmp(&b.e))
            .then(a.w.total_cmp(&b.w))
    });
    // Staircase of kept (e, w) for the current floor: e ascending, w strictly descending.
    let mut stair: Vec<(f64, f64)> = Vec::new();
    let mut kept: Vec<KeyState> = Vec::new();
    for c in cands {
        if kept.last().is_some_and(|k| k.floor != c.floor) {
            stair.clear();
        }
        let pos = stair.partition_point(|&(e, _)| e <= c.e);
        if pos > 0 && stair[pos - 1].1 <= c.w {
            continue;
        }
        // Remove staircase points the new one dominates, then insert it.
        let end = stair[pos..]
            .iter()
            .position(|&(_, w)| w < c.w)
            .map_or(stair.len(), |k| pos + k);
        stair.splice(pos..end, [(c.e, c.w)]);
        kept.push(c);
    }
    kept
}
