//! Discrete-event simulation engine.
pub mod device;
pub use device::{Device, DeviceCommand, DeviceOp, DeviceReport, StateEnergy};
