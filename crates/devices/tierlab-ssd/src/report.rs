//! What an SSD run reports: page operations by purpose, erases by block kind, merges by
//! type, write amplification, wear spread and projected lifetime, energy by operation.

use crate::ftl::MergeCounts;
use serde::Serialize;
use std::collections::BTreeMap;

/// Page operations split by why they happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PageOps {
    /// Host data.
    pub data: u64,
    /// Garbage collection and merges.
    pub gc: u64,
    /// Mapping (DFTL translation pages).
    pub mapping: u64,
    /// Explicit wear leveling.
    pub wear_leveling: u64,
}

impl PageOps {
    pub fn from_array(a: [u64; 4]) -> Self {
        PageOps {
            data: a[0],
            gc: a[1],
            mapping: a[2],
            wear_leveling: a[3],
        }
    }
    pub fn total(&self) -> u64 {
        self.data + self.gc + self.mapping + self.wear_leveling
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BlockErases {
    pub data: u64,
    pub mapping: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct EnergySplit {
    pub page_read_j: f64,
    pub page_program_j: f64,
    pub block_erase_j: f64,
    pub idle_j: f64,
    pub total_j: f64,
}

/// What the write buffer did during a run (drives with one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WriteBufferReport {
    /// Host data it holds, in whole pages.
    pub capacity_bytes: u64,
    /// Host pages taken into the buffer.
    pub pages_admitted: u64,
    /// Host pages written over a page still waiting in the buffer (no program of their own).
    pub pages_merged: u64,
    /// Pages programmed from the buffer.
    pub pages_destaged: u64,
    /// Host pages read from the buffer.
    pub read_hit_pages: u64,
    /// Writes that waited for room in a full buffer, and how long in all.
    pub throttled_writes: u64,
    pub throttle_ns: u64,
    /// Writes with FUA (programmed before they complete, past the buffer).
    pub fua_writes: u64,
    /// Flushes (FLUSH CACHE commands; the end of a run drains the buffer without one).
    pub flushes: u64,
}

/// The SSD's own account of a measured run (after preconditioning).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SsdReport {
    pub name: String,
    pub ftl: String,
    pub capacity_bytes: u64,
    pub sram_bytes: u64,
    pub elapsed_ns: u64,
    pub host_read_requests: u64,
    pub host_write_requests: u64,
    /// Requests refused (beyond capacity, zero length) through `Device::service`.
    pub rejected_requests: u64,
    pub page_reads: PageOps,
    pub page_writes: PageOps,
    pub block_erases: BlockErases,
    pub merges: MergeCounts,
    pub copy_backs: u64,
    pub wear_leveling_moves: u64,
    /// Flash page programs per host page written (None when the host wrote nothing).
    pub write_amplification: Option<f64>,
    /// Erases per block during the run.
    pub erases_per_block: Spread,
    /// Years until the average block reaches its P/E limit at this run's erase rate,
    /// assuming perfect wear leveling (None when the run erased nothing).
    pub lifetime_years_even_wear: Option<f64>,
    /// Years until the most erased block of this run reaches its limit.
    pub lifetime_years_worst_block: Option<f64>,
    pub energy: EnergySplit,
    /// FTL-specific counts (garbage-collection runs, DFTL cache hits and misses, …).
    pub ftl_counters: BTreeMap<String, f64>,
    /// The write buffer's counts, where the drive has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_buffer: Option<WriteBufferReport>,
}

impl SsdReport {
    /// The headline numbers as flat counters (for `DeviceReport.counters`).
    pub fn headline(&self) -> BTreeMap<String, f64> {
        let mut c = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            c.insert(k.to_string(), v);
        };
        put("host_read_requests", self.host_read_requests as f64);
        put("host_write_requests", self.host_write_requests as f64);
        put("rejected_requests", self.rejected_requests as f64);
        for (prefix, ops) in [
            ("page_reads", self.page_reads),
            ("page_writes", self.page_writes),
        ] {
            put(&format!("{prefix}_data"), ops.data as f64);
            put(&format!("{prefix}_gc"), ops.gc as f64);
            put(&format!("{prefix}_mapping"), ops.mapping as f64);
            put(&format!("{prefix}_wear_leveling"), ops.wear_leveling as f64);
        }
        put("block_erases_data", self.block_erases.data as f64);
        put("block_erases_mapping", self.block_erases.mapping as f64);
        put(
            "block_erases",
            (self.block_erases.data + self.block_erases.mapping) as f64,
        );
        put("merges_switch", self.merges.switch as f64);
        put("merges_partial", self.merges.partial as f64);
        put("merges_full", self.merges.full as f64);
        if let Some(wa) = self.write_amplification {
            put("write_amplification", wa);
        }
        put("erases_per_block_min", self.erases_per_block.min);
        put("erases_per_block_mean", self.erases_per_block.mean);
        put("erases_per_block_max", self.erases_per_block.max);
        if let Some(y) = self.lifetime_years_even_wear {
            put("lifetime_years_even_wear", y);
        }
        if let Some(y) = self.lifetime_years_worst_block {
            put("lifetime_years_worst_block", y);
        }
        for (k, v) in &self.ftl_counters {
            put(k, *v);
        }
        if let Some(w) = &self.write_buffer {
            for (k, v) in [
                ("write_buffer_bytes", w.capacity_bytes),
                ("write_buffer_pages_admitted", w.pages_admitted),
                ("write_buffer_pages_merged", w.pages_merged),
                ("write_buffer_pages_destaged", w.pages_destaged),
                ("write_buffer_read_hit_pages", w.read_hit_pages),
                ("write_buffer_throttled_writes", w.throttled_writes),
                ("write_buffer_throttle_ns", w.throttle_ns),
                ("write_buffer_fua_writes", w.fua_writes),
                ("write_buffer_flushes", w.flushes),
            ] {
                put(k, v as f64);
            }
        }
        c
    }
}
