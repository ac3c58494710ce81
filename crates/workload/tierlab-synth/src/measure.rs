//! What a stream achieved against its targets: the stream classified the way the planner
//! classifies a trace (`tierlab-classes`), plus the figures the classes do not carry
//! (sequentiality, inter-arrival time), side by side with the statistics file's figures.

use crate::plan::{Plan, SynthOptions};
use crate::stats::{Targets, WorkloadStats};
use crate::synth::Synth;
use crate::SynthError;
use serde::Serialize;
use std::convert::Infallible;
use tierlab_classes::{ClassConfig, Classes};
use tierlab_types::{IoRequest, GIB, KIB, NS_PER_S};

/// Counts over a request stream that the classes do not keep.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StreamStats {
    pub requests: u64,
    pub bytes: u64,
    pub reads: u64,
    /// Requests that start where the previous one (same volume) ended.
    pub sequential: u64,
    pub first_ns: u64,
    pub last_ns: u64,
    #[serde(skip)]
    prev_end: Option<(u32, u64)>,
}

impl StreamStats {
    pub fn add(&mut self, r: &IoRequest) {
        if self.requests == 0 {
            self.first_ns = r.time_ns;
        }
        self.first_ns = self.first_ns.min(r.time_ns);
        self.last_ns = self.last_ns.max(r.time_ns);
        self.requests += 1;
        self.bytes += r.len_bytes;
        self.reads += u64::from(r.op.is_read());
        if self.prev_end == Some((r.volume, r.offset_bytes)) {
            self.sequential += 1;
        }
        self.prev_end = Some((r.volume, r.end_bytes()));
    }

    /// From the first arrival to the last, seconds.
    pub fn span_s(&self) -> f64 {
        self.last_ns.saturating_sub(self.first_ns) as f64 / NS_PER_S as f64
    }
}

impl Extend<IoRequest> for StreamStats {
    fn extend<T: IntoIterator<Item = IoRequest>>(&mut self, iter: T) {
        for r in iter {
            self.add(&r);
        }
    }
}

/// A stream's figures in the statistics file's units.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Achieved {
    pub total_gb: f64,
    pub hot_gb: f64,
    /// Cold and untouched together, as the planner counts them.
    pub cold_gb: f64,
    pub cold_touched_gb: f64,
    pub untouched_gb: f64,
    pub requests: u64,
    pub span_s: f64,
    /// Bytes moved over the span from the first arrival to the last.
    pub bandwidth_kb_s: f64,
    pub interarrival_ms: f64,
    pub request_kb: f64,
    pub read_percent: f64,
    pub sequential_percent: f64,
}

impl Achieved {
    /// The figures of a stream classified into `classes` and counted into `stream`.
    pub fn measure(classes: &Classes, stream: &StreamStats) -> Achieved {
        let gb = |bytes: u64| bytes as f64 / GIB as f64;
        let (mut hot, mut cold, mut untouched) = (0u64, 0u64, 0u64);
        for c in &classes.classes {
            match c.key {
                Some(k) if k.hot => hot += c.size_bytes,
                Some(_) => cold += c.size_bytes,
                None => untouched += c.size_bytes,
            }
        }
        let span_s = stream.span_s();
        let n = stream.requests;
        let per = |x: f64| if n > 0 { x / n as f64 } else { 0.0 };
        Achieved {
            total_gb: gb(hot + cold + untouched),
            hot_gb: gb(hot),
            cold_gb: gb(cold + untouched),
            cold_touched_gb: gb(cold),
            untouched_gb: gb(untouched),
            requests: n,
            span_s,
            bandwidth_kb_s: if span_s > 0.0 {
                stream.bytes as f64 / KIB as f64 / span_s
            } else {
                0.0
            },
            interarrival_ms: if n > 1 {
                span_s * 1000.0 / (n - 1) as f64
            } else {
                0.0
            },
            request_kb: per(stream.bytes as f64 / KIB as f64),
            read_percent: per(stream.reads as f64) * 100.0,
            sequential_percent: per(stream.sequential as f64) * 100.0,
        }
    }
}

/// One "target vs achieved" line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparisonRow {
    /// The statistics file's key (`hot_gb`, `bandwidth_kb_s`, …).
    pub key: &'static str,
    /// What it is, for a table (`hot`, `cold + untouched`, …).
    pub label: &'static str,
    pub unit: &'static str,
    pub target: f64,
    pub achieved: f64,
}

impl ComparisonRow {
    /// (achieved - target) / target, percent; 0 when both are 0, infinite when only the
    /// target is.
    pub fn deviation_percent(&self) -> f64 {
        if self.target == 0.0 {
            if self.achieved == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (self.achieved - self.target) / self.target * 100.0
        }
    }
}

/// Target and achieved figures side by side: footprint, bandwidth, inter-arrival time,
/// request size, read share, and sequentiality where the statistics give it.
pub fn compare(targets: &Targets, achieved: &Achieved) -> Vec<ComparisonRow> {
    let row = |key, label, unit, target, achieved| ComparisonRow {
        key,
        label,
        unit,
        target,
        achieved,
    };
    let mut rows = vec![
        row("hot_gb", "hot", "GB", targets.hot_gb, achieved.hot_gb),
        row(
            "cold_gb",
            "cold + untouched",
            "GB",
            targets.cold_gb,
            achieved.cold_gb,
        ),
        row(
            "total_gb",
            "footprint",
            "GB",
            targets.total_gb,
            achieved.total_gb,
        ),
        row(
            "bandwidth_kb_s",
            "mean bandwidth",
            "KB/s",
            targets.bandwidth_kb_s,
            achieved.bandwidth_kb_s,
        ),
        row(
            "interarrival_ms",
            "mean inter-arrival",
            "ms",
            targets.interarrival_ms,
            achieved.interarrival_ms,
        ),
        row(
            "request_kb",
            "mean request",
            "KB",
            targets.request_kb,
            achieved.request_kb,
        ),
        row(
            "read_percent",
            "reads",
            "%",
            targets.read_percent,
            achieved.read_percent,
        ),
    ];
    if let Some(s) = targets.sequential_percent {
        rows.push(row(
            "sequential_percent",
            "sequential",
            "%",
            s,
            achieved.sequential_percent,
        ));
    }
    rows
}

/// A stream classified the way the planner classifies a trace: two passes over two
/// identical streams (the classifier's label and measure passes), and the stream's own
/// counts. `config` should be `ClassConfig::default()`, the rules the stream is made for.
pub fn classify(
    stats: &WorkloadStats,
    options: &SynthOptions,
    config: &ClassConfig,
) -> Result<(Classes, StreamStats), SynthError> {
    let mut counts = StreamStats::default();
    let first = Synth::new(stats, options)?.inspect(|r| counts.add(r));
    let Ok(labelled) = tierlab_classes::label(config, first.map(Ok::<_, Infallible>));
    let second = Synth::new(stats, options)?;
    let Ok(classes) = tierlab_classes::measure(labelled, second.map(Ok::<_, Infallible>));
    Ok((classes, counts))
}

/// A stream made, classified and compared with its targets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    pub plan: Plan,
    pub achieved: Achieved,
    pub rows: Vec<ComparisonRow>,
    pub classes: Classes,
    pub stream: StreamStats,
}

/// Make the stream of `stats` with `options`, classify it with `config` and compare it
/// with its targets.
pub fn evaluate(
    stats: &WorkloadStats,
    options: &SynthOptions,
    config: &ClassConfig,
) -> Result<Evaluation, SynthError> {
    let plan = Plan::new(stats, options)?;
    let (classes, stream) = classify(stats, options, config)?;
    let achieved = Achieved::measure(&classes, &stream);
    let rows = compare(&plan.targets, &achieved);
    Ok(Evaluation {
        plan,
        achieved,
        rows,
        classes,
        stream,
    })
}
