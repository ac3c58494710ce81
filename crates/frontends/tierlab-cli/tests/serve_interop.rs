//! `tierlab serve` with real tools at the other end of the wire: nbdinfo, qemu-img, fio's
//! nbd engine, `tierlab ctl` and Prometheus; and, where the machine allows it, ext4 on the
//! export through nbdfuse and a loop device, across a server restart.

mod support;

use std::process::Command;
use support::nbd::{temp_dir, tierlab, tool, Served};

const CREATE: &[&str] = &["--format", "--mode", "tiering", "--ssd-size", "16M", "--hdd-size", "64M", "--es", "64K", "--pt", "2", "--lt", "4", "--ht", "8"];

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run tool");
    assert!(out.status.success(), "{cmd:?} failed: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn nbdinfo_qemu_img_fio_and_ctl_work_against_the_drive() {
    if !(tool("nbdinfo") && tool("qemu-img") && tool("fio")) {
        return;
    }
    let dir = temp_dir("interop");
    let metrics_port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("free port").port();
    let metrics = format!("127.0.0.1:{metrics_port}");
    let mut args = CREATE.to_vec();
    args.extend(["--metrics", &metrics, "--model-ssd"]);
    let s = Served::start(&dir, &args, &[]);
    let uri = format!("nbd://{}", s.addr);

    let info: serde_json::Value = serde_json::from_str(&run(Command::new("nbdinfo").args(["--json", &uri]))).expect("nbdinfo json");
    let size = info["exports"][0]["export-size"].as_u64().expect("size");
    assert!(size > 64 << 20, "{size}");
    assert_eq!(info["exports"][0]["can_flush"], true);

    // An image in and out, bit-exact.
    let img: Vec<u8> = (0..16u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(dir.join("in.raw"), &img).expect("write image");
    run(Command::new("qemu-img").args(["convert", "-n", "-f", "raw", "-O", "raw"]).arg(dir.join("in.raw")).arg(&uri));
    run(Command::new("qemu-img").args(["convert", "-f", "raw", "-O", "raw", &uri]).arg(dir.join("out.raw")));
    let out = std::fs::read(dir.join("out.raw")).expect("read image");
    assert_eq!(out.len() as u64, size);
    assert!(out[..img.len()] == img[..], "the image did not come back bit-exact");

    // fio with verification, random and sequential, queue depth 1 and 32.
    for (rw, bs, depth) in [("randrw", "4k", "1"), ("randrw", "4k", "32"), ("write", "1m", "4")] {
        let j = run(Command::new("fio").args([
            "--name=t",
            "--ioengine=nbd",
            &format!("--uri={uri}"),
            &format!("--rw={rw}"),
            &format!("--bs={bs}"),
            &format!("--iodepth={depth}"),
            "--size=24m",
            "--verify=crc32c",
            "--verify_state_save=0",
            "--do_verify=1",
            "--output-format=json",
        ]));
        let v: serde_json::Value = serde_json::from_str(&j[j.find('{').unwrap_or(0)..]).expect("fio json");
        assert_eq!(v["jobs"][0]["error"], 0, "fio {rw} {bs} qd{depth}: {j}");
    }

    // Administration while it runs.
    let ctl = |a: &[&str]| run(Command::new(tierlab()).arg("ctl").arg("--socket").arg(&s.ctl).args(a));
    ctl(&["set", "pt", "4"]);
    ctl(&["set", "mcml", "6"]); // the HDD reserve leaves room to raise it
    let got: serde_json::Value = serde_json::from_str(&ctl(&["get", "--json"])).expect("get json");
    assert_eq!(got["pt"], 4.0);
    assert_eq!(got["mcml"], 6.0);
    let err = Command::new(tierlab()).arg("ctl").arg("--socket").arg(&s.ctl).args(["set", "es", "4096"]).output().expect("ctl");
    assert!(!err.status.success() && String::from_utf8_lossy(&err.stderr).contains("fixed"), "ES must not change");
    let stats: serde_json::Value = serde_json::from_str(&ctl(&["stats", "--json"])).expect("stats json");
    assert!(stats["host_write_bytes"].as_u64().unwrap_or(0) >= 16 << 20);
    assert!(stats["policy"]["promotions"].as_u64().unwrap_or(0) > 0, "{stats}");
    assert!(stats["modelled"]["hdd_energy_j"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(stats["modelled"]["ssd_energy_j"].as_f64().unwrap_or(0.0) > 0.0, "{stats}");
    let table: serde_json::Value = serde_json::from_str(&ctl(&["table", "--json"])).expect("table json");
    assert!(table.as_array().is_some_and(|t| !t.is_empty()));
    let mut http = std::net::TcpStream::connect(&metrics).expect("metrics");
    use std::io::{Read, Write};
    http.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").expect("GET");
    let mut body = String::new();
    http.read_to_string(&mut body).expect("metrics body");
    assert!(body.contains("# TYPE tierlab_promotions_total counter") && body.contains("tierlab_modelled_energy_joules_total{device=\"hdd\"}"), "{body}");

    assert!(s.stop().success());
    let fsck = run(Command::new(tierlab()).arg("fsck").arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd")));
    assert!(fsck.contains("clean"), "{fsck}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// ext4 on the export through nbdfuse + losetup, written, unmounted, the server restarted,
/// mounted again and verified. Needs root, /dev/fuse and loop devices; says so and skips
/// where the machine does not allow it.
#[test]
fn ext4_on_the_drive_survives_a_server_restart() {
    if !(tool("nbdfuse") && tool("losetup") && tool("mkfs.ext4")) {
        return;
    }
    let dir = temp_dir("ext4");
    let (fuse, mnt) = (dir.join("fuse"), dir.join("mnt"));
    std::fs::create_dir_all(&fuse).and_then(|_| std::fs::create_dir_all(&mnt)).expect("dirs");
    let sh = |script: &str| Command::new("timeout").args(["60", "sh", "-ec", script]).output().expect("sh");
    let attach = |addr: &str| {
        let script = format!(
            "nbdfuse {f} nbd://{addr} >/dev/null 2>&1 & for i in $(seq 50); do [ -e {f}/nbd ] && break; sleep 0.1; done; losetup -f --show {f}/nbd",
            f = fuse.display()
        );
        let out = sh(&script);
        (out.status.success(), String::from_utf8_lossy(&out.stdout).trim().to_string(), String::from_utf8_lossy(&out.stderr).trim().to_string())
    };
    let detach = |dev: &str| sh(&format!("umount {m} 2>/dev/null || true; losetup -d {dev}; fusermount3 -u {f} || umount {f}", m = mnt.display(), f = fuse.display()));
    let s = Served::start(&dir, CREATE, &[]);
    let (ok, dev, err) = attach(&s.addr);
    if !ok || !dev.starts_with("/dev/loop") {
        eprintln!("note: this machine does not allow nbdfuse + loop devices ({err}); skipping the ext4 test");
        let _ = sh(&format!("fusermount3 -u {f} || umount {f} || true", f = fuse.display()));
        s.kill();
        return;
    }
    let mk = sh(&format!("mkfs.ext4 -q -F {dev} && mount {dev} {m} && seq 1 200000 > {m}/numbers && head -c 3000000 /dev/zero | tr '\\0' 'x' > {m}/xs && sync", m = mnt.display()));
    if !mk.status.success() {
        eprintln!("note: cannot make or mount ext4 here ({}); skipping", String::from_utf8_lossy(&mk.stderr).trim());
        let _ = detach(&dev);
        s.kill();
        return;
    }
    let d = detach(&dev);
    assert!(d.status.success(), "detach: {}", String::from_utf8_lossy(&d.stderr));
    assert!(s.stop().success());
    let s = Served::start(&dir, &[], &[]);
    let (ok, dev, err) = attach(&s.addr);
    assert!(ok, "reattach: {err}");
    let check = sh(&format!("mount {dev} {m} && seq 1 200000 | cmp - {m}/numbers && [ $(wc -c < {m}/xs) = 3000000 ] && umount {m}", m = mnt.display()));
    let _ = detach(&dev);
    assert!(check.status.success(), "files did not survive: {}", String::from_utf8_lossy(&check.stderr));
    assert!(s.stop().success());
    let fsck = run(Command::new(tierlab()).arg("fsck").arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd")));
    assert!(fsck.contains("clean"), "{fsck}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_power_hook_runs_once_per_idle_period() {
    let dir = temp_dir("hook");
    let mark = dir.join("spun-down");
    let hook = format!("echo x >> {}", mark.display());
    let mut args = CREATE.to_vec();
    args.extend(["--spin-down-s", "0.3", "--spin-down-cmd", &hook]);
    let s = Served::start(&dir, &args, &[]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !mark.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    let stats = run(Command::new(tierlab()).arg("ctl").arg("--socket").arg(&s.ctl).args(["stats", "--json"]));
    assert!(s.stop().success());
    let runs = std::fs::read_to_string(&mark).unwrap_or_default().lines().count();
    assert_eq!(runs, 1, "the hook must run once while the HDD stays idle");
    let v: serde_json::Value = serde_json::from_str(&stats).expect("stats json");
    assert_eq!(v["hdd_spin_downs"], 1);
    assert!(v["endurance"]["hdd_wear_eu"].as_f64().unwrap_or(0.0) > 0.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A drive whose HDD data is laid inside a modelled disk's tracks (`tierlab hdd layout
/// --json`): every byte written over NBD comes back, before and after a restart that does
/// not repeat the tracks; no byte lands in a track's tail that is not a whole 4 KiB block;
/// `ctl stats` and `fsck` report the tracks.
#[test]
fn a_drive_laid_inside_its_hdds_tracks_keeps_its_data_and_its_layout() {
    let dir = temp_dir("tracks");
    let layout = run(Command::new(tierlab()).args(["hdd", "layout", "--device", "maxtor-atlas-10k-v-73gb", "--tracks", "130", "--json"]));
    let tracks_file = dir.join("tracks.json");
    std::fs::write(&tracks_file, &layout).expect("write tracks");
    let mut args = CREATE.to_vec();
    args.extend(["--hdd-tracks", tracks_file.to_str().expect("utf-8 path")]);
    let s = Served::start(&dir, &args, &[]);
    let chunk = |i: u64| -> Vec<u8> { (0..65536u64).map(|k| (i.wrapping_mul(2_654_435_761) ^ k.wrapping_mul(40_503)) as u8 ^ (k >> 8) as u8).collect() };
    let mut c = support::nbd::Client::connect(&s.addr).expect("connect");
    let chunks = c.size_bytes / 65536;
    for i in 0..chunks {
        c.write(i * 65536, &chunk(i), false).expect("write");
    }
    c.flush().expect("flush");
    let check = |c: &mut support::nbd::Client, when: &str| {
        for i in 0..chunks {
            assert!(c.read(i * 65536, 65536).expect("read") == chunk(i), "chunk {i} differs {when}");
        }
    };
    check(&mut c, "before the restart");
    c.disconnect();
    let ctl = |s: &Served, a: &[&str]| run(Command::new(tierlab()).arg("ctl").arg("--socket").arg(&s.ctl).args(a));
    let stats: serde_json::Value = serde_json::from_str(&ctl(&s, &["stats", "--json"])).expect("stats json");
    assert_eq!(stats["hdd_tracks"], 130, "{stats}");
    assert!(stats["hdd_track_splits"].as_u64().unwrap_or(0) > 0, "{stats}");
    assert!(s.stop().success());

    let s = Served::start(&dir, &[], &[]);
    let mut c = support::nbd::Client::connect(&s.addr).expect("connect");
    check(&mut c, "after the restart");
    c.disconnect();
    assert!(s.stop().success());
    let fsck: serde_json::Value = serde_json::from_str(&run(Command::new(tierlab()).arg("fsck").arg("--json").arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd")))).expect("fsck json");
    assert_eq!(fsck["problems"], serde_json::json!([]), "{fsck}");
    assert_eq!(fsck["hdd_tracks"], 130, "{fsck}");

    // Tracks of 1,092 sectors end in 2,048 bytes that hold no whole block: past the
    // metadata (8 MiB is well past it), they are never written.
    let hdd = std::fs::read(dir.join("hdd")).expect("read hdd store");
    let tracks: serde_json::Value = serde_json::from_str(&layout).expect("layout json");
    let mut tails = 0;
    for t in tracks.as_array().expect("tracks") {
        let (first, sectors) = (t["first_lbn"].as_u64().unwrap_or(0) * 512, t["sectors"].as_u64().unwrap_or(0) * 512);
        let used = sectors / 4096 * 4096;
        if first >= 8 << 20 && first + sectors <= hdd.len() as u64 && used < sectors {
            assert!(hdd[(first + used) as usize..(first + sectors) as usize].iter().all(|&b| b == 0), "the tail of the track at byte {first} was written");
            assert!(hdd[first as usize..(first + used) as usize].iter().any(|&b| b != 0), "no data in the track at byte {first}");
            tails += 1;
        }
    }
    assert!(tails >= 40, "only {tails} tracks checked");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tracks file that does not describe tracks one after another is refused with the
/// field at fault; so is a reopen with other tracks than the drive was created with.
#[test]
fn hdd_tracks_that_do_not_fit_are_refused_in_their_own_terms() {
    let dir = temp_dir("tracks-bad");
    let bad = dir.join("gap.json");
    let probe = r#"{"sector_bytes": 512, "tracks": [{"first_lbn": 0, "sectors": 1000, "tracks": 20000}, {"first_lbn": 20000001, "sectors": 900, "tracks": 5}]}"#;
    std::fs::write(&bad, probe).expect("write");
    let mut args = CREATE.to_vec();
    args.extend(["--hdd-tracks", bad.to_str().expect("utf-8 path")]);
    let e = Served::try_start(&dir, &args, &[]).err().expect("a gap between tracks was accepted");
    assert!(e.contains("gap.json: tracks[1].first_lbn: expected 20000000") && e.contains("found 20000001"), "{e}");

    let good = dir.join("good.json");
    std::fs::write(&good, r#"{"sector_bytes": 512, "tracks": [{"first_lbn": 0, "sectors": 1000, "tracks": 200000}]}"#).expect("write");
    let mut args = CREATE.to_vec();
    args.extend(["--hdd-tracks", good.to_str().expect("utf-8 path")]);
    assert!(Served::start(&dir, &args, &[]).stop().success());
    std::fs::write(&good, r#"{"sector_bytes": 512, "tracks": [{"first_lbn": 0, "sectors": 999, "tracks": 200000}]}"#).expect("write");
    let e = Served::try_start(&dir, &["--hdd-tracks", good.to_str().expect("utf-8 path")], &[]).err().expect("other tracks were accepted");
    assert!(e.contains("laid inside 200000 tracks when it was created"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
