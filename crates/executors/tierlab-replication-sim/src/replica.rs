//! The secondary site's executor: the engine's host requests are the commits arriving
//! from the primary, each appended to the always-on log volume; the data volume applies
//! the log as the replica power policy commands.
//!
//! Applying one window:
//! 1. take unapplied records in LSN order, up to the window size in original log bytes
//!    (only records that have arrived);
//! 2. deferring schemes take those bytes from the staging buffer: a second window buffer
//!    that holds the next window's log. It fills straight from the link while it has
//!    room and has caught up with the arrivals, and otherwise by sequential reads of the
//!    log volume, issued as soon as the buffer is free (when the window before starts its
//!    data I/O, or when the data volume is told to spin up), so the read-back overlaps
//!    the apply instead of preceding it. The immediate schemes, and a deferring one whose
//!    policy is staying up, apply from the receive buffer;
//! 3. compact them (the scheme's folding, sorting, merging);
//! 4. log variant: every page the window touches goes through the apply-side page cache;
//!    a miss reads the page (read-modify-write redo; blind redo does not read), a dirty
//!    victim is written back; every scheme but the pooled baseline then writes every
//!    dirty page (ascending, adjacent pages merged, when it sorts; in first-touch order
//!    otherwise): the window's changes are reflected at once and the data volume is
//!    clean before it may sleep. The pooled baseline writes pages only as the cache
//!    evicts them. Block variant: the batch's blind writes.
//!
//! Apply I/O is issued in the order the applier produces it, at most `apply_depth` at
//! once; the disks serve first come, first served, so the only elevator is the sort.

use crate::config::{ReplicationConfig, Scheme};
use crate::primary::Arrival;
use crate::volume::{Jobs, LogAppender, Volume};
use rustc_hash::FxHashSet;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use tierlab_replica_policy::{Command, Defer, Event, ReplicaPolicy};
use tierlab_update_log::{
    Batch, BufferPool, Compactor, Transaction, UpdateOp, UpdateRecord, UpdateSource,
};
use tierlab_engine::{Controller, DeviceCommand, DeviceInfo, HostId, Io, SimError};
use tierlab_types::{IoRequest, Op, NS_PER_S};

const LOG_BASE: u64 = 0;
const APPEND_BASE: u64 = 1 << 36;
const DATA_BASE: u64 = 1 << 40;
const WAKE_TIMER: u64 = 2 << 40;
const SPUN_UP_TIMER: u64 = 3 << 40;
const SPUN_DOWN_TIMER: u64 = 4 << 40;
/// Log read back per request during apply.
const LOG_READ_CHUNK_BYTES: u64 = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    LogRead,
    Reads,
    Writes,
}

struct Window {
    started_ns: u64,
    log_bytes: u64,
    full: bool,
    phase: Phase,
    /// The window leaves the data volume clean (segments, each written back): its
    /// changes are reflected at once, and the volume may sleep after it.
    clean: bool,
    /// The window's log comes from the staging buffer (a deferring scheme's window).
    staged: bool,
}

/// What the secondary's executor counted.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ApplyStats {
    pub windows: u64,
    pub full_windows: u64,
    pub records_applied: u64,
    pub log_bytes_applied: u64,
    /// Sum of the windows' durations (start to last I/O), s.
    pub apply_busy_s: f64,
    pub net_entries: u64,
    pub cancelled: u64,
    pub anomalies: u64,
    pub page_reads: u64,
    pub write_ios: u64,
    pub bytes_written: u64,
    pub log_bytes_read: u64,
    /// Time windows waited for their log to be read back before their data I/O, s (part
    /// of `apply_busy_s`).
    pub log_wait_s: f64,
    /// Log bytes staged straight from the link, never read back.
    pub log_bytes_staged_from_link: u64,
    pub max_backlog_bytes: u64,
    /// The largest window taken (original log bytes): compaction's memory is bounded by
    /// it, never by the stream.
    pub max_window_log_bytes: u64,
    pub final_backlog_bytes: u64,
    pub arrivals: u64,
}

pub struct ReplicaController {
    data: Volume,
    log: Volume,
    scheme: Scheme,
    policy: ReplicaPolicy,
    compactor: Compactor,
    batch: Batch,
    cache: BufferPool,
    page_bytes: u64,
    merge_max_bytes: u64,
    window_bytes: u64,
    /// Row records' pages are written without being read (blind redo).
    blind: bool,
    /// The staging buffer holds (or is reading) the log up to this byte of the stream
    /// (original log bytes, the coordinate of `applied_bytes` and `arrived_bytes`).
    staged_end: u64,
    apply_depth: usize,
    cursor: Box<dyn UpdateSource + Send>,
    cursor_txn: Transaction,
    cursor_pos: usize,
    cursor_failed: Option<String>,
    arrivals: Rc<RefCell<VecDeque<Arrival>>>,
    arrived_lsn: u64,
    arrived_bytes: u64,
    applied_bytes: u64,
    log_read_offset: u64,
    log_jobs: Jobs<()>,
    appender: LogAppender<(HostId, Arrival)>,
    log_reads_in_flight: usize,
    data_jobs: Jobs<()>,
    window: Option<Window>,
    records: Vec<UpdateRecord>,
    /// The window's next page to reference (segments of the apply).
    next_page: usize,
    queue: VecDeque<(Op, u64, u64)>,
    wake_timer_ns: Option<u64>,
    started: bool,
    spin_down_s: f64,
    spin_up_s: f64,
    idle_timeout_ns: Option<u64>,
    stats: ApplyStats,
}

pub(crate) struct ReplicaSetup {
    pub data: Volume,
    pub log: Volume,
    pub policy: ReplicaPolicy,
    pub compactor: Compactor,
    pub page_bytes: u64,
    pub cursor: Box<dyn UpdateSource + Send>,
    pub arrivals: Rc<RefCell<VecDeque<Arrival>>>,
    pub spin_down_s: f64,
    pub spin_up_s: f64,
    pub idle_timeout_ns: Option<u64>,
}

impl ReplicaController {
    pub(crate) fn new(cfg: &ReplicationConfig, scheme: Scheme, s: ReplicaSetup) -> Self {
        let cache_pages = (cfg.apply_cache_bytes / s.page_bytes.max(1)) as usize;
        ReplicaController {
            data: s.data,
            log: s.log,
            scheme,
            policy: s.policy,
            compactor: s.compactor,
            batch: Batch::default(),
            cache: BufferPool::new(cache_pages),
            page_bytes: s.page_bytes,
            merge_max_bytes: if scheme.compacts() {
                cfg.merge_max_bytes.max(s.page_bytes)
            } else {
                s.page_bytes
            },
            window_bytes: cfg.window_bytes,
            blind: cfg.redo == crate::config::Redo::Blind,
            staged_end: 0,
            apply_depth: cfg.apply_depth,
            cursor: s.cursor,
            cursor_txn: Transaction::default(),
            cursor_pos: 0,
            cursor_failed: None,
            arrivals: s.arrivals,
            arrived_lsn: 0,
            arrived_bytes: 0,
            applied_bytes: 0,
            log_read_offset: 0,
            log_jobs: Jobs::new(LOG_BASE),
            appender: LogAppender::new(s.log, APPEND_BASE),
            log_reads_in_flight: 0,
            data_jobs: Jobs::new(DATA_BASE),
            window: None,
            records: Vec::new(),
            next_page: 0,
            queue: VecDeque::new(),
            wake_timer_ns: None,
            started: false,
            spin_down_s: s.spin_down_s,
            spin_up_s: s.spin_up_s,
            idle_timeout_ns: s.idle_timeout_ns,
            stats: ApplyStats::default(),
        }
    }

    pub fn stats(&self) -> &ApplyStats {
        &self.stats
    }

    pub fn policy(&self) -> &ReplicaPolicy {
        &self.policy
    }

    /// The stream could not be read back for applying (its message).
    pub fn cursor_error(&self) -> Option<&str> {
        self.cursor_failed.as_deref()
    }

    fn backlog(&self) -> u64 {
        // Commits arrive in log order and a window takes only arrived records, so what is
        // applied never exceeds what arrived.
        self.arrived_bytes.saturating_sub(self.applied_bytes)
    }

    fn decide(&mut self, now_ns: u64, event: Event, io: &mut Io) {
        let backlog = self.backlog();
        self.stats.max_backlog_bytes = self.stats.max_backlog_bytes.max(backlog);
        let d = self.policy.decide(now_ns, event, backlog);
        if let Some(at) = d.wake_at_ns {
            if self.wake_timer_ns != Some(at) {
                self.wake_timer_ns = Some(at);
                io.timer(at, WAKE_TIMER);
            }
        }
        match d.command {
            None => {}
            Some(Command::ApplyWindow) => self.start_window(now_ns, io),
            Some(Command::SpinDown) => {
                for d in self.data.devices() {
                    io.command(d, DeviceCommand::Standby);
                }
                io.timer(
                    now_ns + tierlab_array_sim::s_to_ns(self.spin_down_s),
                    SPUN_DOWN_TIMER,
                );
            }
            Some(Command::SpinUp) => {
                for d in self.data.devices() {
                    io.command(d, DeviceCommand::Wake);
                }
                // The log disk stages the first window while the data disks spin up.
                self.stage(io);
                io.timer(
                    now_ns + tierlab_array_sim::s_to_ns(self.spin_up_s),
                    SPUN_UP_TIMER,
                );
            }
        }
    }

    /// The next record of the stream, if it has arrived (not consumed).
    fn peek_arrived(&mut self) -> Option<UpdateRecord> {
        loop {
            if let Some(r) = self.cursor_txn.records.get(self.cursor_pos) {
                return (r.lsn <= self.arrived_lsn).then_some(*r);
            }
            if self.cursor_failed.is_some() {
                return None;
            }
            match self.cursor.next_transaction(&mut self.cursor_txn) {
                Ok(true) => self.cursor_pos = 0,
                Ok(false) => return None,
                Err(e) => {
                    self.cursor_failed = Some(e.to_string());
                    return None;
                }
            }
        }
    }

    fn start_window(&mut self, now_ns: u64, io: &mut Io) {
        self.records.clear();
        let mut log_bytes = 0u64;
        let mut full = false;
        while let Some(r) = self.peek_arrived() {
            if !self.records.is_empty() && log_bytes + u64::from(r.log_bytes) > self.window_bytes {
                full = true;
                break;
            }
            self.cursor_pos += 1;
            log_bytes += u64::from(r.log_bytes);
            self.records.push(r);
        }
        // A deferring scheme takes its window from the staging buffer. Every immediate
        // scheme, and a deferring one whose policy is staying up, applies from the receive
        // buffer. Every scheme but the pooled baseline leaves the data volume clean.
        let staged = self.scheme.defer() == Defer::UntilRto && !self.policy.staying_up();
        self.window = Some(Window {
            started_ns: now_ns,
            log_bytes,
            full,
            phase: Phase::LogRead,
            clean: self.scheme.writes_through(),
            staged,
        });
        if self.records.is_empty() {
            // The backlog is log the cursor cannot read (a failed stream): an empty window,
            // so the policy is not left waiting.
            self.finish_window(now_ns, io);
            return;
        }
        if staged {
            // What the staging buffer does not hold yet is read now; reads already in
            // flight for it are waited for.
            let end = self.applied_bytes + log_bytes;
            self.staged_end = self.staged_end.max(self.applied_bytes);
            if self.staged_end < end {
                self.read_log(io, end - self.staged_end);
                self.staged_end = end;
            }
        }
        if !staged || self.log_reads_in_flight == 0 {
            self.begin_data_phase(now_ns, io);
        }
    }

    /// Read `bytes` of log back from the log volume, sequentially, in 1 MiB requests.
    fn read_log(&mut self, io: &mut Io, bytes: u64) {
        let mut left = bytes.div_ceil(512) * 512;
        while left > 0 {
            let len = left.min(LOG_READ_CHUNK_BYTES);
            if self.log_read_offset + len > self.log.capacity_bytes() {
                self.log_read_offset = 0;
            }
            let log = self.log;
            if self
                .log_jobs
                .start(io, &log, Op::Read, self.log_read_offset, len, ())
            {
                self.log_reads_in_flight += 1;
            }
            self.log_read_offset += len;
            self.stats.log_bytes_read += len;
            left -= len;
        }
    }

    /// The first byte of the log the staging buffer is for: the next window's.
    fn stage_head(&self) -> u64 {
        self.applied_bytes + self.window.as_ref().map_or(0, |w| w.log_bytes)
    }

    /// Whether the staging buffer may take log: a deferring scheme, and no window waiting
    /// for its own log in it.
    fn staging_free(&self) -> bool {
        self.scheme.defer() == Defer::UntilRto
            && self.window.as_ref().is_none_or(|w| w.phase != Phase::LogRead)
    }

    /// Fill the staging buffer with the next window's log that has arrived, reading from
    /// the log volume what is not in it.
    fn stage(&mut self, io: &mut Io) {
        if !self.staging_free() {
            return;
        }
        let head = self.stage_head();
        self.staged_end = self.staged_end.max(head);
        let want = (head + self.window_bytes).min(self.arrived_bytes);
        if want > self.staged_end {
            self.read_log(io, want - self.staged_end);
            self.staged_end = want;
        }
    }

    /// Compact the window and queue its page reads (log variant) or writes (block variant).
    fn begin_data_phase(&mut self, now_ns: u64, io: &mut Io) {
        if let Some(w) = &mut self.window {
            w.phase = Phase::Reads;
            if w.staged {
                self.stats.log_wait_s += (now_ns - w.started_ns) as f64 / NS_PER_S as f64;
            }
        }
        self.compactor.compact_into(&self.records, &mut self.batch);
        // The window's log is compacted: the staging buffer is free for the next one.
        if self.window.as_ref().is_some_and(|w| w.staged) {
            self.stage(io);
        }
        let st = self.batch.stats;
        self.stats.records_applied += st.records_in;
        self.stats.net_entries += st.net_entries;
        self.stats.cancelled += st.cancelled;
        self.stats.anomalies += st.anomalies;
        let block = self.records.iter().all(|r| r.op == UpdateOp::Write);
        if block {
            for w in &self.batch.ios {
                self.queue
                    .push_back((Op::Write, w.offset_bytes, w.len_bytes));
            }
            self.next_page = self.batch.pages.len();
            self.set_phase(Phase::Writes);
        } else {
            self.next_page = 0;
            self.queue_segment();
            self.set_phase(Phase::Reads);
        }
        self.pump(now_ns, io);
    }

    /// Queue the reads of the window's next segment of pages. A window scheme applies its
    /// pages in segments of half the apply cache, writing each segment back before the
    /// next is read: reads and write-backs then sweep the disks in turn instead of
    /// alternating between two places. The immediate schemes take the whole window.
    ///
    /// Misses are read in apply order; when the scheme sorts, a run of adjacent missing
    /// pages is one read (up to the merge size).
    fn queue_segment(&mut self) {
        let page_bytes = self.page_bytes;
        let segment = if self.flushes() {
            (self.cache.capacity_pages() / 2).max(1)
        } else {
            usize::MAX
        };
        let end = self
            .batch
            .pages
            .len()
            .min(self.next_page.saturating_add(segment));
        let max_pages = (self.merge_max_bytes / page_bytes).max(1);
        let mut run: Option<(u64, u64)> = None;
        for i in self.next_page..end {
            let page = self.batch.pages[i];
            let r = self.cache.reference(page, true);
            if r.miss && !self.blind {
                self.stats.page_reads += 1;
                run = match run {
                    Some((first, n)) if first + n == page && n < max_pages => Some((first, n + 1)),
                    Some((first, n)) => {
                        self.queue
                            .push_back((Op::Read, first * page_bytes, n * page_bytes));
                        Some((page, 1))
                    }
                    None => Some((page, 1)),
                };
            }
            if let Some(victim) = r.write_back {
                self.queue
                    .push_back((Op::Write, victim * page_bytes, page_bytes));
            }
        }
        if let Some((first, n)) = run {
            self.queue
                .push_back((Op::Read, first * page_bytes, n * page_bytes));
        }
        self.next_page = end;
    }

    /// Whether the window in progress leaves the data volume clean; otherwise pages are
    /// written back only as the cache evicts them.
    fn flushes(&self) -> bool {
        self.window.as_ref().is_some_and(|w| w.clean)
    }

    fn set_phase(&mut self, phase: Phase) {
        if let Some(w) = &mut self.window {
            w.phase = phase;
        }
    }

    /// Issue queued apply I/O up to the depth; move to the next phase when one drains.
    fn pump(&mut self, now_ns: u64, io: &mut Io) {
        loop {
            while self.data_jobs.in_flight() < self.apply_depth {
                let Some((op, offset, len)) = self.queue.pop_front() else {
                    break;
                };
                if op == Op::Write {
                    self.stats.write_ios += 1;
                    self.stats.bytes_written += len;
                }
                let data = self.data;
                self.data_jobs.start(io, &data, op, offset, len, ());
            }
            if !self.queue.is_empty() || self.data_jobs.in_flight() > 0 {
                return;
            }
            let Some(w) = &self.window else { return };
            match w.phase {
                Phase::LogRead => return,
                Phase::Reads => {
                    self.set_phase(Phase::Writes);
                    if self.flushes() {
                        self.queue_flush();
                    }
                }
                Phase::Writes => {
                    if self.next_page < self.batch.pages.len() {
                        self.queue_segment();
                        self.set_phase(Phase::Reads);
                    } else {
                        self.finish_window(now_ns, io);
                        return;
                    }
                }
            }
        }
    }

    /// Write every dirty page: ascending with adjacent pages merged when the scheme
    /// sorts, in the window's first-touch order one page each otherwise.
    fn queue_flush(&mut self) {
        let dirty = self.cache.take_dirty();
        if dirty.is_empty() {
            return;
        }
        let pb = self.page_bytes;
        if self.scheme.compacts() {
            let max_pages = (self.merge_max_bytes / pb).max(1);
            let mut i = 0;
            while i < dirty.len() {
                let mut j = i + 1;
                while j < dirty.len()
                    && dirty[j] == dirty[j - 1] + 1
                    && ((j - i) as u64) < max_pages
                {
                    j += 1;
                }
                self.queue
                    .push_back((Op::Write, dirty[i] * pb, (j - i) as u64 * pb));
                i = j;
            }
        } else {
            let set: FxHashSet<u64> = dirty.iter().copied().collect();
            let mut written = FxHashSet::default();
            for &p in self.batch.pages.iter().chain(dirty.iter()) {
                if set.contains(&p) && written.insert(p) {
                    self.queue.push_back((Op::Write, p * pb, pb));
                }
            }
        }
    }

    fn finish_window(&mut self, now_ns: u64, io: &mut Io) {
        let Some(w) = self.window.take() else { return };
        self.applied_bytes += w.log_bytes;
        let busy_ns = now_ns - w.started_ns;
        self.stats.windows += 1;
        self.stats.full_windows += u64::from(w.full);
        self.stats.log_bytes_applied += w.log_bytes;
        self.stats.max_window_log_bytes = self.stats.max_window_log_bytes.max(w.log_bytes);
        self.stats.apply_busy_s += busy_ns as f64 / NS_PER_S as f64;
        self.decide(
            now_ns,
            Event::WindowApplied {
                log_bytes: w.log_bytes,
                busy_ns,
                full: w.full,
            },
            io,
        );
    }
}

impl Controller for ReplicaController {
    /// Where the latest replica cycle began, for the measurement's cycle boundaries.
    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "last_spin_up_ns": self.policy.last_spin_up_ns(),
            "arrived_bytes": self.arrived_bytes,
            "log_bytes_applied": self.stats.log_bytes_applied,
            "apply_busy_s": self.stats.apply_busy_s,
        })
    }

    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        if devices.len() < self.log.devices().end {
            return Err(SimError::Config("the secondary is missing disks".into()));
        }
        Ok(())
    }

    fn on_request(
        &mut self,
        _now_ns: u64,
        host: HostId,
        _index: u64,
        req: &IoRequest,
        io: &mut Io,
    ) -> Result<(), SimError> {
        if !std::mem::replace(&mut self.started, true) {
            if let Some(t) = self.idle_timeout_ns {
                for d in self.data.devices() {
                    io.command(d, DeviceCommand::SetIdleTimeout(Some(t)));
                }
            }
        }
        let Some(arrival) = self.arrivals.borrow_mut().pop_front() else {
            return Err(SimError::Config(
                "an arrival without its commit (internal)".into(),
            ));
        };
        self.appender.append(io, req.len_bytes, (host, arrival));
        Ok(())
    }

    fn on_device_done(&mut self, now_ns: u64, _device: usize, token: u64, io: &mut Io) {
        if token >= DATA_BASE {
            if self.data_jobs.piece_done(io, token).is_some() {
                self.pump(now_ns, io);
            }
            return;
        }
        if self.appender.owns(token) {
            for (host, arrival) in self.appender.piece_done(io, token).unwrap_or_default() {
                io.complete(host);
                self.stats.arrivals += 1;
                self.arrived_lsn = self.arrived_lsn.max(arrival.last_lsn);
                // The staging buffer takes the log straight from the link while it has
                // caught up with the arrivals and has room.
                if self.staging_free()
                    && self.staged_end.max(self.stage_head()) == self.arrived_bytes
                    && self.arrived_bytes + arrival.log_bytes
                        <= self.stage_head() + self.window_bytes
                {
                    self.staged_end = self.arrived_bytes + arrival.log_bytes;
                    self.stats.log_bytes_staged_from_link += arrival.log_bytes;
                }
                self.arrived_bytes += arrival.log_bytes;
                self.decide(
                    now_ns,
                    Event::Arrived {
                        log_bytes: arrival.log_bytes,
                    },
                    io,
                );
            }
            return;
        }
        if self.log_jobs.piece_done(io, token).is_some() {
            self.log_reads_in_flight -= 1;
            if self.log_reads_in_flight == 0
                && self
                    .window
                    .as_ref()
                    .is_some_and(|w| w.phase == Phase::LogRead)
            {
                self.begin_data_phase(now_ns, io);
            }
        }
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        match token {
            WAKE_TIMER if self.wake_timer_ns == Some(now_ns) => {
                self.wake_timer_ns = None;
                self.decide(now_ns, Event::Timer, io);
            }
            SPUN_UP_TIMER => self.decide(now_ns, Event::SpunUp, io),
            SPUN_DOWN_TIMER => self.decide(now_ns, Event::SpunDown, io),
            _ => {}
        }
    }
}

impl ReplicaController {
    /// Close the figures at the end of the run.
    pub(crate) fn finish(&mut self) {
        self.stats.final_backlog_bytes = self.backlog();
    }
}
