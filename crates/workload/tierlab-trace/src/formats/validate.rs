//! DiskSim's validation traces: `R|W tag lbn_sectors size_sectors service_us gap_us`.
//!
//! The file holds no arrival times: it records a closed loop with one request
//! outstanding, where each request was issued `gap_us` after the previous one completed.
//! This reader sets each request's time to the sum of the *measured* service time and gap
//! of all the lines before it (the first request is at 0): the arrival times of the
//! original run. A simulator that reproduces the closed loop should instead issue each
//! request at its own completion of the previous one plus the gap.

use crate::error::FieldError;
use crate::fields::{op_letter, parse_decimal, sector_len_to_bytes, sectors_to_bytes, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::IoRequest;

/// The arrival time of the next request, in ns.
#[derive(Default)]
pub(crate) struct State {
    next_time_ns: u64,
}

fn micros(field: &'static str, bytes: &[u8]) -> Result<u64, FieldError> {
    parse_decimal(bytes, 3)
        .ok_or_else(|| FieldError::new(field, "a non-negative number of microseconds", bytes))
}

pub(super) fn parse(line: &[u8], state: &mut State) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Whitespace);
    let op = op_letter("op", f.field("op", "`R` or `W`")?)?;
    let tag = f.field("tag", "a cache tag (Hit, Miss, Doub, Trip)")?;
    if !tag.iter().all(u8::is_ascii_alphabetic) {
        return Err(FieldError::new(
            "tag",
            "a cache tag (Hit, Miss, Doub, Trip)",
            tag,
        ));
    }
    let offset_bytes = sectors_to_bytes("lbn", f.field("lbn", "a sector number")?)?;
    let len_bytes = sector_len_to_bytes("size", f.field("size", "a size in sectors")?)?;
    let service_ns = micros("service_us", f.field("service_us", "a service time in µs")?)?;
    let gap_ns = micros("gap_us", f.field("gap_us", "an idle gap in µs")?)?;
    f.end(6)?;
    let time_ns = state.next_time_ns;
    state.next_time_ns = time_ns
        .checked_add(service_ns)
        .and_then(|t| t.checked_add(gap_ns))
        .ok_or_else(|| FieldError::new("gap_us", "a total trace time below 2^64 ns", line))?;
    Ok(Some(IoRequest {
        time_ns,
        volume: 0,
        offset_bytes,
        len_bytes,
        op,
    }))
}
