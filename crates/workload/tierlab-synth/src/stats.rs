//! A workload's published statistics as a file (`catalog/workloads/<id>.toml`), their
//! checks, and the targets a synthesised stream is measured against.
//!
//! Units are in the key names: GB are 2^30 bytes (1,024 records of 1 MiB), KB are 1,024
//! bytes. Every figure either comes from the document `source` names or is listed in
//! `estimates`, with the reason in `assumptions` (an entry starting `"<key>: "`).

use crate::rate::RateRegions;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use tierlab_config::{ConfigError, FieldError, Validate};
use tierlab_types::{MIB, SECTOR_BYTES};

/// Bytes in one record, the unit of the hot/cold classification (1 MiB).
pub const RECORD_BYTES: u64 = MIB;
/// Records in one GB (2^30 bytes).
pub const RECORDS_PER_GB: f64 = 1024.0;
/// Largest footprint accepted, GB (1 PiB): more is taken for a unit mistake.
pub const MAX_TOTAL_GB: f64 = 1_048_576.0;
/// Longest stream accepted, seconds (ten years).
pub const MAX_DURATION_S: f64 = 315_576_000.0;
/// Most requests a file may describe at its own rate (10^12): more is a unit mistake.
pub const MAX_REQUESTS: f64 = 1e12;
/// Largest gap between hot + cold and the total, as a fraction of the total.
pub const GB_TOLERANCE: f64 = 0.005;

/// Keys that `estimates` may list.
pub const ESTIMABLE_KEYS: [&str; 14] = [
    "total_gb",
    "hot_gb",
    "cold_gb",
    "cold_touched_gb",
    "bandwidth_kb_s",
    "interarrival_ms",
    "request_kb",
    "read_percent",
    "sequential_percent",
    "duration_s",
    "rate",
    "rate.factor",
    "rate.period_s",
    "rate.duty",
];

/// A workload's statistics, as published, plus the figures tierlab chose to make a
/// stream of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadStats {
    /// Lower-case id (`a-z`, `0-9`, `-`, `.`), also the file's name.
    pub id: String,
    pub description: String,
    /// Key of `sources` the figures come from.
    pub source: String,
    /// Keys whose values are tierlab's choice rather than the source's.
    #[serde(default)]
    pub estimates: Vec<String>,
    /// Reasons: one entry per estimated key, starting `"<key>: "`, and any reading of
    /// the source a user should know.
    #[serde(default)]
    pub assumptions: Vec<String>,
    /// Footprint, GB (2^30 bytes).
    pub total_gb: f64,
    /// Records with more than one request in some aligned second, GB.
    pub hot_gb: f64,
    /// The rest of the footprint, GB (touched or not: the planner counts both as cold).
    pub cold_gb: f64,
    /// The cold GB the stream touches, once each, as far as the request budget reaches;
    /// the rest of `cold_gb` is never read or written. Not given: all of `cold_gb`.
    #[serde(default)]
    pub cold_touched_gb: Option<f64>,
    /// Mean bandwidth, KB/s (1 KB = 1,024 bytes); exactly one of this and
    /// `interarrival_ms`.
    #[serde(default)]
    pub bandwidth_kb_s: Option<f64>,
    /// Mean time between request arrivals, ms.
    #[serde(default)]
    pub interarrival_ms: Option<f64>,
    /// Mean request size, KB.
    pub request_kb: f64,
    /// Share of requests that read, percent.
    pub read_percent: f64,
    /// Share of requests that start where the previous one ended, percent.
    #[serde(default)]
    pub sequential_percent: Option<f64>,
    /// How long a stream to make, seconds.
    pub duration_s: f64,
    /// Alternating regions of a raised arrival rate.
    #[serde(default)]
    pub rate: Option<RateRegions>,
    #[serde(default)]
    pub notes: Option<String>,
    /// Every document cited, once, under a short key.
    pub sources: BTreeMap<String, String>,
}

fn check_id(id: &str) -> Result<(), FieldError> {
    if !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
    {
        Ok(())
    } else {
        Err(FieldError::new(
            "id",
            format!("expected lower-case letters, digits, `-` and `.`, found `{id}`"),
        ))
    }
}

fn check_source(sources: &BTreeMap<String, String>, key: &str, s: &str) -> Result<(), FieldError> {
    if sources.contains_key(s) {
        return Ok(());
    }
    let known: Vec<&str> = sources.keys().map(String::as_str).collect();
    Err(FieldError::new(
        key,
        format!(
            "expected a key of [sources] ({}), found `{s}`",
            if known.is_empty() {
                "none given".to_string()
            } else {
                known.join(", ")
            }
        ),
    ))
}

/// `v` finite and within `lo..=hi` (`lo` excluded when `open_lo`).
fn check_range(
    key: &str,
    v: f64,
    lo: f64,
    open_lo: bool,
    hi: f64,
    what: &str,
) -> Result<(), FieldError> {
    let low_ok = if open_lo { v > lo } else { v >= lo };
    if v.is_finite() && low_ok && v <= hi {
        Ok(())
    } else {
        let low = if open_lo { "above" } else { "at least" };
        Err(FieldError::new(
            key,
            format!("expected {what} {low} {lo} and at most {hi}, found {v}"),
        ))
    }
}

impl Validate for WorkloadStats {
    fn validate(&self) -> Result<(), FieldError> {
        check_id(&self.id)?;
        if self.description.trim().is_empty() {
            return Err(FieldError::new(
                "description",
                "expected a description, found an empty one",
            ));
        }
        check_source(&self.sources, "source", &self.source)?;
        let one_record_gb = 1.0 / RECORDS_PER_GB;
        check_range(
            "total_gb",
            self.total_gb,
            one_record_gb,
            false,
            MAX_TOTAL_GB,
            "a footprint in GB (2^30 bytes; one 1 MiB record is 1/1024)",
        )?;
        check_range("hot_gb", self.hot_gb, 0.0, false, MAX_TOTAL_GB, "GB")?;
        check_range("cold_gb", self.cold_gb, 0.0, false, MAX_TOTAL_GB, "GB")?;
        if let Some(t) = self.cold_touched_gb {
            check_range(
                "cold_touched_gb",
                t,
                0.0,
                false,
                self.cold_gb,
                "GB of cold_gb",
            )?;
        }
        let sum = self.hot_gb + self.cold_gb;
        if (sum - self.total_gb).abs() > GB_TOLERANCE * self.total_gb {
            return Err(FieldError::new(
                "total_gb",
                format!(
                    "expected hot_gb + cold_gb = total_gb within {} %, found {} + {} = {} against {} (off by {:.2} %)",
                    GB_TOLERANCE * 100.0,
                    self.hot_gb,
                    self.cold_gb,
                    sum,
                    self.total_gb,
                    (sum - self.total_gb) / self.total_gb * 100.0
                ),
            ));
        }
        let max_request_kb = RECORD_BYTES as f64 / 1024.0;
        check_range(
            "request_kb",
            self.request_kb,
            SECTOR_BYTES as f64 / 1024.0,
            false,
            max_request_kb,
            "a mean request size in KB (one 512-byte sector to one 1 MiB record)",
        )?;
        match (self.bandwidth_kb_s, self.interarrival_ms) {
            (Some(_), Some(_)) => {
                return Err(FieldError::new(
                    "interarrival_ms",
                    "expected either bandwidth_kb_s or interarrival_ms, found both: keep the one the source gives",
                ))
            }
            (None, None) => {
                return Err(FieldError::new(
                    "bandwidth_kb_s",
                    "expected bandwidth_kb_s (mean KB/s) or interarrival_ms (mean ms between arrivals), found neither",
                ))
            }
            (Some(bw), None) => check_range("bandwidth_kb_s", bw, 0.0, true, 1e9, "a mean bandwidth in KB/s")?,
            (None, Some(ia)) => check_range("interarrival_ms", ia, 0.0, true, 1e9, "a mean inter-arrival time in ms")?,
        }
        check_range(
            "read_percent",
            self.read_percent,
            0.0,
            false,
            100.0,
            "a percentage",
        )?;
        if let Some(s) = self.sequential_percent {
            check_range("sequential_percent", s, 0.0, false, 100.0, "a percentage")?;
        }
        check_range(
            "duration_s",
            self.duration_s,
            1.0,
            false,
            MAX_DURATION_S,
            "a duration in seconds",
        )?;
        if let Some(r) = &self.rate {
            r.validate().map_err(|e| e.within("rate"))?;
            if let Some(s) = &r.source {
                check_source(&self.sources, "rate.source", s)?;
            }
        }
        let requests = self.base_iops() * self.operational_s();
        if requests > MAX_REQUESTS {
            let key = if self.bandwidth_kb_s.is_some() {
                "bandwidth_kb_s"
            } else {
                "interarrival_ms"
            };
            return Err(FieldError::new(
                key,
                format!("the stream would hold {requests:.3e} requests (more than {MAX_REQUESTS:.0e}): check the unit"),
            ));
        }
        for (i, k) in self.estimates.iter().enumerate() {
            let key = format!("estimates[{i}]");
            if !ESTIMABLE_KEYS.contains(&k.as_str()) {
                return Err(FieldError::new(
                    key,
                    format!("expected one of {}, found `{k}`", ESTIMABLE_KEYS.join(", ")),
                ));
            }
            if !self.has_key(k) {
                return Err(FieldError::new(
                    key,
                    format!("lists `{k}`, which the file does not give"),
                ));
            }
            let prefix = format!("{k}: ");
            if !self.assumptions.iter().any(|a| a.starts_with(&prefix)) {
                return Err(FieldError::new(
                    key,
                    format!("`{k}` is an estimate without a reason: add an `assumptions` entry starting `{prefix}`"),
                ));
            }
        }
        Ok(())
    }
}

impl WorkloadStats {
    /// Read and check a statistics file; errors name the file, line and key.
    pub fn load(path: &Path) -> Result<WorkloadStats, ConfigError> {
        tierlab_config::load_toml_validated(path)
    }

    /// Parse and check statistics given as text; `file_name` is used in errors.
    pub fn parse(text: &str, file_name: &str) -> Result<WorkloadStats, ConfigError> {
        tierlab_config::parse_toml_validated(text, file_name)
    }

    fn has_key(&self, k: &str) -> bool {
        match k {
            "bandwidth_kb_s" => self.bandwidth_kb_s.is_some(),
            "interarrival_ms" => self.interarrival_ms.is_some(),
            "sequential_percent" => self.sequential_percent.is_some(),
            "cold_touched_gb" => self.cold_touched_gb.is_some(),
            "rate" | "rate.factor" | "rate.period_s" | "rate.duty" => self.rate.is_some(),
            _ => true,
        }
    }

    /// Mean request arrival rate outside raised-rate regions, at 1x, requests/s.
    pub fn base_iops(&self) -> f64 {
        match (self.bandwidth_kb_s, self.interarrival_ms) {
            (Some(bw), _) => bw / self.request_kb,
            (None, Some(ia)) => 1000.0 / ia,
            (None, None) => 0.0,
        }
    }

    /// The duration weighted by the arrival rate relative to the base rate: seconds of
    /// base-rate arrivals the stream holds.
    pub fn operational_s(&self) -> f64 {
        self.rate
            .as_ref()
            .map_or(self.duration_s, |r| r.operational_s(self.duration_s))
    }

    /// Records in the footprint.
    pub fn records(&self) -> u64 {
        ((self.total_gb * RECORDS_PER_GB).round() as u64).max(1)
    }

    /// Hot records (never more than the footprint's).
    pub fn hot_records(&self) -> u64 {
        ((self.hot_gb * RECORDS_PER_GB).round() as u64).min(self.records())
    }

    /// Cold records the stream may touch: `cold_touched_gb`'s, else every cold record.
    pub fn cold_touchable_records(&self) -> u64 {
        let cold = self.records() - self.hot_records();
        self.cold_touched_gb
            .map_or(cold, |gb| ((gb * RECORDS_PER_GB).round() as u64).min(cold))
    }

    /// Requests in a stream at `rate_scale` times the file's arrival rate.
    pub fn requests(&self, rate_scale: f64) -> f64 {
        (self.base_iops() * rate_scale * self.operational_s()).round()
    }

    /// What a stream made from this file at `rate_scale` should show, in the file's
    /// units: cold GB include the untouched records.
    pub fn targets(&self, rate_scale: f64) -> Targets {
        let requests = self.requests(rate_scale);
        let iops = self.base_iops() * rate_scale * self.operational_s() / self.duration_s;
        Targets {
            total_gb: self.total_gb,
            hot_gb: self.hot_gb,
            cold_gb: self.cold_gb,
            requests: requests as u64,
            duration_s: self.duration_s,
            bandwidth_kb_s: iops * self.request_kb,
            interarrival_ms: if iops > 0.0 {
                1000.0 / iops
            } else {
                f64::INFINITY
            },
            request_kb: self.request_kb,
            read_percent: self.read_percent,
            sequential_percent: self.sequential_percent,
            rate_scale,
        }
    }
}

/// The figures a stream is to reproduce, in the statistics file's units.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Targets {
    pub total_gb: f64,
    pub hot_gb: f64,
    /// Cold and untouched records together.
    pub cold_gb: f64,
    pub requests: u64,
    pub duration_s: f64,
    /// Mean over the stream, raised-rate regions and the rate scale included.
    pub bandwidth_kb_s: f64,
    pub interarrival_ms: f64,
    pub request_kb: f64,
    pub read_percent: f64,
    pub sequential_percent: Option<f64>,
    /// The arrival-rate multiplier the stream is made at (the research's 1x-8x).
    pub rate_scale: f64,
}

/// The shipped statistics files: (path from the repository root, text).
pub fn builtin_files() -> &'static [(&'static str, &'static str)] {
    &BUILTIN
}

/// The ids of the shipped statistics files.
pub fn builtin_ids() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(p, _)| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name.strip_suffix(".toml").unwrap_or(name)
    })
}

/// A shipped statistics file by id (`hybridstore-t4.3-financial`); `None` when no file
/// has that id.
pub fn builtin(id: &str) -> Option<Result<WorkloadStats, ConfigError>> {
    BUILTIN
        .iter()
        .zip(builtin_ids())
        .find(|(_, i)| *i == id)
        .map(|((path, text), _)| WorkloadStats::parse(text, path))
}

macro_rules! builtin_files {
    ($($name:literal),* $(,)?) => {
        [$((
            concat!("catalog/workloads/", $name, ".toml"),
            include_str!(concat!("../../../../catalog/workloads/", $name, ".toml")),
        )),*]
    };
}

const BUILTIN: [(&str, &str); 19] = builtin_files!(
    "hybridstore-t4.3-financial",
    "hybridstore-t4.3-tpch",
    "hybridstore-t4.3-usr",
    "hybridstore-t4.3-proj",
    "hybridstore-t4.3-print",
    "hybridstore-t4.3-hm",
    "hybridstore-t4.3-resproj",
    "hybridstore-t4.3-proxy",
    "hybridstore-t4.3-src1",
    "hybridstore-t4.3-src2",
    "hybridstore-t4.3-webstg",
    "hybridstore-t4.3-term",
    "hybridstore-t4.3-websql",
    "hybridstore-t4.3-media",
    "hybridstore-t4.3-webdev",
    "hybridstore-t5.3-financial",
    "hybridstore-t5.3-cello99",
    "hybridstore-t5.3-tpch",
    "hybridstore-t5.3-financial-1x2x",
);
