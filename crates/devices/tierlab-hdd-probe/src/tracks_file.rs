//! Track boundaries read back from the JSON `tierlab hdd probe --json` writes (runs of
//! equal tracks and the sector size) or `tierlab hdd layout --json` writes (one entry per
//! track, 512-byte sectors): what a track-aligned layout (`tierlab serve --hdd-tracks`)
//! is built from.

use serde_json::Value;

/// More tracks than any drive has (a 60 TB drive of 1 MB tracks has 60 M).
pub const MAX_TRACKS: u64 = 1 << 27;

/// Each track's first byte, then the end of the last, from `text`; an error names the
/// field at fault and what was expected.
pub fn track_boundaries_bytes(text: &str) -> Result<Vec<u64>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("line {}, column {}: {e}", e.line(), e.column()))?;
    let field = |entry: &Value, i: usize, name: &str| entry.get(name).and_then(Value::as_u64).ok_or_else(|| format!("tracks[{i}].{name}: expected a non-negative integer"));
    // (first sector, sectors a track, tracks) per entry.
    let (sector_bytes, runs) = match &v {
        Value::Array(list) => (512, list.iter().enumerate().map(|(i, t)| Ok((field(t, i, "first_lbn")?, field(t, i, "sectors")?, 1))).collect::<Result<Vec<_>, String>>()?),
        Value::Object(o) => {
            let sector_bytes = o.get("sector_bytes").and_then(Value::as_u64).filter(|&b| b > 0).ok_or("sector_bytes: expected a positive integer")?;
            let list = o.get("tracks").and_then(Value::as_array).ok_or("tracks: expected the list of track runs of `tierlab hdd probe --json`")?;
            (sector_bytes, list.iter().enumerate().map(|(i, t)| Ok((field(t, i, "first_lbn")?, field(t, i, "sectors")?, field(t, i, "tracks")?))).collect::<Result<Vec<_>, String>>()?)
        }
        _ => return Err("expected the JSON of `tierlab hdd probe --json` or `tierlab hdd layout --json`".into()),
    };
    let total = runs.iter().try_fold(0u64, |n, r| n.checked_add(r.2)).filter(|&n| n <= MAX_TRACKS);
    let Some(total) = total else { return Err(format!("tracks: more than the {MAX_TRACKS} tracks any drive has")) };
    let mut boundaries: Vec<u64> = Vec::with_capacity(total as usize + 1);
    let mut end: Option<u64> = None;
    for (i, &(first, sectors, tracks)) in runs.iter().enumerate() {
        if sectors == 0 || tracks == 0 {
            return Err(format!("tracks[{i}]: expected tracks of at least one sector, found {tracks} of {sectors}"));
        }
        if let Some(e) = end.filter(|&e| e != first) {
            return Err(format!("tracks[{i}].first_lbn: expected {e} (where the tracks before end), found {first}"));
        }
        let overflow = || format!("tracks[{i}]: beyond 2^64 bytes");
        for k in 0..tracks {
            boundaries.push(sectors.checked_mul(k).and_then(|s| s.checked_add(first)).and_then(|s| s.checked_mul(sector_bytes)).ok_or_else(overflow)?);
        }
        end = Some(sectors.checked_mul(tracks).and_then(|s| s.checked_add(first)).ok_or_else(overflow)?);
    }
    let end = end.ok_or("tracks: expected at least one track")?;
    boundaries.push(end.checked_mul(sector_bytes).ok_or("tracks: beyond 2^64 bytes")?);
    Ok(boundaries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn both_formats_give_the_same_boundaries() {
        let probe = r#"{"sector_bytes": 512, "tracks": [{"first_lbn": 0, "sectors": 1144, "tracks": 2}, {"first_lbn": 2288, "sectors": 1092, "tracks": 1}]}"#;
        let layout = r#"[{"first_lbn": 0, "sectors": 1144}, {"first_lbn": 1144, "sectors": 1144}, {"first_lbn": 2288, "sectors": 1092}]"#;
        let want = vec![0, 1144 * 512, 2288 * 512, 3380 * 512];
        assert_eq!(track_boundaries_bytes(probe), Ok(want.clone()));
        assert_eq!(track_boundaries_bytes(layout), Ok(want));
        assert_eq!(track_boundaries_bytes("[]"), Err("tracks: expected at least one track".into()));
        assert!(track_boundaries_bytes("{\"tracks\": []").is_err_and(|e| e.starts_with("line 1")));
    }

    proptest! {
        /// Any runs, written as a probe report, read back as rising boundaries or are
        /// refused; never a panic.
        #[test]
        fn any_runs_read_back_rising_or_are_refused(
            runs in proptest::collection::vec((0u64..5_000, 0u64..3_000, 0u64..40), 0..6),
            sector_bytes in prop_oneof![Just(0u64), Just(512), Just(4096), Just(u64::MAX / 3)],
            contiguous in any::<bool>(),
        ) {
            let mut next = 0u64;
            let entries: Vec<String> = runs.iter().map(|&(first, sectors, tracks)| {
                let first = if contiguous { next } else { first };
                next = first.saturating_add(sectors.saturating_mul(tracks));
                format!(r#"{{"first_lbn": {first}, "sectors": {sectors}, "tracks": {tracks}}}"#)
            }).collect();
            let text = format!(r#"{{"sector_bytes": {sector_bytes}, "tracks": [{}]}}"#, entries.join(","));
            if let Ok(b) = track_boundaries_bytes(&text) {
                prop_assert!(b.len() >= 2);
                prop_assert!(b.windows(2).all(|w| w[0] < w[1]), "{b:?}");
                prop_assert_eq!(b.len() as u64 - 1, runs.iter().map(|r| r.2).sum::<u64>());
            }
        }
    }
}
