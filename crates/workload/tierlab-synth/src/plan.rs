//! How a stream's request budget is spent, and which targets it cannot meet.
//!
//! The classifier calls a record hot when it receives two or more requests in one aligned
//! second, so every hot record costs at least two requests; a cold record must never get
//! two in one second. The budget (rate × duration) is spent in this order:
//! 1. one burst of two requests on every hot record;
//! 2. one request on each cold record, the highest record of the footprint first (so the
//!    untouched class ends where the footprint does), as far as the budget and the
//!    file's `cold_touched_gb` reach: the rest of the cold records stay untouched, which
//!    the planner counts as cold too;
//! 3. everything left on the hot records, as further bursts (pairs by default, longer
//!    when the sequential share needs more follow-ups: a sequential request continues
//!    the previous one inside a burst).
//!
//! Where the statistics cannot all be met in the duration — hot records needing more
//! requests than the rate gives, more sequential requests than bursts can hold — the plan
//! says which target falls short, by how much, and what to change; the stream is then
//! the closest one (hot records first, then sequentiality).

use crate::stats::{Targets, WorkloadStats, RECORDS_PER_GB};
use crate::SynthError;
use serde::Serialize;
use std::fmt;
use tierlab_config::Validate;

/// Most requests a stream may hold (10^13), whatever the rate scale.
pub const MAX_STREAM_REQUESTS: f64 = 1e13;

/// What a stream is made with besides the statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SynthOptions {
    /// Seed of the ChaCha generator: same seed, same stream.
    pub seed: u64,
    /// Arrival-rate multiplier (the research's 1x-8x projection): scales the request
    /// count, and so the bandwidth, over the same duration and footprint.
    pub rate_scale: f64,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            seed: 1,
            rate_scale: 1.0,
        }
    }
}

impl SynthOptions {
    pub fn new(seed: u64) -> SynthOptions {
        SynthOptions {
            seed,
            rate_scale: 1.0,
        }
    }

    pub fn with_rate_scale(mut self, rate_scale: f64) -> SynthOptions {
        self.rate_scale = rate_scale;
        self
    }
}

/// A target the stream cannot meet, with what it reaches instead.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shortfall {
    /// The statistics file's key (`hot_gb`, `sequential_percent`, …).
    pub key: &'static str,
    pub target: f64,
    /// What the stream reaches instead, in the key's unit.
    pub reachable: f64,
    /// Why, by how much, and what to change.
    pub message: String,
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// The targets a plan cannot meet.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct Infeasible(pub Vec<Shortfall>);

impl fmt::Display for Infeasible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

/// How a stream spends its requests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    pub targets: Targets,
    /// Requests in the stream.
    pub requests: u64,
    /// Records in the footprint, hot and cold (1 MiB each).
    pub records: u64,
    pub hot_records: u64,
    pub cold_records: u64,
    /// Hot records that get a burst of two or more requests in one second.
    pub hot_records_reached: u64,
    pub hot_requests: u64,
    /// Bursts: runs of requests to one hot record, the first two in one second.
    pub hot_bursts: u64,
    pub cold_requests: u64,
    pub cold_records_touched: u64,
    pub sequential_requests: u64,
    pub read_requests: u64,
    /// The targets this plan cannot meet (empty: all of them).
    pub shortfalls: Vec<Shortfall>,
}

impl Plan {
    /// The stream's plan for `stats` at `options.rate_scale`.
    pub fn new(stats: &WorkloadStats, options: &SynthOptions) -> Result<Plan, SynthError> {
        stats.validate().map_err(SynthError::Stats)?;
        let scale = options.rate_scale;
        if !(scale.is_finite() && scale > 0.0 && scale <= 1e6) {
            return Err(SynthError::RateScale(scale));
        }
        let wanted = stats.requests(scale);
        if wanted > MAX_STREAM_REQUESTS {
            return Err(SynthError::TooManyRequests(wanted));
        }
        let r = wanted as u64;
        let n = stats.records();
        let nh = stats.hot_records();
        let nc = n - nh;
        let mut shortfalls = Vec::new();
        let iops = r as f64 / stats.duration_s;
        if r == 0 {
            shortfalls.push(Shortfall {
                key: "duration_s",
                target: stats.duration_s,
                reachable: 0.0,
                message: format!(
                    "the stream would hold no request ({:.4} requests/s for {} s); lengthen duration_s to at least {:.0} s or raise the rate",
                    stats.base_iops() * scale,
                    stats.duration_s,
                    0.5 / (stats.base_iops() * scale).max(f64::MIN_POSITIVE)
                ),
            });
        }
        // The highest record is cold whenever there are cold records; one request
        // touches it so that the untouched class ends where the footprint does.
        let cold_min = u64::from(nc > 0 && r > 0);
        let s_want = stats
            .sequential_percent
            .map_or(0, |p| (p / 100.0 * r as f64).round() as u64);
        let (mut h, mut c);
        if nh == 0 {
            h = 0;
            c = r;
        } else if r.saturating_sub(cold_min) < 2 * nh {
            c = cold_min;
            h = r - c;
        } else {
            c = stats.cold_touchable_records().min(r - 2 * nh).max(cold_min);
            h = r - c;
            if h - nh < s_want {
                h = (s_want + nh).min(r - cold_min);
                c = r - h;
            }
        }
        let (v, s) = if h == 0 {
            (0, 0)
        } else if h < 2 * nh {
            let v = (h / 2).max(1);
            (v, s_want.min(h - v))
        } else {
            let s = s_want.min(h - nh);
            (nh.max((h / 2).min(h - s)), s)
        };
        // Bursts of two or more make their record hot; the first `v` visits cover
        // distinct hot records.
        let reached = if h >= 2 * v { v.min(nh) } else { 0 };
        if reached < nh {
            let reached_gb = reached as f64 / RECORDS_PER_GB;
            let need = 2 * nh + cold_min;
            shortfalls.push(Shortfall {
                key: "hot_gb",
                target: stats.hot_gb,
                reachable: reached_gb,
                message: format!(
                    "{} GB of hot records need {} requests (two in one second on each of {} records{}), but the stream holds {} ({:.4} requests/s for {} s): {:.3} GB ({:.1} %) can be made hot. Lengthen duration_s to at least {:.0} s, or raise the rate {:.3}x",
                    stats.hot_gb,
                    need,
                    nh,
                    if cold_min > 0 { ", and one for the highest cold record" } else { "" },
                    r,
                    iops,
                    stats.duration_s,
                    reached_gb,
                    reached as f64 / nh as f64 * 100.0,
                    (stats.duration_s * need as f64 / r.max(1) as f64).ceil(),
                    need as f64 / r.max(1) as f64,
                ),
            });
        }
        if let Some(p) = stats.sequential_percent {
            if s < s_want && r > 0 {
                let reach = s as f64 / r as f64 * 100.0;
                shortfalls.push(Shortfall {
                    key: "sequential_percent",
                    target: p,
                    reachable: reach,
                    message: format!(
                        "{p} % of {r} requests is {s_want} sequential requests; they are made inside bursts on hot records, which can hold {s} ({reach:.2} %, {:.2} points short). {}",
                        p - reach,
                        if nh == 0 {
                            "The file has no hot records: give hot_gb"
                        } else {
                            "More hot records, or more requests, would hold more"
                        }
                    ),
                });
            }
        }
        // Cold records visited more than once (only when nothing is hot) must not get
        // two requests in one second: at most `nc` cold requests fit in a second.
        let peak_iops =
            stats.base_iops() * scale * stats.rate.as_ref().map_or(1.0, |g| g.factor.max(1.0));
        if c > nc && peak_iops > nc as f64 {
            let bw = stats.targets(scale).bandwidth_kb_s;
            let reach = bw * (nc as f64 / peak_iops);
            shortfalls.push(Shortfall {
                key: "bandwidth_kb_s",
                target: bw,
                reachable: reach,
                message: format!(
                    "with no hot records, the {nc} cold records can take at most {nc} requests in one second and stay cold, but the stream arrives at up to {peak_iops:.1} requests/s: requests beyond are deferred to the next second, which lowers the bandwidth towards {reach:.1} KB/s. Give hot_gb, or a larger footprint",
                ),
            });
        }
        let read_requests = (stats.read_percent / 100.0 * r as f64).round() as u64;
        Ok(Plan {
            targets: stats.targets(scale),
            requests: r,
            records: n,
            hot_records: nh,
            cold_records: nc,
            hot_records_reached: reached,
            hot_requests: h,
            hot_bursts: v,
            cold_requests: c,
            cold_records_touched: c.min(nc),
            sequential_requests: s,
            read_requests: read_requests.min(r),
            shortfalls,
        })
    }

    /// `Ok` when the stream meets every target the plan can foresee, else the shortfalls.
    pub fn check(&self) -> Result<(), Infeasible> {
        if self.shortfalls.is_empty() {
            Ok(())
        } else {
            Err(Infeasible(self.shortfalls.clone()))
        }
    }
}

/// The plan of the stream `stats` and `options` make (see [`Plan::new`]).
pub fn plan(stats: &WorkloadStats, options: &SynthOptions) -> Result<Plan, SynthError> {
    Plan::new(stats, options)
}
