use super::*;

fn small_array() -> ArrayConfig {
    // Six disks, a fixed warm-up of none: one short run, no measurement layer.
    ArrayConfig { disks: 6, warmup_s: Some(0.0), measure: None, ..ArrayConfig::default() }
}

fn oltp(iops: f64) -> WorkloadSource {
    WorkloadSource::Oltp { iops, oltp: Oltp { hours: 0.02, ..Oltp::default() } }
}

#[test]
fn configurations_round_trip_through_json() {
    let sim = ArraySimulateConfig {
        array: ArrayConfig { nvram_bytes: 0, closed_depth: Some(2), ..small_array() },
        scheme: SchemeConfig { kind: SchemeKind::RaidCr, guarantee: true, r_limit_ms: 7.5, ..SchemeConfig::default() },
        workload: WorkloadSource::Trace { path: "t.csv".into(), read: ReadOptions { speed: 2.0, ..ReadOptions::default() } },
        memory_limit_bytes: 1 << 30,
    };
    let text = serde_json::to_string(&sim).unwrap();
    assert_eq!(serde_json::from_str::<ArraySimulateConfig>(&text).unwrap(), sim, "{text}");
    let sim = ArraySimulateConfig { workload: oltp(140.0), ..sim };
    let text = serde_json::to_string(&sim).unwrap();
    assert_eq!(serde_json::from_str::<ArraySimulateConfig>(&text).unwrap(), sim, "{text}");
    let cmp = ArrayCompareConfig {
        array: ArrayConfig::default(),
        schemes: vec![SchemeConfig::named("tpm").unwrap(), SchemeConfig::named("hibernator+").unwrap()],
        loads: Loads::Oltp { rates_iops: vec![7.0, 140.0], oltp: Oltp { skew: OltpSkew::HotCold, ..Oltp::default() } },
        r_limits: Some(vec![5.0, 20.0]),
        memory_limit_bytes: 8 << 30,
    };
    let text = serde_json::to_string(&cmp).unwrap();
    assert_eq!(serde_json::from_str::<ArrayCompareConfig>(&text).unwrap(), cmp, "{text}");
    assert!(text.contains("\"hot-cold\""), "{text}");
    // An unknown key is refused, naming it.
    let bad = text.replacen("\"memory_limit_bytes\"", "\"memory_limit\"", 1);
    let e = serde_json::from_str::<ArrayCompareConfig>(&bad).unwrap_err().to_string();
    assert!(e.contains("memory_limit"), "{e}");
}

#[test]
fn errors_name_the_field_at_fault() {
    let cfg = ArrayCompareConfig {
        array: small_array(),
        schemes: vec![SchemeConfig::named("tpm").unwrap()],
        loads: Loads::Oltp { rates_iops: vec![10.0, -3.0], oltp: Oltp::default() },
        r_limits: None,
        memory_limit_bytes: 8 << 30,
    };
    let e = compare(&cfg, &mut |_, _, _| {}).unwrap_err();
    assert!(matches!(e, ArrayStudyError::NotPositive { field: "loads.rates_iops", found, .. } if found == -3.0), "{e}");
    assert!(e.to_string().starts_with("`loads.rates_iops`"), "{e}");

    let e = compare(&ArrayCompareConfig { schemes: vec![], ..cfg.clone() }, &mut |_, _, _| {}).unwrap_err();
    assert!(e.to_string().starts_with("`schemes`: expected at least one scheme"), "{e}");
    let e = compare(&ArrayCompareConfig { r_limits: Some(vec![]), loads: Loads::Oltp { rates_iops: vec![10.0], oltp: Oltp::default() }, ..cfg.clone() }, &mut |_, _, _| {}).unwrap_err();
    assert!(e.to_string().starts_with("`r_limits`"), "{e}");

    let sim = ArraySimulateConfig { array: ArrayConfig { nvram_bytes: 4096, ..small_array() }, scheme: SchemeConfig::default(), workload: oltp(10.0), memory_limit_bytes: 8 << 30 };
    let e = simulate(&sim, &mut |_| {}).unwrap_err();
    assert!(e.to_string().starts_with("`array.nvram_bytes`"), "{e}");
    let e = simulate(&ArraySimulateConfig { array: ArrayConfig { disks: 1, ..small_array() }, ..sim.clone() }, &mut |_| {}).unwrap_err();
    assert!(matches!(e, ArrayStudyError::Geometry { disks: 1, .. }), "{e}");
    // An unknown drive is refused before any run, not as a failed run.
    let e = simulate(&ArraySimulateConfig { array: ArrayConfig { disk: "no-such-drive".into(), ..small_array() }, ..sim.clone() }, &mut |_| {}).unwrap_err();
    assert!(matches!(e, ArrayStudyError::Model(_)), "{e:?}");
    let e = simulate(&ArraySimulateConfig { array: small_array(), workload: oltp(0.0), ..sim.clone() }, &mut |_| {}).unwrap_err();
    assert!(e.to_string().starts_with("`workload.iops`"), "{e}");
    // Far more requests than six disks serve, queued for two days: refused before it runs.
    let flood = WorkloadSource::Oltp { iops: 1e6, oltp: Oltp::default() };
    let e = simulate(&ArraySimulateConfig { array: small_array(), workload: flood, ..sim }, &mut |_| {}).unwrap_err();
    assert!(matches!(e, ArrayStudyError::Memory { disks: 6, need_bytes, limit_bytes, .. } if need_bytes > limit_bytes as f64), "{e}");
}

#[test]
fn config_files_name_file_line_and_key() {
    let dir = std::env::temp_dir().join(format!("tierlab-array-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("array.toml");
    std::fs::write(&path, "[array]\ndisks = 8\n\n[scheme]\nkind = \"tpm\"\nr_limit_ms = -2\n").unwrap();
    let e = load_config(&path).unwrap_err().to_string();
    assert!(e.contains("array.toml") && e.contains(":6") && e.contains("scheme.r_limit_ms"), "{e}");
    std::fs::write(&path, "[array]\ndisks = 8\n\n[scheme]\nkind = \"tpm\"\n").unwrap();
    let s = load_config(&path).unwrap();
    assert_eq!((s.array.disks, s.scheme.kind, s.kind_from_file), (8, SchemeKind::Tpm, true));
    let e = load_config(&dir.join("missing.toml")).unwrap_err().to_string();
    assert!(e.contains("missing.toml"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_short_run_reports_its_requests_and_energy() {
    let sim = ArraySimulateConfig {
        array: small_array(),
        scheme: SchemeConfig { kind: SchemeKind::Tpm, ..SchemeConfig::default() },
        workload: oltp(50.0),
        memory_limit_bytes: 8 << 30,
    };
    let mut heard = 0;
    let run = simulate(&sim, &mut |n| heard = heard.max(n)).unwrap();
    // 50 req/s for 72 s.
    assert!((3000..=4200).contains(&run.requests), "{}", run.requests);
    assert_eq!(run.requests, run.reads + run.writes);
    assert!(run.energy_j > 0.0 && run.response_time.mean_ms > 0.0);
    assert_eq!(run.per_disk.len(), 6);
    assert!(heard > 0);
    let cfg = ArrayCompareConfig {
        array: small_array(),
        schemes: vec![SchemeConfig { kind: SchemeKind::Tpm, ..SchemeConfig::default() }],
        loads: Loads::Oltp { rates_iops: vec![20.0, 50.0], oltp: Oltp { hours: 0.02, ..Oltp::default() } },
        r_limits: None,
        memory_limit_bytes: 8 << 30,
    };
    assert_eq!(cfg.runs(), 4);
    let report = compare(&cfg, &mut |_, _, _| {}).unwrap();
    let schemes: Vec<&str> = report.rows.iter().map(|r| r.scheme.as_str()).collect();
    assert_eq!(schemes, ["raid5", "tpm", "raid5", "tpm"]);
    assert_eq!(report.rows[0].energy_saving, 0.0);
    assert_eq!(report.study(&cfg), Study::Loads { labels: vec!["20 req/s".into(), "50 req/s".into()], axis: "load (requests/s)".into() });
}
