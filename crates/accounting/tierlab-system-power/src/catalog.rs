//! Controller and enclosure catalog entries (`catalog/system/controller/<id>.toml`,
//! `catalog/system/enclosure/<id>.toml`) and their checks.
//!
//! The rules are the HDD catalog's: every figure cites a source (`[sources]` names each
//! document once; the entry and each section say which one with `source`), and a figure
//! no source gives is left out and its key listed in `unknown` — both directions are
//! checked. An enclosure also lists which of its figures are `estimates` and which are
//! `derived` from printed ones, and says how in `assumptions`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use tierlab_config::{ConfigError, FieldError, Validate};

/// Largest power accepted for a controller or an enclosure, W; more is a unit mistake.
const MAX_SYSTEM_W: f64 = 100_000.0;

/// A storage controller as measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerEntry {
    /// Lower-case id, also the file's name.
    pub id: String,
    pub vendor: String,
    pub model: String,
    /// Source (key of `sources`) of the top-level figures.
    pub source: String,
    #[serde(default)]
    pub ship_year: Option<u16>,
    /// Fully powered, no workload, W.
    pub idle_w: f64,
    /// Largest usable physical capacity it supports, TB (for watts per TB).
    #[serde(default)]
    pub max_capacity_tb: Option<f64>,
    /// Most external enclosures it can attach.
    #[serde(default)]
    pub max_enclosures: Option<u32>,
    /// How much its power rises from idle to loaded, per workload.
    #[serde(default)]
    pub load_rise: Option<LoadRise>,
    /// Whether its CPUs have a deep C state, and what it saves when idle.
    #[serde(default)]
    pub deep_c_state: Option<DeepCState>,
    #[serde(default)]
    pub unknown: Vec<String>,
    #[serde(default)]
    pub notes: Option<String>,
    pub sources: BTreeMap<String, String>,
}

/// The rise of a controller's power from idle to loaded: `loaded = idle × (1 + rise)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRise {
    pub source: String,
    /// Rise by workload name, as a fraction of idle power (0.44 = +44 %).
    pub workloads: BTreeMap<String, f64>,
    /// The workload a system uses unless it names one.
    pub default: String,
}

/// Deep C-state support (the CPUs' deepest idle state).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeepCState {
    pub supported: bool,
    /// Power saved when idle in the state, W (present exactly when supported).
    #[serde(default)]
    pub saving_w: Option<f64>,
    #[serde(default)]
    pub source: Option<String>,
}

/// A disk enclosure as measured with its disks inside.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnclosureEntry {
    pub id: String,
    pub vendor: String,
    pub model: String,
    pub source: String,
    #[serde(default)]
    pub ship_year: Option<u16>,
    /// Disk slots.
    pub slots: u32,
    /// Every slot holding an idle disk, W.
    pub idle_w: f64,
    /// Every disk spun down (powered, spindle stopped), W.
    pub spun_down_w: f64,
    /// Every disk saturated with I/O, W.
    #[serde(default)]
    pub max_w: Option<f64>,
    /// Every slot powered down (the enclosure alone), W.
    #[serde(default)]
    pub powered_down_w: Option<f64>,
    /// Whether the enclosure can cut the power of single slots.
    pub power_down: bool,
    /// Time a powered-down slot needs beyond a spin-up before its disk serves, s.
    #[serde(default)]
    pub slot_power_on_s: Option<f64>,
    /// The disks inside during the measurements, as their vendors rate them.
    pub measured_disk: MeasuredDisk,
    /// Keys whose values are estimates, not measurements.
    #[serde(default)]
    pub estimates: Vec<String>,
    /// Keys whose values are derived from printed figures rather than printed.
    #[serde(default)]
    pub derived: Vec<String>,
    /// How each estimated or derived value follows, and where each figure is printed.
    #[serde(default)]
    pub assumptions: Vec<String>,
    #[serde(default)]
    pub unknown: Vec<String>,
    #[serde(default)]
    pub notes: Option<String>,
    pub sources: BTreeMap<String, String>,
}

/// The drives an enclosure was measured with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredDisk {
    pub source: String,
    /// Vendor range of the drives' idle power, W.
    #[serde(default)]
    pub idle_w_range: Option<[f64; 2]>,
    /// Vendor range of their active power, W.
    #[serde(default)]
    pub active_w_range: Option<[f64; 2]>,
    /// Their power spun down, W.
    pub standby_w: f64,
}

/// Keys of an enclosure entry that can be listed in `estimates`, `derived` or `unknown`.
const ENCLOSURE_KEYS: [&str; 10] = [
    "ship_year",
    "slots",
    "idle_w",
    "spun_down_w",
    "max_w",
    "powered_down_w",
    "slot_power_on_s",
    "measured_disk.idle_w_range",
    "measured_disk.active_w_range",
    "measured_disk.standby_w",
];

fn check_id(id: &str) -> Result<(), FieldError> {
    if !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Ok(())
    } else {
        Err(FieldError::new(
            "id",
            format!("expected lower-case letters, digits and `-`, found `{id}`"),
        ))
    }
}

fn check_w(key: &str, w: f64) -> Result<(), FieldError> {
    if w.is_finite() && (0.0..=MAX_SYSTEM_W).contains(&w) {
        Ok(())
    } else {
        Err(FieldError::new(
            key,
            format!("expected watts between 0 and {MAX_SYSTEM_W}, found {w}"),
        ))
    }
}

fn check_source(
    sources: &BTreeMap<String, String>,
    key: &str,
    source: &str,
) -> Result<(), FieldError> {
    if sources.contains_key(source) {
        Ok(())
    } else {
        let known: Vec<&str> = sources.keys().map(String::as_str).collect();
        Err(FieldError::new(
            key,
            format!(
                "expected a key of [sources] ({}), found `{source}`",
                known.join(", ")
            ),
        ))
    }
}

/// Both directions of the `unknown` rule for one optional figure.
fn check_known(unknown: &[String], key: &str, present: bool) -> Result<(), FieldError> {
    let listed = unknown.iter().any(|u| u == key);
    match (present, listed) {
        (true, true) => Err(FieldError::new(
            "unknown",
            format!("lists `{key}`, but the entry gives it"),
        )),
        (false, false) => Err(FieldError::new(
            key,
            "expected a value, or the key listed in `unknown`",
        )),
        _ => Ok(()),
    }
}

fn check_listed_keys(field: &str, keys: &[String], allowed: &[&str]) -> Result<(), FieldError> {
    for (i, k) in keys.iter().enumerate() {
        if !allowed.contains(&k.as_str()) {
            return Err(FieldError::new(
                format!("{field}[{i}]"),
                format!("expected one of {}, found `{k}`", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

impl Validate for ControllerEntry {
    fn validate(&self) -> Result<(), FieldError> {
        check_id(&self.id)?;
        check_source(&self.sources, "source", &self.source)?;
        check_w("idle_w", self.idle_w)?;
        check_listed_keys(
            "unknown",
            &self.unknown,
            &[
                "ship_year",
                "max_capacity_tb",
                "max_enclosures",
                "load_rise",
                "deep_c_state",
            ],
        )?;
        check_known(
            &self.unknown,
            "max_enclosures",
            self.max_enclosures.is_some(),
        )?;
        check_known(&self.unknown, "ship_year", self.ship_year.is_some())?;
        check_known(
            &self.unknown,
            "max_capacity_tb",
            self.max_capacity_tb.is_some(),
        )?;
        check_known(&self.unknown, "load_rise", self.load_rise.is_some())?;
        check_known(&self.unknown, "deep_c_state", self.deep_c_state.is_some())?;
        if let Some(tb) = self.max_capacity_tb {
            if !(tb.is_finite() && tb > 0.0) {
                return Err(FieldError::new(
                    "max_capacity_tb",
                    format!("expected a capacity > 0 TB, found {tb}"),
                ));
            }
        }
        if let Some(r) = &self.load_rise {
            check_source(&self.sources, "load_rise.source", &r.source)?;
            if r.workloads.is_empty() {
                return Err(FieldError::new(
                    "load_rise.workloads",
                    "expected at least one workload",
                ));
            }
            for (name, &rise) in &r.workloads {
                if !(rise.is_finite() && (0.0..=10.0).contains(&rise)) {
                    return Err(FieldError::new(format!("load_rise.workloads.{name}"), format!("expected a rise between 0 and 10 (a fraction of idle power), found {rise}")));
                }
            }
            if !r.workloads.contains_key(&r.default) {
                return Err(FieldError::new(
                    "load_rise.default",
                    format!(
                        "expected one of the workloads ({}), found `{}`",
                        r.workloads.keys().cloned().collect::<Vec<_>>().join(", "),
                        r.default
                    ),
                ));
            }
        }
        if let Some(c) = &self.deep_c_state {
            if let Some(s) = &c.source {
                check_source(&self.sources, "deep_c_state.source", s)?;
            }
            match (c.supported, c.saving_w) {
                (true, None) => {
                    return Err(FieldError::new(
                        "deep_c_state.saving_w",
                        "expected the idle saving in the state, W",
                    ))
                }
                (false, Some(_)) => {
                    return Err(FieldError::new(
                        "deep_c_state.saving_w",
                        "expected none: the state is not supported",
                    ))
                }
                (true, Some(w)) => {
                    check_w("deep_c_state.saving_w", w)?;
                    if w > self.idle_w {
                        return Err(FieldError::new(
                            "deep_c_state.saving_w",
                            format!(
                                "expected at most the idle power {} W, found {w}",
                                self.idle_w
                            ),
                        ));
                    }
                }
                (false, None) => {}
            }
        }
        Ok(())
    }
}

impl Validate for EnclosureEntry {
    fn validate(&self) -> Result<(), FieldError> {
        check_id(&self.id)?;
        check_source(&self.sources, "source", &self.source)?;
        check_source(
            &self.sources,
            "measured_disk.source",
            &self.measured_disk.source,
        )?;
        if self.slots == 0 || self.slots > 1_000 {
            return Err(FieldError::new(
                "slots",
                format!("expected 1 to 1000 slots, found {}", self.slots),
            ));
        }
        check_w("idle_w", self.idle_w)?;
        check_w("spun_down_w", self.spun_down_w)?;
        check_w("measured_disk.standby_w", self.measured_disk.standby_w)?;
        for key in ["estimates", "derived", "unknown"] {
            let keys = match key {
                "estimates" => &self.estimates,
                "derived" => &self.derived,
                _ => &self.unknown,
            };
            check_listed_keys(key, keys, &ENCLOSURE_KEYS)?;
        }
        check_known(&self.unknown, "ship_year", self.ship_year.is_some())?;
        check_known(&self.unknown, "max_w", self.max_w.is_some())?;
        check_known(
            &self.unknown,
            "powered_down_w",
            self.powered_down_w.is_some(),
        )?;
        check_known(
            &self.unknown,
            "slot_power_on_s",
            self.slot_power_on_s.is_some(),
        )?;
        check_known(
            &self.unknown,
            "measured_disk.idle_w_range",
            self.measured_disk.idle_w_range.is_some(),
        )?;
        check_known(
            &self.unknown,
            "measured_disk.active_w_range",
            self.measured_disk.active_w_range.is_some(),
        )?;
        if self.spun_down_w > self.idle_w {
            return Err(FieldError::new(
                "spun_down_w",
                format!(
                    "expected at most the idle {} W, found {}",
                    self.idle_w, self.spun_down_w
                ),
            ));
        }
        if let Some(max) = self.max_w {
            check_w("max_w", max)?;
            if max < self.idle_w {
                return Err(FieldError::new(
                    "max_w",
                    format!("expected at least the idle {} W, found {max}", self.idle_w),
                ));
            }
        }
        if let Some(off) = self.powered_down_w {
            check_w("powered_down_w", off)?;
            if off > self.spun_down_w {
                return Err(FieldError::new(
                    "powered_down_w",
                    format!(
                        "expected at most the spun-down {} W, found {off}",
                        self.spun_down_w
                    ),
                ));
            }
        }
        let disks_standby_w = self.measured_disk.standby_w * f64::from(self.slots);
        let overhead_w = self.spun_down_w - self.powered_down_w.unwrap_or(0.0);
        if disks_standby_w > overhead_w {
            return Err(FieldError::new(
                "measured_disk.standby_w",
                format!(
                    "expected at most {:.3} W: {} spun-down disks at {} W draw more than the {:.3} W the enclosure draws above its powered-down figure",
                    overhead_w / f64::from(self.slots),
                    self.slots,
                    self.measured_disk.standby_w,
                    overhead_w
                ),
            ));
        }
        if self.power_down {
            if self.powered_down_w.is_none() {
                return Err(FieldError::new("powered_down_w", "expected a value: power_down = true needs the enclosure's power with every slot off"));
            }
            if self.slot_power_on_s.is_none() {
                return Err(FieldError::new(
                    "slot_power_on_s",
                    "expected a value: power_down = true needs the time a slot takes to come back",
                ));
            }
        }
        if let Some(s) = self.slot_power_on_s {
            if !(s.is_finite() && (0.0..=3_600.0).contains(&s)) {
                return Err(FieldError::new(
                    "slot_power_on_s",
                    format!("expected 0 to 3600 s, found {s}"),
                ));
            }
        }
        for (key, range) in [
            (
                "measured_disk.idle_w_range",
                self.measured_disk.idle_w_range,
            ),
            (
                "measured_disk.active_w_range",
                self.measured_disk.active_w_range,
            ),
        ] {
            if let Some([lo, hi]) = range {
                check_w(key, lo)?;
                check_w(key, hi)?;
                if lo > hi {
                    return Err(FieldError::new(
                        key,
                        format!("expected [low, high], found [{lo}, {hi}]"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Problems loading a system catalog or looking an entry up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SystemCatalogError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("no {kind} `{id}` in the catalog; known: {}", known.join(", "))]
    Unknown {
        kind: &'static str,
        id: String,
        known: Vec<String>,
    },
    #[error("{kind} id `{id}` is defined twice: in {first} and in {second}")]
    Duplicate {
        kind: &'static str,
        id: String,
        first: String,
        second: String,
    },
    #[error("{file}: id `{id}` does not match the file name (expected `{id}.toml`)")]
    FileName { file: String, id: String },
}

/// Controllers and enclosures by id, with the file each came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemCatalog {
    controllers: BTreeMap<String, (String, ControllerEntry)>,
    enclosures: BTreeMap<String, (String, EnclosureEntry)>,
}

const BUILTIN_CONTROLLERS: [(&str, &str); 4] = [
    (
        "catalog/system/controller/emc-dd670.toml",
        include_str!("../../../../catalog/system/controller/emc-dd670.toml"),
    ),
    (
        "catalog/system/controller/emc-dd860.toml",
        include_str!("../../../../catalog/system/controller/emc-dd860.toml"),
    ),
    (
        "catalog/system/controller/emc-dd880.toml",
        include_str!("../../../../catalog/system/controller/emc-dd880.toml"),
    ),
    (
        "catalog/system/controller/emc-dd990.toml",
        include_str!("../../../../catalog/system/controller/emc-dd990.toml"),
    ),
];

const BUILTIN_ENCLOSURES: [(&str, &str); 2] = [
    (
        "catalog/system/enclosure/emc-es20.toml",
        include_str!("../../../../catalog/system/enclosure/emc-es20.toml"),
    ),
    (
        "catalog/system/enclosure/emc-es30.toml",
        include_str!("../../../../catalog/system/enclosure/emc-es30.toml"),
    ),
];

/// The shipped controllers and enclosures.
///
/// # Panics
/// Never in a released build: the embedded files are constants, and a test parses them.
pub fn builtin() -> SystemCatalog {
    let mut c = SystemCatalog::default();
    if let Err(e) = c.add_texts(
        BUILTIN_CONTROLLERS.iter().copied(),
        BUILTIN_ENCLOSURES.iter().copied(),
    ) {
        panic!("the built-in system catalog is invalid (a test should have caught this): {e}");
    }
    c
}

/// The `(file, text)` pairs of the shipped entries, for tests that compare them with the
/// directory.
pub fn builtin_files() -> impl Iterator<Item = &'static str> {
    BUILTIN_CONTROLLERS
        .iter()
        .chain(BUILTIN_ENCLOSURES.iter())
        .map(|(f, _)| *f)
}

fn stem(name: &str) -> &str {
    Path::new(name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
}

fn read_dir_tomls(dir: &Path) -> Result<Vec<(String, String)>, SystemCatalogError> {
    let io = |e: std::io::Error| SystemCatalogError::Io {
        path: dir.display().to_string(),
        message: e.to_string(),
    };
    let mut paths = Vec::new();
    if !dir.exists() {
        return Ok(Vec::new());
    }
    for item in std::fs::read_dir(dir).map_err(io)? {
        let path = item.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "toml") {
            paths.push(path);
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            std::fs::read_to_string(&p)
                .map(|t| (p.display().to_string(), t))
                .map_err(|e| SystemCatalogError::Io {
                    path: p.display().to_string(),
                    message: e.to_string(),
                })
        })
        .collect()
}

impl SystemCatalog {
    /// The shipped entries plus those under `<dir>/system/controller/` and
    /// `<dir>/system/enclosure/` (either may be absent); an id defined twice is an error.
    pub fn with_dir(dir: &Path) -> Result<SystemCatalog, SystemCatalogError> {
        let mut c = builtin();
        let controllers = read_dir_tomls(&dir.join("system").join("controller"))?;
        let enclosures = read_dir_tomls(&dir.join("system").join("enclosure"))?;
        c.add_texts(
            controllers.iter().map(|(n, t)| (n.as_str(), t.as_str())),
            enclosures.iter().map(|(n, t)| (n.as_str(), t.as_str())),
        )?;
        Ok(c)
    }

    /// Parse, check and add entries given as (file name, text) pairs.
    pub fn add_texts<'a>(
        &mut self,
        controllers: impl IntoIterator<Item = (&'a str, &'a str)>,
        enclosures: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(), SystemCatalogError> {
        for (name, text) in controllers {
            let e: ControllerEntry = tierlab_config::parse_toml_validated(text, name)?;
            insert(&mut self.controllers, "controller", name, e.id.clone(), e)?;
        }
        for (name, text) in enclosures {
            let e: EnclosureEntry = tierlab_config::parse_toml_validated(text, name)?;
            insert(&mut self.enclosures, "enclosure", name, e.id.clone(), e)?;
        }
        Ok(())
    }

    pub fn controller(&self, id: &str) -> Result<&ControllerEntry, SystemCatalogError> {
        self.controllers
            .get(id)
            .map(|(_, e)| e)
            .ok_or_else(|| SystemCatalogError::Unknown {
                kind: "controller",
                id: id.into(),
                known: self.controllers.keys().cloned().collect(),
            })
    }

    pub fn enclosure(&self, id: &str) -> Result<&EnclosureEntry, SystemCatalogError> {
        self.enclosures
            .get(id)
            .map(|(_, e)| e)
            .ok_or_else(|| SystemCatalogError::Unknown {
                kind: "enclosure",
                id: id.into(),
                known: self.enclosures.keys().cloned().collect(),
            })
    }

    pub fn controllers(&self) -> impl Iterator<Item = &ControllerEntry> {
        self.controllers.values().map(|(_, e)| e)
    }

    pub fn enclosures(&self) -> impl Iterator<Item = &EnclosureEntry> {
        self.enclosures.values().map(|(_, e)| e)
    }
}

fn insert<T>(
    map: &mut BTreeMap<String, (String, T)>,
    kind: &'static str,
    file: &str,
    id: String,
    entry: T,
) -> Result<(), SystemCatalogError> {
    if stem(file) != id {
        return Err(SystemCatalogError::FileName {
            file: file.into(),
            id,
        });
    }
    if let Some((first, _)) = map.get(&id) {
        return Err(SystemCatalogError::Duplicate {
            kind,
            id,
            first: first.clone(),
            second: file.into(),
        });
    }
    map.insert(id, (file.into(), entry));
    Ok(())
}
