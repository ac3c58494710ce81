//! Miss-ratio curves: several replacement algorithms at several cache sizes, all fed in
//! one pass over a request stream.
//!
//! Every (algorithm, size) pair is a cache of its own ([`tierlab_cache::AnyCache`]); each
//! request is looked up in all of them in turn. That is exact for every algorithm (a
//! stack-distance shortcut would be exact only for LRU with one-unit objects) and costs
//! one hash-map lookup per cache and object. Memory is the caches' own: at most the
//! largest sizes' worth of keys (plus ghosts), whatever the length of the stream.
//!
//! What an object is ([`CurveObjects`]):
//!
//! - `Blocks`: every block of `block_bytes` a request touches is one object of one unit;
//!   a cache of `size` bytes holds `size / block_bytes` blocks. A request hits when all
//!   its blocks hit; its missed bytes are the bytes of it that fall in missed blocks.
//! - `Objects`: each request is one object named by its first 512-byte sector (a
//!   libCacheSim object id), as large as the request: a cache of `size` bytes holds
//!   objects whose sizes add up to at most `size`. An object keeps the size it was
//!   admitted with while it stays; each request counts its own length in bytes. This is
//!   how libCacheSim simulates a trace with object sizes.
//! - `CountedObjects`: the same objects, each counting one: `size` is a number of
//!   objects (libCacheSim's `ignore_obj_size`; the only choice for id streams, whose
//!   objects have no size).
//!
//! Keys put the volume in the top 24 bits and the block or sector number in the low 40.
//! A trace of volume 0 alone may use numbers up to 2^64 (object traces with large ids);
//! such a number beside another volume is an error, as the two could share a key.

use crate::PlacementError;
use serde::{Deserialize, Serialize};
use std::fmt;
use tierlab_cache::{touch, AnyCache, Algorithm, CacheVisitor, Replacement};
use tierlab_types::{IoRequest, SECTOR_BYTES};

use crate::objects::{INDEX_BITS, VOLUME_BITS};

/// What one cached object is; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CurveObjects {
    /// Every touched block of `block_bytes` (> 0) is an object of one unit.
    Blocks { block_bytes: u64 },
    /// Each request is an object as large as the request; cache sizes are bytes.
    Objects,
    /// Each request is an object counting one; cache sizes are numbers of objects.
    CountedObjects,
}

impl CurveObjects {
    /// 4 KiB blocks, the file-system block size.
    pub const BLOCK_4K: CurveObjects = CurveObjects::Blocks { block_bytes: 4096 };

    /// The capacity, in the caches' units, of a cache of `size` (bytes, or objects for
    /// `CountedObjects`).
    pub fn capacity_units(&self, size: u64) -> u64 {
        match *self {
            CurveObjects::Blocks { block_bytes } => size / block_bytes.max(1),
            CurveObjects::Objects | CurveObjects::CountedObjects => size,
        }
    }

    /// Whether cache sizes are numbers of objects rather than bytes.
    pub fn sizes_are_counts(&self) -> bool {
        matches!(self, CurveObjects::CountedObjects)
    }
}

impl fmt::Display for CurveObjects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CurveObjects::Blocks { block_bytes } => write!(f, "blocks of {block_bytes} bytes"),
            CurveObjects::Objects => f.write_str("whole requests, sized"),
            CurveObjects::CountedObjects => f.write_str("whole requests, each counting one"),
        }
    }
}

/// Counts of one (algorithm, size) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurveCounts {
    pub requests: u64,
    /// Requests with at least one missed object.
    pub request_misses: u64,
    /// Object references (blocks, or requests for whole-request objects).
    pub objects: u64,
    pub object_misses: u64,
    /// Bytes requested.
    pub bytes: u64,
    /// Bytes requested that were not in the cache.
    pub byte_misses: u64,
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

impl CurveCounts {
    pub fn request_miss_ratio(&self) -> f64 {
        ratio(self.request_misses, self.requests)
    }
    pub fn object_miss_ratio(&self) -> f64 {
        ratio(self.object_misses, self.objects)
    }
    pub fn byte_miss_ratio(&self) -> f64 {
        ratio(self.byte_misses, self.bytes)
    }
}

/// One point of a curve: an algorithm at one cache size, and what it saw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub algorithm: Algorithm,
    /// The cache size as given: bytes, or objects for `CountedObjects`.
    pub size: u64,
    /// The cache's capacity in its units (blocks, bytes or objects).
    pub capacity_units: u64,
    #[serde(flatten)]
    pub counts: CurveCounts,
    pub request_miss_ratio: f64,
    pub object_miss_ratio: f64,
    pub byte_miss_ratio: f64,
}

struct Cell {
    algorithm: Algorithm,
    size: u64,
    capacity_units: u64,
    cache: AnyCache,
    counts: CurveCounts,
}

/// How requests become keys, and what has been seen of the key space.
#[derive(Clone, Copy, Debug)]
struct KeySpace {
    objects: CurveObjects,
    /// A volume-0 number at or above 2^40 was seen / a request to another volume was seen.
    wide_key_seen: bool,
    other_volume_seen: bool,
}

impl KeySpace {
    fn new(objects: CurveObjects) -> Self {
        KeySpace { objects, wide_key_seen: false, other_volume_seen: false }
    }

    /// The key base of `req`'s volume and the first and last block or sector number.
    fn range(&mut self, req: &IoRequest) -> Result<(u64, u64, u64), PlacementError> {
        if req.len_bytes == 0 {
            return Err(PlacementError::request("len_bytes", "a length of at least 1 byte", "0"));
        }
        let (first, last) = match self.objects {
            CurveObjects::Blocks { block_bytes } => {
                let end = req.offset_bytes.checked_add(req.len_bytes - 1).ok_or_else(|| {
                    PlacementError::request("len_bytes", "a request that ends within 2^64 bytes", req.len_bytes.to_string())
                })?;
                (req.offset_bytes / block_bytes, end / block_bytes)
            }
            CurveObjects::Objects | CurveObjects::CountedObjects => {
                let sector = req.offset_bytes / SECTOR_BYTES;
                (sector, sector)
            }
        };
        if u64::from(req.volume) >> VOLUME_BITS != 0 {
            return Err(PlacementError::request("volume", format!("a volume number below 2^{VOLUME_BITS}"), req.volume.to_string()));
        }
        if req.volume != 0 {
            self.other_volume_seen = true;
        }
        if last >> INDEX_BITS != 0 {
            if req.volume != 0 {
                return Err(PlacementError::request(
                    "offset_bytes",
                    format!("a block or sector number below 2^{INDEX_BITS} on a volume other than 0"),
                    req.offset_bytes.to_string(),
                ));
            }
            self.wide_key_seen = true;
        }
        if self.wide_key_seen && self.other_volume_seen {
            return Err(PlacementError::request(
                "volume",
                format!("one volume when block or sector numbers reach 2^{INDEX_BITS} (select one with --volume)"),
                req.volume.to_string(),
            ));
        }
        Ok((u64::from(req.volume) << INDEX_BITS, first, last))
    }

    /// The size in the caches' units of the object `req` names (whole-request objects).
    fn object_size(&self, req: &IoRequest) -> Result<u32, PlacementError> {
        match self.objects {
            CurveObjects::Objects => u32::try_from(req.len_bytes)
                .map_err(|_| PlacementError::request("len_bytes", "an object of less than 4 GiB", req.len_bytes.to_string())),
            _ => Ok(1),
        }
    }
}

/// How many requests ahead [`MissRatioCurves::flush`] starts loading keys' index slots,
/// and at most how many keys of that request.
const PREFETCH_AHEAD: usize = 4;
const PREFETCH_KEYS: u64 = 16;

/// Requests held before they are looked up in the caches (see [`MissRatioCurves::flush`]).
pub const BATCH_REQUESTS: usize = 65536;

/// A request taken, keyed, waiting for its lookups.
#[derive(Clone, Copy, Debug)]
struct Pending {
    time_ns: u64,
    offset: u64,
    len: u64,
    /// Key base (volume) and first and last block or sector number.
    base: u64,
    first: u64,
    last: u64,
    /// The object's size in units (whole-request objects).
    size: u32,
}

/// One cache's lookups of a whole batch ([`MissRatioCurves::flush`]), compiled once per
/// algorithm (see [`CacheVisitor`]).
struct Lookups<'a> {
    batch: &'a [Pending],
    counts: &'a mut CurveCounts,
    objects: CurveObjects,
}

impl CacheVisitor for Lookups<'_> {
    type Output = ();

    #[inline]
    fn visit<C: Replacement>(self, cache: &mut C) {
        let Lookups { batch, counts: c, objects } = self;
        match objects {
            CurveObjects::Blocks { block_bytes } => {
                for (i, p) in batch.iter().enumerate() {
                    if let Some(q) = batch.get(i + PREFETCH_AHEAD) {
                        for b in q.first..=q.last.min(q.first + PREFETCH_KEYS - 1) {
                            cache.prefetch(q.base | b);
                        }
                    }
                    c.requests += 1;
                    c.bytes += p.len;
                    let (mut misses, mut missed_bytes) = (0, 0);
                    for b in p.first..=p.last {
                        if !touch(cache, p.base | b, 1, p.time_ns) {
                            misses += 1;
                            // The request's bytes in block b.
                            missed_bytes += if b == p.first || b == p.last {
                                (p.offset + p.len).min((b + 1) * block_bytes) - p.offset.max(b * block_bytes)
                            } else {
                                block_bytes
                            };
                        }
                    }
                    c.request_misses += u64::from(misses > 0);
                    c.objects += p.last - p.first + 1;
                    c.object_misses += misses;
                    c.byte_misses += missed_bytes;
                }
            }
            CurveObjects::Objects | CurveObjects::CountedObjects => {
                for (i, p) in batch.iter().enumerate() {
                    if let Some(q) = batch.get(i + PREFETCH_AHEAD) {
                        cache.prefetch(q.base | q.first);
                    }
                    let miss = !touch(cache, p.base | p.first, p.size, p.time_ns);
                    c.request_misses += u64::from(miss);
                    c.object_misses += u64::from(miss);
                    c.byte_misses += if miss { p.len } else { 0 };
                }
                c.requests += batch.len() as u64;
                c.objects += batch.len() as u64;
                c.bytes += batch.iter().map(|p| p.len).sum::<u64>();
            }
        }
    }
}

/// Caches for every (algorithm, size) pair, fed one request at a time (in batches).
pub struct MissRatioCurves {
    keys: KeySpace,
    cells: Vec<Cell>,
    batch: Vec<Pending>,
}

impl MissRatioCurves {
    /// One cache per algorithm and size, algorithm by algorithm in the order given, sizes
    /// in the order given. `window_ns` is WSClock's working-set window. Sizes whose
    /// capacity is not at least one unit, and empty lists, are errors.
    pub fn new(algorithms: &[Algorithm], sizes: &[u64], objects: CurveObjects, window_ns: u64) -> Result<Self, PlacementError> {
        let config = |name: &'static str, expected: &str, found: String| PlacementError::Config { name, expected: expected.into(), found };
        if algorithms.is_empty() {
            return Err(config("algorithms", "at least one algorithm", "none".into()));
        }
        if sizes.is_empty() {
            return Err(config("cache_sizes", "at least one cache size", "none".into()));
        }
        if let CurveObjects::Blocks { block_bytes: 0 } = objects {
            return Err(config("block_bytes", "a block size of at least 1 byte", "0".into()));
        }
        let mut cells = Vec::with_capacity(algorithms.len() * sizes.len());
        for &algorithm in algorithms {
            for &size in sizes {
                let units = objects.capacity_units(size);
                if units == 0 {
                    let expected = match objects {
                        CurveObjects::Blocks { block_bytes } => format!("a cache size of at least one block ({block_bytes} bytes)"),
                        CurveObjects::Objects => "a cache size of at least 1 byte".into(),
                        CurveObjects::CountedObjects => "a cache size of at least 1 object".into(),
                    };
                    return Err(PlacementError::Config { name: "cache_sizes", expected, found: size.to_string() });
                }
                let capacity = usize::try_from(units).map_err(|_| config("cache_sizes", "a cache size this machine can address", size.to_string()))?;
                cells.push(Cell { algorithm, size, capacity_units: units, cache: algorithm.cache(capacity, window_ns), counts: CurveCounts::default() });
            }
        }
        Ok(MissRatioCurves { keys: KeySpace::new(objects), cells, batch: Vec::new() })
    }

    pub fn objects(&self) -> CurveObjects {
        self.keys.objects
    }

    /// Takes `req`; it is looked up in every cache within [`BATCH_REQUESTS`] requests
    /// (at once by [`MissRatioCurves::flush`]). A request that cannot be keyed is an error
    /// here, before it is taken.
    pub fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError> {
        let (base, first, last) = self.keys.range(req)?;
        let size = match self.keys.objects {
            CurveObjects::Blocks { .. } => 1,
            _ => self.keys.object_size(req)?,
        };
        self.batch.push(Pending { time_ns: req.time_ns, offset: req.offset_bytes, len: req.len_bytes, base, first, last, size });
        if self.batch.len() >= BATCH_REQUESTS {
            self.flush();
        }
        Ok(())
    }

    /// Looks every request taken so far up in every cache: cache by cache over the
    /// batch, so that each cache's working set stays in the processor's caches while it
    /// runs.
    /// While request i is looked up, the index slots of request i + `PREFETCH_AHEAD`'s
    /// keys are loaded (a cache larger than the processor's caches waits on memory for
    /// each lookup otherwise).
    pub fn flush(&mut self) {
        let objects = self.keys.objects;
        for cell in &mut self.cells {
            cell.cache.visit(Lookups { batch: &self.batch, counts: &mut cell.counts, objects });
        }
        self.batch.clear();
    }

    /// Every point, algorithm by algorithm, sizes in the order given (after a flush).
    pub fn points(&mut self) -> Vec<CurvePoint> {
        self.flush();
        self.cells
            .iter()
            .map(|c| CurvePoint {
                algorithm: c.algorithm,
                size: c.size,
                capacity_units: c.capacity_units,
                counts: c.counts,
                request_miss_ratio: c.counts.request_miss_ratio(),
                object_miss_ratio: c.counts.object_miss_ratio(),
                byte_miss_ratio: c.counts.byte_miss_ratio(),
            })
            .collect()
    }

    /// The resident keys' units in each cache and its capacity (after a flush).
    pub fn occupancy(&mut self) -> Vec<(u64, u64)> {
        self.flush();
        self.cells.iter().map(|c| (c.cache.occupied(), c.capacity_units)).collect()
    }
}

impl crate::Replay for MissRatioCurves {
    fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError> {
        MissRatioCurves::access(self, req)
    }
}

/// The distinct objects a stream touches and their bytes: what a cache would need to
/// hold all of it (to choose cache sizes from).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    pub requests: u64,
    /// Distinct blocks or objects.
    pub objects: u64,
    /// Their bytes: blocks × block size, or each object's size when first seen.
    pub bytes: u64,
}

/// Measures a [`Footprint`]; its memory grows with the distinct objects seen.
pub struct FootprintCounter {
    keys: KeySpace,
    seen: rustc_hash::FxHashSet<u64>,
    footprint: Footprint,
}

impl FootprintCounter {
    pub fn new(objects: CurveObjects) -> Self {
        FootprintCounter { keys: KeySpace::new(objects), seen: Default::default(), footprint: Footprint::default() }
    }

    pub fn footprint(&self) -> Footprint {
        self.footprint
    }
}

impl crate::Replay for FootprintCounter {
    fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError> {
        let (base, first, last) = self.keys.range(req)?;
        let f = &mut self.footprint;
        f.requests += 1;
        match self.keys.objects {
            CurveObjects::Blocks { block_bytes } => {
                for b in first..=last {
                    if self.seen.insert(base | b) {
                        f.objects += 1;
                        f.bytes += block_bytes;
                    }
                }
            }
            _ => {
                if self.seen.insert(base | first) {
                    f.objects += 1;
                    f.bytes += req.len_bytes;
                }
            }
        }
        Ok(())
    }
}
