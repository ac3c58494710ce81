//! Worked scenarios with figures checked by hand.

use super::*;
use tierlab_config::{parse_toml_validated, Validate};

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

/// The IBM Ultrastar 36Z15 as the power-aware replication paper gives it.
const REPLICATION_36Z15: &str = r#"
active_w = 39.0
seek_w = 39.0
idle_w = 22.3
[[standby]]
name = "stopped"
power_w = 4.15
cycle = "start_stop"
enter = { time_s = 15.0, energy_j = 62.25 }
leave = { time_s = 26.0, energy_j = 904.8 }
"#;

fn spec(text: &str) -> PowerSpec {
    parse_toml_validated(text, "test.toml").expect("valid spec")
}

fn energy_of(m: &PowerModel, state: &str) -> f64 {
    m.states()
        .iter()
        .find(|s| s.state == state)
        .map_or(0.0, |s| s.energy_j)
}

fn time_of(m: &PowerModel, state: &str) -> u64 {
    m.states()
        .iter()
        .find(|s| s.state == state)
        .map_or(0, |s| s.time_ns)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn idle_timeout_spins_down_lazily_and_spin_up_delays_the_next_request() {
    let mut m = PowerModel::new(
        &spec(REPLICATION_36Z15),
        15_000,
        IdlePolicy::after(10 * S, 0),
        0,
    )
    .unwrap();
    assert_eq!(m.begin_io(0), 0);
    assert_eq!(m.busy(0, 2 * MS, 3 * MS), 5 * MS);
    // Next request at 100 s: idle 10 s, spin-down 15 s, standby until 100 s, spin-up 26 s.
    assert_eq!(m.begin_io(100 * S), 126 * S);
    assert_eq!(m.start_stop_cycles(), 1);
    assert_eq!(time_of(&m, "idle"), 10 * S);
    assert_eq!(time_of(&m, "enter_stopped"), 15 * S);
    assert_eq!(time_of(&m, "stopped"), 100 * S - 25 * S - 5 * MS);
    assert_eq!(time_of(&m, "leave_stopped"), 26 * S);
    assert!(close(energy_of(&m, "leave_stopped"), 904.8));
    assert!(close(energy_of(&m, "enter_stopped"), 62.25));
    assert!(close(energy_of(&m, "idle"), 223.0));
    assert!(close(energy_of(&m, "stopped"), 4.15 * 74.995));
    assert!(close(
        energy_of(&m, "seek") + energy_of(&m, "active"),
        39.0 * 0.005
    ));
    assert_eq!(m.finish(126 * S), 126 * S);
    let total: u64 = m.states().iter().map(|s| s.time_ns).sum();
    assert_eq!(total, 126 * S);
}

#[test]
fn request_during_spin_down_waits_for_it_then_spins_up() {
    let mut m = PowerModel::new(
        &spec(REPLICATION_36Z15),
        15_000,
        IdlePolicy::after(10 * S, 0),
        0,
    )
    .unwrap();
    // Timeout fires at 10 s; spin-down runs to 25 s; a request at 12 s is ready at 51 s.
    assert_eq!(m.begin_io(12 * S), 51 * S);
    assert_eq!(time_of(&m, "stopped"), 0);
    assert_eq!(m.start_stop_cycles(), 1);
}

#[test]
fn gap_equal_to_the_timeout_does_not_spin_down() {
    let mut m = PowerModel::new(
        &spec(REPLICATION_36Z15),
        15_000,
        IdlePolicy::after(10 * S, 0),
        0,
    )
    .unwrap();
    assert_eq!(m.begin_io(10 * S), 10 * S);
    assert_eq!(m.start_stop_cycles(), 0);
    // One ns more than the timeout: spin-down at 20 s (to 35 s), spin-up to 61 s.
    assert_eq!(m.begin_io(20 * S + 1), 61 * S);
    assert_eq!(m.start_stop_cycles(), 1);
}

#[test]
fn no_timeout_never_spins_down() {
    let mut m = PowerModel::new(&spec(REPLICATION_36Z15), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.begin_io(1_000_000 * S), 1_000_000 * S);
    assert_eq!(m.start_stop_cycles(), 0);
    assert!(close(m.energy_j(), 22.3 * 1e6));
}

#[test]
fn explicit_standby_and_wake_commands() {
    let mut m = PowerModel::new(&spec(REPLICATION_36Z15), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.command(S, PowerCommand::Standby { level: 0 }), Ok(16 * S));
    assert_eq!(m.standby_level(), Some(0));
    // Standby again: already there, nothing happens.
    assert_eq!(
        m.command(20 * S, PowerCommand::Standby { level: 0 }),
        Ok(20 * S)
    );
    assert_eq!(m.command(30 * S, PowerCommand::Wake), Ok(56 * S));
    assert_eq!(m.standby_level(), None);
    assert_eq!(m.start_stop_cycles(), 1);
    assert_eq!(
        m.command(0, PowerCommand::Standby { level: 3 }),
        Err(PowerError::NoSuchStandbyLevel { index: 3, count: 1 })
    );
    assert_eq!(
        m.command(0, PowerCommand::SetSpeedLevel(1)),
        Err(PowerError::NoSuchSpeedLevel { index: 1, count: 1 })
    );
}

#[test]
fn busy_before_the_clock_starts_when_the_drive_is_free() {
    let mut m = PowerModel::new(&spec(REPLICATION_36Z15), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.busy(0, 0, 10 * MS), 10 * MS);
    // Overlapping call: queued behind the first.
    assert_eq!(m.busy(5 * MS, MS, MS), 12 * MS);
    assert_eq!(m.clock_ns(), 12 * MS);
}

/// Hibernator's two-speed 36Z15: 3,000/15,000 rpm, 12.4 s / 152 J per change.
const TWO_SPEED: &str = r#"
active_w = 13.5
seek_w = 13.5
idle_w = 10.2
[speeds]
derive_rpms = [3000, 15000]
base_w = 2.5
change = { time_s = 12.4, energy_j = 152.0 }
"#;

#[test]
fn quadratic_law_derives_low_speed_powers() {
    let s = spec(TWO_SPEED);
    let levels = s.speed_levels(15_000);
    assert_eq!(levels.len(), 2);
    assert_eq!(
        levels[1],
        RpmLevel {
            rpm: 15_000,
            idle_w: 10.2,
            active_w: 13.5,
            seek_w: 13.5
        }
    );
    // idle(3000) = 2.5 + 7.7 * 0.2^2 = 2.808; active/seek keep the 3.3 W head share.
    assert!(close(levels[0].idle_w, 2.808));
    assert!(close(levels[0].active_w, 6.108));
    assert!(close(levels[0].seek_w, 6.108));
}

#[test]
fn speed_change_costs_time_and_energy_and_is_counted() {
    let mut m = PowerModel::new(&spec(TWO_SPEED), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.current_rpm(), 15_000);
    let ready = m.command(0, PowerCommand::SetSpeedLevel(0)).unwrap();
    assert_eq!(ready, 12_400 * MS);
    assert_eq!(m.current_rpm(), 3_000);
    assert_eq!(m.speed_changes(), 1);
    // A request during the change waits for it.
    assert_eq!(m.begin_io(S), 12_400 * MS);
    // Same level again: free.
    assert_eq!(
        m.command(20 * S, PowerCommand::SetSpeedLevel(0)),
        Ok(20 * S)
    );
    assert_eq!(m.speed_changes(), 1);
    m.finish(20 * S);
    assert!(close(energy_of(&m, "speed_change"), 152.0));
    assert!(close(energy_of(&m, "idle_3000rpm"), 2.808 * 7.6));
}

#[test]
fn partial_speed_changes_cost_their_share_of_the_range() {
    let text = TWO_SPEED.replace("[3000, 15000]", "[3000, 9000, 15000]");
    let mut m = PowerModel::new(&spec(&text), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.command(0, PowerCommand::SetSpeedLevel(1)), Ok(6_200 * MS));
    m.finish(6_200 * MS);
    assert!(close(energy_of(&m, "speed_change"), 76.0));
}

#[test]
fn validation_names_the_offending_field() {
    let bad = |text: &str| spec_err(text).key;
    assert_eq!(
        bad(&REPLICATION_36Z15.replace("power_w = 4.15", "power_w = -4.15")),
        "standby[0].power_w"
    );
    assert_eq!(
        bad(&REPLICATION_36Z15.replace("idle_w = 22.3", "idle_w = nan")),
        "idle_w"
    );
    assert_eq!(
        bad(&REPLICATION_36Z15.replace("time_s = 26.0", "time_s = -1.0")),
        "standby[0].leave.time_s"
    );
    assert_eq!(
        bad(&REPLICATION_36Z15.replace("energy_j = 62.25", "energy_j = -62.25")),
        "standby[0].enter.energy_j"
    );
    assert_eq!(
        bad(&REPLICATION_36Z15.replace("\"stopped\"", "\"idle\"")),
        "standby[0].name"
    );
    assert_eq!(
        bad(&TWO_SPEED.replace("[3000, 15000]", "[]")),
        "speeds.levels"
    );
    assert_eq!(
        bad(&TWO_SPEED.replace("[3000, 15000]", "[3000, 0]")),
        "speeds.derive_rpms[1]"
    );
    assert_eq!(
        bad(&TWO_SPEED.replace("[3000, 15000]", "[3000, 3000]")),
        "speeds.derive_rpms"
    );
    assert_eq!(
        bad(&TWO_SPEED.replace("base_w = 2.5\n", "")),
        "speeds.base_w"
    );
    assert_eq!(
        bad(&TWO_SPEED.replace("base_w = 2.5", "base_w = 11.0")),
        "speeds.base_w"
    );
    // Active below idle power: the 3,000 rpm level would draw 2.808 - 9.2 W.
    assert_eq!(
        bad(&TWO_SPEED.replace("active_w = 13.5", "active_w = 3.0")),
        "speeds.derive_rpms[0]"
    );
    let twice = format!(
        "{REPLICATION_36Z15}{}",
        &REPLICATION_36Z15[REPLICATION_36Z15.find("[[standby]]").unwrap()..]
    );
    assert_eq!(bad(&twice), "standby[1].name");
}

fn spec_err(text: &str) -> tierlab_config::FieldError {
    let s: PowerSpec = tierlab_config::parse_toml(text, "t.toml").expect("shape is fine");
    s.validate().expect_err("should be invalid")
}

#[test]
fn construction_rejects_impossible_policies_and_specs() {
    let s = spec(REPLICATION_36Z15);
    assert_eq!(
        PowerModel::new(&s, 15_000, IdlePolicy::after(S, 1), 0).err(),
        Some(PowerError::NoSuchStandbyLevel { index: 1, count: 1 })
    );
    assert!(
        matches!(PowerModel::new(&s, 0, IdlePolicy::never(), 0), Err(PowerError::InvalidSpec(e)) if e.key.ends_with("rpm"))
    );
}

#[test]
fn levels_with_unknown_transitions_are_documented_but_unusable() {
    let text = REPLICATION_36Z15.replace("leave = { time_s = 26.0, energy_j = 904.8 }\n", "");
    let s = spec(&text);
    assert!(!s.standby[0].is_usable());
    let unknown = Some(PowerError::UnknownTransition {
        name: "stopped".into(),
    });
    assert_eq!(
        PowerModel::new(&s, 15_000, IdlePolicy::after(S, 0), 0).err(),
        unknown
    );
    let mut m = PowerModel::new(&s, 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(
        m.command(S, PowerCommand::Standby { level: 0 }).err(),
        unknown
    );
    assert_eq!(m.standby_level(), None);
}

#[test]
fn deepest_standby_is_the_lowest_power_level() {
    let text = r#"
active_w = 9.7
seek_w = 9.7
idle_w = 5.24
[[standby]]
name = "unloaded"
power_w = 4.04
cycle = "load_unload"
enter = { time_s = 0.0, energy_j = 0.0 }
leave = { time_s = 0.5, energy_j = 1.0 }
[[standby]]
name = "stopped"
power_w = 0.93
cycle = "start_stop"
enter = { time_s = 1.0, energy_j = 2.0 }
leave = { time_s = 8.0, energy_j = 80.0 }
"#;
    let s = spec(text);
    assert_eq!(s.deepest_standby(), Some(1));
    assert_eq!(s.standby_index("unloaded"), Some(0));
    let mut m = PowerModel::new(&s, 7_200, IdlePolicy::after(S, 0), 0).unwrap();
    m.begin_io(10 * S);
    assert_eq!(m.load_unload_cycles(), 1);
    assert_eq!(m.start_stop_cycles(), 0);
    assert_eq!(m.clock_ns(), 10 * S + 500 * MS);
    // The timeout unloads the heads again at 11.5 s; the command at 20 s leaves that
    // level (0.5 s) and then enters the stopped one (1 s).
    let ready = m
        .command(20 * S, PowerCommand::Standby { level: 1 })
        .unwrap();
    assert_eq!(ready, 21 * S + 500 * MS);
    assert_eq!(m.load_unload_cycles(), 2);
    assert_eq!(m.start_stop_cycles(), 1);
    assert_eq!(time_of(&m, "unloaded"), 9 * S + 8 * S + 500 * MS);
}

#[test]
fn policy_config_resolves_names_and_seconds() {
    let s = spec(REPLICATION_36Z15);
    let cfg: IdlePolicyConfig =
        tierlab_config::parse_toml("timeout_s = 2.5\nstandby = \"stopped\"\n", "p.toml").unwrap();
    assert_eq!(cfg.resolve(&s), Ok(IdlePolicy::after(2_500 * MS, 0)));
    // Default level: the deepest usable one.
    let cfg = IdlePolicyConfig {
        timeout_s: Some(1.0),
        standby: None,
    };
    assert_eq!(cfg.resolve(&s), Ok(IdlePolicy::after(S, 0)));
    assert_eq!(
        IdlePolicyConfig::default().resolve(&s),
        Ok(IdlePolicy::never())
    );

    let bad = |cfg: IdlePolicyConfig, s: &PowerSpec| cfg.resolve(s).unwrap_err().key;
    assert_eq!(
        bad(
            IdlePolicyConfig {
                timeout_s: Some(-1.0),
                standby: None
            },
            &s
        ),
        "timeout_s"
    );
    let e = IdlePolicyConfig {
        timeout_s: Some(1.0),
        standby: Some("sleep".into()),
    }
    .resolve(&s)
    .unwrap_err();
    assert_eq!(e.key, "standby");
    assert!(e.message.contains("the drive has: stopped"), "{e}");
    let no_leave =
        spec(&REPLICATION_36Z15.replace("leave = { time_s = 26.0, energy_j = 904.8 }\n", ""));
    assert_eq!(no_leave.deepest_standby(), None);
    assert_eq!(
        bad(
            IdlePolicyConfig {
                timeout_s: Some(1.0),
                standby: None
            },
            &no_leave
        ),
        "standby"
    );
    assert_eq!(
        bad(
            IdlePolicyConfig {
                timeout_s: Some(1.0),
                standby: Some("stopped".into())
            },
            &no_leave
        ),
        "standby"
    );
}
