//! Crash injection for the crash tests: `TIERLAB_CRASH_AT=point:n[,point:n…]` kills the
//! process with SIGKILL the n-th time execution reaches `point`; for the points that write
//! metadata (`torn-journal`, `torn-checkpoint`) only part of the write is issued first.
//! Unset (the normal case) it costs one relaxed load per point.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Every point the drive can stop at, for tests and `--help`.
pub const POINTS: &[&str] = &[
    "after-data-write",
    "mid-copy",
    "after-copy",
    "before-commit",
    "torn-journal",
    "after-journal-ssd",
    "torn-checkpoint",
    "after-commit",
];

struct Plan {
    targets: Vec<(String, u64)>,
    counts: Vec<AtomicU64>,
}

fn plan() -> Option<&'static Plan> {
    static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
    PLAN.get_or_init(|| {
        let spec = std::env::var("TIERLAB_CRASH_AT").ok()?;
        let targets: Vec<(String, u64)> = spec
            .split(',')
            .filter_map(|t| {
                let (p, n) = t.split_once(':').unwrap_or((t, "1"));
                Some((p.trim().to_string(), n.trim().parse().ok()?))
            })
            .collect();
        let counts = targets.iter().map(|_| AtomicU64::new(0)).collect();
        Some(Plan { targets, counts })
    })
    .as_ref()
}

/// Whether this arrival at `point` is the one to crash at.
pub fn due(point: &str) -> bool {
    let Some(p) = plan() else { return false };
    p.targets.iter().zip(&p.counts).any(|((name, n), c)| name == point && c.fetch_add(1, Ordering::Relaxed) + 1 == *n)
}

/// Die now, as a power cut would stop the process: no destructors, no flushing.
pub fn die() -> ! {
    // SAFETY: kill and getpid have no memory-safety preconditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}

/// Crash here if the plan says so.
pub fn point(name: &str) {
    if due(name) {
        die();
    }
}
