//! The closed-form model against the worked values of the Hibernator notes (§1.2.5,
//! §6.1), and properties that would catch the paper's dimensionally wrong print.

mod common;

use common::*;
use proptest::prelude::*;
use tierlab_hibernator_cr::*;

/// |x - want| <= half a unit of the last printed digit.
fn assert_printed(x: f64, want: f64, half_unit: f64, what: &str) {
    assert!(
        (x - want).abs() <= half_unit,
        "{what}: got {x}, expected {want} ± {half_unit}"
    );
}

#[test]
fn example_1_stay_fast_heavy_load() {
    // α 50/s, E 5.5 ms, Var 4 ms²: R'' = 6.681 ms; E = 39,987 J with P' 13.5, P'' 10.2.
    let r = mg1_response_s(50.0, 5.5 * MS, 4.0 * MS * MS);
    assert_printed(r / MS, 6.681, 0.0005, "R'' (ms)");
    let rho = utilisation(50.0, 5.5 * MS);
    assert_printed(rho, 0.275, 1e-12, "rho");
    let e = epoch_energy_j(3600.0, rho, 13.5, 10.2, 0.0, 152.0 / 12.4);
    assert_printed(e, 39_987.0, 0.5, "E (J)");

    // The same through the planner's per-disk evaluation (staying at speed 1).
    let c = evaluate_level(&paper_disk(50.0, 1), 1, &paper_params(0.01)).unwrap();
    assert_printed(c.epoch_response_s / MS, 6.681, 0.0005, "R (ms)");
    assert_printed(c.energy_j, 39_987.0, 0.5, "E (J)");
    assert_eq!(c.transition_s, 0.0);
    assert!(c.feasible);
}

#[test]
fn example_2_switch_to_slow_light_load() {
    // α 5/s, slow E 13.9 ms, Var 40 ms², P' 6.1, P'' 2.8, T_i 12.4 s, P''' = 152/12.4.
    let p = paper_params(0.01);
    let disk = paper_disk(5.0, 1); // currently fast, so slowing down is a transition
    let c = evaluate_level(&disk, 0, &p).unwrap();
    assert_printed(c.rho, 0.0695, 1e-12, "rho");
    assert_eq!(c.transition_s, 12.4);
    let r1 = transition_response_s(12.4, c.rho);
    assert_printed(r1, 6.631, 0.0005, "R' (s)");
    assert_printed(c.steady_response_s / MS, 14.527, 0.0005, "R'' (ms)");
    assert_printed(c.epoch_response_s / MS, 37.316, 0.0005, "R (ms)");
    assert_printed(c.energy_j, 11_022.94, 0.005, "E (J)");

    // By the pure functions, with P''' given explicitly.
    let e = epoch_energy_j(3600.0, c.rho, 6.1, 2.8, 12.4, 152.0 / 12.4);
    assert_printed(e, 11_022.94, 0.005, "E (J)");
    assert_printed(transition_power_w(152.0, 12.4), 12.258, 0.0005, "P''' (W)");

    // Already slow: no transition.
    let c = evaluate_level(&paper_disk(5.0, 0), 0, &p).unwrap();
    assert_eq!(c.transition_s, 0.0);
    assert_printed(c.epoch_response_s / MS, 14.527, 0.0005, "R (ms)");
    assert_printed(c.energy_j, 10_905.66, 0.005, "E (J)");
}

#[test]
fn example_3_stay_fast_light_load() {
    let c = evaluate_level(&paper_disk(5.0, 1), 1, &paper_params(0.01)).unwrap();
    assert_printed(c.energy_j, 37_046.7, 0.05, "E (J)");
    assert_printed(c.epoch_response_s / MS, 5.588, 0.0005, "R (ms)");
}

#[test]
fn transition_term_of_the_epoch_average() {
    // T_i² (1 + ρ) / (2 T_epoch) = 21.356 ms at ρ = 0, T_epoch = 3600 s.
    let term = epoch_response_s(3600.0, 12.4, transition_response_s(12.4, 0.0), 0.0);
    assert_printed(term / MS, 21.356, 0.0005, "transition term (ms)");
    // Other epoch lengths from the notes: 42.7 / 10.7 / 5.3 ms.
    for (epoch, want) in [(1800.0, 42.7), (7200.0, 10.7), (14400.0, 5.3)] {
        let t = epoch_response_s(epoch, 12.4, transition_response_s(12.4, 0.0), 0.0);
        assert_printed(t / MS, want, 0.05, "transition term (ms)");
    }
    // And the (1 + ρ) factor, on top of the steady-state share.
    let (rho, r2) = (0.3, 0.008);
    let r = epoch_response_s(3600.0, 12.4, transition_response_s(12.4, rho), r2);
    let want = 12.4 * 12.4 * (1.0 + rho) / 7200.0 + r2 * (3600.0 - 12.4) / 3600.0;
    assert!((r - want).abs() < 1e-15);
    // No transition: R = R''.
    assert_eq!(epoch_response_s(3600.0, 0.0, f64::INFINITY, r2), r2);
}

/// The paper's printed "response time": the P-K mean number in system.
fn printed_formula(alpha: f64, mean: f64, var: f64) -> f64 {
    let rho = alpha * mean;
    rho + alpha * alpha * (mean * mean + var) / (2.0 * (1.0 - rho))
}

#[test]
fn printed_formula_is_caught() {
    let printed = printed_formula(50.0, 5.5 * MS, 4.0 * MS * MS);
    assert_printed(printed, 0.334, 0.0005, "printed formula (dimensionless)");
    let r = mg1_response_s(50.0, 5.5 * MS, 4.0 * MS * MS);
    // Off by a factor α = 50 (Little's law), so nowhere near.
    assert!((printed - r).abs() > 0.3);
    assert!((printed / 50.0 - r).abs() < 1e-15);
    // And the reorganisation formula uses the response time plus E[t]/2.
    let rr = reorg_response_s(50.0, 5.5 * MS, 4.0 * MS * MS);
    assert_printed(rr / MS, 6.681 + 2.75, 0.0005, "R''(reorg) (ms)");
}

proptest! {
    /// A response time scales with the time unit (seconds → c·seconds, rates → /c);
    /// the printed formula is dimensionless and would not.
    #[test]
    fn response_time_has_units_of_time(
        alpha in 0.1..150.0f64,
        mean in 1e-4..8e-3f64,
        var_f in 0.0..2.0f64,
        c in 0.01..100.0f64,
    ) {
        let var = var_f * mean * mean;
        prop_assume!(alpha * mean < 0.95);
        let r = mg1_response_s(alpha, mean, var);
        let scaled = mg1_response_s(alpha / c, mean * c, var * c * c);
        prop_assert!(rel_close(scaled, c * r, 1e-12));
        // P-K: R = E[t] + L_q/α and R = L/α.
        prop_assert!(rel_close(r * alpha, printed_formula(alpha, mean, var), 1e-12));
        prop_assert!(r >= mean);
    }

    /// None of the pure functions panics, whatever the input.
    #[test]
    fn pure_functions_never_panic(a in any::<f64>(), b in any::<f64>(), c in any::<f64>(),
                                  d in any::<f64>(), e in any::<f64>(), f in any::<f64>()) {
        let _ = utilisation(a, b);
        let _ = mg1_response_s(a, b, c);
        let _ = transition_response_s(a, b);
        let _ = epoch_response_s(a, b, c, d);
        let _ = epoch_response_with_reorg_s(a, b, c, d, e, f);
        let _ = epoch_energy_j(a, b, c, d, e, f);
        let _ = reorg_phase_s(a, b);
        let _ = reorg_response_s(a, b, c);
        let _ = transition_power_w(a, b);
    }
}

#[test]
fn unstable_queue_is_infinite() {
    assert_eq!(mg1_response_s(200.0, 5.0 * MS, 0.0), f64::INFINITY); // ρ = 1
    assert_eq!(mg1_response_s(300.0, 5.0 * MS, 0.0), f64::INFINITY); // ρ > 1
    assert_eq!(reorg_phase_s(600.0, 1.0), f64::INFINITY);
    assert!(mg1_response_s(f64::NAN, 5.0 * MS, 0.0).is_nan());
    // No load: just the service time.
    assert_eq!(mg1_response_s(0.0, 5.0 * MS, 1.0), 5.0 * MS);
    // M/D/1 and M/M/1 closed forms.
    let (a, m) = (100.0, 4.0 * MS);
    let rho: f64 = a * m;
    assert!(rel_close(
        mg1_response_s(a, m, 0.0),
        m + rho * m / (2.0 * (1.0 - rho)),
        1e-12
    ));
    assert!(rel_close(
        mg1_response_s(a, m, m * m),
        m / (1.0 - rho),
        1e-12
    ));
}

#[test]
fn reorganisation_phase_length() {
    // Table 3: Scan = 11.05 min; ρ = 0.1417 gives T_R = 30.0 min; ρ = 0 gives 22.1 min.
    let scan = 11.05 * 60.0;
    assert_printed(reorg_phase_s(scan, 0.1417) / 60.0, 30.0, 0.05, "T_R (min)");
    assert_printed(reorg_phase_s(scan, 0.0) / 60.0, 22.1, 0.05, "T_R (min)");
    // The derivation: α T_R (1-ρ) E[t] + 2 Scan = T_R (1-ρ), with ρ = α E[t].
    let (alpha, mean) = (25.0, 5.668 * MS);
    let rho = alpha * mean;
    let t_r = reorg_phase_s(scan, rho);
    assert!(rel_close(
        alpha * t_r * (1.0 - rho) * mean + 2.0 * scan,
        t_r * (1.0 - rho),
        1e-12
    ));
}

#[test]
fn epoch_average_with_reorganisation() {
    let (t, ti, r1, tr, rr, r2) = (3600.0, 12.4, 6.6, 1800.0, 0.012, 0.009);
    let r = epoch_response_with_reorg_s(t, ti, r1, tr, rr, r2);
    let want = (ti * r1 + tr * rr + (t - ti - tr) * r2) / t;
    assert!((r - want).abs() < 1e-15);
    // Without a reorganisation it is the plain epoch average.
    assert_eq!(
        epoch_response_with_reorg_s(t, ti, r1, 0.0, f64::INFINITY, r2),
        epoch_response_s(t, ti, r1, r2)
    );
}

#[test]
fn infeasible_when_the_work_does_not_fit() {
    // ρ = 0.998 fits in a steady epoch but not alongside a 12.4 s transition:
    // 3600·0.998 + 12.4 > 3600.
    let p = paper_params(1.0);
    let mut d = paper_disk(0.0, 1);
    d.arrival_rate_per_s = 0.998 / d.options[0].service_mean_s;
    let c = evaluate_level(&d, 0, &p).unwrap();
    assert!(c.rho < 1.0 && !c.feasible, "{c:?}");
    d.current_level = 0;
    let c = evaluate_level(&d, 0, &p).unwrap();
    assert!(c.feasible, "{c:?}");
}
