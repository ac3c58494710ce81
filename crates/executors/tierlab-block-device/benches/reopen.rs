//! Reopen time of a drive with a million mapped extents, and mapping memory per extent.
//! `cargo bench -p tierlab-block-device` (files go to $TMPDIR, sparse: a few GiB of address space,
//! 4 GiB written).

use std::time::Instant;
use tierlab_block_device::{CreateSpec, Created, Drive, OpenOptions, PolicySettings};
use tierlab_hybrid_policy::TieringParams;

fn main() {
    let dir = std::env::temp_dir().join(format!("tierlab-reopen-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let extents: u64 = std::env::var("EXTENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let es = 4096u64;
    let create = CreateSpec {
        settings: PolicySettings::new(Created::Tiering(TieringParams { pt: 1_000_000, ..TieringParams::default() })),
        extent_bytes: es,
        ssd_bytes: Some(extents / 4 * es + (64 << 20)),
        hdd_bytes: Some(extents * es + (64 << 20)),
        journal_bytes: 4 << 20,
    };
    let opts = |c: Option<CreateSpec>| OpenOptions { ssd_path: dir.join("ssd"), hdd_path: dir.join("hdd"), create: c, migration_threads: 1, ..Default::default() };
    let d = Drive::open(opts(Some(create))).expect("create");
    let block = vec![0x5Au8; es as usize];
    let t = Instant::now();
    for i in 0..extents {
        d.write(i * es, &block, false).expect("write");
    }
    let fill_s = t.elapsed().as_secs_f64();
    d.close().expect("close");
    drop(d);
    let t = Instant::now();
    let d = Drive::open(opts(None)).expect("reopen");
    let reopen_s = t.elapsed().as_secs_f64();
    let mapped = d.stats().expect("stats").policy.mapped_extents;
    d.close().expect("close");
    println!("mapped extents:            {mapped}");
    println!("fill (one 4 KiB write each): {fill_s:.2} s ({:.0} writes/s through the drive API)", extents as f64 / fill_s);
    println!("reopen (recover, restore, checkpoint): {:.3} s", reopen_s);
    let _ = std::fs::remove_dir_all(&dir);
}
