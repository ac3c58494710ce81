//! WSClock (R. W. Carr and J. L. Hennessy, SOSP 1981), as GreenDM uses it to pick cold
//! extents to demote: resident keys sit on a ring with a reference bit and the time of
//! their last use. The hand sweeps the ring: a referenced key has its bit cleared and is
//! passed over; an unreferenced key unused for longer than the working-set window is the
//! victim. The sweep gives up after passing [`WSCLOCK_SCAN_CANDIDATES`] unreferenced keys
//! inside the window (or a whole turn) and takes the least recently used of them (or,
//! when every key was referenced, the key the hand rests on).
//!
//! The limit keeps an eviction's cost bounded when every key is inside the window — the
//! common case for a cache smaller than the working set, where an unbounded sweep costs a
//! turn of the ring per eviction. Clearing reference bits is paid for by the accesses that
//! set them, so an eviction costs O(limit) amortized. The oldest of the candidates seen
//! approximates the least recently used key of a whole turn.

use crate::index::Indexed;
use crate::list::{Ends, Slab, NIL};
use crate::Replacement;
use tierlab_keymap::KeyIndex;

/// How many unreferenced keys inside the window a sweep passes before it settles for the
/// oldest of them.
pub const WSCLOCK_SCAN_CANDIDATES: u32 = 64;

/// A WSClock sweep's fallback: the least recently used of the first
/// [`WSCLOCK_SCAN_CANDIDATES`] candidates (unreferenced, inside the window) it passes,
/// the earliest passed on a tie. Shared by [`WsClock`] and the tiering policy's demotion
/// sweep, so that both settle by the same rule.
#[derive(Clone, Copy, Debug)]
pub struct SweepFallback<K> {
    oldest: Option<(K, u64)>,
    seen: u32,
}

impl<K: Copy> Default for SweepFallback<K> {
    fn default() -> Self {
        SweepFallback { oldest: None, seen: 0 }
    }
}

impl<K: Copy> SweepFallback<K> {
    /// Note a candidate last used at `stamp`; true once the sweep has passed enough of
    /// them and should stop.
    pub fn offer(&mut self, key: K, stamp: u64) -> bool {
        if self.oldest.is_none_or(|(_, s)| stamp < s) {
            self.oldest = Some((key, stamp));
        }
        self.seen += 1;
        self.seen >= WSCLOCK_SCAN_CANDIDATES
    }

    /// The oldest candidate passed, if any.
    pub fn oldest(&self) -> Option<K> {
        self.oldest.map(|(k, _)| k)
    }
}

pub struct WsClock {
    capacity: usize,
    window_ns: u64,
    map: KeyIndex,
    slab: Slab,
    ring: Ends,
    /// The node the hand points at (NIL when empty).
    hand: u32,
}

impl WsClock {
    pub fn new(capacity: usize, window_ns: u64) -> Self {
        WsClock { capacity, window_ns, map: KeyIndex::default(), slab: Slab::default(), ring: Ends::new(), hand: NIL }
    }

    /// The node after `i` in sweep order (oldest insertion towards newest, then around).
    fn after(&self, i: u32) -> u32 {
        match self.slab.nodes[i as usize].links.prev {
            NIL => self.ring.ends.tail,
            p => p,
        }
    }

    fn take(&mut self, i: u32) -> u64 {
        if self.hand == i {
            self.hand = if self.ring.len > 1 { self.after(i) } else { NIL };
        }
        self.slab.unlink(&mut self.ring, i);
        let key = self.slab.nodes[i as usize].key;
        self.slab.release(i);
        self.map.remove(&key);
        key
    }
}

impl Indexed for WsClock {
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab) {
        (&mut self.map, &mut self.slab)
    }
}

impl Replacement for WsClock {
    fn name(&self) -> &'static str {
        "wsclock"
    }

    #[inline]
    fn access(&mut self, key: u64, now_ns: u64) -> bool {
        let Some(&i) = self.map.get(&key) else { return false };
        let n = &mut self.slab.nodes[i as usize];
        n.flag = true;
        n.stamp_ns = n.stamp_ns.max(now_ns);
        true
    }

    #[inline]
    fn insert_sized(&mut self, key: u64, size: u32, now_ns: u64) {
        if self.access(key, now_ns) {
            return;
        }
        let i = self.slab.alloc(key, size, 0, now_ns);
        self.slab.push_head(&mut self.ring, i);
        self.map.insert(key, i);
        if self.hand == NIL {
            self.hand = i;
        }
    }

    #[inline]
    fn evict(&mut self, now_ns: u64) -> Option<u64> {
        if self.hand == NIL {
            return None;
        }
        let mut fallback = SweepFallback::default();
        for _ in 0..self.ring.len {
            let i = self.hand;
            let (referenced, stamp_ns) = (self.slab.nodes[i as usize].flag, self.slab.nodes[i as usize].stamp_ns);
            let mut settle = false;
            if referenced {
                self.slab.nodes[i as usize].flag = false;
            } else if now_ns.saturating_sub(stamp_ns) > self.window_ns {
                return Some(self.take(i));
            } else {
                settle = fallback.offer(i, stamp_ns);
            }
            self.hand = self.after(i);
            if settle {
                break;
            }
        }
        let victim = fallback.oldest().unwrap_or(self.hand);
        Some(self.take(victim))
    }

    fn remove(&mut self, key: u64) -> bool {
        match self.map.get(&key) {
            Some(&i) => {
                self.take(i);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        self.map.prefetch(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.ring.units
    }
}
