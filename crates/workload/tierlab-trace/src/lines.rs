//! Reading lines without copying them: [`LineReader`] keeps one growable buffer, fills it
//! in large chunks from the (decompressed) input, and hands out each line as a slice of
//! it. Line length is bounded, so a binary or newline-free input cannot make memory grow
//! with the file. The binary formats take fixed-size records from the same buffer
//! ([`LineReader::next_record`]).

use std::io::{self, Read};

/// Lines longer than this are rejected: no trace format has lines anywhere near it.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

/// Bytes read from the input at a time.
const CHUNK_BYTES: usize = 256 * 1024;

/// Why no line could be returned.
pub(crate) enum LineError {
    Io(io::Error),
    /// The line exceeded [`MAX_LINE_BYTES`].
    TooLong,
}

/// Splits an input into lines (without `\n` or `\r\n`; a last line without a newline
/// counts).
pub(crate) struct LineReader {
    input: Box<dyn Read + Send>,
    buf: Vec<u8>,
    /// Start of the unread bytes in `buf`.
    start: usize,
    /// End of the valid bytes in `buf`.
    end: usize,
    eof: bool,
}

impl LineReader {
    pub fn new(input: Box<dyn Read + Send>) -> Self {
        LineReader {
            input,
            buf: vec![0; CHUNK_BYTES],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// Moves the unread bytes to the front, grows the buffer if it is full, and reads
    /// more; sets `eof` when the input is exhausted.
    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Buffers at least `want` unread bytes, unless the input is shorter.
    pub fn fill_to(&mut self, want: usize) -> io::Result<()> {
        while self.end - self.start < want && !self.eof {
            self.fill()?;
        }
        Ok(())
    }

    /// The buffered unread bytes, without consuming them (for format detection).
    pub fn peeked(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Whether the whole input is buffered (or consumed).
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<&[u8]>, LineError> {
        let mut scanned = self.start;
        let (line_start, line_end) = loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[scanned..self.end]) {
                let newline = scanned + i;
                let line = (self.start, newline);
                self.start = newline + 1;
                break line;
            }
            if self.end - self.start > MAX_LINE_BYTES {
                return Err(LineError::TooLong);
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let line = (self.start, self.end);
                self.start = self.end;
                break line;
            }
            let unscanned = self.end - self.start;
            self.fill().map_err(LineError::Io)?;
            scanned = self.start + unscanned;
        };
        let line = &self.buf[line_start..line_end];
        Ok(Some(line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

impl LineReader {
    /// The next `len` bytes, a binary record (`len` > 0, small), as a slice of the buffer;
    /// `None` at the end of the input. If the input ends inside a record, the inner result
    /// is `Err(n)` with the `n` bytes it had (which are consumed).
    pub fn next_record(&mut self, len: usize) -> io::Result<Option<Result<&[u8], usize>>> {
        let len = len.max(1);
        while self.end - self.start < len && !self.eof {
            self.fill()?;
        }
        let have = self.end - self.start;
        if have >= len {
            let at = self.start;
            self.start += len;
            return Ok(Some(Ok(&self.buf[at..at + len])));
        }
        self.start = self.end;
        Ok((have > 0).then_some(Err(have)))
    }
}

/// Whether a line carries nothing to parse: blank, or a `#` comment.
pub(crate) fn is_blank_or_comment(line: &[u8]) -> bool {
    match line.iter().find(|&&b| b != b' ' && b != b'\t') {
        None => true,
        Some(&b) => b == b'#',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that returns at most 3 bytes per read, to exercise refills mid-line.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = out.len().min(3).min(self.0.len() - self.1);
            out[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }

    fn all_lines(text: &[u8]) -> Vec<Vec<u8>> {
        let mut r = LineReader::new(Box::new(Trickle(text.to_vec(), 0)));
        let mut out = Vec::new();
        while let Ok(Some(line)) = r.next_line() {
            out.push(line.to_vec());
        }
        out
    }

    #[test]
    fn splits_lines_and_strips_crlf_and_keeps_last_unterminated_line() {
        assert_eq!(
            all_lines(b"a\r\nbcdefgh\n\nc"),
            vec![b"a".to_vec(), b"bcdefgh".to_vec(), vec![], b"c".to_vec()]
        );
        assert!(all_lines(b"").is_empty());
    }

    #[test]
    fn lines_spanning_many_chunks_are_whole() {
        // Longest allowed lines, 10 of them: several chunks, lines cut at chunk edges.
        let line = vec![b'7'; MAX_LINE_BYTES];
        let mut text = Vec::new();
        for _ in 0..10 {
            text.extend_from_slice(&line);
            text.push(b'\n');
        }
        let mut r = LineReader::new(Box::new(io::Cursor::new(text)));
        let mut count = 0;
        while let Some(got) = r.next_line().ok().expect("no error") {
            assert_eq!(got, &line[..]);
            count += 1;
        }
        assert_eq!(count, 10);
    }

    #[test]
    fn peek_does_not_consume() {
        let mut r = LineReader::new(Box::new(io::Cursor::new(b"x y\nz\n".to_vec())));
        r.fill_to(1 << 20).unwrap();
        assert_eq!(r.peeked(), b"x y\nz\n");
        assert!(r.at_eof());
        assert_eq!(r.next_line().ok().flatten(), Some(&b"x y"[..]));
    }

    #[test]
    fn overlong_line_is_reported_not_buffered_forever() {
        let long = vec![b'x'; MAX_LINE_BYTES * 3];
        let mut r = LineReader::new(Box::new(io::Cursor::new(long)));
        assert!(matches!(r.next_line(), Err(LineError::TooLong)));
        assert!(r.buf.len() <= 2 * CHUNK_BYTES);
    }

    #[test]
    fn records_span_refills_and_a_short_tail_is_reported() {
        let data: Vec<u8> = (0..=50).collect();
        let mut r = LineReader::new(Box::new(Trickle(data.clone(), 0)));
        let mut got = Vec::new();
        loop {
            match r.next_record(24).unwrap() {
                Some(Ok(record)) => got.push(record.to_vec()),
                Some(Err(partial)) => {
                    assert_eq!(partial, 3);
                    break;
                }
                None => panic!("the 3-byte tail must be reported"),
            }
        }
        assert_eq!(got, vec![data[..24].to_vec(), data[24..48].to_vec()]);
        assert!(matches!(r.next_record(24), Ok(None)));
    }

    #[test]
    fn comments_and_blank_lines_are_recognised() {
        assert!(is_blank_or_comment(b"   "));
        assert!(is_blank_or_comment(b"  # note"));
        assert!(!is_blank_or_comment(b"1 2 3"));
    }
}
