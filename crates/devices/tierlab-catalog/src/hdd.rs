//! One hard-disk catalog entry (`catalog/hdd/<id>.toml`) and its checks.
//!
//! Every figure cites a source: `[sources]` names each document once, and each section
//! (and the top-level identity fields) says which of them it comes from with a `source`
//! key; `field_sources` overrides that for single top-level fields. A figure no source
//! gives is left out and its key listed in `unknown` — the checks insist on both
//! directions, so an absent value is always a deliberate "unknown", never an omission.

pub use tierlab_hdd::AverageSeek;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use tierlab_config::{FieldError, Validate};
use tierlab_power::PowerSpec;

/// A hard-disk drive model as published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddEntry {
    /// Lower-case id, also the file's name (`<id>.toml`).
    pub id: String,
    pub vendor: String,
    /// Product name and, where known, model numbers.
    pub model: String,
    /// Source (key of `sources`) of the top-level figures.
    pub source: String,
    /// Sources of single top-level figures, where they differ from `source`.
    #[serde(default)]
    pub field_sources: BTreeMap<String, String>,
    /// Formatted capacity in bytes (decimal: 1 GB = 10^9 bytes, as vendors count).
    pub capacity_bytes: u64,
    /// Nominal rotation speed (the fastest level of a multi-speed drive).
    pub rpm: u32,
    /// Logical sector size.
    pub sector_bytes: u64,
    /// On-board buffer (binary: "8 MB" = 8 MiB).
    #[serde(default)]
    pub cache_bytes: Option<u64>,
    /// Rated start/stop (spindle) cycles.
    #[serde(default)]
    pub start_stop_cycles: Option<u64>,
    /// Rated head load/unload cycles.
    #[serde(default)]
    pub load_unload_cycles: Option<u64>,
    /// Rated workload: host bytes read plus written per year (TB = 10^12 bytes per 8,760
    /// power-on hours), as current data sheets give it.
    #[serde(default)]
    pub workload_tb_per_year: Option<f64>,
    /// Limited warranty, years: how long the rated workload (and the cycle limits) are
    /// meant to last, so the drive's rated transfer is `workload_tb_per_year` × this.
    #[serde(default)]
    pub warranty_years: Option<f64>,
    /// Top-level figures that are estimates rather than a source's own (their source
    /// says how each follows).
    #[serde(default)]
    pub estimates: Vec<String>,
    pub seek: SeekSpec,
    pub transfer: TransferSpec,
    /// Where the source says how the drive is timed beyond its datasheet figures (one
    /// transfer rate, no command overhead, ...); absent: the HDD model's synthesis rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingSpec>,
    /// How the drive numbers its blocks across tracks and surfaces, where a source has
    /// measured it; absent: the HDD model's conventional synthesized layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutSpec>,
    #[serde(default)]
    pub price: Option<Price>,
    /// Power profiles, one per source where sources disagree; the first is the default.
    #[serde(default)]
    pub power_profiles: Vec<PowerProfile>,
    /// Keys of figures no source gives (see the module documentation).
    #[serde(default)]
    pub unknown: Vec<String>,
    /// Every document cited, by a short key.
    pub sources: BTreeMap<String, String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// Seek times in milliseconds (typical, without command overhead, as datasheets give them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekSpec {
    /// Source key; required when any figure is given.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub single_track_read_ms: Option<f64>,
    #[serde(default)]
    pub single_track_write_ms: Option<f64>,
    #[serde(default)]
    pub average_read_ms: Option<f64>,
    #[serde(default)]
    pub average_write_ms: Option<f64>,
    #[serde(default)]
    pub full_stroke_read_ms: Option<f64>,
    #[serde(default)]
    pub full_stroke_write_ms: Option<f64>,
}

/// Sustained media transfer rate, MB/s (10^6 bytes per second).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferSpec {
    #[serde(default)]
    pub source: Option<String>,
    /// Outer zone (fastest).
    #[serde(default)]
    pub sustained_max_mb_s: Option<f64>,
    /// Inner zone (slowest).
    #[serde(default)]
    pub sustained_min_mb_s: Option<f64>,
}

/// How tierlab's HDD model builds the drive from its figures, where a source says more
/// than a datasheet does. Every key but `source` is optional, its default the model's
/// synthesis rule (`tierlab_hdd::Datasheet`): 16 zones with the innermost at 55 % of the
/// outer rate, 0.1 ms command overhead, zero-latency reads, the average seek taken at a
/// third of the stroke.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingSpec {
    /// Source key of these choices.
    pub source: String,
    #[serde(default)]
    pub inner_zone_rate: InnerZoneRate,
    #[serde(default)]
    pub average_seek: AverageSeek,
    /// Firmware overhead of every command, ms.
    #[serde(default)]
    pub command_overhead_ms: Option<f64>,
    /// Whether reads start with whichever of their sectors passes under the head first.
    #[serde(default)]
    pub zero_latency_read: Option<bool>,
    /// How each choice follows from the source, where it is a reading rather than a figure.
    #[serde(default)]
    pub assumptions: Vec<String>,
}

/// A measured block layout: surface serpentine numbering (bands of `band_cylinders`
/// cylinders filled one surface at a time, alternating direction) with each surface's
/// outermost track size; inner zones keep each surface's share. Drives of one model can
/// differ (heads of lower frequency response get fewer sectors), so `variants` lists the
/// other layouts measured on the model, chosen by name (`--hdd-variant`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutSpec {
    pub source: String,
    pub mapping: LayoutMapping,
    pub band_cylinders: u32,
    /// Sectors on the outermost track of each surface (surface 0 first).
    pub surface_outer_sectors: Vec<u32>,
    #[serde(default)]
    pub variants: Vec<LayoutVariant>,
    #[serde(default)]
    pub assumptions: Vec<String>,
}

/// The block numbering schemes a catalog layout can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayoutMapping {
    SurfaceSerpentine,
}

/// Another drive of the same model, with its own track sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutVariant {
    pub name: String,
    pub surface_outer_sectors: Vec<u32>,
}

impl LayoutSpec {
    /// Each surface's outermost track size for `variant` (the main layout for `None`).
    pub fn outer_sectors(&self, variant: Option<&str>) -> Option<&[u32]> {
        match variant {
            None => Some(&self.surface_outer_sectors),
            Some(name) => self.variants.iter().find(|v| v.name == name).map(|v| v.surface_outer_sectors.as_slice()),
        }
    }
}

/// The media rate of the innermost zone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InnerZoneRate {
    /// 55 % of the outer zone's (`transfer.sustained_max_mb_s`).
    #[default]
    Synthesised,
    /// `transfer.sustained_min_mb_s`, which must be given; equal to the maximum, the drive
    /// has one rate across the surface.
    SustainedMin,
}

/// A purchase price at a point in time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub usd: f64,
    pub year: u32,
    pub source: String,
}

/// One source's view of the drive's power behaviour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerProfile {
    /// Short name, unique within the entry (e.g. "hibernator", "datasheet").
    pub name: String,
    pub source: String,
    /// Modelling choices made where the source is silent (e.g. "seek power taken equal
    /// to active power"); empty when every figure is the source's own.
    #[serde(default)]
    pub assumptions: Vec<String>,
    pub spec: PowerSpec,
}

impl HddEntry {
    /// The profile named `name`.
    pub fn power_profile(&self, name: &str) -> Option<&PowerProfile> {
        self.power_profiles.iter().find(|p| p.name == name)
    }

    /// Whether the top-level figure `key` is an estimate.
    pub fn is_estimate(&self, key: &str) -> bool {
        self.estimates.iter().any(|k| k == key)
    }

    /// Bytes the drive is rated to transfer (read plus written) in its life: the rated
    /// workload over the warranty, where both are known.
    pub fn rated_transfer_bytes(&self) -> Option<f64> {
        Some(self.workload_tb_per_year? * 1e12 * self.warranty_years?)
    }

    /// The first (default) power profile, if any is known.
    pub fn default_power(&self) -> Option<&PowerProfile> {
        self.power_profiles.first()
    }

    /// Keys of optional figures this entry leaves out.
    fn absent_keys(&self) -> BTreeSet<String> {
        let mut absent = BTreeSet::new();
        let mut note = |present: bool, key: String| {
            if !present {
                absent.insert(key);
            }
        };
        note(self.cache_bytes.is_some(), "cache_bytes".into());
        note(self.start_stop_cycles.is_some(), "start_stop_cycles".into());
        note(
            self.load_unload_cycles.is_some(),
            "load_unload_cycles".into(),
        );
        note(self.workload_tb_per_year.is_some(), "workload_tb_per_year".into());
        note(self.warranty_years.is_some(), "warranty_years".into());
        note(self.price.is_some(), "price".into());
        note(!self.power_profiles.is_empty(), "power_profiles".into());
        for (key, value) in self.seek.values().into_iter().chain(self.transfer.values()) {
            note(value.is_some(), key.to_string());
        }
        for (i, p) in self.power_profiles.iter().enumerate() {
            note(
                !p.spec.standby.is_empty(),
                format!("power_profiles[{i}].spec.standby"),
            );
            for (j, level) in p.spec.standby.iter().enumerate() {
                note(
                    level.enter.is_some(),
                    format!("power_profiles[{i}].spec.standby[{j}].enter"),
                );
                note(
                    level.leave.is_some(),
                    format!("power_profiles[{i}].spec.standby[{j}].leave"),
                );
            }
        }
        absent
    }

    fn check_source(&self, key: &str, source: &str) -> Result<(), FieldError> {
        if self.sources.contains_key(source) {
            Ok(())
        } else {
            let known: Vec<&str> = self.sources.keys().map(String::as_str).collect();
            Err(FieldError::new(
                key,
                format!(
                    "source `{source}` is not in [sources] (known: {})",
                    known.join(", ")
                ),
            ))
        }
    }
}

impl SeekSpec {
    fn values(&self) -> Vec<(&'static str, Option<f64>)> {
        vec![
            ("seek.single_track_read_ms", self.single_track_read_ms),
            ("seek.single_track_write_ms", self.single_track_write_ms),
            ("seek.average_read_ms", self.average_read_ms),
            ("seek.average_write_ms", self.average_write_ms),
            ("seek.full_stroke_read_ms", self.full_stroke_read_ms),
            ("seek.full_stroke_write_ms", self.full_stroke_write_ms),
        ]
    }
}

impl TransferSpec {
    fn values(&self) -> Vec<(&'static str, Option<f64>)> {
        vec![
            ("transfer.sustained_max_mb_s", self.sustained_max_mb_s),
            ("transfer.sustained_min_mb_s", self.sustained_min_mb_s),
        ]
    }
}

/// Top-level fields a `field_sources` entry may name.
const SOURCED_FIELDS: [&str; 8] = [
    "capacity_bytes",
    "rpm",
    "sector_bytes",
    "cache_bytes",
    "start_stop_cycles",
    "load_unload_cycles",
    "workload_tb_per_year",
    "warranty_years",
];

/// Top-level figures an entry may mark as estimates.
const ESTIMABLE_FIELDS: [&str; 4] = ["start_stop_cycles", "load_unload_cycles", "workload_tb_per_year", "warranty_years"];

fn check_positive(key: &str, v: f64) -> Result<(), FieldError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(FieldError::new(
            key,
            format!("expected a finite value > 0, found {v}"),
        ))
    }
}

fn check_nonzero(key: &str, v: u64) -> Result<(), FieldError> {
    if v > 0 {
        Ok(())
    } else {
        Err(FieldError::new(key, "expected a value > 0"))
    }
}

impl Validate for HddEntry {
    fn validate(&self) -> Result<(), FieldError> {
        let id_ok = !self.id.is_empty()
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !id_ok {
            return Err(FieldError::new(
                "id",
                "expected a non-empty id of lower-case letters, digits and '-'",
            ));
        }
        if self.sources.is_empty() {
            return Err(FieldError::new("sources", "expected at least one source"));
        }
        for (key, text) in &self.sources {
            if text.trim().is_empty() {
                return Err(FieldError::new(
                    format!("sources.{key}"),
                    "expected a citation, found an empty string",
                ));
            }
        }
        self.check_source("source", &self.source)?;
        for (field, source) in &self.field_sources {
            if !SOURCED_FIELDS.contains(&field.as_str()) {
                return Err(FieldError::new(
                    format!("field_sources.{field}"),
                    format!("expected one of: {}", SOURCED_FIELDS.join(", ")),
                ));
            }
            self.check_source(&format!("field_sources.{field}"), source)?;
        }
        check_nonzero("capacity_bytes", self.capacity_bytes)?;
        check_nonzero("rpm", u64::from(self.rpm))?;
        if !self.sector_bytes.is_power_of_two() || self.sector_bytes < 512 {
            return Err(FieldError::new(
                "sector_bytes",
                "expected a power of two >= 512",
            ));
        }
        for (key, v) in [
            ("cache_bytes", self.cache_bytes),
            ("start_stop_cycles", self.start_stop_cycles),
            ("load_unload_cycles", self.load_unload_cycles),
        ] {
            if let Some(v) = v {
                check_nonzero(key, v)?;
            }
        }
        for (key, v) in [("workload_tb_per_year", self.workload_tb_per_year), ("warranty_years", self.warranty_years)] {
            if let Some(v) = v {
                check_positive(key, v)?;
            }
        }
        for (i, key) in self.estimates.iter().enumerate() {
            let at = format!("estimates[{i}]");
            if !ESTIMABLE_FIELDS.contains(&key.as_str()) {
                return Err(FieldError::new(at, format!("expected one of: {}", ESTIMABLE_FIELDS.join(", "))));
            }
            if self.absent_keys().contains(key) {
                return Err(FieldError::new(at, format!("`{key}` is marked as an estimate but is not given")));
            }
            if self.estimates[..i].contains(key) {
                return Err(FieldError::new(at, format!("`{key}` is listed twice")));
            }
        }
        let sections = [
            ("seek", self.seek.source.as_deref(), self.seek.values()),
            (
                "transfer",
                self.transfer.source.as_deref(),
                self.transfer.values(),
            ),
        ];
        for (section, source, values) in sections {
            for (key, v) in &values {
                if let Some(v) = v {
                    check_positive(key, *v)?;
                }
            }
            match (source, values.iter().any(|(_, v)| v.is_some())) {
                (Some(s), _) => self.check_source(&format!("{section}.source"), s)?,
                (None, true) => {
                    return Err(FieldError::new(
                        format!("{section}.source"),
                        "expected the source of the figures given",
                    ))
                }
                (None, false) => {}
            }
        }
        if let (Some(min), Some(max)) = (
            self.transfer.sustained_min_mb_s,
            self.transfer.sustained_max_mb_s,
        ) {
            if min > max {
                return Err(FieldError::new(
                    "transfer.sustained_min_mb_s",
                    format!("expected at most sustained_max_mb_s ({max}), found {min}"),
                ));
            }
        }
        if let Some(t) = &self.timing {
            self.check_source("timing.source", &t.source)?;
            if t.inner_zone_rate == InnerZoneRate::SustainedMin
                && (self.transfer.sustained_min_mb_s.is_none() || self.transfer.sustained_max_mb_s.is_none())
            {
                return Err(FieldError::new(
                    "timing.inner_zone_rate",
                    "`sustained_min` needs both transfer.sustained_min_mb_s and transfer.sustained_max_mb_s",
                ));
            }
            if let Some(ms) = t.command_overhead_ms {
                if !(ms.is_finite() && (0.0..=1_000.0).contains(&ms)) {
                    return Err(FieldError::new(
                        "timing.command_overhead_ms",
                        format!("expected milliseconds between 0 and 1000, found {ms}"),
                    ));
                }
            }
        }
        if let Some(l) = &self.layout {
            self.check_source("layout.source", &l.source)?;
            if l.band_cylinders == 0 {
                return Err(FieldError::new("layout.band_cylinders", "expected a number of cylinders > 0, found 0"));
            }
            let sizes = std::iter::once(("layout.surface_outer_sectors".to_string(), &l.surface_outer_sectors))
                .chain(l.variants.iter().enumerate().map(|(i, v)| (format!("layout.variants[{i}].surface_outer_sectors"), &v.surface_outer_sectors)));
            for (key, sectors) in sizes {
                if sectors.len() != l.surface_outer_sectors.len() || sectors.is_empty() || sectors.len() > 64 {
                    return Err(FieldError::new(key, format!("expected one size per surface, {} as in layout.surface_outer_sectors (1 to 64)", l.surface_outer_sectors.len())));
                }
                if let Some(k) = sectors.iter().position(|&n| n == 0 || n > 1_000_000) {
                    return Err(FieldError::new(format!("{key}[{k}]"), format!("expected 1 to 1000000 sectors, found {}", sectors[k])));
                }
            }
            for (i, v) in l.variants.iter().enumerate() {
                if v.name.trim().is_empty() || l.variants[..i].iter().any(|w| w.name == v.name) {
                    return Err(FieldError::new(format!("layout.variants[{i}].name"), "expected a non-empty name used once"));
                }
            }
        }
        if let Some(p) = &self.price {
            check_positive("price.usd", p.usd)?;
            if !(1950..=2100).contains(&p.year) {
                return Err(FieldError::new(
                    "price.year",
                    format!("expected a year between 1950 and 2100, found {}", p.year),
                ));
            }
            self.check_source("price.source", &p.source)?;
        }
        for (i, p) in self.power_profiles.iter().enumerate() {
            let at = format!("power_profiles[{i}]");
            if p.name.trim().is_empty() {
                return Err(FieldError::new(
                    format!("{at}.name"),
                    "expected a non-empty name",
                ));
            }
            if self.power_profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(FieldError::new(
                    format!("{at}.name"),
                    format!("expected a unique name, `{}` is used twice", p.name),
                ));
            }
            self.check_source(&format!("{at}.source"), &p.source)?;
            p.spec
                .validate()
                .map_err(|e| e.within(&format!("{at}.spec")))?;
            let top = p
                .spec
                .speed_levels(self.rpm)
                .iter()
                .map(|l| l.rpm)
                .max()
                .unwrap_or(0);
            if top != self.rpm {
                return Err(FieldError::new(
                    format!("{at}.spec.speeds"),
                    format!(
                        "expected the fastest speed to be the drive's rpm ({}), found {top}",
                        self.rpm
                    ),
                ));
            }
        }
        let absent = self.absent_keys();
        let mut listed = BTreeSet::new();
        for (i, key) in self.unknown.iter().enumerate() {
            if !absent.contains(key) {
                return Err(FieldError::new(
                    format!("unknown[{i}]"),
                    format!(
                        "`{key}` is listed as unknown but is given (or is not an optional figure)"
                    ),
                ));
            }
            if !listed.insert(key.as_str()) {
                return Err(FieldError::new(
                    format!("unknown[{i}]"),
                    format!("`{key}` is listed twice"),
                ));
            }
        }
        if let Some(missing) = absent.iter().find(|k| !listed.contains(k.as_str())) {
            return Err(FieldError::new(
                "unknown",
                format!(
                    "`{missing}` is absent: give it with its source, or list it here as unknown"
                ),
            ));
        }
        Ok(())
    }
}
