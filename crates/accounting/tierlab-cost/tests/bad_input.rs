//! Bad inputs are errors naming the field, never panics or silent numbers.

mod common;
use common::*;
use tierlab_cost::{builtin_prices, builtin_tariff, cost, Wear};

fn err(f: impl FnOnce(&mut tierlab_cost::CostInputs)) -> String {
    let mut inputs = worked_example();
    f(&mut inputs);
    let t = builtin_tariff("lipa-285-recent").unwrap();
    cost(&inputs, &t, 1.0).unwrap_err().to_string()
}

#[test]
fn negative_price_names_the_device_field() {
    let e = err(|i| i.devices[0].cost.price_usd = -1.0);
    assert!(e.contains("devices[0].cost.price_usd"), "{e}");
}

#[test]
fn zero_limits_name_the_wear_field() {
    let e = err(|i| {
        i.devices[1].wear = Wear::HddCycles {
            start_stop_cycles: 1,
            rated_cycles: 0,
        }
    });
    assert!(e.contains("devices[1].wear.rated_cycles"), "{e}");
    let e = err(|i| {
        i.devices[0].wear = Wear::SsdBytes {
            write_bytes: 1,
            read_bytes: 0,
            read_effect_ratio: 0.1,
            rated_write_bytes: 0,
        }
    });
    assert!(e.contains("devices[0].wear.rated_write_bytes"), "{e}");
    let e = err(|i| {
        i.devices[0].wear = Wear::Erases {
            mean_erases: 1.0,
            pe_cycle_limit: 0,
        }
    });
    assert!(e.contains("devices[0].wear.pe_cycle_limit"), "{e}");
}

#[test]
fn other_bad_numbers_name_their_fields() {
    assert!(err(|i| i.energy_j = f64::NAN).contains("energy_j"));
    assert!(err(|i| i.duration_s = 0.0).contains("duration_s"));
    assert!(err(|i| i.service_usd = -5.0).contains("service_usd"));
    assert!(err(|i| i.peak_power_w = Some(-1.0)).contains("peak_power_w"));
    assert!(
        err(|i| i.devices[1].cost.capacity_bytes = 0).contains("devices[1].cost.capacity_bytes")
    );
    assert!(err(|i| i.devices[0].cost.capacity_used_bytes = 301 * GB)
        .contains("devices[0].cost.capacity_used_bytes"));
}

#[test]
fn alpha_below_one_is_rejected() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    for alpha in [0.5, 0.0, -1.0, f64::INFINITY, f64::NAN] {
        let e = cost(&worked_example(), &t, alpha).unwrap_err().to_string();
        assert!(e.contains("alpha"), "{e}");
    }
}

#[test]
fn unknown_catalog_figures_are_errors_naming_file_and_key() {
    let current = builtin_prices("current-2026").unwrap();
    let e = current
        .device_cost("samsung-990pro-1tb", GB)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("prices-current-2026.toml") && e.contains("devices[0].price_usd"),
        "{e}"
    );
    assert_eq!(
        current.rated_limit("samsung-990pro-1tb").unwrap(),
        600_000_000_000_000
    );
    let e = current.device_cost("nope", GB).unwrap_err().to_string();
    assert!(e.contains("samsung-990pro-1tb"), "{e}");
}

#[test]
fn average_power_is_charged_when_no_peak_is_given() {
    let t = builtin_tariff("lipa-285-recent").unwrap();
    let mut inputs = worked_example();
    inputs.peak_power_w = None;
    inputs.duration_s *= 2.0; // 8 kWh over 160 h: 50 W average
    let b = cost(&inputs, &t, 1.0).unwrap();
    assert!(close(b.demand_kw, 0.05));
    assert!(close(b.power_usd, 0.05 * 33.43));
}
