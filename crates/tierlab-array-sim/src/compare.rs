//! Schemes × loads on one array: each scheme's energy saving against RAID-5 at the same
//! load (of the disks, and of the whole system when one is described), mean and p99 response time, whether the goal held, speed changes and spin-downs
//! per disk per day.

use crate::run::{run_array, ArrayConfig, ArrayRun};
use tierlab_system_power::SystemEnergy;
use anyhow::Result;
use serde::Serialize;
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_hybrid::Workload;

/// One load level: a label (e.g. "140 req/s") and its workload.
#[derive(Clone, Debug)]
pub struct Load {
    pub label: String,
    /// Mean arrival rate, requests/s, where known (for charts); `None` for a trace.
    pub iops: Option<f64>,
    pub workload: Workload,
}

/// One scheme at one load.
#[derive(Clone, Debug, Serialize)]
pub struct CompareRow {
    pub load: String,
    pub load_iops: Option<f64>,
    pub scheme: String,
    /// `1 − E / E(raid5)` at the same load (0 for RAID-5 itself).
    pub energy_saving: f64,
    /// The same for the whole system (controller, enclosures and disks), when the array
    /// sits in a described system.
    pub system_saving: Option<f64>,
    pub run: ArrayRun,
}

/// Run every scheme on every load. RAID-5 runs first at each load (added if missing)
/// so the savings have their reference. `progress(done, total, label)` is told as runs
/// finish.
pub fn compare(cfg: &ArrayConfig, schemes: &[SchemeConfig], loads: &[Load], progress: &mut dyn FnMut(usize, usize, &str)) -> Result<Vec<CompareRow>> {
    let mut list: Vec<SchemeConfig> = Vec::with_capacity(schemes.len() + 1);
    let baseline = SchemeConfig { kind: SchemeKind::Raid5, guarantee: false, ..schemes.first().cloned().unwrap_or_default() };
    list.push(baseline);
    list.extend(schemes.iter().filter(|s| s.kind != SchemeKind::Raid5 || s.guarantee).cloned());
    let total = list.len() * loads.len();
    let mut rows = Vec::with_capacity(total);
    for load in loads {
        // RAID-5's energy at this load, disks alone and whole system: the reference.
        let mut reference: Option<(f64, Option<SystemEnergy>)> = None;
        for scheme in &list {
            let label = format!("{} at {}", scheme.label(), load.label);
            let run = run_array(cfg, scheme, &load.workload, &mut |_| {})?;
            let (base_j, base_system) = reference.get_or_insert_with(|| (run.energy_j, run.system.clone()));
            let energy_saving = if *base_j > 0.0 { 1.0 - run.energy_j / *base_j } else { 0.0 };
            let system_saving = match (&run.system, &*base_system) {
                (Some(e), Some(b)) => Some(e.saving_against(b).system),
                _ => None,
            };
            rows.push(CompareRow { load: load.label.clone(), load_iops: load.iops, scheme: scheme.label(), energy_saving, system_saving, run });
            progress(rows.len(), total, &label);
        }
    }
    Ok(rows)
}
