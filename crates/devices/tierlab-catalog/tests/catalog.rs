//! The shipped catalog parses, carries the published figures exactly, and bad entries
//! produce errors naming file, line and key.

use std::path::{Path, PathBuf};
use tierlab_catalog::{builtin, Catalog, CatalogError};
use tierlab_catalog::{AverageSeek, InnerZoneRate};
use tierlab_power::{ChangeMode, IdlePolicy, PowerCommand, PowerModel, PowerSpec, RpmLevel, SpeedSpec};

fn catalog_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../catalog")
}

const S: u64 = 1_000_000_000;

#[test]
fn builtin_catalog_parses() {
    let c = builtin();
    let ids: Vec<&str> = c.hdds().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "hibernator-two-speed-36z15",
            "hitachi-deskstar-t7k250",
            "ibm-ultrastar-36z15",
            "maxtor-atlas-10k-v-73gb",
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
    include_str!("../../../../catalog/hdd/samsung-spinpoint-f1-ecogreen-hd103ui.toml")
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
    assert_eq!(e.location.field, "unknown[5]");
    assert!(
        e.message
            .contains("`cache_bytes` is listed as unknown but is given"),
        "{e}"
    );
}

#[test]
fn wear_ratings_are_cited_and_estimates_are_marked() {
    let xt = builtin().hdd("seagate-barracuda-xt-st32000641as").unwrap().clone();
    assert_eq!(xt.load_unload_cycles, Some(300_000));
    assert_eq!(xt.workload_tb_per_year, Some(180.0));
    assert!(xt.is_estimate("workload_tb_per_year") && !xt.is_estimate("warranty_years"));
    assert_eq!(xt.rated_transfer_bytes(), Some(900e12));
    // A drive without the figures lists them as unknown and has no rated transfer.
    assert_eq!(builtin().hdd("samsung-spinpoint-f1-ecogreen-hd103ui").unwrap().rated_transfer_bytes(), None);
    // An estimate must be a given figure.
    let text = samsung().replace("rpm = ", "estimates = [\"workload_tb_per_year\"]\nrpm = ");
    let e = load_err(&text);
    assert_eq!(e.location.field, "estimates[0]");
    assert!(e.message.contains("not given"), "{e}");
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

// ---- Hibernator's two-speed disk ---------------------------------------------------

const HIBERNATOR: &str = "hibernator-two-speed-36z15";

fn hibernator_text() -> &'static str {
    include_str!("../../../../catalog/hdd/hibernator-two-speed-36z15.toml")
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.01
}

#[test]
fn hibernator_disk_carries_table_2() {
    let c = builtin();
    let d = c.hdd(HIBERNATOR).unwrap();
    assert_eq!((d.capacity_bytes, d.rpm, d.sector_bytes), (18_000_000_000, 15_000, 512));
    assert_eq!(d.start_stop_cycles, Some(50_000));
    assert_eq!((d.seek.average_read_ms, d.seek.average_write_ms), (Some(3.4), Some(3.4)));
    assert_eq!((d.transfer.sustained_max_mb_s, d.transfer.sustained_min_mb_s), (Some(80.0), Some(80.0)));
    let t = d.timing.as_ref().expect("a [timing] section");
    assert_eq!((t.inner_zone_rate, t.average_seek), (InnerZoneRate::SustainedMin, AverageSeek::RandomMean));
    assert_eq!((t.command_overhead_ms, t.zero_latency_read), (Some(0.0), Some(false)));

    let spec = &d.default_power().unwrap().spec;
    let speeds = spec.speeds.as_ref().unwrap();
    assert_eq!(speeds.change_mode, ChangeMode::ThroughStandby);
    assert_eq!((speeds.change.time_s, speeds.change.energy_j), (12.4, 152.0));
    let levels = spec.speed_levels(d.rpm);
    let table2 = [(3_000, 2.8, 6.1, 13.5), (15_000, 10.2, 13.5, 13.5)];
    assert_eq!(levels.len(), 2);
    for (l, (rpm, idle, active, seek)) in levels.iter().zip(table2) {
        assert_eq!(l.rpm, rpm);
        assert!(near(l.idle_w, idle) && near(l.active_w, active) && near(l.seek_w, seek), "{l:?}");
    }
    // Standby for TPM-style spin-down: 2.5 W, down 1.5 s / 13 J, up 10.9 s / 135 J.
    let stopped = &spec.standby[0];
    assert_eq!((stopped.name.as_str(), stopped.power_w), ("stopped", 2.5));
    let (down, up) = (stopped.enter.unwrap(), stopped.leave.unwrap());
    assert_eq!((down.time_s, down.energy_j, up.time_s, up.energy_j), (1.5, 13.0, 10.9, 135.0));
}

#[test]
fn quadratic_law_regenerates_table_2_from_the_top_speed() {
    let c = builtin();
    let d = c.hdd(HIBERNATOR).unwrap();
    let spec = &d.default_power().unwrap().spec;
    let top = spec.speed_levels(d.rpm)[1];
    let derived = PowerSpec {
        active_w: top.active_w,
        seek_w: top.seek_w,
        idle_w: top.idle_w,
        standby: spec.standby.clone(),
        speeds: Some(SpeedSpec {
            levels: vec![],
            derive_rpms: vec![3_000, 15_000],
            base_w: Some(spec.standby[0].power_w),
            change: spec.speeds.as_ref().unwrap().change,
            change_mode: ChangeMode::ThroughStandby,
        }),
    };
    let low = derived.speed_levels(d.rpm)[0];
    assert_eq!(low.rpm, 3_000);
    assert!(near(low.idle_w, 2.808) && near(low.active_w, 6.108) && near(low.seek_w, 13.5), "{low:?}");
    // ... which is Table 2's 3,000 rpm level as printed (one decimal).
    let printed = spec.speed_levels(d.rpm)[0];
    for (a, b) in [(low.idle_w, printed.idle_w), (low.active_w, printed.active_w), (low.seek_w, printed.seek_w)] {
        assert!((a - b).abs() < 0.05, "{a} vs {b}");
    }
}

#[test]
fn hibernator_speed_change_costs_152_j_either_way() {
    let c = builtin();
    let d = c.hdd(HIBERNATOR).unwrap();
    let spec = &d.default_power().unwrap().spec;
    let mut m = PowerModel::new(spec, d.rpm, IdlePolicy::never(), 0).unwrap();
    let slow = m.speed_index(3_000).unwrap();
    assert_eq!(m.command(0, PowerCommand::SetSpeedLevel(slow)), Ok(12_400_000_000));
    let after_down = m.energy_j();
    assert!((after_down - 152.0).abs() < 1e-6, "{after_down}");
    let fast = m.speed_index(15_000).unwrap();
    assert_eq!(m.command(60 * S, PowerCommand::SetSpeedLevel(fast)), Ok(72_400_000_000));
    let change = m.states().into_iter().find(|s| s.state == "speed_change").unwrap();
    assert!((change.energy_j - 304.0).abs() < 1e-6);
    assert_eq!((change.time_ns, change.transitions), (24_800_000_000, 2));
    assert!(m.speed_index(7_200).unwrap_err().to_string().contains("7200 rpm"));
}

#[test]
fn a_five_speed_disk_by_the_law_validates_and_follows_it() {
    let levels_start = hibernator_text().find("levels = [").unwrap();
    let levels_end = levels_start + hibernator_text()[levels_start..].find("]\n").unwrap() + 2;
    let text = format!(
        "{}derive_rpms = [3_000, 6_000, 9_000, 12_000, 15_000]\nbase_w = 2.5\n{}",
        &hibernator_text()[..levels_start],
        &hibernator_text()[levels_end..]
    );
    let cat = Catalog::from_texts([("x/hibernator-two-speed-36z15.toml", text.as_str())]).expect("validates");
    let d = cat.hdd(HIBERNATOR).unwrap();
    let spec = &d.default_power().unwrap().spec;
    let levels = spec.speed_levels(d.rpm);
    assert_eq!(levels.iter().map(|l| l.rpm).collect::<Vec<_>>(), [3_000, 6_000, 9_000, 12_000, 15_000]);
    for l in &levels {
        let r = f64::from(l.rpm) / 15_000.0;
        let idle = 2.5 + (10.2 - 2.5) * r * r;
        let want = RpmLevel { rpm: l.rpm, idle_w: idle, active_w: idle + (13.5 - 10.2), seek_w: 13.5 };
        assert!((l.idle_w - want.idle_w).abs() < 1e-9 && (l.active_w - want.active_w).abs() < 1e-9 && l.seek_w == want.seek_w, "{l:?} vs {want:?}");
    }
    // Any change between any two of the five speeds costs the whole change.
    let mut m = PowerModel::new(spec, d.rpm, IdlePolicy::never(), 0).unwrap();
    m.command(0, PowerCommand::SetSpeedLevel(3)).unwrap();
    m.command(20 * S, PowerCommand::SetSpeedLevel(2)).unwrap();
    m.finish(40 * S);
    assert!((m.energy_j() - 2.0 * 152.0 - 7.6 * levels[3].idle_w - 7.6 * levels[2].idle_w).abs() < 1e-6);
}

fn load_hibernator_err(text: &str) -> tierlab_config::ConfigError {
    match Catalog::from_texts([("bad/hibernator-two-speed-36z15.toml", text)]) {
        Err(CatalogError::Config(e)) => e,
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn malformed_change_mode_names_file_line_and_key() {
    let text = hibernator_text().replace("change_mode = \"through_standby\"", "change_mode = \"via_standby\"");
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.file, "bad/hibernator-two-speed-36z15.toml");
    assert_eq!(e.location.field, "power_profiles[0].spec.speeds.change_mode");
    assert_eq!(e.location.line, line_of(&text, "via_standby"));
    assert!(e.message.contains("unknown variant `via_standby`"), "{e}");
}

#[test]
fn bad_timing_names_file_line_and_key() {
    let text = hibernator_text().replace("inner_zone_rate = \"sustained_min\"", "inner_zone_rate = \"sustained_max\"");
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.field, "timing.inner_zone_rate");
    assert_eq!(e.location.line, line_of(&text, "sustained_max\""));

    let text = hibernator_text().replace("command_overhead_ms = 0.0", "command_overhead_ms = -0.5");
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.field, "timing.command_overhead_ms");
    assert_eq!(e.location.line, line_of(&text, "command_overhead_ms = -0.5"));

    let text = hibernator_text().replace("zero_latency_read = false", "zero_latency_read = \"no\"");
    assert_eq!(load_hibernator_err(&text).location.field, "timing.zero_latency_read");

    let text = hibernator_text().replace("zero_latency_read = false", "zero_latency = false");
    assert_eq!(load_hibernator_err(&text).location.field, "timing.zero_latency");

    // The inner zone's rate from a figure the entry lists as unknown.
    let text = hibernator_text()
        .replace("sustained_min_mb_s = 80.0\n", "")
        .replace("unknown = [\n", "unknown = [\n    \"transfer.sustained_min_mb_s\",\n");
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.field, "timing.inner_zone_rate");
    assert!(e.message.contains("sustained_min_mb_s"), "{e}");

    let text = hibernator_text().replacen("[timing]\nsource = \"hibernator\"", "[timing]\nsource = \"paper\"", 1);
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.field, "timing.source");
    assert!(e.message.contains("`paper` is not in [sources]"), "{e}");
}

#[test]
fn explicit_levels_inconsistent_with_the_top_speed_are_located() {
    let text = hibernator_text().replace("{ rpm = 15_000, idle_w = 10.2,", "{ rpm = 15_000, idle_w = 10.0,");
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.field, "power_profiles[0].spec.speeds.levels[1].idle_w");
    // A level list whose fastest speed is not the drive's rpm.
    let text = hibernator_text().replace("{ rpm = 15_000, idle_w", "{ rpm = 12_000, idle_w");
    let e = load_hibernator_err(&text);
    assert_eq!(e.location.field, "power_profiles[0].spec.speeds");
    assert!(e.message.contains("15000") && e.message.contains("12000"), "{e}");
}

#[test]
fn other_entries_keep_the_synthesis_defaults() {
    const MAXTOR: &str = "maxtor-atlas-10k-v-73gb";
    for e in builtin().hdds() {
        assert_eq!(e.timing.is_some(), e.id == HIBERNATOR || e.id == MAXTOR, "{}", e.id);
        assert_eq!(e.layout.is_some(), e.id == MAXTOR, "{}", e.id);
    }
}

#[test]
fn t7k250_replication_profile_has_the_papers_transitions_as_printed() {
    let c = builtin();
    let d = c.hdd("hitachi-deskstar-t7k250").unwrap();
    let p = &d.power_profile("replication").unwrap();
    let costs: Vec<(&str, f64, f64, f64, f64, f64)> = p
        .spec
        .standby
        .iter()
        .map(|l| {
            let (e, v) = (l.enter.unwrap(), l.leave.unwrap());
            (l.name.as_str(), l.power_w, e.time_s, e.energy_j, v.time_s, v.energy_j)
        })
        .collect();
    assert_eq!(
        costs,
        [
            ("unloaded", 4.04, 0.7, 3.5, 0.7, 3.5),
            ("low_rpm", 2.72, 17.0, 19.0, 17.0, 19.0),
            ("stopped", 0.93, 0.7, 3.5, 0.7, 3.5)
        ]
    );
    assert_eq!((p.spec.active_w, p.spec.idle_w), (9.7, 5.24));
    assert!(p.spec.standby.iter().all(|l| l.is_usable()));
    assert!(p.assumptions[0].starts_with("FLAGGED"), "the garbled transitions are flagged");
    // The paper's single transfer rate, cited to it.
    assert_eq!(d.transfer.sustained_max_mb_s, Some(61.0));
    assert_eq!(d.transfer.source.as_deref(), Some("replication"));
}

#[test]
fn ibm_36z15_profiles_say_why_each_exists() {
    let c = builtin();
    let d = c.hdd("ibm-ultrastar-36z15").unwrap();
    for (name, active_w, idle_w) in [("replication", 39.0, 22.3), ("hibernator", 13.5, 10.2)] {
        let p = d.power_profile(name).unwrap();
        assert_eq!((p.spec.active_w, p.spec.idle_w), (active_w, idle_w), "{name}");
        assert!(p.assumptions.iter().any(|a| a.starts_with("Why this profile exists")), "{name}");
    }
}

#[test]
fn a_measured_layout_is_checked_and_its_variants_chosen_by_name() {
    // The entry's first source key.
    let key = samsung()
        .split("[sources]")
        .nth(1)
        .and_then(|s| s.lines().find(|l| l.contains('=')))
        .and_then(|l| l.split('=').next())
        .map(str::trim)
        .expect("a source key");
    let with = |layout: &str| format!("{}\n[layout]\nsource = \"{key}\"\nmapping = \"surface_serpentine\"\n{layout}", samsung());
    let good = with("band_cylinders = 32\nsurface_outer_sectors = [1144, 1092]\nvariants = [{ name = \"B\", surface_outer_sectors = [1025, 1196] }]\n");
    let c = Catalog::from_texts([("good/samsung-spinpoint-f1-ecogreen-hd103ui.toml", good.as_str())]).expect("valid layout");
    let l = c.hdds().next().unwrap().layout.as_ref().expect("a layout");
    assert_eq!(l.outer_sectors(None), Some(&[1144, 1092][..]));
    assert_eq!(l.outer_sectors(Some("B")), Some(&[1025, 1196][..]));
    assert_eq!(l.outer_sectors(Some("C")), None);
    for (layout, field) in [
        ("band_cylinders = 0\nsurface_outer_sectors = [1144, 1092]\n", "layout.band_cylinders"),
        ("band_cylinders = 32\nsurface_outer_sectors = [1144, 0]\n", "layout.surface_outer_sectors[1]"),
        ("band_cylinders = 32\nsurface_outer_sectors = [1144, 1092]\nvariants = [{ name = \"B\", surface_outer_sectors = [1025] }]\n", "layout.variants[0].surface_outer_sectors"),
        ("band_cylinders = 32\nsurface_outer_sectors = [1144, 1092]\nvariants = [{ name = \"B\", surface_outer_sectors = [1, 2] }, { name = \"B\", surface_outer_sectors = [1, 2] }]\n", "layout.variants[1].name"),
    ] {
        assert_eq!(load_err(&with(layout)).location.field, field, "{layout}");
    }
    let unknown_source = with("band_cylinders = 32\nsurface_outer_sectors = [1144, 1092]\n").replacen(&format!("source = \"{key}\"\nmapping"), "source = \"nowhere\"\nmapping", 1);
    assert_eq!(load_err(&unknown_source).location.field, "layout.source");
}
