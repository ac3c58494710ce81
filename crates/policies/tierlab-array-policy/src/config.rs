//! A scheme as settings (what `tierlab array` reads from flags or a TOML `[scheme]`
//! table), and the scheme those settings build.

use crate::{Baseline, Cr, Hibernator, HibernatorParams, Drpm, DrpmParams, Guarantee, Maid, MaidParams, PdcLd, PdcParams, Scheme, Tpm};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The energy schemes tierlab implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeKind {
    /// RAID-5, every disk at full speed, never managed (the baseline).
    Raid5,
    /// Spin down after a fixed idle time.
    Tpm,
    /// DRPM's control algorithm on the RAID layout.
    RaidDrpm,
    /// CR's per-epoch speed plan on the RAID layout.
    RaidCr,
    /// Popular data concentration with load-directed speeds.
    PdcLd,
    /// Always-on cache disks in front of spinning-down data disks.
    Maid,
    /// CR over Hibernator's multi-tier layout.
    Hibernator,
}

impl SchemeKind {
    pub const ALL: [SchemeKind; 7] = [SchemeKind::Raid5, SchemeKind::Tpm, SchemeKind::RaidDrpm, SchemeKind::RaidCr, SchemeKind::PdcLd, SchemeKind::Maid, SchemeKind::Hibernator];

    pub fn as_str(self) -> &'static str {
        match self {
            SchemeKind::Raid5 => "raid5",
            SchemeKind::Tpm => "tpm",
            SchemeKind::RaidDrpm => "raid-drpm",
            SchemeKind::RaidCr => "raid-cr",
            SchemeKind::PdcLd => "pdc-ld",
            SchemeKind::Maid => "maid",
            SchemeKind::Hibernator => "hibernator",
        }
    }

    /// Whether the scheme changes disk speeds (and so needs a multi-speed disk).
    pub fn needs_speeds(self) -> bool {
        matches!(self, SchemeKind::RaidDrpm | SchemeKind::RaidCr | SchemeKind::Hibernator)
    }

    /// Whether the scheme places data itself (by relocation block) instead of the RAID
    /// geometry.
    pub fn places_data(self) -> bool {
        matches!(self, SchemeKind::PdcLd | SchemeKind::Maid | SchemeKind::Hibernator)
    }
}

impl fmt::Display for SchemeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SchemeKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SchemeKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            let known: Vec<&str> = SchemeKind::ALL.iter().map(|k| k.as_str()).collect();
            format!("unknown scheme `{s}`: expected one of {} (add `+` for the performance guarantee)", known.join(", "))
        })
    }
}

/// A scheme and its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchemeConfig {
    pub kind: SchemeKind,
    /// Add the performance guarantee (the "+" variants).
    pub guarantee: bool,
    /// The array's mean response-time goal, ms.
    pub r_limit_ms: f64,
    /// Requests the guarantee averages over (0: the whole run).
    pub guarantee_window_requests: usize,
    /// Requests the guarantee's mean must cover before it acts.
    pub guarantee_min_requests: u64,
    /// The guarantee restores the scheme's plan once the mean is below this share of
    /// R_limit (hysteresis; 1 releases as soon as the mean is under the goal).
    pub guarantee_release_fraction: f64,
    /// CR's epoch, s.
    pub epoch_s: f64,
    /// TPM's idle timeout, s (default: the break-even time).
    pub tpm_timeout_s: Option<f64>,
    pub drpm: DrpmParams,
    pub pdc: PdcParams,
    pub maid: MaidParams,
    pub hibernator: HibernatorParams,
}

impl Default for SchemeConfig {
    fn default() -> Self {
        SchemeConfig {
            kind: SchemeKind::Raid5,
            guarantee: false,
            r_limit_ms: 10.0,
            guarantee_window_requests: 0,
            guarantee_min_requests: crate::guarantee::DEFAULT_MIN_REQUESTS,
            guarantee_release_fraction: crate::guarantee::DEFAULT_RELEASE_FRACTION,
            epoch_s: 3600.0,
            tpm_timeout_s: None,
            drpm: DrpmParams::default(),
            pdc: PdcParams::default(),
            maid: MaidParams::default(),
            hibernator: HibernatorParams::default(),
        }
    }
}

impl SchemeConfig {
    /// `name` is a scheme kind, with a trailing `+` for the guarantee ("raid-drpm+").
    pub fn named(name: &str) -> Result<SchemeConfig, String> {
        let (base, guarantee) = match name.strip_suffix('+') {
            Some(b) => (b, true),
            None => (name, false),
        };
        Ok(SchemeConfig { kind: base.parse()?, guarantee, ..SchemeConfig::default() })
    }

    /// The label reports use: the kind, `+` with the guarantee.
    pub fn label(&self) -> String {
        format!("{}{}", self.kind, if self.guarantee { "+" } else { "" })
    }

    /// Settings no scheme can run with, as (key, what was expected).
    pub fn check(&self) -> Result<(), (String, String)> {
        let bad = |k: &str, e: &str| Err((k.to_string(), e.to_string()));
        if !(self.r_limit_ms.is_finite() && self.r_limit_ms > 0.0) {
            return bad("r_limit_ms", &format!("a response-time goal > 0 ms, found {}", self.r_limit_ms));
        }
        if !(self.epoch_s.is_finite() && self.epoch_s > 0.0) {
            return bad("epoch_s", &format!("an epoch > 0 s, found {}", self.epoch_s));
        }
        let f = self.guarantee_release_fraction;
        if !(f.is_finite() && f > 0.0 && f <= 1.0) {
            return bad("guarantee_release_fraction", &format!("a share of R_limit in (0, 1], found {f}"));
        }
        if let Some(t) = self.tpm_timeout_s {
            if !(t.is_finite() && t >= 0.0) {
                return bad("tpm_timeout_s", &format!("an idle timeout >= 0 s, found {t}"));
            }
        }
        let d = &self.drpm;
        if !(d.check_period_s.is_finite() && d.check_period_s > 0.0) {
            return bad("drpm.check_period_s", "a period > 0 s");
        }
        if d.window_requests == 0 {
            return bad("drpm.window_requests", "a window of at least 1 request");
        }
        if !(d.upper_tolerance.is_finite() && d.lower_tolerance.is_finite() && d.lower_tolerance <= d.upper_tolerance) {
            return bad("drpm.lower_tolerance", "finite tolerances with lower <= upper");
        }
        Ok(())
    }

    /// Disks the scheme needs beyond the array's (MAID's cache disks).
    pub fn extra_disks(&self) -> usize {
        match self.kind {
            SchemeKind::Maid => self.maid.cache_disks,
            _ => 0,
        }
    }

    /// The scheme these settings describe.
    pub fn build(&self) -> Box<dyn Scheme> {
        let base: Box<dyn Scheme> = match self.kind {
            SchemeKind::Raid5 => Box::new(Baseline),
            SchemeKind::Tpm => Box::new(Tpm::new(self.tpm_timeout_s)),
            SchemeKind::RaidDrpm => Box::new(Drpm::new(self.drpm)),
            SchemeKind::RaidCr => Box::new(Cr::new(self.epoch_s)),
            SchemeKind::PdcLd => Box::new(PdcLd::new(self.pdc)),
            SchemeKind::Maid => Box::new(Maid::new(self.maid)),
            SchemeKind::Hibernator => Box::new(Hibernator::new(self.hibernator.clone(), self.epoch_s)),
        };
        if self.guarantee {
            Box::new(Guarantee::new(base, self.r_limit_ms / 1e3, self.guarantee_window_requests).with_min_requests(self.guarantee_min_requests).with_release_fraction(self.guarantee_release_fraction))
        } else {
            base
        }
    }
}

impl Scheme for Box<dyn Scheme> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn start(&mut self, setup: &crate::ArraySetup, out: &mut Vec<crate::Command>) {
        (**self).start(setup, out)
    }
    fn next_tick_ns(&self) -> Option<u64> {
        (**self).next_tick_ns()
    }
    fn tick(&mut self, view: &crate::ArrayView, out: &mut Vec<crate::Command>) {
        (**self).tick(view, out)
    }
    fn on_response(&mut self, now_ns: u64, response_ns: u64, status: &[crate::DiskStatus], out: &mut Vec<crate::Command>) {
        (**self).on_response(now_ns, response_ns, status, out)
    }
    fn planned_levels(&self) -> Option<Vec<usize>> {
        (**self).planned_levels()
    }
    fn placement(&mut self) -> Option<&mut dyn crate::Placement> {
        (**self).placement()
    }
    fn report(&self) -> crate::SchemeReport {
        (**self).report()
    }
}
