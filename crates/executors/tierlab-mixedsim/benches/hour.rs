//! Speed and memory of a mixed-system run: an hour of a write-heavy random workload at
//! 2,700 requests/s (4 KiB, 23 % reads — the research's Financial* rate and read share,
//! Table 4.3) on the system MixPlan recommends for it, 1 Intel X25-M SSD + 6 Samsung
//! 1 TB 5,400 rpm disks (section 4.5.4.1). 95 % of requests go to the first 3.5 % of a
//! 1.5 TB space (Financial*'s 114 GB hot of 2,763 GB is 4 %); hot classes are placed on the
//! SSD, cold ones on the disks.
//!
//! `CARGO_PROFILE_RELEASE_LTO=false cargo bench -p tierlab-mixedsim --bench hour`;
//! `MIXEDSIM_HOURS` (default 1) scales the run, `MIXEDSIM_AGING` (default 0) ages the SSD
//! by that many random overwrites of its placed data before the clock starts.
//!
//! The catalog's Samsung HD103UI has no cited seek or transfer figures; the planner's
//! catalog (catalog/plan/hybridstore-2009.toml) times it from 8.9 ms average seek
//! (estimate) and Table 4.4's 42.66 MB/s, and so does this bench.

use std::time::Instant;
use tierlab_classes::ClassConfig;
use tierlab_mixedsim::{
    simulate, DeviceSpec, GroupSpec, HddEstimates, HddModel, MixedConfig, Placement, SsdModel,
};
use tierlab_report::process::{cpu_seconds, peak_rss_mib};
use tierlab_types::GIB;
use tierlab_workload::{AddressDist, Arrival, SizeDist, WorkloadSpec};

fn env_f64(key: &str, default: f64) -> f64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let hours = env_f64("MIXEDSIM_HOURS", 1.0);
    let aging = env_f64("MIXEDSIM_AGING", 0.0);
    let iops = 2_700.0;
    let spec = WorkloadSpec {
        name: "financial-like".into(),
        seed: 2009,
        requests: (iops * 3_600.0 * hours) as u64,
        span_bytes: 1_500 * GIB,
        align_bytes: 4096,
        read_fraction: 0.23,
        address: AddressDist::HotCold {
            hot_access_fraction: 0.95,
            hot_space_fraction: 0.035,
        },
        size: SizeDist::Fixed { bytes: 4096 },
        arrival: Arrival::Poisson { iops },
        volume: 0,
        hot_region_bytes: 0,
    };
    let trace = || spec.generate().unwrap_or_else(|e| panic!("{e}"));

    let mut ssd = SsdModel::catalog("intel-x25m-80gb").unwrap_or_else(|e| panic!("{e}"));
    ssd.aging_overwrites = aging;
    let estimates = HddEstimates {
        seek_average_ms: Some(8.9),
        sustained_transfer_mb_s: Some(42.66),
    };
    let hdd = HddModel::catalog_with_estimates("samsung-spinpoint-f1-ecogreen-hd103ui", &estimates)
        .unwrap_or_else(|e| panic!("{e}"));
    let groups = vec![
        GroupSpec::new("ssd", DeviceSpec::Ssd(ssd), 1),
        GroupSpec::new("hdd", DeviceSpec::Hdd(hdd), 6),
    ];

    let (c0, t0) = (cpu_seconds(), Instant::now());
    let labelled =
        tierlab_classes::label(&ClassConfig::default(), trace()).unwrap_or_else(|e| match e {});
    let label_s = t0.elapsed().as_secs_f64();
    let mut placement = Placement::new().otherwise(&[("hdd", 1.0)]);
    let mut hot: Vec<_> = labelled
        .records()
        .map(|(_, c)| c)
        .filter(|c| c.hot)
        .collect();
    hot.sort_unstable();
    hot.dedup();
    for class in hot {
        placement = placement.with_class(class, &[("ssd", 1.0)]);
    }
    let config = MixedConfig::new(groups, placement);
    let t1 = Instant::now();
    let report =
        simulate(&config, &labelled, trace(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let sim_s = t1.elapsed().as_secs_f64();
    let (wall_s, cpu_s) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);

    let n = report.system.requests;
    println!("mixedsim hour bench: {hours} h at {iops} req/s, 4 KiB, 23 % reads; 1 X25-M (aged {aging}x) + 6 Samsung 1 TB");
    println!(
        "  requests {n}, pieces {}, records placed {}",
        report.system.pieces, report.system.records
    );
    println!("  wall {wall_s:.1} s (classify {label_s:.1} s, place + precondition + replay {sim_s:.1} s), CPU {cpu_s:.1} s");
    println!(
        "  {:.0} requests/s wall, {:.0} requests/CPU-s; peak RSS {:.0} MiB",
        n as f64 / wall_s,
        n as f64 / cpu_s,
        peak_rss_mib()
    );
    let rt = &report.system.response_time;
    println!(
        "  system: mean {:.3} ms, p50 {:.3}, p95 {:.3}, p99 {:.3}, max {:.1}; {:.0} J, {:.1} W",
        rt.mean_ms,
        rt.p50_ms,
        rt.p95_ms,
        rt.p99_ms,
        rt.max_ms,
        report.system.energy_j,
        report.system.mean_power_w
    );
    for g in &report.groups {
        let rt = &g.response_time;
        println!(
            "  {:>4}: {} pieces, mean {:.3} ms, p95 {:.3}, p99 {:.3}; busy {:.2}; {:.1} W; placed {:.1} GiB ({:.1} % of capacity)",
            g.name,
            g.pieces,
            rt.mean_ms,
            rt.p95_ms,
            rt.p99_ms,
            g.busy_fraction,
            g.mean_power_w,
            g.placed_bytes as f64 / GIB as f64,
            g.utilisation * 100.0
        );
        if let Some(w) = &g.ssd {
            println!(
                "        erases {} ({:.3}/s), lifetime {} years at {} cycles; host writes {:.1} GB/day (Eq. 4.8: {} years)",
                w.block_erases,
                w.erase_rate_per_s,
                w.lifetime_years.map_or("-".into(), |y| format!("{y:.1}")),
                w.erase_cycles,
                w.host_write_bytes_per_day / 1e9,
                w.lifetime_years_host_writes.map_or("-".into(), |y| format!("{y:.1}")),
            );
        }
    }
    if let Ok(path) = std::env::var("MIXEDSIM_JSON") {
        let json = serde_json::to_string_pretty(&report).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, json).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}
