//! What to read from a trace and how to transform its times.

use crate::error::TraceError;
use crate::Format;

/// Which `blkparse` event stands for a request (each I/O appears as several events).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlkparseAction {
    /// `Q`: the request was queued by the block layer (closest to the application).
    Queue,
    /// `D`: the request was issued to the device driver (the default: what the device
    /// saw, after merging).
    #[default]
    Issue,
    /// `C`: the request completed.
    Complete,
}

impl BlkparseAction {
    /// The action letter blkparse prints.
    pub fn letter(self) -> u8 {
        match self {
            BlkparseAction::Queue => b'Q',
            BlkparseAction::Issue => b'D',
            BlkparseAction::Complete => b'C',
        }
    }
}

/// Records held at most by the sort window, whatever its time span: bounds its memory
/// to 40 MiB (40 bytes per held record; up to twice that while its vector grows).
pub const SORT_MAX_RECORDS: usize = 1 << 20;

/// Options for [`crate::open`] and [`crate::TraceReader::from_bufread`].
///
/// Order of operations: parse → (sort) → rebase so the first request of the whole trace,
/// in time order, is at 0 → keep `[start_ns, end_ns)` → keep `volumes` → shift so
/// `start_ns` is 0 and divide by `speed` → stop after `max_requests`. The time base is
/// the first request of the whole trace, before the volume filter, so volumes read
/// separately stay aligned in time.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadOptions {
    /// The format; `None` detects it from the content (see [`crate::detect`]).
    pub format: Option<Format>,
    /// Keep only requests to these volumes; `None` keeps all.
    pub volumes: Option<Vec<u32>>,
    /// Skip requests before this trace time (ns after the first request).
    pub start_ns: u64,
    /// Stop at this trace time (ns after the first request, exclusive); `None` reads on.
    pub end_ns: Option<u64>,
    /// Replay speed: times are divided by it (`10.0` replays ten times faster). > 0.
    pub speed: f64,
    /// Reorder requests whose timestamps go backwards, through a window of
    /// `sort_window_ns` of trace time (and at most [`SORT_MAX_RECORDS`] records). Without
    /// it a backwards timestamp is an error.
    pub sort: bool,
    /// How far back in time a request may be and still be sorted into place (default 1 s,
    /// enough for traces stamped in whole seconds).
    pub sort_window_ns: u64,
    /// Stop after this many requests (after filtering).
    pub max_requests: Option<u64>,
    /// Which blkparse event counts as the request.
    pub blkparse_action: BlkparseAction,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: None,
            volumes: None,
            start_ns: 0,
            end_ns: None,
            speed: 1.0,
            sort: false,
            sort_window_ns: tierlab_types::NS_PER_S,
            max_requests: None,
            blkparse_action: BlkparseAction::Issue,
        }
    }
}

impl ReadOptions {
    /// Checks the values that can be wrong.
    pub fn validate(&self) -> Result<(), TraceError> {
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(TraceError::Option {
                option: "speed",
                message: format!("expected a finite number > 0, found {}", self.speed),
            });
        }
        if let Some(end) = self.end_ns {
            if end <= self.start_ns {
                return Err(TraceError::Option {
                    option: "end_ns",
                    message: format!(
                        "expected a time after start_ns ({} ns), found {end} ns",
                        self.start_ns
                    ),
                });
            }
        }
        Ok(())
    }
}
