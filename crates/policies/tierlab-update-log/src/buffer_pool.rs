//! A database buffer pool of fixed-size pages: LRU replacement, write-back. The primary's
//! buffer (whose misses and dirty evictions are the primary's data I/O) and the
//! secondary's apply-side cache are both one of these.

use tierlab_index_list::{Ends, Linked, Links, NIL};
use tierlab_keymap::KeyMap;

/// What one page reference cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    /// The page was not resident: it must be read first.
    pub miss: bool,
    /// A dirty page was evicted to make room: it must be written back (page number).
    pub write_back: Option<u64>,
}

/// A resident page, linked into the recency order.
#[derive(Clone, Copy, Debug)]
struct Frame {
    page: u64,
    /// Its neighbours in the recency order.
    links: Links,
}

impl Linked for Frame {
    fn links(&self) -> &Links {
        &self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// A write-back LRU cache of `capacity_pages` pages, keyed by page number.
///
/// One index maps a page to its frame; the frame holds the recency links and the dirty
/// flags sit in a bitmap by frame. A hit is one index lookup; a miss when full is one
/// failed lookup, one remove (the victim) and one insert, the victim's frame reused for
/// the new page. (A general LRU with a separate dirty set costs twice the lookups, each a
/// likely cache miss on a pool of many pages.) Dirty pages are always resident: a page
/// leaves only by eviction, which hands it back to be written if dirty.
pub struct BufferPool {
    index: KeyMap,
    frames: Vec<Frame>,
    /// Bit `f` set: frame `f` holds a dirty page.
    dirty: Vec<u64>,
    dirty_pages: usize,
    /// The frames by recency: the most recently used at the head, the next victim at the
    /// tail.
    lru: Ends,
    capacity_pages: usize,
}

impl BufferPool {
    pub fn new(capacity_pages: usize) -> Self {
        BufferPool {
            index: KeyMap::new(),
            frames: Vec::new(),
            dirty: Vec::new(),
            dirty_pages: 0,
            lru: Ends::EMPTY,
            // Frames are numbered in a u32 below the links' NIL.
            capacity_pages: capacity_pages.min(NIL as usize - 1),
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
        let frame = match self.index.get(&page) {
            Some(&f) => {
                self.lru.move_to_head(&mut self.frames, f);
                f
            }
            None => {
                out.miss = true;
                let f = if self.frames.len() < self.capacity_pages {
                    self.frames.push(Frame { page, links: Links::NONE });
                    if self.frames.len() > self.dirty.len() * 64 {
                        self.dirty.push(0);
                    }
                    (self.frames.len() - 1) as u32
                } else {
                    let f = self.lru.tail;
                    self.lru.unlink(&mut self.frames, f);
                    let victim = self.frames[f as usize].page;
                    self.index.remove(&victim);
                    if self.set_clean(f) {
                        out.write_back = Some(victim);
                    }
                    self.frames[f as usize].page = page;
                    // The next victim's frame was just written (unlinking `f` cleared
                    // its link): start loading the index entry the next miss removes.
                    if let Some(next) = self.frames.get(self.lru.tail as usize) {
                        self.index.prefetch(next.page);
                    }
                    f
                };
                self.lru.push_head(&mut self.frames, f);
                self.index.insert(page, f);
                f
            }
        };
        if modify {
            let (word, bit) = (frame as usize / 64, 1u64 << (frame % 64));
            if self.dirty[word] & bit == 0 {
                self.dirty[word] |= bit;
                self.dirty_pages += 1;
            }
        }
        out
    }

    /// Start loading the index entry `page` would be looked up in (a hint: no state
    /// change), for a caller that knows its next references.
    pub fn prefetch(&self, page: u64) {
        self.index.prefetch(page);
    }

    /// Whether `page` is resident (no state change).
    pub fn contains(&self, page: u64) -> bool {
        self.index.contains_key(&page)
    }

    /// Bring `page` in without marking it used beyond a normal reference and without
    /// dirtying it: a page read ahead. Returns a dirty victim to write back, if any.
    pub fn admit(&mut self, page: u64) -> Option<u64> {
        self.reference(page, false).write_back
    }

    /// Mark `page` clean (it was written back); resident pages stay resident.
    pub fn clean(&mut self, page: u64) {
        if let Some(&f) = self.index.get(&page) {
            self.set_clean(f);
        }
    }

    /// Every dirty page, in ascending order, marked clean: a checkpoint's write list.
    pub fn take_dirty(&mut self) -> Vec<u64> {
        let mut pages = Vec::with_capacity(self.dirty_pages);
        for (w, word) in self.dirty.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                pages.push(self.frames[w * 64 + bits.trailing_zeros() as usize].page);
                bits &= bits - 1;
            }
        }
        self.dirty_pages = 0;
        pages.sort_unstable();
        pages
    }

    pub fn dirty_pages(&self) -> usize {
        self.dirty_pages
    }

    pub fn resident_pages(&self) -> usize {
        self.frames.len()
    }

    /// Clear frame `f`'s dirty flag; whether it was set.
    fn set_clean(&mut self, f: u32) -> bool {
        let (word, bit) = (f as usize / 64, 1u64 << (f % 64));
        let was = self.dirty[word] & bit != 0;
        if was {
            self.dirty[word] &= !bit;
            self.dirty_pages -= 1;
        }
        was
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

    /// The pool as a general LRU beside a separate set of dirty pages: the same
    /// decisions, taken the plain way.
    struct Plain {
        lru: tierlab_cache::Lru,
        dirty: std::collections::BTreeSet<u64>,
        capacity: usize,
    }

    impl Plain {
        fn reference(&mut self, page: u64, modify: bool) -> Reference {
            use tierlab_cache::Replacement;
            let mut out = Reference::default();
            if self.capacity == 0 {
                return Reference { miss: true, write_back: modify.then_some(page) };
            }
            if !self.lru.access(page, 0) {
                out.miss = true;
                if self.lru.len() >= self.capacity {
                    let victim = self.lru.evict(0).unwrap();
                    if self.dirty.remove(&victim) {
                        out.write_back = Some(victim);
                    }
                }
                self.lru.insert(page, 0);
            }
            if modify {
                self.dirty.insert(page);
            }
            out
        }
    }

    #[derive(Clone, Debug)]
    enum Step {
        Reference(u64, bool),
        Clean(u64),
        TakeDirty,
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            8 => (0u64..200, any::<bool>()).prop_map(|(p, m)| Step::Reference(p, m)),
            1 => (0u64..200).prop_map(Step::Clean),
            1 => Just(Step::TakeDirty),
        ]
    }

    proptest::proptest! {
        /// Every reference misses, hits and writes back exactly as an LRU with a separate
        /// dirty set would, and the dirty pages and residents agree after every step.
        #[test]
        fn the_pool_decides_as_an_lru_with_a_dirty_set(
            capacity in 0usize..150,
            steps in proptest::collection::vec(step(), 1..2000),
        ) {
            let mut pool = BufferPool::new(capacity);
            let mut plain = Plain { lru: tierlab_cache::Lru::new(capacity), dirty: Default::default(), capacity };
            for s in steps {
                match s {
                    Step::Reference(p, m) => proptest::prop_assert_eq!(pool.reference(p, m), plain.reference(p, m)),
                    Step::Clean(p) => {
                        pool.clean(p);
                        plain.dirty.remove(&p);
                    }
                    Step::TakeDirty => {
                        let expected: Vec<u64> = std::mem::take(&mut plain.dirty).into_iter().collect();
                        proptest::prop_assert_eq!(pool.take_dirty(), expected);
                    }
                }
                proptest::prop_assert_eq!(pool.dirty_pages(), plain.dirty.len());
                proptest::prop_assert_eq!(pool.resident_pages(), tierlab_cache::Replacement::len(&plain.lru));
                for p in 0..200 {
                    proptest::prop_assert_eq!(pool.contains(p), tierlab_cache::Replacement::contains(&plain.lru, p));
                }
            }
        }
    }
}
