//! Busy timeline of one channel bus. Recent reservations are kept so that a short command
//! can use the gap before a transfer booked for later (interleaving across the dies of a
//! channel); older ones collapse into a floor before which the bus counts as busy, which
//! bounds the work per reservation.
//!
//! Reservations that touch (one ends where the next starts) are stored as one run with a
//! count: no gap exists inside a run, so searching runs finds the same gaps as searching
//! the reservations one by one, and back-to-back transfers (a multi-page request, a
//! migration) cost one entry instead of one each.

/// Reservations booked back to back: `[start_ns, end_ns)`, made of `count` of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Run {
    start_ns: u64,
    end_ns: u64,
    count: u32,
}

/// Reservations of one channel bus: the `KEEP` latest in time as sorted, disjoint runs
/// separated by gaps, the earlier ones folded into `floor_ns`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bus {
    floor_ns: u64,
    /// A ring: run `i` (0 the earliest) is `ring[(head + i) % RING]`, for `i < len`, so
    /// folding the earliest run and appending the latest move nothing.
    ring: [Run; Bus::RING],
    head: usize,
    len: usize,
    /// Reservations in the runs (the sum of their counts), at most `KEEP`.
    held: usize,
}

impl Bus {
    const KEEP: usize = 16;
    /// Ring slots: a power of two above `KEEP` (one run per reservation at most, plus the
    /// one being inserted before the earliest is folded).
    const RING: usize = 32;

    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (Self::RING - 1)
    }

    fn run(&self, i: usize) -> &Run {
        &self.ring[self.slot(i)]
    }

    fn run_mut(&mut self, i: usize) -> &mut Run {
        &mut self.ring[self.slot(i)]
    }

    /// Book `dur_ns` at the earliest gap at or after `earliest_ns`; returns the start.
    /// A zero-length command is not booked (it holds the bus for no time), it only waits
    /// for the bus to be free.
    pub(crate) fn reserve(&mut self, earliest_ns: u64, dur_ns: u64) -> u64 {
        let mut t = earliest_ns.max(self.floor_ns);
        // Runs that end by `t` neither hold a gap at or after it nor push it later; they
        // are the earliest ones (ends rise with starts), so skip them from the back.
        let mut first = self.len;
        while first > 0 && self.run(first - 1).end_ns > t {
            first -= 1;
        }
        let mut at = self.len;
        for i in first..self.len {
            let r = self.run(i);
            if t.saturating_add(dur_ns) <= r.start_ns {
                at = i;
                break;
            }
            t = t.max(r.end_ns);
        }
        if dur_ns > 0 {
            self.book(at, t, t.saturating_add(dur_ns));
        }
        t
    }

    /// Insert `[start_ns, end_ns)` before run `at` (it lies in the gap before it), joining
    /// the runs it touches, then fold the earliest reservation into the floor if over
    /// `KEEP`.
    fn book(&mut self, at: usize, start_ns: u64, end_ns: u64) {
        let joins_prev = at > 0 && self.run(at - 1).end_ns == start_ns;
        let joins_next = at < self.len && self.run(at).start_ns == end_ns;
        match (joins_prev, joins_next) {
            (true, true) => {
                let next = *self.run(at);
                let prev = self.run_mut(at - 1);
                prev.end_ns = next.end_ns;
                prev.count += next.count + 1;
                self.remove(at);
            }
            (true, false) => {
                let prev = self.run_mut(at - 1);
                prev.end_ns = end_ns;
                prev.count += 1;
            }
            (false, true) => {
                let next = self.run_mut(at);
                next.start_ns = start_ns;
                next.count += 1;
            }
            (false, false) => self.insert(
                at,
                Run {
                    start_ns,
                    end_ns,
                    count: 1,
                },
            ),
        }
        self.held += 1;
        if self.held > Self::KEEP {
            self.fold_earliest();
        }
    }

    /// Fold the earliest reservation into the floor. Inside a run, any floor between the
    /// run's start and end books the same (a search that starts there skips to the run's
    /// end), so the run's start stands for the unknown end of its first reservation.
    fn fold_earliest(&mut self) {
        let first = self.run_mut(0);
        first.count -= 1;
        let (start_ns, end_ns, emptied) = (first.start_ns, first.end_ns, first.count == 0);
        self.held -= 1;
        if emptied {
            self.floor_ns = self.floor_ns.max(end_ns);
            self.remove(0);
        } else {
            self.floor_ns = self.floor_ns.max(start_ns);
        }
    }

    /// Insert run `r` at position `at`, moving the later runs up one.
    fn insert(&mut self, at: usize, r: Run) {
        for i in (at..self.len).rev() {
            *self.run_mut(i + 1) = *self.run(i);
        }
        *self.run_mut(at) = r;
        self.len += 1;
    }

    /// Remove run `at`, moving the later runs down one.
    fn remove(&mut self, at: usize) {
        if at == 0 {
            self.head = self.slot(1);
        } else {
            for i in at..self.len - 1 {
                *self.run_mut(i) = *self.run(i + 1);
            }
        }
        self.len -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::Bus;
    use proptest::prelude::*;

    /// The bus before runs: every reservation its own interval, the oldest folded into
    /// the floor past `KEEP`. Booking by runs must give the same starts.
    #[derive(Default)]
    struct Reference {
        floor_ns: u64,
        booked: Vec<(u64, u64)>,
    }

    impl Reference {
        fn reserve(&mut self, earliest_ns: u64, dur_ns: u64) -> u64 {
            let mut t = earliest_ns.max(self.floor_ns);
            let mut at = self.booked.len();
            for (i, &(s, e)) in self.booked.iter().enumerate() {
                if t + dur_ns <= s {
                    at = i;
                    break;
                }
                t = t.max(e);
            }
            self.booked.insert(at, (t, t + dur_ns));
            if self.booked.len() > Bus::KEEP {
                let (_, end) = self.booked.remove(0);
                self.floor_ns = self.floor_ns.max(end);
            }
            t
        }
    }

    /// Runs are sorted, separated by gaps, start at or after the floor, and hold
    /// `held` <= KEEP reservations.
    fn check(b: &Bus) {
        let runs: Vec<_> = (0..b.len).map(|i| *b.run(i)).collect();
        assert!(
            runs.iter().all(|r| r.start_ns < r.end_ns && r.count > 0),
            "{runs:?}"
        );
        assert!(
            runs.windows(2).all(|w| w[0].end_ns < w[1].start_ns),
            "{runs:?}"
        );
        assert!(
            runs.first().is_none_or(|r| r.start_ns >= b.floor_ns),
            "{runs:?}"
        );
        assert_eq!(runs.iter().map(|r| r.count as usize).sum::<usize>(), b.held);
        assert!(b.held <= Bus::KEEP);
    }

    #[test]
    fn bus_fills_gaps_and_joins_touching_reservations() {
        let mut b = Bus::default();
        assert_eq!(b.reserve(0, 10), 0);
        assert_eq!(b.reserve(50, 100), 50);
        assert_eq!(b.reserve(0, 5), 10); // gap 10..50, joins the first run
        assert_eq!(b.reserve(0, 60), 150); // no gap long enough before 150
        assert_eq!(b.reserve(12, 30), 15);
        assert_eq!(b.len, 2); // 0..45 and 50..210
        assert_eq!(b.reserve(40, 5), 45); // closes the gap: one run
        assert_eq!(b.len, 1);
        assert_eq!(b.run(0).count, 6);
        check(&b);
    }

    #[test]
    fn bus_back_to_back_reservations_stay_one_run() {
        let mut b = Bus::default();
        for i in 0..1000 {
            assert_eq!(b.reserve(0, 7), i * 7);
        }
        // The 984 oldest are folded; the run's start stands in for the floor.
        assert_eq!((b.len, b.held), (1, Bus::KEEP));
        assert_eq!(b.reserve(0, 3), 7000);
        check(&b);
    }

    #[test]
    fn bus_zero_length_command_waits_but_is_not_booked() {
        let mut b = Bus::default();
        b.reserve(10, 20);
        assert_eq!(b.reserve(15, 0), 30);
        assert_eq!(b.reserve(5, 0), 5);
        assert_eq!(b.held, 1);
    }

    proptest! {
        /// Same starts as the reservation-by-reservation model, never booked before
        /// `earliest`, never overlapping any reservation still held.
        #[test]
        fn bus_matches_reference_and_never_double_books(
            ops in prop::collection::vec((0u64..60, 0u64..800, 1u64..120), 1..300),
        ) {
            let (mut b, mut r) = (Bus::default(), Reference::default());
            let mut booked: Vec<(u64, u64)> = Vec::new();
            let mut clock = 0u64;
            for (step, back, dur) in ops {
                // A clock that moves on, with requests ready up to `back` ns earlier.
                clock += step;
                let earliest = clock.saturating_sub(back);
                let t = b.reserve(earliest, dur);
                prop_assert_eq!(t, r.reserve(earliest, dur));
                prop_assert!(t >= earliest);
                prop_assert!(booked.iter().all(|&(s, e)| t + dur <= s || e <= t));
                booked.push((t, t + dur));
                check(&b);
            }
        }
    }
}
