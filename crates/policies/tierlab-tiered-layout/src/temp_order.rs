//! One tier's RBs ordered by temperature key ([`crate::layout::temp_key`]: temperature
//! bits above the RB id), as an ordered set of the keys.
//!
//! Most RBs have no temperature (key = RB id, below every key with a temperature), so
//! those are a bit set over the RB ids, in order of id, and only the RBs with a
//! temperature are in a B-tree: building a tier of N cold RBs is N/64 words instead of N
//! tree entries, and the tree holds the RBs that were ever accessed k times.

use std::collections::BTreeSet;

#[derive(Clone, Debug, Default)]
pub(crate) struct TempOrder {
    /// Bit `i`: RB `i` is in the tier with no temperature.
    cold: Vec<u64>,
    cold_len: usize,
    /// No bit is set in the words before this one (raised as [`TempOrder::first`] looks
    /// past empty words).
    cold_from: usize,
    /// No bit is set in the words from this one on (lowered as [`TempOrder::last`] looks
    /// past empty words).
    cold_to: usize,
    /// Keys with a temperature.
    warm: BTreeSet<u64>,
}

/// A key without temperature: the RB id alone.
fn is_cold(k: u64) -> bool {
    k >> 32 == 0
}

impl TempOrder {
    /// Every key of `0..rbs` without temperature.
    pub(crate) fn all_cold(rbs: usize) -> TempOrder {
        let mut cold = vec![u64::MAX; rbs / 64];
        if !rbs.is_multiple_of(64) {
            cold.push((1u64 << (rbs % 64)) - 1);
        }
        let words = cold.len();
        TempOrder { cold, cold_len: rbs, cold_from: 0, cold_to: words, warm: BTreeSet::new() }
    }

    /// Makes `keys` (with temperature, ascending) the keys with temperature.
    pub(crate) fn set_warm(&mut self, keys: Vec<u64>) {
        debug_assert!(keys.iter().all(|&k| !is_cold(k)));
        self.warm = keys.into_iter().collect();
    }

    fn insert_cold(&mut self, i: usize) -> bool {
        let w = i / 64;
        if w >= self.cold.len() {
            self.cold.resize(w + 1, 0);
        }
        let bit = 1u64 << (i % 64);
        if self.cold[w] & bit != 0 {
            return false;
        }
        self.cold[w] |= bit;
        self.cold_len += 1;
        if self.cold_len == 1 {
            (self.cold_from, self.cold_to) = (w, w + 1);
        } else {
            (self.cold_from, self.cold_to) = (self.cold_from.min(w), self.cold_to.max(w + 1));
        }
        true
    }

    pub(crate) fn insert(&mut self, k: u64) -> bool {
        if is_cold(k) {
            self.insert_cold(k as usize)
        } else {
            self.warm.insert(k)
        }
    }

    pub(crate) fn remove(&mut self, k: &u64) -> bool {
        if !is_cold(*k) {
            return self.warm.remove(k);
        }
        let (w, bit) = (*k as usize / 64, 1u64 << (*k % 64));
        match self.cold.get_mut(w) {
            Some(word) if *word & bit != 0 => {
                *word &= !bit;
                self.cold_len -= 1;
                true
            }
            _ => false,
        }
    }

    pub(crate) fn contains(&self, k: &u64) -> bool {
        if is_cold(*k) {
            self.cold.get(*k as usize / 64).is_some_and(|w| w & (1 << (*k % 64)) != 0)
        } else {
            self.warm.contains(k)
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.cold_len + self.warm.len()
    }

    /// The smallest key.
    pub(crate) fn first(&mut self) -> Option<u64> {
        if self.cold_len == 0 {
            return self.warm.first().copied();
        }
        let mut w = self.cold_from;
        while self.cold[w] == 0 {
            w += 1;
        }
        self.cold_from = w;
        Some((w * 64 + self.cold[w].trailing_zeros() as usize) as u64)
    }

    /// The largest key.
    pub(crate) fn last(&mut self) -> Option<u64> {
        if let Some(&k) = self.warm.last() {
            return Some(k);
        }
        if self.cold_len == 0 {
            return None;
        }
        let mut w = self.cold_to;
        while self.cold[w - 1] == 0 {
            w -= 1;
        }
        self.cold_to = w;
        Some(((w - 1) * 64 + 63 - self.cold[w - 1].leading_zeros() as usize) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::TempOrder;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// The set answers as a B-tree set of the same keys does, through any mix of
        /// inserts and removes of keys with and without temperature.
        #[test]
        fn orders_as_a_btree_set(rbs in 0usize..300, ops in prop::collection::vec((0u8..4, 0u64..320, 0u32..3), 0..400)) {
            let mut t = TempOrder::all_cold(rbs);
            let mut b: BTreeSet<u64> = (0..rbs as u64).collect();
            for (op, rb, temp) in ops {
                let k = (u64::from(temp) << 32) | rb;
                match op {
                    0 | 1 => prop_assert_eq!(t.insert(k), b.insert(k)),
                    2 => prop_assert_eq!(t.remove(&k), b.remove(&k)),
                    _ => prop_assert_eq!(t.contains(&k), b.contains(&k)),
                }
                prop_assert_eq!(t.len(), b.len());
                prop_assert_eq!(t.first(), b.first().copied());
                prop_assert_eq!(t.last(), b.last().copied());
            }
            let mut u = TempOrder::default();
            for &k in b.iter().filter(|&&k| k >> 32 == 0) {
                u.insert(k);
            }
            u.set_warm(b.iter().copied().filter(|&k| k >> 32 != 0).collect());
            prop_assert_eq!(u.len(), b.len());
            prop_assert_eq!(u.first(), b.first().copied());
            prop_assert_eq!(u.last(), b.last().copied());
            prop_assert!(b.iter().all(|k| u.contains(k)));
        }
    }
}
