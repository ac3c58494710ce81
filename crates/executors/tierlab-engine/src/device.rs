//! The interface every simulated device implements. The engine owns queueing and
//! scheduling; a device only knows how long it takes to serve one operation from the
//! state it is in, and what that cost in energy and wear.

use serde::Serialize;
use std::collections::BTreeMap;
use tierlab_types::Op;

/// One operation handed to a device by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceOp {
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// Force unit access: the data must be on stable media before completion
    /// (bypasses a volatile write cache).
    pub fua: bool,
}

/// Commands a controller (policy executor) may give a device besides I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceCommand {
    /// Enter the deepest standby state now (HDD: spin down).
    Standby,
    /// Leave standby now (HDD: spin up) without waiting for a request.
    Wake,
    /// Change to rotation-speed level `index` of the device's RPM levels (0 = slowest).
    SetSpeedLevel(usize),
    /// Flush any volatile write cache.
    FlushCache,
    /// Spin down by itself after this many ns idle from now on (`None`: never).
    SetIdleTimeout(Option<u64>),
}

/// Time and energy spent in one power state over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateEnergy {
    pub state: String,
    pub time_ns: u64,
    pub energy_j: f64,
    /// A standby state: the device is spun down (or otherwise unable to serve at once).
    pub standby: bool,
}

impl DeviceReport {
    /// What happened after `earlier` (a checkpoint of the same device): energy, state
    /// times and counters less theirs.
    pub fn since(&self, earlier: &DeviceReport) -> DeviceReport {
        let mut r = self.clone();
        r.energy_j -= earlier.energy_j;
        for s in &mut r.states {
            if let Some(e) = earlier.states.iter().find(|e| e.state == s.state) {
                s.time_ns = s.time_ns.saturating_sub(e.time_ns);
                s.energy_j -= e.energy_j;
            }
        }
        r.states.retain(|s| s.time_ns > 0 || s.energy_j.abs() > 1e-12);
        for (k, v) in &mut r.counters {
            if let Some(e) = earlier.counters.get(k) {
                *v -= e;
            }
        }
        r
    }
}

/// What a device reports at the end of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceReport {
    pub name: String,
    /// "hdd", "ssd", …
    pub kind: String,
    pub energy_j: f64,
    /// Energy and time by power state (including transitions such as "spin_up").
    pub states: Vec<StateEnergy>,
    /// Device-specific counts: "start_stop_cycles", "cache_hits", "block_erases", …
    pub counters: BTreeMap<String, f64>,
}

/// A simulated storage device.
///
/// Contract:
/// - `service` is called with non-decreasing `now_ns` and at most `max_in_flight`
///   operations outstanding (an op is outstanding from `service` until the completion
///   time it returned). It returns the completion time, `>= now_ns`.
/// - Power-state changes that happen while idle (an idle timeout spinning a disk down) are
///   the device's own business and are accounted lazily: on the next `service`/`command`
///   or at `finish`.
/// - `finish(end_ns)` closes the energy accounting at the end of the run; `report` may be
///   called after it.
pub trait Device {
    fn name(&self) -> &str;
    fn capacity_bytes(&self) -> u64;
    /// Operations the device works on at once (HDD: 1; SSD: its internal parallelism).
    fn max_in_flight(&self) -> usize {
        1
    }
    /// Serve `op` starting at `now_ns`; return its completion time.
    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64;
    /// Carry out a command at `now_ns`; return when the device is ready again.
    /// Devices that do not support a command ignore it and return `now_ns`.
    fn command(&mut self, now_ns: u64, cmd: DeviceCommand) -> u64 {
        let _ = cmd;
        now_ns
    }
    /// A position key for seek-aware schedulers (HDD: the cylinder the byte lies on).
    fn position_key(&self, offset_bytes: u64) -> u64 {
        offset_bytes
    }
    /// The position key of where the device is now (HDD: the current cylinder).
    fn current_position_key(&self) -> u64 {
        0
    }
    /// What `op` would wait for positioning (seek and rotation; nothing for a cache hit)
    /// if served at `now_ns`, without serving it: what a disk's command queue orders by.
    /// `None` for devices without positioning.
    fn positioning_ns(&self, now_ns: u64, op: &DeviceOp) -> Option<u64> {
        let _ = (now_ns, op);
        None
    }
    fn finish(&mut self, end_ns: u64);
    fn report(&self) -> DeviceReport;
    /// The report as of `now_ns`, mid-run, for a run that measures from a warm-up
    /// instant on ([`crate::Simulation::measure_from`]): the engine subtracts it from the
    /// final report. Devices that account lazily bring their accounting up to `now_ns`
    /// first. The default reports what the device has accounted so far.
    fn checkpoint(&mut self, now_ns: u64) -> DeviceReport {
        let _ = now_ns;
        self.report()
    }
    /// A controller's hint: hold explicit wear leveling (moves of cold data into worn
    /// blocks) from now on, or resume it. Devices without it ignore the hint (default).
    fn set_wear_leveling_paused(&mut self, paused: bool) {
        let _ = paused;
    }
}

/// A device reached through a pointer answers as the device itself.
macro_rules! forward_device {
    ($ty:ty) => {
        impl<D: Device + ?Sized> Device for $ty {
            fn name(&self) -> &str {
                (**self).name()
            }
            fn capacity_bytes(&self) -> u64 {
                (**self).capacity_bytes()
            }
            fn max_in_flight(&self) -> usize {
                (**self).max_in_flight()
            }
            fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
                (**self).service(now_ns, op)
            }
            fn command(&mut self, now_ns: u64, cmd: DeviceCommand) -> u64 {
                (**self).command(now_ns, cmd)
            }
            fn position_key(&self, offset_bytes: u64) -> u64 {
                (**self).position_key(offset_bytes)
            }
            fn current_position_key(&self) -> u64 {
                (**self).current_position_key()
            }
            fn positioning_ns(&self, now_ns: u64, op: &DeviceOp) -> Option<u64> {
                (**self).positioning_ns(now_ns, op)
            }
            fn finish(&mut self, end_ns: u64) {
                (**self).finish(end_ns)
            }
            fn report(&self) -> DeviceReport {
                (**self).report()
            }
            fn checkpoint(&mut self, now_ns: u64) -> DeviceReport {
                (**self).checkpoint(now_ns)
            }
            fn set_wear_leveling_paused(&mut self, paused: bool) {
                (**self).set_wear_leveling_paused(paused)
            }
        }
    };
}

// A device lent to the engine (`Box::new(&mut ssd)`), so that the caller keeps it and can
// read its detailed state after the run.
forward_device!(&mut D);
// A boxed device, for wrappers generic over the device they wrap.
forward_device!(Box<D>);

