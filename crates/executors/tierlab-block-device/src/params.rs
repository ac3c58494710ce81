//! The policy's settings as kept in the drive's checkpoints: the settings it was created
//! with, plus every `set` made while it ran (so a change survives a restart).

use crate::layout::Mode;
use crate::DriveError;
use serde::{Deserialize, Serialize};
use tierlab_cache::Algorithm;
use tierlab_hybrid_policy::{CachingParams, CachingPolicy, Geometry, Policy, TieringParams, TieringPolicy, WritePolicy};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Created {
    Tiering(TieringParams),
    Caching(CachingParams),
}

/// The knobs a drive is created with; each left out takes the policy's default. Those of
/// the other mode are ignored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Knobs {
    pub pt: Option<u32>,
    pub mcml: Option<u32>,
    pub tw_ns: Option<u64>,
    /// Tiering: the free-SSD-extent watermarks.
    pub lt: Option<u32>,
    pub ht: Option<u32>,
    /// Caching: the write policy and the replacement algorithm.
    pub write: Option<WritePolicy>,
    pub replacement: Option<Algorithm>,
}

impl Created {
    /// A new drive's policy in `mode` with `knobs`. A tiering drive reserves twice HT +
    /// MCML free HDD extents: demotions need HT + MCML, and twice that leaves room to raise
    /// HT or MCML later with `set` (the reserve is fixed at creation).
    pub fn new(mode: Mode, knobs: &Knobs) -> Created {
        match mode {
            Mode::Tiering => {
                let d = TieringParams::default();
                let (lt, ht, mcml) = (knobs.lt.unwrap_or(d.lt), knobs.ht.unwrap_or(d.ht), knobs.mcml.unwrap_or(d.mcml));
                let reserved_hdd_extents = ht.saturating_add(mcml).saturating_mul(2);
                Created::Tiering(TieringParams { pt: knobs.pt.unwrap_or(d.pt), tw_ns: knobs.tw_ns.unwrap_or(d.tw_ns), mcml, lt, ht, reserved_hdd_extents })
            }
            Mode::Caching => {
                let d = CachingParams::default();
                Created::Caching(CachingParams {
                    pt: knobs.pt.unwrap_or(d.pt),
                    tw_ns: knobs.tw_ns.unwrap_or(d.tw_ns),
                    mcml: knobs.mcml.unwrap_or(d.mcml),
                    write: knobs.write.unwrap_or(d.write),
                    replacement: knobs.replacement.unwrap_or(d.replacement),
                    writeback_queue_cap: d.writeback_queue_cap,
                })
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySettings {
    pub created: Created,
    /// Changes made since, in order (a later one for the same name replaces it).
    #[serde(default)]
    pub set: Vec<(String, f64)>,
}

impl PolicySettings {
    pub fn new(created: Created) -> Self {
        PolicySettings { created, set: Vec::new() }
    }

    pub fn mode(&self) -> Mode {
        match self.created {
            Created::Tiering(_) => Mode::Tiering,
            Created::Caching(_) => Mode::Caching,
        }
    }

    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn decode(s: &str) -> Result<Self, DriveError> {
        serde_json::from_str(s).map_err(|e| DriveError::Corrupt(format!("policy settings in the checkpoint: {e}")))
    }

    pub fn record_set(&mut self, name: &str, value: f64) {
        self.set.retain(|(n, _)| n != name);
        self.set.push((name.to_string(), value));
    }

    /// Build the policy these settings describe on `geo`.
    pub fn build(&self, geo: Geometry) -> Result<Box<dyn Policy + Send>, DriveError> {
        let perr = |e: tierlab_hybrid_policy::PolicyError| DriveError::Invalid(e.to_string());
        let mut p: Box<dyn Policy + Send> = match &self.created {
            Created::Tiering(t) => Box::new(TieringPolicy::new(geo, *t).map_err(perr)?),
            Created::Caching(c) => Box::new(CachingPolicy::new(geo, *c).map_err(perr)?),
        };
        for (name, value) in &self.set {
            p.set_param(name, *value).map_err(perr)?;
        }
        Ok(p)
    }
}
