//! The probe closes its loop through the kernel: `tierlab serve --emulate` puts the Maxtor
//! model's timing, with its read cache off, under an NBD export; nbdfuse makes the export
//! a file; `tierlab hdd probe --path` times it with O_DIRECT, as it would a real disk, and
//! must find the model's own track boundaries, rotation and zero-latency access. Timed by
//! the wall clock through NBD and FUSE, every completion is late by a varying scheduling
//! delay, so this is the probe's noisy path. Needs /dev/fuse; says so and skips where the
//! machine does not allow it. About a minute on a quiet machine, several on a busy one:
//! it runs with `TIERLAB_PROBE_SERVED=1` only.
//!
//! On a busy host (every core taken, so a fifth of the completions wait milliseconds for
//! one) the probe must still find every boundary, or stop and say the timing is too
//! noisy; either way within `MAX_READS`, never scanning on to the export's end.

mod support;

use std::process::Command;
use support::nbd::{temp_dir, tierlab, tool, Served};

const MAXTOR: &str = "maxtor-atlas-10k-v-73gb";
/// The 32 tracks of surface 0's outer band and the first of surface 1: two track sizes.
const TRACKS: usize = 33;
/// Reads the probe may take, boundary-cost reads included: 7,250-9,630 on a quiet machine,
/// 20,000-100,000 where a fifth to a half of the completions are late (the probe's own
/// busy-host test); a scan past every boundary reads the whole 64 MiB export, over 250,000.
const MAX_READS: u64 = 150_000;

fn json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(tierlab()).args(args).output().expect("run tierlab");
    assert!(out.status.success(), "tierlab {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn a_probe_through_nbd_finds_the_emulated_disks_tracks() {
    // Minutes on a busy machine (docs/tracks.md).
    if std::env::var_os("TIERLAB_PROBE_SERVED").is_none() {
        eprintln!("skipped: set TIERLAB_PROBE_SERVED=1 to probe the served model through NBD (docs/tracks.md)");
        return;
    }
    if !tool("nbdfuse") {
        return;
    }
    let dir = temp_dir("probe");
    let fuse = dir.join("fuse");
    std::fs::create_dir_all(&fuse).expect("dir");
    // Caching with write-around and a promotion threshold nothing reaches: every read goes
    // to the HDD path, at the export's own offset. Extents of 1 MiB cut few reads in two.
    let s = Served::start(
        &dir,
        &[
            "--format", "--mode", "caching", "--ssd-size", "16M", "--hdd-size", "64M", "--es", "1M", "--pt", "1000000",
            "--write-policy", "write-around", "--emulate", "--hdd-model", MAXTOR, "--hdd-model-without-read-cache",
        ],
        &[],
    );
    let sh = |script: &str| Command::new("timeout").args(["30", "sh", "-ec", script]).output().expect("sh");
    let file = fuse.join("nbd");
    let mount = sh(&format!(
        "nbdfuse {f} nbd://{a} >/dev/null 2>&1 & for i in $(seq 50); do [ -e {f}/nbd ] && exit 0; sleep 0.1; done; exit 1",
        f = fuse.display(),
        a = s.addr
    ));
    if !mount.status.success() {
        eprintln!("note: this machine does not allow nbdfuse; skipping the probe through NBD");
        let _ = sh(&format!("fusermount3 -u {f} || umount {f} || true", f = fuse.display()));
        return;
    }
    let tracks = TRACKS.to_string();
    let started = std::time::Instant::now();
    let probe = Command::new(tierlab()).args(["hdd", "probe", "--path"]).arg(&file).args(["--tracks", &tracks, "--boundary-reads", "1000", "--json"]).output().expect("probe");
    let took_s = started.elapsed().as_secs_f64();
    let _ = sh(&format!("fusermount3 -u {f} || umount {f}", f = fuse.display()));
    let stats = Command::new(tierlab()).arg("ctl").arg("--socket").arg(&s.ctl).args(["stats", "--json"]).output().expect("ctl stats");
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).expect("stats json");
    assert!(s.stop().success());
    // Every read the probe made, as the server counted them (nbdfuse splits the few
    // whole-track reads into several).
    let reads = stats["host_reads"].as_u64().expect("host_reads");
    assert!(reads <= MAX_READS, "the probe made {reads} reads ({took_s:.0} s): {stats}");
    let err = String::from_utf8_lossy(&probe.stderr);
    if !probe.status.success() && err.contains("too noisy") {
        eprintln!("note: the host was too busy to probe through NBD ({reads} reads, {took_s:.0} s): {err}");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    assert!(probe.status.success(), "{err}");
    let p: serde_json::Value = serde_json::from_slice(&probe.stdout).expect("probe json");
    eprintln!("probe through NBD: {reads} reads, {took_s:.0} s, pair tolerance {} ms", p["pair_tolerance_ms"]);

    let layout = json(&["hdd", "layout", "--device", MAXTOR, "--tracks", &tracks, "--json"]);
    let want: Vec<u64> = layout.as_array().expect("tracks").iter().map(|t| t["first_lbn"].as_u64().expect("lbn")).collect();
    let mut got = Vec::new();
    for r in p["tracks"].as_array().expect("runs") {
        let (first, sectors, n) = (r["first_lbn"].as_u64().unwrap(), r["sectors"].as_u64().unwrap(), r["tracks"].as_u64().unwrap());
        got.extend((0..n).map(|i| first + i * sectors));
    }
    assert_eq!(got, want, "every boundary of the model's first {TRACKS} tracks: {}", p["tracks"]);
    let rotation_ms = p["rotation_ms"].as_f64().unwrap();
    assert!((rotation_ms - 6.0).abs() < 0.06, "10,000 rpm within 1 %: {rotation_ms} ms");
    assert_eq!(p["zero_latency"], true, "{}", p["full_track_read_ms"]);
    // 1,000 reads at random phases: the means' standard error is about 0.1 ms against the
    // model's 0.6 ms difference.
    let cost = &p["boundary_cost"];
    assert!(cost["across_ms"].as_f64().unwrap() > cost["within_ms"].as_f64().unwrap(), "{cost}");
    let _ = std::fs::remove_dir_all(&dir);
}
