//! tierlab's hybrid drive made real: an SSD path and an HDD path (files or block devices),
//! the same policy code the simulator evaluates deciding where every extent lives, and
//! metadata that survives a crash at any instant.
//!
//! - [`layout`]: the on-disk format (superblock, two checkpoint slots, journal, data).
//! - [`journal`]: checkpoints and journal records with checksums, and their replay.
//! - [`meta`]: format, commit, checkpoint and recovery across both stores.
//! - [`drive`]: the executor — routes host I/O through the policy, runs migrations.
//! - [`fsck`]: checks a drive and repairs it.
//! - [`admin`]: the `tierlab ctl` protocol and the Prometheus exposition.
//! - [`serve`]: a drive served over NBD with its admin socket, metrics and power hook,
//!   until told to stop.
//!
//! The durability rules: a migration's copy is durable at its destination before the
//! journal record that points the mapping at it, and that record is durable before the
//! source can be reused; a FLUSH (or FUA write) makes every completed write durable along
//! with the mapping records that find it, on both stores.

pub mod admin;
pub mod drive;
pub mod faults;
pub mod fsck;
#[doc(hidden)]
pub mod fuzzing;
pub mod journal;
pub mod layout;
pub mod meta;
pub mod model;
pub mod params;
pub mod serve;
pub mod store;
pub mod tracks;

pub use drive::{CreateSpec, Drive, DriveStats, OpenOptions};
pub use layout::Mode;
pub use model::DeviceModel;
pub use params::{Created, Knobs, PolicySettings};

use std::fmt;
use std::io;

#[derive(Clone, Debug, PartialEq)]
pub enum DriveError {
    /// A store has no tierlab superblock.
    NotFormatted(String),
    /// Metadata failed its checks.
    Corrupt(String),
    /// A request or setting that cannot be honoured.
    Invalid(String),
    /// A host request outside the drive.
    Range(String),
    /// A store is held by another process (its lock), or a block device is mounted.
    InUse(String),
    /// Committed metadata cannot be recovered: the extents whose data would be wrong.
    Unrecoverable(String),
    Io(String),
}

impl fmt::Display for DriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriveError::NotFormatted(what) => write!(f, "{what}: not a tierlab drive (no superblock)"),
            DriveError::Corrupt(m) => write!(f, "damaged metadata: {m}"),
            DriveError::Invalid(m) | DriveError::Range(m) | DriveError::InUse(m) | DriveError::Unrecoverable(m) | DriveError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for DriveError {}

impl DriveError {
    fn errno(&self) -> i32 {
        match self {
            DriveError::Range(_) | DriveError::Invalid(_) => libc::EINVAL,
            _ => libc::EIO,
        }
    }
}

fn to_io(e: DriveError) -> io::Error {
    io::Error::from_raw_os_error(e.errno())
}

/// The drive as an NBD export.
impl tierlab_nbd::Export for Drive {
    fn size_bytes(&self) -> u64 {
        self.virtual_bytes()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.read(offset, buf).map_err(to_io)
    }
    fn write_at(&self, offset: u64, data: &[u8], fua: bool) -> io::Result<()> {
        self.write(offset, data, fua).map_err(to_io)
    }
    fn flush(&self) -> io::Result<()> {
        Drive::flush(self).map_err(to_io)
    }
    /// Trim is advisory in NBD; the policy has no notion of unmapping, so it is a no-op.
    fn trim(&self, _offset: u64, _len: u64) -> io::Result<()> {
        Ok(())
    }
    fn description(&self) -> String {
        format!("tierlab hybrid drive ({:?}, {} KiB extents)", self.mode(), self.geometry().extent_bytes / 1024)
    }
}

#[cfg(test)]
mod tests;
