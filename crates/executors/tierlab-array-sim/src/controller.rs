//! `ArrayController`: the simulator's executor for a disk array. It is the engine's
//! `Controller`: it maps each host request through the NVRAM cache and the layout (the
//! fixed RAID geometry, or the scheme's own relocation-block placement) to disk
//! operations, runs RAID-5 reads before writes, destages dirty NVRAM data, carries out
//! the scheme's commands, starts the scheme's background moves when their disks are
//! idle, and gathers the per-disk figures the scheme decides from.

use serde::Serialize;
use std::collections::VecDeque;
use tierlab_raid::{Geometry, Nvram, NvramStats, Piece, Plan};
use tierlab_track_map::TrackMap;
use tierlab_array_policy::{ArrayView, Command, DiskCounters, DiskStatus, Location, Move, Scheme};
use tierlab_engine::{Controller, DeviceCommand, DeviceInfo, DeviceOp, HostId, Io, SimError, Slab};
use tierlab_types::{IoRequest, Op};

const TICK_TOKEN: u64 = 0;
const DESTAGE_TOKEN: u64 = 1;
/// Service longer than this included a spin-up or speed change.
const DELAYED_SERVICE_NS: u64 = 1_000_000_000;

/// One disk operation to issue.
#[derive(Clone, Copy, Debug)]
struct DiskIo {
    disk: u32,
    offset_bytes: u64,
    len_bytes: u64,
    op: Op,
}

#[derive(Clone, Copy, Debug)]
enum JobKind {
    /// A host read that missed NVRAM (fill it when done, if there is one).
    HostRead { host: HostId, arrival_ns: u64, offset_bytes: u64, len_bytes: u64 },
    /// A host write without NVRAM.
    HostWrite { host: HostId, arrival_ns: u64 },
    Destage { offset_bytes: u64, len_bytes: u64 },
    Move { id: u64, yielding: bool },
}

/// Where a job's disk operations wait.
#[derive(Clone, Copy, Debug)]
enum Queue {
    /// Straight to the disk.
    Foreground,
    /// Until the disk has nothing else to do.
    Background,
    /// Until the disk has nothing else to do and no other background operation waits.
    Yielding,
}

impl Queue {
    fn of(kind: &JobKind) -> Queue {
        match kind {
            JobKind::Move { yielding: true, .. } => Queue::Yielding,
            JobKind::Move { .. } => Queue::Background,
            _ => Queue::Foreground,
        }
    }
}

/// A multi-phase piece of work: `pending` reads outstanding, then `writes`.
struct Job {
    kind: JobKind,
    pending: u32,
    writes: Vec<DiskIo>,
}

struct OpRec {
    job: u32,
    submitted_ns: u64,
    bytes: u64,
    background: bool,
}

/// Counts the executor keeps for the report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExecutorStats {
    pub host_reads: u64,
    pub host_writes: u64,
    pub full_stripe_writes: u64,
    pub read_modify_writes: u64,
    pub reconstruct_writes: u64,
    /// Parity units read and discarded to keep reads whole (RAID-5 parity fill-in).
    pub fill_in_reads: u64,
    /// Disk operations cut at a track boundary by the track map.
    pub track_splits: u64,
    pub background_moves: u64,
    pub background_bytes: u64,
    pub speed_commands: u64,
    pub standby_commands: u64,
    /// Requests beyond the array's end folded back into it (`wrap`).
    pub wrapped_requests: u64,
    pub nvram: Option<NvramStats>,
    /// Per disk, over the whole run.
    pub disks: Vec<DiskCounters>,
}

/// The executor; see the module documentation.
pub struct ArrayController {
    geometry: Geometry,
    scheme: Box<dyn Scheme>,
    nvram: Option<Nvram>,
    max_destages: usize,
    destages_in_flight: usize,
    wrap: bool,
    jobs: Slab<Job>,
    ops: Slab<OpRec>,
    status: Vec<DiskStatus>,
    since_tick: Vec<DiskCounters>,
    totals: Vec<DiskCounters>,
    last_done_ns: Vec<u64>,
    last_activity_ns: Vec<u64>,
    idle_timeout_ns: Vec<Option<u64>>,
    throttled: VecDeque<(HostId, u64, u64, u64)>,
    /// Per disk: background operations waiting for the disk to have nothing else to do,
    /// and those of yielding moves, which start only when the first queue is empty.
    background: Vec<VecDeque<(u32, DiskIo)>>,
    background_yielding: Vec<VecDeque<(u32, DiskIo)>>,
    /// Per disk: a background operation is in service.
    background_busy: Vec<bool>,
    moves_in_flight: usize,
    tick_at: Option<u64>,
    age_timer_at: Option<u64>,
    cmds: Vec<Command>,
    plan: Plan,
    tracks: Option<TrackMap>,
    scratch: Vec<Piece>,
    parts: Vec<(u64, u64)>,
    /// The reads of a plan ([`ArrayController::plan_io`]) as they are started, kept from
    /// request to request so that their memory is allocated once.
    reads: Vec<DiskIo>,
    stats: ExecutorStats,
    placed: bool,
}

impl ArrayController {
    /// `geometry` places data unless the scheme has its own placement; `nvram` caches
    /// writes (at most `max_destages` destages in flight).
    pub fn new(geometry: Geometry, scheme: Box<dyn Scheme>, nvram: Option<Nvram>, max_destages: usize, wrap: bool) -> Self {
        let n = geometry.disks as usize;
        ArrayController {
            geometry,
            scheme,
            nvram,
            max_destages: max_destages.max(1),
            destages_in_flight: 0,
            wrap,
            jobs: Slab::new(),
            ops: Slab::new(),
            status: vec![DiskStatus::default(); n],
            since_tick: vec![DiskCounters::default(); n],
            totals: vec![DiskCounters::default(); n],
            last_done_ns: vec![0; n],
            last_activity_ns: vec![0; n],
            idle_timeout_ns: vec![None; n],
            throttled: VecDeque::new(),
            background: vec![VecDeque::new(); n],
            background_yielding: vec![VecDeque::new(); n],
            background_busy: vec![false; n],
            moves_in_flight: 0,
            tick_at: None,
            age_timer_at: None,
            cmds: Vec::new(),
            plan: Plan::default(),
            tracks: None,
            scratch: Vec::new(),
            parts: Vec::new(),
            reads: Vec::new(),
            stats: ExecutorStats::default(),
            placed: false,
        }
    }

    /// Lay the geometry's disk space on tracks common to the disks (a chunk per track):
    /// every disk operation of a plan is cut at track boundaries and placed inside its
    /// disk's track. The geometry must stripe over `map.disk_bytes()` per disk.
    pub fn with_track_map(mut self, map: TrackMap) -> Result<Self, String> {
        if map.disks() != self.geometry.disks as usize {
            return Err(format!("the track map covers {} disks, the array has {}", map.disks(), self.geometry.disks));
        }
        if self.geometry.disk_bytes > map.disk_bytes() {
            return Err(format!("the layout uses {} bytes per disk, the track map holds {}", self.geometry.disk_bytes, map.disk_bytes()));
        }
        if self.geometry.level == tierlab_raid::RaidLevel::Raid10 {
            return Err("a track map lays out raid0 or raid5: a mirror's two copies lie on tracks of different disks".into());
        }
        self.tracks = Some(map);
        Ok(self)
    }

    /// Add disks beyond the geometry's (MAID's cache disks).
    pub fn with_extra_disks(mut self, extra: usize) -> Self {
        let n = self.status.len() + extra;
        self.status.resize(n, DiskStatus::default());
        self.since_tick.resize(n, DiskCounters::default());
        self.totals.resize(n, DiskCounters::default());
        self.last_done_ns.resize(n, 0);
        self.last_activity_ns.resize(n, 0);
        self.idle_timeout_ns.resize(n, None);
        self.background.resize(n, VecDeque::new());
        self.background_yielding.resize(n, VecDeque::new());
        self.background_busy.resize(n, false);
        self
    }

    /// Initial speed levels (all disks at `top`), then the scheme's start commands.
    pub fn start(&mut self, top: usize, setup: &tierlab_array_policy::ArraySetup) {
        for s in &mut self.status {
            s.level = top;
        }
        let mut cmds = std::mem::take(&mut self.cmds);
        self.scheme.start(setup, &mut cmds);
        self.cmds = cmds;
        self.placed = self.scheme.placement().is_some();
    }

    /// Logical bytes the array holds: the scheme's placement's, or the RAID geometry's.
    pub fn capacity_bytes(&mut self) -> u64 {
        match self.scheme.placement() {
            Some(p) => p.capacity_bytes(),
            None => self.geometry.capacity_bytes(),
        }
    }

    pub fn scheme(&self) -> &dyn Scheme {
        self.scheme.as_ref()
    }

    pub fn stats(&self) -> ExecutorStats {
        let mut s = self.stats.clone();
        s.nvram = self.nvram.as_ref().map(Nvram::stats);
        s.disks = self.totals.clone();
        s
    }

    fn apply_commands(&mut self, now_ns: u64, io: &mut Io) {
        let mut reorganise = false;
        for cmd in self.cmds.drain(..) {
            match cmd {
                Command::SetSpeed { disk, level } => {
                    let Some(st) = self.status.get_mut(disk) else { continue };
                    if st.level == level && !st.standby {
                        continue;
                    }
                    st.level = level;
                    st.standby = false;
                    self.stats.speed_commands += 1;
                    io.command(disk, DeviceCommand::SetSpeedLevel(level));
                }
                Command::Standby { disk } => {
                    let Some(st) = self.status.get_mut(disk) else { continue };
                    st.standby = true;
                    self.stats.standby_commands += 1;
                    io.command(disk, DeviceCommand::Standby);
                }
                Command::Wake { disk } => {
                    let Some(st) = self.status.get_mut(disk) else { continue };
                    st.standby = false;
                    io.command(disk, DeviceCommand::Wake);
                }
                Command::IdleTimeout { disk, timeout_ns } => {
                    if disk < self.idle_timeout_ns.len() {
                        self.idle_timeout_ns[disk] = timeout_ns;
                        io.command(disk, DeviceCommand::SetIdleTimeout(timeout_ns));
                    }
                }
                Command::Reorganise => reorganise = true,
            }
        }
        if reorganise {
            self.start_moves(now_ns, io);
        }
    }

    fn arm_tick(&mut self, io: &mut Io) {
        if let Some(t) = self.scheme.next_tick_ns() {
            if self.tick_at != Some(t) {
                self.tick_at = Some(t);
                io.timer(t, TICK_TOKEN);
            }
        }
    }

    fn submit(&mut self, now_ns: u64, job: u32, d: DiskIo, background: bool, io: &mut Io) {
        let disk = d.disk as usize;
        self.status[disk].queued += 1;
        let token = u64::from(self.ops.insert(OpRec { job, submitted_ns: now_ns, bytes: d.len_bytes, background })) + 2;
        io.submit(disk, DeviceOp { op: d.op, offset_bytes: d.offset_bytes, len_bytes: d.len_bytes, fua: false }, token);
    }

    /// Start a job: its reads now, its writes when they are done (or now, if no reads).
    fn start_job(&mut self, now_ns: u64, kind: JobKind, reads: &[DiskIo], writes: Vec<DiskIo>, io: &mut Io) {
        let queue = Queue::of(&kind);
        if reads.is_empty() {
            if writes.is_empty() {
                self.finish_job(now_ns, kind, io);
                return;
            }
            let job = self.jobs.insert(Job { kind, pending: writes.len() as u32, writes: Vec::new() });
            for d in writes {
                self.issue(now_ns, job, d, queue, io);
            }
        } else {
            let job = self.jobs.insert(Job { kind, pending: reads.len() as u32, writes });
            for &d in reads {
                self.issue(now_ns, job, d, queue, io);
            }
        }
    }

    /// Foreground operations go to the disk at once; a move's wait until the disk has
    /// nothing else queued, one at a time, so a foreground request waits behind at most
    /// one background operation. (NVRAM destages are foreground work: the host is waiting
    /// for room when they matter.) A yielding move's operations wait until no other
    /// background operation is queued on their disk.
    fn issue(&mut self, now_ns: u64, job: u32, d: DiskIo, queue: Queue, io: &mut Io) {
        match queue {
            Queue::Foreground => self.submit(now_ns, job, d, false, io),
            Queue::Background => {
                self.background[d.disk as usize].push_back((job, d));
                self.pump(now_ns, d.disk as usize, io);
            }
            Queue::Yielding => {
                self.background_yielding[d.disk as usize].push_back((job, d));
                self.pump(now_ns, d.disk as usize, io);
            }
        }
    }

    /// Start the next background operation of `disk` if it is idle.
    fn pump(&mut self, now_ns: u64, disk: usize, io: &mut Io) {
        if self.status[disk].queued > 0 || self.background_busy[disk] {
            return;
        }
        if let Some((job, d)) = self.background[disk].pop_front().or_else(|| self.background_yielding[disk].pop_front()) {
            self.background_busy[disk] = true;
            self.submit(now_ns, job, d, true, io);
        }
    }

    /// The disk operations of `op` on logical bytes `[offset, offset + len)`: reads in
    /// `reads`, writes in `writes`.
    fn plan_io(&mut self, op: Op, offset_bytes: u64, len_bytes: u64, reads: &mut Vec<DiskIo>, writes: &mut Vec<DiskIo>) -> Result<(), String> {
        reads.clear();
        writes.clear();
        if let Some(p) = self.scheme.placement() {
            let rb = p.rb_bytes();
            let mut pos = offset_bytes;
            let end = offset_bytes + len_bytes;
            while pos < end {
                let index = pos / rb;
                let within = pos % rb;
                let n = (rb - within).min(end - pos);
                let Some((data, parity)) = p.locate(index) else {
                    return Err(format!("relocation block {index} is outside the layout"));
                };
                let at = |l: Location, op| DiskIo { disk: l.disk, offset_bytes: l.offset_bytes + within, len_bytes: n, op };
                match op {
                    Op::Read => reads.push(at(data, Op::Read)),
                    Op::Write => {
                        // A piece of one relocation block never fills its stripe: with
                        // parity it is a read-modify-write of the data and parity units.
                        if let Some(par) = parity {
                            reads.push(at(data, Op::Read));
                            reads.push(at(par, Op::Read));
                            writes.push(at(par, Op::Write));
                            self.stats.read_modify_writes += 1;
                        }
                        writes.push(at(data, Op::Write));
                    }
                }
                pos += n;
            }
            return Ok(());
        }
        self.geometry.plan(op, offset_bytes, len_bytes, &mut self.plan).map_err(|e| e.to_string())?;
        self.stats.full_stripe_writes += u64::from(self.plan.full_stripe_writes);
        self.stats.read_modify_writes += u64::from(self.plan.read_modify_writes);
        self.stats.reconstruct_writes += u64::from(self.plan.reconstruct_writes);
        self.stats.fill_in_reads += u64::from(self.plan.fill_in_reads);
        if let Some(map) = &self.tracks {
            let pieces = self.plan.reads.len() + self.plan.writes.len();
            for list in [&mut self.plan.reads, &mut self.plan.writes] {
                self.scratch.clear();
                for p in list.iter() {
                    self.parts.clear();
                    map.split(p.disk as usize, p.offset_bytes, p.len_bytes, &mut self.parts).map_err(|e| e.to_string())?;
                    self.scratch.extend(self.parts.iter().map(|&(offset_bytes, len_bytes)| Piece { offset_bytes, len_bytes, ..*p }));
                }
                std::mem::swap(list, &mut self.scratch);
            }
            self.stats.track_splits += (self.plan.reads.len() + self.plan.writes.len() - pieces) as u64;
        }
        for p in &self.plan.reads {
            // RAID-10: read the copy whose disk is spinning and has the shorter queue.
            let disk = match p.mirror {
                Some(m) if self.prefer(m, p.disk) => m,
                _ => p.disk,
            };
            reads.push(DiskIo { disk, offset_bytes: p.offset_bytes, len_bytes: p.len_bytes, op: Op::Read });
        }
        for p in &self.plan.writes {
            writes.push(DiskIo { disk: p.disk, offset_bytes: p.offset_bytes, len_bytes: p.len_bytes, op: Op::Write });
        }
        Ok(())
    }

    fn prefer(&self, a: u32, b: u32) -> bool {
        let (sa, sb) = (self.status[a as usize], self.status[b as usize]);
        (sa.standby, sa.queued) < (sb.standby, sb.queued)
    }

    /// Tell the scheme's placement of an access that reaches the disks (a read that
    /// missed NVRAM, a destage, a write without NVRAM).
    fn record_access(&mut self, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64) {
        if let Some(p) = self.scheme.placement() {
            let rb = p.rb_bytes();
            for index in offset_bytes / rb..(offset_bytes + len_bytes).div_ceil(rb) {
                p.record_access(index, op.is_write(), now_ns);
            }
        }
    }

    fn finish_job(&mut self, now_ns: u64, kind: JobKind, io: &mut Io) {
        match kind {
            JobKind::HostRead { host, arrival_ns, offset_bytes, len_bytes } => {
                if let Some(n) = &mut self.nvram {
                    n.fill(offset_bytes, len_bytes);
                }
                self.complete_host(now_ns, host, arrival_ns, io);
            }
            JobKind::HostWrite { host, arrival_ns } => self.complete_host(now_ns, host, arrival_ns, io),
            JobKind::Destage { offset_bytes, len_bytes } => {
                self.destages_in_flight -= 1;
                if let Some(n) = &mut self.nvram {
                    n.destaged(now_ns, offset_bytes, len_bytes);
                }
                self.retry_throttled(now_ns, io);
                self.destage(now_ns, io);
            }
            JobKind::Move { id, .. } => {
                self.moves_in_flight -= 1;
                if let Some(p) = self.scheme.placement() {
                    p.move_done(id, now_ns);
                }
                self.start_moves(now_ns, io);
            }
        }
    }

    fn complete_host(&mut self, now_ns: u64, host: HostId, arrival_ns: u64, io: &mut Io) {
        io.complete(host);
        let mut cmds = std::mem::take(&mut self.cmds);
        self.scheme.on_response(now_ns, now_ns - arrival_ns, &self.status, &mut cmds);
        self.cmds = cmds;
        if !self.cmds.is_empty() {
            self.apply_commands(now_ns, io);
        }
    }

    /// Writes that waited for room in NVRAM, in arrival order.
    fn retry_throttled(&mut self, now_ns: u64, io: &mut Io) {
        while let Some(&(host, arrival_ns, offset_bytes, len_bytes)) = self.throttled.front() {
            let Some(n) = &mut self.nvram else { break };
            if !n.write(now_ns, offset_bytes, len_bytes) {
                break;
            }
            self.throttled.pop_front();
            self.complete_host(now_ns, host, arrival_ns, io);
        }
    }

    /// Start destages while one is due and fewer than `max_destages` are in flight; arm a
    /// timer for the next age-due destage.
    fn destage(&mut self, now_ns: u64, io: &mut Io) {
        let mut reads = std::mem::take(&mut self.reads);
        let mut writes = Vec::new();
        while self.destages_in_flight < self.max_destages {
            let Some(n) = &mut self.nvram else { return };
            if !n.destage_due(now_ns) && self.throttled.is_empty() {
                break;
            }
            let Some((offset_bytes, len_bytes)) = n.next_destage() else { break };
            self.record_access(now_ns, Op::Write, offset_bytes, len_bytes);
            if self.plan_io(Op::Write, offset_bytes, len_bytes, &mut reads, &mut writes).is_err() {
                continue;
            }
            self.destages_in_flight += 1;
            self.start_job(now_ns, JobKind::Destage { offset_bytes, len_bytes }, &reads, std::mem::take(&mut writes), io);
        }
        self.reads = reads;
        // A destage already due waits for one in flight to finish (which calls this
        // again); one due later gets a timer.
        let Some(n) = &mut self.nvram else { return };
        // (A cache that destages only above its watermark has no age limit: no timer.)
        let age_limited = n.config().max_age_ns < u64::MAX;
        if let Some(t) = age_limited.then(|| n.oldest_dirty_ns()).flatten() {
            let due = t.saturating_add(n.config().max_age_ns);
            if due > now_ns && self.age_timer_at.is_none_or(|a| a <= now_ns || a > due) {
                self.age_timer_at = Some(due);
                io.timer(due, DESTAGE_TOKEN);
            }
        }
    }

    /// Start the scheme's background moves (at most as many at once as its layout
    /// allows); their operations wait in the per-disk background queues.
    fn start_moves(&mut self, now_ns: u64, io: &mut Io) {
        if !self.placed || io.requests_finished() {
            return;
        }
        loop {
            let status = &self.status;
            let (waiting, yielding) = (&self.background, &self.background_yielding);
            let idle = |d: u32| {
                let d = d as usize;
                status.get(d).is_some_and(|s| s.queued == 0) && waiting.get(d).is_some_and(VecDeque::is_empty) && yielding.get(d).is_some_and(VecDeque::is_empty)
            };
            let Some(p) = self.scheme.placement() else { return };
            if self.moves_in_flight >= p.max_moves_in_flight() {
                return;
            }
            let Some(mv) = p.next_move(now_ns, &idle) else { return };
            if mv.ops.is_empty() {
                // Nothing to copy (e.g. a stripe a reorganisation leaves as it is).
                p.move_done(mv.id, now_ns);
                continue;
            }
            self.run_move(now_ns, mv, io);
        }
    }

    fn run_move(&mut self, now_ns: u64, mv: Move, io: &mut Io) {
        self.stats.background_moves += 1;
        self.moves_in_flight += 1;
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for o in &mv.ops {
            self.stats.background_bytes += o.len_bytes;
            let d = DiskIo { disk: o.at.disk, offset_bytes: o.at.offset_bytes, len_bytes: o.len_bytes, op: if o.write { Op::Write } else { Op::Read } };
            if o.write { writes.push(d) } else { reads.push(d) }
        }
        self.start_job(now_ns, JobKind::Move { id: mv.id, yielding: mv.yielding }, &reads, writes, io);
    }

    fn view_status(&mut self, now_ns: u64) {
        for (d, st) in self.status.iter_mut().enumerate() {
            if let Some(t) = self.idle_timeout_ns[d] {
                // The disk spins itself down after `t` idle (the device accounts it lazily).
                if st.queued == 0 && now_ns.saturating_sub(self.last_activity_ns[d]) > t {
                    st.standby = true;
                } else if st.queued > 0 {
                    st.standby = false;
                }
            }
        }
    }
}

impl Controller for ArrayController {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        if devices.len() != self.status.len() {
            return Err(SimError::Config(format!("the array has {} disks but the simulation holds {} devices", self.status.len(), devices.len())));
        }
        if let Some(small) = devices.iter().take(self.geometry.disks as usize).find(|d| d.capacity_bytes < self.geometry.disk_bytes) {
            return Err(SimError::Config(format!("disk `{}` holds {} bytes, less than the layout's {} per disk", small.name, small.capacity_bytes, self.geometry.disk_bytes)));
        }
        Ok(())
    }

    fn on_request(&mut self, now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        if !self.cmds.is_empty() {
            self.apply_commands(now_ns, io);
        }
        if self.tick_at.is_none() {
            self.arm_tick(io);
        }
        let capacity = self.capacity_bytes();
        let mut offset_bytes = req.offset_bytes;
        if req.len_bytes == 0 || req.len_bytes > capacity {
            return Err(SimError::OutOfRange { request_index: index, device: "array".into(), offset_bytes, len_bytes: req.len_bytes, capacity_bytes: capacity });
        }
        if offset_bytes.saturating_add(req.len_bytes) > capacity {
            if !self.wrap {
                return Err(SimError::OutOfRange { request_index: index, device: "array".into(), offset_bytes, len_bytes: req.len_bytes, capacity_bytes: capacity });
            }
            offset_bytes = offset_bytes % (capacity - req.len_bytes + 1) / 512 * 512;
            self.stats.wrapped_requests += 1;
        }
        let len_bytes = req.len_bytes;
        match req.op {
            Op::Read => {
                self.stats.host_reads += 1;
                if self.nvram.as_mut().is_some_and(|n| n.read(offset_bytes, len_bytes)) {
                    self.complete_host(now_ns, host, now_ns, io);
                    return Ok(());
                }
                self.record_access(now_ns, Op::Read, offset_bytes, len_bytes);
                let (mut reads, mut writes) = (std::mem::take(&mut self.reads), Vec::new());
                self.plan_io(Op::Read, offset_bytes, len_bytes, &mut reads, &mut writes).map_err(|e| SimError::Config(format!("request {index}: {e}")))?;
                self.start_job(now_ns, JobKind::HostRead { host, arrival_ns: now_ns, offset_bytes, len_bytes }, &reads, Vec::new(), io);
                self.reads = reads;
            }
            Op::Write => {
                self.stats.host_writes += 1;
                match self.nvram.as_mut().filter(|n| n.can_hold(len_bytes)) {
                    Some(n) => {
                        if self.throttled.is_empty() && n.write(now_ns, offset_bytes, len_bytes) {
                            self.complete_host(now_ns, host, now_ns, io);
                        } else {
                            self.throttled.push_back((host, now_ns, offset_bytes, len_bytes));
                        }
                        self.destage(now_ns, io);
                    }
                    None => {
                        // No NVRAM, or a write larger than half of it: straight to the
                        // disks, and any cached copy of its blocks is dropped.
                        if let Some(n) = &mut self.nvram {
                            n.invalidate(offset_bytes, len_bytes);
                        }
                        self.record_access(now_ns, Op::Write, offset_bytes, len_bytes);
                        let (mut reads, mut writes) = (std::mem::take(&mut self.reads), Vec::new());
                        self.plan_io(Op::Write, offset_bytes, len_bytes, &mut reads, &mut writes).map_err(|e| SimError::Config(format!("request {index}: {e}")))?;
                        self.start_job(now_ns, JobKind::HostWrite { host, arrival_ns: now_ns }, &reads, writes, io);
                        self.reads = reads;
                    }
                }
            }
        }
        Ok(())
    }

    /// The NVRAM's memory for the next two requests starts loading: the block map's
    /// entries of the one after next (which have loaded by the time it is next) and the
    /// slots of the next.
    fn upcoming(&self, next: &IoRequest, after: Option<&IoRequest>) {
        if let Some(n) = &self.nvram {
            if let Some(a) = after {
                n.prefetch_early(a.offset_bytes, a.len_bytes);
            }
            n.prefetch_request(next.offset_bytes, next.len_bytes);
        }
    }

    fn on_device_done(&mut self, now_ns: u64, device: usize, token: u64, io: &mut Io) {
        let Some(rec) = token.checked_sub(2).and_then(|t| self.ops.remove(t as u32)) else { return };
        let disk = device;
        self.status[disk].queued = self.status[disk].queued.saturating_sub(1);
        let start = rec.submitted_ns.max(self.last_done_ns[disk]);
        let service_s = (now_ns - start) as f64 / 1e9;
        let response_s = (now_ns - rec.submitted_ns) as f64 / 1e9;
        // An operation that waited for a spin-up or a speed change (seconds) does not
        // describe the disk at speed: no disk operation takes a second otherwise.
        let delayed = now_ns - start > DELAYED_SERVICE_NS;
        // A scheme forecasts from the foreground work: background moves are its own,
        // and temporary.
        let counters: &mut [&mut DiskCounters] = if rec.background { &mut [&mut self.totals[disk]] } else { &mut [&mut self.since_tick[disk], &mut self.totals[disk]] };
        for c in counters.iter_mut() {
            c.ops += 1;
            c.bytes += rec.bytes;
            c.response_s += response_s;
            if delayed {
                c.delayed_ops += 1;
            } else {
                c.service_s += service_s;
                c.service_sq_s2 += service_s * service_s;
            }
        }
        self.last_done_ns[disk] = now_ns;
        self.last_activity_ns[disk] = now_ns;
        if rec.background {
            self.background_busy[disk] = false;
        }
        let Some(job) = self.jobs.get_mut(rec.job) else { return };
        job.pending -= 1;
        if job.pending == 0 {
            let writes = std::mem::take(&mut job.writes);
            if writes.is_empty() {
                if let Some(job) = self.jobs.remove(rec.job) {
                    self.finish_job(now_ns, job.kind, io);
                }
            } else {
                job.pending = writes.len() as u32;
                let queue = Queue::of(&job.kind);
                for d in writes {
                    self.issue(now_ns, rec.job, d, queue, io);
                }
            }
        }
        if self.status[disk].queued == 0 {
            self.pump(now_ns, disk, io);
            if self.placed && self.moves_in_flight == 0 {
                self.start_moves(now_ns, io);
            }
        }
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        match token {
            TICK_TOKEN => {
                self.tick_at = None;
                self.view_status(now_ns);
                let view = ArrayView { now_ns, status: &self.status, since_tick: &self.since_tick };
                let mut cmds = std::mem::take(&mut self.cmds);
                self.scheme.tick(&view, &mut cmds);
                self.cmds = cmds;
                for c in &mut self.since_tick {
                    *c = DiskCounters::default();
                }
                self.apply_commands(now_ns, io);
                self.arm_tick(io);
            }
            DESTAGE_TOKEN => {
                self.age_timer_at = None;
                self.destage(now_ns, io);
            }
            _ => {}
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "scheme": self.scheme.report(),
            "executor": self.stats(),
        })
    }
}
