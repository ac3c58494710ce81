//! What a policy must make durable for a real drive: its mapping, as records.
//!
//! The simulator never turns this on. The block device enables it, drains the changes a
//! call produced (`take_changes`) and writes them to its journal before acting on them, and
//! on start-up rebuilds a policy from the records it recovered (`restore`).

use crate::geometry::PolicyError;
use serde::Serialize;

/// A location meaning "not placed": an unmapped extent, or an extent not cached.
pub const NO_LOCATION: u32 = u32::MAX;

/// Where virtual extent `extent` lives now.
/// - Tiering: `location` is the physical extent (SSD extents first, then HDD).
/// - Caching: `location` is the SSD cache slot holding a copy, and `dirty` says the copy is
///   newer than the HDD's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MapRecord {
    pub extent: u32,
    pub location: u32,
    pub dirty: bool,
    /// Not persisted: the location was just handed out to an extent that had none, so it may
    /// hold stale bytes of an extent that lived there before (the executor zeroes it).
    #[serde(skip)]
    pub fresh: bool,
}

impl MapRecord {
    pub fn new(extent: u32, location: u32, dirty: bool) -> Self {
        MapRecord { extent, location, dirty, fresh: false }
    }
}

/// Pending changes, collected only while a journal is attached.
#[derive(Default)]
pub(crate) struct ChangeLog {
    on: bool,
    pending: Vec<MapRecord>,
}

impl ChangeLog {
    pub fn enable(&mut self) {
        self.on = true;
    }

    #[inline]
    pub fn note(&mut self, r: MapRecord) {
        if self.on {
            self.pending.push(r);
        }
    }

    pub fn take(&mut self, out: &mut Vec<MapRecord>) {
        out.append(&mut self.pending);
    }
}

pub(crate) fn bad_record(r: &MapRecord, expected: String) -> PolicyError {
    PolicyError::Param { name: "mapping record", expected, found: format!("extent {} at {}", r.extent, r.location) }
}
