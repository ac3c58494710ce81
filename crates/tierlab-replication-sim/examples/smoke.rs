use tierlab_replication_sim::*;
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mut cfg = ReplicationConfig::default();
    cfg.duration_s = args.get(1).map_or(1800.0, |s| s.parse().unwrap());
    cfg.warmup_s = cfg.duration_s / 6.0;
    if let Some(w) = args.get(2) {
        cfg.window_bytes = w.parse::<u64>().unwrap() << 20;
    }
    if let Some(wh) = args.get(3) {
        if let SourceSpec::Tpcc(t) = &mut cfg.source {
            t.warehouses = wh.parse().unwrap();
        }
    }
    if let Ok(d) = std::env::var("DISK") { cfg.disk = d; }
    if let Ok(p) = std::env::var("PROFILE") { cfg.power_profile = Some(p); }
    if let Ok(l) = std::env::var("STANDBY") { cfg.standby = Some(l); }
    if let Ok(r) = std::env::var("RTO") { cfg.rto_s = r.parse().unwrap(); }
    let t0 = std::time::Instant::now();
    let c = compare(&cfg, &[Scheme::Proposed], &mut |_, _| {})?;
    eprintln!("{:.1} s", t0.elapsed().as_secs_f64());
    println!("u = {:.3}", c.u);
    for r in &c.rows {
        let x = &r.run;
        println!("{:>16} saving total {:.3} weighted {:.3} data {:.3} | r_gen {:.0} B/s r_apl {:.0} r {:.2} twnd plan {:.0} obs {:.0} cyc/day {:.1} worst {:.1} viol {} | data W {:.2} log W {:.2} util {:.3}",
            x.scheme.name(), r.saving_total, r.saving_weighted, r.saving_data, x.r_gen_bytes_s, x.r_apl_bytes_s, x.r, x.t_wnd_planned_s, x.t_wnd_observed_s, x.cycles_per_day, x.policy.worst_recovery_s, x.policy.rto_violations, x.data_disk_w, x.log_disk_w, x.data_utilisation);
        println!("   primary {:?}", x.primary);
        println!("   apply {:?}", x.apply);
        println!("   policy {:?}", x.policy);
    }
    Ok(())
}
