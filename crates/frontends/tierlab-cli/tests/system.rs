//! End-to-end tests of `tierlab system`: the controller and enclosure catalog, Figure 4.4
//! of the GreenDM dissertation's chapter 4, and system description files. Golden files are
//! tests/golden/system-*; `TIERLAB_BLESS=1 cargo test -p tierlab-cli --test system`
//! rewrites them.

mod support;

use std::path::PathBuf;
use support::cli::{fails, golden, json, ok};

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!("tierlab-system-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../examples/system-hibernator.toml");
const EXAMPLE_POWER_DOWN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../examples/system-hibernator-power-down.toml");

/// An enclosure that cannot power its slots down (as in tierlab-system-power's tests).
const OLD_SHELF: &str = r#"
id = "old-shelf"
vendor = "tierlab test"
model = "a shelf that cannot power slots down"
source = "t"
slots = 8
idle_w = 120.0
spun_down_w = 70.0
power_down = false
unknown = ["ship_year", "max_w", "powered_down_w", "slot_power_on_s", "measured_disk.idle_w_range", "measured_disk.active_w_range"]
[measured_disk]
source = "t"
standby_w = 1.0
[sources]
t = "a test"
"#;

#[test]
fn controllers_table_is_golden() {
    let text = ok(&["system", "controllers"]);
    golden("system-controllers.txt", &text);
    for s in ["emc-dd670", "emc-dd860", "emc-dd880", "emc-dd990", "Table 4.4", "Table 4.5", "4.3.1"] {
        assert!(text.contains(s), "missing {s} in\n{text}");
    }
    let v = json(&ok(&["system", "controllers", "--json"]));
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let dd990 = rows.iter().find(|r| r["id"] == "emc-dd990").unwrap();
    assert_eq!((dd990["idle_w"].as_f64(), dd990["deep_c_idle_w"].as_f64()), (Some(778.0), Some(718.0)));
}

#[test]
fn enclosures_table_is_golden_and_marks_derived_and_estimated_figures() {
    let text = ok(&["system", "enclosures"]);
    golden("system-enclosures.txt", &text);
    // ES30's powered-down figure is derived from the printed -78 %; the disks' standby power
    // and the slot power-on time are estimates.
    assert!(text.contains("39.4*") && text.contains("0.50†") && text.contains("3.0†"), "{text}");
    assert!(text.contains("* derived") && text.contains("† an estimate"), "{text}");
    assert!(!text.contains("OUTSIDE"), "the implied disk figures lie in the vendor ranges:\n{text}");
    let v = json(&ok(&["system", "enclosures", "--json"]));
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert_eq!(r["implied_idle_in_range"], true, "{r}");
        assert_eq!(r["implied_active_in_range"], true, "{r}");
    }
    let es30 = rows.iter().find(|r| r["id"] == "emc-es30").unwrap();
    assert_eq!(es30["derived"], serde_json::json!(["powered_down_w"]));
}

#[test]
fn savings_summary_is_golden() {
    let text = ok(&["system", "savings"]);
    golden("system-savings.txt", &text);
    assert!(text.contains("left out    emc-dd670"), "{text}");
}

#[test]
fn savings_json_is_figure_4_4() {
    let v = json(&ok(&["system", "savings", "--json"]));
    // The whole report: the summary, the controllers left out, no curve.
    assert_eq!((v["enclosures"].as_u64(), v["curve"].is_null()), (Some(32), true), "{v}");
    assert!(v["left_out"][0].as_str().is_some_and(|l| l.contains("emc-dd670")), "{v}");
    let rows = v["summary"].as_array().unwrap();
    let find = |c: &str, e: &str, mode: &str| {
        rows.iter().find(|r| r["controller"] == c && r["enclosure"] == e && r["mode"] == mode).unwrap_or_else(|| panic!("no {c} + {e} {mode} in {v}"))
    };
    // The chapter's best and worst cases.
    assert_eq!(find("emc-dd860", "emc-es30", "spin-down")["managed_for_20pct"], 13);
    assert_eq!(find("emc-dd990", "emc-es20", "spin-down")["managed_for_20pct"], 19);
    // "Only two of our six configurations were able to achieve more than 50 % savings."
    let spun: Vec<_> = rows.iter().filter(|r| r["mode"] == "spin-down").collect();
    assert_eq!(spun.len(), 6);
    let above: Vec<_> = spun.iter().filter(|r| r["saving_all"].as_f64().unwrap() > 0.5).collect();
    assert_eq!(above.len(), 2, "{above:?}");
    assert!(rows.iter().all(|r| r["controller"] != "emc-dd670"));
}

#[test]
fn a_pair_shows_its_whole_curve() {
    let v = json(&ok(&["system", "savings", "--controller", "emc-dd860", "--enclosure", "emc-es30", "--json"]));
    assert_eq!((v["curve"]["controller"].as_str(), v["curve"]["mode"].as_str()), (Some("emc-dd860"), Some("spin-down")), "{v}");
    let points = v["curve"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 33);
    assert_eq!(points[0]["saving"], 0.0);
    assert_eq!(points[13]["managed"], 13);
    assert!(points[13]["saving"].as_f64().unwrap() >= 0.2 && points[12]["saving"].as_f64().unwrap() < 0.2);
    let text = ok(&["system", "savings", "--controller", "emc-dd860", "--enclosure", "emc-es30", "--power-down", "--enclosures", "4"]);
    assert!(text.contains("4 × idle emc-es30 (60 disks)") && text.contains("slot powered down"), "{text}");
    let rows = text.lines().skip_while(|l| !l.starts_with("managed enclosures")).skip(1);
    assert_eq!(rows.count(), 5, "k = 0..4:\n{text}");
    // DD670 attaches four enclosures.
    let err = fails(&["system", "savings", "--controller", "emc-dd670", "--enclosure", "emc-es30"]);
    assert!(err.contains("--enclosures") && err.contains("at most 4"), "{err}");
    let err = fails(&["system", "savings", "--enclosures", "0"]);
    assert!(err.contains("--enclosures"), "{err}");
    let err = fails(&["system", "savings", "--controller", "emc-dd860"]);
    assert!(err.contains("--enclosure"), "{err}");
}

#[test]
fn savings_writes_csv_and_a_self_contained_html_page() {
    let dir = tempdir();
    let (csv, html) = (dir.join("s.csv"), dir.join("s.html"));
    ok(&["system", "savings", "--csv", csv.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.starts_with("controller,enclosure,mode,enclosures,managed,managed_disks,total_w,saving\n"));
    assert_eq!(csv.lines().count(), 1 + 12 * 33, "header + 6 pairs × 2 modes × k = 0..32");
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert_eq!(html.matches("<svg").count(), 2, "Figure 4.4 (a) and (b)");
    assert!(html.contains("(a) Disk spin-down") && html.contains("(b) Disk power-down") && html.contains("20 % saved"));
    assert!(html.contains("emc-dd860 + emc-es30"));
    for bad in ["http://", "https://", "<script", "<link", "src=", "@import"] {
        assert!(!html.contains(bad), "the page refers outside itself ({bad})");
    }
    // One pair: its curve in CSV, both modes charted.
    let (csv, html) = (dir.join("p.csv"), dir.join("p.html"));
    ok(&["system", "savings", "--controller", "emc-dd880", "--enclosure", "emc-es20", "--csv", csv.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 1 + 33);
    assert_eq!(std::fs::read_to_string(&html).unwrap().matches("<svg").count(), 2);
}

#[test]
fn show_resolves_the_hibernator_example() {
    let text = ok(&["system", "show", EXAMPLE, "--disks", "24"]);
    assert!(text.contains("emc-dd880") && text.contains("2 × emc-es20 holding 24 disks; spin-down"), "{text}");
    assert!(text.contains("0: emc-es20     16") && text.contains("1: emc-es20      8"), "16 then 8:\n{text}");
    assert!(text.contains("idle, disks excluded: 884.5 W"), "{text}");
    // Without --disks every slot is filled.
    assert!(ok(&["system", "show", EXAMPLE]).contains("holding 32 disks"));
    let v = json(&ok(&["system", "show", EXAMPLE_POWER_DOWN, "--disks", "24", "--json"]));
    assert_eq!(v["low_power"], "power-down");
    assert_eq!(v["disks_per_enclosure"], serde_json::json!([16, 8]));
    assert_eq!(v["placement"].as_array().unwrap().len(), 24);
}

#[test]
fn bad_system_files_name_file_line_and_key() {
    let dir = tempdir();
    let path = dir.join("bad-system.toml");
    let p = path.to_str().unwrap();
    std::fs::write(&path, "controller = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es20\"\ndisks = 17\n").unwrap();
    let err = fails(&["system", "show", p]);
    assert!(err.contains("bad-system.toml:4: field `enclosures[0].disks`") && err.contains("at most 16 disks"), "{err}");

    // An enclosure of the user's own catalog that cannot power slots down.
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("system/enclosure")).unwrap();
    std::fs::write(cat.join("system/enclosure/old-shelf.toml"), OLD_SHELF).unwrap();
    let system = format!("controller = \"emc-dd880\"\nlow_power = \"power-down\"\ncatalog = '{}'\n[[enclosures]]\nmodel = \"old-shelf\"\n", cat.display());
    std::fs::write(&path, &system).unwrap();
    let err = fails(&["system", "show", p]);
    assert!(err.contains("bad-system.toml:5: field `enclosures[0].model`") && err.contains("cannot power its slots down"), "{err}");
    // With spin-down it is fine, and its 8 slots are the default disks.
    std::fs::write(&path, system.replace("power-down", "spin-down")).unwrap();
    assert!(ok(&["system", "show", p]).contains("1 × old-shelf holding 8 disks"));

    // Unknown controllers list the known ones, in a file and on the command line.
    std::fs::write(&path, "controller = \"emc-dd999\"\n[[enclosures]]\nmodel = \"emc-es30\"\n").unwrap();
    let file_err = fails(&["system", "show", p]);
    assert!(file_err.contains("bad-system.toml:1: field `controller`"), "{file_err}");
    let flag_err = fails(&["system", "savings", "--controller", "emc-dd999", "--enclosure", "emc-es30"]);
    assert!(flag_err.contains("--controller: no controller `emc-dd999`"), "{flag_err}");
    for err in [&file_err, &flag_err] {
        for id in ["emc-dd670", "emc-dd860", "emc-dd880", "emc-dd990"] {
            assert!(err.contains(id), "{id} not listed: {err}");
        }
    }

    // A misspelt key, and a file that is not there.
    std::fs::write(&path, "controler = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es30\"\n").unwrap();
    let err = fails(&["system", "show", p]);
    assert!(err.contains("bad-system.toml:1") && err.contains("controler"), "{err}");
    let err = fails(&["system", "show", dir.join("missing.toml").to_str().unwrap()]);
    assert!(err.contains("missing.toml") && err.contains("cannot read"), "{err}");
}

/// `array simulate --system` reports the whole system and, with power-down, power cycles.
#[test]
fn array_runs_report_the_whole_system() {
    let base = ["array", "simulate", "--scheme", "tpm", "--tpm-timeout-s", "5", "--iops", "1", "--hours", "0.1", "--disks", "6", "--nvram", "64M"];
    let mut args = base.to_vec();
    args.extend(["--system", EXAMPLE]);
    let text = ok(&args);
    assert!(text.contains("system      emc-dd880") && text.contains("enclosures"), "{text}");
    args.extend(["--low-power", "power-down", "--json"]);
    let v = json(&ok(&args));
    let sys = &v["system"];
    let parts = sys["controller_j"].as_f64().unwrap() + sys["enclosures_j"].as_f64().unwrap() + sys["disks_j"].as_f64().unwrap();
    assert!((parts - sys["total_j"].as_f64().unwrap()).abs() < 1e-6 * parts);
    assert!(sys["powered_down_disk_s"].as_f64().unwrap() > 0.0, "{sys}");
    assert!(v["power_cycles_per_disk_day"].as_f64().unwrap() > 0.0);
    // Without a system there is none.
    assert!(json(&ok(&[&base[..], &["--json"]].concat()))["system"].is_null());
    // --low-power needs a system; a system too small for the array is named with its line.
    fails(&[&base[..], &["--low-power", "power-down"]].concat());
    let dir = tempdir();
    let small = dir.join("small.toml");
    std::fs::write(&small, "controller = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es30\"\ndisks = 4\n").unwrap();
    let e = fails(&[&base[..], &["--system", small.to_str().unwrap()]].concat());
    assert!(e.contains("small.toml:2: field `enclosures`") && e.contains("6 disks do not fit"), "{e}");
}

/// An `[array.system]` table in a config file is checked with its line.
#[test]
fn a_system_in_an_array_config_is_located() {
    let dir = tempdir();
    let cfg = dir.join("array.toml");
    std::fs::write(&cfg, "[array]\ndisks = 6\n[array.system]\ncontroller = \"emc-dd880\"\n[[array.system.enclosures]]\nmodel = \"emc-es20\"\ndisks = 20\n").unwrap();
    let e = fails(&["array", "simulate", "--config", cfg.to_str().unwrap(), "--hours", "0.01"]);
    assert!(e.contains("array.toml:7: field `array.system.enclosures[0].disks`"), "{e}");
}

/// `replicate run --system` gives the site's saving beside the disks'.
#[test]
fn replication_states_the_sites_saving() {
    let dir = tempdir();
    let sys = dir.join("site.toml");
    std::fs::write(&sys, "controller = \"emc-dd860\"\n[[enclosures]]\nmodel = \"emc-es30\"\n").unwrap();
    let args = ["replicate", "run", "--warehouses", "2", "--buffer-pool", "16M", "--primary-depth", "32", "--duration-s", "900", "--warmup-s", "60", "--rto-s", "50", "--window", "8M", "--apply-cache", "16M", "--data-disks", "4", "--system", sys.to_str().unwrap()];
    let text = ok(&args);
    assert!(text.contains("system %") && text.contains("system      emc-dd860"), "{text}");
    let v = json(&ok(&[&args[..], &["--json"]].concat()));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["saving_system"].as_f64(), Some(0.0));
    let proposed = rows[1]["saving_system"].as_f64().unwrap();
    assert!(proposed < rows[1]["saving_total"].as_f64().unwrap(), "{proposed}");
    // 4 data + 1 log disks do not fit in a 4-disk enclosure.
    std::fs::write(&sys, "controller = \"emc-dd860\"\n[[enclosures]]\nmodel = \"emc-es30\"\ndisks = 4\n").unwrap();
    let e = fails(&args);
    assert!(e.contains("site.toml:2: field `enclosures`") && e.contains("5 disks do not fit"), "{e}");
}
