//! CR, Hibernator's coarse-grain response algorithm, on a fixed layout (RAID_CR): once
//! per epoch, each disk's load over the last epoch is the forecast for the next; the
//! speed of every disk is chosen to minimise the array's predicted energy subject to its
//! predicted mean response time ≤ R_limit (`tierlab-hibernator-cr`, solved exactly). When no
//! choice meets the goal, every disk runs at full speed and the epoch is counted as
//! infeasible.
//!
//! Per disk and speed, the forecast's arrival rate is the disk operations per second of
//! the last epoch (RAID-5 parity operations and destages included: that is the load the
//! disk serves), and the service-time moments at each speed are rescaled from what the
//! disk measured at the speed it ran (`crate::service`).

use crate::scheme::{ArraySetup, ArrayView, Command, Scheme, SchemeReport};
use crate::service::moments_at;
use tierlab_hibernator_cr::{plan_speeds, DiskForecast, EpochParams, SpeedOption};

/// Request size assumed for a disk that served nothing, bytes.
pub const DEFAULT_REQUEST_BYTES: f64 = 8192.0;

/// The forecast of one disk from what it did over the last epoch.
pub fn forecast(setup: &ArraySetup, c: &crate::DiskCounters, measured_level: usize, current_level: usize, epoch_s: f64) -> DiskForecast {
    let at = &setup.speeds[measured_level.min(setup.top_level())];
    let options = setup
        .speeds
        .iter()
        .enumerate()
        .map(|(level, s)| {
            let (mean, var) = moments_at(c, at, s, setup.average_seek_s, DEFAULT_REQUEST_BYTES);
            SpeedOption { level, rpm: s.rpm, active_w: s.active_w, idle_w: s.idle_w, service_mean_s: mean, service_var_s2: var }
        })
        .collect();
    DiskForecast { arrival_rate_per_s: c.ops as f64 / epoch_s, current_level, options }
}

/// The epoch parameters of an array: its speed change and goal.
pub fn epoch_params(setup: &ArraySetup, epoch_s: f64) -> EpochParams {
    EpochParams { epoch_s, transition_s: setup.speed_change.time_s, transition_energy_j: setup.speed_change.energy_j, r_limit_s: setup.r_limit_s }
}

/// RAID_CR: CR on the executor's RAID layout.
#[derive(Clone, Debug)]
pub struct Cr {
    epoch_s: f64,
    setup: Option<ArraySetup>,
    levels: Vec<usize>,
    next_ns: u64,
    decisions: u64,
    infeasible: u64,
    predicted_mean_ms: Vec<f64>,
    notes: Vec<String>,
    /// Epochs in a row that left the disks per speed level unchanged.
    stable_epochs: u64,
}

impl Cr {
    pub fn new(epoch_s: f64) -> Cr {
        Cr { epoch_s, setup: None, levels: Vec::new(), next_ns: (epoch_s * 1e9) as u64, decisions: 0, infeasible: 0, predicted_mean_ms: Vec::new(), notes: Vec::new(), stable_epochs: 0 }
    }
}

impl Scheme for Cr {
    fn name(&self) -> String {
        "raid-cr".into()
    }
    fn start(&mut self, setup: &ArraySetup, _out: &mut Vec<Command>) {
        self.levels = vec![setup.top_level(); setup.disks];
        if setup.speed_change.time_s >= self.epoch_s {
            self.notes.push(format!("the epoch ({} s) is not longer than a speed change ({} s): CR keeps every disk at full speed", self.epoch_s, setup.speed_change.time_s));
        }
        self.setup = Some(setup.clone());
    }
    fn next_tick_ns(&self) -> Option<u64> {
        Some(self.next_ns)
    }
    fn tick(&mut self, view: &ArrayView, out: &mut Vec<Command>) {
        self.next_ns = view.now_ns + (self.epoch_s * 1e9) as u64;
        let Some(setup) = &self.setup else { return };
        let disks: Vec<DiskForecast> = (0..setup.disks)
            .map(|d| forecast(setup, &view.since_tick[d], view.status[d].level, self.levels[d], self.epoch_s))
            .collect();
        self.decisions += 1;
        let plan = match plan_speeds(&disks, &epoch_params(setup, self.epoch_s)) {
            Ok(p) => p,
            Err(e) => {
                if self.notes.len() < 8 {
                    self.notes.push(format!("epoch {}: no plan ({e}); speeds unchanged", self.decisions));
                }
                return;
            }
        };
        if !plan.feasible {
            self.infeasible += 1;
        }
        self.predicted_mean_ms.push(plan.mean_response_s * 1e3);
        let per_level = |levels: &[usize]| {
            let mut n = vec![0usize; setup.speeds.len().max(1)];
            for &l in levels {
                if let Some(c) = n.get_mut(l) {
                    *c += 1;
                }
            }
            n
        };
        if per_level(&plan.levels) == per_level(&self.levels) {
            self.stable_epochs += 1;
        } else {
            self.stable_epochs = 0;
        }
        for (disk, &level) in plan.levels.iter().enumerate() {
            if level != self.levels[disk] {
                self.levels[disk] = level;
                out.push(Command::SetSpeed { disk, level });
            }
        }
    }
    fn planned_levels(&self) -> Option<Vec<usize>> {
        Some(self.levels.clone())
    }
    fn report(&self) -> SchemeReport {
        let mut notes = self.notes.clone();
        if !self.predicted_mean_ms.is_empty() {
            let f: Vec<String> = self.predicted_mean_ms.iter().take(12).map(|m| format!("{m:.2}")).collect();
            notes.push(format!("predicted mean response per epoch (ms): {}", f.join(" ")));
        }
        SchemeReport { decisions: self.decisions, infeasible_decisions: self.infeasible, notes, stable_epochs: Some(self.stable_epochs), ..SchemeReport::default() }
    }
}
