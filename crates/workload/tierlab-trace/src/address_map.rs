//! Mapping a trace's (volume, offset) addresses onto one device's address space (a hybrid
//! drive's, an array's, a replica's data volume).

use crate::Compactor;
use std::collections::BTreeMap;
use tierlab_types::{IoRequest, MIB};

/// How a trace's (volume, offset) addresses become one device's addresses.
#[derive(Clone)]
pub enum AddressMap {
    /// Volumes end to end, each at a 1 MiB-aligned base: addresses keep their distances.
    EndToEnd { base: BTreeMap<u32, u64>, capacity_bytes: u64 },
    /// Touched chunks packed densely in address order (`Compactor`). With the chunk equal
    /// to a hybrid drive's extent size, the drive's capacity is the data the trace touches,
    /// counted in whole extents: the SSD share is then a share of that data, whatever the
    /// ES (with a coarser chunk, lazy mapping would fit all the touched small extents on
    /// the SSD).
    Compact(Compactor),
}

impl AddressMap {
    /// Learn the map from one pass over the requests.
    pub fn learn<E>(compact: bool, chunk_bytes: u64, requests: impl Iterator<Item = Result<IoRequest, E>>) -> Result<Self, E> {
        if compact {
            let mut err = None;
            let c = Compactor::build(chunk_bytes, requests.map_while(|r| r.map_err(|e| err = Some(e)).ok()));
            return match err {
                Some(e) => Err(e),
                None => Ok(AddressMap::Compact(c)),
            };
        }
        let mut ends: BTreeMap<u32, u64> = BTreeMap::new();
        for r in requests {
            let r = r?;
            let e = ends.entry(r.volume).or_default();
            *e = (*e).max(r.end_bytes());
        }
        let mut base = BTreeMap::new();
        let mut next = 0u64;
        for (v, end) in ends {
            base.insert(v, next);
            next = next.saturating_add(end.div_ceil(MIB) * MIB);
        }
        Ok(AddressMap::EndToEnd { base, capacity_bytes: next })
    }

    /// Bytes the device must expose to hold every mapped request.
    pub fn capacity_bytes(&self) -> u64 {
        match self {
            AddressMap::EndToEnd { capacity_bytes, .. } => *capacity_bytes,
            AddressMap::Compact(c) => c.footprint_bytes(),
        }
    }

    /// The request at its device address (the learning pass saw every request, so the
    /// compact map knows every chunk).
    pub fn map(&self, r: IoRequest) -> IoRequest {
        match self {
            AddressMap::EndToEnd { base, .. } => {
                IoRequest { offset_bytes: r.offset_bytes.saturating_add(base.get(&r.volume).copied().unwrap_or(0)), volume: 0, ..r }
            }
            AddressMap::Compact(c) => c.map(&r).unwrap_or(r),
        }
    }
}
