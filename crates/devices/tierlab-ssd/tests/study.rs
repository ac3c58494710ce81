//! The DFTL study's shape on the real traces in ../shared/traces: all FTLs on one drive
//! per trace, SRAM sized to what FAST needs and given to DFTL too. The full study is an
//! ignored test (release mode, prints the tables for docs/ssd.md):
//! `cargo test --release -p tierlab-ssd --test study -- --ignored --nocapture`.
//! The quick test checks the headline shape on a slice of TPC-C and WebSearch.

mod common;

use common::{read_blkreplay, read_disksim, read_disksim_ms, traces_dir};
use tierlab_ssd::{
    compare_ftl, CompareOptions, FtlComparison, FtlKind, Precondition, SsdSpec,
};
use tierlab_trace::Compactor;
use tierlab_types::{IoRequest, KIB};

/// A study-profile drive whose logical capacity holds the trace's compacted footprint
/// at `occupancy` (the footprint is compacted to the start of the drive, so filling that
/// fraction writes exactly the footprint). `serial` gives one channel, die and plane:
/// FlashSim's drive without internal parallelism.
fn pre(occupancy: f64) -> Precondition {
    Precondition {
        occupancy,
        random_overwrites: 0.0,
        seed: 1,
    }
}

/// Stretch arrival times by `factor` (TPC-C's slice arrives at 437 MB/s, beyond the
/// study drive's bandwidth; stretched it keeps its order and burstiness).
fn stretch(reqs: &[IoRequest], factor: u64) -> Vec<IoRequest> {
    let t0 = reqs.first().map_or(0, |r| r.time_ns);
    reqs.iter()
        .map(|r| IoRequest {
            time_ns: (r.time_ns - t0) * factor,
            ..*r
        })
        .collect()
}

fn run(name: &str, reqs: &[IoRequest], occupancy: f64, serial: bool) -> FtlComparison {
    let c = Compactor::build(128 * KIB, reqs.iter().copied());
    let mut base = SsdSpec::study_slc_for_footprint(c.footprint_bytes(), occupancy, serial, FtlKind::Page);
    base.name = format!("study-slc{}/{name}", if serial { "-serial" } else { "" });
    let fill = (c.footprint_bytes() as f64 / base.capacity_bytes() as f64).min(1.0);
    let mapped: Vec<IoRequest> = reqs.iter().filter_map(|r| c.map(r)).collect();
    let opts = CompareOptions {
        precondition: pre(fill),
        warmup_passes: 1,
        ..Default::default()
    };
    let cmp = compare_ftl(|| mapped.iter().copied(), &base, &opts)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    println!(
        "== {name}: {} requests, footprint {:.0} MiB",
        reqs.len(),
        c.footprint_bytes() as f64 / (1 << 20) as f64
    );
    print!("{}", cmp.to_text());
    for r in &cmp.runs {
        if !r.ssd.ftl_counters.is_empty() {
            println!("  {} {:?}", r.ftl.name(), r.ssd.ftl_counters);
        }
    }
    cmp
}

fn mean_ms(c: &FtlComparison, k: FtlKind) -> f64 {
    c.runs
        .iter()
        .find(|r| r.ftl == k)
        .map_or(f64::NAN, |r| r.response.mean_ns / 1e6)
}

fn erases(c: &FtlComparison, k: FtlKind) -> u64 {
    c.runs
        .iter()
        .find(|r| r.ftl == k)
        .map_or(0, |r| r.ssd.block_erases.data + r.ssd.block_erases.mapping)
}

#[test]
fn study_shape_on_trace_slices() {
    let Some(dir) = traces_dir() else { return };
    let tpcc = stretch(&read_disksim(&dir.join("tpcc-small.disksim"), 1), 20);
    assert!(tpcc.len() > 6000);
    let c = run("tpcc-slice", &tpcc[..3000], 0.75, false);
    assert!(
        mean_ms(&c, FtlKind::Dftl) < 0.5 * mean_ms(&c, FtlKind::Fast),
        "DFTL much faster than FAST on OLTP"
    );
    assert!(
        erases(&c, FtlKind::Dftl) < erases(&c, FtlKind::Fast),
        "DFTL erases less than FAST on OLTP"
    );
    let web = read_disksim(&dir.join("umass-websearch-small.disksim"), 1);
    let c = run("websearch-slice", &web[..5000], 0.75, true);
    let (fast, page) = (mean_ms(&c, FtlKind::Fast), mean_ms(&c, FtlKind::Page));
    assert!(
        (fast - page).abs() <= 0.01 * page,
        "FAST {fast} = page {page} on read-only"
    );
}

#[test]
#[ignore]
fn study_full_traces() {
    let Some(dir) = traces_dir() else { return };
    let traces: Vec<(&str, Vec<IoRequest>)> = vec![
        (
            "mysql",
            read_blkreplay(&dir.join("blkreplay-linux-mysql.load.gz")),
        ),
        (
            "msn-fs",
            read_disksim_ms(&dir.join("msn-fs-30s.disksim-ms")),
        ),
        (
            "tpcc",
            stretch(&read_disksim(&dir.join("tpcc-small.disksim"), 1), 20),
        ),
        (
            "websearch",
            read_disksim(&dir.join("umass-websearch-small.disksim"), 1),
        ),
    ];
    let mut all = Vec::new();
    for occupancy in [0.75, 1.0] {
        println!(
            "\n######## footprint = {:.0} % of the logical capacity",
            occupancy * 100.0
        );
        for (name, reqs) in &traces {
            all.push((
                format!("{name}@{occupancy}"),
                run(name, reqs, occupancy, false),
            ));
        }
    }
    println!("\n######## serial drive (1 channel, 1 die, 1 plane), footprint = 75 %");
    all.push((
        "websearch-serial".into(),
        run("websearch", &traces[3].1, 0.75, true),
    ));
    if let Ok(path) = std::env::var("STUDY_JSON") {
        let _ = std::fs::write(path, serde_json::to_string_pretty(&all).unwrap_or_default());
    }
}
