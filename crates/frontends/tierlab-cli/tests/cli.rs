//! End-to-end tests of the `tierlab` binary: what a user types, what a user sees.
//! Golden files live in tests/golden; `TIERLAB_BLESS=1 cargo test -p tierlab-cli` rewrites them.

mod support;

use std::path::PathBuf;
use support::cli::{fails, golden, json, ok, shared};




/// The main job's measurement, cut short for a debug build: batches of 300, at most 12,000
/// requests a run (the default runs to 400,000, seconds in a release build).
const QUICK: [&str; 4] = ["--batch-requests", "300", "--run-requests", "12000"];

#[test]
fn main_job_report_is_golden_and_deterministic() {
    // `tierlab` alone is `tierlab overview`: five designs, the four currencies with their
    // intervals, a verdict, in 80 columns.
    let mut args = vec!["overview"];
    args.extend(QUICK);
    let a = ok(&args);
    // The golden file holds it to the byte, run after run (same seed, same bytes).
    golden("overview-default.txt", &a);
    for line in a.lines() {
        assert!(line.chars().count() <= 80, "wider than 80 columns: {line}");
    }
    for design in ["ssd-only", "hdd-only", "linear", "tiering", "caching"] {
        assert!(a.lines().any(|l| l.starts_with(design)), "{design} missing:\n{a}");
    }
    assert!(a.contains("verdict    among "), "{a}");
    let mut args = vec!["overview", "--json"];
    args.extend(QUICK);
    let v = json(&ok(&args));
    assert_eq!(v["designs"].as_array().unwrap().len(), 5);
    assert_eq!(v["rows"].as_array().unwrap().len(), 5);
    for key in ["fastest", "cheapest", "best_per_dollar", "judged"] {
        assert!(v[key].as_array().is_some_and(|a| !a.is_empty()), "{key}: {v}");
    }
    // Each design: a closed-loop run for max IOPS and one at the workload's own rate, each
    // warmed up, and SSD-only at least as fast as tiering on the same SSD.
    let max = |d: &str| v["designs"].as_array().unwrap().iter().find(|x| x["design"] == d).unwrap()["max_iops"].as_f64().unwrap();
    assert!(max("ssd-only") >= 0.9 * max("tiering"), "ssd-only {} tiering {}", max("ssd-only"), max("tiering"));
    for row in v["rows"].as_array().unwrap() {
        let runs = row["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{row}");
        assert!(runs.iter().all(|r| r["warmup_requests"].as_u64().unwrap() > 0), "{row}");
    }
}

#[test]
fn a_design_that_cannot_carry_a_trace_is_marked_and_not_crowned() {
    let Some(shared) = shared() else { return };
    let trace = shared.join("traces/umass-websearch-small.disksim");
    let mut args = vec!["overview", "--trace", trace.to_str().unwrap()];
    args.extend(QUICK);
    let a = ok(&args);
    // The trace offers about 413 IOPS; the disk alone serves about 150.
    assert!(a.lines().any(|l| l.starts_with("hdd-only!")), "{a}");
    assert!(a.contains("not judged hdd-only: cannot sustain"), "{a}");
    let verdict: String = a.lines().skip_while(|l| !l.starts_with("verdict")).take(4).collect::<Vec<_>>().join("\n");
    assert!(!verdict.contains("hdd-only"), "{verdict}");
}

#[test]
fn simulate_default_report_is_golden_and_deterministic() {
    let a = ok(&["simulate"]);
    golden("simulate-default.txt", &a);
    assert_eq!(a, ok(&["simulate"]), "same seed, same bytes");
}

#[test]
fn main_job_json_has_the_four_currencies_keys() {
    let v = json(&ok(&["simulate", "--json"]));
    assert_eq!(v["requests"], 20000);
    for key in ["throughput_iops", "response_time", "energy_j", "average_power_w", "devices"] {
        assert!(!v[key].is_null(), "missing {key}");
    }
    assert!(v["response_time"]["p99_ms"].as_f64().unwrap() >= v["response_time"]["p50_ms"].as_f64().unwrap());
    assert!(v["energy_j"].as_f64().unwrap() > 0.0);
}

#[test]
fn trace_stats_counts_match_the_shared_readme() {
    let Some(shared) = shared() else { return };
    let cases = [
        ("umass-websearch-small.disksim", 24_783, false),
        ("tpcc-small.disksim", 6_999, false),
        ("cloudphysics-io.csv", 113_872, false),
        ("blkreplay-linux-mysql.load.gz", 80_794, false),
        ("msn-fs-30s.disksim-ms", 149_999, false),
        ("fiu-mail-10k.fiu", 9_997, false),
        ("msr-hm0-1k.csv", 1_000, false),
        ("tencent-cbs-1s.csv.bz2", 50_000, true),
    ];
    for (file, count, sort) in cases {
        let path = shared.join("traces").join(file);
        let path = path.to_str().unwrap();
        let mut args = vec!["trace", "stats", path, "--json"];
        if sort {
            args.push("--sort");
        }
        let v = json(&ok(&args));
        assert_eq!(v["requests"], count, "{file}");
        assert_eq!(v["reads"].as_u64().unwrap() + v["writes"].as_u64().unwrap(), count, "{file}");
        for key in ["read_bytes", "write_bytes", "span_s", "working_set_bytes", "volumes"] {
            assert!(!v[key].is_null(), "{file}: missing {key}");
        }
    }
}

#[test]
fn out_of_order_times_are_an_error_unless_sorted() {
    let Some(shared) = shared() else { return };
    let path = shared.join("traces/tencent-cbs-1s.csv.bz2");
    let err = fails(&["trace", "stats", path.to_str().unwrap()]);
    assert!(err.contains("tencent-cbs-1s.csv.bz2:") && err.contains("time"), "{err}");
}

#[test]
fn a_malformed_line_names_file_line_and_field() {
    let dir = tempdir();
    let path = dir.join("bad.disksim");
    std::fs::write(&path, "0 0 100 8 1\n1000 0 xyz 8 1\n").unwrap();
    let err = fails(&["trace", "stats", path.to_str().unwrap(), "--format", "disksim"]);
    assert!(err.contains("bad.disksim:2") && err.contains("lba"), "{err}");
}

#[test]
fn a_bad_workload_file_names_file_line_and_key() {
    let dir = tempdir();
    let path = dir.join("w.toml");
    let spec = ok(&["workload", "show"]).replace("read_fraction", "read_fractoin");
    std::fs::write(&path, spec).unwrap();
    let err = fails(&["simulate", "--workload", path.to_str().unwrap()]);
    assert!(err.contains("w.toml:") && err.contains("read_fractoin"), "{err}");
}

#[test]
fn generated_workload_reads_back_as_a_trace() {
    let dir = tempdir();
    let path = dir.join("w.disksim");
    ok(&["workload", "generate", "-o", path.to_str().unwrap()]);
    let v = json(&ok(&["trace", "stats", path.to_str().unwrap(), "--json"]));
    assert_eq!(v["requests"], 20000);
    // DiskSim reads arrival times in milliseconds: the file says 80 requests a second in them.
    assert_eq!(v["format"], "disksim-ms");
    let iops = v["mean_iops"].as_f64().unwrap();
    assert!((75.0..85.0).contains(&iops), "{iops}");
    let text = std::fs::read_to_string(&path).unwrap();
    let second: f64 = text.lines().nth(1).and_then(|l| l.split(' ').next()).and_then(|t| t.parse().ok()).unwrap();
    assert!(second > 0.0 && second < 1000.0, "a millisecond arrival time: {second}");
}

#[test]
fn replaying_a_real_trace_closed_loop_completes_every_request() {
    let Some(shared) = shared() else { return };
    let path = shared.join("traces/umass-websearch-small.disksim");
    let v = json(&ok(&["simulate", "--trace", path.to_str().unwrap(), "--replay", "closed", "--depth", "4", "--scheduler", "clook", "--json"]));
    assert_eq!(v["requests"], 24_783);
    assert_eq!(v["devices"][0]["ops"], 24_783);
}

#[test]
fn spin_down_is_refused_where_the_catalog_lacks_figures() {
    let err = fails(&["simulate", "--device", "seagate-cheetah-15k5-300gb", "--spin-down-s", "5"]);
    assert!(err.contains("seagate-cheetah-15k5-300gb"), "{err}");
}

#[test]
fn spin_down_saves_energy_on_a_drive_that_can() {
    let common = ["simulate", "--device", "ibm-ultrastar-36z15", "--power-profile", "hibernator", "--json"];
    let dir = tempdir();
    let w = dir.join("sparse.toml");
    // A sparse load: one request every 5 minutes or so, for two hours, on 10 GB.
    let spec = ok(&["workload", "show"])
        .replace("span_bytes = 107374182400", "span_bytes = 10000000000")
        .replace("iops = 80.0", "iops = 0.0033")
        .replace("requests = 20000", "requests = 24");
    std::fs::write(&w, spec).unwrap();
    let w = w.to_str().unwrap();
    let always_on = json(&ok(&[&common[..], &["--workload", w]].concat()));
    let spun = json(&ok(&[&common[..], &["--workload", w, "--spin-down-s", "10"]].concat()));
    let e0 = always_on["energy_j"].as_f64().unwrap();
    let e1 = spun["energy_j"].as_f64().unwrap();
    assert!(e1 < 0.6 * e0, "spin-down {e1} J vs always on {e0} J");
    assert!(spun["devices"][0]["counters"]["start_stop_cycles"].as_f64().unwrap() > 10.0);
    assert!(spun["response_time"]["max_ms"].as_f64().unwrap() > 10_000.0, "a request waited for spin-up");
}

#[test]
fn validate_reports_the_demerit_per_drive() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("validation/disksim/hp_c2247a");
    let v = json(&ok(&["validate", "disksim", dir.to_str().unwrap(), "--json"]));
    let d = &v[0];
    assert_eq!(d["drive"], "hp_c2247a");
    assert_eq!(d["requests"], 9999);
    for key in ["demerit_ms", "mean_abs_error_ms", "mean_measured_ms", "mean_simulated_ms"] {
        assert!(d[key].as_f64().is_some(), "missing {key}");
    }
    // The HP's disconnect overheads the model does not have are named with file and line
    // (it writes through; the model charges the write disconnect only to write-back writes).
    let notes = d["notes"].as_array().expect("notes");
    let named = |text: &str| notes.iter().any(|n| n.as_str().is_some_and(|n| n.contains(text) && n.contains("not modelled")));
    assert!(named("hp_c2247a.diskspecs:73: `Write disconnect overhead = 0.16565`"), "{notes:?}");
    assert!(named("hp_c2247a.diskspecs:78: `Extradisc 2nd disconnect overhead = 0.13437`"), "{notes:?}");
    assert_eq!(d["semantics"], "drive");
    // Under DiskSim's semantics the DEC RZ26 scores about DiskSim's own 0.340 ms, and the
    // notes say what changed.
    let dec = shared.join("validation/disksim/dec_rz26");
    let v = json(&ok(&["validate", "disksim", dec.to_str().unwrap(), "--semantics", "disksim", "--json"]));
    assert_eq!(v[0]["semantics"], "disksim");
    let demerit = v[0]["demerit_ms"].as_f64().unwrap();
    assert!((0.33..0.35).contains(&demerit), "{demerit}");
    assert!(v[0]["notes"].as_array().unwrap().iter().any(|n| n.as_str().is_some_and(|n| n.contains("no zero-latency access"))), "{v}");
}

#[test]
fn catalog_lists_drives_and_unknown_ids_list_the_known_ones() {
    let list = ok(&["catalog", "list"]);
    assert!(list.contains("ibm-ultrastar-36z15"));
    let err = fails(&["simulate", "--device", "no-such-drive"]);
    assert!(err.contains("no-such-drive") && err.contains("ibm-ultrastar-36z15"), "{err}");
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("tierlab-cli-test-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn hybrid_modes_all_complete_and_tiering_beats_the_disk_alone() {
    let mut mean_ms = std::collections::BTreeMap::new();
    for mode in ["hdd-only", "ssd-only", "linear", "tiering", "caching"] {
        let v = json(&ok(&["simulate", "--hybrid", mode, "--json"]));
        assert_eq!(v["requests"], 20000, "{mode}");
        let ops: u64 = v["devices"].as_array().unwrap().iter().map(|d| d["ops"].as_u64().unwrap()).sum();
        assert!(ops >= 20000, "{mode}: every request reached a device ({ops} ops)");
        mean_ms.insert(mode, v["response_time"]["mean_ms"].as_f64().unwrap());
        if mode == "tiering" || mode == "caching" {
            assert_eq!(v["controller"]["policy"], mode);
        }
    }
    assert!(mean_ms["ssd-only"] < mean_ms["hdd-only"], "{mean_ms:?}");
    // A new, empty tiering drive places first touches on the SSD and beats the disk alone
    // from the start; one holding its data (the default) first moves its hot set, which the
    // 20,000 requests of one unmeasured run do not finish (`--measure`, docs/measurement.md).
    let empty = json(&ok(&["simulate", "--hybrid", "tiering", "--empty", "--json"]));
    assert!(empty["response_time"]["mean_ms"].as_f64().unwrap() < 0.5 * mean_ms["hdd-only"], "{mean_ms:?} {}", empty["response_time"]);
}

#[test]
fn the_ssd_can_be_timed_from_its_data_sheet() {
    let v = json(&ok(&["simulate", "--hybrid", "ssd-only", "--ssd-timing", "datasheet", "--json"]));
    assert_eq!(v["requests"], 20000);
    let ssd = &v["devices"][0];
    assert_eq!((ssd["name"].as_str(), ssd["kind"].as_str()), (Some("intel-320-300gb"), Some("ssd")));
    // Intel 320 data sheet: 39,500 IOPS x 75 us -> 3 command slots.
    assert_eq!(ssd["counters"]["parallel_units"], 3.0, "{ssd}");
    let listed = json(&ok(&["ssd", "list", "--json"]));
    let by_id = |id: &str| listed.as_array().and_then(|a| a.iter().find(|e| e["id"] == id)).cloned().unwrap_or_default();
    assert_eq!(by_id("intel-320-300gb")["datasheet"]["read_iops"], 39500);
    assert!(by_id("study-slc")["datasheet"].is_null() && by_id("study-slc")["ftl"] == "dftl");
    assert!(ok(&["ssd", "list"]).contains("270/205"));
    let err = fails(&["simulate", "--hybrid", "tiering", "--ssd", "study-slc", "--ssd-timing", "datasheet"]);
    assert!(err.contains("no [datasheet] section"), "{err}");
}

#[test]
fn hybrid_over_a_sparse_multi_volume_trace() {
    let Some(shared) = shared() else { return };
    let path = shared.join("traces/tpcc-small.disksim");
    let path = path.to_str().unwrap();
    // 16 volumes of up to 135 GB end to end do not fit the SSD's share: a clear error.
    let err = fails(&["simulate", "--trace", path, "--hybrid", "tiering"]);
    assert!(err.contains("intel-320-300gb") && err.contains("needs"), "{err}");
    // Packed densely they do.
    let v = json(&ok(&["simulate", "--trace", path, "--hybrid", "tiering", "--compact", "--replay", "closed", "--json"]));
    assert_eq!(v["requests"], 6999);
    assert!(v["controller"]["stats"]["mapped_extents"].as_u64().unwrap() > 0);
}

#[test]
fn bad_hybrid_parameters_are_named() {
    let err = fails(&["simulate", "--hybrid", "tiering", "--es", "6000"]);
    assert!(err.contains("`es`"), "{err}");
    let err = fails(&["simulate", "--hybrid", "tiering", "--lt", "200", "--ht", "100"]);
    assert!(err.contains("`lt`"), "{err}");
    let err = fails(&["simulate", "--hybrid", "tiering", "--pt", "0"]);
    assert!(err.contains("`pt`"), "{err}");
    let err = fails(&["simulate", "--hybrid", "caching", "--ssd-fraction", "1.5"]);
    assert!(err.contains("--ssd-fraction"), "{err}");
}

#[test]
fn compare_reports_every_configuration_in_four_currencies() {
    let dir = tempdir();
    let (csv, html) = (dir.join("c.csv"), dir.join("c.html"));
    let v = json(&ok(&[
        "compare", "--fractions", "0.25", "--pts", "2", "--extents", "1048576", "--json", "--batch-requests", "500", "--run-requests", "20000",
        "--csv", csv.to_str().unwrap(), "--html", html.to_str().unwrap(),
    ]));
    let rows = v.as_array().unwrap();
    let configs: Vec<&str> = rows.iter().map(|r| r["config"].as_str().unwrap()).collect();
    assert_eq!(configs, ["ssd-only", "hdd-only", "linear ssd=1/4", "tiering ssd=1/4 pt=2 es=1M mcml=4", "caching ssd=1/4 pt=2 es=1M mcml=4"]);
    for r in rows {
        assert!(r["throughput_iops"].as_f64().unwrap() > 0.0);
        assert!(r["energy_j"].as_f64().unwrap() > 0.0);
        let cost: Vec<f64> = r["cost"].as_array().unwrap().iter().map(|c| c["total_usd"].as_f64().unwrap()).collect();
        assert_eq!(cost.len(), 6, "α = 1 … 100,000");
        assert!(cost.windows(2).all(|w| w[0] <= w[1]), "cost grows with α: {cost:?}");
    }
    // SSD-only costs most up front (the research's trend 3); HDD-only is slowest (trend 2).
    let at = |i: usize, key: &str| rows[i][key].as_f64().unwrap();
    assert!(rows[0]["cost"][0]["purchase_usd"].as_f64().unwrap() > rows[1]["cost"][0]["purchase_usd"].as_f64().unwrap());
    assert!(at(1, "mean_ms") > at(0, "mean_ms"));
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 6, "header + 5 rows");
    assert!(csv.starts_with("config,mode,"));
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.starts_with("<!doctype html>") && html.contains("<svg") && html.contains("tiering ssd=1/4"));
    assert!(!html.contains("<script"), "self-contained, no scripts");
}

/// `compare` on traces too small for some designs: every design that can run does, and
/// one that cannot is a row that says why (one request, one extent, a small SSD).
#[test]
fn compare_runs_every_design_it_can_on_small_and_tiny_traces() {
    let dir = tempdir();
    // One 4 KiB write: one extent, whatever the extent size.
    let tiny = dir.join("tiny.csv");
    std::fs::write(&tiny, "128166385295514663,hm,0,Write,4096,4096,100\n").unwrap();
    // 400 writes over 400 MiB: 100 extents of 1 MiB at an SSD share of 1/4, fewer than
    // GreenDM's HT of 128.
    let small = dir.join("small.csv");
    let lines: String = (0..400u64).map(|i| format!("{},hm,0,Write,{},4096,100\n", 128166385295514663 + i * 10_000, i * (1 << 20))).collect();
    std::fs::write(&small, lines).unwrap();
    let csv = dir.join("c.csv");
    let args = |t: &std::path::Path| {
        vec!["compare".to_string(), "--trace".into(), t.to_str().unwrap().into(), "--compact".into(), "--fractions".into(), "0.25".into(), "--pts".into(), "1".into(), "--extents".into(), "1048576".into(), "--csv".into(), csv.to_str().unwrap().into(), "--batch-requests".into(), "500".into(), "--run-requests".into(), "20000".into()]
    };
    let run = |t: &std::path::Path, extra: &[&str]| {
        let mut a = args(t);
        a.extend(extra.iter().map(|s| s.to_string()));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        ok(&a)
    };
    // Small: tiering runs with watermarks derived from the SSD's 100 extents.
    let v = json(&run(&small, &["--json"]));
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r.get("error").is_none()), "{v}");
    let tiering = rows.iter().find(|r| r["mode"] == "tiering").unwrap();
    assert_eq!((tiering["lt"].as_u64(), tiering["ht"].as_u64()), (Some(12), Some(25)));
    // Set watermarks are kept, and too large ones still fail that row only.
    let v = json(&run(&small, &["--json", "--ht", "200"]));
    let failed: Vec<&serde_json::Value> = v.as_array().unwrap().iter().filter(|r| r.get("error").is_some()).collect();
    assert_eq!(failed.len(), 1, "{v}");
    assert!(failed[0]["error"].as_str().unwrap().contains("`ht`"), "{v}");
    // Tiny: one request, one extent; the drive grows to the smallest that holds every
    // design, and every design runs.
    let text = run(&tiny, &[]);
    for design in ["ssd-only", "hdd-only", "linear ssd=1/4", "tiering ssd=1/4", "caching ssd=1/4"] {
        assert!(text.lines().any(|l| l.starts_with(design)), "{design} missing:\n{text}");
    }
    assert!(!text.contains("not run"), "{text}");
    // A capacity the user sets is kept: 1 MiB has no room to tier or cache.
    let text = run(&tiny, &["--capacity-bytes", "1048576"]);
    assert!(text.lines().any(|l| l.starts_with("ssd-only")) && text.lines().any(|l| l.starts_with("linear")), "{text}");
    assert!(text.contains("not run: tiering ssd=1/4 pt=1 es=1M mcml=4: ") && text.contains("cannot tier"), "{text}");
    assert!(text.contains("not run: caching ssd=1/4 pt=1 es=1M mcml=4: "), "{text}");
    // The CSV keeps the failed rows, with as many fields as the others.
    let csv = std::fs::read_to_string(&csv).unwrap();
    let fields = |l: &str| l.chars().fold((1, false), |(n, quoted), c| match c {
        '"' => (n, !quoted),
        ',' if !quoted => (n + 1, quoted),
        _ => (n, quoted),
    }).0;
    let widths: Vec<usize> = csv.lines().map(fields).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{widths:?}\n{csv}");
    assert!(csv.lines().any(|l| l.starts_with("tiering") && l.ends_with("use a larger SSD share or smaller extents")), "{csv}");
}

/// The HTML reports in a real browser: they load without console errors, every chart
/// has tick labels on both axes and no text over other text, and the tables fit the page.
#[test]
fn html_reports_load_in_a_headless_browser() {
    let Some(browser) = support::browser::chromium() else { return };
    let dir = tempdir();
    let compare = dir.join("compare.html");
    ok(&["compare", "--fractions", "0.25,0.125", "--pts", "2", "--extents", "1048576", "--html", compare.to_str().unwrap(), "--batch-requests", "500", "--run-requests", "20000"]);
    let system = dir.join("system.html");
    ok(&["system", "savings", "--html", system.to_str().unwrap()]);
    for page in [&compare, &system] {
        support::browser::check_report(&browser, page);
    }
    // The compare report colours by design family and marks its Pareto front.
    let html = std::fs::read_to_string(&compare).unwrap();
    for s in ["Pareto front", "ssd-only", "hdd-only", "tiering", "caching", "relative to HDD-only"] {
        assert!(html.contains(s), "missing {s}");
    }
    // The SSD runs an order of magnitude faster than the disks: throughput goes on a log axis.
    assert!(html.contains("IOPS (log)"), "throughput on a linear axis beside an SSD");
}

/// HybridStore's data classes of a real trace: 17 or 33 classes, sizes adding up to the
/// space up to the highest touched record, golden text.
#[test]
fn trace_classes_groups_records_into_data_classes() {
    let Some(shared) = shared() else { return };
    let path = shared.join("traces/msr-hm0-1k.csv");
    let path = path.to_str().unwrap();
    golden("trace-classes-msr.txt", &ok(&["trace", "classes", path]));
    let v = json(&ok(&["trace", "classes", path, "--classes", "33", "--json"]));
    let classes = v["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 33);
    let records: u64 = classes.iter().filter(|c| !c["key"].is_null()).map(|c| c["records"].as_u64().unwrap()).sum();
    assert_eq!(records, v["records_touched"].as_u64().unwrap());
    let requests: u64 = classes.iter().map(|c| c["requests"].as_u64().unwrap()).sum();
    assert!(requests >= 1000, "every request counted in a class: {requests}");
    let e = fails(&["trace", "classes", path, "--classes", "20"]);
    assert!(e.contains("--classes: expected 17 or 33"), "{e}");
    let e = fails(&["trace", "classes", path, "--size-edges", "64K,4K"]);
    assert!(e.contains("size edges"), "{e}");
}

#[test]
fn bench_measures_a_hybrid_drive() {
    let Some(shared) = shared() else { return };
    let path = shared.join("traces/cloudphysics-io.csv");
    let path = path.to_str().unwrap();
    let args = ["bench", "simulate", path, "--max-requests", "2000", "--json"];
    let v = json(&ok(&[&args[..], &["--hybrid", "tiering", "--compact", "--lt", "8", "--ht", "16"]].concat()));
    assert_eq!((v["drive"].as_str(), v["requests"].as_u64()), (Some("tiering"), Some(2000)));
    assert!(v["requests_per_cpu_s"].as_f64().unwrap() > 0.0);
    assert_eq!(json(&ok(&args))["drive"], "hdd");
}

#[test]
fn an_error_says_each_cause_once_and_in_the_command_line_s_terms() {
    let err = fails(&["trace", "stats", "no-such-trace.csv"]);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    let dir = tempdir();
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "this is not a trace\nnor is this\n").unwrap();
    let err = fails(&["trace", "stats", junk.to_str().unwrap()]);
    assert!(err.contains("--format"), "{err}");
    assert!(!err.contains("ReadOptions"), "a library name in a command-line message: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_default_workload_fits_a_small_drive_and_says_so() {
    let out = support::cli::tierlab(&["simulate", "--device", "ibm-ultrastar-36z15", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("span is 16.00 GiB instead of 100.00 GiB") && err.contains("ibm-ultrastar-36z15"), "{err}");
    assert_eq!(json(&String::from_utf8_lossy(&out.stdout))["requests"], 20000);
    // A hybrid drive: the SSD's share of the span must fit the SSD too.
    let out = support::cli::tierlab(&["simulate", "--hybrid", "mixdyn", "--device", "ibm-ultrastar-36z15", "--ssd", "study-slc", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("SSD `study-slc`"), "{err}");
    // The default drive holds it as it is: no note.
    let out = support::cli::tierlab(&["simulate", "--json"]);
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("note:"));
}

#[test]
fn a_sparse_workload_spins_the_disk_down() {
    let idle = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../examples/idle-oltp.toml");
    let v = json(&ok(&["simulate", "--workload", idle, "--device", "ibm-ultrastar-36z15", "--power-profile", "hibernator", "--spin-down-s", "5", "--json"]));
    let cycles = v["devices"][0]["counters"]["start_stop_cycles"].as_f64().unwrap();
    assert!(cycles > 100.0, "{cycles} spin-downs");
}

#[test]
fn a_drive_without_power_figures_says_so_instead_of_zero_joules() {
    let Some(shared) = shared() else { return };
    let drive = shared.join("validation/disksim/cheetah9LP");
    let text = ok(&["simulate", "--disksim", drive.to_str().unwrap(), "--scheduler", "clook"]);
    assert!(text.contains("energy      not modelled: cheetah9LP has no power model"), "{text}");
    assert!(!text.contains("0.0 J"), "{text}");
}

#[test]
fn simulate_measures_at_steady_state_when_asked() {
    let mut args = vec!["simulate", "--measure", "--json"];
    args.extend(QUICK);
    let v = json(&ok(&args));
    let m = &v["measurement"];
    assert!(m["warmup_requests"].as_u64().unwrap() > 0 && m["measured_requests"].as_u64().unwrap() > 0, "{m}");
    let iops = &m["throughput_iops"];
    assert!((iops["mean"].as_f64().unwrap() - 80.0).abs() < 8.0 && iops["half_width"].as_f64().unwrap() > 0.0, "{iops}");
    // The report itself covers the measured part only.
    assert_eq!(v["requests"].as_u64().unwrap() >= m["measured_requests"].as_u64().unwrap(), true);
    let Some(shared) = shared() else { return };
    // A trace at about 413 IOPS on the disk alone: stopped as unsustainable, early.
    let trace = shared.join("traces/umass-websearch-small.disksim");
    let mut args = vec!["simulate", "--measure", "--trace", trace.to_str().unwrap(), "--wrap"];
    args.extend(QUICK);
    let text = ok(&args);
    assert!(text.contains("stopped by cannot sustain"), "{text}");
}

#[test]
fn sweep_without_the_python_package_says_how_to_get_it() {
    // `tierlab sweep` hands the file to the Python package; an interpreter without it is
    // named, with the command that installs it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tierlab"))
        .args(["sweep", "no-such-sweep.toml"])
        .env("TIERLAB_PYTHON", "false")
        .env("CI", "true")
        .output()
        .expect("the tierlab binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("pip install ./python") && err.contains("false cannot import"), "{err}");
}
