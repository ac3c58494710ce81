//! The generator's parameters, readable from TOML, and their checks.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::schema::{Table, LARGEST_ROW_BYTES};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Parameters of [`super::TpccLog`]. Every field has a default, so a TOML table may name
/// only the ones it changes; unknown keys are rejected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TpccConfig {
    /// Warehouses (the TPC-C scale factor). Default 160, the paper's large configuration.
    pub warehouses: u32,
    /// Database page size: a power of two from 512 to 65536 that holds the largest row.
    /// Default 8192.
    pub page_bytes: u64,
    /// The primary's database buffer. Default 512 MiB, the paper's buffer.
    pub buffer_pool_bytes: u64,
    /// Transactions to generate; `None` runs without end.
    pub transactions: Option<u64>,
    /// Seed of the transaction stream and of the NURand run-time constants.
    pub seed: u64,
    /// Fixed part of every log record: what a delete costs in the log, and what an insert
    /// or update costs on top of its after-image. Default 40 (see the crate docs).
    pub log_record_header_bytes: u32,
    /// A transaction's commit record, counted into its last update record. Default 48.
    pub commit_record_bytes: u32,
    /// Extra room in the regions of the growing tables (ORDER, NEW-ORDER, ORDER-LINE,
    /// HISTORY), as a fraction of their initial rows: 1.0 sizes each region at twice its
    /// initial population. From 0 to 10. Default 1.0.
    pub growth_room: f64,
    /// The primary's circular log region: a multiple of 512 of at least 1 MiB. Default
    /// 1 GiB.
    pub log_volume_bytes: u64,
}

impl Default for TpccConfig {
    fn default() -> Self {
        TpccConfig {
            warehouses: 160,
            page_bytes: 8192,
            buffer_pool_bytes: 512 * MIB,
            transactions: None,
            seed: 0,
            log_record_header_bytes: 40,
            commit_record_bytes: 48,
            growth_room: 1.0,
            log_volume_bytes: GIB,
        }
    }
}

/// Largest accepted warehouse count: about 0.9 TB of data volume (89 MB a warehouse at
/// the defaults); construction, which sums 3000 initial orders per district, stays well
/// under a second in an optimised build.
pub const MAX_WAREHOUSES: u32 = 10_000;
/// Largest accepted per-record header and commit record.
pub const MAX_RECORD_OVERHEAD_BYTES: u32 = 4096;
/// Largest accepted growth room.
pub const MAX_GROWTH_ROOM: f64 = 10.0;
/// Smallest accepted log region: it holds the largest transaction, a Delivery of 10
/// orders of 15 lines, which logs about 22 KB with the default headers and under 760 KiB
/// with the largest accepted.
pub const MIN_LOG_VOLUME_BYTES: u64 = MIB;

/// One setting out of range: the field and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("TPC-C generator setting `{field}`: {message}")]
pub struct ConfigError {
    pub field: &'static str,
    pub message: String,
}

/// Every setting out of range in one configuration (at least one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

impl TpccConfig {
    /// Every setting out of range, each naming its field and the expected range.
    pub fn check(&self) -> Result<(), ConfigErrors> {
        let mut errors = Vec::new();
        let mut bad =
            |field: &'static str, message: String| errors.push(ConfigError { field, message });
        if !(1..=MAX_WAREHOUSES).contains(&self.warehouses) {
            bad(
                "warehouses",
                format!("expected 1 to {MAX_WAREHOUSES}, found {}", self.warehouses),
            );
        }
        if !(self.page_bytes.is_power_of_two() && (512..=65536).contains(&self.page_bytes)) {
            bad(
                "page_bytes",
                format!(
                    "expected a power of two from 512 to 65536, found {}",
                    self.page_bytes
                ),
            );
        } else if self.page_bytes < u64::from(LARGEST_ROW_BYTES) {
            bad(
                "page_bytes",
                format!(
                    "expected at least {LARGEST_ROW_BYTES} so that a {} row fits a page, found {}",
                    Table::Customer.name(),
                    self.page_bytes
                ),
            );
        }
        if self.log_record_header_bytes == 0
            || self.log_record_header_bytes > MAX_RECORD_OVERHEAD_BYTES
        {
            bad(
                "log_record_header_bytes",
                format!(
                    "expected 1 to {MAX_RECORD_OVERHEAD_BYTES}, found {}",
                    self.log_record_header_bytes
                ),
            );
        }
        if self.commit_record_bytes > MAX_RECORD_OVERHEAD_BYTES {
            bad(
                "commit_record_bytes",
                format!(
                    "expected 0 to {MAX_RECORD_OVERHEAD_BYTES}, found {}",
                    self.commit_record_bytes
                ),
            );
        }
        if !(self.growth_room.is_finite() && (0.0..=MAX_GROWTH_ROOM).contains(&self.growth_room)) {
            bad(
                "growth_room",
                format!(
                    "expected a fraction from 0 to {MAX_GROWTH_ROOM}, found {}",
                    self.growth_room
                ),
            );
        }
        if self.log_volume_bytes < MIN_LOG_VOLUME_BYTES
            || !self.log_volume_bytes.is_multiple_of(512)
        {
            bad(
                "log_volume_bytes",
                format!(
                    "expected a multiple of 512 of at least {MIN_LOG_VOLUME_BYTES}, found {}",
                    self.log_volume_bytes
                ),
            );
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errors))
        }
    }
}
