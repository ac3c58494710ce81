//! Power states and energy of a disk drive.
//!
//! [`PowerSpec`] is the data (from a catalog entry or a config file): powers of the
//! active, seek and idle states, standby levels with the time and energy to enter and
//! leave them, and optionally multi-speed rotation levels. [`PowerModel`] turns it into a
//! state machine that a device model drives with `begin_io` / `busy` / `command` /
//! `finish` and that accounts every nanosecond of the run to exactly one state, lazily
//! (no timers). Used by the HDD device, and by multi-speed arrays and spin-down
//! policies (Hibernator, DRPM, power-aware replication).

mod model;
mod policy;
mod spec;

pub use model::{PowerCommand, PowerError, PowerModel, StateKind, StateTotal};
pub use policy::{IdlePolicy, IdlePolicyConfig};
pub use spec::{ChangeMode, CycleKind, PowerSpec, RpmLevel, SpeedSpec, StandbyLevel, Transition};

#[cfg(test)]
mod tests;
