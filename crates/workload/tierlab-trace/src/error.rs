//! The one error type of this crate. Every variant says where the problem is (file, and
//! line and field where there is one) and what was expected, so a user can fix the input.

use std::fmt;
use tierlab_types::SourceLocation;

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A line does not match the format: a field is missing, not a number, out of range,
    /// an unknown operation code, or a time out of order.
    #[error("{location}: expected {expected}, found {found:?}")]
    Parse {
        location: SourceLocation,
        expected: String,
        found: String,
    },
    /// Reading or decompressing the input failed (including a truncated or corrupt
    /// compressed stream).
    #[error("{}: {context}: {source}", place(file, *line))]
    Io {
        file: String,
        line: u64,
        context: String,
        source: std::io::Error,
    },
    /// The input is not something this crate can read at all: empty, binary, or in no
    /// known format.
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    /// A [`crate::ReadOptions`] value is invalid.
    #[error("invalid option `{option}`: {message}")]
    Option {
        option: &'static str,
        message: String,
    },
}

/// `file:line`, or just `file` when there is no line.
fn place(file: &str, line: u64) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}:{line}")
    }
}

impl TraceError {
    /// The file, line and field at fault, for errors that have one.
    pub fn location(&self) -> Option<&SourceLocation> {
        match self {
            TraceError::Parse { location, .. } => Some(location),
            _ => None,
        }
    }
}

/// A field-level problem found by a line parser, before the reader adds file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub field: &'static str,
    pub expected: String,
    pub found: String,
}

/// The longest excerpt of bad input quoted back in an error message.
const FOUND_MAX_CHARS: usize = 60;

impl FieldError {
    /// An error for `field`, quoting (a bounded excerpt of) the offending bytes.
    pub fn new(field: &'static str, expected: impl Into<String>, found: &[u8]) -> Self {
        let text = String::from_utf8_lossy(found);
        let found = if text.chars().count() > FOUND_MAX_CHARS {
            let mut s: String = text.chars().take(FOUND_MAX_CHARS).collect();
            s.push('…');
            s
        } else {
            text.into_owned()
        };
        FieldError {
            field,
            expected: expected.into(),
            found,
        }
    }

    /// Attach the file and line this error came from.
    pub fn at(self, file: &str, line: u64) -> TraceError {
        TraceError::Parse {
            location: SourceLocation {
                file: file.to_string(),
                line,
                field: self.field.to_string(),
            },
            expected: self.expected,
            found: self.found,
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "field `{}`: expected {}, found {:?}",
            self.field, self.expected, self.found
        )
    }
}
