//! `Mechanics`: the timing of one drive serving one request at a time.
//!
//! A request is served as the drive's firmware would: command overhead (chosen by
//! read/write × cache hit/miss × previous operation), then — unless the on-board cache
//! can serve it — a media pass track by track (seek or head switch, write settle,
//! rotational wait computed from the platter's actual angle at that instant, transfer
//! under the head), pipelined with the bus transfer to or from the host. After a read the
//! drive keeps reading ahead into a cache segment until the next request preempts it;
//! with write-back caching, writes complete once their data is in the buffer and reach
//! the media in the background (the next request that needs the arm waits for it). The
//! buffer holds at most its write segments' worth of such writes: a write that finds
//! them all waiting for the media waits for the oldest (`Dirty`).
//!
//! No allocation happens per access: segments are a fixed array, the writes waiting for
//! the media a ring of at most the write segments, zones are searched by binary search,
//! seek times are tabulated per distance.

use crate::cache::{Prefetch, Segments};
use crate::pass::{BusPipe, Chunk, Head, PassTimes, Run};
use crate::layout::{Layout, Pbn};
use crate::seek::SeekCurve;
use crate::spec::{HddSpec, ReadAheadMode, SpecError};
use std::collections::VecDeque;
use std::sync::Arc;
use tierlab_engine::DeviceOp;
use tierlab_types::Op;

/// Where the time of one access went. All times are nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Access {
    /// When the host sees the completion.
    pub done_ns: u64,
    /// Firmware command and completion overheads on the request's critical path.
    pub overhead_ns: u64,
    /// Arm movement and head switches of this request's media pass.
    pub seek_ns: u64,
    /// Rotational waits of this request's media pass.
    pub rotate_ns: u64,
    /// Time the heads spent reading or writing this request's sectors.
    pub transfer_ns: u64,
    /// Time the host interface spent moving this request's data.
    pub bus_ns: u64,
    /// A read served entirely from the on-board cache.
    pub cache_hit: bool,
    /// A write reported complete before its data reached the media.
    pub write_back: bool,
    /// When the arm is free again (after any background write of this request).
    pub media_done_ns: u64,
}

/// Counters over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MechanicsStats {
    pub reads: u64,
    pub writes: u64,
    pub read_full_hits: u64,
    pub read_partial_hits: u64,
    pub write_backs: u64,
    /// Write-back writes that found every write segment waiting for the media and waited
    /// for the oldest to be written.
    pub write_segment_waits: u64,
    /// Requests that addressed bytes beyond the capacity (wrapped or truncated).
    pub out_of_range: u64,
}

/// The timing model of one drive, built from a validated `HddSpec`.
#[derive(Clone, Debug)]
pub struct Mechanics {
    // Fixed once built, and shared by clones (a clone is a what-if copy of the state).
    spec: Arc<HddSpec>,
    layout: Arc<Layout>,
    seek: Arc<SeekCurve>,
    head_switch_ns: f64,
    write_settle_ns: f64,
    bus_read_ns: f64,
    bus_write_ns: f64,
    period_ns: f64,
    anchor_ns: f64,
    anchor_rev: f64,
    head: Head,
    /// The arm is busy with committed (non-preemptible) work until then.
    arm_free_ns: f64,
    /// Latest time the model has been advanced to.
    clock_ns: f64,
    last_op: Op,
    /// One past the last block of the latest write (for sequential-write detection).
    last_write_end: u64,
    segments: Segments,
    prefetch: Option<Prefetch>,
    /// Write-back data not yet on the media, a write segment each, oldest first.
    dirty: VecDeque<Dirty>,
    stats: MechanicsStats,
}

/// A write segment holding write-back data until its media pass ends: blocks
/// `[start_lbn, end_lbn)` (an appending write joins the segment it continues).
#[derive(Clone, Copy, Debug)]
struct Dirty {
    start_lbn: u64,
    end_lbn: u64,
    media_end_ns: f64,
}

const MS: f64 = 1.0e6;

/// Sectors within which the head counts as at a sector's start (a thousandth of a sector,
/// some nanoseconds: far above the rounding of the platter's angle, far below any time
/// the model resolves).
const AT_SECTOR_START: f64 = 1.0e-3;

/// Fractional part in [0, 1) (a cast instead of a libm call: this is on the hot path).
#[inline]
pub(crate) fn frac(x: f64) -> f64 {
    let f = x - (x as i64) as f64;
    if f < 0.0 {
        f + 1.0
    } else {
        f
    }
}

/// Round to whole nanoseconds; negative, NaN and infinite times give 0. (The saturating
/// float-to-int cast already maps negatives, NaN and -inf to 0, so only +inf needs a test:
/// this runs several times per request.)
#[inline]
fn to_ns(t: f64) -> u64 {
    if t < f64::INFINITY {
        (t + 0.5) as u64
    } else {
        0
    }
}

/// A read-ahead pass as of some time `t` (`Mechanics::prefetch_progress`).
struct Progress {
    reached: u64,
    head: Head,
    finished_ns: Option<f64>,
    resume: Prefetch,
    stop_ns: f64,
}

/// A read-ahead pass still running at some time `t` (`Mechanics::settle_prefetch`): the
/// pass from its first unfinished track, the blocks read, where the head is, and when the
/// pass lets go of the arm if asked to stop at `t`.
#[derive(Clone, Copy)]
struct Running {
    pass: Prefetch,
    reached: u64,
    head: Head,
    stop_ns: f64,
}

impl Mechanics {
    /// Build the model; fails with the parameter at fault if the spec is impossible.
    pub fn new(spec: HddSpec) -> Result<Mechanics, SpecError> {
        let layout = Layout::new(&spec)?;
        let seek = SeekCurve::new(&spec.seek, spec.cylinders);
        let segments = Segments::new(
            if spec.cache.enabled { spec.cache.segments as usize } else { 0 },
            spec.cache.max_write_segments as usize,
            spec.cache.separate_write_segment,
        );
        let dirty = VecDeque::with_capacity(segments.write_capacity(spec.cache.write_back_in_every_segment) + 1);
        Ok(Mechanics {
            head_switch_ns: spec.head_switch_ms * MS,
            write_settle_ns: spec.write_settle_ms * MS,
            bus_read_ns: spec.bus_read_ms_per_sector * MS,
            bus_write_ns: spec.bus_write_ms_per_sector * MS,
            period_ns: 60.0e9 / spec.rpm,
            anchor_ns: 0.0,
            anchor_rev: 0.0,
            head: Head::default(),
            arm_free_ns: 0.0,
            clock_ns: 0.0,
            last_op: Op::Read,
            last_write_end: u64::MAX,
            segments,
            prefetch: None,
            dirty,
            stats: MechanicsStats::default(),
            layout: Arc::new(layout),
            seek: Arc::new(seek),
            spec: Arc::new(spec),
        })
    }

    pub fn spec(&self) -> &HddSpec {
        &self.spec
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn stats(&self) -> MechanicsStats {
        self.stats
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.spec.block_count * u64::from(self.spec.sector_bytes)
    }

    /// Cylinder holding byte `offset_bytes` (offsets beyond the end wrap like requests do).
    pub fn cylinder_of(&self, offset_bytes: u64) -> u32 {
        let lbn = (offset_bytes / u64::from(self.spec.sector_bytes)) % self.spec.block_count;
        self.layout.lbn_to_pbn(lbn).map_or(0, |p| p.cylinder)
    }

    /// Cylinder the heads are on now (as of the last access).
    pub fn current_cylinder(&self) -> u32 {
        self.head.cylinder
    }

    pub fn rpm(&self) -> f64 {
        60.0e9 / self.period_ns
    }

    /// Change the spindle speed (multi-speed drives). Rotation and media transfer scale
    /// with the speed; seeks do not. Read-ahead in progress stops; the platter angle stays
    /// continuous at the model's current time.
    pub fn set_rpm(&mut self, rpm: f64) -> Result<(), SpecError> {
        if !(rpm.is_finite() && (1.0..=1.0e6).contains(&rpm)) {
            return Err(SpecError::new("rpm", format!("must be 1..=1e6, got {rpm}")));
        }
        let t = self.clock_ns;
        self.stop_prefetch(t);
        self.anchor_rev = self.rev_at(t);
        self.anchor_ns = t;
        self.period_ns = 60.0e9 / rpm;
        Ok(())
    }

    /// When all buffered writes are on the media (a cache flush issued at `now_ns`).
    pub fn flush(&mut self, now_ns: u64) -> u64 {
        to_ns(self.arm_free_ns.max(now_ns as f64))
    }

    /// Platter angle (revolutions, unbounded) at time `t`.
    #[inline]
    fn rev_at(&self, t: f64) -> f64 {
        self.anchor_rev + (t - self.anchor_ns) / self.period_ns
    }

    /// Positioning time from the current head to `p` (seek, head switch, write settle).
    fn position_ns(&self, from: Head, p: Pbn, write: bool) -> f64 {
        let dist = from.cylinder.abs_diff(p.cylinder);
        let mut t = self.seek.ns(dist);
        if from.surface != p.surface {
            t = t.max(self.head_switch_ns);
        }
        if write && t > 0.0 {
            t = (t + self.write_settle_ns).max(0.0);
        }
        t
    }

    /// A media pass over blocks `[lbn, lbn + n)` starting at `start_ns` from head `head`.
    /// `ready` gives, for writes, when the first block is in the buffer and the bus time per
    /// block after it, and the least positioning time for the first track. `visit` sees each track's chunk and may stop the pass by returning
    /// false. Returns the head position and the time the pass ended.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn media_pass(
        &self,
        mut head: Head,
        start_ns: f64,
        lbn: u64,
        n: u64,
        write: bool,
        zero_latency: bool,
        ready: Option<(f64, f64, f64)>,
        times: &mut PassTimes,
        mut visit: impl FnMut(&Chunk) -> bool,
    ) -> (Head, f64) {
        let mut t = start_ns;
        let mut l = lbn;
        let end = (lbn + n).min(self.layout.blocks());
        while l < end {
            let Some((zi, p)) = self.layout.map(l) else { break };
            let (k, last) = self.layout.run_on_track(zi, l, end - l, p);
            let mut pos = self.position_ns(head, p, write);
            if let Some((_, _, min_pos)) = ready {
                if l == lbn {
                    pos = pos.max(min_pos);
                }
            }
            let arrive = t + pos;
            let spt = f64::from(self.layout.track_spt(zi, p.surface));
            let st = self.period_ns / spt;
            let span = f64::from(last.sector - p.sector + 1);
            let mut earliest = arrive;
            if let Some((r0, per, _)) = ready {
                let i = (l - lbn) as f64;
                let need_first = r0 + i * per;
                let need_last = r0 + (i + k as f64 - 1.0) * per - (span - 1.0) * st;
                earliest = earliest.max(need_first).max(need_last);
            }
            let a0 = self.layout.sector_angle_in(zi, p);
            let past = self.rev_at(earliest) - a0;
            let mut x = frac(past) * spt; // sectors the head is past the chunk start
            // A pass that continues another arrives exactly at its first sector, but the
            // angle, computed from a clock of up to 10¹⁴ ns, is good only to about 10⁻⁶ of
            // a sector either way: within `AT_SECTOR_START` of the start the head is at it
            // (otherwise "just past" would cost a whole revolution).
            if x < AT_SECTOR_START || x > spt - AT_SECTOR_START {
                x = 0.0;
            }
            let passed_before = if x > 0.0 { (spt - x).min(f64::from(p.sector)) as u64 } else { 0 };
            let (parts, done, rot) = if zero_latency && x > 0.0 && x.ceil() < span {
                // Land inside the chunk: read from the next sector boundary to the chunk's
                // end, come round to its start and read the part that was missed. In logical
                // order the chunk is then two runs: [0, j) read last, [j, k) read first.
                let j = x.ceil();
                let tj = earliest + (j - x) * st;
                let done = earliest + (spt - x + j) * st;
                let ja = (j as u64).min(k);
                let a = Run { blocks: ja, first_ns: earliest + (spt - x + 1.0) * st, last_ns: done };
                let b = Run { blocks: k - ja, first_ns: tj + st, last_ns: tj + (span - j) * st };
                ([a, b], done, done - earliest - span * st)
            } else {
                let wait = if x > 0.0 { (spt - x) * st } else { 0.0 };
                let s = earliest + wait;
                let a = Run { blocks: k, first_ns: s + st, last_ns: s + span * st };
                ([a, Run::default()], s + span * st, wait)
            };
            times.seek_ns += pos;
            times.rotate_ns += rot + (earliest - arrive);
            times.transfer_ns += span * st;
            head = Head { cylinder: p.cylinder, surface: p.surface };
            let chunk = Chunk { lbn: l, blocks: k, begin_ns: t, arrive_ns: arrive, runs: parts, end_ns: done, sector_ns: st, passed_before, head };
            t = done;
            l += k;
            if !visit(&chunk) {
                break;
            }
        }
        (head, t)
    }

    /// Convert a byte range to blocks, wrapping starts beyond the end and truncating at it.
    fn blocks_of(&mut self, op: &DeviceOp) -> (u64, u64) {
        let sb = u64::from(self.spec.sector_bytes);
        let cap = self.spec.block_count;
        let first = op.offset_bytes / sb;
        let last = op.offset_bytes.saturating_add(op.len_bytes.max(1)).div_ceil(sb);
        let mut n = (last - first).max(1);
        let mut lbn = first;
        if lbn >= cap || lbn + n > cap {
            self.stats.out_of_range += 1;
            lbn %= cap;
            n = n.min(cap - lbn);
        }
        (lbn, n)
    }

    /// Serve one request issued at `now_ns`.
    pub fn access(&mut self, now_ns: u64, op: &DeviceOp) -> Access {
        let now = now_ns as f64;
        self.clock_ns = self.clock_ns.max(now);
        let (lbn, n) = self.blocks_of(op);
        let acc = match op.op {
            Op::Read => self.read(now, lbn, n),
            Op::Write => self.write(now, lbn, n, op.fua),
        };
        self.last_op = op.op;
        acc
    }

    /// What `op` would wait for positioning (seek and rotation) if served at `now_ns`: on
    /// a copy of the drive's state, so nothing changes. Nothing for a read served from the
    /// cache or a write taken into it. A drive's command queue orders by this.
    pub fn positioning_ns(&self, now_ns: u64, op: &DeviceOp) -> u64 {
        let mut what_if = self.clone();
        let a = what_if.access(now_ns, op);
        if a.cache_hit || a.write_back {
            0
        } else {
            a.seek_ns + a.rotate_ns
        }
    }

    fn scaled(&self, ms: f64) -> f64 {
        ms * self.spec.overheads.time_scale * MS
    }

    /// Command overhead. `after_write` selects the "after write" figures.
    fn overhead_ns(&self, op: Op, hit: bool, after_write: bool) -> f64 {
        let o = &self.spec.overheads;
        let after_read = !after_write;
        let ms = match (op, hit, after_read) {
            (Op::Read, true, true) => o.read_hit_after_read_ms,
            (Op::Read, true, false) => o.read_hit_after_write_ms,
            (Op::Read, false, true) => o.read_miss_after_read_ms,
            (Op::Read, false, false) => o.read_miss_after_write_ms,
            (Op::Write, true, true) => o.write_hit_after_read_ms,
            (Op::Write, true, false) => o.write_hit_after_write_ms,
            (Op::Write, false, true) => o.write_miss_after_read_ms,
            (Op::Write, false, false) => o.write_miss_after_write_ms,
        };
        self.scaled(ms + o.per_request_ms)
    }

    /// The read-ahead pass `pf` as of time `t`: blocks read by then, where the head is,
    /// when the pass ended if it is over by `t`, the pass advanced to its first track not
    /// finished by `t` (so later queries do not redo the finished tracks), and when the
    /// pass would let go of the arm if asked to stop at `t`. An arm on its way to the
    /// pass's next track (a seek or head switch) arrives there first. DiskSim's "Stop
    /// prefetch in sector" off means the sector being read is finished first (a read-ahead
    /// pass reads its sectors back to back, so that is the next sector boundary).
    fn prefetch_progress(&self, pf: &Prefetch, t: f64) -> Progress {
        let may_stop_in_sector = self.spec.cache.stop_prefetch_in_sector;
        let mut reached = pf.from_lbn;
        let mut head = pf.head;
        let mut resume = *pf;
        let mut stop_ns = t;
        let mut times = PassTimes::default();
        let (last_head, end_ns) = self.media_pass(pf.head, pf.begin_ns, pf.from_lbn, pf.to_lbn - pf.from_lbn, false, false, None, &mut times, |c| {
            if c.begin_ns > t {
                return false;
            }
            let first_ns = c.runs[0].first_ns;
            if first_ns <= t {
                let done = ((t - first_ns) / c.sector_ns) as u64 + 1;
                reached = c.lbn + done.min(c.blocks);
            }
            if c.end_ns <= t {
                resume = Prefetch { from_lbn: c.lbn + c.blocks, begin_ns: c.end_ns, head: c.head, ..*pf };
            } else if t < c.arrive_ns {
                stop_ns = c.arrive_ns;
            } else if !may_stop_in_sector {
                stop_ns = if t <= first_ns { first_ns } else { (first_ns + ((t - first_ns) / c.sector_ns).ceil() * c.sector_ns).min(c.end_ns) };
            }
            head = c.head;
            c.end_ns <= t
        });
        let finished_ns = (reached >= pf.to_lbn && end_ns <= t).then_some(end_ns);
        Progress { reached, head: if finished_ns.is_some() { last_head } else { head }, finished_ns, resume, stop_ns }
    }

    /// Bring the read-ahead up to time `t`: its segment grows to what has been read; a
    /// finished pass is retired (the head stays where it ended). Returns the pass still
    /// running, where the head is, and when the pass would let go of the arm if asked to
    /// stop at `t`.
    fn settle_prefetch(&mut self, t: f64) -> Option<Running> {
        let pf = self.prefetch?;
        let p = self.prefetch_progress(&pf, t);
        self.segments.set_end(pf.segment, p.reached, self.spec.cache.segment_blocks);
        match p.finished_ns {
            Some(end_ns) => {
                self.prefetch = None;
                self.head = p.head;
                self.arm_free_ns = self.arm_free_ns.max(end_ns);
                None
            }
            None => {
                self.prefetch = Some(p.resume);
                Some(Running { pass: p.resume, reached: p.reached, head: p.head, stop_ns: p.stop_ns })
            }
        }
    }

    /// Stop the read-ahead still running at `t` (as `settle_prefetch(t)` returned it),
    /// keeping what was read: the arm is free when the pass lets go of it.
    fn release_prefetch(&mut self, t: f64, running: Option<Running>) {
        let Some(Running { head, stop_ns: stop, .. }) = running else { return };
        let head = if stop > t {
            match self.settle_prefetch(stop) {
                Some(r) => r.head,
                // Finished by then: retired where it ended.
                None => return,
            }
        } else {
            head
        };
        self.prefetch = None;
        self.head = head;
        self.arm_free_ns = self.arm_free_ns.max(stop);
    }

    /// Stop read-ahead asked to stop at `t`, keeping what was read.
    fn stop_prefetch(&mut self, t: f64) {
        let running = self.settle_prefetch(t);
        self.release_prefetch(t, running);
    }

    /// Where read-ahead after a read of `[lbn, end)` stops (exclusive), under the spec.
    fn read_ahead_limit(&self, seg_start: u64, lbn: u64, end: u64) -> u64 {
        let c = &self.spec.cache;
        let cap = self.layout.blocks();
        if !c.enabled || end >= cap {
            return end;
        }
        let mut limit = match c.read_ahead {
            ReadAheadMode::None => return end,
            ReadAheadMode::TrackEnd => self.layout.next_track_lbn(end - 1),
            ReadAheadMode::CylinderEnd => self.layout.next_cylinder_lbn(end - 1),
            ReadAheadMode::SegmentFull => end.saturating_add(if c.max_read_ahead_blocks > 0 { c.max_read_ahead_blocks } else { c.segment_blocks }),
            ReadAheadMode::TrackAhead => {
                let track_end = self.layout.next_track_lbn(end);
                let track_start = self.layout.lbn_to_pbn(end).map_or(end, |p| end.saturating_sub(u64::from(p.sector)));
                if seg_start < track_start {
                    track_end + u64::from(self.layout.sectors_per_track(end))
                } else {
                    track_end
                }
            }
        };
        // Track-ahead reads to its track ends whatever the segment holds; the segment keeps
        // the last blocks read (`Segments::set_end` wraps). Otherwise the maximum read-ahead
        // bounds the pass, and so does the segment, less the request when its data must be
        // kept ("read-ahead over requested" off).
        if c.read_ahead == ReadAheadMode::TrackAhead {
            return limit.min(cap).max(end);
        }
        if c.max_read_ahead_blocks > 0 {
            limit = limit.min(end.saturating_add(c.max_read_ahead_blocks));
        }
        let room = if c.read_ahead_over_requested { end } else { lbn };
        limit.min(room.saturating_add(c.segment_blocks)).min(cap).max(end)
    }

    /// Begin read-ahead into `segment` after a read of `[lbn, end)` whose media pass left the
    /// head at `head` at time `t`.
    fn start_prefetch(&mut self, segment: usize, seg_start: u64, lbn: u64, end: u64, head: Head, t: f64) {
        let to = self.read_ahead_limit(seg_start, lbn, end);
        self.prefetch = (to > end).then_some(Prefetch { segment, from_lbn: end, to_lbn: to, begin_ns: t, head });
    }

    fn read(&mut self, now: f64, lbn: u64, n: u64) -> Access {
        self.stats.reads += 1;
        let end = lbn + n;
        let o = self.spec.overheads.clone();
        let read_completion = self.scaled(o.read_completion_ms);
        let data_prep = self.scaled(o.data_prep_ms);
        // 1. What the cache holds now, counting read-ahead up to this instant.
        let active = self.settle_prefetch(now);
        let found = self.segments.lookup(lbn, end);
        let cached = found.map_or(0, |(_, k)| k);
        if cached >= n {
            // Full hit: data goes straight from the buffer; read-ahead carries on.
            self.stats.read_full_hits += 1;
            let ovh = self.overhead_ns(Op::Read, true, self.last_op == Op::Write);
            let bus = n as f64 * self.bus_read_ns;
            let done = now + ovh + data_prep + bus + read_completion;
            if let Some((seg, _)) = found {
                self.segments.touch(seg);
                if self.prefetch.is_none() && self.spec.cache.read_ahead_on_idle_hit {
                    let seg_end = self.segments.end(seg);
                    let to = self.read_ahead_limit(self.segments.start(seg), lbn, end);
                    if to > seg_end {
                        let begin = (now + ovh).max(self.arm_free_ns);
                        self.prefetch = Some(Prefetch { segment: seg, from_lbn: seg_end, to_lbn: to, begin_ns: begin, head: self.head });
                    }
                }
            }
            return Access {
                done_ns: to_ns(done),
                overhead_ns: to_ns(ovh + data_prep + read_completion),
                bus_ns: to_ns(bus),
                cache_hit: true,
                media_done_ns: to_ns(self.arm_free_ns),
                ..Access::default()
            };
        }
        // 2. A request that starts inside the data read ahead so far continues that stream:
        //    the read-ahead pass goes on up to its limit; beyond it a new pass starts once
        //    the command is processed.
        if let Some(Running { pass: pf, reached, .. }) = active {
            // On a drive that streams (`read_ahead_continues`), a request starting where
            // the read-ahead has got to (the next request of a sequential stream, arriving
            // as the last one completes), or ahead of it within the read-ahead's reach (a
            // stream that skips a few blocks, as a RAID-5 disk's reads skip parity),
            // continues it too: the pass reads on through the skipped blocks. It does so
            // only within a track's worth of blocks of the front: that far the request's
            // first block passes under the head no sooner if the drive repositions, while
            // further on reading through costs a revolution a track, and a seek to the
            // request's track with less than a revolution's wait is quicker.
            let inside = cached > 0 && lbn >= self.segments.start(pf.segment) && lbn < reached && found.map(|(seg, _)| seg) == Some(pf.segment);
            let ahead = self.spec.cache.read_ahead_continues && lbn > self.segments.start(pf.segment) && (lbn == reached || (lbn > reached && lbn < pf.to_lbn && lbn - reached <= u64::from(self.layout.sectors_per_track(reached))));
            if inside || ahead {
                self.stats.read_partial_hits += 1;
                self.prefetch = None;
                let ovh = self.overhead_ns(Op::Read, true, self.last_op == Op::Write);
                let t_cmd = now + ovh;
                let mut pipe = BusPipe::new(self.bus_read_ns, 1);
                let mut times = PassTimes::default();
                let stream_end = end.min(pf.to_lbn);
                let (mut head, mut t_media) = (pf.head, pf.begin_ns);
                // The host gets what it asked for: blocks from `lbn`, those before the
                // front from the buffer, the rest as the pass reads them.
                let sent_from = lbn.max(reached);
                if stream_end > reached {
                    (head, t_media) = self.media_pass(pf.head, pf.begin_ns, pf.from_lbn, stream_end - pf.from_lbn, false, false, None, &mut times, |c| {
                        let skip = sent_from.saturating_sub(c.lbn).min(c.blocks);
                        if skip < c.blocks {
                            pipe.chunk(c, skip);
                        }
                        true
                    });
                    // Only this request's share of the read-ahead pass counts as its work.
                    times = PassTimes::default();
                }
                let rest_from = stream_end.max(sent_from);
                if end > rest_from {
                    let zl = self.spec.cache.zero_latency_read;
                    (head, t_media) = self.media_pass(head, t_media.max(t_cmd), rest_from, end - rest_from, false, zl, None, &mut times, |c| {
                        pipe.chunk(c, 0);
                        true
                    });
                }
                let b0 = t_cmd + data_prep + reached.saturating_sub(lbn) as f64 * self.bus_read_ns;
                let done = pipe.finish(b0) + read_completion;
                self.head = head;
                self.arm_free_ns = self.arm_free_ns.max(t_media);
                self.segments.set_end(pf.segment, end, self.spec.cache.segment_blocks);
                self.segments.touch(pf.segment);
                self.start_prefetch(pf.segment, self.segments.start(pf.segment), lbn, end, head, t_media);
                return Access {
                    done_ns: to_ns(done),
                    overhead_ns: to_ns(ovh + data_prep + read_completion),
                    transfer_ns: to_ns(times.transfer_ns),
                    rotate_ns: to_ns(times.rotate_ns),
                    seek_ns: to_ns(times.seek_ns),
                    bus_ns: to_ns(n as f64 * self.bus_read_ns),
                    cache_hit: false,
                    media_done_ns: to_ns(t_media),
                    ..Access::default()
                };
            }
        }
        // 3. Miss (or a cached prefix only): stop read-ahead and go to the media. Unless the
        //    drive holds the bus throughout, it disconnects and reconnects once the
        //    read watermark of sectors is in the buffer.
        // (`settle_prefetch` above brought the pass to `now` already.)
        self.release_prefetch(now, active);
        if cached > 0 {
            self.stats.read_partial_hits += 1;
        }
        let ovh = self.overhead_ns(Op::Read, cached > 0, self.last_op == Op::Write);
        let t_cmd = now + ovh;
        let mech = t_cmd.max(self.arm_free_ns);
        // A partial hit starts sending the cached blocks at once and keeps the bus.
        let disconnect = !o.never_disconnect && cached == 0;
        let mut b0 = t_cmd + data_prep + cached as f64 * self.bus_read_ns;
        let water = if disconnect { self.read_watermark(n).saturating_sub(cached).max(1) } else { 1 };
        let mut pipe = BusPipe::new(self.bus_read_ns, water);
        let mut times = PassTimes::default();
        let zl = self.spec.cache.zero_latency_read;
        let mut free_before = 0;
        let (head, media_end) = self.media_pass(self.head, mech, lbn + cached, n - cached, false, zl, None, &mut times, |c| {
            if pipe.sectors == 0 {
                free_before = c.passed_before;
            }
            pipe.chunk(c, 0);
            true
        });
        if disconnect {
            let disconnect_ms = if self.last_op == Op::Write { o.read_disconnect_after_write_ms } else { o.read_disconnect_ms };
            b0 = (b0 + self.scaled(disconnect_ms)).max(pipe.water_ns + self.scaled(o.reselect_ms));
        }
        let done = pipe.finish(b0) + read_completion;
        self.head = head;
        self.arm_free_ns = media_end;
        // With "read any free blocks", what passed under the head before the request is
        // kept too.
        let from = if self.spec.cache.read_free_blocks && cached == 0 { lbn - free_before.min(lbn) } else { lbn };
        let seg = self.segments.fill(from, end, self.spec.cache.segment_blocks, false);
        if let Some(seg) = seg {
            // The read-ahead is planned when the request takes its segment, before the free
            // blocks come in: a fresh segment then starts at the request (as in DiskSim).
            let planned_start = if from < lbn { lbn } else { self.segments.start(seg) };
            self.start_prefetch(seg, planned_start, lbn, end, head, media_end);
        }
        Access {
            done_ns: to_ns(done),
            overhead_ns: to_ns(ovh + data_prep + read_completion),
            seek_ns: to_ns(times.seek_ns),
            rotate_ns: to_ns(times.rotate_ns),
            transfer_ns: to_ns(times.transfer_ns),
            bus_ns: to_ns(n as f64 * self.bus_read_ns),
            cache_hit: false,
            write_back: false,
            media_done_ns: to_ns(media_end),
        }
    }

    /// Sectors that must be in the buffer before a disconnected read reconnects.
    fn read_watermark(&self, n: u64) -> u64 {
        let c = &self.spec.cache;
        let w = if c.watermark_by_request {
            (c.segment_blocks.min(n) as f64 * c.read_watermark).floor()
        } else {
            (c.segment_blocks as f64 * c.read_watermark).ceil()
        };
        (w as u64).clamp(1, n.max(1))
    }

    /// Where a write-back write of `[lbn, lbn + n)` arriving at `now` puts its data, as
    /// DiskSim's buffer does: into the write segment it appends to, if that segment is
    /// still waiting for the media and has room; else into a write segment of its own,
    /// once one is free. Segments whose media pass has ended by `now` are free.
    fn write_slot(&mut self, now: f64, lbn: u64, n: u64) -> WriteSlot {
        while self.dirty.front().is_some_and(|d| d.media_end_ns <= now) {
            self.dirty.pop_front();
        }
        if let Some(d) = self.dirty.back() {
            if d.end_lbn == lbn && d.end_lbn - d.start_lbn + n <= self.spec.cache.segment_blocks {
                return WriteSlot::Append;
            }
        }
        // How many segments may hold it (`CacheSpec::write_back_in_every_segment`).
        let w = self.segments.write_capacity(self.spec.cache.write_back_in_every_segment);
        if self.dirty.len() < w {
            return WriteSlot::Free;
        }
        // Media passes end in the order they were queued: the oldest segments free first.
        let k = self.dirty.len() - w;
        let free_ns = self.dirty[k].media_end_ns;
        self.dirty.drain(..=k);
        WriteSlot::Wait(free_ns)
    }

    fn write(&mut self, now: f64, lbn: u64, n: u64, fua: bool) -> Access {
        self.stats.writes += 1;
        let end = lbn + n;
        self.stop_prefetch(now);
        let write_back = self.spec.cache.write_back && !fua;
        let o = self.spec.overheads.clone();
        let data_prep = self.scaled(o.data_prep_ms);
        let completion = self.scaled(o.write_completion_ms);
        let disconnect = !o.never_disconnect;
        let extra = o.extra_write_disconnect.filter(|_| disconnect && !write_back);
        // Command processing; a drive with the "extra write disconnect" habit disconnects
        // before taking any data and reconnects for it later.
        let (ovh, mech_delay, bus_start) = match extra {
            Some(x) => {
                let cmd = self.scaled(x.command_ms);
                let bus = cmd + self.scaled(x.disconnect_ms) + self.scaled(x.inter_disconnect_ms) + self.scaled(o.reselect_ms);
                (cmd, self.scaled(x.seek_delta_ms), now + bus + data_prep)
            }
            None => {
                // The "after write" figures are those of a write appending to the one
                // before; a write elsewhere costs what it costs after a read (most drives'
                // validation traces show it; `after_write_figures_for_appends_only` off
                // charges them after any write, as DiskSim does).
                let after_write = self.last_op == Op::Write && (lbn == self.last_write_end || !o.after_write_figures_for_appends_only);
                let cmd = self.overhead_ns(Op::Write, write_back, after_write);
                (cmd, 0.0, now + cmd + data_prep)
            }
        };
        let t_cmd = now + ovh;
        // A write-back write that finds every write segment waiting for the media takes
        // its data once the oldest is written: a drive that keeps the bus holds the host
        // until then; one that disconnects does so after the command and reselects.
        let slot = if write_back { self.write_slot(now, lbn, n) } else { WriteSlot::Free };
        let (bus_start, wait_ovh) = match slot {
            WriteSlot::Wait(free_ns) => {
                self.stats.write_segment_waits += 1;
                if disconnect {
                    let (disc, reselect) = (self.scaled(o.write_disconnect_ms), self.scaled(o.reselect_ms));
                    (bus_start.max((t_cmd + disc).max(free_ns) + reselect), disc + reselect)
                } else {
                    (bus_start.max(free_ns), 0.0)
                }
            }
            WriteSlot::Free | WriteSlot::Append => (bus_start, 0.0),
        };
        let bus_end = bus_start + n as f64 * self.bus_write_ns;
        let mech = (t_cmd + mech_delay).max(self.arm_free_ns);
        let first_ready = bus_start + self.bus_write_ns;
        let min_pos = if lbn != self.last_write_end { self.scaled(o.min_write_access_ms) } else { 0.0 };
        let mut times = PassTimes::default();
        let zl = self.spec.cache.zero_latency_write;
        // A drive with the extra-disconnect habit starts writing only once some of the data
        // is in its buffer (DiskSim's rule; it applies to all its write-through writes).
        let buffered = o.extra_write_disconnect.filter(|_| !write_back).map_or(1, |x| x.buffered_before_write(n).max(1));
        let min_pos = min_pos.max(first_ready + (buffered - 1) as f64 * self.bus_write_ns - mech);
        let ready = Some((first_ready, self.bus_write_ns, min_pos));
        // A write-back write larger than a segment has room for its last block once the
        // media has written as many of its blocks as exceed the segment.
        let segment_blocks = self.spec.cache.segment_blocks.max(1);
        let excess = if write_back { n.saturating_sub(segment_blocks) } else { 0 };
        let (mut unwritten, mut excess_written_ns) = (excess, 0.0f64);
        let (head, media_end) = self.media_pass(self.head, mech, lbn, n, true, zl, ready, &mut times, |c| {
            // A chunk's runs are written one after the other, in the order of their times.
            let mut runs = c.runs;
            if runs[1].first_ns < runs[0].first_ns {
                runs.swap(0, 1);
            }
            for r in runs {
                if unwritten > 0 && unwritten <= r.blocks {
                    excess_written_ns = r.first_ns + (unwritten - 1) as f64 * c.sector_ns;
                }
                unwritten -= unwritten.min(r.blocks);
            }
            true
        });
        self.head = head;
        self.arm_free_ns = media_end;
        self.last_write_end = end;
        if write_back {
            match (slot, self.dirty.back_mut()) {
                (WriteSlot::Append, Some(d)) => {
                    d.end_lbn = end;
                    d.media_end_ns = media_end;
                }
                _ => self.dirty.push_back(Dirty { start_lbn: lbn.max(end.saturating_sub(segment_blocks)), end_lbn: end, media_end_ns: media_end }),
            }
        }
        // Segments holding any written block are dropped; the data may serve later reads.
        if self.spec.cache.read_hits_on_write_data {
            self.segments.fill(lbn, end, self.spec.cache.segment_blocks, true);
        } else {
            self.segments.invalidate(lbn, end);
        }
        // A disconnected write-through reconnects to report completion.
        let reselect = match (write_back, disconnect, extra.is_some()) {
            (false, true, true) => self.scaled(o.reselect_other_ms),
            (false, true, false) => self.scaled(o.reselect_ms),
            _ => 0.0,
        };
        let done = if write_back {
            self.stats.write_backs += 1;
            let last_in = if excess > 0 { excess_written_ns + self.bus_write_ns } else { 0.0 };
            bus_end.max(last_in) + completion
        } else {
            media_end.max(bus_end) + reselect + completion
        };
        Access {
            done_ns: to_ns(done),
            overhead_ns: to_ns(ovh + data_prep + wait_ovh + reselect + completion),
            seek_ns: to_ns(times.seek_ns),
            rotate_ns: to_ns(times.rotate_ns),
            transfer_ns: to_ns(times.transfer_ns),
            bus_ns: to_ns(n as f64 * self.bus_write_ns),
            cache_hit: false,
            write_back,
            media_done_ns: to_ns(media_end),
        }
    }
}

/// Where a write-back write's data goes (`Mechanics::write_slot`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum WriteSlot {
    /// A write segment of its own, free now.
    Free,
    /// The segment of the write it continues, still waiting for the media.
    Append,
    /// A write segment of its own, free once the media is done with it at this time.
    Wait(f64),
}

#[cfg(test)]
mod tests {
    use super::to_ns;

    #[test]
    fn to_ns_rounds_and_maps_impossible_times_to_zero() {
        assert_eq!(to_ns(1.4), 1);
        assert_eq!(to_ns(1.5), 2);
        assert_eq!(to_ns(0.0), 0);
        assert_eq!(to_ns(-0.4), 0);
        assert_eq!(to_ns(-7.0e9), 0);
        assert_eq!(to_ns(f64::NAN), 0);
        assert_eq!(to_ns(f64::INFINITY), 0);
        assert_eq!(to_ns(f64::NEG_INFINITY), 0);
        assert_eq!(to_ns(3.0e18), 3_000_000_000_000_000_000);
    }
}
