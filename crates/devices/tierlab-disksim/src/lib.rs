//! tierlab-disksim: read DiskSim's drive descriptions and replay its real-drive
//! validation traces against tierlab's HDD model.
//!
//! - [`params`]: a parser for DiskSim's parameter language, with source locations.
//! - [`import`]: a drive directory (or `.parv`) → [`tierlab_hdd::HddSpec`].
//! - [`trace`], [`demerit`], [`validate`]: the validation replay and its score.

pub mod demerit;
pub mod error;
pub mod import;
pub mod params;
pub mod trace;
pub mod validate;

pub use error::Error;
pub use import::{import_drive, Imported, Semantics};
pub use validate::{validate_all, validate_all_as, validate_drive, validate_drive_as, validate_path_as, DriveValidation};
