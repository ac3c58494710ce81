//! tierlab's discrete-event simulator.
//!
//! - [`Device`]: how long one operation takes on a device and what it costs (devices live
//!   in their own crates: `tierlab-hdd`, `tierlab-ssd`, …).
//! - [`Controller`]: the executor side of a policy — routes host requests to device
//!   operations ([`Direct`] for a single device; hybrid drives and arrays bring their own).
//! - [`Simulation`]: the event loop with per-device queues, a [`SchedulerKind`], open- or
//!   closed-loop [`Replay`], and the [`SimReport`] it ends with.

pub mod controller;
pub mod device;
mod engine;
pub mod interrupt;
pub mod scheduler;

pub use controller::{Action, Controller, DeviceInfo, Direct, HostId, Io};
pub use device::{Device, DeviceCommand, DeviceOp, DeviceReport, StateEnergy};
pub use engine::{Batch, BatchDevice, Decision, DeviceRun, Observer, Replay, SimReport, Simulation, Slab};
pub use scheduler::{QueueKeys, SchedulerKind};

/// Why a run stopped.
#[derive(Debug)]
pub enum SimError {
    /// The request source failed (a trace reader's error, with its file and line).
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// A request addresses bytes the device does not have.
    OutOfRange { request_index: u64, device: String, offset_bytes: u64, len_bytes: u64, capacity_bytes: u64 },
    /// A request names a volume with no device behind it.
    NoDeviceForVolume { request_index: u64, volume: u32, devices: usize },
    /// The set-up of the run is impossible.
    Config(String),
    /// The caller asked the run to stop ([`interrupt`]).
    Interrupted,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Source(e) => write!(f, "{e}"),
            SimError::OutOfRange { request_index, device, offset_bytes, len_bytes, capacity_bytes } => write!(
                f,
                "request #{request_index} addresses bytes {offset_bytes}..{} but device `{device}` holds {capacity_bytes} bytes \
                 (use a larger device, filter the trace's volumes, or fold addresses with --wrap)",
                offset_bytes.saturating_add(*len_bytes)
            ),
            SimError::NoDeviceForVolume { request_index, volume, devices } => write!(
                f,
                "request #{request_index} addresses volume {volume}, but the run has {devices} devices (volume v goes to device v)"
            ),
            SimError::Config(msg) => f.write_str(msg),
            SimError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for SimError {}

#[cfg(test)]
mod tests;
