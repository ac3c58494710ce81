//! The shipped catalog parses, carries the published figures exactly, and bad entries
//! produce errors naming file, line and key.

use std::path::{Path, PathBuf};
use tierlab_catalog::{builtin, Catalog, CatalogError};
use tierlab_power::{IdlePolicy, PowerModel};

fn catalog_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../catalog")
}

const S: u64 = 1_000_000_000;

#[test]
fn builtin_catalog_parses() {
    let c = builtin();
    let ids: Vec<&str> = c.hdds().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "hitachi-deskstar-t7k250",
            "ibm-ultrastar-36z15",
            "samsung-spinpoint-f1-ecogreen-hd103ui",
            "seagate-barracuda-xt-st32000641as",
            "seagate-cheetah-15k5-300gb",
        ]
    );
}

#[test]
fn builtin_matches_the_catalog_directory() {
    let from_disk = Catalog::load_dir(&catalog_dir()).expect("catalog/ loads");
    let builtin = builtin();
    let disk: Vec<_> = from_disk.hdds().collect();
    let embedded: Vec<_> = builtin.hdds().collect();
    assert_eq!(
        disk, embedded,
        "a file in catalog/hdd is missing from BUILTIN_HDDS or differs"
    );
}

#[test]
fn every_usable_profile_builds_a_power_model() {
    for entry in builtin().hdds() {
        for p in &entry.power_profiles {
            let m = PowerModel::new(&p.spec, entry.rpm, IdlePolicy::never(), 0);
            assert!(m.is_ok(), "{} / {}: {:?}", entry.id, p.name, m.err());
        }
    }
}

#[test]
fn ultrastar_36z15_keeps_both_papers_figures() {
    let c = builtin();
    let d = c.hdd("ibm-ultrastar-36z15").unwrap();
    assert_eq!((d.rpm, d.capacity_bytes), (15_000, 18_400_000_000));
    assert_eq!(c.hdd_file(&d.id), Some("catalog/hdd/ibm-ultrastar-36z15.toml"));

    let r = &d.power_profile("replication").unwrap().spec;
    assert_eq!((r.active_w, r.idle_w), (39.0, 22.3));
    let stopped = &r.standby[0];
    assert_eq!(stopped.power_w, 4.15);
    let (down, up) = (stopped.enter.unwrap(), stopped.leave.unwrap());
    assert_eq!((down.time_s, down.energy_j), (15.0, 62.25));
    assert_eq!((up.time_s, up.energy_j), (26.0, 904.8));

    let h = &d.power_profile("hibernator").unwrap().spec;
    assert_eq!((h.active_w, h.seek_w, h.idle_w), (13.5, 13.5, 10.2));
    let speeds = h.speeds.as_ref().unwrap();
    assert_eq!(speeds.derive_rpms, [3_000, 15_000]);
    assert_eq!(
        (speeds.change.time_s, speeds.change.energy_j),
        (12.4, 152.0)
    );
}

#[test]
fn replication_profile_spins_down_and_up_as_published() {
    let c = builtin();
    let d = c.hdd("ibm-ultrastar-36z15").unwrap();
    let spec = &d.power_profile("replication").unwrap().spec;
    let mut m = PowerModel::new(spec, d.rpm, IdlePolicy::after(60 * S, 0), 0).unwrap();
    assert_eq!(m.begin_io(3_600 * S), 3_600 * S + 26 * S);
    // 60 s idle, 15 s spin-down, 3,525 s stopped, 26 s spin-up.
    let expected = 60.0 * 22.3 + 62.25 + 3_525.0 * 4.15 + 904.8;
    assert!(
        (m.energy_j() - expected).abs() < 1e-6,
        "{} vs {expected}",
        m.energy_j()
    );
    assert_eq!(m.start_stop_cycles(), 1);
}

#[test]
fn t7k250_standby_variants_are_recorded_with_unknown_transitions() {
    let c = builtin();
    let d = c.hdd("hitachi-deskstar-t7k250").unwrap();
    let p = &d.default_power().unwrap().spec;
    let levels: Vec<(&str, f64)> = p
        .standby
        .iter()
        .map(|l| (l.name.as_str(), l.power_w))
        .collect();
    assert_eq!(
        levels,
        [("unloaded", 4.04), ("low_rpm", 2.72), ("stopped", 0.93)]
    );
    assert_eq!(p.idle_w, 5.24);
    assert!(p.standby.iter().all(|l| !l.is_usable()));
    assert_eq!(p.deepest_standby(), None, "no level can be simulated until its costs are known");
    assert_eq!(d.seek.average_read_ms, Some(8.5));
    assert!(d
        .unknown
        .iter()
        .any(|k| k == "power_profiles[0].spec.standby[2].leave"));
}

#[test]
fn barracuda_xt_has_greendm_limits_and_price() {
    let c = builtin();
    let d = c.hdd("seagate-barracuda-xt-st32000641as").unwrap();
    assert_eq!(d.start_stop_cycles, Some(300_000));
    assert_eq!(
        d.field_sources.get("start_stop_cycles").map(String::as_str),
        Some("greendm")
    );
    let price = d.price.as_ref().unwrap();
    assert_eq!((price.usd, price.year), (200.0, 2012));
    assert_eq!(d.capacity_bytes, 2_000_000_000_000);
}

#[test]
fn unknown_id_lists_the_known_ones() {
    let e = builtin().hdd("ibm-36z15").unwrap_err();
    let text = e.to_string();
    assert!(text.contains("no hdd `ibm-36z15`"), "{text}");
    assert!(
        text.contains("ibm-ultrastar-36z15") && text.contains("seagate-cheetah-15k5-300gb"),
        "{text}"
    );
}

// ---- bad entries -------------------------------------------------------------------

fn samsung() -> &'static str {
    include_str!("../../../catalog/hdd/samsung-spinpoint-f1-ecogreen-hd103ui.toml")
}

fn load_err(text: &str) -> tierlab_config::ConfigError {
    match Catalog::from_texts([("bad/samsung-spinpoint-f1-ecogreen-hd103ui.toml", text)]) {
        Err(CatalogError::Config(e)) => e,
        other => panic!("expected a config error, got {other:?}"),
    }
}

fn line_of(text: &str, needle: &str) -> u64 {
    1 + text
        .lines()
        .position(|l| l.contains(needle))
        .expect("needle in text") as u64
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let text = samsung().replace("idle_w = 5.0", "idle_w = 5.0\nidle_mw = 5000");
    let e = load_err(&text);
    assert_eq!(
        e.location.file,
        "bad/samsung-spinpoint-f1-ecogreen-hd103ui.toml"
    );
    assert_eq!(e.location.line, line_of(&text, "idle_mw"));
    assert_eq!(e.location.field, "power_profiles[0].spec.idle_mw");
    assert!(e.message.contains("unknown field `idle_mw`"), "{e}");
}

#[test]
fn wrong_type_names_file_line_and_key() {
    let text = samsung().replace("rpm = 5_400", "rpm = \"5400\"");
    let e = load_err(&text);
    assert_eq!(e.location.line, line_of(&text, "rpm = \"5400\""));
    assert_eq!(e.location.field, "rpm");
    assert!(e.message.contains("expected u32"), "{e}");
}

#[test]
fn missing_field_names_file_line_and_key() {
    let text = samsung().replace("seek_w = 5.6\n", "");
    let e = load_err(&text);
    assert_eq!(e.location.field, "power_profiles[0].spec.seek_w");
    assert_eq!(e.location.line, line_of(&text, "[power_profiles.spec]"));
    assert!(e.message.contains("missing field `seek_w`"), "{e}");
}

#[test]
fn invalid_values_are_located() {
    let text = samsung().replace("idle_w = 5.0", "idle_w = -5.0");
    let e = load_err(&text);
    assert_eq!(e.location.field, "power_profiles[0].spec.idle_w");
    assert_eq!(e.location.line, line_of(&text, "idle_w = -5.0"));

    let text = samsung().replace(
        "source = \"dansdata\"\nassumptions",
        "source = \"nowhere\"\nassumptions",
    );
    let e = load_err(&text);
    assert_eq!(e.location.field, "power_profiles[0].source");
    assert!(e.message.contains("`nowhere` is not in [sources]"), "{e}");
}

#[test]
fn absent_figures_must_be_listed_as_unknown_and_vice_versa() {
    let text = samsung().replace("    \"price\",\n", "");
    let e = load_err(&text);
    assert_eq!(e.location.field, "unknown");
    assert!(e.message.contains("`price` is absent"), "{e}");

    let text = samsung().replace("    \"price\",\n", "    \"price\",\n    \"cache_bytes\",\n");
    let e = load_err(&text);
    assert_eq!(e.location.field, "unknown[3]");
    assert!(
        e.message
            .contains("`cache_bytes` is listed as unknown but is given"),
        "{e}"
    );
}

#[test]
fn file_name_must_match_the_id_and_ids_are_unique() {
    let e = Catalog::from_texts([("x/other-name.toml", samsung())]).unwrap_err();
    assert!(matches!(e, CatalogError::FileNameMismatch { .. }), "{e}");
    let name = "x/samsung-spinpoint-f1-ecogreen-hd103ui.toml";
    let e = Catalog::from_texts([(name, samsung()), (name, samsung())]).unwrap_err();
    assert!(matches!(e, CatalogError::DuplicateId { .. }), "{e}");
}

#[test]
fn load_dir_reports_the_path_of_a_bad_file() {
    let dir = std::env::temp_dir().join(format!("tierlab-catalog-test-{}", std::process::id()));
    let hdd = dir.join("hdd");
    std::fs::create_dir_all(&hdd).unwrap();
    let path = hdd.join("samsung-spinpoint-f1-ecogreen-hd103ui.toml");
    std::fs::write(&path, samsung().replace("rpm = 5_400", "rpm = -1")).unwrap();
    let e = Catalog::load_dir(&dir).unwrap_err();
    std::fs::remove_dir_all(&dir).ok();
    let text = e.to_string();
    assert!(text.starts_with(&format!("{}:", path.display())), "{text}");
    assert!(text.contains("field `rpm`"), "{text}");

    let e = Catalog::load_dir(Path::new("/nonexistent/tierlab-catalog")).unwrap_err();
    assert!(matches!(e, CatalogError::Io { .. }), "{e}");
}
