//! Replacement algorithms behind one small interface, one file each. They decide which
//! resident key to give up; they never do I/O. Used by the hybrid drive's SSD cache
//! (caching mode), by the tiering policy's demotion (WSClock), in the simulator and on
//! the real device alike, and by placement-only replay to draw miss-ratio curves.
//!
//! The interface splits a reference into its steps so that a caller with dirty data can
//! write a victim back before it lets it go:
//!
//! ```
//! use tierlab_cache::{Lru, Replacement};
//! let mut c = Lru::new(2);
//! for key in [1, 2, 1, 3] {
//!     if !c.access(key, 0) {
//!         while c.len() >= c.capacity() {
//!             let victim = c.evict(0).unwrap();
//!             assert_eq!(victim, 2); // 1 was used more recently
//!         }
//!         c.insert(key, 0);
//!     }
//! }
//! assert!(c.contains(1) && c.contains(3) && !c.contains(2));
//! ```
//!
//! # Sizes
//!
//! A cache's capacity is a number of *units*. Keys inserted with [`Replacement::insert`]
//! take one unit each (a block, an extent); [`Replacement::insert_sized`] gives a key a
//! size (bytes, say, for whole objects of different lengths), and a cache then holds as
//! many keys as their sizes allow. [`reference_sized`] runs a whole reference of a sized
//! key the way libCacheSim does: look up; on a miss ask [`Replacement::admits`] (an object
//! larger than the cache, or than S3-FIFO's small queue, is not admitted and evicts
//! nothing), evict while [`Replacement::needs_room`], then insert. With every size 1 this
//! is [`reference()`]. Algorithms whose queues have shares of the cache (2Q, S3-FIFO) keep
//! those shares in units too.

mod arc;
mod index;
mod list;
mod lru;
mod s3fifo;
mod sieve;
mod twoq;
mod wsclock;

pub use arc::Arc;
pub use tierlab_keymap::{KeyMap, KeySet};
pub use lru::{Fifo, Lru};
pub use s3fifo::S3Fifo;
pub use sieve::Sieve;
pub use twoq::TwoQ;
pub use wsclock::{SweepFallback, WsClock, WSCLOCK_SCAN_CANDIDATES};

use std::fmt;
use std::str::FromStr;

/// A replacement algorithm over `capacity` units, each resident key taking its size (one
/// unit unless inserted with [`Replacement::insert_sized`]).
pub trait Replacement: Send {
    fn name(&self) -> &'static str;
    /// Look `key` up as an access at `now_ns`. A hit updates the algorithm's state and
    /// returns true. A miss returns false and admits nothing (history such as ARC's ghost
    /// lists is consulted, to be used by the `evict`/`insert` that follow; a ghost entry
    /// found is used up).
    fn access(&mut self, key: u64, now_ns: u64) -> bool;
    /// Admit `key`, one unit in size, after a miss. The caller makes room first
    /// (`len() < capacity()`). A resident key is not admitted twice (LRU and WSClock
    /// count it as an access).
    fn insert(&mut self, key: u64, now_ns: u64) {
        self.insert_sized(key, 1, now_ns);
    }
    /// Admit `key` of `size` units after a miss that [`Replacement::admits`] it. The
    /// caller makes room first (until `needs_room(size)` is false). A resident key is not
    /// admitted twice.
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64);
    /// After a miss on `key`, before room is made: whether an object of `size` units will
    /// be admitted. Not admitted, it evicts nothing. The default admits what fits in the
    /// whole cache; ARC notes the size for its ghost-list trimming, S3-FIFO admits only
    /// what fits in its small queue.
    fn admits(&mut self, key: u64, size: u32) -> bool {
        let _ = key;
        u64::from(size) <= self.capacity() as u64
    }
    /// Whether another `evict` is needed before `size` units can be admitted.
    fn needs_room(&self, size: u32) -> bool {
        self.occupied() + u64::from(size) > self.capacity() as u64
    }
    /// Choose a resident key to give up, remove it, and return it.
    fn evict(&mut self, now_ns: u64) -> Option<u64>;
    /// Drop `key` if resident (invalidation); returns whether it was.
    fn remove(&mut self, key: u64) -> bool;
    fn contains(&self, key: u64) -> bool;
    /// A hint that `key` will be looked up soon: start loading what the lookup reads
    /// first. Changes no state.
    fn prefetch(&self, key: u64) {
        let _ = key;
    }
    /// Resident keys.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Units the cache holds.
    fn capacity(&self) -> usize;
    /// Units taken by resident keys: their sizes added up (`len()` when each is 1).
    fn occupied(&self) -> u64;
}

/// One whole reference of a one-unit key: access, and on a miss make room and admit.
/// Returns whether it hit; the keys evicted are pushed onto `evicted`.
pub fn reference<C: Replacement + ?Sized>(cache: &mut C, key: u64, now_ns: u64, evicted: &mut Vec<u64>) -> bool {
    reference_sized(cache, key, 1, now_ns, evicted)
}

/// One whole reference of a key of `size` units: access; on a miss, if the cache
/// [admits](Replacement::admits) it, evict until there is room and insert it. Returns
/// whether it hit; the keys evicted are pushed onto `evicted`.
pub fn reference_sized<C: Replacement + ?Sized>(cache: &mut C, key: u64, size: u32, now_ns: u64, evicted: &mut Vec<u64>) -> bool {
    if cache.access(key, now_ns) {
        return true;
    }
    if !cache.admits(key, size) {
        return false;
    }
    while cache.needs_room(size) {
        match cache.evict(now_ns) {
            Some(v) => evicted.push(v),
            None => break,
        }
    }
    cache.insert_sized(key, size, now_ns);
    false
}

/// [`reference_sized`] for a caller that does not want the victims' keys (a miss-ratio
/// count): returns whether it hit.
#[inline]
pub fn touch<C: Replacement + ?Sized>(cache: &mut C, key: u64, size: u32, now_ns: u64) -> bool {
    if cache.access(key, now_ns) {
        return true;
    }
    if !cache.admits(key, size) {
        return false;
    }
    while cache.needs_room(size) {
        if cache.evict(now_ns).is_none() {
            break;
        }
    }
    cache.insert_sized(key, size, now_ns);
    false
}

/// The algorithms by name, for configuration files and the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Algorithm {
    Fifo,
    Lru,
    Arc,
    TwoQ,
    WsClock,
    Sieve,
    S3Fifo,
}

impl Algorithm {
    pub const ALL: [Algorithm; 7] =
        [Algorithm::Fifo, Algorithm::Lru, Algorithm::Arc, Algorithm::TwoQ, Algorithm::WsClock, Algorithm::Sieve, Algorithm::S3Fifo];

    /// A cache of `capacity` units; `window_ns` is WSClock's working-set window (ignored by
    /// the others).
    pub fn build(self, capacity: usize, window_ns: u64) -> Box<dyn Replacement> {
        Box::new(self.cache(capacity, window_ns))
    }

    /// The same cache as [`Algorithm::build`], as a value whose calls are dispatched by one
    /// `match` instead of through a vtable (for hot loops over many caches).
    pub fn cache(self, capacity: usize, window_ns: u64) -> AnyCache {
        match self {
            Algorithm::Fifo => AnyCache::Fifo(Lru::fifo(capacity)),
            Algorithm::Lru => AnyCache::Lru(Lru::new(capacity)),
            Algorithm::Arc => AnyCache::Arc(Arc::new(capacity)),
            Algorithm::TwoQ => AnyCache::TwoQ(TwoQ::new(capacity)),
            Algorithm::WsClock => AnyCache::WsClock(WsClock::new(capacity, window_ns)),
            Algorithm::Sieve => AnyCache::Sieve(Sieve::new(capacity)),
            Algorithm::S3Fifo => AnyCache::S3Fifo(S3Fifo::new(capacity)),
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::Fifo => "fifo",
            Algorithm::Lru => "lru",
            Algorithm::Arc => "arc",
            Algorithm::TwoQ => "2q",
            Algorithm::WsClock => "wsclock",
            Algorithm::Sieve => "sieve",
            Algorithm::S3Fifo => "s3fifo",
        })
    }
}

impl FromStr for Algorithm {
    type Err = String;
    /// A name as [`fmt::Display`] writes it, in any case; `s3-fifo` is also taken.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("s3-fifo") {
            return Ok(Algorithm::S3Fifo);
        }
        Algorithm::ALL.into_iter().find(|a| a.to_string().eq_ignore_ascii_case(s)).ok_or_else(|| {
            format!("unknown replacement algorithm `{s}`: expected one of fifo, lru, arc, 2q, wsclock, sieve, s3fifo")
        })
    }
}

/// An algorithm is written and read as its name (`"lru"`, `"2q"`, …).
impl serde::Serialize for Algorithm {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Algorithm {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Any of the algorithms, as a value (see [`Algorithm::cache`]).
pub enum AnyCache {
    Fifo(Lru),
    Lru(Lru),
    Arc(Arc),
    TwoQ(TwoQ),
    WsClock(WsClock),
    Sieve(Sieve),
    S3Fifo(S3Fifo),
}

/// `$body` with `$c` bound to the concrete cache inside `$self`.
macro_rules! each {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            AnyCache::Fifo($c) | AnyCache::Lru($c) => $body,
            AnyCache::Arc($c) => $body,
            AnyCache::TwoQ($c) => $body,
            AnyCache::WsClock($c) => $body,
            AnyCache::Sieve($c) => $body,
            AnyCache::S3Fifo($c) => $body,
        }
    };
}

/// Work to run on the concrete cache inside an [`AnyCache`] ([`AnyCache::visit`]): one
/// copy of it is compiled per algorithm, so a loop over many references calls the
/// algorithm's code directly (inlined) rather than choosing it again at every call.
pub trait CacheVisitor {
    type Output;
    fn visit<C: Replacement>(self, cache: &mut C) -> Self::Output;
}

impl AnyCache {
    /// Runs `visitor` on the concrete cache.
    #[inline]
    pub fn visit<V: CacheVisitor>(&mut self, visitor: V) -> V::Output {
        each!(self, c => visitor.visit(c))
    }

    /// The cache, while it is empty, indexes its keys by an array instead of a hash map
    /// from now on: for keys that a numbering hands out densely (0, 1, 2, …). Every
    /// decision is the same; a lookup is one load. The array takes 4 bytes for every
    /// number up to the largest key inserted, so a key must be no larger than the numbers
    /// in use (a large key would take memory in proportion to it). A cache that holds
    /// keys is left as it is.
    pub fn use_dense_keys(&mut self) {
        each!(self, c => {
            let (index, _) = index::Indexed::index_parts(c);
            if index.is_empty() {
                *index = tierlab_keymap::KeyIndex::Dense(tierlab_keymap::DenseMap::new());
            }
        });
    }

    /// Every key `k` the cache holds (residents and remembered ghosts) becomes
    /// `rename(k)`, and the cache indexes its keys by a hash map from then on (the new
    /// keys need not be dense): how a run that numbered its keys goes back to the keys
    /// themselves. Call it between whole references; it changes no decision to come.
    pub fn rekey(&mut self, rename: &dyn Fn(u64) -> u64) {
        each!(self, c => {
            index::Indexed::end_reference(c);
            let (index, slab) = index::Indexed::index_parts(c);
            index::rekey(index, slab, rename);
        });
    }
}

impl Replacement for AnyCache {
    fn name(&self) -> &'static str {
        each!(self, c => c.name())
    }
    fn access(&mut self, key: u64, now_ns: u64) -> bool {
        each!(self, c => c.access(key, now_ns))
    }
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        each!(self, c => c.insert_sized(key, size, now_ns))
    }
    fn admits(&mut self, key: u64, size: u32) -> bool {
        each!(self, c => c.admits(key, size))
    }
    fn needs_room(&self, size: u32) -> bool {
        each!(self, c => c.needs_room(size))
    }
    fn evict(&mut self, now_ns: u64) -> Option<u64> {
        each!(self, c => c.evict(now_ns))
    }
    fn remove(&mut self, key: u64) -> bool {
        each!(self, c => c.remove(key))
    }
    fn contains(&self, key: u64) -> bool {
        each!(self, c => c.contains(key))
    }
    fn prefetch(&self, key: u64) {
        each!(self, c => c.prefetch(key))
    }
    fn len(&self) -> usize {
        each!(self, c => c.len())
    }
    fn capacity(&self) -> usize {
        each!(self, c => c.capacity())
    }
    fn occupied(&self) -> u64 {
        each!(self, c => c.occupied())
    }
}

#[cfg(test)]
mod tests;
