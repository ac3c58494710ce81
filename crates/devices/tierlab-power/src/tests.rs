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
    // idle(3000) = 2.5 + 7.7 * 0.2^2 = 2.808; active keeps the 3.3 W read/write margin;
    // seek power does not depend on speed (Hibernator's Table 2: 2.8 / 6.1 / 13.5 W).
    assert!(close(levels[0].idle_w, 2.808));
    assert!(close(levels[0].active_w, 6.108));
    assert!(close(levels[0].seek_w, 13.5));
}

#[test]
fn five_speed_disk_follows_the_quadratic_law() {
    let text = TWO_SPEED.replace("[3000, 15000]", "[15000, 3000, 12000, 6000, 9000]");
    let s = spec(&text);
    let levels = s.speed_levels(15_000);
    let rpms: Vec<u32> = levels.iter().map(|l| l.rpm).collect();
    assert_eq!(rpms, [3_000, 6_000, 9_000, 12_000, 15_000], "slowest first");
    for l in &levels {
        let r = f64::from(l.rpm) / 15_000.0;
        let idle = 2.5 + (10.2 - 2.5) * r * r;
        assert!(close(l.idle_w, idle), "{l:?}");
        assert!(close(l.active_w, idle + 3.3), "{l:?}");
        assert_eq!(l.seek_w, 13.5, "{l:?}");
    }
    // 9,000 rpm by hand: 2.5 + 7.7 * 0.36 = 5.272 W idle, 8.572 W active.
    assert!(close(levels[2].idle_w, 5.272) && close(levels[2].active_w, 8.572));
    // Spinning idle at each level draws its power, and slower is cheaper.
    for (i, l) in levels.iter().enumerate() {
        let mut m = PowerModel::new(&s, 15_000, IdlePolicy::never(), 0).unwrap();
        m.command(0, PowerCommand::SetSpeedLevel(i)).unwrap();
        let after_change = m.clock_ns();
        m.finish(after_change + 10 * S);
        assert!(close(energy_of(&m, &format!("idle_{}rpm", l.rpm)), 10.0 * l.idle_w));
    }
    assert!(levels.windows(2).all(|w| w[0].idle_w < w[1].idle_w));
}

/// Hibernator's Table 2 disk with explicit levels, changing speed through standby.
const TABLE2: &str = r#"
active_w = 13.5
seek_w = 13.5
idle_w = 10.2
[[standby]]
name = "stopped"
power_w = 2.5
cycle = "start_stop"
enter = { time_s = 1.5, energy_j = 13.0 }
leave = { time_s = 10.9, energy_j = 135.0 }
[speeds]
change_mode = "through_standby"
change = { time_s = 12.4, energy_j = 152.0 }
levels = [
    { rpm = 3000, idle_w = 2.8, active_w = 6.1, seek_w = 13.5 },
    { rpm = 15000, idle_w = 10.2, active_w = 13.5, seek_w = 13.5 },
]
"#;

#[test]
fn through_standby_every_change_costs_the_whole_change_in_either_direction() {
    let s = spec(TABLE2);
    assert_eq!(s.speeds.as_ref().unwrap().change_mode, ChangeMode::ThroughStandby);
    let mut m = PowerModel::new(&s, 15_000, IdlePolicy::never(), 0).unwrap();
    // Down at 0: busy until 12.4 s; a request at 1 s waits for the end.
    assert_eq!(m.command(0, PowerCommand::SetSpeedLevel(0)), Ok(12_400 * MS));
    assert_eq!(m.begin_io(S), 12_400 * MS);
    assert!(close(energy_of(&m, "speed_change"), 152.0));
    // Up at 100 s: the same cost.
    assert_eq!(m.command(100 * S, PowerCommand::SetSpeedLevel(1)), Ok(112_400 * MS));
    m.finish(200 * S);
    assert_eq!(time_of(&m, "speed_change"), 2 * 12_400 * MS);
    assert!((energy_of(&m, "speed_change") - 304.0).abs() < 1e-9);
    let change = m.states().into_iter().find(|t| t.state == "speed_change").unwrap();
    assert_eq!(change.transitions, 2);
    assert_eq!(m.speed_changes(), 2);
    // Each change stopped the spindle once.
    assert_eq!(m.start_stop_cycles(), 2);
    assert!(close(energy_of(&m, "idle_3000rpm"), 2.8 * 87.6));
    assert!(close(energy_of(&m, "idle_15000rpm"), 10.2 * 87.6));
    // A three-speed static disk: a one-step change costs the whole change too.
    let three = TWO_SPEED
        .replace("[3000, 15000]", "[3000, 9000, 15000]")
        .replace("change = {", "change_mode = \"through_standby\"\nchange = {");
    let mut m = PowerModel::new(&spec(&three), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.command(0, PowerCommand::SetSpeedLevel(1)), Ok(12_400 * MS));
    assert_eq!(m.command(20 * S, PowerCommand::SetSpeedLevel(0)), Ok(32_400 * MS));
    m.finish(40 * S);
    assert!(close(energy_of(&m, "speed_change"), 304.0));
}

#[test]
fn proportional_is_the_default_change_mode() {
    let s = spec(TWO_SPEED);
    assert_eq!(s.speeds.as_ref().unwrap().change_mode, ChangeMode::Proportional);
    let mut m = PowerModel::new(&s, 15_000, IdlePolicy::never(), 0).unwrap();
    m.command(0, PowerCommand::SetSpeedLevel(0)).unwrap();
    assert_eq!(m.start_stop_cycles(), 0, "a dynamic drive keeps spinning");
}

#[test]
fn speed_levels_the_drive_lacks_are_errors_naming_them() {
    let mut m = PowerModel::new(&spec(TABLE2), 15_000, IdlePolicy::never(), 0).unwrap();
    let e = m.command(S, PowerCommand::SetSpeedLevel(2)).unwrap_err();
    assert_eq!(e, PowerError::NoSuchSpeedLevel { index: 2, count: 2 });
    assert_eq!(e.to_string(), "no speed level 2: the drive has 2");
    assert_eq!((m.current_rpm(), m.clock_ns(), m.speed_changes()), (15_000, 0, 0));
    assert_eq!(m.speed_index(3_000), Ok(0));
    assert_eq!(m.speed_index(15_000), Ok(1));
    let e = m.speed_index(9_000).unwrap_err();
    assert_eq!(
        e,
        PowerError::NoSuchRpm {
            rpm: 9_000,
            available: vec![3_000, 15_000]
        }
    );
    assert_eq!(
        e.to_string(),
        "no speed level at 9000 rpm: the drive has 3000 rpm, 15000 rpm"
    );
}

#[test]
fn malformed_change_mode_is_located() {
    let text = TABLE2.replace("\"through_standby\"", "\"through-standby\"");
    let e = tierlab_config::parse_toml_validated::<PowerSpec>(&text, "disk.toml").unwrap_err();
    assert_eq!(e.location.file, "disk.toml");
    assert_eq!(e.location.field, "speeds.change_mode");
    let line = 1 + text.lines().position(|l| l.contains("through-standby")).unwrap() as u64;
    assert_eq!(e.location.line, line);
    assert!(e.message.contains("through_standby"), "{e}");
}

#[test]
fn explicit_levels_must_agree_with_the_spec_at_the_top_speed() {
    let bad = |text: &str| spec_err(text).key;
    assert_eq!(
        bad(&TABLE2.replace("rpm = 15000, idle_w = 10.2", "rpm = 15000, idle_w = 10.3")),
        "speeds.levels[1].idle_w"
    );
    assert_eq!(
        bad(&TABLE2.replace("active_w = 13.5, seek_w = 13.5 }", "active_w = 13.5, seek_w = 13.0 }")),
        "speeds.levels[1].seek_w"
    );
}

#[test]
fn set_idle_policy_settles_under_the_old_policy_then_counts_from_now() {
    let mut m = PowerModel::new(&spec(TABLE2), 15_000, IdlePolicy::never(), 0).unwrap();
    m.busy(0, 0, 10 * MS);
    // Never spun down up to 100 s; from 100 s on, a 10 s timeout: spin-down at 110 s.
    assert_eq!(m.set_idle_policy(100 * S, IdlePolicy::after(10 * S, 0)), Ok(()));
    assert_eq!(m.idle_policy(), IdlePolicy::after(10 * S, 0));
    assert_eq!(m.clock_ns(), 100 * S);
    assert_eq!(m.start_stop_cycles(), 0);
    // A request at 200 s: idle to 110 s, 1.5 s down, stopped, 10.9 s up.
    assert_eq!(m.begin_io(200 * S), 210_900 * MS);
    assert_eq!(m.start_stop_cycles(), 1);
    assert_eq!(time_of(&m, "idle_15000rpm"), 110 * S - 10 * MS);
    assert_eq!(time_of(&m, "stopped"), 200 * S - 111_500 * MS);
    // Back to never, at a time the old policy had already spun the drive down: the time
    // before is charged under the old policy, and the drive stays down.
    m.set_idle_policy(300 * S, IdlePolicy::never()).unwrap();
    assert_eq!(m.standby_level(), Some(0));
    assert_eq!(m.start_stop_cycles(), 2);
    assert_eq!(m.clock_ns(), 300 * S);
    // A policy the drive cannot follow is refused and changes nothing.
    let before = m.clone();
    assert_eq!(
        m.set_idle_policy(400 * S, IdlePolicy::after(S, 3)),
        Err(PowerError::NoSuchStandbyLevel { index: 3, count: 1 })
    );
    assert_eq!((m.clock_ns(), m.idle_policy()), (before.clock_ns(), before.idle_policy()));
    let total: u64 = m.states().iter().map(|s| s.time_ns).sum();
    assert_eq!(total, m.clock_ns());
}

#[test]
fn set_idle_policy_while_busy_counts_the_timeout_from_the_end_of_the_work() {
    let mut m = PowerModel::new(&spec(REPLICATION_36Z15), 15_000, IdlePolicy::never(), 0).unwrap();
    assert_eq!(m.busy(0, 0, 5 * S), 5 * S);
    m.set_idle_policy(S, IdlePolicy::after(10 * S, 0)).unwrap();
    // Idle from 5 s (not from 1 s): a request at 15 s is within the timeout.
    assert_eq!(m.begin_io(15 * S), 15 * S);
    assert_eq!(m.start_stop_cycles(), 0);
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
    assert_eq!(
        bad(&TABLE2.replace("{ rpm = 3000, idle_w = 2.8", "{ rpm = 0, idle_w = 2.8")),
        "speeds.levels[0].rpm"
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

#[test]
fn break_even_is_the_idle_time_a_trip_pays_for() {
    let level = StandbyLevel {
        name: "stopped".into(),
        power_w: 2.5,
        enter: Some(Transition { time_s: 1.5, energy_j: 13.0 }),
        leave: Some(Transition { time_s: 10.9, energy_j: 135.0 }),
        cycle: CycleKind::StartStop,
    };
    // (13 + 135 − 2.5 × 12.4) / (10.2 − 2.5) = 117 / 7.7 = 15.19… s.
    assert!((level.break_even_s(10.2).unwrap() - 117.0 / 7.7).abs() < 1e-12);
    // Never shorter than the trip; infinite when standby saves nothing; unknown costs.
    assert_eq!(level.break_even_s(1000.0), Some(12.4));
    assert_eq!(level.break_even_s(2.0), Some(f64::INFINITY));
    assert_eq!(StandbyLevel { leave: None, ..level }.break_even_s(10.2), None);
}
