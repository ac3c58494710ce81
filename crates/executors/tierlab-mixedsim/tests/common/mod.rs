//! Small systems and workloads for the tests: a study SLC SSD of a few MiB (the
//! `study-slc` catalog drive's geometry with few blocks, so a debug build runs it fast)
//! and a catalog disk.

#![allow(dead_code)]

use std::convert::Infallible;
use tierlab_classes::{ClassConfig, Labelled};
use tierlab_mixedsim::{DeviceSpec, GroupSpec, HddModel, SsdModel};
use tierlab_ssd::{FtlKind, SsdSpec};
use tierlab_types::{IoRequest, MIB};
use tierlab_workload::{AddressDist, Arrival, SizeDist, WorkloadSpec};

/// A catalog disk with every figure the HDD model needs (36.7 GB, 15,000 rpm).
pub const DISK: &str = "ibm-ultrastar-36z15";

/// The study SLC drive under DFTL with `blocks_per_plane` blocks in each of its 8 planes
/// (128 KiB blocks: 64 blocks per plane is 64 MiB of flash, 57.5 MiB of it for the host,
/// as 10 % spare leaves DFTL the spare blocks it needs on so small a drive).
pub fn small_ssd(blocks_per_plane: u32) -> SsdModel {
    let mut spec = SsdSpec::study_slc(blocks_per_plane, FtlKind::Dftl);
    spec.over_provisioning = 0.1;
    SsdModel::new(spec)
}

pub fn ssd_group(name: &str, blocks_per_plane: u32, count: u32) -> GroupSpec {
    GroupSpec::new(name, DeviceSpec::Ssd(small_ssd(blocks_per_plane)), count)
}

pub fn hdd_group(name: &str, count: u32) -> GroupSpec {
    GroupSpec::new(
        name,
        DeviceSpec::Hdd(HddModel::catalog(DISK).unwrap_or_else(|e| panic!("{e}"))),
        count,
    )
}

/// `requests` random requests over `span_bytes`, `read_fraction` of them reads, 4 KiB to
/// 64 KiB (JESD219 mix) unless `fixed_bytes` is given, Poisson at `iops`.
pub fn workload(
    requests: u64,
    span_bytes: u64,
    read_fraction: f64,
    fixed_bytes: Option<u64>,
    iops: f64,
    seed: u64,
) -> Vec<IoRequest> {
    let spec = WorkloadSpec {
        name: "test".into(),
        seed,
        requests,
        span_bytes,
        align_bytes: 4096,
        read_fraction,
        address: AddressDist::Uniform,
        size: match fixed_bytes {
            Some(bytes) => SizeDist::Fixed { bytes },
            None => SizeDist::Jesd219,
        },
        arrival: Arrival::Poisson { iops },
        volume: 0,
        hot_region_bytes: 0,
    };
    spec.generate()
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|r| r.unwrap_or_else(|e| match e {}))
        .collect()
}

/// A workload of two kinds of record: writes (4 KiB to 64 KiB) at 400 IOPS over the
/// first 16 MiB (hot), and 150 reads of 4 KiB at 3 IOPS over the next 96 MiB (cold), in
/// time order.
pub fn hot_and_cold(seed: u64) -> Vec<IoRequest> {
    let mut trace = workload(2_000, 16 * MIB, 0.2, None, 400.0, seed);
    trace.extend(
        workload(150, 96 * MIB, 0.9, Some(4096), 3.0, seed + 1)
            .into_iter()
            .map(|mut r| {
                r.offset_bytes += 16 * MIB;
                r
            }),
    );
    trace.sort_by_key(|r| r.time_ns);
    trace
}

pub fn ok(trace: &[IoRequest]) -> impl Iterator<Item = Result<IoRequest, Infallible>> + '_ {
    trace.iter().copied().map(Ok)
}

/// The first pass of the classifier over `trace` with records of `record_bytes`.
pub fn classes(trace: &[IoRequest], record_bytes: u64) -> Labelled {
    let config = ClassConfig {
        record_bytes,
        ..ClassConfig::default()
    };
    tierlab_classes::label(&config, ok(trace)).unwrap_or_else(|e| match e {})
}

pub fn classes_1mib(trace: &[IoRequest]) -> Labelled {
    classes(trace, MIB)
}

/// The records a request touches.
pub fn records_of(r: &IoRequest, record_bytes: u64) -> std::ops::RangeInclusive<u64> {
    r.offset_bytes / record_bytes..=(r.offset_bytes + r.len_bytes - 1) / record_bytes
}
