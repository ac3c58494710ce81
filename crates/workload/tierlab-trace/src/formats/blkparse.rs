//! `blkparse` default text output:
//! `maj,min cpu seq time_s pid action rwbs sector + nsectors [process]`.
//!
//! A request appears once per trace event (queued, merged, issued, completed, …); only
//! one action is taken per I/O, `D` (issued to the device) by default, or `Q` (queued) or
//! `C` (completed) through [`BlkparseAction`]. Events whose rwbs holds neither `R` nor `W`
//! (flushes, discards, `N`) are skipped, as are lines whose first field is not `maj,min`:
//! the per-CPU and total summaries at the end, and the file's own messages. The volume is
//! the device number in the kernel's encoding, `major << 20 | minor`.

use crate::error::FieldError;
use crate::fields::{parse_u64, sector_len_to_bytes, sectors_to_bytes, time_ns, Fields, Sep};
use crate::formats::ParsedLine;
use crate::BlkparseAction;
use tierlab_types::{IoRequest, Op};

/// Largest major and minor numbers of a Linux `dev_t` (12 and 20 bits).
const MAX_MAJOR: u64 = (1 << 12) - 1;
const MAX_MINOR: u64 = (1 << 20) - 1;

/// A device number as one volume id: `major << 20 | minor`, as the Linux kernel's
/// `MKDEV` packs them. Each pair is (field name, text).
pub(crate) fn dev_volume(
    major: (&'static str, &[u8]),
    minor: (&'static str, &[u8]),
) -> Result<u32, FieldError> {
    let maj = parse_u64(major.1)
        .filter(|&m| m <= MAX_MAJOR)
        .ok_or_else(|| FieldError::new(major.0, "a major device number below 4096", major.1))?;
    let min = parse_u64(minor.1)
        .filter(|&m| m <= MAX_MINOR)
        .ok_or_else(|| FieldError::new(minor.0, "a minor device number below 2^20", minor.1))?;
    // Both are range-checked above, so the packed value fits in 32 bits.
    Ok(((maj << 20) | min) as u32)
}

/// `maj,min` split in two, or `None` if the field is not a device number.
fn split_dev(field: &[u8]) -> Option<(&[u8], &[u8])> {
    let comma = memchr::memchr(b',', field)?;
    let (maj, min) = (&field[..comma], &field[comma + 1..]);
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    (digits(maj) && digits(min)).then_some((maj, min))
}

pub(super) fn parse(line: &[u8], action: BlkparseAction) -> ParsedLine {
    let mut f = Fields::new(line, Sep::Whitespace);
    let Some((maj, min)) = f.next().and_then(split_dev) else {
        return Ok(None); // summary or message line
    };
    let cpu = f.field("cpu", "a CPU number")?;
    parse_u64(cpu).ok_or_else(|| FieldError::new("cpu", "a CPU number", cpu))?;
    let seq = f.field("seq", "a sequence number")?;
    parse_u64(seq).ok_or_else(|| FieldError::new("seq", "a sequence number", seq))?;
    let time_ns = time_ns("time", f.field("time", "a time in seconds")?, 9, "seconds")?;
    f.field("pid", "a process id")?;
    let event = f.field("action", "an event letter such as Q, D or C")?;
    if event != [action.letter()] {
        return Ok(None);
    }
    let rwbs = f.field("rwbs", "the RWBS flags")?;
    let op = if rwbs.contains(&b'R') {
        Op::Read
    } else if rwbs.contains(&b'W') {
        Op::Write
    } else {
        return Ok(None); // flush, discard or no data
    };
    let is_flush = rwbs.contains(&b'F');
    let request = (|| {
        let offset_bytes = sectors_to_bytes("sector", f.field("sector", "a sector number")?)?;
        let plus = f.field("+", "`+` between sector and length")?;
        if plus != b"+" {
            return Err(FieldError::new("+", "`+` between sector and length", plus));
        }
        let len_bytes =
            sector_len_to_bytes("nsectors", f.field("nsectors", "a length in sectors")?)?;
        let volume = dev_volume(("maj,min", maj), ("maj,min", min))?;
        Ok(IoRequest {
            time_ns,
            volume,
            offset_bytes,
            len_bytes,
            op,
        })
    })();
    match request {
        Ok(r) => Ok(Some(r)),
        // A flush (`FWS`) carries no data range: not a request to replay.
        Err(_) if is_flush => Ok(None),
        Err(e) => Err(e),
    }
}
