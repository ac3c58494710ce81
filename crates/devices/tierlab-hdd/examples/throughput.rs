//! How many requests per second `Mechanics` times on one core (release build):
//! 2 million requests on a synthesized 4 TB drive, random 4 KiB reads/writes mixed with
//! sequential runs, one outstanding request.
//!
//! `cargo run --release -p tierlab-hdd --example throughput`

use std::time::Instant;
use tierlab_hdd::{Datasheet, DatasheetTiming, HddSpec, Mechanics};
use tierlab_engine::DeviceOp;
use tierlab_types::Op;

fn main() {
    let d = Datasheet {
        name: "4TB 7200".into(),
        capacity_bytes: 4_000_000_000_000,
        rpm: 7200.0,
        seek_single_track_ms: Some(0.8),
        seek_average_ms: 8.5,
        seek_full_stroke_ms: Some(17.0),
        sustained_transfer_mb_s: 200.0,
        cache_mib: 64.0,
        sector_bytes: 512,
        timing: DatasheetTiming::default(),
        layout: None,
    };
    let spec = match HddSpec::from_datasheet(&d) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let mut m = match Mechanics::new(spec) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let n = 2_000_000u64;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut t = 0u64;
    let mut seq_offset = 0u64;
    let start = Instant::now();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let sequential = i % 4 != 0;
        let offset = if sequential {
            seq_offset += 4096;
            seq_offset
        } else {
            (x % (d.capacity_bytes / 4096)) * 4096
        };
        if !sequential {
            seq_offset = offset;
        }
        let op = DeviceOp { op: match x % 3 { 0 => Op::Write, _ => Op::Read }, offset_bytes: offset, len_bytes: 4096, fua: false };
        let a = m.access(t, &op);
        t = a.done_ns + (x % 1_000_000);
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{n} requests in {secs:.3} s: {:.2} million requests per second", n as f64 / secs / 1e6);
    println!("{:?}", m.stats());
}
