//! tierlab-hdd: the timing model of one disk drive.
//!
//! - [`HddSpec`] describes a drive as plain data (geometry, zones, sparing, seek curve,
//!   overheads, cache) and validates it; [`HddSpec::from_datasheet`] synthesizes one from
//!   datasheet figures.
//! - [`Layout`] maps logical blocks to physical sectors exactly (zones, spares, slips,
//!   defects, skews).
//! - [`Mechanics`] times requests: overheads, seek, head switches, rotational position
//!   from the spindle speed, media and bus transfer, cache with read-ahead and write-back.
//! - [`HddDevice`] wraps `Mechanics` as a timing-only `tierlab_engine::Device`.

mod cache;
mod datasheet;
mod device;
mod layout;
mod mechanics;
mod pass;
mod seek;
mod spec;

pub use datasheet::{AverageSeek, Datasheet, DatasheetLayout, DatasheetTiming};
pub use device::HddDevice;
pub use layout::{Layout, Pbn};
pub use mechanics::{Access, Mechanics, MechanicsStats};
pub use seek::{fit_datasheet, SeekCurve};
pub use spec::{
    CacheSpec, ExtraWriteDisconnect, HddSpec, LbnMapping, Overheads, ReadAheadMode, SeekModel, Sparing, SpecError, ZoneSpec, MAX_PARAMETER_MS, MAX_TIME_SCALE,
};
