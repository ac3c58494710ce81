//! Crash safety of `tierlab serve`: the server is killed (SIGKILL, with a power cut's loss
//! of every unsynced write emulated) at random moments — during promotions, demotions,
//! pre-fetches and write-backs, between a copy and its metadata update, in the middle of
//! a journal or checkpoint write — then restarted. Every block acknowledged as flushed must
//! read back as written (or as a later write), never-written blocks as zero, and `fsck`
//! must find nothing.
//!
//! Rounds: 200 by default, half in tiering and half in caching mode;
//! `TIERLAB_CRASH_ROUNDS=1000` for the long run, `TIERLAB_CRASH_MODE=caching` for one mode.

mod support;

use std::collections::BTreeMap;
use std::process::Command;
use support::nbd::{temp_dir, tierlab, Client, Served};

const POINTS: &[&str] = &["after-data-write", "mid-copy", "after-copy", "before-commit", "torn-journal", "after-journal-ssd", "torn-checkpoint", "after-commit"];
const BLOCKS: u64 = 1536;
const BLOCK: usize = 4096;

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

fn create_args(mode: &str) -> Vec<&'static str> {
    let common = ["--format", "--ssd-size", "3M", "--hdd-size", "9M", "--es", "64K", "--pt", "1", "--mcml", "2", "--journal-size", "16K"];
    let mut v: Vec<&'static str> = common.to_vec();
    v.extend(if mode == "tiering" { ["--mode", "tiering", "--lt", "4", "--ht", "8"].as_slice() } else { ["--mode", "caching", "--write-policy", "write-back"].as_slice() });
    v
}

fn round(dir: &std::path::Path, mode: &str, model: &mut Model, rng: &mut Rng, r: u64, version: &mut u64) -> bool {
    let point = POINTS[(r as usize / 2) % POINTS.len()];
    let nth = 1 + rng.below(6);
    let env = [("TIERLAB_POWER_CUT", (r + 1).to_string()), ("TIERLAB_CRASH_AT", format!("{point}:{nth}"))];
    let kill_after = 50 + rng.below(400);
    let mut crashed = false;
    // A crash point may be reached while the drive opens (its recovery checkpoint).
    let served = Served::try_start(dir, &create_args(mode), &env);
    if let Ok(mut c) = served.as_ref().map_err(|_| ()).and_then(|s| Client::connect(&s.addr).map_err(|_| ())) {
        for op in 0..kill_after {
            // Hot blocks (a tenth of the range) get most of the traffic, so extents move.
            let block = if rng.below(10) < 7 { rng.below(BLOCKS / 10) * 10 % BLOCKS } else { rng.below(BLOCKS) };
            let res = match rng.below(10) {
                0..=5 => {
                    *version += 1;
                    model.wrote(block, *version);
                    c.write(block * BLOCK as u64, &content(block, *version), rng.below(20) == 0)
                }
                6..=8 => c.read(block * BLOCK as u64, BLOCK as u32).map(|b| {
                    let v = version_of(block, &b);
                    assert!(v.is_some_and(|v| model.allowed(block, v)), "round {r}: live read of block {block} gave version {v:?}");
                    0
                }),
                _ => c.flush(),
            };
            match res {
                Ok(0) => {
                    if op % 10 == 9 {
                        // Every tenth op a flush whose ack makes everything before it durable.
                        match c.flush() {
                            Ok(0) => model.flushed(),
                            Ok(e) => panic!("flush failed with errno {e}"),
                            Err(_) => {
                                crashed = true;
                                break;
                            }
                        }
                    }
                }
                Ok(e) => panic!("round {r}: request failed with errno {e}"),
                Err(_) => {
                    crashed = true;
                    break;
                }
            }
        }
    } else {
        crashed = true;
    }
    if let Ok(s) = served {
        s.kill();
    }
    // Restart cleanly and check every block.
    let served = Served::start(dir, &[], &[]);
    let mut c = Client::connect(&served.addr).expect("connect after restart");
    for block in 0..BLOCKS {
        let b = c.read(block * BLOCK as u64, BLOCK as u32).expect("read after restart");
        let v = version_of(block, &b);
        assert!(
            v.is_some_and(|v| model.allowed(block, v)),
            "round {r} ({mode}, crash at {point}:{nth}): block {block} holds {v:?}; durable {:?}, written since {:?}",
            model.durable.get(&block),
            model.since.get(&block)
        );
        // What the restarted drive holds is now the durable state.
        model.since.remove(&block);
        match v {
            Some(0) | None => model.durable.remove(&block),
            Some(v) => model.durable.insert(block, v),
        };
    }
    c.disconnect();
    assert!(served.stop().success(), "round {r}: serve did not stop cleanly");
    let out = Command::new(tierlab()).arg("fsck").arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd")).output().expect("fsck");
    assert!(out.status.success(), "round {r}: fsck: {}", String::from_utf8_lossy(&out.stdout));
    crashed
}

#[test]
fn every_flushed_block_survives_crashes_at_any_point() {
    let rounds: u64 = std::env::var("TIERLAB_CRASH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let mut injected = 0;
    let only = std::env::var("TIERLAB_CRASH_MODE").ok();
    for mode in ["tiering", "caching"].into_iter().filter(|m| only.as_deref().is_none_or(|o| o == *m)) {
        let dir = temp_dir(&format!("crash-{mode}"));
        let mut model = Model::default();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ mode.len() as u64);
        let mut version = 0;
        for r in 0..rounds / 2 {
            if round(&dir, mode, &mut model, &mut rng, r, &mut version) {
                injected += 1;
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let ran = if only.is_some() { rounds / 2 } else { rounds };
    eprintln!("crash rounds: {ran}, of which the server died at an injected point in {injected}");
    // Most rounds must really crash mid-work, or the test proves little.
    assert!(injected * 2 > ran, "only {injected} of {ran} rounds crashed at an injected point");
}
