//! The array executor end to end on small arrays: every request completes, runs are
//! deterministic, energy adds up, the schemes' commands take effect, bad input is named.

use proptest::prelude::*;
use tierlab_raid::RaidLevel;
use tierlab_array_policy::SchemeConfig;
use tierlab_array_sim::{common_span_bytes, oltp_workload, run_array, ArrayConfig, ArrayRun};
use tierlab_workload::Workload;

fn small(disks: usize) -> ArrayConfig {
    ArrayConfig { disks, nvram_bytes: 64 << 20, ..ArrayConfig::default() }
}

fn run(cfg: &ArrayConfig, scheme: &str, iops: f64, secs: f64, seed: u64, tweak: impl FnOnce(&mut SchemeConfig)) -> anyhow::Result<ArrayRun> {
    let mut s = SchemeConfig::named(scheme).unwrap();
    tweak(&mut s);
    let w = oltp_workload(common_span_bytes(cfg, &s)?, iops, secs, seed);
    run_array(cfg, &s, &Workload::Synthetic(w), &mut |_| {})
}

const SCHEMES: [&str; 9] = ["raid5", "tpm", "raid-drpm", "raid-drpm+", "raid-cr", "raid-cr+", "pdc-ld", "maid", "hibernator+"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
    #[test]
    fn every_request_completes_under_every_scheme(seed in 0u64..1000, iops in 20.0f64..200.0, disks in 4usize..7) {
        let cfg = small(disks);
        for scheme in SCHEMES {
            let r = run(&cfg, scheme, iops, 30.0, seed, |s| { s.epoch_s = 13.0; s.drpm.check_period_s = 1.0; s.pdc.period_s = 13.0; s.pdc.ld_window_s = 13.0 }).unwrap();
            let expected = (iops * 30.0).round() as u64;
            prop_assert_eq!(r.requests, expected, "{} lost requests", scheme);
            prop_assert_eq!(r.response_time.count, expected);
            prop_assert!(r.energy_j > 0.0 && r.energy_j.is_finite());
            let by_state: f64 = r.energy_by_state.iter().map(|s| s.energy_j).sum();
            prop_assert!((by_state - r.energy_j).abs() < 1e-6 * r.energy_j, "{}: states {} vs total {}", scheme, by_state, r.energy_j);
            prop_assert!(r.per_disk.len() >= disks);
        }
    }
}

#[test]
fn same_seed_same_bytes() {
    let cfg = small(5);
    for scheme in ["raid-cr+", "hibernator+", "pdc-ld"] {
        let a = serde_json::to_string(&run(&cfg, scheme, 80.0, 60.0, 9, |s| s.epoch_s = 20.0).unwrap()).unwrap();
        let b = serde_json::to_string(&run(&cfg, scheme, 80.0, 60.0, 9, |s| s.epoch_s = 20.0).unwrap()).unwrap();
        assert_eq!(a, b, "{scheme}");
    }
}

#[test]
fn an_idle_raid5_array_draws_idle_power() {
    // Table 2: 10.2 W idle at 15,000 rpm; one request a minute keeps the disks idle.
    let cfg = small(4);
    let r = run(&cfg, "raid5", 1.0 / 60.0, 3600.0, 1, |_| {}).unwrap();
    let idle = 4.0 * 10.2;
    assert!((r.average_power_w - idle).abs() / idle < 0.002, "{} W", r.average_power_w);
}

#[test]
fn cr_slows_idle_disks_and_hibernator_forms_a_slow_tier() {
    // Twelve disks: a slow tier needs two (one parity per tier), and a sixth of the data
    // on slow disks is what a 10 ms goal allows at this load.
    let cfg = small(12);
    // With 12.4 s speed changes, an epoch must be long for a change to pay (a changing
    // disk's requests wait 6.2 s on average): the paper's hour.
    let cr = run(&cfg, "raid-cr", 2.0, 4.0 * 3600.0, 3, |_| {}).unwrap();
    assert!(cr.speed_changes_per_disk_day > 0.0, "CR never changed a speed");
    let base = run(&cfg, "raid5", 2.0, 4.0 * 3600.0, 3, |_| {}).unwrap();
    assert!(cr.energy_j < 0.95 * base.energy_j, "CR saved too little: {} vs {}", cr.energy_j, base.energy_j);
    let h = run(&cfg, "hibernator", 2.0, 4.0 * 3600.0, 3, |_| {}).unwrap();
    assert!(h.energy_j < base.energy_j, "Hibernator saved nothing: {} vs {}", h.energy_j, base.energy_j);
    assert!(h.per_disk.iter().any(|d| d.states.iter().any(|s| s.state.contains("3000rpm") && s.time_s > 0.0)));
}

#[test]
fn an_unreachable_goal_runs_at_full_speed_and_says_so() {
    let cfg = small(4);
    let r = run(&cfg, "raid-cr", 50.0, 600.0, 4, |s| { s.epoch_s = 100.0; s.r_limit_ms = 0.01 }).unwrap();
    assert!(r.scheme_report.infeasible_decisions > 0);
    assert_eq!(r.speed_changes_per_disk_day, 0.0);
    assert!(!r.goal_met);
}

#[test]
fn tpm_spins_idle_disks_down() {
    let cfg = small(4);
    let r = run(&cfg, "tpm", 1.0 / 120.0, 3600.0, 5, |_| {}).unwrap();
    assert!(r.start_stops_per_disk_day > 0.0);
    let base = run(&cfg, "raid5", 1.0 / 120.0, 3600.0, 5, |_| {}).unwrap();
    assert!(r.energy_j < 0.6 * base.energy_j, "{} vs {}", r.energy_j, base.energy_j);
}

#[test]
fn nvram_absorbs_writes_and_destages_them() {
    // Dirty data also destaged by age, so that two minutes destage some.
    let cfg = ArrayConfig { nvram_bytes: 1 << 30, nvram_max_age_s: 30.0, ..small(4) };
    let r = run(&cfg, "raid5", 50.0, 120.0, 6, |_| {}).unwrap();
    let n = r.executor.nvram.unwrap();
    assert!(n.writes_absorbed > 0 && n.destages > 0, "{n:?}");
    assert!(r.executor.read_modify_writes > 0);
    let no = run(&ArrayConfig { nvram_bytes: 0, ..small(4) }, "raid5", 50.0, 120.0, 6, |_| {}).unwrap();
    assert!(no.executor.nvram.is_none());
    assert!(no.response_time.mean_ms > r.response_time.mean_ms);
}

/// Hibernator places data itself, with parity per tier, and writes that parity by
/// read-modify-write: it counts those beside its destages as RAID-5 does.
#[test]
fn placed_writes_count_their_read_modify_writes() {
    let cfg = ArrayConfig { nvram_bytes: 1 << 30, nvram_max_age_s: 30.0, ..small(6) };
    for scheme in ["hibernator+", "hibernator"] {
        let r = run(&cfg, scheme, 50.0, 120.0, 6, |_| {}).unwrap();
        let n = r.executor.nvram.clone().unwrap();
        assert!(n.destages > 0, "{scheme}: {n:?}");
        let e = &r.executor;
        assert!(e.read_modify_writes >= n.destages, "{scheme}: {} read-modify-writes for {} destages", e.read_modify_writes, n.destages);
    }
}

#[test]
fn bad_arrays_and_schemes_are_named() {
    let e = run(&ArrayConfig { level: RaidLevel::Raid5, disks: 2, ..small(4) }, "raid5", 10.0, 10.0, 1, |_| {}).unwrap_err().to_string();
    assert!(e.contains("raid5 needs at least 3 disks, found 2"), "{e}");
    let e = run(&ArrayConfig { stripe_unit_bytes: 1000, ..small(4) }, "raid5", 10.0, 10.0, 1, |_| {}).unwrap_err().to_string();
    assert!(e.contains("stripe_unit_bytes") && e.contains("512-byte sectors"), "{e}");
    let single = ArrayConfig { disk: "ibm-ultrastar-36z15".into(), power_profile: Some("replication".into()), ..small(4) };
    let e = run(&single, "raid-cr+", 10.0, 10.0, 1, |_| {}).unwrap_err().to_string();
    assert!(e.contains("one speed") && e.contains("hibernator-two-speed-36z15"), "{e}");
    let e = SchemeConfig::named("hibernate").unwrap_err();
    assert!(e.contains("unknown scheme `hibernate`") && e.contains("hibernator"), "{e}");
    let e = run(&small(4), "raid-cr", 10.0, 30.0, 1, |s| s.epoch_s = -1.0).unwrap_err().to_string();
    assert!(e.contains("epoch_s"), "{e}");
    // An epoch shorter than a speed change: a warning in the report, full speed.
    let r = run(&small(4), "raid-cr", 10.0, 60.0, 1, |s| s.epoch_s = 5.0).unwrap();
    assert!(r.scheme_report.notes.iter().any(|n| n.contains("not longer than a speed change")), "{:?}", r.scheme_report.notes);
    assert_eq!(r.speed_changes_per_disk_day, 0.0);
}


#[test]
fn a_warm_up_only_stops_measuring_the_guarantee_sees_the_whole_run() {
    // A goal the array misses now and then: the guarantee's running mean decides when it
    // forces full speed. Measuring from half-way must not restart that mean.
    let cfg = small(4);
    let tweak = |s: &mut SchemeConfig| {
        s.drpm.check_period_s = 1.0;
        s.r_limit_ms = 9.0;
    };
    let whole = run(&cfg, "raid-drpm+", 60.0, 240.0, 5, tweak).unwrap();
    let warmed = run(&ArrayConfig { warmup_s: Some(120.0), ..cfg.clone() }, "raid-drpm+", 60.0, 240.0, 5, tweak).unwrap();
    assert!(whole.scheme_report.guarantee_activations > 0, "the goal is never at risk: {:?}", whole.scheme_report);
    assert_eq!(whole.scheme_report.guarantee_activations, warmed.scheme_report.guarantee_activations);
    assert_eq!(whole.scheme_report.guarantee_s, warmed.scheme_report.guarantee_s);
    assert!(warmed.requests < whole.requests, "the warm-up is not measured");
}

#[test]
fn a_measured_run_starts_its_window_only_after_its_tiers_held_for_two_epochs() {
    use tierlab_array_sim::{Protocol, STABLE_EPOCHS};
    let cfg = ArrayConfig { measure: Some(Protocol { batch_requests: 0, max_requests: 0, ..Protocol::default() }), ..small(6) };
    let epoch_s = 30.0;
    let r = run(&cfg, "hibernator+", 20.0, 1500.0, 3, |s| s.epoch_s = epoch_s).unwrap();
    let m = r.measured.as_ref().expect("measured through the layer");
    let stable = r.scheme_report.stable_epochs.expect("hibernator plans per epoch");
    assert!(stable >= STABLE_EPOCHS, "{stable} stable epochs at the end");
    assert!(m.warmup_s >= STABLE_EPOCHS as f64 * epoch_s, "warm-up {} s", m.warmup_s);
    assert!(m.window_batches >= 20 && m.mean_ms.half_width.is_finite(), "{m:?}");
    // The window is what the run reports.
    assert!((r.span_s - m.window_s).abs() < 0.01 * m.window_s + 60.0, "span {} s, window {} s", r.span_s, m.window_s);
    // RAID-5 has no epochs: the layer's rules alone end its warm-up.
    let b = run(&cfg, "raid5", 20.0, 1500.0, 3, |_| {}).unwrap();
    assert!(b.scheme_report.stable_epochs.is_none() && b.measured.is_some());
}

#[test]
fn disks_cloned_from_one_drive_behave_as_drives_built_one_by_one() {
    use tierlab_array_sim::{DiskModel, DEFAULT_ARRAY_DISK};
    use tierlab_engine::DeviceOp;
    use tierlab_types::Op;
    let model = DiskModel::from_catalog(DEFAULT_ARRAY_DISK, None).unwrap();
    let mut cloned = model.build_all(["a".to_string(), "b".to_string()]).unwrap();
    let mut one = model.build("b".into()).unwrap();
    // Drive `a` works first: its state must not leak into `b`, cloned from the same drive.
    let ops: Vec<DeviceOp> = (0..40u64)
        .map(|i| DeviceOp { op: if i % 3 == 0 { Op::Write } else { Op::Read }, offset_bytes: (i * 7_919 % 1_000) << 20, len_bytes: 8192, fua: false })
        .collect();
    let mut now = 0;
    for op in &ops {
        now = cloned[0].service(now, op);
    }
    let (mut t_cloned, mut t_one) = (0, 0);
    for op in &ops {
        t_cloned = cloned[1].service(t_cloned, op);
        t_one = one.service(t_one, op);
        assert_eq!(t_cloned, t_one);
    }
    cloned[1].finish(t_one);
    one.finish(t_one);
    let (a, b) = (cloned[1].report(), one.report());
    assert_eq!((a.name.as_str(), a.energy_j, &a.counters), (b.name.as_str(), b.energy_j, &b.counters));
    assert_eq!(cloned[0].name(), "a");
}
