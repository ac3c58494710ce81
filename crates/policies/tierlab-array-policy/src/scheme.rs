//! The interface between an energy scheme (pure decision code) and the executor that
//! carries it out (the simulator today; a real array controller could do the same).
//!
//! A scheme has no clock and does no I/O. The executor
//! - calls [`Scheme::start`] once with what it knows of the disks ([`ArraySetup`]);
//! - calls [`Scheme::tick`] at the times the scheme asks for ([`Scheme::next_tick_ns`]),
//!   handing it the disks' state and what each disk did since the previous tick;
//! - tells it each host request's response time ([`Scheme::on_response`]) and, for the
//!   layouts that move data, each access to a relocation block ([`Scheme::on_access`]);
//! - carries out the [`Command`]s the scheme answers with.

use serde::Serialize;

/// A change of state that takes time and energy (a speed change, a spin-down).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Transition {
    pub time_s: f64,
    pub energy_j: f64,
}

impl Transition {
    /// Average power while it runs, W.
    pub fn power_w(&self) -> f64 {
        if self.time_s > 0.0 {
            self.energy_j / self.time_s
        } else {
            0.0
        }
    }
}

/// One rotation speed of the disks, with what the disk does at it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SpeedInfo {
    pub rpm: u32,
    pub active_w: f64,
    pub seek_w: f64,
    pub idle_w: f64,
    /// Media transfer rate at this speed, bytes/s.
    pub media_bytes_per_s: f64,
}

impl SpeedInfo {
    /// Mean rotational latency (half a revolution), s.
    pub fn mean_rotation_s(&self) -> f64 {
        30.0 / f64::from(self.rpm.max(1))
    }
    /// Variance of a rotational latency uniform over one revolution, s².
    pub fn rotation_var_s2(&self) -> f64 {
        let rev = 60.0 / f64::from(self.rpm.max(1));
        rev * rev / 12.0
    }
}

/// The deepest standby state the disks have (spindle stopped).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StandbyInfo {
    pub power_w: f64,
    pub enter: Transition,
    pub leave: Transition,
}

impl StandbyInfo {
    /// Break-even idle time at idle power `idle_w`: the shortest idle period for which
    /// spinning down and up again saves energy, and at least the time both take.
    pub fn break_even_s(&self, idle_w: f64) -> f64 {
        let t = self.enter.time_s + self.leave.time_s;
        let e = self.enter.energy_j + self.leave.energy_j;
        let saved_w = idle_w - self.power_w;
        if saved_w <= 0.0 {
            return f64::INFINITY;
        }
        ((e - self.power_w * t) / saved_w).max(t)
    }
}

/// What a scheme is told about the array before the first request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArraySetup {
    /// Disks the scheme manages (numbered from 0).
    pub disks: usize,
    /// Bytes each disk holds.
    pub disk_capacity_bytes: u64,
    /// The disks' speeds, slowest first (one entry for a single-speed disk).
    pub speeds: Vec<SpeedInfo>,
    /// Cost of changing speed.
    pub speed_change: Transition,
    pub standby: Option<StandbyInfo>,
    /// The disks' average seek time (random requests over the whole disk), s.
    pub average_seek_s: f64,
    /// The array's mean response-time goal, s.
    pub r_limit_s: f64,
}

impl ArraySetup {
    /// Index of the fastest speed.
    pub fn top_level(&self) -> usize {
        self.speeds.len().saturating_sub(1)
    }
}

/// A disk's state as the executor knows it at a tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiskStatus {
    /// The speed level it serves at (or will, once a change completes).
    pub level: usize,
    /// Spun down (or spinning down).
    pub standby: bool,
    /// Operations queued or in service.
    pub queued: u32,
}

/// What one disk did over a stretch of time (disk-level operations, foreground and
/// background alike).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DiskCounters {
    pub ops: u64,
    pub bytes: u64,
    /// Sum and sum of squares of service times (start of service to completion), s, s².
    pub service_s: f64,
    pub service_sq_s2: f64,
    /// Sum of response times (queueing included), s.
    pub response_s: f64,
    /// Operations whose service included waiting for a spin-up or speed change (left out
    /// of the service sums, which describe the disk at speed).
    pub delayed_ops: u64,
}

impl DiskCounters {
    pub fn add(&mut self, other: &DiskCounters) {
        self.ops += other.ops;
        self.bytes += other.bytes;
        self.service_s += other.service_s;
        self.service_sq_s2 += other.service_sq_s2;
        self.response_s += other.response_s;
        self.delayed_ops += other.delayed_ops;
    }
    /// Operations in the service sums.
    pub fn timed_ops(&self) -> u64 {
        self.ops - self.delayed_ops.min(self.ops)
    }
    pub fn mean_service_s(&self) -> Option<f64> {
        let n = self.timed_ops();
        (n > 0).then(|| self.service_s / n as f64)
    }
    pub fn service_var_s2(&self) -> Option<f64> {
        let n = self.timed_ops();
        let mean = self.mean_service_s()?;
        Some((self.service_sq_s2 / n as f64 - mean * mean).max(0.0))
    }
    pub fn mean_bytes(&self) -> f64 {
        if self.ops == 0 {
            0.0
        } else {
            self.bytes as f64 / self.ops as f64
        }
    }
}

/// What the executor hands a scheme at a tick.
#[derive(Clone, Copy, Debug)]
pub struct ArrayView<'a> {
    pub now_ns: u64,
    pub status: &'a [DiskStatus],
    /// Per disk, since the previous tick.
    pub since_tick: &'a [DiskCounters],
}

/// What a scheme asks the executor to do.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Command {
    /// Serve at speed `level` (leaving standby if needed).
    SetSpeed { disk: usize, level: usize },
    /// Spin down now.
    Standby { disk: usize },
    /// Spin up now without waiting for a request.
    Wake { disk: usize },
    /// Spin down after this much idle time (`None`: never).
    IdleTimeout { disk: usize, timeout_ns: Option<u64> },
    /// Move relocation blocks between disks as the scheme's layout says (Hibernator,
    /// PDC); the executor reads the plan from the layout it shares with the scheme.
    Reorganise,
}

/// Figures a scheme reports at the end of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SchemeReport {
    /// Decisions taken (epochs, checks) and how many found no speed plan that met the goal.
    pub decisions: u64,
    pub infeasible_decisions: u64,
    /// Times the performance guarantee forced full speed, and seconds it held it.
    pub guarantee_activations: u64,
    pub guarantee_s: f64,
    /// Free-form notes (e.g. "R_limit cannot be met even at full speed").
    pub notes: Vec<String>,
    /// For a scheme that plans per epoch (CR, Hibernator): how many of its latest epochs
    /// in a row left its tier sizes (disks per speed) as they were, with no reorganisation
    /// running. `None` for schemes without epochs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stable_epochs: Option<u64>,
    /// Scheme-specific figures (Hibernator: epochs, tier sizes, reorganisations, swaps).
    pub details: serde_json::Value,
}

/// An energy-management scheme; see the module documentation.
pub trait Scheme: Send {
    /// Short name for reports ("raid5", "tpm", "raid-drpm+", "hibernator", …).
    fn name(&self) -> String;
    /// Initial commands.
    fn start(&mut self, setup: &ArraySetup, out: &mut Vec<Command>);
    /// When the scheme next wants [`Scheme::tick`] called (virtual ns), if ever.
    fn next_tick_ns(&self) -> Option<u64>;
    fn tick(&mut self, view: &ArrayView, out: &mut Vec<Command>);
    /// A host request finished with this response time.
    fn on_response(&mut self, now_ns: u64, response_ns: u64, status: &[DiskStatus], out: &mut Vec<Command>) {
        let _ = (now_ns, response_ns, status, out);
    }
    /// The speed each disk should have by the scheme's own plan (what the performance
    /// guarantee restores when it lets go). `None`: the scheme does not set speeds.
    fn planned_levels(&self) -> Option<Vec<usize>> {
        None
    }
    /// The scheme's data layout, for schemes that move data; `None`: the executor's
    /// fixed RAID layout places everything.
    fn placement(&mut self) -> Option<&mut dyn Placement> {
        None
    }
    fn report(&self) -> SchemeReport {
        SchemeReport::default()
    }
}

/// A place on a disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub disk: u32,
    pub offset_bytes: u64,
}

/// One disk operation of a background move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveOp {
    pub at: Location,
    pub len_bytes: u64,
    pub write: bool,
}

/// A background data move: its reads all finish before its writes start. The executor
/// queues its operations per disk and starts each only when its disk has nothing else to
/// do (foreground work first), so a foreground request waits behind at most one
/// background operation per disk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Move {
    /// Identifies the move when it is reported done.
    pub id: u64,
    pub ops: Vec<MoveOp>,
    /// Its operations yield to the other background operations waiting on their disk
    /// (work that may lag, such as a slow tier's parity, behind work that must not).
    pub yielding: bool,
}

impl Move {
    /// The disks the move touches.
    pub fn disks(&self) -> impl Iterator<Item = u32> + '_ {
        self.ops.iter().map(|o| o.at.disk)
    }
}

/// Background moves in flight at once unless a layout says otherwise.
pub const DEFAULT_MOVES_IN_FLIGHT: usize = 4;

/// A layout that places data by relocation block (RB) and moves it (Hibernator's tiers,
/// PDC's popularity order, MAID's cache disks). The scheme owns it; the executor asks it
/// where each block is and which moves to make, and reports accesses and finished moves.
pub trait Placement {
    /// Bytes per relocation block.
    fn rb_bytes(&self) -> u64;
    /// Logical bytes the layout holds (known after [`Scheme::start`]).
    fn capacity_bytes(&self) -> u64;
    /// Where relocation block `rb` lives, and where its stripe's parity lives (if the
    /// layout keeps parity). `None` when `rb` is outside the layout.
    fn locate(&self, rb: u64) -> Option<(Location, Option<Location>)>;
    /// An access to `rb` at `now_ns` (reported before the executor locates it).
    fn record_access(&mut self, rb: u64, write: bool, now_ns: u64);
    /// The next background move to start now, given which disks are idle.
    fn next_move(&mut self, now_ns: u64, idle: &dyn Fn(u32) -> bool) -> Option<Move>;
    /// Move `id` is durable: the layout may now point at the new places.
    fn move_done(&mut self, id: u64, now_ns: u64);
    /// The most moves the executor keeps in flight at once for this layout.
    fn max_moves_in_flight(&self) -> usize {
        DEFAULT_MOVES_IN_FLIGHT
    }
    /// Figures for the report.
    fn report(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}
