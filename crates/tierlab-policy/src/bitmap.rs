//! Occupancy of physical extents: one bit each, with lowest-free allocation.

#[derive(Clone, Debug)]
pub struct Bitmap {
    words: Vec<u64>,
    len: u32,
    /// No free bit below this word.
    hint: usize,
}

impl Bitmap {
    pub fn new(len: u32) -> Self {
        Bitmap { words: vec![0; (len as usize).div_ceil(64)], len, hint: 0 }
    }

    pub fn is_set(&self, i: u32) -> bool {
        self.words[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    pub fn set(&mut self, i: u32) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }

    pub fn clear(&mut self, i: u32) {
        self.words[(i / 64) as usize] &= !(1 << (i % 64));
        self.hint = self.hint.min((i / 64) as usize);
    }

    /// The lowest clear bit in `[lo, hi)`, set; None if all are set.
    pub fn alloc_in(&mut self, lo: u32, hi: u32) -> Option<u32> {
        let hi = hi.min(self.len);
        let mut w = (lo / 64) as usize;
        if lo == 0 {
            w = w.max(self.hint);
        }
        while (w as u64) * 64 < hi as u64 {
            let mut free = !self.words[w];
            if (w as u64) * 64 < lo as u64 {
                free &= u64::MAX << (lo % 64);
            }
            if free != 0 {
                let i = w as u32 * 64 + free.trailing_zeros();
                if i >= hi {
                    return None;
                }
                self.set(i);
                return Some(i);
            }
            if lo == 0 {
                self.hint = w + 1;
            }
            w += 1;
        }
        None
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_lowest_free_within_range() {
        let mut b = Bitmap::new(200);
        assert_eq!(b.alloc_in(0, 200), Some(0));
        assert_eq!(b.alloc_in(0, 200), Some(1));
        assert_eq!(b.alloc_in(100, 200), Some(100));
        b.clear(0);
        assert_eq!(b.alloc_in(0, 200), Some(0));
        for i in 2..100 {
            assert_eq!(b.alloc_in(0, 100), Some(i));
        }
        assert_eq!(b.alloc_in(0, 100), None);
        assert_eq!(b.alloc_in(0, 200), Some(101));
        b.clear(70);
        assert_eq!(b.alloc_in(0, 200), Some(70));
    }
}
