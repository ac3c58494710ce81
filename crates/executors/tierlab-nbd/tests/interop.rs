//! Interoperability with real NBD clients: nbdinfo, qemu-img and fio.
//!
//! A missing tool skips its test with a note, except under `CI=true`, where
//! it is a failure (CI installs them all).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;

use common::*;
use tierlab_nbd::{FileExport, MemoryExport};

/// Whether `tool` can be run; panics under CI when it cannot.
fn have(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{tool} is required when CI=true"
        );
        eprintln!("note: {tool} not installed; skipping this interop test");
    }
    found
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh directory for this test process's image files.
fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tierlab-nbd-interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn nbdinfo_reports_size_name_and_list() {
    if !have("nbdinfo") {
        return;
    }
    let export = Arc::new(MemoryExport::new(3 << 20));
    let server = start(export, |c| c.description = Some("test disk".into()));
    let uri = format!("nbd://{}/{NAME}", server.tcp_addr().unwrap());
    let out = run(Command::new("nbdinfo").args(["--json", &uri]));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &json["exports"][0];
    assert_eq!(e["export-name"], NAME);
    assert_eq!(e["export-size"], 3u64 << 20);
    assert_eq!(e["description"], "test disk");
    assert_eq!(e["is_read_only"], false);
    assert_eq!(e["can_multi_conn"], true);
    assert_eq!(json["structured"], true);
    assert_eq!(e["contexts"][0], "base:allocation");
    assert_eq!(e["block_size_maximum"], 32u64 << 20);

    // base:allocation through NBD_CMD_BLOCK_STATUS: one data extent.
    let out = run(Command::new("nbdinfo").args(["--map", "--json", &uri]));
    let map: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(map[0]["offset"], 0);
    assert_eq!(map[0]["length"], 3u64 << 20);
    assert_eq!(map[0]["type"], 0);
    assert_eq!(map.as_array().unwrap().len(), 1);

    let out = run(Command::new("nbdinfo").args([
        "--list",
        "--json",
        &format!("nbd://{}", server.tcp_addr().unwrap()),
    ]));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["exports"].as_array().unwrap().len(), 1);
    assert_eq!(json["exports"][0]["export-name"], NAME);
}

#[test]
fn qemu_img_convert_round_trip_is_bit_exact() {
    if !have("qemu-img") {
        return;
    }
    const SIZE: usize = 16 << 20;
    let dir = scratch_dir();
    let (source, back, backing) = (
        dir.join("source.img"),
        dir.join("back.img"),
        dir.join("backing.img"),
    );
    let data = pattern(7, SIZE);
    std::fs::write(&source, &data).unwrap();
    std::fs::File::create(&backing)
        .unwrap()
        .set_len(SIZE as u64)
        .unwrap();
    let server = start(Arc::new(FileExport::open(&backing, false).unwrap()), |_| {});
    let uri = format!("nbd://{}/{NAME}", server.tcp_addr().unwrap());
    run(Command::new("qemu-img")
        .args(["convert", "-n", "-f", "raw", "-O", "raw"])
        .arg(&source)
        .arg(&uri));
    run(Command::new("qemu-img")
        .args(["convert", "-f", "raw", "-O", "raw", &uri])
        .arg(&back));
    assert!(
        std::fs::read(&backing).unwrap() == data,
        "export differs from source"
    );
    assert!(
        std::fs::read(&back).unwrap() == data,
        "copy back differs from source"
    );
    server.stop().unwrap();
    for f in [source, back, backing] {
        std::fs::remove_file(f).unwrap();
    }
    std::fs::remove_dir(dir).unwrap();
}

/// Runs one fio job against a fresh server and checks it verified cleanly.
fn fio(rw: &str, iodepth: u32) {
    let server = start(Arc::new(MemoryExport::new(16 << 20)), |_| {});
    let uri = format!("nbd://{}/{NAME}", server.tcp_addr().unwrap());
    let out = run(Command::new("fio").args([
        "--name=tierlab",
        "--ioengine=nbd",
        &format!("--uri={uri}"),
        &format!("--rw={rw}"),
        "--bs=4k",
        "--size=4M",
        &format!("--iodepth={iodepth}"),
        "--verify=crc32c",
        "--do_verify=1",
        "--verify_state_save=0",
        "--output-format=json",
    ]));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // fio may print notes before the JSON document.
    let json: serde_json::Value =
        serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
    let job = &json["jobs"][0];
    assert_eq!(job["error"], 0, "fio {rw} iodepth {iodepth}: {job}");
    let written = job["write"]["io_bytes"].as_u64().unwrap();
    let read = job["read"]["io_bytes"].as_u64().unwrap();
    assert!(written >= 1 << 20, "fio {rw}: only {written} bytes written");
    assert!(
        read >= written,
        "fio {rw}: verify read {read} of {written} written bytes"
    );
}

#[test]
fn fio_sequential_and_random_verify_at_depth_1_and_32() {
    if !have("fio") {
        return;
    }
    for (rw, depth) in [
        ("write", 1),
        ("randwrite", 1),
        ("write", 32),
        ("randwrite", 32),
        ("randrw", 32),
    ] {
        fio(rw, depth);
    }
}
