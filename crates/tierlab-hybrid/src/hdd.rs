//! The HDD of a configuration: a catalog drive (datasheet figures and a power profile) or
//! a DiskSim drive description, with an optional spin-down policy.

use anyhow::{anyhow, Context, Result};
use std::path::{Path, PathBuf};
use tierlab_catalog::{Catalog, HddEntry};
use tierlab_hdd::{Datasheet, HddDevice, HddSpec, Mechanics};
use tierlab_power::{IdlePolicy, PowerModel};
use tierlab_sim::Device;
use tierlab_types::{MIB, NS_PER_S};

/// The disk of the main job: the HDD of the GreenDM hybrid-drive studies.
pub const DEFAULT_HDD: &str = "seagate-barracuda-xt-st32000641as";

/// Which HDD to simulate, and how it saves power.
#[derive(Clone, Debug, PartialEq)]
pub struct HddChoice {
    /// A drive from the catalog (`tierlab catalog list`).
    pub device: String,
    /// A DiskSim drive description (a directory with .parv/.diskspecs/.model/.seek) used
    /// instead of the catalog drive: validated timing, no power figures.
    pub disksim: Option<PathBuf>,
    /// A catalog directory (with an `hdd/` folder) instead of the built-in catalog.
    pub catalog: Option<PathBuf>,
    /// The catalog drive's power profile (default: its first).
    pub power_profile: Option<String>,
    /// Spin the disk down after this many seconds idle (default: never).
    pub spin_down_s: Option<f64>,
    /// The standby level a spin-down enters (default: the deepest the profile has).
    pub standby: Option<String>,
}

impl Default for HddChoice {
    fn default() -> Self {
        HddChoice { device: DEFAULT_HDD.to_string(), disksim: None, catalog: None, power_profile: None, spin_down_s: None, standby: None }
    }
}

/// The catalog in `dir`, or the built-in one.
pub fn catalog(dir: Option<&Path>) -> Result<Catalog> {
    match dir {
        Some(d) => Ok(Catalog::load_dir(d)?),
        None => Ok(tierlab_catalog::builtin()),
    }
}

/// The datasheet figures the HDD model needs from a catalog entry, or an error naming the
/// figure the catalog marks unknown.
pub fn datasheet(e: &HddEntry) -> Result<Datasheet> {
    let need = |v: Option<f64>, key: &str| {
        v.ok_or_else(|| anyhow!("catalog drive `{}` cannot be simulated: its `{key}` is unknown (see its file's `unknown` list)", e.id))
    };
    Ok(Datasheet {
        name: e.id.clone(),
        capacity_bytes: e.capacity_bytes,
        rpm: f64::from(e.rpm),
        seek_single_track_ms: e.seek.single_track_read_ms,
        seek_average_ms: need(e.seek.average_read_ms, "seek.average_read_ms")?,
        seek_full_stroke_ms: e.seek.full_stroke_read_ms,
        sustained_transfer_mb_s: need(e.transfer.sustained_max_mb_s, "transfer.sustained_max_mb_s")?,
        cache_mib: e.cache_bytes.map(|b| b as f64 / MIB as f64).unwrap_or(0.0),
        sector_bytes: u32::try_from(e.sector_bytes).map_err(|_| anyhow!("catalog drive `{}`: sector_bytes too large", e.id))?,
    })
}

/// The simulated HDD `choice` names, or an error naming the missing figure or option.
pub fn build_hdd(choice: &HddChoice) -> Result<Box<dyn Device + Send>> {
    if let Some(dir) = &choice.disksim {
        if choice.spin_down_s.is_some() || choice.power_profile.is_some() {
            return Err(anyhow!("--spin-down-s and --power-profile need a catalog drive: DiskSim descriptions have no power figures"));
        }
        let spec = tierlab_disksim::import_drive(dir).with_context(|| format!("cannot import DiskSim drive {}", dir.display()))?.spec;
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "disksim".into());
        return Ok(Box::new(HddDevice::new(name, Mechanics::new(spec)?)));
    }
    let cat = catalog(choice.catalog.as_deref())?;
    let entry = cat.hdd(&choice.device)?;
    let spec = HddSpec::from_datasheet(&datasheet(entry)?)?;
    let mech = Mechanics::new(spec)?;
    let profile = match &choice.power_profile {
        Some(name) => Some(entry.power_profile(name).ok_or_else(|| {
            let known: Vec<_> = entry.power_profiles.iter().map(|p| p.name.as_str()).collect();
            anyhow!("drive `{}` has no power profile `{name}`: it has {}", entry.id, known.join(", "))
        })?),
        None => entry.default_power(),
    };
    let Some(profile) = profile else {
        if choice.spin_down_s.is_some() {
            return Err(anyhow!("drive `{}` has no power figures, so it cannot spin down", entry.id));
        }
        return Ok(Box::new(HddDevice::new(entry.id.clone(), mech)));
    };
    let policy = match choice.spin_down_s {
        None => IdlePolicy::never(),
        Some(s) if s.is_finite() && s >= 0.0 => {
            let level = match &choice.standby {
                Some(name) => profile.spec.standby_index(name).ok_or_else(|| {
                    anyhow!("power profile `{}` of `{}` has no standby level `{name}`", profile.name, entry.id)
                })?,
                None => profile.spec.deepest_standby().ok_or_else(|| {
                    anyhow!("power profile `{}` of `{}` has no standby level to spin down to", profile.name, entry.id)
                })?,
            };
            IdlePolicy::after((s * NS_PER_S as f64).round() as u64, level)
        }
        Some(s) => return Err(anyhow!("--spin-down-s: expected a non-negative number of seconds, found {s}")),
    };
    let power = PowerModel::new(&profile.spec, entry.rpm, policy, 0)?;
    Ok(Box::new(HddDevice::with_power(entry.id.clone(), mech, power)))
}
