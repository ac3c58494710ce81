//! The catalog files in catalog/ssd load, validate and cite a source for every value;
//! broken files are errors naming file, line and field.

use std::path::PathBuf;
use tierlab_ssd::catalog::{load_catalog_dir, parse_catalog};
use tierlab_ssd::{Ssd, SsdError};

fn catalog_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../catalog/ssd"))
}

#[test]
fn every_catalog_profile_loads_and_validates() {
    let entries = load_catalog_dir(&catalog_dir()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "intel-320-300gb",
            "intel-x25m-80gb",
            "mtron-msp7000",
            "samsung-990pro-1tb",
            "study-slc"
        ]
    );
    for (name, e) in &entries {
        assert!(e.ssd.validate().is_ok(), "{name}");
        assert!(!e.description.is_empty());
    }
    let intel320 = &entries[0].1.ssd;
    assert_eq!(intel320.rated_endurance_bytes, Some(36_500_000_000_000));
    // 300 GB user capacity within 1 %.
    let cap = intel320.capacity_bytes() as f64;
    assert!((cap / 300e9 - 1.0).abs() < 0.01, "{cap}");
    // The study profile is the crate's built-in study drive.
    let study = &entries[4].1.ssd;
    let mut builtin = tierlab_ssd::SsdSpec::study_slc(4096, tierlab_ssd::FtlKind::Dftl);
    builtin.sram_bytes = study.sram_bytes;
    assert_eq!(study, &builtin);
    // Small profiles can be instantiated.
    assert!(Ssd::new(study.clone()).is_ok());
}

fn location(e: SsdError) -> (u64, String, String) {
    match e {
        SsdError::SpecFile { location, reason } => (location.line, location.field, reason),
        other => panic!("expected a file error, got {other:?}"),
    }
}

fn study_text() -> String {
    std::fs::read_to_string(catalog_dir().join("study-slc.toml")).unwrap_or_default()
}

#[test]
fn bad_values_name_file_line_and_field() {
    let text = study_text().replace("blocks_per_plane = 4096", "blocks_per_plane = 0");
    let (line, field, reason) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "ssd.geometry.blocks_per_plane");
    assert_eq!(
        text.lines().nth(line as usize - 1),
        Some("blocks_per_plane = 0")
    );
    assert!(reason.contains("> 0"), "{reason}");
    let e = parse_catalog(&text, "x.toml").unwrap_err().to_string();
    assert!(e.starts_with("x.toml:"), "{e}");
}

#[test]
fn unknown_keys_and_missing_sources_are_errors() {
    let text = study_text().replace("oob_bytes = 64\n", "oob_bytes = 64\nspare = 1\n");
    let (line, _, reason) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert!(reason.contains("spare"), "{reason}");
    assert_eq!(text.lines().nth(line as usize - 1), Some("spare = 1"));

    let text: String = study_text()
        .lines()
        .filter(|l| !l.starts_with("\"timing.command_ns\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let (line, field, _) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "ssd.timing.command_ns");
    assert_eq!(
        text.lines().nth(line as usize - 1),
        Some("command_ns = 300")
    );

    let text = study_text() + "\"timing.warp\" = \"nowhere\"\n";
    let (_, field, _) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "sources.timing.warp");

    let text = study_text().replace("kind = \"dftl\"", "kind = \"ftl9\"");
    assert!(parse_catalog(&text, "x.toml").is_err());
}

fn intel_text() -> String {
    std::fs::read_to_string(catalog_dir().join("intel-320-300gb.toml")).unwrap_or_default()
}

#[test]
fn data_sheet_figures_load_and_are_checked_and_cited_like_the_spec() {
    let e = parse_catalog(&intel_text(), "x.toml").unwrap_or_else(|e| panic!("{e}"));
    let d = e.datasheet.unwrap_or_else(|| panic!("the Intel 320 entry has a [datasheet]"));
    assert_eq!((d.read_latency_ns, d.read_iops, d.write_bytes_per_s), (75_000, 39_500, 205_000_000));
    // Entries without one still load.
    assert_eq!(parse_catalog(&study_text(), "x.toml").map(|e| e.datasheet), Ok(None));

    let text = intel_text().replace("read_iops = 39500\nwrite_iops = 23000\nactive", "read_iops = 0\nwrite_iops = 23000\nactive");
    let (line, field, reason) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "datasheet.read_iops");
    assert_eq!(text.lines().nth(line as usize - 1), Some("read_iops = 0"));
    assert!(reason.contains("IOPS"), "{reason}");

    // An active power below the entry's idle power names the active figure.
    let text = intel_text().replace("active_write_w = 0.15", "active_write_w = 0.01");
    let (_, field, _) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "datasheet.active_write_w");

    let text: String = intel_text().lines().filter(|l| !l.starts_with("\"datasheet.write_iops\"")).map(|l| format!("{l}\n")).collect();
    let (line, field, _) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "datasheet.write_iops");
    assert_eq!(text.lines().nth(line as usize - 1), Some("write_iops = 23000"));

    let text = intel_text().replace("write_iops = 23000\n", "write_iops = 23000\nqueue_depth = 32\n");
    assert!(location(parse_catalog(&text, "x.toml").unwrap_err()).2.contains("queue_depth"));
}

#[test]
fn write_buffers_load_and_are_checked_and_cited_like_the_spec() {
    // Where an entry gives both, a lone buffered 4 KiB write takes the data sheet's latency.
    let entries = load_catalog_dir(&catalog_dir()).unwrap_or_else(|e| panic!("{e}"));
    let buffered: Vec<&str> = entries.iter().filter(|(_, e)| e.ssd.write_buffer.is_some()).map(|(n, _)| n.as_str()).collect();
    assert_eq!(buffered, ["intel-320-300gb", "intel-x25m-80gb", "samsung-990pro-1tb"]);
    for (name, e) in &entries {
        if let (Some(w), Some(d)) = (&e.ssd.write_buffer, &e.datasheet) {
            let command_ns = e.ssd.host.as_ref().map_or(0, |h| h.command_ns);
            assert_eq!(w.ack_ns + command_ns + w.transfer_ns(4096), d.write_latency_ns, "{name}");
        }
    }
    let text = intel_text().replace("bytes = 262144", "bytes = 100");
    let (line, field, reason) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "ssd.write_buffer.bytes");
    assert_eq!(text.lines().nth(line as usize - 1), Some("bytes = 100"));
    assert!(reason.contains("one page"), "{reason}");
    let text: String = intel_text().lines().filter(|l| !l.starts_with("\"write_buffer.ack_ns\"")).map(|l| format!("{l}\n")).collect();
    let (_, field, _) = location(parse_catalog(&text, "x.toml").unwrap_err());
    assert_eq!(field, "ssd.write_buffer.ack_ns");
}

proptest::proptest! {
    /// Damaged catalog files (characters overwritten, cut short) are errors or entries,
    /// never panics; any error names the file.
    #[test]
    fn damaged_catalog_files_never_panic(
        edits in proptest::collection::vec((0usize..4000, proptest::char::any()), 0..8),
        cut in 0usize..5000,
    ) {
        let mut chars: Vec<char> = intel_text().chars().collect();
        for (at, c) in edits {
            if let Some(slot) = chars.get_mut(at) {
                *slot = c;
            }
        }
        chars.truncate(cut.max(1));
        let text: String = chars.into_iter().collect();
        if let Err(e) = parse_catalog(&text, "x.toml") {
            proptest::prop_assert!(e.to_string().starts_with("x.toml"), "{e}");
        }
    }
}
