//! The real drives: the five of /work/shared/validation/disksim (skipped, with a note,
//! when that data is absent) and the six bundled in `tests/drives/` (DiskSim's other
//! validation drives, traces xz-compressed). The importer reads what the files say, and
//! replaying each validation trace stays at least as good as recorded in VALIDATION.md
//! (so a regression fails).

use std::path::{Path, PathBuf};
use tierlab_disksim::trace::{find_trace, read_trace};
use tierlab_disksim::{import_drive, validate_drive, validate_drive_as, Semantics};
use tierlab_hdd::{Mechanics, SeekModel, Sparing};

fn data_dir() -> Option<PathBuf> {
    let d = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/validation/disksim"));
    if d.is_dir() {
        Some(d.to_path_buf())
    } else {
        println!("note: {} is absent; skipping the real-drive tests", d.display());
        None
    }
}

fn bundled_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/drives")).to_path_buf()
}

/// (drive, surfaces, cylinders, blocks, zones, sparing, seek points or 0). The block count
/// is the zones' total where it exceeds the model file's `Block count` (atlas10k 17,938,986,
/// barracuda 4,110,000, cheetah9LP 17,783,240), as DiskSim takes it.
const DRIVES: [(&str, u32, u32, u64, usize, Sparing, usize); 5] = [
    ("atlas10k", 6, 10042, 17_966_953, 24, Sparing::SectorsPerZone, 138),
    ("barracuda", 5, 5172, 4_217_670, 11, Sparing::SectorsPerRange { range_cylinders: 6 }, 87),
    ("cheetah9LP", 12, 6962, 17_918_387, 11, Sparing::SectorsPerZone, 106),
    ("dec_rz26", 14, 2599, 2_050_860, 1, Sparing::SectorsPerTrack, 64),
    ("hp_c2247a", 13, 2051, 2_054_864, 8, Sparing::TracksPerZone, 0),
];

#[test]
fn importer_reads_geometry_zones_and_seek_curves() {
    let Some(dir) = data_dir() else { return };
    check_geometry(&dir, &DRIVES);
}

/// Each drive of `table` (see `DRIVES`) imports with the geometry, sparing and seek curve
/// the table gives, and its model holds exactly its blocks.
fn check_geometry(dir: &Path, table: &[(&str, u32, u32, u64, usize, Sparing, usize)]) {
    for &(name, surfaces, cylinders, blocks, zones, sparing, seek_points) in table {
        let imp = import_drive(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = &imp.spec;
        assert_eq!((s.surfaces, s.cylinders, s.block_count, s.zones.len()), (surfaces, cylinders, blocks, zones), "{name}: {:?}", imp.notes);
        assert_eq!(s.sparing, sparing, "{name}");
        if seek_points > 0 {
            assert!(matches!(&s.seek, SeekModel::Table { points } if points.len() == seek_points), "{name}: {:?}", s.seek);
        }
        let m = Mechanics::new(s.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.capacity_bytes(), blocks * 512, "{name}");
    }
}

/// The bundled drives, as `DRIVES` (blocks: the zones' total where above `Block count`;
/// the HP C2490A's zones reach one cylinder past `Number of cylinders = 2629`).
const BUNDLED: [(&str, u32, u32, u64, usize, Sparing, usize); 6] = [
    ("atlas_III", 10, 8057, 17_797_944, 9, Sparing::SectorsPerZone, 117),
    ("cheetah4LP", 8, 6581, 8_887_940, 7, Sparing::SectorsPerRange { range_cylinders: 12 }, 103),
    ("hp_c2490a", 18, 2630, 4_165_272, 11, Sparing::TracksPerZone, 64),
    ("hp_c3323a", 7, 2982, 2_056_008, 8, Sparing::TracksPerZone, 67),
    ("ibm18es", 5, 11474, 18_033_753, 55, Sparing::SectorsPerZone, 151),
    ("st41601n", 17, 2098, 2_676_846, 14, Sparing::SectorsPerCylinder, 58),
];

#[test]
fn importer_reads_the_bundled_drives() {
    let dir = bundled_dir();
    check_geometry(&dir, &BUNDLED);
    for (name, ..) in BUNDLED {
        let s = import_drive(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")).spec;
        assert!(matches!(&s.seek, SeekModel::Table { .. }), "{name}: extracted seek curve");
    }
    // The HP C3323A's model says `Block count = 1743672` but its zones map 2,056,008
    // blocks, and its trace addresses blocks up to 2,049,218: all are addressable.
    let imp = import_drive(&dir.join("hp_c3323a")).expect("imports");
    assert!(imp.notes.iter().any(|n| n.contains("more than `Block count = 1743672`")), "{:?}", imp.notes);
}

#[test]
fn compressed_and_plain_traces_read_the_same() {
    let dir = bundled_dir().join("st41601n");
    let xz = dir.join("st41601n.trace.xz");
    let (compression, text) = tierlab_trace::read_to_string(&xz).expect("decompresses");
    assert_eq!(compression, tierlab_trace::Compression::Xz);
    let tmp = std::env::temp_dir().join(format!("tierlab-disksim-plain-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let plain = tmp.join("st41601n.trace");
    std::fs::write(&plain, &text).expect("write");
    let a = read_trace(&xz).expect("xz trace");
    let b = read_trace(&plain).expect("plain trace");
    assert_eq!(a.len(), 9999);
    assert_eq!(a, b);
    // The plain name is preferred; a compressed one is found otherwise.
    let parv = dir.join("st41601n.parv");
    assert_eq!(find_trace(&tmp, &parv).expect("found"), plain);
    assert_eq!(find_trace(&dir, &parv).expect("found"), xz);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn importer_reads_firmware_and_cache_settings() {
    let Some(dir) = data_dir() else { return };
    let s = import_drive(&dir.join("cheetah9LP")).expect("imports").spec;
    assert_eq!(s.rpm, 10045.0);
    assert_eq!(s.bus_read_ms_per_sector, 0.105);
    assert_eq!(s.overheads.read_miss_after_write_ms, 0.08673);
    assert_eq!((s.cache.segments, s.cache.segment_blocks), (3, 561));
    assert!(s.cache.write_back);
    assert_eq!(s.zones[0].slips.len(), 34);
    assert_eq!(s.zones[1].first_cylinder, 848, "cylinder 847 is unmapped");
    // HP: the disk's own bulk transfer time is 0; the bus it hangs on sets the pace.
    let s = import_drive(&dir.join("hp_c2247a")).expect("imports").spec;
    assert_eq!((s.bus_read_ms_per_sector, s.bus_write_ms_per_sector), (0.17010, 0.18686));
    assert!(matches!(&s.seek, SeekModel::Equation { first_ten_ms: Some(f), boundary_cyl, .. } if f.len() == 10 && *boundary_cyl == 300.0));
    assert!(s.overheads.extra_write_disconnect.is_some());
    let s = import_drive(&dir.join("dec_rz26")).expect("imports").spec;
    assert_eq!(s.zones[0].reserved_front_blocks, 23142);
    assert_eq!(s.write_settle_ms, -0.483);
}

#[test]
fn missing_or_broken_drive_files_are_errors_naming_the_file() {
    let Some(dir) = data_dir() else { return };
    let e = import_drive(&dir.join("no_such_drive")).unwrap_err();
    assert!(e.location.file.contains("no_such_drive"), "{e}");
    let tmp = std::env::temp_dir().join(format!("tierlab-disksim-test-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let parv = tmp.join("x.parv");
    std::fs::write(&parv, "disksim_disk D {\n  Model = source missing.model\n}\n").expect("write");
    let e = import_drive(&parv).unwrap_err();
    assert_eq!((e.location.line, e.location.field.as_str()), (2, "source"), "{e}");
    std::fs::write(&parv, "disksim_disk D {\n  Model = dm_disk {\n Number of data surfaces = 2,\n Number of cylinders = x,\n  }\n}\n").expect("write");
    let e = import_drive(&parv).unwrap_err();
    assert_eq!((e.location.line, e.location.field.as_str()), (4, "Number of cylinders"), "{e}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// DiskSim 4.0's own demerit for each drive (README), and the bounds this model must keep:
/// the demerit VALIDATION.md records plus 0.005 ms, capped at DiskSim's figure where the
/// model beats it, and the mean |error| it records plus 0.005 ms — so any regression fails.
const BOUNDS_MS: [(&str, f64, f64, f64); 5] = [
    ("atlas10k", 0.268, 0.104, 0.943),
    ("barracuda", 0.349, 0.359, 1.445),
    ("cheetah9LP", 0.107, 0.106, 1.097),
    ("dec_rz26", 0.340, 0.435, 1.559),
    ("hp_c2247a", 0.090, 0.102, 0.548),
];

#[test]
fn validate_all_covers_every_drive_in_name_order() {
    let Some(dir) = data_dir() else { return };
    let all = tierlab_disksim::validate_all(&dir).expect("all drives validate");
    let names: Vec<&str> = all.iter().map(|v| v.drive.as_str()).collect();
    assert_eq!(names, ["atlas10k", "barracuda", "cheetah9LP", "dec_rz26", "hp_c2247a"]);
    let json = serde_json::to_string(&all[0]).expect("serializes");
    assert!(json.contains("\"demerit_ms\""), "{json}");
}

/// The bundled drives' bounds, on the same rule (DiskSim's figure from its `runvalid`;
/// none is published for the ST41601N).
#[allow(clippy::approx_constant)] // 0.318 ms is DiskSim's Cheetah 4LP figure, not 1/π
const BUNDLED_BOUNDS_MS: [(&str, Option<f64>, f64, f64); 6] = [
    ("atlas_III", Some(0.378), 0.376, 1.995),
    ("cheetah4LP", Some(0.318), 0.301, 1.112),
    ("hp_c2490a", Some(0.254), 0.324, 0.927),
    ("hp_c3323a", Some(0.306), 0.267, 2.869),
    ("ibm18es", Some(0.135), 0.199, 1.307),
    ("st41601n", None, 0.130, 0.415),
];

fn check_bounds(dir: &Path, bounds: &[(&str, Option<f64>, f64, f64)]) {
    let mut failures = Vec::new();
    for &(name, disksim_ms, bound_ms, error_bound_ms) in bounds {
        let v = validate_drive(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}: demerit {:.3} ms (DiskSim {disksim_ms:?}, bound {bound_ms:.3}), mean |error| {:.3} ms", v.demerit_ms, v.mean_abs_error_ms);
        assert!(v.requests > 7000, "{name}");
        assert!((v.mean_simulated_ms - v.mean_measured_ms).abs() < 0.1 * v.mean_measured_ms, "{name}: means far apart");
        if v.demerit_ms > bound_ms {
            failures.push(format!("{name}: {:.3} > {bound_ms:.3}", v.demerit_ms));
        }
        if v.mean_abs_error_ms > error_bound_ms {
            failures.push(format!("{name}: mean |error| {:.3} > {error_bound_ms:.3}", v.mean_abs_error_ms));
        }
    }
    assert!(failures.is_empty(), "regressions: {failures:?}");
}

#[test]
fn every_drive_replays_within_its_bound() {
    let Some(dir) = data_dir() else { return };
    let bounds: Vec<(&str, Option<f64>, f64, f64)> = BOUNDS_MS.iter().map(|&(n, d, b, e)| (n, Some(d), b, e)).collect();
    check_bounds(&dir, &bounds);
}

#[test]
fn every_bundled_drive_replays_within_its_bound() {
    let dir = bundled_dir();
    let all = tierlab_disksim::validate_all(&dir).expect("all bundled drives validate");
    let names: Vec<&str> = all.iter().map(|v| v.drive.as_str()).collect();
    let expected: Vec<&str> = BUNDLED_BOUNDS_MS.iter().map(|b| b.0).collect();
    assert_eq!(names, expected, "every bundled drive has a bound");
    check_bounds(&dir, &BUNDLED_BOUNDS_MS);
}

/// Under DiskSim semantics every drive scores DiskSim 4.0's own published figure to within
/// 0.011 ms, except the Atlas 10K, where the model keeps the blocks read before a request
/// ("read any free blocks") and DiskSim does not (VALIDATION.md). Under drive semantics
/// the four changed settings leave most drives elsewhere.
#[test]
fn disksim_semantics_reproduce_disksims_own_figures() {
    let mut drives: Vec<(PathBuf, f64)> = BUNDLED_BOUNDS_MS.iter().filter_map(|&(n, d, _, _)| d.map(|d| (bundled_dir().join(n), d))).collect();
    if let Some(dir) = data_dir() {
        drives.extend(BOUNDS_MS.iter().filter(|(n, _, _, _)| *n != "atlas10k").map(|&(n, d, _, _)| (dir.join(n), d)));
    }
    let mut misses = Vec::new();
    for (dir, disksim_ms) in drives {
        let v = validate_drive_as(&dir, Semantics::Disksim).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert_eq!(v.semantics, Semantics::Disksim);
        println!("{}: {:.3} ms under DiskSim semantics, DiskSim {disksim_ms:.3}", v.drive, v.demerit_ms);
        if (v.demerit_ms - disksim_ms).abs() > 0.011 {
            misses.push(format!("{}: {:.3} against {disksim_ms:.3}", v.drive, v.demerit_ms));
        }
    }
    assert!(misses.is_empty(), "{misses:?}");
}

/// The DiskSim distribution ships DiskSim 4.0's own per-request output for the Atlas 10K
/// (`atlas10k.outtrace`: issue times). Its service times are issue to next issue less the
/// trace's idle gap: one per request but the last. With the trace, or `None` without the data.
fn disksim_own_atlas_10k_service_ms() -> Option<(PathBuf, Vec<tierlab_disksim::trace::TraceRecord>, Vec<f64>)> {
    let dir = data_dir()?.join("atlas10k");
    let text = std::fs::read_to_string(dir.join("atlas10k.outtrace")).expect("DiskSim's output");
    let issued_ms: Vec<f64> = text.lines().filter_map(|l| l.split_whitespace().next()?.parse().ok()).collect();
    let parv = import_drive(&dir).expect("imports").parv;
    let trace = read_trace(&find_trace(&dir, &parv).expect("trace")).expect("reads");
    assert_eq!(issued_ms.len(), trace.len());
    let service_ms = issued_ms.windows(2).zip(&trace).map(|(w, r)| w[1] - w[0] - r.gap_us / 1000.0).collect();
    Some((dir, trace, service_ms))
}

/// DiskSim 4.0's own Atlas 10K output and the model under DiskSim semantics agree within
/// 0.05 ms on at least 93 % of requests.
#[test]
fn the_atlas_10k_replays_as_disksims_own_output_request_by_request() {
    let Some((dir, trace, disksim_ms)) = disksim_own_atlas_10k_service_ms() else { return };
    let imported = import_drive(&dir).expect("imports").with_semantics(Semantics::Disksim);
    let mut mech = Mechanics::new(imported.spec).expect("valid");
    let ours = tierlab_disksim::validate::replay(&mut mech, &trace);
    let agree = disksim_ms.iter().zip(&ours).filter(|(d, o)| (*d - *o).abs() <= 0.05).count();
    println!("{agree} of {} requests within 0.05 ms of DiskSim 4.0", disksim_ms.len());
    // The DiskSim 4.0 build behind `tests/disksim-4.0/` timed this drive as the
    // distribution's own output file does.
    let stored = disksim_4_0_ms("atlas10k");
    assert_eq!(stored.len(), disksim_ms.len());
    assert!(stored.iter().zip(&disksim_ms).all(|(s, d)| (s - d).abs() < 1e-5), "tests/disksim-4.0/atlas10k.ms.xz differs from atlas10k.outtrace");
    assert!(agree * 100 >= 93 * disksim_ms.len(), "{agree}");
}

/// Request by request the model (drive semantics) is closer to the real Atlas 10K than
/// DiskSim 4.0's own output is: mean |error| 0.938 ms against DiskSim's 1.033 ms.
#[test]
fn the_atlas_10k_is_closer_to_the_drive_per_request_than_disksims_own_output() {
    let Some((dir, trace, disksim_ms)) = disksim_own_atlas_10k_service_ms() else { return };
    let measured: Vec<f64> = trace.iter().map(|r| r.measured_us / 1000.0).collect();
    let disksim_error_ms = tierlab_disksim::demerit::mean_abs_error(&measured, &disksim_ms);
    let v = validate_drive(&dir).expect("validates");
    println!("mean |error|: tierlab {:.3} ms, DiskSim 4.0 {disksim_error_ms:.3} ms", v.mean_abs_error_ms);
    assert!((1.0..1.07).contains(&disksim_error_ms), "DiskSim's own figure, {disksim_error_ms}");
    assert!(v.mean_abs_error_ms < 0.96, "{}", v.mean_abs_error_ms);
}

#[test]
fn disksim_semantics_change_four_settings_and_say_so() {
    let drive = import_drive(&bundled_dir().join("ibm18es")).expect("imports");
    assert!(drive.spec.overheads.after_write_figures_for_appends_only && !drive.spec.cache.read_ahead_over_requested);
    assert!(drive.spec.cache.write_back_in_every_segment);
    let as_disksim = drive.clone().with_semantics(Semantics::Disksim);
    assert!(!as_disksim.spec.overheads.after_write_figures_for_appends_only);
    assert!(as_disksim.spec.cache.read_ahead_over_requested, "a maximum read-ahead is set, so DiskSim reads over the request");
    assert!(!as_disksim.spec.cache.write_back_in_every_segment);
    // Its one dedicated write segment is the limit either way: no note for that.
    assert_eq!(as_disksim.notes.len(), drive.notes.len() + 2, "{:?}", as_disksim.notes);
    assert_eq!(drive.clone().with_semantics(Semantics::Drive).spec, drive.spec);
    // The Cheetah 4LP writes back into any of its 3 segments, or into 1 as DiskSim's code
    // limits it.
    let cheetah = import_drive(&bundled_dir().join("cheetah4LP")).expect("imports").with_semantics(Semantics::Disksim);
    assert!(cheetah.notes.iter().any(|n| n.contains("waits for the media once 1 of the 3 segments")), "{:?}", cheetah.notes);
}

/// For each drive, how many requests the model under DiskSim semantics times more than
/// 0.05 ms away from DiskSim 4.0's own timing (VALIDATION.md, "DiskSim 4.0, request by
/// request"): the model's tests hold it to at most that many. The ST41601N counts the
/// 3,180 requests DiskSim times before it stops.
const DISKSIM_DIFFERENT: [(&str, usize); 11] = [
    ("atlas10k", 692),
    ("barracuda", 35),
    ("cheetah9LP", 8),
    ("dec_rz26", 28),
    ("hp_c2247a", 71),
    ("atlas_III", 27),
    ("cheetah4LP", 17),
    ("hp_c2490a", 7),
    ("hp_c3323a", 11),
    ("ibm18es", 17),
    ("st41601n", 42),
];

/// DiskSim 4.0's service time of each request of `drive`'s validation trace, ms
/// (`tests/disksim-4.0/`, made as its README says).
fn disksim_4_0_ms(drive: &str) -> Vec<f64> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/disksim-4.0")).join(format!("{drive}.ms.xz"));
    let (_, text) = tierlab_trace::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(|l| l.parse().unwrap_or_else(|e| panic!("{}: {l}: {e}", path.display()))).collect()
}

#[test]
fn disksim_semantics_time_requests_as_disksim_4_0_does() {
    let shared = data_dir();
    let mut worse = Vec::new();
    for (name, recorded) in DISKSIM_DIFFERENT {
        let dir = if DRIVES.iter().any(|d| d.0 == name) {
            let Some(shared) = &shared else { continue };
            shared.join(name)
        } else {
            bundled_dir().join(name)
        };
        let imported = import_drive(&dir).expect("imports").with_semantics(Semantics::Disksim);
        let trace = read_trace(&find_trace(&dir, &imported.parv).expect("trace")).expect("reads");
        let mut mech = Mechanics::new(imported.spec).expect("valid");
        let ours = tierlab_disksim::validate::replay(&mut mech, &trace);
        let theirs = disksim_4_0_ms(name);
        assert!(theirs.len() < ours.len(), "{name}: DiskSim times {} requests of {}", theirs.len(), ours.len());
        let different = theirs.iter().zip(&ours).filter(|(d, o)| (*d - *o).abs() > 0.05).count();
        println!("{name}: {different} of {} requests more than 0.05 ms from DiskSim 4.0 (recorded {recorded})", theirs.len());
        if different > recorded {
            worse.push(format!("{name}: {different} > {recorded}"));
        }
    }
    assert!(worse.is_empty(), "{worse:?}");
}

#[test]
fn a_path_is_validated_as_one_drive_or_as_the_drives_below_it() {
    let dir = bundled_dir();
    let one = tierlab_disksim::validate_path_as(&dir.join("st41601n"), Semantics::Drive).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(one.iter().map(|v| v.drive.as_str()).collect::<Vec<_>>(), ["st41601n"]);
    assert_eq!(one[0], validate_drive(&dir.join("st41601n")).unwrap());
    let all = tierlab_disksim::validate_path_as(&dir, Semantics::Drive).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all.len(), BUNDLED_BOUNDS_MS.len());
    assert!(all.iter().any(|v| v.drive == "st41601n"));
}
