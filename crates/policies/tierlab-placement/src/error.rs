//! The one error type of this crate: a bad setting, an unreadable trace, or a request that
//! cannot be replayed — each saying where and what was expected.

use tierlab_trace::TraceError;
use tierlab_types::SourceLocation;

/// Why a replay could not be set up or carried on.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    /// A setting of the replay is out of range.
    #[error("setting `{name}`: expected {expected}, found {found}")]
    Config { name: &'static str, expected: String, found: String },
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A request cannot be replayed. `at` names the trace file and line when the request
    /// came through [`crate::replay_trace`] (empty otherwise) and the request's field.
    #[error("{at}: expected {expected}, found {found}")]
    Request { at: SourceLocation, expected: String, found: String },
}

impl PlacementError {
    /// A request error about `field`, not yet placed in a file.
    pub(crate) fn request(field: &str, expected: impl Into<String>, found: impl Into<String>) -> Self {
        PlacementError::Request {
            at: SourceLocation { file: String::new(), line: 0, field: field.to_string() },
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// Places a request error at `file:line` (other errors are returned unchanged).
    pub fn at(self, file: &str, line: u64) -> Self {
        match self {
            PlacementError::Request { at, expected, found } => {
                PlacementError::Request { at: SourceLocation { file: file.to_string(), line, field: at.field }, expected, found }
            }
            other => other,
        }
    }
}
