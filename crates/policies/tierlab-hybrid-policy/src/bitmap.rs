//! Occupancy of physical extents: one bit each, with lowest-free allocation.
//!
//! Allocation searches a range from its low end. The policies search a few fixed ranges
//! (the whole device, the SSD, the HDD), and a full region at the low end of a range would
//! be rescanned on every call; so the bitmap remembers, per range start, the first word
//! that may still have a free bit (a clear below it moves it back).

#[derive(Clone, Debug)]
pub struct Bitmap {
    words: Vec<u64>,
    len: u32,
    /// `(range start bit, hint word)`: no free bit at or above the range start in the
    /// words before the hint word.
    hints: Vec<(u32, usize)>,
}

/// Range starts remembered; the policies use at most three.
const HINTS: usize = 4;

impl Bitmap {
    pub fn new(len: u32) -> Self {
        Bitmap { words: vec![0; (len as usize).div_ceil(64)], len, hints: Vec::with_capacity(HINTS) }
    }

    pub fn is_set(&self, i: u32) -> bool {
        self.words[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    pub fn set(&mut self, i: u32) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }

    pub fn clear(&mut self, i: u32) {
        let w = (i / 64) as usize;
        self.words[w] &= !(1 << (i % 64));
        for (lo, hint) in &mut self.hints {
            if *lo <= i && w < *hint {
                *hint = w;
            }
        }
    }

    /// The lowest clear bit in `[lo, hi)`, set; None if all are set.
    pub fn alloc_in(&mut self, lo: u32, hi: u32) -> Option<u32> {
        let hi = hi.min(self.len);
        let start = (lo / 64) as usize;
        let slot = match self.hints.iter().position(|&(l, _)| l == lo) {
            Some(k) => k,
            None => {
                if self.hints.len() == HINTS {
                    self.hints.remove(0);
                }
                self.hints.push((lo, start));
                self.hints.len() - 1
            }
        };
        let mut w = self.hints[slot].1;
        while (w as u64) * 64 < hi as u64 {
            let mut free = !self.words[w];
            if w == start {
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
            w += 1;
            self.hints[slot].1 = w;
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

    /// Against a plain scan: whatever mix of ranges and clears, the lowest free bit.
    #[test]
    fn hints_never_skip_a_free_bit() {
        let mut b = Bitmap::new(700);
        let mut model = vec![false; 700];
        let mut x = 12345u64;
        for _ in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = (x >> 33) as u32;
            if r.is_multiple_of(3) {
                let i = (r / 3) % 700;
                if model[i as usize] {
                    b.clear(i);
                    model[i as usize] = false;
                }
            } else {
                // Six range starts (more than the hints held), some not word-aligned.
                let lo = [0, 64, 100, 300, 513, 640][(r / 3 % 6) as usize];
                let hi = (lo + 1 + (r >> 8) % 400).min(700);
                let expected = (lo..hi).find(|&i| !model[i as usize]);
                assert_eq!(b.alloc_in(lo, hi), expected, "alloc_in({lo}, {hi})");
                if let Some(i) = expected {
                    model[i as usize] = true;
                }
            }
        }
    }
}
