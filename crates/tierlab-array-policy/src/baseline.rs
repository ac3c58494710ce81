//! The schemes that need no model: the unmanaged array and fixed-timeout spin-down.

use crate::scheme::{ArraySetup, ArrayView, Command, Scheme, SchemeReport};

/// Every disk at full speed, never managed: the baseline savings are measured against.
#[derive(Clone, Debug, Default)]
pub struct Baseline;

impl Scheme for Baseline {
    fn name(&self) -> String {
        "raid5".into()
    }
    fn start(&mut self, _setup: &ArraySetup, _out: &mut Vec<Command>) {}
    fn next_tick_ns(&self) -> Option<u64> {
        None
    }
    fn tick(&mut self, _view: &ArrayView, _out: &mut Vec<Command>) {}
}

/// Traditional power management: a disk spins down after a fixed idle time and spins up
/// when a request arrives. The default timeout is the disks' break-even time
/// ([`crate::StandbyInfo::break_even_s`]) at full speed.
#[derive(Clone, Debug, Default)]
pub struct Tpm {
    /// Idle seconds before spinning down; `None`: the break-even time.
    pub timeout_s: Option<f64>,
    notes: Vec<String>,
}

impl Tpm {
    pub fn new(timeout_s: Option<f64>) -> Tpm {
        Tpm { timeout_s, notes: Vec::new() }
    }
}

impl Scheme for Tpm {
    fn name(&self) -> String {
        "tpm".into()
    }
    fn start(&mut self, setup: &ArraySetup, out: &mut Vec<Command>) {
        let Some(standby) = setup.standby else {
            self.notes.push("the disks have no usable standby state: TPM cannot spin them down".into());
            return;
        };
        let top = setup.speeds[setup.top_level()];
        let timeout_s = self.timeout_s.unwrap_or_else(|| standby.break_even_s(top.idle_w));
        if !timeout_s.is_finite() {
            self.notes.push("standby saves no power over idle: TPM never spins down".into());
            return;
        }
        self.notes.push(format!("idle timeout {timeout_s:.2} s"));
        let timeout_ns = (timeout_s.max(0.0) * 1e9).round() as u64;
        for disk in 0..setup.disks {
            out.push(Command::IdleTimeout { disk, timeout_ns: Some(timeout_ns) });
        }
    }
    fn next_tick_ns(&self) -> Option<u64> {
        None
    }
    fn tick(&mut self, _view: &ArrayView, _out: &mut Vec<Command>) {}
    fn report(&self) -> SchemeReport {
        SchemeReport { notes: self.notes.clone(), ..SchemeReport::default() }
    }
}
