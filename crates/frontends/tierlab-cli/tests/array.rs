//! End-to-end tests of `tierlab array`: small arrays and short runs, so the whole file runs
//! in a few seconds in a debug build. Golden files are tests/golden/array-*;
//! `TIERLAB_BLESS=1 cargo test -p tierlab-cli --test array` rewrites them.

mod support;

use std::path::PathBuf;
use support::cli::{fails, golden, json, ok};

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!("tierlab-array-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const KNOWN: [&str; 7] = ["raid5", "tpm", "raid-drpm", "raid-cr", "pdc-ld", "maid", "hibernator"];

#[test]
fn simulate_json_is_the_run() {
    let v = json(&ok(&["array", "simulate", "--scheme", "raid5", "--disks", "4", "--iops", "20", "--hours", "0.05", "--json"]));
    assert!(v["requests"].as_u64().unwrap() > 0, "{v}");
    assert_eq!((v["scheme"].as_str(), v["disks"].as_u64()), (Some("raid5"), Some(4)));
    for key in ["response_time", "goal_met", "energy_j", "average_power_w", "energy_by_state", "speed_changes_per_disk_day", "start_stops_per_disk_day", "scheme_report", "per_disk"] {
        assert!(!v[key].is_null(), "missing {key}");
    }
    assert_eq!(v["per_disk"].as_array().unwrap().len(), 4);
    assert!(v["energy_j"].as_f64().unwrap() > 0.0);
}

#[test]
fn simulate_text_report_is_golden_and_deterministic() {
    // TPM on a sparse load: disks spin down and up, so every part of the report has content.
    let args = ["array", "simulate", "--scheme", "tpm", "--disks", "4", "--iops", "0.2", "--hours", "0.25", "--nvram", "0"];
    let a = ok(&args);
    golden("array-simulate-tpm.txt", &a);
    assert_eq!(a, ok(&args), "same seed, same bytes");
}

#[test]
fn a_config_file_sets_array_and_scheme_and_flags_override_it() {
    let dir = tempdir();
    let path = dir.join("array.toml");
    std::fs::write(&path, "[array]\ndisks = 5\nnvram_bytes = 0\n\n[scheme]\nkind = \"tpm\"\nr_limit_ms = 25.0\n").unwrap();
    let cfg = path.to_str().unwrap();
    let common = ["array", "simulate", "--iops", "10", "--hours", "0.01", "--json", "--config", cfg];
    let v = json(&ok(&common));
    assert_eq!((v["scheme"].as_str(), v["disks"].as_u64(), v["r_limit_ms"].as_f64()), (Some("tpm"), Some(5), Some(25.0)));
    assert!(v["executor"]["nvram"].is_null(), "nvram_bytes = 0: no NVRAM");
    let v = json(&ok(&[&common[..], &["--disks", "4", "--scheme", "raid5", "--r-limit-ms", "12"]].concat()));
    assert_eq!((v["scheme"].as_str(), v["disks"].as_u64(), v["r_limit_ms"].as_f64()), (Some("raid5"), Some(4), Some(12.0)));
}

#[test]
fn compare_writes_table_csv_and_a_self_contained_html_report() {
    let dir = tempdir();
    let (csv, html) = (dir.join("a.csv"), dir.join("a.html"));
    let args = [
        "array", "compare", "--disks", "4", "--hours", "0.02", "--loads", "10,40", "--schemes", "raid5,tpm,hibernator+",
        "--csv", csv.to_str().unwrap(), "--html", html.to_str().unwrap(),
    ];
    let text = ok(&args);
    for s in ["10 req/s", "40 req/s", "hibernator+", "saving %", "✓"] {
        assert!(text.contains(s), "missing {s} in\n{text}");
    }
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 7, "header + 2 loads × 3 schemes:\n{csv}");
    assert!(csv.starts_with("load,load_iops,scheme,"));
    assert!(csv.lines().nth(1).unwrap().starts_with("10 req/s,10,raid5,"));
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.matches("<svg").count() >= 2, "two charts");
    assert!(html.contains("Fig. 7") && html.contains("Fig. 8") && html.contains("hibernator+"));
    for bad in ["http://", "https://", "<script", "<link", "src=", "@import"] {
        assert!(!html.contains(bad), "the report refers outside itself ({bad})");
    }
    if let Some(browser) = support::browser::chromium() {
        support::browser::check_report(&browser, &dir.join("a.html"));
    }
    let rows = json(&ok(&[&args[..10], &["--json"]].concat()));
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["scheme"], "raid5");
    assert_eq!(rows[0]["energy_saving"], 0.0);
    assert!(rows.iter().all(|r| r["run"]["requests"].as_u64().unwrap() > 0));
}

#[test]
fn compare_sweeps_r_limit_at_the_first_load() {
    let dir = tempdir();
    let html = dir.join("r.html");
    let v = json(&ok(&[
        "array", "compare", "--disks", "4", "--hours", "0.01", "--loads", "20,40", "--schemes", "tpm,raid-cr+",
        "--r-limits", "5,20", "--json", "--html", html.to_str().unwrap(),
    ]));
    let rows = v.as_array().unwrap();
    let got: Vec<(String, String, f64)> =
        rows.iter().map(|r| (r["load"].as_str().unwrap().into(), r["scheme"].as_str().unwrap().into(), r["run"]["r_limit_ms"].as_f64().unwrap())).collect();
    let want = [("raid5", 5.0), ("tpm", 5.0), ("tpm", 20.0), ("raid-cr+", 5.0), ("raid-cr+", 20.0)];
    assert_eq!(got, want.map(|(s, l)| ("20 req/s".to_string(), s.to_string(), l)));
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.contains("Fig. 10") && html.matches("<svg").count() >= 2);
    if let Some(browser) = support::browser::chromium() {
        support::browser::check_report(&browser, &dir.join("r.html"));
    }
}

#[test]
fn unknown_schemes_list_the_known_ones() {
    for args in [&["array", "simulate", "--scheme", "hibernate"][..], &["array", "compare", "--schemes", "raid5,nope"][..]] {
        let err = fails(args);
        assert!(err.contains("unknown scheme"), "{err}");
        for k in KNOWN {
            assert!(err.contains(k), "{k} not listed: {err}");
        }
    }
}

#[test]
fn an_impossible_array_says_why() {
    let err = fails(&["array", "simulate", "--disks", "2", "--level", "raid5"]);
    assert!(err.contains("raid5 needs at least 3 disks, found 2"), "{err}");
    let err = fails(&["array", "compare", "--disks", "3", "--level", "raid10", "--loads", "10"]);
    assert!(err.contains("even number of disks"), "{err}");
    let err = fails(&["array", "simulate", "--disks", "4", "--nvram", "4K"]);
    assert!(err.contains("--nvram") && err.contains("at least 1 MiB"), "{err}");
}

#[test]
fn a_bad_config_file_names_file_line_and_key() {
    let dir = tempdir();
    let path = dir.join("bad-array.toml");
    std::fs::write(&path, "[array]\ndisks = 4\nstripe_unit = 65536\n").unwrap();
    let err = fails(&["array", "simulate", "--config", path.to_str().unwrap()]);
    assert!(err.contains("bad-array.toml:3") && err.contains("array.stripe_unit"), "{err}");
    std::fs::write(&path, "[scheme]\nkind = \"raid5\"\nr_limit_ms = -1.0\n").unwrap();
    let err = fails(&["array", "simulate", "--config", path.to_str().unwrap()]);
    assert!(err.contains("bad-array.toml:3") && err.contains("scheme.r_limit_ms"), "{err}");
}

#[test]
fn a_workload_larger_than_the_array_says_so() {
    let dir = tempdir();
    let path = dir.join("big.toml");
    std::fs::write(
        &path,
        "requests = 10\nspan_bytes = 1000000000000\nread_fraction = 0.5\naddress = { kind = \"uniform\" }\nsize = { kind = \"fixed\", bytes = 8192 }\narrival = { kind = \"poisson\", iops = 10.0 }\n",
    )
    .unwrap();
    let err = fails(&["array", "simulate", "--scheme", "raid5", "--disks", "4", "--workload", path.to_str().unwrap()]);
    assert!(err.contains("spans 1000000000000 bytes, more than the array's"), "{err}");
}

#[test]
fn the_requests_of_a_run_measured_after_a_warm_up_add_up() {
    let args = ["array", "simulate", "--scheme", "raid5", "--disks", "4", "--iops", "20", "--hours", "0.1", "--warmup-s", "120"];
    let text = ok(&args);
    let line = text.lines().find(|l| l.starts_with("requests")).unwrap_or_default();
    let n: Vec<u64> = line.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    assert_eq!(n.len(), 3, "{line}");
    assert_eq!(n[0], n[1] + n[2], "requests = reads + writes: {line}");
    assert!(n[0] < 20 * 360 * 9 / 10, "only the measured span's requests: {line}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let v = json(&ok(&json_args));
    assert_eq!(v["requests"].as_u64(), Some(v["reads"].as_u64().unwrap() + v["writes"].as_u64().unwrap()), "{v}");
}
