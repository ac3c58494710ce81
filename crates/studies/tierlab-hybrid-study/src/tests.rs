//! Unit tests: the matrix, a small comparison on a synthetic workload, and bad input.

use crate::*;
use tierlab_engine::Replay;
use tierlab_types::GIB;
use tierlab_devices::SsdTiming;
use tierlab_workload::{Workload, WorkloadSpec};

/// The bundled default workload, cut to `n` requests over 4 GiB (a small span keeps the
/// SSD's preconditioning quick).
fn small(n: u64) -> Workload {
    Workload::Synthetic(WorkloadSpec { requests: n, span_bytes: 4 * GIB, ..WorkloadSpec::bundled_default() })
}

fn closed() -> Config {
    Config { replay: Replay::Closed { depth: 1 }, ..Config::default() }
}

/// A protocol small enough for debug-mode tests: batches of 100, at most `n` requests.
fn quick(n: u64) -> Protocol {
    Protocol { batch_requests: 100, max_requests: n, ..Protocol::default() }
}

#[test]
fn the_default_matrix_has_baselines_then_every_sweep_value() {
    let entries = Matrix::new(closed()).entries();
    // 2 single devices + 2 linear + 2 modes × 2 shares × 2 PT × 2 ES × 1 MCML.
    assert_eq!(entries.len(), 2 + 2 + 16);
    let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(labels[..5], ["ssd-only", "hdd-only", "linear ssd=1/4", "linear ssd=1/8", "tiering ssd=1/4 pt=2 es=1M mcml=4"]);
    assert_eq!(labels[19], "caching ssd=1/8 pt=8 es=256K mcml=4");
    let last = &entries[19].config;
    assert_eq!((last.mode, last.hybrid.ssd_fraction, last.hybrid.pt, last.hybrid.es), (Some(Mode::Caching), 0.125, 8, 256 * 1024));
    assert!(entries.iter().all(|e| e.config.replay == Replay::Closed { depth: 1 }));
}

#[test]
fn compare_prices_every_configuration_and_serialises_as_an_array() {
    let matrix = Matrix { fractions: vec![0.25], pts: vec![2], extents: vec![tierlab_types::MIB], mcmls: vec![4], ..Matrix::new(closed()) };
    let mut calls = 0u64;
    let report = compare(&matrix, &small(2_000), &CostModel::default(), &quick(4_000), &mut |_, _| calls += 1).unwrap();
    assert!(calls > 0, "progress is reported");
    assert_eq!(report.rows.len(), 5);
    let (ssd, hdd) = (report.row("ssd-only").unwrap(), report.row("hdd-only").unwrap());
    let tiering = report.row("tiering ssd=1/4 pt=2 es=1M mcml=4").unwrap();
    assert_eq!((ssd.mode.as_str(), tiering.pt, ssd.pt), ("ssd-only", Some(2), None));
    assert_eq!((ssd.ssd_hit_ratio, hdd.ssd_hit_ratio), (Some(1.0), Some(0.0)));
    // SSD-only costs most up front, HDD-only least; the disk alone is slowest.
    assert!(ssd.cost[0].purchase_usd > tiering.cost[0].purchase_usd && tiering.cost[0].purchase_usd > hdd.cost[0].purchase_usd);
    assert!(ssd.mean_ms < hdd.mean_ms && tiering.mean_ms < hdd.mean_ms, "{} {} {}", ssd.mean_ms, tiering.mean_ms, hdd.mean_ms);
    // The drive holds its data: the SSD share (1 GiB of 4) starts with a quarter of the
    // scattered hot regions (0.4 GiB in all), so tiering must move data, and once warmed
    // the SSD holds the hot set and serves most accesses.
    let warming = tiering.runs[0].policy_warming;
    assert!(warming.settled && warming.migrations > 0, "{warming:?}");
    assert!(tiering.ssd_hit_ratio.unwrap() > 0.8, "{tiering:?}");
    for r in &report.rows {
        assert_eq!(r.cost.len(), tierlab_cost::ALPHAS.len());
        assert_eq!(r.cost_at(1e5), r.cost[5].total_usd);
        // Two measured runs: at the workload's own times, and closed-loop for max IOPS.
        assert_eq!(r.runs.len(), 2);
        assert!(r.runs[0].replay == "open-loop" && r.runs[1].replay.starts_with("closed-loop"), "{:?}", r.runs);
        assert!(r.sustainable && (r.offered_iops - 80.0).abs() < 8.0, "{}: {}", r.config, r.offered_iops);
        // One pass of the workload at its own rate: 2,000 requests at 80 IOPS.
        assert!((r.pass_s - 25.0).abs() < 1e-9, "{}", r.pass_s);
    }
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(5), "the report is the bare array of rows");
}

#[test]
fn a_run_is_deterministic() {
    let config = Config { mode: Some(Mode::Caching), ..closed() };
    let a = run_config("a", &config, &small(1_000), &CostModel::default(), &quick(3_000), &mut |_| {}).unwrap();
    let b = run_config("a", &config, &small(1_000), &CostModel::default(), &quick(3_000), &mut |_| {}).unwrap();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert!(a.prefetches > 0);
}

#[test]
fn the_horizon_is_the_workload_at_its_own_rate_for_that_long() {
    let config = Config { mode: Some(Mode::HddOnly), ..closed() };
    let per_run = CostModel { demand_billing: tierlab_cost::DemandBilling::PerRun, ..CostModel::default() };
    let a = run_config("a", &config, &small(500), &per_run, &quick(3_000), &mut |_| {}).unwrap();
    let monthly = run_config("a", &config, &small(500), &CostModel::default(), &quick(3_000), &mut |_| {}).unwrap();
    // Five years of the workload at 80 IOPS, whatever the run's own length: the energy is
    // the measured power for that long, and monthly billing pays 60 months of demand.
    let years = 5.0 * tierlab_types::SECONDS_PER_YEAR;
    assert!((monthly.horizon.energy_kwh - monthly.average_power_w * years / 3.6e6).abs() < 1e-6 * monthly.horizon.energy_kwh);
    assert!((monthly.horizon.years - 5.0).abs() < 1e-9, "{}", monthly.horizon.years);
    assert!((monthly.horizon.alpha - years / monthly.pass_s).abs() < 1e-6 * monthly.horizon.alpha);
    // Billed once per pass of the workload (6.25 s), demand costs far more than 60 monthly
    // bills, and grows with α.
    assert!(a.horizon.power_usd > 1e3 * monthly.horizon.power_usd, "{} vs {}", a.horizon.power_usd, monthly.horizon.power_usd);
    assert!((a.cost[5].power_usd - 1e4 * a.cost[1].power_usd).abs() < 1e-6 * a.cost[5].power_usd, "{} vs {}", a.cost[5].power_usd, a.cost[1].power_usd);
    // The α curve counts passes of the workload (500 requests at 80 IOPS each): α = 1e5
    // is 6.25 × 1e5 s of service whatever the design's speed.
    assert!((monthly.pass_s - 6.25).abs() < 1e-9, "{}", monthly.pass_s);
    assert!((monthly.cost[5].years - 6.25 * 1e5 / tierlab_types::SECONDS_PER_YEAR).abs() < 1e-9);
}

#[test]
fn a_tiering_drive_in_service_holds_its_data_and_an_empty_one_is_an_option() {
    let full = Config { mode: Some(Mode::Tiering), ..closed() };
    let empty = Config { hybrid: HybridParams { populated: false, ..HybridParams::default() }, ..full.clone() };
    let a = run_config("a", &empty, &small(2_000), &CostModel::default(), &quick(3_000), &mut |_| {}).unwrap();
    let b = run_config("b", &full, &small(2_000), &CostModel::default(), &quick(3_000), &mut |_| {}).unwrap();
    // Empty: measured as a new drive, not warmed; first touches land on the free SSD and
    // nothing moves. Full (the default): the SSD holds the lowest 1 GiB of the 4 GiB span,
    // so the policy must move the scattered hot regions onto it, which its functional
    // warming does before the timed run.
    assert!(HybridParams::default().populated);
    assert_eq!((a.promotions, a.demotions), (0, 0));
    assert!(a.runs.iter().all(|r| r.policy_warming.requests == 0), "{:?}", a.runs);
    assert!(b.runs.iter().all(|r| r.policy_warming.migrations > 0), "{:?}", b.runs);
}

#[test]
fn a_design_that_cannot_carry_the_load_is_marked_and_left_out_of_the_verdict() {
    // 400 IOPS of random requests: more than a 7,200 RPM disk serves.
    let spec = WorkloadSpec { requests: 4_000, span_bytes: 4 * GIB, arrival: tierlab_workload::Arrival::Poisson { iops: 400.0 }, ..WorkloadSpec::bundled_default() };
    let o = overview(&closed(), &Workload::Synthetic(spec), &CostModel::default(), &quick(5_000), &mut |_, _| {}).unwrap();
    let hdd = o.designs.iter().find(|d| d.design == "hdd-only").unwrap();
    assert!(!hdd.sustainable && hdd.max_iops < 300.0, "{hdd:?}");
    assert!(o.not_judged.iter().any(|n| n.design == "hdd-only" && n.reason.starts_with("cannot sustain 3")), "{:?}", o.not_judged);
    assert!(!o.judged.contains(&"hdd-only".to_string()));
    for v in [&o.fastest, &o.cheapest, &o.best_per_dollar] {
        assert!(!v.is_empty() && !v.contains(&"hdd-only".to_string()), "{v:?}");
    }
    let ssd = o.designs.iter().find(|d| d.design == "ssd-only").unwrap();
    assert!(ssd.sustainable);
}

#[test]
fn bad_input_is_named() {
    let config = Config { mode: Some(Mode::Tiering), ..closed() };
    let cost = CostModel { read_effect: -1.0, ..CostModel::default() };
    let e = run_config("x", &config, &small(10), &cost, &quick(2_000), &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("--read-effect"), "{e:#}");
    let cost = CostModel { prices: "nope".into(), ..CostModel::default() };
    let e = run_config("x", &config, &small(10), &cost, &quick(2_000), &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("greendm-2012"), "{e:#}");
    let bad = Config { hybrid: HybridParams { ssd_fraction: 1.5, ..HybridParams::default() }, ..config.clone() };
    let e = simulate(&small(10), &bad, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("--ssd-fraction"), "{e}");
    let bad = Config { hybrid: HybridParams { ssd: "no-such-ssd".into(), ..HybridParams::default() }, ..config };
    let e = simulate(&small(10), &bad, &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("no-such-ssd"), "{e:#}");
    let huge = Config { mode: Some(Mode::Tiering), hybrid: HybridParams { capacity_bytes: Some(u64::MAX), ht: Some(u32::MAX), mcml: u32::MAX, ..HybridParams::default() }, ..closed() };
    let e = simulate(&small(10), &huge, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("expected at most"), "{e}");
    let missing = Workload::Trace { path: "/nonexistent/t.csv".into(), options: Default::default() };
    let e = simulate(&missing, &closed(), &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/t.csv"), "{e}");
}

#[test]
fn the_hdd_alone_uses_its_whole_capacity_and_hdd_only_just_the_span() {
    let plain = simulate(&small(200), &closed(), &mut |_| {}).unwrap();
    let only = simulate(&small(200), &Config { mode: Some(Mode::HddOnly), ..closed() }, &mut |_| {}).unwrap();
    assert_eq!(plain.usage, Usage { ssd_bytes: 0, hdd_bytes: 2_000_000_000_000 });
    assert_eq!(only.usage, Usage { ssd_bytes: 0, hdd_bytes: 4 * GIB });
}

#[test]
fn the_ssd_timed_from_its_data_sheet_runs_the_same_policy_and_is_priced_the_same_way() {
    // An empty drive, so that nothing moves and timing cannot reorder the policy's work.
    let empty = HybridParams { populated: false, ..HybridParams::default() };
    let internals = Config { mode: Some(Mode::Tiering), hybrid: empty.clone(), ..closed() };
    let datasheet = Config { hybrid: HybridParams { ssd_timing: SsdTiming::Datasheet, ..empty }, ..internals.clone() };
    let a = simulate(&small(2_000), &internals, &mut |_| {}).unwrap();
    let b = simulate(&small(2_000), &datasheet, &mut |_| {}).unwrap();
    // The policy sees the same accesses, so places the same bytes; only the SSD's timing
    // and energy differ.
    let bytes = |r: &Run| (r.report.devices[0].write_bytes, r.report.devices[0].read_bytes, r.report.controller["stats"]["promotions"].clone());
    assert_eq!(bytes(&a), bytes(&b));
    let (a, b) = (a.report.response_time, b.report.response_time);
    assert_ne!(a.mean_ms, b.mean_ms);
    // Closed loop at depth 1 on the Intel 320's data sheet: 4 KiB-64 KiB requests take
    // its 75-90 us latency plus transfer, nowhere near the HDD's milliseconds.
    assert!(b.mean_ms > 0.07 && b.mean_ms < 1.0, "{}", b.mean_ms);
    let e = simulate(&small(10), &Config { hybrid: HybridParams { ssd: "study-slc".into(), ..datasheet.hybrid.clone() }, ..datasheet }, &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("no [datasheet] section"), "{e:#}");
}

#[test]
fn a_short_trace_is_played_again_until_it_settles_or_is_marked_never_settled() {
    // 999 random 4 KiB reads and writes over 2 GiB, 20 ms apart (MSR Cambridge CSV).
    let dir = std::env::temp_dir().join(format!("tierlab-hybrid-short-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("short.csv");
    let lines: String = (0..999u64)
        .map(|i| {
            let op = if i % 3 == 0 { "Write" } else { "Read" };
            format!("{},hm,0,{op},{},4096,100\n", 128166385295514663 + i * 200_000, (i * 7919 % 524_288) * 4096)
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    let trace = Workload::Trace { path: path.clone(), options: Default::default() };
    let config = Config { mode: Some(Mode::Tiering), ..closed() };
    let row = run_config("t", &config, &trace, &CostModel::default(), &quick(8_000), &mut |_| {}).unwrap();
    // Not one pass extrapolated to five years: the runs went on past the trace's end, or
    // say that they never settled.
    for run in &row.runs {
        assert!(run.warmup_requests + run.measured_requests > 999 || !run.settled, "{run:?}");
    }
    assert!(row.runs[0].warmup_requests + row.runs[0].measured_requests > 2_000, "{:?}", row.runs[0]);
    // One pass is the trace's span plus one gap: 999 × 20 ms.
    assert!((row.pass_s - 19.98).abs() < 1e-6, "{}", row.pass_s);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_default_disk_under_load_wears_by_what_it_transfers() {
    // The default disk never spins down, so it makes no start/stop or load/unload cycles;
    // its wear is the workload it carries against its rated TB/year over its warranty.
    let config = Config { mode: Some(Mode::HddOnly), ..closed() };
    let r = run_config("a", &config, &small(500), &CostModel::default(), &quick(3_000), &mut |_| {}).unwrap();
    assert_eq!((r.hdd_start_stop_cycles, r.hdd_load_unload_cycles), (0, 0));
    let ratings = r.hdd_ratings.clone().unwrap();
    let rated = ratings.rated_transfer_bytes().unwrap() as f64;
    assert!(r.hdd_transfer_bytes > 0 && r.hdd_eu > 0.0, "{} bytes, eu {}", r.hdd_transfer_bytes, r.hdd_eu);
    assert!((r.hdd_eu - r.hdd_transfer_bytes as f64 / rated * 1e6).abs() < 1e-9 * r.hdd_eu.max(1.0), "eu {}", r.hdd_eu);
    // The horizon's wear is five years of that rate: the annual rate over the rated one,
    // times five years over the five-year warranty.
    let hdd = r.horizon.devices.last().unwrap();
    let expect = r.hdd_workload_tb_per_year / 180.0 * 5.0 * tierlab_types::SECONDS_PER_YEAR / tierlab_cost::SECONDS_PER_365_DAY_YEAR / 5.0;
    assert!(hdd.wear_fraction > 0.0 && (hdd.wear_fraction - expect).abs() < 1e-3 * expect, "{} vs {expect}", hdd.wear_fraction);
    assert!(ratings.describe().contains("180 TB/year (an estimate)"), "{}", ratings.describe());
}

#[test]
fn a_drive_without_a_rating_says_so_rather_than_counting_zero() {
    let hdd = tierlab_devices::HddChoice { device: "samsung-spinpoint-f1-ecogreen-hd103ui".into(), ..Default::default() };
    let ratings = HddRatings::of(&hdd, Some(50_000)).unwrap();
    assert_eq!(ratings.rated_transfer_bytes(), None);
    let text = ratings.describe();
    assert!(text.contains("not rated, not counted: load/unload cycles, workload (TB/year)"), "{text}");
    let none = HddRatings::of(&hdd, None).unwrap();
    assert!(none.wear(1, 1, 1).fraction("hdd").is_err(), "a drive with no rated limit has no wear figure");
}
