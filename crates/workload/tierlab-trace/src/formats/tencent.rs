//! Tencent Cloud Block Storage traces (SNIA IOTTA, ATC'20): CSV without header,
//! `timestamp_s,offset_sectors,size_sectors,io_type,volume_id`, io_type 0 = read,
//! 1 = write. Timestamps are Unix seconds, so many requests share one.

use crate::error::FieldError;
use crate::fields::{sector_len_to_bytes, sectors_to_bytes, time_ns, volume, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op};

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Byte(b','));
    let time_ns = time_ns(
        "timestamp",
        f.field("timestamp", "a time in seconds")?,
        9,
        "seconds",
    )?;
    let offset_bytes = sectors_to_bytes("offset", f.field("offset", "a sector number")?)?;
    let len_bytes = sector_len_to_bytes("size", f.field("size", "a size in sectors")?)?;
    let op = match f.field("io_type", "0 (read) or 1 (write)")? {
        b"0" => Op::Read,
        b"1" => Op::Write,
        other => return Err(FieldError::new("io_type", "0 (read) or 1 (write)", other)),
    };
    let volume = volume("volume_id", f.field("volume_id", "a volume id")?)?;
    f.end(5)?;
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}
