//! `tierlab serve` against mistakes and damage: a damaged drive is never formatted again,
//! a second server on the same stores is refused, and so is `fsck` on a live drive.

mod support;

use std::process::Command;
use support::nbd::{temp_dir, tierlab, Client, Served};

/// The README's creating command, at test sizes.
const CREATE: &[&str] = &["--format", "--mode", "tiering", "--ssd-size", "64M", "--hdd-size", "256M", "--es", "256K", "--pt", "2"];
const BLOCK: usize = 4096;

fn block(i: u64) -> Vec<u8> {
    (0..BLOCK as u64).map(|k| (i.wrapping_mul(0x9E37_79B9) ^ k.wrapping_mul(131)) as u8 | 1).collect()
}

fn fsck(dir: &std::path::Path, repair: bool) -> (bool, String) {
    let mut c = Command::new(tierlab());
    c.arg("fsck").arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd"));
    if repair {
        c.arg("--repair");
    }
    let out = c.output().expect("run fsck");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// One byte of the HDD store's superblock magic changed, then the README's serve command
/// run again: refused, nothing written, and `fsck --repair` brings every block back.
#[test]
fn a_damaged_superblock_is_not_formatted_again_and_fsck_repair_restores_every_block() {
    let dir = temp_dir("misuse-sb");
    let s = Served::start(&dir, CREATE, &[]);
    let mut c = Client::connect(&s.addr).expect("connect");
    let blocks = (c.size_bytes / BLOCK as u64).min(2432);
    for i in 0..blocks {
        assert_eq!(c.write(i * BLOCK as u64, &block(i), false).expect("write"), 0);
    }
    assert_eq!(c.flush().expect("flush"), 0);
    c.disconnect();
    assert!(s.stop().success());

    let hdd = dir.join("hdd");
    let mut b = std::fs::read(&hdd).expect("read hdd");
    b[3] ^= 0x20;
    std::fs::write(&hdd, &b).expect("damage hdd");
    let before = (std::fs::read(dir.join("ssd")).expect("ssd"), std::fs::read(&hdd).expect("hdd"));
    for args in [CREATE, &[]] {
        let e = Served::try_start(&dir, args, &[]).err().expect("served a drive with a damaged superblock");
        assert!(e.contains("damaged tierlab drive") && e.contains("tierlab fsck") && e.contains(&hdd.display().to_string()), "{e}");
    }
    assert!(std::fs::read(dir.join("ssd")).expect("ssd") == before.0 && std::fs::read(&hdd).expect("hdd") == before.1, "a refused serve wrote to the stores");
    let (ok, out) = fsck(&dir, false);
    assert!(!ok && !out.contains("\nclean"), "{out}");
    let (ok, out) = fsck(&dir, true);
    assert!(ok && out.contains("repaired"), "{out}");
    let (ok, out) = fsck(&dir, false);
    assert!(ok && out.contains("clean"), "{out}");

    let s = Served::start(&dir, &[], &[]);
    let mut c = Client::connect(&s.addr).expect("connect");
    let lost = (0..blocks).filter(|&i| c.read(i * BLOCK as u64, BLOCK as u32).expect("read") != block(i)).count();
    assert_eq!(lost, 0, "{lost} of {blocks} blocks lost");
    c.disconnect();
    assert!(s.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A second server on the same stores is refused while the first runs, as is `fsck`
/// (with or without --repair); both work once it has stopped.
#[test]
fn a_second_server_and_fsck_on_a_live_drive_are_refused() {
    let dir = temp_dir("misuse-lock");
    let s = Served::start(&dir, CREATE, &[]);
    let other = dir.join("other");
    std::fs::create_dir_all(&other).expect("dir");
    for name in ["ssd", "hdd"] {
        std::os::unix::fs::symlink(dir.join(name), other.join(name)).expect("symlink");
    }
    for args in [&[][..], CREATE] {
        let e = Served::try_start(&other, args, &[]).err().expect("a second server ran on the same stores");
        assert!(e.contains("in use by another process"), "{e}");
    }
    for repair in [false, true] {
        let (ok, out) = fsck(&dir, repair);
        assert!(!ok && out.contains("in use by another process"), "fsck (repair {repair}) on a live drive: {out}");
    }
    let mut c = Client::connect(&s.addr).expect("the first server still serves");
    assert_eq!(c.write(0, &block(0), true).expect("write"), 0);
    c.disconnect();
    assert!(s.stop().success());
    let (ok, out) = fsck(&dir, false);
    assert!(ok && out.contains("clean"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn ctl(env: &[(&str, String)], args: &[&str]) -> (bool, String) {
    let mut c = Command::new(tierlab());
    c.arg("ctl").args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run ctl");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// `--ctl PATH` replaces nothing but a stale socket of the user's: a file is left as it
/// was, a live server's socket too; the socket made is owner-only.
#[test]
fn the_ctl_socket_never_replaces_a_file_or_a_live_servers_socket() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("misuse-ctl");
    let ctl_path = dir.join("ctl");
    std::fs::write(&ctl_path, "precious").expect("write");
    let e = Served::try_start(&dir, CREATE, &[]).err().expect("served over a regular file at --ctl");
    assert!(e.contains("is not a socket") && e.contains("not replaced"), "{e}");
    assert_eq!(std::fs::read_to_string(&ctl_path).expect("the file is gone"), "precious");
    assert!(!dir.join("ssd").exists(), "the drive was created although serve refused to start");
    std::fs::remove_file(&ctl_path).expect("rm");

    // A stale socket (its server gone) is replaced.
    drop(std::os::unix::net::UnixListener::bind(&ctl_path).expect("bind"));
    let a = Served::start(&dir, CREATE, &[]);
    let mode = std::fs::metadata(&ctl_path).expect("socket").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "socket mode {mode:o}");
    // A live server's socket is not.
    let other = temp_dir("misuse-ctl-other");
    let e = Served::try_start_ctl(&other, Some(&ctl_path), CREATE, &[]).err().expect("took a live server's socket");
    assert!(e.contains("a running server answers"), "{e}");
    let (ok, out) = ctl(&[], &["--socket", ctl_path.to_str().expect("utf-8"), "get"]);
    assert!(ok && out.contains("pt"), "{out}");
    assert!(a.stop().success());
    assert!(!ctl_path.exists(), "the socket was left behind");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

/// Without --ctl each drive gets its own socket in the runtime directory, and `tierlab
/// ctl` finds it from the drive's SSD store, or alone when one drive runs.
#[test]
fn each_drive_has_its_own_default_ctl_socket_that_ctl_finds() {
    use std::os::unix::fs::PermissionsExt;
    let base = temp_dir("misuse-ctl-default");
    let run = base.join("run");
    std::fs::create_dir_all(&run).expect("dir");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let env = [("XDG_RUNTIME_DIR", run.display().to_string())];
    let (a_dir, b_dir) = (base.join("a"), base.join("b"));
    for d in [&a_dir, &b_dir] {
        std::fs::create_dir_all(d).expect("dir");
    }
    let a = Served::try_start_ctl(&a_dir, None, CREATE, &env).expect("first drive");
    let b = Served::try_start_ctl(&b_dir, None, CREATE, &env).expect("second drive");
    assert_ne!(a.ctl, b.ctl);
    assert!(a.ctl.starts_with(&run) && b.ctl.starts_with(&run), "{:?} {:?}", a.ctl, b.ctl);
    let (ok, out) = ctl(&env, &["set", "pt", "3", "--ssd", a_dir.join("ssd").to_str().expect("utf-8")]);
    assert!(ok, "{out}");
    let (ok, out) = ctl(&env, &["get", "--json", "--ssd", b_dir.join("ssd").to_str().expect("utf-8")]);
    assert!(ok && out.contains("\"pt\": 2"), "the second drive changed too: {out}");
    let (ok, out) = ctl(&env, &["get"]);
    assert!(!ok && out.contains("2 drives are running"), "{out}");
    assert!(b.stop().success());
    let (ok, out) = ctl(&env, &["get", "--json"]);
    assert!(ok && out.contains("\"pt\": 3"), "{out}");
    assert!(a.stop().success());
    let _ = std::fs::remove_dir_all(&base);
}

/// A client beyond --max-connections hears the protocol's error; the ones within are served.
#[test]
fn a_connection_beyond_the_limit_is_refused_with_the_protocols_error() {
    let dir = temp_dir("misuse-conns");
    let mut args = CREATE.to_vec();
    args.extend(["--max-connections", "1"]);
    let s = Served::start(&dir, &args, &[]);
    let mut first = Client::connect(&s.addr).expect("the first client");
    let e = Client::connect(&s.addr).err().expect("a second client got in");
    assert!(e.to_string().contains("0x80000002"), "{e}");
    assert_eq!(first.write(0, &block(0), true).expect("write"), 0);
    first.disconnect();
    assert!(s.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// An extent size the drive cannot have is named as such, before any file is created.
#[test]
fn serve_with_a_bad_extent_size_says_so_and_leaves_no_files() {
    let dir = temp_dir("misuse-es");
    for es in ["0", "1000", "2M"] {
        let out = Command::new(tierlab())
            .args(["serve", "--format", "--mode", "tiering", "--ssd-size", "64M", "--hdd-size", "256M", "--es", es, "--listen", "127.0.0.1:0"])
            .arg("--ssd")
            .arg(dir.join("ssd"))
            .arg("--hdd")
            .arg(dir.join("hdd"))
            .arg("--ctl")
            .arg(dir.join("ctl"))
            .output()
            .expect("run serve");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("`es`") && err.contains("from 4 KiB to 1 MiB"), "--es {es}: {err}");
        assert!(!err.contains("metadata"), "--es {es}: {err}");
        assert!(!dir.join("ssd").exists() && !dir.join("hdd").exists(), "--es {es} left backing files");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
