//! Alibaba Cloud block traces (2020; github.com/alibaba/block-traces): `io_traces.csv`,
//! CSV without header, `device_id,opcode,offset,length,timestamp`.
//!
//! The schema in that repository's README: `device_id` (uint32) is the virtual disk,
//! re-mapped to 0–999, and is used as the volume; `opcode` is `R` or `W`; `offset` (uint64)
//! and `length` (uint32) are bytes; `timestamp` (uint64) is when the server received the
//! operation, "in microseconds" (e.g. `1577808000000626`, Unix time in µs). One file holds
//! all 1,000 disks interleaved.

use crate::error::FieldError;
use crate::fields::{
    is_request_len, len_bytes, offset_bytes, op_letter, parse_u64, volume, Fields, Plain, Sep,
};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op, NS_PER_US};

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    match parse_plain(line) {
        Some(request) => Ok(Some(request)),
        None => parse_general(line),
    }
}

/// The fast path: a line in the plain shape of the real file
/// (`0,R,126703644672,4096,1577808000000626`), read in one pass. `None` for anything else:
/// the general parser then reads the line, reporting any error.
fn parse_plain(line: &[u8]) -> Option<IoRequest> {
    let mut f = Plain::new(line, b',');
    let volume = u32::try_from(f.number()?).ok()?;
    let op = match f.field()? {
        b"R" => Op::Read,
        b"W" => Op::Write,
        _ => return None,
    };
    let offset_bytes = f.number()?;
    let len_bytes = f.number().filter(|&n| is_request_len(n))?;
    let time_ns = f.number()?.checked_mul(NS_PER_US)?;
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
    let volume = volume("device_id", f.field("device_id", "a device id")?)?;
    let op = op_letter("opcode", f.field("opcode", "`R` or `W`")?)?;
    let offset_bytes = offset_bytes("offset", f.field("offset", "an offset in bytes")?)?;
    let len_bytes = len_bytes("length", f.field("length", "a length in bytes")?)?;
    let stamp = f.field("timestamp", "a time in microseconds")?;
    let time_ns = parse_u64(stamp)
        .and_then(|us| us.checked_mul(NS_PER_US))
        .ok_or_else(|| {
            FieldError::new(
                "timestamp",
                "a whole number of microseconds (below 2^64 ns)",
                stamp,
            )
        })?;
    f.end(5)?;
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
        assert_eq!(
            parse(b"7,W,126703644672,4096,1577808000000626"),
            Ok(Some(IoRequest {
                time_ns: 1_577_808_000_000_626_000,
                volume: 7,
                offset_bytes: 126_703_644_672,
                len_bytes: 4096,
                op: Op::Write,
            }))
        );
    }

    #[test]
    fn bad_fields_are_named() {
        for (line, field) in [
            (&b"0,X,0,4096,1"[..], "opcode"),
            (b"0,R,0,0,1", "length"),
            (b"0,R,0,4096,1.5", "timestamp"),
            (b"0,R,0,4096,18446744073709552", "timestamp"),
            (b"4294967296,R,0,4096,1", "device_id"),
            (b"0,R,-8,4096,1", "offset"),
            (b"0,R,0,4096", "timestamp"),
            (b"0,R,0,4096,1,2", "line"),
        ] {
            let e = parse(line).unwrap_err();
            assert_eq!(e.field, field, "{}", String::from_utf8_lossy(line));
        }
    }

    proptest::proptest! {
        /// Whatever the fast path accepts, the general parser reads the same way.
        #[test]
        fn fast_path_agrees_with_the_general_parser(line in "[0-9]{0,11},[RWrx]{0,2},[0-9]{0,21},[0-9]{0,11},[0-9]{0,21},?[0-9 ]{0,2}") {
            match parse_plain(line.as_bytes()) {
                Some(r) => proptest::prop_assert_eq!(parse_general(line.as_bytes()), Ok(Some(r))),
                None => proptest::prop_assert!(
                    parse_general(line.as_bytes()).is_err()
                        || line.contains(' ')
                        || line.split(',').any(|f| f.len() > 19 || f == "r")
                ),
            }
        }
    }
}
