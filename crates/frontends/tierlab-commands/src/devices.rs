//! The HDD options of the command line: a catalog drive (datasheet figures and a power
//! profile) or a DiskSim drive description. Building the device is `tierlab_devices`'s.

use clap::Args;
use std::path::PathBuf;
use tierlab_devices::{HddChoice, DEFAULT_HDD};

#[derive(Args, Clone, Debug)]
pub struct DeviceChoice {
    /// A drive from the catalog (`tierlab catalog list`).
    #[arg(long, value_name = "ID", default_value = DEFAULT_HDD)]
    pub device: String,
    /// Use a DiskSim drive description (a directory with .parv/.diskspecs/.model/.seek)
    /// instead of a catalog drive. Its timing is validated; it has no power figures.
    #[arg(long, value_name = "DIR")]
    pub disksim: Option<PathBuf>,
    /// Read the catalog from this directory (with an `hdd/` folder) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub catalog: Option<PathBuf>,
    /// The catalog drive's power profile (default: its first).
    #[arg(long, value_name = "NAME")]
    pub power_profile: Option<String>,
    /// Spin the disk down after this many seconds idle (default: never).
    #[arg(long, value_name = "SECONDS")]
    pub spin_down_s: Option<f64>,
    /// The standby level a spin-down enters (default: the deepest the profile has).
    #[arg(long, value_name = "NAME")]
    pub standby: Option<String>,
    /// Another drive of the catalog model with its own measured track sizes (one of the
    /// variants its layout lists, e.g. `--hdd-variant "J20 TK 7GK"`).
    #[arg(long, value_name = "NAME")]
    pub hdd_variant: Option<String>,
    /// Lay the disk's space inside its tracks: 4 KiB blocks that straddle a track boundary
    /// are never used, and a request crossing a boundary becomes one command per track.
    #[arg(long)]
    pub hdd_track_aligned: bool,
}

impl DeviceChoice {
    /// The library's description of the same choice.
    pub fn choice(&self) -> HddChoice {
        HddChoice {
            device: self.device.clone(),
            disksim: self.disksim.clone(),
            catalog: self.catalog.clone(),
            power_profile: self.power_profile.clone(),
            spin_down_s: self.spin_down_s,
            standby: self.standby.clone(),
            variant: self.hdd_variant.clone(),
            track_aligned: self.hdd_track_aligned,
            without_read_cache: false,
        }
    }
}
