//! A run's energy for the whole system: controller + enclosures + disks.

use crate::model::System;
use serde::Serialize;

/// One disk's share of a run, as the executor measured it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DiskUsage {
    /// The disk's own energy over the run, J.
    pub energy_j: f64,
    /// Time its slot was powered down, s.
    pub powered_down_s: f64,
}

/// What a run measured, for [`System::account`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemUsage {
    /// Length of the measured run, s.
    pub span_s: f64,
    /// Bytes the controller moved to and from the disks.
    pub bytes_moved: u64,
    /// The rate at which the disks could move data all together (their sustained media
    /// rates summed), MB/s: the controller's full load unless the system rates it.
    pub streaming_mb_s: f64,
    /// Per disk, in the system's placement order.
    pub disks: Vec<DiskUsage>,
}

/// A run's energy split three ways.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemEnergy {
    pub system: String,
    pub span_s: f64,
    /// The controller's load over the run, 0–1.
    pub controller_load: f64,
    pub controller_j: f64,
    pub enclosures_j: f64,
    pub disks_j: f64,
    pub total_j: f64,
    pub controller_w: f64,
    pub enclosures_w: f64,
    pub disks_w: f64,
    pub total_w: f64,
    /// Disk-seconds of slots powered down.
    pub powered_down_disk_s: f64,
}

/// A scheme's saving against a baseline, for the disks alone and for the whole system.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Saving {
    pub disks: f64,
    pub system: f64,
}

fn saving(e: f64, base: f64) -> f64 {
    if base > 0.0 {
        1.0 - e / base
    } else {
        0.0
    }
}

impl SystemEnergy {
    /// `1 − P / P_base` for the disks and for the whole system, from mean powers, so that
    /// runs measured over windows of different lengths compare.
    pub fn saving_against(&self, base: &SystemEnergy) -> Saving {
        Saving {
            disks: saving(self.disks_w, base.disks_w),
            system: saving(self.total_w, base.total_w),
        }
    }
}

impl System {
    /// Account a run: the controller at its load for the span, each enclosure's fixed
    /// part for the span plus its per-slot part for the time each of its disks' slots was
    /// powered, and the disks' own energy. `usage.disks` must hold one entry per placed
    /// disk.
    pub fn account(&self, usage: &SystemUsage) -> Result<SystemEnergy, String> {
        if usage.disks.len() != self.placement.len() {
            return Err(format!(
                "the system holds {} disks, the run measured {}",
                self.placement.len(),
                usage.disks.len()
            ));
        }
        let span_s = usage.span_s.max(0.0);
        let load = self
            .controller
            .load(usage.bytes_moved, span_s, usage.streaming_mb_s);
        let controller_j = self.controller.power_w(load) * span_s;
        let mut enclosures_j: f64 = self.enclosures.iter().map(|e| e.base_w * span_s).sum();
        let mut powered_down_disk_s = 0.0;
        for (d, p) in usage.disks.iter().zip(&self.placement) {
            let down_s = d.powered_down_s.clamp(0.0, span_s);
            powered_down_disk_s += down_s;
            enclosures_j += self.enclosures[p.enclosure].slot_w * (span_s - down_s);
        }
        let disks_j: f64 = usage.disks.iter().map(|d| d.energy_j).sum();
        let total_j = controller_j + enclosures_j + disks_j;
        let w = |j: f64| if span_s > 0.0 { j / span_s } else { 0.0 };
        Ok(SystemEnergy {
            system: self.describe(),
            span_s,
            controller_load: load,
            controller_j,
            enclosures_j,
            disks_j,
            total_j,
            controller_w: w(controller_j),
            enclosures_w: w(enclosures_j),
            disks_w: w(disks_j),
            total_w: w(total_j),
            powered_down_disk_s,
        })
    }
}
