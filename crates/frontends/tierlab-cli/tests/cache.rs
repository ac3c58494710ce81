//! `tierlab cache`: miss-ratio curves from the command line, on a shared block trace and on
//! small libCacheSim object traces written here. Golden files are tests/golden/cache-*.txt;
//! `TIERLAB_BLESS=1 cargo test -p tierlab-cli --test cache` rewrites them.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::cli::{golden, json};

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The shared block trace, as a path relative to this crate (so that reports print the
/// same path everywhere), or `None` (and a note) without ../shared.
fn shared_trace(name: &str) -> Option<String> {
    let rel = format!("../../../../shared/traces/{name}");
    if manifest_dir().join(&rel).exists() {
        Some(rel)
    } else {
        eprintln!("note: ../shared is absent; skipping");
        None
    }
}

/// `tierlab ARGS` run in `dir`, so that relative paths print as given.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tierlab")).args(args).current_dir(dir).env("CI", "true").output().expect("the tierlab binary runs")
}

fn ok_in(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert!(out.status.success(), "tierlab {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn fails_in(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert!(!out.status.success(), "tierlab {args:?} should have failed");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "tierlab {args:?} panicked: {err}");
    err
}

/// A fresh directory of this test's own.
fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A skewed object stream: `n` requests over `ids` ids (a fixed-seed generator; small ids
/// far more often), each id with its own size between 512 bytes and 64 KiB.
fn object_stream(n: usize, ids: u64) -> Vec<(u32, u64, u32)> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..n)
        .map(|i| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            let id = ((ids as f64).powf(u) as u64).min(ids - 1) + 1;
            let size = 512 * (1 + (id * 2_654_435_761 % 128)) as u32;
            ((i / 100) as u32, id, size)
        })
        .collect()
}

/// `records` as libCacheSim's oracleGeneral (next access left at -1: not used here).
fn write_oracle(path: &Path, records: &[(u32, u64, u32)]) {
    let mut bytes = Vec::with_capacity(records.len() * 24);
    for &(t, id, size) in records {
        bytes.extend(t.to_le_bytes());
        bytes.extend(id.to_le_bytes());
        bytes.extend(size.to_le_bytes());
        bytes.extend((-1i64).to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn block_curves_of_a_shared_trace_are_golden() {
    let Some(trace) = shared_trace("msr-hm0-1k.csv") else { return };
    let dir = manifest_dir();
    let text = ok_in(dir, &["cache", &trace]);
    golden("cache-msr-blocks.txt", &text);
    assert_eq!(text, ok_in(dir, &["cache", &trace]), "same trace, same bytes");
    let v = json(&ok_in(dir, &["cache", &trace, "--json"]));
    assert_eq!((v["requests"].as_u64(), v["objects"]["kind"].as_str(), v["sizes_in"].as_str()), (Some(1000), Some("blocks"), Some("bytes")));
    let points = v["points"].as_array().unwrap();
    let sizes = points.iter().filter(|p| p["algorithm"] == "lru").count();
    assert_eq!(points.len(), 7 * sizes);
    assert!(sizes >= 8, "{sizes} auto sizes");
    for p in points {
        for r in ["request_miss_ratio", "object_miss_ratio", "byte_miss_ratio"] {
            let r = p[r].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&r), "{p}");
        }
        assert!(p["request_misses"].as_u64() <= p["object_misses"].as_u64(), "{p}");
    }
    // LRU's curve never rises (a stack algorithm); the largest size, the whole footprint,
    // misses only the first reference to each block.
    let lru: Vec<u64> = points.iter().filter(|p| p["algorithm"] == "lru").map(|p| p["object_misses"].as_u64().unwrap()).collect();
    assert!(lru.windows(2).all(|w| w[1] <= w[0]), "{lru:?}");
    assert_eq!(Some(*lru.last().unwrap()), v["footprint"]["objects"].as_u64());
}

#[test]
fn libcachesim_object_traces_are_read_as_objects() {
    let dir = tempdir("oracle");
    let records = object_stream(4000, 600);
    // The name says oracleGeneral: detected without --format.
    write_oracle(&dir.join("small.oracleGeneral.bin"), &records);
    let sized = ok_in(&dir, &["cache", "small.oracleGeneral.bin", "--sizes", "64K,256K,1M,4M"]);
    golden("cache-oracle-objects.txt", &sized);
    let v = json(&ok_in(&dir, &["cache", "small.oracleGeneral.bin", "--sizes", "64K,256K,1M,4M", "--json"]));
    assert_eq!((v["format"].as_str(), v["objects"]["kind"].as_str(), v["requests"].as_u64()), (Some("oracle-general"), Some("objects"), Some(4000)));
    let bytes: u64 = records.iter().map(|r| u64::from(r.2)).sum();
    assert_eq!(v["bytes"].as_u64(), Some(bytes));
    // The same ids as a bare u32 id stream: every object counts one.
    let ids: Vec<u8> = records.iter().flat_map(|r| (r.1 as u32).to_le_bytes()).collect();
    std::fs::write(dir.join("ids.bin"), &ids).unwrap();
    let counted = ok_in(&dir, &["cache", "ids.bin", "--format", "binary-u32", "--sizes", "10,50,200"]);
    golden("cache-ids-counted.txt", &counted);
    // …and the oracleGeneral file with --count-objects gives the same counts (but for
    // WSClock's, which depend on the clock: an id stream ticks once per request).
    let timeless = "lru,fifo,arc,2q,sieve,s3fifo";
    let a = json(&ok_in(&dir, &["cache", "ids.bin", "--format", "binary-u32", "--sizes", "10,50,200", "-a", timeless, "--json"]));
    let b = json(&ok_in(&dir, &["cache", "small.oracleGeneral.bin", "--count-objects", "--sizes", "10,50,200", "-a", timeless, "--json"]));
    assert_eq!(a["sizes_in"], "objects");
    let misses = |v: &serde_json::Value| -> Vec<u64> { v["points"].as_array().unwrap().iter().map(|p| p["object_misses"].as_u64().unwrap()).collect() };
    assert_eq!(misses(&a), misses(&b));
    // And as a u64 stream.
    let ids: Vec<u8> = records.iter().flat_map(|r| r.1.to_le_bytes()).collect();
    std::fs::write(dir.join("ids64.bin"), &ids).unwrap();
    let c = json(&ok_in(&dir, &["cache", "ids64.bin", "--format", "binary-u64", "--sizes", "10,50,200", "-a", timeless, "--json"]));
    assert_eq!(misses(&a), misses(&c));
}

#[test]
fn counted_requests_match_libcachesim_on_cloudphysics() {
    // libCacheSim's `cachesim`, `--ignore-obj-size`, object id = lbn (tierlab-placement's
    // README): LRU and ARC misses at 500 … 40,000 objects of 113,872 requests.
    let Some(trace) = shared_trace("cloudphysics-io.csv") else { return };
    let sizes = "500,1000,2000,5000,10000,20000,40000";
    let v = json(&ok_in(manifest_dir(), &["cache", &trace, "--count-objects", "-a", "lru,arc", "--sizes", sizes, "--json"]));
    let misses: Vec<u64> = v["points"].as_array().unwrap().iter().map(|p| p["object_misses"].as_u64().unwrap()).collect();
    let lru = [95_398, 94_823, 94_189, 91_527, 79_438, 72_053, 48_994];
    let arc = [94_218, 94_027, 92_829, 87_770, 79_413, 64_422, 48_999];
    assert_eq!(misses, [lru, arc].concat());
}

#[test]
fn csv_and_html_are_written_and_the_page_loads() {
    let dir = tempdir("files");
    write_oracle(&dir.join("t.oracleGeneral"), &object_stream(3000, 400));
    let args = ["cache", "t.oracleGeneral", "--sizes", "32K,128K,512K,2M", "-a", "lru,sieve,s3fifo", "--csv", "out.csv", "--html", "out.html"];
    let text = ok_in(&dir, &args);
    let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 3 * 4, "{csv}");
    assert!(lines[0].starts_with("algorithm,size,capacity_units,requests,request_misses"), "{csv}");
    assert!(lines[1].starts_with("lru,32768,32768,3000,"), "{csv}");
    // The table's misses are the CSV's.
    let table_misses: Vec<&str> = text.lines().filter(|l| l.starts_with("s3fifo")).map(|l| l.split_whitespace().last().unwrap()).collect();
    let csv_misses: Vec<&str> = lines.iter().filter(|l| l.starts_with("s3fifo")).map(|l| l.split(',').nth(6).unwrap()).collect();
    assert_eq!(table_misses, csv_misses);
    let html = std::fs::read_to_string(dir.join("out.html")).unwrap();
    assert!(html.starts_with("<!doctype html>") && html.trim_end().ends_with("</html>"));
    for s in ["Miss-ratio curves: t.oracleGeneral", "Request miss ratio by cache size", "Byte miss ratio by cache size", "<svg", "sieve", "s3fifo", "512.00 KiB"] {
        assert!(html.contains(s), "missing {s}");
    }
    assert!(!html.contains("http") && !html.contains("<script"), "self-contained, no scripts");
    let Some(browser) = support::browser::chromium() else { return };
    support::browser::check_report(&browser, &dir.join("out.html"));
}

#[test]
fn mistakes_are_errors_a_user_can_act_on() {
    let dir = tempdir("errors");
    write_oracle(&dir.join("t.oracleGeneral"), &object_stream(100, 50));
    std::fs::write(dir.join("ids.bin"), [1u8, 0, 0, 0, 2, 0, 0, 0]).unwrap();
    std::fs::write(dir.join("blocks.disksim"), "0 0 0 8 1\n1000 0 8 8 0\n").unwrap();
    let cases: [(&[&str], &str); 10] = [
        (&["cache", "t.oracleGeneral", "--block", "4K"], "is an object trace (its requests name objects, not byte addresses); cache its objects with --objects or --count-objects"),
        (&["cache", "ids.bin", "--format", "binary-u32", "--objects"], "use --count-objects"),
        (&["cache", "blocks.disksim", "--sizes", "1K"], "smaller than one block of 4096 bytes"),
        (&["cache", "blocks.disksim", "--sizes", "4K,lots"], "--sizes: expected a size such as"),
        (&["cache", "blocks.disksim", "--sizes", ","], "--sizes: expected `auto` or a comma-separated list"),
        (&["cache", "blocks.disksim", "--objects", "--sizes", "0"], "at least 1"),
        (&["cache", "blocks.disksim", "--block", "0"], "--block: expected a block size of at least 1 byte"),
        (&["cache", "blocks.disksim", "-a", "lru,mru"], "unknown replacement algorithm `mru`"),
        (&["cache", "blocks.disksim", "--window-s=-1"], "--window-s: expected a non-negative number of seconds"),
        (&["cache", "missing.csv"], "cannot read trace missing.csv"),
    ];
    for (args, expected) in cases {
        let err = fails_in(&dir, args);
        assert!(err.contains(expected), "tierlab {args:?}: expected `{expected}` in:\n{err}");
    }
    // A trace line that cannot be replayed names its file and line.
    std::fs::write(dir.join("bad.disksim"), "0 0 0 8 1\n1000 0 8 0 0\n").unwrap();
    let err = fails_in(&dir, &["cache", "bad.disksim", "--sizes", "8K"]);
    assert!(err.contains("bad.disksim:2"), "{err}");
}
