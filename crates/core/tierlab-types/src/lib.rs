//! The vocabulary every tierlab crate shares: one block I/O request type, its operation,
//! and the unit constants used to convert between the units that traces and datasheets
//! use. Time is always an integer count of nanoseconds; sizes are bytes unless a name
//! says `_sectors`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Bytes in one legacy 512-byte sector, the unit of most trace formats.
pub const SECTOR_BYTES: u64 = 512;
pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;
/// Seconds in a (Julian) year of 365.25 days, the year of every "years" figure.
pub const SECONDS_PER_YEAR: f64 = 365.25 * 86_400.0;
pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;
pub const GIB: u64 = 1024 * 1024 * 1024;

/// What a request does to the blocks it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

impl Op {
    pub fn is_read(self) -> bool {
        matches!(self, Op::Read)
    }
    pub fn is_write(self) -> bool {
        matches!(self, Op::Write)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Read => "read",
            Op::Write => "write",
        })
    }
}

/// One block I/O request as every trace reader and generator produces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IoRequest {
    /// Arrival time, nanoseconds from the start of the trace (or of the trace's clock).
    pub time_ns: u64,
    /// Volume or device number the request addresses (0 where the format has none).
    pub volume: u32,
    /// First byte addressed, from the start of the volume.
    pub offset_bytes: u64,
    /// Number of bytes addressed (> 0).
    pub len_bytes: u64,
    pub op: Op,
}

impl IoRequest {
    /// One past the last byte addressed.
    pub fn end_bytes(&self) -> u64 {
        self.offset_bytes.saturating_add(self.len_bytes)
    }
}

/// Where in an input a problem was found, for errors a user can act on.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SourceLocation {
    pub file: String,
    /// 1-based line number, 0 where the input has no lines.
    pub line: u64,
    /// The field (column or key) at fault, empty where the whole line is.
    pub field: String,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if !self.field.is_empty() {
            write!(f, ": field `{}`", self.field)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_bytes_saturates_instead_of_wrapping() {
        let r = IoRequest { time_ns: 0, volume: 0, offset_bytes: u64::MAX - 1, len_bytes: 10, op: Op::Read };
        assert_eq!(r.end_bytes(), u64::MAX);
    }

    #[test]
    fn location_names_file_line_and_field() {
        let l = SourceLocation { file: "a.csv".into(), line: 7, field: "size".into() };
        assert_eq!(l.to_string(), "a.csv:7: field `size`");
    }
}
