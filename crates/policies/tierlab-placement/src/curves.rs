//! Miss-ratio curves: several replacement algorithms at several cache sizes, all fed in
//! one pass over a request stream.
//!
//! Every (algorithm, size) pair is a cache of its own ([`tierlab_cache::AnyCache`]); each
//! request is looked up in all of them in turn. That is exact for every algorithm (a
//! stack-distance shortcut would be exact only for LRU with one-unit objects) and costs
//! one index lookup per cache and object: a hash map's, or, with
//! [`MissRatioCurves::with_key_numbering`], an array's, the keys numbered once (one hash
//! lookup a key shared by every cache). Memory is the caches' own, at most the largest
//! sizes' worth of keys (plus ghosts), and the numbering's, at most its budget, whatever
//! the length of the stream.
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
use tierlab_cache::{touch, Algorithm, AnyCache, CacheVisitor, KeyMap, Replacement};
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
    /// Whether the request whose pieces are being looked up has missed so far.
    missed: bool,
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

/// How many keys ahead [`MissRatioCurves::flush`] starts loading a cache's index slot
/// (the numbering's too), and how many requests ahead for whole-request objects.
const PREFETCH_KEYS_AHEAD: usize = 16;
const PREFETCH_OBJECTS_AHEAD: usize = 4;

/// Requests held before they are looked up in the caches (see [`MissRatioCurves::flush`]).
pub const BATCH_REQUESTS: usize = 65536;
/// Keys held before they are looked up, at most (with a piece of a request). Small in
/// tests, so that they cross batches.
const BATCH_KEYS: usize = if cfg!(test) { 256 } else { 1 << 20 };
/// The most blocks of a request taken as one piece: a longer request is looked up in
/// pieces, each counted as part of it.
pub(crate) const PIECE_BLOCKS: u64 = if cfg!(test) { 64 } else { 1 << 16 };

/// Memory [`MissRatioCurves::with_key_numbering`] takes for each number it hands out,
/// at most: the numbering's own table (at most half full: up to 64 bytes a key) and its
/// list of keys (8 bytes, up to 16 while it doubles), and 4 bytes in each cache's index
/// array (up to 8 while it doubles).
const NUMBER_BYTES: u64 = 80;
const NUMBER_BYTES_PER_CACHE: u64 = 8;

/// A block request, or a piece of one, taken and keyed, waiting for its lookups.
#[derive(Clone, Copy, Debug)]
struct Piece {
    time_ns: u64,
    /// The whole request's first byte and length.
    offset: u64,
    len: u64,
    /// The piece's first and last block number.
    first: u64,
    last: u64,
    /// Where the piece's keys start in the batch's keys.
    at: usize,
    /// Whether this is the request's first piece, and its last.
    opens: bool,
    closes: bool,
}

/// Requests taken and keyed, waiting for their lookups.
#[derive(Default)]
struct Batch {
    /// Every key, in order: a block request's piece by piece, a whole-request object's
    /// one.
    keys: Vec<u64>,
    /// Block requests, piece by piece.
    pieces: Vec<Piece>,
    /// Whole-request objects, one entry each beside its key: time, length in bytes, size
    /// in units, each in an array of its own so that a cache's pass over the batch reads
    /// only what it uses.
    time_ns: Vec<u64>,
    len: Vec<u64>,
    size: Vec<u32>,
}

impl Batch {
    /// Pieces or objects held.
    fn entries(&self) -> usize {
        self.pieces.len() + self.time_ns.len()
    }

    /// The requests the batch opens (pieces that start a request, or objects) and their
    /// bytes.
    fn requests_and_bytes(&self) -> (u64, u64) {
        let opening = self.pieces.iter().filter(|p| p.opens);
        let (n, bytes) = opening.fold((0, 0), |(n, b), p| (n + 1, b + p.len));
        (n + self.len.len() as u64, bytes + self.len.iter().sum::<u64>())
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.pieces.clear();
        self.time_ns.clear();
        self.len.clear();
        self.size.clear();
    }
}

/// One cache's lookups of a whole batch ([`MissRatioCurves::flush`]), compiled once per
/// algorithm (see [`CacheVisitor`]).
struct Lookups<'a> {
    batch: &'a Batch,
    /// The requests the batch opens and their bytes (the same for every cache).
    requests: u64,
    bytes: u64,
    counts: &'a mut CurveCounts,
    /// Whether the request whose pieces are being looked up has missed so far.
    missed: &'a mut bool,
    block_bytes: u64,
}

impl CacheVisitor for Lookups<'_> {
    type Output = ();

    #[inline]
    fn visit<C: Replacement>(self, cache: &mut C) {
        let Lookups { batch, requests, bytes, counts: c, missed, block_bytes } = self;
        let keys = &batch.keys[..];
        c.requests += requests;
        c.bytes += bytes;
        c.objects += keys.len() as u64;
        for p in &batch.pieces {
            if p.opens {
                *missed = false;
            }
            let end = p.offset.saturating_add(p.len);
            let (mut misses, mut missed_bytes) = (0, 0);
            for (j, b) in (p.first..=p.last).enumerate() {
                let at = p.at + j;
                if let Some(&ahead) = keys.get(at + PREFETCH_KEYS_AHEAD) {
                    cache.prefetch(ahead);
                }
                if !touch(cache, keys[at], 1, p.time_ns) {
                    misses += 1;
                    // The request's bytes in block b.
                    missed_bytes += end.min((b + 1).saturating_mul(block_bytes)) - p.offset.max(b * block_bytes);
                }
            }
            *missed |= misses > 0;
            if p.closes {
                c.request_misses += u64::from(*missed);
            }
            c.object_misses += misses;
            c.byte_misses += missed_bytes;
        }
        // Whole-request objects: one key each, in order.
        for (i, (&time_ns, &size)) in batch.time_ns.iter().zip(&batch.size).enumerate() {
            if let Some(&ahead) = keys.get(i + PREFETCH_OBJECTS_AHEAD) {
                cache.prefetch(ahead);
            }
            if !touch(cache, keys[i], size, time_ns) {
                c.request_misses += 1;
                c.object_misses += 1;
                c.byte_misses += batch.len[i];
            }
        }
    }
}

/// Numbers for the keys a run has seen, 0, 1, 2, … in order of first sight, so that
/// every cache can index its keys by an array ([`AnyCache::use_dense_keys`]): one
/// lookup here for each key, shared by all the caches, instead of one hash lookup in
/// each. At most `max` numbers are handed out.
struct Numbering {
    numbers: KeyMap,
    keys: Vec<u64>,
    max: usize,
}

impl Numbering {
    /// Replaces every key of `keys` by its number, in order; `Err(i)` if key `i` needs a
    /// number and all are handed out (the keys before it are numbers, the rest keys).
    fn number(&mut self, keys: &mut [u64]) -> Result<(), usize> {
        for i in 0..keys.len() {
            if let Some(&ahead) = keys.get(i + PREFETCH_KEYS_AHEAD) {
                self.numbers.prefetch(ahead);
            }
            let key = keys[i];
            let n = if self.keys.len() < self.max {
                let order = &mut self.keys;
                self.numbers
                    .insert_with(key, || {
                        order.push(key);
                        (order.len() - 1) as u32
                    })
                    .0
            } else {
                match self.numbers.get(&key) {
                    Some(&n) => n,
                    None => return Err(i),
                }
            };
            keys[i] = u64::from(n);
        }
        Ok(())
    }
}

/// Caches for every (algorithm, size) pair, fed one request at a time (in batches).
pub struct MissRatioCurves {
    keys: KeySpace,
    cells: Vec<Cell>,
    batch: Batch,
    numbering: Option<Numbering>,
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
                        CurveObjects::Blocks { block_bytes } => {
                            format!("a cache size of at least one block ({block_bytes} bytes)")
                        }
                        CurveObjects::Objects => "a cache size of at least 1 byte".into(),
                        CurveObjects::CountedObjects => "a cache size of at least 1 object".into(),
                    };
                    return Err(PlacementError::Config { name: "cache_sizes", expected, found: size.to_string() });
                }
                let capacity = usize::try_from(units).map_err(|_| config("cache_sizes", "a cache size this machine can address", size.to_string()))?;
                cells.push(Cell {
                    algorithm,
                    size,
                    capacity_units: units,
                    cache: algorithm.cache(capacity, window_ns),
                    counts: CurveCounts::default(),
                    missed: false,
                });
            }
        }
        Ok(MissRatioCurves { keys: KeySpace::new(objects), cells, batch: Batch::default(), numbering: None })
    }

    /// The same curves, their keys numbered in order of first sight and every cache
    /// indexing them by an array: the same counts for less work a lookup. The numbering
    /// and the arrays take at most `budget_bytes` ([`MissRatioCurves::key_numbering_bytes`]
    /// a number); when the trace has more distinct keys than that allows, the caches go
    /// back to the keys themselves (hash maps) at the first key without a number, and the
    /// numbering's memory is given back. Given before the first request (later it changes
    /// nothing).
    pub fn with_key_numbering(mut self, budget_bytes: u64) -> Self {
        let fresh = self.batch.entries() == 0 && self.cells.iter().all(|c| c.cache.is_empty() && c.counts.requests == 0);
        let max = (budget_bytes / self.key_numbering_bytes()).min(u64::from(u32::MAX - 1));
        if fresh && max > 0 {
            self.numbering = Some(Numbering { numbers: KeyMap::new(), keys: Vec::new(), max: max as usize });
            for cell in &mut self.cells {
                cell.cache.use_dense_keys();
            }
        }
        self
    }

    /// Memory a number of [`MissRatioCurves::with_key_numbering`] takes, at most.
    pub fn key_numbering_bytes(&self) -> u64 {
        NUMBER_BYTES + NUMBER_BYTES_PER_CACHE * self.cells.len() as u64
    }

    /// Whether the keys are numbered (see [`MissRatioCurves::with_key_numbering`]):
    /// false once the numbers ran out.
    pub fn keys_numbered(&self) -> bool {
        self.numbering.is_some()
    }

    pub fn objects(&self) -> CurveObjects {
        self.keys.objects
    }

    /// Takes `req`; it is looked up in every cache within [`BATCH_REQUESTS`] requests
    /// (at once by [`MissRatioCurves::flush`]). A request that cannot be keyed is an error
    /// here, before it is taken.
    pub fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError> {
        let (base, first, last) = self.keys.range(req)?;
        match self.keys.objects {
            CurveObjects::Blocks { .. } => {
                let mut piece = first;
                loop {
                    let batch = &mut self.batch;
                    let piece_last = last.min(piece.saturating_add(PIECE_BLOCKS - 1));
                    let at = batch.keys.len();
                    batch.keys.extend((piece..=piece_last).map(|b| base | b));
                    batch.pieces.push(Piece {
                        time_ns: req.time_ns,
                        offset: req.offset_bytes,
                        len: req.len_bytes,
                        first: piece,
                        last: piece_last,
                        at,
                        opens: piece == first,
                        closes: piece_last == last,
                    });
                    if piece_last == last {
                        break;
                    }
                    if batch.keys.len() >= BATCH_KEYS {
                        self.flush();
                    }
                    piece = piece_last + 1;
                }
            }
            CurveObjects::Objects | CurveObjects::CountedObjects => {
                let size = self.keys.object_size(req)?;
                let batch = &mut self.batch;
                batch.keys.push(base | first);
                batch.time_ns.push(req.time_ns);
                batch.len.push(req.len_bytes);
                batch.size.push(size);
            }
        }
        if self.batch.entries() >= BATCH_REQUESTS || self.batch.keys.len() >= BATCH_KEYS {
            self.flush();
        }
        Ok(())
    }

    /// Looks every request taken so far up in every cache: cache by cache over the
    /// batch, so that each cache's working set stays in the processor's caches while it
    /// runs. The batch's keys are numbered first (when they are numbered at all). While
    /// a key is looked up, the index slot of the key `PREFETCH_KEYS_AHEAD` on is loaded
    /// (a cache larger than the processor's caches waits on memory for each lookup
    /// otherwise).
    pub fn flush(&mut self) {
        if self.batch.entries() == 0 {
            return;
        }
        if let Some(numbering) = &mut self.numbering {
            if let Err(at) = numbering.number(&mut self.batch.keys) {
                // Out of numbers: back to the keys themselves, in the caches and the batch.
                let keys = &numbering.keys;
                for key in &mut self.batch.keys[..at] {
                    *key = keys[*key as usize];
                }
                for cell in &mut self.cells {
                    cell.cache.rekey(&|n| keys[n as usize]);
                }
                self.numbering = None;
            }
        }
        let block_bytes = match self.keys.objects {
            CurveObjects::Blocks { block_bytes } => block_bytes,
            _ => 0,
        };
        let (requests, bytes) = self.batch.requests_and_bytes();
        for cell in &mut self.cells {
            let lookups = Lookups { batch: &self.batch, requests, bytes, counts: &mut cell.counts, missed: &mut cell.missed, block_bytes };
            cell.cache.visit(lookups);
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
