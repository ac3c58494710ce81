//! Endurance in "eu": parts per million of a device's rated life used by a run.
//!
//! The GreenDM research counts wear against the vendor's rated limits:
//! - SSD: bytes written plus bytes read times a *read-effect ratio* (reads disturb
//!   flash cells a little; the research reports the ratios 1/10 and 1/100 side by
//!   side), against the rated write limit (TBW);
//! - HDD: spindle start/stop cycles against the rated cycle limit.
//!
//! Where the SSD internals model supplies erase counts, a second, physical measure is
//! offered: mean block erases against the P/E-cycle limit, with the years the drive
//! would last if the run were repeated back to back.

use crate::error::{non_negative, positive, CostError};
use serde::{Deserialize, Serialize};

/// Parts per million: one eu is a millionth of the rated life.
pub const EU_PER_LIFE: f64 = 1e6;
/// The research's two read-effect ratios, reported side by side.
pub const READ_EFFECT_RATIOS: [f64; 2] = [0.1, 0.01];
pub use tierlab_types::SECONDS_PER_YEAR;

/// A 365-day year, s: the HybridStore research's year (its five years of power, $114.7,
/// and its Table 5.5 lifetimes both count 8,760 hours a year).
pub const SECONDS_PER_365_DAY_YEAR: f64 = 8760.0 * 3600.0;

/// Years a flash device of `blocks` erase blocks rated for `cycles` program/erase cycles
/// lasts at `erases_per_s` block erases a second with wear spread perfectly: blocks ×
/// cycles / rate, in 365-day years (the research's Table 5.5: 8,192 blocks of 128 KiB at
/// 0.3563 erases/s and 10K cycles is 7.29 years). `None` without erases.
pub fn erase_lifetime_years(blocks: f64, cycles: f64, erases_per_s: f64) -> Option<f64> {
    (erases_per_s > 0.0 && erases_per_s.is_finite())
        .then(|| blocks * cycles / erases_per_s / SECONDS_PER_365_DAY_YEAR)
}

/// What a run did to the devices' wear counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnduranceInput {
    /// All bytes written to the SSD, including migration and write-back traffic.
    pub ssd_write_bytes: u64,
    pub ssd_read_bytes: u64,
    pub hdd_start_stop_cycles: u64,
}

/// Rated limits of the two devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceLimits {
    /// Rated total bytes written (TBW × 10^12); must be > 0.
    pub ssd_rated_write_bytes: u64,
    /// Rated spindle start/stop cycles; must be > 0.
    pub hdd_start_stop_cycles: u64,
}

impl DeviceLimits {
    /// The research's devices: Intel SSD 320 300 GB (36.5 TB written) and Seagate
    /// Barracuda XT 2 TB (300,000 start/stop cycles); see `catalog/cost/`.
    pub const GREENDM: DeviceLimits = DeviceLimits {
        ssd_rated_write_bytes: 36_500_000_000_000,
        hdd_start_stop_cycles: 300_000,
    };
}

/// Wear of one run in eu (parts per million of rated life).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnduranceReport {
    /// SSD, counting writes only.
    pub ssd_write_only_eu: f64,
    /// SSD, writes + reads / 10.
    pub ssd_read_tenth_eu: f64,
    /// SSD, writes + reads / 100.
    pub ssd_read_hundredth_eu: f64,
    pub hdd_eu: f64,
}

/// SSD wear bytes: writes plus reads times the read-effect ratio.
pub fn ssd_wear_bytes(write_bytes: u64, read_bytes: u64, read_effect_ratio: f64) -> f64 {
    write_bytes as f64 + read_bytes as f64 * read_effect_ratio
}

/// Fraction of the SSD's rated life used: wear bytes / rated write bytes.
pub fn ssd_wear_fraction(
    write_bytes: u64,
    read_bytes: u64,
    read_effect_ratio: f64,
    rated_write_bytes: u64,
) -> Result<f64, CostError> {
    check_ratio(read_effect_ratio, "read_effect_ratio")?;
    check_limit(rated_write_bytes, "ssd_rated_write_bytes")?;
    Ok(ssd_wear_bytes(write_bytes, read_bytes, read_effect_ratio) / rated_write_bytes as f64)
}

/// Fraction of the HDD's rated life used: start/stop cycles / rated cycles.
pub fn hdd_wear_fraction(cycles: u64, rated_cycles: u64) -> Result<f64, CostError> {
    check_limit(rated_cycles, "hdd_start_stop_cycles")?;
    Ok(cycles as f64 / rated_cycles as f64)
}

/// Endurance of one run, both read-effect ratios side by side.
pub fn endurance(
    input: &EnduranceInput,
    limits: &DeviceLimits,
) -> Result<EnduranceReport, CostError> {
    let ssd = |ratio| {
        ssd_wear_fraction(
            input.ssd_write_bytes,
            input.ssd_read_bytes,
            ratio,
            limits.ssd_rated_write_bytes,
        )
        .map(|f| f * EU_PER_LIFE)
    };
    Ok(EnduranceReport {
        ssd_write_only_eu: ssd(0.0)?,
        ssd_read_tenth_eu: ssd(READ_EFFECT_RATIOS[0])?,
        ssd_read_hundredth_eu: ssd(READ_EFFECT_RATIOS[1])?,
        hdd_eu: hdd_wear_fraction(input.hdd_start_stop_cycles, limits.hdd_start_stop_cycles)?
            * EU_PER_LIFE,
    })
}

/// Erase counts from the SSD internals model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EraseInput {
    /// Mean erases per block over the run (≥ 0).
    pub mean_erases: f64,
    /// Rated program/erase cycles per block (> 0).
    pub pe_cycle_limit: u64,
    /// Length of the run in seconds (> 0), for the projection.
    pub duration_s: f64,
}

/// Erase-count-based wear of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EraseWearReport {
    /// Mean erases / P/E limit, in parts per million.
    pub eu: f64,
    /// Years until the mean block reaches its P/E limit if the run repeats back to
    /// back; `None` when the run erased nothing (no wear, no finite projection).
    pub projected_years: Option<f64>,
}

/// Wear measured by erases: mean erases / P/E limit, and the projected lifetime.
pub fn erase_wear(input: &EraseInput) -> Result<EraseWearReport, CostError> {
    non_negative(input.mean_erases, "mean_erases")?;
    check_limit(input.pe_cycle_limit, "pe_cycle_limit")?;
    positive(input.duration_s, "duration_s")?;
    let fraction = input.mean_erases / input.pe_cycle_limit as f64;
    let projected_years = (fraction > 0.0).then(|| input.duration_s / fraction / SECONDS_PER_YEAR);
    Ok(EraseWearReport {
        eu: fraction * EU_PER_LIFE,
        projected_years,
    })
}

fn check_limit(limit: u64, field: &str) -> Result<(), CostError> {
    if limit == 0 {
        return Err(CostError::input(field, "expected a rated limit > 0, got 0"));
    }
    Ok(())
}

pub(crate) fn check_ratio(ratio: f64, field: &str) -> Result<(), CostError> {
    if !(ratio.is_finite() && (0.0..=1.0).contains(&ratio)) {
        return Err(CostError::input(
            field,
            format!("expected a read-effect ratio in [0, 1], got {ratio}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_percent_of_tbw_is_10000_eu() {
        // 365 GB against 36.5 TB is 1 % of rated life.
        let input = EnduranceInput {
            ssd_write_bytes: 365_000_000_000,
            ssd_read_bytes: 0,
            hdd_start_stop_cycles: 10,
        };
        let r = endurance(&input, &DeviceLimits::GREENDM).unwrap();
        assert!((r.ssd_write_only_eu - 10_000.0).abs() < 1e-6);
        assert_eq!(r.ssd_read_tenth_eu, r.ssd_write_only_eu);
        // 10 of 300,000 cycles = 33.33 ppm.
        assert!((r.hdd_eu - 100.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn reads_count_by_ratio_side_by_side() {
        let input = EnduranceInput {
            ssd_write_bytes: 1_000_000,
            ssd_read_bytes: 1_000_000,
            hdd_start_stop_cycles: 0,
        };
        let limits = DeviceLimits {
            ssd_rated_write_bytes: 1_000_000_000_000,
            hdd_start_stop_cycles: 1,
        };
        let r = endurance(&input, &limits).unwrap();
        assert!((r.ssd_write_only_eu - 1.0).abs() < 1e-12);
        assert!((r.ssd_read_tenth_eu - 1.1).abs() < 1e-12);
        assert!((r.ssd_read_hundredth_eu - 1.01).abs() < 1e-12);
        assert_eq!(r.hdd_eu, 0.0);
    }

    #[test]
    fn zero_limits_are_errors_naming_the_field() {
        let input = EnduranceInput::default();
        let mut limits = DeviceLimits::GREENDM;
        limits.hdd_start_stop_cycles = 0;
        let e = endurance(&input, &limits).unwrap_err().to_string();
        assert!(e.contains("hdd_start_stop_cycles"), "{e}");
        limits = DeviceLimits::GREENDM;
        limits.ssd_rated_write_bytes = 0;
        let e = endurance(&input, &limits).unwrap_err().to_string();
        assert!(e.contains("ssd_rated_write_bytes"), "{e}");
    }

    #[test]
    fn table_5_5_lifetimes() {
        // HybridStore's Table 5.5: 128 KiB blocks (8,192 per GB), 10K cycles.
        let years = |gb: f64, rate: f64| erase_lifetime_years(8192.0 * gb, 1e4, rate).unwrap();
        assert!((years(1.0, 0.3563) - 7.29).abs() < 0.005);
        assert!((years(2.0, 0.0986) - 52.69).abs() < 0.005);
        assert!((years(0.5, 0.4865) - 2.67).abs() < 0.005);
        assert!((years(1.0, 0.1200) - 21.65).abs() < 0.005);
        assert_eq!(erase_lifetime_years(8192.0, 1e4, 0.0), None);
    }

    #[test]
    fn erase_wear_projects_years() {
        // 3 erases of 3,000 in one day: 1,000 ppm, 1,000 days.
        let r = erase_wear(&EraseInput {
            mean_erases: 3.0,
            pe_cycle_limit: 3_000,
            duration_s: 86_400.0,
        })
        .unwrap();
        assert!((r.eu - 1_000.0).abs() < 1e-9);
        let years = r.projected_years.unwrap();
        assert!((years - 1_000.0 / 365.25).abs() < 1e-9);
        let none = erase_wear(&EraseInput {
            mean_erases: 0.0,
            pe_cycle_limit: 3_000,
            duration_s: 1.0,
        })
        .unwrap();
        assert_eq!(none.projected_years, None);
        let bad = erase_wear(&EraseInput {
            mean_erases: -1.0,
            pe_cycle_limit: 3_000,
            duration_s: 1.0,
        })
        .unwrap_err();
        assert!(bad.to_string().contains("mean_erases"));
    }

    #[test]
    fn read_ratio_outside_unit_interval_is_rejected() {
        let e = ssd_wear_fraction(1, 1, 1.5, 10).unwrap_err().to_string();
        assert!(e.contains("read_effect_ratio"), "{e}");
        assert!(ssd_wear_fraction(1, 1, f64::NAN, 10).is_err());
    }
}
