//! A mixed system end to end: records split as planned, nothing lost, a group too small
//! refused with the figures that show why, the same seed giving the same report, and an
//! SSD's erases and projected lifetime under a write-heavy load.

mod common;

use common::*;
use std::collections::BTreeMap;
use tierlab_cost::SECONDS_PER_365_DAY_YEAR;
use tierlab_mixedsim::{lifetime_years, simulate, Layout, MixedConfig, MixedError, Placement};
use tierlab_types::MIB;

/// Two groups, every class split 50/50: each class's records are halved between them
/// (counted record by record through the layout), every request and every piece
/// completes, and the clock never goes back.
#[test]
fn a_fifty_fifty_split_places_half_of_each_class_on_each_group_and_loses_nothing() {
    let trace = hot_and_cold(7);
    let labelled = classes_1mib(&trace);
    let groups = vec![ssd_group("ssd", 64, 1), hdd_group("hdd", 2)];
    let placement = Placement::new().otherwise(&[("ssd", 0.5), ("hdd", 0.5)]);
    let layout = Layout::place(&groups, &placement, &labelled, 3).unwrap_or_else(|e| panic!("{e}"));

    // Count the records of each class on each group through `locate`.
    let mut counted: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    for ((volume, record), class) in labelled.records() {
        let loc = layout
            .locate(volume, record)
            .unwrap_or_else(|| panic!("record {record} not placed"));
        counted.entry(class.label()).or_default()[loc.group] += 1;
        assert_eq!(loc.offset_bytes % MIB, 0);
        assert!(loc.offset_bytes + MIB <= layout.device_capacity_bytes(loc.group));
    }
    assert!(
        counted.len() >= 3,
        "the workload should make several classes: {counted:?}"
    );
    assert!(
        counted.values().any(|[a, b]| (a + b) % 2 == 1),
        "an odd class shows the rounding: {counted:?}"
    );
    for (label, [on_ssd, on_hdd]) in &counted {
        let n = on_ssd + on_hdd;
        assert!(
            on_ssd.abs_diff(*on_hdd) <= 1,
            "class {label}: {on_ssd} on the SSD, {on_hdd} on the disks"
        );
        let split = layout
            .class_splits()
            .iter()
            .find(|s| &s.label == label)
            .unwrap_or_else(|| panic!("{label}"));
        assert_eq!(split.records_per_group, vec![*on_ssd, *on_hdd]);
        assert_eq!(split.records, n);
        assert_eq!(split.planned_fractions, vec![0.5, 0.5]);
    }
    // Striped round-robin: the disks' records differ by at most one.
    let disks = layout.records_on_devices(1);
    assert_eq!(disks.len(), 2);
    assert!(disks[0].abs_diff(disks[1]) <= 1, "{disks:?}");
    assert_eq!(
        layout.records_on_group(0) + layout.records_on_group(1),
        layout.records()
    );

    let report = layout
        .simulate(
            ok(&trace),
            tierlab_mixedsim::Replay::Open,
            Default::default(),
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let expected_pieces: u64 = trace
        .iter()
        .map(|r| records_of(r, MIB).count() as u64)
        .sum();
    let mut expected_per_group = [0u64; 2];
    for r in &trace {
        for record in records_of(r, MIB) {
            expected_per_group[layout.locate(r.volume, record).map_or(9, |l| l.group)] += 1;
        }
    }
    let i = &report.integrity;
    assert_eq!(i.requests_arrived, trace.len() as u64);
    assert_eq!(i.requests_completed, trace.len() as u64);
    assert_eq!(i.engine_requests, trace.len() as u64);
    assert_eq!(report.system.requests, trace.len() as u64);
    assert_eq!(i.pieces_submitted, expected_pieces);
    assert_eq!(i.pieces_completed, expected_pieces);
    assert_eq!(report.system.pieces, expected_pieces);
    assert_eq!(
        [report.groups[0].pieces, report.groups[1].pieces],
        expected_per_group
    );
    assert!(
        expected_per_group.iter().all(|&p| p > 0),
        "both groups serve: {expected_per_group:?}"
    );
    assert_eq!(i.clock_regressions, 0);
    assert!(report.span_s > 0.0 && report.span_s <= report.duration_s);

    // Bytes: what the host moved, each group's share, each device's ops.
    let host_bytes: u64 = trace.iter().map(|r| r.len_bytes).sum();
    let groups_bytes: u64 = report
        .groups
        .iter()
        .map(|g| g.read_bytes + g.write_bytes)
        .sum();
    assert_eq!(groups_bytes, host_bytes);
    assert_eq!(
        report.system.read_bytes + report.system.write_bytes,
        host_bytes
    );
    for g in &report.groups {
        let devices_bytes: u64 = g
            .per_device
            .iter()
            .map(|d| d.read_bytes + d.write_bytes)
            .sum();
        assert_eq!(
            devices_bytes,
            g.read_bytes + g.write_bytes,
            "group {}",
            g.name
        );
        assert_eq!(g.response_time.count, g.pieces);
        assert!(
            g.response_time.p50_ms <= g.response_time.p95_ms
                && g.response_time.p95_ms <= g.response_time.p99_ms
        );
        assert!(g.response_time.p99_ms <= g.response_time.max_ms * 1.001);
        assert!(g.energy_j > 0.0 && g.mean_power_w > 0.0, "group {}", g.name);
    }
    assert_eq!(report.system.response_time.count, trace.len() as u64);
    assert_eq!(report.system.devices, 3);
    let energy: f64 = report.groups.iter().map(|g| g.energy_j).sum();
    assert!((report.system.energy_j - energy).abs() < 1e-9);
    // Two disks spinning for the whole run draw more than the SSD.
    assert!(report.groups[1].mean_power_w > report.groups[0].mean_power_w);
}

/// A group whose devices cannot hold its records is refused, naming the group, the bytes
/// placed and the capacity.
#[test]
fn a_group_too_small_for_its_records_is_refused_with_its_figures() {
    // About 96 records of 1 MiB; the small SSD holds 57.5 MiB.
    let trace = workload(2_000, 96 * MIB, 0.5, Some(4096), 400.0, 11);
    let labelled = classes_1mib(&trace);
    let records = labelled.records().count() as u64;
    assert!(records > 60, "{records}");
    let config = MixedConfig::single_group(ssd_group("flash", 64, 1));
    let capacity = config.groups[0]
        .device
        .capacity_bytes()
        .unwrap_or_else(|e| panic!("{e}"));
    match simulate(&config, &labelled, ok(&trace), &mut |_| {}) {
        Err(e @ MixedError::GroupTooSmall { .. }) => {
            let text = e.to_string();
            for needle in [
                "group `flash`",
                &format!("{} bytes", records * MIB),
                &format!("{capacity} bytes in all"),
                &format!("holds {capacity}"),
            ] {
                assert!(text.contains(needle), "`{needle}` missing from: {text}");
            }
            let MixedError::GroupTooSmall {
                placed_bytes,
                capacity_bytes,
                group,
                ..
            } = e
            else {
                unreachable!()
            };
            assert_eq!(
                (group.as_str(), placed_bytes, capacity_bytes),
                ("flash", records * MIB, capacity)
            );
        }
        Err(e) => panic!("expected the group to be refused as too small, got: {e}"),
        Ok(_) => panic!("{records} MiB placed on a {capacity}-byte SSD was accepted"),
    }
    // Two of them hold it.
    let config = MixedConfig::single_group(ssd_group("flash", 64, 2));
    assert!(Layout::place(&config.groups, &config.placement, &labelled, 1).is_ok());
}

/// Same inputs and seed, byte-identical report; another seed places the split class
/// differently.
#[test]
fn the_same_seed_gives_the_same_report() {
    let trace = workload(1_500, 40 * MIB, 0.4, None, 300.0, 5);
    let labelled = classes_1mib(&trace);
    let groups = vec![ssd_group("ssd", 64, 1), hdd_group("hdd", 3)];
    let config = MixedConfig::new(
        groups,
        Placement::new().otherwise(&[("ssd", 0.3), ("hdd", 0.7)]),
    )
    .with_seed(42);
    let run = || {
        let r =
            simulate(&config, &labelled, ok(&trace), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
        serde_json::to_string(&r).unwrap_or_else(|e| panic!("{e}"))
    };
    let first = run();
    assert_eq!(first, run());
    assert!(first.contains("\"p95_ms\""));

    let on_ssd = |seed: u64| {
        let layout = Layout::place(&config.groups, &config.placement, &labelled, seed)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut v: Vec<u64> = labelled
            .records()
            .filter(|(k, _)| layout.locate(k.0, k.1).is_some_and(|l| l.group == 0))
            .map(|(k, _)| k.1)
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(on_ssd(42), on_ssd(42));
    assert_ne!(
        on_ssd(42),
        on_ssd(43),
        "the seed should choose which records of a split class go where"
    );
}

/// All on one SSD aged to steady state, under 4 KiB random writes (90 %): garbage
/// collection erases blocks, and the lifetime is blocks × rated cycles / erase rate, in
/// years.
#[test]
fn an_all_ssd_run_erases_blocks_and_projects_its_lifetime() {
    let trace = workload(8_000, 40 * MIB, 0.1, Some(4096), 800.0, 13);
    let labelled = classes_1mib(&trace);
    let mut group = ssd_group("ssd", 64, 1);
    if let tierlab_mixedsim::DeviceSpec::Ssd(s) = &mut group.device {
        s.rated_erase_cycles = Some(3_000);
        s.aging_overwrites = 1.0;
    }
    let report = simulate(
        &MixedConfig::single_group(group.clone()),
        &labelled,
        ok(&trace),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let g = &report.groups[0];
    assert_eq!(g.kind, "ssd");
    let wear = g
        .ssd
        .as_ref()
        .unwrap_or_else(|| panic!("an SSD group reports its wear"));
    assert!(wear.block_erases > 0, "{wear:?}");
    assert_eq!(wear.block_erases_per_device, vec![wear.block_erases]);
    assert_eq!(wear.erase_cycles, 3_000);
    let blocks = 8 * 64u64;
    assert_eq!(wear.blocks_per_device, blocks);

    // The arithmetic, from the report's own figures.
    let rate = wear.block_erases as f64 / report.span_s;
    assert!((wear.erase_rate_per_s - rate).abs() <= 1e-9 * rate);
    let years = blocks as f64 * 3_000.0 / rate / SECONDS_PER_365_DAY_YEAR;
    let got = wear
        .lifetime_years
        .unwrap_or_else(|| panic!("erases, so a lifetime"));
    assert!((got - years).abs() <= 1e-9 * years, "{got} vs {years}");
    assert_eq!(
        lifetime_years(blocks, 3_000, wear.block_erases, report.span_s),
        Some(got)
    );
    // The research's Table 5.5 check: 1 GB of 128 KiB blocks at 0.3563 erases/s and 10,000
    // cycles lasts 7.29 years.
    let table = lifetime_years(8_192, 10_000, 3_563, 10_000.0).unwrap_or_default();
    assert!((table - 7.29).abs() < 0.01, "{table}");
    assert_eq!(lifetime_years(blocks, 3_000, 0, report.span_s), None);

    let per_day = g.write_bytes as f64 / report.span_s * 86_400.0;
    assert!((wear.host_write_bytes_per_day - per_day).abs() <= 1e-9 * per_day);
    let flash_bytes = blocks * 128 * 1024;
    let eq48 = flash_bytes as f64 * 3_000.0
        / (g.write_bytes as f64 / report.span_s)
        / SECONDS_PER_365_DAY_YEAR;
    let got48 = wear.lifetime_years_host_writes.unwrap_or_default();
    assert!((got48 - eq48).abs() <= 1e-9 * eq48, "{got48} vs {eq48}");
    // In steady state collection copies pages, so erases wear the drive faster than host
    // writes alone.
    assert!(got < got48, "{got} vs {got48}");

    // Utilisation: placed records over the drive's capacity.
    let placed = labelled.records().count() as u64 * MIB;
    assert_eq!(g.placed_bytes, placed);
    assert!((g.utilisation - placed as f64 / g.capacity_bytes as f64).abs() < 1e-12);
    assert!(g.per_device[0].write_amplification.unwrap_or(0.0) > 1.0);
    assert_eq!(g.per_device[0].rejected_ops, 0);
}

/// A planner's shares carry rounding: x_ij / S_j of 1.0000000000000002, or shares adding
/// up to 1 - 1e-12, place every record rather than stop the check.
#[test]
fn shares_off_by_rounding_are_placed() {
    let trace = workload(200, 8 * MIB, 0.5, Some(4096), 100.0, 2);
    let labelled = classes_1mib(&trace);
    let groups = vec![ssd_group("ssd", 64, 1), hdd_group("hdd", 1)];
    let records = labelled.records().count() as u64;
    for shares in [
        vec![("hdd", 1.0000000000000002)],
        vec![("ssd", 0.25 - 1e-12), ("hdd", 0.75)],
        vec![("ssd", -1e-12), ("hdd", 1.0 + 1e-12)],
    ] {
        let layout = Layout::place(&groups, &Placement::new().otherwise(&shares), &labelled, 1)
            .unwrap_or_else(|e| panic!("{shares:?}: {e}"));
        assert_eq!(layout.records(), records, "{shares:?}");
        assert_eq!(
            layout.records_on_group(0) + layout.records_on_group(1),
            records
        );
    }
}

/// The errors a caller can make name what was expected.
#[test]
fn bad_placements_are_refused_naming_the_class_or_group() {
    let trace = workload(200, 8 * MIB, 0.5, Some(4096), 100.0, 2);
    let labelled = classes_1mib(&trace);
    let groups = vec![ssd_group("ssd", 64, 1), hdd_group("hdd", 1)];
    let err = |p: Placement| match Layout::place(&groups, &p, &labelled, 1) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted {p:?}"),
    };
    assert!(err(Placement::new()).contains("has no shares"));
    assert!(err(Placement::all_on("tape")).contains("group `tape`"));
    assert!(err(Placement::new().otherwise(&[("ssd", 0.5), ("hdd", 0.4)])).contains("add up to"));
    assert!(
        err(Placement::new().otherwise(&[("ssd", -0.5), ("hdd", 1.5)]))
            .contains("fraction from 0 to 1")
    );
    let class = labelled
        .records()
        .next()
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("a record"));
    let twice = Placement::all_on("hdd")
        .with_class(class, &[("ssd", 1.0)])
        .with_class(class, &[("hdd", 1.0)]);
    assert!(err(twice).contains("placed twice"));
    let none = vec![ssd_group("ssd", 64, 0)];
    assert!(
        matches!(Layout::place(&none, &Placement::all_on("ssd"), &labelled, 1), Err(MixedError::Config(m)) if m.contains("no device"))
    );

    // A request touching a record the classification never saw stops the run with its number.
    let layout = Layout::place(&groups, &Placement::all_on("hdd"), &labelled, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut other = trace.clone();
    other[5].offset_bytes = 100 * MIB;
    match layout.simulate(
        ok(&other),
        tierlab_mixedsim::Replay::Open,
        Default::default(),
        &mut |_| {},
    ) {
        Err(e) => assert!(e.to_string().contains("request #5"), "{e}"),
        Ok(_) => panic!("an unplaced record was served"),
    }
}

/// The catalog's Samsung 1 TB disk lacks seek and transfer figures: refused, naming the
/// figure, unless estimates fill them, which the model then lists.
#[test]
fn a_disk_without_timing_figures_needs_estimates_and_lists_them() {
    use tierlab_mixedsim::{HddEstimates, HddModel};
    let id = "samsung-spinpoint-f1-ecogreen-hd103ui";
    match HddModel::catalog(id) {
        Err(e) => assert!(e.to_string().contains("seek.average_read_ms"), "{e}"),
        Ok(_) => panic!("a disk with no seek figure was built"),
    }
    let estimates = HddEstimates {
        seek_average_ms: Some(8.9),
        sustained_transfer_mb_s: Some(42.66),
    };
    let model = HddModel::catalog_with_estimates(id, &estimates).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        model.estimates,
        vec![
            "seek.average_read_ms = 8.9".to_string(),
            "transfer.sustained_max_mb_s = 42.66".to_string()
        ]
    );
    assert!(model.power.is_some(), "its power profile is cited");
    // A figure the catalog gives is kept, not replaced.
    let kept = HddModel::catalog_with_estimates(DISK, &estimates).unwrap_or_else(|e| panic!("{e}"));
    assert!(kept.estimates.is_empty());
    assert_eq!(kept.datasheet.seek_average_ms, 3.4);
}

/// Ends the warm-up after its third batch of ten completions and never stops the run.
struct WarmUpAfterThree(usize);

impl tierlab_engine::Observer for WarmUpAfterThree {
    fn batch_requests(&self) -> u64 {
        10
    }
    fn on_batch(&mut self, _: &tierlab_engine::Batch, _: &dyn tierlab_engine::Controller, _: bool) -> tierlab_engine::Decision {
        self.0 += 1;
        if self.0 == 3 {
            tierlab_engine::Decision::Measure
        } else {
            tierlab_engine::Decision::Continue
        }
    }
}

/// A run whose warm-up the measurement layer ends reports its window only: requests,
/// response times, power and energy from the end of the warm-up on (power is the window's
/// energy over the window's time), while the integrity counts still cover every request
/// and the devices do the same work as in a run not observed.
#[test]
fn a_measured_run_reports_its_window_and_loses_nothing() {
    let trace = hot_and_cold(7);
    let labelled = classes_1mib(&trace);
    let groups = vec![ssd_group("ssd", 64, 1), hdd_group("hdd", 2)];
    let placement = Placement::new().otherwise(&[("ssd", 0.5), ("hdd", 0.5)]);
    let layout = Layout::place(&groups, &placement, &labelled, 3).unwrap_or_else(|e| panic!("{e}"));
    let replay = tierlab_mixedsim::Replay::Open;
    let whole = layout.simulate(ok(&trace), replay, Default::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let (window, batches) = layout
        .simulate_observed(ok(&trace), replay, Default::default(), &mut WarmUpAfterThree(0), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let n = trace.len() as u64;
    assert_eq!(window.integrity.requests_completed, n);
    assert_eq!(window.integrity.requests_arrived, n);
    let warm_end_ns = batches[2].end_ns;
    assert_eq!(window.system.requests, n - 30, "the three warm-up batches are not in the window");
    assert!((window.duration_s - (whole.duration_s - warm_end_ns as f64 / 1e9)).abs() < 1e-9);
    assert!((window.system.mean_power_w - window.system.energy_j / window.duration_s).abs() < 1e-9 * window.system.mean_power_w);
    assert!(window.system.energy_j < whole.system.energy_j);
    let group_power: f64 = window.groups.iter().map(|g| g.mean_power_w).sum();
    assert!((group_power - window.system.mean_power_w).abs() < 1e-9 * group_power, "{group_power} against {}", window.system.mean_power_w);
    assert_eq!(window.system.response_time.count, n - 30);
    assert_eq!(window.integrity.engine_requests, n - 30, "the engine counts the window as the controller does");
    let all = |i: &tierlab_mixedsim::Integrity| (i.requests_arrived, i.requests_completed, i.pieces_submitted, i.pieces_completed, i.clock_regressions);
    assert_eq!(all(&whole.integrity), all(&window.integrity), "observing changes nothing the devices do");
}
