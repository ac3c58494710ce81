//! Options shared by the commands that read a trace.

use anyhow::{anyhow, Context, Result};
use clap::Args;
use std::path::Path;
use tierlab_trace::{Format, ReadOptions, TraceReader};
use tierlab_types::NS_PER_S;

#[derive(Args, Clone, Debug, Default)]
pub struct TraceInput {
    /// Trace format; detected from the content when absent (`tierlab trace formats` lists them).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Reorder requests whose timestamps run backwards (within a bounded window) instead of
    /// stopping with an error.
    #[arg(long)]
    pub sort: bool,
    /// Keep only requests to this volume (repeatable).
    #[arg(long = "volume", value_name = "ID")]
    pub volumes: Vec<u32>,
    /// Skip requests before this many seconds into the trace.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub start_s: f64,
    /// Stop at this many seconds into the trace.
    #[arg(long, value_name = "SECONDS")]
    pub end_s: Option<f64>,
    /// Replay this many times faster (times are divided by it).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub speed: f64,
    /// Read at most this many requests.
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
}

fn seconds_to_ns(s: f64, flag: &str) -> Result<u64> {
    if !s.is_finite() || s < 0.0 {
        return Err(anyhow!("--{flag}: expected a non-negative number of seconds, found {s}"));
    }
    Ok((s * NS_PER_S as f64).round() as u64)
}

impl TraceInput {
    pub fn read_options(&self) -> Result<ReadOptions> {
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(anyhow!("--speed: expected a positive factor, found {}", self.speed));
        }
        Ok(ReadOptions {
            format: self.format,
            volumes: (!self.volumes.is_empty()).then(|| self.volumes.clone()),
            start_ns: seconds_to_ns(self.start_s, "start-s")?,
            end_ns: self.end_s.map(|s| seconds_to_ns(s, "end-s")).transpose()?,
            speed: self.speed,
            sort: self.sort,
            max_requests: self.max_requests,
            ..ReadOptions::default()
        })
    }

    pub fn open(&self, path: &Path) -> Result<TraceReader> {
        let opts = self.read_options()?;
        tierlab_trace::open(path, &opts).with_context(|| format!("cannot read trace {}", path.display()))
    }
}


/// `512`, `4K`, `64KiB`, `1M`, `2G`: bytes.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let n: u64 = num.parse().map_err(|_| format!("expected a size such as 65536, 64K or 2G, found `{s}`"))?;
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        u => return Err(format!("unknown unit `{u}` in `{s}` (expected K, M, G or T)")),
    };
    n.checked_mul(mult).ok_or_else(|| format!("`{s}` is too large"))
}

