//! The miss-ratio-curve study behind `tierlab cache`: every replacement algorithm at every
//! cache size over one trace, in one pass (`tierlab_placement::MissRatioCurves`), from a
//! [`CacheStudyConfig`] to a [`CacheReport`]. Both are serde types, so a study can be
//! written down, run again and its report read back.
//!
//! What one cached object is follows the trace unless the configuration says: 4 KiB
//! blocks for block traces, whole sized requests for libCacheSim's object traces, and
//! requests counting one each for bare id streams. `Sizes::Auto` measures the trace's
//! footprint in a first pass and simulates ten shares of it, 0.1 % to 100 %. Before the
//! curves run, their memory is estimated (at most every object the trace touches, counted
//! in a first pass when the capacities alone would pass the limit) and a run over
//! [`CacheStudyConfig::memory_limit_bytes`] is refused with the figure. The caches' keys
//! are numbered so that they index them by arrays (`MissRatioCurves::with_key_numbering`)
//! in at most as much memory again as the caches' own estimate, 256 MiB and what the
//! limit leaves.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use tierlab_cache::Algorithm;
use tierlab_placement::{replay_trace_with_progress, CurveObjects, CurvePoint, Footprint, FootprintCounter, MissRatioCurves, PlacementError, Replay};
use tierlab_trace::{Format, ReadOptions, TraceReader};
use tierlab_types::NS_PER_S;

/// The algorithms simulated when none are named, in the order reported.
pub const DEFAULT_ALGORITHMS: [Algorithm; 7] =
    [Algorithm::Lru, Algorithm::Fifo, Algorithm::Arc, Algorithm::TwoQ, Algorithm::WsClock, Algorithm::Sieve, Algorithm::S3Fifo];

/// Shares of the footprint that [`Sizes::Auto`] simulates.
pub const AUTO_SHARES: [f64; 10] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];

/// Bytes per object a cache holds, measured on the bundled CloudPhysics trace (64 bytes
/// over seven algorithms; ARC and 2Q also keep ghost entries), with a margin.
const CACHE_ENTRY_BYTES: f64 = 96.0;
/// A cache with nothing in it.
const CACHE_BYTES: f64 = 4096.0;
/// The most memory the caches' key numbering may take
/// ([`MissRatioCurves::with_key_numbering`]): about 560,000 distinct objects for 48
/// caches, 1.5 million for 12. A trace with more goes on with the keys themselves.
const KEY_NUMBERING_BYTES: u64 = 256 << 20;

/// The cache sizes to simulate: bytes, or numbers of objects when objects count one each.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sizes {
    /// Ten shares of the trace's footprint ([`AUTO_SHARES`]), measured in a first pass.
    #[default]
    Auto,
    List(Vec<u64>),
}

/// One miss-ratio study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheStudyConfig {
    /// The trace file, in any format `tierlab_trace` reads.
    pub trace: PathBuf,
    /// How the trace is read (format, volumes, time window, request limit).
    #[serde(default)]
    pub read: ReadOptions,
    /// The algorithms, in the order reported; empty: [`DEFAULT_ALGORITHMS`]. Repeats are
    /// simulated once.
    #[serde(default)]
    pub algorithms: Vec<Algorithm>,
    #[serde(default)]
    pub sizes: Sizes,
    /// What one cached object is; `None`: what the trace's format suggests (see the
    /// module documentation).
    #[serde(default)]
    pub objects: Option<CurveObjects>,
    /// WSClock's working-set window, seconds of trace time (id streams tick one
    /// nanosecond per request).
    #[serde(default = "default_window_s")]
    pub window_s: f64,
    /// Refuse a study whose caches would need more memory than this.
    #[serde(default = "default_memory_limit_bytes")]
    pub memory_limit_bytes: u64,
}

fn default_window_s() -> f64 {
    60.0
}

fn default_memory_limit_bytes() -> u64 {
    8 << 30
}

impl CacheStudyConfig {
    /// A study of `trace` with every default.
    pub fn new(trace: impl Into<PathBuf>) -> Self {
        CacheStudyConfig {
            trace: trace.into(),
            read: ReadOptions::default(),
            algorithms: Vec::new(),
            sizes: Sizes::Auto,
            objects: None,
            window_s: default_window_s(),
            memory_limit_bytes: default_memory_limit_bytes(),
        }
    }
}

/// What a study found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheReport {
    pub trace: String,
    pub format: String,
    pub requests: u64,
    pub bytes: u64,
    pub objects: CurveObjects,
    /// `bytes` or `objects`: what `size` counts.
    pub sizes_in: String,
    /// Whether requests have sizes of their own (not an id stream, whose requests are
    /// given one sector each: its byte counts mean nothing).
    pub sized_requests: bool,
    /// Measured for [`Sizes::Auto`].
    pub footprint: Option<Footprint>,
    pub window_s: f64,
    pub points: Vec<CurvePoint>,
}

/// Why a study could not run. Each names the configuration field at fault first, in
/// backticks, where there is one.
#[derive(Debug, thiserror::Error)]
pub enum CacheStudyError {
    #[error("`window_s`: expected a non-negative number of seconds, found {0}")]
    WindowS(f64),
    #[error("`objects`: {format} is an object trace (its requests name objects, not byte addresses); cache its objects whole")]
    BlocksOfObjectTrace { format: &'static str },
    #[error("`objects`: {format} holds object ids without sizes; count its objects one each")]
    SizedObjectsOfIdStream { format: &'static str },
    #[error("`objects`: expected a block size of at least 1 byte, found 0")]
    ZeroBlock,
    #[error("`sizes`: {size} is smaller than one block of {block_bytes} bytes")]
    SizeBelowBlock { size: u64, block_bytes: u64 },
    #[error("`sizes`: expected cache sizes of at least 1, found 0")]
    ZeroSize,
    #[error("`sizes`: expected at least one cache size")]
    NoSizes,
    #[error("`sizes`: the trace has no requests to size caches from")]
    NothingToSize,
    #[error("{what} needs about {need_bytes:.0} bytes of memory, more than the limit of {limit_bytes}")]
    Memory { what: String, need_bytes: f64, limit_bytes: u64 },
    #[error("cannot read trace {trace}: {message}")]
    Trace { trace: String, message: String },
    #[error("{0}")]
    Request(String),
}

/// Where a study is: `phase` names the pass, `requests` the requests it has read.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    pub phase: &'a str,
    pub requests: u64,
    pub done: bool,
}

/// Runs the study; `progress` hears about every 65,536 requests and the end of each pass.
pub fn run(cfg: &CacheStudyConfig, progress: &mut dyn FnMut(Progress)) -> Result<CacheReport, CacheStudyError> {
    if !(cfg.window_s.is_finite() && cfg.window_s >= 0.0) {
        return Err(CacheStudyError::WindowS(cfg.window_s));
    }
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for &alg in if cfg.algorithms.is_empty() { &DEFAULT_ALGORITHMS[..] } else { &cfg.algorithms[..] } {
        if !algorithms.contains(&alg) {
            algorithms.push(alg);
        }
    }
    let mut reader = open(cfg)?;
    let format = reader.format();
    let objects = curve_objects(cfg.objects, format)?;
    let footprint = match cfg.sizes {
        Sizes::Auto => Some(measure_footprint(cfg, objects, progress)?),
        Sizes::List(_) => None,
    };
    let sizes = match (&cfg.sizes, footprint) {
        (_, Some(f)) => auto_sizes(objects, f)?,
        (Sizes::List(list), None) => checked_sizes(list, objects)?,
        (Sizes::Auto, None) => unreachable!("auto sizes have a footprint"),
    };
    // A cache holds at most its capacity, and at most every object the trace touches
    // (counted in a first pass only when the capacities alone would not fit).
    let caches = |touched: Option<u64>| cache_bytes(algorithms.len(), sizes.iter().map(|&s| objects.capacity_units(s)), touched);
    let mut touched = footprint.map(|f| f.objects);
    if touched.is_none() && caches(None) > cfg.memory_limit_bytes as f64 {
        touched = Some(measure_footprint(cfg, objects, progress)?.objects);
    }
    let need_bytes = caches(touched);
    if !(need_bytes <= cfg.memory_limit_bytes as f64) {
        let what = format!(
            "{} caches ({} algorithms × {} sizes{})",
            algorithms.len() * sizes.len(),
            algorithms.len(),
            sizes.len(),
            touched.map(|t| format!(", {t} distinct objects")).unwrap_or_default()
        );
        return Err(CacheStudyError::Memory { what, need_bytes, limit_bytes: cfg.memory_limit_bytes });
    }
    let window_ns = (cfg.window_s * NS_PER_S as f64).round() as u64;
    let curves = MissRatioCurves::new(&algorithms, &sizes, objects, window_ns).map_err(|e| CacheStudyError::Request(e.to_string()))?;
    let numbering_bytes = numbering_budget(need_bytes, cfg.memory_limit_bytes, touched, curves.key_numbering_bytes());
    let mut curves = curves.with_key_numbering(numbering_bytes);
    let phase = format!("{} caches", algorithms.len() * sizes.len());
    let requests = replay(&mut reader, &mut curves, &phase, progress)?;
    let points = curves.points();
    Ok(CacheReport {
        trace: cfg.trace.display().to_string(),
        format: format.name().to_string(),
        requests,
        bytes: points.first().map_or(0, |p| p.counts.bytes),
        objects,
        sizes_in: if objects.sizes_are_counts() { "objects" } else { "bytes" }.into(),
        sized_requests: !format.is_id_stream(),
        footprint,
        window_s: cfg.window_s,
        points,
    })
}

/// The memory the caches' key numbering may take: at most what the caches themselves
/// are estimated to need (`caches_bytes`; numbers for small caches over a trace of many
/// distinct objects would take more than the caches), at most [`KEY_NUMBERING_BYTES`],
/// and at most what the limit leaves; none when the trace's `touched` objects, if
/// counted, would not all get a number (`per_key_bytes` each).
fn numbering_budget(caches_bytes: f64, limit_bytes: u64, touched: Option<u64>, per_key_bytes: u64) -> u64 {
    let budget = KEY_NUMBERING_BYTES.min(caches_bytes as u64).min(limit_bytes.saturating_sub(caches_bytes as u64));
    match touched {
        Some(t) if t.saturating_mul(per_key_bytes) > budget => 0,
        _ => budget,
    }
}

/// Memory of `algorithms` caches at each capacity of `capacities` (objects), each
/// holding at most `touched` objects when that is known.
pub fn cache_bytes(algorithms: usize, capacities: impl Iterator<Item = u64>, touched: Option<u64>) -> f64 {
    let per_algorithm: f64 = capacities.map(|c| CACHE_BYTES + c.min(touched.unwrap_or(u64::MAX)) as f64 * CACHE_ENTRY_BYTES).sum();
    per_algorithm * algorithms as f64
}

fn open(cfg: &CacheStudyConfig) -> Result<TraceReader, CacheStudyError> {
    tierlab_trace::open(&cfg.trace, &cfg.read).map_err(|e| CacheStudyError::Trace { trace: cfg.trace.display().to_string(), message: e.to_string() })
}

fn measure_footprint(cfg: &CacheStudyConfig, objects: CurveObjects, progress: &mut dyn FnMut(Progress)) -> Result<Footprint, CacheStudyError> {
    let mut first = open(cfg)?;
    let mut counter = FootprintCounter::new(objects);
    replay(&mut first, &mut counter, "measuring the footprint", progress)?;
    Ok(counter.footprint())
}

/// What an object is: the configuration's choice, checked against the trace's format, or
/// the format's own.
pub fn curve_objects(wanted: Option<CurveObjects>, format: Format) -> Result<CurveObjects, CacheStudyError> {
    let id_stream = format.is_id_stream();
    match wanted {
        Some(CurveObjects::Blocks { .. }) if format.is_binary() => Err(CacheStudyError::BlocksOfObjectTrace { format: format.name() }),
        Some(CurveObjects::Blocks { block_bytes: 0 }) => Err(CacheStudyError::ZeroBlock),
        Some(CurveObjects::Objects) if id_stream => Err(CacheStudyError::SizedObjectsOfIdStream { format: format.name() }),
        Some(o) => Ok(o),
        None if id_stream => Ok(CurveObjects::CountedObjects),
        None if format.is_binary() => Ok(CurveObjects::Objects),
        None => Ok(CurveObjects::BLOCK_4K),
    }
}

/// Sizes as given, each at least one block (or one byte or object).
fn checked_sizes(list: &[u64], objects: CurveObjects) -> Result<Vec<u64>, CacheStudyError> {
    for &size in list {
        match objects {
            CurveObjects::Blocks { block_bytes } if size < block_bytes => return Err(CacheStudyError::SizeBelowBlock { size, block_bytes }),
            _ if size == 0 => return Err(CacheStudyError::ZeroSize),
            _ => {}
        }
    }
    if list.is_empty() {
        return Err(CacheStudyError::NoSizes);
    }
    Ok(list.to_vec())
}

/// [`AUTO_SHARES`] of the footprint, in whole blocks for block caches, without repeats.
fn auto_sizes(objects: CurveObjects, f: Footprint) -> Result<Vec<u64>, CacheStudyError> {
    let total = if objects.sizes_are_counts() { f.objects } else { f.bytes };
    if total == 0 {
        return Err(CacheStudyError::NothingToSize);
    }
    let mut sizes: Vec<u64> = Vec::new();
    for share in AUTO_SHARES {
        let raw = (total as f64 * share).round() as u64;
        let size = match objects {
            CurveObjects::Blocks { block_bytes } => (raw / block_bytes).max(1) * block_bytes,
            _ => raw.max(1),
        };
        if sizes.last() != Some(&size) {
            sizes.push(size);
        }
    }
    Ok(sizes)
}

/// Feeds every request of `reader` to `replay` ([`replay_trace_with_progress`]); returns
/// the count.
fn replay(reader: &mut TraceReader, replay: &mut dyn Replay, phase: &str, progress: &mut dyn FnMut(Progress)) -> Result<u64, CacheStudyError> {
    let n = replay_trace_with_progress(reader, replay, &mut |requests| progress(Progress { phase, requests, done: false })).map_err(|e| match e {
        PlacementError::Trace(e) => CacheStudyError::Trace { trace: reader.name().to_string(), message: e.to_string() },
        e => CacheStudyError::Request(e.to_string()),
    })?;
    progress(Progress { phase, requests: n, done: true });
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_follow_the_format_unless_the_configuration_says() {
        assert_eq!(curve_objects(None, Format::OracleGeneral).unwrap(), CurveObjects::Objects);
        assert_eq!(curve_objects(None, Format::BinaryU32).unwrap(), CurveObjects::CountedObjects);
        assert_eq!(curve_objects(None, Format::Msr).unwrap(), CurveObjects::BLOCK_4K);
        assert_eq!(curve_objects(Some(CurveObjects::CountedObjects), Format::OracleGeneral).unwrap(), CurveObjects::CountedObjects);
        assert!(matches!(curve_objects(Some(CurveObjects::BLOCK_4K), Format::OracleGeneral), Err(CacheStudyError::BlocksOfObjectTrace { .. })));
        assert!(matches!(curve_objects(Some(CurveObjects::Objects), Format::BinaryU32), Err(CacheStudyError::SizedObjectsOfIdStream { .. })));
        assert!(matches!(curve_objects(Some(CurveObjects::Blocks { block_bytes: 0 }), Format::Msr), Err(CacheStudyError::ZeroBlock)));
    }

    #[test]
    fn auto_sizes_are_shares_of_the_footprint_in_whole_blocks() {
        let f = Footprint { requests: 10, objects: 1000, bytes: 1000 * 4096 };
        let s = auto_sizes(CurveObjects::BLOCK_4K, f).unwrap();
        assert_eq!(s.first(), Some(&4096), "0.1 % of 1,000 blocks is one block");
        assert_eq!(s.last(), Some(&(1000 * 4096)));
        assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
        assert!(s.iter().all(|x| x % 4096 == 0));
        assert!(matches!(auto_sizes(CurveObjects::BLOCK_4K, Footprint::default()), Err(CacheStudyError::NothingToSize)));
    }

    #[test]
    fn the_configuration_round_trips_through_json_with_its_defaults() {
        let text = r#"{"trace": "t.oracleGeneral", "algorithms": ["lru", "s3fifo"], "sizes": {"list": [65536, 1048576]}, "objects": {"kind": "counted-objects"}}"#;
        let cfg: CacheStudyConfig = serde_json::from_str(text).unwrap();
        assert_eq!(cfg.algorithms, vec![Algorithm::Lru, Algorithm::S3Fifo]);
        assert_eq!(cfg.sizes, Sizes::List(vec![65536, 1 << 20]));
        assert_eq!(cfg.window_s, 60.0);
        assert_eq!(cfg.read, ReadOptions::default());
        let back: CacheStudyConfig = serde_json::from_str(&serde_json::to_string(&cfg).unwrap()).unwrap();
        assert_eq!(back, cfg);
        assert!(serde_json::from_str::<CacheStudyConfig>(r#"{"trace": "t", "window": 3}"#).is_err(), "unknown fields are refused");
    }

    #[test]
    fn the_numbering_takes_no_more_than_the_caches_and_the_limit_allow() {
        let mib = 1u64 << 20;
        // As much as the caches, under the cap and the limit's room.
        assert_eq!(numbering_budget(100.0 * mib as f64, 8 << 30, None, 128), 100 * mib);
        assert_eq!(numbering_budget((4u64 << 30) as f64, 8 << 30, None, 128), KEY_NUMBERING_BYTES);
        assert_eq!(numbering_budget(100.0 * mib as f64, 120 * mib, None, 128), 20 * mib);
        // Small caches over many distinct objects: no numbering at all.
        assert_eq!(numbering_budget(600_000.0, 8 << 30, Some(269_210), 128), 0);
        assert_eq!(numbering_budget(100.0 * mib as f64, 8 << 30, Some(269_210), 128), 100 * mib);
    }

    #[test]
    fn a_study_over_the_memory_limit_is_refused_before_it_runs() {
        let dir = std::env::temp_dir().join(format!("tierlab-cache-study-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("t.csv");
        std::fs::write(&trace, "128166372003061629,hm,0,Read,0,4096,41120\n128166372003071629,hm,0,Read,4096,4096,41120\n").unwrap();
        let mut cfg = CacheStudyConfig::new(&trace);
        cfg.sizes = Sizes::List(vec![1 << 40]);
        cfg.memory_limit_bytes = 1 << 20;
        // The capacities alone would pass the limit; the trace touches two blocks, so it fits.
        let r = run(&cfg, &mut |_| {}).unwrap();
        assert_eq!(r.requests, 2);
        assert_eq!(r.points.len(), DEFAULT_ALGORITHMS.len());
        cfg.memory_limit_bytes = 1000;
        assert!(matches!(run(&cfg, &mut |_| {}), Err(CacheStudyError::Memory { .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
