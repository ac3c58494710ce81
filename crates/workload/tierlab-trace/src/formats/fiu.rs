//! FIU traces (SyLab, cheetah.cs.fiu.edu): `ts_ns pid process lba_sectors size_sectors
//! R|W major minor md5`. The process name may hold spaces, so the fields after it are
//! taken from the end of the line. The volume is the device number in the Linux kernel's
//! encoding, `major << 20 | minor` (see [`super::dev_volume`]).

use crate::error::FieldError;
use crate::fields::{op_letter, parse_u64, sector_len_to_bytes, sectors_to_bytes, Fields, Sep};
use crate::formats::{dev_volume, ParsedLine};
use tierlab_types::IoRequest;

const NAMES: [&str; 9] = [
    "ts_ns",
    "pid",
    "process",
    "lba_sectors",
    "size_sectors",
    "op",
    "major",
    "minor",
    "md5",
];
/// More fields than this cannot be a sensible process name plus the fixed fields.
const MAX_FIELDS: usize = 32;

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Whitespace);
    let mut parts: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
    let mut n = 0;
    while let Some(field) = f.next() {
        if n == MAX_FIELDS {
            return Err(FieldError::new(
                "line",
                "9 fields (a process name may add a few)",
                line,
            ));
        }
        parts[n] = field;
        n += 1;
    }
    if n < NAMES.len() {
        return Err(FieldError::new(NAMES[n], "a value", b"end of line"));
    }
    let time_ns = parse_u64(parts[0])
        .ok_or_else(|| FieldError::new("ts_ns", "a whole number of nanoseconds", parts[0]))?;
    parse_u64(parts[1]).ok_or_else(|| FieldError::new("pid", "a process id", parts[1]))?;
    let offset_bytes = sectors_to_bytes("lba_sectors", parts[n - 6])?;
    let len_bytes = sector_len_to_bytes("size_sectors", parts[n - 5])?;
    let op = op_letter("op", parts[n - 4])?;
    let volume = dev_volume(("major", parts[n - 3]), ("minor", parts[n - 2]))?;
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}
