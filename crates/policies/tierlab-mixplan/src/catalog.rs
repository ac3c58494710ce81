//! The planning catalog (`catalog/plan/<id>.toml`): device types as a buyer compares them
//! (price, capacity, usable share, power, bandwidth, rated erase cycles), each naming the
//! tierlab device model that measures its per-class bandwidth.
//!
//! Every entry cites a source (`source`, a key of the file's `[sources]`); figures that
//! are tierlab's estimates rather than the source's are listed in `estimates`; a figure
//! no source gives (a price not found) is left out and listed in `unknown`, and planning
//! with that device is an error naming the key. Both directions are checked.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tierlab_config::{ConfigError, FieldError, Validate};

/// A planning catalog: one file, several device types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanCatalog {
    pub id: String,
    pub description: String,
    /// When the figures were current.
    pub date: String,
    pub devices: Vec<PlanDevice>,
    pub sources: BTreeMap<String, String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Ssd,
    Hdd,
}

/// One device type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanDevice {
    pub id: String,
    pub name: String,
    pub kind: Kind,
    /// Key of the catalog's `sources`.
    pub source: String,
    #[serde(default)]
    pub estimates: Vec<String>,
    #[serde(default)]
    pub unknown: Vec<String>,
    /// As sold, 10^9 bytes.
    pub capacity_gb: f64,
    #[serde(default)]
    pub price_usd_per_gb: Option<f64>,
    /// The share of the capacity the planner fills (the research: 70 % SSD, 50 % HDD).
    pub usable_fraction: f64,
    /// Internal data rate, MB/s (10^6 bytes).
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    /// The drive's own power, W.
    pub device_w: f64,
    /// What each drive adds to an array's power (enclosure, fans, supply losses), W.
    pub supplement_w: f64,
    /// Rated program/erase cycles per block (SSDs).
    #[serde(default)]
    pub erase_cycles: Option<f64>,
    /// The tierlab model that times it.
    pub model: ModelRef,
    /// For an SSD timed from its data sheet: the `catalog/ssd` model of its internals,
    /// which the simulation check builds (a data sheet has no flash to simulate) and
    /// which measures its bandwidth instead when asked (the aged-FTL sensitivity run).
    #[serde(default)]
    pub internals: Option<String>,
}

/// Which tierlab device model measures a device's bandwidth per class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelRef {
    /// An entry of `catalog/ssd` (the FlashSim-class model).
    Ssd(String),
    /// An entry of `catalog/hdd`.
    Hdd(String),
    /// A disk synthesised from data-sheet figures (`tierlab-hdd`'s `from_datasheet`), for
    /// drives the HDD catalog cannot time; its transfer rate is the entry's `read_mb_s`
    /// and its capacity the entry's.
    #[serde(rename = "hdd_datasheet")]
    HddDatasheet(HddFigures),
    /// Timed from data-sheet figures (`tierlab-ssd-datasheet`); bandwidths are the entry's
    /// `read_mb_s` / `write_mb_s`, active power its `device_w`.
    Datasheet(DatasheetFigures),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasheetFigures {
    pub read_latency_us: f64,
    pub write_latency_us: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    /// Sequential rates the model runs at where they differ from the entry's rated
    /// `read_mb_s` / `write_mb_s` (an aged drive measured slower than its data sheet),
    /// MB/s.
    #[serde(default)]
    pub sustained_read_mb_s: Option<f64>,
    #[serde(default)]
    pub sustained_write_mb_s: Option<f64>,
}

impl DatasheetFigures {
    /// The sequential read and write rates the model runs at, MB/s.
    pub fn sustained_mb_s(&self, d: &PlanDevice) -> (f64, f64) {
        (
            self.sustained_read_mb_s.unwrap_or(d.read_mb_s),
            self.sustained_write_mb_s.unwrap_or(d.write_mb_s),
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddFigures {
    pub rpm: f64,
    pub average_seek_ms: f64,
    pub cache_mib: f64,
}

/// Keys an entry may list in `estimates` or `unknown`.
const FIGURES: [&str; 11] = [
    "capacity_gb",
    "price_usd_per_gb",
    "usable_fraction",
    "read_mb_s",
    "write_mb_s",
    "device_w",
    "supplement_w",
    "erase_cycles",
    "model",
    "source",
    "name",
];

impl PlanDevice {
    /// The purchase price of one device, or the key to fill in.
    pub fn price_usd(&self) -> Result<f64, String> {
        self.price_usd_per_gb
            .map(|p| p * self.capacity_gb)
            .ok_or_else(|| format!("device `{}` has no price (`price_usd_per_gb` is listed in `unknown`): give it one, or plan without it", self.id))
    }

    /// The capacity the planner fills, GB.
    pub fn usable_gb(&self) -> f64 {
        self.capacity_gb * self.usable_fraction
    }

    pub fn power_w(&self) -> f64 {
        self.device_w + self.supplement_w
    }

    fn check(&self) -> Result<(), FieldError> {
        let positive = |key: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(FieldError::new(
                    key,
                    format!("expected a positive number, found {v}"),
                ))
            }
        };
        let non_negative = |key: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(FieldError::new(
                    key,
                    format!("expected a number >= 0, found {v}"),
                ))
            }
        };
        positive("capacity_gb", self.capacity_gb)?;
        positive("read_mb_s", self.read_mb_s)?;
        positive("write_mb_s", self.write_mb_s)?;
        non_negative("device_w", self.device_w)?;
        non_negative("supplement_w", self.supplement_w)?;
        if !(self.usable_fraction > 0.0 && self.usable_fraction <= 1.0) {
            return Err(FieldError::new(
                "usable_fraction",
                format!("expected a share in (0, 1], found {}", self.usable_fraction),
            ));
        }
        if let Some(p) = self.price_usd_per_gb {
            non_negative("price_usd_per_gb", p)?;
        }
        let listed = |key: &str| self.unknown.iter().any(|u| u == key);
        match (self.price_usd_per_gb.is_some(), listed("price_usd_per_gb")) {
            (false, false) => {
                return Err(FieldError::new(
                    "price_usd_per_gb",
                    "expected a price, or the key listed in `unknown`",
                ))
            }
            (true, true) => {
                return Err(FieldError::new(
                    "unknown",
                    "lists `price_usd_per_gb`, which has a value",
                ))
            }
            _ => {}
        }
        match (self.kind, self.erase_cycles) {
            (Kind::Ssd, None) if !listed("erase_cycles") => {
                return Err(FieldError::new("erase_cycles", "an SSD needs its rated erase cycles (the lifetime constraint), or the key listed in `unknown`"))
            }
            (Kind::Hdd, Some(_)) => return Err(FieldError::new("erase_cycles", "a disk has no erase cycles; remove the key")),
            (_, Some(c)) => positive("erase_cycles", c)?,
            _ => {}
        }
        for (list, keys) in [("estimates", &self.estimates), ("unknown", &self.unknown)] {
            if let Some(k) = keys.iter().find(|k| !FIGURES.contains(&k.as_str())) {
                return Err(FieldError::new(
                    list,
                    format!(
                        "`{k}` is not a figure of the entry; expected one of {}",
                        FIGURES.join(", ")
                    ),
                ));
            }
        }
        match (&self.model, self.kind) {
            (ModelRef::Ssd(_) | ModelRef::Datasheet(_), Kind::Hdd) => return Err(FieldError::new("model", "a disk needs a disk model: `{ hdd = \"<catalog/hdd id>\" }` or `{ hdd_datasheet = { ... } }`")),
            (ModelRef::Hdd(_) | ModelRef::HddDatasheet(_), Kind::Ssd) => return Err(FieldError::new("model", "an SSD needs an SSD model: `{ ssd = \"<catalog/ssd id>\" }` or `{ datasheet = { ... } }`")),
            _ => {}
        }
        if let ModelRef::HddDatasheet(h) = &self.model {
            for (k, v) in [
                ("rpm", h.rpm),
                ("average_seek_ms", h.average_seek_ms),
                ("cache_mib", h.cache_mib),
            ] {
                non_negative(k, v).map_err(|e| e.within("model.hdd_datasheet"))?;
            }
            positive("rpm", h.rpm).map_err(|e| e.within("model.hdd_datasheet"))?;
        }
        if let ModelRef::Datasheet(d) = &self.model {
            for (k, v) in [
                ("read_latency_us", d.read_latency_us),
                ("write_latency_us", d.write_latency_us),
                ("read_iops", d.read_iops),
                ("write_iops", d.write_iops),
            ] {
                positive(k, v).map_err(|e| e.within("model.datasheet"))?;
            }
            for (k, v) in [
                ("sustained_read_mb_s", d.sustained_read_mb_s),
                ("sustained_write_mb_s", d.sustained_write_mb_s),
            ] {
                if let Some(v) = v {
                    positive(k, v).map_err(|e| e.within("model.datasheet"))?;
                }
            }
        }
        if self.internals.is_some() && !matches!(self.model, ModelRef::Datasheet(_)) {
            return Err(FieldError::new(
                "internals",
                "only an SSD timed from its data sheet (`model = { datasheet = ... }`) names a separate internals model; remove the key",
            ));
        }
        Ok(())
    }
}

impl Validate for PlanCatalog {
    fn validate(&self) -> Result<(), FieldError> {
        if self.devices.is_empty() {
            return Err(FieldError::new("devices", "expected at least one device"));
        }
        for (i, d) in self.devices.iter().enumerate() {
            let at = format!("devices[{i}]");
            d.check().map_err(|e| e.within(&at))?;
            if !self.sources.contains_key(&d.source) {
                return Err(FieldError::new(
                    format!("{at}.source"),
                    format!("`{}` is not a key of [sources]", d.source),
                ));
            }
            if self.devices[..i].iter().any(|o| o.id == d.id) {
                return Err(FieldError::new(
                    format!("{at}.id"),
                    format!("`{}` appears twice", d.id),
                ));
            }
        }
        Ok(())
    }
}

/// The shipped catalogs, by id.
pub const BUILTIN: [(&str, &str); 2] = [
    (
        "hybridstore-2009",
        include_str!("../../../../catalog/plan/hybridstore-2009.toml"),
    ),
    ("recent", include_str!("../../../../catalog/plan/recent.toml")),
];

/// A shipped catalog by id, or a catalog file by path.
pub fn load(id_or_path: &str) -> Result<PlanCatalog, ConfigError> {
    if let Some((id, text)) = BUILTIN.iter().find(|(id, _)| *id == id_or_path) {
        return tierlab_config::parse_toml_validated(text, &format!("catalog/plan/{id}.toml"));
    }
    tierlab_config::load_toml_validated(std::path::Path::new(id_or_path))
}

/// The shipped catalog ids.
pub fn builtin_ids() -> Vec<&'static str> {
    BUILTIN.iter().map(|(id, _)| *id).collect()
}
