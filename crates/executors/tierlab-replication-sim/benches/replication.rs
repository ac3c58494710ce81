//! Replication simulation speed and memory, and the planner's speed.
//!
//! - The batch planner over the paper's grid (r of Table 3 and the prose × RTO 30, 100,
//!   300, 1,000 s × both modes × the three standby levels of the mid-range disk) and over
//!   a dense grid of a million (r, RTO) points.
//! - The primary and the secondary (proposed scheme) on the default 160-warehouse
//!   TPC-C-like workload for 3 hours and for a day of primary time, side by side: CPU
//!   time, requests per CPU-second and peak memory of each (the day must not need more
//!   memory than the 3 hours: compaction is bounded by the window, the engine by what is
//!   outstanding).
//!
//! `cargo bench -p tierlab-replication-sim --bench replication` (`REPLICATION_BENCH_HOURS`
//! sets the long run, default 24; 0 runs the planner only). Linux: CPU time and peak RSS from /proc.

use std::hint::black_box;
use tierlab_update_log::{plan, PlanMode, StandbyCosts, Transition};
use tierlab_replication_sim::{run_replication, ReplicationConfig, Scheme};
use tierlab_report::process::{cpu_seconds, peak_rss_mib, reset_peak_rss};

fn costs(standby_w: f64, t: f64, e: f64, up_t: f64, up_e: f64) -> StandbyCosts {
    StandbyCosts {
        standby_w,
        down: Transition {
            time_s: t,
            energy_j: e,
        },
        up: Transition {
            time_s: up_t,
            energy_j: up_e,
        },
    }
}

fn main() {
    let disks = [
        costs(4.15, 15.0, 62.25, 26.0, 904.8),
        costs(4.04, 0.7, 3.5, 0.7, 3.5),
        costs(2.72, 17.0, 19.0, 17.0, 19.0),
        costs(0.93, 0.7, 3.5, 0.7, 3.5),
    ];
    let t0 = std::time::Instant::now();
    let mut feasible = 0;
    let mut cells = 0;
    for &r in &[4.030, 9.5835, 20.4486, 20.5, 49.3] {
        for &rto in &[30.0, 100.0, 300.0, 1000.0] {
            for mode in [PlanMode::Paper, PlanMode::Strict] {
                for c in &disks {
                    cells += 1;
                    feasible += usize::from(
                        black_box(plan(
                            black_box(1e6),
                            black_box(r * 1e6),
                            black_box(rto),
                            black_box(c),
                            mode,
                        ))
                        .is_ok(),
                    );
                }
            }
        }
    }
    println!(
        "planner, the paper's grid: {cells} plans ({feasible} feasible) in {:.1} µs",
        t0.elapsed().as_secs_f64() * 1e6
    );
    let t0 = std::time::Instant::now();
    let mut sum = 0.0;
    for i in 0..1000 {
        for j in 0..1000 {
            let r = 1.01 + i as f64 * 0.1;
            let rto = 10.0 + j as f64 * 2.0;
            if let Ok(p) = black_box(plan(
                black_box(1e6),
                black_box(r * 1e6),
                black_box(rto),
                &disks[0],
                PlanMode::Strict,
            )) {
                sum += p.t_wnd_s;
            }
        }
    }
    let dense = t0.elapsed().as_secs_f64();
    println!(
        "planner, dense grid: 1,000,000 plans in {dense:.3} s ({:.0} ns each; checksum {sum:.3e})",
        dense * 1e9 / 1e6
    );

    let long_h: f64 = std::env::var("REPLICATION_BENCH_HOURS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24.0);
    println!("replication: 160 warehouses, 16 + 1 disks per site, 36Z15, proposed scheme, 512 MiB window, RTO 100 s");
    let mut figures = Vec::new();
    if long_h <= 0.0 {
        return;
    }
    for hours in [3.0, long_h] {
        let cfg = ReplicationConfig {
            duration_s: hours * 3600.0,
            warmup_s: 600.0,
            // The whole duration, however soon its figures are precise: a fixed amount of
            // work to time.
            measure: false,
            ..ReplicationConfig::default()
        };
        reset_peak_rss();
        let (c0, t0) = (cpu_seconds(), std::time::Instant::now());
        let r = run_replication(&cfg, Scheme::Proposed, &mut |_| {}).expect("run");
        let (cpu, wall, rss) = (
            cpu_seconds() - c0,
            t0.elapsed().as_secs_f64(),
            peak_rss_mib(),
        );
        let p = &r.primary;
        let a = &r.apply;
        let requests =
            p.data_reads + p.data_writes + p.commits + a.arrivals + a.page_reads + a.write_ios;
        println!(
            "{hours:>5} h: {} transactions, {} records; {requests} disk requests (both sites) in {cpu:.1} CPU-s ({wall:.1} s wall, two threads): {:.2} M requests/CPU-s; peak RSS {rss:.0} MiB",
            p.transactions,
            p.records,
            requests as f64 / cpu / 1e6
        );
        figures.push((requests as f64 / cpu, rss));
    }
    println!(
        "day vs 3 h: speed ratio {:.2}, peak-memory ratio {:.2}",
        figures[1].0 / figures[0].0,
        figures[1].1 / figures[0].1
    );
}
