//! UMass Trace Repository SPC format (Financial, WebSearch):
//! `asu,lba_sectors,size_bytes,op,timestamp_s[,...]`, op `r`/`w` in either case, the
//! timestamp in fractional seconds. The volume is the ASU (application storage unit);
//! fields after the timestamp are ignored, as the SPC specification allows.

use crate::fields::{len_bytes, op_letter, sectors_to_bytes, time_ns, volume, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::IoRequest;

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Byte(b','));
    let volume = volume("asu", f.field("asu", "an ASU number")?)?;
    let offset_bytes = sectors_to_bytes("lba", f.field("lba", "a sector number")?)?;
    let len_bytes = len_bytes("size", f.field("size", "a size in bytes")?)?;
    let op = op_letter("op", f.field("op", "`r` or `w`")?)?;
    let time_ns = time_ns(
        "timestamp",
        f.field("timestamp", "a time in seconds")?,
        9,
        "seconds",
    )?;
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}
