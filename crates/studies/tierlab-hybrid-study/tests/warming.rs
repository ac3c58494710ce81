//! A measured tiering or caching run starts from the placement the workload leads its
//! policy to (functional warming), not from a cold cache or an arbitrary layout.

use tierlab_hybrid_study::{simulate_measured, Config, Mode, Protocol};
use tierlab_workload::{Workload, WorkloadSpec};

/// The measured window's SSD hit ratio of `mode` on the bundled workload, and whether its
/// policy was warmed and settled.
fn hit_ratio(mode: Mode, protocol: Protocol) -> (f64, Option<bool>) {
    let config = Config { mode: Some(mode), ..Config::default() };
    let m = simulate_measured(&Workload::Synthetic(WorkloadSpec::bundled_default()), &config, &protocol, &mut |_| {}).expect("the run");
    (m.window.total.counter_ratio(0, 1), m.run.warming.map(|w| w.settled))
}

#[test]
fn a_measured_caching_run_starts_from_a_warmed_cache() {
    let quick = Protocol { batch_requests: 500, max_requests: 20_000, ..Protocol::default() };
    let (warm, warming) = hit_ratio(Mode::Caching, quick.clone());
    assert_eq!(warming, Some(true), "the policy's placement settled before the timed run");
    // The same run from a cold cache, measured from its first request.
    let (cold, none) = hit_ratio(Mode::Caching, Protocol { detect_warmup: false, ..quick });
    assert_eq!(none, None, "no warming without warm-up");
    assert!(warm > cold + 0.1, "hit ratio {warm:.3} warmed against {cold:.3} cold");
}
