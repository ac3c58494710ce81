//! A device built from its catalog entry, so that every executor and study simulates the
//! same disk and the same SSD for the same name:
//!
//! - an HDD ([`build_hdd`], [`catalog_hdd`]): a catalog drive synthesized from its data
//!   sheet ([`datasheet`], [`hdd_spec`], in one of its layout variants) with its power
//!   profile, spin-down and standby level, or a DiskSim drive description; optionally laid
//!   inside its tracks ([`HddChoice::track_aligned`]) or without its read cache;
//! - an SSD: timed from its internals ([`ssd_spec`], [`filled_ssd`]) with its write buffer
//!   as chosen, or from its data sheet ([`datasheet_ssd`]).
//!
//! Errors are `anyhow` errors naming the drive and the figure or option that is missing.

mod hdd;
mod ssd;

pub use hdd::{build_hdd, catalog, catalog_hdd, datasheet, hdd_spec, hdd_variants, power_profile, HddChoice, DEFAULT_HDD, TRACK_ALIGNED_BLOCK_BYTES};
pub use ssd::{datasheet_ssd, filled_ssd, ssd_spec, SsdTiming, SsdWriteBuffer};
