//! What a run wears out of its hard disk, against every limit its catalog entry rates:
//! spindle start/stop cycles, head load/unload cycles, and bytes transferred (read plus
//! written by the host) against the rated workload (TB per year) over the warranty. The
//! wear is the largest of those fractions. A limit the drive is not rated for is named in
//! `not_rated`, never counted as zero wear.

use anyhow::Result;
use serde::Serialize;
use tierlab_cost::{Wear, SECONDS_PER_365_DAY_YEAR};
use tierlab_devices::{catalog, HddChoice};
use tierlab_engine::{DeviceRun, SimReport};
use tierlab_report::grouped;

/// The limits a hard disk is rated for, from its catalog entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HddRatings {
    pub drive: String,
    pub start_stop_cycles: Option<u64>,
    pub load_unload_cycles: Option<u64>,
    pub workload_tb_per_year: Option<f64>,
    pub warranty_years: Option<f64>,
    /// Which of the ratings are estimates (catalog keys).
    pub estimates: Vec<String>,
}

impl HddRatings {
    /// The ratings of `hdd`'s catalog entry. `start_stop_cycles`, where given, replaces
    /// the entry's (a price catalog's limit, as the cost model uses).
    /// A DiskSim drive description has no catalog entry, so no ratings.
    pub fn of(hdd: &HddChoice, start_stop_cycles: Option<u64>) -> Result<Self> {
        if hdd.disksim.is_some() {
            return Ok(HddRatings { drive: hdd.device.clone(), start_stop_cycles, ..HddRatings::default() });
        }
        let e = catalog(hdd.catalog.as_deref())?.hdd(&hdd.device)?.clone();
        Ok(HddRatings {
            drive: e.id.clone(),
            start_stop_cycles: start_stop_cycles.or(e.start_stop_cycles),
            load_unload_cycles: e.load_unload_cycles,
            workload_tb_per_year: e.workload_tb_per_year,
            warranty_years: e.warranty_years,
            estimates: e.estimates.clone(),
        })
    }

    /// Whether the rated workload is an estimate rather than a published figure.
    pub fn workload_is_estimate(&self) -> bool {
        self.estimates.iter().any(|k| k == "workload_tb_per_year")
    }

    /// Bytes the drive is rated to transfer over its warranty.
    pub fn rated_transfer_bytes(&self) -> Option<u64> {
        Some((self.workload_tb_per_year? * 1e12 * self.warranty_years?).round() as u64)
    }

    /// The limits the drive has no rating for, as readers name them.
    pub fn not_rated(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.start_stop_cycles.is_none() {
            v.push("start/stop cycles".to_string());
        }
        if self.load_unload_cycles.is_none() {
            v.push("load/unload cycles".to_string());
        }
        if self.workload_tb_per_year.is_none() {
            v.push("workload (TB/year)".to_string());
        } else if self.warranty_years.is_none() {
            v.push("warranty (years of the rated workload)".to_string());
        }
        v
    }

    /// The cost model's wear for these counts.
    pub fn wear(&self, start_stop_cycles: u64, load_unload_cycles: u64, transferred_bytes: u64) -> Wear {
        Wear::Hdd {
            start_stop_cycles,
            rated_start_stop_cycles: self.start_stop_cycles,
            load_unload_cycles,
            rated_load_unload_cycles: self.load_unload_cycles,
            transferred_bytes,
            rated_transfer_bytes: self.rated_transfer_bytes(),
        }
    }

    /// One sentence on what HDD wear counts for this drive (for report headers).
    pub fn describe(&self) -> String {
        let mut counted = Vec::new();
        if let Some(n) = self.start_stop_cycles {
            counted.push(format!("{} start/stops", grouped(n as f64, 0)));
        }
        if let Some(n) = self.load_unload_cycles {
            counted.push(format!("{} load/unloads", grouped(n as f64, 0)));
        }
        if let (Some(tb), Some(y)) = (self.workload_tb_per_year, self.warranty_years) {
            let est = if self.workload_is_estimate() { " (an estimate)" } else { "" };
            counted.push(format!("{tb} TB/year{est} for {y} years"));
        }
        let mut s = if counted.is_empty() { "no rated limit".to_string() } else { format!("the largest share of {}", counted.join(", ")) };
        let missing = self.not_rated();
        if !missing.is_empty() {
            s.push_str(&format!("; not rated, not counted: {}", missing.join(", ")));
        }
        s
    }
}

/// A run's HDD wear: its counts, the rate they imply, and the share of rated life.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HddWear {
    pub ratings: HddRatings,
    pub start_stop_cycles: u64,
    pub load_unload_cycles: u64,
    pub transferred_bytes: u64,
    pub span_s: f64,
    /// The run's transfer as an annual rate (TB per 8,760 power-on hours).
    pub workload_tb_per_year: f64,
    /// Share of rated life the run uses (the largest rated fraction), `None` when the
    /// drive has no rated limit.
    pub life_fraction: Option<f64>,
    /// The same share for a year at the run's rates.
    pub life_fraction_per_year: Option<f64>,
}

impl HddWear {
    /// The wear of `d`, an HDD's part of a run lasting `span_s`.
    pub fn of(ratings: HddRatings, d: &DeviceRun, span_s: f64) -> Self {
        let count = |k: &str| d.device.counters.get(k).copied().unwrap_or(0.0).max(0.0).round() as u64;
        let (ss, lu, bytes) = (count("start_stop_cycles"), count("load_unload_cycles"), d.read_bytes + d.write_bytes);
        let span_s = span_s.max(1e-9);
        // Workload ratings count a year as 8,760 power-on hours.
        let per_year = SECONDS_PER_365_DAY_YEAR / span_s;
        // The rated fraction used by the run's counts scaled by `k`.
        let fraction = |k: f64| {
            let scaled = |n: u64| (n as f64 * k).round() as u64;
            ratings.wear(scaled(ss), scaled(lu), scaled(bytes)).fraction("hdd").ok()
        };
        HddWear {
            start_stop_cycles: ss,
            load_unload_cycles: lu,
            transferred_bytes: bytes,
            span_s,
            workload_tb_per_year: bytes as f64 * per_year / 1e12,
            life_fraction: fraction(1.0),
            life_fraction_per_year: fraction(per_year),
            ratings,
        }
    }

    /// The wear of `report`'s HDD, if it has one.
    pub fn of_report(hdd: &HddChoice, report: &SimReport) -> Result<Option<Self>> {
        let Some(d) = report.devices.iter().find(|d| d.device.kind == "hdd") else { return Ok(None) };
        Ok(Some(HddWear::of(HddRatings::of(hdd, None)?, d, report.span_s)))
    }
}
