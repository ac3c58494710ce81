//! Recency kept as stamps until it is first needed. The model keeps two recency-ordered
//! structures that are read only under pressure: DFTL's segmented LRU (read when an entry
//! must leave a segment) and the collector's reclaim index (read when a plane collects).
//! A hybrid drive's SSD is roomy, so neither may ever be read in a run, yet keeping them
//! relinks two or three scattered records per page. Instead, each event takes the next
//! stamp from a rising counter; the first reader sorts by stamp, builds the structure
//! exactly as keeping it all along would have, and it is kept from then on.

/// The stamp counter of one structure: in use until the structure is built.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stamps {
    next: Option<u32>,
}

impl Stamps {
    pub(crate) const fn new() -> Stamps {
        Stamps { next: Some(0) }
    }

    /// Stamps from `next` on (`None`: the structure is kept from the start); tests use it
    /// to reach the end of the counter.
    #[cfg(test)]
    pub(crate) const fn starting_at(next: Option<u32>) -> Stamps {
        Stamps { next }
    }

    /// Whether the structure is not kept yet (events are stamped instead).
    #[inline]
    pub(crate) fn in_use(&self) -> bool {
        self.next.is_some()
    }

    /// The next stamp, rising with every call; `None` once the structure is kept, and
    /// when the counter has run out (then the caller builds the structure). `u32::MAX`
    /// is never handed out, so a caller may give it to the event it builds on.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<u32> {
        let stamp = self.next.filter(|&s| s < u32::MAX)?;
        self.next = Some(stamp + 1);
        Some(stamp)
    }

    /// Stop stamping: true if stamps were in use, and the caller must build its structure
    /// from them now.
    pub(crate) fn stop(&mut self) -> bool {
        self.next.take().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::Stamps;

    #[test]
    fn stamps_rise_then_run_out_and_stop_once() {
        let mut s = Stamps::starting_at(Some(u32::MAX - 2));
        assert_eq!((s.next(), s.next(), s.next()), (Some(u32::MAX - 2), Some(u32::MAX - 1), None));
        assert!(s.in_use(), "ran out but not built yet");
        assert!(s.stop());
        assert!(!s.in_use() && !s.stop());
        assert_eq!(s.next(), None);
        assert_eq!(Stamps::new().next(), Some(0));
    }
}
