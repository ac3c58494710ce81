//! The executor side of a policy in the simulator. A controller sees host requests and
//! device completions and answers with actions (submit a device op, complete a host
//! request, set a timer, command a device). It has no clock of its own: `now_ns` is given.

use crate::device::{DeviceCommand, DeviceOp};
use crate::SimError;
use tierlab_types::IoRequest;

/// Identifies an outstanding host request inside the engine.
pub type HostId = u32;

/// What a controller asks the engine to do; carried out in order after the callback returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Submit { device: usize, op: DeviceOp, token: u64 },
    Complete { host: HostId },
    Timer { at_ns: u64, token: u64 },
    Command { device: usize, cmd: DeviceCommand },
}

/// The action buffer handed to controller callbacks.
#[derive(Default)]
pub struct Io {
    pub(crate) actions: Vec<Action>,
    pub(crate) finished: bool,
}

impl Io {
    /// Every request has arrived and completed: a controller should start no new
    /// background work (the run ends once what is in service completes).
    pub fn requests_finished(&self) -> bool {
        self.finished
    }
    /// Queue `op` on `device`; `token` comes back in `on_device_done`.
    pub fn submit(&mut self, device: usize, op: DeviceOp, token: u64) {
        self.actions.push(Action::Submit { device, op, token });
    }
    /// The host request `host` is complete now.
    pub fn complete(&mut self, host: HostId) {
        self.actions.push(Action::Complete { host });
    }
    /// Call `on_timer(token)` at `at_ns` (clamped to now if in the past).
    pub fn timer(&mut self, at_ns: u64, token: u64) {
        self.actions.push(Action::Timer { at_ns, token });
    }
    /// How many actions are queued: a controller that wraps another marks this before
    /// calling it, then reads what it did with [`Io::completed_since`].
    pub fn mark(&self) -> usize {
        self.actions.len()
    }
    /// The host requests completed by actions queued since `mark`.
    pub fn completed_since(&self, mark: usize) -> impl Iterator<Item = HostId> + '_ {
        self.actions.get(mark..).unwrap_or_default().iter().filter_map(|a| match a {
            Action::Complete { host } => Some(*host),
            _ => None,
        })
    }
    /// Give `device` a command once it has no operation in service.
    pub fn command(&mut self, device: usize, cmd: DeviceCommand) {
        self.actions.push(Action::Command { device, cmd });
    }
}

/// What the controller may know of each device when it decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    pub capacity_bytes: u64,
}

pub trait Controller {
    /// Called once before the first request with the devices the engine holds.
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        let _ = devices;
        Ok(())
    }
    /// A host request arrived (`index` counts requests from 0, for error messages).
    fn on_request(&mut self, now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError>;
    /// The request that arrives next and the one after it (open-loop replay reads two
    /// ahead; `after` is `None` at the end), told once both are read so that the
    /// controller may start loading the memory they will touch. A hint: it must change
    /// nothing.
    fn upcoming(&self, next: &IoRequest, after: Option<&IoRequest>) {
        let _ = (next, after);
    }
    /// A device operation submitted with `token` finished.
    fn on_device_done(&mut self, now_ns: u64, device: usize, token: u64, io: &mut Io);
    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        let _ = (now_ns, token, io);
    }
    /// The warm-up is over at `now_ns`: the engine restarts its statistics from here, and a
    /// controller that keeps figures of its own for the report restarts them too. The
    /// controller's decisions must not change (warm-up only stops measuring).
    fn on_measure(&mut self, now_ns: u64) {
        let _ = now_ns;
    }
    /// Policy-specific figures for the report.
    fn report(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// No policy: each request goes straight to one device. With one device every volume is
/// laid on it at its own offsets; with several, volume `v` goes to device `v`.
#[derive(Default)]
pub struct Direct {
    capacities: Vec<(String, u64)>,
    wrap: bool,
}

impl Direct {
    /// Fold requests beyond a device's end back into it (offset modulo the room left,
    /// kept 512-byte aligned) instead of stopping with an error: for replaying a trace
    /// recorded on a larger volume.
    pub fn wrapping() -> Self {
        Direct { capacities: Vec::new(), wrap: true }
    }
}

impl Controller for Direct {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        if devices.is_empty() {
            return Err(SimError::Config("the simulation has no device".into()));
        }
        self.capacities = devices.iter().map(|d| (d.name.clone(), d.capacity_bytes)).collect();
        Ok(())
    }

    fn on_request(&mut self, _now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        let device = if self.capacities.len() == 1 { 0 } else { req.volume as usize };
        let Some((name, capacity_bytes)) = self.capacities.get(device) else {
            return Err(SimError::NoDeviceForVolume { request_index: index, volume: req.volume, devices: self.capacities.len() });
        };
        let mut offset_bytes = req.offset_bytes;
        if self.wrap && req.end_bytes() > *capacity_bytes && req.len_bytes <= *capacity_bytes {
            offset_bytes = offset_bytes % (capacity_bytes - req.len_bytes + 1) / 512 * 512;
        }
        if offset_bytes.saturating_add(req.len_bytes) > *capacity_bytes || req.len_bytes == 0 {
            return Err(SimError::OutOfRange {
                request_index: index,
                device: name.clone(),
                offset_bytes: req.offset_bytes,
                len_bytes: req.len_bytes,
                capacity_bytes: *capacity_bytes,
            });
        }
        let op = DeviceOp { op: req.op, offset_bytes, len_bytes: req.len_bytes, fua: false };
        io.submit(device, op, host as u64);
        Ok(())
    }

    fn on_device_done(&mut self, _now_ns: u64, _device: usize, token: u64, io: &mut Io) {
        io.complete(token as HostId);
    }
}
