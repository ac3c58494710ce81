use tierlab_array_policy::SchemeConfig;
use tierlab_array_sim::{oltp_workload, run_array, ArrayConfig};
use tierlab_hybrid::Workload;

#[test]
#[ignore]
fn smoke() {
    let mut cfg = ArrayConfig::default();
    cfg.warmup_s = std::env::var("WARMUP").ok().and_then(|s| s.parse().ok());
    let iops: f64 = std::env::var("IOPS").ok().and_then(|s| s.parse().ok()).unwrap_or(140.0);
    let secs: f64 = std::env::var("SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600.0);
    let w = oltp_workload(22 * 17 * 1_000_000_000, iops, secs, 1);
    let schemes = std::env::var("SCHEMES").unwrap_or("raid5,tpm,raid-drpm,raid-drpm+,raid-cr+,pdc-ld,maid,hibernator".into());
    for name in schemes.split(',') {
        let mut scheme = SchemeConfig::named(name).unwrap();
        if let Ok(e) = std::env::var("EPOCH") { scheme.epoch_s = e.parse().unwrap(); }
        let t = std::time::Instant::now();
        let r = run_array(&cfg, &scheme, &Workload::Synthetic(w.clone()), &mut |_| {}).unwrap();
        eprintln!("{name}: {:.1}s wall; {} req, mean {:.2} ms p99 {:.2}, energy {:.0} J, power {:.1} W, changes/disk/day {:.1}, {:?}", t.elapsed().as_secs_f64(), r.requests, r.response_time.mean_ms, r.response_time.p99_ms, r.energy_j, r.average_power_w, r.speed_changes_per_disk_day, r.scheme_report);
    }
}
