//! The GreenDM dissertation's chapter 4 recomputed from the catalog with this crate's
//! model: each enclosure in its four measured states, each controller idle and loaded,
//! and Figure 4.4's system-level curves (an idle controller with N idle enclosures, a
//! growing number of which have all their disks spun down or powered down).

use crate::account::{DiskUsage, SystemUsage};
use crate::catalog::{ControllerEntry, EnclosureEntry, SystemCatalog};
use crate::model::{EnclosureGroup, EnclosureModel, LowPower, SystemSpec};
use serde::Serialize;

/// One enclosure's measured states, as printed and as the model gives them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnclosureFigures {
    pub id: String,
    pub slots: u32,
    pub model: EnclosureModel,
    pub idle_w: f64,
    pub spun_down_w: f64,
    pub spun_down_saving: f64,
    pub powered_down_w: Option<f64>,
    pub powered_down_saving: Option<f64>,
    pub max_w: Option<f64>,
    pub max_rise: Option<f64>,
    /// The model's figures for the same four states, with the measured disks'
    /// implied idle and active power and their estimated standby power.
    pub model_idle_w: f64,
    pub model_spun_down_w: f64,
    pub model_powered_down_w: f64,
    pub model_max_w: Option<f64>,
    /// Whether the implied disk figures fall inside the vendor ranges the entry cites.
    pub implied_idle_in_range: Option<bool>,
    pub implied_active_in_range: Option<bool>,
}

/// [`EnclosureFigures`] of an entry.
pub fn enclosure_figures(e: &EnclosureEntry) -> EnclosureFigures {
    let m = EnclosureModel::new(e);
    let n = f64::from(e.slots);
    let full = |disk_w: f64| m.own_w(n) + n * disk_w;
    let in_range = |v: f64, r: Option<[f64; 2]>| r.map(|[lo, hi]| v >= lo - 1e-9 && v <= hi + 1e-9);
    EnclosureFigures {
        id: e.id.clone(),
        slots: e.slots,
        idle_w: e.idle_w,
        spun_down_w: e.spun_down_w,
        spun_down_saving: 1.0 - e.spun_down_w / e.idle_w,
        powered_down_w: e.powered_down_w,
        powered_down_saving: e.powered_down_w.map(|w| 1.0 - w / e.idle_w),
        max_w: e.max_w,
        max_rise: e.max_w.map(|w| w / e.idle_w - 1.0),
        model_idle_w: full(m.implied_idle_w),
        model_spun_down_w: full(m.measured_standby_w),
        model_powered_down_w: m.own_w(0.0),
        model_max_w: m.implied_active_w.map(full),
        implied_idle_in_range: in_range(m.implied_idle_w, e.measured_disk.idle_w_range),
        implied_active_in_range: m
            .implied_active_w
            .and_then(|a| in_range(a, e.measured_disk.active_w_range)),
        model: m,
    }
}

/// One controller's idle and loaded power.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ControllerFigures {
    pub id: String,
    pub ship_year: Option<u16>,
    pub idle_w: f64,
    pub max_capacity_tb: Option<f64>,
    pub idle_w_per_tb: Option<f64>,
    /// (workload, rise, loaded W)
    pub loaded: Vec<(String, f64, f64)>,
    /// Idle in the deepest C state, where supported.
    pub deep_c_idle_w: Option<f64>,
}

pub fn controller_figures(c: &ControllerEntry) -> ControllerFigures {
    ControllerFigures {
        id: c.id.clone(),
        ship_year: c.ship_year,
        idle_w: c.idle_w,
        max_capacity_tb: c.max_capacity_tb,
        idle_w_per_tb: c.max_capacity_tb.map(|tb| c.idle_w / tb),
        loaded: c
            .load_rise
            .iter()
            .flat_map(|r| {
                r.workloads
                    .iter()
                    .map(|(w, &rise)| (w.clone(), rise, c.idle_w * (1.0 + rise)))
            })
            .collect(),
        deep_c_idle_w: c
            .deep_c_state
            .as_ref()
            .and_then(|d| d.saving_w)
            .map(|s| c.idle_w - s),
    }
}

/// One point of a Figure 4.4 curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Enclosures whose disks are all power-managed.
    pub managed: u32,
    pub total_w: f64,
    /// Share of the unmanaged system's power saved.
    pub saving: f64,
}

/// Figure 4.4 for one controller and enclosure: an idle `controller` with `enclosures`
/// idle `enclosure`s full of the enclosure's measured disks, and the system's power as
/// 0, 1, …, `enclosures` of them have every disk spun down or powered down (`mode`).
/// Computed through [`crate::System::account`], the same accounting array runs use.
pub fn managed_curve(
    catalog: &SystemCatalog,
    controller: &str,
    enclosure: &str,
    enclosures: u32,
    mode: LowPower,
) -> Result<Vec<CurvePoint>, String> {
    let e = catalog.enclosure(enclosure).map_err(|e| e.to_string())?;
    let spec = SystemSpec {
        controller: controller.into(),
        controller_workload: None,
        controller_rated_mb_s: None,
        low_power: mode,
        catalog: None,
        enclosures: vec![EnclosureGroup {
            model: enclosure.into(),
            count: enclosures,
            disks: None,
        }],
    };
    let slots = e.slots as usize;
    let system = spec
        .resolve(catalog, slots * enclosures as usize)
        .map_err(|e| e.to_string())?;
    let m = EnclosureModel::new(e);
    let mut points = Vec::with_capacity(enclosures as usize + 1);
    let mut base_w = None;
    for managed in 0..=enclosures {
        let managed_disks = managed as usize * slots;
        let disks = (0..system.disks())
            .map(|i| match (i < managed_disks, mode) {
                (false, _) => DiskUsage {
                    energy_j: m.implied_idle_w,
                    ..DiskUsage::default()
                },
                (true, LowPower::SpinDown) => DiskUsage {
                    energy_j: m.measured_standby_w,
                    ..DiskUsage::default()
                },
                (true, LowPower::PowerDown) => DiskUsage {
                    energy_j: 0.0,
                    powered_down_s: 1.0,
                },
            })
            .collect();
        let energy = system.account(&SystemUsage {
            span_s: 1.0,
            bytes_moved: 0,
            streaming_mb_s: 0.0,
            disks,
        })?;
        let base = *base_w.get_or_insert(energy.total_w);
        points.push(CurvePoint {
            managed,
            total_w: energy.total_w,
            saving: 1.0 - energy.total_w / base,
        });
    }
    Ok(points)
}

/// What a Figure 4.4 curve says in two numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairSummary {
    pub controller: String,
    pub enclosure: String,
    pub mode: LowPower,
    pub enclosures: u32,
    /// Fewest managed enclosures that save at least 20 % (`None`: never).
    pub managed_for_20pct: Option<u32>,
    /// The share of the disks that is.
    pub disk_share_for_20pct: Option<f64>,
    /// Saving with every enclosure managed.
    pub saving_all: f64,
    pub unmanaged_w: f64,
}

/// [`managed_curve`] summarised.
pub fn summarise(
    catalog: &SystemCatalog,
    controller: &str,
    enclosure: &str,
    enclosures: u32,
    mode: LowPower,
) -> Result<PairSummary, String> {
    let curve = managed_curve(catalog, controller, enclosure, enclosures, mode)?;
    let hit = curve
        .iter()
        .find(|p| p.saving >= 0.2 - 1e-12)
        .map(|p| p.managed);
    Ok(PairSummary {
        controller: controller.into(),
        enclosure: enclosure.into(),
        mode,
        enclosures,
        managed_for_20pct: hit,
        disk_share_for_20pct: hit.map(|k| f64::from(k) / f64::from(enclosures)),
        saving_all: curve.last().map_or(0.0, |p| p.saving),
        unmanaged_w: curve.first().map_or(0.0, |p| p.total_w),
    })
}

/// Figure 4.4's pairs: every catalog controller that can attach `enclosures` enclosures
/// (the chapter leaves DD670 out: it attaches four) with every enclosure, both modes.
pub fn figure_4_4(catalog: &SystemCatalog, enclosures: u32) -> Result<Vec<PairSummary>, String> {
    let mut out = Vec::new();
    for mode in [LowPower::SpinDown, LowPower::PowerDown] {
        for c in catalog
            .controllers()
            .filter(|c| c.max_enclosures.is_none_or(|m| m >= enclosures))
        {
            for e in catalog
                .enclosures()
                .filter(|e| mode == LowPower::SpinDown || e.power_down)
            {
                out.push(summarise(catalog, &c.id, &e.id, enclosures, mode)?);
            }
        }
    }
    Ok(out)
}
