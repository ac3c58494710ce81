//! CloudPhysics VMware block traces as libCacheSim ships them: CSV with the header
//! `version,time,op,size,lbn`; time in seconds, op the SCSI opcode in hex, size in bytes,
//! lbn in 512-byte sectors. The volume is always 0.

use crate::error::FieldError;
use crate::fields::{len_bytes, parse_u64, sectors_to_bytes, time_ns, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op};

const OPCODES: &str = "a SCSI opcode in hex: 28, 88 or 08 (read) or 2a, 8a or 0a (write)";

/// READ(10)/READ(16)/READ(6) and WRITE(10)/WRITE(16)/WRITE(6), with or without `0x`.
fn opcode(bytes: &[u8]) -> Result<Op, FieldError> {
    let hex = bytes
        .strip_prefix(b"0x")
        .or_else(|| bytes.strip_prefix(b"0X"))
        .unwrap_or(bytes);
    let mut lower = [0u8; 2];
    if hex.len() != 2 {
        return Err(FieldError::new("op", OPCODES, bytes));
    }
    lower.copy_from_slice(hex);
    lower.make_ascii_lowercase();
    match &lower {
        b"28" | b"88" | b"08" => Ok(Op::Read),
        b"2a" | b"8a" | b"0a" => Ok(Op::Write),
        _ => Err(FieldError::new("op", OPCODES, bytes)),
    }
}

pub(super) fn parse(line: &[u8]) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Byte(b','));
    let version = f.field("version", "a format version")?;
    if version.eq_ignore_ascii_case(b"version") {
        return Ok(None); // the header line
    }
    if parse_u64(version).is_none() {
        return Err(FieldError::new(
            "version",
            "a format version number",
            version,
        ));
    }
    let time_ns = time_ns("time", f.field("time", "a time in seconds")?, 9, "seconds")?;
    let op = opcode(f.field("op", OPCODES)?)?;
    let len_bytes = len_bytes("size", f.field("size", "a size in bytes")?)?;
    let offset_bytes = sectors_to_bytes("lbn", f.field("lbn", "a sector number")?)?;
    f.end(5)?;
    Ok(Some(IoRequest {
        time_ns,
        volume: 0,
        offset_bytes,
        len_bytes,
        op,
    }))
}
