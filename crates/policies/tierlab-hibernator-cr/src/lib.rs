//! Hibernator's coarse-grain response (CR) speed plan: the M/G/1 response-time and energy model of a disk at each speed over an epoch, and an exact solver for the cheapest per-disk speeds that meet an array-wide mean response-time goal
//!
//! Hibernator (Zhu et al., SOSP 2005, §3.1–3.2) sets disk speeds once per epoch
//! (default one hour). From each disk's predicted load (the last epoch's) it predicts,
//! for every candidate speed, the disk's energy and mean response time over the coming
//! epoch, and picks the speeds with the least total energy whose request-weighted mean
//! response time stays within a limit R_limit.
//!
//! # Model (seconds, watts, joules, requests/second)
//!
//! For disk i at speed j, with arrival rate α_i and service time t_ij (mean E\[t\],
//! variance Var\[t\]):
//!
//! * utilisation ρ_ij = α_i E\[t\] ([`utilisation`]);
//! * steady state, Pollaczek–Khinchine response time
//!   R″ = E\[t\] + α (E\[t\]² + Var\[t\]) / (2 (1 − ρ)), infinite for ρ ≥ 1
//!   ([`mg1_response_s`]);
//! * requests arriving during a speed transition of length T_i:
//!   R′ = (T_i / 2)(1 + ρ) ([`transition_response_s`]); T_i is the transition time if the
//!   disk changes speed at the start of the epoch, else 0;
//! * epoch average R = (T_i R′ + (T_epoch − T_i) R″) / T_epoch ([`epoch_response_s`]);
//! * energy E = P′ T_epoch ρ + P″ (T_epoch − T_epoch ρ − T_i) + P‴ T_i, with P′ active and
//!   P″ idle power at speed j and P‴ = transition energy / transition time
//!   ([`epoch_energy_j`]); a speed with T_epoch ρ + T_i > T_epoch cannot fit the work
//!   and is infeasible;
//! * reorganisation (Hibernator's shuffling after a tier changes): phase length
//!   T_R = 2 Scan / (1 − ρ)² ([`reorg_phase_s`]), response during it R″ + E\[t\]/2
//!   ([`reorg_response_s`]), folded in as
//!   R = (T_i R′ + T_R R″(reorg) + (T_epoch − T_i − T_R) R″) / T_epoch
//!   ([`epoch_response_with_reorg_s`]).
//!
//! The problem is: minimise Σ_i E_ij subject to Σ_i α_i R_ij ≤ R_limit Σ_i α_i (the
//! paper's Σ N_i R_ij / N ≤ R_limit with N_i = α_i T_epoch; disks without load do not
//! constrain). If no assignment satisfies it, every disk runs at its fastest speed and
//! the plan is flagged infeasible.
//!
//! **The printed steady-state formula has a units error.** The paper prints
//! R″ = α E\[t\] + α² (E\[t\]² + Var\[t\]) / (2 (1 − α E\[t\])), which is the P-K mean
//! *number of requests in the system* (dimensionless), not a time: for α = 50/s,
//! E\[t\] = 5.5 ms, Var\[t\] = 4 ms² it gives 0.334, against a true mean response time of
//! 6.681 ms. The same slip recurs in the reorganisation formula. This crate implements
//! the response time W = L / α throughout.
//!
//! # Solvers
//!
//! [`plan_speeds`] (any layout with fixed per-disk loads, e.g. RAID 5) solves the
//! multiple-choice knapsack **exactly**, without discretising energies or response times:
//! disks whose per-speed costs are identical form one decision ("k of them at speed j"),
//! a dynamic programme over these groups keeps the Pareto frontier of
//! (energy, Σ α R) with dominance and bound pruning to find the minimum energy, and a
//! second pass over the same groups resolves ties (within 1e-9 relative energy) towards
//! fewer speed changes, then faster speeds. Should a frontier exceed
//! [`SolverConfig::max_frontier`], depth-first branch and bound (still exact) takes
//! over. See the `solver` module source for details.
//!
//! [`plan_tiers`] is the Hibernator-layout variant: disks in a tier are interchangeable,
//! so it enumerates every tier-size vector (C(n + s − 1, s − 1) of them: 25 for 24 disks
//! and 2 speeds, 325 for 3), asks a caller-supplied predictor for each tier's per-disk
//! load under that layout, and evaluates it with the same equations.
//!
//! # Example
//!
//! ```
//! use tierlab_hibernator_cr::{plan_speeds, DiskForecast, EpochParams, SpeedOption};
//!
//! // A two-speed disk (3,000 / 15,000 rpm); service moments of its workload per speed.
//! let options = |slow_mean_s: f64, fast_mean_s: f64| {
//!     vec![
//!         SpeedOption { level: 0, rpm: 3_000, active_w: 6.1, idle_w: 2.8,
//!                       service_mean_s: slow_mean_s, service_var_s2: 40e-6 },
//!         SpeedOption { level: 1, rpm: 15_000, active_w: 13.5, idle_w: 10.2,
//!                       service_mean_s: fast_mean_s, service_var_s2: 4e-6 },
//!     ]
//! };
//! // A busy disk and two quiet ones, all spinning fast now.
//! let disks = vec![
//!     DiskForecast { arrival_rate_per_s: 50.0, current_level: 1, options: options(0.0139, 0.0055) },
//!     DiskForecast { arrival_rate_per_s: 1.0, current_level: 1, options: options(0.0139, 0.0055) },
//!     DiskForecast { arrival_rate_per_s: 1.0, current_level: 1, options: options(0.0139, 0.0055) },
//! ];
//! let p = EpochParams { epoch_s: 3600.0, transition_s: 12.4, transition_energy_j: 152.0,
//!                       r_limit_s: 0.010 };
//! let plan = plan_speeds(&disks, &p)?;
//! assert!(plan.feasible);
//! // Slowing a quiet disk costs its requests ~37 ms each for this epoch, which the busy
//! // disk's 6.7 ms average absorbs; slowing the busy one would not fit.
//! assert_eq!(plan.levels, vec![1, 0, 0]);
//! assert!(plan.mean_response_s <= 0.010);
//! # Ok::<(), tierlab_hibernator_cr::PlanError>(())
//! ```
//!
//! Nothing here panics on bad input (NaN, infinities, empty or mismatched vectors):
//! the planners return [`PlanError`]; the pure functions return ∞/NaN as documented.

mod error;
mod model;
mod solver;
mod tiers;

pub use error::PlanError;
pub use model::{
    epoch_energy_j, epoch_response_s, epoch_response_with_reorg_s, evaluate_level, mg1_response_s,
    reorg_phase_s, reorg_response_s, transition_power_w, transition_response_s, utilisation,
    DiskForecast, EpochParams, LevelCost, SpeedOption, MAX_LEVELS,
};
pub use solver::{
    plan_speeds, plan_speeds_with, Plan, SolveMethod, SolverConfig, SolverStats,
    FEASIBILITY_RELATIVE, TIE_RELATIVE,
};
pub use tiers::{
    composition_count, plan_tiers, TierForecast, TierOutcome, TierPlan, MAX_COMPOSITIONS,
};
