//! The crate's error: what went wrong and where (file, line, field).

use tierlab_types::SourceLocation;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct Error {
    pub location: SourceLocation,
    pub message: String,
}

impl Error {
    pub fn new(file: impl Into<String>, line: u64, field: impl Into<String>, message: impl Into<String>) -> Error {
        Error { location: SourceLocation { file: file.into(), line, field: field.into() }, message: message.into() }
    }

    pub fn at(location: SourceLocation, message: impl Into<String>) -> Error {
        Error { location, message: message.into() }
    }
}
