use super::*;

fn config() -> PlanConfig {
    PlanConfig {
        workload: PlanWorkload::Stats { stats: "hybridstore-t4.3-hm".into(), seed: 1 },
        catalog: "hybridstore-2009".into(),
        without: Vec::new(),
        prices: Vec::new(),
        classes: 17,
        options: Options { probe: crate::Probe { requests: 20, ..Default::default() }, ..Options::default() },
        cache_dir: None,
        simulate: None,
    }
}

#[test]
fn a_configuration_round_trips_through_json() {
    let cfg = PlanConfig {
        workload: PlanWorkload::Trace { path: "trace.csv".into(), read: ReadOptions { speed: 2.0, ..ReadOptions::default() } },
        without: vec!["x25m".into()],
        prices: vec![PriceSetting { device: "cheetah".into(), usd_per_gb: 0.5 }],
        simulate: Some(Protocol::default()),
        cache_dir: Some("/tmp/cache".into()),
        ..config()
    };
    let text = serde_json::to_string(&cfg).unwrap();
    assert_eq!(serde_json::from_str::<PlanConfig>(&text).unwrap(), cfg, "{text}");
    let cfg = config();
    let text = serde_json::to_string(&cfg).unwrap();
    assert_eq!(serde_json::from_str::<PlanConfig>(&text).unwrap(), cfg, "{text}");
    let bad = text.replacen("\"classes\"", "\"class_count\"", 1);
    assert!(serde_json::from_str::<PlanConfig>(&bad).unwrap_err().to_string().contains("class_count"));
}

#[test]
fn errors_name_the_field_at_fault() {
    let e = run(&PlanConfig { classes: 20, ..config() }, &mut |_| {}).unwrap_err();
    assert!(matches!(e, PlanStudyError::Classes(20)), "{e}");
    assert!(e.to_string().starts_with("`classes`"), "{e}");
    let mut cfg = config();
    cfg.options.rate_scale = 0.0;
    let e = run(&cfg, &mut |_| {}).unwrap_err();
    assert!(e.to_string().starts_with("`options.rate_scale`: expected a factor above 0"), "{e}");
    let mut cfg = config();
    cfg.options.cost.horizon_years = 1e12;
    let e = run(&cfg, &mut |_| {}).unwrap_err().to_string();
    assert!(e.starts_with("`options.cost.horizon_years`") && e.ends_with("found 1e12"), "{e}");
    let e = run(&PlanConfig { without: vec!["floppy".into()], ..config() }, &mut |_| {}).unwrap_err();
    assert!(matches!(&e, PlanStudyError::Without { device, .. } if device == "floppy"), "{e}");
    let e = run(&PlanConfig { prices: vec![PriceSetting { device: "floppy".into(), usd_per_gb: 1.0 }], ..config() }, &mut |_| {}).unwrap_err();
    assert!(e.to_string().starts_with("`prices`: no device type `floppy`"), "{e}");
    let e = run(&PlanConfig { catalog: "no-such-catalog".into(), ..config() }, &mut |_| {}).unwrap_err();
    assert!(e.to_string().starts_with("`catalog`: no-such-catalog"), "{e}");
}

#[test]
fn a_statistics_file_gets_a_plan_no_dearer_than_any_one_type() {
    let mut phases = Vec::new();
    // At ten times its rate, the workload's classes need bandwidth, not only room.
    let mut cfg = config();
    cfg.options.rate_scale = 10.0;
    let planned = run(&cfg, &mut |p| phases.push(format!("{p:?}").split([' ', '(']).next().unwrap_or_default().to_string())).unwrap();
    let r = &planned.report;
    assert_eq!(phases.first().map(String::as_str), Some("Synthesising"), "{phases:?}");
    assert!(phases.contains(&"Bandwidth".to_string()), "{phases:?}");
    assert!(r.synthesis.is_some() && r.simulated.is_empty());
    assert_eq!(r.bandwidth_kb_s.len(), planned.catalog.devices.len());
    assert!(r.classes.iter().any(|c| c.bandwidth_kb_s > 0.0), "{:?}", r.classes);
    assert_eq!(r.options.rate_scale, 10.0);
    let best = r.study.best.total_usd;
    assert!(best > 0.0);
    for one in &r.study.single_type {
        if let Some(p) = &one.plan {
            assert!(p.total_usd >= best - 1e-6, "{} {} < {best}", one.device, p.total_usd);
        }
    }
}
