//! Replacement algorithms behind one small interface, one file each. They decide which
//! resident key to give up; they never do I/O. Used by the hybrid drive's SSD cache
//! (caching mode) and by the tiering policy's demotion (WSClock), in the simulator and on
//! the real device alike.
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

mod arc;
mod list;
mod lru;
mod twoq;
mod wsclock;

pub use arc::Arc;
pub use lru::{Fifo, Lru};
pub use twoq::TwoQ;
pub use wsclock::{SweepFallback, WsClock, WSCLOCK_SCAN_CANDIDATES};

use std::fmt;
use std::str::FromStr;

pub(crate) type KeyMap = rustc_hash::FxHashMap<u64, u32>;

/// A replacement algorithm over `capacity` equally sized resident keys.
pub trait Replacement: Send {
    fn name(&self) -> &'static str;
    /// Look `key` up as an access at `now_ns`. A hit updates the algorithm's state and
    /// returns true. A miss returns false and admits nothing (history such as ARC's ghost
    /// lists is consulted, to be used by the `evict`/`insert` that follow).
    fn access(&mut self, key: u64, now_ns: u64) -> bool;
    /// Admit `key` after a miss. The caller makes room first (`len() < capacity()`).
    fn insert(&mut self, key: u64, now_ns: u64);
    /// Choose a resident key to give up, remove it, and return it.
    fn evict(&mut self, now_ns: u64) -> Option<u64>;
    /// Drop `key` if resident (invalidation); returns whether it was.
    fn remove(&mut self, key: u64) -> bool;
    fn contains(&self, key: u64) -> bool;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn capacity(&self) -> usize;
}

/// One whole reference: access, and on a miss make room and admit. Returns whether it hit
/// and what was evicted.
pub fn reference(cache: &mut dyn Replacement, key: u64, now_ns: u64, evicted: &mut Vec<u64>) -> bool {
    if cache.access(key, now_ns) {
        return true;
    }
    if cache.capacity() == 0 {
        return false;
    }
    while cache.len() >= cache.capacity() {
        match cache.evict(now_ns) {
            Some(v) => evicted.push(v),
            None => break,
        }
    }
    cache.insert(key, now_ns);
    false
}

/// The algorithms by name, for configuration files and the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Algorithm {
    Fifo,
    Lru,
    Arc,
    TwoQ,
    WsClock,
}

impl Algorithm {
    pub const ALL: [Algorithm; 5] = [Algorithm::Fifo, Algorithm::Lru, Algorithm::Arc, Algorithm::TwoQ, Algorithm::WsClock];

    /// A cache of `capacity` keys; `window_ns` is WSClock's working-set window (ignored by
    /// the others).
    pub fn build(self, capacity: usize, window_ns: u64) -> Box<dyn Replacement> {
        match self {
            Algorithm::Fifo => Box::new(Lru::fifo(capacity)),
            Algorithm::Lru => Box::new(Lru::new(capacity)),
            Algorithm::Arc => Box::new(Arc::new(capacity)),
            Algorithm::TwoQ => Box::new(TwoQ::new(capacity)),
            Algorithm::WsClock => Box::new(WsClock::new(capacity, window_ns)),
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
        })
    }
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.to_string().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown replacement algorithm `{s}`: expected one of fifo, lru, arc, 2q, wsclock"))
    }
}

#[cfg(test)]
mod tests;
