//! `PowerSpec`: the data that describes a drive's power behaviour, as read from a catalog
//! or configuration file. Datasheets and papers give times in seconds and energies in
//! joules, so the file uses those units; [`crate::PowerModel`] converts times to ns.

use serde::{Deserialize, Serialize};
use tierlab_config::{FieldError, Validate};

/// Longest transition accepted, in seconds (a year): keeps ns arithmetic far from overflow.
const MAX_TRANSITION_S: f64 = 365.0 * 24.0 * 3600.0;
/// Largest power accepted for any state, in watts; a disk drawing more is a unit mistake.
const MAX_POWER_W: f64 = 1_000.0;

/// Power states and transitions of one disk drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSpec {
    /// While reading or writing (transferring, including waiting for rotation), W.
    pub active_w: f64,
    /// While the arm seeks, W.
    pub seek_w: f64,
    /// Spinning and ready, no command in progress, W.
    pub idle_w: f64,
    /// Low-power states the drive cannot serve from without first leaving them, shallowest
    /// first by convention (e.g. heads unloaded, low rpm, spindle stopped). May be empty
    /// when no standby figures are known: the drive then never leaves the idle state.
    #[serde(default)]
    pub standby: Vec<StandbyLevel>,
    /// Multi-speed (DRPM/Hibernator-style) drives: their rotation-speed levels.
    /// Absent for a single-speed drive.
    #[serde(default)]
    pub speeds: Option<SpeedSpec>,
}

/// One standby level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StandbyLevel {
    /// Short name used in reports, e.g. "unloaded", "low_rpm", "stopped".
    pub name: String,
    /// Power while in the level, W.
    pub power_w: f64,
    /// Going from idle into the level (e.g. spin-down). Absent when unknown: the level
    /// is then documented but cannot be used by a [`crate::PowerModel`].
    #[serde(default)]
    pub enter: Option<Transition>,
    /// Going from the level back to idle (e.g. spin-up). Absent when unknown.
    #[serde(default)]
    pub leave: Option<Transition>,
    /// Which wear counter entering the level advances.
    #[serde(default)]
    pub cycle: CycleKind,
}

/// Wear counted each time a standby level is entered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CycleKind {
    /// No wear counted (e.g. electronics-only power saving).
    #[default]
    None,
    /// A start/stop cycle: the spindle stops (rated e.g. 50,000 or 300,000 cycles).
    StartStop,
    /// A load/unload cycle: the heads are parked on the ramp, the spindle keeps turning.
    LoadUnload,
    /// The drive's power is cut (its enclosure slot powered down): a power cycle, which
    /// also stops the spindle and so counts as a start/stop cycle too.
    Power,
}

/// A change of state that takes time and energy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transition {
    /// Duration, seconds.
    pub time_s: f64,
    /// Total energy spent during the transition, J.
    pub energy_j: f64,
}

/// Rotation-speed levels of a multi-speed drive. Give exactly one of `levels` (measured
/// or published figures per speed) or `derive_rpms` (figures derived by the quadratic
/// law, see [`SpeedSpec::levels`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedSpec {
    /// Explicit levels, each with its own powers.
    #[serde(default)]
    pub levels: Vec<RpmLevel>,
    /// Speeds whose powers are derived from the top speed's (`active_w`, `seek_w`,
    /// `idle_w` of the spec, taken to be at the highest rpm listed).
    #[serde(default)]
    pub derive_rpms: Vec<u32>,
    /// Speed-independent power for the derivation (electronics, heads), W; the spindle
    /// share of idle power is `idle_w - base_w`. Required with `derive_rpms`.
    #[serde(default)]
    pub base_w: Option<f64>,
    /// Cost of a speed change: see [`ChangeMode`] for how it applies to each change.
    pub change: Transition,
    /// How `change` is charged (default: pro rata of the rpm range crossed). Left out when
    /// written if it is the default, so specs written before it existed read back alike.
    #[serde(default, skip_serializing_if = "ChangeMode::is_proportional")]
    pub change_mode: ChangeMode,
}

/// How a multi-speed drive's speed changes are charged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeMode {
    /// A dynamic (DRPM-style) drive changes speed while spinning: `change` is the cost
    /// between the lowest and the highest speed, and a smaller change costs the same
    /// fraction of it as its share of the rpm range.
    #[default]
    Proportional,
    /// A static multi-speed drive (Sony-style, as in Hibernator) changes speed only by
    /// stopping the spindle and starting it at the new speed: every change, between any
    /// two speeds and in either direction, costs the whole of `change`, and counts as
    /// one start/stop cycle.
    ThroughStandby,
}

impl ChangeMode {
    fn is_proportional(&self) -> bool {
        *self == ChangeMode::Proportional
    }
}

/// Powers at one rotation speed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RpmLevel {
    pub rpm: u32,
    pub idle_w: f64,
    pub active_w: f64,
    pub seek_w: f64,
}

impl SpeedSpec {
    /// The speed levels, slowest first. Derived levels follow the quadratic law of DRPM
    /// (Gurumurthi et al., ISCA 2003), as Hibernator (Zhu et al., SOSP 2005, section 4.1
    /// and Table 2) applies it: the spindle motor's power grows with the square of the
    /// rotation speed, the rest of the idle drive's power (`base_w`) does not depend on
    /// speed, reading and writing add a fixed amount to idle power, and seek power is
    /// the same at every speed. With top speed `R`, speed `r`:
    ///
    /// ```text
    /// idle_w(r)   = base_w + (idle_w - base_w) * (r / R)^2
    /// active_w(r) = idle_w(r) + (active_w - idle_w)   // read/write channel: a fixed margin
    /// seek_w(r)   = seek_w                            // seek power: speed-independent
    /// ```
    ///
    /// With the IBM Ultrastar 36Z15's figures (idle 10.2 W, active 13.5 W, seek 13.5 W at
    /// 15,000 rpm) and `base_w` = 2.5 W (its standby power), 3,000 rpm gives idle 2.808 W,
    /// active 6.108 W and seek 13.5 W: Hibernator's Table 2 (2.8 / 6.1 / 13.5 W).
    pub fn levels(&self, spec: &PowerSpec) -> Vec<RpmLevel> {
        let mut levels = if self.levels.is_empty() {
            let top = self.derive_rpms.iter().copied().max().unwrap_or(0).max(1) as f64;
            let base_w = self.base_w.unwrap_or(0.0);
            self.derive_rpms
                .iter()
                .map(|&rpm| {
                    let ratio = rpm as f64 / top;
                    let idle_w = base_w + (spec.idle_w - base_w) * ratio * ratio;
                    RpmLevel {
                        rpm,
                        idle_w,
                        active_w: idle_w + (spec.active_w - spec.idle_w),
                        seek_w: spec.seek_w,
                    }
                })
                .collect()
        } else {
            self.levels.clone()
        };
        levels.sort_by_key(|l| l.rpm);
        levels
    }
}

impl PowerSpec {
    /// The speed levels the drive can serve at, slowest first; a single-speed drive has
    /// one level at `nominal_rpm` with the spec's own powers.
    pub fn speed_levels(&self, nominal_rpm: u32) -> Vec<RpmLevel> {
        match &self.speeds {
            Some(s) => s.levels(self),
            None => vec![RpmLevel {
                rpm: nominal_rpm,
                idle_w: self.idle_w,
                active_w: self.active_w,
                seek_w: self.seek_w,
            }],
        }
    }

    /// Index of the usable standby level (both transitions known) with the lowest power,
    /// if any: the level a "standby now" command should enter.
    pub fn deepest_standby(&self) -> Option<usize> {
        (0..self.standby.len())
            .filter(|&i| self.standby[i].is_usable())
            .min_by(|&a, &b| self.standby[a].power_w.total_cmp(&self.standby[b].power_w))
    }

    /// Index of the standby level named `name`.
    pub fn standby_index(&self, name: &str) -> Option<usize> {
        self.standby.iter().position(|l| l.name == name)
    }
}

fn check_power(key: &str, w: f64) -> Result<(), FieldError> {
    if w.is_finite() && (0.0..=MAX_POWER_W).contains(&w) {
        Ok(())
    } else {
        Err(FieldError::new(
            key,
            format!("expected a power in watts between 0 and {MAX_POWER_W}, found {w}"),
        ))
    }
}

impl Validate for Transition {
    fn validate(&self) -> Result<(), FieldError> {
        if !(self.time_s.is_finite() && (0.0..=MAX_TRANSITION_S).contains(&self.time_s)) {
            return Err(FieldError::new(
                "time_s",
                format!(
                    "expected a duration in seconds between 0 and {MAX_TRANSITION_S}, found {}",
                    self.time_s
                ),
            ));
        }
        if !(self.energy_j.is_finite() && self.energy_j >= 0.0) {
            return Err(FieldError::new(
                "energy_j",
                format!("expected an energy >= 0 J, found {}", self.energy_j),
            ));
        }
        Ok(())
    }
}

impl StandbyLevel {
    /// Whether both transitions are known, so a model can enter and leave the level.
    pub fn is_usable(&self) -> bool {
        self.enter.is_some() && self.leave.is_some()
    }

    /// Break-even idle time at idle power `idle_w`, s: the shortest idle period for which
    /// entering and leaving the level uses less energy than staying idle,
    /// (E_enter + E_leave − P·(T_enter + T_leave)) / (P_idle − P), and never less than the
    /// trip itself. Infinite when the level draws no less than idle; `None` when its
    /// transitions are unknown.
    pub fn break_even_s(&self, idle_w: f64) -> Option<f64> {
        let (enter, leave) = (self.enter?, self.leave?);
        let trip_s = enter.time_s + leave.time_s;
        let saved_w = idle_w - self.power_w;
        if saved_w <= 0.0 {
            return Some(f64::INFINITY);
        }
        Some(((enter.energy_j + leave.energy_j - self.power_w * trip_s) / saved_w).max(trip_s))
    }
}

impl Validate for StandbyLevel {
    fn validate(&self) -> Result<(), FieldError> {
        if self.name.trim().is_empty() {
            return Err(FieldError::new("name", "expected a non-empty name"));
        }
        // Report names must not collide with the model's own state names.
        if ["active", "seek", "idle", "speed_change"].contains(&self.name.as_str()) {
            return Err(FieldError::new(
                "name",
                format!("`{}` is reserved for a non-standby state", self.name),
            ));
        }
        check_power("power_w", self.power_w)?;
        if let Some(t) = &self.enter {
            t.validate().map_err(|e| e.within("enter"))?;
        }
        if let Some(t) = &self.leave {
            t.validate().map_err(|e| e.within("leave"))?;
        }
        Ok(())
    }
}

impl Validate for RpmLevel {
    fn validate(&self) -> Result<(), FieldError> {
        if self.rpm == 0 {
            return Err(FieldError::new("rpm", "expected a rotation speed > 0 rpm"));
        }
        check_power("idle_w", self.idle_w)?;
        check_power("active_w", self.active_w)?;
        check_power("seek_w", self.seek_w)
    }
}

impl Validate for SpeedSpec {
    fn validate(&self) -> Result<(), FieldError> {
        self.change.validate().map_err(|e| e.within("change"))?;
        match (self.levels.is_empty(), self.derive_rpms.is_empty()) {
            (true, true) => {
                return Err(FieldError::new(
                    "levels",
                    "expected at least one speed level (`levels` or `derive_rpms`)",
                ))
            }
            (false, false) => {
                return Err(FieldError::new(
                    "derive_rpms",
                    "expected either `levels` or `derive_rpms`, not both",
                ))
            }
            _ => {}
        }
        for (i, l) in self.levels.iter().enumerate() {
            l.validate()
                .map_err(|e| e.within(&format!("levels[{i}]")))?;
        }
        if let Some((i, _)) = self.derive_rpms.iter().enumerate().find(|(_, &r)| r == 0) {
            return Err(FieldError::new(
                format!("derive_rpms[{i}]"),
                "expected a rotation speed > 0 rpm",
            ));
        }
        let mut rpms: Vec<u32> = self
            .levels
            .iter()
            .map(|l| l.rpm)
            .chain(self.derive_rpms.iter().copied())
            .collect();
        rpms.sort_unstable();
        if rpms.windows(2).any(|w| w[0] == w[1]) {
            let key = if self.levels.is_empty() {
                "derive_rpms"
            } else {
                "levels"
            };
            return Err(FieldError::new(
                key,
                "expected distinct rotation speeds, found one listed twice",
            ));
        }
        match (self.derive_rpms.is_empty(), self.base_w) {
            (false, None) => Err(FieldError::new(
                "base_w",
                "expected the speed-independent power (W) to derive speed levels",
            )),
            (true, Some(_)) => Err(FieldError::new(
                "base_w",
                "only meaningful with `derive_rpms`",
            )),
            (_, Some(w)) => check_power("base_w", w),
            (true, None) => Ok(()),
        }
    }
}

impl Validate for PowerSpec {
    fn validate(&self) -> Result<(), FieldError> {
        check_power("active_w", self.active_w)?;
        check_power("seek_w", self.seek_w)?;
        check_power("idle_w", self.idle_w)?;
        for (i, level) in self.standby.iter().enumerate() {
            level
                .validate()
                .map_err(|e| e.within(&format!("standby[{i}]")))?;
            if self.standby[..i].iter().any(|l| l.name == level.name) {
                return Err(FieldError::new(
                    format!("standby[{i}].name"),
                    format!("expected a unique name, `{}` is used twice", level.name),
                ));
            }
        }
        if let Some(speeds) = &self.speeds {
            speeds.validate().map_err(|e| e.within("speeds"))?;
            // Derived levels can still come out negative (active below idle power).
            for level in speeds.levels(self) {
                if let Err(e) = level.validate() {
                    let key = match speeds.derive_rpms.iter().position(|&r| r == level.rpm) {
                        Some(i) => format!("speeds.derive_rpms[{i}]"),
                        None => "speeds.levels".to_string(),
                    };
                    return Err(FieldError::new(
                        key,
                        format!("the level derived for {} rpm is invalid: {}", level.rpm, e),
                    ));
                }
            }
            if let Some(base_w) = speeds.base_w {
                let worst = self.idle_w.min(self.active_w).min(self.seek_w);
                if base_w > worst {
                    return Err(FieldError::new("speeds.base_w", format!("expected at most the idle, active and seek power ({worst} W), found {base_w}")));
                }
            }
            // Explicit levels: the spec's own powers are the fastest level's, so the two
            // must agree (a report or a derivation may use either).
            if let Some((i, top)) = speeds.levels.iter().enumerate().max_by_key(|(_, l)| l.rpm) {
                for (key, level_w, spec_w) in [
                    ("idle_w", top.idle_w, self.idle_w),
                    ("active_w", top.active_w, self.active_w),
                    ("seek_w", top.seek_w, self.seek_w),
                ] {
                    if level_w != spec_w {
                        return Err(FieldError::new(
                            format!("speeds.levels[{i}].{key}"),
                            format!("expected the fastest level's {key} to equal the spec's own ({spec_w} W), found {level_w}"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
