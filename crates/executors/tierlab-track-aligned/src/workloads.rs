//! The FSU study's three workloads on one disk or a RAID-5 ([`Target`]), under three
//! schemes:
//!
//! | scheme | allocation | read-ahead | drive prefetch |
//! |---|---|---|---|
//! | conventional | contiguous | 128 KiB windows (Linux's default maximum) | on |
//! | one-track read-ahead | contiguous | windows of a track of each data disk, not aligned | on |
//! | track-aligned | inside tracks | one request per track (of each data disk) | off (as the paper runs it) |
//!
//! On an array the track-aligned scheme also lays the disks out a chunk per track with
//! parity fill-in ([`crate::array`]).
//!
//! - **Bonnie**: one 1 GB file written, then read, sequentially by one process (two
//!   requests outstanding, as the read-ahead's asynchronous window keeps them), from the
//!   start of the disk; bandwidth in MB/s.
//! - **diff**: two 512 MB files, the second right after the first, read alternately one
//!   read-ahead request at a time (`diff --speed-large-files`); seconds.
//! - **Streams**: one more 500 KB/s reader each second, each from a random place on the
//!   disk, reading ahead on schedule; a stream's start-up latency is the response time of
//!   its first request. The disk queue is C-LOOK by block address ([`QUEUE`]).
//!
//! Requests are replayed through tierlab's simulator on the drive's model with its cache
//! as specified (write-back), prefetch switched as the table says.

use crate::{allocate, reads, Allocation, Extent, ReadAhead, Tracks, BLOCK_SECTORS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::{BinaryHeap, HashMap, HashSet};
use tierlab_hdd::{HddDevice, HddSpec, Layout, Mechanics, ReadAheadMode};
use tierlab_engine::{Controller, DeviceInfo, Direct, HostId, Io, Replay, SchedulerKind, SimError, SimReport, Simulation};
use tierlab_types::{IoRequest, Op, NS_PER_S};

/// The disk queues by default: C-LOOK by block address, as Linux's elevator sorts
/// requests (on a serpentine disk, cylinder order would differ). `with_queue` sets another.
pub const QUEUE: SchedulerKind = SchedulerKind::ClookLba;

/// Linux's default maximum read-ahead: 128 KiB.
pub const LINUX_READ_AHEAD_SECTORS: u64 = 256;
const MB: f64 = 1.0e6;
const BONNIE_DEPTH: u32 = 2;

/// How files are placed and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    Conventional,
    /// Read-ahead windows of a track of each data disk (one track on a single disk),
    /// not aligned.
    OneTrackReadAhead,
    TrackAligned,
}

impl Scheme {
    pub const ALL: [Scheme; 3] = [Scheme::Conventional, Scheme::OneTrackReadAhead, Scheme::TrackAligned];

    fn allocation(self) -> Allocation {
        match self {
            Scheme::TrackAligned => Allocation::TrackAligned,
            _ => Allocation::Conventional,
        }
    }

    fn read_ahead(self, tracks: &Tracks, at: u64) -> ReadAhead {
        match self {
            Scheme::Conventional => ReadAhead::Window(LINUX_READ_AHEAD_SECTORS),
            Scheme::OneTrackReadAhead => ReadAhead::Window(tracks.track_of(at).1 / BLOCK_SECTORS * BLOCK_SECTORS),
            Scheme::TrackAligned => ReadAhead::Tracks,
        }
    }
}

/// What a replay gives the workloads: the engine's report and, per stream (request
/// volume), the response time of its first request.
pub struct Replayed {
    pub report: SimReport,
    pub first_response_ns: HashMap<u32, u64>,
}

/// What the workloads run on: one disk ([`Disk`]) or an array ([`crate::array::Array`]).
pub trait Target {
    fn sector_bytes(&self) -> u64;
    /// The tracks of the space files live in under `scheme`, in sectors (an array's: a
    /// track of each data disk), and the space's end.
    fn tracks(&self, scheme: Scheme) -> &Tracks;
    /// Reads that, issued after a write phase, complete only once every disk has written
    /// its cache out.
    fn drain(&self) -> Vec<Extent>;
    /// Replay `requests` under `scheme` (the target's queues; drive prefetch off when the scheme
    /// is track-aligned).
    fn replay(&self, scheme: Scheme, requests: &mut dyn Iterator<Item = IoRequest>, replay: Replay) -> Result<Replayed, String>;
}

fn request(target: &dyn Target, e: Extent, op: Op, time_ns: u64, stream: u32) -> IoRequest {
    let sb = target.sector_bytes();
    IoRequest { time_ns, volume: stream, offset_bytes: e.lbn * sb, len_bytes: e.sectors * sb, op }
}

fn file(target: &dyn Target, start: u64, bytes: u64, scheme: Scheme) -> Result<Vec<Extent>, String> {
    allocate(target.tracks(scheme), start, bytes, scheme.allocation()).ok_or_else(|| format!("a file of {bytes} bytes does not fit from sector {start}"))
}

/// A drive and its tracks.
pub struct Disk {
    spec: HddSpec,
    tracks: Tracks,
    queue: SchedulerKind,
}

impl Disk {
    pub fn new(spec: HddSpec) -> Result<Disk, String> {
        let layout = Layout::new(&spec).map_err(|e| format!("{}: {}", e.parameter, e.problem))?;
        Ok(Disk { tracks: Tracks::of_layout(&layout, spec.block_count), spec, queue: QUEUE })
    }

    /// Order the disk's queue with `queue` rather than [`QUEUE`].
    pub fn with_queue(self, queue: SchedulerKind) -> Disk {
        Disk { queue, ..self }
    }
}

impl Target for Disk {
    fn sector_bytes(&self) -> u64 {
        u64::from(self.spec.sector_bytes)
    }

    fn tracks(&self, _scheme: Scheme) -> &Tracks {
        &self.tracks
    }

    fn drain(&self) -> Vec<Extent> {
        vec![Extent { lbn: self.tracks.end() - BLOCK_SECTORS, sectors: 1 }]
    }

    fn replay(&self, scheme: Scheme, requests: &mut dyn Iterator<Item = IoRequest>, replay: Replay) -> Result<Replayed, String> {
        let mut sim = Simulation::new(self.queue);
        sim.add_device(Box::new(HddDevice::new(self.spec.name.clone(), mechanics(&self.spec, scheme)?)));
        run(sim, FirstResponses::new(Direct::default()), requests, replay)
    }
}

/// The drive's mechanics under `scheme`: its prefetch off when track-aligned, as the paper
/// runs it.
pub(crate) fn mechanics(spec: &HddSpec, scheme: Scheme) -> Result<Mechanics, String> {
    let mut spec = spec.clone();
    if scheme == Scheme::TrackAligned {
        spec.cache.read_ahead = ReadAheadMode::None;
    }
    Mechanics::new(spec).map_err(|e| format!("{}: {}", e.parameter, e.problem))
}

pub(crate) fn run<C: Controller>(sim: Simulation, mut first: FirstResponses<C>, requests: &mut dyn Iterator<Item = IoRequest>, replay: Replay) -> Result<Replayed, String> {
    let report = sim.run(requests.map(Ok::<_, std::io::Error>), replay, &mut first, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(Replayed { report, first_response_ns: first.latency_ns })
}

/// A controller wrapped to note when each stream's first request arrives and completes.
pub(crate) struct FirstResponses<C> {
    inner: C,
    seen: HashSet<u32>,
    pending: HashMap<HostId, (u32, u64)>,
    latency_ns: HashMap<u32, u64>,
}

impl<C: Controller> FirstResponses<C> {
    pub(crate) fn new(inner: C) -> Self {
        FirstResponses { inner, seen: HashSet::new(), pending: HashMap::new(), latency_ns: HashMap::new() }
    }

    fn note(&mut self, now_ns: u64, io: &Io, mark: usize) {
        for host in io.completed_since(mark) {
            if let Some((stream, at)) = self.pending.remove(&host) {
                self.latency_ns.insert(stream, now_ns - at);
            }
        }
    }
}

impl<C: Controller> Controller for FirstResponses<C> {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        self.inner.attach(devices)
    }

    fn on_request(&mut self, now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        if self.seen.insert(req.volume) {
            self.pending.insert(host, (req.volume, now_ns));
        }
        let mark = io.mark();
        self.inner.on_request(now_ns, host, index, req, io)?;
        self.note(now_ns, io, mark);
        Ok(())
    }

    fn on_device_done(&mut self, now_ns: u64, device: usize, token: u64, io: &mut Io) {
        let mark = io.mark();
        self.inner.on_device_done(now_ns, device, token, io);
        self.note(now_ns, io, mark);
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        let mark = io.mark();
        self.inner.on_timer(now_ns, token, io);
        self.note(now_ns, io, mark);
    }

    fn report(&self) -> serde_json::Value {
        self.inner.report()
    }
}

/// Bonnie's sequential phases.
#[derive(Clone, Debug, Serialize)]
pub struct Bonnie {
    pub scheme: Scheme,
    pub file_bytes: u64,
    pub write_mb_s: f64,
    pub read_mb_s: f64,
}

/// diff of two files.
#[derive(Clone, Debug, Serialize)]
pub struct Diff {
    pub scheme: Scheme,
    pub file_bytes: u64,
    pub seconds: f64,
}

/// Streams added one a second.
#[derive(Clone, Debug, Serialize)]
pub struct Streams {
    pub scheme: Scheme,
    pub rate_bytes_s: f64,
    /// Start-up latency (s) of the n-th stream, n = 1, 2, …
    pub startup_s: Vec<f64>,
    /// Streams started before one waited longer than the limit.
    pub supported: usize,
    pub limit_s: f64,
}

impl Streams {
    /// Start-up latency of the `n`-th stream (1-based), if it ran.
    pub fn at(&self, n: usize) -> Option<f64> {
        self.startup_s.get(n.checked_sub(1)?).copied()
    }

    /// The mean start-up latency of the streams `n - 5` to `n + 5` (a single stream's
    /// depends on where it starts and what the queue holds then), if they all ran.
    pub fn around(&self, n: usize) -> Option<f64> {
        let lo = n.checked_sub(6)?;
        let window = self.startup_s.get(lo..n + 5)?;
        Some(window.iter().sum::<f64>() / window.len() as f64)
    }
}

/// Bonnie: write then read a file of `bytes` from the start of the disk.
pub fn bonnie(target: &dyn Target, scheme: Scheme, bytes: u64) -> Result<Bonnie, String> {
    let tracks = target.tracks(scheme);
    let file = file(target, 0, bytes, scheme)?;
    let ra = scheme.read_ahead(tracks, 0);
    let mut rate = [0.0; 2];
    for (k, op) in [Op::Write, Op::Read].into_iter().enumerate() {
        // A write phase ends when the data is on the platters: last reads at the far end
        // wait for the drives to finish writing their caches out.
        let drain = if op == Op::Write { target.drain() } else { Vec::new() };
        let mut reqs = reads(tracks, &file, ra).map(|e| request(target, e, op, 0, 0)).chain(drain.into_iter().map(|e| request(target, e, Op::Read, 0, 0)));
        let r = target.replay(scheme, &mut reqs, Replay::Closed { depth: BONNIE_DEPTH })?;
        rate[k] = bytes as f64 / r.report.span_s / MB;
    }
    Ok(Bonnie { scheme, file_bytes: bytes, write_mb_s: rate[0], read_mb_s: rate[1] })
}

/// diff: two files of `bytes`, the second after the first, read alternately.
pub fn diff(target: &dyn Target, scheme: Scheme, bytes: u64) -> Result<Diff, String> {
    let tracks = target.tracks(scheme);
    let a = file(target, 0, bytes, scheme)?;
    let after_a = a.last().map_or(0, |e| e.lbn + e.sectors);
    let b = file(target, after_a, bytes, scheme)?;
    let mut ra = reads(tracks, &a, scheme.read_ahead(tracks, a[0].lbn)).peekable();
    let mut rb = reads(tracks, &b, scheme.read_ahead(tracks, b[0].lbn)).peekable();
    let mut turn_a = true;
    let mut reqs = std::iter::from_fn(|| {
        let next = match (turn_a, ra.peek().is_some(), rb.peek().is_some()) {
            (true, true, _) | (false, true, false) => ra.next(),
            (_, _, true) => rb.next(),
            _ => None,
        };
        turn_a = !turn_a;
        next.map(|e| request(target, e, Op::Read, 0, 0))
    });
    let r = target.replay(scheme, &mut reqs, Replay::Closed { depth: 1 })?;
    Ok(Diff { scheme, file_bytes: bytes, seconds: r.report.span_s })
}

/// Streams at `rate_bytes_s`, one more each second up to `max_streams`, each reading from
/// a random place (seeded) until the last stream has started and run 10 s; every
/// stream's start-up latency.
pub fn streams(target: &dyn Target, scheme: Scheme, rate_bytes_s: f64, max_streams: u32, seed: u64) -> Result<Streams, String> {
    let tracks = target.tracks(scheme);
    let sb = target.sector_bytes();
    let stream_bytes = (rate_bytes_s * f64::from(max_streams + 10)) as u64;
    // Each stream: its extents and read requests, issued on schedule.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let span = tracks.end().saturating_sub(stream_bytes / sb * 2).max(1);
    let mut per_stream: Vec<Vec<Extent>> = Vec::with_capacity(max_streams as usize);
    for _ in 0..max_streams {
        let start = rng.gen_range(0..span);
        let f = file(target, start, stream_bytes, scheme)?;
        per_stream.push(reads(tracks, &f, scheme.read_ahead(tracks, f[0].lbn)).collect());
    }
    // Merge the streams' schedules in time order: (time, stream, request index).
    let mut heap: BinaryHeap<std::cmp::Reverse<(u64, u32, usize)>> =
        (0..max_streams).map(|s| std::cmp::Reverse((u64::from(s) * NS_PER_S, s, 0usize))).collect();
    let mut reqs = std::iter::from_fn(|| {
        let std::cmp::Reverse((t, s, i)) = heap.pop()?;
        let list = &per_stream[s as usize];
        let e = list[i];
        if i + 1 < list.len() {
            // The next request is due when this one's data has been played.
            let due = t + (e.sectors as f64 * sb as f64 / rate_bytes_s * NS_PER_S as f64) as u64;
            heap.push(std::cmp::Reverse((due, s, i + 1)));
        }
        Some(request(target, e, Op::Read, t, s))
    });
    let first = target.replay(scheme, &mut reqs, Replay::Open)?.first_response_ns;
    let startup_s: Vec<f64> = (0..max_streams).map(|s| first.get(&s).map_or(f64::NAN, |&ns| ns as f64 / NS_PER_S as f64)).collect();
    let limit_s = 3.0;
    let supported = startup_s.iter().take_while(|&&l| l <= limit_s).count();
    Ok(Streams { scheme, rate_bytes_s, startup_s, supported, limit_s })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maxtor_like() -> Disk {
        Disk::new(crate::tests::maxtor_like([1144, 1092], 4_000_000_000)).unwrap()
    }

    #[test]
    fn every_scheme_moves_the_whole_file_and_aligned_diff_is_faster() {
        let disk = maxtor_like();
        let conv = diff(&disk, Scheme::Conventional, 32_000_000).unwrap();
        let aligned = diff(&disk, Scheme::TrackAligned, 32_000_000).unwrap();
        assert!(aligned.seconds < conv.seconds, "{aligned:?} vs {conv:?}");
        for s in Scheme::ALL {
            let b = bonnie(&disk, s, 64_000_000).unwrap();
            assert!(b.read_mb_s > 10.0 && b.read_mb_s < 120.0, "{b:?}");
            assert!(b.write_mb_s > 10.0 && b.write_mb_s < 120.0, "{b:?}");
        }
    }

    #[test]
    fn start_up_latency_grows_with_the_streams_and_every_stream_is_timed() {
        let disk = maxtor_like();
        let s = streams(&disk, Scheme::Conventional, 500_000.0, 60, 7).unwrap();
        assert_eq!(s.startup_s.len(), 60);
        assert!(s.startup_s.iter().all(|l| l.is_finite() && *l > 0.0));
        // One stream's start-up depends on where it starts and what the queue holds then:
        // compare the last ten streams' mean with the first ten's.
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!(mean(&s.startup_s[50..]) > 10.0 * mean(&s.startup_s[..10]), "{:?}", s.startup_s);
    }
}
