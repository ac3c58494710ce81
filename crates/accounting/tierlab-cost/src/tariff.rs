//! Electricity tariffs: energy charges by time-of-use period and demand (power)
//! charges per kW by tier, as the GreenDM cost model prices them.
//!
//! The research prices a run's energy as if it were spread over the day in fixed
//! shares — 3/8 off-peak, 1/4 peak, 3/8 intermediate — so the energy charge is
//! `kWh × Σ share_p × rate_p`. Demand charges are marginal tiers: the part of the
//! demand (kW) that falls inside a tier is charged at that tier's rate.
//!
//! Files: `catalog/cost/tariff-*.toml` (see `catalog/cost/README.md`).

use crate::error::{non_negative, CostError};
use crate::sources::{check_id, Citations};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tierlab_config::{FieldError, Validate};

/// The research's split of a run's energy over the tariff periods.
pub const GREENDM_SPLIT: [(&str, f64); 3] =
    [("off_peak", 0.375), ("peak", 0.25), ("intermediate", 0.375)];

/// One tariff as published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tariff {
    /// Lower-case id, also the file's name (`tariff-<id>.toml`).
    pub id: String,
    pub utility: String,
    /// Rate schedule / service classification.
    pub schedule: String,
    /// When these rates held (`2013-05`).
    pub effective: String,
    /// Source of the period shares.
    pub source: String,
    pub energy_periods: Vec<EnergyPeriod>,
    pub demand_tiers: Vec<DemandTier>,
    /// The largest demand these rates apply to, kW, where the schedule prices larger
    /// customers differently; pricing a larger demand is an error naming this field.
    #[serde(default)]
    pub max_demand_kw: Option<f64>,
    #[serde(default)]
    pub unknown: Vec<String>,
    pub sources: BTreeMap<String, String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// File the tariff was read from, for errors about unknown figures.
    #[serde(skip)]
    pub file: String,
}

/// One time-of-use period.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyPeriod {
    pub name: String,
    /// Share of the run's energy priced in this period (the shares sum to 1).
    pub share: f64,
    /// Energy charge, $/kWh; absent (and listed in `unknown`) when no source gives it.
    #[serde(default)]
    pub usd_per_kwh: Option<f64>,
    /// Source of `usd_per_kwh`; required when it is given.
    #[serde(default)]
    pub source: Option<String>,
}

/// One demand-charge tier: the demand between the previous tier's bound and
/// `up_to_kw` (open-ended for the last tier) is charged `usd_per_kw`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemandTier {
    #[serde(default)]
    pub up_to_kw: Option<f64>,
    #[serde(default)]
    pub usd_per_kw: Option<f64>,
    #[serde(default)]
    pub source: Option<String>,
}

impl Tariff {
    /// Read and check a tariff file.
    pub fn load(path: &Path) -> Result<Tariff, CostError> {
        let mut t: Tariff = tierlab_config::load_toml_validated(path)?;
        t.file = path.display().to_string();
        Ok(t)
    }

    /// Parse and check tariff `text`; `name` (a file name) is used in errors.
    pub fn parse(text: &str, name: &str) -> Result<Tariff, CostError> {
        let mut t: Tariff = tierlab_config::parse_toml_validated(text, name)?;
        t.file = name.to_string();
        Ok(t)
    }

    /// Σ share × rate, $/kWh; an error names the first period whose rate is unknown.
    pub fn blended_usd_per_kwh(&self) -> Result<f64, CostError> {
        let mut sum = 0.0;
        for (i, p) in self.energy_periods.iter().enumerate() {
            let rate = p.usd_per_kwh.ok_or_else(|| CostError::Unknown {
                file: self.file.clone(),
                field: format!("energy_periods[{i}].usd_per_kwh"),
                what: "the energy charge".into(),
            })?;
            sum += p.share * rate;
        }
        Ok(sum)
    }

    /// Energy charge of `kwh` split over the periods by their shares.
    pub fn energy_usd(&self, kwh: f64) -> Result<f64, CostError> {
        Ok(non_negative(kwh, "energy_kwh")? * self.blended_usd_per_kwh()?)
    }

    /// Demand charge of `kw`, tier by tier.
    pub fn demand_usd(&self, kw: f64) -> Result<f64, CostError> {
        non_negative(kw, "demand_kw")?;
        if let Some(max) = self.max_demand_kw {
            if kw > max {
                return Err(CostError::input(
                    "max_demand_kw",
                    format!(
                        "tariff `{}` ({}) holds for a demand up to {max} kW, found {kw} kW",
                        self.id, self.file
                    ),
                ));
            }
        }
        let mut lower = 0.0;
        let mut sum = 0.0;
        for (i, tier) in self.demand_tiers.iter().enumerate() {
            let upper = tier.up_to_kw.unwrap_or(f64::INFINITY);
            let portion = (kw.min(upper) - lower).max(0.0);
            if portion > 0.0 {
                let rate = tier.usd_per_kw.ok_or_else(|| CostError::Unknown {
                    file: self.file.clone(),
                    field: format!("demand_tiers[{i}].usd_per_kw"),
                    what: "the demand charge".into(),
                })?;
                sum += portion * rate;
            }
            lower = upper;
        }
        Ok(sum)
    }
}

impl Validate for Tariff {
    fn validate(&self) -> Result<(), FieldError> {
        check_id("id", &self.id)?;
        if let Some(m) = self.max_demand_kw {
            if !(m.is_finite() && m > 0.0) {
                return Err(FieldError::new(
                    "max_demand_kw",
                    format!("expected a demand > 0 kW, got {m}"),
                ));
            }
        }
        let mut cite = Citations::new(&self.sources, &self.unknown)?;
        cite.source("source", &self.source)?;
        if self.energy_periods.is_empty() {
            return Err(FieldError::new(
                "energy_periods",
                "expected at least one period",
            ));
        }
        let mut names = BTreeSet::new();
        let mut total = 0.0;
        for (i, p) in self.energy_periods.iter().enumerate() {
            let at = |k: &str| format!("energy_periods[{i}].{k}");
            if !names.insert(p.name.as_str()) {
                return Err(FieldError::new(
                    at("name"),
                    format!("`{}` appears twice", p.name),
                ));
            }
            if !(p.share.is_finite() && p.share > 0.0 && p.share <= 1.0) {
                return Err(FieldError::new(
                    at("share"),
                    format!("expected a share in (0, 1], got {}", p.share),
                ));
            }
            total += p.share;
            cite.figure(&at("usd_per_kwh"), p.usd_per_kwh)?;
            cited(
                &cite,
                &at("source"),
                p.usd_per_kwh.is_some(),
                p.source.as_deref(),
            )?;
        }
        if (total - 1.0).abs() > 1e-9 {
            return Err(FieldError::new(
                "energy_periods",
                format!("the shares must sum to 1, they sum to {total}"),
            ));
        }
        if self.demand_tiers.is_empty() {
            return Err(FieldError::new(
                "demand_tiers",
                "expected at least one tier",
            ));
        }
        let last = self.demand_tiers.len() - 1;
        let mut lower = 0.0;
        for (i, t) in self.demand_tiers.iter().enumerate() {
            let at = |k: &str| format!("demand_tiers[{i}].{k}");
            match (t.up_to_kw, i == last) {
                (Some(_), true) => {
                    return Err(FieldError::new(
                        at("up_to_kw"),
                        "the last tier must be open-ended (no up_to_kw)",
                    ))
                }
                (None, false) => {
                    return Err(FieldError::new(
                        at("up_to_kw"),
                        "only the last tier may omit it",
                    ))
                }
                (Some(up), false) if !(up.is_finite() && up > lower) => {
                    return Err(FieldError::new(
                        at("up_to_kw"),
                        format!("expected a bound above the previous one ({lower} kW), got {up}"),
                    ))
                }
                (Some(up), false) => lower = up,
                (None, true) => {}
            }
            cite.figure(&at("usd_per_kw"), t.usd_per_kw)?;
            cited(
                &cite,
                &at("source"),
                t.usd_per_kw.is_some(),
                t.source.as_deref(),
            )?;
        }
        cite.finish()
    }
}

/// A given figure needs a known source; an unknown one needs none.
fn cited(
    cite: &Citations<'_>,
    field: &str,
    given: bool,
    source: Option<&str>,
) -> Result<(), FieldError> {
    match (given, source) {
        (true, Some(s)) => cite.source(field, s),
        (true, None) => Err(FieldError::new(
            field,
            "a given figure must name its source",
        )),
        (false, _) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
id = "test"
utility = "Test Power"
schedule = "T"
effective = "2013-05"
source = "a"
[[energy_periods]]
name = "off_peak"
share = 0.375
usd_per_kwh = 0.08
source = "a"
[[energy_periods]]
name = "peak"
share = 0.25
usd_per_kwh = 0.20
source = "a"
[[energy_periods]]
name = "intermediate"
share = 0.375
usd_per_kwh = 0.12
source = "a"
[[demand_tiers]]
up_to_kw = 1.0
usd_per_kw = 10.0
source = "a"
[[demand_tiers]]
usd_per_kw = 20.0
source = "a"
[sources]
a = "a test"
"#;

    #[test]
    fn energy_is_split_three_eighths_quarter_three_eighths() {
        let t = Tariff::parse(TEXT, "t.toml").unwrap();
        // 0.375 × 0.08 + 0.25 × 0.20 + 0.375 × 0.12 = 0.125 $/kWh
        assert!((t.blended_usd_per_kwh().unwrap() - 0.125).abs() < 1e-12);
        assert!((t.energy_usd(8.0).unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn demand_is_charged_tier_by_tier() {
        let t = Tariff::parse(TEXT, "t.toml").unwrap();
        assert!((t.demand_usd(0.1).unwrap() - 1.0).abs() < 1e-12);
        assert!((t.demand_usd(1.0).unwrap() - 10.0).abs() < 1e-12);
        assert!((t.demand_usd(2.5).unwrap() - 40.0).abs() < 1e-12);
        assert_eq!(t.demand_usd(0.0).unwrap(), 0.0);
        assert!(t
            .demand_usd(-1.0)
            .unwrap_err()
            .to_string()
            .contains("demand_kw"));
    }

    #[test]
    fn shares_must_sum_to_one() {
        let bad = TEXT.replacen("share = 0.25", "share = 0.3", 1);
        let e = Tariff::parse(&bad, "t.toml").unwrap_err().to_string();
        assert!(e.contains("energy_periods") && e.contains("sum"), "{e}");
    }

    #[test]
    fn negative_rate_names_file_line_and_key() {
        let bad = TEXT.replacen("usd_per_kwh = 0.20", "usd_per_kwh = -0.20", 1);
        let e = Tariff::parse(&bad, "t.toml").unwrap_err().to_string();
        assert!(
            e.contains("t.toml:15") && e.contains("energy_periods[1].usd_per_kwh"),
            "{e}"
        );
    }

    #[test]
    fn absent_rate_must_be_listed_unknown_and_then_cannot_be_priced() {
        let absent = TEXT.replacen("usd_per_kwh = 0.20\nsource = \"a\"\n", "", 1);
        let e = Tariff::parse(&absent, "t.toml").unwrap_err().to_string();
        assert!(
            e.contains("energy_periods[1].usd_per_kwh") && e.contains("missing"),
            "{e}"
        );
        let listed = format!("unknown = [\"energy_periods[1].usd_per_kwh\"]\n{absent}");
        let t = Tariff::parse(&listed, "t.toml").unwrap();
        let e = t.energy_usd(1.0).unwrap_err().to_string();
        assert!(
            e.contains("t.toml") && e.contains("energy_periods[1].usd_per_kwh"),
            "{e}"
        );
    }

    #[test]
    fn tiers_must_rise_and_end_open() {
        let bad = TEXT.replacen("up_to_kw = 1.0", "up_to_kw = 0.0", 1);
        assert!(Tariff::parse(&bad, "t.toml")
            .unwrap_err()
            .to_string()
            .contains("up_to_kw"));
        let closed = TEXT.replacen(
            "[[demand_tiers]]\nusd_per_kw = 20.0",
            "[[demand_tiers]]\nup_to_kw = 5.0\nusd_per_kw = 20.0",
            1,
        );
        let e = Tariff::parse(&closed, "t.toml").unwrap_err().to_string();
        assert!(e.contains("demand_tiers[1].up_to_kw"), "{e}");
    }

    #[test]
    fn unknown_source_key_is_rejected() {
        let bad = TEXT.replacen(
            "source = \"a\"\n[[energy_periods]]",
            "source = \"b\"\n[[energy_periods]]",
            1,
        );
        let e = Tariff::parse(&bad, "t.toml").unwrap_err().to_string();
        assert!(e.contains("source `b`"), "{e}");
    }
}
