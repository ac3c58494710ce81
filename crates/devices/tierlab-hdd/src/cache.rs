//! The drive's on-board buffer: a fixed number of segments, each holding one contiguous
//! run of logical blocks, replaced least-recently-used first; and the read-ahead stream
//! that fills one of them in the background.

use crate::pass::Head;

/// Read-ahead in progress: blocks `[from_lbn, to_lbn)` are being read into `segment` by a
/// media pass whose positioning for `from_lbn` begins at `begin_ns` with the heads at
/// `head` (advanced track by track as the pass is observed).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prefetch {
    pub segment: usize,
    pub from_lbn: u64,
    pub to_lbn: u64,
    pub begin_ns: f64,
    pub head: Head,
}

#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    start: u64,
    end: u64,
    last_use: u64,
    /// Last filled by a write.
    write: bool,
}

/// The cache segments (empty when the cache is disabled).
#[derive(Clone, Debug)]
pub(crate) struct Segments {
    segs: Vec<Segment>,
    tick: u64,
    /// At most this many segments hold write data at once.
    max_write: usize,
    /// Segment 0 is reserved for writes (reads may still hit on it).
    separate_write: bool,
}

impl Segments {
    pub fn new(count: usize, max_write: usize, separate_write: bool) -> Segments {
        Segments {
            segs: vec![Segment::default(); count],
            tick: 0,
            max_write: max_write.clamp(1, count.max(1)),
            separate_write: separate_write && count >= 2,
        }
    }

    /// How many segments may hold write data at once: the dedicated write segment, else
    /// every segment (`every`) or the write-segment limit.
    pub fn write_capacity(&self, every: bool) -> usize {
        if self.separate_write {
            1
        } else if every {
            self.segs.len().max(1)
        } else {
            self.max_write
        }
    }

    pub fn start(&self, i: usize) -> u64 {
        self.segs.get(i).map_or(0, |s| s.start)
    }

    pub fn end(&self, i: usize) -> u64 {
        self.segs.get(i).map_or(0, |s| s.end)
    }

    /// Extend (or cut) segment `i` to end at `end`, dropping its oldest blocks so it keeps
    /// at most `capacity` (a segment is a circular buffer).
    pub fn set_end(&mut self, i: usize, end: u64, capacity: u64) {
        if let Some(s) = self.segs.get_mut(i) {
            s.end = end.max(s.start);
            s.start = s.start.max(s.end.saturating_sub(capacity.max(1)));
        }
    }

    pub fn touch(&mut self, i: usize) {
        self.tick += 1;
        if let Some(s) = self.segs.get_mut(i) {
            s.last_use = self.tick;
        }
    }

    /// The segment holding `lbn` (the first one, should two share it) and how many blocks from
    /// `lbn` (up to `end`) it holds.
    pub fn lookup(&self, lbn: u64, end: u64) -> Option<(usize, u64)> {
        // Scanned backwards without early exit (branch-free): the first holder wins.
        let mut found = None;
        for (i, s) in self.segs.iter().enumerate().rev() {
            found = if (s.start <= lbn) & (lbn < s.end) { Some((i, s.end.min(end) - lbn)) } else { found };
        }
        found
    }

    /// How many blocks from `lbn` (up to `end`) the cache holds contiguously.
    #[cfg(test)]
    pub fn cached_prefix(&self, lbn: u64, end: u64) -> u64 {
        self.lookup(lbn, end).map_or(0, |(_, k)| k)
    }

    /// Put `[lbn, end)` in a segment, keeping at most `capacity` blocks. A read (`write`
    /// false) extends the segment it continues, else reuses the least recently used one.
    /// A write takes a fresh segment — the least recently used write segment once the
    /// write-segment limit is reached — and drops whole any segment holding its blocks.
    /// Returns the segment, or `None` without segments.
    pub fn fill(&mut self, lbn: u64, end: u64, capacity: u64, write: bool) -> Option<usize> {
        if self.segs.is_empty() {
            return None;
        }
        // One pass: find the segment to extend and the least recently used ones, and drop
        // every other segment holding any of these blocks.
        let mut extend_at = usize::MAX;
        let (mut lru, mut lru_use) = (0, u64::MAX);
        let (mut lru_w, mut lru_w_use) = (usize::MAX, u64::MAX);
        let mut writes = 0;
        let reserved = self.separate_write;
        // Non-short-circuit `&` and selects keep the loop free of data-dependent branches.
        for (i, s) in self.segs.iter_mut().enumerate() {
            // With a separate write segment, reads use the others and writes only it.
            let usable = !reserved | ((i == 0) == write);
            let extendable = usable & !write & (extend_at == usize::MAX) & (s.start <= lbn) & (lbn <= s.end) & (s.end > s.start);
            let overlaps = (s.start < end) & (lbn < s.end);
            extend_at = if extendable { i } else { extend_at };
            s.end = if !extendable & overlaps { s.start } else { s.end };
            let older = usable & (s.last_use < lru_use);
            (lru, lru_use) = if older { (i, s.last_use) } else { (lru, lru_use) };
            writes += usize::from(s.write);
            let older_w = s.write & (s.last_use < lru_w_use);
            (lru_w, lru_w_use) = if older_w { (i, s.last_use) } else { (lru_w, lru_w_use) };
        }
        let (i, start) = if extend_at != usize::MAX {
            (extend_at, self.segs[extend_at].start)
        } else if write && writes >= self.max_write && lru_w != usize::MAX {
            (lru_w, lbn)
        } else {
            (lru, lbn)
        };
        self.segs[i].start = start.max(end.saturating_sub(capacity.max(1)));
        self.segs[i].end = end;
        self.segs[i].write = write;
        self.touch(i);
        Some(i)
    }

    /// Forget every segment overlapping `[lbn, end)`.
    pub fn invalidate(&mut self, lbn: u64, end: u64) {
        for s in &mut self.segs {
            if s.start < end && lbn < s.end {
                s.end = s.start;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_segment_is_replaced_and_prefix_is_contiguous() {
        let mut s = Segments::new(2, 2, false);
        let a = s.fill(0, 10, 100, false);
        let b = s.fill(100, 110, 100, false);
        assert_ne!(a, b);
        assert_eq!(s.cached_prefix(5, 20), 5);
        s.touch(a.unwrap_or(0));
        let c = s.fill(500, 510, 100, false);
        assert_eq!(c, b, "the least recently used segment is reused");
        assert_eq!(s.cached_prefix(100, 101), 0);
        assert_eq!(s.cached_prefix(0, 10), 10);
    }

    #[test]
    fn a_write_takes_a_fresh_segment_and_drops_overlapping_ones() {
        let mut s = Segments::new(2, 2, false);
        s.fill(0, 100, 1000, false);
        s.fill(50, 60, 1000, true);
        assert_eq!(s.cached_prefix(0, 100), 0, "the read segment is dropped whole");
        assert_eq!(s.cached_prefix(50, 60), 10);
    }

    #[test]
    fn writes_stay_within_their_segment_limit() {
        let mut s = Segments::new(3, 1, false);
        s.fill(0, 10, 100, false);
        s.fill(100, 110, 100, true);
        s.fill(200, 210, 100, true);
        assert_eq!(s.cached_prefix(0, 10), 10, "the read segment survives two writes");
        assert_eq!(s.cached_prefix(100, 110), 0, "the second write reused the write segment");
        assert_eq!(s.cached_prefix(200, 210), 10);
    }

    #[test]
    fn a_separate_write_segment_is_never_used_by_reads() {
        let mut s = Segments::new(2, 1, true);
        assert_eq!(s.fill(0, 10, 100, true), Some(0));
        assert_eq!(s.fill(100, 110, 100, false), Some(1));
        assert_eq!(s.fill(200, 210, 100, false), Some(1), "reads have one segment");
        assert_eq!(s.cached_prefix(0, 10), 10, "the write data stays and can be read");
    }

    #[test]
    fn capacity_keeps_the_tail_and_invalidate_forgets() {
        let mut s = Segments::new(1, 1, false);
        s.fill(0, 1000, 64, false);
        assert_eq!(s.cached_prefix(0, 1000), 0);
        assert_eq!(s.cached_prefix(936, 1000), 64);
        s.invalidate(950, 951);
        assert_eq!(s.cached_prefix(936, 1000), 0);
    }
}
