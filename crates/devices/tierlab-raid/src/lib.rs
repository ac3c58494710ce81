//! Disk arrays as data: where a logical byte lives (RAID-0, RAID-1/10, RAID-5
//! left-symmetric), which disk operations a request becomes (RAID-5 small writes by
//! read-modify-write or reconstruct-write, full-stripe writes without reads), and the
//! controller's NVRAM write-back cache, and RAID-5 parity fill-in for a track-aligned
//! RAID (whose tracks are `tierlab-track-map`'s). No clock and no I/O: the simulator's executor
//! (`tierlab-array-sim`) carries the plans out on disk models.

mod geometry;
mod nvram;
#[cfg(test)]
mod tests;

pub use geometry::{Geometry, Piece, Plan, RaidLevel};
pub use nvram::{Nvram, NvramConfig, NvramStats};

/// A layout or request that cannot work, said so a user can fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArrayError {
    #[error("{level} needs at least {min} disks, found {disks}")]
    TooFewDisks { level: RaidLevel, disks: usize, min: usize },
    #[error("raid10 mirrors disks in pairs: expected an even number of disks, found {disks}")]
    OddMirror { disks: usize },
    #[error("`{field}`: expected {expected}, found {found}")]
    Invalid { field: &'static str, expected: String, found: String },
    #[error("request of {len_bytes} bytes at byte {offset_bytes} is outside the array's {capacity_bytes} bytes")]
    OutOfRange { offset_bytes: u64, len_bytes: u64, capacity_bytes: u64 },
}
