use serde::{Deserialize, Serialize};

use crate::error::{LayoutError, Result};

/// Default relocation-block size: the paper's RB-map sizing example (256 KiB).
pub const DEFAULT_RB_BYTES: u64 = 256 * 1024;
/// Default accesses per temperature update (the paper's "typically k = 10").
pub const DEFAULT_K: u32 = 10;
/// Default history factor ξ (the paper's experiments).
pub const DEFAULT_XI: f64 = 0.8;
/// Largest `k`: the per-RB access counter is 7 bits wide.
pub const MAX_K: u32 = 127;
/// Largest RB count: RB ids share the 32-bit slot code with the free/parity markers.
pub const MAX_RBS: u64 = u32::MAX as u64 - 2;
/// Default number of tiers whose parity every stripe keeps room for (a two-speed disk).
pub const DEFAULT_MAX_TIERS: u32 = 2;

/// The temperature rule (§3.2.2): after every `k` accesses to an RB,
/// `T = (1 − ξ)·T_old + ξ·k / T_last`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TemperatureParams {
    /// Accesses per update, 2..=127.
    pub k: u32,
    /// History factor ξ, in (0, 1].
    pub xi: f64,
    /// Shortest `T_last` used, in seconds (> 0): k accesses with one timestamp, or a
    /// clock that went backwards, count as this span instead of dividing by zero.
    pub min_span_s: f64,
    /// Opt-in ageing: [`crate::Layout::epoch_boundary`] multiplies every temperature by
    /// this factor in (0, 1]. `None` (the default, as in the paper): temperatures change
    /// only on accesses.
    pub epoch_decay: Option<f64>,
}

impl Default for TemperatureParams {
    fn default() -> Self {
        TemperatureParams {
            k: DEFAULT_K,
            xi: DEFAULT_XI,
            min_span_s: 1e-6,
            epoch_decay: None,
        }
    }
}

impl TemperatureParams {
    pub fn validate(&self) -> Result<()> {
        if !(2..=MAX_K).contains(&self.k) {
            return Err(LayoutError::Config(format!(
                "temperature k = {} accesses per update; expected 2..={MAX_K}",
                self.k
            )));
        }
        if !(self.xi.is_finite() && self.xi > 0.0 && self.xi <= 1.0) {
            return Err(LayoutError::Config(format!(
                "history factor xi = {}; expected a number in (0, 1]",
                self.xi
            )));
        }
        if !(self.min_span_s.is_finite() && self.min_span_s > 0.0) {
            return Err(LayoutError::Config(format!(
                "min_span_s = {}; expected a finite number of seconds > 0",
                self.min_span_s
            )));
        }
        if let Some(f) = self.epoch_decay {
            if !(f.is_finite() && f > 0.0 && f <= 1.0) {
                return Err(LayoutError::BadDecay(f));
            }
        }
        Ok(())
    }
}

/// Geometry and contents of a tiered array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutConfig {
    /// Disks in the array (≥ 2).
    pub n_disks: u32,
    /// RB slots on every disk (≥ 1); stripe `s` of a tier is slot `s` of its disks.
    pub slots_per_disk: u32,
    /// Bytes per RB (> 0); slot `s` starts at byte `s · rb_bytes` of its disk.
    pub rb_bytes: u64,
    /// Logical RBs stored (≤ [`LayoutConfig::capacity_rbs`]).
    pub n_rbs: u64,
    /// How many non-empty tiers the array must be able to form (1..=n_disks/2). Every
    /// stripe keeps room for one parity slot per tier, so at most
    /// `n_disks − max_tiers` RBs share a stripe.
    pub max_tiers: u32,
    pub temperature: TemperatureParams,
}

impl LayoutConfig {
    /// A configuration with the defaults: 256 KiB RBs, up to 2 tiers, k = 10, ξ = 0.8.
    pub fn new(n_disks: u32, slots_per_disk: u32, n_rbs: u64) -> LayoutConfig {
        LayoutConfig {
            n_disks,
            slots_per_disk,
            rb_bytes: DEFAULT_RB_BYTES,
            n_rbs,
            max_tiers: DEFAULT_MAX_TIERS,
            temperature: TemperatureParams::default(),
        }
    }

    /// Defaults, with `n_rbs = ⌊fill_factor · capacity_rbs⌋` for `fill_factor` in (0, 1].
    pub fn with_fill_factor(
        n_disks: u32,
        slots_per_disk: u32,
        fill_factor: f64,
    ) -> Result<LayoutConfig> {
        if !(fill_factor.is_finite() && fill_factor > 0.0 && fill_factor <= 1.0) {
            return Err(LayoutError::BadFillFactor(fill_factor));
        }
        let mut c = LayoutConfig::new(n_disks, slots_per_disk, 0);
        c.n_rbs = (fill_factor * c.capacity_rbs() as f64).floor() as u64;
        Ok(c)
    }

    /// RBs the array can hold: `(n_disks − max_tiers) · slots_per_disk` (0 if negative).
    pub fn capacity_rbs(&self) -> u64 {
        u64::from(self.n_disks.saturating_sub(self.max_tiers)) * u64::from(self.slots_per_disk)
    }

    /// Checks every field; the error says which one and what was expected.
    pub fn validate(&self) -> Result<()> {
        if self.n_disks < 2 {
            return Err(LayoutError::Config(format!(
                "n_disks = {}; a RAID-5 tier needs at least 2 disks",
                self.n_disks
            )));
        }
        if self.slots_per_disk == 0 {
            return Err(LayoutError::Config(
                "slots_per_disk = 0; expected at least 1 slot per disk".into(),
            ));
        }
        if self.rb_bytes == 0 {
            return Err(LayoutError::Config("rb_bytes = 0; expected > 0".into()));
        }
        if self
            .rb_bytes
            .checked_mul(u64::from(self.slots_per_disk))
            .is_none()
        {
            return Err(LayoutError::Config(format!(
                "{} slots of {} bytes overflow a 64-bit disk offset",
                self.slots_per_disk, self.rb_bytes
            )));
        }
        let cells = u64::from(self.n_disks) * u64::from(self.slots_per_disk);
        if usize::try_from(cells).is_err() {
            return Err(LayoutError::Config(format!(
                "{} disks x {} slots do not fit this machine's address space",
                self.n_disks, self.slots_per_disk
            )));
        }
        if self.max_tiers == 0 || self.max_tiers > self.n_disks / 2 {
            return Err(LayoutError::Config(format!(
                "max_tiers = {}; expected 1..={} (every tier needs at least 2 disks)",
                self.max_tiers,
                self.n_disks / 2
            )));
        }
        self.temperature.validate()?;
        if self.n_rbs > MAX_RBS {
            return Err(LayoutError::Config(format!(
                "n_rbs = {}; at most {MAX_RBS} RBs are supported",
                self.n_rbs
            )));
        }
        if self.n_rbs > self.capacity_rbs() {
            return Err(LayoutError::DoesNotFit {
                n_rbs: self.n_rbs,
                n_disks: self.n_disks,
                slots_per_disk: self.slots_per_disk,
                max_tiers: self.max_tiers,
                capacity: self.capacity_rbs(),
            });
        }
        Ok(())
    }
}
