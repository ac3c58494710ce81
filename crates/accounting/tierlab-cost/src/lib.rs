//! Endurance and dollar cost of a storage configuration, after the GreenDM hybrid-drive
//! research (Z. Li, *GreenDM: A Versatile Tiering Hybrid Drive for the Trade-Off
//! Evaluation of Performance, Energy, and Endurance*, Stony Brook University, 2014; and
//! Z. Li et al., ACM TOS 2015, doi 10.1145/2700312).
//!
//! - [`endurance()`]: wear in "eu" (parts per million of rated life) — SSD bytes written
//!   plus reads × a read-effect ratio against TBW, HDD start/stop cycles against the
//!   cycle limit, and erase-count wear with projected years.
//! - [`cost()`]: `Cost = Purchase + α·(C_energy + C_power + C_endurance) + C_service`,
//!   with energy and demand priced from a [`Tariff`], and the curve over α.
//! - Data (`catalog/cost/*.toml`, embedded; see [`builtin_tariff`] and
//!   [`builtin_prices`]): tariffs and device price catalogs, every figure cited.
//!
//! See `crates/accounting/tierlab-cost/README.md` for the dissertation's worked example.

pub mod cost;
pub mod endurance;
mod error;
pub mod prices;
mod sources;
pub mod tariff;

pub use cost::{
    cost, cost_curve, CostBreakdown, CostDevice, CostInputs, DemandBilling, DeviceBreakdown,
    DeviceCost, Wear, ALPHAS, SECONDS_PER_MONTH,
};
pub use endurance::{
    endurance, erase_lifetime_years, erase_wear, DeviceLimits, EnduranceInput, EnduranceReport,
    EraseInput, EraseWearReport, SECONDS_PER_365_DAY_YEAR,
};
pub use error::CostError;
pub use prices::{DeviceKind, DevicePrice, PriceCatalog};
pub use tariff::{DemandTier, EnergyPeriod, Tariff};

/// The shipped tariffs, as (file name, text).
const TARIFFS: [(&str, &str); 2] = [
    (
        "catalog/cost/tariff-lipa-285-2013-05.toml",
        include_str!("../../../../catalog/cost/tariff-lipa-285-2013-05.toml"),
    ),
    (
        "catalog/cost/tariff-lipa-285-recent.toml",
        include_str!("../../../../catalog/cost/tariff-lipa-285-recent.toml"),
    ),
];

/// The shipped price catalogs, as (file name, text).
const PRICES: [(&str, &str); 2] = [
    (
        "catalog/cost/prices-greendm-2012.toml",
        include_str!("../../../../catalog/cost/prices-greendm-2012.toml"),
    ),
    (
        "catalog/cost/prices-current-2026.toml",
        include_str!("../../../../catalog/cost/prices-current-2026.toml"),
    ),
];

/// Ids of the shipped tariffs.
pub fn builtin_tariff_ids() -> Vec<String> {
    TARIFFS
        .iter()
        .filter_map(|(_, t)| Tariff::parse(t, "").ok().map(|t| t.id))
        .collect()
}

/// The shipped tariff `id` (`lipa-285-2013-05`, `lipa-285-recent`).
pub fn builtin_tariff(id: &str) -> Result<Tariff, CostError> {
    for (name, text) in TARIFFS {
        let t = Tariff::parse(text, name)?;
        if t.id == id {
            return Ok(t);
        }
    }
    Err(CostError::Input {
        field: "tariff".into(),
        message: format!(
            "no shipped tariff `{id}`; known: {}",
            builtin_tariff_ids().join(", ")
        ),
    })
}

/// The shipped price catalog `id` (`greendm-2012`, `current-2026`).
pub fn builtin_prices(id: &str) -> Result<PriceCatalog, CostError> {
    let mut known = Vec::new();
    for (name, text) in PRICES {
        let c = PriceCatalog::parse(text, name)?;
        if c.id == id {
            return Ok(c);
        }
        known.push(c.id);
    }
    Err(CostError::Input {
        field: "prices".into(),
        message: format!(
            "no shipped price catalog `{id}`; known: {}",
            known.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_files_parse_and_match_the_directory() {
        for (name, text) in TARIFFS {
            Tariff::parse(text, name).unwrap();
        }
        for (name, text) in PRICES {
            PriceCatalog::parse(text, name).unwrap();
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../catalog/cost");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| format!("catalog/cost/{}", e.file_name().to_string_lossy()))
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = TARIFFS
            .iter()
            .chain(PRICES.iter())
            .map(|(n, _)| n.to_string())
            .collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
        // ids match the file names: tariff-<id>.toml, prices-<id>.toml
        for (name, text) in TARIFFS {
            let id = Tariff::parse(text, name).unwrap().id;
            assert_eq!(name, format!("catalog/cost/tariff-{id}.toml"));
        }
        for (name, text) in PRICES {
            let id = PriceCatalog::parse(text, name).unwrap().id;
            assert_eq!(name, format!("catalog/cost/prices-{id}.toml"));
        }
    }

    #[test]
    fn unknown_builtin_ids_list_the_known_ones() {
        let e = builtin_tariff("nope").unwrap_err().to_string();
        assert!(e.contains("lipa-285-2013-05"), "{e}");
        let e = builtin_prices("nope").unwrap_err().to_string();
        assert!(e.contains("greendm-2012"), "{e}");
    }
}
