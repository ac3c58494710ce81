//! Inputs, the closed-form per-disk model (M/G/1 response time, transition and
//! reorganisation terms, epoch energy) and its validation.

use serde::{Deserialize, Serialize};

use crate::PlanError;

/// Most speed levels a disk may offer (levels are stored in a byte inside the solver).
pub const MAX_LEVELS: usize = 255;

/// One rotation speed of a disk, with the predicted service-time moments of *this disk's*
/// workload at that speed. A disk lists its options slowest first, `level` = position.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpeedOption {
    /// Speed level, 0 = slowest; must equal the option's index in the list.
    pub level: usize,
    /// Rotation speed (revolutions per minute); strictly increasing along the list.
    pub rpm: u32,
    /// P′: power while servicing requests at this speed (W).
    pub active_w: f64,
    /// P″: power while idle at this speed (W).
    pub idle_w: f64,
    /// E\[t\]: mean service time at this speed (s).
    pub service_mean_s: f64,
    /// Var\[t\]: service-time variance at this speed (s²).
    pub service_var_s2: f64,
}

/// The predicted load of one disk for the next epoch, and the speeds it can run at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskForecast {
    /// α: predicted mean request arrival rate (requests/s).
    pub arrival_rate_per_s: f64,
    /// Speed level the disk runs at now (a different choice costs one transition).
    pub current_level: usize,
    /// Available speeds, slowest first.
    pub options: Vec<SpeedOption>,
}

/// Array-wide parameters of one planning epoch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpochParams {
    /// T_epoch: epoch length (s). Hibernator's default is 3600 s.
    pub epoch_s: f64,
    /// T_i for a disk that changes speed: duration of one speed transition (s); 12.4 s for
    /// the paper's two-speed disk.
    pub transition_s: f64,
    /// Energy of one speed transition (J); 152 J for the paper's disk. The transition
    /// power is P‴ = `transition_energy_j / transition_s`.
    pub transition_energy_j: f64,
    /// R_limit: goal for the request-weighted mean response time of the array (s).
    pub r_limit_s: f64,
}

impl EpochParams {
    /// Checks every field: all finite, `epoch_s` > 0, `transition_s` ≥ 0 and shorter than
    /// the epoch, `transition_energy_j` ≥ 0 (and 0 when `transition_s` is 0, since P‴
    /// would be infinite), `r_limit_s` > 0.
    pub fn validate(&self) -> Result<(), PlanError> {
        let bad = |field, value, expected| PlanError::InvalidParam {
            field,
            value,
            expected,
        };
        if !(self.epoch_s.is_finite() && self.epoch_s > 0.0) {
            return Err(bad(
                "epoch_s",
                self.epoch_s,
                "a finite number of seconds > 0",
            ));
        }
        if !(self.transition_s.is_finite() && self.transition_s >= 0.0) {
            return Err(bad(
                "transition_s",
                self.transition_s,
                "a finite number of seconds >= 0",
            ));
        }
        if self.epoch_s <= self.transition_s {
            return Err(PlanError::EpochShorterThanTransition {
                epoch_s: self.epoch_s,
                transition_s: self.transition_s,
            });
        }
        if !(self.transition_energy_j.is_finite() && self.transition_energy_j >= 0.0) {
            return Err(bad(
                "transition_energy_j",
                self.transition_energy_j,
                "a finite number of joules >= 0",
            ));
        }
        if self.transition_s == 0.0 && self.transition_energy_j != 0.0 {
            return Err(bad(
                "transition_energy_j",
                self.transition_energy_j,
                "0 when transition_s is 0 (the transition power would be infinite)",
            ));
        }
        if !(self.r_limit_s.is_finite() && self.r_limit_s > 0.0) {
            return Err(bad(
                "r_limit_s",
                self.r_limit_s,
                "a finite number of seconds > 0",
            ));
        }
        Ok(())
    }

    /// P‴ = transition energy / transition time (W); 0 when there is no transition time.
    pub fn transition_power_w(&self) -> f64 {
        transition_power_w(self.transition_energy_j, self.transition_s)
    }
}

/// P‴ = `transition_energy_j / transition_s` (W), or 0 when `transition_s` is 0.
pub fn transition_power_w(transition_energy_j: f64, transition_s: f64) -> f64 {
    if transition_s == 0.0 {
        0.0
    } else {
        transition_energy_j / transition_s
    }
}

/// Utilisation ρ = α · E\[t\] (dimensionless).
pub fn utilisation(arrival_rate_per_s: f64, service_mean_s: f64) -> f64 {
    if arrival_rate_per_s == 0.0 {
        0.0
    } else {
        arrival_rate_per_s * service_mean_s
    }
}

/// Steady-state M/G/1 mean **response time** (Pollaczek–Khinchine), in seconds:
///
/// R″ = E\[t\] + α (E\[t\]² + Var\[t\]) / (2 (1 − ρ)),  ρ = α E\[t\].
///
/// Returns `f64::INFINITY` when ρ ≥ 1 (the queue is unstable) and NaN if an input is NaN.
///
/// The paper (§3.1.2) prints α E\[t\] + α² (E\[t\]² + Var\[t\]) / (2 (1 − ρ)), which is the
/// P-K mean *number in system* L (dimensionless); this is W = L/α (Little's law).
pub fn mg1_response_s(arrival_rate_per_s: f64, service_mean_s: f64, service_var_s2: f64) -> f64 {
    let rho = utilisation(arrival_rate_per_s, service_mean_s);
    if rho.is_nan() || service_var_s2.is_nan() || service_mean_s.is_nan() {
        return f64::NAN;
    }
    if rho >= 1.0 {
        return f64::INFINITY;
    }
    if arrival_rate_per_s == 0.0 {
        return service_mean_s;
    }
    let second_moment = service_mean_s * service_mean_s + service_var_s2;
    service_mean_s + arrival_rate_per_s * second_moment / (2.0 * (1.0 - rho))
}

/// Mean response time of the requests that arrive while the disk changes speed, in
/// seconds: R′ = (T_i / 2)(1 + ρ). They wait on average half the transition, plus the
/// service of the backlog ahead of them (α T_i / 2 requests of E\[t\] each).
pub fn transition_response_s(transition_s: f64, rho: f64) -> f64 {
    transition_s / 2.0 * (1.0 + rho)
}

/// Epoch-average response time of one disk, in seconds:
///
/// R = (T_i R′ + (T_epoch − T_i) R″) / T_epoch.
///
/// With T_i = 0 this is R″. A term whose duration is 0 contributes 0 even if its response
/// time is infinite.
pub fn epoch_response_s(
    epoch_s: f64,
    transition_s: f64,
    transition_response_s: f64,
    steady_response_s: f64,
) -> f64 {
    (weighted(transition_s, transition_response_s)
        + weighted(epoch_s - transition_s, steady_response_s))
        / epoch_s
}

/// Epoch-average response time with a reorganisation (shuffling) phase folded in, in
/// seconds:
///
/// R = (T_i R′ + T_R R″(reorg) + (T_epoch − T_i − T_R) R″) / T_epoch.
///
/// The transition comes first, then the reorganisation, then steady state. The caller
/// keeps T_i + T_R ≤ T_epoch.
pub fn epoch_response_with_reorg_s(
    epoch_s: f64,
    transition_s: f64,
    transition_response_s: f64,
    reorg_s: f64,
    reorg_response_s: f64,
    steady_response_s: f64,
) -> f64 {
    (weighted(transition_s, transition_response_s)
        + weighted(reorg_s, reorg_response_s)
        + weighted(epoch_s - transition_s - reorg_s, steady_response_s))
        / epoch_s
}

/// Predicted energy of one disk over the epoch, in joules:
///
/// E = P′ · T_epoch · ρ + P″ · (T_epoch − T_epoch · ρ − T_i) + P‴ · T_i.
///
/// The disk is busy for T_epoch · ρ (arrivals do not depend on the transition), idle at
/// its speed for the rest of the epoch after the transition, and draws P‴ while
/// changing speed. The formula is meaningful only when T_epoch · ρ + T_i ≤ T_epoch; the
/// planner treats a speed that violates this as infeasible (the work does not fit).
pub fn epoch_energy_j(
    epoch_s: f64,
    rho: f64,
    active_w: f64,
    idle_w: f64,
    transition_s: f64,
    transition_w: f64,
) -> f64 {
    let busy_s = epoch_s * rho;
    active_w * busy_s
        + idle_w * (epoch_s - busy_s - transition_s)
        + weighted(transition_s, transition_w)
}

/// Length of a reorganisation (shuffling) phase on a disk with foreground utilisation ρ,
/// in seconds: T_R = 2 · Scan / (1 − ρ)².
///
/// Derived from α T_R (1 − ρ)(Seek + Rotation) + 2 Scan = T_R (1 − ρ) with
/// Seek + Rotation ≈ E\[t\] (paper §3.2.4): background I/O only runs while the disk is idle
/// and pays one positioning per idle period. `scan_s` is the time to read the whole disk
/// sequentially with no foreground load. Returns `f64::INFINITY` when ρ ≥ 1.
pub fn reorg_phase_s(scan_s: f64, rho: f64) -> f64 {
    if rho.is_nan() || scan_s.is_nan() {
        return f64::NAN;
    }
    if rho >= 1.0 {
        return f64::INFINITY;
    }
    let idle = 1.0 - rho;
    2.0 * scan_s / (idle * idle)
}

/// Mean response time of foreground requests while a reorganisation runs, in seconds:
///
/// R″(reorg) = R″ + E\[t\] / 2,
///
/// i.e. the M/G/1 response time ([`mg1_response_s`]) plus, in the worst case, the
/// residual of one non-preemptible background request. (The paper again prints the
/// dimensionless L in place of R″.) `f64::INFINITY` when ρ ≥ 1.
pub fn reorg_response_s(arrival_rate_per_s: f64, service_mean_s: f64, service_var_s2: f64) -> f64 {
    mg1_response_s(arrival_rate_per_s, service_mean_s, service_var_s2) + service_mean_s / 2.0
}

/// `duration · value`, with a zero duration contributing exactly 0 (avoids 0 · ∞ = NaN).
fn weighted(duration_s: f64, value: f64) -> f64 {
    if duration_s == 0.0 {
        0.0
    } else {
        duration_s * value
    }
}

/// The model's prediction for one disk at one speed over the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LevelCost {
    /// The speed level.
    pub level: usize,
    /// ρ = α E\[t\] at this speed.
    pub rho: f64,
    /// T_i: the transition time charged (0 if the disk keeps its speed).
    pub transition_s: f64,
    /// T_R: reorganisation time charged (0 if none), already capped at T_epoch − T_i.
    pub reorg_s: f64,
    /// R″: steady-state M/G/1 response time (s); infinite if ρ ≥ 1.
    pub steady_response_s: f64,
    /// R: epoch-average response time (s).
    pub epoch_response_s: f64,
    /// E: predicted energy over the epoch (J).
    pub energy_j: f64,
    /// Whether the disk can run at this speed at all: ρ < 1, T_epoch ρ + T_i ≤ T_epoch, and
    /// finite response time and energy.
    pub feasible: bool,
}

/// Evaluates the model for one disk (given arrival rate and speed option) at one speed.
/// Inputs are assumed validated. `changes` charges one transition; `reorg_scan_s`
/// charges a reorganisation phase of `reorg_phase_s(scan, ρ)`, capped at
/// T_epoch − T_i (a phase longer than the rest of the epoch runs on into the next one).
pub(crate) fn level_cost(
    arrival_rate_per_s: f64,
    option: &SpeedOption,
    changes: bool,
    reorg_scan_s: Option<f64>,
    p: &EpochParams,
) -> LevelCost {
    let alpha = arrival_rate_per_s;
    let rho = utilisation(alpha, option.service_mean_s);
    let t_i = if changes { p.transition_s } else { 0.0 };
    let steady = mg1_response_s(alpha, option.service_mean_s, option.service_var_s2);
    let r_trans = transition_response_s(t_i, rho);
    let (reorg_s, response) = match reorg_scan_s {
        None => (0.0, epoch_response_s(p.epoch_s, t_i, r_trans, steady)),
        Some(scan) => {
            let t_r = reorg_phase_s(scan, rho).min(p.epoch_s - t_i);
            let r_reorg = reorg_response_s(alpha, option.service_mean_s, option.service_var_s2);
            (
                t_r,
                epoch_response_with_reorg_s(p.epoch_s, t_i, r_trans, t_r, r_reorg, steady),
            )
        }
    };
    let energy = epoch_energy_j(
        p.epoch_s,
        rho,
        option.active_w,
        option.idle_w,
        t_i,
        p.transition_power_w(),
    );
    let feasible = rho < 1.0
        && p.epoch_s * rho + t_i <= p.epoch_s
        && steady.is_finite()
        && response.is_finite()
        && energy.is_finite();
    LevelCost {
        level: option.level,
        rho,
        transition_s: t_i,
        reorg_s,
        steady_response_s: steady,
        epoch_response_s: response,
        energy_j: energy,
        feasible,
    }
}

/// Energy actually reported for a disk placed at an infeasible speed (only in the
/// all-fastest fallback): the formula with the busy time capped at what the epoch has
/// left after the transition (the disk is saturated).
pub(crate) fn saturated_energy_j(
    arrival_rate_per_s: f64,
    option: &SpeedOption,
    changes: bool,
    p: &EpochParams,
) -> f64 {
    let t_i = if changes { p.transition_s } else { 0.0 };
    let rho = utilisation(arrival_rate_per_s, option.service_mean_s);
    let max_rho = (p.epoch_s - t_i) / p.epoch_s;
    let rho = if rho.is_nan() {
        max_rho
    } else {
        rho.min(max_rho)
    };
    epoch_energy_j(
        p.epoch_s,
        rho,
        option.active_w,
        option.idle_w,
        t_i,
        p.transition_power_w(),
    )
}

/// Weighted response α · R (the disk's share of Σ α R); exactly 0 when α = 0.
pub(crate) fn weighted_response(arrival_rate_per_s: f64, response_s: f64) -> f64 {
    weighted(arrival_rate_per_s, response_s)
}

/// Checks one speed option's numeric fields; `make` builds the error for a field.
pub(crate) fn check_option<E>(
    o: &SpeedOption,
    mut make: impl FnMut(&'static str, f64, &'static str) -> E,
) -> Result<(), E> {
    let nonneg = |v: f64| v.is_finite() && v >= 0.0;
    if !nonneg(o.active_w) {
        return Err(make("active_w", o.active_w, "a finite power in watts >= 0"));
    }
    if !nonneg(o.idle_w) {
        return Err(make("idle_w", o.idle_w, "a finite power in watts >= 0"));
    }
    if !nonneg(o.service_mean_s) {
        return Err(make(
            "service_mean_s",
            o.service_mean_s,
            "a finite time in seconds >= 0",
        ));
    }
    if !nonneg(o.service_var_s2) {
        return Err(make(
            "service_var_s2",
            o.service_var_s2,
            "a finite variance in s^2 >= 0",
        ));
    }
    Ok(())
}

/// Validates one disk forecast (index `disk`), including its option list.
pub(crate) fn validate_disk(disk: usize, d: &DiskForecast) -> Result<(), PlanError> {
    if !(d.arrival_rate_per_s.is_finite() && d.arrival_rate_per_s >= 0.0) {
        return Err(PlanError::InvalidDisk {
            disk,
            field: "arrival_rate_per_s",
            value: d.arrival_rate_per_s,
            expected: "a finite rate in requests/s >= 0",
        });
    }
    if d.options.is_empty() {
        return Err(PlanError::NoOptions { disk });
    }
    if d.options.len() > MAX_LEVELS {
        return Err(PlanError::TooManyLevels {
            disk,
            levels: d.options.len(),
            max: MAX_LEVELS,
        });
    }
    if d.current_level >= d.options.len() {
        return Err(PlanError::CurrentLevelOutOfRange {
            disk,
            current: d.current_level,
            levels: d.options.len(),
        });
    }
    for (index, o) in d.options.iter().enumerate() {
        if o.level != index {
            return Err(PlanError::LevelIndexMismatch {
                disk,
                index,
                level: o.level,
            });
        }
        if index > 0 {
            let previous = d.options[index - 1].rpm;
            if o.rpm <= previous {
                return Err(PlanError::RpmNotIncreasing {
                    disk,
                    index,
                    rpm: o.rpm,
                    previous,
                });
            }
        }
        check_option(o, |field, value, expected| PlanError::InvalidOption {
            disk,
            option: index,
            field,
            value,
            expected,
        })?;
    }
    Ok(())
}

/// The model's prediction for `disk` at speed `level` over the epoch (with T_i = the
/// transition time if `level` differs from the disk's current level).
pub fn evaluate_level(
    disk: &DiskForecast,
    level: usize,
    p: &EpochParams,
) -> Result<LevelCost, PlanError> {
    p.validate()?;
    validate_disk(0, disk)?;
    let option = disk.options.get(level).ok_or(PlanError::LevelOutOfRange {
        level,
        levels: disk.options.len(),
    })?;
    Ok(level_cost(
        disk.arrival_rate_per_s,
        option,
        level != disk.current_level,
        None,
        p,
    ))
}
