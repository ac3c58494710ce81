//! Eager compaction of one window of the log: fold the window's records
//! ([`crate::fold`]), sort the result by physical address, group it into one write per
//! page, and optionally merge runs of adjacent pages into larger requests.
//!
//! The output, a [`Batch`], has two parts:
//!
//! * **What the data volume holds afterwards**: the net row entries and the surviving
//!   block extents. [`crate::DataImage::apply_batch`] applies them, and the property
//!   tests check that window-by-window compacted application leaves the same image as
//!   plain redo in LSN order.
//! * **What it costs**: the write I/Os in the order the applier issues them, and the
//!   distinct pages they touch. The log variant needs every page in memory before it can
//!   change a record in it (`needs_read`: a read-modify-write); the block variant writes
//!   blind.
//!
//! # Modes ([`CompactionConfig`])
//!
//! | fold | sort | what the applier does |
//! |------|------|-----------------------|
//! | no   | no   | plain redo: one I/O per record, in LSN order (the conventional baseline) |
//! | yes  | no   | one I/O per net entry / surviving extent, in first-touch order |
//! | no   | yes  | every record kept, but I/Os sorted by address and one per page |
//! | yes  | yes  | the paper's eager compaction: net entries, one I/O per page, ascending |
//!
//! Grouping into pages and merging adjacent pages both need the address order, so they
//! happen only when `sort` is on; the unsorted modes model a redo that issues one request
//! per item. When sorting, I/Os that would overlap are coalesced into one (this happens
//! when several records share a page, or when unfolded block writes overlap: the applier
//! assembles the range in memory in LSN order and writes it once). With
//! `merge_max_bytes = Some(cap)`, I/Os that are contiguous and of the same kind (read-
//! modify-write or blind) are joined while the result stays within `cap` bytes; a single
//! page or extent larger than `cap` is issued whole, never split.
//!
//! Without folding, the content part keeps every record in LSN order (records of the same
//! key must stay ordered); only the I/O list is reordered.
//!
//! # I/O count
//!
//! In the log variant the I/O count never exceeds the record count (one page per net
//! entry at most, net entries ≤ records). In the block variant a newer write can split an
//! older extent into two, so without merging the surviving extents (one I/O each) can
//! reach 2n − 1 for n writes; with merging and a cap no smaller than the window's span,
//! each I/O is one maximal contiguous run of written sectors, of which there are at most n.

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use crate::fold::{sector_span, BlockExtent, ExtentMap, NetEntry, RowFolder};
use crate::record::{UpdateOp, UpdateRecord};

/// How a window is compacted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompactionConfig {
    /// The data volume's page size: the unit of one log-variant apply I/O.
    pub page_bytes: u64,
    /// Fold the records of one key (log variant) or one sector (block variant).
    pub fold: bool,
    /// Apply in ascending address order, one I/O per page.
    pub sort: bool,
    /// Join contiguous I/Os up to this many bytes (sorted modes only); `None`: one I/O per
    /// page (log variant) or per surviving extent (block variant).
    pub merge_max_bytes: Option<u64>,
}

impl CompactionConfig {
    /// The default merge cap: 256 KiB.
    pub const DEFAULT_MERGE_MAX_BYTES: u64 = 256 * 1024;

    /// Fold, sort and merge up to 256 KiB: the paper's eager compaction.
    pub fn eager(page_bytes: u64) -> Self {
        CompactionConfig {
            page_bytes,
            fold: true,
            sort: true,
            merge_max_bytes: Some(Self::DEFAULT_MERGE_MAX_BYTES),
        }
    }

    /// No folding, no sorting, no merging: plain redo in LSN order, one I/O per record.
    pub fn plain_redo(page_bytes: u64) -> Self {
        CompactionConfig {
            page_bytes,
            fold: false,
            sort: false,
            merge_max_bytes: None,
        }
    }
}

impl Default for CompactionConfig {
    /// [`CompactionConfig::eager`] with 4 KiB pages.
    fn default() -> Self {
        Self::eager(4096)
    }
}

/// A configuration the compactor cannot work with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    #[error("compaction field `{field}`: expected {expected}, found {found}")]
    InvalidConfig {
        field: &'static str,
        expected: &'static str,
        found: u64,
    },
}

/// One write request of the apply phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyIo {
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// Pages the request spans.
    pub pages: u32,
    /// The pages must be in memory before they are modified (log variant: a
    /// read-modify-write); `false` for blind block writes.
    pub needs_read: bool,
}

impl ApplyIo {
    pub fn end_bytes(&self) -> u64 {
        self.offset_bytes.saturating_add(self.len_bytes)
    }
}

/// What compacting one window did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionStats {
    /// Records in the window.
    pub records_in: u64,
    /// Their size in the log: what the window's apply rate is measured in.
    pub log_bytes_in: u64,
    /// Net row entries plus surviving block extents.
    pub net_entries: u64,
    /// Row records whose effect cancelled out (insert … delete of one key).
    pub cancelled: u64,
    /// Fold combinations a consistent log cannot produce ([`crate::fold_rule`]).
    pub anomalies: u64,
    /// Distinct pages written.
    pub pages: u64,
    /// Write requests.
    pub ios: u64,
    /// Bytes those requests write.
    pub bytes_written: u64,
}

/// The compacted form of one window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// Row updates to apply: net entries (folding) or every row record in LSN order.
    pub entries: Vec<NetEntry>,
    /// Block content to apply: surviving extents (folding) or every write in LSN order.
    pub extents: Vec<BlockExtent>,
    /// Distinct pages touched, in apply order (ascending when sorted, first touch
    /// otherwise).
    pub pages: Vec<u64>,
    /// Write requests in apply order.
    pub ios: Vec<ApplyIo>,
    pub stats: CompactionStats,
}

impl Batch {
    pub fn clear(&mut self) {
        self.entries.clear();
        self.extents.clear();
        self.pages.clear();
        self.ios.clear();
        self.stats = CompactionStats::default();
    }
}

#[derive(Clone, Copy, Debug)]
struct Unit {
    offset: u64,
    end: u64,
    needs_read: bool,
    /// Position of the unit's item in apply order when unsorted (window position of the
    /// record, or of a key's first record).
    order: usize,
}

/// Compacts windows one after another, reusing its working memory (which is bounded by
/// the largest window seen).
#[derive(Debug)]
pub struct Compactor {
    config: CompactionConfig,
    rows: RowFolder,
    extents: ExtentMap,
    units: Vec<Unit>,
    keyed_extents: Vec<(usize, BlockExtent)>,
    seen_pages: FxHashSet<u64>,
}

impl Compactor {
    pub fn new(config: CompactionConfig) -> Result<Self, CompactError> {
        if config.page_bytes == 0 {
            return Err(CompactError::InvalidConfig {
                field: "page_bytes",
                expected: "a positive number of bytes",
                found: 0,
            });
        }
        Ok(Compactor {
            config,
            rows: RowFolder::new(),
            extents: ExtentMap::new(),
            units: Vec::new(),
            keyed_extents: Vec::new(),
            seen_pages: FxHashSet::default(),
        })
    }

    pub fn config(&self) -> &CompactionConfig {
        &self.config
    }

    /// Compact one window: `records` in log order (ascending LSN).
    pub fn compact(&mut self, records: &[UpdateRecord]) -> Batch {
        let mut out = Batch::default();
        self.compact_into(records, &mut out);
        out
    }

    /// [`Compactor::compact`] into a reused batch (cleared first).
    pub fn compact_into(&mut self, records: &[UpdateRecord], out: &mut Batch) {
        out.clear();
        self.units.clear();
        let page_bytes = self.config.page_bytes.max(1);
        let page_unit = |order: usize, addr_bytes: u64| {
            let offset = addr_bytes - addr_bytes % page_bytes;
            Unit {
                offset,
                end: offset.saturating_add(page_bytes),
                needs_read: true,
                order,
            }
        };
        let extent_unit = |order: usize, e: &BlockExtent| Unit {
            offset: e.start_bytes,
            end: e.end_bytes,
            needs_read: false,
            order,
        };

        let mut cancelled = 0;
        let mut anomalies = 0;
        let mut units_sorted = false;
        if self.config.fold {
            self.rows.clear();
            self.extents.clear();
            /// Records ahead whose index entries are loaded while one is folded.
            const AHEAD: usize = 16;
            for (seq, r) in records.iter().enumerate() {
                if let Some(ahead) = records.get(seq + AHEAD) {
                    self.rows.prefetch(ahead);
                }
                if r.op == UpdateOp::Write {
                    self.extents.write(seq, r);
                } else {
                    self.rows.push(seq, r);
                }
            }
            for (seq, e) in self.extents.extents() {
                self.units.push(extent_unit(seq, &e));
                out.extents.push(e);
            }
            // Rows alone and sorted: their units are taken from the sorted entries below,
            // already in address order.
            units_sorted = self.config.sort && self.units.is_empty();
            for (seq, e) in self.rows.entries() {
                if !units_sorted {
                    self.units.push(page_unit(seq, e.addr_bytes));
                }
                out.entries.push(e);
            }
            if self.config.sort {
                // Keys are unique among net entries, so this order is total: an unstable
                // sort gives the stable one's result, without its buffer and merges.
                out.entries
                    .sort_unstable_by(|a, b| (a.addr_bytes, a.key).cmp(&(b.addr_bytes, b.key)));
                // Their pages then come in address order. The units of one page are alike
                // (the whole page, read first), so the order of their first records, by
                // which sorting would break the tie, changes nothing.
                if units_sorted {
                    self.units
                        .extend(out.entries.iter().map(|e| page_unit(0, e.addr_bytes)));
                }
            } else {
                self.keyed_extents.clear();
                self.keyed_extents.extend(self.extents.extents());
                self.keyed_extents
                    .sort_by_key(|(seq, e)| (*seq, e.start_bytes));
                out.extents.clear();
                out.extents
                    .extend(self.keyed_extents.iter().map(|(_, e)| *e));
            }
            cancelled = self.rows.cancelled();
            anomalies = self.rows.anomalies();
        } else {
            for (seq, r) in records.iter().enumerate() {
                if let Some(e) = NetEntry::from_record(r) {
                    self.units.push(page_unit(seq, e.addr_bytes));
                    out.entries.push(e);
                } else {
                    let (start, end) = sector_span(r.addr_bytes, u64::from(r.len_bytes));
                    if start < end {
                        let e = BlockExtent {
                            start_bytes: start,
                            end_bytes: end,
                            value: r.value,
                            lsn: r.lsn,
                            origin_bytes: r.addr_bytes,
                        };
                        self.units.push(extent_unit(seq, &e));
                        out.extents.push(e);
                    }
                }
            }
        }

        if self.config.sort {
            // Unique: a record's units have distinct offsets, and `order` is the record's
            // position (a key's first record), so an unstable sort is the stable order.
            if !units_sorted {
                self.units.sort_unstable_by_key(|u| (u.offset, u.order));
            }
            let cap = self.config.merge_max_bytes;
            let mut current: Option<Unit> = None;
            for &u in &self.units {
                current = Some(match current {
                    None => u,
                    Some(mut c) if u.offset < c.end => {
                        c.end = c.end.max(u.end);
                        c.needs_read |= u.needs_read;
                        c
                    }
                    Some(mut c)
                        if cap.is_some_and(|cap| {
                            u.offset == c.end
                                && u.needs_read == c.needs_read
                                && u.end - c.offset <= cap
                        }) =>
                    {
                        c.end = u.end;
                        c
                    }
                    Some(c) => {
                        out.ios.push(to_io(c, page_bytes));
                        u
                    }
                });
            }
            if let Some(c) = current {
                out.ios.push(to_io(c, page_bytes));
            }
        } else {
            self.units.sort_by_key(|u| u.order);
            out.ios
                .extend(self.units.iter().map(|&u| to_io(u, page_bytes)));
        }

        // Sorted, the requests ascend and do not overlap, so their pages ascend and a page
        // two requests share (sector-grained extents) is the one last listed; unsorted,
        // a page may come back at any time.
        self.seen_pages.clear();
        let sorted = self.config.sort;
        for io in &out.ios {
            if io.len_bytes == 0 {
                continue;
            }
            let first = io.offset_bytes / page_bytes;
            let last = (io.end_bytes() - 1) / page_bytes;
            for page in first..=last {
                let new = if sorted {
                    out.pages.last().is_none_or(|&p| p < page)
                } else {
                    self.seen_pages.insert(page)
                };
                if new {
                    out.pages.push(page);
                }
            }
        }

        out.stats = CompactionStats {
            records_in: records.len() as u64,
            log_bytes_in: records
                .iter()
                .fold(0u64, |sum, r| sum.saturating_add(u64::from(r.log_bytes))),
            net_entries: (out.entries.len() + out.extents.len()) as u64,
            cancelled,
            anomalies,
            pages: out.pages.len() as u64,
            ios: out.ios.len() as u64,
            bytes_written: out
                .ios
                .iter()
                .fold(0u64, |sum, io| sum.saturating_add(io.len_bytes)),
        };
    }
}

fn to_io(u: Unit, page_bytes: u64) -> ApplyIo {
    let len_bytes = u.end.saturating_sub(u.offset);
    let pages = if len_bytes == 0 {
        0
    } else {
        (u.end - 1) / page_bytes - u.offset / page_bytes + 1
    };
    ApplyIo {
        offset_bytes: u.offset,
        len_bytes,
        pages: u32::try_from(pages).unwrap_or(u32::MAX),
        needs_read: u.needs_read,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::DataImage;
    use crate::record::RecordKey;
    use proptest::prelude::*;

    const PAGE: u64 = 4096;

    fn row(lsn: u64, op: UpdateOp, page: u64, slot: u16, value: u64) -> UpdateRecord {
        UpdateRecord {
            lsn,
            op,
            key: RecordKey::Row {
                table: 0,
                page,
                slot,
            },
            addr_bytes: page * PAGE,
            len_bytes: if op == UpdateOp::Delete { 0 } else { 80 },
            log_bytes: 120,
            value,
        }
    }

    fn write(lsn: u64, sector: u64, sectors: u32, value: u64) -> UpdateRecord {
        UpdateRecord {
            lsn,
            op: UpdateOp::Write,
            key: RecordKey::Block,
            addr_bytes: sector * 512,
            len_bytes: sectors * 512,
            log_bytes: sectors * 512 + 64,
            value,
        }
    }

    fn cfg(fold: bool, sort: bool, merge: Option<u64>) -> CompactionConfig {
        CompactionConfig {
            page_bytes: PAGE,
            fold,
            sort,
            merge_max_bytes: merge,
        }
    }

    fn spans(b: &Batch) -> Vec<(u64, u64)> {
        b.ios
            .iter()
            .map(|io| (io.offset_bytes, io.len_bytes))
            .collect()
    }

    #[test]
    fn zero_page_size_is_rejected() {
        assert!(matches!(
            Compactor::new(cfg(true, true, None)).map(|_| ()),
            Ok(())
        ));
        let err = Compactor::new(CompactionConfig {
            page_bytes: 0,
            ..CompactionConfig::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("page_bytes"));
    }

    #[test]
    fn papers_insert_update_update_becomes_one_insert_and_one_page_write() {
        let recs = [
            row(1, UpdateOp::Insert, 7, 2, 10),
            row(2, UpdateOp::Update, 7, 2, 20),
            row(3, UpdateOp::Update, 7, 2, 30),
        ];
        let b = Compactor::new(CompactionConfig::default())
            .unwrap()
            .compact(&recs);
        assert_eq!(b.entries.len(), 1);
        let e = b.entries[0];
        assert_eq!(
            (e.op, e.value, e.max_lsn, e.folded),
            (UpdateOp::Insert, 30, 3, 3)
        );
        assert_eq!(
            b.ios,
            vec![ApplyIo {
                offset_bytes: 7 * PAGE,
                len_bytes: PAGE,
                pages: 1,
                needs_read: true
            }]
        );
        assert_eq!(b.pages, vec![7]);
        assert_eq!(
            b.stats,
            CompactionStats {
                records_in: 3,
                log_bytes_in: 360,
                net_entries: 1,
                cancelled: 0,
                anomalies: 0,
                pages: 1,
                ios: 1,
                bytes_written: PAGE,
            }
        );
        // Plain redo of the same window: three page writes.
        let plain = Compactor::new(CompactionConfig::plain_redo(PAGE))
            .unwrap()
            .compact(&recs);
        assert_eq!(plain.ios.len(), 3);
        assert_eq!(plain.entries.len(), 3);
        assert_eq!(plain.stats.bytes_written, 3 * PAGE);
    }

    #[test]
    fn insert_then_delete_applies_nothing() {
        let recs = [
            row(1, UpdateOp::Insert, 7, 2, 10),
            row(2, UpdateOp::Delete, 7, 2, 0),
        ];
        let b = Compactor::new(CompactionConfig::default())
            .unwrap()
            .compact(&recs);
        assert!(b.entries.is_empty() && b.ios.is_empty() && b.pages.is_empty());
        assert_eq!(b.stats.cancelled, 2);
        assert_eq!(b.stats.net_entries, 0);
        let mut img = DataImage::new();
        img.apply_batch(&b);
        assert_eq!(img, DataImage::new());
    }

    #[test]
    fn sorting_groups_pages_and_merging_joins_adjacent_ones_within_the_cap() {
        let recs = [
            row(1, UpdateOp::Update, 5, 0, 1),
            row(2, UpdateOp::Update, 3, 0, 2),
            row(3, UpdateOp::Update, 4, 0, 3),
            row(4, UpdateOp::Update, 3, 1, 4),
            row(5, UpdateOp::Update, 9, 0, 5),
        ];
        let merged = Compactor::new(cfg(true, true, Some(256 * 1024)))
            .unwrap()
            .compact(&recs);
        assert_eq!(merged.pages, vec![3, 4, 5, 9]);
        assert_eq!(spans(&merged), vec![(3 * PAGE, 3 * PAGE), (9 * PAGE, PAGE)]);
        assert_eq!(merged.ios[0].pages, 3);
        assert!(merged.ios.iter().all(|io| io.needs_read));
        // Entries sorted by (address, key).
        let keys: Vec<_> = merged
            .entries
            .iter()
            .map(|e| (e.addr_bytes / PAGE, e.value))
            .collect();
        assert_eq!(keys, vec![(3, 2), (3, 4), (4, 3), (5, 1), (9, 5)]);

        let per_page = Compactor::new(cfg(true, true, None))
            .unwrap()
            .compact(&recs);
        assert_eq!(
            spans(&per_page),
            vec![
                (3 * PAGE, PAGE),
                (4 * PAGE, PAGE),
                (5 * PAGE, PAGE),
                (9 * PAGE, PAGE)
            ]
        );
        let capped = Compactor::new(cfg(true, true, Some(2 * PAGE)))
            .unwrap()
            .compact(&recs);
        assert_eq!(
            spans(&capped),
            vec![(3 * PAGE, 2 * PAGE), (5 * PAGE, PAGE), (9 * PAGE, PAGE)]
        );
        // Sorting without folding still writes each page once.
        let sorted_only = Compactor::new(cfg(false, true, None))
            .unwrap()
            .compact(&recs);
        assert_eq!(sorted_only.ios.len(), 4);
        assert_eq!(sorted_only.entries.len(), 5);
        assert_eq!(
            sorted_only.entries[0].max_lsn, 1,
            "content stays in LSN order"
        );
    }

    #[test]
    fn unsorted_modes_issue_one_request_per_item_in_log_order() {
        let recs = [
            row(1, UpdateOp::Update, 5, 0, 1),
            row(2, UpdateOp::Update, 3, 0, 2),
            row(3, UpdateOp::Update, 5, 0, 3),
            row(4, UpdateOp::Update, 3, 1, 4),
        ];
        let plain = Compactor::new(CompactionConfig::plain_redo(PAGE))
            .unwrap()
            .compact(&recs);
        assert_eq!(
            spans(&plain),
            vec![
                (5 * PAGE, PAGE),
                (3 * PAGE, PAGE),
                (5 * PAGE, PAGE),
                (3 * PAGE, PAGE)
            ]
        );
        assert_eq!(plain.pages, vec![5, 3]);
        // Folding alone: the key on page 5 folds, first-touch order, no page grouping.
        let fold_only = Compactor::new(cfg(true, false, Some(1 << 20)))
            .unwrap()
            .compact(&recs);
        assert_eq!(
            spans(&fold_only),
            vec![(5 * PAGE, PAGE), (3 * PAGE, PAGE), (3 * PAGE, PAGE)]
        );
        assert_eq!(fold_only.entries[0].value, 3);
        assert_eq!(fold_only.entries[0].folded, 2);
        assert_eq!(fold_only.pages, vec![5, 3]);
    }

    #[test]
    fn block_writes_keep_the_newest_sectors_and_write_them_blind() {
        // Sectors: A covers 0..8, B covers 2..4, C covers 20..22.
        let recs = [
            write(1, 0, 8, 100),
            write(2, 2, 2, 200),
            write(3, 20, 2, 300),
        ];
        let merged = Compactor::new(CompactionConfig::default())
            .unwrap()
            .compact(&recs);
        assert_eq!(spans(&merged), vec![(0, 8 * 512), (20 * 512, 2 * 512)]);
        assert!(merged.ios.iter().all(|io| !io.needs_read));
        assert_eq!(merged.pages, vec![0, 2]);
        let ex: Vec<_> = merged
            .extents
            .iter()
            .map(|e| (e.start_bytes / 512, e.end_bytes / 512, e.value))
            .collect();
        assert_eq!(
            ex,
            vec![(0, 2, 100), (2, 4, 200), (4, 8, 100), (20, 22, 300)]
        );
        assert_eq!(merged.stats.net_entries, 4);
        // No merging: one request per surviving extent.
        let unmerged = Compactor::new(cfg(true, true, None))
            .unwrap()
            .compact(&recs);
        assert_eq!(
            spans(&unmerged),
            vec![(0, 1024), (1024, 1024), (2048, 2048), (20 * 512, 1024)]
        );
        // Plain redo: every write as issued.
        let plain = Compactor::new(CompactionConfig::plain_redo(PAGE))
            .unwrap()
            .compact(&recs);
        assert_eq!(
            spans(&plain),
            vec![(0, 4096), (1024, 1024), (20 * 512, 1024)]
        );
        assert_eq!(plain.stats.bytes_written, 4096 + 2048);
        // Folding without sorting: extents in the order of the writes that left them.
        let fold_only = Compactor::new(cfg(true, false, None))
            .unwrap()
            .compact(&recs);
        let order: Vec<_> = fold_only
            .extents
            .iter()
            .map(|e| e.start_bytes / 512)
            .collect();
        assert_eq!(order, vec![0, 4, 2, 20]);
    }

    #[test]
    fn compactor_reuse_does_not_leak_state_between_windows() {
        let mut c = Compactor::new(CompactionConfig::default()).unwrap();
        let first = c.compact(&[row(1, UpdateOp::Insert, 1, 0, 1), write(2, 0, 1, 5)]);
        assert_eq!(first.stats.net_entries, 2);
        let second = c.compact(&[row(3, UpdateOp::Update, 2, 0, 9)]);
        assert_eq!(second.entries.len(), 1);
        assert!(second.extents.is_empty());
        assert_eq!(second.pages, vec![2]);
        assert_eq!(second.stats.records_in, 1);
        let mut reused = first.clone();
        c.compact_into(&[], &mut reused);
        assert_eq!(reused, Batch::default());
    }

    // ---- property tests ----

    /// Row keys: a few tables, pages and slots, so keys repeat a lot.
    fn key_of(k: u8) -> (u16, u64, u16) {
        let k = u64::from(k % 24);
        ((k % 2) as u16, k % 7, (k % 3) as u16)
    }

    fn row_record(lsn: u64, op: UpdateOp, k: u8, value: u64) -> UpdateRecord {
        let (table, page, slot) = key_of(k);
        UpdateRecord {
            lsn,
            op,
            key: RecordKey::Row { table, page, slot },
            addr_bytes: page * PAGE,
            len_bytes: if op == UpdateOp::Delete {
                0
            } else {
                (value % 200) as u32 + 1
            },
            log_bytes: 50,
            value,
        }
    }

    /// A consistent log: insert only into a free slot, update/delete only a live row.
    fn consistent_rows(steps: &[(u8, u8, u64)]) -> Vec<UpdateRecord> {
        let mut live = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (i, &(k, choice, value)) in steps.iter().enumerate() {
            let key = key_of(k);
            let op = if !live.contains(&key) {
                live.insert(key);
                UpdateOp::Insert
            } else if choice % 3 == 0 {
                live.remove(&key);
                UpdateOp::Delete
            } else {
                UpdateOp::Update
            };
            out.push(row_record(10 + 3 * i as u64, op, k, value));
        }
        out
    }

    fn windows(len: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (len + 1)).collect();
        points.push(0);
        points.push(len);
        points.sort_unstable();
        points.dedup();
        points.windows(2).map(|w| (w[0], w[1])).collect()
    }

    fn all_configs() -> Vec<CompactionConfig> {
        vec![
            cfg(true, true, Some(256 * 1024)),
            cfg(true, true, None),
            cfg(true, true, Some(3 * 512)),
            cfg(true, false, None),
            cfg(false, true, Some(256 * 1024)),
            cfg(false, false, None),
        ]
    }

    fn assert_sorted_disjoint(b: &Batch) {
        for w in b.ios.windows(2) {
            assert!(w[0].end_bytes() <= w[1].offset_bytes, "{:?}", b.ios);
        }
        for w in b.pages.windows(2) {
            assert!(w[0] < w[1]);
        }
    }

    fn covered(b: &Batch, byte: u64) -> bool {
        b.ios
            .iter()
            .any(|io| io.offset_bytes <= byte && byte < io.end_bytes())
    }

    proptest! {
        #[test]
        fn consistent_row_logs_compact_to_the_same_image(
            steps in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u64>()), 0..120),
            cuts in prop::collection::vec(any::<usize>(), 0..6),
        ) {
            let recs = consistent_rows(&steps);
            let mut reference = DataImage::new();
            reference.apply_in_order(&recs);
            for config in all_configs() {
                let mut c = Compactor::new(config).unwrap();
                let mut img = DataImage::new();
                for (a, z) in windows(recs.len(), &cuts) {
                    let window = &recs[a..z];
                    let before = img.clone();
                    let b = c.compact(window);
                    img.apply_batch(&b);
                    prop_assert!(b.ios.len() <= window.len());
                    prop_assert_eq!(b.stats.anomalies, 0);
                    if config.fold {
                        let folded: u64 = b.entries.iter().map(|e| u64::from(e.folded)).sum();
                        prop_assert_eq!(folded + b.stats.cancelled, window.len() as u64);
                    }
                    if config.sort {
                        assert_sorted_disjoint(&b);
                    }
                    // Every row whose image changed has its page written.
                    let mut after = before.clone();
                    after.apply_in_order(window);
                    prop_assert_eq!(&after, &img);
                    for key in before.changed_rows(&after) {
                        if let RecordKey::Row { page, .. } = key {
                            prop_assert!(covered(&b, page * PAGE), "page {} not written", page);
                        }
                    }
                }
                prop_assert_eq!(&img, &reference, "{:?}", config);
            }
        }

        /// Sorted row logs take their units from the sorted entries instead of sorting
        /// the units; a block write far from every row sends the same rows through the
        /// units' sort, so both must give the same requests and pages (and the pages are
        /// those of the requests, ascending, each once).
        #[test]
        fn sorted_rows_give_the_requests_of_the_units_sort(
            steps in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u64>()), 0..120),
            merge in prop::option::of(0u64..40_000),
            fold in any::<bool>(),
        ) {
            let recs = consistent_rows(&steps);
            let config = CompactionConfig { page_bytes: PAGE, fold, sort: true, merge_max_bytes: merge };
            let rows_only = Compactor::new(config).unwrap().compact(&recs);
            let far_sector = 1 << 40;
            let mut mixed_recs = recs.clone();
            mixed_recs.push(write(1 << 30, far_sector, 1, 7));
            let mixed = Compactor::new(config).unwrap().compact(&mixed_recs);
            let far = |io: &ApplyIo| io.offset_bytes == far_sector * 512;
            prop_assert_eq!(mixed.ios.iter().filter(|io| far(io)).count(), 1);
            let mixed_ios: Vec<ApplyIo> = mixed.ios.iter().copied().filter(|io| !far(io)).collect();
            prop_assert_eq!(&rows_only.ios, &mixed_ios);
            prop_assert_eq!(&rows_only.entries, &mixed.entries);
            prop_assert_eq!(&mixed.pages[..mixed.pages.len() - 1], &rows_only.pages[..]);
            let mut pages: Vec<u64> = rows_only
                .ios
                .iter()
                .flat_map(|io| io.offset_bytes / PAGE..=(io.end_bytes() - 1) / PAGE)
                .collect();
            pages.dedup();
            prop_assert_eq!(&rows_only.pages, &pages);
        }

        #[test]
        fn arbitrary_row_ops_in_one_window_compact_to_the_same_image(
            steps in prop::collection::vec((any::<u8>(), 0u8..3, any::<u64>()), 0..80),
        ) {
            let recs: Vec<_> = steps
                .iter()
                .enumerate()
                .map(|(i, &(k, op, v))| {
                    let op = [UpdateOp::Insert, UpdateOp::Update, UpdateOp::Delete][op as usize];
                    row_record(i as u64 + 1, op, k, v)
                })
                .collect();
            let mut reference = DataImage::new();
            reference.apply_in_order(&recs);
            for config in all_configs() {
                let b = Compactor::new(config).unwrap().compact(&recs);
                let mut img = DataImage::new();
                img.apply_batch(&b);
                prop_assert_eq!(&img, &reference);
                prop_assert!(b.ios.len() <= recs.len());
            }
        }

        #[test]
        fn arbitrary_records_never_panic_and_match_redo_in_one_window(
            recs in prop::collection::vec(
                (0u8..4, any::<bool>(), 0u8..6, prop_oneof![any::<u64>(), 0u64..100_000, (u64::MAX - 5000)..=u64::MAX], 0u32..3000, any::<u64>()),
                0..40,
            ),
            page_bytes in prop_oneof![Just(1u64), 1u64..10_000, Just(u64::MAX)],
            merge in prop::option::of(0u64..20_000),
            fold in any::<bool>(),
            sort in any::<bool>(),
        ) {
            let recs: Vec<UpdateRecord> = recs
                .iter()
                .enumerate()
                .map(|(i, &(op, block_key, slot, addr, len, value))| UpdateRecord {
                    lsn: i as u64,
                    op: [UpdateOp::Insert, UpdateOp::Update, UpdateOp::Delete, UpdateOp::Write][op as usize],
                    key: if block_key { RecordKey::Block } else { RecordKey::Row { table: 0, page: 0, slot: u16::from(slot) } },
                    addr_bytes: addr,
                    len_bytes: len,
                    log_bytes: len,
                    value,
                })
                .collect();
            let config = CompactionConfig { page_bytes, fold, sort, merge_max_bytes: merge };
            let b = Compactor::new(config).unwrap().compact(&recs);
            let mut reference = DataImage::new();
            reference.apply_in_order(&recs);
            let mut img = DataImage::new();
            img.apply_batch(&b);
            prop_assert_eq!(img, reference);
            prop_assert_eq!(b.stats.ios, b.ios.len() as u64);
            if sort {
                for w in b.ios.windows(2) {
                    prop_assert!(w[0].end_bytes() <= w[1].offset_bytes);
                }
            }
        }

        #[test]
        fn overlapping_block_writes_compact_to_the_same_image(
            writes in prop::collection::vec((0u64..48, 1u32..16, any::<u64>()), 0..60),
            cuts in prop::collection::vec(any::<usize>(), 0..6),
        ) {
            let recs: Vec<_> = writes
                .iter()
                .enumerate()
                .map(|(i, &(s, n, v))| write(i as u64 + 1, s, n, v))
                .collect();
            let mut reference = DataImage::new();
            reference.apply_in_order(&recs);
            for config in all_configs() {
                let mut c = Compactor::new(config).unwrap();
                let mut img = DataImage::new();
                for (a, z) in windows(recs.len(), &cuts) {
                    let window = &recs[a..z];
                    let b = c.compact(window);
                    img.apply_batch(&b);
                    prop_assert!(b.ios.iter().all(|io| !io.needs_read));
                    if config.sort {
                        assert_sorted_disjoint(&b);
                    }
                    // The span is 64 sectors (32 KiB), below the 256 KiB cap: one request
                    // per contiguous run, at most one per write.
                    if config.merge_max_bytes == Some(256 * 1024) || !config.fold {
                        prop_assert!(b.ios.len() <= window.len());
                    } else {
                        prop_assert!(b.ios.len() <= (2 * window.len()).saturating_sub(1));
                    }
                    // Every byte plain redo writes is written, and nothing else.
                    let mut written = std::collections::BTreeSet::new();
                    for r in window {
                        let first = r.addr_bytes / 512;
                        for s in first..first + u64::from(r.len_bytes) / 512 {
                            written.insert(s);
                        }
                    }
                    for &s in &written {
                        prop_assert!(covered(&b, s * 512) && covered(&b, s * 512 + 511));
                    }
                    if config.fold || config.sort {
                        let total: u64 = b.ios.iter().map(|io| io.len_bytes).sum();
                        prop_assert_eq!(total, written.len() as u64 * 512);
                    }
                }
                prop_assert_eq!(&img, &reference, "{:?}", config);
            }
        }
    }
}
