//! DiskSim's validation trace (`<drive>.trace`): one request per line,
//! `R|W  tag  start_block  blocks  measured_service_us  gap_to_next_issue_us`.

use crate::error::Error;
use std::path::{Path, PathBuf};
use tierlab_types::Op;

/// One line of a validation trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRecord {
    pub op: Op,
    /// First block, in 512-byte sectors.
    pub block: u64,
    /// Size in 512-byte sectors (>= 1).
    pub blocks: u64,
    /// The real drive's service time.
    pub measured_us: f64,
    /// Idle time between this request's completion and the next request's issue.
    pub gap_us: f64,
}

/// Parse a whole validation trace; errors name the file, line and field.
pub fn parse_trace(text: &str, file: &str) -> Result<Vec<TraceRecord>, Error> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ln = i as u64 + 1;
        let mut f = line.split_whitespace();
        let Some(op) = f.next() else { continue };
        let err = |field: &str, what: &str| Error::new(file, ln, field, what);
        let op = match op {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            _ => return Err(err("op", "expected `R` or `W`")),
        };
        f.next().ok_or_else(|| err("tag", "expected a cache tag (Hit, Miss, ...)"))?;
        let block = f.next().and_then(|s| s.parse::<u64>().ok()).ok_or_else(|| err("block", "expected a block number"))?;
        let blocks = f
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|&n| n >= 1)
            .ok_or_else(|| err("size", "expected a size in sectors (>= 1)"))?;
        let num = |s: Option<&str>, field: &str| {
            s.and_then(|s| s.parse::<f64>().ok())
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| err(field, "expected a time in microseconds (>= 0)"))
        };
        let measured_us = num(f.next(), "service_time")?;
        let gap_us = num(f.next(), "gap")?;
        out.push(TraceRecord { op, block, blocks, measured_us, gap_us });
    }
    Ok(out)
}

/// Read and parse the trace at `path`, which may be compressed (gzip, bzip2, xz or zstd,
/// recognised by its first bytes).
pub fn read_trace(path: &Path) -> Result<Vec<TraceRecord>, Error> {
    let file = path.display().to_string();
    let (_, text) = tierlab_trace::read_to_string(path).map_err(|e| Error::new(file.clone(), 0, "", format!("cannot read trace: {e}")))?;
    parse_trace(&text, &file)
}

/// File name endings a validation trace may have: plain, or compressed.
pub const TRACE_ENDINGS: [&str; 5] = ["trace", "trace.gz", "trace.xz", "trace.bz2", "trace.zst"];

/// The validation trace of the drive whose `.parv` is `parv`, in `dir`: `<parv
/// name>.trace` (or that name compressed, `TRACE_ENDINGS`), else the only trace in `dir`.
pub fn find_trace(dir: &Path, parv: &Path) -> Result<PathBuf, Error> {
    let stem = parv.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(p) = TRACE_ENDINGS.iter().map(|e| dir.join(format!("{stem}.{e}"))).find(|p| p.is_file()) {
        return Ok(p);
    }
    let mut traces: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::new(dir.display().to_string(), 0, "", format!("cannot list directory: {e}")))?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| TRACE_ENDINGS.iter().any(|e| n.to_string_lossy().ends_with(&format!(".{e}")))))
        .collect();
    traces.sort();
    match traces.len() {
        1 => Ok(traces.remove(0)),
        0 => Err(Error::new(dir.display().to_string(), 0, "", format!("no validation trace: expected {stem}.trace (or .trace.gz, .trace.xz, .trace.bz2, .trace.zst)"))),
        _ => Err(Error::new(dir.display().to_string(), 0, "", format!("several traces and none named {stem}.trace[.gz|.xz|.bz2|.zst]"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_and_names_bad_ones() {
        let t = parse_trace("R Hit    4583176   4    663.00000  45422.0\nW Miss 1 8 10 0\n", "t").expect("parses");
        assert_eq!(t.len(), 2);
        assert_eq!(t[0], TraceRecord { op: Op::Read, block: 4583176, blocks: 4, measured_us: 663.0, gap_us: 45422.0 });
        assert_eq!(t[1].op, Op::Write);
        let e = parse_trace("R Hit 1 4 5 6\nR Hit 1 0 5 6\n", "t").unwrap_err();
        assert_eq!((e.location.line, e.location.field.as_str()), (2, "size"));
        let e = parse_trace("X Hit 1 4 5 6\n", "t").unwrap_err();
        assert_eq!(e.location.field, "op");
        let e = parse_trace("R Hit 1 4 5\n", "t").unwrap_err();
        assert_eq!(e.location.field, "gap");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,200}") {
            let _ = parse_trace(&s, "fuzz");
        }
    }
}
