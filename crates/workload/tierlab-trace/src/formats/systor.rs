//! SNIA SYSTOR '17 block traces (Fujitsu's enterprise VDI, SNIA IOTTA): CSV with the header
//! `Timestamp,Response,IOType,LUN,Offset,Size`, one file per hour and LUN
//! (`2016022219-LUN4.csv.gz`).
//!
//! What the distribution's `README.txt` says of the fields, and how they are read here:
//! - `Timestamp`: Unix time in seconds with a fraction of nine digits, "accurate only to
//!   the microsecond level". Read to the nanosecond as written.
//! - `Response`: "the time needed to complete the I/O" (seconds). Not replayed; it must be
//!   a decimal number (a leading `-` is accepted, as the README warns of "irregular
//!   response times") or empty.
//! - `IOType`: `R`, `W`, or blank — "the blank indicates that there was no response
//!   message". A line with a blank IOType has no known direction and is skipped, like a
//!   header (its other fields are still checked).
//! - `LUN`: the LUN index, used as the volume.
//! - `Offset` and `Size`: bytes.
//!
//! A free-text preamble before the header is skipped (see [`crate::detect`]).

use crate::error::FieldError;
use crate::fields::{
    is_request_len, len_bytes, offset_bytes, op_letter, parse_decimal, parse_u64, time_ns, volume,
    Fields, Plain, Sep,
};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op};

const IOTYPES: &str = "`R`, `W` or nothing (no response)";

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    match parse_plain(line) {
        Some(request) => Ok(Some(request)),
        None => parse_general(line),
    }
}

/// The fast path: a line in the plain shape of the real files
/// (`1456135200.013118000,0.000806000,R,0,899056122368,131072`), read in one pass. `None`
/// for anything else (the header, a blank IOType, blanks around fields, any bad field):
/// the general parser then reads the line, reporting any error.
fn parse_plain(line: &[u8]) -> Option<IoRequest> {
    let mut f = Plain::new(line, b',');
    let time_ns = f.decimal(9)?;
    f.decimal(9)?; // Response
    let op = match f.field()? {
        b"R" => Op::Read,
        b"W" => Op::Write,
        _ => return None,
    };
    let volume = u32::try_from(f.number()?).ok()?;
    let offset_bytes = f.number()?;
    let len_bytes = f.number().filter(|&n| is_request_len(n))?;
    f.done().then_some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    })
}

/// The general parser: blanks around fields, and an error naming the bad field.
fn parse_general(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Byte(b','));
    let stamp = f.field("Timestamp", "a Unix time in seconds")?;
    if stamp.eq_ignore_ascii_case(b"Timestamp") {
        return Ok(None); // the header line
    }
    let time_ns = time_ns("Timestamp", stamp, 9, "seconds")?;
    let response = f.field("Response", "a response time in seconds")?;
    let unsigned = response.strip_prefix(b"-").unwrap_or(response);
    if !response.is_empty() && parse_decimal(unsigned, 9).is_none() {
        return Err(FieldError::new(
            "Response",
            "a response time in seconds, or nothing",
            response,
        ));
    }
    let io_type = f.field("IOType", IOTYPES)?;
    let op = if io_type.is_empty() {
        None
    } else {
        Some(
            op_letter("IOType", io_type)
                .map_err(|_| FieldError::new("IOType", IOTYPES, io_type))?,
        )
    };
    let volume = volume("LUN", f.field("LUN", "a LUN index")?)?;
    let offset_bytes = offset_bytes("Offset", f.field("Offset", "an offset in bytes")?)?;
    let size = f.field("Size", "a size in bytes")?;
    f.end(6)?;
    let Some(op) = op else {
        // No response message: the direction is unknown, so nothing to replay. The size
        // may be anything such a record holds, but must still be a number.
        parse_u64(size).ok_or_else(|| FieldError::new("Size", "a size in bytes", size))?;
        return Ok(None);
    };
    let len_bytes = len_bytes("Size", size)?;
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_map_onto_the_request() {
        let r = parse(b"1456135200.013118000,0.000806000,W,4,899056122368,131072");
        assert_eq!(
            r,
            Ok(Some(IoRequest {
                time_ns: 1_456_135_200_013_118_000,
                volume: 4,
                offset_bytes: 899_056_122_368,
                len_bytes: 131_072,
                op: Op::Write,
            }))
        );
    }

    #[test]
    fn header_and_blank_iotype_carry_no_request() {
        assert_eq!(
            parse(b"Timestamp,Response,IOType,LUN,Offset,Size"),
            Ok(None)
        );
        assert_eq!(parse(b"1456135200.5,,,0,4096,0"), Ok(None));
        assert_eq!(parse(b"1456135200.5,0.1,,0,4096,4096"), Ok(None));
        // …but a blank IOType line is still checked.
        let e = parse(b"1456135200.5,0.1,,0,4096,x").unwrap_err();
        assert_eq!(e.field, "Size");
    }

    #[test]
    fn bad_fields_are_named() {
        for (line, field) in [
            (&b"1456135200.5,0.1,X,0,4096,4096"[..], "IOType"),
            (b"1456135200.5,0.1,R,0,4096,0", "Size"),
            (b"1456135200.5,0.1,R,-1,4096,4096", "LUN"),
            (b"1456135200.5,abc,R,0,4096,4096", "Response"),
            (b"-1,0.1,R,0,4096,4096", "Timestamp"),
            (b"1456135200.5,0.1,R,0,4096", "Size"),
            (b"1456135200.5,0.1,R,0,4096,4096,7", "line"),
        ] {
            let e = parse(line).unwrap_err();
            assert_eq!(e.field, field, "{}", String::from_utf8_lossy(line));
        }
        assert!(parse(b"1456135200.5,-0.25,R,0,4096,4096").is_ok_and(|r| r.is_some()));
    }

    proptest::proptest! {
        /// Whatever the fast path accepts, the general parser reads the same way.
        #[test]
        fn fast_path_agrees_with_the_general_parser(line in "[0-9]{0,11}(\\.[0-9]{0,10})?,(-?[0-9]{0,2}(\\.[0-9]{0,10})?)?,[RWrx]{0,2},[0-9]{0,11},[0-9]{0,21},[0-9]{0,11},?[0-9 ]{0,2}") {
            match parse_plain(line.as_bytes()) {
                Some(r) => proptest::prop_assert_eq!(parse_general(line.as_bytes()), Ok(Some(r))),
                // Refused: the general parser fails or skips the line, unless it has a
                // shape the fast path leaves to it.
                None => proptest::prop_assert!(
                    !matches!(parse_general(line.as_bytes()), Ok(Some(_)))
                        || line.contains(' ')
                        || line.contains('-')
                        || line.split(',').nth(1) == Some("")
                        || line.split(',').any(|f| f.len() > 19 || f.starts_with('.') || f == "r" || f.split('.').nth(1).is_some_and(|d| d.len() > 9))
                ),
            }
        }
    }
}
