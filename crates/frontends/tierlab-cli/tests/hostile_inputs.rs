//! Numbers no run can honour end in an error that names the flag and the figure, before
//! any work starts: no panic, no abort, no memory growing until the machine gives out.

mod support;

use support::cli::{fails, shared};

/// The planner's factors are refused before they reach the LP solver.
#[test]
fn plan_refuses_factors_out_of_range_before_the_solver() {
    let Some(shared) = shared() else { return };
    let trace = shared.join("traces/msr-hm0-1k.csv");
    let trace = trace.to_str().expect("utf-8 path");
    for (flag, value, expected) in [
        ("--scale", "1e300", "--scale: expected a factor above 0 and at most 1e6, found 1e300"),
        ("--horizon-years", "1e300", "--horizon-years: expected a number of years above 0 and at most 1000, found 1e300"),
        ("--lifetime-years", "0", "--lifetime-years: expected a number of years above 0 and at most 1000, found 0"),
        ("--usd-per-kwh", "nan", "--usd-per-kwh: expected a price from 0 to 1000 $/kWh, found NaN"),
    ] {
        let err = fails(&["plan", "--trace", trace, flag, value]);
        assert!(err.contains(expected), "{flag} {value}: {err}");
    }
}

/// An array too large, or a rate no array serves, is refused with the memory it would need.
#[test]
fn array_runs_that_would_not_fit_in_memory_are_refused_with_the_figure() {
    for args in [
        &["array", "simulate", "--disks", "100000", "--hours", "0.01"][..],
        &["array", "simulate", "--iops", "1e12", "--hours", "0.01"],
        &["array", "compare", "--loads", "7,1e308"],
    ] {
        let err = fails(args);
        assert!(err.contains("of memory, more than the limit of 8.00 GiB (--memory-limit raises it)"), "{args:?}: {err}");
    }
    let err = fails(&["array", "simulate", "--disks", "100000", "--hours", "0.01"]);
    assert!(err.contains("an array of 100000 ×") && err.contains("needs about"), "{err}");
    let err = fails(&["array", "simulate", "--iops", "1e12", "--hours", "0.01"]);
    assert!(err.contains("3.6e13 requests queued beyond what its disks serve"), "{err}");
    // The limit is the user's to raise: far enough, and the estimate passes (the run then
    // fails for a reason of its own, quickly: an impossible RAID level for one disk).
    let err = fails(&["array", "simulate", "--disks", "100000", "--hours", "0.01", "--memory-limit", "1P", "--level", "raid5", "--workload", "/nonexistent.toml"]);
    assert!(!err.contains("--memory-limit raises it"), "{err}");
}

/// An array of many disks whose scheme keeps no per-block tables passes the estimate: a
/// disk costs kilobytes (the run then fails for a reason of its own: no such workload).
#[test]
fn a_wide_raid5_array_is_not_refused_for_memory_it_does_not_need() {
    let err = fails(&["array", "simulate", "--scheme", "raid5", "--disks", "20000", "--memory-limit", "1G", "--workload", "/nonexistent.toml"]);
    assert!(!err.contains("--memory-limit raises it"), "{err}");
    assert!(err.contains("nonexistent"), "{err}");
}

/// Thousands of caches are refused with their memory, counted over the objects the trace
/// really touches.
#[test]
fn cache_runs_that_would_not_fit_in_memory_are_refused_with_the_figure() {
    let Some(shared) = shared() else { return };
    let trace = shared.join("traces/cloudphysics-io.csv");
    let sizes: Vec<String> = (1..=3000u64).map(|i| (i * 409_600).to_string()).collect();
    let err = fails(&["cache", trace.to_str().expect("utf-8 path"), "--sizes", &sizes.join(",")]);
    assert!(err.contains("21000 caches (7 algorithms × 3000 sizes, 269210 distinct objects) needs about"), "{err}");
    assert!(err.contains("--memory-limit raises it"), "{err}");
}
