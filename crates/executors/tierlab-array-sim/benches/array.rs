//! Array simulation speed and memory: requests per CPU-second of a 24-disk RAID-5 run
//! (with and without NVRAM), the same per request at 96 and 384 disks (cost per request
//! must not grow with the disks), and one run of a 1,000-disk array replaying 10 million
//! requests with its time and peak memory. `cargo bench -p tierlab-array-sim --bench array`
//! (`ARRAY_BENCH_QUICK=1` for a short pass). Linux: CPU time and peak RSS from /proc.

use tierlab_array_policy::SchemeConfig;
use tierlab_array_sim::{common_span_bytes, oltp_workload, run_array, ArrayConfig};
use tierlab_workload::Workload;
use tierlab_report::process::{cpu_seconds, peak_rss_mib};

fn run(disks: usize, nvram_bytes: u64, iops: f64, requests: u64) -> (u64, f64, f64) {
    let cfg = ArrayConfig { disks, nvram_bytes, ..ArrayConfig::default() };
    let w = oltp_workload(common_span_bytes(&cfg, &SchemeConfig::default()).unwrap(), iops, requests as f64 / iops, 3);
    let scheme = SchemeConfig::named("raid5").unwrap();
    let (c0, t0) = (cpu_seconds(), std::time::Instant::now());
    let r = run_array(&cfg, &scheme, &Workload::Synthetic(w), &mut |_| {}).unwrap();
    (r.requests, cpu_seconds() - c0, t0.elapsed().as_secs_f64())
}

fn main() {
    let quick = std::env::var_os("ARRAY_BENCH_QUICK").is_some();
    let n = if quick { 200_000 } else { 2_000_000 };
    println!("array bench: RAID-5 baseline, OLTP-like 8 KiB requests (2/3 reads, 90/10 skew), open loop");
    for (disks, nvram, label) in [(24, 2u64 << 30, "24 disks, 2 GiB NVRAM"), (24, 0, "24 disks, no NVRAM"), (96, 2 << 30, "96 disks, 2 GiB NVRAM"), (384, 2 << 30, "384 disks, 2 GiB NVRAM")] {
        // 58 req/s per disk: a busy array (utilisation about 0.3 at full speed).
        let (req, cpu, wall) = run(disks, nvram, 58.0 * disks as f64, n);
        println!("{label:>24}: {req} requests, {cpu:.2} CPU-s ({wall:.2} s wall): {:.2} M requests/CPU-s, {:.0} ns/request", req as f64 / cpu / 1e6, cpu * 1e9 / req as f64);
    }
    let big = if quick { 1_000_000 } else { 10_000_000 };
    let (req, cpu, wall) = run(1000, 2 << 30, 58_000.0, big);
    println!("1000 disks, 2 GiB NVRAM: {req} requests in {wall:.1} s wall, {cpu:.1} CPU-s ({:.2} M requests/CPU-s); peak RSS {:.0} MiB", req as f64 / cpu / 1e6, peak_rss_mib());
    let week = 1400.0 * 7.0 * 86_400.0;
    println!("a week of trace at 1,400 req/s ({:.0} M requests) at the 1,000-disk rate: {:.0} CPU-minutes", week / 1e6, week / (req as f64 / cpu) / 60.0);
}
