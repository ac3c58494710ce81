//! Log folding: coalescing the updates of one window that touch the same record into one
//! net update, so that the record is written once instead of once per update.
//!
//! # Log variant: one net entry per row key
//!
//! Records with an `Insert`, `Update` or `Delete` op are grouped by their [`RecordKey`]
//! and folded left to right, in the order they appear in the window (the log's order).
//! The net effect of a key is combined with each incoming record by this table (rows:
//! the net effect so far; columns: the incoming record; `d` is the incoming image):
//!
//! | net so far \ incoming | Insert(d)              | Update(d)              | Delete               |
//! |-----------------------|------------------------|------------------------|----------------------|
//! | none                  | Insert(d)              | Update(d)              | Delete               |
//! | Insert                | Insert(d) — anomaly    | Insert(d)              | cancel: nothing left |
//! | Update                | Update(d) — anomaly    | Update(d)              | Delete               |
//! | Delete                | Update(d)              | Update(d) — anomaly    | Delete — anomaly     |
//!
//! * Insert then updates fold into one insert of the last image: the paper's example,
//!   insert(data1), update(data1 → data2), update(data2 → data3) becomes insert(data3).
//! * Insert then delete leaves nothing to apply: the row did not exist before the insert
//!   and does not exist after the delete. A later record for the same key starts afresh
//!   from "none".
//! * Delete then insert is a slot reused within the window: the row existed before the
//!   window and exists after it with the insert's image, so the net effect is an update.
//! * The anomalies (insert into a live row, update or delete of a deleted row) cannot
//!   occur in a consistent physical log. They are counted, and resolved so that the final
//!   image equals the one plain redo would leave ([`crate::DataImage::apply_in_order`]:
//!   insert and update set the image, delete removes it).
//!
//! Every net entry keeps the largest LSN it absorbed and how many records it absorbed.
//!
//! **Precondition for exactness.** Cancelling insert + delete is exact when the insert was
//! into a free slot, which a consistent log guarantees. If an insert hit a row that was
//! already live before the window, plain redo ends with the row gone while the cancelled
//! pair leaves it in place; such a log is inconsistent anyway, and within a single window
//! the anomaly counter flags every case the window can see.
//!
//! # Block variant: last writer wins per sector
//!
//! `Write` records are forwarded block writes. Their identity is the bytes they cover, and
//! writes overlap partially, so they are folded in an interval map ([`ExtentMap`]) of
//! non-overlapping extents: a newer write replaces the overlapped parts of older extents,
//! which are trimmed or split. Because a write's content at absolute byte position `p` is
//! a function of `(value, p)` (see [`UpdateRecord`]), a surviving fragment of an older
//! write still holds that write's bytes without any copying; each extent also remembers
//! the address at which its write started (`origin_bytes`) so that a reader who defines
//! content relative to the write's start can reconstruct it too.
//!
//! Writes are widened to whole sectors ([`SECTOR_BYTES`]): a disk writes whole sectors,
//! and both the compactor and the reference image ([`crate::DataImage`]) treat a write as
//! rewriting every sector it touches, so the two agree even on unaligned input (the log
//! file format rejects unaligned writes).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use tierlab_keymap::KeyMap;
use serde::{Deserialize, Serialize};

use crate::record::{RecordKey, UpdateOp, UpdateRecord};

/// The grain of block-variant folding: one disk sector.
pub const SECTOR_BYTES: u64 = 512;

/// A row operation: the ops the log variant folds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowOp {
    Insert,
    Update,
    Delete,
}

impl RowOp {
    /// The row op of an update op; `None` for a block `Write`.
    pub fn from_update_op(op: UpdateOp) -> Option<RowOp> {
        match op {
            UpdateOp::Insert => Some(RowOp::Insert),
            UpdateOp::Update => Some(RowOp::Update),
            UpdateOp::Delete => Some(RowOp::Delete),
            UpdateOp::Write => None,
        }
    }

    pub fn to_update_op(self) -> UpdateOp {
        match self {
            RowOp::Insert => UpdateOp::Insert,
            RowOp::Update => UpdateOp::Update,
            RowOp::Delete => UpdateOp::Delete,
        }
    }
}

/// The result of folding one incoming record into a key's net effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldRule {
    /// The new net op, carrying the incoming record's image; `None`: the net effect
    /// cancels out and nothing is applied for the key.
    pub result: Option<RowOp>,
    /// The combination cannot happen in a consistent log (counted, still resolved).
    pub anomaly: bool,
}

/// The fold table of the module doc: the net op after `incoming` meets the net effect
/// `existing` (`None`: the key has no net effect yet in this window).
pub fn fold_rule(existing: Option<RowOp>, incoming: RowOp) -> FoldRule {
    use RowOp::{Delete as D, Insert as I, Update as U};
    let (result, anomaly) = match (existing, incoming) {
        (None, op) => (Some(op), false),
        (Some(I), I) => (Some(I), true),
        (Some(I), U) => (Some(I), false),
        (Some(I), D) => (None, false),
        (Some(U), I) => (Some(U), true),
        (Some(U), U) => (Some(U), false),
        (Some(U), D) => (Some(D), false),
        (Some(D), I) => (Some(U), false),
        (Some(D), U) => (Some(U), true),
        (Some(D), D) => (Some(D), true),
    };
    FoldRule { result, anomaly }
}

/// The net update of one row key after folding (or one record itself, unfolded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetEntry {
    /// `Insert`, `Update` or `Delete`.
    pub op: UpdateOp,
    pub key: RecordKey,
    /// The first byte of the row's page on the data volume (from the newest record).
    pub addr_bytes: u64,
    /// The final image's length; 0 for a delete.
    pub len_bytes: u32,
    /// The final image's content name (see [`UpdateRecord::value`]).
    pub value: u64,
    /// The largest LSN among the records folded into this entry.
    pub max_lsn: u64,
    /// How many records were folded into this entry (1: not folded).
    pub folded: u32,
}

impl NetEntry {
    /// One record as an unfolded entry; `None` for a block write.
    pub fn from_record(record: &UpdateRecord) -> Option<NetEntry> {
        RowOp::from_update_op(record.op)?;
        Some(NetEntry {
            op: record.op,
            key: record.key,
            addr_bytes: record.addr_bytes,
            len_bytes: if record.op == UpdateOp::Delete {
                0
            } else {
                record.len_bytes
            },
            value: record.value,
            max_lsn: record.lsn,
            folded: 1,
        })
    }
}

#[derive(Clone, Copy, Debug)]
struct RowSlot {
    /// `None`: the key's records cancelled out (so far).
    op: Option<RowOp>,
    entry: NetEntry,
    /// Position in the window of the record that first touched the key.
    first_seq: usize,
}

/// A row key as one number, where its fields fit (table below 2^8, page below 2^40):
/// the key of [`RowFolder`]'s fast index.
fn packed_key(key: &RecordKey) -> Option<u64> {
    match *key {
        RecordKey::Row { table, page, slot } if table < 1 << 8 && page < 1 << 40 => {
            Some(u64::from(table) << 56 | page << 16 | u64::from(slot))
        }
        _ => None,
    }
}

/// Folds the row records of one window. Reusable: [`RowFolder::clear`] keeps the
/// allocations.
#[derive(Debug, Default)]
pub struct RowFolder {
    /// The slot of each key that packs into a number ([`packed_key`]): a table whose
    /// entries the caller can ask to be loaded ahead ([`RowFolder::prefetch`]).
    packed: KeyMap,
    /// The slot of each other key.
    index: FxHashMap<RecordKey, usize>,
    slots: Vec<RowSlot>,
    anomalies: u64,
    cancelled: u64,
}

impl RowFolder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.packed.clear();
        self.index.clear();
        self.slots.clear();
        self.anomalies = 0;
        self.cancelled = 0;
    }

    /// Fold one record in; `seq` is its position in the window. Block writes are ignored
    /// (they belong to [`ExtentMap`]).
    pub fn push(&mut self, seq: usize, record: &UpdateRecord) {
        let Some(incoming) = RowOp::from_update_op(record.op) else {
            return;
        };
        let Some(fresh) = NetEntry::from_record(record) else {
            return;
        };
        let new_slot = RowSlot {
            op: None,
            entry: fresh,
            first_seq: seq,
        };
        let next = self.slots.len();
        let slot_index = match packed_key(&record.key) {
            // Slot numbers stay below the fast index's limit of u32::MAX.
            Some(k) if next < u32::MAX as usize => {
                let (i, found) = self.packed.insert_with(k, || next as u32);
                if !found {
                    self.slots.push(new_slot);
                }
                i as usize
            }
            _ => *self.index.entry(record.key).or_insert_with(|| {
                self.slots.push(new_slot);
                next
            }),
        };
        let Some(slot) = self.slots.get_mut(slot_index) else {
            return;
        };
        let rule = fold_rule(slot.op, incoming);
        if rule.anomaly {
            self.anomalies += 1;
        }
        let absorbed = if slot.op.is_some() {
            slot.entry.folded
        } else {
            0
        };
        match rule.result {
            None => {
                self.cancelled += u64::from(absorbed) + 1;
                slot.op = None;
                slot.entry.folded = 0;
            }
            Some(op) => {
                slot.op = Some(op);
                slot.entry = NetEntry {
                    op: op.to_update_op(),
                    max_lsn: if absorbed > 0 {
                        fresh.max_lsn.max(slot.entry.max_lsn)
                    } else {
                        fresh.max_lsn
                    },
                    folded: absorbed.saturating_add(1),
                    ..fresh
                };
            }
        }
    }

    /// Start loading the index entry `record` will be folded through (a hint, for a
    /// caller that pushes records in a known order: no state changes).
    #[inline]
    pub fn prefetch(&self, record: &UpdateRecord) {
        if let Some(k) = packed_key(&record.key) {
            self.packed.prefetch(k);
        }
    }

    /// Anomalous combinations met since the last clear.
    pub fn anomalies(&self) -> u64 {
        self.anomalies
    }

    /// Records whose effect cancelled out (an insert, its later updates, and the delete
    /// that removed the row again) since the last clear.
    pub fn cancelled(&self) -> u64 {
        self.cancelled
    }

    /// The surviving net entries with the window position of their key's first record,
    /// in first-touch order.
    pub fn entries(&self) -> impl Iterator<Item = (usize, NetEntry)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.op.is_some())
            .map(|s| (s.first_seq, s.entry))
    }
}

/// A surviving piece of a block write: bytes `start_bytes .. end_bytes` hold the content
/// of the write with `value` (which started at `origin_bytes` and had LSN `lsn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockExtent {
    pub start_bytes: u64,
    pub end_bytes: u64,
    pub value: u64,
    pub lsn: u64,
    /// Where the original write began (its `addr_bytes`, before sector widening).
    pub origin_bytes: u64,
}

impl BlockExtent {
    pub fn len_bytes(&self) -> u64 {
        self.end_bytes.saturating_sub(self.start_bytes)
    }
}

/// The sector-aligned byte range `[start, end)` a block write of `len_bytes` at
/// `addr_bytes` rewrites: widened outwards to whole sectors; empty for a zero length.
pub fn sector_span(addr_bytes: u64, len_bytes: u64) -> (u64, u64) {
    let start = addr_bytes - addr_bytes % SECTOR_BYTES;
    if len_bytes == 0 {
        return (start, start);
    }
    let last_sector_start = {
        let last_byte = addr_bytes.saturating_add(len_bytes - 1);
        last_byte - last_byte % SECTOR_BYTES
    };
    // The end of the last sector; at the very top of the address space stop at the last
    // whole sector boundary rather than overflow.
    let end = last_sector_start
        .checked_add(SECTOR_BYTES)
        .unwrap_or(last_sector_start);
    (start, end)
}

#[derive(Clone, Copy, Debug)]
struct Ext {
    end: u64,
    value: u64,
    lsn: u64,
    origin: u64,
    seq: usize,
}

/// An interval map of non-overlapping byte extents, newest write wins. Reusable across
/// windows ([`ExtentMap::clear`]).
#[derive(Debug, Default)]
pub struct ExtentMap {
    map: BTreeMap<u64, Ext>,
}

impl ExtentMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Surviving extents.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Apply a block write (widened to whole sectors); `seq` is its position in the
    /// window. Later calls win over earlier ones where they overlap.
    pub fn write(&mut self, seq: usize, record: &UpdateRecord) {
        let (start, end) = sector_span(record.addr_bytes, u64::from(record.len_bytes));
        self.insert(
            start,
            end,
            Ext {
                end,
                value: record.value,
                lsn: record.lsn,
                origin: record.addr_bytes,
                seq,
            },
        );
    }

    fn insert(&mut self, start: u64, end: u64, new: Ext) {
        if start >= end {
            return;
        }
        // An extent that begins before `start` and reaches into the new one: trim it, and
        // keep its tail if it also reaches past `end`.
        if let Some((_, old)) = self.map.range_mut(..start).next_back() {
            if old.end > start {
                let old_copy = *old;
                old.end = start;
                if old_copy.end > end {
                    self.map.insert(end, old_copy);
                }
            }
        }
        // Extents that begin inside the new one: drop them, keeping any tail past `end`.
        while let Some((&s, &old)) = self.map.range(start..end).next() {
            self.map.remove(&s);
            if old.end > end {
                self.map.insert(end, old);
            }
        }
        self.map.insert(start, new);
    }

    /// The surviving extents in address order, with the window position of the write
    /// each came from.
    pub fn extents(&self) -> impl Iterator<Item = (usize, BlockExtent)> + '_ {
        self.map.iter().map(|(&start, e)| {
            (
                e.seq,
                BlockExtent {
                    start_bytes: start,
                    end_bytes: e.end,
                    value: e.value,
                    lsn: e.lsn,
                    origin_bytes: e.origin,
                },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(lsn: u64, op: UpdateOp, slot: u16, value: u64) -> UpdateRecord {
        UpdateRecord {
            lsn,
            op,
            key: RecordKey::Row {
                table: 1,
                page: 3,
                slot,
            },
            addr_bytes: 3 * 4096,
            len_bytes: if op == UpdateOp::Delete {
                0
            } else {
                100 + lsn as u32
            },
            log_bytes: 50,
            value,
        }
    }

    /// Keys whose fields do not all fit the packed index go to the other one; keys
    /// that differ only above the packed fields' widths stay apart.
    #[test]
    fn keys_too_wide_to_pack_fold_apart_from_those_that_pack() {
        let keys = [
            (0u16, 5u64, 1u16),
            (0, 5 + (1 << 40), 1),
            (256, 5, 1),
            (1, 5, 1),
            (0, (1 << 40) - 1, u16::MAX),
            (255, 0, 0),
        ];
        let rec = |lsn: u64, op: UpdateOp, (table, page, slot): (u16, u64, u16)| UpdateRecord {
            lsn,
            op,
            key: RecordKey::Row { table, page, slot },
            addr_bytes: page.wrapping_mul(4096),
            len_bytes: 10,
            log_bytes: 50,
            value: lsn,
        };
        let mut f = RowFolder::new();
        let mut lsn = 0;
        for round in 0..3 {
            for (i, &k) in keys.iter().enumerate() {
                lsn += 1;
                let op = if round == 0 { UpdateOp::Insert } else { UpdateOp::Update };
                let r = rec(lsn, op, k);
                f.prefetch(&r);
                f.push(i + round * keys.len(), &r);
            }
        }
        let entries: Vec<_> = f.entries().collect();
        assert_eq!(entries.len(), keys.len());
        for ((first_seq, e), (i, &k)) in entries.iter().zip(keys.iter().enumerate()) {
            assert_eq!(*first_seq, i);
            assert_eq!(e.key, rec(0, UpdateOp::Insert, k).key);
            assert_eq!((e.op, e.folded), (UpdateOp::Insert, 3));
            assert_eq!(e.max_lsn, (2 * keys.len() + i + 1) as u64);
        }
        assert_eq!(f.anomalies(), 0);
        f.clear();
        f.push(0, &rec(1, UpdateOp::Update, keys[0]));
        assert_eq!(f.entries().count(), 1);
        assert_eq!(f.entries().next().unwrap().1.folded, 1);
    }

    fn write(lsn: u64, addr: u64, len: u32, value: u64) -> UpdateRecord {
        UpdateRecord {
            lsn,
            op: UpdateOp::Write,
            key: RecordKey::Block,
            addr_bytes: addr,
            len_bytes: len,
            log_bytes: len,
            value,
        }
    }

    #[test]
    fn table_matches_the_recommended_rules() {
        use RowOp::{Delete as D, Insert as I, Update as U};
        let cases = [
            (None, I, Some(I), false),
            (None, U, Some(U), false),
            (None, D, Some(D), false),
            (Some(I), I, Some(I), true),
            (Some(I), U, Some(I), false),
            (Some(I), D, None, false),
            (Some(U), I, Some(U), true),
            (Some(U), U, Some(U), false),
            (Some(U), D, Some(D), false),
            (Some(D), I, Some(U), false),
            (Some(D), U, Some(U), true),
            (Some(D), D, Some(D), true),
        ];
        for (existing, incoming, result, anomaly) in cases {
            assert_eq!(
                fold_rule(existing, incoming),
                FoldRule { result, anomaly },
                "{existing:?} + {incoming:?}"
            );
        }
    }

    #[test]
    fn insert_update_update_folds_into_one_insert_of_the_last_image() {
        let mut f = RowFolder::new();
        f.push(0, &row(10, UpdateOp::Insert, 1, 111));
        f.push(1, &row(11, UpdateOp::Update, 1, 222));
        f.push(2, &row(12, UpdateOp::Update, 1, 333));
        let entries: Vec<_> = f.entries().collect();
        assert_eq!(entries.len(), 1);
        let (first, e) = entries[0];
        assert_eq!(first, 0);
        assert_eq!(e.op, UpdateOp::Insert);
        assert_eq!(e.value, 333);
        assert_eq!(e.len_bytes, 112);
        assert_eq!(e.max_lsn, 12);
        assert_eq!(e.folded, 3);
        assert_eq!((f.anomalies(), f.cancelled()), (0, 0));
    }

    #[test]
    fn insert_then_delete_cancels_and_a_later_insert_starts_afresh() {
        let mut f = RowFolder::new();
        f.push(0, &row(1, UpdateOp::Insert, 1, 5));
        f.push(1, &row(2, UpdateOp::Update, 1, 6));
        f.push(2, &row(3, UpdateOp::Delete, 1, 0));
        assert_eq!(f.entries().count(), 0);
        assert_eq!(f.cancelled(), 3);
        f.push(3, &row(4, UpdateOp::Insert, 1, 7));
        let e: Vec<_> = f.entries().map(|(_, e)| e).collect();
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0].op, e[0].value, e[0].folded, e[0].max_lsn),
            (UpdateOp::Insert, 7, 1, 4)
        );
    }

    #[test]
    fn delete_then_insert_is_an_update_and_anomalies_are_counted() {
        let mut f = RowFolder::new();
        f.push(0, &row(1, UpdateOp::Delete, 1, 0));
        f.push(1, &row(2, UpdateOp::Insert, 1, 9));
        f.push(2, &row(3, UpdateOp::Insert, 2, 1));
        f.push(3, &row(4, UpdateOp::Insert, 2, 2)); // I+I anomaly
        f.push(4, &row(5, UpdateOp::Delete, 3, 0));
        f.push(5, &row(6, UpdateOp::Delete, 3, 0)); // D+D anomaly
        let e: Vec<_> = f.entries().map(|(_, e)| e).collect();
        assert_eq!(e.len(), 3);
        assert_eq!(
            (e[0].op, e[0].value, e[0].len_bytes),
            (UpdateOp::Update, 9, 102)
        );
        assert_eq!((e[1].op, e[1].value, e[1].folded), (UpdateOp::Insert, 2, 2));
        assert_eq!((e[2].op, e[2].len_bytes), (UpdateOp::Delete, 0));
        assert_eq!(f.anomalies(), 2);
    }

    #[test]
    fn sector_span_widens_to_whole_sectors_and_never_overflows() {
        assert_eq!(sector_span(1024, 512), (1024, 1536));
        assert_eq!(sector_span(1000, 100), (512, 1536));
        assert_eq!(sector_span(1000, 0), (512, 512));
        let (s, e) = sector_span(u64::MAX - 10, u32::MAX as u64);
        assert!(s <= e);
    }

    #[test]
    fn newer_write_splits_an_older_extent_and_keeps_its_origin() {
        let mut m = ExtentMap::new();
        m.write(0, &write(1, 0, 8 * 512, 100));
        m.write(1, &write(2, 2 * 512, 2 * 512, 200));
        let ex: Vec<_> = m.extents().map(|(_, e)| e).collect();
        let spans: Vec<_> = ex
            .iter()
            .map(|e| {
                (
                    e.start_bytes / 512,
                    e.end_bytes / 512,
                    e.value,
                    e.origin_bytes,
                )
            })
            .collect();
        assert_eq!(
            spans,
            vec![(0, 2, 100, 0), (2, 4, 200, 1024), (4, 8, 100, 0)]
        );
        // A write covering several extents and part of another.
        m.write(2, &write(3, 512, 5 * 512, 300));
        let spans: Vec<_> = m
            .extents()
            .map(|(seq, e)| (seq, e.start_bytes / 512, e.end_bytes / 512, e.value))
            .collect();
        assert_eq!(spans, vec![(0, 0, 1, 100), (2, 1, 6, 300), (0, 6, 8, 100)]);
        // An exact overwrite replaces; an older write fully covered disappears.
        m.write(3, &write(4, 0, 8 * 512, 400));
        assert_eq!(m.len(), 1);
        m.clear();
        assert!(m.is_empty());
    }
}
