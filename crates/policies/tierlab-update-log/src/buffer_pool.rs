//! A database buffer pool of fixed-size pages: LRU replacement, write-back. The primary's
//! buffer (whose misses and dirty evictions are the primary's data I/O) and the
//! secondary's apply-side cache are both one of these.

use tierlab_cache::{KeySet, Lru, Replacement};

/// What one page reference cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    /// The page was not resident: it must be read first.
    pub miss: bool,
    /// A dirty page was evicted to make room: it must be written back (page number).
    pub write_back: Option<u64>,
}

/// A write-back LRU cache of `capacity_pages` pages, keyed by page number.
pub struct BufferPool {
    lru: Lru,
    /// Dirty pages, in a set whose removes leave no deleted-slot markers (pages are made
    /// dirty and clean again all run long).
    dirty: KeySet,
    capacity_pages: usize,
}

impl BufferPool {
    pub fn new(capacity_pages: usize) -> Self {
        BufferPool {
            lru: Lru::new(capacity_pages),
            dirty: KeySet::new(),
            capacity_pages,
        }
    }

    pub fn capacity_pages(&self) -> usize {
        self.capacity_pages
    }

    /// Reference `page`; `modify` leaves it dirty. With no capacity every reference misses
    /// and a modified page is written back at once (`write_back` is the page itself).
    pub fn reference(&mut self, page: u64, modify: bool) -> Reference {
        if self.capacity_pages == 0 {
            return Reference {
                miss: true,
                write_back: modify.then_some(page),
            };
        }
        let mut out = Reference::default();
        if !self.lru.access(page, 0) {
            out.miss = true;
            if self.lru.len() >= self.capacity_pages {
                if let Some(victim) = self.lru.evict(0) {
                    if self.dirty.remove(&victim) {
                        out.write_back = Some(victim);
                    }
                }
            }
            self.lru.insert(page, 0);
        }
        if modify {
            self.dirty.insert(page);
        }
        out
    }

    /// Whether `page` is resident (no state change).
    pub fn contains(&self, page: u64) -> bool {
        self.lru.contains(page)
    }

    /// Bring `page` in without marking it used beyond a normal reference and without
    /// dirtying it: a page read ahead. Returns a dirty victim to write back, if any.
    pub fn admit(&mut self, page: u64) -> Option<u64> {
        self.reference(page, false).write_back
    }

    /// Mark `page` clean (it was written back); resident pages stay resident.
    pub fn clean(&mut self, page: u64) {
        self.dirty.remove(&page);
    }

    /// Every dirty page, in ascending order, marked clean: a checkpoint's write list.
    pub fn take_dirty(&mut self) -> Vec<u64> {
        let mut pages: Vec<u64> = self.dirty.drain().collect();
        pages.sort_unstable();
        pages
    }

    pub fn dirty_pages(&self) -> usize {
        self.dirty.len()
    }

    pub fn resident_pages(&self) -> usize {
        self.lru.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_write_back_returns_only_dirty_victims() {
        let mut p = BufferPool::new(2);
        assert_eq!(
            p.reference(1, true),
            Reference {
                miss: true,
                write_back: None
            }
        );
        assert_eq!(
            p.reference(2, false),
            Reference {
                miss: true,
                write_back: None
            }
        );
        // 1 is the least recently used and dirty.
        assert_eq!(
            p.reference(3, false),
            Reference {
                miss: true,
                write_back: Some(1)
            }
        );
        // 2 is clean: evicted silently.
        assert_eq!(
            p.reference(4, false),
            Reference {
                miss: true,
                write_back: None
            }
        );
        assert!(!p.reference(4, true).miss);
        assert_eq!(p.take_dirty(), vec![4]);
        assert_eq!(p.dirty_pages(), 0);
        assert!(p.contains(4) && p.contains(3));
    }

    #[test]
    fn zero_capacity_misses_and_writes_through() {
        let mut p = BufferPool::new(0);
        assert_eq!(
            p.reference(7, true),
            Reference {
                miss: true,
                write_back: Some(7)
            }
        );
        assert_eq!(
            p.reference(7, false),
            Reference {
                miss: true,
                write_back: None
            }
        );
        assert!(p.take_dirty().is_empty());
    }
}
