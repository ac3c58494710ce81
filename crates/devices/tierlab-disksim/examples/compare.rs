//! Per-request comparison of one drive's validation replay, as CSV on stdout:
//! `index,op,block,blocks,measured_ms,simulated_ms,cache_hit,seek_ms,rotate_ms,transfer_ms`.
//!
//! `cargo run --release -p tierlab-disksim --example compare -- ../shared/validation/disksim/hp_c2247a [--disksim]`
//!
//! `--disksim` imports the drive under DiskSim 4.0's semantics (`Semantics::Disksim`).

use std::path::PathBuf;
use tierlab_disksim::{
    import_drive,
    trace::{find_trace, read_trace},
    Semantics,
};
use tierlab_hdd::Mechanics;
use tierlab_engine::DeviceOp;
use tierlab_types::SECTOR_BYTES;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let semantics = if args.iter().any(|a| a == "--disksim") { Semantics::Disksim } else { Semantics::Drive };
    let Some(dir) = args.iter().find(|a| !a.starts_with("--")).map(PathBuf::from) else {
        eprintln!("usage: compare <drive dir> [--disksim]");
        std::process::exit(2);
    };
    let run = || -> Result<(), String> {
        let imp = import_drive(&dir).map_err(|e| e.to_string())?.with_semantics(semantics);
        for n in &imp.notes {
            eprintln!("note: {n}");
        }
        let trace_dir = imp.parv.parent().map(PathBuf::from).unwrap_or_default();
        let trace = read_trace(&find_trace(&trace_dir, &imp.parv).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        let mut mech = Mechanics::new(imp.spec).map_err(|e| e.to_string())?;
        println!("index,op,block,blocks,measured_ms,simulated_ms,cache_hit,seek_ms,rotate_ms,transfer_ms");
        let mut t: u64 = 0;
        for (i, r) in trace.iter().enumerate() {
            let op = DeviceOp { op: r.op, offset_bytes: r.block.saturating_mul(SECTOR_BYTES), len_bytes: r.blocks.saturating_mul(SECTOR_BYTES), fua: false };
            let a = mech.access(t, &op);
            let ms = |x: u64| x as f64 / 1e6;
            println!(
                "{i},{},{},{},{:.4},{:.4},{},{:.4},{:.4},{:.4}",
                r.op, r.block, r.blocks, r.measured_us / 1000.0, ms(a.done_ns - t), a.cache_hit, ms(a.seek_ns), ms(a.rotate_ns), ms(a.transfer_ns)
            );
            t = a.done_ns.saturating_add((r.gap_us * 1000.0).round() as u64);
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
