//! blkreplay `.load` files: free text (a licence) up to a `#####` line, a header line
//! starting with `start`, then `start_s ; sector ; length_sectors ; op ; replay_delay ;
//! replay_duration` with padding around the `;`. The op is `R` or `W`, sometimes with
//! blktrace flags after it (`RA`: read-ahead). The volume is always 0.
//!
//! The preamble is recognised without relying on the `#####` line: every line is skipped
//! until the header line, or until a line that parses as a request.

use crate::error::FieldError;
use crate::fields::{sector_len_to_bytes, sectors_to_bytes, time_ns, trim, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op};

const OPS: &str = "`R` or `W`, optionally followed by blktrace flags (e.g. `RA`, `WS`)";

/// The direction of an rwbs-style op: `R` or `W` first, then flag letters (`A` read-ahead,
/// `S` sync, `M` metadata, `F` flush/FUA, `E`, `D`, `N`) that do not change it.
fn op_flags(bytes: &[u8]) -> Result<Op, FieldError> {
    let flags_ok = bytes.len() > 1 && bytes[1..].iter().all(|b| b"ASMFEDN".contains(b));
    match bytes.first() {
        Some(b'R' | b'r') if bytes.len() == 1 || flags_ok => Ok(Op::Read),
        Some(b'W' | b'w') if bytes.len() == 1 || flags_ok => Ok(Op::Write),
        _ => Err(FieldError::new("op", OPS, bytes)),
    }
}

/// Whether the preamble is behind us.
#[derive(Default)]
pub(crate) struct State {
    in_data: bool,
}

fn parse_request(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Byte(b';'));
    let time_ns = time_ns(
        "start",
        f.field("start", "a start time in seconds")?,
        9,
        "seconds",
    )?;
    let offset_bytes = sectors_to_bytes("sector", f.field("sector", "a sector number")?)?;
    let len_bytes = sector_len_to_bytes("length", f.field("length", "a length in sectors")?)?;
    let op = op_flags(f.field("op", OPS)?)?;
    // replay_delay and replay_duration describe a past replay; they are optional here.
    let _ = f.next();
    let _ = f.next();
    f.end(6)?;
    Ok(Some(IoRequest {
        time_ns,
        volume: 0,
        offset_bytes,
        len_bytes,
        op,
    }))
}

pub(super) fn parse(line: &[u8], state: &mut State) -> ParsedLine {
    if state.in_data {
        return parse_request(line);
    }
    let has_separator = memchr::memchr(b';', line).is_some();
    if has_separator && trim(line).starts_with(b"start") {
        state.in_data = true;
        return Ok(None);
    }
    if has_separator {
        if let Ok(request) = parse_request(line) {
            state.in_data = true;
            return Ok(request);
        }
    }
    Ok(None)
}
