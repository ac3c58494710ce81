//! The worked example of the GreenDM dissertation's cost chapter, computed from the
//! model's formulas (see crates/tierlab-cost/README.md for the numbers and for what
//! could and could not be checked against the printed arithmetic).

mod common;
use common::*;
use tierlab_cost::{builtin_tariff, cost, cost_curve, CostError, CostInputs, DemandBilling, SECONDS_PER_MONTH};

#[test]
fn purchase_terms_follow_price_per_gb() {
    let b = cost(
        &worked_example(),
        &builtin_tariff("lipa-285-recent").unwrap(),
        1.0,
    )
    .unwrap();
    // $529 / 300 GB × 8 GB and $200 / 2,000 GB × 24 GB.
    assert!(close(b.devices[0].price_per_gb_usd, 529.0 / 300.0));
    assert!(close(b.devices[0].purchase_usd, 529.0 * 8.0 / 300.0)); // 14.1067
    assert!(close(b.devices[1].purchase_usd, 2.4));
    assert!(close(b.purchase_usd, 529.0 * 8.0 / 300.0 + 2.4)); // 16.5067
}

#[test]
fn endurance_terms_use_the_research_limits() {
    let b = cost(
        &worked_example(),
        &builtin_tariff("lipa-285-recent").unwrap(),
        1.0,
    )
    .unwrap();
    // SSD: 365 GB of 36.5 TB = 1 % of $529; HDD: 10 of 300,000 cycles of $200.
    assert!(close(b.devices[0].wear_fraction, 0.01));
    assert!(close(b.devices[0].endurance_usd, 5.29));
    assert!(close(b.devices[1].wear_fraction, 10.0 / 300_000.0));
    assert!(close(b.devices[1].endurance_usd, 200.0 / 30_000.0)); // 0.00667
    assert!(close(b.endurance_usd, 5.29 + 200.0 / 30_000.0));
}

#[test]
fn energy_is_priced_with_the_research_split() {
    // The research's own tariff file has the 3/8, 1/4, 3/8 shares but unknown rates:
    // pricing with it must fail, naming the missing rate.
    let lipa_2013 = builtin_tariff("lipa-285-2013-05").unwrap();
    let e = cost(&worked_example(), &lipa_2013, 1.0).unwrap_err();
    assert!(matches!(e, CostError::Unknown { .. }), "{e}");
    assert!(
        e.to_string().contains("energy_periods[0].usd_per_kwh"),
        "{e}"
    );

    // With any rates (a, b, c) filled in, 8 kWh costs 8 × (3/8 a + 1/4 b + 3/8 c).
    let mut filled = lipa_2013;
    let (a, b, c) = (0.05, 0.20, 0.10);
    for (p, r) in filled.energy_periods.iter_mut().zip([a, b, c]) {
        p.usd_per_kwh = Some(r);
    }
    filled.demand_tiers[0].usd_per_kw = Some(10.0);
    let out = cost(&worked_example(), &filled, 1.0).unwrap();
    assert!(close(out.energy_kwh, 8.0));
    assert!(close(
        out.energy_usd,
        8.0 * (0.375 * a + 0.25 * b + 0.375 * c)
    )); // $0.85
    assert!(close(out.demand_kw, 0.1));
    assert!(close(out.power_usd, 1.0));
}

#[test]
fn worked_example_totals_with_the_recent_lipa_tariff() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    let b = cost(&worked_example(), &t, 1.0).unwrap();
    let energy = 8.0 * (0.375 * 0.0058 + 0.25 * 0.0376 + 0.375 * 0.024); // 0.1646
    let power = 0.1 * 33.43; // 3.343
    let endurance = 5.29 + 200.0 / 30_000.0;
    let purchase = 529.0 * 8.0 / 300.0 + 2.4;
    assert!(close(b.energy_usd, energy));
    assert!(close(b.power_usd, power));
    assert!(close(b.service_usd, 100.0));
    assert!(close(b.tco_usd, energy + power + endurance + 100.0));
    assert!(close(
        b.total_usd,
        purchase + energy + power + endurance + 100.0
    )); // 125.311
        // 80 hours of service per run.
    assert!(close(b.years, 288_000.0 / (365.25 * 86_400.0)));
}

#[test]
fn monthly_demand_billing_charges_per_month_of_service() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    let monthly = CostInputs { demand_billing: DemandBilling::Monthly, ..worked_example() };
    for alpha in [1.0, 9.0, 1e5] {
        let per_run = cost(&worked_example(), &t, alpha).unwrap();
        let b = cost(&monthly, &t, alpha).unwrap();
        // 80 hours of a 730.5-hour month, α times: the other terms are unchanged.
        assert!(close(b.power_usd, alpha * 0.1 * 33.43 * 288_000.0 / SECONDS_PER_MONTH));
        assert!(close(b.power_usd, per_run.power_usd * 80.0 / 730.5));
        assert!(close(b.energy_usd, per_run.energy_usd));
        assert!(close(b.endurance_usd, per_run.endurance_usd));
        assert!(close(b.total_usd - b.power_usd, per_run.total_usd - per_run.power_usd));
    }
    assert_eq!("monthly".parse::<DemandBilling>().unwrap(), DemandBilling::Monthly);
    assert_eq!(DemandBilling::PerRun.to_string().parse::<DemandBilling>().unwrap(), DemandBilling::PerRun);
    assert!("yearly".parse::<DemandBilling>().unwrap_err().to_string().contains("per-run"));
}

#[test]
fn curve_scales_the_running_terms_by_alpha() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    let curve = cost_curve(&worked_example(), &t).unwrap();
    let alphas: Vec<f64> = curve.iter().map(|b| b.alpha).collect();
    assert_eq!(alphas, [1.0, 10.0, 100.0, 1e3, 1e4, 1e5]);
    let one = &curve[0];
    for b in &curve {
        assert!(close(b.purchase_usd, one.purchase_usd));
        assert!(close(b.service_usd, one.service_usd));
        assert!(close(b.energy_usd, b.alpha * one.energy_usd));
        assert!(close(b.power_usd, b.alpha * one.power_usd));
        assert!(close(b.endurance_usd, b.alpha * one.endurance_usd));
        assert!(close(b.years, b.alpha * one.years));
    }
    // At α = 100,000 the SSD has been worn out 1,000 times over: $529,000.
    assert!(close(curve[5].devices[0].endurance_usd, 529_000.0));
}

#[test]
fn report_serializes_with_unit_named_fields() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    let b = cost(&worked_example(), &t, 10.0).unwrap();
    let json = serde_json::to_value(&b).unwrap();
    for key in [
        "purchase_usd",
        "energy_usd",
        "power_usd",
        "endurance_usd",
        "service_usd",
        "total_usd",
        "years",
    ] {
        assert!(
            json.get(key).is_some_and(|v| v.is_number()),
            "missing {key}"
        );
    }
}
