//! Administration while the drive runs: the `tierlab ctl` protocol on a local Unix socket
//! (one JSON request per line, one JSON answer per line) and the Prometheus exposition.

use crate::drive::{Drive, DriveStats};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

const MAX_LINE_BYTES: u64 = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "lowercase")]
pub enum Request {
    Get,
    Set { name: String, value: f64 },
    Stats,
    Table,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Response {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Answer one request.
pub fn handle(drive: &Drive, req: &Request) -> Response {
    let result = match req {
        Request::Get => drive.params().map(|p| serde_json::Value::Object(p.into_iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect())),
        Request::Set { name, value } => drive.set_param(name, *value).map(|_| serde_json::json!({ "set": name, "value": value })),
        Request::Stats => drive.stats().map(|s| serde_json::to_value(s).unwrap_or_default()),
        Request::Table => drive.table().map(|t| serde_json::to_value(t).unwrap_or_default()),
    };
    match result {
        Ok(v) => Response { ok: true, result: Some(v), error: None },
        Err(e) => Response { ok: false, result: None, error: Some(e.to_string()) },
    }
}

/// Answer one request line.
pub fn answer(drive: &Drive, line: &str) -> Response {
    match serde_json::from_str::<Request>(line) {
        Ok(req) => handle(drive, &req),
        Err(e) => Response { ok: false, result: None, error: Some(format!("bad request: {e}; expected e.g. {{\"cmd\":\"set\",\"name\":\"pt\",\"value\":4}}")) },
    }
}

fn serve_conn(drive: &Drive, stream: UnixStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(w) = stream.try_clone() else { return };
    let mut w = w;
    let mut reader = BufReader::new(stream.take(u64::MAX));
    loop {
        let mut line = String::new();
        let n = match (&mut reader).take(MAX_LINE_BYTES).read_line(&mut line) {
            Ok(n) => n,
            Err(_) => return,
        };
        if n == 0 {
            return;
        }
        let resp = if line.ends_with('\n') {
            answer(drive, line.trim())
        } else {
            Response { ok: false, result: None, error: Some(format!("request longer than {MAX_LINE_BYTES} bytes")) }
        };
        let mut out = serde_json::to_string(&resp).unwrap_or_default();
        out.push('\n');
        if w.write_all(out.as_bytes()).is_err() || !line.ends_with('\n') {
            return;
        }
    }
}

/// The directory for admin sockets: `$XDG_RUNTIME_DIR` (private to the user by its
/// definition), else `/tmp/tierlab-UID`, created owner-only and refused if anyone else
/// owns it or may enter it.
pub fn runtime_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_absolute() && d.is_dir()) {
        return Ok(d);
    }
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let d = std::env::temp_dir().join(format!("tierlab-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&d) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(std::io::Error::new(e.kind(), format!("{}: {e}", d.display()))),
    }
    let m = std::fs::symlink_metadata(&d)?;
    if !m.is_dir() || m.uid() != uid || m.permissions().mode() & 0o077 != 0 {
        return Err(std::io::Error::other(format!("{}: not a directory private to this user (uid {uid}, mode 0700); remove it or set XDG_RUNTIME_DIR", d.display())));
    }
    Ok(d)
}

/// The admin socket of the drive whose SSD store is `ssd` when `--ctl` is not given:
/// `tierlab-HASH.ctl` in [`runtime_dir`], the hash of the store's canonical path, so each
/// drive has its own and `tierlab ctl --ssd STORE` finds it.
pub fn default_ctl_path(ssd: &Path) -> std::io::Result<PathBuf> {
    // A store yet to be created: its directory's canonical path and its name.
    let canonical = match (ssd.canonicalize(), ssd.parent(), ssd.file_name()) {
        (Ok(p), _, _) => p,
        (Err(_), Some(dir), Some(name)) if !ssd.exists() => {
            let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
            dir.canonicalize().map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?.join(name)
        }
        (Err(e), _, _) => return Err(std::io::Error::new(e.kind(), format!("{}: {e}", ssd.display()))),
    };
    // FNV-1a: stable across builds and platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in canonical.as_os_str().as_encoded_bytes() {
        h = (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    Ok(runtime_dir()?.join(format!("tierlab-{h:016x}.ctl")))
}

/// The running drives' admin sockets in [`runtime_dir`] (those that answer a connection).
pub fn live_sockets() -> Vec<PathBuf> {
    let Ok(dir) = runtime_dir() else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("tierlab-") && n.ends_with(".ctl")))
        .filter(|p| UnixStream::connect(p).is_ok())
        .collect();
    out.sort();
    out
}

/// Make way for a socket at `path`: nothing there, or a socket of this user's that no
/// server answers on any more (left by a server that was killed), which is removed.
/// Anything else is refused and left as it is.
pub fn claim(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let m = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let refuse = |why: &str| Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, format!("{}: {why}; not replaced (give another --ctl path)", path.display())));
    if !m.file_type().is_socket() {
        return refuse("exists and is not a socket");
    }
    // SAFETY: getuid cannot fail.
    if m.uid() != unsafe { libc::getuid() } {
        return refuse(&format!("a socket owned by uid {}", m.uid()));
    }
    match UnixStream::connect(path) {
        Ok(_) => refuse("a running server answers on this socket"),
        Err(e) if e.raw_os_error() == Some(libc::ECONNREFUSED) => std::fs::remove_file(path),
        Err(e) => refuse(&format!("a socket that cannot be checked ({e})")),
    }
}

/// Serve the admin socket at `path` until `stop` is set. Only a stale socket of this
/// user's is replaced; the socket is readable and writable by its owner alone, and
/// removed on the way out if it is still ours.
pub fn serve_admin(drive: Arc<Drive>, path: &Path, stop: Arc<AtomicBool>) -> std::io::Result<JoinHandle<()>> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    claim(path)?;
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    let ours = std::fs::symlink_metadata(path).map(|m| (m.dev(), m.ino()))?;
    listener.set_nonblocking(true)?;
    let path = path.to_path_buf();
    std::thread::Builder::new().name("tierlab-ctl".into()).spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((s, _)) => {
                    let _ = s.set_nonblocking(false);
                    let d = Arc::clone(&drive);
                    let _ = std::thread::Builder::new().name("tierlab-ctl-conn".into()).spawn(move || serve_conn(&d, s));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| (m.dev(), m.ino()) == ours) {
            let _ = std::fs::remove_file(&path);
        }
    })
}

/// Send one request to a running drive's admin socket.
pub fn request(path: &Path, req: &Request) -> Result<serde_json::Value, String> {
    let mut s = UnixStream::connect(path).map_err(|e| format!("{}: {e} (is `tierlab serve` running with this --ctl socket?)", path.display()))?;
    let mut line = serde_json::to_string(req).map_err(|e| e.to_string())?;
    line.push('\n');
    s.write_all(line.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut answer = String::new();
    BufReader::new(s.take(64 << 20)).read_line(&mut answer).map_err(|e| format!("{}: {e}", path.display()))?;
    let resp: Response = serde_json::from_str(&answer).map_err(|e| format!("unreadable answer from the drive: {e}"))?;
    match (resp.ok, resp.result, resp.error) {
        (true, Some(v), _) => Ok(v),
        (_, _, Some(e)) => Err(e),
        _ => Err("empty answer from the drive".into()),
    }
}

/// The Prometheus text exposition (format 0.0.4) of the drive's figures.
pub fn render_metrics(s: &DriveStats) -> String {
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, samples: &[(&str, f64)]| {
        out.push_str(&format!("# HELP tierlab_{name} {help}\n# TYPE tierlab_{name} {kind}\n"));
        for (labels, v) in samples {
            out.push_str(&format!("tierlab_{name}{labels} {v}\n"));
        }
    };
    let p = &s.policy;
    metric("ssd_hit_ratio", "gauge", "Share of request pieces served by the SSD path (or a RAM copy).", &[("", s.ssd_hit_ratio)]);
    metric("promotions_total", "counter", "Extents promoted HDD to SSD (tiering).", &[("", p.promotions as f64)]);
    metric("demotions_total", "counter", "Extents demoted SSD to HDD (tiering).", &[("", p.demotions as f64)]);
    metric("prefetches_total", "counter", "Extents copied into the SSD cache (caching).", &[("", p.prefetches as f64)]);
    metric("evictions_total", "counter", "Extents evicted from the SSD cache (caching).", &[("", p.evictions as f64)]);
    metric("write_backs_total", "counter", "Dirty extents written back to the HDD (caching).", &[("", p.write_backs as f64)]);
    metric("cancelled_migrations_total", "counter", "Migrations dropped (busy extent, full SSD, failed copy).", &[("", p.cancelled_migrations as f64)]);
    metric("moved_bytes_total", "counter", "Bytes copied by migrations.", &[("", p.bytes_moved as f64)]);
    metric("dirty_extents", "gauge", "Cached extents newer than their HDD copy.", &[("", p.dirty_extents as f64)]);
    metric("free_ssd_extents", "gauge", "SSD extents holding no data.", &[("", p.free_ssd_extents as f64)]);
    metric("host_requests_total", "counter", "Host requests served.", &[("{op=\"read\"}", s.host_reads as f64), ("{op=\"write\"}", s.host_writes as f64)]);
    metric("host_bytes_total", "counter", "Host bytes transferred.", &[("{op=\"read\"}", s.host_read_bytes as f64), ("{op=\"write\"}", s.host_write_bytes as f64)]);
    metric(
        "device_bytes_total",
        "counter",
        "Bytes the drive issued to its backing stores.",
        &[
            ("{device=\"ssd\",op=\"read\"}", s.ssd_read_bytes as f64),
            ("{device=\"ssd\",op=\"write\"}", s.ssd_write_bytes as f64),
            ("{device=\"hdd\",op=\"read\"}", s.hdd_read_bytes as f64),
            ("{device=\"hdd\",op=\"write\"}", s.hdd_write_bytes as f64),
        ],
    );
    metric("flushes_total", "counter", "Flushes (and FUA writes) made durable.", &[("", s.flushes as f64)]);
    metric("io_errors_total", "counter", "Errors from the backing stores.", &[("", s.io_errors as f64)]);
    metric("checkpoints_total", "counter", "Metadata checkpoints written since start.", &[("", s.checkpoints as f64)]);
    metric("hdd_idle_seconds", "gauge", "Time since the HDD path last served host I/O.", &[("", s.hdd_idle_s)]);
    if let Some(m) = &s.modelled {
        let samples: Vec<(&str, f64)> = [("{device=\"ssd\"}", m.ssd_energy_j), ("{device=\"hdd\"}", m.hdd_energy_j)]
            .into_iter()
            .filter_map(|(l, v)| Some((l, v?)))
            .collect();
        metric("modelled_energy_joules_total", "counter", "Energy the catalog's device models charge for the I/O issued (modelled, not measured).", &samples);
    }
    if let Some(e) = &s.endurance {
        metric(
            "modelled_wear_eu",
            "gauge",
            "Rated life used, parts per million (modelled: SSD writes vs rated writes, HDD start/stop cycles vs rated cycles).",
            &[("{device=\"ssd\"}", e.ssd_wear_eu), ("{device=\"hdd\"}", e.hdd_wear_eu)],
        );
    }
    metric("hdd_spin_downs_total", "counter", "Times the power hook spun the HDD down.", &[("", s.hdd_spin_downs as f64)]);
    if s.hdd_tracks.is_some() {
        metric("hdd_track_splits_total", "counter", "HDD I/Os cut at a track boundary (the HDD's data is laid inside its tracks).", &[("", s.hdd_track_splits as f64)]);
    }
    out
}

/// Scrapes answered at once; a connection beyond them is answered 503 at once.
const MAX_SCRAPES: usize = 8;
/// How long a scraper may take to send its request or take the answer.
const SCRAPE_TIMEOUT: Duration = Duration::from_secs(5);

/// Serve `GET /metrics` on `addr` until `stop` is set. Each connection is answered on a
/// thread of its own (up to [`MAX_SCRAPES`] at once), so idle connections never delay a
/// scrape.
pub fn serve_metrics(drive: Arc<Drive>, addr: SocketAddr, stop: Arc<AtomicBool>) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    let listener = TcpListener::bind(addr)?;
    let local = listener.local_addr()?;
    listener.set_nonblocking(true)?;
    let busy = Arc::new(AtomicUsize::new(0));
    let h = std::thread::Builder::new().name("tierlab-metrics".into()).spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            let Ok((s, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            let _ = s.set_nonblocking(false);
            let _ = s.set_read_timeout(Some(SCRAPE_TIMEOUT));
            let _ = s.set_write_timeout(Some(SCRAPE_TIMEOUT));
            if busy.fetch_add(1, Ordering::SeqCst) >= MAX_SCRAPES {
                busy.fetch_sub(1, Ordering::SeqCst);
                respond(s, "503 Service Unavailable", "too many scrapes at once\n");
                continue;
            }
            let (d, b) = (Arc::clone(&drive), Arc::clone(&busy));
            let spawned = std::thread::Builder::new().name("tierlab-metrics-conn".into()).spawn(move || {
                scrape(&d, s);
                b.fetch_sub(1, Ordering::SeqCst);
            });
            if spawned.is_err() {
                busy.fetch_sub(1, Ordering::SeqCst);
            }
        }
    })?;
    Ok((local, h))
}

fn scrape(drive: &Drive, mut s: TcpStream) {
    let mut head = [0u8; 2048];
    let n = s.read(&mut head).unwrap_or(0);
    let first = String::from_utf8_lossy(&head[..n]);
    if first.starts_with("GET /metrics ") || first.starts_with("GET /metrics?") {
        match drive.stats() {
            Ok(st) => respond(s, "200 OK", &render_metrics(&st)),
            Err(e) => respond(s, "500 Internal Server Error", &format!("{e}\n")),
        }
    } else {
        respond(s, "404 Not Found", "only /metrics is served here\n")
    }
}

fn respond(mut s: TcpStream, status: &str, body: &str) {
    let resp = format!("HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    let _ = s.write_all(resp.as_bytes());
}
