//! DRPM (Gurumurthi et al., ISCA 2003) as a control algorithm on a multi-speed disk, the
//! way the Hibernator study uses it.
//!
//! - Every `check_period_s`, each disk whose queue holds at most `n_min` operations
//!   steps down one speed level, unless the array controller has barred spin-downs.
//! - The controller averages host response times over windows of `window_requests`
//!   requests and compares each window with the one before: a rise of more than
//!   `upper_tolerance` sends every disk to full speed and bars spin-downs; a change below
//!   `lower_tolerance` allows them again; in between, spin-downs stay barred.
//!
//! The Hibernator paper takes these thresholds "from the original paper" without
//! printing them. The defaults here (UT 15 %, LT 5 %, windows of 250 requests, N_min 0,
//! a check every 2 s) are an estimate of the DRPM paper's settings that could not be
//! checked against its text here; every one is a setting (`docs/arrays.md`).

use crate::scheme::{ArraySetup, ArrayView, Command, DiskStatus, Scheme, SchemeReport};
use serde::{Deserialize, Serialize};

/// DRPM's settings; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DrpmParams {
    pub check_period_s: f64,
    pub n_min: u32,
    pub window_requests: u32,
    pub upper_tolerance: f64,
    pub lower_tolerance: f64,
}

impl Default for DrpmParams {
    fn default() -> Self {
        DrpmParams { check_period_s: 2.0, n_min: 0, window_requests: 250, upper_tolerance: 0.15, lower_tolerance: 0.05 }
    }
}

/// The DRPM scheme.
#[derive(Clone, Debug)]
pub struct Drpm {
    p: DrpmParams,
    levels: Vec<usize>,
    top: usize,
    next_ns: u64,
    period_ns: u64,
    spin_down_allowed: bool,
    window_sum_ns: u128,
    window_n: u32,
    previous_mean_ns: Option<f64>,
    decisions: u64,
    spin_ups_all: u64,
}

impl Drpm {
    pub fn new(p: DrpmParams) -> Drpm {
        let period_ns = (p.check_period_s.max(1e-3) * 1e9) as u64;
        Drpm { p, levels: Vec::new(), top: 0, next_ns: period_ns, period_ns, spin_down_allowed: true, window_sum_ns: 0, window_n: 0, previous_mean_ns: None, decisions: 0, spin_ups_all: 0 }
    }
}

impl Scheme for Drpm {
    fn name(&self) -> String {
        "raid-drpm".into()
    }
    fn start(&mut self, setup: &ArraySetup, _out: &mut Vec<Command>) {
        self.top = setup.top_level();
        self.levels = vec![self.top; setup.disks];
    }
    fn next_tick_ns(&self) -> Option<u64> {
        Some(self.next_ns)
    }
    fn tick(&mut self, view: &ArrayView, out: &mut Vec<Command>) {
        self.next_ns = view.now_ns + self.period_ns;
        self.decisions += 1;
        if !self.spin_down_allowed {
            return;
        }
        for (disk, st) in view.status.iter().enumerate() {
            if st.queued <= self.p.n_min && self.levels[disk] > 0 {
                self.levels[disk] -= 1;
                out.push(Command::SetSpeed { disk, level: self.levels[disk] });
            }
        }
    }
    fn on_response(&mut self, _now_ns: u64, response_ns: u64, _status: &[DiskStatus], out: &mut Vec<Command>) {
        self.window_sum_ns += u128::from(response_ns);
        self.window_n += 1;
        if self.window_n < self.p.window_requests.max(1) {
            return;
        }
        let mean = self.window_sum_ns as f64 / f64::from(self.window_n);
        self.window_sum_ns = 0;
        self.window_n = 0;
        if let Some(prev) = self.previous_mean_ns {
            let change = if prev > 0.0 { (mean - prev) / prev } else { 0.0 };
            if change > self.p.upper_tolerance {
                self.spin_down_allowed = false;
                self.spin_ups_all += 1;
                for (disk, level) in self.levels.iter_mut().enumerate() {
                    if *level != self.top {
                        *level = self.top;
                        out.push(Command::SetSpeed { disk, level: self.top });
                    }
                }
            } else {
                self.spin_down_allowed = change < self.p.lower_tolerance;
            }
        }
        self.previous_mean_ns = Some(mean);
    }
    fn planned_levels(&self) -> Option<Vec<usize>> {
        Some(self.levels.clone())
    }
    fn report(&self) -> SchemeReport {
        SchemeReport { decisions: self.decisions, notes: vec![format!("controller sent every disk to full speed {} times", self.spin_ups_all)], ..SchemeReport::default() }
    }
}
