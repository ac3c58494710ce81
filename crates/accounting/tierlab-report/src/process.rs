//! The running process's CPU time and peak memory, for benchmarks. Linux only: they are
//! read from `/proc/self`, and are 0 where it does not exist.

/// CPU time the process has used so far, user and system, in seconds (`utime` + `stime`
/// of `/proc/self/stat`, in clock ticks of 1/100 s).
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// The process's peak resident set size, MiB (`VmHWM` of `/proc/self/status`): the
/// largest since it started, or since the last [`reset_peak_rss`].
pub fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|k| k.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
}

/// Sets the peak resident set size back to the current one (writes 5 to
/// `/proc/self/clear_refs`); does nothing where that cannot be written.
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_advances_and_the_process_has_a_peak() {
        let start = cpu_seconds();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut spins = 0u64;
        while cpu_seconds() <= start && std::time::Instant::now() < deadline {
            spins = std::hint::black_box(spins + 1);
        }
        assert!(cpu_seconds() > start, "no CPU time after {spins} spins");
        reset_peak_rss();
        assert!(peak_rss_mib() > 0.0);
    }
}
