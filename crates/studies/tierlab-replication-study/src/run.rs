//! One replication study: a primary and its secondary under conventional replication and
//! the chosen schemes, each scheme's saving against conventional replication. The runs are
//! `tierlab_replication_sim::compare`'s.

use anyhow::Result;
use serde::{Deserialize, Serialize};
use tierlab_replication_sim::{compare, data_standby, Comparison, DataStandby, ReplicationConfig, Scheme};

/// What a run simulates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The sites, the link, the source and the policy's settings.
    pub replication: ReplicationConfig,
    /// The schemes run besides conventional replication, which always runs (it is the
    /// reference of every saving); `conventional-pooled`, when listed, is a second
    /// reference each saving is also stated against.
    pub schemes: Vec<Scheme>,
}

impl RunConfig {
    /// What can be checked before anything is simulated: the data volume's standby level,
    /// which it returns.
    pub fn standby(&self) -> Result<DataStandby> {
        data_standby(&self.replication)
    }
}

/// What a run found: the comparison (its serde form is the report's) and the standby level
/// the data volume slept in.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    #[serde(flatten)]
    pub comparison: Comparison,
    #[serde(skip)]
    pub standby: DataStandby,
}

/// Run `cfg`: conventional replication, then each scheme on the same primary. `progress`
/// hears each run's scheme and the seconds of primary time it has simulated.
pub fn run(cfg: &RunConfig, progress: &mut dyn FnMut(&str, u64)) -> Result<RunReport> {
    let standby = cfg.standby()?;
    let comparison = compare(&cfg.replication, &cfg.schemes, progress)?;
    Ok(RunReport { comparison, standby })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_replication_sim::SourceSpec;
    use tierlab_update_stream::TpccConfig;

    /// A primary small enough to simulate in a second or two of a debug build.
    fn tiny() -> RunConfig {
        let mut replication = ReplicationConfig::default();
        replication.source = SourceSpec::Tpcc(TpccConfig { warehouses: 2, buffer_pool_bytes: 16 << 20, ..TpccConfig::default() });
        replication.primary_depth = 32;
        replication.data_disks = 4;
        replication.apply_cache_bytes = 16 << 20;
        replication.duration_s = 120.0;
        replication.warmup_s = 30.0;
        replication.window_bytes = 4 << 20;
        replication.rto_s = 45.0;
        RunConfig { replication, schemes: vec![Scheme::Proposed] }
    }

    #[test]
    fn configs_round_trip_through_json() {
        let cfg = tiny();
        let text = serde_json::to_string(&cfg).unwrap();
        assert_eq!(serde_json::from_str::<RunConfig>(&text).unwrap(), cfg);
        assert!(serde_json::from_str::<RunConfig>(r#"{"schemes": []}"#).is_err(), "the replication settings are required");
    }

    #[test]
    fn a_small_run_compares_each_scheme_with_conventional_replication() {
        let mut heard = Vec::new();
        let r = run(&tiny(), &mut |name, _| {
            if heard.last().map(String::as_str) != Some(name) {
                heard.push(name.to_string());
            }
        })
        .unwrap();
        let schemes: Vec<Scheme> = r.comparison.rows.iter().map(|row| row.run.scheme).collect();
        assert_eq!(schemes, [Scheme::Conventional, Scheme::Proposed]);
        assert_eq!(heard, ["conventional", "proposed"]);
        assert_eq!(r.comparison.rows[0].saving_total, 0.0, "conventional replication saves nothing against itself");
        assert!(r.comparison.rows.iter().all(|row| row.run.standby.level == r.standby.level));
        let json = serde_json::to_value(&r).unwrap();
        assert!(json.get("rows").is_some() && json.get("standby").is_none(), "the report's serde form is the comparison's");
    }
}
