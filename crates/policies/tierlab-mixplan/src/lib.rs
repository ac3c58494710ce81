//! HybridStore's capacity planner, MixPlan (Y. Kim, PhD dissertation, Penn State 2009,
//! chapter 4): for a workload's data classes, the cheapest number of devices of each type
//! and the placement of every class, over a horizon, subject to capacity, bandwidth and
//! SSD lifetime. Pure decision code: it reads numbers (classes, device types, each
//! class's bandwidth on each type) and returns a plan; measuring those numbers and
//! checking a plan by simulation live with the executors.
//!
//! The program, with i a device type and j a class:
//! - variables: `y_i` devices of type i (integer ≥ 0), `x_ij` GB of class j on type i
//!   (continuous ≥ 0);
//! - cost (Eqs. 4.1–4.3): `Σ_i y_i (price_i + κ · $/kWh · (device_w + supplement_w) ·
//!   hours)`, κ = 2 counting cooling as equal to the electricity (Eq. 4.3), κ = 1 the
//!   electricity alone (what the research's printed /hm figures add up to);
//! - every class placed: `Σ_i x_ij = S_j`;
//! - capacity: `Σ_j x_ij ≤ U_i C_i y_i`;
//! - bandwidth, literal Eq. 4.6 (per pair): `F_j x_ij / S_j ≤ B_ij y_i`, or aggregated
//!   (per type): `Σ_j F_j x_ij / (S_j B_ij) ≤ y_i`;
//! - SSD lifetime ≥ the horizon (Eq. 4.7 read the way its text means it; the printed
//!   inequality is reversed): `Σ_j W_j x_ij / S_j · horizon ≤ N_i C_i y_i`, with W_j the
//!   class's write rate (its mean by default, or its write share of F_j) and N_i the rated
//!   erase cycles (Eq. 4.8, no write amplification).
//!
//! Solved through `good_lp` with HiGHS (feature `highs`; it builds HiGHS from source,
//! which needs cmake, a C++ compiler and libclang) or, always available, the pure-Rust
//! microlp branch and bound ([`SolverKind`]). The runner-up plans are the cheapest plans that
//! use a different set of device types (every non-empty subset is solved, so the
//! single-type plans — all high-end, all low-end, SSD-only — come out of the same run).

pub mod catalog;

use catalog::{Kind, PlanDevice};
use good_lp::{constraint, variable, Expression, ResolutionError, Solution, SolverModel, Variable};
use serde::{Deserialize, Serialize};

/// The research's year: 8,760 hours (its $114.7 of five years' power counts them).
pub const HOURS_PER_YEAR: f64 = tierlab_cost::SECONDS_PER_365_DAY_YEAR / 3600.0;
const SECONDS_PER_YEAR: f64 = tierlab_cost::SECONDS_PER_365_DAY_YEAR;

/// How money is counted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostModel {
    pub horizon_years: f64,
    pub usd_per_kwh: f64,
    /// 2: cooling costs as much as the electricity (Eq. 4.3); 1: electricity only.
    pub cooling_factor: f64,
    /// False: purchase price only (the research's Figure 4.9(b)).
    pub recurring: bool,
}

impl Default for CostModel {
    /// The research's five years at $0.10/kWh with cooling (Eq. 4.3).
    fn default() -> Self {
        CostModel {
            horizon_years: 5.0,
            usd_per_kwh: 0.10,
            cooling_factor: 2.0,
            recurring: true,
        }
    }
}

/// One device's cost over the horizon.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DeviceCost {
    pub install_usd: f64,
    pub electricity_usd: f64,
    pub cooling_usd: f64,
}

impl DeviceCost {
    pub fn recurring_usd(&self) -> f64 {
        self.electricity_usd + self.cooling_usd
    }
    pub fn total_usd(&self) -> f64 {
        self.install_usd + self.recurring_usd()
    }
    fn times(self, n: f64) -> DeviceCost {
        DeviceCost {
            install_usd: self.install_usd * n,
            electricity_usd: self.electricity_usd * n,
            cooling_usd: self.cooling_usd * n,
        }
    }
    fn plus(self, o: DeviceCost) -> DeviceCost {
        DeviceCost {
            install_usd: self.install_usd + o.install_usd,
            electricity_usd: self.electricity_usd + o.electricity_usd,
            cooling_usd: self.cooling_usd + o.cooling_usd,
        }
    }
}

impl CostModel {
    /// Eqs. 4.1–4.3 for one device: its price, and its power (device + array supplement)
    /// for the horizon's hours at the tariff, cooling as `cooling_factor − 1` times that.
    pub fn device(&self, d: &PlanDevice) -> Result<DeviceCost, String> {
        let install_usd = d.price_usd()?;
        if !self.recurring {
            return Ok(DeviceCost {
                install_usd,
                ..DeviceCost::default()
            });
        }
        let electricity_usd =
            d.power_w() / 1000.0 * self.horizon_years * HOURS_PER_YEAR * self.usd_per_kwh;
        Ok(DeviceCost {
            install_usd,
            electricity_usd,
            cooling_usd: electricity_usd * (self.cooling_factor - 1.0),
        })
    }

    pub fn check(&self) -> Result<(), String> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !(self.horizon_years.is_finite() && self.horizon_years > 0.0) {
            return Err(format!(
                "horizon: expected a positive number of years, found {}",
                self.horizon_years
            ));
        }
        if !ok(self.usd_per_kwh) {
            return Err(format!(
                "electricity price: expected $/kWh >= 0, found {}",
                self.usd_per_kwh
            ));
        }
        if !(self.cooling_factor.is_finite() && self.cooling_factor >= 1.0) {
            return Err(format!("cooling factor: expected >= 1 (1 = no cooling, 2 = cooling equal to electricity), found {}", self.cooling_factor));
        }
        Ok(())
    }
}

/// Which MILP solver runs the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    #[cfg(feature = "highs")]
    Highs,
    Microlp,
}

impl SolverKind {
    /// HiGHS where it is built in, else microlp.
    pub fn best() -> SolverKind {
        #[cfg(feature = "highs")]
        return SolverKind::Highs;
        #[cfg(not(feature = "highs"))]
        return SolverKind::Microlp;
    }

    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "highs")]
            SolverKind::Highs => "HiGHS",
            SolverKind::Microlp => "microlp",
        }
    }
}

/// What a data class needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassNeed {
    pub label: String,
    /// S_j, GB (10^9 bytes).
    pub size_gb: f64,
    /// F_j: the 95th percentile of the class's per-second bandwidth, KB/s (10^3 bytes).
    pub bandwidth_kb_s: f64,
    /// The class's mean write rate, KB/s.
    pub write_mean_kb_s: f64,
    /// Its share of bytes written.
    pub write_fraction: f64,
    /// Mean request size and read share: what B_ij is measured with.
    pub mean_request_bytes: f64,
    pub read_fraction: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BandwidthForm {
    /// Eq. 4.6 as printed: each class against each type's bandwidth on its own.
    Literal,
    /// The classes on a type share its bandwidth.
    Aggregated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WearRate {
    /// The class's mean write rate wears the flash.
    Mean,
    /// The write share of F_j (a 95th-percentile peak) does.
    Peak,
}

/// The planning problem.
#[derive(Clone, Debug, Serialize)]
pub struct Problem {
    pub devices: Vec<PlanDevice>,
    pub classes: Vec<ClassNeed>,
    /// B_ij, KB/s: what one device of type i delivers to class j (0: cannot serve it).
    pub bandwidth_kb_s: Vec<Vec<f64>>,
    pub cost: CostModel,
    pub bandwidth_form: BandwidthForm,
    pub wear_rate: WearRate,
    /// The SSDs must last this long (the research: the HDDs' useful life, 5 years).
    pub lifetime_years: f64,
    /// At most this many devices in all (slots), if set.
    pub max_devices: Option<u32>,
    pub solver: SolverKind,
}

/// What sets a device type's count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    Capacity,
    Bandwidth,
    Lifetime,
}

/// One device type's part of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TypeUse {
    pub device: String,
    pub kind: Kind,
    pub count: u32,
    /// GB placed on the type, per class (same order as the problem's classes).
    pub placed_gb: Vec<f64>,
    /// Devices needed for each constraint alone, at this placement (fractional).
    pub need_capacity: f64,
    pub need_bandwidth: f64,
    pub need_lifetime: f64,
    /// The constraint that needs the most devices.
    pub binding: Option<Binding>,
    /// SSDs: projected years at this placement's write rate (Eq. 4.8).
    pub lifetime_years: Option<f64>,
    pub cost: DeviceCost,
}

/// A solved plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// The device types it may use.
    pub allowed: Vec<String>,
    pub types: Vec<TypeUse>,
    pub cost: DeviceCost,
    pub total_usd: f64,
}

impl Plan {
    /// "1 x25m + 6 samsung-green-1tb".
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .types
            .iter()
            .filter(|t| t.count > 0)
            .map(|t| format!("{} {}", t.count, t.device))
            .collect();
        if parts.is_empty() {
            "no devices".into()
        } else {
            parts.join(" + ")
        }
    }

    pub fn counts(&self) -> Vec<u32> {
        self.types.iter().map(|t| t.count).collect()
    }
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error("{0}")]
    Input(String),
    #[error("infeasible: {0}")]
    Infeasible(String),
    #[error("the solver failed: {0}")]
    Solver(String),
}

/// The best plan, the runner-ups and the single-type plans.
#[derive(Clone, Debug, Serialize)]
pub struct Study {
    pub best: Plan,
    /// The cheapest plans with other sets of device types, cheapest first.
    pub runner_ups: Vec<Plan>,
    /// One per device type: everything on that type alone (or why it cannot be done).
    pub single_type: Vec<SingleType>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SingleType {
    pub device: String,
    pub plan: Option<Plan>,
    pub infeasible: Option<String>,
    /// (its cost − the best's) / its cost, %.
    pub saving_percent: Option<f64>,
}

impl Problem {
    fn check(&self) -> Result<(), PlanError> {
        let bad = |m: String| Err(PlanError::Input(m));
        self.cost.check().map_err(PlanError::Input)?;
        if self.devices.is_empty() {
            return bad("no device types to plan with".into());
        }
        if self.bandwidth_kb_s.len() != self.devices.len()
            || self
                .bandwidth_kb_s
                .iter()
                .any(|r| r.len() != self.classes.len())
        {
            return bad(format!(
                "bandwidth table: expected {} rows of {} classes",
                self.devices.len(),
                self.classes.len()
            ));
        }
        if !(self.lifetime_years.is_finite() && self.lifetime_years >= 0.0) {
            return bad(format!(
                "lifetime target: expected years >= 0, found {}",
                self.lifetime_years
            ));
        }
        for c in &self.classes {
            for (what, v) in [
                ("size", c.size_gb),
                ("bandwidth", c.bandwidth_kb_s),
                ("write rate", c.write_mean_kb_s),
                ("write share", c.write_fraction),
            ] {
                if !(v.is_finite() && v >= 0.0) {
                    return bad(format!(
                        "class {}: {what}: expected a number >= 0, found {v}",
                        c.label
                    ));
                }
            }
        }
        for (i, row) in self.bandwidth_kb_s.iter().enumerate() {
            if let Some(v) = row.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
                return bad(format!(
                    "bandwidth of device `{}`: expected KB/s >= 0, found {v}",
                    self.devices[i].id
                ));
            }
        }
        for d in &self.devices {
            self.cost.device(d).map_err(PlanError::Input)?;
        }
        // A class with a bandwidth need that no device type can serve at all.
        for (j, c) in self.classes.iter().enumerate() {
            if c.size_gb > 0.0
                && c.bandwidth_kb_s > 0.0
                && self.bandwidth_kb_s.iter().all(|r| r[j] <= 0.0)
            {
                return Err(PlanError::Infeasible(format!("class {} needs {:.1} KB/s and no device type can serve it (bandwidth 0 on every type)", c.label, c.bandwidth_kb_s)));
            }
        }
        Ok(())
    }

    /// Write rate that wears the flash when all of class j is on one type, KB/s.
    fn wear_kb_s(&self, j: usize) -> f64 {
        let c = &self.classes[j];
        match self.wear_rate {
            WearRate::Mean => c.write_mean_kb_s,
            WearRate::Peak => c.write_fraction * c.bandwidth_kb_s,
        }
    }

    /// GB each SSD of type i may absorb over the lifetime target: C · N.
    fn endurance_gb(&self, i: usize) -> Option<f64> {
        let d = &self.devices[i];
        (d.kind == Kind::Ssd).then(|| d.capacity_gb * d.erase_cycles.unwrap_or(0.0))
    }

    /// The cheapest plan using only the types with `allowed[i]`. The counts come from
    /// the MILP; the placement is then made canonical (any placement the counts allow
    /// costs the same): a second, linear program with the counts fixed puts each class
    /// where it uses the smallest share of a device's bandwidth, so that what a plan
    /// reports as binding does not depend on which of many equal placements the solver
    /// happened to return.
    pub fn solve(&self, allowed: &[bool]) -> Result<Plan, PlanError> {
        self.check()?;
        let costs: Vec<f64> = self
            .devices
            .iter()
            .map(|d| self.cost.device(d).map(|c| c.total_usd()))
            .collect::<Result<_, _>>()
            .map_err(PlanError::Input)?;
        let (counts, _) = self.program(allowed, None, &costs).map_err(|e| match e {
            PlanError::Infeasible(_) => PlanError::Infeasible(self.why_infeasible(allowed)),
            e => e,
        })?;
        let (_, placed) = self.program(allowed, Some(&counts), &costs)?;
        self.describe(allowed, &counts, &placed)
    }

    /// One solve: the MILP over counts and placement, or (`fixed` counts) the LP over the
    /// placement alone, minimising bandwidth share.
    fn program(
        &self,
        allowed: &[bool],
        fixed: Option<&[u32]>,
        costs: &[f64],
    ) -> Result<(Vec<u32>, Vec<Vec<f64>>), PlanError> {
        match self.solver {
            #[cfg(feature = "highs")]
            SolverKind::Highs => self.program_with(good_lp::highs, allowed, fixed, costs),
            SolverKind::Microlp => self.program_with(good_lp::microlp, allowed, fixed, costs),
        }
    }

    fn program_with<S: good_lp::Solver>(
        &self,
        solver: S,
        allowed: &[bool],
        fixed: Option<&[u32]>,
        costs: &[f64],
    ) -> Result<(Vec<u32>, Vec<Vec<f64>>), PlanError>
    where
        S::Model: SolverModel<Error = ResolutionError>,
    {
        let (ni, nj) = (self.devices.len(), self.classes.len());
        let mut vars = good_lp::variables!();
        let y: Vec<Expression> = (0..ni)
            .map(|i| match fixed {
                Some(counts) => Expression::from(f64::from(counts[i])),
                None => vars
                    .add(if allowed[i] {
                        variable().integer().min(0)
                    } else {
                        variable().integer().min(0).max(0)
                    })
                    .into(),
            })
            .collect();
        let x: Vec<Vec<Variable>> = (0..ni)
            .map(|i| {
                (0..nj)
                    .map(|_| {
                        vars.add(if allowed[i] {
                            variable().min(0)
                        } else {
                            variable().min(0).max(0)
                        })
                    })
                    .collect()
            })
            .collect();
        // The share of one device's bandwidth a GB of class j takes on type i.
        let share = |i: usize, j: usize| {
            let c = &self.classes[j];
            let b = self.bandwidth_kb_s[i][j];
            if c.size_gb <= 0.0 || c.bandwidth_kb_s <= 0.0 || b <= 0.0 {
                0.0
            } else {
                c.bandwidth_kb_s / c.size_gb / b
            }
        };
        let objective: Expression = match fixed {
            None => (0..ni).map(|i| costs[i] * y[i].clone()).sum(),
            Some(_) => (0..ni)
                .flat_map(|i| (0..nj).map(move |j| (i, j)))
                .map(|(i, j)| share(i, j) * x[i][j])
                .sum(),
        };
        let mut model = vars.minimise(objective).using(solver);
        let horizon_s = self.lifetime_years * SECONDS_PER_YEAR;
        for (j, c) in self.classes.iter().enumerate() {
            let placed: Expression = (0..ni).map(|i| x[i][j]).sum();
            model = model.with(constraint!(placed == c.size_gb));
        }
        for i in 0..ni {
            let d = &self.devices[i];
            let on_type: Expression = (0..nj).map(|j| x[i][j]).sum();
            model = model.with(constraint!(on_type <= d.usable_gb() * y[i].clone()));
            let mut shared = Expression::from(0.0);
            for (j, c) in self.classes.iter().enumerate() {
                if c.size_gb <= 0.0 || c.bandwidth_kb_s <= 0.0 {
                    continue;
                }
                let b = self.bandwidth_kb_s[i][j];
                if b <= 0.0 {
                    model = model.with(constraint!(x[i][j] <= 0.0));
                    continue;
                }
                match self.bandwidth_form {
                    BandwidthForm::Literal => {
                        model = model.with(constraint!(
                            c.bandwidth_kb_s / c.size_gb * x[i][j] <= b * y[i].clone()
                        ))
                    }
                    BandwidthForm::Aggregated => shared += share(i, j) * x[i][j],
                }
            }
            if self.bandwidth_form == BandwidthForm::Aggregated {
                model = model.with(constraint!(shared <= y[i].clone()));
            }
            if let Some(endurance_gb) = self.endurance_gb(i) {
                let mut written_gb = Expression::from(0.0);
                for (j, c) in self.classes.iter().enumerate() {
                    if c.size_gb > 0.0 {
                        written_gb += (self.wear_kb_s(j) / c.size_gb * horizon_s / 1e6) * x[i][j];
                    }
                }
                model = model.with(constraint!(written_gb <= endurance_gb * y[i].clone()));
            }
        }
        if let (Some(max), None) = (self.max_devices, fixed) {
            let all: Expression = y.iter().cloned().sum();
            model = model.with(constraint!(all <= f64::from(max)));
        }
        let solution = match model.solve() {
            Ok(s) => s,
            Err(ResolutionError::Infeasible) => return Err(PlanError::Infeasible(String::new())),
            Err(ResolutionError::Unbounded) => {
                return Err(PlanError::Solver("unbounded (a negative cost?)".into()))
            }
            Err(e) => return Err(PlanError::Solver(e.to_string())),
        };
        let counts: Vec<u32> = match fixed {
            Some(c) => c.to_vec(),
            None => y
                .iter()
                .map(|e| solution.eval(e).round().max(0.0) as u32)
                .collect(),
        };
        let placed: Vec<Vec<f64>> = x
            .iter()
            .map(|row| row.iter().map(|v| solution.value(*v).max(0.0)).collect())
            .collect();
        Ok((counts, placed))
    }

    /// A plan's figures from its counts and placement.
    fn describe(
        &self,
        allowed: &[bool],
        counts: &[u32],
        placed: &[Vec<f64>],
    ) -> Result<Plan, PlanError> {
        let horizon_s = self.lifetime_years * SECONDS_PER_YEAR;
        let mut total = DeviceCost::default();
        let mut types = Vec::new();
        for (i, d) in self.devices.iter().enumerate() {
            let row = &placed[i];
            let on_type: f64 = row.iter().sum();
            let need_capacity = on_type / d.usable_gb();
            let loads: Vec<f64> = self
                .classes
                .iter()
                .enumerate()
                .filter(|(_, c)| c.size_gb > 0.0 && c.bandwidth_kb_s > 0.0)
                .map(|(j, c)| {
                    let b = self.bandwidth_kb_s[i][j];
                    let load = c.bandwidth_kb_s * row[j] / c.size_gb;
                    if load <= 0.0 {
                        0.0
                    } else if b > 0.0 {
                        load / b
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
            let need_bandwidth = match self.bandwidth_form {
                BandwidthForm::Literal => loads.iter().copied().fold(0.0, f64::max),
                BandwidthForm::Aggregated => loads.iter().sum(),
            };
            let wear_kb_s: f64 = self
                .classes
                .iter()
                .enumerate()
                .filter(|(_, c)| c.size_gb > 0.0)
                .map(|(j, c)| self.wear_kb_s(j) * row[j] / c.size_gb)
                .sum();
            let (need_lifetime, lifetime_years) = match self.endurance_gb(i) {
                Some(e) if e > 0.0 => {
                    let per_device = e * f64::from(counts[i]);
                    let years = if wear_kb_s > 0.0 {
                        Some(per_device * 1e6 / wear_kb_s / SECONDS_PER_YEAR)
                    } else {
                        None
                    };
                    (wear_kb_s * horizon_s / 1e6 / e, years)
                }
                _ => (0.0, None),
            };
            let needs = [
                (Binding::Capacity, need_capacity),
                (Binding::Bandwidth, need_bandwidth),
                (Binding::Lifetime, need_lifetime),
            ];
            let binding = needs
                .iter()
                .filter(|(_, n)| *n > 1e-9)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(b, _)| *b);
            let cost = self
                .cost
                .device(d)
                .map_err(PlanError::Input)?
                .times(f64::from(counts[i]));
            total = total.plus(cost);
            types.push(TypeUse {
                device: d.id.clone(),
                kind: d.kind,
                count: counts[i],
                placed_gb: row.clone(),
                need_capacity,
                need_bandwidth,
                need_lifetime,
                binding,
                lifetime_years,
                cost,
            });
        }
        Ok(Plan {
            allowed: self
                .devices
                .iter()
                .zip(allowed)
                .filter(|(_, a)| **a)
                .map(|(d, _)| d.id.clone())
                .collect(),
            types,
            total_usd: total.total_usd(),
            cost: total,
        })
    }

    /// Which constraint makes a type set infeasible: the first whose removal makes it
    /// feasible, with the figure that cannot be met.
    fn why_infeasible(&self, allowed: &[bool]) -> String {
        let types: Vec<&str> = self
            .devices
            .iter()
            .zip(allowed)
            .filter(|(_, a)| **a)
            .map(|(d, _)| d.id.as_str())
            .collect();
        if types.is_empty() {
            return "no device type allowed".into();
        }
        for (j, c) in self.classes.iter().enumerate() {
            if c.size_gb > 0.0
                && c.bandwidth_kb_s > 0.0
                && (0..self.devices.len()).all(|i| !allowed[i] || self.bandwidth_kb_s[i][j] <= 0.0)
            {
                return format!(
                    "bandwidth binds: class {} ({:.1} KB/s) cannot be served by {}",
                    c.label,
                    c.bandwidth_kb_s,
                    types.join(", ")
                );
            }
        }
        if let Some(max) = self.max_devices {
            let relaxed = Problem {
                max_devices: None,
                ..self.clone()
            };
            if let Ok(p) = relaxed.solve(allowed) {
                let n: u32 = p.counts().iter().sum();
                let binding = p
                    .types
                    .iter()
                    .filter(|t| t.count > 0)
                    .filter_map(|t| t.binding)
                    .next();
                return format!(
                    "the limit of {max} devices binds: {} needs {n} ({})",
                    types.join(", "),
                    binding.map_or("".into(), |b| format!("{b:?} binds").to_lowercase())
                );
            }
        }
        format!("no plan with {} meets every constraint", types.join(", "))
    }

    /// The best plan over all device types, the runner-ups (the best plan of every other
    /// set of types, cheapest first, distinct device counts only) and each type alone.
    pub fn study(&self, runner_ups: usize) -> Result<Study, PlanError> {
        self.check()?;
        let n = self.devices.len();
        if n > 12 {
            return Err(PlanError::Input(format!(
                "{n} device types: expected at most 12 (every subset is solved)"
            )));
        }
        let mut plans: Vec<Plan> = Vec::new();
        let mut single_type = Vec::new();
        let mut last_error = None;
        for mask in 1u32..(1 << n) {
            let allowed: Vec<bool> = (0..n).map(|i| mask & (1 << i) != 0).collect();
            match self.solve(&allowed) {
                Ok(p) => plans.push(p),
                Err(PlanError::Infeasible(why)) => {
                    if mask.count_ones() == 1 {
                        single_type.push((mask.trailing_zeros() as usize, None, Some(why.clone())));
                    }
                    last_error = Some(why);
                    continue;
                }
                Err(e) => return Err(e),
            }
            if mask.count_ones() == 1 {
                single_type.push((mask.trailing_zeros() as usize, plans.last().cloned(), None));
            }
        }
        plans.sort_by(|a, b| {
            a.total_usd
                .total_cmp(&b.total_usd)
                .then_with(|| a.allowed.len().cmp(&b.allowed.len()))
        });
        let mut distinct: Vec<Plan> = Vec::new();
        for p in plans {
            if !distinct.iter().any(|d| d.counts() == p.counts()) {
                distinct.push(p);
            }
        }
        let mut it = distinct.into_iter();
        let best = it
            .next()
            .ok_or_else(|| PlanError::Infeasible(last_error.unwrap_or_else(|| "no plan".into())))?;
        single_type.sort_by_key(|(i, _, _)| *i);
        let single_type = single_type
            .into_iter()
            .map(|(i, plan, infeasible)| SingleType {
                device: self.devices[i].id.clone(),
                saving_percent: plan.as_ref().map(|p| {
                    if p.total_usd > 0.0 {
                        (p.total_usd - best.total_usd) / p.total_usd * 100.0
                    } else {
                        0.0
                    }
                }),
                plan,
                infeasible,
            })
            .collect();
        Ok(Study {
            runner_ups: it.take(runner_ups).collect(),
            best,
            single_type,
        })
    }
}
