//! The GreenDM dollar-cost model, exactly as the research states it:
//!
//! ```text
//! Cost     = Purchase + TCO
//! Purchase = Σ_i price_per_GB_i × capacity_used_i
//! TCO      = α × (C_energy + C_power + C_endurance) + C_service
//! C_endurance = Σ_i price_i × wear_i / limit_i
//! ```
//!
//! `C_energy` prices the run's energy with the tariff's period shares (3/8 off-peak,
//! 1/4 peak, 3/8 intermediate for the research); `C_power` charges the run's demand
//! (peak power, or the average power when no peak is given) per kW by tier. The time
//! factor α ≥ 1 means "the same workload run α times", so a run of `duration_s`
//! seconds stands for `α × duration_s` seconds of service: [`CostBreakdown::years`].
//! Note that C_service is outside α: the research counts it once.
//!
//! How often the demand charge is paid is [`DemandBilling`]. The research charges it once
//! per run (its worked example: 100 W → 0.1 kW × the tariff's rate, for an 80-hour run),
//! which is the default. A tariff bills demand per month, though, and a simulated run may
//! last seconds; `Monthly` charges it per month of the service time the α runs stand for.

use crate::endurance::{check_ratio, SECONDS_PER_YEAR};
use crate::error::{non_negative, positive, CostError};
use crate::tariff::Tariff;
use serde::{Deserialize, Serialize};

/// Joules in a kilowatt-hour.
pub const J_PER_KWH: f64 = 3.6e6;
/// Bytes in the (decimal) gigabyte that prices are quoted per.
pub const BYTES_PER_GB: f64 = 1e9;
/// The α values of the research's long-term cost curves.
pub const ALPHAS: [f64; 6] = [1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0];

/// One device's purchase figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceCost {
    pub name: String,
    /// Price of the whole device.
    pub price_usd: f64,
    /// Capacity the price buys (decimal bytes); > 0.
    pub capacity_bytes: u64,
    /// Capacity the configuration uses, ≤ `capacity_bytes`.
    pub capacity_used_bytes: u64,
}

impl DeviceCost {
    /// Price per decimal GB: `price_usd / (capacity_bytes / 10^9)`.
    pub fn price_per_gb_usd(&self) -> f64 {
        self.price_usd / (self.capacity_bytes as f64 / BYTES_PER_GB)
    }

    /// Purchase term: price per GB × GB used.
    pub fn purchase_usd(&self) -> f64 {
        self.price_per_gb_usd() * self.capacity_used_bytes as f64 / BYTES_PER_GB
    }
}

/// What one run wore out of a device, against which limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Wear {
    /// Not counted (e.g. a device with no rated limit).
    None,
    /// SSD: (writes + reads × ratio) / rated bytes written.
    SsdBytes {
        write_bytes: u64,
        read_bytes: u64,
        read_effect_ratio: f64,
        rated_write_bytes: u64,
    },
    /// HDD: start/stop cycles / rated cycles.
    HddCycles {
        start_stop_cycles: u64,
        rated_cycles: u64,
    },
    /// HDD: the largest of the fractions of its rated limits used — spindle start/stop
    /// cycles, head load/unload cycles, and bytes transferred (read + written by the
    /// host) against its rated workload over its warranty. A limit the drive has no
    /// rating for is `None` and not counted; at least one must be rated.
    Hdd {
        start_stop_cycles: u64,
        rated_start_stop_cycles: Option<u64>,
        load_unload_cycles: u64,
        rated_load_unload_cycles: Option<u64>,
        transferred_bytes: u64,
        rated_transfer_bytes: Option<u64>,
    },
    /// SSD from the internals model: mean erases / P/E limit.
    Erases {
        mean_erases: f64,
        pe_cycle_limit: u64,
    },
}

impl Wear {
    /// Fraction of rated life used; `at` prefixes field names in errors.
    pub fn fraction(&self, at: &str) -> Result<f64, CostError> {
        let zero = |field: &str| {
            CostError::input(format!("{at}.{field}"), "expected a rated limit > 0, got 0")
        };
        match *self {
            Wear::None => Ok(0.0),
            Wear::SsdBytes {
                write_bytes,
                read_bytes,
                read_effect_ratio,
                rated_write_bytes,
            } => {
                check_ratio(read_effect_ratio, &format!("{at}.read_effect_ratio"))?;
                if rated_write_bytes == 0 {
                    return Err(zero("rated_write_bytes"));
                }
                let wear = write_bytes as f64 + read_bytes as f64 * read_effect_ratio;
                Ok(wear / rated_write_bytes as f64)
            }
            Wear::HddCycles {
                start_stop_cycles,
                rated_cycles,
            } => {
                if rated_cycles == 0 {
                    return Err(zero("rated_cycles"));
                }
                Ok(start_stop_cycles as f64 / rated_cycles as f64)
            }
            Wear::Hdd {
                start_stop_cycles,
                rated_start_stop_cycles,
                load_unload_cycles,
                rated_load_unload_cycles,
                transferred_bytes,
                rated_transfer_bytes,
            } => {
                let parts = [
                    ("rated_start_stop_cycles", start_stop_cycles, rated_start_stop_cycles),
                    ("rated_load_unload_cycles", load_unload_cycles, rated_load_unload_cycles),
                    ("rated_transfer_bytes", transferred_bytes, rated_transfer_bytes),
                ];
                let mut worst: Option<f64> = None;
                for (field, used, rated) in parts {
                    match rated {
                        None => {}
                        Some(0) => return Err(zero(field)),
                        Some(r) => worst = Some(worst.unwrap_or(0.0).max(used as f64 / r as f64)),
                    }
                }
                worst.ok_or_else(|| {
                    CostError::input(
                        at.to_string(),
                        "the drive has no rated start/stop, load/unload or workload limit",
                    )
                })
            }
            Wear::Erases {
                mean_erases,
                pe_cycle_limit,
            } => {
                non_negative(mean_erases, &format!("{at}.mean_erases"))?;
                if pe_cycle_limit == 0 {
                    return Err(zero("pe_cycle_limit"));
                }
                Ok(mean_erases / pe_cycle_limit as f64)
            }
        }
    }
}

/// One device of a configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostDevice {
    pub cost: DeviceCost,
    pub wear: Wear,
}

/// Seconds in an average month (a twelfth of a 365.25-day year), for monthly demand billing.
pub const SECONDS_PER_MONTH: f64 = SECONDS_PER_YEAR / 12.0;

/// How often `C_power`, the tariff's demand charge, is paid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DemandBilling {
    /// Once per run, whatever its length: the research's model.
    #[default]
    PerRun,
    /// Once per month of service: a run of `duration_s` pays
    /// `duration_s / SECONDS_PER_MONTH` of a month's charge.
    Monthly,
}

impl DemandBilling {
    /// The share of one billing of the demand charge that a run of `duration_s` pays.
    pub fn share(self, duration_s: f64) -> f64 {
        match self {
            DemandBilling::PerRun => 1.0,
            DemandBilling::Monthly => duration_s / SECONDS_PER_MONTH,
        }
    }
}

impl std::fmt::Display for DemandBilling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DemandBilling::PerRun => "per-run",
            DemandBilling::Monthly => "monthly",
        })
    }
}

impl std::str::FromStr for DemandBilling {
    type Err = CostError;
    fn from_str(s: &str) -> Result<Self, CostError> {
        match s {
            "per-run" => Ok(DemandBilling::PerRun),
            "monthly" => Ok(DemandBilling::Monthly),
            _ => Err(CostError::input(
                "demand_billing",
                format!("expected `per-run` or `monthly`, got `{s}`"),
            )),
        }
    }
}

/// Everything the model needs about one simulated configuration and run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostInputs {
    pub devices: Vec<CostDevice>,
    /// Energy of the run (all devices).
    pub energy_j: f64,
    /// Peak power of the run; `None` charges the average power `energy_j / duration_s`.
    pub peak_power_w: Option<f64>,
    /// Length of the run; > 0.
    pub duration_s: f64,
    /// Service cost, counted once (outside α).
    pub service_usd: f64,
    /// How often the demand charge is paid (the research: once per run).
    #[serde(default)]
    pub demand_billing: DemandBilling,
}

/// One device's share of the cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceBreakdown {
    pub name: String,
    pub price_per_gb_usd: f64,
    pub purchase_usd: f64,
    /// Fraction of rated life one run uses.
    pub wear_fraction: f64,
    /// α × price × wear fraction.
    pub endurance_usd: f64,
}

/// The cost of a configuration at one α. The α-scaled terms (`energy_usd`,
/// `power_usd`, `endurance_usd`) already include α.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostBreakdown {
    pub alpha: f64,
    /// Service time α runs stand for: α × duration_s, in 365.25-day years.
    pub years: f64,
    pub energy_kwh: f64,
    pub demand_kw: f64,
    pub purchase_usd: f64,
    pub energy_usd: f64,
    pub power_usd: f64,
    pub endurance_usd: f64,
    pub service_usd: f64,
    /// α × (energy + power + endurance) + service.
    pub tco_usd: f64,
    /// purchase + TCO.
    pub total_usd: f64,
    pub devices: Vec<DeviceBreakdown>,
}

/// The research's cost of `inputs` under `tariff` at time factor `alpha` (≥ 1).
pub fn cost(inputs: &CostInputs, tariff: &Tariff, alpha: f64) -> Result<CostBreakdown, CostError> {
    if !(alpha.is_finite() && alpha >= 1.0) {
        return Err(CostError::input(
            "alpha",
            format!("expected a time factor >= 1 (the workload run alpha times), got {alpha}"),
        ));
    }
    let energy_j = non_negative(inputs.energy_j, "energy_j")?;
    let duration_s = positive(inputs.duration_s, "duration_s")?;
    let service_usd = non_negative(inputs.service_usd, "service_usd")?;
    let demand_w = match inputs.peak_power_w {
        Some(w) => non_negative(w, "peak_power_w")?,
        None => energy_j / duration_s,
    };
    let energy_kwh = energy_j / J_PER_KWH;
    let demand_kw = demand_w / 1_000.0;

    let mut devices = Vec::with_capacity(inputs.devices.len());
    for (i, d) in inputs.devices.iter().enumerate() {
        let at = format!("devices[{i}]");
        let c = &d.cost;
        non_negative(c.price_usd, &format!("{at}.cost.price_usd"))?;
        if c.capacity_bytes == 0 {
            return Err(CostError::input(
                format!("{at}.cost.capacity_bytes"),
                "expected a capacity > 0, got 0",
            ));
        }
        if c.capacity_used_bytes > c.capacity_bytes {
            return Err(CostError::input(
                format!("{at}.cost.capacity_used_bytes"),
                format!(
                    "uses {} bytes of a {}-byte device; expected at most its capacity",
                    c.capacity_used_bytes, c.capacity_bytes
                ),
            ));
        }
        let wear_fraction = d.wear.fraction(&format!("{at}.wear"))?;
        devices.push(DeviceBreakdown {
            name: c.name.clone(),
            price_per_gb_usd: c.price_per_gb_usd(),
            purchase_usd: c.purchase_usd(),
            wear_fraction,
            endurance_usd: alpha * c.price_usd * wear_fraction,
        });
    }

    let purchase_usd = devices.iter().map(|d| d.purchase_usd).sum();
    let energy_usd = alpha * tariff.energy_usd(energy_kwh)?;
    let power_usd = alpha * tariff.demand_usd(demand_kw)? * inputs.demand_billing.share(duration_s);
    let endurance_usd = devices.iter().map(|d| d.endurance_usd).sum();
    let tco_usd = energy_usd + power_usd + endurance_usd + service_usd;
    Ok(CostBreakdown {
        alpha,
        years: alpha * duration_s / SECONDS_PER_YEAR,
        energy_kwh,
        demand_kw,
        purchase_usd,
        energy_usd,
        power_usd,
        endurance_usd,
        service_usd,
        tco_usd,
        total_usd: purchase_usd + tco_usd,
        devices,
    })
}

/// The cost at each α of [`ALPHAS`] (1 … 100,000).
pub fn cost_curve(inputs: &CostInputs, tariff: &Tariff) -> Result<Vec<CostBreakdown>, CostError> {
    ALPHAS.iter().map(|&a| cost(inputs, tariff, a)).collect()
}
