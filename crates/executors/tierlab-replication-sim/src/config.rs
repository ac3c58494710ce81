//! What a replication run is made of: the two sites' disks, the link, the secondary's
//! scheme, and where the updates come from.

use anyhow::{anyhow, bail, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use tierlab_raid::RaidLevel;
use tierlab_replica_policy::{Defer, PlanMode, Trigger};
use tierlab_update_log::{SourceError, UpdateSource};
use tierlab_system_power::{System, SystemSpec};
use tierlab_types::{KIB, MIB};
use tierlab_update_stream::{BlockForwarding, ForwardingConfig, TpccConfig, TpccLog};

/// The paper's high-end disk and its power figures.
pub const DEFAULT_REPLICA_DISK: &str = "ibm-ultrastar-36z15";
pub const DEFAULT_REPLICA_PROFILE: &str = "replication";

/// How the primary's commits reach the secondary.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum Shipping {
    /// A commit completes once its log is durable on the secondary's log volume (RPO 0,
    /// the paper's case).
    Sync,
    /// A commit completes once durable locally, unless more than `max_lag_bytes` of
    /// shipped log is not yet durable at the secondary: then it waits until it is.
    Async { max_lag_bytes: u64 },
}

/// The link between the sites.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Link {
    /// One-way latency, s.
    pub latency_s: f64,
    /// Bytes per second; `None`: not a limit (the paper models no network).
    pub bandwidth_bytes_s: Option<f64>,
    pub shipping: Shipping,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            latency_s: 0.0,
            bandwidth_bytes_s: None,
            shipping: Shipping::Sync,
        }
    }
}

/// The secondary's way of applying shipped updates: the paper's scheme, its baseline and
/// the ablations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// The paper's baseline: each arriving update is reflected on the data volume at once,
    /// in log order (the pages an arrival touches are read if not cached, then written
    /// through); data disks always spinning.
    Conventional,
    /// Conventional replication through a write-back apply cache: pages are written only
    /// when the cache evicts them (a database's buffer pool); data disks always spinning.
    ConventionalPooled,
    /// The paper's: defer within the RTO, compact each window (fold, sort, one I/O per
    /// page, adjacent pages merged), spin the data volume down between batches.
    Proposed,
    /// Deferral and spin-down without compaction: windows applied in log order.
    DeferredOnly,
    /// Compaction without deferral: whatever has arrived is compacted and applied at once;
    /// disks always spinning.
    CompactionOnly,
    /// Conventional apply, each data disk spinning down after the break-even idle time.
    IdleTimeout,
}

impl Scheme {
    pub const ALL: [Scheme; 6] = [
        Scheme::Conventional,
        Scheme::ConventionalPooled,
        Scheme::Proposed,
        Scheme::DeferredOnly,
        Scheme::CompactionOnly,
        Scheme::IdleTimeout,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scheme::Conventional => "conventional",
            Scheme::ConventionalPooled => "conventional-pooled",
            Scheme::Proposed => "proposed",
            Scheme::DeferredOnly => "deferred-only",
            Scheme::CompactionOnly => "compaction-only",
            Scheme::IdleTimeout => "idle-timeout",
        }
    }
    pub fn defer(self) -> Defer {
        match self {
            Scheme::Proposed | Scheme::DeferredOnly => Defer::UntilRto,
            _ => Defer::Never,
        }
    }
    pub fn compacts(self) -> bool {
        matches!(self, Scheme::Proposed | Scheme::CompactionOnly)
    }
    /// Whether applied pages are written at once (every scheme but the pooled baseline):
    /// the data volume holds no dirty page between applies.
    pub fn writes_through(self) -> bool {
        self != Scheme::ConventionalPooled
    }
}

/// How a log record's change reaches its page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Redo {
    /// A row record changes part of a page, so the page is read (unless cached) before it
    /// is written: what redo of a physical row log needs.
    #[default]
    ReadModifyWrite,
    /// Pages are written without reading them first: what a log of whole page images
    /// would allow. An upper bound on the apply speed of a row log.
    Blind,
}

impl Redo {
    pub fn name(self) -> &'static str {
        match self {
            Redo::ReadModifyWrite => "read-modify-write",
            Redo::Blind => "blind",
        }
    }
}

impl std::str::FromStr for Redo {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "read-modify-write" | "rmw" => Ok(Redo::ReadModifyWrite),
            "blind" => Ok(Redo::Blind),
            _ => Err(format!(
                "unknown redo `{s}`: expected read-modify-write (rmw) or blind"
            )),
        }
    }
}

impl std::str::FromStr for Scheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Scheme::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown scheme `{s}`: expected one of {}",
                    Scheme::ALL.map(Scheme::name).join(", ")
                )
            })
    }
}

/// Where the updates come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum SourceSpec {
    /// The TPC-C-like physical log generator.
    Tpcc(TpccConfig),
    /// Physical block forwarding of a trace's writes.
    Forward {
        path: PathBuf,
        /// Pack the blocks the trace touches densely instead of laying volumes end to end.
        #[serde(default)]
        compact: bool,
    },
    /// A tierlab update log file.
    LogFile { path: PathBuf },
}

impl SourceSpec {
    /// A fresh reader of the stream (the same sequence every time).
    pub fn open(&self) -> Result<Box<dyn UpdateSource + Send>> {
        Ok(match self {
            SourceSpec::Tpcc(cfg) => {
                Box::new(TpccLog::new(cfg.clone()).map_err(|e| anyhow!("TPC-C generator: {e}"))?)
            }
            SourceSpec::Forward { path, compact } => {
                let forwarding = ForwardingConfig {
                    compact: *compact,
                    ..ForwardingConfig::default()
                };
                Box::new(
                    BlockForwarding::open(
                        path,
                        &tierlab_trace::ReadOptions::default(),
                        &forwarding,
                    )
                    .map_err(|e: SourceError| anyhow!("{e}"))?,
                )
            }
            SourceSpec::LogFile { path } => {
                Box::new(tierlab_update_log::open_log(path).map_err(|e| anyhow!("{e}"))?)
            }
        })
    }

    pub fn label(&self) -> String {
        match self {
            SourceSpec::Tpcc(c) => format!("tpcc-{}wh", c.warehouses),
            SourceSpec::Forward { path, .. } | SourceSpec::LogFile { path } => path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }
}

/// Everything of a replication run but the scheme.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReplicationConfig {
    pub source: SourceSpec,
    /// Catalog drive of both sites (the paper uses the same disks at both).
    pub disk: String,
    pub power_profile: Option<String>,
    /// The standby level the data volume sleeps in (default: the profile's deepest).
    pub standby: Option<String>,
    pub data_disks: usize,
    pub log_disks: usize,
    pub level: RaidLevel,
    pub stripe_unit_bytes: u64,
    /// Requests the primary keeps outstanding (it runs at saturation).
    pub primary_depth: u32,
    /// Primary time simulated, s.
    pub duration_s: f64,
    /// Measure the secondary from this instant on (buffer pools and estimates warm); with
    /// `measure`, the least warm-up.
    pub warmup_s: f64,
    /// Measure over whole replica cycles (`tierlab_measure::cycles`): the warm-up ends at a
    /// wake-up once the last two cycles agree, and the run stops at a wake-up once the
    /// power's 95 % interval is within 5 %, or when `duration_s` ends it. Off: measure from
    /// `warmup_s` to the end of the run.
    pub measure: bool,
    pub link: Link,
    pub rto_s: f64,
    pub rto_mode: PlanMode,
    pub trigger: Trigger,
    /// Log read, compacted and applied per window (original log bytes).
    pub window_bytes: u64,
    /// Adjacent pages merged into one write up to this size (0: one I/O per page).
    pub merge_max_bytes: u64,
    /// The secondary's apply-side page cache (the same for every scheme), bytes.
    pub apply_cache_bytes: u64,
    /// How a row record's change reaches its page (every scheme alike; forwarded blocks
    /// are always written blind).
    pub redo: Redo,
    /// Apply I/Os the secondary keeps outstanding.
    pub apply_depth: usize,
    /// Weight of the newest window in the apply-rate estimate.
    pub ewma_weight: f64,
    /// Share of the secondary's disks that hold data in the paper's reference system
    /// (IBM System p5 595: 6,400 data and 360 log disks, which the paper rounds to 94.4 %);
    /// the weighted saving uses it.
    pub data_disk_share: f64,
    /// The secondary site's controller and the enclosures that hold its data and log
    /// disks (`tierlab_system_power`): runs then also report the site's whole energy,
    /// and with `low_power = "power-down"` the data volume sleeps with its slots off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<SystemSpec>,
}

impl Default for ReplicationConfig {
    /// The paper's set-up as tierlab reads it: 160 TPC-C warehouses, 36Z15 disks at both
    /// sites (16 data + 1 log), synchronous shipping over a link that is not a limit,
    /// RTO 100 s, a 512 MiB window, the primary's 512 MiB buffer mirrored by the
    /// secondary's apply cache.
    fn default() -> Self {
        ReplicationConfig {
            source: SourceSpec::Tpcc(TpccConfig::default()),
            disk: DEFAULT_REPLICA_DISK.into(),
            power_profile: Some(DEFAULT_REPLICA_PROFILE.into()),
            standby: None,
            data_disks: 16,
            log_disks: 1,
            level: RaidLevel::Raid0,
            stripe_unit_bytes: 64 * KIB,
            primary_depth: 128,
            duration_s: 4.0 * 3600.0,
            warmup_s: 600.0,
            measure: true,
            link: Link::default(),
            rto_s: 100.0,
            rto_mode: PlanMode::Paper,
            trigger: Trigger::Backlog,
            window_bytes: 512 * MIB,
            merge_max_bytes: 256 * KIB,
            apply_cache_bytes: 512 * MIB,
            redo: Redo::ReadModifyWrite,
            apply_depth: 64,
            ewma_weight: 0.3,
            data_disk_share: 0.944,
            system: None,
        }
    }
}

impl ReplicationConfig {
    /// The secondary's system, resolved for its data and log disks (data first).
    pub fn system(&self) -> Result<Option<System>> {
        self.system
            .as_ref()
            .map(|s| {
                s.resolve_with_own_catalog(self.data_disks + self.log_disks)
                    .map_err(|e| anyhow!("the secondary's system description: {e}"))
            })
            .transpose()
    }

    /// Reject settings that cannot run, naming the field.
    pub fn check(&self) -> Result<()> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if self.data_disks == 0 || self.log_disks == 0 {
            bail!(
                "`data_disks` and `log_disks`: expected at least one disk each, found {} and {}",
                self.data_disks,
                self.log_disks
            );
        }
        if !pos(self.duration_s) {
            bail!(
                "`duration_s`: expected a positive number of seconds, found {}",
                self.duration_s
            );
        }
        if !(self.warmup_s.is_finite() && self.warmup_s >= 0.0 && self.warmup_s < self.duration_s) {
            bail!(
                "`warmup_s`: expected 0 or more and less than the duration ({} s), found {}",
                self.duration_s,
                self.warmup_s
            );
        }
        if !pos(self.rto_s) {
            bail!(
                "`rto_s`: expected a positive number of seconds, found {}",
                self.rto_s
            );
        }
        if self.window_bytes < 4096 {
            bail!(
                "`window_bytes`: expected at least 4096 bytes, found {}",
                self.window_bytes
            );
        }
        if self.primary_depth == 0 || self.apply_depth == 0 {
            bail!(
                "`primary_depth` and `apply_depth`: expected at least 1, found {} and {}",
                self.primary_depth,
                self.apply_depth
            );
        }
        if !(self.ewma_weight > 0.0 && self.ewma_weight <= 1.0) {
            bail!(
                "`ewma_weight`: expected a weight in (0, 1], found {}",
                self.ewma_weight
            );
        }
        if !(self.data_disk_share > 0.0 && self.data_disk_share < 1.0) {
            bail!(
                "`data_disk_share`: expected a share in (0, 1), found {}",
                self.data_disk_share
            );
        }
        if !(self.link.latency_s.is_finite() && self.link.latency_s >= 0.0) {
            bail!(
                "`link.latency_s`: expected 0 or more seconds, found {}",
                self.link.latency_s
            );
        }
        if let Some(b) = self.link.bandwidth_bytes_s {
            if !pos(b) {
                bail!("`link.bandwidth_bytes_s`: expected a positive rate, found {b}");
            }
        }
        Ok(())
    }
}
