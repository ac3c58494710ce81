//! Recognising the format from the content.
//!
//! The reader first buffers a sample of the (decompressed) input — whole lines, up to
//! 1,000 lines or 1 MiB — without consuming it, so the parser
//! then reads it again from the same buffer.
//!
//! Rule: every format's parser reads the sample, stopping at its first error; the format
//! that reads the most requests before an error wins, provided it reads at least one.
//! Counting requests *before* the first error, rather than demanding a clean sample,
//! means a bad line early in a file is reported as that line's error, not as an unknown
//! format. Setting [`crate::ReadOptions::format`] skips detection.
//!
//! # Formats that read the same lines differently
//!
//! Formats are strict about field counts and codes, so most files match one format only.
//! The exception is the family of five whitespace-separated fields: `disksim` (arrival in
//! ns, addresses in sectors), `disksim-ms` (ms, sectors) and `ssd-replay` (ms, bytes)
//! read the same line, 512× apart in size or 10⁶× apart in time. When several formats
//! read the most requests and their requests differ, detection does not guess:
//! 1. a file-name ending that names one of them (`.disksim`, `.disksim-ms`, ignoring a
//!    compression suffix) chooses it; so does a name-hinted format that reads fewer
//!    requests but at least one (its first error is then reported, rather than the file
//!    read silently in other units);
//! 2. otherwise a reading that is implausible is ruled out: a mean request above
//!    [`PLAUSIBLE_MEAN_MAX_BYTES`] (4 MiB) or below one 512-byte sector, an address
//!    beyond [`PLAUSIBLE_ADDRESS_MAX_BYTES`] (128 TiB: no drive holds more; the largest
//!    of 2026 hold 122.88 TB), or more than [`PLAUSIBLE_RATE_MAX`] (10 M) requests a
//!    second over the sample; if one reading is left, it is the format;
//! 3. if what is left is `disksim` and `disksim-ms` alone (the same addresses, arrivals
//!    in ns or ms, both at plausible rates), whole-number arrivals are nanoseconds,
//!    MQSim's convention (a decimal point rules `disksim` out before this);
//! 4. otherwise the input is refused: the error names every reading with its mean request
//!    size, address span and time span (and why any was ruled out), and asks for
//!    `--format`.
//!
//! Formats whose requests are identical on the sample, times taken from the first
//! request as the reader gives them, are one reading; the earlier in the order tried
//! (name-hinted formats first, then [`Format::ALL`]) is taken.
//!
//! # Binary formats
//!
//! libCacheSim's binary traces have no text to try parsers on. `oracle-general` is
//! chosen, before any text format is tried:
//! - when the file name holds `.oracleGeneral` (in any case, ignoring a compression
//!   suffix: `w44.oracleGeneral.bin.zst`, `x.oracleGeneral.sample10`) and the sample holds
//!   a NUL byte (text never does), so that a bad record is reported where it is;
//! - otherwise, when the sample is binary (a NUL byte) or the name holds
//!   `.oracleGeneral`, and the sampled records are plausible: at least one whole 24-byte
//!   record; clock times that never decrease; object sizes of at most 1 GiB; and every
//!   `next_access_vtime` either `-1` (no next access) or greater than the record's own
//!   0-based position (it is the 1-based position of a later request; `INT64_MAX`
//!   passes too).
//!
//! Other binary input is reported as binary, naming the formats to force. `binary-u32`,
//! `binary-u64` and their big-endian forms `binary-u32-be`, `binary-u64-be` (bare object
//! ids) are never detected: any bytes are valid ids, so they must be forced with
//! `--format`.
//!
//! # Preambles
//!
//! A CSV format with a header line (`cloudphysics`: `version,time,op,size,lbn`;
//! `systor17`: `Timestamp,Response,IOType,LUN,Offset,Size`) may have free text before
//! it: if that header line (its exact field names, in any case) is among the first
//! [`PREAMBLE_MAX_LINES`] lines, and no line before it reads as a request of the format,
//! every line before it is skipped, both here and when reading. Otherwise nothing is
//! skipped: a bad first line is reported as such, and a header repeated after data (as in
//! concatenated files) is just a header. (`blkreplay` skips its own preamble, of any length, up to its `start` header or
//! its first request.)

use crate::error::TraceError;
use crate::stats::human_bytes;
use crate::fields::{is_header, MAX_REQUEST_BYTES};
use crate::formats::{libcachesim, Parser};
use crate::lines::{is_blank_or_comment, LineReader, MAX_LINE_BYTES};
use crate::{BlkparseAction, Format, ReadOptions};
use std::fmt;

/// A reading whose mean request is larger than this is implausible (no block trace's
/// mean request is several MiB; a byte trace read as sectors is 512× too large).
pub const PLAUSIBLE_MEAN_MAX_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
/// A reading whose mean request is smaller than one sector is implausible (a block
/// request is at least a sector; a sector trace read as bytes is 512× too small).
pub const PLAUSIBLE_MEAN_MIN_BYTES: f64 = 512.0;
/// A reading that addresses beyond this is implausible: 128 TiB, more than any drive
/// holds (the largest of 2026 hold 122.88 TB).
pub const PLAUSIBLE_ADDRESS_MAX_BYTES: u64 = 128 << 40;
/// A reading that issues more requests a second than this over the sample is
/// implausible (about three times the fastest NVMe drives of 2026).
pub const PLAUSIBLE_RATE_MAX: f64 = 10e6;

/// At most this many lines are sampled for detection.
pub(crate) const SAMPLE_LINES: usize = 1000;
/// At most (about) this many bytes are sampled for detection.
pub(crate) const SAMPLE_BYTES: usize = 1 << 20;
/// A CSV header line is looked for among this many first lines; the lines before it are a
/// preamble and skipped.
pub const PREAMBLE_MAX_LINES: usize = 100;

/// The first lines of the input, buffered but not consumed.
pub(crate) struct Sample<'a> {
    /// Whole lines only: a partial last line (when the input is longer) is left out.
    bytes: &'a [u8],
}

impl<'a> Sample<'a> {
    /// Buffers the sample in `lines` and checks it: an empty, binary (NUL bytes) or
    /// newline-free input is an error.
    pub fn take(lines: &'a mut LineReader, file: &str) -> Result<Self, TraceError> {
        fill_sample(lines, file)?;
        let lines: &'a LineReader = lines;
        let whole = lines.at_eof();
        let bytes = lines.peeked();
        if let Some(at) = memchr::memchr(0, bytes) {
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            return Err(not_text(file, line));
        }
        if let Some(line) = first_long_line(bytes) {
            return Err(not_text(file, line + 1));
        }
        let complete = if whole {
            bytes.len()
        } else {
            memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1)
        };
        let sample = Sample {
            bytes: &bytes[..complete],
        };
        if sample.lines().all(is_blank_or_comment) {
            let what = if bytes.is_empty() {
                "is empty"
            } else {
                "holds only blank lines and comments"
            };
            let what = if whole {
                what.to_string()
            } else {
                format!("{what} in its first MiB")
            };
            return Err(empty_input(file, what));
        }
        Ok(sample)
    }

    /// The sampled whole lines, without line endings.
    fn lines(&self) -> impl Iterator<Item = &'a [u8]> {
        self.bytes
            .split(|&b| b == b'\n')
            .take(SAMPLE_LINES)
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
    }
}

/// Buffers the detection sample (without consuming it).
fn fill_sample(lines: &mut LineReader, file: &str) -> Result<(), TraceError> {
    lines
        .fill_to(SAMPLE_BYTES)
        .map_err(|source| TraceError::Io {
            file: file.to_string(),
            line: 1,
            context: "cannot read (or decompress) the input".into(),
            source,
        })
}

fn empty_input(file: &str, what: impl fmt::Display) -> TraceError {
    TraceError::Input {
        file: file.to_string(),
        message: format!("the input {what} (after any decompression): no requests to read"),
    }
}

/// The format of the input buffered in `lines` (forced by `opts.format` or detected), and
/// how many lines of preamble to skip before its header. Nothing is consumed.
pub(crate) fn choose(
    lines: &mut LineReader,
    name: &str,
    opts: &ReadOptions,
) -> Result<(Format, u64), TraceError> {
    fill_sample(lines, name)?;
    if let Some(format) = opts.format.filter(|f| f.is_binary()) {
        if lines.peeked().is_empty() {
            return Err(empty_input(name, "is empty"));
        }
        return Ok((format, 0));
    }
    if opts.format.is_none() && looks_like_oracle_general(lines.peeked(), name) {
        return Ok((Format::OracleGeneral, 0));
    }
    let sample = Sample::take(lines, name)?;
    let format = match opts.format {
        Some(format) => format,
        None => detect(&sample, name, opts.blkparse_action)?,
    };
    Ok((format, preamble_lines(&sample, format)))
}

/// Whether `bytes` (the start of the input called `name`) look like libCacheSim
/// `oracleGeneral` records; see the module documentation.
fn looks_like_oracle_general(bytes: &[u8], name: &str) -> bool {
    let hinted = base_name(name).contains(".oraclegeneral");
    let binary = memchr::memchr(0, bytes).is_some();
    if hinted && binary {
        return true;
    }
    if !hinted && !binary {
        return false;
    }
    let mut last_clock = 0;
    let mut records = 0;
    for (position, record) in bytes.chunks_exact(24).enumerate() {
        let Some((clock, _id, size, next)) = libcachesim::oracle_fields(record) else {
            return false;
        };
        let next_ok = next == -1 || i64::try_from(position).is_ok_and(|p| next > p);
        if clock < last_clock || u64::from(size) > MAX_REQUEST_BYTES || !next_ok {
            return false;
        }
        last_clock = clock;
        records += 1;
    }
    records > 0
}

/// How many lines precede `format`'s header line in the sample: 0 if the format has no
/// header, if it is not among the first [`PREAMBLE_MAX_LINES`] lines, or if a line before
/// it reads as a request (then it is a header repeated within the data, as in
/// concatenated files, and nothing is skipped).
fn preamble_lines(sample: &Sample, format: Format) -> u64 {
    let (Some(names), Some(mut parser)) = (
        format.header(),
        Parser::new(format, BlkparseAction::default()),
    ) else {
        return 0;
    };
    let Some(header_at) = sample
        .lines()
        .take(PREAMBLE_MAX_LINES)
        .position(|line| is_header(line, names))
    else {
        return 0;
    };
    let data_before = sample
        .lines()
        .take(header_at)
        .any(|line| !is_blank_or_comment(line) && matches!(parser.parse(line), Ok(Some(_))));
    if data_before {
        0
    } else {
        header_at as u64
    }
}

/// The index of the first line of `bytes` longer than [`MAX_LINE_BYTES`] (found with
/// memchr: the sample is read again on every open of the trace).
fn first_long_line(bytes: &[u8]) -> Option<usize> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for (line, end) in ends.enumerate() {
        if end - start > MAX_LINE_BYTES {
            return Some(line);
        }
        start = end + 1;
    }
    None
}

fn not_text(file: &str, line: usize) -> TraceError {
    TraceError::Input {
        file: file.to_string(),
        message: format!(
            "line {line} is binary data or longer than 64 KiB: not a text trace (traces may be \
             compressed with gzip, bzip2, xz or zstd, which is undone automatically); \
             libCacheSim's binary traces are read with `--format oracle-general`, \
             `binary-u32`, `binary-u64` (little-endian ids) or `binary-u32-be`, \
             `binary-u64-be` (big-endian)"
        ),
    }
}

/// The file name without a compression suffix, lowercased.
fn base_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    for suffix in [".gz", ".bz2", ".xz", ".zst", ".zstd"] {
        if let Some(stripped) = lower.strip_suffix(suffix) {
            return stripped.to_string();
        }
    }
    lower
}

/// The order in which to try formats for a file called `name`.
fn candidates(name: &str) -> Vec<Format> {
    let base = base_name(name);
    let hinted = |f: &Format| f.extensions().iter().any(|ext| base.ends_with(ext));
    let mut order: Vec<Format> = Format::ALL.into_iter().filter(hinted).collect();
    order.extend(Format::ALL.into_iter().filter(|f| !hinted(f)));
    order
}

/// What a format makes of the sample's requests (those before its first error).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Reading {
    requests: usize,
    bytes: u128,
    /// The highest end address (offset + length) of any request.
    max_end: u64,
    first_ns: u64,
    last_ns: u64,
    /// A digest of every request, in order: equal digests are the same reading.
    digest: u64,
}

impl Reading {
    fn add(&mut self, r: &tierlab_types::IoRequest) {
        if self.requests == 0 {
            self.first_ns = r.time_ns;
        }
        let since_first = r.time_ns.saturating_sub(self.first_ns);
        self.requests += 1;
        self.bytes += u128::from(r.len_bytes);
        self.max_end = self.max_end.max(r.end_bytes());
        self.last_ns = r.time_ns;
        for word in [
            since_first,
            u64::from(r.volume),
            r.offset_bytes,
            r.len_bytes,
            u64::from(r.op.is_read()),
        ] {
            self.digest = (self.digest.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn mean_bytes(&self) -> f64 {
        self.bytes as f64 / self.requests.max(1) as f64
    }

    fn span_ns(&self) -> u64 {
        self.last_ns.saturating_sub(self.first_ns)
    }

    /// Why this reading cannot be a real block trace, if it cannot.
    fn implausible(&self) -> Option<String> {
        let mean = self.mean_bytes();
        if mean > PLAUSIBLE_MEAN_MAX_BYTES {
            return Some(format!("a mean request of {} is over 4 MiB", human_bytes(mean)));
        }
        if mean < PLAUSIBLE_MEAN_MIN_BYTES {
            return Some(format!("a mean request of {} is under one 512-byte sector", human_bytes(mean)));
        }
        if self.max_end > PLAUSIBLE_ADDRESS_MAX_BYTES {
            return Some(format!(
                "addresses up to {} are beyond any drive (128 TiB)",
                human_bytes(self.max_end as f64)
            ));
        }
        let span_s = self.span_ns() as f64 / 1e9;
        if self.requests > 1 && span_s > 0.0 {
            let rate = (self.requests - 1) as f64 / span_s;
            if rate > PLAUSIBLE_RATE_MAX {
                return Some(format!(
                    "{:.0} M requests a second is beyond any drive (10 M)",
                    rate / 1e6
                ));
            }
        }
        None
    }

    /// One line for messages: mean request, address span, time span.
    fn describe(&self) -> String {
        format!(
            "mean request {}, addresses up to {}, {} requests over {}",
            human_bytes(self.mean_bytes()),
            human_bytes(self.max_end as f64),
            self.requests,
            human_seconds(self.span_ns())
        )
    }
}

/// A duration in the unit that reads best ("2.54 s", "29.4 days").
fn human_seconds(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 86_400.0 {
        format!("{:.1} days", s / 86_400.0)
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.3} ms", s * 1e3)
    }
}

/// What `format` reads from the sample before its first error, and that error (if any).
fn try_format(format: Format, sample: &Sample, action: BlkparseAction) -> (Reading, Option<String>) {
    let mut reading = Reading::default();
    let Some(mut parser) = Parser::new(format, action) else {
        let why = match format {
            Format::OracleGeneral => "binary records; this input is text",
            _ => "binary records, never detected: force it with --format",
        };
        return (reading, Some(why.to_string()));
    };
    let preamble = preamble_lines(sample, format) as usize;
    for (index, line) in sample.lines().enumerate() {
        if index < preamble || is_blank_or_comment(line) {
            continue;
        }
        match parser.parse(line) {
            Ok(Some(request)) => reading.add(&request),
            Ok(None) => {}
            Err(e) => return (reading, Some(format!("line {}: {e}", index + 1))),
        }
    }
    (reading, None)
}

/// The format of the sampled input called `name`.
pub(crate) fn detect(
    sample: &Sample,
    name: &str,
    action: BlkparseAction,
) -> Result<Format, TraceError> {
    let mut readings: Vec<(Format, Reading)> = Vec::new();
    let mut reasons = Vec::new();
    for format in candidates(name) {
        let (reading, error) = try_format(format, sample, action);
        readings.push((format, reading));
        let why = error.unwrap_or_else(|| "no request in the first lines".to_string());
        reasons.push(format!("\n  {format}: {why}"));
    }
    let most = readings.iter().map(|(_, r)| r.requests).max().unwrap_or(0);
    let base = base_name(name);
    let hinted = |f: Format| f.extensions().iter().any(|ext| base.ends_with(ext));
    // The formats that read the most requests, and name-hinted ones that read any, one
    // per distinct reading.
    let mut tied: Vec<(Format, Reading)> = Vec::new();
    let contends = |(f, r): &&(Format, Reading)| {
        r.requests > 0 && (r.requests == most || hinted(*f))
    };
    for &(format, reading) in readings.iter().filter(contends) {
        if !tied.iter().any(|(_, r)| r.digest == reading.digest) {
            tied.push((format, reading));
        }
    }
    match tied.as_slice() {
        [] => Err(TraceError::Input {
            file: name.to_string(),
            message: format!(
                "not in any trace format this reader knows; tried:{}\nforce a format with \
                 `--format <name>` to see the first error in full",
                reasons.concat()
            ),
        }),
        [(format, _)] => Ok(*format),
        _ => choose_reading(&tied, sample, name, hinted),
    }
}

/// One of several formats that read the sample into different requests (see the module
/// documentation), or an error naming each reading.
fn choose_reading(
    tied: &[(Format, Reading)],
    sample: &Sample,
    name: &str,
    hinted: impl Fn(Format) -> bool,
) -> Result<Format, TraceError> {
    let named: Vec<Format> = tied.iter().map(|(f, _)| *f).filter(|&f| hinted(f)).collect();
    if let [format] = named.as_slice() {
        return Ok(*format);
    }
    let plausible: Vec<&(Format, Reading)> =
        tied.iter().filter(|(_, r)| r.implausible().is_none()).collect();
    if let [(format, _)] = plausible.as_slice() {
        return Ok(*format);
    }
    let mut left: Vec<Format> = plausible.iter().map(|(f, _)| *f).collect();
    left.sort_unstable();
    if left == [Format::Disksim, Format::DisksimMs] {
        return Ok(Format::Disksim);
    }
    let pool: Vec<&(Format, Reading)> = if plausible.is_empty() {
        tied.iter().collect()
    } else {
        plausible
    };
    let lines = memchr::memchr_iter(b'\n', sample.bytes).count()
        + usize::from(sample.bytes.last().is_some_and(|&b| b != b'\n'));
    let mut message = format!(
        "the first {lines} lines read as {} formats that disagree on units or fields, and \
         nothing says which is meant:",
        pool.len()
    );
    for (format, reading) in &pool {
        message.push_str(&format!(
            "\n  {format} ({}): {}",
            format.description(),
            reading.describe()
        ));
    }
    for (format, reading) in tied {
        if let Some(why) = reading.implausible() {
            message.push_str(&format!("\n  (ruled out: {format}, {why})"));
        }
    }
    message.push_str(
        "\nsay which with `--format <name>`",
    );
    Err(TraceError::Input {
        file: name.to_string(),
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_ending_moves_its_format_first() {
        assert_eq!(candidates("x/msn.disksim-ms")[0], Format::DisksimMs);
        assert_eq!(candidates("a.load.gz")[0], Format::Blkreplay);
        assert_eq!(candidates("plain.csv"), Format::ALL.to_vec());
        assert_eq!(candidates("T.DISKSIM.ZST")[0], Format::Disksim);
    }

    proptest::proptest! {
        /// The memchr scan finds the same line as splitting on newlines.
        #[test]
        fn long_line_found_like_split(lens in proptest::collection::vec(0usize..MAX_LINE_BYTES + 3, 0..5), long_at in 0usize..6) {
            let mut text = Vec::new();
            for (i, len) in lens.iter().enumerate() {
                let len = if i == long_at { MAX_LINE_BYTES + 1 } else { *len % 40 + if *len > MAX_LINE_BYTES { MAX_LINE_BYTES } else { 0 } };
                text.extend(std::iter::repeat_n(b'7', len));
                if i + 1 < lens.len() || long_at % 2 == 0 {
                    text.push(b'\n');
                }
            }
            let expected = text.split(|&b| b == b'\n').position(|l| l.len() > MAX_LINE_BYTES);
            proptest::prop_assert_eq!(first_long_line(&text), expected);
        }
    }
}
