//! Extents, tiers and the errors a policy's set-up can have.

use serde::Serialize;
use std::fmt;

/// Extent sizes are multiples of this (4 KiB, the block size of the file systems on top).
pub const EXTENT_ALIGN_BYTES: u64 = 4096;
/// The largest extent size GreenDM allows (1 MiB).
pub const MAX_EXTENT_BYTES: u64 = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Ssd,
    Hdd,
}

/// The physical layout a hybrid drive is built on: extents of one size on each device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    pub extent_bytes: u64,
    pub ssd_extents: u32,
    pub hdd_extents: u32,
}

impl Geometry {
    /// Extents of `extent_bytes` over devices of the given sizes (partial extents at the
    /// ends are not used).
    pub fn new(extent_bytes: u64, ssd_bytes: u64, hdd_bytes: u64) -> Result<Self, PolicyError> {
        if extent_bytes == 0 || !extent_bytes.is_multiple_of(EXTENT_ALIGN_BYTES) || extent_bytes > MAX_EXTENT_BYTES {
            return Err(PolicyError::Param {
                name: "es",
                expected: "an extent size that is a multiple of 4 KiB, from 4 KiB to 1 MiB".into(),
                found: extent_bytes.to_string(),
            });
        }
        let count = |bytes: u64, name: &'static str| -> Result<u32, PolicyError> {
            u32::try_from(bytes / extent_bytes).map_err(|_| PolicyError::Param {
                name,
                expected: format!("at most {} extents of {extent_bytes} bytes", u32::MAX),
                found: bytes.to_string(),
            })
        };
        Ok(Geometry { extent_bytes, ssd_extents: count(ssd_bytes, "ssd_bytes")?, hdd_extents: count(hdd_bytes, "hdd_bytes")? })
    }

    pub fn ssd_bytes(&self) -> u64 {
        self.ssd_extents as u64 * self.extent_bytes
    }

    pub fn hdd_bytes(&self) -> u64 {
        self.hdd_extents as u64 * self.extent_bytes
    }

    pub fn physical_extents(&self) -> u32 {
        self.ssd_extents + self.hdd_extents
    }

    /// Physical extent `p` (SSD extents first, then HDD) as a tier and device offset.
    pub fn locate(&self, p: u32) -> (Tier, u64) {
        if p < self.ssd_extents {
            (Tier::Ssd, p as u64 * self.extent_bytes)
        } else {
            (Tier::Hdd, (p - self.ssd_extents) as u64 * self.extent_bytes)
        }
    }
}

/// A policy cannot be built with these settings, or a request is impossible.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyError {
    Param { name: &'static str, expected: String, found: String },
    UnknownParam(String),
    OutOfRange { offset_bytes: u64, len_bytes: u64, capacity_bytes: u64 },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Param { name, expected, found } => write!(f, "parameter `{name}`: expected {expected}, found {found}"),
            PolicyError::UnknownParam(name) => write!(f, "unknown parameter `{name}`"),
            PolicyError::OutOfRange { offset_bytes, len_bytes, capacity_bytes } => write!(
                f,
                "request for bytes {offset_bytes}..{} is beyond the drive's {capacity_bytes} bytes",
                offset_bytes.saturating_add(*len_bytes)
            ),
        }
    }
}

impl std::error::Error for PolicyError {}

/// Coarse time for per-extent stamps: 2^26 ns (≈ 67 ms) per tick, so a u32 covers 9 years
/// and an extent's entry stays small.
pub(crate) fn tick(now_ns: u64) -> u32 {
    (now_ns >> 26).min(u32::MAX as u64) as u32
}

pub(crate) fn ticks(ns: u64) -> u32 {
    ns.div_ceil(1 << 26).min(u32::MAX as u64) as u32
}
