//! DiskSim's validation trace (`<drive>.trace`): one request per line,
//! `R|W  tag  start_block  blocks  measured_service_us  gap_to_next_issue_us`.

use crate::error::Error;
use std::path::Path;
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

/// Read and parse the trace at `path`.
pub fn read_trace(path: &Path) -> Result<Vec<TraceRecord>, Error> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::new(file.clone(), 0, "", format!("cannot read trace: {e}")))?;
    parse_trace(&text, &file)
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
