//! A plain-text file format for a stream of transactions, so that any [`UpdateSource`]
//! can be dumped ([`LogWriter`], [`dump`]) and replayed ([`LogReader`]) exactly.
//!
//! # Format (`tierlab update log v1`)
//!
//! ```text
//! # tierlab update log v1
//! page_bytes 4096
//! data_bytes 1073741824
//!
//! txn
//! io data read 8192 4096
//! io log write 0 512
//! rec 1 insert row:3:2:5 8192 120 150 4711
//! rec 2 write block 1048576 4096 4160 99
//! commit
//! ```
//!
//! * Line 1 is the header, exactly `# tierlab update log v1`.
//! * Then `page_bytes N` and `data_bytes N` (both positive, each once, either order),
//!   before the first transaction.
//! * A transaction is `txn`, then its primary I/Os and its records, then `commit`:
//!   - `io <data|log> <read|write> <offset_bytes> <len_bytes>`: one I/O of the primary, in
//!     issue order (`len_bytes` > 0; a data-volume I/O lies within `data_bytes`);
//!   - `rec <lsn> <insert|update|delete|write> <key> <addr_bytes> <len_bytes> <log_bytes>
//!     <value>` with key `row:<table>:<page>:<slot>` or `block`.
//!
//!   `io` and `rec` lines may interleave; each kind keeps its own order. The writer emits
//!   all `io` lines first.
//! * Blank lines and comment lines (first non-blank character `#`) may appear anywhere
//!   after the header. Fields are separated by spaces or tabs.
//!
//! # Rules the reader (and the writer) enforce
//!
//! * LSNs strictly increase across the whole file.
//! * `addr_bytes` < `data_bytes` and `addr_bytes + len_bytes` ≤ `data_bytes`.
//! * Row records (`insert`, `update`, `delete`) have a `row:` key, `addr_bytes` =
//!   page × `page_bytes`, and `len_bytes` ≤ `page_bytes`; a delete has `len_bytes` 0.
//! * Write records have key `block`, `addr_bytes` a multiple of 512 and `len_bytes` a
//!   positive multiple of 512 (forwarded block writes are whole sectors).
//! * `log_bytes` > 0: every record occupies space in the log.
//! * `commit` closes an open `txn`; the file may not end inside a transaction.
//!
//! Every violation is a [`LogError`] naming the file, line, field, what was expected and
//! what was found, e.g. `update.log:17: field `lsn`: expected a number greater than the
//! previous lsn 41, found `40``. The reader never panics, whatever the input.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use tierlab_types::Op;

use crate::record::{
    PrimaryIo, PrimaryVolume, RecordKey, SourceError, Transaction, UpdateOp, UpdateRecord,
    UpdateSource,
};

/// The first line of every log file.
pub const LOG_HEADER: &str = "# tierlab update log v1";

/// What was found where something else was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A token of the line (shown in backticks).
    Token(String),
    EndOfLine,
    EndOfFile,
    /// Something that is not a token: an I/O error, or a description.
    Other(String),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Token(t) => write!(f, "`{t}`"),
            Found::EndOfLine => f.write_str("end of line"),
            Found::EndOfFile => f.write_str("end of file"),
            Found::Other(s) => f.write_str(s),
        }
    }
}

/// A log file that cannot be read or written: where, which field, what was expected and
/// what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError {
    /// The file, when the reader or writer was opened from a path.
    pub path: Option<PathBuf>,
    /// 1-based line number; 0 when the error is not about a line (opening the file).
    pub line: u64,
    pub field: Option<&'static str>,
    pub expected: String,
    pub found: Found,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(p), 0) => write!(f, "{}: ", p.display())?,
            (Some(p), n) => write!(f, "{}:{n}: ", p.display())?,
            (None, 0) => {}
            (None, n) => write!(f, "line {n}: ")?,
        }
        if let Some(field) = self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for LogError {}

impl From<LogError> for SourceError {
    fn from(e: LogError) -> Self {
        SourceError::new(e.to_string())
    }
}

impl LogError {
    fn at(
        line: u64,
        field: Option<&'static str>,
        expected: impl Into<String>,
        found: Found,
    ) -> Self {
        LogError {
            path: None,
            line,
            field,
            expected: expected.into(),
            found,
        }
    }

    fn io(line: u64, expected: &str, e: &std::io::Error) -> Self {
        Self::at(
            line,
            None,
            expected,
            Found::Other(format!("I/O error: {e}")),
        )
    }

    fn with_path(mut self, path: Option<&Path>) -> Self {
        if self.path.is_none() {
            self.path = path.map(Path::to_path_buf);
        }
        self
    }
}

/// The parameters of a log and the checks shared by reader and writer.
#[derive(Clone, Copy, Debug)]
struct Rules {
    page_bytes: u64,
    data_bytes: u64,
    last_lsn: Option<u64>,
}

impl Rules {
    fn check_io(&self, line: u64, io: &PrimaryIo) -> Result<(), LogError> {
        if io.len_bytes == 0 {
            return Err(LogError::at(
                line,
                Some("len_bytes"),
                "a positive length",
                Found::Token("0".into()),
            ));
        }
        if io.volume == PrimaryVolume::Data {
            let end = io.offset_bytes.checked_add(io.len_bytes);
            if end.is_none_or(|e| e > self.data_bytes) {
                return Err(LogError::at(
                    line,
                    Some("len_bytes"),
                    format!(
                        "a data-volume I/O within data_bytes {} (offset {} + length)",
                        self.data_bytes, io.offset_bytes
                    ),
                    Found::Token(io.len_bytes.to_string()),
                ));
            }
        }
        Ok(())
    }

    /// Check a record and advance the LSN.
    fn check_record(&mut self, line: u64, r: &UpdateRecord) -> Result<(), LogError> {
        let bad = |field, expected: String, found: u64| {
            Err(LogError::at(
                line,
                Some(field),
                expected,
                Found::Token(found.to_string()),
            ))
        };
        if let Some(prev) = self.last_lsn {
            if r.lsn <= prev {
                return bad(
                    "lsn",
                    format!("a number greater than the previous lsn {prev}"),
                    r.lsn,
                );
            }
        }
        if r.addr_bytes >= self.data_bytes {
            return bad(
                "addr_bytes",
                format!("an address below data_bytes {}", self.data_bytes),
                r.addr_bytes,
            );
        }
        if r.addr_bytes.saturating_add(u64::from(r.len_bytes)) > self.data_bytes {
            return bad(
                "len_bytes",
                format!(
                    "a length that ends within data_bytes {} (at most {} from addr_bytes {})",
                    self.data_bytes,
                    self.data_bytes - r.addr_bytes,
                    r.addr_bytes
                ),
                u64::from(r.len_bytes),
            );
        }
        if r.log_bytes == 0 {
            return bad("log_bytes", "a positive size in the log".into(), 0);
        }
        match (r.op, r.key) {
            (UpdateOp::Write, RecordKey::Block) => {
                if !r.addr_bytes.is_multiple_of(512) {
                    return bad(
                        "addr_bytes",
                        "a multiple of 512 for a block write".into(),
                        r.addr_bytes,
                    );
                }
                if r.len_bytes == 0 || !r.len_bytes.is_multiple_of(512) {
                    return bad(
                        "len_bytes",
                        "a positive multiple of 512 for a block write".into(),
                        u64::from(r.len_bytes),
                    );
                }
            }
            (UpdateOp::Write, RecordKey::Row { .. }) => {
                return Err(LogError::at(
                    line,
                    Some("key"),
                    "`block` for a write record",
                    Found::Token(key_text(&r.key)),
                ));
            }
            (_, RecordKey::Block) => {
                return Err(LogError::at(
                    line,
                    Some("key"),
                    format!("a `row:<table>:<page>:<slot>` key for {}", op_text(r.op)),
                    Found::Token("block".into()),
                ));
            }
            (op, RecordKey::Row { page, .. }) => {
                match page.checked_mul(self.page_bytes) {
                    Some(addr) if addr == r.addr_bytes => {}
                    Some(addr) => {
                        return bad(
                            "addr_bytes",
                            format!(
                                "the first byte of page {page}: {addr} (page × page_bytes {})",
                                self.page_bytes
                            ),
                            r.addr_bytes,
                        )
                    }
                    None => {
                        return Err(LogError::at(
                            line,
                            Some("key"),
                            format!(
                                "a page whose address (page × page_bytes {}) fits in 64 bits",
                                self.page_bytes
                            ),
                            Found::Token(key_text(&r.key)),
                        ))
                    }
                }
                if op == UpdateOp::Delete && r.len_bytes != 0 {
                    return bad("len_bytes", "0 for a delete".into(), u64::from(r.len_bytes));
                }
                if u64::from(r.len_bytes) > self.page_bytes {
                    return bad(
                        "len_bytes",
                        format!("at most page_bytes {} for a row record", self.page_bytes),
                        u64::from(r.len_bytes),
                    );
                }
            }
        }
        self.last_lsn = Some(r.lsn);
        Ok(())
    }
}

fn op_text(op: UpdateOp) -> &'static str {
    match op {
        UpdateOp::Insert => "insert",
        UpdateOp::Update => "update",
        UpdateOp::Delete => "delete",
        UpdateOp::Write => "write",
    }
}

fn key_text(key: &RecordKey) -> String {
    match key {
        RecordKey::Row { table, page, slot } => format!("row:{table}:{page}:{slot}"),
        RecordKey::Block => "block".into(),
    }
}

// ---------------------------------------------------------------------------------------
// Writer

/// Writes transactions in the log format, checking each against the format's rules so
/// that whatever it writes reads back.
pub struct LogWriter<W: Write> {
    out: W,
    rules: Rules,
    /// Lines written so far (for error positions).
    line: u64,
    path: Option<PathBuf>,
}

impl LogWriter<BufWriter<File>> {
    /// Create (or truncate) the file at `path` and write the header.
    pub fn create(
        path: impl AsRef<Path>,
        page_bytes: u64,
        data_bytes: u64,
    ) -> Result<Self, LogError> {
        let path = path.as_ref();
        let file = File::create(path)
            .map_err(|e| LogError::io(0, "a file that can be created", &e).with_path(Some(path)))?;
        let mut w = LogWriter::new(BufWriter::new(file), page_bytes, data_bytes)
            .map_err(|e| e.with_path(Some(path)))?;
        w.path = Some(path.to_path_buf());
        Ok(w)
    }
}

impl<W: Write> LogWriter<W> {
    /// Write the header for a log over `data_bytes` bytes with `page_bytes` pages (both
    /// positive).
    pub fn new(out: W, page_bytes: u64, data_bytes: u64) -> Result<Self, LogError> {
        for (field, v) in [("page_bytes", page_bytes), ("data_bytes", data_bytes)] {
            if v == 0 {
                return Err(LogError::at(
                    0,
                    Some(field),
                    "a positive number",
                    Found::Token("0".into()),
                ));
            }
        }
        let mut w = LogWriter {
            out,
            rules: Rules {
                page_bytes,
                data_bytes,
                last_lsn: None,
            },
            line: 0,
            path: None,
        };
        w.emit(
            format_args!("{LOG_HEADER}\npage_bytes {page_bytes}\ndata_bytes {data_bytes}\n"),
            3,
        )?;
        Ok(w)
    }

    fn emit(&mut self, args: fmt::Arguments<'_>, lines: u64) -> Result<(), LogError> {
        self.out.write_fmt(args).map_err(|e| {
            LogError::io(self.line + 1, "a writable output", &e).with_path(self.path.as_deref())
        })?;
        self.line += lines;
        Ok(())
    }

    /// Append one transaction. Nothing is written if it breaks a rule.
    pub fn write_transaction(&mut self, t: &Transaction) -> Result<(), LogError> {
        // Check everything first, so that a bad transaction leaves the file readable.
        let mut rules = self.rules;
        let mut line = self.line + 1; // the `txn` line
        for io in &t.primary_ios {
            line += 1;
            rules
                .check_io(line, io)
                .map_err(|e| e.with_path(self.path.as_deref()))?;
        }
        for r in &t.records {
            line += 1;
            rules
                .check_record(line, r)
                .map_err(|e| e.with_path(self.path.as_deref()))?;
        }
        let mut text = String::from("txn\n");
        for io in &t.primary_ios {
            let volume = match io.volume {
                PrimaryVolume::Data => "data",
                PrimaryVolume::Log => "log",
            };
            let dir = match io.op {
                Op::Read => "read",
                Op::Write => "write",
            };
            text.push_str(&format!(
                "io {volume} {dir} {} {}\n",
                io.offset_bytes, io.len_bytes
            ));
        }
        for r in &t.records {
            text.push_str(&format!(
                "rec {} {} {} {} {} {} {}\n",
                r.lsn,
                op_text(r.op),
                key_text(&r.key),
                r.addr_bytes,
                r.len_bytes,
                r.log_bytes,
                r.value
            ));
        }
        text.push_str("commit\n");
        let lines = line - self.line + 1;
        self.emit(format_args!("{text}"), lines)?;
        self.rules = rules;
        Ok(())
    }

    /// Flush and return the output.
    pub fn finish(mut self) -> Result<W, LogError> {
        self.out.flush().map_err(|e| {
            LogError::io(self.line, "a writable output", &e).with_path(self.path.as_deref())
        })?;
        Ok(self.out)
    }
}

/// Why [`dump`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("reading the source: {0}")]
    Source(#[from] SourceError),
    #[error("writing the log: {0}")]
    Log(#[from] LogError),
}

/// Write every transaction of `source` to `out` in the log format; returns how many
/// transactions were written.
pub fn dump<S: UpdateSource + ?Sized, W: Write>(source: &mut S, out: W) -> Result<u64, DumpError> {
    let mut w = LogWriter::new(out, source.page_bytes(), source.data_bytes())?;
    let mut t = Transaction::default();
    let mut n = 0;
    while source.next_transaction(&mut t)? {
        w.write_transaction(&t)?;
        n += 1;
    }
    w.finish()?;
    Ok(n)
}

// ---------------------------------------------------------------------------------------
// Reader

/// Reads a log file as an [`UpdateSource`]. After an error every further call returns
/// the same error.
pub struct LogReader<R: BufRead> {
    input: R,
    rules: Rules,
    line: u64,
    path: Option<PathBuf>,
    buf: Vec<u8>,
    failed: Option<LogError>,
}

/// Open the log at `path` (header read and checked).
pub fn open_log(path: impl AsRef<Path>) -> Result<LogReader<BufReader<File>>, LogError> {
    LogReader::open(path)
}

impl LogReader<BufReader<File>> {
    /// Open the log at `path`; errors name the path.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LogError> {
        let path = path.as_ref();
        let file = File::open(path)
            .map_err(|e| LogError::io(0, "a readable log file", &e).with_path(Some(path)))?;
        let mut r = LogReader::new(BufReader::new(file)).map_err(|e| e.with_path(Some(path)))?;
        r.path = Some(path.to_path_buf());
        Ok(r)
    }
}

/// One line split into tokens, with its number.
struct Line<'a> {
    number: u64,
    tokens: std::str::SplitAsciiWhitespace<'a>,
}

impl<'a> Line<'a> {
    fn err(&self, field: &'static str, expected: impl Into<String>, found: Found) -> LogError {
        LogError::at(self.number, Some(field), expected, found)
    }

    fn token(&mut self, field: &'static str, expected: &str) -> Result<&'a str, LogError> {
        let n = self.number;
        self.tokens
            .next()
            .ok_or_else(|| LogError::at(n, Some(field), expected, Found::EndOfLine))
    }

    fn number(&mut self, field: &'static str) -> Result<u64, LogError> {
        let t = self.token(field, "a number")?;
        parse_u64(t).ok_or_else(|| self.err(field, "a number", Found::Token(t.into())))
    }

    fn number_u32(&mut self, field: &'static str) -> Result<u32, LogError> {
        let t = self.token(field, "a number")?;
        parse_u64(t)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                self.err(
                    field,
                    format!("a number no larger than {}", u32::MAX),
                    Found::Token(t.into()),
                )
            })
    }

    fn end(&mut self) -> Result<(), LogError> {
        match self.tokens.next() {
            None => Ok(()),
            Some(t) => Err(LogError::at(
                self.number,
                None,
                "end of line",
                Found::Token(t.into()),
            )),
        }
    }
}

/// Decimal digits only (no sign), no overflow.
fn parse_u64(t: &str) -> Option<u64> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

fn parse_key(t: &str) -> Option<RecordKey> {
    if t == "block" {
        return Some(RecordKey::Block);
    }
    let mut parts = t.strip_prefix("row:")?.split(':');
    let table = u16::try_from(parse_u64(parts.next()?)?).ok()?;
    let page = parse_u64(parts.next()?)?;
    let slot = u16::try_from(parse_u64(parts.next()?)?).ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some(RecordKey::Row { table, page, slot })
}

enum Next {
    Line(String, u64),
    Eof,
}

impl<R: BufRead> LogReader<R> {
    /// Read and check the header (`# tierlab update log v1`, `page_bytes`,
    /// `data_bytes`).
    pub fn new(input: R) -> Result<Self, LogError> {
        let mut r = LogReader {
            input,
            rules: Rules {
                page_bytes: 0,
                data_bytes: 0,
                last_lsn: None,
            },
            line: 0,
            path: None,
            buf: Vec::new(),
            failed: None,
        };
        match r.raw_line()? {
            Next::Line(text, _) if text.trim_end() == LOG_HEADER => {}
            Next::Line(text, n) => {
                return Err(LogError::at(
                    n,
                    Some("header"),
                    format!("the header line `{LOG_HEADER}`"),
                    Found::Token(truncate(text.trim_end())),
                ))
            }
            Next::Eof => {
                return Err(LogError::at(
                    1,
                    Some("header"),
                    format!("the header line `{LOG_HEADER}`"),
                    Found::EndOfFile,
                ))
            }
        }
        let (mut page_bytes, mut data_bytes) = (None, None);
        while page_bytes.is_none() || data_bytes.is_none() {
            let (text, n) = match r.content_line()? {
                Some(x) => x,
                None => {
                    return Err(LogError::at(
                        r.line + 1,
                        Some(if page_bytes.is_none() {
                            "page_bytes"
                        } else {
                            "data_bytes"
                        }),
                        "`page_bytes N` and `data_bytes N` lines after the header",
                        Found::EndOfFile,
                    ))
                }
            };
            let mut line = Line {
                number: n,
                tokens: text.split_ascii_whitespace(),
            };
            let kw = line.token("keyword", "a keyword")?;
            let (slot, field) = match kw {
                "page_bytes" => (&mut page_bytes, "page_bytes"),
                "data_bytes" => (&mut data_bytes, "data_bytes"),
                other => {
                    let missing = if page_bytes.is_none() {
                        "page_bytes"
                    } else {
                        "data_bytes"
                    };
                    return Err(line.err(
                        "keyword",
                        format!("`{missing} N` before the first transaction"),
                        Found::Token(truncate(other)),
                    ));
                }
            };
            if slot.is_some() {
                return Err(line.err(
                    field,
                    "each of page_bytes and data_bytes once",
                    Found::Other("a second line".into()),
                ));
            }
            let v = line.number(field)?;
            if v == 0 {
                return Err(line.err(field, "a positive number", Found::Token("0".into())));
            }
            line.end()?;
            *slot = Some(v);
        }
        r.rules.page_bytes = page_bytes.unwrap_or(1);
        r.rules.data_bytes = data_bytes.unwrap_or(1);
        Ok(r)
    }

    /// Name the file in errors (set by [`LogReader::open`]).
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    fn raw_line(&mut self) -> Result<Next, LogError> {
        self.buf.clear();
        let n = self.line + 1;
        match self.input.read_until(b'\n', &mut self.buf) {
            Ok(0) => Ok(Next::Eof),
            Ok(_) => {
                self.line = n;
                match std::str::from_utf8(&self.buf) {
                    Ok(s) => Ok(Next::Line(s.to_owned(), n)),
                    Err(e) => Err(LogError::at(
                        n,
                        None,
                        "UTF-8 text",
                        Found::Other(format!(
                            "a byte that is not UTF-8 at column {}",
                            e.valid_up_to() + 1
                        )),
                    )),
                }
            }
            Err(e) => Err(LogError::io(n, "a readable log", &e)),
        }
    }

    /// The next line that is neither blank nor a comment.
    fn content_line(&mut self) -> Result<Option<(String, u64)>, LogError> {
        loop {
            match self.raw_line()? {
                Next::Eof => return Ok(None),
                Next::Line(text, n) => {
                    let t = text.trim_start();
                    if t.is_empty() || t.starts_with('#') {
                        continue;
                    }
                    return Ok(Some((text, n)));
                }
            }
        }
    }

    /// [`UpdateSource::next_transaction`] with the typed error.
    pub fn read_transaction(&mut self, out: &mut Transaction) -> Result<bool, LogError> {
        out.clear();
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        match self.read_inner(out) {
            Ok(more) => Ok(more),
            Err(e) => {
                let e = e.with_path(self.path.as_deref());
                self.failed = Some(e.clone());
                out.clear();
                Err(e)
            }
        }
    }

    fn read_inner(&mut self, out: &mut Transaction) -> Result<bool, LogError> {
        let mut open = false;
        loop {
            let Some((text, n)) = self.content_line()? else {
                if open {
                    return Err(LogError::at(
                        self.line + 1,
                        Some("keyword"),
                        "`commit` to close the open `txn`",
                        Found::EndOfFile,
                    ));
                }
                return Ok(false);
            };
            let mut line = Line {
                number: n,
                tokens: text.split_ascii_whitespace(),
            };
            let kw = line.token("keyword", "a keyword")?;
            match (kw, open) {
                ("txn", false) => {
                    line.end()?;
                    open = true;
                }
                ("txn", true) => {
                    return Err(line.err(
                        "keyword",
                        "`commit` before the next `txn`",
                        Found::Token("txn".into()),
                    ))
                }
                ("commit", true) => {
                    line.end()?;
                    return Ok(true);
                }
                ("io", true) => {
                    let io = parse_io(&mut line)?;
                    self.rules.check_io(n, &io)?;
                    out.primary_ios.push(io);
                }
                ("rec", true) => {
                    let r = parse_rec(&mut line)?;
                    self.rules.check_record(n, &r)?;
                    out.records.push(r);
                }
                ("commit" | "io" | "rec", false) => {
                    return Err(line.err(
                        "keyword",
                        format!("`txn` before `{kw}`"),
                        Found::Token(kw.into()),
                    ))
                }
                ("page_bytes" | "data_bytes", _) => {
                    return Err(line.err(
                        "keyword",
                        "page_bytes and data_bytes only once, before the first transaction",
                        Found::Token(kw.into()),
                    ))
                }
                (other, _) => {
                    return Err(line.err(
                        "keyword",
                        if open {
                            "one of `io`, `rec`, `commit`"
                        } else {
                            "`txn`"
                        },
                        Found::Token(truncate(other)),
                    ))
                }
            }
        }
    }
}

fn parse_io(line: &mut Line<'_>) -> Result<PrimaryIo, LogError> {
    let volume = match line.token("volume", "`data` or `log`")? {
        "data" => PrimaryVolume::Data,
        "log" => PrimaryVolume::Log,
        t => return Err(line.err("volume", "`data` or `log`", Found::Token(truncate(t)))),
    };
    let op = match line.token("direction", "`read` or `write`")? {
        "read" => Op::Read,
        "write" => Op::Write,
        t => return Err(line.err("direction", "`read` or `write`", Found::Token(truncate(t)))),
    };
    let offset_bytes = line.number("offset_bytes")?;
    let len_bytes = line.number("len_bytes")?;
    line.end()?;
    Ok(PrimaryIo {
        volume,
        op,
        offset_bytes,
        len_bytes,
    })
}

fn parse_rec(line: &mut Line<'_>) -> Result<UpdateRecord, LogError> {
    let lsn = line.number("lsn")?;
    const OPS: &str = "one of `insert`, `update`, `delete`, `write`";
    let op = match line.token("op", OPS)? {
        "insert" => UpdateOp::Insert,
        "update" => UpdateOp::Update,
        "delete" => UpdateOp::Delete,
        "write" => UpdateOp::Write,
        t => return Err(line.err("op", OPS, Found::Token(truncate(t)))),
    };
    const KEY: &str = "`row:<table>:<page>:<slot>` (table and slot below 65536) or `block`";
    let key_token = line.token("key", KEY)?;
    let key = parse_key(key_token)
        .ok_or_else(|| line.err("key", KEY, Found::Token(truncate(key_token))))?;
    let addr_bytes = line.number("addr_bytes")?;
    let len_bytes = line.number_u32("len_bytes")?;
    let log_bytes = line.number_u32("log_bytes")?;
    let value = line.number("value")?;
    line.end()?;
    Ok(UpdateRecord {
        lsn,
        op,
        key,
        addr_bytes,
        len_bytes,
        log_bytes,
        value,
    })
}

/// Keep error messages short when a line is garbage.
fn truncate(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(MAX).collect();
        t.push('…');
        t
    }
}

impl<R: BufRead> UpdateSource for LogReader<R> {
    fn next_transaction(&mut self, out: &mut Transaction) -> Result<bool, SourceError> {
        self.read_transaction(out).map_err(SourceError::from)
    }

    fn data_bytes(&self) -> u64 {
        self.rules.data_bytes
    }

    fn page_bytes(&self) -> u64 {
        self.rules.page_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HEAD: &str = "# tierlab update log v1\npage_bytes 4096\ndata_bytes 1048576\n";

    fn read_all(text: &str) -> Result<Vec<Transaction>, LogError> {
        let mut r = LogReader::new(text.as_bytes())?;
        let mut out = Vec::new();
        let mut t = Transaction::default();
        while r.read_transaction(&mut t)? {
            out.push(t.clone());
        }
        Ok(out)
    }

    fn err_of(text: &str) -> String {
        read_all(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_the_documented_example() {
        let text = format!(
            "{HEAD}\n# a comment\ntxn\nio data read 8192 4096\n  io log write 0 512\nrec 1 insert row:3:2:5 8192 120 150 4711\n\trec 2 write block 65536 4096 4160 99\ncommit\n\ntxn\ncommit\n"
        );
        let mut r = LogReader::new(text.as_bytes()).unwrap();
        assert_eq!((r.page_bytes(), r.data_bytes()), (4096, 1_048_576));
        let mut t = Transaction::default();
        assert!(r.next_transaction(&mut t).unwrap());
        assert_eq!(
            t.primary_ios,
            vec![
                PrimaryIo {
                    volume: PrimaryVolume::Data,
                    op: Op::Read,
                    offset_bytes: 8192,
                    len_bytes: 4096
                },
                PrimaryIo {
                    volume: PrimaryVolume::Log,
                    op: Op::Write,
                    offset_bytes: 0,
                    len_bytes: 512
                },
            ]
        );
        assert_eq!(
            t.records,
            vec![
                UpdateRecord {
                    lsn: 1,
                    op: UpdateOp::Insert,
                    key: RecordKey::Row {
                        table: 3,
                        page: 2,
                        slot: 5
                    },
                    addr_bytes: 8192,
                    len_bytes: 120,
                    log_bytes: 150,
                    value: 4711
                },
                UpdateRecord {
                    lsn: 2,
                    op: UpdateOp::Write,
                    key: RecordKey::Block,
                    addr_bytes: 65536,
                    len_bytes: 4096,
                    log_bytes: 4160,
                    value: 99
                },
            ]
        );
        assert!(r.next_transaction(&mut t).unwrap());
        assert_eq!(t, Transaction::default());
        assert!(!r.next_transaction(&mut t).unwrap());
        assert!(!r.next_transaction(&mut t).unwrap());
    }

    #[test]
    fn errors_name_line_field_expectation_and_finding() {
        let text = format!(
            "{HEAD}txn\nrec 41 update row:0:1:0 4096 10 20 1\ncommit\ntxn\nrec 40 update row:0:1:0 4096 10 20 1\ncommit\n"
        );
        assert_eq!(
            err_of(&text),
            "line 8: field `lsn`: expected a number greater than the previous lsn 41, found `40`"
        );
        let cases: &[(&str, &str)] = &[
            ("txn\nrec 1 update row:0:1:0 4097 10 20 1\ncommit\n", "line 5: field `addr_bytes`: expected the first byte of page 1: 4096"),
            ("txn\nrec 1 update row:0:1:0 4096 5000 20 1\ncommit\n", "field `len_bytes`: expected at most page_bytes 4096"),
            ("txn\nrec 1 delete row:0:1:0 4096 5 20 1\ncommit\n", "field `len_bytes`: expected 0 for a delete, found `5`"),
            ("txn\nrec 1 write block 1024 100 20 1\ncommit\n", "field `len_bytes`: expected a positive multiple of 512"),
            ("txn\nrec 1 write block 100 512 20 1\ncommit\n", "field `addr_bytes`: expected a multiple of 512"),
            ("txn\nrec 1 write row:0:1:0 4096 512 20 1\ncommit\n", "field `key`: expected `block`"),
            ("txn\nrec 1 insert block 4096 512 20 1\ncommit\n", "field `key`: expected a `row:"),
            ("txn\nrec 1 update row:0:1:0 4096 10 0 1\ncommit\n", "field `log_bytes`: expected a positive size"),
            ("txn\nrec 1 write block 1048064 1024 20 1\ncommit\n", "field `len_bytes`: expected a length that ends within data_bytes 1048576"),
            ("txn\nrec 1 update row:0:256:0 1048576 0 20 1\ncommit\n", "field `addr_bytes`: expected an address below data_bytes"),
            ("txn\nrec x update row:0:1:0 4096 10 20 1\ncommit\n", "field `lsn`: expected a number, found `x`"),
            ("txn\nrec 1 upsert row:0:1:0 4096 10 20 1\ncommit\n", "field `op`: expected one of"),
            ("txn\nrec 1 update row:0:1 4096 10 20 1\ncommit\n", "field `key`: expected `row:<table>:<page>:<slot>`"),
            ("txn\nrec 1 update row:0:1:0 4096 10 20\ncommit\n", "field `value`: expected a number, found end of line"),
            ("txn\nrec 1 update row:0:1:0 4096 10 20 1 9\ncommit\n", "line 5: expected end of line, found `9`"),
            ("txn\nrec 1 update row:0:1:0 4096 4294967296 20 1\ncommit\n", "field `len_bytes`: expected a number no larger than 4294967295"),
            ("txn\nio disk read 0 1\ncommit\n", "field `volume`: expected `data` or `log`, found `disk`"),
            ("txn\nio data read 1048576 1\ncommit\n", "field `len_bytes`: expected a data-volume I/O within data_bytes"),
            ("txn\nio log write 0 0\ncommit\n", "field `len_bytes`: expected a positive length"),
            ("txn\ntxn\n", "line 5: field `keyword`: expected `commit` before the next `txn`"),
            ("commit\n", "line 4: field `keyword`: expected `txn` before `commit`"),
            ("txn\nrec 1 update row:0:1:0 4096 10 20 1\n", "line 6: field `keyword`: expected `commit` to close the open `txn`, found end of file"),
            ("page_bytes 512\n", "expected page_bytes and data_bytes only once"),
        ];
        for (body, want) in cases {
            let got = err_of(&format!("{HEAD}{body}"));
            assert!(got.contains(want), "{body:?}\n got: {got}\nwant: {want}");
        }
        assert!(err_of("# tierlab update log v2\n").contains("line 1: field `header`"));
        assert!(err_of("").contains("found end of file"));
        assert!(err_of("# tierlab update log v1\npage_bytes 0\n")
            .contains("field `page_bytes`: expected a positive number, found `0`"));
        assert!(err_of("# tierlab update log v1\npage_bytes 512\ntxn\n")
            .contains("`data_bytes N` before the first transaction"));
        assert!(err_of("# tierlab update log v1\ndata_bytes 512\n").contains("found end of file"));
        assert!(
            err_of("# tierlab update log v1\npage_bytes 512\npage_bytes 512\n").contains("once")
        );
        assert!(err_of(&format!("{HEAD}txn\n\u{0}\u{ff}")).contains("keyword"));
    }

    #[test]
    fn errors_carry_the_path_convert_to_source_errors_and_stick() {
        let dir = std::env::temp_dir().join(format!("tierlab-logfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("update.log");
        std::fs::write(&path, format!("{HEAD}txn\nrec 5 update row:0:1:0 4096 1 1 1\ncommit\ntxn\nrec 4 update row:0:1:0 4096 1 1 1\ncommit\n")).unwrap();
        let mut r = open_log(&path).unwrap();
        let mut t = Transaction::default();
        assert!(r.next_transaction(&mut t).unwrap());
        let e = r.next_transaction(&mut t).unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "{}:8: field `lsn`: expected a number greater than the previous lsn 5, found `4`",
                path.display()
            )
        );
        assert!(t.records.is_empty());
        assert_eq!(r.next_transaction(&mut t).unwrap_err(), e);
        let missing = open_log(dir.join("nope.log")).err().unwrap();
        assert!(missing.to_string().starts_with(&format!(
            "{}: expected a readable log file",
            dir.join("nope.log").display()
        )));

        // A writer opened on a path round-trips through the reader.
        let out = dir.join("written.log");
        let mut w = LogWriter::create(&out, 4096, 1 << 20).unwrap();
        w.write_transaction(&Transaction::default()).unwrap();
        w.finish().unwrap();
        let mut r = open_log(&out).unwrap();
        assert!(r.next_transaction(&mut t).unwrap());
        assert!(!r.next_transaction(&mut t).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writer_refuses_what_the_reader_would_reject_and_stays_readable() {
        let mut w = LogWriter::new(Vec::new(), 4096, 1 << 20).unwrap();
        let good = Transaction {
            primary_ios: vec![],
            records: vec![UpdateRecord {
                lsn: 7,
                op: UpdateOp::Update,
                key: RecordKey::Row {
                    table: 0,
                    page: 1,
                    slot: 0,
                },
                addr_bytes: 4096,
                len_bytes: 10,
                log_bytes: 20,
                value: 1,
            }],
        };
        w.write_transaction(&good).unwrap();
        let e = w.write_transaction(&good).unwrap_err();
        assert_eq!(e.field, Some("lsn"));
        assert_eq!(e.line, 8);
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(read_all(&text).unwrap(), vec![good]);
        assert!(LogWriter::new(Vec::new(), 0, 1).is_err());
    }

    struct VecSource(Vec<Transaction>, usize);
    impl UpdateSource for VecSource {
        fn next_transaction(&mut self, out: &mut Transaction) -> Result<bool, SourceError> {
            out.clear();
            match self.0.get(self.1) {
                Some(t) => {
                    out.clone_from(t);
                    self.1 += 1;
                    Ok(true)
                }
                None => Ok(false),
            }
        }
        fn data_bytes(&self) -> u64 {
            1 << 30
        }
        fn page_bytes(&self) -> u64 {
            8192
        }
    }

    fn arb_transactions() -> impl Strategy<Value = Vec<Transaction>> {
        let io = (
            any::<bool>(),
            any::<bool>(),
            0u64..(1 << 29),
            1u64..(1 << 20),
        )
            .prop_map(|(data, read, off, len)| PrimaryIo {
                volume: if data {
                    PrimaryVolume::Data
                } else {
                    PrimaryVolume::Log
                },
                op: if read { Op::Read } else { Op::Write },
                offset_bytes: off,
                len_bytes: len,
            });
        let rec = (
            0u8..4,
            any::<u16>(),
            0u64..(1 << 16),
            any::<u16>(),
            0u32..=8192,
            1u32..100_000,
            any::<u64>(),
            1u64..1000,
        )
            .prop_map(|(op, table, page, slot, len, log_bytes, value, gap)| {
                let op = [
                    UpdateOp::Insert,
                    UpdateOp::Update,
                    UpdateOp::Delete,
                    UpdateOp::Write,
                ][op as usize];
                let (key, addr, len) = match op {
                    UpdateOp::Write => (RecordKey::Block, page * 8192, (len / 512).max(1) * 512),
                    UpdateOp::Delete => (RecordKey::Row { table, page, slot }, page * 8192, 0),
                    _ => (RecordKey::Row { table, page, slot }, page * 8192, len),
                };
                (
                    gap,
                    UpdateRecord {
                        lsn: 0,
                        op,
                        key,
                        addr_bytes: addr,
                        len_bytes: len,
                        log_bytes,
                        value,
                    },
                )
            });
        prop::collection::vec(
            (
                prop::collection::vec(io, 0..4),
                prop::collection::vec(rec, 0..6),
            ),
            0..8,
        )
        .prop_map(|txns| {
            let mut lsn = 0u64;
            txns.into_iter()
                .map(|(primary_ios, recs)| Transaction {
                    primary_ios,
                    records: recs
                        .into_iter()
                        .map(|(gap, mut r)| {
                            lsn += gap;
                            r.lsn = lsn;
                            r
                        })
                        .collect(),
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn written_logs_read_back_identically(txns in arb_transactions()) {
            let mut source = VecSource(txns.clone(), 0);
            let mut bytes = Vec::new();
            let n = dump(&mut source, &mut bytes).unwrap();
            prop_assert_eq!(n, txns.len() as u64);
            let text = String::from_utf8(bytes).unwrap();
            let mut r = LogReader::new(text.as_bytes()).unwrap();
            prop_assert_eq!((r.page_bytes(), r.data_bytes()), (8192, 1 << 30));
            let mut back = Vec::new();
            let mut t = Transaction::default();
            while r.next_transaction(&mut t).unwrap() {
                back.push(t.clone());
            }
            prop_assert_eq!(back, txns);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
            let mut input = HEAD.as_bytes().to_vec();
            input.extend_from_slice(&bytes);
            for data in [&bytes[..], &input[..]] {
                if let Ok(mut r) = LogReader::new(data) {
                    let mut t = Transaction::default();
                    for _ in 0..500 {
                        match r.read_transaction(&mut t) {
                            Ok(true) => {}
                            Ok(false) | Err(_) => break,
                        }
                    }
                }
            }
        }

        #[test]
        fn arbitrary_lines_never_panic(lines in prop::collection::vec(
            prop::collection::vec(
                prop_oneof![
                    Just("txn".to_string()), Just("commit".to_string()), Just("io".to_string()),
                    Just("rec".to_string()), Just("data".to_string()), Just("log".to_string()),
                    Just("read".to_string()), Just("write".to_string()), Just("insert".to_string()),
                    Just("delete".to_string()), Just("block".to_string()), Just("#".to_string()),
                    "row:[0-9]{1,6}:[0-9]{1,21}:[0-9]{1,6}", "[0-9]{1,21}", "\\PC{0,4}",
                ],
                0..9,
            ),
            0..40,
        )) {
            let mut text = String::from(HEAD);
            for l in &lines {
                text.push_str(&l.join(" "));
                text.push('\n');
            }
            let mut r = LogReader::new(text.as_bytes()).unwrap();
            let mut t = Transaction::default();
            for _ in 0..100 {
                match r.read_transaction(&mut t) {
                    Ok(true) => {
                        for rec in &t.records {
                            prop_assert!(rec.addr_bytes + u64::from(rec.len_bytes) <= 1_048_576);
                        }
                    }
                    Ok(false) | Err(_) => break,
                }
            }
        }
    }
}
