//! Throughput and memory of the model (prints figures; not a timed test):
//! - simulated flash page operations per second with DFTL replaying the blkreplay MySQL
//!   trace (one core, after preconditioning and a warm-up replay);
//! - bytes of simulator state per GiB of simulated flash, for each FTL (heap held by a
//!   filled drive of 4 GiB raw, and the per-page/per-block figures).
//!
//! Run: `cargo bench -p tierlab-ssd --bench dftl_mysql`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;
use tierlab_ssd::{replay, FtlKind, Precondition, Ssd, SsdSpec};
use tierlab_trace::Compactor;
use tierlab_types::{GIB, KIB};

fn throughput() {
    let Some(dir) = common::traces_dir() else {
        return;
    };
    let reqs = common::read_blkreplay(&dir.join("blkreplay-linux-mysql.load.gz"));
    let c = Compactor::build(128 * KIB, reqs.iter().copied());
    let mapped: Vec<_> = reqs.iter().filter_map(|r| c.map(r)).collect();
    let occupancy = 0.75;
    let probe = SsdSpec::study_slc(1, FtlKind::Dftl);
    let per_plane = probe.block_bytes() as f64 * (1.0 - probe.over_provisioning) * occupancy;
    let bpp = (c.footprint_bytes() as f64 / per_plane / probe.planes() as f64).ceil() as u32 + 8;
    let mut spec = SsdSpec::study_slc(bpp, FtlKind::Dftl);
    spec.sram_bytes = spec.sram_needed_bytes(FtlKind::Fast);
    let fill = c.footprint_bytes() as f64 / spec.capacity_bytes() as f64;
    let mut ssd = match Ssd::new(spec) {
        Ok(s) => s,
        Err(e) => return println!("bench: {e}"),
    };
    if let Err(e) = ssd.precondition(&Precondition {
        occupancy: fill.min(1.0),
        random_overwrites: 0.0,
        seed: 1,
    }) {
        return println!("bench: {e}");
    }
    let _ = replay(&mut ssd, mapped.iter().copied());
    let mut best = 0.0f64;
    for _ in 0..3 {
        ssd.reset_stats();
        let t = Instant::now();
        let stats = match replay(&mut ssd, mapped.iter().copied()) {
            Ok(s) => s,
            Err(e) => return println!("bench: {e}"),
        };
        let secs = t.elapsed().as_secs_f64();
        let ops = ssd.page_ops();
        best = best.max(ops as f64 / secs);
        println!(
            "dftl/mysql: {} requests, {ops} simulated page operations in {secs:.3} s = {:.2} M page ops/s ({:.0} requests/s)",
            stats.requests,
            ops as f64 / secs / 1e6,
            stats.requests as f64 / secs
        );
    }
    println!(
        "dftl/mysql best: {:.2} M simulated page operations per second (target >= 1.0)",
        best / 1e6
    );
}

fn memory() {
    // 4 GiB raw: 8 planes x 4096 blocks x 64 pages x 2 KiB.
    for kind in FtlKind::ALL {
        let mut spec = SsdSpec::study_slc(4096, kind);
        spec.sram_bytes = spec
            .sram_needed_bytes(FtlKind::Fast)
            .max(spec.sram_needed_bytes(kind));
        let raw_gib = spec.total_pages() as f64 * spec.geometry.page_bytes as f64 / GIB as f64;
        let mut ssd = match Ssd::new(spec) {
            Ok(s) => s,
            Err(e) => return println!("bench: {e}"),
        };
        let _ = ssd.precondition(&Precondition {
            occupancy: 1.0,
            random_overwrites: 0.0,
            seed: 1,
        });
        let (per_page, per_block) = ssd.state_bytes();
        println!(
            "memory {:<5}: {:.2} MiB of state per GiB of simulated flash (flash array {per_page} B/page + {per_block} B/block; the rest is FTL tables)",
            kind.name(),
            ssd.heap_bytes() as f64 / raw_gib / (1u64 << 20) as f64
        );
        drop(ssd);
    }
}

fn main() {
    throughput();
    memory();
}
