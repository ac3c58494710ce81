//! How a block request maps onto the fixed-size objects a cache holds. Two definitions,
//! so that results can be compared with simulators that use either:
//!
//! - [`ObjectDef::Request`]: each request is one object, named by its first 512-byte
//!   sector (the `lbn` of a CloudPhysics trace), whatever its length. This is what
//!   libCacheSim does when it reads the trace's `lbn` column as the object id.
//! - [`ObjectDef::Block`]: each block of `block_bytes` that the request touches is one
//!   object, named by its block number. A 6,656-byte request at byte 4,096 touches blocks
//!   1 and 2 of 4 KiB: two objects.
//!
//! Object keys put the volume in the top 24 bits and the sector or block number in the
//! low 40, so requests to different volumes never share an object.

use crate::PlacementError;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use tierlab_types::{IoRequest, SECTOR_BYTES};

/// Bits of an object key that hold the sector or block number.
pub const INDEX_BITS: u32 = 40;
/// Bits of an object key that hold the volume.
pub const VOLUME_BITS: u32 = 24;

/// What one cached object is; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectDef {
    /// One object per request, named by its first sector.
    Request,
    /// One object per touched block of `block_bytes` (> 0).
    Block { block_bytes: u64 },
}

impl ObjectDef {
    /// 4 KiB blocks, the file-system block size.
    pub const BLOCK_4K: ObjectDef = ObjectDef::Block { block_bytes: 4096 };

    /// Checks the block size.
    pub fn validate(&self) -> Result<(), PlacementError> {
        match *self {
            ObjectDef::Block { block_bytes: 0 } => Err(PlacementError::Config {
                name: "block_bytes",
                expected: "a block size of at least 1 byte".into(),
                found: "0".into(),
            }),
            _ => Ok(()),
        }
    }

    /// The size of one object in bytes, where it has one (`None` for `Request`, whose
    /// objects are as long as their requests).
    pub fn object_bytes(&self) -> Option<u64> {
        match *self {
            ObjectDef::Request => None,
            ObjectDef::Block { block_bytes } => Some(block_bytes),
        }
    }

    /// The keys of the objects `req` touches, in address order. A zero length, or an
    /// address or volume too large for a key, is an error naming the field.
    pub fn keys(&self, req: &IoRequest) -> Result<Range<u64>, PlacementError> {
        if req.len_bytes == 0 {
            return Err(PlacementError::request("len_bytes", "a length of at least 1 byte", "0"));
        }
        let (first, last) = match *self {
            ObjectDef::Request => {
                let sector = req.offset_bytes / SECTOR_BYTES;
                (sector, sector)
            }
            ObjectDef::Block { block_bytes } => {
                let block_bytes = block_bytes.max(1);
                let end = req.offset_bytes.checked_add(req.len_bytes - 1).ok_or_else(|| {
                    PlacementError::request("len_bytes", "a request that ends within 2^64 bytes", req.len_bytes.to_string())
                })?;
                (req.offset_bytes / block_bytes, end / block_bytes)
            }
        };
        if last >> INDEX_BITS != 0 {
            return Err(PlacementError::request(
                "offset_bytes",
                format!("an address whose {} number is below 2^{INDEX_BITS}", self.unit_name()),
                req.offset_bytes.to_string(),
            ));
        }
        if u64::from(req.volume) >> VOLUME_BITS != 0 {
            return Err(PlacementError::request("volume", format!("a volume number below 2^{VOLUME_BITS}"), req.volume.to_string()));
        }
        let base = u64::from(req.volume) << INDEX_BITS;
        Ok(base | first..(base | last) + 1)
    }

    fn unit_name(&self) -> &'static str {
        match self {
            ObjectDef::Request => "sector",
            ObjectDef::Block { .. } => "block",
        }
    }
}

impl fmt::Display for ObjectDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ObjectDef::Request => f.write_str("request"),
            ObjectDef::Block { block_bytes: 4096 } => f.write_str("block"),
            ObjectDef::Block { block_bytes } => write!(f, "block:{block_bytes}"),
        }
    }
}

impl FromStr for ObjectDef {
    type Err = PlacementError;

    /// `request`, `block` (4 KiB) or `block:<bytes>`.
    fn from_str(s: &str) -> Result<Self, PlacementError> {
        let bad = || PlacementError::Config {
            name: "objects",
            expected: "`request`, `block` or `block:<bytes>`".into(),
            found: format!("`{s}`"),
        };
        let def = match s.split_once(':') {
            None if s.eq_ignore_ascii_case("request") => ObjectDef::Request,
            None if s.eq_ignore_ascii_case("block") => ObjectDef::BLOCK_4K,
            Some((b, n)) if b.eq_ignore_ascii_case("block") => {
                ObjectDef::Block { block_bytes: n.trim().parse().map_err(|_| bad())? }
            }
            _ => return Err(bad()),
        };
        def.validate()?;
        Ok(def)
    }
}
