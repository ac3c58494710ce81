//! The power models built from catalog entries, and a system: a controller and the
//! enclosures holding an array's disks.

use crate::catalog::{ControllerEntry, EnclosureEntry, SystemCatalog, SystemCatalogError};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use tierlab_config::{FieldError, Validate};
use tierlab_power::{CycleKind, PowerSpec, StandbyLevel, Transition};

/// The name of the disk power state a slot power-down adds.
pub const POWERED_DOWN: &str = "powered_down";

/// An enclosure's power, split into a part that is always drawn, a part per powered
/// slot, and the disks' own power:
///
/// `P = base_w + slot_w × (slots powered) + Σ disk power`.
///
/// The measurements give the enclosure with its disks inside in three or four states;
/// the split follows from them and the measured disks' spun-down power:
/// - `base_w` is the enclosure with every slot powered down (nothing drawn in a slot);
/// - every disk spun down adds `slots × (slot_w + standby_w)`, which gives `slot_w`;
/// - the idle (and fully loaded) figures then give the disks' own idle (and active)
///   power as the enclosure measured it, which can be checked against their vendor
///   ranges ([`EnclosureModel::implied_idle_w`], [`EnclosureModel::implied_active_w`]).
///
/// An enclosure without a powered-down figure cannot be split so: its whole overhead is
/// taken as fixed (`slot_w` = 0).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnclosureModel {
    pub id: String,
    pub slots: u32,
    pub base_w: f64,
    pub slot_w: f64,
    pub power_down: bool,
    /// Extra time a powered-down slot needs beyond a spin-up, s (0 without power-down).
    pub slot_power_on_s: f64,
    /// The measured disks' spun-down power, W.
    pub measured_standby_w: f64,
    pub implied_idle_w: f64,
    pub implied_active_w: Option<f64>,
}

impl EnclosureModel {
    pub fn new(e: &EnclosureEntry) -> EnclosureModel {
        let n = f64::from(e.slots);
        let standby_w = e.measured_disk.standby_w;
        let (base_w, slot_w) = match e.powered_down_w {
            Some(off) => (off, (e.spun_down_w - off) / n - standby_w),
            None => (e.spun_down_w - n * standby_w, 0.0),
        };
        let per_disk = |total_w: f64| (total_w - base_w) / n - slot_w;
        EnclosureModel {
            id: e.id.clone(),
            slots: e.slots,
            base_w,
            slot_w: slot_w.max(0.0),
            power_down: e.power_down,
            slot_power_on_s: if e.power_down {
                e.slot_power_on_s.unwrap_or(0.0)
            } else {
                0.0
            },
            measured_standby_w: standby_w,
            implied_idle_w: per_disk(e.idle_w),
            implied_active_w: e.max_w.map(per_disk),
        }
    }

    /// The enclosure's own power (disks excluded) with `powered_slots` slots powered, W.
    pub fn own_w(&self, powered_slots: f64) -> f64 {
        self.base_w + self.slot_w * powered_slots
    }
}

/// A controller's power: `idle_w × (1 + rise × load)`, load in [0, 1].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ControllerModel {
    pub id: String,
    pub idle_w: f64,
    /// The chosen workload's rise (0 when the entry has none).
    pub workload: Option<String>,
    pub rise: f64,
    /// I/O rate at which the controller counts as fully loaded, MB/s; `None`: the rate
    /// at which its disks stream all together.
    pub rated_mb_s: Option<f64>,
}

impl ControllerModel {
    pub fn power_w(&self, load: f64) -> f64 {
        self.idle_w * (1.0 + self.rise * load.clamp(0.0, 1.0))
    }

    /// The load of a run that moved `bytes` in `span_s` behind disks that stream
    /// `streaming_mb_s` all together: the I/O rate over the rated one (the system's, else
    /// the disks' streaming rate), at most 1.
    pub fn load(&self, bytes: u64, span_s: f64, streaming_mb_s: f64) -> f64 {
        let rated = self.rated_mb_s.unwrap_or(streaming_mb_s);
        if span_s > 0.0 && rated > 0.0 {
            (bytes as f64 / span_s / 1e6 / rated).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// What a power-managed disk goes to when a scheme sends it to sleep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LowPower {
    /// The drive's own standby (spindle stopped, electronics and slot powered).
    #[default]
    SpinDown,
    /// The enclosure cuts the slot's power: the drive draws nothing, takes longer to come
    /// back, and counts a power cycle.
    PowerDown,
}

impl LowPower {
    pub fn name(self) -> &'static str {
        match self {
            LowPower::SpinDown => "spin-down",
            LowPower::PowerDown => "power-down",
        }
    }
}

impl std::str::FromStr for LowPower {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "spin-down" => Ok(LowPower::SpinDown),
            "power-down" => Ok(LowPower::PowerDown),
            other => Err(format!("expected spin-down or power-down, found `{other}`")),
        }
    }
}

/// One or more enclosures of one model in a system description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnclosureGroup {
    /// Catalog enclosure id.
    pub model: String,
    /// How many such enclosures (default 1).
    #[serde(default = "one")]
    pub count: u32,
    /// Disks in each of them; absent: filled in order with the disks not placed elsewhere.
    #[serde(default)]
    pub disks: Option<u32>,
}

fn one() -> u32 {
    1
}

/// A system description (TOML): a controller and the enclosures that hold the disks.
///
/// ```toml
/// controller = "emc-dd880"
/// low_power = "spin-down"        # or "power-down"
/// [[enclosures]]
/// model = "emc-es20"
/// count = 2
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    /// Catalog controller id.
    pub controller: String,
    /// Which of the controller's measured workloads sets its rise under load (default:
    /// the entry's).
    #[serde(default)]
    pub controller_workload: Option<String>,
    /// The I/O rate at which the controller is fully loaded, MB/s; absent: the rate at
    /// which its disks stream all together.
    #[serde(default)]
    pub controller_rated_mb_s: Option<f64>,
    /// What a scheme's spin-down does.
    #[serde(default)]
    pub low_power: LowPower,
    /// A catalog directory with `system/controller/` and `system/enclosure/` entries of
    /// its own, added to the built-in ones (relative to the working directory).
    #[serde(default)]
    pub catalog: Option<PathBuf>,
    pub enclosures: Vec<EnclosureGroup>,
}

impl Validate for SystemSpec {
    fn validate(&self) -> Result<(), FieldError> {
        if self.enclosures.is_empty() {
            return Err(FieldError::new(
                "enclosures",
                "expected at least one [[enclosures]] entry",
            ));
        }
        for (i, g) in self.enclosures.iter().enumerate() {
            if g.count == 0 || g.count > 10_000 {
                return Err(FieldError::new(
                    format!("enclosures[{i}].count"),
                    format!("expected 1 to 10000 enclosures, found {}", g.count),
                ));
            }
        }
        if let Some(r) = self.controller_rated_mb_s {
            if !(r.is_finite() && r > 0.0) {
                return Err(FieldError::new(
                    "controller_rated_mb_s",
                    format!("expected a rate > 0 MB/s, found {r}"),
                ));
            }
        }
        Ok(())
    }
}

/// Where one disk sits: its enclosure (index into [`System::enclosures`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub enclosure: usize,
}

/// A system description resolved against the catalog and laid out for a number of disks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct System {
    pub controller: ControllerModel,
    pub controller_entry: ControllerEntry,
    /// One per enclosure (groups expanded), in order.
    pub enclosures: Vec<EnclosureModel>,
    /// Disks in each enclosure.
    pub disks_per_enclosure: Vec<u32>,
    /// Each disk's enclosure, in disk order.
    pub placement: Vec<Placement>,
    pub low_power: LowPower,
}

impl SystemSpec {
    /// Look the models up in `catalog` and place `disks` disks. Errors name the field of
    /// this description that is at fault.
    pub fn resolve(&self, catalog: &SystemCatalog, disks: usize) -> Result<System, FieldError> {
        self.validate()?;
        let lookup = |e: SystemCatalogError| e.to_string();
        let entry = catalog
            .controller(&self.controller)
            .map_err(|e| FieldError::new("controller", lookup(e)))?
            .clone();
        let (workload, rise) = match (&entry.load_rise, &self.controller_workload) {
            (Some(r), Some(w)) => match r.workloads.get(w) {
                Some(&rise) => (Some(w.clone()), rise),
                None => {
                    let known: Vec<&str> = r.workloads.keys().map(String::as_str).collect();
                    return Err(FieldError::new(
                        "controller_workload",
                        format!(
                            "expected one of `{}`'s measured workloads ({}), found `{w}`",
                            entry.id,
                            known.join(", ")
                        ),
                    ));
                }
            },
            (Some(r), None) => (Some(r.default.clone()), r.workloads[&r.default]),
            (None, Some(w)) => {
                return Err(FieldError::new(
                    "controller_workload",
                    format!("`{}` has no load figures, so no workload `{w}`", entry.id),
                ))
            }
            (None, None) => (None, 0.0),
        };
        let controller = ControllerModel {
            id: entry.id.clone(),
            idle_w: entry.idle_w,
            workload,
            rise,
            rated_mb_s: self.controller_rated_mb_s,
        };

        let mut enclosures = Vec::new();
        let mut fixed: Vec<Option<u32>> = Vec::new();
        for (i, g) in self.enclosures.iter().enumerate() {
            let key = |k: &str| format!("enclosures[{i}].{k}");
            let e = catalog
                .enclosure(&g.model)
                .map_err(|err| FieldError::new(key("model"), lookup(err)))?;
            if let Some(d) = g.disks {
                if d > e.slots {
                    return Err(FieldError::new(
                        key("disks"),
                        format!(
                            "expected at most {} disks (the slots of `{}`), found {d}",
                            e.slots, e.id
                        ),
                    ));
                }
            }
            if self.low_power == LowPower::PowerDown && !e.power_down {
                return Err(FieldError::new(
                    key("model"),
                    format!("`{}` cannot power its slots down (power_down = false in its entry), but low_power = \"power-down\" asks every enclosure to", e.id),
                ));
            }
            let model = EnclosureModel::new(e);
            for _ in 0..g.count {
                enclosures.push(model.clone());
                fixed.push(g.disks);
            }
        }
        if let Some(max) = entry.max_enclosures {
            if enclosures.len() > max as usize {
                return Err(FieldError::new(
                    "enclosures",
                    format!(
                        "expected at most {max} enclosures (what `{}` attaches), found {}",
                        entry.id,
                        enclosures.len()
                    ),
                ));
            }
        }

        // Explicit counts first, then fill the rest in order.
        let explicit: u64 = fixed.iter().flatten().map(|&d| u64::from(d)).sum();
        if explicit > disks as u64 {
            return Err(FieldError::new("enclosures", format!("the enclosures' `disks` add up to {explicit}, more than the {disks} disks simulated")));
        }
        let mut left = disks as u64 - explicit;
        let mut per = Vec::with_capacity(enclosures.len());
        for (e, f) in enclosures.iter().zip(&fixed) {
            let n = match f {
                Some(d) => *d,
                None => {
                    let n = left.min(u64::from(e.slots)) as u32;
                    left -= u64::from(n);
                    n
                }
            };
            per.push(n);
        }
        if left > 0 {
            let slots: u64 = enclosures.iter().map(|e| u64::from(e.slots)).sum();
            return Err(FieldError::new("enclosures", format!("{disks} disks do not fit: the enclosures have {slots} slots ({left} disks left over)")));
        }
        let placement = per
            .iter()
            .enumerate()
            .flat_map(|(i, &n)| (0..n).map(move |_| Placement { enclosure: i }))
            .collect();
        Ok(System {
            controller,
            controller_entry: entry,
            enclosures,
            disks_per_enclosure: per,
            placement,
            low_power: self.low_power,
        })
    }

    /// [`SystemSpec::resolve`] against the built-in catalog plus `catalog` if named.
    pub fn resolve_with_own_catalog(&self, disks: usize) -> Result<System, FieldError> {
        let catalog = match &self.catalog {
            Some(dir) => SystemCatalog::with_dir(dir)
                .map_err(|e| FieldError::new("catalog", e.to_string()))?,
            None => crate::catalog::builtin(),
        };
        self.resolve(&catalog, disks)
    }
}

impl System {
    pub fn disks(&self) -> usize {
        self.placement.len()
    }

    /// The slot power-down's extra time (the slowest enclosure's), when the system powers
    /// slots down.
    pub fn power_down_extra_s(&self) -> Option<f64> {
        (self.low_power == LowPower::PowerDown).then(|| {
            self.enclosures
                .iter()
                .map(|e| e.slot_power_on_s)
                .fold(0.0, f64::max)
        })
    }

    /// One line: controller, enclosures, disks, low-power mode.
    pub fn describe(&self) -> String {
        let mut groups: Vec<(String, usize)> = Vec::new();
        for e in &self.enclosures {
            match groups.last_mut() {
                Some((id, n)) if *id == e.id => *n += 1,
                _ => groups.push((e.id.clone(), 1)),
            }
        }
        let encl: Vec<String> = groups.iter().map(|(id, n)| format!("{n} × {id}")).collect();
        let load = match (&self.controller.workload, self.controller.rated_mb_s) {
            (Some(w), Some(r)) => format!(" ({w} rise, loaded at {r} MB/s)"),
            (Some(w), None) => format!(" ({w} rise, loaded at the disks' streaming rate)"),
            _ => String::new(),
        };
        format!(
            "{}{load} + {} holding {} disks; {}",
            self.controller.id,
            encl.join(" + "),
            self.disks(),
            self.low_power.name()
        )
    }
}

/// The standby level a slot power-down adds to a drive's power spec: no power; entered
/// by the drive's spin-down into its deepest spindle-stopped level (the slot is cut once
/// the heads are parked); left by that level's spin-up plus `slot_power_on_s` at the
/// level's power (the slot comes back, the link comes up, the host finds the drive);
/// each entry counts a power cycle and a start/stop cycle.
pub fn powered_down_level(spec: &PowerSpec, slot_power_on_s: f64) -> Result<StandbyLevel, String> {
    let (stopped_w, down, up) = spec
        .standby
        .iter()
        .filter(|l| matches!(l.cycle, CycleKind::StartStop))
        .filter_map(|l| Some((l.power_w, l.enter?, l.leave?)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .ok_or_else(|| "the drive has no spindle-stopped standby level with known spin-down and spin-up costs, which a slot power-down starts from".to_string())?;
    Ok(StandbyLevel {
        name: POWERED_DOWN.into(),
        power_w: 0.0,
        enter: Some(down),
        leave: Some(Transition {
            time_s: up.time_s + slot_power_on_s,
            energy_j: up.energy_j + stopped_w * slot_power_on_s,
        }),
        cycle: CycleKind::Power,
    })
}
