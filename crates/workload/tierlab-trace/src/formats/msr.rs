//! MSR Cambridge traces (SNIA IOTTA): CSV without header,
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`. Timestamp and
//! ResponseTime are Windows FILETIME ticks of 100 ns; Offset and Size are bytes; the
//! volume is DiskNumber (the host name is one per file and not kept).

use crate::error::FieldError;
use crate::fields::{len_bytes, offset_bytes, op_letter, parse_u64, volume, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::IoRequest;

/// Nanoseconds per FILETIME tick.
const NS_PER_TICK: u64 = 100;

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Byte(b','));
    let ts = f.field("Timestamp", "a FILETIME")?;
    let time_ns = parse_u64(ts)
        .and_then(|t| t.checked_mul(NS_PER_TICK))
        .ok_or_else(|| {
            FieldError::new(
                "Timestamp",
                "a Windows FILETIME (whole number of 100 ns ticks)",
                ts,
            )
        })?;
    let host = f.field("Hostname", "a host name")?;
    if host.is_empty() {
        return Err(FieldError::new("Hostname", "a host name", host));
    }
    let volume = volume("DiskNumber", f.field("DiskNumber", "a disk number")?)?;
    let op = f.field("Type", "`Read` or `Write`")?;
    let op = op_letter("Type", op).map_err(|_| FieldError::new("Type", "`Read` or `Write`", op))?;
    let offset_bytes = offset_bytes("Offset", f.field("Offset", "an offset in bytes")?)?;
    let len_bytes = len_bytes("Size", f.field("Size", "a size in bytes")?)?;
    let rt = f.field("ResponseTime", "a response time in 100 ns ticks")?;
    parse_u64(rt)
        .ok_or_else(|| FieldError::new("ResponseTime", "a whole number of 100 ns ticks", rt))?;
    f.end(7)?;
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}
