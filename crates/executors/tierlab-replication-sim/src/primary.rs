//! The primary site: its transactions' own I/O replayed at saturation (closed loop) on
//! its data and log volumes, and the shipping of each commit's log over the link.
//!
//! A commit is the last I/O of a transaction that logged something. When it is durable
//! locally, its log is sent over the link (a FIFO server of `bandwidth_bytes_s`, then
//! `latency_s`); it reaches the secondary, is appended to the secondary's log volume
//! (modelled here by a mirror of that volume that sees only the appends), and the
//! acknowledgement travels back. Synchronous shipping completes the commit at the
//! acknowledgement; asynchronous at local durability, unless more than `max_lag_bytes`
//! are shipped and not acknowledged. Every commit is handed to the secondary's run, in
//! arrival order, through a bounded channel: the primary and the secondary run side by
//! side and neither keeps the stream.

use crate::config::{ReplicationConfig, Shipping};
use crate::volume::{Jobs, LogAppender, Volume};
use crate::{add_disks, catalog_disk};
use anyhow::{anyhow, bail, Result};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use crate::shipping::Shipper;
use tierlab_raid::Geometry;
use tierlab_array_sim::s_to_ns;
use tierlab_update_log::{PrimaryVolume, Transaction, UpdateSource};
use tierlab_engine::{
    Controller, DeviceInfo, HostId, Io, Replay, SchedulerKind, SimError, Simulation, Slab,
};
use tierlab_types::{IoRequest, Op, NS_PER_S};

/// One commit's log as it reaches the secondary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub arrive_ns: u64,
    pub log_bytes: u64,
    /// The last LSN the commit carries: every record up to it has arrived.
    pub last_lsn: u64,
    pub records: u32,
}

/// What the primary did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PrimaryReport {
    pub transactions: u64,
    pub commits: u64,
    pub records: u64,
    pub log_bytes: u64,
    pub span_s: f64,
    pub transactions_per_s: f64,
    /// R_gen: log bytes shipped per second of the primary's run.
    pub r_gen_bytes_s: f64,
    pub data_reads: u64,
    pub data_writes: u64,
    pub data_utilisation: f64,
    pub mean_commit_ms: f64,
    /// Commits per log write (group commit).
    pub commits_per_log_write: f64,
    pub average_power_w: f64,
}

#[derive(Clone, Copy, Debug)]
struct CommitMeta {
    /// Position in log order (the order the transactions were generated in).
    seq: u64,
    log_bytes: u64,
    last_lsn: u64,
    records: u32,
}

#[derive(Clone, Copy)]
struct Tag {
    host: HostId,
    commit: Option<CommitMeta>,
    issued_ns: u64,
}

struct Commit {
    host: HostId,
    log_bytes: u64,
    issued_ns: u64,
    acked: bool,
    completed: bool,
}

const LOG_TOKENS: u64 = 1 << 36;
const MIRROR_TOKENS: u64 = 2 << 36;
const MIRROR_TIMER: u64 = 1 << 40;
const ACK_TIMER: u64 = 2 << 40;

struct PrimaryController {
    data: Volume,
    log: LogAppender<Tag>,
    mirror: LogAppender<u32>,
    mirror_devices_end: usize,
    jobs: Jobs<Tag>,
    now: Rc<Cell<u64>>,
    commits_in: Rc<RefCell<VecDeque<(u64, CommitMeta)>>>,
    commits: Slab<Commit>,
    /// Commits durable locally, waiting for the lag to fall (asynchronous shipping).
    parked: VecDeque<u32>,
    unacked_bytes: u64,
    link_free_ns: u64,
    /// Commits durable locally but waiting for an earlier one, by log position.
    durable: BTreeMap<u64, Tag>,
    next_ship: u64,
    cfg_link: crate::config::Link,
    /// The link to the secondary; once it says so (the secondary stopped taking
    /// arrivals: its measurement had what it needed, its run failed or was interrupted),
    /// the primary starts no more transactions.
    tx: Rc<RefCell<Shipper>>,
    stats: PrimaryReport,
    commit_ns_sum: f64,
}

impl PrimaryController {
    fn ship(&mut self, now_ns: u64, meta: CommitMeta, host: HostId, issued_ns: u64, io: &mut Io) {
        let link = self.cfg_link;
        let send_ns = match link.bandwidth_bytes_s {
            Some(b) => (meta.log_bytes as f64 / b * NS_PER_S as f64).round() as u64,
            None => 0,
        };
        let start = now_ns.max(self.link_free_ns);
        self.link_free_ns = start + send_ns;
        let arrive_ns = self.link_free_ns + s_to_ns(link.latency_s);
        let a = Arrival {
            arrive_ns,
            log_bytes: meta.log_bytes,
            last_lsn: meta.last_lsn,
            records: meta.records,
        };
        self.tx.borrow_mut().ship(a);
        let id = self.commits.insert(Commit {
            host,
            log_bytes: meta.log_bytes,
            issued_ns,
            acked: false,
            completed: false,
        });
        self.unacked_bytes += meta.log_bytes;
        io.timer(arrive_ns, MIRROR_TIMER + u64::from(id));
        self.stats.commits += 1;
        self.stats.records += u64::from(meta.records);
        self.stats.log_bytes += meta.log_bytes;
        match link.shipping {
            Shipping::Sync => {}
            Shipping::Async { max_lag_bytes } => {
                self.parked.push_back(id);
                self.release(now_ns, max_lag_bytes, io);
            }
        }
    }

    /// Asynchronous shipping: complete parked commits, oldest first, while the lag allows.
    fn release(&mut self, now_ns: u64, max_lag_bytes: u64, io: &mut Io) {
        while let Some(&id) = self.parked.front() {
            let acked = self.commits.get_mut(id).is_some_and(|c| c.acked);
            if !acked && self.unacked_bytes > max_lag_bytes {
                break;
            }
            self.parked.pop_front();
            self.complete_commit(now_ns, id, io);
        }
    }

    fn complete_commit(&mut self, now_ns: u64, id: u32, io: &mut Io) {
        let Some(c) = self.commits.get_mut(id) else {
            return;
        };
        if !c.completed {
            c.completed = true;
            io.complete(c.host);
            self.commit_ns_sum += now_ns.saturating_sub(c.issued_ns) as f64;
        }
        if c.completed && c.acked {
            self.commits.remove(id);
        }
    }
}

impl Controller for PrimaryController {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        if devices.len() < self.mirror_devices_end {
            return Err(SimError::Config("the primary is missing disks".into()));
        }
        Ok(())
    }

    fn on_request(
        &mut self,
        now_ns: u64,
        host: HostId,
        index: u64,
        req: &IoRequest,
        io: &mut Io,
    ) -> Result<(), SimError> {
        self.now.set(now_ns);
        let commit = {
            let mut q = self.commits_in.borrow_mut();
            match q.front() {
                Some(&(i, meta)) if i == index => {
                    q.pop_front();
                    Some(meta)
                }
                _ => None,
            }
        };
        let tag = Tag {
            host,
            commit,
            issued_ns: now_ns,
        };
        if req.volume != 0 {
            self.log.append(io, req.len_bytes, tag);
            return Ok(());
        }
        if req.op == Op::Read {
            self.stats.data_reads += 1;
        } else {
            self.stats.data_writes += 1;
        }
        let data = self.data;
        if req.end_bytes() > data.capacity_bytes() {
            return Err(SimError::OutOfRange {
                request_index: index,
                device: "primary data volume".into(),
                offset_bytes: req.offset_bytes,
                len_bytes: req.len_bytes,
                capacity_bytes: data.capacity_bytes(),
            });
        }
        if !self
            .jobs
            .start(io, &data, req.op, req.offset_bytes, req.len_bytes, tag)
        {
            io.complete(host);
        }
        Ok(())
    }

    fn on_device_done(&mut self, now_ns: u64, _device: usize, token: u64, io: &mut Io) {
        self.now.set(now_ns);
        if self.mirror.owns(token) {
            let latency_ns = s_to_ns(self.cfg_link.latency_s);
            for id in self.mirror.piece_done(io, token).unwrap_or_default() {
                io.timer(now_ns + latency_ns, ACK_TIMER + u64::from(id));
            }
            return;
        }
        let done = if self.log.owns(token) {
            self.log.piece_done(io, token).unwrap_or_default()
        } else {
            self.jobs.piece_done(io, token).into_iter().collect()
        };
        for tag in done {
            match tag.commit {
                None => io.complete(tag.host),
                Some(meta) => {
                    // The log is one sequence: a commit ships once every earlier one is
                    // durable (writes of a forwarded trace can complete out of order).
                    self.durable.insert(meta.seq, tag);
                    while let Some(t) = self.durable.remove(&self.next_ship) {
                        self.next_ship += 1;
                        if let Some(m) = t.commit {
                            self.ship(now_ns, m, t.host, t.issued_ns, io);
                        }
                    }
                }
            }
        }
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        self.now.set(now_ns);
        if token >= ACK_TIMER {
            let id = (token - ACK_TIMER) as u32;
            let Some(c) = self.commits.get_mut(id) else {
                return;
            };
            c.acked = true;
            self.unacked_bytes = self.unacked_bytes.saturating_sub(c.log_bytes);
            match self.cfg_link.shipping {
                Shipping::Sync => self.complete_commit(now_ns, id, io),
                Shipping::Async { max_lag_bytes } => {
                    self.release(now_ns, max_lag_bytes, io);
                    let done = self.commits.get_mut(id).is_some_and(|c| c.completed);
                    if done {
                        self.commits.remove(id);
                    }
                }
            }
        } else if token >= MIRROR_TIMER {
            let id = (token - MIRROR_TIMER) as u32;
            let Some(c) = self.commits.get_mut(id) else {
                return;
            };
            let bytes = c.log_bytes;
            self.mirror.append(io, bytes, id);
        }
    }
}

/// The primary's volumes: data, log, and the mirror of the secondary's log volume.
pub(crate) fn volumes(
    cfg: &ReplicationConfig,
    disk_bytes: u64,
) -> Result<(Volume, Volume, Volume)> {
    let data = Volume {
        geometry: Geometry::new(cfg.level, cfg.data_disks, cfg.stripe_unit_bytes, disk_bytes)?,
        first_device: 0,
    };
    let log_geometry = Geometry::new(
        tierlab_raid::RaidLevel::Raid0,
        cfg.log_disks,
        cfg.stripe_unit_bytes,
        disk_bytes,
    )?;
    let log = Volume {
        geometry: log_geometry,
        first_device: cfg.data_disks,
    };
    let mirror = Volume {
        geometry: log_geometry,
        first_device: cfg.data_disks + cfg.log_disks,
    };
    Ok((data, log, mirror))
}

/// Replay the primary for `cfg.duration_s` of its time, sending each commit's arrival to
/// `tx`, or until `tx` says the secondary stopped (its measurement had what it needed, or
/// its run failed or was interrupted; see `crate::shipping` for where that leaves the
/// primary); the commits in flight then are still shipped. Runs on the calling thread.
pub fn run_primary(cfg: &ReplicationConfig, tx: Shipper) -> Result<PrimaryReport> {
    let tx = Rc::new(RefCell::new(tx));
    let mut source = cfg.source.open()?;
    let mut sim = Simulation::new(SchedulerKind::Fcfs).end_with_last_request().without_device_latency();
    // Data and log disks, then the mirror of the secondary's log volume.
    let disk_bytes = add_disks(
        cfg,
        &catalog_disk(cfg)?,
        &mut sim,
        cfg.data_disks + 2 * cfg.log_disks,
    )?;
    let (data, log, mirror) = volumes(cfg, disk_bytes)?;
    if source.data_bytes() > data.capacity_bytes() {
        bail!(
            "the update stream addresses {} bytes, more than the primary's data volume holds ({} bytes on {} disks): use more data disks or a smaller workload",
            source.data_bytes(),
            data.capacity_bytes(),
            cfg.data_disks
        );
    }
    let now = Rc::new(Cell::new(0u64));
    let commits_in = Rc::new(RefCell::new(VecDeque::new()));
    let mut controller = PrimaryController {
        data,
        log: LogAppender::new(log, LOG_TOKENS),
        mirror: LogAppender::new(mirror, MIRROR_TOKENS),
        mirror_devices_end: mirror.devices().end,
        jobs: Jobs::new(0),
        now: now.clone(),
        commits_in: commits_in.clone(),
        commits: Slab::new(),
        parked: VecDeque::new(),
        unacked_bytes: 0,
        link_free_ns: 0,
        durable: BTreeMap::new(),
        next_ship: 0,
        cfg_link: cfg.link,
        tx: tx.clone(),
        stats: PrimaryReport::default(),
        commit_ns_sum: 0.0,
    };
    let end_ns = s_to_ns(cfg.duration_s);
    let transactions = Rc::new(Cell::new(0u64));
    let requests = TransactionRequests {
        source: &mut *source,
        txn: Transaction::default(),
        next: 0,
        index: 0,
        commits: commits_in,
        now,
        end_ns,
        transactions: transactions.clone(),
        failed: None,
        commits_issued: 0,
        tx: tx.clone(),
    };
    let mut requests = requests;
    let report = sim.run(
        requests.by_ref(),
        Replay::Closed {
            depth: cfg.primary_depth,
        },
        &mut controller,
        &mut |_| {},
    );
    tx.borrow_mut().flush();
    if let Some(e) = requests.failed.take() {
        return Err(e);
    }
    let report = report.map_err(|e| anyhow!("primary: {e}"))?;
    let mut s = controller.stats;
    s.transactions = transactions.get();
    s.span_s = report.span_s;
    if s.span_s > 0.0 {
        s.transactions_per_s = s.transactions as f64 / s.span_s;
        s.r_gen_bytes_s = s.log_bytes as f64 / s.span_s;
    }
    s.mean_commit_ms = if s.commits > 0 {
        controller.commit_ns_sum / s.commits as f64 / 1e6
    } else {
        0.0
    };
    s.commits_per_log_write = if controller.log.writes > 0 {
        controller.log.appends as f64 / controller.log.writes as f64
    } else {
        0.0
    };
    let data_devices = &report.devices[..cfg.data_disks];
    s.data_utilisation =
        data_devices.iter().map(|d| d.utilisation).sum::<f64>() / cfg.data_disks as f64;
    // The mirror disks stand for the secondary's log volume: not the primary's power.
    let own = &report.devices[..cfg.data_disks + cfg.log_disks];
    s.average_power_w = if report.span_s > 0.0 {
        own.iter().map(|d| d.device.energy_j).sum::<f64>() / report.span_s
    } else {
        0.0
    };
    Ok(s)
}

/// The primary's I/O as host requests: volume 0 is data, 1 is log. The last I/O of a
/// transaction that logged something is its commit (a transaction with records but no
/// I/O of its own gets a log append of its log bytes).
struct TransactionRequests<'a> {
    source: &'a mut (dyn UpdateSource + Send),
    txn: Transaction,
    next: usize,
    index: u64,
    commits: Rc<RefCell<VecDeque<(u64, CommitMeta)>>>,
    now: Rc<Cell<u64>>,
    end_ns: u64,
    transactions: Rc<Cell<u64>>,
    failed: Option<anyhow::Error>,
    commits_issued: u64,
    tx: Rc<RefCell<Shipper>>,
}

impl Iterator for TransactionRequests<'_> {
    type Item = Result<IoRequest, std::io::Error>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.next < self.txn.primary_ios.len() {
                let p = self.txn.primary_ios[self.next];
                self.next += 1;
                if self.next == self.txn.primary_ios.len() && !self.txn.records.is_empty() {
                    let meta = CommitMeta {
                        seq: self.commits_issued,
                        log_bytes: self.txn.log_bytes(),
                        last_lsn: self.txn.records.last().map_or(0, |r| r.lsn),
                        records: self.txn.records.len() as u32,
                    };
                    self.commits.borrow_mut().push_back((self.index, meta));
                    self.commits_issued += 1;
                }
                self.index += 1;
                let volume = match p.volume {
                    PrimaryVolume::Data => 0,
                    PrimaryVolume::Log => 1,
                };
                return Some(Ok(IoRequest {
                    time_ns: 0,
                    volume,
                    offset_bytes: p.offset_bytes,
                    len_bytes: p.len_bytes.max(1),
                    op: p.op,
                }));
            }
            if self.now.get() >= self.end_ns || self.failed.is_some() || self.tx.borrow().stopping() {
                return None;
            }
            match self.source.next_transaction(&mut self.txn) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    self.failed = Some(anyhow!("{e}"));
                    return None;
                }
            }
            self.transactions.set(self.transactions.get() + 1);
            self.next = 0;
            if self.txn.primary_ios.is_empty() && !self.txn.records.is_empty() {
                let len = self.txn.log_bytes().div_ceil(512) * 512;
                self.txn.primary_ios.push(tierlab_update_log::PrimaryIo {
                    volume: PrimaryVolume::Log,
                    op: Op::Write,
                    offset_bytes: 0,
                    len_bytes: len,
                });
            }
        }
    }
}
