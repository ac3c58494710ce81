//! The system description, power-down and the energy account.

use proptest::prelude::*;
use tierlab_system_power::{
    builtin, powered_down_level, DiskUsage, SystemCatalog, SystemSpec, SystemUsage, POWERED_DOWN,
};

fn spec(text: &str) -> Result<SystemSpec, String> {
    tierlab_config::parse_toml_validated::<SystemSpec>(text, "system.toml")
        .map_err(|e| e.to_string())
}

fn resolve(text: &str, disks: usize) -> Result<tierlab_system_power::System, String> {
    let s = spec(text)?;
    s.resolve(&builtin(), disks)
        .map_err(|e| tierlab_config::field_error(text, "system.toml", e).to_string())
}

#[test]
fn disks_fill_enclosures_in_order() {
    let s = resolve(
        "controller = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es20\"\ncount = 2\n",
        24,
    )
    .unwrap();
    assert_eq!(s.disks_per_enclosure, [16, 8]);
    assert_eq!(s.placement[15].enclosure, 0);
    assert_eq!(s.placement[16].enclosure, 1);
    assert_eq!(s.controller.workload.as_deref(), Some("wl-a"));
    assert_eq!(s.describe(), "emc-dd880 (wl-a rise, loaded at the disks' streaming rate) + 2 × emc-es20 holding 24 disks; spin-down");
    // Explicit counts are kept; the others are filled.
    let s = resolve("controller = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es20\"\ndisks = 4\n[[enclosures]]\nmodel = \"emc-es30\"\n", 10).unwrap();
    assert_eq!(s.disks_per_enclosure, [4, 6]);
}

#[test]
fn bad_systems_name_the_field() {
    let more = "controller = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es20\"\ndisks = 17\n";
    let e = resolve(more, 17).unwrap_err();
    assert!(
        e.starts_with("system.toml:4: field `enclosures[0].disks`"),
        "{e}"
    );
    assert!(e.contains("at most 16 disks"), "{e}");
    let e = resolve(
        "controller = \"emc-dd880\"\n[[enclosures]]\nmodel = \"emc-es30\"\n",
        16,
    )
    .unwrap_err();
    assert!(
        e.contains("16 disks do not fit: the enclosures have 15 slots"),
        "{e}"
    );
    let e = resolve(
        "controller = \"emc-dd999\"\n[[enclosures]]\nmodel = \"emc-es30\"\n",
        1,
    )
    .unwrap_err();
    assert!(e.starts_with("system.toml:1: field `controller`"), "{e}");
    assert!(e.contains("emc-dd880"), "lists the known ids: {e}");
    let e = resolve(
        "controller = \"emc-dd670\"\n[[enclosures]]\nmodel = \"emc-es30\"\ncount = 5\n",
        1,
    )
    .unwrap_err();
    assert!(e.contains("at most 4 enclosures"), "{e}");
    let e = resolve("controller = \"emc-dd880\"\ncontroller_workload = \"wl-z\"\n[[enclosures]]\nmodel = \"emc-es30\"\n", 1).unwrap_err();
    assert!(
        e.starts_with("system.toml:2: field `controller_workload`")
            && e.contains("wl-a, wl-b, wl-c"),
        "{e}"
    );
    let e = spec(
        "controller = \"emc-dd880\"\nlow_power = \"sleep\"\n[[enclosures]]\nmodel = \"emc-es30\"\n",
    )
    .unwrap_err();
    assert!(e.contains("low_power"), "{e}");
    let e = spec("controller = \"emc-dd880\"\nenclosures = []\n").unwrap_err();
    assert!(
        e.contains("enclosures") && e.contains("at least one"),
        "{e}"
    );
}

const OLD_SHELF: &str = r#"
id = "old-shelf"
vendor = "tierlab test"
model = "a shelf that cannot power slots down"
source = "t"
slots = 8
idle_w = 120.0
spun_down_w = 70.0
power_down = false
unknown = ["ship_year", "max_w", "powered_down_w", "slot_power_on_s", "measured_disk.idle_w_range", "measured_disk.active_w_range"]
[measured_disk]
source = "t"
standby_w = 1.0
[sources]
t = "a test"
"#;

const NO_IDLE: &str = r#"
id = "no-idle"
vendor = "tierlab test"
model = "a controller without an idle figure"
source = "t"
unknown = ["ship_year", "max_capacity_tb", "max_enclosures", "load_rise", "deep_c_state"]
[sources]
t = "a test"
"#;

#[test]
fn power_down_needs_an_enclosure_that_can() {
    let mut c = builtin();
    c.add_texts([], [("old-shelf.toml", OLD_SHELF)]).unwrap();
    let text = "controller = \"emc-dd880\"\nlow_power = \"power-down\"\n[[enclosures]]\nmodel = \"emc-es20\"\n[[enclosures]]\nmodel = \"old-shelf\"\n";
    let e = spec(text).unwrap().resolve(&c, 20).unwrap_err();
    assert_eq!(e.key, "enclosures[1].model");
    assert!(
        e.message
            .contains("`old-shelf` cannot power its slots down"),
        "{}",
        e.message
    );
    // Spin-down is fine, and without a powered-down figure the overhead is all fixed.
    let s = spec(&text.replace("power-down", "spin-down"))
        .unwrap()
        .resolve(&c, 20)
        .unwrap();
    let shelf = &s.enclosures[1];
    assert_eq!(shelf.slot_w, 0.0);
    assert_eq!(shelf.base_w, 70.0 - 8.0);
    assert_eq!(s.power_down_extra_s(), None);
}

#[test]
fn a_controller_without_an_idle_figure_is_refused_with_its_line() {
    let mut c = SystemCatalog::default();
    let e = c
        .add_texts([("no-idle.toml", NO_IDLE)], [])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("no-idle.toml:"), "{e}");
    assert!(e.contains("idle_w"), "{e}");
    // An enclosure entry whose figures contradict each other.
    let bad = OLD_SHELF.replace("spun_down_w = 70.0", "spun_down_w = 130.0");
    let e = c
        .add_texts([], [("old-shelf.toml", bad.as_str())])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("spun_down_w") && e.contains("at most the idle 120 W"),
        "{e}"
    );
    let bad = OLD_SHELF.replace("power_down = false", "power_down = true");
    let e = c
        .add_texts([], [("old-shelf.toml", bad.as_str())])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("powered_down_w") && e.contains("power_down = true"),
        "{e}"
    );
}

#[test]
fn a_powered_down_slot_starts_from_the_spin_down() {
    let spec: tierlab_power::PowerSpec = toml::from_str(
        r#"
active_w = 13.5
seek_w = 13.5
idle_w = 10.2
[[standby]]
name = "stopped"
power_w = 2.5
cycle = "start_stop"
enter = { time_s = 1.5, energy_j = 13.0 }
leave = { time_s = 10.9, energy_j = 135.0 }
"#,
    )
    .unwrap();
    let l = powered_down_level(&spec, 3.0).unwrap();
    assert_eq!(l.name, POWERED_DOWN);
    assert_eq!(l.power_w, 0.0);
    assert_eq!(l.cycle, tierlab_power::CycleKind::Power);
    assert_eq!(l.enter.unwrap().time_s, 1.5);
    assert_eq!(l.enter.unwrap().energy_j, 13.0);
    assert!((l.leave.unwrap().time_s - 13.9).abs() < 1e-12);
    assert!((l.leave.unwrap().energy_j - 142.5).abs() < 1e-12);
    let mut unloaded = spec.clone();
    unloaded.standby[0].cycle = tierlab_power::CycleKind::LoadUnload;
    assert!(powered_down_level(&unloaded, 3.0)
        .unwrap_err()
        .contains("spindle-stopped"));
}

fn two_es20() -> tierlab_system_power::System {
    resolve("controller = \"emc-dd880\"\nlow_power = \"power-down\"\n[[enclosures]]\nmodel = \"emc-es20\"\ncount = 2\n", 24).unwrap()
}

#[test]
fn the_account_adds_controller_enclosures_and_disks() {
    let s = two_es20();
    assert_eq!(s.power_down_extra_s(), Some(3.0));
    let disks = vec![
        DiskUsage {
            energy_j: 10.0,
            powered_down_s: 0.0
        };
        24
    ];
    // Half the disks' streaming rate is half the controller's load.
    let e = s
        .account(&SystemUsage {
            span_s: 1.0,
            bytes_moved: 600_000_000,
            streaming_mb_s: 1200.0,
            disks,
        })
        .unwrap();
    assert!((e.controller_load - 0.5).abs() < 1e-12);
    let es20 = &s.enclosures[0];
    assert!((e.controller_w - 555.0 * (1.0 + 0.44 * 0.5)).abs() < 1e-9);
    assert!((e.enclosures_w - (2.0 * 155.0 + 24.0 * es20.slot_w)).abs() < 1e-9);
    assert_eq!(e.disks_w, 240.0);
    assert!((e.total_j - (e.controller_j + e.enclosures_j + e.disks_j)).abs() < 1e-9);
    assert!(s
        .account(&SystemUsage {
            span_s: 1.0,
            bytes_moved: 0,
            streaming_mb_s: 1.0,
            disks: vec![]
        })
        .unwrap_err()
        .contains("holds 24 disks"));
    // A rated throughput replaces the streaming rate; the load never exceeds 1.
    let mut rated = s.clone();
    rated.controller.rated_mb_s = Some(100.0);
    let disks = vec![DiskUsage::default(); 24];
    let e = rated
        .account(&SystemUsage {
            span_s: 10.0,
            bytes_moved: 500_000_000,
            streaming_mb_s: 1e6,
            disks: disks.clone(),
        })
        .unwrap();
    assert!((e.controller_load - 0.5).abs() < 1e-12);
    let e = rated
        .account(&SystemUsage {
            span_s: 1.0,
            bytes_moved: 500_000_000,
            streaming_mb_s: 1e6,
            disks,
        })
        .unwrap();
    assert_eq!(e.controller_load, 1.0);
}

proptest! {
    /// Powering slots down never raises the enclosures' energy, lowers it by exactly the
    /// per-slot overhead of the time powered down, and the parts always add up.
    #[test]
    fn powered_down_time_saves_the_slot_overhead(span in 1.0f64..1e5, downs in proptest::collection::vec(0.0f64..1.0, 24), j in proptest::collection::vec(0.0f64..1e6, 24), mb in 0u64..10_000_000) {
        let s = two_es20();
        let up: Vec<DiskUsage> = j.iter().map(|&e| DiskUsage { energy_j: e, powered_down_s: 0.0 }).collect();
        let down: Vec<DiskUsage> = up.iter().zip(&downs).map(|(d, &f)| DiskUsage { powered_down_s: f * span, ..*d }).collect();
        let a = s.account(&SystemUsage { span_s: span, bytes_moved: mb * 1000, streaming_mb_s: 50.0, disks: up }).unwrap();
        let b = s.account(&SystemUsage { span_s: span, bytes_moved: mb * 1000, streaming_mb_s: 50.0, disks: down }).unwrap();
        let saved = s.enclosures[0].slot_w * downs.iter().sum::<f64>() * span;
        prop_assert!((a.enclosures_j - b.enclosures_j - saved).abs() <= 1e-6 * a.enclosures_j);
        prop_assert!(b.enclosures_j <= a.enclosures_j + 1e-9);
        prop_assert!(b.enclosures_j >= 2.0 * 155.0 * span - 1e-6);
        for e in [&a, &b] {
            prop_assert!((e.total_j - e.controller_j - e.enclosures_j - e.disks_j).abs() <= 1e-9 * e.total_j);
            prop_assert!(e.controller_w >= 555.0 && e.controller_w <= 555.0 * 1.44 + 1e-9);
        }
        prop_assert_eq!(a.saving_against(&a).system, 0.0);
        prop_assert!(b.saving_against(&a).system >= -1e-12);
    }
}
