//! fio iolog files, version 2 and 3. The first line is `fio version 2 iolog` or
//! `fio version 3 iolog`; then
//! - v2: `filename action [offset length]`,
//! - v3: `timestamp filename action [offset length]`.
//!
//! Actions `read` and `write` are requests (offset and length in bytes); `add`, `open`,
//! `close`, `sync`, `datasync` and `trim` carry none and are skipped. The volume is the
//! index of the file name in order of first appearance (0, 1, …).
//!
//! Times: v3 timestamps are microseconds since the log started — what fio's own writer
//! emits (`utime_since_now`) and what its replay treats them as, although fio's HOWTO
//! calls them milliseconds. v2 has no timestamps, only `wait` lines whose offset is a
//! delay in microseconds: each v2 request is at the sum of the waits before it, so a v2
//! log without waits has every request at time 0 (replay it closed-loop).

use std::collections::BTreeMap;

use crate::error::FieldError;
use crate::fields::{len_bytes, offset_bytes, parse_u64, Fields, Sep};
use crate::formats::ParsedLine;
use tierlab_types::{IoRequest, Op, NS_PER_US};

const HEADER_V2: &[u8] = b"fio version 2 iolog";
const HEADER_V3: &[u8] = b"fio version 3 iolog";
const ACTIONS: &str = "an action: read, write, add, open, close, sync, datasync, trim or wait";

/// The log version (once the header is read), the file names seen, and (v2) the time.
#[derive(Default)]
pub(crate) struct State {
    version: Option<u8>,
    files: BTreeMap<Vec<u8>, u32>,
    wait_ns: u64,
}

impl State {
    /// The volume number of `name`, assigning the next one on first sight.
    fn volume(&mut self, name: &[u8]) -> Result<u32, FieldError> {
        if let Some(&v) = self.files.get(name) {
            return Ok(v);
        }
        let next = u32::try_from(self.files.len())
            .map_err(|_| FieldError::new("filename", "fewer than 2^32 distinct files", name))?;
        self.files.insert(name.to_vec(), next);
        Ok(next)
    }
}

pub(super) fn parse(line: &[u8], state: &mut State) -> ParsedLine {
    let Some(version) = state.version else {
        let header = crate::fields::trim(line);
        state.version = Some(match header {
            HEADER_V2 => 2,
            HEADER_V3 => 3,
            _ => {
                return Err(FieldError::new(
                    "header",
                    "`fio version 2 iolog` or `fio version 3 iolog` as the first line",
                    line,
                ))
            }
        });
        return Ok(None);
    };
    let mut f = Fields::new(line, Sep::Whitespace);
    let stamp_ns = if version == 3 {
        let t = f.field("timestamp", "a time in microseconds")?;
        let us = parse_u64(t).and_then(|us| us.checked_mul(NS_PER_US));
        Some(us.ok_or_else(|| FieldError::new("timestamp", "a whole number of microseconds", t))?)
    } else {
        None
    };
    let name = f.field("filename", "a file name")?;
    let action = f.field("action", ACTIONS)?;
    let op = match action {
        b"read" => Op::Read,
        b"write" => Op::Write,
        b"add" | b"open" | b"close" => {
            state.volume(name)?;
            return Ok(None);
        }
        b"sync" | b"datasync" | b"trim" => return Ok(None),
        b"wait" if version == 2 => {
            let d = f.field("offset", "a delay in microseconds")?;
            state.wait_ns = parse_u64(d)
                .and_then(|us| us.checked_mul(NS_PER_US))
                .and_then(|ns| ns.checked_add(state.wait_ns))
                .ok_or_else(|| FieldError::new("offset", "a delay in microseconds", d))?;
            return Ok(None);
        }
        b"wait" => return Ok(None), // fio itself ignores waits in v3
        other => return Err(FieldError::new("action", ACTIONS, other)),
    };
    let offset_bytes = offset_bytes("offset", f.field("offset", "an offset in bytes")?)?;
    let len_bytes = len_bytes("length", f.field("length", "a length in bytes")?)?;
    f.end(if version == 3 { 5 } else { 4 })?;
    let volume = state.volume(name)?;
    let time_ns = stamp_ns.unwrap_or(state.wait_ns);
    Ok(Some(IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }))
}
