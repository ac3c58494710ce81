//! The FSU study's three workloads on one disk, under three schemes:
//!
//! | scheme | allocation | read-ahead | drive prefetch |
//! |---|---|---|---|
//! | conventional | contiguous | 128 KiB windows (Linux's default maximum) | on |
//! | one-track read-ahead | contiguous | windows of one track's size, not aligned | on |
//! | track-aligned | inside tracks | one request per track | off (as the paper runs it) |
//!
//! - **Bonnie**: one 1 GB file written, then read, sequentially by one process (one
//!   request outstanding), from the start of the disk; bandwidth in MB/s.
//! - **diff**: two 512 MB files, the second right after the first, read alternately one
//!   read-ahead request at a time (`diff --speed-large-files`); seconds.
//! - **Streams**: one more 500 KB/s reader each second, each from a random place on the
//!   disk, reading ahead on schedule; a stream's start-up latency is the response time of
//!   its first request. The disk queue is C-LOOK.
//!
//! Requests are replayed through tierlab's simulator on the drive's model with its cache
//! as specified (write-back), prefetch switched as the table says.

use crate::{allocate, reads, Allocation, Extent, ReadAhead, Tracks, BLOCK_SECTORS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::{BinaryHeap, HashMap};
use tierlab_hdd::{HddDevice, HddSpec, Layout, Mechanics, ReadAheadMode};
use tierlab_sim::{Controller, DeviceInfo, Direct, HostId, Io, Replay, SchedulerKind, SimError, SimReport, Simulation};
use tierlab_types::{IoRequest, Op, NS_PER_S};

/// Linux's default maximum read-ahead: 128 KiB.
pub const LINUX_READ_AHEAD_SECTORS: u64 = 256;
const MB: f64 = 1.0e6;
const BONNIE_DEPTH: u32 = 2;

/// How files are placed and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    Conventional,
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

/// A drive and its tracks.
pub struct Disk {
    spec: HddSpec,
    tracks: Tracks,
}

impl Disk {
    pub fn new(spec: HddSpec) -> Result<Disk, String> {
        let layout = Layout::new(&spec).map_err(|e| format!("{}: {}", e.parameter, e.problem))?;
        Ok(Disk { tracks: Tracks::of_layout(&layout, spec.block_count), spec })
    }

    pub fn tracks(&self) -> &Tracks {
        &self.tracks
    }

    fn sector_bytes(&self) -> u64 {
        u64::from(self.spec.sector_bytes)
    }

    /// Replay `requests` on the drive under `scheme`; the report and the response time of
    /// each stream's first request (streams are request volumes).
    fn replay(&self, scheme: Scheme, requests: impl Iterator<Item = IoRequest>, replay: Replay) -> Result<(SimReport, HashMap<u32, u64>), String> {
        let mut spec = self.spec.clone();
        if scheme == Scheme::TrackAligned {
            spec.cache.read_ahead = ReadAheadMode::None;
        }
        let mech = Mechanics::new(spec).map_err(|e| format!("{}: {}", e.parameter, e.problem))?;
        let mut sim = Simulation::new(SchedulerKind::Clook);
        sim.add_device(Box::new(HddDevice::new(self.spec.name.clone(), mech)));
        let mut first = FirstResponses::default();
        let report = sim.run(requests.map(Ok::<_, std::io::Error>), replay, &mut first, &mut |_| {}).map_err(|e| e.to_string())?;
        Ok((report, first.latency_ns))
    }

    fn request(&self, e: Extent, op: Op, time_ns: u64, stream: u32) -> IoRequest {
        IoRequest { time_ns, volume: stream, offset_bytes: e.lbn * self.sector_bytes(), len_bytes: e.sectors * self.sector_bytes(), op }
    }

    fn file(&self, start: u64, bytes: u64, scheme: Scheme) -> Result<Vec<Extent>, String> {
        allocate(&self.tracks, start, bytes, scheme.allocation()).ok_or_else(|| format!("a file of {bytes} bytes does not fit from sector {start}"))
    }
}

/// `Direct`, noting when each stream's first request arrives and completes.
#[derive(Default)]
struct FirstResponses {
    direct: Direct,
    seen: std::collections::HashSet<u32>,
    pending: HashMap<HostId, (u32, u64)>,
    latency_ns: HashMap<u32, u64>,
}

impl Controller for FirstResponses {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        self.direct.attach(devices)
    }

    fn on_request(&mut self, now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        if self.seen.insert(req.volume) {
            self.pending.insert(host, (req.volume, now_ns));
        }
        self.direct.on_request(now_ns, host, index, req, io)
    }

    fn on_device_done(&mut self, now_ns: u64, device: usize, token: u64, io: &mut Io) {
        if let Some((stream, at)) = self.pending.remove(&(token as HostId)) {
            self.latency_ns.insert(stream, now_ns - at);
        }
        self.direct.on_device_done(now_ns, device, token, io);
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
pub fn bonnie(disk: &Disk, scheme: Scheme, bytes: u64) -> Result<Bonnie, String> {
    let file = disk.file(0, bytes, scheme)?;
    let ra = scheme.read_ahead(&disk.tracks, 0);
    let mut rate = [0.0; 2];
    for (k, op) in [Op::Write, Op::Read].into_iter().enumerate() {
        // A write phase ends when the data is on the platters: a last one-sector read at
        // the far end of the disk waits for the drive to finish writing its cache out.
        let drain = (op == Op::Write).then(|| disk.request(Extent { lbn: disk.tracks.end() - BLOCK_SECTORS, sectors: 1 }, Op::Read, 0, 0));
        let reqs = reads(&disk.tracks, &file, ra).map(|e| disk.request(e, op, 0, 0)).chain(drain);
        let (r, _) = disk.replay(scheme, reqs, Replay::Closed { depth: BONNIE_DEPTH })?;
        rate[k] = bytes as f64 / r.span_s / MB;
    }
    Ok(Bonnie { scheme, file_bytes: bytes, write_mb_s: rate[0], read_mb_s: rate[1] })
}

/// diff: two files of `bytes`, the second after the first, read alternately.
pub fn diff(disk: &Disk, scheme: Scheme, bytes: u64) -> Result<Diff, String> {
    let a = disk.file(0, bytes, scheme)?;
    let after_a = a.last().map_or(0, |e| e.lbn + e.sectors);
    let b = disk.file(after_a, bytes, scheme)?;
    let ra_a = scheme.read_ahead(&disk.tracks, a[0].lbn);
    let ra_b = scheme.read_ahead(&disk.tracks, b[0].lbn);
    let mut ra = reads(&disk.tracks, &a, ra_a).peekable();
    let mut rb = reads(&disk.tracks, &b, ra_b).peekable();
    let mut turn_a = true;
    let reqs = std::iter::from_fn(|| {
        let next = match (turn_a, ra.peek().is_some(), rb.peek().is_some()) {
            (true, true, _) | (false, true, false) => ra.next(),
            (_, _, true) => rb.next(),
            _ => None,
        };
        turn_a = !turn_a;
        next.map(|e| disk.request(e, Op::Read, 0, 0))
    });
    let (r, _) = disk.replay(scheme, reqs, Replay::Closed { depth: 1 })?;
    Ok(Diff { scheme, file_bytes: bytes, seconds: r.span_s })
}

/// Streams at `rate_bytes_s`, one more each second up to `max_streams`, each reading from
/// a random place (seeded) until the last stream has started and run 10 s; every
/// stream's start-up latency.
pub fn streams(disk: &Disk, scheme: Scheme, rate_bytes_s: f64, max_streams: u32, seed: u64) -> Result<Streams, String> {
    let stream_bytes = (rate_bytes_s * f64::from(max_streams + 10)) as u64;
    // Each stream: its extents and read requests, issued on schedule.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let span = disk.tracks.end().saturating_sub(stream_bytes / 512 * 2).max(1);
    let mut files = Vec::with_capacity(max_streams as usize);
    for _ in 0..max_streams {
        let start = rng.gen_range(0..span);
        files.push(disk.file(start, stream_bytes, scheme)?);
    }
    let sb = disk.sector_bytes() as f64;
    // Merge the streams' schedules in time order: (time, stream, request index).
    let per_stream: Vec<Vec<Extent>> = files.iter().map(|f| reads(&disk.tracks, f, scheme.read_ahead(&disk.tracks, f[0].lbn)).collect()).collect();
    let mut heap: BinaryHeap<std::cmp::Reverse<(u64, u32, usize)>> =
        (0..max_streams).map(|s| std::cmp::Reverse((u64::from(s) * NS_PER_S, s, 0usize))).collect();
    let reqs = std::iter::from_fn(|| {
        let std::cmp::Reverse((t, s, i)) = heap.pop()?;
        let list = &per_stream[s as usize];
        let e = list[i];
        if i + 1 < list.len() {
            // The next request is due when this one's data has been played.
            let due = t + (e.sectors as f64 * sb / rate_bytes_s * NS_PER_S as f64) as u64;
            heap.push(std::cmp::Reverse((due, s, i + 1)));
        }
        Some(disk.request(e, Op::Read, t, s))
    });
    let (_, first) = disk.replay(scheme, reqs, Replay::Open)?;
    let startup_s: Vec<f64> = (0..max_streams).map(|s| first.get(&s).map_or(f64::NAN, |&ns| ns as f64 / NS_PER_S as f64)).collect();
    let limit_s = 3.0;
    let supported = startup_s.iter().take_while(|&&l| l <= limit_s).count();
    Ok(Streams { scheme, rate_bytes_s, startup_s, supported, limit_s })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_hdd::{Datasheet, DatasheetLayout, DatasheetTiming};

    fn maxtor_like() -> Disk {
        let spec = HddSpec::from_datasheet(&Datasheet {
            name: "maxtor-like".into(),
            capacity_bytes: 4_000_000_000,
            rpm: 10_000.0,
            seek_single_track_ms: Some(0.3),
            seek_average_ms: 4.6,
            seek_full_stroke_ms: None,
            sustained_transfer_mb_s: 89.5,
            cache_mib: 8.0,
            sector_bytes: 512,
            timing: DatasheetTiming::default(),
            layout: Some(DatasheetLayout { band_cylinders: 32, surface_outer_sectors: vec![1144, 1092] }),
        })
        .unwrap();
        Disk::new(spec).unwrap()
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
        assert!(s.at(60).unwrap() > 10.0 * s.at(1).unwrap(), "{:?}", s.startup_s);
    }
}
