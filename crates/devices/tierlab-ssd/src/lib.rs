//! tierlab-ssd: a FlashSim-class SSD model for the tierlab simulator.
//!
//! - [`SsdSpec`]: NAND geometry, timings, energies, SRAM, FTL, GC and wear-leveling
//!   parameters, validated with errors naming the parameter; [`catalog`] loads them from
//!   self-describing TOML files citing a source per value.
//! - [`Ssd`]: the drive as a `tierlab_engine::Device`. Requests become page operations on
//!   per-channel and per-plane busy timelines, so operations on different planes overlap,
//!   and garbage collection and merges delay the requests that trigger them. A drive with
//!   a write buffer ([`WriteBufferSpec`]) acknowledges writes from it and programs them in
//!   the background; FUA writes and FLUSH CACHE wait for the NAND. A drive with a host
//!   interface ([`HostSpec`]) moves every command's data over one link of its rate and
//!   starts no more commands a second than its controller's rated IOPS.
//! - FTLs (one file each under `ftl/`): ideal page mapping, block mapping with
//!   replacement blocks, BAST, FAST and DFTL.
//! - [`compare_ftl`]: all FTLs on one trace, one table ([`FtlComparison::to_text`] or JSON).
//!
//! Time is u64 nanoseconds, energy joules; the model is deterministic for a given seed.

mod alloc;
mod buffer;
mod bus;
pub mod catalog;
mod compare;
mod divide;
mod error;
mod flash;
mod ftl;
mod host;
mod layout;
mod mem;
mod pages;
mod replay;
mod report;
mod rng;
mod spec;
mod stamps;
mod ssd;

pub use compare::{compare_ftl, CompareOptions, FtlComparison, FtlRun, SramPolicy};
pub use error::SsdError;
pub use ftl::MergeCounts;
pub use replay::{replay, ResponseStats};
pub use report::{BlockErases, EnergySplit, PageOps, Spread, SsdReport, WriteBufferReport};
pub use spec::{
    Energy, FtlKind, FtlSpec, GcSpec, Geometry, HostSpec, SsdSpec, Timing, VictimPolicy, WearLeveling,
    WearSpec, WriteBufferSpec, CMT_ENTRY_BYTES, MAP_ENTRY_BYTES,
};
pub use ssd::{Precondition, Ssd};
