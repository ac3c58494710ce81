//! A drive's command queue (`--scheduler sptf`): the quickest to reach first, but no
//! command held past the drive's aging limit (`COMMAND_AGE_LIMIT_NS` in tierlab-engine's scheduler, 2.4 s).

mod support;

use support::cli::{json, ok};

fn run(scheduler: &str) -> serde_json::Value {
    json(&ok(&["simulate", "--replay", "closed", "--depth", "32", "--scheduler", scheduler, "--json"]))
}

#[test]
fn sptf_at_depth_32_starves_no_command_past_the_aging_limit() {
    let sptf = run("sptf");
    let max_ms = sptf["response_time"]["max_ms"].as_f64().unwrap();
    // 2.4 s held, then at most the other aged commands ahead of it (32 at a few ms each).
    assert!(max_ms < 2400.0 + 600.0, "a command waited {max_ms} ms");
    let reads_max = sptf["read_response_time"]["max_ms"].as_f64().unwrap();
    assert!(reads_max < 3000.0, "{reads_max}");
    // Still the drive's own order: far more requests a second than first come, first served
    // (2026-11-29: 215.4 against 145.6 IOPS; first come, first served gains a little from
    // the read-ahead that streams into a neighbouring request).
    let fcfs = run("fcfs");
    let (a, b) = (sptf["throughput_iops"].as_f64().unwrap(), fcfs["throughput_iops"].as_f64().unwrap());
    assert!(a > 1.4 * b, "sptf {a} IOPS, fcfs {b}");
}
