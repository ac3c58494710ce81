//! `SsdSpec`: everything that describes one simulated SSD — NAND geometry, per-operation
//! timings and energies, controller SRAM, the FTL and its parameters, garbage collection
//! and wear leveling — plus validation that rejects impossible devices with the name of
//! the parameter at fault, and the quantities derived from it (capacities, SRAM needs).

use crate::error::SsdError;
use serde::{Deserialize, Serialize};
use tierlab_types::NS_PER_S;

/// Bytes one mapping entry (a physical page or block number) takes in controller SRAM.
pub const MAP_ENTRY_BYTES: u64 = 4;
/// Bytes one cached entry of DFTL's mapping table takes (logical and physical page number).
pub const CMT_ENTRY_BYTES: u64 = 8;

/// NAND organisation. Planes are the unit of parallelism (one page register each); the
/// dies of a channel share its bus.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    pub channels: u32,
    pub packages_per_channel: u32,
    pub dies_per_package: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub oob_bytes: u32,
}

/// Time per flash operation. Reads: command on the bus, array read into the plane's
/// register, data out over the bus. Programs: command and data over the bus, then the
/// array program with the bus free. The bus carries `page_bytes + oob_bytes` per page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Array read time (cell to register), without the bus transfer.
    pub page_read_ns: u64,
    /// Array program time (register to cells), without the bus transfer.
    pub page_program_ns: u64,
    pub block_erase_ns: u64,
    /// Bus time of one command/address cycle.
    pub command_ns: u64,
    /// Channel bus transfer rate.
    pub bus_bytes_per_s: u64,
    /// Relocate a page inside its plane without crossing the bus (GC and merges).
    #[serde(default)]
    pub copy_back: bool,
}

/// Energy per flash operation (whole operation including its transfer) and idle power.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Energy {
    pub page_read_j: f64,
    pub page_program_j: f64,
    pub block_erase_j: f64,
    /// Power drawn all the time by the controller and idle NAND.
    pub idle_w: f64,
}

/// Which flash translation layer the controller runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FtlKind {
    /// Ideal page-level mapping, whole map in SRAM.
    Page,
    /// Block-level mapping with one replacement block per logical block.
    Block,
    /// Block-associative sector translation: one log block per data block.
    Bast,
    /// Fully-associative sector translation: one sequential log + shared random logs.
    Fast,
    /// Demand-based page mapping with a cached mapping table.
    Dftl,
}

impl std::str::FromStr for FtlKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        FtlKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown FTL `{s}`: expected one of page, block, bast, fast, dftl"))
    }
}

impl FtlKind {
    pub const ALL: [FtlKind; 5] = [
        FtlKind::Page,
        FtlKind::Block,
        FtlKind::Bast,
        FtlKind::Fast,
        FtlKind::Dftl,
    ];
    pub fn name(self) -> &'static str {
        match self {
            FtlKind::Page => "page",
            FtlKind::Block => "block",
            FtlKind::Bast => "bast",
            FtlKind::Fast => "fast",
            FtlKind::Dftl => "dftl",
        }
    }
    /// Page-mapped FTLs share the page allocator and garbage collector.
    pub fn is_page_mapped(self) -> bool {
        matches!(self, FtlKind::Page | FtlKind::Dftl)
    }
}

/// FTL choice and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlSpec {
    pub kind: FtlKind,
    /// BAST/FAST: log blocks as a fraction of all blocks (the study uses about 3 %).
    #[serde(default = "default_log_fraction")]
    pub log_blocks_fraction: f64,
    /// DFTL: share of the cached mapping table kept in the protected LRU segment.
    #[serde(default = "default_protected_fraction")]
    pub dftl_protected_fraction: f64,
}

fn default_log_fraction() -> f64 {
    0.03
}
fn default_protected_fraction() -> f64 {
    0.5
}

/// How the garbage collector chooses the block to reclaim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Highest (1 - u) / 2u × age (Rosenblum & Ousterhout's LFS cleaner).
    CostBenefit,
    /// Uniformly random among reclaimable blocks (seeded, deterministic).
    Random,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcSpec {
    /// Page-mapped FTLs collect in a plane when its free blocks fall below this.
    pub free_block_threshold: u32,
    pub victim: VictimPolicy,
    /// Seed of the random victim policy (and of preconditioning).
    #[serde(default)]
    pub seed: u64,
}

/// Wear-leveling mode; switchable at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WearLeveling {
    /// Free blocks are reused first-in first-out.
    None,
    /// Free blocks are allocated least-erased first.
    Implicit,
    /// Implicit, plus moving cold data into worn blocks when the erase-count gap between
    /// the most and the least erased block exceeds `gap_erases`.
    Explicit,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WearSpec {
    pub mode: WearLeveling,
    /// Explicit mode: erase-count gap that triggers moving cold data.
    #[serde(default = "default_gap")]
    pub gap_erases: u32,
    /// Explicit mode: erases between two checks of the gap.
    #[serde(default = "default_check_interval")]
    pub check_interval_erases: u32,
}

fn default_gap() -> u32 {
    100
}
fn default_check_interval() -> u32 {
    64
}

/// The controller's write buffer (DRAM or SRAM holding host writes until they are
/// programmed), for drives that acknowledge a write before its NAND program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteBufferSpec {
    /// Host data the buffer holds, in whole flash pages (a partial page takes a page).
    pub bytes: u64,
    /// Controller time of a command the buffer serves (a write taken into it, a read
    /// answered from it), beyond the data's transfer over the host link.
    pub ack_ns: u64,
    /// Host link rate the buffer's data crosses at (SATA 3 Gb/s: 300 MB/s).
    pub host_bytes_per_s: u64,
}

impl WriteBufferSpec {
    /// Pages of `page_bytes` the buffer holds.
    pub fn pages(&self, page_bytes: u64) -> u64 {
        self.bytes / page_bytes.max(1)
    }

    /// Time `bytes` take on the host link.
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        link_transfer_ns(bytes, self.host_bytes_per_s)
    }
}

/// The host interface and the controller's command rate: what lies between the host
/// and the NAND. Every command crosses one serial link (SATA is half duplex: reads and
/// writes share it) as `command_ns` of protocol exchange plus its data at
/// `link_bytes_per_s`; the controller starts at most `read_iops` reads and `write_iops`
/// writes a second (its rated random 4 KiB IOPS, where the data sheet gives them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Data bytes a second the link carries, after its line coding (SATA 3 Gb/s with
    /// 8b/10b: 300 MB/s).
    pub link_bytes_per_s: u64,
    /// Link time of one command's protocol exchange beyond its data (command, status and
    /// data-frame headers, handshakes).
    pub command_ns: u64,
    /// Commands a second the controller can start: reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_iops: Option<u64>,
    /// Commands a second the controller can start: writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iops: Option<u64>,
}

impl HostSpec {
    /// Time `bytes` of data take on the link.
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        link_transfer_ns(bytes, self.link_bytes_per_s)
    }
}

/// Time `bytes` take on a link of `bytes_per_s` (rounded up; bounded so that sums of
/// such times cannot overflow).
pub(crate) fn link_transfer_ns(bytes: u64, bytes_per_s: u64) -> u64 {
    ((bytes as u128 * NS_PER_S as u128).div_ceil(bytes_per_s.max(1) as u128)).min(u64::MAX as u128 / 4) as u64
}

/// One simulated SSD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdSpec {
    pub name: String,
    pub geometry: Geometry,
    pub timing: Timing,
    pub energy: Energy,
    /// Program/erase cycles a block endures.
    pub pe_cycle_limit: u32,
    /// The maker's rated endurance in host bytes written (TBW), where published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated_endurance_bytes: Option<u64>,
    /// Fraction of physical blocks hidden from the host (spare area).
    pub over_provisioning: f64,
    /// Controller SRAM available for mapping tables.
    pub sram_bytes: u64,
    pub ftl: FtlSpec,
    pub gc: GcSpec,
    pub wear_leveling: WearSpec,
    /// The write buffer, where the drive has one: writes are acknowledged once in it and
    /// programmed in the background. `None`: every write waits for its program, as in
    /// FlashSim (the study drive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_buffer: Option<WriteBufferSpec>,
    /// The host link and the controller's command rate. `None`: neither limits the drive,
    /// as in FlashSim (the study drive; FTL comparisons drop it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostSpec>,
}

fn positive(param: &str, v: u64) -> Result<(), SsdError> {
    if v == 0 {
        return Err(SsdError::spec(param, "must be > 0"));
    }
    Ok(())
}

fn finite_nonneg(param: &str, v: f64) -> Result<(), SsdError> {
    if !v.is_finite() || v < 0.0 {
        return Err(SsdError::spec(
            param,
            format!("must be a finite number >= 0, got {v}"),
        ));
    }
    Ok(())
}

impl SsdSpec {
    /// The study's SLC drive sized so that `footprint_bytes` of data fill `occupancy` of its
    /// user capacity (at least 64 blocks per plane). `serial` makes it one channel of one
    /// die, like FlashSim's, so that block-mapped FTLs lose no plane parallelism.
    pub fn study_slc_for_footprint(footprint_bytes: u64, occupancy: f64, serial: bool, ftl: FtlKind) -> SsdSpec {
        let mut spec = SsdSpec::study_slc(1, ftl);
        if serial {
            spec.geometry.channels = 1;
            spec.geometry.dies_per_package = 1;
        }
        let per_plane_block = spec.block_bytes() as f64 * (1.0 - spec.over_provisioning) * occupancy.clamp(0.01, 1.0);
        let blocks = (footprint_bytes as f64 / per_plane_block / spec.planes() as f64).ceil() as u32 + 8;
        spec.geometry.blocks_per_plane = blocks.max(64);
        spec
    }

    /// The default device of the HybridStore/FlashSim/DFTL studies: large-block SLC,
    /// 2 KiB pages + 64 B OOB, 64 pages (128 KiB) per block, and per-operation totals of
    /// 130.9 µs / 4.72 µJ (read), 405.9 µs / 38.04 µJ (program), 1.5 ms / 527.68 µJ
    /// (erase), 10,000 P/E cycles. The totals are split into 0.3 µs command + 105.6 µs
    /// bus transfer (2,112 B at 20 MB/s) + array time (25 µs read, 300 µs program), so a
    /// lone operation takes exactly the study's time. `blocks_per_plane` sets capacity.
    pub fn study_slc(blocks_per_plane: u32, ftl: FtlKind) -> SsdSpec {
        SsdSpec {
            name: "study-slc".into(),
            geometry: Geometry {
                channels: 4,
                packages_per_channel: 1,
                dies_per_package: 2,
                planes_per_die: 1,
                blocks_per_plane,
                pages_per_block: 64,
                page_bytes: 2048,
                oob_bytes: 64,
            },
            timing: Timing {
                page_read_ns: 25_000,
                page_program_ns: 300_000,
                block_erase_ns: 1_500_000,
                command_ns: 300,
                bus_bytes_per_s: 20_000_000,
                copy_back: false,
            },
            energy: Energy {
                page_read_j: 4.72e-6,
                page_program_j: 38.04e-6,
                block_erase_j: 527.68e-6,
                idle_w: 0.0,
            },
            pe_cycle_limit: 10_000,
            rated_endurance_bytes: None,
            over_provisioning: 0.07,
            sram_bytes: u64::MAX / 4,
            ftl: FtlSpec {
                kind: ftl,
                log_blocks_fraction: 0.03,
                dftl_protected_fraction: 0.5,
            },
            gc: GcSpec {
                free_block_threshold: 3,
                victim: VictimPolicy::Greedy,
                seed: 1,
            },
            wear_leveling: WearSpec {
                mode: WearLeveling::Implicit,
                gap_erases: 100,
                check_interval_erases: 64,
            },
            write_buffer: None,
            host: None,
        }
    }

    // Products saturate so that validating an absurd geometry reports an error instead
    // of overflowing.
    pub fn planes(&self) -> u64 {
        self.planes_per_channel()
            .saturating_mul(self.geometry.channels as u64)
    }
    pub fn planes_per_channel(&self) -> u64 {
        let g = &self.geometry;
        (g.packages_per_channel as u64 * g.dies_per_package as u64)
            .saturating_mul(g.planes_per_die as u64)
    }
    pub fn total_blocks(&self) -> u64 {
        self.planes()
            .saturating_mul(self.geometry.blocks_per_plane as u64)
    }
    pub fn total_pages(&self) -> u64 {
        self.total_blocks()
            .saturating_mul(self.geometry.pages_per_block as u64)
    }
    pub fn block_bytes(&self) -> u64 {
        self.geometry.page_bytes as u64 * self.geometry.pages_per_block as u64
    }
    /// Blocks the host can address: the physical blocks less over-provisioning.
    pub fn logical_blocks(&self) -> u64 {
        ((self.total_blocks() as f64) * (1.0 - self.over_provisioning)).floor() as u64
    }
    pub fn logical_pages(&self) -> u64 {
        self.logical_blocks()
            .saturating_mul(self.geometry.pages_per_block as u64)
    }
    pub fn capacity_bytes(&self) -> u64 {
        self.logical_pages()
            .saturating_mul(self.geometry.page_bytes as u64)
    }
    /// BAST/FAST log blocks (at least 2 for FAST: one sequential, one random).
    pub fn log_blocks(&self) -> u64 {
        ((self.total_blocks() as f64) * self.ftl.log_blocks_fraction)
            .ceil()
            .max(2.0) as u64
    }
    /// DFTL mapping entries per translation page (512 for a 2 KiB page).
    pub fn entries_per_translation_page(&self) -> u64 {
        (self.geometry.page_bytes as u64 / MAP_ENTRY_BYTES).max(1)
    }
    pub fn translation_pages(&self) -> u64 {
        self.logical_pages()
            .div_ceil(self.entries_per_translation_page())
    }
    /// Time one page spends on the channel bus (data plus OOB).
    pub fn transfer_ns(&self) -> u64 {
        let bytes = self.geometry.page_bytes as u64 + self.geometry.oob_bytes as u64;
        ((bytes as u128 * 1_000_000_000u128).div_ceil(self.timing.bus_bytes_per_s.max(1) as u128))
            as u64
    }

    /// Smallest SRAM the FTL can run in, bytes.
    pub fn sram_needed_bytes(&self, kind: FtlKind) -> u64 {
        let lb = self.logical_blocks();
        let spare = self.total_blocks().saturating_sub(lb);
        let ppb = self.geometry.pages_per_block as u64;
        match kind {
            FtlKind::Page => self.logical_pages().saturating_mul(MAP_ENTRY_BYTES),
            FtlKind::Block => lb.saturating_add(spare).saturating_mul(MAP_ENTRY_BYTES),
            FtlKind::Bast | FtlKind::Fast => lb
                .saturating_add(self.log_blocks().saturating_mul(ppb))
                .saturating_mul(MAP_ENTRY_BYTES),
            FtlKind::Dftl => self
                .translation_pages()
                .saturating_mul(MAP_ENTRY_BYTES)
                .saturating_add(self.entries_per_translation_page() * CMT_ENTRY_BYTES),
        }
    }

    /// DFTL: entries the cached mapping table holds in the SRAM left after the directory.
    pub fn dftl_cmt_entries(&self) -> u64 {
        let gtd = self.translation_pages().saturating_mul(MAP_ENTRY_BYTES);
        (self.sram_bytes.saturating_sub(gtd) / CMT_ENTRY_BYTES).max(1)
    }

    /// Spare blocks the FTL needs to make progress.
    fn spare_needed_blocks(&self) -> u64 {
        let ppb = self.geometry.pages_per_block as u64;
        match self.ftl.kind {
            FtlKind::Page => self
                .planes()
                .saturating_mul(self.gc.free_block_threshold as u64 + 2),
            FtlKind::Dftl => self
                .planes()
                .saturating_mul(self.gc.free_block_threshold as u64 + 3)
                .saturating_add(self.translation_pages().div_ceil(ppb.max(1))),
            FtlKind::Block => 2,
            FtlKind::Bast | FtlKind::Fast => self.log_blocks().saturating_add(2),
        }
    }

    /// Reject impossible or inconsistent devices, naming the parameter at fault.
    pub fn validate(&self) -> Result<(), SsdError> {
        let g = &self.geometry;
        positive("geometry.channels", g.channels as u64)?;
        positive(
            "geometry.packages_per_channel",
            g.packages_per_channel as u64,
        )?;
        positive("geometry.dies_per_package", g.dies_per_package as u64)?;
        positive("geometry.planes_per_die", g.planes_per_die as u64)?;
        positive("geometry.blocks_per_plane", g.blocks_per_plane as u64)?;
        positive("geometry.pages_per_block", g.pages_per_block as u64)?;
        positive("geometry.page_bytes", g.page_bytes as u64)?;
        if g.pages_per_block > u16::MAX as u32 {
            return Err(SsdError::spec(
                "geometry.pages_per_block",
                format!("must be <= {}", u16::MAX),
            ));
        }
        if g.page_bytes as u64 > self.block_bytes() || g.pages_per_block < 2 {
            return Err(SsdError::spec(
                "geometry.pages_per_block",
                "a block must hold at least 2 pages (page larger than block)",
            ));
        }
        if g.oob_bytes >= g.page_bytes {
            return Err(SsdError::spec(
                "geometry.oob_bytes",
                "must be smaller than `page_bytes`",
            ));
        }
        // Physical page numbers are u32 with two values reserved.
        if self.total_pages() >= (u32::MAX - 2) as u64 {
            return Err(SsdError::spec(
                "geometry.blocks_per_plane",
                "more than 2^32 - 3 pages in all; use larger pages",
            ));
        }
        if self.logical_pages() >= (1u64 << 31) {
            return Err(SsdError::spec(
                "geometry.blocks_per_plane",
                "more than 2^31 logical pages; use larger pages",
            ));
        }
        positive("timing.page_read_ns", self.timing.page_read_ns)?;
        positive("timing.page_program_ns", self.timing.page_program_ns)?;
        positive("timing.block_erase_ns", self.timing.block_erase_ns)?;
        positive("timing.bus_bytes_per_s", self.timing.bus_bytes_per_s)?;
        for (param, v) in [
            ("timing.page_read_ns", self.timing.page_read_ns),
            ("timing.page_program_ns", self.timing.page_program_ns),
            ("timing.block_erase_ns", self.timing.block_erase_ns),
            ("timing.command_ns", self.timing.command_ns),
            ("timing.bus_bytes_per_s", self.transfer_ns()),
        ] {
            if v > 10 * NS_PER_S {
                return Err(SsdError::spec(param, "an operation must take at most 10 s"));
            }
        }
        finite_nonneg("energy.page_read_j", self.energy.page_read_j)?;
        finite_nonneg("energy.page_program_j", self.energy.page_program_j)?;
        finite_nonneg("energy.block_erase_j", self.energy.block_erase_j)?;
        finite_nonneg("energy.idle_w", self.energy.idle_w)?;
        positive("pe_cycle_limit", self.pe_cycle_limit as u64)?;
        if !(self.over_provisioning > 0.0 && self.over_provisioning < 0.9) {
            return Err(SsdError::spec(
                "over_provisioning",
                format!("must be in (0, 0.9), got {}", self.over_provisioning),
            ));
        }
        if !(self.ftl.log_blocks_fraction > 0.0 && self.ftl.log_blocks_fraction < 0.5) {
            return Err(SsdError::spec(
                "ftl.log_blocks_fraction",
                "must be in (0, 0.5)",
            ));
        }
        if !(self.ftl.dftl_protected_fraction >= 0.0 && self.ftl.dftl_protected_fraction < 1.0) {
            return Err(SsdError::spec(
                "ftl.dftl_protected_fraction",
                "must be in [0, 1)",
            ));
        }
        if self.gc.free_block_threshold < 1
            || self.gc.free_block_threshold as u64 * 2 > g.blocks_per_plane as u64
        {
            return Err(SsdError::spec(
                "gc.free_block_threshold",
                format!(
                    "must be in [1, blocks_per_plane / 2 = {}]",
                    g.blocks_per_plane / 2
                ),
            ));
        }
        if self.wear_leveling.check_interval_erases == 0 {
            return Err(SsdError::spec(
                "wear_leveling.check_interval_erases",
                "must be > 0",
            ));
        }
        if self.logical_blocks() == 0 {
            return Err(SsdError::spec(
                "geometry.blocks_per_plane",
                "no logical block left after over-provisioning",
            ));
        }
        let spare = self.total_blocks() - self.logical_blocks();
        let need = self.spare_needed_blocks();
        if spare < need {
            return Err(SsdError::spec(
                "over_provisioning",
                format!(
                    "{} FTL needs at least {need} spare blocks, this spec leaves {spare}",
                    self.ftl.kind.name()
                ),
            ));
        }
        if let Some(w) = &self.write_buffer {
            if w.pages(g.page_bytes as u64) == 0 || w.bytes > 1 << 40 {
                return Err(SsdError::spec(
                    "write_buffer.bytes",
                    format!(
                        "must hold at least one page ({} bytes) and at most 1 TiB; omit the section for a drive without a write buffer",
                        g.page_bytes
                    ),
                ));
            }
            if w.ack_ns > NS_PER_S {
                return Err(SsdError::spec("write_buffer.ack_ns", "must be at most 1 s"));
            }
            if !(1_000..=1_000_000_000_000).contains(&w.host_bytes_per_s) {
                return Err(SsdError::spec(
                    "write_buffer.host_bytes_per_s",
                    format!("expected 1 kB/s to 1 TB/s, got {}", w.host_bytes_per_s),
                ));
            }
        }
        if let Some(h) = &self.host {
            if !(1_000..=1_000_000_000_000).contains(&h.link_bytes_per_s) {
                return Err(SsdError::spec(
                    "host.link_bytes_per_s",
                    format!("expected 1 kB/s to 1 TB/s, got {}", h.link_bytes_per_s),
                ));
            }
            if h.command_ns > NS_PER_S / 10 {
                return Err(SsdError::spec("host.command_ns", "must be at most 100 ms"));
            }
            for (param, iops) in [("host.read_iops", h.read_iops), ("host.write_iops", h.write_iops)] {
                if iops.is_some_and(|n| !(1..=1_000_000_000).contains(&n)) {
                    return Err(SsdError::spec(
                        param,
                        format!("expected 1 to 10^9 commands a second (or no value: no limit), got {}", iops.unwrap_or(0)),
                    ));
                }
            }
            if let Some(w) = self.write_buffer.as_ref().filter(|w| w.host_bytes_per_s != h.link_bytes_per_s) {
                return Err(SsdError::spec(
                    "write_buffer.host_bytes_per_s",
                    format!(
                        "the buffer's data crosses the host link, so expected host.link_bytes_per_s ({}), got {}",
                        h.link_bytes_per_s, w.host_bytes_per_s
                    ),
                ));
            }
        }
        let sram_need = self.sram_needed_bytes(self.ftl.kind);
        if self.sram_bytes < sram_need {
            return Err(SsdError::spec(
                "sram_bytes",
                format!(
                    "{} FTL needs at least {sram_need} bytes of SRAM for its mapping tables, spec gives {}",
                    self.ftl.kind.name(),
                    self.sram_bytes
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param_of(e: SsdError) -> String {
        match e {
            SsdError::InvalidSpec { param, .. } => param,
            other => panic!("expected InvalidSpec, got {other:?}"),
        }
    }

    proptest::proptest! {
        /// Validation never panics, whatever the numbers; accepted specs are small
        /// enough to address with u32 page numbers.
        #[test]
        fn validation_never_panics(
            geo in proptest::array::uniform8(proptest::prop_oneof![0u32..4, 0u32..5000, proptest::num::u32::ANY]),
            op in proptest::prop_oneof![proptest::num::f64::ANY, 0.0f64..1.0],
            sram in proptest::num::u64::ANY,
            kind in proptest::sample::select(FtlKind::ALL.to_vec()),
        ) {
            let mut s = SsdSpec::study_slc(1, kind);
            s.geometry = Geometry {
                channels: geo[0], packages_per_channel: geo[1], dies_per_package: geo[2], planes_per_die: geo[3],
                blocks_per_plane: geo[4], pages_per_block: geo[5], page_bytes: geo[6], oob_bytes: geo[7],
            };
            s.over_provisioning = op;
            s.sram_bytes = sram;
            // Derived quantities never overflow either.
            for k in FtlKind::ALL {
                let _ = s.sram_needed_bytes(k);
            }
            let _ = (s.capacity_bytes(), s.dftl_cmt_entries(), s.transfer_ns(), s.log_blocks());
            if s.validate().is_ok() {
                proptest::prop_assert!(s.total_pages() < u32::MAX as u64);
                proptest::prop_assert!(s.logical_pages() < 1 << 31);
                proptest::prop_assert!(s.logical_blocks() > 0);
            }
        }
    }

    #[test]
    fn study_profile_times_match_the_study_totals() {
        let s = SsdSpec::study_slc(256, FtlKind::Page);
        assert!(s.validate().is_ok());
        // command + array + transfer = the study's per-operation totals.
        assert_eq!(
            s.timing.command_ns + s.timing.page_read_ns + s.transfer_ns(),
            130_900
        );
        assert_eq!(
            s.timing.command_ns + s.timing.page_program_ns + s.transfer_ns(),
            405_900
        );
        assert_eq!(s.entries_per_translation_page(), 512);
    }

    #[test]
    fn zero_blocks_names_the_parameter() {
        let mut s = SsdSpec::study_slc(256, FtlKind::Page);
        s.geometry.blocks_per_plane = 0;
        assert_eq!(
            param_of(s.validate().unwrap_err()),
            "geometry.blocks_per_plane"
        );
    }

    #[test]
    fn page_larger_than_block_names_the_parameter() {
        let mut s = SsdSpec::study_slc(256, FtlKind::Page);
        s.geometry.pages_per_block = 1;
        assert_eq!(
            param_of(s.validate().unwrap_err()),
            "geometry.pages_per_block"
        );
    }

    #[test]
    fn small_sram_names_the_parameter_for_every_ftl() {
        for kind in FtlKind::ALL {
            let mut s = SsdSpec::study_slc(256, kind);
            s.sram_bytes = s.sram_needed_bytes(kind) - 1;
            assert_eq!(
                param_of(s.validate().unwrap_err()),
                "sram_bytes",
                "{kind:?}"
            );
            s.sram_bytes += 1;
            assert!(s.validate().is_ok(), "{kind:?}");
        }
    }

    #[test]
    fn too_little_spare_for_fast_names_over_provisioning() {
        let mut s = SsdSpec::study_slc(256, FtlKind::Fast);
        s.over_provisioning = 0.02; // fewer spare blocks than the 3 % of log blocks
        assert_eq!(param_of(s.validate().unwrap_err()), "over_provisioning");
    }

    #[test]
    fn other_bad_values_name_their_parameter() {
        let mut s = SsdSpec::study_slc(256, FtlKind::Page);
        s.timing.bus_bytes_per_s = 0;
        assert_eq!(
            param_of(s.validate().unwrap_err()),
            "timing.bus_bytes_per_s"
        );
        let mut s = SsdSpec::study_slc(256, FtlKind::Page);
        s.energy.idle_w = f64::NAN;
        assert_eq!(param_of(s.validate().unwrap_err()), "energy.idle_w");
        let mut s = SsdSpec::study_slc(256, FtlKind::Page);
        s.gc.free_block_threshold = 0;
        assert_eq!(
            param_of(s.validate().unwrap_err()),
            "gc.free_block_threshold"
        );
        let mut s = SsdSpec::study_slc(256, FtlKind::Page);
        s.geometry.channels = 0;
        assert_eq!(param_of(s.validate().unwrap_err()), "geometry.channels");
    }
}
