//! Test helpers: small drives and (test-only) readers for the DiskSim/MQSim ASCII and
//! blkreplay traces in ../shared/traces, until tierlab-trace lands.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use tierlab_ssd::{FtlKind, SsdSpec, VictimPolicy, WearLeveling};
use tierlab_types::{IoRequest, Op, NS_PER_MS, NS_PER_S, SECTOR_BYTES};

/// A tiny drive: 2 planes on one channel, 16 blocks of 8 pages of 64 B each (16 mapping
/// entries per DFTL translation page), so collection and merges happen within a few
/// hundred writes.
pub fn tiny(kind: FtlKind) -> SsdSpec {
    let mut s = SsdSpec::study_slc(16, kind);
    s.geometry.channels = 1;
    s.geometry.dies_per_package = 2;
    s.geometry.pages_per_block = 8;
    s.geometry.page_bytes = 64;
    s.geometry.oob_bytes = 8;
    s.over_provisioning = 0.3;
    s.gc.free_block_threshold = 1;
    s.ftl.log_blocks_fraction = 0.1;
    s.sram_bytes = s
        .sram_needed_bytes(kind)
        .max(s.translation_pages() * 4 + 12 * 8);
    s
}

pub fn with_policy(mut s: SsdSpec, victim: VictimPolicy, wear: WearLeveling) -> SsdSpec {
    s.gc.victim = victim;
    s.wear_leveling.mode = wear;
    s.wear_leveling.gap_erases = 2;
    s.wear_leveling.check_interval_erases = 4;
    s
}

pub fn traces_dir() -> Option<PathBuf> {
    let d = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../shared/traces"
    ));
    if d.is_dir() {
        Some(d)
    } else {
        println!("note: {} is absent; skipping", d.display());
        None
    }
}

/// DiskSim/MQSim ASCII: `arrival devno lba_sectors size_sectors op` (op 1 = read).
/// `unit_ns` converts the arrival field (1 for ns, NS_PER_MS for ms). Bad lines skipped.
pub fn read_disksim(path: &PathBuf, unit_ns: u64) -> Vec<IoRequest> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 5 {
                return None;
            }
            let t: f64 = f[0].parse().ok()?;
            let size: u64 = f[3].parse().ok()?;
            Some(IoRequest {
                time_ns: (t * unit_ns as f64) as u64,
                volume: f[1].parse().ok()?,
                offset_bytes: f[2].parse::<u64>().ok()? * SECTOR_BYTES,
                len_bytes: size.max(1) * SECTOR_BYTES,
                op: if f[4] == "1" { Op::Read } else { Op::Write },
            })
        })
        .collect()
}

pub fn read_disksim_ms(path: &PathBuf) -> Vec<IoRequest> {
    read_disksim(path, NS_PER_MS)
}

/// blkreplay `.load.gz`: `start_s ; sector ; length ; R|W ; …` after a `#####` line.
pub fn read_blkreplay(path: &PathBuf) -> Vec<IoRequest> {
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut text = String::new();
    if flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .is_err()
    {
        return Vec::new();
    }
    BufReader::new(text.as_bytes())
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            if f.len() < 4 {
                return None;
            }
            let t: f64 = f[0].parse().ok()?;
            let len: u64 = f[2].parse().ok()?;
            Some(IoRequest {
                time_ns: (t * NS_PER_S as f64) as u64,
                volume: 0,
                offset_bytes: f[1].parse::<u64>().ok()? * SECTOR_BYTES,
                len_bytes: len.max(1) * SECTOR_BYTES,
                op: match f[3] {
                    "R" => Op::Read,
                    "W" => Op::Write,
                    _ => return None,
                },
            })
        })
        .collect()
}
