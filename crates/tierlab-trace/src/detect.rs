//! Recognising the format from the content.
//!
//! The reader first buffers a sample of the (decompressed) input — whole lines, up to
//! 1,000 lines or 1 MiB — without consuming it, so the parser
//! then reads it again from the same buffer.
//!
//! Rule: every format's parser reads the sample, stopping at its first error; the format
//! that reads the most requests before an error wins, provided it reads at least one.
//! Ties go to the format whose file-name ending matches (for example `.disksim-ms`,
//! `.load`, `.fiu`, ignoring a compression suffix), then to the earlier in
//! [`Format::ALL`]. Counting requests *before* the first error, rather than demanding a
//! clean sample, means a bad line early in a file is reported as that line's error, not
//! as an unknown format. Formats are strict about field counts and codes, so real files
//! match one format only; the one overlap is `disksim` versus `disksim-ms` (the same
//! fields, arrival in ns or ms): integer arrivals read as ns (`disksim`, MQSim's
//! convention), a decimal point in a sampled arrival means ms (`disksim-ms`), and a name
//! ending in `.disksim-ms` means ms. Setting [`crate::ReadOptions::format`] skips
//! detection.

use crate::error::TraceError;
use crate::formats::Parser;
use crate::lines::{is_blank_or_comment, LineReader, MAX_LINE_BYTES};
use crate::{BlkparseAction, Format};

/// At most this many lines are sampled for detection.
pub(crate) const SAMPLE_LINES: usize = 1000;
/// At most (about) this many bytes are sampled for detection.
pub(crate) const SAMPLE_BYTES: usize = 1 << 20;

/// The first lines of the input, buffered but not consumed.
pub(crate) struct Sample<'a> {
    /// Whole lines only: a partial last line (when the input is longer) is left out.
    bytes: &'a [u8],
}

impl<'a> Sample<'a> {
    /// Buffers the sample in `lines` and checks it: an empty, binary (NUL bytes) or
    /// newline-free input is an error.
    pub fn take(lines: &'a mut LineReader, file: &str) -> Result<Self, TraceError> {
        lines
            .fill_to(SAMPLE_BYTES)
            .map_err(|source| TraceError::Io {
                file: file.to_string(),
                line: 1,
                context: "cannot read (or decompress) the input".into(),
                source,
            })?;
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
            return Err(TraceError::Input {
                file: file.to_string(),
                message: format!("the input {what} (after any decompression): no requests to read"),
            });
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
             compressed with gzip, bzip2, xz or zstd, which is undone automatically)"
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

/// How many requests `format` reads from the sample before its first error, and that
/// error (if any).
fn try_format(format: Format, sample: &Sample, action: BlkparseAction) -> (usize, Option<String>) {
    let mut parser = Parser::new(format, action);
    let mut requests = 0;
    for (index, line) in sample.lines().enumerate() {
        if is_blank_or_comment(line) {
            continue;
        }
        match parser.parse(line) {
            Ok(Some(_)) => requests += 1,
            Ok(None) => {}
            Err(e) => return (requests, Some(format!("line {}: {e}", index + 1))),
        }
    }
    (requests, None)
}

/// The format of the sampled input called `name`.
pub(crate) fn detect(
    sample: &Sample,
    name: &str,
    action: BlkparseAction,
) -> Result<Format, TraceError> {
    let mut best: Option<(usize, Format)> = None;
    let mut reasons = Vec::new();
    for format in candidates(name) {
        let (requests, error) = try_format(format, sample, action);
        if requests > best.map_or(0, |b| b.0) {
            best = Some((requests, format));
        }
        let why = error.unwrap_or_else(|| "no request in the first lines".to_string());
        reasons.push(format!("\n  {format}: {why}"));
    }
    match best {
        Some((_, format)) => Ok(format),
        None => Err(TraceError::Input {
            file: name.to_string(),
            message: format!(
                "not in any trace format this reader knows; tried:{}\nforce a format with \
                 `--format <name>` (ReadOptions::format) to see the first error in full",
                reasons.concat()
            ),
        }),
    }
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
