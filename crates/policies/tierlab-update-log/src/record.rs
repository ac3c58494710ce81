//! The unit a primary ships to its secondary: one update record of a physical database
//! log, or one forwarded block write.

use serde::{Deserialize, Serialize};
use tierlab_types::Op;

/// What an update does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UpdateOp {
    /// A new record in a slot (log variant).
    Insert,
    /// A new image of an existing record (log variant).
    Update,
    /// The record leaves its slot (log variant).
    Delete,
    /// A forwarded block write: the bytes `addr_bytes .. addr_bytes + len_bytes` get new
    /// contents (block variant).
    Write,
}

/// Which record an update manipulates: the identity log folding groups by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RecordKey {
    /// A row slot of a table: (table, page number within the data volume, slot in page).
    Row { table: u16, page: u64, slot: u16 },
    /// A block extent (block variant): identity is the byte range itself, folded sector by
    /// sector, so the key carries nothing more.
    Block,
}

/// One shipped update.
///
/// `addr_bytes` is where the update lands on the secondary's data volume: the first byte
/// of the record's page (log variant, `len_bytes` ≤ page size, the record's bytes within
/// the page being given by its slot) or of the written extent (block variant). `value`
/// names the content written: the after-image is a pure function of `(value, byte
/// position)`, so a data image can be checked byte by byte without carrying payloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateRecord {
    /// Log sequence number: strictly increasing along the log.
    pub lsn: u64,
    pub op: UpdateOp,
    pub key: RecordKey,
    pub addr_bytes: u64,
    /// After-image (log variant) or payload (block variant) length in bytes; 0 for a delete.
    pub len_bytes: u32,
    /// The record's size in the log: what counts towards R_gen, R_apl and the window fill.
    pub log_bytes: u32,
    pub value: u64,
}

/// Which of the primary's volumes an I/O addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrimaryVolume {
    /// The database (or forwarded block device) itself.
    Data,
    /// The primary's own log volume: sequential appends.
    Log,
}

/// One I/O the primary makes on its own disks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimaryIo {
    pub volume: PrimaryVolume,
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
}

/// One committed unit of work at the primary: the I/O it made there, in issue order (the
/// last is its commit), and the updates it ships, in LSN order. A read-only transaction
/// ships nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transaction {
    pub primary_ios: Vec<PrimaryIo>,
    pub records: Vec<UpdateRecord>,
}

impl Transaction {
    pub fn clear(&mut self) {
        self.primary_ios.clear();
        self.records.clear();
    }
    /// The transaction's log volume, in bytes.
    pub fn log_bytes(&self) -> u64 {
        self.records.iter().map(|r| u64::from(r.log_bytes)).sum()
    }
}

/// Where a stream of transactions comes from: a generator or a trace. A source is
/// deterministic (same construction, same sequence), so an executor can read it twice —
/// once as it is generated, once as the secondary applies it — and keep neither in memory.
pub trait UpdateSource {
    /// Fill `out` (cleared first) with the next transaction; `Ok(false)` at the end.
    fn next_transaction(&mut self, out: &mut Transaction) -> Result<bool, SourceError>;
    /// Bytes of the data volume the stream addresses (its records and its primary data I/O
    /// lie below this).
    fn data_bytes(&self) -> u64;
    /// The database page size: the unit of one apply I/O (block variant: the sector
    /// grain folding works in, 512).
    fn page_bytes(&self) -> u64;
    /// The caller reads only the transactions' records: a source that also models the
    /// primary's data I/O (`Transaction::primary_ios`) may stop doing so. The records must
    /// stay exactly what they would have been.
    fn records_only(&mut self) {}
}

/// A source that cannot go on: the file, line and field at fault where there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SourceError {
    pub message: String,
}

impl SourceError {
    pub fn new(message: impl Into<String>) -> Self {
        SourceError {
            message: message.into(),
        }
    }
}
