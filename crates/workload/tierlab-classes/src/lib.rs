//! Workload characterisation into data classes, as HybridStore's capacity planner
//! (MixPlan; Kim, PhD dissertation, Penn State 2009, section 4.5.2) takes a workload in.
//!
//! The address space is cut into fixed records (1 MB: the research's choice, for the
//! disk's read-ahead). Each record a trace touches is labelled:
//! - **hot** when its request rate exceeds a threshold (the research: 1 IOPS) in some
//!   window of the trace (default one second: two requests in the same second make a
//!   record hot), else **cold**. The research judges records by their peak rate ("average
//!   values of the arrival rates are not adequate"), and its own numbers rule out the mean
//!   over the span: Table 4.3's Financial has 114 GB hot at about 2,696 IOPS in all, where
//!   116,736 records each above 1 IOPS on average would need 116,736 IOPS. A window of 0
//!   takes the mean over the whole span instead;
//! - **read** or **write** by the majority of its requests;
//! - a **request-size bin** by its mean request size (edges settable; default 4, 16 and
//!   64 KiB: four bins, 0 = smallest);
//! - with the 33-class taxonomy, an **intensity bin** by its peak one-second request rate:
//!   above the median of the touched records' peaks is 1, else 0.
//!
//! Records with the same label form a class; records never touched below the highest
//! touched one of their volume form the "untouched" class. 2 × 2 × 4 (× 2) + 1 = 17 (33)
//! classes, the research's counts. Each class carries its size S_j, its request count,
//! read share and mean request size, and F_j: the 95th percentile of its bandwidth
//! measured every second of the trace's span (idle seconds count as zero, as the
//! research's "95th percentile of the per-second bandwidth" reads; a class busy in fewer
//! than 5 % of the seconds has F_j = 0, and its mean bandwidth is given beside it).
//! These are the research's rules where it states them; the record's R/W majority by
//! request count, the size bins by mean request size, the hot window (one second) and the intensity edge (the median peak) are tierlab's choices, each settable.
//!
//! Two passes over the trace (the caller opens it twice): the first labels the records,
//! the second measures each class's per-second bandwidth. Memory grows with the number of
//! records touched, never with the trace's length. Requests are taken in time order; a
//! trace slightly out of order should be read with `--sort`.

use hdrhistogram::Histogram;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use tierlab_types::{IoRequest, Op, NS_PER_S};

/// How records are cut and labelled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassConfig {
    pub record_bytes: u64,
    /// A record is hot above this IOPS in some window.
    pub hot_iops: f64,
    /// The window, seconds, aligned to whole multiples of it; 0 is the whole span.
    pub hot_window_s: u64,
    /// Upper edges of the request-size bins but the last, bytes, increasing.
    pub size_edges_bytes: Vec<u64>,
    /// 1 (17 classes) or 2 (33 classes).
    pub intensity_bins: u8,
}

impl Default for ClassConfig {
    /// The research's 1 MB records and 1 IOPS (peak one-second rate), four size bins, the
    /// 17-class taxonomy.
    fn default() -> Self {
        ClassConfig {
            record_bytes: 1 << 20,
            hot_iops: 1.0,
            hot_window_s: 1,
            size_edges_bytes: vec![4 << 10, 16 << 10, 64 << 10],
            intensity_bins: 1,
        }
    }
}

impl ClassConfig {
    /// The problem with the settings, naming the setting.
    pub fn check(&self) -> Result<(), String> {
        if self.record_bytes == 0 || !self.record_bytes.is_multiple_of(512) {
            return Err(format!(
                "record size: expected a positive multiple of 512 bytes, found {}",
                self.record_bytes
            ));
        }
        if !(self.hot_iops.is_finite() && self.hot_iops >= 0.0) {
            return Err(format!(
                "hot threshold: expected IOPS >= 0, found {}",
                self.hot_iops
            ));
        }
        if self.size_edges_bytes.windows(2).any(|w| w[0] >= w[1])
            || self.size_edges_bytes.len() > 15
        {
            return Err(format!(
                "size edges: expected up to 15 increasing sizes, found {:?}",
                self.size_edges_bytes
            ));
        }
        if !(1..=2).contains(&self.intensity_bins) {
            return Err(format!(
                "intensity bins: expected 1 (17 classes) or 2 (33 classes), found {}",
                self.intensity_bins
            ));
        }
        Ok(())
    }

    fn size_bin(&self, mean_request_bytes: f64) -> u8 {
        self.size_edges_bytes
            .iter()
            .take_while(|&&e| mean_request_bytes > e as f64)
            .count() as u8
    }
}

/// A class's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ClassKey {
    pub hot: bool,
    pub write: bool,
    pub size_bin: u8,
    pub intensity_bin: u8,
}

impl ClassKey {
    /// `H-W-s2-i1` style: hot or cold, read or write, size bin, intensity bin.
    pub fn label(&self) -> String {
        format!(
            "{}-{}-s{}-i{}",
            if self.hot { 'H' } else { 'C' },
            if self.write { 'W' } else { 'R' },
            self.size_bin,
            self.intensity_bin
        )
    }
}

/// One data class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DataClass {
    /// `None` for the untouched space.
    pub key: Option<ClassKey>,
    pub label: String,
    pub records: u64,
    /// S_j.
    pub size_bytes: u64,
    pub requests: u64,
    pub read_fraction: f64,
    pub mean_request_bytes: f64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// F_j: 95th percentile of the per-second bandwidth over the span, bytes/s.
    pub bandwidth_p95_bytes_s: f64,
    pub bandwidth_mean_bytes_s: f64,
}

/// A trace characterised.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Classes {
    pub config: ClassConfig,
    pub requests: u64,
    pub span_s: f64,
    pub records_touched: u64,
    /// Intensity edge: the median peak one-second request rate of touched records.
    pub intensity_edge_iops: Option<f64>,
    /// Every class of the taxonomy, untouched last, empty ones included.
    pub classes: Vec<DataClass>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Record {
    requests: u64,
    writes: u64,
    bytes: u64,
    // Seconds and windows as u32 (136 years of a trace's clock): 48 bytes a record, so
    // more of a large map stays in cache.
    second: u32,
    in_second: u32,
    peak_iops: u32,
    window: u32,
    in_window: u32,
    peak_in_window: u32,
}

/// The records a request touches, with the bytes it moves in each.
fn pieces(r: &IoRequest, record_bytes: u64) -> impl Iterator<Item = (u64, u64)> + use<> {
    let offset = r.offset_bytes;
    let end = offset.saturating_add(r.len_bytes.max(1));
    let first = offset / record_bytes;
    let last = (end - 1) / record_bytes;
    (first..=last).map(move |i| {
        let lo = (i * record_bytes).max(offset);
        let hi = ((i + 1).saturating_mul(record_bytes)).min(end);
        (i, hi - lo)
    })
}

/// The state between the passes: every touched record and its class.
pub struct Labelled {
    config: ClassConfig,
    requests: u64,
    first_ns: u64,
    last_ns: u64,
    records: HashMap<(u32, u64), ClassKey>,
    untouched_records: u64,
    intensity_edge_iops: Option<f64>,
}

impl Labelled {
    pub fn config(&self) -> &ClassConfig {
        &self.config
    }

    /// The labelled trace's requests, and its first and last arrival times, ns.
    pub fn arrivals(&self) -> (u64, u64, u64) {
        (self.requests, self.first_ns, self.last_ns)
    }

    /// The class of record `record` (offset / record size) of `volume`; `None` for a
    /// record the trace never touched.
    pub fn class_of(&self, volume: u32, record: u64) -> Option<ClassKey> {
        self.records.get(&(volume, record)).copied()
    }

    /// Every touched record with its class, in no particular order.
    pub fn records(&self) -> impl Iterator<Item = ((u32, u64), ClassKey)> + '_ {
        self.records.iter().map(|(&k, &v)| (k, v))
    }
}

/// First pass: label every touched record.
pub fn label<E>(
    config: &ClassConfig,
    trace: impl Iterator<Item = Result<IoRequest, E>>,
) -> Result<Labelled, E> {
    let mut records: HashMap<(u32, u64), Record> = HashMap::default();
    let (mut requests, mut first_ns, mut last_ns) = (0u64, u64::MAX, 0u64);
    for r in trace {
        let r = r?;
        requests += 1;
        first_ns = first_ns.min(r.time_ns);
        last_ns = last_ns.max(r.time_ns);
        let second_u64 = r.time_ns / NS_PER_S;
        let window = u32::try_from(second_u64 / config.hot_window_s.max(1)).unwrap_or(u32::MAX);
        let second = u32::try_from(second_u64).unwrap_or(u32::MAX);
        for (i, bytes) in pieces(&r, config.record_bytes) {
            let rec = records.entry((r.volume, i)).or_default();
            if rec.requests == 0 || rec.second != second {
                rec.second = second;
                rec.in_second = 0;
            }
            if rec.requests == 0 || rec.window != window {
                rec.window = window;
                rec.in_window = 0;
            }
            rec.in_second = rec.in_second.saturating_add(1);
            rec.in_window = rec.in_window.saturating_add(1);
            rec.peak_iops = rec.peak_iops.max(rec.in_second);
            rec.peak_in_window = rec.peak_in_window.max(rec.in_window);
            rec.requests += 1;
            rec.writes += u64::from(r.op == Op::Write);
            rec.bytes += bytes;
        }
    }
    if requests == 0 {
        first_ns = 0;
    }
    let span_s = ((last_ns - first_ns) as f64 / NS_PER_S as f64).max(1.0);
    let intensity_edge_iops = (config.intensity_bins == 2 && !records.is_empty()).then(|| {
        let mut peaks: Vec<u32> = records.values().map(|r| r.peak_iops).collect();
        peaks.sort_unstable();
        f64::from(peaks[(peaks.len() - 1) / 2])
    });
    // Untouched: records below each volume's highest touched one that no request touched.
    let mut highest: HashMap<u32, u64> = HashMap::default();
    let mut per_volume: HashMap<u32, u64> = HashMap::default();
    for &(v, i) in records.keys() {
        let h = highest.entry(v).or_default();
        *h = (*h).max(i);
        *per_volume.entry(v).or_default() += 1;
    }
    let untouched_records = highest.iter().map(|(v, h)| h + 1 - per_volume[v]).sum();
    let labelled = records
        .into_iter()
        .map(|(k, r)| {
            let key = ClassKey {
                hot: match config.hot_window_s {
                    0 => r.requests as f64 / span_s > config.hot_iops,
                    w => f64::from(r.peak_in_window) / w as f64 > config.hot_iops,
                },
                write: r.writes * 2 > r.requests,
                size_bin: config.size_bin(r.bytes as f64 / r.requests as f64),
                intensity_bin: intensity_edge_iops
                    .map_or(0, |edge| u8::from(f64::from(r.peak_iops) > edge)),
            };
            (k, key)
        })
        .collect();
    Ok(Labelled {
        config: config.clone(),
        requests,
        first_ns,
        last_ns,
        records: labelled,
        untouched_records,
        intensity_edge_iops,
    })
}

#[derive(Default)]
struct Measure {
    records: u64,
    requests: u64,
    reads: u64,
    read_bytes: u64,
    write_bytes: u64,
    second: Option<u64>,
    in_second: u64,
    seconds_recorded: u64,
    per_second: Option<Histogram<u64>>,
    /// The last request counted (1-based), so a request across records counts once.
    last_request: u64,
}

impl Measure {
    fn flush(&mut self) {
        if self.second.is_some() {
            if let Some(h) = self.per_second.as_mut() {
                // Saturates at the histogram's top (2^50 B/s) rather than failing.
                let _ = h.record(self.in_second.min(h.high()));
            }
            self.seconds_recorded += 1;
        }
        self.in_second = 0;
    }
}

/// Second pass: measure each class over the same trace, and list the classes.
pub fn measure<E>(
    l: Labelled,
    trace: impl Iterator<Item = Result<IoRequest, E>>,
) -> Result<Classes, E> {
    let cfg = &l.config;
    let mut keys: Vec<ClassKey> = Vec::new();
    for hot in [true, false] {
        for write in [false, true] {
            for size_bin in 0..=cfg.size_edges_bytes.len() as u8 {
                for intensity_bin in (0..cfg.intensity_bins).rev() {
                    keys.push(ClassKey {
                        hot,
                        write,
                        size_bin,
                        intensity_bin,
                    });
                }
            }
        }
    }
    let mut m: HashMap<ClassKey, Measure> = keys
        .iter()
        .map(|&k| {
            (
                k,
                Measure {
                    per_second: Histogram::new_with_bounds(1, 1 << 50, 3).ok(),
                    ..Measure::default()
                },
            )
        })
        .collect();
    for key in l.records.values() {
        if let Some(c) = m.get_mut(key) {
            c.records += 1;
        }
    }
    let mut request = 0u64;
    for r in trace {
        let r = r?;
        request += 1;
        let second = r.time_ns / NS_PER_S;
        for (i, bytes) in pieces(&r, cfg.record_bytes) {
            let Some(key) = l.records.get(&(r.volume, i)) else {
                continue;
            };
            let Some(c) = m.get_mut(key) else { continue };
            if c.second != Some(second) {
                c.flush();
                c.second = Some(second);
            }
            c.in_second += bytes;
            if r.op == Op::Write {
                c.write_bytes += bytes;
            } else {
                c.read_bytes += bytes;
            }
            if c.last_request != request {
                c.last_request = request;
                c.requests += 1;
                c.reads += u64::from(r.op != Op::Write);
            }
        }
    }
    let span_s = (l.last_ns.saturating_sub(l.first_ns) as f64 / NS_PER_S as f64).max(1.0);
    let seconds = (l.last_ns / NS_PER_S).saturating_sub(l.first_ns / NS_PER_S) + 1;
    let mut classes: Vec<DataClass> = keys
        .iter()
        .map(|k| {
            let mut c = m.remove(k).unwrap_or_default();
            c.flush();
            let zeros = seconds.saturating_sub(c.seconds_recorded);
            let p95 = c.per_second.as_mut().map_or(0.0, |h| {
                if zeros > 0 {
                    let _ = h.record_n(0, zeros);
                }
                if h.is_empty() {
                    0.0
                } else {
                    h.value_at_quantile(0.95) as f64
                }
            });
            let bytes = c.read_bytes + c.write_bytes;
            DataClass {
                key: Some(*k),
                label: k.label(),
                records: c.records,
                size_bytes: c.records * cfg.record_bytes,
                requests: c.requests,
                read_fraction: if c.requests > 0 {
                    c.reads as f64 / c.requests as f64
                } else {
                    0.0
                },
                mean_request_bytes: if c.requests > 0 {
                    bytes as f64 / c.requests as f64
                } else {
                    0.0
                },
                read_bytes: c.read_bytes,
                write_bytes: c.write_bytes,
                bandwidth_p95_bytes_s: p95,
                bandwidth_mean_bytes_s: bytes as f64 / span_s,
            }
        })
        .collect();
    classes.push(DataClass {
        key: None,
        label: "untouched".into(),
        records: l.untouched_records,
        size_bytes: l.untouched_records * cfg.record_bytes,
        requests: 0,
        read_fraction: 0.0,
        mean_request_bytes: 0.0,
        read_bytes: 0,
        write_bytes: 0,
        bandwidth_p95_bytes_s: 0.0,
        bandwidth_mean_bytes_s: 0.0,
    });
    Ok(Classes {
        config: cfg.clone(),
        requests: l.requests,
        span_s,
        records_touched: l.records.len() as u64,
        intensity_edge_iops: l.intensity_edge_iops,
        classes,
    })
}
