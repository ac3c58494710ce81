//! Busy timeline of one channel bus. Recent reservations are kept as intervals so that
//! a short command can use the gap before a transfer booked for later (interleaving
//! across the dies of a channel); older ones collapse into a floor before which the bus
//! counts as busy, which bounds the work per reservation.

use std::collections::VecDeque;

/// Reservations of one channel bus: the `KEEP` most recent as sorted, disjoint
/// intervals, the rest folded into `floor`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bus {
    floor: u64,
    booked: VecDeque<(u64, u64)>,
}

impl Bus {
    const KEEP: usize = 16;

    /// Book `dur` ns at the earliest gap at or after `earliest`; returns the start.
    pub(crate) fn reserve(&mut self, earliest: u64, dur: u64) -> u64 {
        let mut t = earliest.max(self.floor);
        let mut at = self.booked.len();
        if self.booked.back().is_some_and(|&(_, end)| t < end) {
            for (i, &(s, e)) in self.booked.iter().enumerate() {
                if t + dur <= s {
                    at = i;
                    break;
                }
                t = t.max(e);
            }
        }
        self.booked.insert(at, (t, t + dur));
        if self.booked.len() > Self::KEEP {
            if let Some((_, end)) = self.booked.pop_front() {
                self.floor = self.floor.max(end);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::Bus;

    #[test]
    fn bus_fills_gaps_and_never_double_books() {
        let mut b = Bus::default();
        assert_eq!(b.reserve(0, 10), 0);
        assert_eq!(b.reserve(50, 100), 50);
        assert_eq!(b.reserve(0, 5), 10); // gap 10..50
        assert_eq!(b.reserve(0, 60), 150); // no gap long enough before 150
        assert_eq!(b.reserve(12, 30), 15);
        for i in 0..100 {
            b.reserve(i, 3);
        }
        let v: Vec<_> = b.booked.iter().copied().collect();
        assert!(v.windows(2).all(|w| w[0].1 <= w[1].0), "{v:?}");
        assert!(v.first().is_some_and(|&(s, _)| s >= b.floor));
    }
}
