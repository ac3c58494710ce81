//! Unit tests: the matrix, a small comparison on a synthetic workload, and bad input.

use crate::*;
use tierlab_sim::Replay;
use tierlab_types::GIB;
use tierlab_workload::WorkloadSpec;

/// The bundled default workload, cut to `n` requests over 4 GiB (a small span keeps the
/// SSD's preconditioning quick).
fn small(n: u64) -> Workload {
    Workload::Synthetic(WorkloadSpec { requests: n, span_bytes: 4 * GIB, ..WorkloadSpec::bundled_default() })
}

fn closed() -> Config {
    Config { replay: Replay::Closed { depth: 1 }, ..Config::default() }
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
    let report = compare(&matrix, &small(2_000), &CostModel::default(), &mut |_, _| calls += 1).unwrap();
    assert!(calls > 0, "progress is reported");
    assert_eq!(report.rows.len(), 5);
    let (ssd, hdd) = (report.row("ssd-only").unwrap(), report.row("hdd-only").unwrap());
    let tiering = report.row("tiering ssd=1/4 pt=2 es=1M mcml=4").unwrap();
    assert_eq!((ssd.mode.as_str(), tiering.pt, ssd.pt), ("ssdonly", Some(2), None));
    assert_eq!((ssd.ssd_hit_ratio, hdd.ssd_hit_ratio), (Some(1.0), Some(0.0)));
    // SSD-only costs most up front, HDD-only least; the disk alone is slowest.
    assert!(ssd.cost[0].purchase_usd > tiering.cost[0].purchase_usd && tiering.cost[0].purchase_usd > hdd.cost[0].purchase_usd);
    assert!(ssd.mean_ms < hdd.mean_ms && tiering.mean_ms < hdd.mean_ms, "{} {} {}", ssd.mean_ms, tiering.mean_ms, hdd.mean_ms);
    // The mapping starts empty and first touches map SSD first: until the SSD's share
    // (1 GiB) fills, everything is served by the SSD and nothing needs promoting.
    assert!(tiering.ssd_hit_ratio.unwrap() > 0.99 && tiering.ssd_write_bytes > 0, "{:?}", tiering.ssd_hit_ratio);
    for r in &report.rows {
        assert_eq!(r.cost.len(), tierlab_cost::ALPHAS.len());
        assert_eq!(r.cost_at(1e5), r.cost[5].total_usd);
    }
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(5), "the report is the bare array of rows");
}

#[test]
fn a_run_is_deterministic() {
    let config = Config { mode: Some(Mode::Caching), ..closed() };
    let a = run_config("a", &config, &small(1_000), &CostModel::default(), &mut |_| {}).unwrap();
    let b = run_config("a", &config, &small(1_000), &CostModel::default(), &mut |_| {}).unwrap();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert!(a.prefetches > 0);
}

#[test]
fn monthly_demand_billing_charges_the_run_its_share_of_a_month() {
    let config = Config { mode: Some(Mode::Tiering), ..closed() };
    let per_run = run_config("a", &config, &small(500), &CostModel::default(), &mut |_| {}).unwrap();
    let monthly = CostModel { demand_billing: tierlab_cost::DemandBilling::Monthly, ..CostModel::default() };
    let monthly = run_config("a", &config, &small(500), &monthly, &mut |_| {}).unwrap();
    for (a, b) in per_run.cost.iter().zip(&monthly.cost) {
        // years = α × duration / year, so the run's share of a month is years × 12 / α.
        let share = a.years * 12.0 / a.alpha;
        assert!(share > 0.0 && share < 1e-3, "a closed-loop run of 500 requests lasts seconds: {share}");
        assert!((b.power_usd - a.power_usd * share).abs() <= 1e-9 * a.power_usd, "α = {}", a.alpha);
        assert_eq!((b.energy_usd, b.endurance_usd, b.purchase_usd), (a.energy_usd, a.endurance_usd, a.purchase_usd));
    }
    assert!(monthly.cost_at(1e5) < per_run.cost_at(1e5));
}

#[test]
fn a_populated_tiering_drive_starts_full() {
    let empty = Config { mode: Some(Mode::Tiering), ..closed() };
    let full = Config { hybrid: HybridParams { populated: true, ..HybridParams::default() }, ..empty.clone() };
    let a = run_config("a", &empty, &small(2_000), &CostModel::default(), &mut |_| {}).unwrap();
    let b = run_config("b", &full, &small(2_000), &CostModel::default(), &mut |_| {}).unwrap();
    // Empty: first touches land on the free SSD and nothing moves. Full: the SSD holds
    // the lowest 1 GiB of the 4 GiB span, so demotion starts and most requests miss.
    assert_eq!((a.promotions, a.demotions), (0, 0));
    assert!(b.demotions > 0, "{b:?}");
    assert!(b.ssd_hit_ratio.unwrap() < a.ssd_hit_ratio.unwrap(), "{:?} {:?}", b.ssd_hit_ratio, a.ssd_hit_ratio);
}

#[test]
fn bad_input_is_named() {
    let config = Config { mode: Some(Mode::Tiering), ..closed() };
    let cost = CostModel { read_effect: -1.0, ..CostModel::default() };
    let e = run_config("x", &config, &small(10), &cost, &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("--read-effect"), "{e:#}");
    let cost = CostModel { prices: "nope".into(), ..CostModel::default() };
    let e = run_config("x", &config, &small(10), &cost, &mut |_| {}).unwrap_err();
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
    let internals = Config { mode: Some(Mode::Tiering), ..closed() };
    let datasheet = Config { hybrid: HybridParams { ssd_timing: SsdTiming::Datasheet, ..HybridParams::default() }, ..internals.clone() };
    let a = run_config("a", &internals, &small(2_000), &CostModel::default(), &mut |_| {}).unwrap();
    let b = run_config("b", &datasheet, &small(2_000), &CostModel::default(), &mut |_| {}).unwrap();
    // The policy sees the same accesses, so places and moves the same bytes; only the
    // SSD's timing and energy differ.
    assert_eq!((a.ssd_write_bytes, a.ssd_read_bytes, a.promotions), (b.ssd_write_bytes, b.ssd_read_bytes, b.promotions));
    assert_ne!(a.mean_ms, b.mean_ms);
    assert_eq!(a.cost[0].purchase_usd, b.cost[0].purchase_usd);
    // Closed loop at depth 1 on the Intel 320's data sheet: 4 KiB-64 KiB requests take
    // its 75-90 us latency plus transfer, nowhere near the HDD's milliseconds.
    assert!(b.mean_ms > 0.07 && b.mean_ms < 1.0, "{}", b.mean_ms);
    let e = simulate(&small(10), &Config { hybrid: HybridParams { ssd: "study-slc".into(), ..datasheet.hybrid.clone() }, ..datasheet }, &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("no [datasheet] section"), "{e:#}");
}
