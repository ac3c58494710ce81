//! Address compaction for replaying traces of large volumes on a small simulated drive:
//! the chunks a trace touches, keyed by (volume, chunk), are laid out densely in address
//! order. Order and adjacency of touched chunks are kept (a request spanning chunks maps
//! to one contiguous range), untouched space is dropped. Memory grows with the trace's
//! footprint, not its length. Without it, a request beyond capacity is an error.

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use tierlab_types::IoRequest;

#[derive(Clone)]
pub struct Compactor {
    chunk_bytes: u64,
    /// (volume, chunk) → dense chunk number (the chunk's rank in (volume, chunk) order).
    /// A hash map because `map` runs once per replayed request: one probe instead of a
    /// tree or binary-search walk.
    index: FxHashMap<(u32, u64), u64>,
}

impl Compactor {
    /// Learn the footprint of `requests` at `chunk_bytes` granularity (> 0).
    pub fn build(chunk_bytes: u64, requests: impl Iterator<Item = IoRequest>) -> Compactor {
        let chunk_bytes = chunk_bytes.max(1);
        // An ordered set while learning (the dense numbers follow address order); memory
        // grows with the footprint, not the trace length.
        let mut touched = BTreeSet::new();
        for r in requests.filter(|r| r.len_bytes > 0) {
            let first = r.offset_bytes / chunk_bytes;
            let last = (r.end_bytes() - 1) / chunk_bytes;
            for c in first..=last {
                touched.insert((r.volume, c));
            }
        }
        let index = touched.into_iter().zip(0..).collect();
        Compactor { chunk_bytes, index }
    }

    /// Bytes the compacted trace addresses.
    pub fn footprint_bytes(&self) -> u64 {
        self.index.len() as u64 * self.chunk_bytes
    }

    /// The request moved into the dense space (volume 0), or None if it was not seen
    /// by `build`.
    pub fn map(&self, r: &IoRequest) -> Option<IoRequest> {
        let dense = self.index.get(&(r.volume, r.offset_bytes / self.chunk_bytes))?;
        Some(IoRequest {
            volume: 0,
            offset_bytes: dense * self.chunk_bytes + r.offset_bytes % self.chunk_bytes,
            ..*r
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_types::Op;

    fn req(volume: u32, offset_bytes: u64, len_bytes: u64) -> IoRequest {
        IoRequest {
            time_ns: 0,
            volume,
            offset_bytes,
            len_bytes,
            op: Op::Write,
        }
    }

    #[test]
    fn keeps_order_and_adjacency_and_drops_gaps() {
        let reqs = vec![
            req(0, 10_000_000, 8192),
            req(0, 4096, 100),
            req(1, 0, 10),
            req(0, 10_000_000 + 4000, 200),
        ];
        let c = Compactor::build(4096, reqs.clone().into_iter());
        // chunks: (0,1), (0,2441), (0,2442), (0,2443), (1,0)
        assert_eq!(c.footprint_bytes(), 5 * 4096);
        assert_eq!(c.map(&reqs[1]).map(|r| r.offset_bytes), Some(0));
        let spanning = c.map(&reqs[3]).map(|r| (r.offset_bytes, r.end_bytes()));
        let off = 2 * 4096 + (10_000_000 + 4000) % 4096;
        assert_eq!(spanning, Some((off, off + 200)));
        // The 8 KiB request spans three chunks that stay adjacent.
        assert_eq!(
            c.map(&reqs[0]).map(|r| r.end_bytes()),
            Some(4096 + 10_000_000 % 4096 + 8192)
        );
        assert_eq!(
            c.map(&reqs[2]).map(|r| (r.volume, r.offset_bytes)),
            Some((0, 4 * 4096))
        );
        assert_eq!(c.map(&req(2, 0, 1)), None);
    }

    proptest::proptest! {
        /// Every chunk maps to its rank among the distinct touched (volume, chunk) pairs;
        /// untouched chunks do not map.
        #[test]
        fn dense_numbers_are_ranks(reqs in proptest::collection::vec((0u32..4, 0u64..64, 1u64..3), 0..40), probe in (0u32..5, 0u64..70)) {
            let reqs: Vec<IoRequest> = reqs.into_iter().map(|(v, c, n)| req(v, c * 10, n * 10)).collect();
            let c = Compactor::build(10, reqs.clone().into_iter());
            let mut touched: Vec<(u32, u64)> = reqs.iter().flat_map(|r| (r.offset_bytes / 10..=(r.end_bytes() - 1) / 10).map(move |k| (r.volume, k))).collect();
            touched.sort_unstable();
            touched.dedup();
            proptest::prop_assert_eq!(c.footprint_bytes(), touched.len() as u64 * 10);
            let expected = touched.binary_search(&probe).ok().map(|i| i as u64 * 10 + 3);
            proptest::prop_assert_eq!(c.map(&req(probe.0, probe.1 * 10 + 3, 1)).map(|r| r.offset_bytes), expected);
        }
    }
}
