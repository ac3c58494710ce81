//! Shared fixtures: the dissertation's worked example as model inputs.

#![allow(dead_code)] // each test binary uses a different subset

use tierlab_cost::{builtin_prices, CostDevice, CostInputs, DemandBilling, Wear};

pub const SSD: &str = "intel-320-300gb";
pub const HDD: &str = "seagate-barracuda-xt-st32000641as";
pub const GB: u64 = 1_000_000_000;

/// 8 GB of the Intel SSD 320 + 24 GB of the Seagate 2 TB, 8 kWh at 100 W,
/// 365 GB written to the SSD, 10 start/stop cycles — at the research's 2012 prices.
pub fn worked_example() -> CostInputs {
    let prices = builtin_prices("greendm-2012").unwrap();
    let ssd = CostDevice {
        cost: prices.device_cost(SSD, 8 * GB).unwrap(),
        wear: Wear::SsdBytes {
            write_bytes: 365 * GB,
            read_bytes: 0,
            read_effect_ratio: 0.0,
            rated_write_bytes: prices.rated_limit(SSD).unwrap(),
        },
    };
    let hdd = CostDevice {
        cost: prices.device_cost(HDD, 24 * GB).unwrap(),
        wear: Wear::HddCycles {
            start_stop_cycles: 10,
            rated_cycles: prices.rated_limit(HDD).unwrap(),
        },
    };
    let energy_j = 8.0 * 3.6e6;
    CostInputs {
        devices: vec![ssd, hdd],
        energy_j,
        peak_power_w: Some(100.0),
        duration_s: energy_j / 100.0, // 8 kWh at 100 W: 80 hours
        service_usd: prices.service_usd().unwrap(),
        demand_billing: DemandBilling::PerRun,
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}
