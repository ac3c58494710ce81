//! Device price catalogs: what each drive cost, its rated wear limits and power, with
//! the date the prices held and a source for every figure.
//!
//! Files: `catalog/cost/prices-*.toml` (see `catalog/cost/README.md`). A figure no
//! source gives is absent and listed in `unknown`; asking for it is an error naming the
//! file and key.

use crate::cost::DeviceCost;
use crate::error::CostError;
use crate::sources::{check_id, Citations};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tierlab_config::{FieldError, Validate};

/// A catalog of device prices from one date.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceCatalog {
    pub id: String,
    pub description: String,
    /// When the prices held (`2012`, `2026-11`).
    pub date: String,
    /// Yearly service (maintenance/administration) cost of the research's model.
    #[serde(default)]
    pub service_usd: Option<f64>,
    #[serde(default)]
    pub service_source: Option<String>,
    pub devices: Vec<DevicePrice>,
    #[serde(default)]
    pub unknown: Vec<String>,
    pub sources: BTreeMap<String, String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// File the catalog was read from, for errors about unknown figures.
    #[serde(skip)]
    pub file: String,
}

/// Device class; decides which wear limit applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Ssd,
    Hdd,
}

/// One drive model's price, limits and power.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DevicePrice {
    /// Lower-case id; the same as the device's `catalog/ssd` or `catalog/hdd` entry
    /// where there is one.
    pub id: String,
    pub kind: DeviceKind,
    pub model: String,
    /// Source of the figures, unless `field_sources` names another.
    pub source: String,
    #[serde(default)]
    pub field_sources: BTreeMap<String, String>,
    /// Capacity as sold (decimal bytes).
    pub capacity_bytes: u64,
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// SSD: rated bytes written (TBW × 10^12).
    #[serde(default)]
    pub rated_write_bytes: Option<u64>,
    /// HDD: rated spindle start/stop cycles.
    #[serde(default)]
    pub start_stop_cycles: Option<u64>,
    #[serde(default)]
    pub active_w: Option<f64>,
    #[serde(default)]
    pub idle_w: Option<f64>,
}

impl PriceCatalog {
    /// Read and check a price file.
    pub fn load(path: &Path) -> Result<PriceCatalog, CostError> {
        let mut c: PriceCatalog = tierlab_config::load_toml_validated(path)?;
        c.file = path.display().to_string();
        Ok(c)
    }

    /// Parse and check price `text`; `name` (a file name) is used in errors.
    pub fn parse(text: &str, name: &str) -> Result<PriceCatalog, CostError> {
        let mut c: PriceCatalog = tierlab_config::parse_toml_validated(text, name)?;
        c.file = name.to_string();
        Ok(c)
    }

    /// The entry `id`; the error lists the known ids.
    pub fn device(&self, id: &str) -> Result<&DevicePrice, CostError> {
        self.find(id).map(|(_, d)| d)
    }

    /// The entry `id` and its index in `devices`.
    fn find(&self, id: &str) -> Result<(usize, &DevicePrice), CostError> {
        self.devices
            .iter()
            .enumerate()
            .find(|(_, d)| d.id == id)
            .ok_or_else(|| {
                let known: Vec<_> = self.devices.iter().map(|d| d.id.as_str()).collect();
                CostError::input(
                    "device",
                    format!("no `{id}` in {}; known: {}", self.file, known.join(", ")),
                )
            })
    }

    /// The service cost, or an error if the catalog lists it as unknown.
    pub fn service_usd(&self) -> Result<f64, CostError> {
        self.service_usd
            .ok_or_else(|| self.unknown_err("service_usd", "the service cost"))
    }

    /// A [`DeviceCost`] for `capacity_used_bytes` of device `id`.
    pub fn device_cost(&self, id: &str, capacity_used_bytes: u64) -> Result<DeviceCost, CostError> {
        let (i, d) = self.find(id)?;
        let price_usd = d.price_usd.ok_or_else(|| {
            self.unknown_err(&format!("devices[{i}].price_usd"), "the purchase cost")
        })?;
        Ok(DeviceCost {
            name: d.id.clone(),
            price_usd,
            capacity_bytes: d.capacity_bytes,
            capacity_used_bytes,
        })
    }

    /// The rated limit of device `id`: TBW bytes for an SSD, start/stop cycles for an HDD.
    pub fn rated_limit(&self, id: &str) -> Result<u64, CostError> {
        let (i, d) = self.find(id)?;
        let (value, key) = match d.kind {
            DeviceKind::Ssd => (d.rated_write_bytes, "rated_write_bytes"),
            DeviceKind::Hdd => (d.start_stop_cycles, "start_stop_cycles"),
        };
        value.ok_or_else(|| self.unknown_err(&format!("devices[{i}].{key}"), "the wear"))
    }

    fn unknown_err(&self, field: &str, what: &str) -> CostError {
        CostError::Unknown {
            file: self.file.clone(),
            field: field.to_string(),
            what: what.to_string(),
        }
    }
}

impl Validate for PriceCatalog {
    fn validate(&self) -> Result<(), FieldError> {
        check_id("id", &self.id)?;
        let mut cite = Citations::new(&self.sources, &self.unknown)?;
        cite.figure("service_usd", self.service_usd)?;
        if self.service_usd.is_some() {
            let s = self.service_source.as_deref().ok_or_else(|| {
                FieldError::new("service_source", "a given service_usd must name its source")
            })?;
            cite.source("service_source", s)?;
        }
        if self.devices.is_empty() {
            return Err(FieldError::new("devices", "expected at least one device"));
        }
        let mut ids = BTreeSet::new();
        for (i, d) in self.devices.iter().enumerate() {
            let at = |k: &str| format!("devices[{i}].{k}");
            check_id(&at("id"), &d.id)?;
            if !ids.insert(d.id.as_str()) {
                return Err(FieldError::new(
                    at("id"),
                    format!("`{}` appears twice", d.id),
                ));
            }
            cite.source(&at("source"), &d.source)?;
            for (field, key) in &d.field_sources {
                if !FIGURES.contains(&field.as_str()) {
                    return Err(FieldError::new(
                        at("field_sources"),
                        format!("`{field}` is not one of {}", FIGURES.join(", ")),
                    ));
                }
                cite.source(&format!("{}.{field}", at("field_sources")), key)?;
            }
            if d.capacity_bytes == 0 {
                return Err(FieldError::new(
                    at("capacity_bytes"),
                    "expected a capacity > 0",
                ));
            }
            cite.figure(&at("price_usd"), d.price_usd)?;
            cite.figure(&at("active_w"), d.active_w)?;
            cite.figure(&at("idle_w"), d.idle_w)?;
            let (own, other, own_key, other_key) = match d.kind {
                DeviceKind::Ssd => (
                    d.rated_write_bytes,
                    d.start_stop_cycles,
                    "rated_write_bytes",
                    "start_stop_cycles",
                ),
                DeviceKind::Hdd => (
                    d.start_stop_cycles,
                    d.rated_write_bytes,
                    "start_stop_cycles",
                    "rated_write_bytes",
                ),
            };
            if other.is_some() {
                return Err(FieldError::new(
                    at(other_key),
                    format!("does not apply to this kind of device; use {own_key}"),
                ));
            }
            if own == Some(0) {
                return Err(FieldError::new(
                    at(own_key),
                    "expected a rated limit > 0, got 0",
                ));
            }
            cite.figure(&at(own_key), own.map(|v| v as f64))?;
        }
        cite.finish()
    }
}

/// The figures a device entry may give.
const FIGURES: [&str; 6] = [
    "price_usd",
    "rated_write_bytes",
    "start_stop_cycles",
    "active_w",
    "idle_w",
    "capacity_bytes",
];

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"id = "t"
description = "test"
date = "2012"
service_usd = 100.0
service_source = "a"
[[devices]]
id = "ssd"
kind = "ssd"
model = "S"
source = "a"
capacity_bytes = 300_000_000_000
price_usd = 529.0
rated_write_bytes = 36_500_000_000_000
active_w = 0.15
idle_w = 0.1
[[devices]]
id = "hdd"
kind = "hdd"
model = "H"
source = "a"
capacity_bytes = 2_000_000_000_000
price_usd = 200.0
start_stop_cycles = 300_000
active_w = 9.0
idle_w = 6.0
[sources]
a = "a test"
"#;

    #[test]
    fn device_cost_and_limits() {
        let c = PriceCatalog::parse(TEXT, "p.toml").unwrap();
        let d = c.device_cost("ssd", 8_000_000_000).unwrap();
        assert!((d.purchase_usd() - 529.0 * 8.0 / 300.0).abs() < 1e-9);
        assert_eq!(c.rated_limit("ssd").unwrap(), 36_500_000_000_000);
        assert_eq!(c.rated_limit("hdd").unwrap(), 300_000);
        assert_eq!(c.service_usd().unwrap(), 100.0);
    }

    #[test]
    fn negative_price_names_file_line_and_key() {
        let bad = TEXT.replacen("price_usd = 200.0", "price_usd = -200.0", 1);
        let e = PriceCatalog::parse(&bad, "p.toml").unwrap_err().to_string();
        assert!(
            e.contains("p.toml:22") && e.contains("devices[1].price_usd"),
            "{e}"
        );
    }

    #[test]
    fn zero_limit_is_rejected() {
        let bad = TEXT.replacen("start_stop_cycles = 300_000", "start_stop_cycles = 0", 1);
        let e = PriceCatalog::parse(&bad, "p.toml").unwrap_err().to_string();
        assert!(
            e.contains("devices[1].start_stop_cycles") && e.contains("> 0"),
            "{e}"
        );
    }

    #[test]
    fn limit_of_the_other_kind_is_rejected() {
        let bad = TEXT.replacen(
            "start_stop_cycles = 300_000",
            "start_stop_cycles = 300_000\nrated_write_bytes = 5",
            1,
        );
        let e = PriceCatalog::parse(&bad, "p.toml").unwrap_err().to_string();
        assert!(e.contains("devices[1].rated_write_bytes"), "{e}");
    }

    #[test]
    fn absent_figure_must_be_listed_unknown() {
        let absent = TEXT.replacen("idle_w = 6.0\n", "", 1);
        let e = PriceCatalog::parse(&absent, "p.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("devices[1].idle_w") && e.contains("missing"),
            "{e}"
        );
        let listed = format!("unknown = [\"devices[1].idle_w\"]\n{absent}");
        PriceCatalog::parse(&listed, "p.toml").unwrap();
        let stale = format!("unknown = [\"devices[1].idle_w\"]\n{TEXT}");
        let e = PriceCatalog::parse(&stale, "p.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("devices[1].idle_w") && e.contains("unknown"),
            "{e}"
        );
    }

    #[test]
    fn unknown_price_cannot_be_priced() {
        let absent = TEXT.replacen("price_usd = 529.0\n", "", 1);
        let listed = format!("unknown = [\"devices[0].price_usd\"]\n{absent}");
        let c = PriceCatalog::parse(&listed, "p.toml").unwrap();
        let e = c.device_cost("ssd", 1).unwrap_err().to_string();
        assert!(
            e.contains("p.toml") && e.contains("devices[0].price_usd"),
            "{e}"
        );
    }

    #[test]
    fn misspelt_key_is_an_error() {
        let bad = TEXT.replacen("idle_w = 0.1", "idel_w = 0.1", 1);
        let e = PriceCatalog::parse(&bad, "p.toml").unwrap_err().to_string();
        assert!(e.contains("p.toml:15") && e.contains("idel_w"), "{e}");
    }
}
