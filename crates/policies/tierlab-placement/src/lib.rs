//! Placement-only replay: where a request stream's data would be served from, and how
//! much data moves, with no device timing. Three modes:
//!
//! - cache mode ([`CacheReplay`]): a `tierlab_cache` replacement algorithm over
//!   fixed-size objects ([`ObjectDef`]), at several cache sizes in one pass, with dirty
//!   objects and write-backs;
//! - miss-ratio curves ([`MissRatioCurves`]): several algorithms at several sizes in one
//!   pass, by request, by object and by byte, over fixed-size blocks or whole requests of
//!   their own sizes ([`CurveObjects`]) — `tierlab cache`, and the numbers to compare with
//!   cache simulators such as libCacheSim;
//! - policy mode ([`PolicyReplay`]): a GreenDM tiering or caching policy whose
//!   migrations complete the moment they start.
//!
//! All stream: memory depends on the cache or drive size, never on the trace length.
//!
//! ```
//! use tierlab_placement::{CacheReplay, ObjectDef, Replay};
//! use tierlab_types::{IoRequest, Op};
//! let mut lru = CacheReplay::new("lru".parse().unwrap(), &[1, 2], ObjectDef::BLOCK_4K, 0)?;
//! for block in [0, 1, 0] {
//!     let req = IoRequest { time_ns: 0, volume: 0, offset_bytes: block * 4096, len_bytes: 4096, op: Op::Read };
//!     lru.access(&req)?;
//! }
//! let reports = lru.reports();
//! assert_eq!(reports[0].counts.objects().hits, 0); // one block of room: 0 is gone by then
//! assert_eq!(reports[1].counts.objects().hits, 1);
//! # Ok::<(), tierlab_placement::PlacementError>(())
//! ```

mod cache_mode;
mod counts;
mod curves;
mod error;
mod objects;
mod policy_mode;

pub use cache_mode::{CacheReplay, CacheReport};
pub use counts::{Counts, HitCounts};
pub use curves::{CurveCounts, CurveObjects, CurvePoint, Footprint, FootprintCounter, MissRatioCurves, BATCH_REQUESTS};
pub use error::PlacementError;
pub use objects::{ObjectDef, INDEX_BITS, VOLUME_BITS};
pub use policy_mode::{PolicyReplay, PolicyReport};

use tierlab_trace::TraceReader;
use tierlab_types::IoRequest;

/// Something that takes requests one at a time.
pub trait Replay {
    /// Replays one request; an error names the request's field at fault.
    fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError>;
}

/// Replays a whole trace, streaming; returns the number of requests. A request the replay
/// rejects is reported with the trace's file name and line.
pub fn replay_trace(reader: &mut TraceReader, replay: &mut dyn Replay) -> Result<u64, PlacementError> {
    replay_trace_with_progress(reader, replay, &mut |_| {})
}

/// [`replay_trace`], telling `progress` the requests replayed every 65,536 requests.
pub fn replay_trace_with_progress(reader: &mut TraceReader, replay: &mut dyn Replay, progress: &mut dyn FnMut(u64)) -> Result<u64, PlacementError> {
    let mut n = 0u64;
    while let Some(req) = reader.next() {
        replay.access(&req?).map_err(|e| e.at(reader.name(), reader.line()))?;
        n += 1;
        if n.is_multiple_of(1 << 16) {
            progress(n);
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests;
