//! `tierlab simulate`'s report as people read it: the replay, requests, throughput and
//! energy, response-time percentiles, the hybrid policy's moves, and each device's
//! utilisation, power states, counters and (an HDD's) wear; a measured run's summary
//! before it.

use tierlab_engine::{DeviceReport, SimReport};
use tierlab_hybrid_study::{HddWear, MeasuredSummary, SimulateReport};
use tierlab_report::{fmt_bytes, grouped, LatencySummary, Table};

/// The whole report: a measured run's summary, then the run's.
pub fn render(r: &SimulateReport) -> String {
    let measured = r.measurement.as_ref().map(render_measured).unwrap_or_default();
    format!("{measured}{}", render_text(&r.report, r.hdd_wear.as_ref()))
}

/// How a measured run went: its warm-up, its window, why it stopped, and its key figures
/// with their 95 % intervals (the lines `simulate --measure` prints before the report).
pub fn render_measured(m: &MeasuredSummary) -> String {
    let o = &m.run;
    let settled = if o.settled { "settled" } else { "never settled: cut at the cap" };
    let stop = match o.stop {
        tierlab_measure::Stop::Precise => "intervals within target".to_string(),
        tierlab_measure::Stop::Limit => "the request cap (--run-requests)".to_string(),
        tierlab_measure::Stop::SourceEnd => "the trace ended".to_string(),
        tierlab_measure::Stop::Unsustainable => tierlab_measure::cannot_sustain(m.offered_iops, m.throughput_iops.mean),
    };
    let f = |i: &tierlab_measure::Interval, d: usize| tierlab_report::with_interval(i.mean, i.half_width, d);
    format!(
        "measured    warm-up {} requests ({:.1} s), {settled}\n            then {} requests ({:.1} s), stopped by {stop}\n            IOPS {}, mean ms {}, power W {} (95 % intervals)\n\n",
        o.warmup_requests,
        o.warmup_s,
        o.measured_requests,
        o.measured_s,
        f(&m.throughput_iops, 1),
        f(&m.mean_ms, 3),
        f(&m.average_power_w, 2)
    )
}

fn latency_row(t: &mut Table, name: &str, s: &LatencySummary) {
    let f = |v: f64| format!("{v:.3}");
    t.row([name.to_string(), s.count.to_string(), f(s.mean_ms), f(s.p50_ms), f(s.p90_ms), f(s.p99_ms), f(s.p999_ms), f(s.max_ms)]);
}

/// The report as people read it, with the HDD's wear where there is one. Byte-stable for
/// a given report (golden-file tested).
pub fn render_text(r: &SimReport, hdd_wear: Option<&HddWear>) -> String {
    let mut s = String::new();
    s.push_str(&format!("replay      {} ({} scheduler)\n", r.replay, r.scheduler));
    s.push_str(&format!(
        "requests    {} ({} reads, {} writes; {} read, {} written)\n",
        r.requests,
        r.reads,
        r.writes,
        fmt_bytes(r.read_bytes),
        fmt_bytes(r.write_bytes)
    ));
    s.push_str(&format!("span        {:.3} s\n", r.span_s));
    s.push_str(&format!("throughput  {:.1} IOPS, {:.3} MiB/s\n", r.throughput_iops, r.throughput_mib_s));
    let unpowered: Vec<&str> = r.devices.iter().filter(|d| d.device.states.is_empty()).map(|d| d.device.name.as_str()).collect();
    if !unpowered.is_empty() && unpowered.len() == r.devices.len() {
        s.push_str(&format!("energy      not modelled: {} has no power model\n\n", unpowered.join(", ")));
    } else if !unpowered.is_empty() {
        s.push_str(&format!("energy      {:.1} J, average {:.2} W (without {}: no power model)\n\n", r.energy_j, r.average_power_w, unpowered.join(", ")));
    } else {
        s.push_str(&format!("energy      {:.1} J, average {:.2} W\n\n", r.energy_j, r.average_power_w));
    }

    let mut t = Table::new(["response time (ms)", "count", "mean", "p50", "p90", "p99", "p99.9", "max"]);
    latency_row(&mut t, "all", &r.response_time);
    latency_row(&mut t, "reads", &r.read_response_time);
    latency_row(&mut t, "writes", &r.write_response_time);
    for d in &r.devices {
        if let (Some(queue), Some(service)) = (&d.queue_time, &d.service_time) {
            latency_row(&mut t, &format!("{} queue", d.device.name), queue);
            latency_row(&mut t, &format!("{} service", d.device.name), service);
        }
    }
    s.push_str(&t.render());

    if let Some(policy) = r.controller.get("policy").and_then(|p| p.as_str()) {
        let st = &r.controller["stats"];
        let n = |k: &str| st[k].as_u64().unwrap_or(0);
        s.push_str(&format!(
            "\nhybrid drive ({policy}): SSD hit ratio {:.1} %, {} promotions, {} demotions, {} pre-fetches, {} evictions, {} write-backs, {} moved\n",
            r.controller["ssd_hit_ratio"].as_f64().unwrap_or(0.0) * 100.0,
            n("promotions"),
            n("demotions"),
            n("prefetches"),
            n("evictions"),
            n("write_backs"),
            fmt_bytes(n("bytes_moved"))
        ));
    }
    for d in &r.devices {
        s.push_str(&format!(
            "\ndevice {} ({}): {} ops, utilisation {:.1} % (an operation in service), mean queue {:.2}, max queue {}\n",
            d.device.name,
            d.device.kind,
            d.ops,
            d.utilisation * 100.0,
            d.mean_queue_length,
            d.max_queue_length
        ));
        if let Some(share) = mechanism_share(&d.device) {
            s.push_str(&format!(
                "mechanism working {:.1} % (active + seek, media work after completion such as write-back included)\n",
                share * 100.0
            ));
        }
        let mut t = Table::new(["power state", "time (s)", "energy (J)"]);
        for st in &d.device.states {
            t.row([st.state.clone(), format!("{:.3}", st.time_ns as f64 / 1e9), format!("{:.1}", st.energy_j)]);
        }
        if !t.is_empty() {
            s.push_str(&t.render());
        }
        if !d.device.counters.is_empty() {
            let mut t = Table::new(["counter", "value"]);
            for (k, v) in &d.device.counters {
                t.row([k.clone(), if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.3}") }]);
            }
            s.push_str(&t.render());
        }
        if let Some(w) = hdd_wear.filter(|_| d.device.kind == "hdd") {
            s.push_str(&render_hdd_wear(w));
        }
    }
    s
}

/// Share of the time its power model accounts for that a disk's mechanism works (its
/// "active" and "seek" states, at any speed); `None` without such states.
fn mechanism_share(d: &DeviceReport) -> Option<f64> {
    let working = |name: &str| name.starts_with("active") || name.starts_with("seek");
    let working_ns: u64 = d.states.iter().filter(|st| working(&st.state)).map(|st| st.time_ns).sum();
    let total_ns: u64 = d.states.iter().map(|st| st.time_ns).sum();
    (working_ns > 0 && total_ns > 0).then(|| working_ns as f64 / total_ns as f64)
}

/// An HDD's wear as two report lines.
pub fn render_hdd_wear(w: &HddWear) -> String {
    let r = &w.ratings;
    let of = |n: u64, rated: Option<u64>| rated.map_or(format!("{n} (not rated)"), |r| format!("{n} of {}", grouped(r as f64, 0)));
    let rated_tb = match (r.workload_tb_per_year, r.warranty_years) {
        (Some(tb), Some(_)) => format!("of {tb} rated{}", if r.workload_is_estimate() { ", an estimate" } else { "" }),
        _ => "not rated".to_string(),
    };
    let life = w.life_fraction_per_year.map_or("no rated limit".into(), |f| format!("{:.3} % of rated life a year at these rates", f * 100.0));
    format!(
        "wear        start/stop {}, load/unload {}, transfer {:.2} TB/year ({rated_tb})\n            {life}\n",
        of(w.start_stop_cycles, r.start_stop_cycles),
        of(w.load_unload_cycles, r.load_unload_cycles),
        w.workload_tb_per_year
    )
}
