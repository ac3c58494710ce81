//! `compare_ftl`: run every FTL on the same trace with the same drive and report one
//! table (text and JSON). SRAM is sized as in the DFTL study: what FAST needs, given to
//! every FTL; an FTL that needs more (the ideal page FTL keeps its whole map) gets its
//! own minimum. The drive runs without its write buffer unless asked (FlashSim had none,
//! and a buffer hides the FTL's write costs from the response times compared), and
//! without its host interface (FlashSim had no link or controller limit: the FTLs are
//! compared on the NAND alone).

use crate::error::SsdError;
use crate::replay::{replay, ResponseStats};
use crate::report::SsdReport;
use crate::spec::{FtlKind, SsdSpec};
use crate::ssd::{Precondition, Ssd};
use serde::Serialize;
use std::fmt::Write as _;
use tierlab_types::IoRequest;

/// How much controller SRAM each FTL gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SramPolicy {
    /// `base.sram_bytes`, raised to an FTL's minimum where it is smaller.
    AsSpecified,
    /// What FAST needs for its maps, for every FTL (raised to an FTL's minimum).
    FastNeed,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareOptions {
    pub ftls: Vec<FtlKind>,
    pub sram: SramPolicy,
    pub precondition: Precondition,
    /// Replays of the trace after preconditioning and before the measured replay: ages
    /// the drive with the workload's own locality (then counters are reset).
    pub warmup_passes: u32,
    /// Keep the drive's write buffer (`SsdSpec::write_buffer`); false runs every FTL
    /// unbuffered, as FlashSim did.
    pub write_buffer: bool,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            ftls: FtlKind::ALL.to_vec(),
            sram: SramPolicy::FastNeed,
            precondition: Precondition::default(),
            warmup_passes: 0,
            write_buffer: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FtlRun {
    pub ftl: FtlKind,
    pub response: ResponseStats,
    pub ssd: SsdReport,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FtlComparison {
    pub device: String,
    pub capacity_bytes: u64,
    pub precondition: Precondition,
    pub warmup_passes: u32,
    pub runs: Vec<FtlRun>,
}

/// Run each FTL of `opts.ftls` on the requests `requests()` yields (called once per FTL,
/// each time a fresh iterator over the same trace) on a preconditioned copy of `base`.
pub fn compare_ftl<I, F>(
    mut requests: F,
    base: &SsdSpec,
    opts: &CompareOptions,
) -> Result<FtlComparison, SsdError>
where
    F: FnMut() -> I,
    I: Iterator<Item = IoRequest>,
{
    let mut runs = Vec::new();
    let fast_need = base.sram_needed_bytes(FtlKind::Fast);
    for &kind in &opts.ftls {
        let mut spec = base.clone();
        spec.ftl.kind = kind;
        let given = match opts.sram {
            SramPolicy::AsSpecified => base.sram_bytes,
            SramPolicy::FastNeed => fast_need,
        };
        spec.sram_bytes = given.max(spec.sram_needed_bytes(kind));
        spec.host = None;
        if !opts.write_buffer {
            spec.write_buffer = None;
        }
        let mut ssd = Ssd::new(spec)?;
        ssd.precondition(&opts.precondition)?;
        for _ in 0..opts.warmup_passes {
            replay(&mut ssd, requests())?;
            ssd.reset_stats();
        }
        let response = replay(&mut ssd, requests())?;
        runs.push(FtlRun {
            ftl: kind,
            response,
            ssd: ssd.ssd_report(),
        });
    }
    Ok(FtlComparison {
        device: base.name.clone(),
        capacity_bytes: base.capacity_bytes(),
        precondition: opts.precondition.clone(),
        warmup_passes: opts.warmup_passes,
        runs,
    })
}

fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.prec$}"))
}

impl FtlComparison {
    /// One row per FTL: response times (ms), page operations by purpose, erases by
    /// block kind, merges by type, write amplification, wear, lifetime and energy.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {:.2} GiB logical, preconditioned to {:.0} % + {:.2}x random overwrites + {} warm-up replay(s)",
            self.device,
            self.capacity_bytes as f64 / (1u64 << 30) as f64,
            self.precondition.occupancy * 100.0,
            self.precondition.random_overwrites,
            self.warmup_passes
        );
        let _ = writeln!(
            out,
            "{:<6} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>7} {:>7} {:>6} {:>6} {:>12} {:>10} {:>9}",
            "ftl", "sram_KiB", "mean_ms", "queue_ms", "device_ms", "p99_ms", "rd_data", "rd_gc", "rd_map", "wr_data", "wr_gc", "wr_map",
            "er_data", "er_map", "m_sw", "m_part", "m_full", "WA", "erase/blk", "life_y", "energy_J"
        );
        for r in &self.runs {
            let s = &r.ssd;
            let _ = writeln!(
                out,
                "{:<6} {:>10} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>7} {:>7} {:>6} {:>6} {:>12} {:>10} {:>9.2}",
                r.ftl.name(),
                s.sram_bytes / 1024,
                r.response.mean_ns / 1e6,
                r.response.queue.mean_ms,
                r.response.device.mean_ms,
                r.response.p99_ns as f64 / 1e6,
                s.page_reads.data,
                s.page_reads.gc,
                s.page_reads.mapping,
                s.page_writes.data,
                s.page_writes.gc,
                s.page_writes.mapping,
                s.block_erases.data,
                s.block_erases.mapping,
                s.merges.switch,
                s.merges.partial,
                s.merges.full,
                opt(s.write_amplification, 2),
                format!("{:.0}/{:.2}/{:.0}", s.erases_per_block.min, s.erases_per_block.mean, s.erases_per_block.max),
                opt(s.lifetime_years_even_wear, 1),
                s.energy.total_j,
            );
        }
        out
    }
}
