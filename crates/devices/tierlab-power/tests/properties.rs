//! Property tests: time never runs backwards, every ns is charged to exactly one state,
//! energy is power × time plus transition costs, and wear is counted once per spin-down.

use proptest::prelude::*;
use tierlab_power::*;

const S: u64 = 1_000_000_000;

fn transition() -> impl Strategy<Value = Transition> {
    (0u32..30_000, 0u32..2_000).prop_map(|(ms, j)| Transition {
        time_s: ms as f64 / 1e3,
        energy_j: j as f64 / 2.0,
    })
}

fn standby_level(i: usize) -> impl Strategy<Value = StandbyLevel> {
    (0u32..100, transition(), transition(), 0u8..4).prop_map(move |(p, enter, leave, c)| {
        StandbyLevel {
            name: format!("level{i}"),
            power_w: p as f64 / 10.0,
            enter: Some(enter),
            leave: Some(leave),
            cycle: [CycleKind::None, CycleKind::StartStop, CycleKind::LoadUnload, CycleKind::Power][c as usize],
        }
    })
}

fn spec() -> impl Strategy<Value = PowerSpec> {
    let standby = (0usize..4).prop_flat_map(|n| (0..n).map(standby_level).collect::<Vec<_>>());
    let speeds = prop_oneof![
        Just(None),
        (
            proptest::sample::subsequence(vec![3_000u32, 6_000, 9_000, 12_000, 15_000], 2..=5),
            transition(),
            any::<bool>(),
        )
            .prop_map(|(rpms, change, through_standby)| {
                let mode = if through_standby { ChangeMode::ThroughStandby } else { ChangeMode::Proportional };
                Some((rpms, change, mode))
            }),
    ];
    // Active and seek power at least idle power, as on every drive (the derivation of
    // slower levels relies on it; a unit test covers the rest).
    (0u32..100, 0u32..100, 10u32..200, standby, speeds).prop_map(|(a, s, i, standby, speeds)| {
        let idle_w = i as f64 / 10.0;
        let (active_w, seek_w) = (idle_w + a as f64 / 10.0, idle_w + s as f64 / 10.0);
        PowerSpec {
            active_w,
            seek_w,
            idle_w,
            standby,
            speeds: speeds.map(|(derive_rpms, change, change_mode)| SpeedSpec {
                levels: vec![],
                derive_rpms,
                base_w: Some(active_w.min(seek_w).min(idle_w) / 2.0),
                change,
                change_mode,
            }),
        }
    })
}

#[derive(Clone, Debug)]
enum Call {
    BeginIo,
    Busy { seek_ns: u64, active_ns: u64 },
    Standby(usize),
    Wake,
    Speed(usize),
    /// A new idle policy: timeout (quarter seconds) and standby level.
    Policy(Option<u64>, usize),
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        3 => Just(Call::BeginIo),
        4 => (0u64..20_000_000, 0u64..20_000_000).prop_map(|(seek_ns, active_ns)| Call::Busy { seek_ns, active_ns }),
        1 => (0usize..4).prop_map(Call::Standby),
        1 => Just(Call::Wake),
        1 => (0usize..6).prop_map(Call::Speed),
        1 => (proptest::option::of(0u64..200), 0usize..4).prop_map(|(t, l)| Call::Policy(t, l)),
    ]
}

/// Calls at times that mostly advance but may also fall before the model's clock.
fn calls() -> impl Strategy<Value = Vec<(i64, Call)>> {
    proptest::collection::vec((-5 * S as i64..120 * S as i64, call()), 0..40)
}

fn policy(n_standby: usize, timeout_s: Option<u64>, level: usize) -> IdlePolicy {
    match (n_standby, timeout_s) {
        (0, _) | (_, None) => IdlePolicy::never(),
        (n, Some(t)) => IdlePolicy::after(t * S / 4, level % n),
    }
}

fn sum_times(m: &PowerModel) -> u64 {
    m.states().iter().map(|s| s.time_ns).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn accounting_is_conserved_and_time_never_runs_backwards(
        spec in spec(), timeout in proptest::option::of(0u64..200), level in 0usize..4,
        start in 0u64..1_000 * S, calls in calls(), tail in 0u64..100 * S,
    ) {
        let mut m = PowerModel::new(&spec, 7_200, policy(spec.standby.len(), timeout, level), start).unwrap();
        let mut now = start;
        for (dt, c) in calls {
            now = now.saturating_add_signed(dt).max(start);
            let before = m.clock_ns();
            let ready = match c {
                Call::BeginIo => Some(m.begin_io(now)),
                Call::Busy { seek_ns, active_ns } => {
                    let end = m.busy(now, seek_ns, active_ns);
                    prop_assert!(end >= now + seek_ns + active_ns);
                    Some(end)
                }
                Call::Standby(l) => m.command(now, PowerCommand::Standby { level: l }).ok(),
                Call::Wake => m.command(now, PowerCommand::Wake).ok(),
                Call::Speed(i) => m.command(now, PowerCommand::SetSpeedLevel(i)).ok(),
                Call::Policy(t, l) => {
                    let p = policy(spec.standby.len(), t, l);
                    prop_assert!(m.set_idle_policy(now, p).is_ok());
                    prop_assert_eq!(m.idle_policy(), p);
                    None
                }
            };
            if let Some(ready) = ready {
                prop_assert!(ready >= now);
                prop_assert_eq!(ready, m.clock_ns());
            }
            prop_assert!(m.clock_ns() >= before, "clock ran backwards");
            prop_assert_eq!(sum_times(&m), m.clock_ns() - start);
            prop_assert!(m.speed_levels().iter().any(|l| l.rpm == m.current_rpm()));
        }
        let end = now.saturating_add(tail);
        let closed = m.finish(end);
        prop_assert!(closed >= end);
        prop_assert_eq!(sum_times(&m), closed - start);

        // Energy = Σ steady power × time + Σ transition costs.
        let mut expected = 0.0;
        let (mut enters, mut leaves, mut start_stop, mut load_unload, mut power) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for s in m.states() {
            match s.kind {
                StateKind::Enter => {
                    let l = &spec.standby[s.level];
                    let enter = l.enter.unwrap();
                    prop_assert_eq!(s.time_ns, s.transitions * (enter.time_s * 1e9).round() as u64);
                    expected += s.transitions as f64 * enter.energy_j;
                    enters += s.transitions;
                    match l.cycle {
                        CycleKind::StartStop => start_stop += s.transitions,
                        CycleKind::LoadUnload => load_unload += s.transitions,
                        CycleKind::Power => {
                            power += s.transitions;
                            start_stop += s.transitions;
                        }
                        CycleKind::None => {}
                    }
                }
                StateKind::Leave => {
                    let l = &spec.standby[s.level];
                    let leave = l.leave.unwrap();
                    prop_assert_eq!(s.time_ns, s.transitions * (leave.time_s * 1e9).round() as u64);
                    expected += s.transitions as f64 * leave.energy_j;
                    leaves += s.transitions;
                }
                StateKind::SpeedChange => {
                    let speeds = spec.speeds.as_ref().unwrap();
                    let change = speeds.change;
                    let change_ns = (change.time_s * 1e9).round() as u64;
                    prop_assert_eq!(s.transitions, m.speed_changes());
                    prop_assert!(s.energy_j <= s.transitions as f64 * change.energy_j + 1e-9);
                    prop_assert!(s.time_ns <= s.transitions * change_ns + s.transitions);
                    if speeds.change_mode == ChangeMode::ThroughStandby {
                        // Every change costs the whole change, and stops the spindle once.
                        prop_assert_eq!(s.time_ns, s.transitions * change_ns);
                        prop_assert!((s.energy_j - s.transitions as f64 * change.energy_j).abs() <= 1e-9 * s.energy_j.max(1.0));
                        start_stop += s.transitions;
                    }
                    expected += s.energy_j;
                }
                kind => {
                    let p = m.steady_power_w(kind, s.level);
                    prop_assert!(p >= 0.0);
                    expected += p * s.time_ns as f64 / 1e9;
                }
            }
        }
        prop_assert!((m.energy_j() - expected).abs() <= 1e-9 * expected.max(1.0));
        // Wear is counted once per entry, and every spin-up follows one spin-down.
        prop_assert_eq!(m.start_stop_cycles(), start_stop);
        prop_assert_eq!(m.load_unload_cycles(), load_unload);
        prop_assert_eq!(m.power_cycles(), power);
        prop_assert_eq!(enters - leaves, u64::from(m.standby_level().is_some()));
    }

    /// Against an independent oracle: with an idle timeout and only I/O, a spin-down
    /// (one start/stop cycle) happens exactly for each gap longer than the timeout, and
    /// the request waits for the rest of the spin-down plus the whole spin-up.
    #[test]
    fn timeout_policy_matches_the_oracle(
        timeout_ms in 0u64..20_000, enter in transition(), leave in transition(),
        gaps in proptest::collection::vec((0u8..4, 0u64..40_000, 0u64..50), 1..30),
    ) {
        let spec = PowerSpec {
            active_w: 10.0, seek_w: 12.0, idle_w: 8.0,
            standby: vec![StandbyLevel {
                name: "stopped".into(), power_w: 1.0, enter: Some(enter), leave: Some(leave), cycle: CycleKind::StartStop,
            }],
            speeds: None,
        };
        let ms = 1_000_000u64;
        let timeout_ns = timeout_ms * ms;
        let (enter_ns, leave_ns) = ((enter.time_s * 1e9).round() as u64, (leave.time_s * 1e9).round() as u64);
        let mut m = PowerModel::new(&spec, 7_200, IdlePolicy::after(timeout_ns, 0), 0).unwrap();
        let (mut free_at, mut cycles) = (0u64, 0u64);
        for (kind, random_ms, busy_ms) in gaps {
            // Gaps right at the timeout are where off-by-one mistakes hide.
            let gap_ms = match kind {
                0 => timeout_ms,
                1 => timeout_ms + 1,
                _ => random_ms,
            };
            let now = free_at + gap_ms * ms;
            let ready = if now - free_at > timeout_ns {
                cycles += 1;
                now.max(free_at + timeout_ns + enter_ns) + leave_ns
            } else {
                now
            };
            prop_assert_eq!(m.begin_io(now), ready);
            free_at = m.busy(now, 0, busy_ms * ms);
            prop_assert_eq!(free_at, ready + busy_ms * ms);
            prop_assert_eq!(m.start_stop_cycles(), cycles);
        }
    }
}
