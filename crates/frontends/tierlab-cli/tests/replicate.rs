//! End-to-end tests of `tierlab replicate`: the planner's figures against the paper's
//! Table 3, errors that name the value at fault, and tiny simulations (2 TPC-C
//! warehouses, a few minutes of primary time) so that the whole file runs in well under
//! a minute in a debug build. Golden files are tests/golden/replicate-*;
//! `TIERLAB_BLESS=1 cargo test -p tierlab-cli --test replicate` rewrites them.

mod support;

use std::path::PathBuf;
use support::cli::{fails, golden, json, ok};

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!("tierlab-replicate-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A primary small enough to simulate in seconds: 2 warehouses whose database does not
/// fit its 16 MiB buffer (so it is disk-bound, as the paper's is), 4 data disks.
const TINY: [&str; 12] = [
    "--warehouses", "2", "--buffer-pool", "16M", "--primary-depth", "32", "--data-disks", "4", "--apply-cache", "16M", "--warmup-s", "30",
];

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn plan_reproduces_table_3_in_both_modes() {
    let paper = ok(&["replicate", "plan", "--r", "20.4486", "--rto-s", "100"]);
    golden("replicate-plan-paper.txt", &paper);
    for want in ["T_wnd            2150.0 s", "cycles/day       40.2\n", "worst recovery   124.7 s", "1244 days", "50000 start/stop cycles"] {
        assert!(paper.contains(want), "missing {want:?} in\n{paper}");
    }
    let strict = ok(&["replicate", "plan", "--r", "20.4486", "--rto-s", "100", "--mode", "strict"]);
    golden("replicate-plan-strict.txt", &strict);
    assert!(strict.contains("T_wnd            1618.3 s") && strict.contains("worst recovery   100.0 s"), "{strict}");

    let v = json(&ok(&["replicate", "plan", "--r-gen", "1M", "--r-apl", "20M", "--rto-s", "100", "--log-volume", "4G", "--window", "512M", "--json"]));
    assert!(close(v["r"].as_f64().unwrap(), 20.0, 1e-12), "{v}");
    // The peak backlog is what applies in one RTO: R_apl × T_RTO.
    assert!(close(v["u_max_bytes"].as_f64().unwrap(), 20.0 * 1048576.0 * 100.0, 1.0), "{v}");
    assert!(close(v["plan"]["t_wnd_s"].as_f64().unwrap(), 400.0 / 19.0 * 100.0, 1e-9));
    assert!(close(v["power"]["p_data_conventional_w"].as_f64().unwrap(), 39.0, 1e-12));
    // Without the rates no byte figure is claimed.
    let v = json(&ok(&["replicate", "plan", "--r", "20.4486", "--json"]));
    assert!(v["u_max_bytes"].is_null() && v["batch_bytes"].is_null(), "{v}");
    assert!(close(v["days_to_rated_cycles"].as_f64().unwrap(), 1244.0, 0.5), "{v}");
}

#[test]
fn plan_grid_holds_the_papers_cells() {
    let v = json(&ok(&["replicate", "plan", "--grid", "--json"]));
    let cells = v["cells"].as_array().unwrap();
    assert!(cells.len() >= 16, "{} cells", cells.len());
    let cell = |cells: &[serde_json::Value], standby: &str, r: f64, rto: f64| {
        cells
            .iter()
            .find(|c| c["standby"] == standby && c["r"].as_f64() == Some(r) && c["rto_s"].as_f64() == Some(rto))
            .unwrap_or_else(|| panic!("no cell {standby} {r} {rto}"))
            .clone()
    };
    for (r, t_wnd) in [(4.030, 536.0), (9.5835, 1070.0), (20.4486, 2150.0)] {
        let c = cell(cells, "stopped", r, 100.0);
        assert_eq!(c["feasible"], true);
        assert!(close(c["t_wnd_s"].as_f64().unwrap(), t_wnd, 0.5), "r {r}: {c}");
        assert!(c["saving_total"].as_f64().unwrap() > 0.5, "{c}");
    }
    // 26 s up + 15 s down: RTO 30 s cannot be kept on the high-end disk.
    let c = cell(cells, "stopped", 20.4486, 30.0);
    assert_eq!(c["feasible"], false);
    assert!(c["reason"].as_str().unwrap().contains("41 s"), "{c}");

    let args = ["replicate", "plan", "--grid", "--disk", "hitachi-deskstar-t7k250", "--power-profile", "replication"];
    let v = json(&ok(&[&args[..], &["--json"]].concat()));
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3 * 16);
    for r in [4.030, 49.3] {
        assert_eq!(cell(cells, "low_rpm", r, 30.0)["feasible"], false, "low rpm: 17 s + 17 s > 30 s");
        assert_eq!(cell(cells, "stopped", r, 30.0)["feasible"], true);
        assert_eq!(cell(cells, "unloaded", r, 30.0)["feasible"], true);
    }
    // The paper's Figure 4 ordering at RTO 30 s: stopping the spindle saves the most.
    let saving = |s: &str| cell(cells, s, 20.4486, 30.0)["saving_total"].as_f64().unwrap();
    assert!(saving("stopped") > saving("unloaded"), "{} vs {}", saving("stopped"), saving("unloaded"));
    let text = ok(&args);
    assert!(text.contains("infeasible  low_rpm: RTO 30 s") && text.contains("645 s, 83.2 %"), "{text}");
}

#[test]
fn bad_plans_name_the_value_at_fault() {
    let err = fails(&["replicate", "plan", "--r", "0.8"]);
    assert!(err.contains("--r") && err.contains("0.8") && err.contains("above 1"), "{err}");
    let err = fails(&["replicate", "plan", "--r", "20", "--rto-s", "30"]);
    assert!(err.contains("--rto-s") && err.contains("RTO 30 s") && err.contains("(41 s)"), "{err}");
    let err = fails(&["replicate", "plan", "--r", "20", "--log-volume", "1M", "--window", "2M"]);
    assert!(err.contains("--window") && err.contains("2097152 bytes") && err.contains("1048576 bytes"), "{err}");
    let err = fails(&["replicate", "plan", "--r-gen", "1M", "--r-apl", "20M", "--log-volume", "1G"]);
    assert!(err.contains("--log-volume") && err.contains("1073741824 bytes"), "{err}");
    let err = fails(&["replicate", "plan"]);
    assert!(err.contains("--r R") && err.contains("--grid"), "{err}");
    let err = fails(&["replicate", "plan", "--r", "20", "--standby", "low_rpm"]);
    assert!(err.contains("no standby level `low_rpm`") && err.contains("stopped"), "{err}");
}

#[test]
fn bad_settings_name_the_flag_or_the_file_line() {
    let err = fails(&["replicate", "run", "--window", "100"]);
    assert!(err.contains("--window: expected at least 4096 bytes, found 100"), "{err}");
    let err = fails(&["replicate", "run", "--schemes", "proposed,nope"]);
    assert!(err.contains("unknown scheme `nope`") && err.contains("idle-timeout"), "{err}");
    let err = fails(&["replicate", "sweep", "--rtos", "100,-3"]);
    assert!(err.contains("--rtos") && err.contains("-3"), "{err}");
    let dir = tempdir();
    let path = dir.join("bad-replicate.toml");
    std::fs::write(&path, "data_disks = 4\nduration_s = 300.0\nwarmup_s = 400.0\n").unwrap();
    let err = fails(&["replicate", "run", "--config", path.to_str().unwrap()]);
    assert!(err.contains("bad-replicate.toml:3") && err.contains("warmup_s"), "{err}");
    std::fs::write(&path, "data_disks = 4\n\n[source]\nkind = \"tpcc\"\nwarehouse = 2\n").unwrap();
    let err = fails(&["replicate", "run", "--config", path.to_str().unwrap()]);
    // The source is a tagged table, read as a whole: the error points at its header.
    assert!(err.contains("bad-replicate.toml:3") && err.contains("unknown field `warehouse`"), "{err}");
    // The example parses: the only error is the flag's.
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../examples/replicate.toml");
    let err = fails(&["replicate", "run", "--config", example, "--rto-s", "-1"]);
    assert!(err.starts_with("error: --rto-s: expected a positive number of seconds, found -1"), "{err}");
}

#[test]
fn a_bad_update_log_names_file_line_and_field() {
    let dir = tempdir();
    let path = dir.join("backwards.log");
    std::fs::write(
        &path,
        "# tierlab update log v1\npage_bytes 8192\ndata_bytes 1048576\n\ntxn\nrec 5 update row:0:1:2 8192 100 140 7\ncommit\ntxn\nrec 4 update row:0:1:3 8192 100 140 8\ncommit\n",
    )
    .unwrap();
    let err = fails(&["replicate", "run", "--log", path.to_str().unwrap(), "--data-disks", "2", "--duration-s", "60", "--warmup-s", "0"]);
    assert!(err.contains("backwards.log:9") && err.contains("`lsn`") && err.contains("previous lsn 5, found `4`"), "{err}");
}

#[test]
fn run_compares_schemes_deterministically() {
    let dir = tempdir();
    let html = dir.join("run.html");
    // RTO 45 s (just above the 41 s spin cycle): short enough for a cycle in 300 s.
    let args = [&["replicate", "run", "--duration-s", "300", "--window", "4M", "--rto-s", "45", "--json"][..], &TINY[..]].concat();
    let a = ok(&args);
    let v = json(&a);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "conventional, proposed and the pooled baseline by default");
    assert_eq!(rows[0]["run"]["scheme"], "conventional");
    assert_eq!(rows[2]["run"]["scheme"], "conventional-pooled");
    // The pooled baseline writes back only what its cache evicts: its disks are less busy.
    let u_pooled = v["u_pooled"].as_f64().unwrap();
    assert!(u_pooled < v["u"].as_f64().unwrap(), "u pooled {u_pooled}");
    assert!(rows[1]["saving_weighted_vs_pooled"].as_f64().unwrap() < rows[1]["saving_weighted"].as_f64().unwrap());
    assert_eq!(rows[0]["saving_total"], 0.0);
    assert_eq!(rows[0]["run"]["policy"]["cycles"], 0);
    let u = v["u"].as_f64().unwrap();
    assert!(u > 0.1 && u < 1.0, "u {u}");
    let proposed = &rows[1];
    assert_eq!(proposed["run"]["scheme"], "proposed");
    let policy = &proposed["run"]["policy"];
    assert!(policy["cycles"].as_u64().unwrap() > 0 || !policy["stayed_up_because"].is_null(), "{policy}");
    assert!(proposed["saving_weighted"].as_f64().unwrap() > 0.3, "{}", proposed["saving_weighted"]);
    assert!(proposed["run"]["r"].as_f64().unwrap() > rows[0]["run"]["r"].as_f64().unwrap());
    let b = ok(&[&args[..], &["--html", html.to_str().unwrap()]].concat());
    assert_eq!(a, b, "same settings, same bytes");
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.starts_with("<!doctype html>") && html.matches("<svg").count() >= 2 && html.contains("Per disk: proposed"));
    if let Some(browser) = support::browser::chromium() {
        support::browser::check_report(&browser, &dir.join("run.html"));
    }
    for bad in ["http://", "https://", "<script", "<link", "src=", "@import"] {
        assert!(!html.contains(bad), "the report refers outside itself ({bad})");
    }
}

#[test]
fn a_written_log_replays_with_every_record() {
    let dir = tempdir();
    let path = dir.join("tpcc.log");
    let out = ok(&["replicate", "log", "--transactions", "400", "--warehouses", "2", "--buffer-pool", "16M", "-o", path.to_str().unwrap()]);
    let records: u64 = out
        .strip_prefix("wrote 400 transactions, ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output: {out}"));
    assert!(records > 400, "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# tierlab update log v1\n"));
    assert_eq!(text.lines().filter(|l| l.starts_with("rec ")).count() as u64, records);
    let report = ok(&["replicate", "run", "--log", path.to_str().unwrap(), "--data-disks", "4", "--duration-s", "300", "--warmup-s", "5", "--window", "4M", "--disks"]);
    assert!(report.contains("primary     400 transactions ("), "{report}");
    assert!(report.contains(&format!(", {records} records, ")), "{records} records in\n{report}");
    assert!(report.contains("source      update log ") && report.contains("per disk: conventional") && report.contains("per disk: proposed"), "{report}");
}

#[test]
fn sweep_writes_csv_and_a_self_contained_html_report() {
    let dir = tempdir();
    let html = dir.join("sweep.html");
    let args = [
        &["replicate", "sweep", "--duration-s", "150", "--windows", "4M,8M", "--rtos", "45,100", "--csv", "--html", html.to_str().unwrap()][..],
        &TINY[..],
    ]
    .concat();
    let csv = ok(&args);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "header + 2 windows × 2 RTOs:\n{csv}");
    assert!(lines[0].starts_with("workload,warehouses,standby,window_bytes,rto_s,scheme,saving_total,"));
    assert!(lines[1].starts_with("tpcc-2wh,2,stopped,4194304,45,proposed,"), "{}", lines[1]);
    assert!(lines[4].starts_with("tpcc-2wh,2,stopped,8388608,100,proposed,"), "{}", lines[4]);
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.starts_with("<!doctype html>") && html.contains("<svg") && html.contains("Fig. 3"));
    assert!(html.contains("4 MiB") && html.contains("8 MiB") && html.contains("RTO 45 s") && html.contains("RTO 100 s"));
    assert!(html.contains("Worst recovery time against window size"), "RTO violations are charted");
    for bad in ["http://", "https://", "<script", "<link", "src=", "@import"] {
        assert!(!html.contains(bad), "the report refers outside itself ({bad})");
    }
    if let Some(browser) = support::browser::chromium() {
        support::browser::check_report(&browser, &dir.join("sweep.html"));
    }
}

#[test]
fn an_infeasible_point_names_its_reason_once_below_the_table() {
    // The 36Z15 needs 41 s to spin down and up again, more than an RTO of 30 s allows, at
    // either window: both points stay up for the same reason.
    let args = [&["replicate", "sweep", "--duration-s", "120", "--windows", "4M,8M", "--rtos", "30", "--schemes", "proposed"][..], &TINY[..]].concat();
    let text = ok(&args);
    let table_rows: Vec<&str> = text.lines().filter(|l| l.starts_with("2 ") && l.contains("proposed")).collect();
    assert_eq!(table_rows.len(), 2, "{text}");
    for row in &table_rows {
        assert!(row.trim_end().ends_with("infeasible (1)"), "the note names the reason by number: {row}");
    }
    let reasons: Vec<&str> = text.lines().filter(|l| l.starts_with("infeasible (")).collect();
    assert_eq!(reasons.len(), 1, "one reason, given once below the table:\n{text}");
    assert!(reasons[0].starts_with("infeasible (1): ") && reasons[0].contains("RTO"), "{text}");
}
