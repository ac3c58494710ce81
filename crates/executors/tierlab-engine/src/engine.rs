//! The event loop: virtual time in integer nanoseconds, one event queue, per-device queues.
//!
//! Memory is bounded by what is outstanding (queued ops, in-flight host requests, one
//! look-ahead request), never by the length of the trace.

use crate::controller::{Action, Controller, DeviceInfo, HostId, Io};
use crate::device::{Device, DeviceCommand, DeviceOp, DeviceReport};
use crate::scheduler::{QueueKeys, Scheduler, SchedulerKind, Waiting};
use crate::SimError;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use tierlab_report::{LatencyHistogram, LatencySummary};
use tierlab_types::{IoRequest, Op, SECTOR_BYTES};

/// How requests are fed to the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replay {
    /// Each request arrives at its own `time_ns` (already scaled by any speed-up).
    Open,
    /// Arrival times are ignored: `depth` requests are kept outstanding, the next one
    /// issued the moment one completes ("as fast as possible").
    Closed { depth: u32 },
}

impl std::fmt::Display for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Replay::Open => f.write_str("open-loop"),
            Replay::Closed { depth } => write!(f, "closed-loop, depth {depth}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Arrival,
    DeviceDone { device: u32, slot: u32 },
    DeviceReady { device: u32 },
    Timer { token: u64 },
}

/// The pending events, popped in order of time and then of scheduling (every event has
/// its own sequence number, so the order is total). The next arrival, of which there is
/// one pending at a time while requests are read ahead, waits beside the heap instead of
/// in it: an arrival a request, pushed and popped, would otherwise double the heap's work.
#[derive(Default)]
struct Events {
    heap: BinaryHeap<Reverse<(u64, u64, Event)>>,
    /// (time, sequence number) of an arrival kept out of the heap.
    arrival: Option<(u64, u64)>,
}

impl Events {
    fn push(&mut self, at_ns: u64, seq: u64, ev: Event) {
        if ev == Event::Arrival && self.arrival.is_none() {
            self.arrival = Some((at_ns, seq));
        } else {
            self.heap.push(Reverse((at_ns, seq, ev)));
        }
    }

    /// The earliest event and its time.
    fn pop(&mut self) -> Option<(u64, Event)> {
        match (self.arrival, self.heap.peek()) {
            (Some(a), Some(Reverse((t, seq, _)))) if a > (*t, *seq) => self.heap.pop().map(|Reverse((t, _, ev))| (t, ev)),
            (Some((t, _)), _) => {
                self.arrival = None;
                Some((t, Event::Arrival))
            }
            (None, _) => self.heap.pop().map(|Reverse((t, _, ev))| (t, ev)),
        }
    }
}

/// A slab: stable u32 slots with a free list, so the engine (and executors) allocate
/// nothing per request once warmed up.
pub struct Slab<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab::new()
    }
}

impl<T> Slab<T> {
    pub fn new() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
    pub fn insert(&mut self, t: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = Some(t);
                i
            }
            None => {
                self.items.push(Some(t));
                (self.items.len() - 1) as u32
            }
        }
    }
    pub fn remove(&mut self, i: u32) -> Option<T> {
        let t = self.items.get_mut(i as usize)?.take();
        if t.is_some() {
            self.free.push(i);
        }
        t
    }
    pub fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize).and_then(Option::as_ref)
    }
    pub fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize).and_then(Option::as_mut)
    }
}

struct PendingOp {
    op: DeviceOp,
    token: u64,
    enqueued_ns: u64,
    started_ns: u64,
}

/// A device's queue-time and service-time distributions.
struct DeviceLatency {
    wait: LatencyHistogram,
    service: LatencyHistogram,
}

impl Default for DeviceLatency {
    fn default() -> Self {
        DeviceLatency { wait: LatencyHistogram::new(), service: LatencyHistogram::new() }
    }
}

/// One device with its queue and its accounting.
struct Station<'d> {
    device: Box<dyn Device + 'd>,
    queue: Box<dyn Scheduler>,
    ops: Slab<PendingOp>,
    in_flight: usize,
    max_in_flight: usize,
    ready_at_ns: u64,
    ready_event_pending: bool,
    commands: VecDeque<DeviceCommand>,
    seq: u64,
    /// The block after the last op started: the head's key for a queue by block address.
    block_head: u64,
    // accounting
    busy_ns: u64,
    busy_since_ns: u64,
    queue_area: u128,
    queue_changed_ns: u64,
    max_queue: usize,
    ops_done: u64,
    read_bytes: u64,
    write_bytes: u64,
    /// Queue and service time per operation; `None` when the run does not keep them
    /// ([`Simulation::without_device_latency`]).
    latency: Option<DeviceLatency>,
    /// Totals from the start of the run, never restarted (what batches are cut from).
    total: BatchDevice,
}

impl Station<'_> {
    fn note_queue_change(&mut self, now_ns: u64) {
        self.queue_area += self.queue.len() as u128 * (now_ns - self.queue_changed_ns) as u128;
        self.queue_changed_ns = now_ns;
    }

    /// The run's totals so far for this device, busy time and energy brought up to `now_ns`.
    fn totals_at(&mut self, now_ns: u64) -> BatchDevice {
        let busy_now = if self.in_flight > 0 { now_ns - self.busy_since_ns } else { 0 };
        BatchDevice { busy_ns: self.total.busy_ns + busy_now, energy_j: self.device.checkpoint(now_ns).energy_j, ..self.total }
    }
}

/// One device's share of a [`Batch`] (or, inside the engine, its totals so far).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct BatchDevice {
    /// Time with at least one operation in service.
    pub busy_ns: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Energy the device accounted (devices that account idle time lazily may lag by
    /// one idle gap; that evens out over a window of batches).
    pub energy_j: f64,
}

impl BatchDevice {
    fn minus(&self, earlier: &BatchDevice) -> BatchDevice {
        BatchDevice {
            busy_ns: self.busy_ns - earlier.busy_ns,
            read_bytes: self.read_bytes - earlier.read_bytes,
            write_bytes: self.write_bytes - earlier.write_bytes,
            energy_j: self.energy_j - earlier.energy_j,
        }
    }
}

/// What happened between two batch boundaries of a run: the unit an [`Observer`] judges
/// steady state, run length and sustainability from. A batch ends each time another
/// [`Observer::batch_requests`] host requests have completed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Batch {
    pub start_ns: u64,
    pub end_ns: u64,
    /// Host requests completed and arrived within the batch.
    pub completed: u64,
    pub arrived: u64,
    /// Host requests outstanding (arrived, not completed) at the batch's end.
    pub backlog: u64,
    /// Sum of the response times of the requests completed within the batch.
    pub response_ns: f64,
    /// Per device, in the order devices were added.
    pub devices: Vec<BatchDevice>,
}

impl Batch {
    pub fn duration_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// What an observer wants after a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Go on as before.
    Continue,
    /// Start measuring now: the warm-up is over. Only the report's statistics restart
    /// (as with [`Simulation::measure_from`]); the devices, the policy and the controller
    /// go on exactly as they would have.
    Measure,
    /// Take no more requests from the source; those outstanding complete.
    Stop,
}

/// Watches a run batch by batch and decides when its warm-up ends and when it has run
/// long enough (`tierlab-measure` implements the study-wide rules).
pub trait Observer {
    /// Host completions per batch (at least 1).
    fn batch_requests(&self) -> u64;
    /// A batch ended; `measuring` says whether the report already counts it.
    fn on_batch(&mut self, batch: &Batch, controller: &dyn Controller, measuring: bool) -> Decision;
}

struct HostRequest {
    arrival_ns: u64,
    op: Op,
}

/// Per-device figures of a run.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceRun {
    #[serde(flatten)]
    pub device: DeviceReport,
    pub ops: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Share of the run with at least one operation in service.
    pub utilisation: f64,
    /// Time-averaged number of operations waiting (not in service).
    pub mean_queue_length: f64,
    pub max_queue_length: usize,
    /// Time from entering the queue to starting service (`None`: the run did not keep
    /// per-device latency, [`Simulation::without_device_latency`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_time: Option<LatencySummary>,
    /// Time in service on the device (`None` as for `queue_time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_time: Option<LatencySummary>,
}

/// Everything a run reports.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    pub replay: String,
    pub scheduler: String,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// From the first arrival to the last completion, in seconds of virtual time.
    pub span_s: f64,
    pub throughput_iops: f64,
    pub throughput_mib_s: f64,
    /// Host-level response time: arrival to completion, queueing included.
    pub response_time: LatencySummary,
    pub read_response_time: LatencySummary,
    pub write_response_time: LatencySummary,
    pub energy_j: f64,
    pub average_power_w: f64,
    pub devices: Vec<DeviceRun>,
    /// The controller's report at the end of the run: counts from the run's start, warm-up
    /// included (subtract `controller_at_measurement` for the measured part).
    pub controller: serde_json::Value,
    /// The controller's report when the measurement started, if it started after the run did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_at_measurement: Option<serde_json::Value>,
    /// The batches an observer saw ([`Simulation::run_observed`]); empty without one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<Batch>,
    /// How many of `batches` were warm-up (before the measurement started).
    #[serde(skip_serializing_if = "is_zero")]
    pub warmup_batches: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Builder and owner of one simulation run.
/// `'d` is how long the devices live: owned devices (`Box::new(hdd)`) or devices the
/// caller lends (`Box::new(&mut ssd)`) to read their detailed state after the run.
pub struct Simulation<'d> {
    stations: Vec<Station<'d>>,
    scheduler: SchedulerKind,
    /// Completions between calls of the progress callback.
    pub(crate) progress_every: u64,
    drop_late_timers: bool,
    measure_from_ns: Option<u64>,
    device_latency: bool,
}

impl<'d> Simulation<'d> {
    pub fn new(scheduler: SchedulerKind) -> Self {
        Simulation { stations: Vec::new(), scheduler, progress_every: 1 << 16, drop_late_timers: false, measure_from_ns: None, device_latency: true }
    }

    /// Report only what happens from `at_ns` on (a warm-up before it fills caches and
    /// gives a policy its first statistics): at the first event at or after `at_ns`, host
    /// and queue statistics restart and each device's report is checkpointed
    /// ([`Device::checkpoint`]) and subtracted at the end. Work already committed at that
    /// instant counts in the warm-up.
    pub fn measure_from(mut self, at_ns: u64) -> Self {
        self.measure_from_ns = Some(at_ns);
        self
    }

    /// Once the last request has arrived and completed, drop the controller's timers
    /// instead of running them (a controller that ticks periodically would otherwise
    /// never let the run end). Device work already started still completes.
    pub fn end_with_last_request(mut self) -> Self {
        self.drop_late_timers = true;
        self
    }

    /// Keep no per-device queue and service time distributions (each device's
    /// `queue_time` and `service_time` are then `None`): for a caller that does not report
    /// them. Two histograms per device are recorded into on every operation and grow to
    /// hundreds of KiB each, so on a run with many devices they cost memory and cache
    /// misses out of proportion. Call before adding devices.
    pub fn without_device_latency(mut self) -> Self {
        self.device_latency = false;
        for st in &mut self.stations {
            st.latency = None;
        }
        self
    }

    /// Add a device; returns its index (the `device` number controllers use).
    pub fn add_device(&mut self, device: Box<dyn Device + 'd>) -> usize {
        let max_in_flight = device.max_in_flight().max(1);
        self.stations.push(Station {
            device,
            queue: self.scheduler.build(),
            ops: Slab::new(),
            in_flight: 0,
            max_in_flight,
            ready_at_ns: 0,
            ready_event_pending: false,
            commands: VecDeque::new(),
            seq: 0,
            block_head: 0,
            busy_ns: 0,
            busy_since_ns: 0,
            queue_area: 0,
            queue_changed_ns: 0,
            max_queue: 0,
            ops_done: 0,
            read_bytes: 0,
            write_bytes: 0,
            latency: self.device_latency.then(DeviceLatency::default),
            total: BatchDevice::default(),
        });
        self.stations.len() - 1
    }

    /// Run `requests` through `controller` to completion. `progress` is called now and
    /// then with the number of requests completed so far.
    pub fn run<E>(
        self,
        requests: impl Iterator<Item = Result<IoRequest, E>>,
        replay: Replay,
        controller: &mut dyn Controller,
        progress: &mut dyn FnMut(u64),
    ) -> Result<SimReport, SimError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        self.run_observed(requests, replay, controller, None, progress)
    }

    /// [`Simulation::run`], with `observer` told of every batch of completions: it may
    /// start the measurement (end the warm-up) and stop the source. The report's
    /// `batches` lists every batch and `warmup_batches` how many preceded the measurement.
    pub fn run_observed<E>(
        mut self,
        requests: impl Iterator<Item = Result<IoRequest, E>>,
        replay: Replay,
        controller: &mut dyn Controller,
        mut observer: Option<&mut dyn Observer>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<SimReport, SimError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let infos: Vec<DeviceInfo> = self
            .stations
            .iter()
            .map(|s| DeviceInfo { name: s.device.name().to_string(), capacity_bytes: s.device.capacity_bytes() })
            .collect();
        controller.attach(&infos)?;
        if crate::interrupt::requested() {
            return Err(SimError::Interrupted);
        }
        if let Replay::Closed { depth: 0 } = replay {
            return Err(SimError::Config("closed-loop replay needs a queue depth of at least 1".into()));
        }

        let mut run = Run {
            stations: &mut self.stations,
            events: Events::default(),
            event_seq: 0,
            now_ns: 0,
            hosts: Slab::new(),
            io: Io::default(),
            requests_in: 0,
            requests_done: 0,
            first_arrival_ns: None,
            stats: HostStats::default(),
            keys: self.scheduler.keys(),
            requests_before_measurement: 0,
            measured_from_ns: None,
            response_ns_total: 0.0,
        };
        let batch_requests = observer.as_ref().map_or(u64::MAX, |o| o.batch_requests().max(1));
        let mut next_batch = batch_requests;
        let mut batches: Vec<Batch> = Vec::new();
        let mut warmup_batches: Option<usize> = None;
        let mut controller_at_measurement: Option<serde_json::Value> = None;
        let mut batch_start = (0u64, 0u64, 0u64, 0.0f64, vec![BatchDevice::default(); run.stations.len()]);
        let mut source = requests.map(|r| r.map_err(|e| SimError::Source(Box::new(e))));
        let mut lookahead: Option<IoRequest> = None;
        // Open loop: the request after `lookahead`, read one further ahead so that the
        // controller hears of it early ([`Controller::upcoming`]); `None` once the source
        // has no more (then `source_done` turns at the next arrival, as it would reading
        // one ahead, and the source is not read again).
        let mut after: Option<IoRequest> = None;
        let mut source_done = false;

        // Prime the source.
        match replay {
            Replay::Open => {
                match source.next().transpose()? {
                    Some(r) => {
                        run.push(r.time_ns, Event::Arrival);
                        after = source.next().transpose()?;
                        controller.upcoming(&r, after.as_ref());
                        lookahead = Some(r);
                    }
                    None => source_done = true,
                }
            }
            Replay::Closed { depth } => {
                while !source_done && run.requests_in - run.requests_done < u64::from(depth) {
                    match source.next().transpose()? {
                        Some(r) => run.arrive(controller, r)?,
                        None => source_done = true,
                    }
                }
            }
        }

        // The next multiple of `progress_every` completions to report at (kept as a
        // threshold so the loop compares instead of dividing on every event).
        let mut next_progress = self.progress_every;
        let mut checkpoints: Option<Vec<DeviceReport>> = None;
        while let Some((t, ev)) = run.events.pop() {
            debug_assert!(t >= run.now_ns, "time ran backwards");
            let before_ns = run.now_ns;
            run.now_ns = t;
            if checkpoints.is_none() && self.measure_from_ns.is_some_and(|m| t >= m) {
                checkpoints = Some(run.restart_measurement());
                controller_at_measurement = Some(controller.report());
                controller.on_measure(t);
            }
            run.io.finished = source_done && run.requests_done == run.requests_in;
            match ev {
                Event::Arrival => {
                    if let Some(r) = lookahead.take() {
                        run.arrive(controller, r)?;
                        match after.take() {
                            Some(next) => {
                                run.push(next.time_ns.max(run.now_ns), Event::Arrival);
                                after = source.next().transpose()?;
                                controller.upcoming(&next, after.as_ref());
                                lookahead = Some(next);
                            }
                            None => source_done = true,
                        }
                    }
                }
                Event::DeviceDone { device, slot } => run.device_done(controller, device as usize, slot),
                Event::DeviceReady { device } => {
                    run.stations[device as usize].ready_event_pending = false;
                    run.dispatch(device as usize);
                }
                Event::Timer { token } => {
                    let finished = source_done && run.requests_done == run.requests_in;
                    if self.drop_late_timers && finished {
                        run.now_ns = before_ns; // a dropped timer does not extend the run
                    } else {
                        controller.on_timer(run.now_ns, token, &mut run.io);
                        run.apply();
                    }
                }
            }
            // Any event may complete host requests (a device, a timer); closed-loop replay
            // issues one new request for each.
            // Closed loop: top the outstanding requests back up to the depth (a
            // controller may complete a request within its arrival, e.g. from a cache).
            if let Replay::Closed { depth } = replay {
                while !source_done && run.requests_in - run.requests_done < u64::from(depth) {
                    match source.next().transpose()? {
                        Some(r) => run.arrive(controller, r)?,
                        None => source_done = true,
                    }
                }
            }
            if run.requests_done >= next_batch {
                next_batch = run.requests_done + batch_requests;
                if let Some(o) = observer.as_deref_mut() {
                    let now = run.now_ns;
                    let devices: Vec<BatchDevice> = run.stations.iter_mut().map(|st| st.totals_at(now)).collect();
                    let (t0, done0, in0, resp0, dev0) = &batch_start;
                    let batch = Batch {
                        start_ns: *t0,
                        end_ns: now,
                        completed: run.requests_done - done0,
                        arrived: run.requests_in - in0,
                        backlog: run.requests_in - run.requests_done,
                        response_ns: run.response_ns_total - resp0,
                        devices: devices.iter().zip(dev0).map(|(d, e)| d.minus(e)).collect(),
                    };
                    batch_start = (now, run.requests_done, run.requests_in, run.response_ns_total, devices);
                    let measuring = checkpoints.is_some();
                    let decision = o.on_batch(&batch, controller, measuring);
                    batches.push(batch);
                    match decision {
                        Decision::Continue => {}
                        Decision::Measure => {
                            if !measuring {
                                warmup_batches = Some(batches.len());
                                checkpoints = Some(run.restart_measurement());
                                controller_at_measurement = Some(controller.report());
                                controller.on_measure(now);
                            }
                        }
                        Decision::Stop => {
                            // What remains is the drain of the outstanding requests: no
                            // longer the observed process, so no more batches are cut.
                            source_done = true;
                            lookahead = None;
                            after = None;
                            next_batch = u64::MAX;
                        }
                    }
                }
            }
            if run.requests_done >= next_progress {
                progress(run.requests_done);
                if crate::interrupt::requested() {
                    return Err(SimError::Interrupted);
                }
                next_progress = (run.requests_done / self.progress_every + 1) * self.progress_every;
            }
        }
        progress(run.requests_done);

        let end_ns = run.now_ns;
        let start_ns = run.first_arrival_ns.unwrap_or(0);
        let stats = std::mem::take(&mut run.stats);
        let requests_done = run.requests_done - run.requests_before_measurement;
        let measured_from_ns = run.measured_from_ns;
        drop(run);
        let mut report = self.report(replay, controller, stats, requests_done, start_ns, end_ns, measured_from_ns, checkpoints)?;
        report.warmup_batches = warmup_batches.unwrap_or(0);
        report.batches = batches;
        report.controller_at_measurement = controller_at_measurement;
        Ok(report)
    }

    #[allow(clippy::too_many_arguments)]
    fn report(
        mut self,
        replay: Replay,
        controller: &dyn Controller,
        stats: HostStats,
        requests: u64,
        start_ns: u64,
        end_ns: u64,
        measured_from_ns: Option<u64>,
        checkpoints: Option<Vec<DeviceReport>>,
    ) -> Result<SimReport, SimError> {
        let start_ns = measured_from_ns.unwrap_or(start_ns);
        let span_ns = end_ns.saturating_sub(start_ns);
        let span_s = span_ns as f64 / 1e9;
        let mut devices = Vec::with_capacity(self.stations.len());
        let mut energy_j = 0.0;
        for st in &mut self.stations {
            st.note_queue_change(end_ns);
            st.device.finish(end_ns);
            let mut device = st.device.report();
            if let Some(c) = checkpoints.as_ref().and_then(|c| c.get(devices.len())) {
                device = device.since(c);
            }
            energy_j += device.energy_j;
            devices.push(DeviceRun {
                device,
                ops: st.ops_done,
                read_bytes: st.read_bytes,
                write_bytes: st.write_bytes,
                utilisation: ratio(st.busy_ns as f64, span_ns as f64),
                mean_queue_length: ratio(st.queue_area as f64, span_ns as f64),
                max_queue_length: st.max_queue,
                queue_time: st.latency.as_ref().map(|l| l.wait.summary()),
                service_time: st.latency.as_ref().map(|l| l.service.summary()),
            });
        }
        let bytes = stats.read_bytes + stats.write_bytes;
        Ok(SimReport {
            replay: replay.to_string(),
            scheduler: self.scheduler.to_string(),
            requests,
            reads: stats.reads,
            writes: stats.writes,
            read_bytes: stats.read_bytes,
            write_bytes: stats.write_bytes,
            span_s,
            throughput_iops: ratio(requests as f64, span_s),
            throughput_mib_s: ratio(bytes as f64 / (1024.0 * 1024.0), span_s),
            response_time: stats.all.summary(),
            read_response_time: stats.read.summary(),
            write_response_time: stats.write.summary(),
            energy_j,
            controller_at_measurement: None,
            batches: Vec::new(),
            warmup_batches: 0,
            // Energy is accounted from time 0 (devices are powered from the start), or
            // from the measurement's start.
            average_power_w: ratio(energy_j, (end_ns - measured_from_ns.unwrap_or(0)) as f64 / 1e9),
            devices,
            controller: controller.report(),
        })
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

#[derive(Default)]
struct HostStats {
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    all: LatencyHistogram,
    read: LatencyHistogram,
    write: LatencyHistogram,
}

/// The mutable state of one run (kept apart from `Simulation` so borrows stay simple).
struct Run<'a, 'd> {
    stations: &'a mut Vec<Station<'d>>,
    events: Events,
    event_seq: u64,
    now_ns: u64,
    hosts: Slab<HostRequest>,
    io: Io,
    requests_in: u64,
    requests_done: u64,
    first_arrival_ns: Option<u64>,
    stats: HostStats,
    /// What the queues order by: nothing (FCFS; SPTF asks the device instead), block
    /// address, or device position.
    keys: QueueKeys,
    requests_before_measurement: u64,
    measured_from_ns: Option<u64>,
    /// Sum of every completed request's response time, never restarted.
    response_ns_total: f64,
}

impl Run<'_, '_> {
    /// Start measuring now: host and station statistics restart; each device's report
    /// so far is returned to be subtracted at the end.
    fn restart_measurement(&mut self) -> Vec<DeviceReport> {
        let now = self.now_ns;
        self.stats = HostStats::default();
        self.requests_before_measurement = self.requests_done;
        self.measured_from_ns = Some(now);
        self.stations
            .iter_mut()
            .map(|st| {
                st.note_queue_change(now);
                if st.in_flight > 0 {
                    st.total.busy_ns += now - st.busy_since_ns;
                    st.busy_since_ns = now;
                }
                st.busy_ns = 0;
                st.queue_area = 0;
                st.max_queue = st.queue.len();
                st.ops_done = 0;
                st.read_bytes = 0;
                st.write_bytes = 0;
                if let Some(l) = &mut st.latency {
                    *l = DeviceLatency::default();
                }
                st.device.checkpoint(now)
            })
            .collect()
    }

    fn push(&mut self, at_ns: u64, ev: Event) {
        self.event_seq += 1;
        self.events.push(at_ns, self.event_seq, ev);
    }

    fn arrive(&mut self, controller: &mut dyn Controller, req: IoRequest) -> Result<(), SimError> {
        let now = self.now_ns;
        self.first_arrival_ns.get_or_insert(now);
        let host = self.hosts.insert(HostRequest { arrival_ns: now, op: req.op });
        match req.op {
            Op::Read => {
                self.stats.reads += 1;
                self.stats.read_bytes += req.len_bytes;
            }
            Op::Write => {
                self.stats.writes += 1;
                self.stats.write_bytes += req.len_bytes;
            }
        }
        let index = self.requests_in;
        self.requests_in += 1;
        controller.on_request(now, host, index, &req, &mut self.io)?;
        self.apply();
        Ok(())
    }

    /// Carry out the actions the controller queued, in order. (Carrying them out calls no
    /// controller callback, so no new actions appear meanwhile.)
    fn apply(&mut self) {
        let mut actions = std::mem::take(&mut self.io.actions);
        for action in actions.drain(..) {
            match action {
                Action::Submit { device, op, token } => self.enqueue(device, op, token),
                Action::Complete { host } => self.complete_host(host),
                Action::Timer { at_ns, token } => self.push(at_ns.max(self.now_ns), Event::Timer { token }),
                Action::Command { device, cmd } => {
                    if let Some(st) = self.stations.get_mut(device) {
                        st.commands.push_back(cmd);
                        self.dispatch(device);
                    }
                }
            }
        }
        self.io.actions = actions; // keep the buffer's allocation
    }

    fn enqueue(&mut self, device: usize, op: DeviceOp, token: u64) {
        let now = self.now_ns;
        let Some(st) = self.stations.get_mut(device) else { return };
        // FCFS and SPTF never look at keys: skip the device's (not free) lookup.
        let key = match self.keys {
            QueueKeys::Unused => 0,
            QueueKeys::Block => op.offset_bytes / SECTOR_BYTES,
            QueueKeys::Position => st.device.position_key(op.offset_bytes),
        };
        let slot = st.ops.insert(PendingOp { op, token, enqueued_ns: now, started_ns: now });
        st.note_queue_change(now);
        st.seq += 1;
        st.queue.push(Waiting { key, seq: st.seq, slot });
        st.max_queue = st.max_queue.max(st.queue.len());
        self.dispatch(device);
    }

    /// Start as much work on `device` as it can take now.
    fn dispatch(&mut self, device: usize) {
        let now = self.now_ns;
        loop {
            let st = &mut self.stations[device];
            if st.ready_at_ns > now {
                if !st.ready_event_pending && (!st.queue.is_empty() || !st.commands.is_empty()) {
                    st.ready_event_pending = true;
                    let at = st.ready_at_ns;
                    self.push(at, Event::DeviceReady { device: device as u32 });
                }
                return;
            }
            // Commands wait until nothing is in service, then run before queued I/O.
            if !st.commands.is_empty() {
                if st.in_flight > 0 {
                    return;
                }
                if let Some(cmd) = st.commands.pop_front() {
                    st.ready_at_ns = st.device.command(now, cmd).max(now);
                }
                continue;
            }
            if st.in_flight >= st.max_in_flight {
                return;
            }
            let head = match self.keys {
                QueueKeys::Unused => 0,
                QueueKeys::Block => st.block_head,
                QueueKeys::Position => st.device.current_position_key(),
            };
            st.note_queue_change(now);
            // A queue that orders by the device's own estimate asks it for each candidate.
            let (queue, dev, ops) = (&mut st.queue, &st.device, &st.ops);
            let Some(w) = queue.pop_by_cost(head, now, &mut |w| ops.get(w.slot).and_then(|p| dev.positioning_ns(now, &p.op))) else { return };
            let Some(pending) = st.ops.get_mut(w.slot) else { return };
            pending.started_ns = now;
            let op = pending.op;
            st.block_head = (op.offset_bytes + op.len_bytes) / SECTOR_BYTES;
            let done_ns = st.device.service(now, &op).max(now);
            if st.in_flight == 0 {
                st.busy_since_ns = now;
            }
            st.in_flight += 1;
            self.push(done_ns, Event::DeviceDone { device: device as u32, slot: w.slot });
        }
    }

    fn device_done(&mut self, controller: &mut dyn Controller, device: usize, slot: u32) {
        let now = self.now_ns;
        let st = &mut self.stations[device];
        let Some(p) = st.ops.remove(slot) else { return };
        st.in_flight -= 1;
        if st.in_flight == 0 {
            st.busy_ns += now - st.busy_since_ns;
            st.total.busy_ns += now - st.busy_since_ns;
        }
        st.ops_done += 1;
        match p.op.op {
            Op::Read => {
                st.read_bytes += p.op.len_bytes;
                st.total.read_bytes += p.op.len_bytes;
            }
            Op::Write => {
                st.write_bytes += p.op.len_bytes;
                st.total.write_bytes += p.op.len_bytes;
            }
        }
        if let Some(l) = &mut st.latency {
            l.wait.record(p.started_ns - p.enqueued_ns);
            l.service.record(now - p.started_ns);
        }
        controller.on_device_done(now, device, p.token, &mut self.io);
        self.apply();
        self.dispatch(device);
    }

    fn complete_host(&mut self, host: HostId) {
        let Some(h) = self.hosts.remove(host) else { return };
        let rt = self.now_ns - h.arrival_ns;
        self.response_ns_total += rt as f64;
        self.stats.all.record(rt);
        match h.op {
            Op::Read => self.stats.read.record(rt),
            Op::Write => self.stats.write.record(rt),
        }
        self.requests_done += 1;
    }
}

#[cfg(test)]
mod event_order {
    use super::{Event, Events};
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        /// Events pop in the order one heap of them all pops them, whatever mix of
        /// arrivals (one or several pending), completions and timers at equal or
        /// different times is pushed and popped.
        #[test]
        fn events_pop_as_one_heap_pops_them(ops in prop::collection::vec((0u8..5, 0u64..20), 1..300)) {
            let (mut events, mut heap, mut seq) = (Events::default(), BinaryHeap::new(), 0u64);
            for (kind, t) in ops {
                let ev = match kind {
                    0 | 1 => Event::Arrival,
                    2 => Event::DeviceDone { device: t as u32, slot: 1 },
                    3 => Event::Timer { token: t },
                    _ => {
                        prop_assert_eq!(events.pop(), heap.pop().map(|Reverse((t, _, ev))| (t, ev)));
                        continue;
                    }
                };
                seq += 1;
                events.push(t, seq, ev);
                heap.push(Reverse((t, seq, ev)));
            }
            while let Some(Reverse((t, _, ev))) = heap.pop() {
                prop_assert_eq!(events.pop(), Some((t, ev)));
            }
            prop_assert_eq!(events.pop(), None);
        }
    }
}
