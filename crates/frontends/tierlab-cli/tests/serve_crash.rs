//! Crash safety of `tierlab serve`: the server is killed (SIGKILL, with a power cut's loss
//! of every unsynced write emulated) at random moments — during promotions, demotions,
//! pre-fetches and write-backs, between a copy and its metadata update, in the middle of
//! a journal or checkpoint write — while three clients write, read and flush their own
//! blocks at once and the tunables are changed through the ctl socket; then restarted.
//! Every block acknowledged as flushed must read back as written (or as a later write),
//! never-written blocks as zero, and `fsck` must find nothing.
//!
//! Every tenth round also damages the newest checkpoint on both stores before the restart:
//! the server must refuse to serve, `fsck` must not call the drive clean, and after
//! `fsck --repair --discard-unrecoverable` no block may hold another block's data.
//!
//! Rounds: 200 by default, half in tiering mode and half in caching mode, the caching rounds
//! spread over every write policy and replacement (a drive each);
//! `TIERLAB_CRASH_ROUNDS=1000` for the long run, `TIERLAB_CRASH_MODE=caching` for one mode.

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use support::nbd::{temp_dir, tierlab, Client, Served};

const POINTS: &[&str] = &["after-data-write", "mid-copy", "after-copy", "before-commit", "torn-journal", "after-journal-ssd", "torn-checkpoint", "after-commit"];
const BLOCKS: u64 = 1536;
const BLOCK: usize = 4096;
/// Clients at once; client k owns the blocks b with b % CLIENTS == k.
const CLIENTS: u64 = 3;
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn content(block: u64, version: u64) -> Vec<u8> {
    let mut b = vec![0u8; BLOCK];
    for (i, chunk) in b.chunks_exact_mut(16).enumerate() {
        chunk[..8].copy_from_slice(&block.to_le_bytes());
        chunk[8..].copy_from_slice(&(version ^ (i as u64) << 48).to_le_bytes());
    }
    b
}

/// The version a block holds (0: never written), or None if it is garbage.
fn version_of(block: u64, b: &[u8]) -> Option<u64> {
    if b.iter().all(|&x| x == 0) {
        return Some(0);
    }
    let v = u64::from_le_bytes(b[8..16].try_into().ok()?);
    (content(block, v) == b).then_some(v)
}

/// What each block may hold: the version durable at the last acknowledged flush, or any
/// version written after it.
#[derive(Default)]
struct Model {
    durable: BTreeMap<u64, u64>,
    since: BTreeMap<u64, Vec<u64>>,
}

impl Model {
    fn wrote(&mut self, block: u64, v: u64) {
        self.since.entry(block).or_default().push(v);
    }
    fn flushed(&mut self) {
        for (b, vs) in std::mem::take(&mut self.since) {
            if let Some(&last) = vs.last() {
                self.durable.insert(b, last);
            }
        }
    }
    fn allowed(&self, block: u64, v: u64) -> bool {
        self.durable.get(&block).copied().unwrap_or(0) == v || self.since.get(&block).is_some_and(|vs| vs.contains(&v))
    }
}

/// One drive under test: the creation flags that pick its mode and policies.
struct Variant {
    flags: Vec<&'static str>,
}

impl Variant {
    /// How a failure names the drive it happened on.
    fn name(&self) -> String {
        self.flags.join(" ")
    }
}

fn variants(mode: &'static str) -> Vec<Variant> {
    if mode == "tiering" {
        return vec![Variant { flags: vec!["--mode", "tiering", "--lt", "4", "--ht", "8"] }];
    }
    let mut v = Vec::new();
    for write in ["write-back", "write-through", "write-around"] {
        for replacement in ["lru", "arc", "2q", "wsclock", "fifo"] {
            v.push(Variant { flags: vec!["--mode", mode, "--write-policy", write, "--replacement", replacement] });
        }
    }
    v
}

fn create_args(v: &Variant) -> Vec<&'static str> {
    let mut a = vec!["--format", "--ssd-size", "3M", "--hdd-size", "9M", "--es", "64K", "--pt", "1", "--mcml", "2", "--journal-size", "16K"];
    a.extend(v.flags.iter().copied());
    a
}

/// A tunable changed through the ctl socket while the drive runs (errors ignored: the
/// server may be dying).
fn ctl_set(ctl: &std::path::Path, name: &str, value: u64) {
    if let Ok(mut s) = std::os::unix::net::UnixStream::connect(ctl) {
        let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(5)));
        let _ = writeln!(s, "{{\"cmd\":\"set\",\"name\":\"{name}\",\"value\":{value}}}");
        let _ = BufReader::new(s).read_line(&mut String::new());
    }
}

/// One client's share of a round: its own blocks, writes, reads and flushes until
/// `ops` are done or the server dies (true).
fn client_ops(addr: &str, ctl: &std::path::Path, k: u64, model: &mut Model, seed: u64, ops: u64, version: &AtomicU64, at: &str) -> bool {
    let Ok(mut c) = Client::connect(addr) else { return true };
    let mut rng = Rng(seed | 1);
    for op in 0..ops {
        // Hot blocks (a tenth of the range) get most of the traffic, so extents move.
        let pick = if rng.below(10) < 7 { rng.below(BLOCKS / 10) * 10 % BLOCKS } else { rng.below(BLOCKS) };
        let block = pick - pick % CLIENTS + k;
        if block >= BLOCKS {
            continue;
        }
        if k == 0 && op % 40 == 39 {
            ctl_set(ctl, if rng.below(2) == 0 { "pt" } else { "mcml" }, 1 + rng.below(2));
        }
        let res = match rng.below(10) {
            0..=5 => {
                let v = version.fetch_add(1, Ordering::Relaxed) + 1;
                model.wrote(block, v);
                c.write(block * BLOCK as u64, &content(block, v), rng.below(20) == 0)
            }
            6..=8 => c.read(block * BLOCK as u64, BLOCK as u32).map(|b| {
                let v = version_of(block, &b);
                assert!(v.is_some_and(|v| model.allowed(block, v)), "{at}: live read of block {block} gave version {v:?}");
                0
            }),
            _ => c.flush(),
        };
        match res {
            Ok(0) if op % 10 == 9 => match c.flush() {
                // A flush whose ack makes everything this client wrote before it durable.
                Ok(0) => model.flushed(),
                Ok(e) => panic!("{at}: flush failed with errno {e}"),
                Err(_) => return true,
            },
            Ok(0) => {}
            Ok(e) => panic!("{at}: request failed with errno {e}"),
            Err(_) => return true,
        }
    }
    false
}

/// Damage the checkpoint with the highest generation on each store (a byte of its
/// header that its checksum covers).
fn damage_newest_checkpoints(dir: &std::path::Path) {
    for name in ["ssd", "hdd"] {
        let path = dir.join(name);
        let mut b = std::fs::read(&path).expect("read store");
        let slot_bytes = u64::from_le_bytes(b[56..64].try_into().expect("8 bytes")) as usize;
        let newest = [4096, 4096 + slot_bytes]
            .into_iter()
            .filter(|&at| b.get(at..at + 8) == Some(b"TLCKPT01"))
            .max_by_key(|&at| u64::from_le_bytes(b[at + 8..at + 16].try_into().expect("8 bytes")));
        if let Some(at) = newest {
            b[at + 17] ^= 0x5a;
            std::fs::write(&path, &b).expect("write store");
        }
    }
}

fn fsck(dir: &std::path::Path, extra: &[&str]) -> (bool, String) {
    let out = Command::new(tierlab()).arg("fsck").arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd")).args(extra).output().expect("fsck");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// What one round did.
struct Outcome {
    /// The server died at an injected point.
    crashed: bool,
    /// Committed metadata was lost on both stores.
    lost: bool,
    /// Blocks holding written data that read back, after the restart, as the model allows.
    verified: u64,
}

/// One round.
fn round(dir: &std::path::Path, v: &Variant, models: &mut [Model], rng: &mut Rng, r: u64, version: &AtomicU64) -> Outcome {
    // Failures name the round and the drive's policies.
    let at = format!("round {r} ({})", v.name());
    let at = at.as_str();
    let point = POINTS[(r as usize / 2) % POINTS.len()];
    let nth = 1 + rng.below(6);
    let env = [("TIERLAB_POWER_CUT", (r + 1).to_string()), ("TIERLAB_CRASH_AT", format!("{point}:{nth}"))];
    let ops = 20 + rng.below(150);
    let seeds: Vec<u64> = (0..CLIENTS).map(|_| rng.next()).collect();
    // A crash point may be reached while the drive opens (its recovery checkpoint).
    let served = Served::try_start(dir, &create_args(v), &env);
    let crashed = match &served {
        Ok(s) => std::thread::scope(|scope| {
            let handles: Vec<_> = models
                .iter_mut()
                .enumerate()
                .map(|(k, model)| {
                    let (addr, ctl, seed) = (s.addr.as_str(), s.ctl.as_path(), seeds[k]);
                    scope.spawn(move || client_ops(addr, ctl, k as u64, model, seed, ops, version, at))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a client thread panicked")).fold(false, |a, b| a | b)
        }),
        Err(_) => true,
    };
    if let Ok(s) = served {
        s.kill();
    }
    let damaged = r % 10 == 9;
    let mut lost = false;
    if damaged {
        damage_newest_checkpoints(dir);
        if let Err(e) = Served::try_start(dir, &[], &[]) {
            assert!(e.contains("committed metadata is lost") && e.contains("--discard-unrecoverable"), "{at}: {e}");
            let (ok, out) = fsck(dir, &[]);
            assert!(!ok && !out.ends_with("clean\n"), "{at}: fsck of a drive that lost metadata: {out}");
            let (ok, out) = fsck(dir, &["--repair", "--discard-unrecoverable"]);
            assert!(ok, "{at}: fsck --repair --discard-unrecoverable: {out}");
            lost = true;
        }
    }
    // Restart cleanly and check every block.
    let served = Served::start(dir, &[], &[]);
    let mut c = Client::connect(&served.addr).expect("connect after restart");
    let mut verified = 0;
    for block in 0..BLOCKS {
        let model = &mut models[(block % CLIENTS) as usize];
        let b = c.read(block * BLOCK as u64, BLOCK as u32).expect("read after restart");
        let v = version_of(block, &b);
        if lost {
            // What could not be recovered reads as zeros or an older version of the block
            // itself, never as another block's data.
            assert!(v.is_some(), "{at} ({} {:?}): after a loss block {block} holds another block's data", v.is_some(), v);
        } else {
            assert!(
                v.is_some_and(|v| model.allowed(block, v)),
                "{at} ({} {:?}, crash at {point}:{nth}): block {block} holds {v:?}; durable {:?}, written since {:?}",
                v.is_some(),
                v,
                model.durable.get(&block),
                model.since.get(&block)
            );
        }
        verified += u64::from(v.is_some_and(|v| v != 0));
        // What the restarted drive holds is now the durable state.
        model.since.remove(&block);
        match v {
            Some(0) | None => model.durable.remove(&block),
            Some(v) => model.durable.insert(block, v),
        };
    }
    c.disconnect();
    assert!(served.stop().success(), "{at}: serve did not stop cleanly");
    let (ok, out) = fsck(dir, &[]);
    assert!(ok, "{at}: fsck: {out}");
    Outcome { crashed, lost, verified }
}

#[test]
fn every_flushed_block_survives_crashes_at_any_point() {
    let rounds: u64 = std::env::var("TIERLAB_CRASH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let (mut injected, mut losses, mut verified) = (0, 0, 0);
    let started = std::time::Instant::now();
    let only = std::env::var("TIERLAB_CRASH_MODE").ok();
    for mode in ["tiering", "caching"].into_iter().filter(|m| only.as_deref().is_none_or(|o| o == *m)) {
        let variants = variants(mode);
        let dirs: Vec<_> = (0..variants.len()).map(|i| temp_dir(&format!("crash-{mode}-{i}"))).collect();
        let mut models: Vec<Vec<Model>> = variants.iter().map(|_| (0..CLIENTS).map(|_| Model::default()).collect()).collect();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ mode.len() as u64);
        let version = AtomicU64::new(0);
        for r in 0..rounds / 2 {
            let i = r as usize % variants.len();
            let o = round(&dirs[i], &variants[i], &mut models[i], &mut rng, r, &version);
            injected += u64::from(o.crashed);
            losses += u64::from(o.lost);
            verified += o.verified;
        }
        for d in dirs {
            let _ = std::fs::remove_dir_all(&d);
        }
    }
    let ran = if only.is_some() { rounds / 2 } else { rounds };
    eprintln!(
        "crash rounds: {ran}, of which the server died at an injected point in {injected}, and {losses} lost metadata on both stores; after the restarts {verified} reads of written blocks gave what was written, none another version or block; {:.0} s",
        started.elapsed().as_secs_f64()
    );
    // Most rounds must really crash mid-work, or the test proves little.
    assert!(injected * 2 > ran, "only {injected} of {ran} rounds crashed at an injected point");
    assert!(losses * 40 >= ran, "only {losses} of {ran} rounds lost metadata on both stores");
}
