//! A synthetic workload's TOML: parsed, validated, and its first requests generated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tierlab_workload::WorkloadSpec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = tierlab_config::parse_toml::<WorkloadSpec>(text, "fuzz.toml") else { return };
    if spec.validate().is_ok() {
        if let Ok(g) = spec.generate() {
            for _ in g.take(64) {}
        }
    }
});
