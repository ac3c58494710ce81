//! DiskSim/MQSim ASCII traces: `arrival devno lba_sectors size_sectors op`, op 1 = read,
//! 0 = write. The arrival is a whole number of nanoseconds (`disksim`, MQSim's
//! convention) or a decimal number of milliseconds (`disksim-ms`, DiskSim's own).

use crate::error::FieldError;
use crate::fields::{
    parse_u64, sector_len_to_bytes, sectors_to_bytes, time_ns, volume, Fields, Sep,
};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op};

pub(super) fn parse(line: &[u8], ms: bool) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Whitespace);
    let time_ns = if ms {
        let t = f.field("arrival_ms", "an arrival time in milliseconds")?;
        time_ns("arrival_ms", t, 6, "milliseconds")?
    } else {
        let t = f.field("arrival_ns", "an arrival time in nanoseconds")?;
        parse_u64(t).ok_or_else(|| {
            FieldError::new(
                "arrival_ns",
                "a whole number of nanoseconds (for millisecond arrivals use format disksim-ms)",
                t,
            )
        })?
    };
    let volume = volume("devno", f.field("devno", "a device number")?)?;
    let offset_bytes = sectors_to_bytes("lba_sectors", f.field("lba_sectors", "a sector number")?)?;
    let len_bytes = sector_len_to_bytes(
        "size_sectors",
        f.field("size_sectors", "a size in sectors")?,
    )?;
    let op = match f.field("op", "1 (read) or 0 (write)")? {
        b"1" => Op::Read,
        b"0" => Op::Write,
        other => return Err(FieldError::new("op", "1 (read) or 0 (write)", other)),
    };
    f.end(5)?;
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}
