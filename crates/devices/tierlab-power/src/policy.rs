//! The idle-timeout spin-down policy, in the model's terms ([`IdlePolicy`]) and as written
//! in a configuration file ([`IdlePolicyConfig`], seconds and a level name).

use crate::spec::PowerSpec;
use serde::{Deserialize, Serialize};
use tierlab_config::FieldError;

/// When the drive spins down by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdlePolicy {
    /// Idle time after the last activity before the drive enters standby; `None`: never.
    pub timeout_ns: Option<u64>,
    /// Index into `PowerSpec::standby` of the level entered on timeout.
    pub standby_level: usize,
}

impl IdlePolicy {
    /// The drive never spins down by itself.
    pub fn never() -> Self {
        IdlePolicy {
            timeout_ns: None,
            standby_level: 0,
        }
    }

    /// Enter standby level `standby_level` after `timeout_ns` of idleness.
    pub fn after(timeout_ns: u64, standby_level: usize) -> Self {
        IdlePolicy {
            timeout_ns: Some(timeout_ns),
            standby_level,
        }
    }
}

/// Longest timeout accepted, in seconds (a year).
const MAX_TIMEOUT_S: f64 = 365.0 * 24.0 * 3600.0;

/// The idle-timeout policy as a configuration file gives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdlePolicyConfig {
    /// Idle seconds before spinning down; absent: never.
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Name of the standby level to enter; absent: the deepest usable level.
    #[serde(default)]
    pub standby: Option<String>,
}

impl IdlePolicyConfig {
    /// The policy for a drive described by `spec`; errors name the offending key.
    pub fn resolve(&self, spec: &PowerSpec) -> Result<IdlePolicy, FieldError> {
        let Some(timeout_s) = self.timeout_s else {
            return Ok(IdlePolicy::never());
        };
        if !(timeout_s.is_finite() && (0.0..=MAX_TIMEOUT_S).contains(&timeout_s)) {
            return Err(FieldError::new(
                "timeout_s",
                format!("expected seconds between 0 and {MAX_TIMEOUT_S}, found {timeout_s}"),
            ));
        }
        let level = match &self.standby {
            Some(name) => spec.standby_index(name).ok_or_else(|| {
                let names: Vec<&str> = spec.standby.iter().map(|l| l.name.as_str()).collect();
                FieldError::new(
                    "standby",
                    format!(
                        "no standby level `{name}`; the drive has: {}",
                        names.join(", ")
                    ),
                )
            })?,
            None => spec.deepest_standby().ok_or_else(|| {
                FieldError::new(
                    "standby",
                    "the drive has no standby level with known transition costs",
                )
            })?,
        };
        if !spec.standby[level].is_usable() {
            return Err(FieldError::new(
                "standby",
                format!(
                    "standby level `{}` has unknown enter/leave costs and cannot be simulated",
                    spec.standby[level].name
                ),
            ));
        }
        Ok(IdlePolicy::after((timeout_s * 1e9).round() as u64, level))
    }
}
