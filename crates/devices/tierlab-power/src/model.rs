//! `PowerModel`: a disk's power-state machine with lazy accounting.
//!
//! There are no timers. The model keeps a clock up to which every nanosecond has been
//! charged to exactly one state; each call first brings that clock up to the call's time,
//! deciding after the fact what the drive did in between (stayed idle, or — if the idle
//! gap exceeded the policy's timeout — spun down at `last activity + timeout`). Work that
//! is committed (a seek, a transfer, a transition) is charged at once, so the clock may
//! run ahead of the caller's time; a later call before the clock simply waits for it.
//!
//! Semantics worth knowing:
//! - A request arriving while the drive spins down waits for the spin-down to finish,
//!   then for the spin-up: a drive cannot abort a spin-down (this is what the DRPM and
//!   Hibernator simulations assume, and what ATA drives do).
//! - A standby command while in another standby level leaves that level first (spin-up)
//!   then enters the new one.
//! - A speed change while in standby costs nothing: the drive records the new level and
//!   spins up to it when it next leaves standby (at the standby level's `leave` cost).
//! - A speed change serves no I/O: a request arriving during it waits for its end. Its
//!   cost follows the spec's [`crate::ChangeMode`]: pro rata of the rpm range crossed, or
//!   (a static multi-speed drive, which changes speed through standby) the whole change
//!   cost for every change, counted as a start/stop cycle.
//! - [`PowerModel::set_idle_policy`] charges the time up to the call under the old
//!   policy; the new timeout then counts from the call (or from the end of committed
//!   work), as a drive's standby timer restarts when it is set.
//! - `finish` never cuts committed work short: the run closes at the later of its
//!   argument and the clock, and returns that time.

use crate::policy::IdlePolicy;
use crate::spec::{ChangeMode, CycleKind, PowerSpec, RpmLevel};
use tierlab_config::{FieldError, Validate};

const NS_PER_S_F64: f64 = 1e9;

/// Explicit power-management commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerCommand {
    /// Enter standby level `level` (index into `PowerSpec::standby`).
    Standby { level: usize },
    /// Leave standby now, without waiting for a request.
    Wake,
    /// Change to speed level `index` (0 = slowest).
    SetSpeedLevel(usize),
}

/// Errors from building a model or giving it an impossible command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PowerError {
    #[error("invalid power spec: {0}")]
    InvalidSpec(FieldError),
    #[error("no standby level {index}: the drive has {count}")]
    NoSuchStandbyLevel { index: usize, count: usize },
    #[error("no speed level {index}: the drive has {count}")]
    NoSuchSpeedLevel { index: usize, count: usize },
    #[error("no speed level at {rpm} rpm: the drive has {}", available.iter().map(|r| format!("{r} rpm")).collect::<Vec<_>>().join(", "))]
    NoSuchRpm { rpm: u32, available: Vec<u32> },
    #[error("standby level `{name}` cannot be used: the time and energy to enter or leave it are unknown")]
    UnknownTransition { name: String },
}

/// What a drive was doing during a stretch of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StateKind {
    /// Transferring (reading/writing, rotational wait) at speed level `level`.
    Active,
    /// Seeking at speed level `level`.
    Seek,
    /// Spinning and ready at speed level `level`.
    Idle,
    /// In standby level `level`.
    Standby,
    /// Entering standby level `level` (e.g. spinning down).
    Enter,
    /// Leaving standby level `level` (e.g. spinning up).
    Leave,
    /// Changing rotation speed (`level` is 0).
    SpeedChange,
}

impl StateKind {
    /// Whether the state is a transition (charged per occurrence, not by power × time).
    pub fn is_transition(self) -> bool {
        matches!(
            self,
            StateKind::Enter | StateKind::Leave | StateKind::SpeedChange
        )
    }
}

/// Time and energy spent in one state over the run.
#[derive(Clone, Debug, PartialEq)]
pub struct StateTotal {
    /// Report name: "active", "seek", "idle" (suffixed `_<rpm>rpm` on multi-speed
    /// drives), a standby level's name, `enter_<name>`, `leave_<name>`, `speed_change`.
    pub state: String,
    pub kind: StateKind,
    /// Speed level (active/seek/idle) or standby level (standby/enter/leave) index.
    pub level: usize,
    pub time_ns: u64,
    pub energy_j: f64,
    /// How many times a transition state happened (0 for steady states).
    pub transitions: u64,
}

/// A standby level with times converted to ns.
#[derive(Clone, Debug)]
struct Level {
    name: String,
    power_w: f64,
    /// Time (ns) and energy (J) to enter and to leave; `None` when unknown.
    enter: Option<(u64, f64)>,
    leave: Option<(u64, f64)>,
    cycle: CycleKind,
}

#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    time_ns: u64,
    /// Transitions only; steady-state energy is power × time, computed when reported.
    energy_j: f64,
    transitions: u64,
}

/// Power-state machine of one drive; see the module documentation.
#[derive(Clone, Debug)]
pub struct PowerModel {
    speeds: Vec<RpmLevel>,
    standby: Vec<Level>,
    change_ns: u64,
    change_j: f64,
    change_mode: ChangeMode,
    policy: IdlePolicy,
    start_ns: u64,
    /// Every ns in `[start_ns, clock_ns)` has been charged to one state.
    clock_ns: u64,
    /// The standby level the drive is in (or is entering, until `clock_ns`).
    in_standby: Option<usize>,
    speed: usize,
    /// Tallies by (state, level): a handful of entries, searched linearly on the hot path
    /// and sorted when reported.
    ledger: Vec<((StateKind, usize), Tally)>,
    start_stop_cycles: u64,
    load_unload_cycles: u64,
    power_cycles: u64,
    speed_changes: u64,
    /// The usable standby level with the lowest power (what "standby now" enters).
    deepest_standby: Option<usize>,
}

/// Whether the drive can follow `policy`: its standby level exists and can be entered and
/// left (only asked of a policy with a timeout).
fn check_policy(standby: &[Level], policy: IdlePolicy) -> Result<(), PowerError> {
    if policy.timeout_ns.is_none() {
        return Ok(());
    }
    match standby.get(policy.standby_level) {
        None => Err(PowerError::NoSuchStandbyLevel {
            index: policy.standby_level,
            count: standby.len(),
        }),
        Some(l) if l.enter.is_none() || l.leave.is_none() => Err(PowerError::UnknownTransition {
            name: l.name.clone(),
        }),
        Some(_) => Ok(()),
    }
}

fn s_to_ns(s: f64) -> u64 {
    // Validated: finite, 0 ≤ s ≤ one year, so the product fits in u64.
    (s * NS_PER_S_F64).round() as u64
}

impl PowerModel {
    /// A drive spinning at its fastest speed level, idle, at `start_ns`.
    /// `nominal_rpm` is the speed of a single-speed drive (ignored with `speeds`).
    pub fn new(
        spec: &PowerSpec,
        nominal_rpm: u32,
        policy: IdlePolicy,
        start_ns: u64,
    ) -> Result<Self, PowerError> {
        spec.validate().map_err(PowerError::InvalidSpec)?;
        let speeds = spec.speed_levels(nominal_rpm);
        for (i, level) in speeds.iter().enumerate() {
            level
                .validate()
                .map_err(|e| PowerError::InvalidSpec(e.within(&format!("speeds.levels[{i}]"))))?;
        }
        let standby: Vec<Level> = spec
            .standby
            .iter()
            .map(|l| Level {
                name: l.name.clone(),
                power_w: l.power_w,
                enter: l.enter.map(|t| (s_to_ns(t.time_s), t.energy_j)),
                leave: l.leave.map(|t| (s_to_ns(t.time_s), t.energy_j)),
                cycle: l.cycle,
            })
            .collect();
        check_policy(&standby, policy)?;
        let (change_ns, change_j, change_mode) = spec.speeds.as_ref().map_or(
            (0, 0.0, ChangeMode::Proportional),
            |s| (s_to_ns(s.change.time_s), s.change.energy_j, s.change_mode),
        );
        Ok(PowerModel {
            speed: speeds.len().saturating_sub(1),
            speeds,
            standby,
            change_ns,
            change_j,
            change_mode,
            policy,
            start_ns,
            clock_ns: start_ns,
            in_standby: None,
            ledger: Vec::new(),
            start_stop_cycles: 0,
            load_unload_cycles: 0,
            power_cycles: 0,
            speed_changes: 0,
            deepest_standby: spec.deepest_standby(),
        })
    }

    /// A request arrives at `now_ns`: charge the time since the last activity (applying
    /// the idle timeout), spin up if in standby, and return when the drive can serve.
    pub fn begin_io(&mut self, now_ns: u64) -> u64 {
        self.settle(now_ns);
        self.leave_standby();
        self.clock_ns
    }

    /// The drive seeks for `seek_ns` then transfers for `active_ns`, starting at
    /// `start_ns` or, if it is not ready then, as soon as it is (spinning up if needed).
    /// Returns when the work ends.
    pub fn busy(&mut self, start_ns: u64, seek_ns: u64, active_ns: u64) -> u64 {
        self.begin_io(start_ns);
        self.charge(StateKind::Seek, self.speed, seek_ns, 0.0, false);
        self.charge(StateKind::Active, self.speed, active_ns, 0.0, false);
        self.clock_ns
    }

    /// Carry out `cmd` at `now_ns` (or when the drive is next free); return when the
    /// drive is ready again.
    pub fn command(&mut self, now_ns: u64, cmd: PowerCommand) -> Result<u64, PowerError> {
        match cmd {
            PowerCommand::Standby { level } => {
                match self.standby.get(level) {
                    None => {
                        return Err(PowerError::NoSuchStandbyLevel {
                            index: level,
                            count: self.standby.len(),
                        })
                    }
                    Some(l) if l.enter.is_none() || l.leave.is_none() => {
                        return Err(PowerError::UnknownTransition {
                            name: l.name.clone(),
                        })
                    }
                    Some(_) => {}
                }
                self.settle(now_ns);
                if self.in_standby != Some(level) {
                    self.leave_standby();
                    self.enter_standby(level);
                }
            }
            PowerCommand::Wake => {
                self.begin_io(now_ns);
            }
            PowerCommand::SetSpeedLevel(index) => {
                if index >= self.speeds.len() {
                    return Err(PowerError::NoSuchSpeedLevel {
                        index,
                        count: self.speeds.len(),
                    });
                }
                self.settle(now_ns);
                if self.in_standby.is_none() && index != self.speed {
                    let (time_ns, energy_j) = self.change_cost(self.speed, index);
                    self.charge(StateKind::SpeedChange, 0, time_ns, energy_j, true);
                    self.speed_changes += 1;
                    if self.change_mode == ChangeMode::ThroughStandby {
                        self.start_stop_cycles += 1;
                    }
                }
                self.speed = index;
            }
        }
        Ok(self.clock_ns)
    }

    /// Replace the idle-timeout policy at `now_ns`: the time up to `now_ns` is charged
    /// under the old policy first (it may have spun the drive down), and the new timeout
    /// counts from `now_ns`, or from the end of committed work if that is later. A drive
    /// already in standby stays there. Refused, changing nothing, if the policy names a
    /// standby level the drive does not have or cannot use.
    pub fn set_idle_policy(&mut self, now_ns: u64, policy: IdlePolicy) -> Result<(), PowerError> {
        check_policy(&self.standby, policy)?;
        self.settle(now_ns);
        self.policy = policy;
        Ok(())
    }

    /// The idle-timeout policy in force.
    pub fn idle_policy(&self) -> IdlePolicy {
        self.policy
    }

    /// Index of the speed level at `rpm`, for [`PowerCommand::SetSpeedLevel`]; the error
    /// names the speed asked for and lists the drive's.
    pub fn speed_index(&self, rpm: u32) -> Result<usize, PowerError> {
        self.speeds.iter().position(|l| l.rpm == rpm).ok_or_else(|| PowerError::NoSuchRpm {
            rpm,
            available: self.speeds.iter().map(|l| l.rpm).collect(),
        })
    }

    /// Close the accounting at `end_ns` (or later, if committed work runs past it);
    /// returns the time the run closes at. Later calls continue from there.
    pub fn finish(&mut self, end_ns: u64) -> u64 {
        self.settle(end_ns);
        self.clock_ns
    }

    /// Time and energy by state, in a fixed order (by kind, then level), omitting states
    /// never entered. The times sum to `clock_ns() - start_ns()`.
    pub fn states(&self) -> Vec<StateTotal> {
        let mut ledger: Vec<_> = self.ledger.iter().collect();
        ledger.sort_by_key(|(key, _)| *key);
        ledger
            .into_iter()
            .map(|&((kind, level), t)| StateTotal {
                state: self.state_name(kind, level),
                kind,
                level,
                time_ns: t.time_ns,
                energy_j: if kind.is_transition() {
                    t.energy_j
                } else {
                    self.steady_power_w(kind, level) * t.time_ns as f64 / NS_PER_S_F64
                },
                transitions: t.transitions,
            })
            .collect()
    }

    /// Total energy over the run so far, J.
    pub fn energy_j(&self) -> f64 {
        self.states().iter().map(|s| s.energy_j).sum()
    }

    /// Power drawn in a steady (non-transition) state, W.
    pub fn steady_power_w(&self, kind: StateKind, level: usize) -> f64 {
        let speed = self.speeds.get(level);
        match kind {
            StateKind::Active => speed.map_or(0.0, |s| s.active_w),
            StateKind::Seek => speed.map_or(0.0, |s| s.seek_w),
            StateKind::Idle => speed.map_or(0.0, |s| s.idle_w),
            StateKind::Standby => self.standby.get(level).map_or(0.0, |l| l.power_w),
            StateKind::Enter | StateKind::Leave | StateKind::SpeedChange => 0.0,
        }
    }

    /// Spin-downs into levels that stop the spindle, and speed changes of a drive that
    /// changes speed through standby ([`ChangeMode::ThroughStandby`]).
    pub fn start_stop_cycles(&self) -> u64 {
        self.start_stop_cycles
    }

    /// Entries into levels that cut the drive's power (a slot powered down); each is
    /// also counted in [`PowerModel::start_stop_cycles`].
    pub fn power_cycles(&self) -> u64 {
        self.power_cycles
    }

    /// Entries into levels that unload the heads.
    pub fn load_unload_cycles(&self) -> u64 {
        self.load_unload_cycles
    }

    /// Completed rotation-speed changes (not counting spin-downs and spin-ups).
    pub fn speed_changes(&self) -> u64 {
        self.speed_changes
    }

    /// Rotation speed of the level the drive serves at (it may be in standby now).
    pub fn current_rpm(&self) -> u32 {
        self.speeds.get(self.speed).map_or(0, |s| s.rpm)
    }

    /// Index of the current speed level (0 = slowest).
    pub fn speed_level(&self) -> usize {
        self.speed
    }

    /// The speed levels, slowest first.
    pub fn speed_levels(&self) -> &[RpmLevel] {
        &self.speeds
    }

    /// The usable standby level with the lowest power, if the drive has one.
    pub fn deepest_standby(&self) -> Option<usize> {
        self.deepest_standby
    }

    /// The standby level the drive is in or entering, as of `clock_ns()`.
    pub fn standby_level(&self) -> Option<usize> {
        self.in_standby
    }

    /// Time up to which every ns has been charged.
    pub fn clock_ns(&self) -> u64 {
        self.clock_ns
    }

    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    /// Charge everything up to `now_ns`: standby time, or idle time — applying the idle
    /// timeout, which may put the drive into standby at `clock + timeout`.
    fn settle(&mut self, now_ns: u64) {
        if now_ns <= self.clock_ns {
            return;
        }
        let gap_ns = now_ns - self.clock_ns;
        if self.in_standby.is_none() {
            match self.policy.timeout_ns {
                Some(timeout_ns) if gap_ns > timeout_ns => {
                    self.charge(StateKind::Idle, self.speed, timeout_ns, 0.0, false);
                    self.enter_standby(self.policy.standby_level);
                }
                _ => self.charge(StateKind::Idle, self.speed, gap_ns, 0.0, false),
            }
        }
        if let Some(level) = self.in_standby {
            let rest_ns = now_ns.saturating_sub(self.clock_ns);
            self.charge(StateKind::Standby, level, rest_ns, 0.0, false);
        }
    }

    /// Enter a level whose transitions are known (checked by the callers).
    fn enter_standby(&mut self, level: usize) {
        let Some(l) = self.standby.get(level) else {
            return;
        };
        let Some((time_ns, energy_j)) = l.enter else {
            return;
        };
        let cycle = l.cycle;
        self.charge(StateKind::Enter, level, time_ns, energy_j, true);
        match cycle {
            CycleKind::StartStop => self.start_stop_cycles += 1,
            CycleKind::LoadUnload => self.load_unload_cycles += 1,
            CycleKind::Power => {
                self.power_cycles += 1;
                self.start_stop_cycles += 1;
            }
            CycleKind::None => {}
        }
        self.in_standby = Some(level);
    }

    fn leave_standby(&mut self) {
        let Some(level) = self.in_standby.take() else {
            return;
        };
        let Some((time_ns, energy_j)) = self.standby.get(level).and_then(|l| l.leave) else {
            return;
        };
        self.charge(StateKind::Leave, level, time_ns, energy_j, true);
    }

    /// Time and energy to change between speed levels `from` and `to`: the whole change
    /// cost through standby, else the full-range cost scaled by the share of the rpm
    /// range crossed.
    fn change_cost(&self, from: usize, to: usize) -> (u64, f64) {
        if self.change_mode == ChangeMode::ThroughStandby {
            return (self.change_ns, self.change_j);
        }
        let rpm = |i: usize| self.speeds.get(i).map_or(0.0, |s| s.rpm as f64);
        let (lo, hi) = (rpm(0), rpm(self.speeds.len().saturating_sub(1)));
        let share = if hi > lo {
            ((rpm(from) - rpm(to)).abs() / (hi - lo)).min(1.0)
        } else {
            1.0
        };
        (
            (self.change_ns as f64 * share).round() as u64,
            self.change_j * share,
        )
    }

    /// Charge `time_ns` from the clock to one state and advance the clock.
    fn charge(
        &mut self,
        kind: StateKind,
        level: usize,
        time_ns: u64,
        energy_j: f64,
        transition: bool,
    ) {
        if time_ns == 0 && !transition {
            return;
        }
        let time_ns = time_ns.min(u64::MAX - self.clock_ns);
        let key = (kind, level);
        let i = match self.ledger.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.ledger.push((key, Tally::default()));
                self.ledger.len() - 1
            }
        };
        let tally = &mut self.ledger[i].1;
        tally.time_ns += time_ns;
        tally.energy_j += energy_j;
        tally.transitions += u64::from(transition);
        self.clock_ns += time_ns;
    }

    fn state_name(&self, kind: StateKind, level: usize) -> String {
        let standby = |i: usize| self.standby.get(i).map_or("standby", |l| l.name.as_str());
        let speed = |base: &str| {
            if self.speeds.len() > 1 {
                format!("{base}_{}rpm", self.speeds.get(level).map_or(0, |s| s.rpm))
            } else {
                base.to_string()
            }
        };
        match kind {
            StateKind::Active => speed("active"),
            StateKind::Seek => speed("seek"),
            StateKind::Idle => speed("idle"),
            StateKind::Standby => standby(level).to_string(),
            StateKind::Enter => format!("enter_{}", standby(level)),
            StateKind::Leave => format!("leave_{}", standby(level)),
            StateKind::SpeedChange => "speed_change".to_string(),
        }
    }
}
