//! The reference data image: the content of the secondary's data volume, as names of
//! content rather than bytes, to check any apply order against.
//!
//! Anyone can build one from a stream of records ([`DataImage::apply_in_order`], plain
//! redo in LSN order) and from compacted batches ([`DataImage::apply_batch`]) and compare
//! the two: equal images mean byte-identical data volumes, because an update's bytes are
//! a pure function of its `value` and the byte position (see
//! [`UpdateRecord`]).
//!
//! * Log variant: each live row maps to its image `(value, len_bytes)`. Insert and update
//!   set the image, delete removes the row. These are the semantics the fold table
//!   ([`crate::fold`]) resolves anomalies towards.
//! * Block variant: each written sector maps to the write that last wrote it, `(value,
//!   origin_bytes)`; its bytes are those of that write at the sector's absolute position.
//!   A write rewrites every sector it touches (partial sectors are widened, as in the
//!   compactor).
//!
//! The image is a reference, not a fast structure: the block map holds one entry per
//! written sector.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::compact::Batch;
use crate::fold::{sector_span, SECTOR_BYTES};
use crate::record::{RecordKey, UpdateOp, UpdateRecord};

/// The image of one live row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowImage {
    pub value: u64,
    pub len_bytes: u32,
}

/// The content of one written sector: that of the write with `value` which began at
/// `origin_bytes`, at this sector's absolute position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectorImage {
    pub value: u64,
    pub origin_bytes: u64,
}

/// The content of a data volume (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataImage {
    rows: BTreeMap<RecordKey, RowImage>,
    /// Sector number → content.
    sectors: BTreeMap<u64, SectorImage>,
}

impl DataImage {
    pub fn new() -> Self {
        Self::default()
    }

    /// Live rows and their images.
    pub fn rows(&self) -> &BTreeMap<RecordKey, RowImage> {
        &self.rows
    }

    /// Written sectors (by sector number) and their content.
    pub fn sectors(&self) -> &BTreeMap<u64, SectorImage> {
        &self.sectors
    }

    /// Plain redo: apply each record in the given (log) order.
    pub fn apply_in_order(&mut self, records: &[UpdateRecord]) {
        for r in records {
            match r.op {
                UpdateOp::Insert | UpdateOp::Update => {
                    self.rows.insert(
                        r.key,
                        RowImage {
                            value: r.value,
                            len_bytes: r.len_bytes,
                        },
                    );
                }
                UpdateOp::Delete => {
                    self.rows.remove(&r.key);
                }
                UpdateOp::Write => {
                    let (start, end) = sector_span(r.addr_bytes, u64::from(r.len_bytes));
                    self.write_sectors(
                        start,
                        end,
                        SectorImage {
                            value: r.value,
                            origin_bytes: r.addr_bytes,
                        },
                    );
                }
            }
        }
    }

    /// Apply a compacted window: its row entries, then its block extents, each in the
    /// batch's order.
    pub fn apply_batch(&mut self, batch: &Batch) {
        for e in &batch.entries {
            match e.op {
                UpdateOp::Insert | UpdateOp::Update => {
                    self.rows.insert(
                        e.key,
                        RowImage {
                            value: e.value,
                            len_bytes: e.len_bytes,
                        },
                    );
                }
                UpdateOp::Delete => {
                    self.rows.remove(&e.key);
                }
                // Entries never carry block writes; nothing to do if one did.
                UpdateOp::Write => {}
            }
        }
        for x in &batch.extents {
            self.write_sectors(
                x.start_bytes,
                x.end_bytes,
                SectorImage {
                    value: x.value,
                    origin_bytes: x.origin_bytes,
                },
            );
        }
    }

    fn write_sectors(&mut self, start_bytes: u64, end_bytes: u64, content: SectorImage) {
        for sector in start_bytes / SECTOR_BYTES..end_bytes.div_ceil(SECTOR_BYTES) {
            self.sectors.insert(sector, content);
        }
    }

    /// Row keys whose image differs between `self` and `other` (present in one only, or
    /// with different images), ascending.
    pub fn changed_rows(&self, other: &DataImage) -> Vec<RecordKey> {
        let mut keys: Vec<RecordKey> = self
            .rows
            .iter()
            .filter(|(k, v)| other.rows.get(k) != Some(v))
            .map(|(k, _)| *k)
            .chain(
                other
                    .rows
                    .keys()
                    .filter(|k| !self.rows.contains_key(k))
                    .copied(),
            )
            .collect();
        keys.sort_unstable();
        keys
    }

    /// Sectors whose content differs between `self` and `other`, ascending.
    pub fn changed_sectors(&self, other: &DataImage) -> Vec<u64> {
        let mut sectors: Vec<u64> = self
            .sectors
            .iter()
            .filter(|(s, v)| other.sectors.get(s) != Some(v))
            .map(|(s, _)| *s)
            .chain(
                other
                    .sectors
                    .keys()
                    .filter(|s| !self.sectors.contains_key(s))
                    .copied(),
            )
            .collect();
        sectors.sort_unstable();
        sectors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(
        lsn: u64,
        op: UpdateOp,
        key: RecordKey,
        addr: u64,
        len: u32,
        value: u64,
    ) -> UpdateRecord {
        UpdateRecord {
            lsn,
            op,
            key,
            addr_bytes: addr,
            len_bytes: len,
            log_bytes: 1,
            value,
        }
    }

    #[test]
    fn redo_sets_removes_and_overwrites() {
        let k = RecordKey::Row {
            table: 1,
            page: 2,
            slot: 3,
        };
        let mut img = DataImage::new();
        img.apply_in_order(&[
            rec(1, UpdateOp::Insert, k, 8192, 10, 1),
            rec(2, UpdateOp::Update, k, 8192, 12, 2),
        ]);
        assert_eq!(
            img.rows().get(&k),
            Some(&RowImage {
                value: 2,
                len_bytes: 12
            })
        );
        let before = img.clone();
        img.apply_in_order(&[rec(3, UpdateOp::Delete, k, 8192, 0, 0)]);
        assert!(img.rows().is_empty());
        assert_eq!(before.changed_rows(&img), vec![k]);
        assert_eq!(img.changed_rows(&before), vec![k]);

        img.apply_in_order(&[
            rec(4, UpdateOp::Write, RecordKey::Block, 0, 1024, 7),
            rec(5, UpdateOp::Write, RecordKey::Block, 600, 10, 8),
        ]);
        let s: Vec<_> = img
            .sectors()
            .iter()
            .map(|(s, c)| (*s, c.value, c.origin_bytes))
            .collect();
        assert_eq!(s, vec![(0, 7, 0), (1, 8, 600)]);
        assert_eq!(img.changed_sectors(&DataImage::new()), vec![0, 1]);
    }
}
