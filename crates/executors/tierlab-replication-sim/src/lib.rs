//! Remote replication in the simulator: [`run_replication`] replays a primary at
//! saturation and, side by side, a secondary that applies the shipped log under one
//! [`Scheme`]; [`compare`] runs several schemes on the same primary and states each
//! one's saving against conventional replication.

mod config;
mod primary;
mod replica;
mod run;
mod shipping;
mod volume;

pub use config::{
    Link, Redo, ReplicationConfig, Scheme, Shipping, SourceSpec, DEFAULT_REPLICA_DISK,
    DEFAULT_REPLICA_PROFILE,
};
pub use primary::{run_primary, Arrival, PrimaryReport};
pub use replica::ApplyStats;
pub use run::{
    compare, data_standby, run_replication, Comparison, CycleMeasured, NotTaken, DataStandby, DiskFigures, ReplicationRun,
    SchemeRow,
};
pub use volume::{Jobs, Volume};

use anyhow::Result;
use tierlab_array_sim::DiskModel;
use tierlab_engine::Simulation;
use tierlab_system_power::System;

/// Add `count` disks of `model` to `sim`: the data disks (`data00`, …), then the rest
/// named as log disks (`log00`, …). Returns the smallest disk's capacity.
pub(crate) fn add_disks(
    cfg: &ReplicationConfig,
    model: &DiskModel,
    sim: &mut Simulation<'_>,
    count: usize,
) -> Result<u64> {
    let names = (0..count).map(|i| {
        if i < cfg.data_disks {
            format!("data{i:02}")
        } else {
            format!("log{:02}", i - cfg.data_disks)
        }
    });
    let mut disk_bytes = u64::MAX;
    for d in model.build_all(names)? {
        disk_bytes = disk_bytes.min(d.capacity_bytes());
        sim.add_device(d);
    }
    Ok(disk_bytes)
}

/// `cfg`'s catalog drive with the chosen standby level (both sites use it).
pub(crate) fn catalog_disk(cfg: &ReplicationConfig) -> Result<DiskModel> {
    let mut model = DiskModel::from_catalog(&cfg.disk, cfg.power_profile.as_deref())?;
    model.choice.standby = cfg.standby.clone();
    Ok(model)
}

/// The secondary's drive: [`catalog_disk`] in the secondary's system, which gives it the
/// slot power-down level when the system powers slots down.
pub(crate) fn secondary_disk(
    cfg: &ReplicationConfig,
    system: Option<&System>,
) -> Result<DiskModel> {
    let model = catalog_disk(cfg)?;
    match system {
        Some(s) => model.in_system(s),
        None => Ok(model),
    }
}
