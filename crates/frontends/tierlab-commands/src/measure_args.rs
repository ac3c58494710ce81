//! The measurement layer's flags, shared by every command that measures designs
//! (`overview`, `compare`): how long a run warms up, how long it goes on, how sure its
//! figures must be (`docs/measurement.md`).

use anyhow::{anyhow, Result};
use clap::Args;
use tierlab_cost::DemandBilling;
use tierlab_hybrid_study::{CostModel, Protocol, READ_EFFECT};

#[derive(Args, Clone, Debug)]
pub struct MeasureArgs {
    /// Host requests per batch: the unit the warm-up, run length and intervals are judged in.
    #[arg(long, value_name = "N", default_value_t = Protocol::default().batch_requests)]
    pub batch_requests: u64,
    /// Stop a run once every key figure's 95 % interval is within this share of its mean.
    #[arg(long, value_name = "SHARE", default_value_t = Protocol::default().target_relative_half_width)]
    pub target_interval: f64,
    /// Take at most this many requests per run, warm-up included (a synthetic workload
    /// generates on from its seed, a trace plays pass after pass until then); a warm-up not
    /// over by half of them is cut there and marked.
    #[arg(long, value_name = "N", default_value_t = Protocol::default().max_requests)]
    pub run_requests: u64,
    /// Measure from the first request instead of detecting the end of the warm-up.
    #[arg(long)]
    pub no_warmup: bool,
}

impl MeasureArgs {
    pub fn protocol(&self) -> Result<Protocol> {
        let p = Protocol {
            batch_requests: self.batch_requests,
            detect_warmup: !self.no_warmup,
            target_relative_half_width: self.target_interval,
            max_requests: self.run_requests,
            ..Protocol::default()
        };
        p.validate().map_err(|e| anyhow!("{e}").context("--batch-requests, --target-interval, --run-requests"))?;
        Ok(p)
    }
}

/// How designs are priced: the flags `overview` and `compare` share.
#[derive(Args, Clone)]
pub struct PriceArgs {
    /// Device prices and rated limits (catalog/cost).
    #[arg(long, default_value = "greendm-2012")]
    pub prices: String,
    /// Electricity tariff (catalog/cost).
    #[arg(long, default_value = "lipa-285-recent")]
    pub tariff: String,
    /// SSD wear counts reads times this ratio as well as writes (the GreenDM dissertation
    /// prices its costs at 1/10 and also reports 1/100).
    #[arg(long, default_value_t = READ_EFFECT)]
    pub read_effect: f64,
    /// How often the tariff's demand charge is paid: `monthly`, as bills are issued, or
    /// `per-run` (the research's model: once per pass of the workload).
    #[arg(long, default_value = "monthly", value_name = "monthly|per-run")]
    pub demand_billing: DemandBilling,
}

impl PriceArgs {
    /// The cost model over `years`.
    pub fn cost_model(&self, years: f64) -> CostModel {
        CostModel { prices: self.prices.clone(), tariff: self.tariff.clone(), read_effect: self.read_effect, demand_billing: self.demand_billing, horizon_years: years }
    }
}

