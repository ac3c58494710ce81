//! Invariants of the cost model: more runs, more energy or more writes never cost less.

mod common;
use common::*;
use proptest::prelude::*;
use tierlab_cost::{builtin_tariff, cost, Wear};

fn with_writes(write_bytes: u64, read_bytes: u64) -> tierlab_cost::CostInputs {
    let mut i = worked_example();
    if let Wear::SsdBytes {
        rated_write_bytes, ..
    } = i.devices[0].wear
    {
        i.devices[0].wear = Wear::SsdBytes {
            write_bytes,
            read_bytes,
            read_effect_ratio: 0.01,
            rated_write_bytes,
        };
    }
    i
}

proptest! {
    #[test]
    fn monotone_in_alpha(a in 1.0f64..1e6, b in 1.0f64..1e6) {
        let t = builtin_tariff("lipa-285-recent").unwrap();
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let x = cost(&worked_example(), &t, lo).unwrap();
        let y = cost(&worked_example(), &t, hi).unwrap();
        prop_assert!(x.total_usd <= y.total_usd);
        prop_assert!(x.years <= y.years);
        // purchase + service are fixed; the rest grows linearly in α
        let per_run = x.energy_usd + x.power_usd + x.endurance_usd;
        prop_assert!(close(y.total_usd, y.purchase_usd + y.service_usd + per_run / lo * hi));
    }

    #[test]
    fn monotone_in_energy(e1 in 0.0f64..1e12, e2 in 0.0f64..1e12, alpha in 1.0f64..1e5) {
        let t = builtin_tariff("lipa-285-recent").unwrap();
        let (lo, hi) = if e1 <= e2 { (e1, e2) } else { (e2, e1) };
        let mut x = worked_example();
        x.energy_j = lo;
        x.peak_power_w = None; // demand follows the energy too
        let mut y = x.clone();
        y.energy_j = hi;
        let cx = cost(&x, &t, alpha).unwrap();
        let cy = cost(&y, &t, alpha).unwrap();
        prop_assert!(cx.total_usd <= cy.total_usd);
        prop_assert!(cx.energy_usd <= cy.energy_usd);
    }

    #[test]
    fn monotone_in_writes(w1 in 0u64..1 << 50, w2 in 0u64..1 << 50, reads in 0u64..1 << 50, alpha in 1.0f64..1e5) {
        let t = builtin_tariff("lipa-285-recent").unwrap();
        let (lo, hi) = if w1 <= w2 { (w1, w2) } else { (w2, w1) };
        let cx = cost(&with_writes(lo, reads), &t, alpha).unwrap();
        let cy = cost(&with_writes(hi, reads), &t, alpha).unwrap();
        prop_assert!(cx.total_usd <= cy.total_usd);
        prop_assert!(cx.endurance_usd <= cy.endurance_usd);
    }

    #[test]
    fn total_is_purchase_plus_tco(alpha in 1.0f64..1e5, cycles in 0u64..1_000_000) {
        let t = builtin_tariff("lipa-285-recent").unwrap();
        let mut i = worked_example();
        i.devices[1].wear = Wear::HddCycles { start_stop_cycles: cycles, rated_cycles: 300_000 };
        let b = cost(&i, &t, alpha).unwrap();
        prop_assert!(close(b.total_usd, b.purchase_usd + b.tco_usd));
        prop_assert!(close(b.tco_usd, b.energy_usd + b.power_usd + b.endurance_usd + b.service_usd));
        prop_assert!(b.total_usd.is_finite() && b.total_usd >= 0.0);
    }
}

#[test]
fn joules_to_kwh() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    let mut i = worked_example();
    i.energy_j = 3.6e6;
    let b = cost(&i, &t, 1.0).unwrap();
    assert!(close(b.energy_kwh, 1.0));
}
