//! `tierlab overview` (and `tierlab` with no command): the question tierlab exists to
//! answer, on one workload. Five drive designs — SSD-only, HDD-only, linear, GreenDM
//! tiering and caching — each with its throughput, mean latency, energy, wear and cost
//! over the drive's life, measured at steady state with 95 % intervals, and a verdict
//! among the designs that carry the load: the fastest, the cheapest over the horizon, the
//! best per dollar, with ties called. The runs, prices and verdict are
//! `tierlab_hybrid_study::overview`'s, its text (fitting 80 columns) `tierlab_render::overview`'s;
//! this module turns flags into its inputs and writes what comes back.

use crate::cmd_simulate::{ReplayMode, RunArgs};
use crate::hybrid::{DesignArgs, KnobArgs};
use crate::measure_args::{PriceArgs};
use crate::progress::{requests_bar, write_json};
use anyhow::Result;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use tierlab_hybrid_study::Overview;
use tierlab_render::overview::{describe_workload, render};

#[derive(Args, Clone)]
pub struct OverviewArgs {
    /// The workload, devices and hybrid knobs, as `tierlab simulate` takes them. The
    /// designs replay closed-loop unless `--replay open` is given, as `compare` does.
    #[command(flatten)]
    pub base: RunArgs,
    /// The knobs of the tiering and caching designs.
    #[command(flatten)]
    pub knobs: KnobArgs,
    /// The drive's life: each design is priced over this many years.
    #[arg(long, default_value_t = 5.0)]
    pub years: f64,
    #[command(flatten)]
    pub prices: PriceArgs,
}

pub fn run(a: OverviewArgs) -> Result<()> {
    let workload = a.base.workload()?;
    let describe = describe_workload(&workload);
    let config = a.base.config(&DesignArgs { mode: None, knobs: a.knobs.clone() }, ReplayMode::Closed);
    let cost = a.prices.cost_model(a.years);
    let protocol = a.base.measurement.protocol()?;
    let bar = requests_bar("simulating");
    let result = tierlab_hybrid_study::overview(&config, &workload, &cost, &protocol, &mut |label, n| {
        bar.set_message(label.split_whitespace().next().unwrap_or(label).to_string());
        bar.set_position(n);
    });
    bar.finish_and_clear();
    let overview = result?;
    let mut out = crate::session::stdout();
    if a.base.json {
        return write_json(&mut out, &Report { workload: describe, overview: &overview });
    }
    write!(out, "{}", render(&describe, &overview, &config, &cost))?;
    Ok(())
}

/// The JSON: the workload described, then the overview's fields.
#[derive(Serialize)]
struct Report<'a> {
    workload: String,
    #[serde(flatten)]
    overview: &'a Overview,
}
