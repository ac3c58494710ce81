//! Remote replication as data, with no clock and no I/O.

mod buffer_pool;
mod record;

pub use buffer_pool::{BufferPool, Reference};
pub use record::{
    PrimaryIo, PrimaryVolume, RecordKey, SourceError, Transaction, UpdateOp, UpdateRecord,
    UpdateSource,
};
