//! Whole-system power: what a storage system draws besides its disks.
//!
//! Disk energy schemes usually report savings on the disks alone, but the disks sit in
//! enclosures (power supplies, fans, SAS expanders) behind a storage controller, and
//! those do not sleep when the disks do. This crate models both as catalog data
//! (`catalog/system/`, figures from the GreenDM dissertation's chapter 4):
//!
//! - [`ControllerEntry`]: idle power, its rise under load per workload, usable capacity
//!   (watts per TB), deep C-state support;
//! - [`EnclosureEntry`]: slots and the enclosure's power measured with its disks inside
//!   (idle, fully loaded, every disk spun down, every slot powered down), split by
//!   [`EnclosureModel`] into a fixed part, a per-powered-slot part and the disks' own;
//! - [`SystemSpec`]: a controller and enclosures holding an array's disks (a TOML file),
//!   resolved against the catalog into a [`System`] that accounts a run's energy as
//!   controller + enclosures + disks ([`SystemEnergy`]) and states savings for the disks
//!   alone and for the whole system ([`Saving`]);
//! - [`powered_down_level`]: slot power-down as a disk power state beside spin-down;
//! - [`study`]: the chapter's enclosure and system-level figures, recomputed.
//!
//! The crate is pure: it holds no simulator. The array and replication executors run
//! the disks and hand their per-disk figures to [`System::account`].

mod account;
mod catalog;
mod model;
pub mod study;

pub use account::{DiskUsage, Saving, SystemEnergy, SystemUsage};
pub use catalog::{
    builtin, builtin_files, ControllerEntry, DeepCState, EnclosureEntry, LoadRise, MeasuredDisk,
    SystemCatalog, SystemCatalogError,
};
pub use model::{
    powered_down_level, ControllerModel, EnclosureGroup, EnclosureModel, LowPower, Placement,
    System, SystemSpec, POWERED_DOWN,
};
