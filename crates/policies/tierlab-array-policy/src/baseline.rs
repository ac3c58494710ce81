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
        if let Some(note) = spin_down_when_idle(setup, 0..setup.disks, self.timeout_s, out) {
            self.notes.push(note);
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

/// Give `disks` an idle timeout (`timeout_s`, or the break-even time at full speed) and
/// return the note for the report: the timeout, or why the disks never spin down.
pub(crate) fn spin_down_when_idle(setup: &ArraySetup, disks: std::ops::Range<usize>, timeout_s: Option<f64>, out: &mut Vec<Command>) -> Option<String> {
    let Some(standby) = setup.standby else {
        return Some("the disks have no usable standby state: they never spin down".into());
    };
    let top = setup.speeds.last()?;
    let timeout_s = timeout_s.unwrap_or_else(|| standby.break_even_s(top.idle_w));
    if !timeout_s.is_finite() {
        return Some("standby saves no power over idle: the disks never spin down".into());
    }
    let timeout_ns = (timeout_s.max(0.0) * 1e9).round() as u64;
    out.extend(disks.map(|disk| Command::IdleTimeout { disk, timeout_ns: Some(timeout_ns) }));
    Some(format!("idle timeout {timeout_s:.2} s"))
}
