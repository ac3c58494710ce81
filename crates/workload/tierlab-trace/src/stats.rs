//! Trace statistics: counts, bytes, sizes, working set, sequentiality, per volume.
//!
//! Memory grows with the working set (distinct blocks touched) and the number of
//! volumes, never with the number of requests nor with a request's size: a request of
//! more than [`BLOCKS_AS_EXTENT`] blocks is kept as one extent, not block by block.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use tierlab_types::{IoRequest, KIB, NS_PER_S};

use crate::{TraceError, TraceReader};

/// Block size of the working-set count.
pub const WORKING_SET_BLOCK_BYTES: u64 = 4 * KIB;

/// Summary of a trace. Field names are the JSON keys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStats {
    pub format: String,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Last arrival minus first, in seconds.
    pub span_s: f64,
    /// `requests / span_s`; `None` when the span is 0 (one instant, or no timing).
    pub mean_iops: Option<f64>,
    pub size_distribution: SizeDistribution,
    /// Distinct 4 KiB blocks touched, per (volume, block), × 4096.
    pub working_set_bytes: u64,
    /// Share of requests starting where the previous request to the same volume ended.
    pub sequential_fraction: f64,
    /// Per-volume breakdown, sorted by volume id.
    pub volumes: Vec<VolumeStats>,
}

/// Request sizes: extremes, mean, and a count per power-of-two bucket.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeDistribution {
    pub min_bytes: u64,
    pub mean_bytes: f64,
    pub max_bytes: u64,
    /// Bucket label → requests, in increasing size. A request of `n` bytes counts in the
    /// bucket of the smallest power of two ≥ `n`: "4KiB" holds sizes in (2 KiB, 4 KiB].
    #[serde(serialize_with = "buckets_as_map")]
    pub buckets: Vec<(String, u64)>,
}

fn buckets_as_map<S: Serializer>(buckets: &[(String, u64)], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(buckets.len()))?;
    for (label, count) in buckets {
        map.serialize_entry(label, count)?;
    }
    map.end()
}

/// One volume's share of the trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VolumeStats {
    pub volume: u32,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub working_set_bytes: u64,
    pub sequential_fraction: f64,
}

/// A multiply-rotate hasher for block numbers (FxHash's constant): block ids need no
/// DoS resistance, and SipHash would cost more than the rest of the statistics.
#[derive(Default)]
struct BlockHasher(u64);

impl Hasher for BlockHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A request touching more blocks than this is recorded as one extent of blocks rather
/// than block by block (64 blocks: 256 KiB).
pub const BLOCKS_AS_EXTENT: u64 = 64;

/// Blocks touched by large requests, as disjoint extents `start → end` (exclusive, in
/// blocks) that neither overlap nor touch: one entry per run of blocks, whatever its
/// length.
#[derive(Default)]
struct Extents(BTreeMap<u64, u64>);

impl Extents {
    /// Adds blocks `start..end`, merging with the extents it overlaps or touches.
    fn insert(&mut self, mut start: u64, mut end: u64) {
        if let Some((&s, &e)) = self.0.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
            }
        }
        while let Some((&s, &e)) = self.0.range(start..=end).next() {
            end = end.max(e);
            self.0.remove(&s);
        }
        self.0.insert(start, end);
    }

    fn contains(&self, block: u64) -> bool {
        self.0
            .range(..=block)
            .next_back()
            .is_some_and(|(_, &end)| end > block)
    }

    fn blocks(&self) -> u64 {
        self.0.iter().map(|(s, e)| e - s).sum()
    }
}

/// Distinct blocks of one volume. A `HashSet<u64>` costs 8 bytes per block plus one
/// control byte, at a load factor between 7/16 and 7/8: about 10 to 21 bytes (typically
/// ~14) per distinct 4 KiB block. Only its size is ever read, so its iteration order
/// cannot leak into any output.
type BlockSet = HashSet<u64, BuildHasherDefault<BlockHasher>>;

#[derive(Default)]
struct VolumeState {
    requests: u64,
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    sequential: u64,
    last_end_bytes: Option<u64>,
    /// Blocks of requests of up to [`BLOCKS_AS_EXTENT`] blocks.
    blocks: BlockSet,
    /// Blocks of larger requests.
    extents: Extents,
}

impl VolumeState {
    /// Distinct blocks touched: the extents' blocks, and the single blocks outside them.
    fn blocks_touched(&self) -> u64 {
        let lone = self
            .blocks
            .iter()
            .filter(|&&b| !self.extents.contains(b))
            .count() as u64;
        self.extents.blocks() + lone
    }
}

/// Accumulates [`TraceStats`] one request at a time (also usable on generated
/// workloads).
pub struct StatsBuilder {
    requests: u64,
    first_ns: Option<u64>,
    last_ns: u64,
    min_bytes: u64,
    max_bytes: u64,
    total_bytes: u128,
    /// `sizes[k]` counts requests in (2^(k-1), 2^k] bytes.
    sizes: [u64; 65],
    volumes: BTreeMap<u32, VolumeState>,
}

impl Default for StatsBuilder {
    fn default() -> Self {
        StatsBuilder {
            requests: 0,
            first_ns: None,
            last_ns: 0,
            min_bytes: 0,
            max_bytes: 0,
            total_bytes: 0,
            sizes: [0; 65],
            volumes: BTreeMap::new(),
        }
    }
}

impl StatsBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one request.
    pub fn add(&mut self, r: &IoRequest) {
        self.first_ns.get_or_insert(r.time_ns);
        self.last_ns = self.last_ns.max(r.time_ns);
        self.min_bytes = if self.requests == 0 {
            r.len_bytes
        } else {
            self.min_bytes.min(r.len_bytes)
        };
        self.max_bytes = self.max_bytes.max(r.len_bytes);
        self.requests += 1;
        self.total_bytes += u128::from(r.len_bytes);
        let bucket = if r.len_bytes <= 1 {
            0
        } else {
            64 - (r.len_bytes - 1).leading_zeros()
        };
        self.sizes[bucket as usize] += 1;

        let v = self.volumes.entry(r.volume).or_default();
        v.requests += 1;
        if r.op.is_read() {
            v.reads += 1;
            v.read_bytes = v.read_bytes.saturating_add(r.len_bytes);
        } else {
            v.writes += 1;
            v.write_bytes = v.write_bytes.saturating_add(r.len_bytes);
        }
        if v.last_end_bytes == Some(r.offset_bytes) {
            v.sequential += 1;
        }
        v.last_end_bytes = Some(r.end_bytes());
        if r.len_bytes > 0 {
            let first = r.offset_bytes / WORKING_SET_BLOCK_BYTES;
            let last = (r.end_bytes() - 1) / WORKING_SET_BLOCK_BYTES;
            if last - first < BLOCKS_AS_EXTENT {
                for block in first..=last {
                    v.blocks.insert(block);
                }
            } else {
                v.extents.insert(first, last + 1);
            }
        }
    }

    /// The statistics of everything added, labelled with `format`.
    pub fn finish(self, format: &str) -> TraceStats {
        let volumes: Vec<VolumeStats> = self
            .volumes
            .iter()
            .map(|(&volume, v)| VolumeStats {
                volume,
                requests: v.requests,
                reads: v.reads,
                writes: v.writes,
                read_bytes: v.read_bytes,
                write_bytes: v.write_bytes,
                working_set_bytes: v.blocks_touched().saturating_mul(WORKING_SET_BLOCK_BYTES),
                sequential_fraction: ratio(v.sequential, v.requests),
            })
            .collect();
        let sum =
            |f: fn(&VolumeStats) -> u64| volumes.iter().fold(0u64, |a, v| a.saturating_add(f(v)));
        let requests = sum(|v| v.requests);
        let sequential: u64 = self.volumes.values().map(|v| v.sequential).sum();
        let span_ns = self.last_ns - self.first_ns.unwrap_or(self.last_ns);
        let span_s = span_ns as f64 / NS_PER_S as f64;
        let buckets = self
            .sizes
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, &n)| (size_label(1u128 << k), n))
            .collect();
        TraceStats {
            format: format.to_string(),
            requests,
            reads: sum(|v| v.reads),
            writes: sum(|v| v.writes),
            read_bytes: sum(|v| v.read_bytes),
            write_bytes: sum(|v| v.write_bytes),
            span_s,
            mean_iops: (span_ns > 0).then(|| requests as f64 / span_s),
            size_distribution: SizeDistribution {
                min_bytes: self.min_bytes,
                mean_bytes: if requests == 0 {
                    0.0
                } else {
                    self.total_bytes as f64 / requests as f64
                },
                max_bytes: self.max_bytes,
                buckets,
            },
            working_set_bytes: sum(|v| v.working_set_bytes),
            sequential_fraction: ratio(sequential, requests),
            volumes,
        }
    }
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// "512B", "4KiB", "1MiB"… for a power of two.
fn size_label(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024 && unit + 1 < UNITS.len() {
        value /= 1024;
        unit += 1;
    }
    format!("{value}{}", UNITS[unit])
}

/// Reads the rest of `reader` and summarises it.
pub fn stats(reader: &mut TraceReader) -> Result<TraceStats, TraceError> {
    stats_with_progress(reader, &mut |_| {})
}

/// Requests between two calls of the progress callback.
const PROGRESS_EVERY: u64 = 1 << 16;

/// [`stats`], calling `progress` with the number of requests read so far every
/// 65,536 requests and once at the end (for a progress bar).
pub fn stats_with_progress(
    mut reader: impl std::borrow::BorrowMut<TraceReader>,
    progress: &mut dyn FnMut(u64),
) -> Result<TraceStats, TraceError> {
    let reader = reader.borrow_mut();
    let mut builder = StatsBuilder::new();
    for request in reader.by_ref() {
        builder.add(&request?);
        if builder.requests.is_multiple_of(PROGRESS_EVERY) {
            progress(builder.requests);
        }
    }
    progress(builder.requests);
    Ok(builder.finish(reader.format().name()))
}

/// Bytes in a human unit with one decimal ("1.5 MiB").
pub(crate) fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * ratio(part, whole)
}

/// Volumes listed in full by [`render_text`]; beyond this, the busiest ones.
const VOLUMES_SHOWN: usize = 20;

/// A table for people.
pub fn render_text(s: &TraceStats) -> String {
    let mut out = String::new();
    let d = &s.size_distribution;
    let iops = s
        .mean_iops
        .map_or_else(|| "n/a (zero span)".to_string(), |i| format!("{i:.1}"));
    // Writing to a String cannot fail.
    let _ = writeln!(out, "format            {}", s.format);
    let _ = writeln!(
        out,
        "requests          {}  (reads {} = {:.1} %, writes {} = {:.1} %)",
        s.requests,
        s.reads,
        percent(s.reads, s.requests),
        s.writes,
        percent(s.writes, s.requests)
    );
    let _ = writeln!(
        out,
        "bytes             read {}, written {}",
        human_bytes(s.read_bytes as f64),
        human_bytes(s.write_bytes as f64)
    );
    let _ = writeln!(out, "span              {:.3} s, mean {iops} IOPS", s.span_s);
    let _ = writeln!(
        out,
        "request size      min {}, mean {}, max {}",
        human_bytes(d.min_bytes as f64),
        human_bytes(d.mean_bytes),
        human_bytes(d.max_bytes as f64)
    );
    let _ = writeln!(
        out,
        "working set       {} (4 KiB blocks)",
        human_bytes(s.working_set_bytes as f64)
    );
    let _ = writeln!(
        out,
        "sequential        {:.1} % of requests",
        100.0 * s.sequential_fraction
    );
    let _ = writeln!(out, "\nsize (≤)      requests       %");
    for (label, n) in &d.buckets {
        let share = percent(*n, s.requests);
        let bar = "#".repeat((share / 2.0).round() as usize);
        let _ = writeln!(out, "{label:>8}  {n:>12}  {share:>6.1}  {bar}");
    }
    let _ = writeln!(
        out,
        "\n{:>10}  {:>10}  {:>7}  {:>10}  {:>11}  {:>11}  {:>6}",
        "volume", "requests", "reads %", "read", "written", "working set", "seq %"
    );
    let mut shown: Vec<&VolumeStats> = s.volumes.iter().collect();
    if shown.len() > VOLUMES_SHOWN {
        shown.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.volume.cmp(&b.volume)));
        shown.truncate(VOLUMES_SHOWN);
    }
    for v in &shown {
        let _ = writeln!(
            out,
            "{:>10}  {:>10}  {:>7.1}  {:>10}  {:>11}  {:>11}  {:>6.1}",
            v.volume,
            v.requests,
            percent(v.reads, v.requests),
            human_bytes(v.read_bytes as f64),
            human_bytes(v.write_bytes as f64),
            human_bytes(v.working_set_bytes as f64),
            100.0 * v.sequential_fraction
        );
    }
    if s.volumes.len() > shown.len() {
        let _ = writeln!(
            out,
            "({} volumes in all; the {} with most requests shown)",
            s.volumes.len(),
            shown.len()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_types::Op;

    fn req(time_ns: u64, volume: u32, offset_bytes: u64, len_bytes: u64, op: Op) -> IoRequest {
        IoRequest {
            time_ns,
            volume,
            offset_bytes,
            len_bytes,
            op,
        }
    }

    #[test]
    fn counts_sizes_working_set_and_sequentiality() {
        let mut b = StatsBuilder::new();
        b.add(&req(0, 0, 0, 4096, Op::Read));
        b.add(&req(1_000_000_000, 0, 4096, 8192, Op::Write)); // sequential, 2 new blocks
        b.add(&req(2_000_000_000, 1, 0, 512, Op::Read)); // other volume: new block
        b.add(&req(4_000_000_000, 0, 0, 4096, Op::Read)); // re-read of block 0
        let s = b.finish("test");
        assert_eq!((s.requests, s.reads, s.writes), (4, 3, 1));
        assert_eq!((s.read_bytes, s.write_bytes), (4096 + 512 + 4096, 8192));
        assert_eq!(s.span_s, 4.0);
        assert_eq!(s.mean_iops, Some(1.0));
        assert_eq!(s.working_set_bytes, 4 * 4096);
        assert_eq!(s.sequential_fraction, 0.25);
        assert_eq!(
            s.size_distribution.buckets,
            vec![
                ("512B".to_string(), 1),
                ("4KiB".to_string(), 2),
                ("8KiB".to_string(), 1)
            ]
        );
        assert_eq!(
            (s.size_distribution.min_bytes, s.size_distribution.max_bytes),
            (512, 8192)
        );
        assert_eq!(
            s.volumes.iter().map(|v| v.volume).collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert_eq!(s.volumes[0].working_set_bytes, 3 * 4096);
    }

    #[test]
    fn unaligned_request_touches_every_block_it_overlaps() {
        let mut b = StatsBuilder::new();
        b.add(&req(0, 0, 4095, 2, Op::Read));
        assert_eq!(b.finish("t").working_set_bytes, 2 * 4096);
    }

    #[test]
    fn a_large_request_is_one_extent_not_its_blocks() {
        let mut b = StatsBuilder::new();
        b.add(&req(0, 0, 0, 1 << 30, Op::Read));
        b.add(&req(1, 0, 1 << 29, 1 << 30, Op::Read)); // overlaps the first
        b.add(&req(2, 0, 4096, 4096, Op::Read)); // inside the extent
        b.add(&req(3, 0, 8 << 30, 4096, Op::Read)); // outside
        let v = &b.volumes[&0];
        assert_eq!((v.blocks.len(), v.extents.0.len()), (2, 1));
        assert_eq!(
            b.finish("t").working_set_bytes,
            (1 << 30) + (1 << 29) + 4096
        );
    }

    proptest::proptest! {
        /// Extents and single blocks together count what a plain set of every block counts.
        #[test]
        fn working_set_matches_a_plain_block_set(
            requests in proptest::collection::vec((0u64..2_000_000, 1u64..600_000), 1..60)
        ) {
            let mut b = StatsBuilder::new();
            let mut plain = std::collections::HashSet::new();
            for (i, &(offset, len)) in requests.iter().enumerate() {
                b.add(&req(i as u64, 0, offset, len, Op::Write));
                for block in offset / 4096..=(offset + len - 1) / 4096 {
                    plain.insert(block);
                }
            }
            proptest::prop_assert_eq!(b.finish("t").working_set_bytes, plain.len() as u64 * 4096);
        }
    }

    #[test]
    fn empty_and_zero_span_traces_have_no_iops() {
        let s = StatsBuilder::new().finish("t");
        assert_eq!(
            (s.requests, s.mean_iops, s.sequential_fraction),
            (0, None, 0.0)
        );
        let mut b = StatsBuilder::new();
        b.add(&req(5, 0, 0, 1, Op::Read));
        assert_eq!(b.finish("t").mean_iops, None);
    }

    #[test]
    fn bucket_labels_use_binary_units() {
        assert_eq!(size_label(1), "1B");
        assert_eq!(size_label(4096), "4KiB");
        assert_eq!(size_label(1 << 20), "1MiB");
        assert_eq!(size_label(1 << 64), "16EiB");
    }

    #[test]
    fn json_keys_are_the_field_names_and_buckets_a_map_in_size_order() {
        let mut b = StatsBuilder::new();
        b.add(&req(0, 0, 0, 131072, Op::Read));
        b.add(&req(0, 0, 0, 16384, Op::Read));
        let json = serde_json::to_string(&b.finish("msr")).unwrap();
        assert!(
            json.contains(r#""buckets":{"16KiB":1,"128KiB":1}"#),
            "{json}"
        );
        for key in [
            "format",
            "requests",
            "span_s",
            "mean_iops",
            "working_set_bytes",
            "sequential_fraction",
            "volumes",
        ] {
            assert!(
                json.contains(&format!("\"{key}\"")),
                "{key} missing in {json}"
            );
        }
    }

    #[test]
    fn text_table_shows_the_headline_numbers() {
        let mut b = StatsBuilder::new();
        b.add(&req(0, 7, 0, 4096, Op::Read));
        b.add(&req(2_000_000_000, 7, 4096, 4096, Op::Write));
        let text = render_text(&b.finish("fiu"));
        assert!(text.contains("fiu"));
        assert!(
            text.contains("requests          2  (reads 1 = 50.0 %, writes 1 = 50.0 %)"),
            "{text}"
        );
        assert!(text.contains("mean 1.0 IOPS"), "{text}");
        assert!(text.contains("        7"), "{text}");
    }
}
