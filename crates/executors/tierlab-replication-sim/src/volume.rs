//! A volume of the secondary or the primary: a RAID geometry over a contiguous range of
//! the engine's devices. A logical I/O becomes a job of disk pieces (a RAID-5 write's reads
//! first, then its writes), tracked until every piece is done.

use tierlab_raid::{Geometry, Plan};
use tierlab_engine::{DeviceOp, Io, Slab};
use tierlab_types::Op;

/// One volume: `geometry` over devices `first_device .. first_device + disks`.
#[derive(Clone, Copy, Debug)]
pub struct Volume {
    pub geometry: Geometry,
    pub first_device: usize,
}

impl Volume {
    pub fn capacity_bytes(&self) -> u64 {
        self.geometry.capacity_bytes()
    }
    pub fn devices(&self) -> std::ops::Range<usize> {
        self.first_device..self.first_device + self.geometry.disks as usize
    }
}

/// A logical I/O in progress: pieces outstanding, and the writes to issue once its reads
/// are done.
struct Job<T> {
    tag: T,
    pending: u32,
    writes: Vec<(usize, DeviceOp)>,
}

/// Jobs in flight on volumes; device tokens are job slots.
pub struct Jobs<T> {
    jobs: Slab<Job<T>>,
    plan: Plan,
    /// Emptied write lists of finished jobs, for the next jobs to fill.
    spare: Vec<Vec<(usize, DeviceOp)>>,
    in_flight: usize,
    /// Added to device tokens so that several `Jobs` can share one controller.
    token_base: u64,
}

impl<T: Copy> Jobs<T> {
    /// Jobs whose device tokens are `token_base + slot` (slots stay below 2³²).
    pub fn new(token_base: u64) -> Self {
        Jobs {
            jobs: Slab::new(),
            plan: Plan::default(),
            spare: Vec::new(),
            in_flight: 0,
            token_base,
        }
    }

    /// Whether `token` belongs to these jobs.
    pub fn owns(&self, token: u64) -> bool {
        token >= self.token_base && token - self.token_base < 1 << 32
    }

    /// Jobs started and not yet done.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Start `op` on `volume` (bytes `offset .. offset + len` of its logical space,
    /// clamped to it), tagged `tag`. Returns false (nothing started) for an empty or
    /// out-of-range request.
    pub fn start(
        &mut self,
        io: &mut Io,
        volume: &Volume,
        op: Op,
        offset_bytes: u64,
        len_bytes: u64,
        tag: T,
    ) -> bool {
        let cap = volume.capacity_bytes();
        let len_bytes = len_bytes.min(cap.saturating_sub(offset_bytes));
        if len_bytes == 0 {
            return false;
        }
        self.plan.clear();
        if volume
            .geometry
            .plan(op, offset_bytes, len_bytes, &mut self.plan)
            .is_err()
        {
            return false;
        }
        let dev = |p: &tierlab_raid::Piece| {
            (
                volume.first_device + p.disk as usize,
                DeviceOp {
                    op: p.op,
                    offset_bytes: p.offset_bytes,
                    len_bytes: p.len_bytes,
                    fua: false,
                },
            )
        };
        // The writes wait for the reads, if any, in a list reused from finished jobs.
        let (first, later) = if self.plan.reads.is_empty() {
            (&self.plan.writes, Vec::new())
        } else {
            let mut later = self.spare.pop().unwrap_or_default();
            later.extend(self.plan.writes.iter().map(dev));
            (&self.plan.reads, later)
        };
        let slot = self.jobs.insert(Job {
            tag,
            pending: first.len() as u32,
            writes: later,
        });
        for p in first {
            let (d, op) = dev(p);
            io.submit(d, op, self.token_base + u64::from(slot));
        }
        self.in_flight += 1;
        true
    }

    /// A piece of the job with device token `token` finished; returns the job's tag once
    /// all of it is done.
    pub fn piece_done(&mut self, io: &mut Io, token: u64) -> Option<T> {
        let slot = u32::try_from(token.checked_sub(self.token_base)?).ok()?;
        let job = self.jobs.get_mut(slot)?;
        job.pending -= 1;
        if job.pending > 0 {
            return None;
        }
        if !job.writes.is_empty() {
            let mut writes = std::mem::take(&mut job.writes);
            job.pending = writes.len() as u32;
            for (d, op) in writes.drain(..) {
                io.submit(d, op, token);
            }
            self.spare.push(writes);
            return None;
        }
        let job = self.jobs.remove(slot)?;
        self.in_flight -= 1;
        Some(job.tag)
    }
}

/// Sequential appends to a log volume with group commit: one write in flight at a time;
/// appends that arrive meanwhile wait and go together in the next write (what database
/// log writers do). The log is circular: an append that does not fit before the end
/// starts again at 0.
pub struct LogAppender<T> {
    volume: Volume,
    offset_bytes: u64,
    jobs: Jobs<()>,
    writing: Vec<T>,
    waiting: Vec<T>,
    waiting_bytes: u64,
    /// Writes issued and appends they carried, for the report.
    pub writes: u64,
    pub appends: u64,
}

impl<T> LogAppender<T> {
    pub fn new(volume: Volume, token_base: u64) -> Self {
        LogAppender {
            volume,
            offset_bytes: 0,
            jobs: Jobs::new(token_base),
            writing: Vec::new(),
            waiting: Vec::new(),
            waiting_bytes: 0,
            writes: 0,
            appends: 0,
        }
    }

    /// Whether `token` belongs to this appender.
    pub fn owns(&self, token: u64) -> bool {
        self.jobs.owns(token)
    }

    /// Append `bytes` on behalf of `item` (returned by [`LogAppender::piece_done`] once
    /// durable).
    pub fn append(&mut self, io: &mut Io, bytes: u64, item: T) {
        self.appends += 1;
        self.waiting.push(item);
        self.waiting_bytes += bytes;
        if self.writing.is_empty() {
            self.start(io);
        }
    }

    fn start(&mut self, io: &mut Io) {
        if self.waiting.is_empty() {
            return;
        }
        let cap = self.volume.capacity_bytes();
        let len = (self.waiting_bytes.div_ceil(512) * 512).clamp(512, cap.max(512));
        if self.offset_bytes + len > cap {
            self.offset_bytes = 0;
        }
        std::mem::swap(&mut self.writing, &mut self.waiting);
        self.waiting_bytes = 0;
        self.writes += 1;
        let volume = self.volume;
        // A log volume is whole disks (gigabytes), so a write of at most its capacity
        // always starts.
        let started = self
            .jobs
            .start(io, &volume, Op::Write, self.offset_bytes, len, ());
        debug_assert!(started, "a log volume of {cap} bytes refused {len} bytes");
        self.offset_bytes += len;
    }

    /// A piece of the write in flight finished: the group, once all of it is durable
    /// (the next group's write has then been started).
    pub fn piece_done(&mut self, io: &mut Io, token: u64) -> Option<Vec<T>> {
        self.jobs.piece_done(io, token)?;
        let done = std::mem::take(&mut self.writing);
        self.start(io);
        Some(done)
    }
}
