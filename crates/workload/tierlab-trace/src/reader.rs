//! [`TraceReader`]: the streaming iterator over a trace's requests.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::BufRead;

use crate::decompress::{decompress, Compression};
use crate::detect::choose;
use crate::error::TraceError;
use crate::formats::{libcachesim, Parser};
use crate::lines::{is_blank_or_comment, LineError, LineReader};
use crate::options::{ReadOptions, SORT_MAX_RECORDS};
use crate::Format;
use tierlab_types::{IoRequest, SourceLocation};

/// A request waiting in the sort window, ordered by (time, line) so that equal times keep
/// their file order.
struct Held {
    line: u64,
    request: IoRequest,
}

impl Held {
    fn key(&self) -> (u64, u64) {
        (self.request.time_ns, self.line)
    }
}

impl PartialEq for Held {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Held {}

impl PartialOrd for Held {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Held {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// How the input is cut into requests.
enum Decoder {
    /// A text format: line by line.
    Lines(Parser),
    /// A binary format: fixed-size records.
    Records(Format),
}

/// Streams the requests of one trace, in time order, as [`IoRequest`]s.
///
/// Memory is bounded whatever the trace length: one read buffer (lines are parsed in
/// place, without copying or allocating), the decoder's buffers, and (with
/// [`ReadOptions::sort`]) the sort window. After the first error the iterator
/// ends.
pub struct TraceReader {
    name: String,
    format: Format,
    compression: Compression,
    lines: LineReader,
    /// Lines read so far (records, for a binary format).
    line_no: u64,
    /// Lines up to this number are a preamble before the header, skipped unread.
    preamble: u64,
    decoder: Decoder,
    /// The options given, with `sort` set for a format read sorted by default.
    opts: ReadOptions,
    /// The volume filter, sorted for binary search.
    volumes: Option<Vec<u32>>,
    /// Time (own clock) of the last request passed on: the previous one without sort,
    /// the last one released by the sort window with it. Nothing earlier may follow.
    last_ns: Option<u64>,
    /// Sort window (used only with `opts.sort`): requests read but not yet released,
    /// and the latest time read.
    held: BinaryHeap<Reverse<Held>>,
    latest_ns: u64,
    input_done: bool,
    /// The first request's time on the trace's own clock: the base of all output times.
    first_ns: Option<u64>,
    emitted: u64,
    done: bool,
}

impl TraceReader {
    /// Reads a trace from any buffered source; `name` names it in errors and its ending
    /// hints at the format (e.g. `x.disksim-ms`). Compression is detected and undone.
    /// For standard input pass `BufReader::new(std::io::stdin())`.
    pub fn from_bufread<R: BufRead + Send + 'static>(
        input: R,
        name: impl Into<String>,
        opts: &ReadOptions,
    ) -> Result<Self, TraceError> {
        let name = name.into();
        opts.validate()?;
        let (compression, input) =
            decompress(Box::new(input)).map_err(|source| TraceError::Io {
                file: name.clone(),
                line: 0,
                context: "cannot start reading the input".into(),
                source,
            })?;
        let mut lines = LineReader::new(input);
        let (format, preamble) = choose(&mut lines, &name, opts)?;
        let decoder = match Parser::new(format, opts.blkparse_action) {
            Some(parser) => Decoder::Lines(parser),
            None => Decoder::Records(format),
        };
        let mut opts = opts.clone();
        opts.sort |= format.sorts_by_default();
        let mut volumes = opts.volumes.clone();
        if let Some(v) = volumes.as_mut() {
            v.sort_unstable();
            v.dedup();
        }
        Ok(TraceReader {
            decoder,
            name,
            format,
            compression,
            lines,
            line_no: 0,
            preamble,
            opts,
            volumes,
            last_ns: None,
            held: BinaryHeap::new(),
            latest_ns: 0,
            input_done: false,
            first_ns: None,
            emitted: 0,
            done: false,
        })
    }

    /// The format being read (detected or forced).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The compression that is being undone.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The name given to the input (the path for [`crate::open`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of the last line read (1-based; 0 before the first). For a binary
    /// format, the number of the last record read.
    pub fn line(&self) -> u64 {
        self.line_no
    }

    /// The first request's timestamp on the trace's own clock, in ns (e.g. FILETIME ticks
    /// × 100 for MSR, Unix seconds × 10⁹ for Tencent): output times are relative to it.
    /// `None` until the first request has been read.
    pub fn first_timestamp_ns(&self) -> Option<u64> {
        self.first_ns
    }

    /// The options in force (`sort` is set for a format read sorted by default).
    pub fn options(&self) -> &ReadOptions {
        &self.opts
    }

    /// The error for a failed read of the input at `line`.
    fn read_error(&self, line: u64, source: std::io::Error) -> TraceError {
        let context = match self.compression {
            Compression::None => "read error".to_string(),
            c => format!("cannot decompress the {c} stream (truncated or corrupt?)"),
        };
        TraceError::Io {
            file: self.name.clone(),
            line,
            context,
            source,
        }
    }

    /// The next request of a binary `format`, with its record number.
    fn next_record(&mut self, format: Format) -> Result<Option<(u64, IoRequest)>, TraceError> {
        let size = format.record_bytes().unwrap_or(1);
        loop {
            let index = self.line_no;
            let record = match self.lines.next_record(size) {
                Ok(Some(Ok(record))) => record,
                Ok(None) => return Ok(None),
                Ok(Some(Err(partial))) => {
                    return Err(TraceError::Parse {
                        location: SourceLocation {
                            file: self.name.clone(),
                            line: index + 1,
                            field: "record".into(),
                        },
                        expected: format!(
                            "a whole {size}-byte {format} record from byte {} of the \
                             decompressed input (the input is truncated, or not {format})",
                            index.saturating_mul(size as u64)
                        ),
                        found: format!("{partial} bytes and the end of the input"),
                    })
                }
                Err(source) => return Err(self.read_error(index + 1, source)),
            };
            self.line_no += 1;
            match libcachesim::parse(format, record, index) {
                Ok(Some(request)) => return Ok(Some((self.line_no, request))),
                Ok(None) => {}
                Err(e) => return Err(e.at(&self.name, self.line_no)),
            }
        }
    }

    /// The next request in file order, with its line number.
    fn next_parsed(&mut self) -> Result<Option<(u64, IoRequest)>, TraceError> {
        let parser = match &mut self.decoder {
            Decoder::Lines(parser) => parser,
            Decoder::Records(format) => {
                let format = *format;
                return self.next_record(format);
            }
        };
        loop {
            let line = match self.lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return Ok(None),
                Err(LineError::TooLong) => {
                    return Err(TraceError::Input {
                        file: self.name.clone(),
                        message: format!(
                            "line {} is longer than 64 KiB: not a text trace",
                            self.line_no + 1
                        ),
                    })
                }
                Err(LineError::Io(source)) => {
                    let context = match self.compression {
                        Compression::None => "read error".to_string(),
                        c => format!("cannot decompress the {c} stream (truncated or corrupt?)"),
                    };
                    let line = self.line_no + 1;
                    return Err(TraceError::Io {
                        file: self.name.clone(),
                        line,
                        context,
                        source,
                    });
                }
            };
            self.line_no += 1;
            if self.line_no <= self.preamble || is_blank_or_comment(line) {
                continue;
            }
            match parser.parse(line) {
                Ok(Some(request)) => return Ok(Some((self.line_no, request))),
                Ok(None) => {}
                Err(e) => return Err(e.at(&self.name, self.line_no)),
            }
        }
    }

    fn order_error(&self, line: u64, found_ns: u64, expected: String) -> TraceError {
        TraceError::Parse {
            location: SourceLocation {
                file: self.name.clone(),
                line,
                field: "time".into(),
            },
            expected,
            found: format!("{found_ns} ns"),
        }
    }

    /// The next request in time order (own clock).
    fn next_ordered(&mut self) -> Result<Option<IoRequest>, TraceError> {
        if !self.opts.sort {
            let Some((line, request)) = self.next_parsed()? else {
                return Ok(None);
            };
            if let Some(previous) = self.last_ns {
                if request.time_ns < previous {
                    return Err(self.order_error(
                        line,
                        request.time_ns,
                        format!(
                            "a time ≥ {previous} ns (the previous request's); to reorder \
                             out-of-order records set `sort` (--sort)"
                        ),
                    ));
                }
            }
            self.last_ns = Some(request.time_ns);
            return Ok(Some(request));
        }
        let window = self.opts.sort_window_ns;
        loop {
            if let Some(Reverse(earliest)) = self.held.peek() {
                if self.input_done
                    || self.held.len() >= SORT_MAX_RECORDS
                    || self.latest_ns > earliest.request.time_ns.saturating_add(window)
                {
                    let Some(Reverse(earliest)) = self.held.pop() else {
                        continue;
                    };
                    self.last_ns = Some(earliest.request.time_ns);
                    return Ok(Some(earliest.request));
                }
            } else if self.input_done {
                return Ok(None);
            }
            match self.next_parsed()? {
                None => self.input_done = true,
                Some((line, request)) => {
                    if let Some(released) = self.last_ns.filter(|&t| request.time_ns < t) {
                        return Err(self.order_error(
                            line,
                            request.time_ns,
                            format!(
                                "a time ≥ {released} ns: this request is earlier than one \
                                 already released by the sort window ({window} ns, at most \
                                 {SORT_MAX_RECORDS} records); widen `sort_window_ns`"
                            ),
                        ));
                    }
                    self.latest_ns = self.latest_ns.max(request.time_ns);
                    self.held.push(Reverse(Held { line, request }));
                }
            }
        }
    }

    /// `ns` of trace time scaled by the replay speed.
    fn scale(&self, ns: u64) -> u64 {
        if self.opts.speed == 1.0 {
            ns
        } else {
            // `as` saturates on overflow; a float keeps fractional speeds simple.
            (ns as f64 / self.opts.speed).round() as u64
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<IoRequest, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done || self.opts.max_requests.is_some_and(|m| self.emitted >= m) {
                return None;
            }
            let mut request = match self.next_ordered() {
                Ok(Some(r)) => r,
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let base = *self.first_ns.get_or_insert(request.time_ns);
            let since_start = request.time_ns.saturating_sub(base);
            if since_start < self.opts.start_ns {
                continue;
            }
            if self.opts.end_ns.is_some_and(|end| since_start >= end) {
                self.done = true;
                return None;
            }
            if let Some(volumes) = &self.volumes {
                if volumes.binary_search(&request.volume).is_err() {
                    continue;
                }
            }
            request.time_ns = self.scale(since_start - self.opts.start_ns);
            self.emitted += 1;
            return Some(Ok(request));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_record_size_matches_the_documented_sort_memory() {
        // `SORT_MAX_RECORDS` documents 40 bytes per held record.
        assert_eq!(std::mem::size_of::<Reverse<Held>>(), 40);
    }
}
