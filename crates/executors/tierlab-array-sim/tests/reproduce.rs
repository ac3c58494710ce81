//! The Hibernator reproduction of `docs/arrays.md`, as tables. Long (minutes in a release
//! build): it runs only with `TIERLAB_LONG=1`:
//!
//! ```sh
//! TIERLAB_LONG=1 cargo test --release -p tierlab-array-sim --test reproduce -- --nocapture --test-threads 1
//! ```

use std::path::PathBuf;
use tierlab_array_policy::SchemeConfig;
use tierlab_array_sim::{common_span_bytes, compare, oltp_workload_with, run_array, ArrayConfig, CompareRow, Load, OltpSkew, Protocol};
use tierlab_workload::Workload;
use tierlab_trace::ReadOptions;

/// The most a stable-load run may take (warm-up included): the measurement layer ends the
/// warm-up once the tiers held for two epochs and the run once its intervals are narrow.
const HOURS: f64 = 48.0;

fn long() -> bool {
    if std::env::var_os("TIERLAB_LONG").is_none() {
        eprintln!("skipped: set TIERLAB_LONG=1 to run the reproduction");
        return false;
    }
    true
}

fn array() -> ArrayConfig {
    ArrayConfig { measure: Some(Protocol { batch_requests: 0, max_requests: 0, ..Protocol::default() }), ..ArrayConfig::default() }
}

fn span(cfg: &ArrayConfig) -> u64 {
    common_span_bytes(cfg, &SchemeConfig::default()).unwrap()
}

fn oltp(cfg: &ArrayConfig, iops: f64, skew: OltpSkew) -> Load {
    Load { label: format!("{iops} req/s"), iops: Some(iops), workload: Workload::Synthetic(oltp_workload_with(span(cfg), iops, HOURS * 3600.0, 7, skew)) }
}

fn schemes(names: &str) -> Vec<SchemeConfig> {
    names.split(',').map(|n| SchemeConfig::named(n).unwrap()).collect()
}

fn table(rows: &[CompareRow]) {
    println!("| load | scheme | mean ms | p99 ms | goal | saving % | speed changes /disk/day | guarantee held s | warm-up h | window h |");
    println!("|---|---|---:|---:|:-:|---:|---:|---:|---:|---:|");
    for r in rows {
        let m = r.run.measured.as_ref();
        println!(
            "| {} | {} | {:.2}{} | {:.2} | {} | {:.1}{} | {:.1} | {:.0} | {} | {} |",
            r.load,
            r.scheme,
            r.run.response_time.mean_ms,
            m.map_or(String::new(), |m| format!(" ± {:.2}", m.mean_ms.half_width)),
            r.run.response_time.p99_ms,
            if r.run.goal_met { "✓" } else { "✗" },
            r.energy_saving * 100.0,
            r.energy_saving_half_width.map_or(String::new(), |h| format!(" ± {:.1}", h * 100.0)),
            r.run.speed_changes_per_disk_day,
            r.run.scheme_report.guarantee_s,
            m.map_or("-".into(), |m| format!("{:.1}", m.warmup_s / 3600.0)),
            m.map_or("-".into(), |m| format!("{}{:.1}", if m.settled { "" } else { "~" }, m.window_s / 3600.0)),
        );
    }
    println!();
}

#[test]
fn stable_loads() {
    if !long() {
        return;
    }
    let cfg = array();
    for skew in [OltpSkew::Zipf, OltpSkew::HotCold] {
        let loads: Vec<Load> = [7.0, 14.0, 140.0, 700.0, 1400.0].iter().map(|&r| oltp(&cfg, r, skew)).collect();
        let rows = compare(&cfg, &schemes("raid-drpm,pdc-ld,raid-drpm+,pdc-ld+,raid-cr+,hibernator+"), &loads, &mut |d, t, l| eprintln!("{d}/{t} {l}")).unwrap();
        println!("### Stable OLTP-like loads ({skew:?} skew), R_limit 10 ms, at most {HOURS} h, measured at steady state\n");
        table(&rows);
    }
}

#[test]
fn saving_against_r_limit() {
    if !long() {
        return;
    }
    let cfg = array();
    let load = oltp(&cfg, 700.0, OltpSkew::Zipf);
    println!("### Saving against R_limit, OLTP-like 700 req/s (Zipf)\n");
    for limit in [5.0, 10.0, 20.0, 40.0, 80.0, 160.0] {
        let mut s = schemes("raid-cr+,hibernator+");
        for x in &mut s {
            x.r_limit_ms = limit;
        }
        let rows = compare(&cfg, &s, std::slice::from_ref(&load), &mut |_, _, _| {}).unwrap();
        for r in rows.iter().filter(|r| r.scheme != "raid5") {
            println!("| {limit} ms | {} | {:.2} | {:.1} % |", r.scheme, r.run.response_time.mean_ms, r.energy_saving * 100.0);
        }
    }
    println!();
}

#[test]
#[ignore = "reported in docs/arrays.md; rerun with --include-ignored"]
fn dynamic_traces() {
    if !long() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/traces");
    if !root.is_dir() {
        eprintln!("skipped: ../shared/traces is absent");
        return;
    }
    let cfg = ArrayConfig { warmup_s: Some(0.0), ..ArrayConfig::default() };
    let trace = |file: &str, speed: f64| Load {
        label: format!("{file} ×{speed}"),
        iops: None,
        workload: Workload::Trace { path: root.join(file), options: ReadOptions { speed, sort: true, ..ReadOptions::default() } },
    };
    let loads = vec![trace("cloudphysics-io.csv", 0.25), trace("cloudphysics-io.csv", 1.0), trace("blkreplay-linux-mysql.load.gz", 0.25)];
    let mut s = schemes("raid-drpm+,raid-cr+,hibernator+");
    for x in &mut s {
        x.epoch_s = 1800.0;
    }
    let rows = compare(&cfg, &s, &loads, &mut |d, t, l| eprintln!("{d}/{t} {l}")).unwrap();
    println!("### Real traces whose rate changes (epoch 30 min, whole run measured)\n");
    table(&rows);
}

/// The cost of moving one disk from the slow tier into a 22-disk full-speed tier (the
/// paper's Table 3): the reorganisation's length with (almost) no foreground load and
/// with 1,400 req/s, and the foreground mean response in the first 30 min with and
/// without the move.
#[test]
fn shuffling_cost() {
    if !long() {
        return;
    }
    let cfg = ArrayConfig { disks: 25, ..ArrayConfig::default() };
    // Epochs long enough for the first reorganisation (three disks leave the tier) to
    // finish under foreground load before the second starts.
    let scheme = |second: Vec<u32>, epoch_s: f64| {
        let mut s = SchemeConfig::named("hibernator").unwrap();
        s.hibernator.tier_schedule = vec![vec![22, 3], second];
        s.epoch_s = epoch_s;
        s
    };
    let lengths = |r: &tierlab_array_sim::ArrayRun| -> Vec<f64> {
        r.scheme_report.details["reorganisation_lengths_s"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
    };
    println!("### Moving one disk into a 22-disk full-speed tier (25 disks)\n");
    println!("| foreground | reorganisation | length min | foreground mean ms, first 30 min | without the move |");
    println!("|---|---|---:|---:|---:|");
    for iops in [0.05, 1400.0] {
        let epoch_s = if iops < 1.0 { 3600.0 } else { 7200.0 };
        let hours = if iops < 1.0 { 6.0 } else { 4.5 };
        let w = Workload::Synthetic(oltp_workload_with(span(&cfg), iops, hours * 3600.0, 11, OltpSkew::Zipf));
        let measured = ArrayConfig { warmup_s: Some(2.0 * epoch_s), ..cfg.clone() };
        let with = run_array(&measured, &scheme(vec![23, 2], epoch_s), &w, &mut |_| {}).unwrap();
        let without = run_array(&measured, &scheme(vec![22, 3], epoch_s), &w, &mut |_| {}).unwrap();
        let l = lengths(&with);
        let ms = |r: &tierlab_array_sim::ArrayRun| if iops < 1.0 { "-".to_string() } else { format!("{:.2}", r.response_time.mean_ms) };
        println!("| {iops} req/s | 22+3 → 23+2 | {} | {} | {} |", l.get(1).map_or("-".into(), |s| format!("{:.1}", s / 60.0)), ms(&with), ms(&without));
        println!("<!-- first reorganisation (24 → 22+3) {:.1} min -->", l.first().copied().unwrap_or(0.0) / 60.0);
    }
    println!();
}
