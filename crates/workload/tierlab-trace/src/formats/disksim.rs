//! DiskSim/MQSim ASCII traces: `arrival devno lba_sectors size_sectors op`, op 1 = read,
//! 0 = write. The arrival is a whole number of nanoseconds (`disksim`, MQSim's
//! convention) or a decimal number of milliseconds (`disksim-ms`, DiskSim's own).
//!
//! The same five fields in bytes, `ts_ms devno offset_bytes size_bytes op`, are the
//! layout public SSD-research replayers read (`ssd-replay`): the arrival in (possibly
//! fractional) milliseconds, the offset and size in bytes.

use crate::error::FieldError;
use crate::fields::{
    len_bytes, offset_bytes, parse_u64, sector_len_to_bytes, sectors_to_bytes, time_ns, volume,
    Fields, Sep,
};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op};

/// The units of the five fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Units {
    /// Arrival in whole ns, addresses in sectors (`disksim`).
    NsSectors,
    /// Arrival in decimal ms, addresses in sectors (`disksim-ms`).
    MsSectors,
    /// Arrival in decimal ms, addresses in bytes (`ssd-replay`).
    MsBytes,
}

pub(super) fn parse(line: &[u8], units: Units) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Whitespace);
    let time_ns = if units == Units::NsSectors {
        let t = f.field("arrival_ns", "an arrival time in nanoseconds")?;
        parse_u64(t).ok_or_else(|| {
            FieldError::new(
                "arrival_ns",
                "a whole number of nanoseconds (for millisecond arrivals use format disksim-ms)",
                t,
            )
        })?
    } else {
        let name = if units == Units::MsBytes { "ts_ms" } else { "arrival_ms" };
        let t = f.field(name, "an arrival time in milliseconds")?;
        time_ns(name, t, 6, "milliseconds")?
    };
    let volume = volume("devno", f.field("devno", "a device number")?)?;
    let (offset_bytes, len_bytes) = if units == Units::MsBytes {
        let offset = offset_bytes("offset_bytes", f.field("offset_bytes", "an offset in bytes")?)?;
        (offset, len_bytes("size_bytes", f.field("size_bytes", "a size in bytes")?)?)
    } else {
        let offset = sectors_to_bytes("lba_sectors", f.field("lba_sectors", "a sector number")?)?;
        let size = f.field("size_sectors", "a size in sectors")?;
        (offset, sector_len_to_bytes("size_sectors", size)?)
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_line_in_three_unit_sets() {
        let line = b"12.5 3 4096 8192 1";
        let r = parse(line, Units::MsBytes).unwrap().unwrap();
        assert_eq!(
            (r.time_ns, r.volume, r.offset_bytes, r.len_bytes, r.op),
            (12_500_000, 3, 4096, 8192, Op::Read)
        );
        let r = parse(line, Units::MsSectors).unwrap().unwrap();
        assert_eq!((r.offset_bytes, r.len_bytes), (4096 * 512, 8192 * 512));
        assert_eq!(parse(line, Units::NsSectors).unwrap_err().field, "arrival_ns");
        let e = parse(b"1 0 0 0 1", Units::MsBytes).unwrap_err();
        assert_eq!(e.field, "size_bytes");
        let e = parse(b"1 0 x 512 1", Units::MsBytes).unwrap_err();
        assert_eq!(e.field, "offset_bytes");
    }
}
