//! The policy's settings as kept in the drive's checkpoints: the settings it was created
//! with, plus every `set` made while it ran (so a change survives a restart).

use crate::layout::Mode;
use crate::DriveError;
use serde::{Deserialize, Serialize};
use tierlab_hybrid_policy::{CachingParams, CachingPolicy, Geometry, Policy, TieringParams, TieringPolicy};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Created {
    Tiering(TieringParams),
    Caching(CachingParams),
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
