//! libCacheSim's binary object traces (github.com/1a1a11a/libCacheSim): fixed-size
//! little-endian records, no header.
//!
//! - `oracleGeneral` (`traceReader/customizedReader/oracle/oracleGeneralBin.h`), 24 bytes:
//!   `u32 clock_time` (seconds; libCacheSim's FAQ: "the time unit is in sec"),
//!   `u64 obj_id`, `u32 obj_size` (bytes), `i64 next_access_vtime` (the 1-based position
//!   of the object's next request in the trace, `traceConvOracleGeneral.cpp`; `-1` or
//!   `INT64_MAX` when there is none). Records with `obj_size` 0 are skipped, as
//!   libCacheSim's reader does by default (`ignore_size_zero_req`).
//! - `binary` traces with the format string `<I` or `<Q` (`traceReader/generalReader/
//!   binary.c`): one `u32` or `u64` object id per record, nothing else. libCacheSim widens
//!   a `<I` id through a *signed* 32-bit read (ids of 2^31 and more turn into other
//!   64-bit values); here it is read unsigned. Either way distinct ids stay distinct, so
//!   cache results agree. The same streams written big-endian (`>I`, `>Q`: libCacheSim
//!   reads them with the format string's byte order) are `binary-u32-be` and
//!   `binary-u64-be`.
//!
//! # Objects as requests
//!
//! An object request becomes an [`IoRequest`] on volume 0, always a read (these traces
//! carry no operation), at **byte offset `obj_id × 512`**: the object id is the request's
//! 512-byte sector number. This is what `tierlab-placement`'s `request` objects key on
//! (the first sector, `offset_bytes / 512`), the same convention as a CloudPhysics `lbn`
//! read as libCacheSim's object id, so a placement replay sees exactly the trace's ids. Ids
//! of 2^55 or more do not fit a byte offset and are errors (hashed ids, as in CDN or
//! key-value traces, usually are that large); `tierlab-placement` takes ids below 2^40.
//! - `oracleGeneral`: the length is `obj_size` (at most [`crate::MAX_REQUEST_BYTES`]); the
//!   time is `clock_time` seconds. Objects larger than 512 bytes overlap their
//!   neighbours' sectors, so only whole-request views (placement's `request` objects, the
//!   request count) are meaningful, not block or byte-address views of the trace.
//! - `binary-u32` / `binary-u64`: the length is 512 bytes (one sector: the objects never
//!   overlap); the time is the record's 0-based index in nanoseconds, a virtual clock of
//!   one request per nanosecond (a time window of n ns spans n requests). Replay such a
//!   trace closed-loop.
//!
//! For binary formats an error's "line" is the 1-based record number.

use crate::error::FieldError;
use crate::fields::MAX_REQUEST_BYTES;
use crate::formats::ParsedLine;
use crate::Format;
use tierlab_types::{IoRequest, Op, NS_PER_S, SECTOR_BYTES};

/// The length given to a request of an id stream: one sector.
pub(crate) const ID_STREAM_LEN_BYTES: u64 = SECTOR_BYTES;

/// The `N` bytes of `record` at `at`, if it is that long.
fn bytes_at<const N: usize>(record: &[u8], at: usize) -> Option<[u8; N]> {
    record.get(at..at + N)?.try_into().ok()
}

/// The fields of an `oracleGeneral` record: clock_time, obj_id, obj_size,
/// next_access_vtime. `None` if the record is not 24 bytes long.
pub(crate) fn oracle_fields(record: &[u8]) -> Option<(u32, u64, u32, i64)> {
    if record.len() != 24 {
        return None;
    }
    Some((
        u32::from_le_bytes(bytes_at(record, 0)?),
        u64::from_le_bytes(bytes_at(record, 4)?),
        u32::from_le_bytes(bytes_at(record, 12)?),
        i64::from_le_bytes(bytes_at(record, 16)?),
    ))
}

/// An error in `field`, which lies at `span` (bytes within the record) of record `index`
/// (0-based) of `record_bytes`-byte records: the message gives the byte range in the
/// (decompressed) input.
fn field_error(
    field: &'static str,
    expected: &str,
    found: String,
    index: u64,
    record_bytes: usize,
    span: (usize, usize),
) -> FieldError {
    let start = index.saturating_mul(record_bytes as u64);
    FieldError::new(
        field,
        format!(
            "{expected} (record {}, bytes {}..{} of the decompressed input)",
            index.saturating_add(1),
            start.saturating_add(span.0 as u64),
            start.saturating_add(span.1 as u64),
        ),
        found.as_bytes(),
    )
}

/// The byte offset of object `id`: its sector.
fn id_offset(
    id: u64,
    index: u64,
    record_bytes: usize,
    span: (usize, usize),
) -> Result<u64, FieldError> {
    id.checked_mul(SECTOR_BYTES).ok_or_else(|| {
        field_error(
            "obj_id",
            "an object id below 2^55 (the id is the request's sector number, at byte id × 512)",
            id.to_string(),
            index,
            record_bytes,
            span,
        )
    })
}

/// Reads record `index` (0-based) of a binary `format`. `record` is exactly
/// [`Format::record_bytes`] long (anything else is an error, never a panic).
pub(crate) fn parse(format: Format, record: &[u8], index: u64) -> ParsedLine {
    let size = format.record_bytes().unwrap_or(0);
    if record.len() != size || size == 0 {
        return Err(FieldError::new(
            "record",
            format!("a whole {size}-byte {format} record"),
            format!("{} bytes", record.len()).as_bytes(),
        ));
    }
    match format {
        Format::OracleGeneral => {
            let Some((clock, id, obj_size, _next)) = oracle_fields(record) else {
                return Err(FieldError::new("record", "a 24-byte record", b""));
            };
            if obj_size == 0 {
                return Ok(None); // skipped, as libCacheSim does by default
            }
            if u64::from(obj_size) > MAX_REQUEST_BYTES {
                return Err(field_error(
                    "obj_size",
                    "an object size of at most 1 GiB",
                    obj_size.to_string(),
                    index,
                    size,
                    (12, 16),
                ));
            }
            Ok(Some(IoRequest {
                time_ns: u64::from(clock) * NS_PER_S,
                volume: 0,
                offset_bytes: id_offset(id, index, size, (4, 12))?,
                len_bytes: u64::from(obj_size),
                op: Op::Read,
            }))
        }
        Format::BinaryU32 | Format::BinaryU64 | Format::BinaryU32Be | Format::BinaryU64Be => {
            let id = match format {
                Format::BinaryU32 => bytes_at(record, 0).map(|b| u64::from(u32::from_le_bytes(b))),
                Format::BinaryU32Be => bytes_at(record, 0).map(|b| u64::from(u32::from_be_bytes(b))),
                Format::BinaryU64Be => bytes_at(record, 0).map(u64::from_be_bytes),
                _ => bytes_at(record, 0).map(u64::from_le_bytes),
            };
            let Some(id) = id else {
                return Err(FieldError::new(
                    "record",
                    format!("a {size}-byte record"),
                    b"",
                ));
            };
            Ok(Some(IoRequest {
                time_ns: index,
                volume: 0,
                offset_bytes: id_offset(id, index, size, (0, size))?,
                len_bytes: ID_STREAM_LEN_BYTES,
                op: Op::Read,
            }))
        }
        _ => Err(FieldError::new(
            "record",
            "a binary format",
            format.name().as_bytes(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(clock: u32, id: u64, size: u32, next: i64) -> Vec<u8> {
        let mut r = clock.to_le_bytes().to_vec();
        r.extend(id.to_le_bytes());
        r.extend(size.to_le_bytes());
        r.extend(next.to_le_bytes());
        r
    }

    #[test]
    fn oracle_general_record_is_an_object_request() {
        let r = parse(Format::OracleGeneral, &oracle(7, 42, 4096, -1), 3);
        assert_eq!(
            r,
            Ok(Some(IoRequest {
                time_ns: 7 * NS_PER_S,
                volume: 0,
                offset_bytes: 42 * 512,
                len_bytes: 4096,
                op: Op::Read,
            }))
        );
        assert_eq!(
            parse(Format::OracleGeneral, &oracle(7, 42, 0, 9), 3),
            Ok(None)
        );
    }

    #[test]
    fn errors_name_the_field_and_its_bytes() {
        let e = parse(Format::OracleGeneral, &oracle(7, 42, (1 << 30) + 1, 9), 2).unwrap_err();
        assert_eq!(e.field, "obj_size");
        assert!(
            e.expected.contains("record 3, bytes 60..64"),
            "{}",
            e.expected
        );
        let e = parse(Format::OracleGeneral, &oracle(7, 1 << 55, 512, 9), 0).unwrap_err();
        assert_eq!((e.field, e.found.as_str()), ("obj_id", "36028797018963968"));
        assert!(e.expected.contains("bytes 4..12"), "{}", e.expected);
        let e = parse(Format::BinaryU64, &u64::MAX.to_le_bytes(), 1).unwrap_err();
        assert!(
            e.expected.contains("record 2, bytes 8..16"),
            "{}",
            e.expected
        );
        assert!(parse(Format::BinaryU64, &[1, 2, 3], 0).is_err());
        assert!(parse(Format::Msr, &[1, 2, 3], 0).is_err());
    }

    #[test]
    fn id_streams_are_sectors_at_virtual_times() {
        let r = parse(Format::BinaryU32, &u32::MAX.to_le_bytes(), 5)
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.time_ns, r.offset_bytes, r.len_bytes),
            (5, u64::from(u32::MAX) * 512, 512)
        );
        let r = parse(Format::BinaryU64, &((1u64 << 55) - 1).to_le_bytes(), 0)
            .unwrap()
            .unwrap();
        assert_eq!(r.offset_bytes, ((1u64 << 55) - 1) * 512);
    }

    #[test]
    fn big_endian_id_streams_read_their_byte_order() {
        let r = parse(Format::BinaryU32Be, &[0, 0, 1, 2], 0).unwrap().unwrap();
        assert_eq!(r.offset_bytes, 0x0102 * 512);
        let r = parse(Format::BinaryU64Be, &7u64.to_be_bytes(), 3).unwrap().unwrap();
        assert_eq!((r.time_ns, r.offset_bytes, r.len_bytes), (3, 7 * 512, 512));
        let e = parse(Format::BinaryU64Be, &u64::MAX.to_be_bytes(), 0).unwrap_err();
        assert_eq!(e.field, "obj_id");
        assert!(parse(Format::BinaryU32Be, &[1, 2, 3], 0).is_err());
    }

    proptest::proptest! {
        /// Any bytes of any length: a request, nothing, or an error — never a panic.
        #[test]
        fn any_record_bytes_are_handled(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..30), index in proptest::num::u64::ANY) {
            for format in [Format::OracleGeneral, Format::BinaryU32, Format::BinaryU64, Format::BinaryU32Be, Format::BinaryU64Be] {
                if let Ok(Some(r)) = parse(format, &bytes, index) {
                    proptest::prop_assert!(r.len_bytes > 0 && r.len_bytes <= MAX_REQUEST_BYTES);
                    proptest::prop_assert_eq!(r.offset_bytes % 512, 0);
                }
            }
        }
    }
}
