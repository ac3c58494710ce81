//! The block device's answers as people read them: a running drive's `ctl` answer
//! (tunables, stats, the mapping table) and an offline check (`fsck`).

use serde_json::Value;
use tierlab_block_device::fsck::FsckReport;

/// A `ctl` answer: the mapping table (`table`) as columns, an object as one `name value`
/// line per field (nested objects as `key=value` pairs), anything else as it is.
pub fn render_ctl(v: &Value, table: bool) -> String {
    let mut s = String::new();
    match v {
        Value::Array(rows) if table => {
            s.push_str(&format!("{:>10} {:>10} {:>5}\n", "extent", "location", "dirty"));
            for r in rows {
                // A JSON value's Display ignores widths: pad its text.
                s.push_str(&format!("{:>10} {:>10} {:>5}\n", r["extent"].to_string(), r["location"].to_string(), if r["dirty"] == true { "yes" } else { "" }));
            }
        }
        Value::Object(m) => {
            for (k, val) in m {
                s.push_str(&format!("{k:<24} {}\n", flat(val)));
            }
        }
        _ => s.push_str(&format!("{v}\n")),
    }
    s
}

fn flat(v: &Value) -> String {
    match v {
        Value::Object(m) => m.iter().map(|(k, v)| format!("{k}={}", flat(v))).collect::<Vec<_>>().join(" "),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// A check's findings: the drive found, its notes and problems, the extents that cannot
/// be recovered, and a verdict line.
pub fn render_fsck(rep: &FsckReport) -> String {
    let mut s = match rep.mode {
        Some(mode) => format!(
            "{} drive: checkpoint generation {}, {} journal records, {} extents mapped\n",
            format!("{mode:?}").to_lowercase(),
            rep.checkpoint_generation,
            rep.journal_records,
            rep.mapped_extents
        ),
        None => "no tierlab drive found on these stores\n".to_string(),
    };
    for n in &rep.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    for p in &rep.problems {
        s.push_str(&format!("problem: {p}\n"));
    }
    if !rep.unrecoverable_extents.is_empty() {
        let list: Vec<String> = rep.unrecoverable_extents.iter().map(u32::to_string).collect();
        s.push_str(&format!("unrecoverable extents: {}\n", list.join(" ")));
    }
    let verdict = match (rep.mode, rep.clean(), rep.repaired) {
        (_, true, _) => "clean",
        (_, _, true) => "repaired",
        (None, _, _) => "not a tierlab drive (nothing to repair)",
        _ if !rep.unrecoverable_extents.is_empty() => "INCONSISTENT: committed metadata lost (--repair --discard-unrecoverable drops the extents above)",
        _ => "INCONSISTENT (run with --repair)",
    };
    s.push_str(verdict);
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ctl_answers_read_as_columns_or_lines() {
        let table = render_ctl(&json!([{ "extent": 3, "location": 7, "dirty": true }, { "extent": 4, "location": 9, "dirty": false }]), true);
        let lines: Vec<Vec<&str>> = table.lines().map(|l| l.split_whitespace().collect()).collect();
        assert_eq!(lines, [vec!["extent", "location", "dirty"], vec!["3", "7", "yes"], vec!["4", "9"]], "{table}");
        assert_eq!(table.lines().nth(1), Some(format!("{:>10} {:>10} {:>5}", 3, 7, "yes").as_str()), "columns line up under their heads");
        let stats = render_ctl(&json!({ "energy": { "hdd_j": null, "ssd_j": 1.5 }, "pt": 2 }), false);
        assert_eq!(stats, format!("{:<24} {}\n{:<24} {}\n", "energy", "hdd_j=- ssd_j=1.5", "pt", 2));
        assert_eq!(render_ctl(&json!("ok"), false), "\"ok\"\n");
    }

    #[test]
    fn a_check_ends_with_its_verdict() {
        let rep = FsckReport { mode: None, checkpoint_generation: 0, journal_records: 0, mapped_extents: 0, hdd_tracks: None, problems: vec!["bad".into()], notes: vec![], unrecoverable_extents: vec![], repaired: false };
        assert_eq!(render_fsck(&rep), "no tierlab drive found on these stores\nproblem: bad\nnot a tierlab drive (nothing to repair)\n");
        let lost = FsckReport { unrecoverable_extents: vec![1, 5], ..rep.clone() };
        let lost = FsckReport { mode: Some(tierlab_block_device::Mode::Tiering), ..lost };
        let text = render_fsck(&lost);
        assert!(text.starts_with("tiering drive: checkpoint generation 0") && text.contains("unrecoverable extents: 1 5\nINCONSISTENT: committed"), "{text}");
        assert!(render_fsck(&FsckReport { problems: vec![], ..rep }).ends_with("\nclean\n"));
    }
}
