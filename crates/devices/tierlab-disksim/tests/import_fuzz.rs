//! Real drive files with one number changed to something hostile: the import either refuses
//! them with an error naming the file, or gives a drive that replays requests without a
//! panic and with time running forwards. `TIERLAB_FUZZ_CASES` raises the number of cases
//! (64 by default).

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use tierlab_disksim::import_drive;
use tierlab_hdd::Mechanics;
use tierlab_engine::DeviceOp;
use tierlab_types::{Op, SECTOR_BYTES};

const DRIVES: [&str; 6] = ["atlas_III", "cheetah4LP", "hp_c2490a", "hp_c3323a", "ibm18es", "st41601n"];

/// Values a hand-edited or damaged file might hold where a number belongs.
const HOSTILE: [&str; 14] = ["0", "-1", "-0.5", "0.0001", "1e-300", "1", "2", "7", "65536", "4294967296", "1e12", "1e30", "-1e30", "1e308"];

fn bundled(drive: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/drives")).join(drive)
}

/// Byte ranges of the numbers in `text` that a parameter or table holds: a run of digits,
/// dots, signs and exponents that starts after `=`, `,` or `[` (skipping blanks) or at the
/// start of a line.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let starts_number = c.is_ascii_digit() || ((c == b'-' || c == b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let before = b[..i].iter().rev().find(|c| **c != b' ' && **c != b'\t').copied();
        if starts_number && matches!(before, None | Some(b'=' | b',' | b'[' | b'\n')) {
            let end = (i..b.len()).find(|&j| !(b[j].is_ascii_digit() || matches!(b[j], b'.' | b'-' | b'+' | b'e' | b'E'))).unwrap_or(b.len());
            spans.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    spans
}

/// A copy of `drive`'s files (not its trace) in a fresh directory, and their names.
fn copy_drive(drive: &str, case: u64) -> (PathBuf, Vec<String>) {
    let dst = std::env::temp_dir().join(format!("tierlab-import-fuzz-{}-{case}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    let mut names: Vec<String> =
        std::fs::read_dir(bundled(drive)).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| !n.contains(".trace")).collect();
    names.sort();
    for n in &names {
        std::fs::copy(bundled(drive).join(n), dst.join(n)).unwrap();
    }
    (dst, names)
}

/// `copy_drive` with the `pick`-th number of its `file_pick`-th file replaced by `value`.
/// Returns the directory and what changed.
fn mutated_copy(drive: &str, file_pick: usize, pick: usize, value: &str, case: u64) -> (PathBuf, String) {
    let (dir, names) = copy_drive(drive, case);
    let path = dir.join(&names[file_pick % names.len()]);
    let mut text = std::fs::read_to_string(&path).unwrap();
    let spans = number_spans(&text);
    let Some(&(a, b)) = spans.get(pick % spans.len().max(1)) else { return (dir, "nothing".into()) };
    let what = format!("{}:{}: {} -> {value}", names[file_pick % names.len()], text[..a].matches('\n').count() + 1, &text[a..b]);
    text.replace_range(a..b, value);
    std::fs::write(&path, text).unwrap();
    (dir, what)
}

fn cases() -> u32 {
    std::env::var("TIERLAB_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

/// A copy of `drive`'s files with `key = …` in `file` set to `value`.
fn copy_setting(drive: &str, file: &str, key: &str, value: &str, case: u64) -> PathBuf {
    let (dir, _) = copy_drive(drive, case);
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited: Vec<String> =
        text.lines().map(|l| if l.trim_start().starts_with(&format!("{key} =")) { format!("   {key} = {value},") } else { l.to_string() }).collect();
    assert_ne!(edited.join("\n"), text.trim_end_matches('\n'), "{key} is in {file}");
    std::fs::write(&path, edited.join("\n")).unwrap();
    dir
}

/// A value the model refuses is reported at the file and line that set it, under the name
/// the file gives it, not at the block that holds the drive's model.
#[test]
fn a_refused_value_is_reported_where_the_file_sets_it() {
    for (drive, file, line, key, value, case) in [
        ("hp_c3323a", "hp_c3323a_validate.diskspecs", 70, "Write completion overhead", "-0.5", 1),
        ("atlas_III", "atlas_III.diskspecs", 60, "Read miss over. after read", "1e308", 2),
        ("hp_c3323a", "hp_c3323a_validate.model", 139, "Head switch time", "1e12", 3),
        ("atlas_III", "atlas_III.model", 205, "Rotation speed (in rpms)", "0.5", 4),
    ] {
        let dir = copy_setting(drive, file, key, value, u64::MAX - case);
        let e = import_drive(&dir).expect_err(key);
        assert_eq!((e.location.file.as_str(), e.location.line, e.location.field.as_str()), (dir.join(file).to_str().unwrap(), line, key), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn number_spans_find_parameter_values_and_table_entries_only() {
    let text = "disksim_disk X {\n   Segment size (in blks) = 57,\n   Zones = [ 1, -2.5e3 ]\n}\n10,     2.5\nName2 = 3\n";
    let found: Vec<&str> = number_spans(text).into_iter().map(|(a, b)| &text[a..b]).collect();
    assert_eq!(found, ["57", "1", "-2.5e3", "10", "2.5", "3"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn a_hostile_number_is_refused_or_replays(
        drive in proptest::sample::select(DRIVES.to_vec()),
        file_pick in 0usize..8,
        pick in 0usize..100_000,
        value in proptest::sample::select(HOSTILE.to_vec()),
        case in any::<u64>(),
    ) {
        let (dir, what) = mutated_copy(drive, file_pick, pick, value, case);
        match import_drive(&dir) {
            Err(e) => {
                // `<dir>/<one of the drive's files>:<line>: field `…`: …`
                let msg = e.to_string();
                let at = msg.strip_prefix(&format!("{}/", dir.display())).and_then(|rest| rest.split_once(": field `"));
                let named = at.and_then(|(place, _)| place.rsplit_once(':')).is_some_and(|(file, line)| {
                    dir.join(file).is_file() && line.parse::<u32>().is_ok_and(|l| l >= 1)
                });
                prop_assert!(named, "{what}: the error does not name the file, line and parameter: {msg}");
            }
            Ok(imported) => {
                if let Ok(mut mech) = Mechanics::new(imported.spec) {
                    let blocks = (mech.capacity_bytes() / SECTOR_BYTES).max(1);
                    let mut t_ns = 0u64;
                    for i in 0..48u64 {
                        let n = 1 + (i * 37) % 64;
                        let lbn = (i.wrapping_mul(2_654_435_761) % blocks).min(blocks.saturating_sub(n));
                        let op = DeviceOp {
                            op: if i % 3 == 0 { Op::Write } else { Op::Read },
                            offset_bytes: lbn * SECTOR_BYTES,
                            len_bytes: n.min(blocks) * SECTOR_BYTES,
                            fua: false,
                        };
                        let a = mech.access(t_ns, &op);
                        prop_assert!(a.done_ns >= t_ns, "{what}: request {i} finished before it started");
                        t_ns = a.done_ns.saturating_add(1_000_000);
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
