//! Energy-management schemes for disk arrays, as pure decision code.
//!
//! Each scheme sees per-disk statistics and the clock the executor hands it and answers
//! with commands (set a speed, spin down or up, set an idle timeout, move data); none has
//! a clock or I/O of its own ([`Scheme`]). The simulator's executor is
//! `tierlab-array-sim`.
//!
//! | scheme | what it does |
//! |---|---|
//! | [`Baseline`] | RAID-5, every disk at full speed: the reference for savings |
//! | [`Tpm`] | spin a disk down after a fixed idle time (default: break-even) |
//! | [`Drpm`] | DRPM's control algorithm on the multi-speed disk |
//! | [`Cr`] | RAID_CR: CR's per-epoch speed plan on the RAID layout |
//! | [`PdcLd`] | popular data concentration with load-directed speeds |
//! | [`Maid`] | always-on cache disks in front of data disks that spin down |
//! | [`Hibernator`] | CR over a multi-tier layout with temperature-driven migration and shuffling |
//! | [`Guarantee`] | wraps any scheme: full speed while the mean response time exceeds R_limit |

mod baseline;
mod config;
pub mod cr;
mod drpm;
mod guarantee;
pub mod hibernator;
pub mod maid;
pub mod pdc;
mod scheme;
pub mod service;

pub use baseline::{Baseline, Tpm};
pub use config::{SchemeConfig, SchemeKind};
pub use cr::Cr;
pub use maid::{Maid, MaidParams};
pub use pdc::{PdcLd, PdcParams};
pub use drpm::{Drpm, DrpmParams};
pub use guarantee::Guarantee;
pub use hibernator::{Hibernator, HibernatorParams, ShuffleKind};
pub use scheme::*;
