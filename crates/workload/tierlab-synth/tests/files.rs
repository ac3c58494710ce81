//! The shipped statistics files: every one parses, is embedded, matches the
//! dissertation's tables, and can be met in full; bad files are refused with the file,
//! line and key.

use std::path::{Path, PathBuf};
use tierlab_synth::{builtin, builtin_files, builtin_ids, plan, SynthOptions, WorkloadStats};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn load(id: &str) -> WorkloadStats {
    WorkloadStats::load(&root().join(format!("catalog/workloads/{id}.toml")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Table 4.3 as printed: workload, hot, cold, total GB, bandwidth KB/s, request KB, read %.
/// Slug, row label, then the row's numbers.
type Row43 = (&'static str, &'static str, f64, f64, f64, f64, f64, f64);

const TABLE_4_3: [Row43; 15] = [
    (
        "financial",
        "Financial* [53]",
        114.0,
        2649.0,
        2763.0,
        9220.0,
        3.42,
        23.0,
    ),
    (
        "tpch",
        "TPC-H* [55]",
        87.0,
        813.0,
        900.0,
        16050.0,
        25.6,
        80.0,
    ),
    ("usr", "/usr", 244.0, 1115.0, 1359.0, 36.7, 45.6, 93.0),
    ("proj", "/proj", 193.0, 1690.0, 1883.0, 30.3, 44.4, 91.0),
    ("print", "/print", 46.0, 384.0, 430.0, 2.1, 13.3, 9.0),
    ("hm", "/hm", 2.0, 37.0, 39.0, 0.2, 7.9, 38.0),
    ("resproj", "/resproj", 1.0, 79.0, 80.0, 0.1, 8.9, 7.0),
    ("proxy", "/proxy", 3.0, 85.0, 88.0, 14.8, 11.8, 61.0),
    ("src1", "/src1", 124.0, 431.0, 555.0, 22.5, 46.5, 95.0),
    ("src2", "/src2", 1.0, 100.0, 101.0, 0.06, 6.62, 18.0),
    ("webstg", "/webstg", 3.0, 105.0, 108.0, 0.15, 8.55, 12.0),
    ("term", "/term", 1.0, 21.0, 22.0, 0.12, 10.05, 31.0),
    ("websql", "/websql", 60.0, 381.0, 441.0, 9.0, 45.0, 94.0),
    ("media", "/media", 13.0, 496.0, 509.0, 0.13, 5.59, 57.0),
    ("webdev", "/webdev", 1.0, 101.0, 102.0, 0.08, 18.07, 20.0),
];

/// Table 5.3 as printed: workload, request KB, read %, sequentiality %, inter-arrival ms.
const TABLE_5_3: [(&str, &str, f64, f64, f64, f64); 3] = [
    ("financial", "Financial (OLTP) [53]", 4.38, 9.0, 2.0, 133.50),
    ("cello99", "Cello99 [54]", 5.03, 35.0, 1.0, 41.01),
    ("tpch", "TPC-H (OLAP) [55]", 12.82, 95.0, 18.0, 155.56),
];

#[test]
fn the_embedded_files_are_the_directory() {
    let mut on_disk: Vec<String> = std::fs::read_dir(root().join("catalog/workloads"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = builtin_files()
        .iter()
        .map(|(p, _)| p.rsplit('/').next().unwrap().to_string())
        .collect();
    embedded.sort();
    assert_eq!(on_disk, embedded);
    for (path, text) in builtin_files() {
        assert_eq!(
            std::fs::read_to_string(root().join(path)).unwrap(),
            *text,
            "{path}"
        );
    }
}

#[test]
fn every_shipped_file_parses_is_named_by_its_id_and_can_be_met() {
    for id in builtin_ids() {
        let s = load(id);
        assert_eq!(s.id, id);
        assert_eq!(builtin(id).unwrap().unwrap(), s);
        assert!(s.estimates.contains(&"duration_s".to_string()), "{id}");
        let p = plan(&s, &SynthOptions::default()).unwrap();
        assert!(p.check().is_ok(), "{id}: {}", p.check().unwrap_err());
        assert_eq!(p.hot_records_reached, p.hot_records, "{id}");
    }
    assert!(builtin("no-such-workload").is_none());
}

#[test]
fn table_4_3_rows_are_the_table_and_add_up() {
    for (slug, _, hot, cold, total, bw, req, read) in TABLE_4_3 {
        let s = load(&format!("hybridstore-t4.3-{slug}"));
        assert_eq!(
            (s.hot_gb, s.cold_gb, s.total_gb),
            (hot, cold, total),
            "{slug}"
        );
        assert_eq!(s.hot_gb + s.cold_gb, s.total_gb, "{slug}");
        assert_eq!(s.bandwidth_kb_s, Some(bw), "{slug}");
        assert_eq!(s.interarrival_ms, None, "{slug}");
        assert_eq!((s.request_kb, s.read_percent), (req, read), "{slug}");
        assert_eq!(s.sequential_percent, None, "{slug}");
        assert_eq!(s.estimates, vec!["duration_s".to_string()], "{slug}");
        assert_eq!(s.cold_touched_gb, None, "{slug}");
    }
}

#[test]
fn table_5_3_rows_are_the_table() {
    for (slug, _, req, read, seq, ia) in TABLE_5_3 {
        let s = load(&format!("hybridstore-t5.3-{slug}"));
        assert_eq!(s.interarrival_ms, Some(ia), "{slug}");
        assert_eq!(s.bandwidth_kb_s, None, "{slug}");
        assert_eq!(
            (s.request_kb, s.read_percent, s.sequential_percent),
            (req, read, Some(seq)),
            "{slug}"
        );
        for k in ["total_gb", "hot_gb", "cold_gb", "duration_s"] {
            assert!(s.estimates.contains(&k.to_string()), "{slug}: {k}");
        }
    }
    let b = load("hybridstore-t5.3-financial-1x2x");
    let base = load("hybridstore-t5.3-financial");
    assert_eq!(b.rate.as_ref().map(|r| r.factor), Some(2.0));
    assert_eq!(
        (b.interarrival_ms, b.request_kb, b.read_percent),
        (base.interarrival_ms, base.request_kb, base.read_percent)
    );
}

/// The numbers of the row of `text` whose workload cell is `label`, commas removed.
fn row_numbers(text: &str, label: &str) -> Vec<f64> {
    let line = text
        .lines()
        .find(|l| l.split('\t').any(|c| c.trim() == label))
        .unwrap_or_else(|| panic!("no row {label}"));
    let mut cells = line.split('\t').map(str::trim);
    cells.find(|c| *c == label);
    cells
        .filter(|c| !c.is_empty())
        .map(|c| c.replace(',', "").parse().unwrap())
        .collect()
}

/// The files against the dissertation's own text, where `../shared` is present.
#[test]
fn the_files_match_the_dissertation_text() {
    let path = root().join("../shared/research/hybridstore-dissertation.txt");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is absent", path.display());
        return;
    };
    // Table 4.3 sits between its header and its caption.
    let start = text.find("Workload\t\tTotal Volume Size (GB)").unwrap();
    let end = text.find("Table 4.3. Description").unwrap();
    let t43 = &text[start..end];
    for (slug, label, ..) in TABLE_4_3 {
        let s = load(&format!("hybridstore-t4.3-{slug}"));
        let got = vec![
            s.hot_gb,
            s.cold_gb,
            s.total_gb,
            s.bandwidth_kb_s.unwrap(),
            s.request_kb,
            s.read_percent,
        ];
        assert_eq!(row_numbers(t43, label), got, "{slug}");
    }
    let start = text.find("Workloads\tRequest Size (KB)").unwrap();
    let end = text.find("Table 5.3. Enterprise-Scale").unwrap();
    let t53 = &text[start..end];
    for (slug, label, ..) in TABLE_5_3 {
        let s = load(&format!("hybridstore-t5.3-{slug}"));
        let got = vec![
            s.request_kb,
            s.read_percent,
            s.sequential_percent.unwrap(),
            s.interarrival_ms.unwrap(),
        ];
        assert_eq!(row_numbers(t53, label), got, "{slug}");
    }
}

const GOOD: &str = r#"id = "test"
description = "a test workload"
source = "paper"
estimates = ["duration_s"]
assumptions = ["duration_s: long enough"]
total_gb = 10.0
hot_gb = 1.0
cold_gb = 9.0
bandwidth_kb_s = 100.0
request_kb = 4.0
read_percent = 50.0
duration_s = 60.0

[sources]
paper = "a paper, table 1"
"#;

/// The error for `GOOD` with `from` replaced by `to`.
fn error_of(from: &str, to: &str) -> tierlab_config::ConfigError {
    assert!(GOOD.contains(from), "{from}");
    let text = GOOD.replace(from, to);
    WorkloadStats::parse(&text, "bad.toml").expect_err(&text)
}

#[test]
fn the_good_file_parses() {
    let s = WorkloadStats::parse(GOOD, "good.toml").unwrap();
    assert_eq!(s.records(), 10 * 1024);
    assert_eq!(s.hot_records(), 1024);
}

#[test]
fn hot_plus_cold_off_the_total_names_the_line_and_key() {
    let e = error_of("cold_gb = 9.0", "cold_gb = 9.2");
    assert_eq!(e.location.file, "bad.toml");
    assert_eq!(e.location.field, "total_gb");
    assert_eq!(e.location.line, 6);
    assert!(e.message.contains("hot_gb + cold_gb"), "{e}");
    assert!(
        e.to_string().starts_with("bad.toml:6: field `total_gb`"),
        "{e}"
    );
    // Within 0.5 % passes.
    WorkloadStats::parse(&GOOD.replace("cold_gb = 9.0", "cold_gb = 9.04"), "ok.toml").unwrap();
}

#[test]
fn bad_values_name_their_line_and_key() {
    let cases = [
        (
            "read_percent = 50.0",
            "read_percent = 120.0",
            "read_percent",
            11,
        ),
        ("hot_gb = 1.0", "hot_gb = -1.0", "hot_gb", 7),
        ("request_kb = 4.0", "request_kb = 0.0", "request_kb", 10),
        ("request_kb = 4.0", "request_kb = 2048.0", "request_kb", 10),
        ("total_gb = 10.0", "total_gb = 0.0", "total_gb", 6),
        ("duration_s = 60.0", "duration_s = 0.0", "duration_s", 12),
        ("duration_s = 60.0", "duration_s = nan", "duration_s", 12),
        ("source = \"paper\"", "source = \"book\"", "source", 3),
        (
            "read_percent = 50.0",
            "read_percent = 50.0\nsequential_percent = -3.0",
            "sequential_percent",
            12,
        ),
        (
            "bandwidth_kb_s = 100.0",
            "bandwidth_kb_s = 100.0\ninterarrival_ms = 5.0",
            "interarrival_ms",
            10,
        ),
        (
            "bandwidth_kb_s = 100.0",
            "bandwidth_kb_s = 1e15",
            "bandwidth_kb_s",
            9,
        ),
        ("id = \"test\"", "id = \"Test Case\"", "id", 1),
        (
            "estimates = [\"duration_s\"]",
            "estimates = [\"duration_s\", \"hot_gb\"]",
            "estimates[1]",
            4,
        ),
        (
            "estimates = [\"duration_s\"]",
            "estimates = [\"speed\"]",
            "estimates[0]",
            4,
        ),
        (
            "estimates = [\"duration_s\"]",
            "estimates = [\"interarrival_ms\"]",
            "estimates[0]",
            4,
        ),
        (
            "duration_s = 60.0",
            "duration_s = 60.0\nspeed = 3",
            "speed",
            13,
        ),
        (
            "duration_s = 60.0",
            "duration_s = \"an hour\"",
            "duration_s",
            12,
        ),
        (
            "duration_s = 60.0\n",
            "duration_s = 60.0\n[rate]\nfactor = 2.0\nperiod_s = 10.0\nduty = 1.5\n",
            "rate.duty",
            16,
        ),
        (
            "duration_s = 60.0\n",
            "duration_s = 60.0\n[rate]\nfactor = 0.0\nperiod_s = 10.0\nduty = 0.5\n",
            "rate.factor",
            14,
        ),
    ];
    for (from, to, key, line) in cases {
        let e = error_of(from, to);
        assert_eq!(
            (e.location.field.as_str(), e.location.line),
            (key, line),
            "{to}: {e}"
        );
        assert_eq!(e.location.file, "bad.toml");
    }
}

#[test]
fn neither_bandwidth_nor_inter_arrival_is_refused() {
    let e = error_of("bandwidth_kb_s = 100.0\n", "");
    assert_eq!(e.location.field, "bandwidth_kb_s");
    assert!(e.message.contains("found neither"), "{e}");
    let ok = GOOD.replace("bandwidth_kb_s = 100.0", "interarrival_ms = 40.0");
    let s = WorkloadStats::parse(&ok, "ok.toml").unwrap();
    assert_eq!(s.base_iops(), 25.0);
}

#[test]
fn an_unreadable_file_says_so() {
    let e = WorkloadStats::load(Path::new("/nonexistent/w.toml")).unwrap_err();
    assert_eq!(e.location.file, "/nonexistent/w.toml");
    assert!(e.message.contains("cannot read"), "{e}");
}
