//! `HddDevice`: a disk drive as a `tierlab_engine::Device`: the timing of `Mechanics`, and —
//! when the drive has power figures — the energy and power states of a
//! `tierlab_power::PowerModel` (idle-timeout spin-down, explicit standby, multi-speed).
//!
//! How the two meet, per request: the power model first brings the drive to a state that
//! can serve (waiting out a spin-down, then spinning up: the request sees that delay);
//! `Mechanics` then times the request from that instant, and the power model is charged
//! its seek time at seek power and the rest of its time at active power, up to the later
//! of its completion and the end of its media pass: a write-back write is charged until
//! its data is on the media, and the idle timeout counts from then. A request that
//! arrives while such a write is still being written is not held up by it here (the
//! mechanics time that), and is charged from where that write's charge ends. A speed
//! change of a multi-speed drive is charged by the power model, which holds every request
//! until it ends; `Mechanics` then rotates and transfers at the new speed (seek times do
//! not change).

use crate::mechanics::Mechanics;
use std::collections::BTreeMap;
use tierlab_power::{IdlePolicy, PowerCommand, PowerError, PowerModel, StateKind};
use tierlab_engine::{Device, DeviceCommand, DeviceOp, DeviceReport, StateEnergy};

/// A clone is another drive of the same model in the same state (the fixed parts of the
/// timing model are shared): building one drive and cloning it is how an array gets
/// many alike without deriving each from its datasheet again.
#[derive(Clone)]
pub struct HddDevice {
    name: String,
    mech: Mechanics,
    power: Option<PowerModel>,
    /// Commands the power model refused (an unknown level, an unusable transition).
    refused_commands: u64,
    /// The standby level the `Standby` and `SetIdleTimeout` commands enter (`None`: the
    /// deepest the power model has).
    standby_level: Option<usize>,
    /// The power model has been charged for media work up to here (a write-back write's
    /// background pass may end after the request that caused it completes).
    charged_until_ns: u64,
}

impl HddDevice {
    /// A drive with timing only (no power figures: energy is reported as 0).
    pub fn new(name: impl Into<String>, mech: Mechanics) -> HddDevice {
        HddDevice { name: name.into(), mech, power: None, refused_commands: 0, standby_level: None, charged_until_ns: 0 }
    }

    /// A drive with timing and a power model (built for the drive's nominal rpm).
    pub fn with_power(name: impl Into<String>, mech: Mechanics, power: PowerModel) -> HddDevice {
        HddDevice { name: name.into(), mech, power: Some(power), refused_commands: 0, standby_level: None, charged_until_ns: 0 }
    }

    /// Make the `Standby` and `SetIdleTimeout` commands enter standby level `index` of the
    /// power model instead of its deepest (a drive with several low-power modes: heads
    /// unloaded, low rpm, stopped).
    pub fn with_standby_level(mut self, index: usize) -> HddDevice {
        self.standby_level = Some(index);
        self
    }

    fn standby_level(&self) -> Option<usize> {
        self.standby_level.or_else(|| self.power.as_ref().and_then(|p| p.deepest_standby()))
    }

    pub fn mechanics(&self) -> &Mechanics {
        &self.mech
    }

    pub fn power(&self) -> Option<&PowerModel> {
        self.power.as_ref()
    }

    /// Replace the idle-timeout (spin-down) policy at `now_ns`, for a scheduler that
    /// changes it during a run: the power model charges the time up to `now_ns` under the
    /// old policy, and the new timeout counts from `now_ns` (see
    /// [`PowerModel::set_idle_policy`]). A drive without power figures accepts only
    /// [`IdlePolicy::never`]: it has no standby level to spin down to.
    pub fn set_idle_policy(&mut self, now_ns: u64, policy: IdlePolicy) -> Result<(), PowerError> {
        match &mut self.power {
            Some(p) => p.set_idle_policy(now_ns, policy),
            None if policy.timeout_ns.is_none() => Ok(()),
            None => Err(PowerError::NoSuchStandbyLevel { index: policy.standby_level, count: 0 }),
        }
    }

    /// Change to speed level `index` (0 = slowest) at `now_ns`, or when the drive is next
    /// free; returns when it can serve again. The power model charges the change (and
    /// requests wait for it); rotation and media transfer then follow the new speed and
    /// seeks do not. The error names a level the drive does not have (see
    /// [`PowerModel::speed_index`] to find a level by rpm); nothing changes then.
    pub fn set_speed_level(&mut self, now_ns: u64, index: usize) -> Result<u64, PowerError> {
        let Some(power) = &mut self.power else {
            return Err(PowerError::NoSuchSpeedLevel { index, count: 0 });
        };
        let ready_ns = power.command(now_ns, PowerCommand::SetSpeedLevel(index))?;
        // The power model has only speeds it validated (1 rpm and up), which `set_rpm`
        // accepts.
        let _ = self.mech.set_rpm(f64::from(power.current_rpm()));
        Ok(ready_ns.max(now_ns))
    }
}

impl Device for HddDevice {
    fn name(&self) -> &str {
        &self.name
    }

    fn capacity_bytes(&self) -> u64 {
        self.mech.capacity_bytes()
    }

    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        let Some(power) = &mut self.power else {
            return self.mech.access(now_ns, op).done_ns.max(now_ns);
        };
        // While charged media work is still going on, and nothing (a standby, a speed
        // change) has been charged after it, the drive is spinning: nothing to wait for.
        let spinning = now_ns < self.charged_until_ns && power.clock_ns() <= self.charged_until_ns;
        let ready_ns = if spinning { now_ns } else { power.begin_io(now_ns).max(now_ns) };
        let a = self.mech.access(ready_ns, op);
        let done_ns = a.done_ns.max(ready_ns);
        let from_ns = ready_ns.max(power.clock_ns());
        let until_ns = done_ns.max(a.media_done_ns);
        let busy_ns = until_ns.saturating_sub(from_ns);
        let seek_ns = a.seek_ns.min(busy_ns);
        power.busy(from_ns, seek_ns, busy_ns - seek_ns);
        self.charged_until_ns = self.charged_until_ns.max(until_ns);
        done_ns
    }

    fn command(&mut self, now_ns: u64, cmd: DeviceCommand) -> u64 {
        let pcmd = match cmd {
            DeviceCommand::FlushCache => return self.mech.flush(now_ns),
            DeviceCommand::SetIdleTimeout(timeout_ns) => {
                if self.power.is_none() {
                    return now_ns;
                }
                let policy = match (timeout_ns, self.standby_level()) {
                    (None, _) => Some(IdlePolicy::never()),
                    (Some(t), Some(level)) => Some(IdlePolicy::after(t, level)),
                    (Some(_), None) => None,
                };
                if policy.is_none_or(|policy| self.set_idle_policy(now_ns, policy).is_err()) {
                    self.refused_commands += 1;
                }
                return now_ns;
            }
            DeviceCommand::SetSpeedLevel(i) => {
                return match self.set_speed_level(now_ns, i) {
                    Ok(ready_ns) => ready_ns,
                    Err(_) => {
                        if self.power.is_some() {
                            self.refused_commands += 1;
                        }
                        now_ns
                    }
                };
            }
            DeviceCommand::Standby => match self.standby_level() {
                Some(level) => PowerCommand::Standby { level },
                None => return now_ns,
            },
            DeviceCommand::Wake => PowerCommand::Wake,
        };
        let Some(power) = &mut self.power else { return now_ns };
        match power.command(now_ns, pcmd) {
            Ok(ready_ns) => ready_ns.max(now_ns),
            Err(_) => {
                self.refused_commands += 1;
                now_ns
            }
        }
    }

    fn position_key(&self, offset_bytes: u64) -> u64 {
        u64::from(self.mech.cylinder_of(offset_bytes))
    }

    fn current_position_key(&self) -> u64 {
        u64::from(self.mech.current_cylinder())
    }

    fn positioning_ns(&self, now_ns: u64, op: &DeviceOp) -> Option<u64> {
        Some(self.mech.positioning_ns(now_ns, op))
    }

    fn finish(&mut self, end_ns: u64) {
        if let Some(p) = &mut self.power {
            p.finish(end_ns);
        }
    }

    fn report(&self) -> DeviceReport {
        let s = self.mech.stats();
        let mut counters: BTreeMap<String, f64> = [
            ("reads", s.reads),
            ("writes", s.writes),
            ("cache_hits", s.read_full_hits),
            ("partial_cache_hits", s.read_partial_hits),
            ("write_backs", s.write_backs),
            ("write_segment_waits", s.write_segment_waits),
            ("out_of_range_requests", s.out_of_range),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v as f64))
        .collect();
        let (energy_j, states) = match &self.power {
            Some(p) => {
                counters.insert("start_stop_cycles".into(), p.start_stop_cycles() as f64);
                counters.insert("load_unload_cycles".into(), p.load_unload_cycles() as f64);
                counters.insert("power_cycles".into(), p.power_cycles() as f64);
                counters.insert("speed_changes".into(), p.speed_changes() as f64);
                counters.insert("refused_commands".into(), self.refused_commands as f64);
                let states = p
                    .states()
                    .into_iter()
                    .map(|t| StateEnergy {
                        standby: t.kind == StateKind::Standby,
                        state: t.state,
                        time_ns: t.time_ns,
                        energy_j: t.energy_j,
                    })
                    .collect();
                (p.energy_j(), states)
            }
            None => (0.0, Vec::new()),
        };
        DeviceReport { name: self.name.clone(), kind: "hdd".into(), energy_j, states, counters }
    }
}
