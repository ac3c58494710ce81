//! CloudPhysics VMware block traces as libCacheSim ships them: CSV with the header
//! `version,time,op,size,lbn`; time in seconds, op the SCSI opcode in hex, size in bytes,
//! lbn in 512-byte sectors. The volume is always 0.

use crate::error::FieldError;
use crate::fields::{
    is_request_len, len_bytes, parse_u64, sectors_to_bytes, time_ns, Fields, Plain, Sep,
};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op, SECTOR_BYTES};

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
    match parse_plain(line) {
        Some(request) => Ok(Some(request)),
        None => parse_general(line),
    }
}

/// The fast path: a line in the plain shape of real files (`1,5633898,2a,512,42932745`),
/// read in one pass. `None` for anything else (the header, blanks, any bad field): the
/// general parser then reads the line, reporting any error.
fn parse_plain(line: &[u8]) -> Option<IoRequest> {
    let mut f = Plain::new(line, b',');
    f.number()?; // version
    let time_ns = f.decimal(9)?;
    let op = opcode(f.field()?).ok()?;
    let len_bytes = f.number().filter(|&n| is_request_len(n))?;
    let offset_bytes = f.number()?.checked_mul(SECTOR_BYTES)?;
    f.done().then_some(IoRequest {
        time_ns,
        volume: 0,
        offset_bytes,
        len_bytes,
        op,
    })
}

/// The general parser: blanks around fields, and an error naming the bad field.
fn parse_general(line: &[u8]) -> ParsedLine {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_takes_plain_lines_and_leaves_the_rest() {
        let plain = parse_plain(b"1,5633898.5,2A,512,42932745");
        assert_eq!(plain, parse_general(b" 1 , 5633898.5,2A, 512 ,42932745 ").ok().flatten());
        assert_eq!(plain.map(|r| (r.time_ns, r.op, r.len_bytes)), Some((5_633_898_500_000_000, Op::Write, 512)));
        for line in [
            &b"version,time,op,size,lbn"[..],
            b"1,5633898,2a,512,42932745,",
            b"1,5633898,2a,512,",
            b"1,5633898,2a,0,7",
            b"1,5633898,2a,512,7 ",
            b"1,5633898,2b,512,7",
            b"1,5633898,2a,512,36028797018963968",
            b"1,,2a,512,7",
        ] {
            assert_eq!(parse_plain(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    proptest::proptest! {
        /// Whatever the fast path accepts, the general parser reads the same way.
        #[test]
        fn fast_path_agrees_with_the_general_parser(line in "[0-9]{0,3},([0-9]{0,8}(\\.[0-9]{0,4})?|[0-9.]{0,3}),(0[xX])?(28|88|08|2[aA]|8a|0a|2b|2),[0-9]{0,11},[0-9]{0,21},?[0-9 ]{0,2}") {
            match parse_plain(line.as_bytes()) {
                Some(r) => proptest::prop_assert_eq!(parse_general(line.as_bytes()), Ok(Some(r))),
                // Refused: the general parser fails too, unless the line has a shape the
                // fast path leaves to it (blanks, numbers of 20 digits or more).
                None => proptest::prop_assert!(
                    parse_general(line.as_bytes()).is_err()
                        || line.contains(' ')
                        || line.split(',').any(|f| f.len() > 19)
                        || line.split(',').nth(1).is_some_and(|t| t.starts_with('.'))
                ),
            }
        }
    }
}
