//! `tierlab plan`: HybridStore's capacity planner as a user runs it.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Once;
use support::cli::{fails, golden, json, ok, shared};

/// One bandwidth cache for this test binary, so each device is measured once.
fn cache() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let dir = std::env::temp_dir().join(format!("tierlab-plan-test-cache-{}", std::process::id()));
        std::env::set_var("TIERLAB_CACHE_DIR", dir);
    });
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("tierlab-plan-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_trace_gets_a_plan_with_its_runner_ups_and_single_type_costs() {
    let Some(shared) = shared() else { return };
    cache();
    let trace = shared.join("traces/msr-hm0-1k.csv");
    let trace = trace.to_str().unwrap();
    let text = ok(&["plan", "--trace", trace]);
    // The solver's name depends on the build's features; the rest is golden.
    let text: String = text.replace(trace, "msr-hm0-1k.csv").lines().map(|l| if l.starts_with("plan ") { l.split(" (solver").next().unwrap_or(l) } else { l }).collect::<Vec<_>>().join("\n") + "\n";
    golden("plan-msr.txt", &text);
    let v = json(&ok(&["plan", "--trace", trace, "--json"]));
    let best = &v["study"]["best"];
    // Every class placed in full.
    let classes = v["classes"].as_array().unwrap();
    for (j, c) in classes.iter().enumerate() {
        let placed: f64 = best["types"].as_array().unwrap().iter().map(|t| t["placed_gb"][j].as_f64().unwrap()).sum();
        assert!((placed - c["size_gb"].as_f64().unwrap()).abs() < 1e-6, "class {j}");
    }
    // The total is the sum of its parts, and no single-type plan is cheaper.
    let total = best["total_usd"].as_f64().unwrap();
    let parts = ["install_usd", "electricity_usd", "cooling_usd"].iter().map(|k| best["cost"][k].as_f64().unwrap()).sum::<f64>();
    assert!((total - parts).abs() < 1e-6);
    for one in v["study"]["single_type"].as_array().unwrap() {
        if let Some(t) = one["plan"]["total_usd"].as_f64() {
            assert!(t >= total - 1e-6, "{one}");
        }
    }
    // Installation only, electricity only: cheaper than with cooling.
    let no_cooling = json(&ok(&["plan", "--trace", trace, "--json", "--cooling-factor", "1"]));
    assert!(no_cooling["study"]["best"]["total_usd"].as_f64().unwrap() < total);
    let install = json(&ok(&["plan", "--trace", trace, "--json", "--no-recurring"]));
    assert_eq!(install["study"]["best"]["cost"]["electricity_usd"].as_f64(), Some(0.0));
}

#[test]
fn bad_plan_input_is_an_actionable_error() {
    let Some(shared) = shared() else { return };
    cache();
    let trace = shared.join("traces/msr-hm0-1k.csv");
    let trace = trace.to_str().unwrap();
    let e = fails(&["plan", "--trace", trace, "--classes", "20"]);
    assert!(e.contains("--classes: expected 17 or 33"), "{e}");
    let e = fails(&["plan", "--trace", trace, "--without", "nope"]);
    assert!(e.contains("--without nope") && e.contains("x25m"), "{e}");
    let e = fails(&["plan", "--trace", trace, "--price", "x25m=cheap"]);
    assert!(e.contains("--price x25m=cheap"), "{e}");
    let e = fails(&["plan", "--trace", trace, "--max-devices", "0"]);
    assert!(e.contains("infeasible"), "{e}");
    // A catalog file whose device has no price and does not say so.
    let dir = tempdir();
    let file = dir.join("no-price.toml");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../catalog/plan/hybridstore-2009.toml")).unwrap();
    std::fs::write(&file, text.replace("price_usd_per_gb = 4.25\n", "")).unwrap();
    let e = fails(&["plan", "--trace", trace, "--catalog", file.to_str().unwrap()]);
    assert!(e.contains("no-price.toml") && e.contains("devices[0].price_usd_per_gb"), "{e}");
    let e = fails(&["plan"]);
    assert!(e.contains("--trace") || e.contains("--stats"), "{e}");
}

#[test]
fn the_plan_report_loads_in_a_headless_browser() {
    let Some(shared) = shared() else { return };
    let Some(browser) = support::browser::chromium() else { return };
    cache();
    let dir = tempdir();
    let page = dir.join("plan.html");
    let trace = shared.join("traces/msr-hm0-1k.csv");
    ok(&["plan", "--trace", trace.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    support::browser::check_report(&browser, &page);
    let html = std::fs::read_to_string(&page).unwrap();
    for s in ["Cost of the best plan", "Where the best plan puts each data class", "1 x25m"] {
        assert!(html.contains(s), "missing {s}");
    }
}

/// A published workload with no trace: /hm of Table 4.3, synthesised. One low-end disk
/// holds it; an SSD alone is cheaper than a high-end disk alone (the research's finding
/// for /hm and /term).
#[test]
fn a_statistics_file_stands_in_for_a_missing_trace() {
    cache();
    let v = json(&ok(&["plan", "--stats", "hybridstore-t4.3-hm", "--json"]));
    let best = &v["study"]["best"];
    let used: Vec<(String, u64)> = best["types"].as_array().unwrap().iter().filter(|t| t["count"].as_u64().unwrap() > 0).map(|t| (t["device"].as_str().unwrap().to_string(), t["count"].as_u64().unwrap())).collect();
    assert_eq!(used, [("samsung-green-1tb".to_string(), 1)]);
    let single = |id: &str| v["study"]["single_type"].as_array().unwrap().iter().find(|o| o["device"] == id).unwrap()["plan"]["total_usd"].as_f64().unwrap();
    assert!(single("x25m") < single("cheetah-15k5"));
    // The synthesised stream meets the file's statistics.
    let rows = v["synthesis"]["rows"].as_array().unwrap();
    assert!(rows.len() >= 6);
    for r in rows {
        let (t, a) = (r["target"].as_f64().unwrap(), r["achieved"].as_f64().unwrap());
        assert!((a - t).abs() <= 0.02 * t.abs().max(1.0), "{r}");
    }
    let e = fails(&["plan", "--stats", "nope"]);
    assert!(e.contains("--stats nope") && e.contains("hybridstore-t4.3-financial"), "{e}");
    let dir = tempdir();
    let bad = dir.join("bad-stats.toml");
    let text = tierlab_synth::builtin_files().iter().find(|(n, _)| n.contains("t4.3-hm")).unwrap().1;
    std::fs::write(&bad, text.replace("cold_gb = 37.0", "cold_gb = 30.0")).unwrap();
    let e = fails(&["plan", "--stats", bad.to_str().unwrap()]);
    assert!(e.contains("bad-stats.toml") && e.contains("cold_gb"), "{e}");
}

/// `--simulate`: the plan and each device type alone replayed as the measurement layer
/// measures (the trace played pass after pass, warm-up cut, the window long enough), every
/// request completed, and the report's power the window's.
#[test]
fn a_plan_is_checked_by_simulation() {
    let Some(shared) = shared() else { return };
    cache();
    let trace = shared.join("traces/msr-hm0-1k.csv");
    let dir = tempdir();
    let page = dir.join("plan-simulated.html");
    let v = json(&ok(&["plan", "--trace", trace.to_str().unwrap(), "--simulate", "--json", "--html", page.to_str().unwrap()]));
    let sims = v["simulated"].as_array().unwrap();
    assert_eq!(sims[0]["design"], "planned");
    // The page charts each design's simulated response time and says so when the plan's
    // is far above the fastest design's (ten times, and above 50 ms).
    let mean = |s: &serde_json::Value| s["report"]["system"]["response_time"]["mean_ms"].as_f64();
    let planned = mean(&sims[0]).unwrap();
    let fastest = sims.iter().filter_map(mean).fold(f64::INFINITY, f64::min);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Mean response time of each design replayed"), "the simulation is charted");
    let slow = planned >= 50.0 && planned >= 10.0 * fastest;
    assert_eq!(html.contains("class=\"warn\""), slow, "planned {planned} ms, fastest {fastest} ms");
    if let Some(browser) = support::browser::chromium() {
        support::browser::check_report(&browser, &page);
    }
    let mut ran = 0;
    for s in sims {
        match s["report"].as_object() {
            Some(r) => {
                ran += 1;
                let i = &r["integrity"];
                assert_eq!(i["requests_completed"], i["requests_arrived"], "{}", s["design"]);
                assert!(i["requests_completed"].as_u64().unwrap() > 2000, "more than two passes of the 1,000-request trace: {}", s["design"]);
                assert!(r["system"]["response_time"]["mean_ms"].as_f64().unwrap() > 0.0);
                let m = &s["measured"];
                assert!(m["warmup_s"].as_f64().unwrap() > 0.0 && m["window_s"].as_f64().unwrap() > 0.0, "{m}");
                assert!(m["mean_ms"]["half_width"].as_f64().unwrap().is_finite(), "{m}");
                // One window for every figure: the design's power is its types' power.
                let types = s["types"].as_array().unwrap();
                assert!(!types.is_empty());
                let by_type: f64 = types.iter().map(|t| t["simulated_power_w"].as_f64().unwrap()).sum();
                let system = r["system"]["mean_power_w"].as_f64().unwrap();
                assert!((by_type - system).abs() <= 1e-9 * system, "{}: {by_type} W by type, {system} W in all", s["design"]);
            }
            None => assert!(s["skipped"].as_str().unwrap().contains("data sheet"), "{s}"),
        }
    }
    assert!(ran >= 3, "the plan, the SSD alone and the disks alone ran");
}
