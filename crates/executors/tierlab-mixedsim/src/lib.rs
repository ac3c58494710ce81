//! A planned mix of SSDs and HDDs, built from tierlab's device models and run.
//!
//! HybridStore's capacity planner (MixPlan; Y. Kim, PhD dissertation, Penn State 2009,
//! chapter 4) answers with a number of devices of each type and, for each data class, the
//! share of it on each type. It judges that answer with analytic device models. This
//! crate closes the loop: it builds the system the plan describes, places the classes'
//! records as planned, replays the workload against every device's own model, and reports
//! what happens — response times, energy, SSD erases and projected lifetime — for the
//! caller to set beside what the plan assumed.
//!
//! - [`GroupSpec`]: `count` devices of one [`DeviceSpec`] — an SSD timed from its internals
//!   ([`SsdModel`], `tierlab-ssd`: FTL as its spec says, garbage collection, energy) or a
//!   disk ([`HddModel`], `tierlab-hdd` timing and `tierlab-power` power states, spinning
//!   idle or active, no spin-down by default).
//! - [`Placement`]: per data class (`tierlab_classes::ClassKey`), the fraction on each
//!   group. [`Layout::place`] turns it into a map from each touched record to a device and
//!   an offset, deterministically from a seed, and refuses a group whose devices cannot
//!   hold what is placed on them (see [`placement`] for the rule).
//! - [`Layout::simulate`] replays a trace open-loop at its timestamps (or closed-loop):
//!   each request is cut at record boundaries, each piece goes to its record's device, and
//!   the request completes with its last piece. [`MixedReport`] gives the whole system and
//!   each group (see [`report`] for the clocks and the lifetime formula).
//! - [`simulate`] does both from a [`MixedConfig`]; [`MixedConfig::single_group`] is the
//!   one-group system (all-HDD, SSD-only) the plan is compared with.
//!
//! The trace is the one the classes were drawn from (`tierlab_classes::label`'s first
//! pass; the caller reopens it to replay it). Memory grows with the records the trace
//! touches, never with its length.

mod controller;
pub mod devices;
pub mod placement;
pub mod report;

pub use devices::{DeviceSpec, GroupSpec, HddEstimates, HddModel, SsdModel};
pub use placement::{ClassShares, ClassSplit, Layout, Location, Placement, Share, MAX_GROUPS};
pub use report::{
    lifetime_years, lifetime_years_host_writes, DeviceFigures, GroupReport, Integrity, MixedReport,
    ResponseTime, SsdWear, SystemReport,
};
pub use tierlab_engine::{Replay, SchedulerKind};

use controller::MixedController;
use tierlab_classes::Labelled;
use tierlab_engine::{Batch, Observer, SimError, Simulation};
use tierlab_types::IoRequest;

/// Why a mixed system cannot be built or run.
#[derive(Debug, thiserror::Error)]
pub enum MixedError {
    /// The system's description is impossible (no group, a group of no device, …).
    #[error("{0}")]
    Config(String),
    /// The placement names a group the system lacks, has shares that do not add up, or
    /// leaves a class out.
    #[error("placement: {0}")]
    Placement(String),
    /// A group's devices cannot hold the records placed on it.
    #[error(
        "group `{group}` cannot hold what is placed on it: {placed_bytes} bytes ({records} records of {record_bytes} bytes) \
         over {devices} device(s) of `{model}`, {capacity_bytes} bytes in all; striped, its fullest device needs \
         {fullest_device_bytes} bytes and holds {device_capacity_bytes}: place less on it or give it more devices"
    )]
    GroupTooSmall {
        group: String,
        model: String,
        records: u64,
        record_bytes: u64,
        placed_bytes: u64,
        devices: u32,
        capacity_bytes: u64,
        device_capacity_bytes: u64,
        fullest_device_bytes: u64,
    },
    /// A device model cannot be built (an unknown catalog id, a figure the catalog lacks).
    #[error("{0}")]
    Device(String),
    /// The run stopped: the trace failed, or a request touches a record never placed.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// A mixed system and how to run it.
#[derive(Clone, Debug)]
pub struct MixedConfig {
    pub groups: Vec<GroupSpec>,
    pub placement: Placement,
    /// Seeds the placement's record order and the SSDs' aging.
    pub seed: u64,
    /// Open-loop at the trace's timestamps (the default) or closed-loop.
    pub replay: Replay,
    /// Each device's queue order (default: first come, first served).
    pub scheduler: SchedulerKind,
}

impl MixedConfig {
    pub fn new(groups: Vec<GroupSpec>, placement: Placement) -> MixedConfig {
        MixedConfig {
            groups,
            placement,
            seed: 1,
            replay: Replay::Open,
            scheduler: SchedulerKind::Fcfs,
        }
    }

    /// Every class on `group` alone: the all-HDD or SSD-only system of the same workload.
    pub fn single_group(group: GroupSpec) -> MixedConfig {
        let placement = Placement::all_on(&group.name);
        MixedConfig::new(vec![group], placement)
    }

    pub fn with_seed(mut self, seed: u64) -> MixedConfig {
        self.seed = seed;
        self
    }
}

/// Place `labelled`'s records on `config`'s system and replay `trace` on it.
pub fn simulate<E>(
    config: &MixedConfig,
    labelled: &Labelled,
    trace: impl Iterator<Item = Result<IoRequest, E>>,
    progress: &mut dyn FnMut(u64),
) -> Result<MixedReport, MixedError>
where
    E: std::error::Error + Send + Sync + 'static,
{
    Layout::place(&config.groups, &config.placement, labelled, config.seed)?.simulate(
        trace,
        config.replay,
        config.scheduler,
        progress,
    )
}

impl Layout {
    /// Build every device (SSDs written with their placed records, then aged as their
    /// model says) and replay `trace`; `progress` hears the requests completed now and then.
    pub fn simulate<E>(
        &self,
        trace: impl Iterator<Item = Result<IoRequest, E>>,
        replay: Replay,
        scheduler: SchedulerKind,
        progress: &mut dyn FnMut(u64),
    ) -> Result<MixedReport, MixedError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        Ok(self.run(trace, replay, scheduler, None, progress)?.0)
    }

    /// The same, with `observer` (the measurement layer) watching the run in batches: it
    /// may end the warm-up (the report covers what follows) or stop the run. Returns the
    /// batches it saw beside the report.
    pub fn simulate_observed<E>(
        &self,
        trace: impl Iterator<Item = Result<IoRequest, E>>,
        replay: Replay,
        scheduler: SchedulerKind,
        observer: &mut dyn Observer,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(MixedReport, Vec<Batch>), MixedError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        self.run(trace, replay, scheduler, Some(observer), progress)
    }

    fn run<E>(
        &self,
        trace: impl Iterator<Item = Result<IoRequest, E>>,
        replay: Replay,
        scheduler: SchedulerKind,
        observer: Option<&mut dyn Observer>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(MixedReport, Vec<Batch>), MixedError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let mut sim = Simulation::new(scheduler);
        let mut device_group = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            for (d, &records) in self.records_on_devices(g).iter().enumerate() {
                // Each device's aging draws from its own stream.
                let seed =
                    self.seed ^ ((g as u64) << 32 | d as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                sim.add_device(
                    group
                        .device
                        .build(records.saturating_mul(self.record_bytes), seed)?,
                );
                device_group.push(g as u8);
            }
        }
        let mut ctl = MixedController::new(
            &self.map,
            self.record_bytes,
            device_group,
            self.groups.len(),
        );
        let mut report = sim.run_observed(trace, replay, &mut ctl, observer, progress)?;
        let built = report::build(self, &report, &ctl, replay.to_string(), scheduler.to_string());
        Ok((built, std::mem::take(&mut report.batches)))
    }
}
