//! The secondary site's power policy, as pure decision code.
//!
//! The executor (the simulator's replica controller) tells the policy what happened —
//! log arrived, a window was applied, the data volume finished spinning up or down, a
//! timer fired — together with the unapplied backlog; the policy answers with at most one
//! [`Command`] and, in schedule mode, the next instant it wants to be asked again. It has
//! no clock and does no I/O.
//!
//! # What it decides
//!
//! - **When to apply.** With [`Defer::Never`] every arrival is applied at once (the
//!   conventional secondary, and compaction without deferral). With deferral, log
//!   accumulates while the data volume sleeps and is applied window after window once the
//!   volume is up, until less than `drain_floor_bytes` is left or a window leaves no less
//!   than there was before it (applying does not outpace the log).
//! - **When to wake.** [`Trigger::Backlog`]: spin up when the backlog reaches what the RTO
//!   allows. `paper` mode: `U + R̂_gen·T_up ≥ R̂_apl·T_RTO`, so applying starts with
//!   `U = R̂_apl·T_RTO` (the batch formula's peak backlog). `strict` mode:
//!   `U ≥ R̂_apl·(T_RTO − T_up)`, so even a disaster at the instant spin-up starts
//!   recovers within the RTO. [`Trigger::Schedule`]: the paper's fixed cycle — applying
//!   starts every `T_wnd`, spin-up is issued `T_up` before, with `T_wnd` from the batch
//!   formula at the current estimates.
//! - **When to sleep.** Once a drain is done, spin down if the configuration is feasible
//!   (`r̂ > 1`, `T_RTO > T_up + T_down`) and the standby period the estimates promise,
//!   `(R̂_apl·T_RTO − R̂_gen·T_up)/R̂_gen`, is at least the disk's break-even time;
//!   otherwise stay up, apply log as it arrives (as a conventional secondary does) and
//!   say why, until a later drain finds sleeping worth it.
//!
//! # Estimates
//!
//! `R̂_apl` is an exponentially weighted mean of the measured apply rate of windows that
//! were full or were the first of their apply phase (which carries the backlog the cycle
//! built); the small windows at the tail of a drain, log that arrived while applying, are
//! not representative and are left out. A secondary that never defers has no drains:
//! every window it applies counts. Before the first full window it is `R̂_gen` — no speed-up assumed, so the first
//! cycle is short and safe. `R̂_gen` is the arrival rate over the run so far.
//!
//! # Exposure
//!
//! At every decision the policy evaluates the recovery time a disaster at that instant
//! would cost: the rest of a spin-down in progress (it cannot be aborted), a spin-up,
//! then applying the backlog at `R̂_apl`. Between decisions the backlog only grows while
//! the volume is not applying, so the maximum over decision instants is the maximum over
//! the run. Every excursion above the RTO (by more than [`VIOLATION_TOLERANCE`]) is
//! counted once.

use serde::{Deserialize, Serialize};
pub use tierlab_update_log::PlanMode;
use tierlab_update_log::{t_apl, t_apl_strict, t_wnd, t_wnd_strict};

const NS_PER_S: f64 = 1e9;

/// An exposure counts as an RTO violation when it exceeds the RTO by more than this
/// share: the backlog grows in whole arrivals, so a trigger fires up to one arrival late,
/// and milliseconds of that are not a missed objective.
pub const VIOLATION_TOLERANCE: f64 = 1e-3;

/// When a deferring secondary wakes its data volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// When the backlog reaches what the RTO allows (tracks a varying log rate).
    Backlog,
    /// On the batch formula's fixed cycle.
    Schedule,
}

impl std::str::FromStr for Trigger {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "backlog" => Ok(Trigger::Backlog),
            "schedule" => Ok(Trigger::Schedule),
            other => Err(format!("expected backlog or schedule, found `{other}`")),
        }
    }
}

/// Whether shipped log waits before it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Defer {
    /// Apply as it arrives; the data volume never sleeps by the policy's command.
    Never,
    /// Let log accumulate while the data volume sleeps.
    UntilRto,
}

/// The data volume's spin-down and spin-up costs (one disk's: the volume moves together).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VolumeCosts {
    pub up_s: f64,
    pub down_s: f64,
    /// Idle power less standby power, times the break-even time, is what a cycle must
    /// save: the break-even time itself (never less than `up_s + down_s`).
    pub break_even_s: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PolicyConfig {
    pub defer: Defer,
    pub trigger: Trigger,
    pub mode: PlanMode,
    pub rto_s: f64,
    pub costs: VolumeCosts,
    /// Log read and applied per window (original log bytes).
    pub window_bytes: u64,
    /// A drain stops once less than this is left.
    pub drain_floor_bytes: u64,
    /// Weight of the newest full window in `R̂_apl`.
    pub ewma_weight: f64,
    /// Exposure, violations and cycles are scored from this instant on (a warm-up before
    /// it fills caches and estimates).
    pub measure_from_ns: u64,
}

/// What the policy asks of the executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Command {
    /// Read up to one window of unapplied log, compact and apply it; report
    /// [`Event::WindowApplied`] when done.
    ApplyWindow,
    /// Spin the data volume down; report [`Event::SpunDown`] when it is.
    SpinDown,
    /// Spin it up; report [`Event::SpunUp`] when it is.
    SpinUp,
}

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// Shipped log reached the log volume.
    Arrived {
        log_bytes: u64,
    },
    /// An applied window: its original log bytes, the time from its start to its last
    /// I/O's completion, and whether it stopped at the window size (rather than at the
    /// end of the backlog).
    WindowApplied {
        log_bytes: u64,
        busy_ns: u64,
        full: bool,
    },
    SpunUp,
    SpunDown,
    /// A timer the policy asked for.
    Timer,
}

/// The policy's answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub command: Option<Command>,
    /// Ask again at this instant (schedule mode), even if nothing happens.
    pub wake_at_ns: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VolumeState {
    Up,
    Applying,
    SpinningDown { since_ns: u64 },
    Standby,
    SpinningUp { since_ns: u64 },
}

/// Figures the policy keeps for the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PolicyReport {
    pub r_gen_bytes_s: f64,
    pub r_apl_bytes_s: f64,
    /// `R̂_apl / R̂_gen` at the end.
    pub r: f64,
    /// Spin-ups since the measurement began.
    pub cycles: u64,
    /// Mean time between consecutive spin-ups, s (0 with fewer than two).
    pub mean_cycle_s: f64,
    /// Mean time from the end of a spin-up to the spin-down that follows, s.
    pub mean_apply_phase_s: f64,
    pub windows: u64,
    pub worst_recovery_s: f64,
    /// Excursions of the exposed recovery time above the RTO.
    pub rto_violations: u64,
    /// Why the last drain ended without a spin-down, if it did (`None` once the volume
    /// sleeps again): the configuration cannot meet the RTO, or the standby it promises
    /// would not pay for its transitions.
    pub stayed_up_because: Option<String>,
}

pub struct ReplicaPolicy {
    cfg: PolicyConfig,
    state: VolumeState,
    r_apl_bytes_s: Option<f64>,
    arrived_bytes: u64,
    first_arrival_ns: Option<u64>,
    last_arrival_ns: u64,
    windows: u64,
    /// Spin-ups since `measure_from_ns`, and the gaps between consecutive ones.
    spin_ups: u64,
    cycle_gaps: u64,
    cycle_sum_s: f64,
    last_spin_up_ns: Option<u64>,
    up_since_ns: Option<u64>,
    apply_phase_sum_s: f64,
    apply_phases: u64,
    worst_recovery_s: f64,
    in_violation: bool,
    violations: u64,
    stayed_up_because: Option<String>,
    /// Schedule mode: when the current cycle's applying is to start.
    next_apply_ns: Option<u64>,
    /// The next window applied is the first since the volume came up: it carries the
    /// backlog the cycle built, so its rate is representative even if it is not full.
    first_of_phase: bool,
    /// A deferred drain is under way (for counting drains that end without sleep).
    draining: bool,
    /// The backlog when the window in progress (or the last one) started.
    window_start_backlog_bytes: u64,
}

impl ReplicaPolicy {
    /// A policy whose data volume starts spinning and idle.
    pub fn new(cfg: PolicyConfig) -> Self {
        ReplicaPolicy {
            cfg,
            state: VolumeState::Up,
            r_apl_bytes_s: None,
            arrived_bytes: 0,
            first_arrival_ns: None,
            last_arrival_ns: 0,
            windows: 0,
            spin_ups: 0,
            cycle_gaps: 0,
            cycle_sum_s: 0.0,
            last_spin_up_ns: None,
            up_since_ns: Some(0),
            apply_phase_sum_s: 0.0,
            apply_phases: 0,
            worst_recovery_s: 0.0,
            in_violation: false,
            violations: 0,
            stayed_up_because: None,
            next_apply_ns: None,
            first_of_phase: true,
            draining: false,
            window_start_backlog_bytes: 0,
        }
    }

    pub fn config(&self) -> &PolicyConfig {
        &self.cfg
    }

    pub fn state(&self) -> VolumeState {
        self.state
    }

    /// The last drain ended without a spin-down (the configuration cannot meet the RTO,
    /// or sleeping would not pay): until a drain ends in one, log is applied as it arrives.
    pub fn staying_up(&self) -> bool {
        self.stayed_up_because.is_some()
    }

    /// The arrival rate so far, bytes/s (0 before two arrivals).
    pub fn r_gen_bytes_s(&self) -> f64 {
        match self.first_arrival_ns {
            Some(first) if self.last_arrival_ns > first => {
                self.arrived_bytes as f64 * NS_PER_S / (self.last_arrival_ns - first) as f64
            }
            _ => 0.0,
        }
    }

    /// The apply-rate estimate, bytes/s: `R̂_gen` until a full window has been measured.
    pub fn r_apl_bytes_s(&self) -> f64 {
        self.r_apl_bytes_s.unwrap_or_else(|| self.r_gen_bytes_s())
    }

    /// Tell the policy what happened at `now_ns` with `backlog_bytes` unapplied; it
    /// answers with what to do.
    pub fn decide(&mut self, now_ns: u64, event: Event, backlog_bytes: u64) -> Decision {
        match event {
            Event::Arrived { log_bytes } => {
                self.first_arrival_ns.get_or_insert(now_ns);
                self.last_arrival_ns = now_ns;
                self.arrived_bytes += log_bytes;
            }
            Event::WindowApplied {
                log_bytes,
                busy_ns,
                full,
            } => {
                debug_assert!(self.state == VolumeState::Applying);
                self.state = VolumeState::Up;
                self.windows += 1;
                // A secondary that never defers applies what arrived while it last
                // applied: each of its windows is how it keeps up, none a drain's tail.
                let representative = full || self.cfg.defer == Defer::Never || std::mem::take(&mut self.first_of_phase);
                if representative && busy_ns > 0 {
                    let rate = log_bytes as f64 * NS_PER_S / busy_ns as f64;
                    let w = self.cfg.ewma_weight.clamp(0.0, 1.0);
                    self.r_apl_bytes_s = Some(match self.r_apl_bytes_s {
                        Some(old) => old + w * (rate - old),
                        None => rate,
                    });
                }
            }
            Event::SpunUp => {
                self.state = VolumeState::Up;
                self.up_since_ns = Some(now_ns);
                self.first_of_phase = true;
            }
            Event::SpunDown => self.state = VolumeState::Standby,
            Event::Timer => {}
        }
        self.observe(now_ns, backlog_bytes);
        let decision = self.next(now_ns, backlog_bytes);
        match decision.command {
            Some(Command::ApplyWindow) => {
                self.state = VolumeState::Applying;
                self.window_start_backlog_bytes = backlog_bytes;
            }
            Some(Command::SpinDown) => {
                if let Some(up) = self.up_since_ns.take() {
                    if up >= self.cfg.measure_from_ns {
                        self.apply_phase_sum_s += (now_ns.saturating_sub(up)) as f64 / NS_PER_S;
                        self.apply_phases += 1;
                    }
                }
                self.state = VolumeState::SpinningDown { since_ns: now_ns };
            }
            Some(Command::SpinUp) => {
                if now_ns >= self.cfg.measure_from_ns {
                    if let Some(prev) = self
                        .last_spin_up_ns
                        .filter(|&p| p >= self.cfg.measure_from_ns)
                    {
                        self.cycle_sum_s += (now_ns - prev) as f64 / NS_PER_S;
                        self.cycle_gaps += 1;
                    }
                    self.spin_ups += 1;
                }
                self.last_spin_up_ns = Some(now_ns);
                self.state = VolumeState::SpinningUp { since_ns: now_ns };
            }
            None => {}
        }
        // The exposure right after a command (a spin-down just begun is the worst
        // instant of the cycle).
        if decision.command.is_some() {
            self.observe(now_ns, backlog_bytes);
        }
        decision
    }

    fn next(&mut self, now_ns: u64, backlog_bytes: u64) -> Decision {
        let none = Decision::default();
        match self.state {
            VolumeState::Applying
            | VolumeState::SpinningDown { .. }
            | VolumeState::SpinningUp { .. } => none,
            VolumeState::Up => {
                if self.cfg.defer == Defer::Never {
                    return if backlog_bytes > 0 {
                        command(Command::ApplyWindow)
                    } else {
                        none
                    };
                }
                if self.r_apl_bytes_s.is_none() {
                    // Calibration: nothing is known of the apply rate yet. Let a backlog
                    // build that recovers within the RTO even at the generation rate, and
                    // measure the rate on it.
                    let rto_left_s = (self.cfg.rto_s - self.cfg.costs.up_s).max(0.0);
                    let target = (self.r_gen_bytes_s() * rto_left_s) as u64;
                    let target = target.clamp(
                        self.cfg.drain_floor_bytes.max(1),
                        self.cfg.window_bytes.max(1),
                    );
                    if self.r_gen_bytes_s() > 0.0 && backlog_bytes >= target {
                        self.draining = true;
                        return command(Command::ApplyWindow);
                    }
                    return none;
                }
                // Drain while windows shrink the backlog; a window that left at least as
                // much as there was before it means applying does not outpace the log.
                let progressing = !self.draining || backlog_bytes < self.window_start_backlog_bytes;
                if backlog_bytes >= self.cfg.drain_floor_bytes.max(1) && progressing {
                    self.draining = true;
                    return command(Command::ApplyWindow);
                }
                let drained = std::mem::take(&mut self.draining);
                match self.reason_to_stay_up() {
                    None => {
                        self.stayed_up_because = None;
                        if self.cfg.trigger == Trigger::Schedule {
                            let (t_wnd, _t_apl) = self.cycle_s();
                            let start = self
                                .last_spin_up_ns
                                .map_or(now_ns, |s| s + secs_ns(self.cfg.costs.up_s));
                            self.next_apply_ns = Some(start + secs_ns(t_wnd));
                        }
                        command(Command::SpinDown)
                    }
                    Some(reason) => {
                        if drained {
                            self.stayed_up_because = Some(reason);
                        }
                        // Staying up: apply as it arrives, as a conventional secondary does.
                        if backlog_bytes > 0 {
                            command(Command::ApplyWindow)
                        } else {
                            none
                        }
                    }
                }
            }
            VolumeState::Standby => match self.cfg.trigger {
                Trigger::Backlog => {
                    if self.backlog_trigger(backlog_bytes) {
                        command(Command::SpinUp)
                    } else {
                        none
                    }
                }
                Trigger::Schedule => {
                    let wake = self
                        .next_apply_ns
                        .unwrap_or(now_ns)
                        .saturating_sub(secs_ns(self.cfg.costs.up_s));
                    // A backlog that already reaches the RTO's limit wakes the volume early.
                    if now_ns >= wake || self.backlog_trigger(backlog_bytes) {
                        command(Command::SpinUp)
                    } else {
                        Decision {
                            command: None,
                            wake_at_ns: Some(wake),
                        }
                    }
                }
            },
        }
    }

    fn backlog_trigger(&self, backlog_bytes: u64) -> bool {
        backlog_bytes as f64 >= self.limit_bytes()
    }

    /// The backlog at which a sleeping volume must start spinning up.
    ///
    /// `paper`: applying starts with `R̂_apl·T_RTO` unapplied (the batch formula).
    /// `strict`: every instant within the RTO — at spin-up start (`T_up + U/R̂_apl`) and
    /// while applying: a window is applied as a unit (a disaster in its middle re-applies
    /// all of it), so while the first window `w` is applied the exposure grows to
    /// `(U + w/r)/R̂_apl`.
    fn limit_bytes(&self) -> f64 {
        let (r_apl, r_gen) = (self.r_apl_bytes_s(), self.r_gen_bytes_s());
        let c = &self.cfg;
        let up_s = c.costs.up_s;
        let u_max = r_apl * c.rto_s;
        match c.mode {
            PlanMode::Paper => u_max - r_gen * up_s,
            PlanMode::Strict => {
                let r = self.ratio().max(1.0);
                let first_window = (c.window_bytes as f64).min(u_max);
                let at_spin_up = r_apl * (c.rto_s - up_s);
                let while_applying = u_max - first_window / r - r_gen * up_s;
                at_spin_up.min(while_applying)
            }
        }
    }

    /// `(T_wnd, T_apl)` of the batch formula at the current estimates (paper or strict).
    fn cycle_s(&self) -> (f64, f64) {
        let (r, rto, up) = (self.ratio(), self.cfg.rto_s, self.cfg.costs.up_s);
        match self.cfg.mode {
            PlanMode::Paper => (t_wnd(r, rto), t_apl(r, rto)),
            PlanMode::Strict => (t_wnd_strict(r, rto, up), t_apl_strict(r, rto, up)),
        }
    }

    fn ratio(&self) -> f64 {
        let g = self.r_gen_bytes_s();
        if g > 0.0 {
            self.r_apl_bytes_s() / g
        } else {
            0.0
        }
    }

    /// Why spinning down now would be wrong, if it would: it cannot meet the RTO, or the
    /// standby it promises does not pay for the transitions.
    fn reason_to_stay_up(&self) -> Option<String> {
        let c = &self.cfg;
        let r = self.ratio();
        let spin = c.costs.up_s + c.costs.down_s;
        if r.is_nan() || r <= 1.0 {
            return Some(format!(
                "the apply rate is not above the generation rate (r = {r:.3})"
            ));
        }
        if c.rto_s.is_nan() || c.rto_s <= spin {
            return Some(format!(
                "the RTO of {} s is not longer than a spin-down and spin-up ({spin} s)",
                c.rto_s
            ));
        }
        let off_s = match c.trigger {
            Trigger::Backlog => self.limit_bytes() / self.r_gen_bytes_s() + c.costs.up_s,
            Trigger::Schedule => {
                let (t_wnd, t_apl) = self.cycle_s();
                t_wnd - t_apl
            }
        };
        let least = c.costs.break_even_s.max(spin);
        (off_s.is_nan() || off_s < least).then(|| format!("the standby period the RTO allows ({off_s:.1} s) is shorter than the break-even time ({least:.1} s)"))
    }

    /// The recovery time a disaster now would cost, s.
    pub fn exposure_s(&self, now_ns: u64, backlog_bytes: u64) -> f64 {
        let r_apl = self.r_apl_bytes_s();
        let apply_s = if backlog_bytes == 0 {
            0.0
        } else if r_apl > 0.0 {
            backlog_bytes as f64 / r_apl
        } else {
            f64::INFINITY
        };
        let c = &self.cfg.costs;
        let left = |since: u64, total_s: f64| {
            (total_s - now_ns.saturating_sub(since) as f64 / NS_PER_S).max(0.0)
        };
        apply_s
            + match self.state {
                VolumeState::Up | VolumeState::Applying => 0.0,
                VolumeState::SpinningDown { since_ns } => left(since_ns, c.down_s) + c.up_s,
                VolumeState::Standby => c.up_s,
                VolumeState::SpinningUp { since_ns } => left(since_ns, c.up_s),
            }
    }

    fn observe(&mut self, now_ns: u64, backlog_bytes: u64) {
        // Before the first window is measured the apply rate is unknown (the calibration
        // backlog is sized at the generation rate, a lower bound), and before
        // `measure_from_ns` the run is warming up: no exposure is scored.
        if self.r_apl_bytes_s.is_none() || now_ns < self.cfg.measure_from_ns {
            return;
        }
        let e = self.exposure_s(now_ns, backlog_bytes);
        self.worst_recovery_s = self.worst_recovery_s.max(e);
        let over = e > self.cfg.rto_s * (1.0 + VIOLATION_TOLERANCE);
        if over && !self.in_violation {
            self.violations += 1;
        }
        self.in_violation = over;
    }

    /// When the data volume last began to spin up: where its latest cycle began.
    pub fn last_spin_up_ns(&self) -> Option<u64> {
        self.last_spin_up_ns
    }

    pub fn report(&self) -> PolicyReport {
        let cycles = self.spin_ups;
        PolicyReport {
            r_gen_bytes_s: self.r_gen_bytes_s(),
            r_apl_bytes_s: self.r_apl_bytes_s(),
            r: self.ratio(),
            cycles,
            mean_cycle_s: if cycles >= 2 {
                self.cycle_sum_s / (cycles - 1) as f64
            } else {
                0.0
            },
            mean_apply_phase_s: if self.apply_phases > 0 {
                self.apply_phase_sum_s / self.apply_phases as f64
            } else {
                0.0
            },
            windows: self.windows,
            worst_recovery_s: self.worst_recovery_s,
            rto_violations: self.violations,
            stayed_up_because: self.stayed_up_because.clone(),
        }
    }
}

fn command(c: Command) -> Decision {
    Decision {
        command: Some(c),
        wake_at_ns: None,
    }
}

fn secs_ns(s: f64) -> u64 {
    (s.max(0.0) * NS_PER_S).round() as u64
}

#[cfg(test)]
mod tests;
