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

#[test]
fn hdd_wear_is_the_largest_rated_fraction_and_needs_one_rating() {
    let hdd = |ss: Option<u64>, lu: Option<u64>, bytes: Option<u64>| Wear::Hdd {
        start_stop_cycles: 30,
        rated_start_stop_cycles: ss,
        load_unload_cycles: 600,
        rated_load_unload_cycles: lu,
        transferred_bytes: 9_000_000_000_000,
        rated_transfer_bytes: bytes,
    };
    // 30 of 300,000 start/stops, 600 of 300,000 load/unloads, 9 TB of 900 TB.
    let f = hdd(Some(300_000), Some(300_000), Some(900_000_000_000_000)).fraction("d").unwrap();
    assert!((f - 0.01).abs() < 1e-12, "{f}");
    // Only the limits a drive is rated for count.
    let f = hdd(Some(300_000), Some(300_000), None).fraction("d").unwrap();
    assert!((f - 0.002).abs() < 1e-12, "{f}");
    let e = hdd(None, None, None).fraction("devices[1].wear").unwrap_err().to_string();
    assert!(e.contains("devices[1].wear") && e.contains("no rated"), "{e}");
    let e = hdd(None, Some(0), None).fraction("devices[1].wear").unwrap_err().to_string();
    assert!(e.contains("devices[1].wear.rated_load_unload_cycles"), "{e}");
}
