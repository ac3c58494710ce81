//! Table 4.3's large-scale rows at full size: Financial* (2,763 GB, 9.7 M requests in an
//! hour) and TPC-H* (900 GB, 2.3 M requests). Minutes in a debug build, so they run only
//! with `TIERLAB_LONG=1` (or `-- --ignored`); build with `--release`.

use std::path::Path;
use std::time::Instant;
use tierlab_classes::ClassConfig;
use tierlab_synth::{evaluate, Synth, SynthOptions, WorkloadStats};

fn full_size(id: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let s = WorkloadStats::load(&root.join(format!("catalog/workloads/{id}.toml")))
        .unwrap_or_else(|e| panic!("{e}"));
    let opts = SynthOptions::new(1);
    let t = Instant::now();
    let mut n = 0u64;
    let mut bytes = 0u64;
    for r in Synth::new(&s, &opts).unwrap() {
        n += 1;
        bytes += r.len_bytes;
    }
    let gen_s = t.elapsed().as_secs_f64();
    assert!(bytes > 0);
    let t = Instant::now();
    let e = evaluate(&s, &opts, &ClassConfig::default()).unwrap();
    let eval_s = t.elapsed().as_secs_f64();
    println!(
        "{id}: {n} requests; generated in {gen_s:.2} s ({:.2} M requests/s); made twice, classified and compared in {eval_s:.2} s",
        n as f64 / gen_s / 1e6
    );
    println!(
        "{:<20} {:>14} {:>14} {:>9}",
        "", "target", "achieved", "dev %"
    );
    for r in &e.rows {
        println!(
            "{:<20} {:>14.4} {:>14.4} {:>+9.3}",
            format!("{} ({})", r.label, r.unit),
            r.target,
            r.achieved,
            r.deviation_percent()
        );
    }
    println!(
        "  cold touched {:.2} GB, untouched {:.2} GB",
        e.achieved.cold_touched_gb, e.achieved.untouched_gb
    );
    assert!(e.plan.check().is_ok());
    for r in &e.rows {
        let ok = match r.key {
            "hot_gb" | "cold_gb" | "total_gb" => (r.achieved - r.target).abs() <= 0.005 * r.target,
            "read_percent" => (r.achieved - r.target).abs() <= 0.5,
            _ => r.deviation_percent().abs() <= 1.0,
        };
        assert!(ok, "{id}: {r:?}");
    }
}

fn long() -> bool {
    let on = std::env::var("TIERLAB_LONG").is_ok_and(|v| v == "1");
    if !on {
        eprintln!("skipped: full-size rows run with TIERLAB_LONG=1 (or -- --ignored)");
    }
    on
}

#[test]
fn financial_and_tpch_at_full_size_when_asked() {
    if long() {
        full_size("hybridstore-t4.3-financial");
        full_size("hybridstore-t4.3-tpch");
    }
}

#[test]
#[ignore = "full size: minutes in debug; run in release"]
fn financial_and_tpch_at_full_size() {
    full_size("hybridstore-t4.3-financial");
    full_size("hybridstore-t4.3-tpch");
}
