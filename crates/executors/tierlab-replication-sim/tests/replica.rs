//! End-to-end runs of the primary and the secondary on small TPC-C-like workloads: what
//! must hold whatever the numbers (no log lost, determinism, the RTO kept or reported),
//! and the paper's qualitative claims.

use tierlab_replica_policy::PlanMode;
use tierlab_replication_sim::*;
use tierlab_types::MIB;
use tierlab_update_stream::TpccConfig;

fn small() -> ReplicationConfig {
    ReplicationConfig {
        source: SourceSpec::Tpcc(TpccConfig {
            warehouses: 2,
            buffer_pool_bytes: 16 * MIB,
            ..TpccConfig::default()
        }),
        data_disks: 4,
        log_disks: 1,
        primary_depth: 32,
        duration_s: 1500.0,
        warmup_s: 60.0,
        rto_s: 50.0,
        window_bytes: 8 * MIB,
        apply_cache_bytes: 16 * MIB,
        ..ReplicationConfig::default()
    }
}

fn run(cfg: &ReplicationConfig, scheme: Scheme) -> ReplicationRun {
    run_replication(cfg, scheme, &mut |_| {}).unwrap()
}

/// Records folded into another or cancelled.
fn folded(r: &ReplicationRun) -> u64 {
    r.apply.records_applied - r.apply.net_entries
}

/// Every scheme on one primary: what must hold of each, and how they rank.
#[test]
fn schemes_lose_no_log_and_only_deferral_sleeps() {
    // The whole run after a fixed warm-up: the short run holds too few cycles for a
    // window of whole ones (that is `a_deferring_replica_is_measured_over_whole_cycles`).
    let cfg = ReplicationConfig { measure: false, ..small() };
    let c = compare(
        &cfg,
        &[
            Scheme::Proposed,
            Scheme::DeferredOnly,
            Scheme::CompactionOnly,
        ],
        &mut |_, _| {},
    )
    .unwrap();
    let row = |s: Scheme| c.rows.iter().find(|r| r.run.scheme == s).unwrap();
    for r in &c.rows {
        let (s, r) = (r.run.scheme, &r.run);
        assert!(
            r.primary.commits > 1000,
            "{s:?}: {} commits",
            r.primary.commits
        );
        // Every commit reached the log volume, or was shipped after the secondary's
        // measurement ended the run.
        assert_eq!(
            r.apply.arrivals + r.not_taken.commits,
            r.primary.commits,
            "{s:?}: every commit reached the log volume"
        );
        assert_eq!(
            r.apply.log_bytes_applied + r.apply.final_backlog_bytes + r.not_taken.log_bytes,
            r.primary.log_bytes,
            "{s:?}"
        );
        assert!(
            r.apply.max_window_log_bytes <= cfg.window_bytes,
            "{s:?}: {}",
            r.apply.max_window_log_bytes
        );
        assert!(
            r.disks
                .iter()
                .filter(|d| d.role == "log")
                .all(|d| d.start_stop_cycles == 0.0),
            "{s:?}: log disks never sleep"
        );
    }
    assert_eq!(
        folded(&row(Scheme::Conventional).run),
        0,
        "log-order redo folds nothing"
    );
    assert!(folded(&row(Scheme::Proposed).run) > 0);

    let conventional = &row(Scheme::Conventional).run;
    assert!(conventional
        .disks
        .iter()
        .all(|d| d.start_stop_cycles == 0.0));
    assert_eq!(conventional.policy.cycles, 0);
    // Applying continuously, conventional replication is exposed only for the arrivals
    // that wait while it applies the ones before them (reflecting each at once keeps
    // its disks busy, so that wait is seconds, not the batches of a deferring scheme).
    assert!(
        conventional.policy.worst_recovery_s < cfg.rto_s / 4.0,
        "{}",
        conventional.policy.worst_recovery_s
    );
    assert_eq!(
        conventional.apply.log_bytes_read, 0,
        "applied from the receive buffer"
    );
    assert!(c.u > 0.0 && c.u < 1.0);

    let proposed = row(Scheme::Proposed);
    assert!(proposed.run.policy.cycles >= 2, "{:?}", proposed.run.policy);
    assert!(proposed.saving_data > 0.3, "{}", proposed.saving_data);
    assert!(proposed
        .run
        .disks
        .iter()
        .filter(|d| d.role == "data")
        .all(|d| d.start_stop_cycles >= 1.0));
    assert!(
        proposed.run.apply.log_bytes_read > 0,
        "deferred log is read back"
    );
    // Compaction makes the apply faster than log-order redo of the same windows.
    let deferred = &row(Scheme::DeferredOnly).run;
    assert!(
        proposed.run.r > deferred.r,
        "{} vs {}",
        proposed.run.r,
        deferred.r
    );
    // Compaction alone never sleeps.
    assert_eq!(row(Scheme::CompactionOnly).run.policy.cycles, 0);
}

#[test]
fn the_same_configuration_gives_the_same_bytes() {
    let cfg = ReplicationConfig {
        duration_s: 400.0,
        ..small()
    };
    let a = serde_json::to_string(&run(&cfg, Scheme::Proposed)).unwrap();
    let b = serde_json::to_string(&run(&cfg, Scheme::Proposed)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn strict_mode_keeps_every_instant_within_the_rto() {
    let cfg = ReplicationConfig {
        rto_mode: PlanMode::Strict,
        ..small()
    };
    let r = run(&cfg, Scheme::Proposed);
    assert!(r.policy.cycles >= 1);
    assert_eq!(
        r.policy.rto_violations, 0,
        "worst {}",
        r.policy.worst_recovery_s
    );
    assert!(r.policy.worst_recovery_s <= cfg.rto_s * 1.001);
}

#[test]
fn the_high_end_disk_cannot_meet_a_30_second_rto_and_says_why() {
    let cfg = ReplicationConfig {
        rto_s: 30.0,
        duration_s: 400.0,
        ..small()
    };
    let r = run(&cfg, Scheme::Proposed);
    assert_eq!(r.policy.cycles, 0);
    assert!(r.disks.iter().all(|d| d.start_stop_cycles == 0.0));
    let why = r.policy.stayed_up_because.unwrap();
    assert!(why.contains("30 s") && why.contains("41 s"), "{why}");
}

#[test]
fn the_midrange_disk_meets_30_seconds_in_its_stop_mode() {
    let cfg = ReplicationConfig {
        disk: "hitachi-deskstar-t7k250".into(),
        power_profile: Some("replication".into()),
        standby: Some("stopped".into()),
        rto_s: 30.0,
        // Its apply runs about 30 times as fast as the log grows here, so a batch interval
        // is some 1,000 s: an hour holds more than two cycles.
        duration_s: 3600.0,
        ..small()
    };
    let r = run(&cfg, Scheme::Proposed);
    assert_eq!(r.standby.level, "stopped");
    assert!(r.policy.cycles >= 2, "{:?}", r.policy);
    let standby_s: f64 = r.disks[0]
        .states
        .iter()
        .filter(|s| s.0 == "stopped")
        .map(|s| s.1)
        .sum();
    assert!(
        standby_s > 0.3 * r.span_s,
        "{standby_s} s of {} s",
        r.span_s
    );
}

#[test]
fn synchronous_shipping_waits_for_the_secondary_and_asynchronous_does_not() {
    let slow = Link {
        latency_s: 0.02,
        bandwidth_bytes_s: Some(10e6),
        shipping: Shipping::Sync,
    };
    let sync = run(
        &ReplicationConfig {
            link: slow,
            duration_s: 200.0,
            warmup_s: 20.0,
            ..small()
        },
        Scheme::Conventional,
    );
    let lagged = Link {
        shipping: Shipping::Async {
            max_lag_bytes: 64 * MIB,
        },
        ..slow
    };
    let asynchronous = run(
        &ReplicationConfig {
            link: lagged,
            duration_s: 200.0,
            warmup_s: 20.0,
            ..small()
        },
        Scheme::Conventional,
    );
    // A synchronous commit pays the round trip (40 ms) on top of its local log write.
    assert!(
        sync.primary.mean_commit_ms > 40.0,
        "{}",
        sync.primary.mean_commit_ms
    );
    assert!(
        asynchronous.primary.mean_commit_ms < sync.primary.mean_commit_ms - 30.0,
        "{}",
        asynchronous.primary.mean_commit_ms
    );
    assert!(asynchronous.primary.transactions > sync.primary.transactions);
}

#[test]
fn block_forwarding_of_a_real_trace_compacts_its_writes() {
    let trace = std::path::Path::new("../../../../shared/traces/blkreplay-linux-mysql.load.gz");
    if !trace.exists() {
        eprintln!("skipped: {} is not beside the checkout", trace.display());
        return;
    }
    let cfg = ReplicationConfig {
        source: SourceSpec::Forward {
            path: trace.into(),
            compact: true,
        },
        duration_s: 900.0,
        warmup_s: 0.0,
        window_bytes: 64 * MIB,
        ..small()
    };
    let conventional = run(&cfg, Scheme::Conventional);
    let compacted = run(&cfg, Scheme::CompactionOnly);
    assert_eq!(
        conventional.apply.records_applied,
        compacted.apply.records_applied
    );
    assert!(
        compacted.apply.write_ios < conventional.apply.write_ios,
        "{} vs {}",
        compacted.apply.write_ios,
        conventional.apply.write_ios
    );
    assert_eq!(
        conventional.apply.page_reads, 0,
        "forwarded blocks are written blind"
    );
}

#[test]
fn impossible_settings_are_refused_with_the_value() {
    let e = run_replication(
        &ReplicationConfig {
            window_bytes: 1 << 40,
            ..small()
        },
        Scheme::Proposed,
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("window_bytes") && e.contains("larger than the log volume"),
        "{e}"
    );
    let e = run_replication(
        &ReplicationConfig {
            warmup_s: 1700.0,
            ..small()
        },
        Scheme::Proposed,
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("warmup_s") && e.contains("1700"), "{e}");
    let e = run_replication(
        &ReplicationConfig {
            standby: Some("sleepy".into()),
            ..small()
        },
        Scheme::Proposed,
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sleepy") && e.contains("stopped"), "{e}");
}

/// The paper's baseline reflects each update at once: its data disks write every page
/// an arrival changes, where the pooled variant writes only what its cache evicts.
#[test]
fn conventional_reflects_each_update_at_once_and_the_pooled_variant_defers_writes() {
    let cfg = ReplicationConfig {
        duration_s: 600.0,
        ..small()
    };
    let c = compare(&cfg, &[Scheme::ConventionalPooled], &mut |_, _| {}).unwrap();
    let immediate = &c.rows[0].run;
    let pooled = &c.rows[1].run;
    assert_eq!(immediate.scheme, Scheme::Conventional);
    assert_eq!(pooled.scheme, Scheme::ConventionalPooled);
    // Every page an applied window touched is written: no fewer writes than the pages
    // the windows touched, and many more than the pooled variant's evictions.
    assert!(
        immediate.apply.write_ios > 2 * pooled.apply.write_ios,
        "{} vs {}",
        immediate.apply.write_ios,
        pooled.apply.write_ios
    );
    let u_pooled = c.u_pooled.unwrap();
    assert!(c.u > u_pooled, "u {} vs pooled {u_pooled}", c.u);
    assert!(c.rows[1].saving_weighted_vs_pooled.unwrap().abs() < 1e-12);
}

/// Blind redo writes pages without reading them; read-modify-write reads each page that
/// is not cached. Blind applies faster.
#[test]
fn blind_redo_reads_no_page_and_applies_faster() {
    let cfg = ReplicationConfig {
        duration_s: 800.0,
        ..small()
    };
    let rmw = run(&cfg, Scheme::Proposed);
    let blind = run(
        &ReplicationConfig {
            redo: Redo::Blind,
            ..cfg.clone()
        },
        Scheme::Proposed,
    );
    assert!(rmw.apply.page_reads > 0);
    assert_eq!(blind.apply.page_reads, 0);
    assert!(blind.r > rmw.r, "{} vs {}", blind.r, rmw.r);
}

/// A deferring secondary stages the next window's log while the current one applies (or
/// takes it straight from the link): its windows hardly wait for the log disk, and the
/// log that arrived while the data volume slept is never read back.
#[test]
fn the_log_read_back_overlaps_the_apply() {
    // The whole run after a fixed warm-up: cycles enough to see windows staged.
    let r = run(&ReplicationConfig { measure: false, ..small() }, Scheme::Proposed);
    assert!(r.policy.cycles >= 2, "{:?}", r.policy);
    assert!(
        r.apply.log_bytes_staged_from_link > 0,
        "the first window of a phase comes from the link"
    );
    assert!(
        r.apply.log_bytes_read < r.apply.log_bytes_applied,
        "read back {} of {} applied",
        r.apply.log_bytes_read,
        r.apply.log_bytes_applied
    );
    assert!(
        r.apply.log_wait_s < 0.05 * r.apply.apply_busy_s,
        "waited {} s of {} s applying",
        r.apply.log_wait_s,
        r.apply.apply_busy_s
    );
}

/// A deferring secondary is measured over whole cycles, from a wake-up after the least
/// warm-up to a wake-up: the disks' powers are the window's, the saving carries an
/// interval, and a run that is precise early stops its primary with it. Measured from a
/// fixed warm-up to the end instead (`measure` off), the same run ends inside a cycle.
#[test]
fn a_deferring_replica_is_measured_over_whole_cycles() {
    let cfg = ReplicationConfig { duration_s: 3000.0, ..small() };
    let c = compare(&cfg, &[Scheme::Proposed], &mut |_, _| {}).unwrap();
    let (base, proposed) = (&c.rows[0], &c.rows[1]);
    let m = proposed.run.measured.as_ref().expect("measured by cycles");
    let s = &m.summary;
    assert!(s.own_cycles, "{s:?}");
    assert!(s.cycles >= 2 && s.warmup_s >= cfg.warmup_s, "{s:?}");
    assert!((s.cycle_s.mean * s.cycles as f64 - s.window_s).abs() < 1e-6 * s.window_s, "the window is whole cycles: {s:?}");
    let disks: f64 = proposed.run.disks.iter().map(|d| d.average_power_w).sum();
    assert!((disks - s.power_w.mean).abs() < 1e-9 * disks, "{disks} W by disk against {} W", s.power_w.mean);
    assert!((m.data_power_w.mean - proposed.run.data_power_w).abs() < 1e-9 * m.data_power_w.mean);
    let hw = proposed.saving_weighted_half_width.expect("an interval for the saving");
    assert!(hw.is_finite() && hw > 0.0, "{hw}");
    // The baseline never sleeps: it is cut into periods.
    let b = base.run.measured.as_ref().unwrap();
    assert!(!b.summary.own_cycles && b.summary.cycles >= 5, "{:?}", b.summary);
    if s.precise {
        assert!(proposed.run.primary.span_s < cfg.duration_s - 1.0, "the primary stopped with the secondary: {} s", proposed.run.primary.span_s);
    }
}
