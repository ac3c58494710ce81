//! Errors of the SSD model. Every error names the parameter (or input position) at fault
//! and what was expected, so a user can fix the spec or the trace without reading code.

use thiserror::Error;
use tierlab_types::SourceLocation;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum SsdError {
    /// A spec parameter has an impossible or inconsistent value.
    #[error("invalid SSD spec: parameter `{param}`: {reason}")]
    InvalidSpec { param: String, reason: String },
    /// A spec file could not be read or parsed.
    #[error("{location}: {reason}")]
    SpecFile {
        location: SourceLocation,
        reason: String,
    },
    /// A request addresses bytes beyond the device's logical capacity.
    #[error("request at byte {offset_bytes} of {len_bytes} bytes ends beyond the device capacity `capacity_bytes` = {capacity_bytes}")]
    OutOfRange {
        offset_bytes: u64,
        len_bytes: u64,
        capacity_bytes: u64,
    },
    /// A zero-length request.
    #[error("request at byte {offset_bytes} has `len_bytes` = 0; expected > 0")]
    EmptyRequest { offset_bytes: u64 },
    /// The FTL found no free page in any plane (over-provisioning too small for the load).
    #[error("flash is full: no plane can provide a free page (raise `over_provisioning`)")]
    OutOfSpace,
    /// A preconditioning parameter is out of range.
    #[error("invalid preconditioning: parameter `{param}`: {reason}")]
    InvalidPrecondition { param: String, reason: String },
}

/// The one way a flash operation can fail once the drive is built: no plane can give a
/// free page. The FTLs return this alone (a word-sized result, where `SsdError` would be
/// passed through memory on every page), and the drive turns it into
/// `SsdError::OutOfSpace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfSpace;

impl From<OutOfSpace> for SsdError {
    fn from(_: OutOfSpace) -> Self {
        SsdError::OutOfSpace
    }
}

impl SsdError {
    pub(crate) fn spec(param: &str, reason: impl Into<String>) -> Self {
        SsdError::InvalidSpec {
            param: param.to_string(),
            reason: reason.into(),
        }
    }
}
