//! `tierlab plan`: HybridStore's capacity planner on a trace or on published statistics.
//! The study is `tierlab_plan_study`'s and its rendering `tierlab_render::plan`'s; this
//! module turns flags into its configuration and writes what comes back.

use crate::args::TraceInput;
use crate::measure_args::MeasureArgs;
use crate::progress::{requests_bar, write_file, write_json};
use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use std::io::Write;
use std::path::PathBuf;
use tierlab_mixplan::{BandwidthForm, WearRate};
use tierlab_plan_study::study::{PlanConfig, PlanProgress, PlanStudyError, PlanWorkload, PriceSetting};
use tierlab_plan_study::Options;

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Plan for this trace.
    #[arg(long, value_name = "FILE", conflicts_with = "stats", required_unless_present = "stats")]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub input: TraceInput,
    /// Plan for a workload statistics file (a synthesised stream stands in for the trace);
    /// a file, or the id of a shipped one (`catalog/workloads`).
    #[arg(long, value_name = "FILE|ID")]
    pub stats: Option<String>,
    /// Planning catalog: a shipped id (hybridstore-2009, recent) or a file.
    #[arg(long, value_name = "ID|FILE", default_value = "hybridstore-2009")]
    pub catalog: String,
    /// Leave a device type of the catalog out (repeatable).
    #[arg(long, value_name = "ID")]
    pub without: Vec<String>,
    /// Set a device type's price, $/GB (repeatable): `--price x25m=0.48`.
    #[arg(long, value_name = "ID=USD_PER_GB")]
    pub price: Vec<String>,
    /// 17 or 33 data classes.
    #[arg(long, default_value_t = 33)]
    pub classes: u32,
    #[arg(long, value_name = "YEARS", default_value_t = 5.0)]
    pub horizon_years: f64,
    /// The SSDs must last this long (default: the horizon).
    #[arg(long, value_name = "YEARS")]
    pub lifetime_years: Option<f64>,
    #[arg(long, value_name = "USD", default_value_t = 0.10)]
    pub usd_per_kwh: f64,
    /// Cooling as a multiple of the electricity: 2 counts cooling equal to it (Eq. 4.3),
    /// 1 counts electricity alone.
    #[arg(long, value_name = "FACTOR", default_value_t = 2.0)]
    pub cooling_factor: f64,
    /// Purchase price only (no power or cooling over the horizon).
    #[arg(long)]
    pub no_recurring: bool,
    /// How classes share a device type's bandwidth.
    #[arg(long, value_enum, default_value_t = FormArg::Literal)]
    pub bandwidth: FormArg,
    /// What wears the flash: each class's mean write rate, or its write share of F_j.
    #[arg(long, value_enum, default_value_t = WearArg::Mean)]
    pub wear: WearArg,
    /// At most this many devices in all.
    #[arg(long, value_name = "N")]
    pub max_devices: Option<u32>,
    /// Multiply every class's bandwidth need (the research's 1x-8x arrival-rate scaling).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub scale: f64,
    /// How many runner-up plans to list.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runner_ups: usize,
    /// Requests per class shape when measuring a device's bandwidth.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub probe_requests: u32,
    /// Requests kept outstanding when measuring a device's bandwidth (1: one request's
    /// service time, the research's disk model; more lets an SSD use its channels).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub probe_depth: u32,
    /// Measure an SSD timed from its data sheet on its internals model instead (the
    /// catalog entry's `internals`, filled to its usable share and aged): the aged-FTL
    /// sensitivity run.
    #[arg(long)]
    pub ssd_internals: bool,
    /// Measure device bandwidths anew instead of reading the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Check the plan by simulation: build it (and each device type alone) from
    /// tierlab's device models, replay the workload, and set what the planner assumed
    /// beside what happened.
    #[arg(long)]
    pub simulate: bool,
    /// How `--simulate` measures each design (`docs/measurement.md`).
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Seed of the synthesised stream (`--stats`) and of the simulated placement.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
    /// Also write an HTML report.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormArg {
    Literal,
    Aggregated,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WearArg {
    Mean,
    Peak,
}

pub fn run(a: PlanArgs) -> Result<()> {
    let options = Options {
        cost: tierlab_mixplan::CostModel { horizon_years: a.horizon_years, usd_per_kwh: a.usd_per_kwh, cooling_factor: a.cooling_factor, recurring: !a.no_recurring },
        bandwidth_form: match a.bandwidth {
            FormArg::Literal => BandwidthForm::Literal,
            FormArg::Aggregated => BandwidthForm::Aggregated,
        },
        wear_rate: match a.wear {
            WearArg::Mean => WearRate::Mean,
            WearArg::Peak => WearRate::Peak,
        },
        lifetime_years: a.lifetime_years,
        max_devices: a.max_devices,
        solver: tierlab_mixplan::SolverKind::best(),
        rate_scale: a.scale,
        runner_ups: a.runner_ups,
        probe: tierlab_plan_study::Probe { requests: a.probe_requests.max(1), queue_depth: a.probe_depth.max(1), ssd_internals: a.ssd_internals, ..Default::default() },
    };
    // The numbers first, as the study checks them, so that they are named before the prices.
    tierlab_plan_study::study::check_inputs(&options).map_err(|e| blame(e, &a))?;
    let mut prices = Vec::with_capacity(a.price.len());
    for p in &a.price {
        let (id, usd) = p.split_once('=').ok_or_else(|| anyhow!("--price {p}: expected ID=USD_PER_GB"))?;
        let usd: f64 = usd.parse().ok().filter(|v: &f64| v.is_finite() && (0.0..=1e6).contains(v)).ok_or_else(|| anyhow!("--price {p}: expected a price from 0 to 1e6 $/GB after `=`"))?;
        prices.push(PriceSetting { device: id.to_string(), usd_per_gb: usd });
    }
    let protocol = a.measure.protocol()?;
    let workload = match (&a.trace, &a.stats) {
        (Some(path), _) => PlanWorkload::Trace { path: path.clone(), read: a.input.read_options()? },
        (None, Some(stats)) => PlanWorkload::Stats { stats: stats.clone(), seed: a.seed },
        (None, None) => anyhow::bail!("give --trace FILE or --stats FILE"),
    };
    let cfg = PlanConfig {
        workload,
        catalog: a.catalog.clone(),
        without: a.without.clone(),
        prices,
        classes: a.classes,
        options,
        cache_dir: if a.no_cache { None } else { tierlab_plan_study::default_cache_dir() },
        simulate: a.simulate.then_some(protocol),
    };
    let mut bar: Option<(&str, ProgressBar)> = None;
    let planned = tierlab_plan_study::study::run(&cfg, &mut |p| {
        let title = match p {
            PlanProgress::Labelling { .. } | PlanProgress::MeasuringClasses => "labelling records",
            PlanProgress::Synthesising => "synthesising and labelling records",
            PlanProgress::Bandwidth(_) => "measuring device bandwidths",
            PlanProgress::Simulating { .. } => "simulating",
        };
        if bar.as_ref().is_none_or(|(t, _)| *t != title) {
            if let Some((_, b)) = bar.take() {
                b.finish_and_clear();
            }
            bar = Some((title, requests_bar(title)));
        }
        if let Some((_, b)) = &bar {
            match p {
                PlanProgress::Labelling { requests } => b.set_position(requests),
                PlanProgress::MeasuringClasses => b.set_message("measuring classes"),
                PlanProgress::Bandwidth(m) => b.set_message(m.to_string()),
                PlanProgress::Simulating { design, requests } => {
                    b.set_message(design.to_string());
                    b.set_position(requests);
                }
                PlanProgress::Synthesising => {}
            }
        }
    });
    if let Some((_, b)) = bar {
        b.finish_and_clear();
    }
    let planned = planned.map_err(|e| blame(e, &a))?;
    let mut out = crate::session::stdout();
    if a.json {
        write_json(&mut out, &planned.report)?;
    } else {
        write!(out, "{}", tierlab_render::plan::render_text(&planned.report, &planned.catalog))?;
    }
    if let Some(path) = &a.html {
        write_file(path, tierlab_render::plan_html::render(&planned.report, &planned.catalog)?)?;
    }
    Ok(())
}

/// A study's error in the words of the flags that set the field at fault.
fn blame(e: PlanStudyError, a: &PlanArgs) -> anyhow::Error {
    use PlanStudyError as E;
    match e {
        E::Range { field, expected, found } => {
            let flag = match field {
                "options.rate_scale" => "--scale",
                "options.cost.horizon_years" => "--horizon-years",
                "options.lifetime_years" => "--lifetime-years",
                "options.cost.usd_per_kwh" => "--usd-per-kwh",
                "options.cost.cooling_factor" => "--cooling-factor",
                f => f,
            };
            anyhow!("{flag}: expected {expected}, found {found}")
        }
        E::Classes(n) => anyhow!("--classes: expected 17 or 33, found {n}"),
        E::Catalog { catalog, message } => anyhow!("--catalog {catalog}: {message}"),
        E::Without { device, catalog, known } => anyhow!("--without {device}: no such device type in catalog `{catalog}` (it has {known})"),
        E::Price { device, known } => {
            let p = a.price.iter().find(|p| p.split_once('=').is_some_and(|(id, _)| id == device)).cloned().unwrap_or_default();
            anyhow!("--price {p}: no device type `{device}` in the catalog (it has {known})")
        }
        E::Run(e) => e,
        e => e.into(),
    }
}
