//! The simulator's executor for disk arrays, and array runs as a library.
//!
//! [`ArrayController`] carries out an energy scheme (`tierlab-array-policy`) on simulated
//! disks: it maps requests through the NVRAM cache and the layout (`tierlab-raid`'s RAID
//! geometry, or the scheme's relocation-block placement) to disk operations, executes the
//! scheme's commands and background moves, and measures per disk what the scheme decides
//! from. [`run_array`] builds an array of catalog disks and replays a workload on it;
//! [`compare`] runs schemes × loads and states each scheme's saving against RAID-5.

mod compare;
mod controller;
mod run;

pub use compare::{compare, CompareRow, Load};
pub use controller::{ArrayController, ExecutorStats};
pub use run::{common_span_bytes, oltp_workload, oltp_workload_with, run_array, s_to_ns, system_usage, ArrayConfig, ArrayMeasured, ArrayRun, DiskModel, DiskRun, OltpSkew, StateTotal, DEFAULT_ARRAY_DISK, OLTP_REGION_BYTES, OLTP_ZIPF_THETA, STABLE_EPOCHS};
pub use tierlab_measure::{Interval, Protocol, Stop};
