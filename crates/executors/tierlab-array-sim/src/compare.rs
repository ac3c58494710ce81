//! Schemes × loads on one array: each scheme's energy saving against RAID-5 at the same
//! load (of the disks, and of the whole system when one is described), mean and p99 response time, whether the goal held, speed changes and spin-downs
//! per disk per day.

use crate::run::{run_array, ArrayConfig, ArrayRun};
use tierlab_system_power::SystemEnergy;
use anyhow::Result;
use serde::Serialize;
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_workload::Workload;

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
    /// `1 − E / E(raid5)` at the same load (0 for RAID-5 itself); with measured windows
    /// of different lengths, `1 − P / P(raid5)` of their average powers.
    pub energy_saving: f64,
    /// Half-width of the saving's 95 % interval, when both runs were measured through the
    /// layer (the two powers' intervals combined as independent estimates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy_saving_half_width: Option<f64>,
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
        let mut reference: Option<(Reference, Option<SystemEnergy>)> = None;
        for scheme in &list {
            let label = format!("{} at {}", scheme.label(), load.label);
            let run = run_array(cfg, scheme, &load.workload, &mut |_| {})?;
            let (base, base_system) = reference.get_or_insert_with(|| (Reference::of(&run), run.system.clone()));
            let (energy_saving, energy_saving_half_width) = base.saving(&run);
            let system_saving = match (&run.system, &*base_system) {
                (Some(e), Some(b)) => Some(e.saving_against(b).system),
                _ => None,
            };
            rows.push(CompareRow { load: load.label.clone(), load_iops: load.iops, scheme: scheme.label(), energy_saving, energy_saving_half_width, system_saving, run });
            progress(rows.len(), total, &label);
        }
    }
    Ok(rows)
}

/// RAID-5's figures at one load, that savings are taken against.
struct Reference {
    energy_j: f64,
    power: Option<tierlab_measure::Interval>,
}

impl Reference {
    fn of(run: &ArrayRun) -> Reference {
        Reference { energy_j: run.energy_j, power: run.measured.as_ref().map(|m| m.power_w) }
    }

    /// `run`'s saving against this reference, and its half-width when both were measured.
    fn saving(&self, run: &ArrayRun) -> (f64, Option<f64>) {
        match (self.power, run.measured.as_ref().map(|m| m.power_w)) {
            (Some(base), Some(p)) if base.mean > 0.0 => {
                let q = p.mean / base.mean;
                let rel = (p.relative().powi(2) + base.relative().powi(2)).sqrt();
                (1.0 - q, Some(q * rel))
            }
            _ if self.energy_j > 0.0 => (1.0 - run.energy_j / self.energy_j, None),
            _ => (0.0, None),
        }
    }
}
