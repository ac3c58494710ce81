//! The device groups of a mixed system and the device models behind them.
//!
//! A group is `count` identical devices of one model: an SSD timed from its internals
//! (`tierlab-ssd`: NAND timelines, the catalog entry's FTL, garbage collection, energy per
//! page operation and idle power), or a disk timed by `tierlab-hdd` and powered by
//! `tierlab-power` (seek, active and idle power; no spin-down unless asked for). Catalog
//! disks are converted exactly as `tierlab simulate` converts them
//! (`tierlab_devices::datasheet`), so a disk here is the disk of every other run.

use crate::MixedError;
use serde::Serialize;
use tierlab_catalog::HddEntry;
use tierlab_hdd::{Datasheet, HddDevice, HddSpec, Mechanics};
use tierlab_power::{IdlePolicy, PowerModel, PowerSpec};
use tierlab_engine::Device;
use tierlab_ssd::{Precondition, Ssd, SsdSpec};
use tierlab_types::NS_PER_S;

/// An SSD model: the spec of `tierlab-ssd` and how the drive is aged before the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SsdModel {
    pub spec: SsdSpec,
    /// Before the clock starts, the records placed on a drive are written once
    /// (sequentially from offset 0: reads find data on flash), then overwritten at random
    /// this many times their page count (0: written once, a new drive; 1–2: garbage
    /// collection in steady state, a drive long in service).
    pub aging_overwrites: f64,
    /// Rated program/erase cycles per block for the lifetime projection; `None`: the
    /// spec's `pe_cycle_limit`.
    pub rated_erase_cycles: Option<u32>,
}

impl SsdModel {
    /// A new drive of `spec`, its own cycle rating.
    pub fn new(spec: SsdSpec) -> SsdModel {
        SsdModel {
            spec,
            aging_overwrites: 0.0,
            rated_erase_cycles: None,
        }
    }

    /// The shipped SSD `id` (`catalog/ssd/<id>.toml`), its write buffer as the entry gives it.
    pub fn catalog(id: &str) -> Result<SsdModel, MixedError> {
        let entry =
            tierlab_ssd::catalog::builtin(id).map_err(|e| MixedError::Device(e.to_string()))?;
        Ok(SsdModel::new(entry.ssd))
    }

    /// The cycle count lifetimes are projected at.
    pub fn erase_cycles(&self) -> u32 {
        self.rated_erase_cycles.unwrap_or(self.spec.pe_cycle_limit)
    }
}

/// Figures to use where a catalog disk's entry has none (listed in its `unknown`), each
/// recorded in [`HddModel::estimates`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HddEstimates {
    /// Average read seek, ms.
    pub seek_average_ms: Option<f64>,
    /// Sustained (outer-zone) media rate, 10^6 bytes/s.
    pub sustained_transfer_mb_s: Option<f64>,
}

/// A disk model: the datasheet figures the HDD model synthesises the drive from, and its
/// power states.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HddModel {
    pub datasheet: Datasheet,
    /// Power states; `None`: no power figures (the disk reports no energy).
    pub power: Option<PowerSpec>,
    /// Spin down after this many seconds idle; `None` (the default): never.
    pub spin_down_s: Option<f64>,
    /// Figures that are estimates rather than the catalog's, by key, with their value.
    pub estimates: Vec<String>,
}

impl HddModel {
    /// A disk from its datasheet figures and power states.
    pub fn new(datasheet: Datasheet, power: Option<PowerSpec>) -> HddModel {
        HddModel {
            datasheet,
            power,
            spin_down_s: None,
            estimates: Vec::new(),
        }
    }

    /// The shipped catalog disk `id` with its first power profile.
    pub fn catalog(id: &str) -> Result<HddModel, MixedError> {
        HddModel::catalog_with_estimates(id, &HddEstimates::default())
    }

    /// The shipped catalog disk `id`, with `estimates` filling figures its entry lacks.
    pub fn catalog_with_estimates(
        id: &str,
        estimates: &HddEstimates,
    ) -> Result<HddModel, MixedError> {
        let catalog = tierlab_catalog::builtin();
        let entry = catalog
            .hdd(id)
            .map_err(|e| MixedError::Device(e.to_string()))?;
        HddModel::from_entry(entry, None, estimates)
    }

    /// The disk of catalog entry `entry` with power profile `power_profile` (default: its
    /// first); `estimates` fill only figures the entry does not give.
    pub fn from_entry(
        entry: &HddEntry,
        power_profile: Option<&str>,
        estimates: &HddEstimates,
    ) -> Result<HddModel, MixedError> {
        let mut entry = entry.clone();
        let mut estimated = Vec::new();
        if let (None, Some(ms)) = (entry.seek.average_read_ms, estimates.seek_average_ms) {
            entry.seek.average_read_ms = Some(ms);
            estimated.push(format!("seek.average_read_ms = {ms}"));
        }
        if let (None, Some(mb_s)) = (
            entry.transfer.sustained_max_mb_s,
            estimates.sustained_transfer_mb_s,
        ) {
            entry.transfer.sustained_max_mb_s = Some(mb_s);
            estimated.push(format!("transfer.sustained_max_mb_s = {mb_s}"));
        }
        let datasheet =
            tierlab_devices::datasheet(&entry, None).map_err(|e| MixedError::Device(format!("{e:#}")))?;
        let power = tierlab_devices::power_profile(&entry, power_profile)
            .map_err(|e| MixedError::Device(format!("{e:#}")))?
            .map(|p| p.spec.clone());
        Ok(HddModel {
            datasheet,
            power,
            spin_down_s: None,
            estimates: estimated,
        })
    }

    fn spec(&self) -> Result<HddSpec, MixedError> {
        HddSpec::from_datasheet(&self.datasheet)
            .map_err(|e| MixedError::Device(format!("disk `{}`: {e}", self.datasheet.name)))
    }

    fn build(&self) -> Result<HddDevice, MixedError> {
        let name = &self.datasheet.name;
        let mech = Mechanics::new(self.spec()?)
            .map_err(|e| MixedError::Device(format!("disk `{name}`: {e}")))?;
        let Some(power) = &self.power else {
            if self.spin_down_s.is_some() {
                return Err(MixedError::Device(format!(
                    "disk `{name}` has no power figures, so it cannot spin down"
                )));
            }
            return Ok(HddDevice::new(name.clone(), mech));
        };
        let policy = match self.spin_down_s {
            None => IdlePolicy::never(),
            Some(s) if s.is_finite() && s >= 0.0 => {
                let level = power.deepest_standby().ok_or_else(|| {
                    MixedError::Device(format!(
                        "disk `{name}` has no standby level to spin down to"
                    ))
                })?;
                IdlePolicy::after((s * NS_PER_S as f64).round() as u64, level)
            }
            Some(s) => {
                return Err(MixedError::Device(format!(
                "disk `{name}`: spin-down after {s} s: expected a non-negative number of seconds"
            )))
            }
        };
        let rpm = self.datasheet.rpm.round();
        if !(rpm.is_finite() && rpm >= 1.0 && rpm <= f64::from(u32::MAX)) {
            return Err(MixedError::Device(format!(
                "disk `{name}`: rpm {}: expected a positive speed",
                self.datasheet.rpm
            )));
        }
        let model = PowerModel::new(power, rpm as u32, policy, 0)
            .map_err(|e| MixedError::Device(format!("disk `{name}`: {e}")))?;
        Ok(HddDevice::with_power(name.clone(), mech, model))
    }
}

/// The model of one group's devices.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DeviceSpec {
    Ssd(SsdModel),
    Hdd(HddModel),
}

impl DeviceSpec {
    /// `"ssd"` or `"hdd"`.
    pub fn kind(&self) -> &'static str {
        match self {
            DeviceSpec::Ssd(_) => "ssd",
            DeviceSpec::Hdd(_) => "hdd",
        }
    }

    /// The model's name (the SSD spec's, the disk's datasheet's).
    pub fn model_name(&self) -> &str {
        match self {
            DeviceSpec::Ssd(s) => &s.spec.name,
            DeviceSpec::Hdd(h) => &h.datasheet.name,
        }
    }

    /// Bytes one device holds.
    pub fn capacity_bytes(&self) -> Result<u64, MixedError> {
        match self {
            DeviceSpec::Ssd(s) => {
                s.spec
                    .validate()
                    .map_err(|e| MixedError::Device(format!("SSD `{}`: {e}", s.spec.name)))?;
                Ok(s.spec.capacity_bytes())
            }
            DeviceSpec::Hdd(h) => {
                let spec = h.spec()?;
                Ok(spec
                    .block_count
                    .saturating_mul(u64::from(spec.sector_bytes)))
            }
        }
    }

    /// One device, `used_bytes` of it holding placed records (an SSD writes them before
    /// the clock starts; see [`SsdModel::aging_overwrites`]).
    pub(crate) fn build(&self, used_bytes: u64, seed: u64) -> Result<Box<dyn Device>, MixedError> {
        match self {
            DeviceSpec::Ssd(s) => {
                let name = &s.spec.name;
                let err =
                    |e: tierlab_ssd::SsdError| MixedError::Device(format!("SSD `{name}`: {e}"));
                let mut ssd = Ssd::new(s.spec.clone()).map_err(err)?;
                let capacity = ssd.capacity_bytes().max(1);
                if used_bytes > 0 {
                    let occupancy = (used_bytes as f64 / capacity as f64).min(1.0);
                    ssd.precondition(&Precondition {
                        occupancy,
                        random_overwrites: s.aging_overwrites,
                        seed,
                    })
                    .map_err(err)?;
                }
                Ok(Box::new(ssd))
            }
            DeviceSpec::Hdd(h) => Ok(Box::new(h.build()?)),
        }
    }
}

/// `count` devices of one model under one name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupSpec {
    pub name: String,
    pub device: DeviceSpec,
    pub count: u32,
}

impl GroupSpec {
    pub fn new(name: impl Into<String>, device: DeviceSpec, count: u32) -> GroupSpec {
        GroupSpec {
            name: name.into(),
            device,
            count,
        }
    }

    /// `count` shipped SSDs `id`.
    pub fn ssd_catalog(
        name: impl Into<String>,
        id: &str,
        count: u32,
    ) -> Result<GroupSpec, MixedError> {
        Ok(GroupSpec::new(
            name,
            DeviceSpec::Ssd(SsdModel::catalog(id)?),
            count,
        ))
    }

    /// `count` shipped catalog disks `id`.
    pub fn hdd_catalog(
        name: impl Into<String>,
        id: &str,
        count: u32,
    ) -> Result<GroupSpec, MixedError> {
        Ok(GroupSpec::new(
            name,
            DeviceSpec::Hdd(HddModel::catalog(id)?),
            count,
        ))
    }
}
