//! Memory a run will need, estimated before it starts, against a limit the user can raise
//! (`--memory-limit`): a run that would not fit is refused with the figure, instead of
//! growing until the machine runs out.

use anyhow::{anyhow, Result};
use clap::Args;

/// The default limit.
pub const DEFAULT_LIMIT: &str = "8G";

#[derive(Args, Clone, Debug)]
pub struct MemoryArgs {
    /// Refuse a run whose estimated memory exceeds this (bytes; K/M/G/T suffixes).
    #[arg(long, value_name = "BYTES", default_value = DEFAULT_LIMIT)]
    pub memory_limit: String,
}

impl MemoryArgs {
    pub fn limit_bytes(&self) -> Result<u64> {
        crate::args::parse_bytes(&self.memory_limit).map_err(|e| anyhow!("--memory-limit: {e}"))
    }
}

/// The refusal of a run that needs `need_bytes` (of what `what` describes), more than
/// `limit_bytes`.
pub fn refusal(need_bytes: f64, what: &str, limit_bytes: u64) -> anyhow::Error {
    let need = human(need_bytes);
    let about = if need.starts_with("more") { "" } else { "about " };
    anyhow!("{what} needs {about}{need} of memory, more than the limit of {} (--memory-limit raises it)", human(limit_bytes as f64))
}

/// A large count, readably: 3.6e13.
pub fn count(n: f64) -> String {
    if !n.is_finite() {
        "unboundedly many".into()
    } else if n < 1e9 {
        format!("{n:.0}")
    } else {
        format!("{n:.1e}")
    }
}

/// `bytes` as MiB, GiB, TiB… (or "more than 16 EiB").
pub fn human(bytes: f64) -> String {
    if !bytes.is_finite() || bytes >= 16.0 * (1u64 << 60) as f64 {
        return "more than 16 EiB".into();
    }
    tierlab_report::fmt_bytes(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_refuses_with_both_figures() {
        let e = refusal(3.0 * (1u64 << 30) as f64, "the run", 1 << 30).to_string();
        assert!(e.starts_with("the run needs about 3.00 GiB") && e.contains("1.00 GiB") && e.contains("--memory-limit"), "{e}");
        assert!(refusal(f64::INFINITY, "x", 1 << 30).to_string().contains("needs more than 16 EiB"));
        assert_eq!(MemoryArgs { memory_limit: "1G".into() }.limit_bytes().unwrap(), 1 << 30);
        assert!(MemoryArgs { memory_limit: "lots".into() }.limit_bytes().is_err());
    }
}
