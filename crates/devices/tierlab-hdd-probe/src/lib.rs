//! Characterise a disk by timing reads, as a user-level program can (the method of
//! Schindler and Ganger's DIXtrac and of Qian, Meyers and Wang's track-boundary study,
//! re-derived here): the rotation period, every track boundary in a range, whether the
//! drive reads a track in the order its sectors pass the head (zero-latency access), the
//! cost of a 64-sector read across a boundary against one within a track, a seek curve
//! and what the on-board cache answers.
//!
//! A [`Target`] is either tierlab's HDD model ([`ModelTarget`], timed in virtual time) or a
//! real block device or file read with O_DIRECT ([`DeviceTarget`], timed by the clock).
//!
//! # The method
//!
//! Everything but the cache test needs the drive's read cache off (`sdparm --set RCD=1`
//! on a SCSI disk; the model target turns it off itself), so that every read goes to the
//! media:
//!
//! - **Rotation.** A sector read again just after it was read waits exactly one revolution:
//!   the completion-to-completion interval is the period.
//! - **Track boundaries.** Read sector `x - 2`, then at once sectors `x - 1` and `x`. While
//!   all three lie on one track the second read always takes one revolution and two sector
//!   times, whatever `x`; at the first sector of a new track it does not (a head switch or
//!   a one-cylinder seek and the new track's skew intervene). So with a track known to
//!   start at `s`, its end is the first `x > s + 2` whose time differs from that of
//!   `x = s + 2`. The next boundary is first looked for one track size on (each size met
//!   so far is tried: two reads confirm one), and only then by a scan. A slipped sector
//!   (skipped at format time) delays one pair by about a sector's time and the pair
//!   after it not at all; a boundary changes both, so the two are told apart.
//! - The zero-latency test assumes the interface outruns the media: on a drive whose bus
//!   is slower than its heads a whole-track read is paced by the bus, and the test says no.
//! - **Zero-latency access.** A whole track read from different rotational positions takes
//!   one revolution every time on a drive that reads sectors as they pass, and between one
//!   and two revolutions on a drive that waits for the first sector. The faster half of
//!   sixteen positions decides.
//! - **Boundary cost.** 64-sector reads starting at random offsets around random
//!   boundaries, each after a random pause: the mean time of those that cross the boundary
//!   and of those that do not (the paper's Figure 3).
//! - **Seek curve.** For each distance, the least time over 64 rotational phases of a
//!   one-sector read that far from the last one: positioning plus at most 1/64 revolution.
//! - **Cache** (cache as the drive ships): a repeated read, a read just after the one
//!   before it (read-ahead), and two consecutive sectors read in reverse order (answered
//!   from the cache only by a drive that buffers what passes under the head).
//!
//! # Noisy timing
//!
//! The model times exactly. A device behind a kernel (a real disk, or the model served by
//! `tierlab serve --emulate` through NBD) completes every read late by a delay that varies
//! by tens of microseconds, and now and then by milliseconds. Five repeated reads that
//! spread over more than a microsecond mark the target as noisy. Pair times are then
//! compared within a tolerance measured from fifteen pairs (four times their median
//! distance from their median, which late completions do not move while fewer than half
//! the pairs have one) and measured again before each scan; a time out of it is the median
//! of five; a boundary must change two pairs, each confirmed by the median of more
//! readings (as many more as the share of late pairs asks), and so must a track size
//! already met; and the zero-latency test takes the least of three reads at each
//! position. On a host too busy for this (the rotation's or the pairs' spread over a
//! fiftieth or a twentieth of a revolution, measured again over 15.5 s) the probe stops
//! and says so. None of this acts on the model.

mod device;
mod model;
pub mod tracks_file;

pub use device::DeviceTarget;
pub use model::ModelTarget;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Why a probe could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{path}: {message}")]
    Open { path: String, message: String },
    #[error("{path}: a read of {sectors} sectors at sector {lbn} failed: {source}")]
    Read { path: String, lbn: u64, sectors: u64, source: std::io::Error },
    #[error("{0}")]
    Unusable(String),
}

/// Something that can be timed: one read at a time, each issued when the one before it
/// completed (and any pause since has passed).
pub trait Target {
    /// Logical sectors.
    fn sectors(&self) -> u64;
    fn sector_bytes(&self) -> u64;
    /// Read `n` sectors from `lbn`; the time from issue to completion, ns.
    fn read(&mut self, lbn: u64, n: u64) -> Result<u64, ProbeError>;
    /// Let `ns` pass before the next read.
    fn pause(&mut self, ns: u64);
}

/// Consecutive tracks of one size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrackRun {
    pub first_lbn: u64,
    pub sectors: u64,
    pub tracks: u64,
}

/// 64-sector reads across a track boundary and within a track.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoundaryCost {
    pub reads: u64,
    pub within_ms: f64,
    pub across_ms: f64,
}

/// The least access time found at one distance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeekPoint {
    pub distance_sectors: u64,
    pub min_access_ms: f64,
}

/// What the on-board cache answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheReport {
    /// A sector read again at once comes from the cache.
    pub repeat_hit: bool,
    /// Its time, ms (a media read takes about a revolution).
    pub repeat_ms: f64,
    /// The 8 sectors after an 8-sector read, read one revolution later, come from the cache.
    pub read_ahead: bool,
    /// Share of reverse-order pairs of consecutive sectors whose second read (the lower
    /// sector) the cache answered.
    pub reverse_pair_hits: f64,
}

/// Everything a probe found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeReport {
    pub sectors: u64,
    pub sector_bytes: u64,
    pub rotation_ms: f64,
    pub rpm: f64,
    /// Pair times that differ by up to this much were taken as equal (the most any track
    /// needed): a microsecond or a quarter sector on the model, about five standard
    /// deviations of the timing noise on a device behind a kernel.
    pub pair_tolerance_ms: f64,
    /// The device's timing was noisy: a pair time out of tolerance was measured five times
    /// and the median taken, and a boundary had to show on two pairs.
    pub noisy_timing: bool,
    /// Whole-track reads from different rotational positions all took about one revolution.
    pub zero_latency: bool,
    /// Their least and greatest time, ms.
    pub full_track_read_ms: [f64; 2],
    /// The tracks found from sector 0 (or `--start`), in runs of equal size.
    pub tracks: Vec<TrackRun>,
    pub tracks_found: u64,
    pub boundary_cost: Option<BoundaryCost>,
    pub seek_curve: Vec<SeekPoint>,
    pub cache: Option<CacheReport>,
    /// Reads issued in all.
    pub reads: u64,
}

impl ProbeReport {
    /// The first track of each run, from the start: sizes as a catalog layout lists them.
    pub fn track_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.tracks.iter().flat_map(|r| std::iter::repeat_n(r.sectors, r.tracks as usize))
    }

    /// Every track boundary found (first sector of each track).
    pub fn boundaries(&self) -> Vec<u64> {
        self.tracks.iter().flat_map(|r| (0..r.tracks).map(move |i| r.first_lbn + i * r.sectors)).collect()
    }
}

/// How much to probe.
#[derive(Clone, Debug)]
pub struct ProbeOptions {
    /// First sector of the range whose tracks are found (must be a track's first sector).
    pub start_lbn: u64,
    /// Stop after this many tracks (the whole device if `None`).
    pub max_tracks: Option<u64>,
    /// 64-sector reads for the boundary cost (0: skip).
    pub boundary_reads: u64,
    /// Seed of the random offsets and pauses.
    pub seed: u64,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions { start_lbn: 0, max_tracks: None, boundary_reads: 2000, seed: 1 }
    }
}

/// Rotational phases from which a whole track is read for the zero-latency test.
const WHOLE_TRACK_PHASES: u64 = 16;

/// Rotational phases tried per seek distance: the curve is within 1/64 revolution.
const SEEK_PHASES: u64 = 64;

/// Uniform in `0..n` (0 for `n = 0`).
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        rng.gen_range(0..n)
    }
}

/// Counts the reads it passes on.
struct Counted<'a, T: Target> {
    t: &'a mut T,
    reads: u64,
}

impl<T: Target> Counted<'_, T> {
    fn read(&mut self, lbn: u64, n: u64) -> Result<u64, ProbeError> {
        self.reads += 1;
        self.t.read(lbn, n)
    }
}

/// The rotation period, ns: the median of repeated reads of one sector. And whether the
/// target's timing is noisy: five repeats spread over more than `EXACT_NS` (a real device
/// behind a kernel, not the model); the median is then taken of eleven, whose middle three
/// must lie within a fiftieth of it (late completions, a few milliseconds each, scatter
/// them when a third of the reads have one): measured again after the `NOISE_RETRY_PAUSES`,
/// then the probe stops and says how noisy the timing was.
fn rotation_ns<T: Target>(c: &mut Counted<T>, lbn: u64) -> Result<(u64, bool), ProbeError> {
    c.read(lbn, 1)?;
    let mut d: Vec<u64> = (0..5).map(|_| c.read(lbn, 1)).collect::<Result<_, _>>()?;
    d.sort_unstable();
    if d[4] - d[0] <= EXACT_NS {
        return Ok((d[2], false));
    }
    let mut tries = Vec::new();
    for pause in NOISE_RETRY_PAUSES_NS {
        c.t.pause(pause);
        while d.len() < 11 {
            d.push(c.read(lbn, 1)?);
        }
        d.sort_unstable();
        if d[6] - d[4] <= d[5] / 50 {
            return Ok((d[5], true));
        }
        tries.push(format!("{:.3}-{:.3} ms", d[4] as f64 / 1e6, d[6] as f64 / 1e6));
        d.clear();
    }
    Err(ProbeError::Unusable(format!(
        "the timing is too noisy to measure the rotation: the middle three of eleven repeated reads of one sector took {} ({} tries over {:.1} s of pauses). The host is probably too busy (every completion waits for a free core); probe again when it is quieter",
        tries.join(", "),
        NOISE_RETRY_PAUSES_NS.len(),
        NOISE_RETRY_PAUSES_NS.iter().sum::<u64>() as f64 / 1e9
    )))
}

/// Pauses before each measurement of a noisy target's noise: a host's load comes in bursts
/// (a compiler's link step), which the probe waits out for up to 15.5 s before it gives up.
const NOISE_RETRY_PAUSES_NS: [u64; 6] = [0, 500_000_000, 1_000_000_000, 2_000_000_000, 4_000_000_000, 8_000_000_000];

/// Two times this close are the same on any target (the model's differ by a nanosecond's
/// rounding of the rotational position).
const EXACT_NS: u64 = 1_000;

/// No disk turns faster than this (a revolution of 0.5 ms is 120,000 rpm).
const MIN_REVOLUTION_NS: u64 = 500_000;

/// Why a sector read again at once came back in `repeat_ns`, under a revolution: either a
/// cache answered it, or the device has no media to wait for. Sectors far apart, each read
/// once, tell the two apart: on a disk with its cache off each waits for its seek and its
/// sector, which takes over a millisecond for most of them.
fn no_revolution<T: Target>(c: &mut Counted<T>, repeat_ns: u64) -> ProbeError {
    const FRESH: u64 = 9;
    let sectors = c.t.sectors();
    let mut fresh: Vec<u64> = Vec::new();
    for k in 0..FRESH {
        // Alternately from the front and the back of the device, in eighteenths: each
        // read is far from the last.
        let lbn = sectors / 18 * (if k % 2 == 0 { k + 1 } else { 17 - k });
        match c.read(lbn, 1) {
            Ok(ns) => fresh.push(ns),
            Err(e) => return e,
        }
    }
    fresh.sort_unstable();
    let median_ms = fresh[fresh.len() / 2] as f64 / 1e6;
    if fresh[fresh.len() / 2] < MIN_REVOLUTION_NS {
        ProbeError::Unusable(format!(
            "reads of sectors far apart took {median_ms:.3} ms (median of {FRESH}), and a repeated read {:.3} ms: the device has no rotating media to time (a solid-state drive, or a cache that answers every read). The probe characterises spinning disks",
            repeat_ns as f64 / 1e6
        ))
    } else {
        ProbeError::Unusable(format!(
            "a repeated read took {:.3} ms, far less than a revolution, while reads far apart took {median_ms:.3} ms (median of {FRESH}): the read cache answers repeats. Turn the drive's read cache off (e.g. `sdparm --set RCD=1 DEVICE`) and probe again",
            repeat_ns as f64 / 1e6
        ))
    }
}

/// Time of reading `[x - 1, x]` just after `x - 2`.
fn pair_ns<T: Target>(c: &mut Counted<T>, x: u64) -> Result<u64, ProbeError> {
    c.read(x - 2, 1)?;
    c.read(x - 1, 2)
}

/// Pair times inside one track, and how to tell another time from theirs.
#[derive(Clone)]
struct PairTimes {
    /// A pair's time with all three sectors on the track.
    base: u64,
    /// One sector's time, bounded from `base` (a revolution and two sectors).
    sector: u64,
    /// How far from `base` a time may lie and still be `base`.
    tol: u64,
    /// Whether the target's timing is noisy: a time out of `tol` is then measured four
    /// more times and the median taken, so that one late completion is not a boundary;
    /// and a boundary so found is confirmed by the median of `confirm` readings of both
    /// its pairs.
    noisy: bool,
    /// Readings (odd, five to 31) whose median confirms a boundary on a noisy target: more
    /// where more of the pairs timed for `base` were out of `tol`.
    confirm: usize,
}

/// Pairs timed on a noisy target for its `PairTimes`.
const NOISY_BASE_PAIRS: usize = 15;

impl PairTimes {
    /// On a target that times exactly: from one pair on the track starting at `first`.
    fn exact<T: Target>(c: &mut Counted<T>, first: u64, rev: u64) -> Result<PairTimes, ProbeError> {
        let base = pair_ns(c, first + 2)?;
        let sector = base.saturating_sub(rev).max(2) / 2;
        Ok(PairTimes { base, sector, tol: (sector / 4).max(EXACT_NS), noisy: false, confirm: 1 })
    }

    /// On a noisy target, for the first track and again before each scan: the median of
    /// `NOISY_BASE_PAIRS` pairs on the track starting at `first`, and a tolerance of four
    /// times their median distance from it (about 2.7 standard deviations of a normal
    /// spread: a pair out of it is measured again). The median distance ignores late completions as long as fewer than half
    /// the pairs have one: on a busy host a fifth of them may be late by 1-30 ms, and
    /// a spread taken over those would exceed a revolution and hide every boundary. The
    /// share of pairs out of the tolerance sets how many readings confirm a boundary.
    /// Tracks found by a known size keep the last ones: a sector's time (a few
    /// microseconds) moves `base` between zones by far less than the tolerance.
    ///
    /// A tolerance over a twentieth of a revolution (0.3 ms at 10,000 rpm) cannot tell a
    /// boundary (a head switch or a one-cylinder seek, about 0.5 ms) from the noise: measured again after the
    /// `NOISE_RETRY_PAUSES_NS`, then the probe stops and says how noisy the timing was.
    fn noisy<T: Target>(c: &mut Counted<T>, first: u64, rev: u64) -> Result<PairTimes, ProbeError> {
        let n = NOISY_BASE_PAIRS;
        let mut tries = Vec::new();
        for pause in NOISE_RETRY_PAUSES_NS {
            c.t.pause(pause);
            let mut v: Vec<u64> = (0..n).map(|_| pair_ns(c, first + 2)).collect::<Result<_, _>>()?;
            v.sort_unstable();
            let base = v[n / 2];
            let sector = base.saturating_sub(rev).max(2) / 2;
            let mut dev: Vec<u64> = v.iter().map(|&x| x.abs_diff(base)).collect();
            dev.sort_unstable();
            let tol = (sector / 4).max(EXACT_NS).max(4 * dev[n / 2]);
            let off = v.iter().filter(|&&x| x.abs_diff(base) > tol).count();
            if tol <= rev / 20 {
                return Ok(PairTimes { base, sector, tol, noisy: true, confirm: confirm_readings(off, n) });
            }
            tries.push(format!("{:.3} ms", tol as f64 / 1e6));
        }
        Err(ProbeError::Unusable(format!(
            "the timing is too noisy to find track boundaries: {n} timings of the same pair of reads gave a tolerance (four times their median distance from their median) of {} ({} tries over {:.1} s of pauses), over a twentieth of the {:.3} ms revolution. The host is probably too busy (every completion waits for a free core); probe again when it is quieter",
            tries.join(", "),
            NOISE_RETRY_PAUSES_NS.len(),
            NOISE_RETRY_PAUSES_NS.iter().sum::<u64>() as f64 / 1e9,
            rev as f64 / 1e6
        )))
    }

    fn is_base(&self, ns: u64) -> bool {
        ns.abs_diff(self.base) <= self.tol
    }

    /// The pair time at `x`: one reading, or on a noisy target the median of five when
    /// the first is not `base`.
    fn measure<T: Target>(&self, c: &mut Counted<T>, x: u64) -> Result<u64, ProbeError> {
        let d = pair_ns(c, x)?;
        if !self.noisy || self.is_base(d) {
            return Ok(d);
        }
        median_pair_ns(c, x, d, 5)
    }

    fn same<T: Target>(&self, c: &mut Counted<T>, x: u64) -> Result<bool, ProbeError> {
        Ok(self.is_base(self.measure(c, x)?))
    }

    /// Whether a boundary found at `b` (the pairs at `b` and `b + 1` out of tolerance)
    /// holds: always on an exact target; on a noisy one if the median of `confirm` new
    /// readings of each pair is out of tolerance too.
    fn confirmed<T: Target>(&self, c: &mut Counted<T>, b: u64, sectors: u64) -> Result<bool, ProbeError> {
        if !self.noisy {
            return Ok(true);
        }
        for x in [b, b + 1] {
            if x < sectors && self.surely_same(c, x)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the median of `confirm` readings of the pair at `x` is `base`.
    fn surely_same<T: Target>(&self, c: &mut Counted<T>, x: u64) -> Result<bool, ProbeError> {
        let first = pair_ns(c, x)?;
        Ok(self.is_base(median_pair_ns(c, x, first, self.confirm)?))
    }
}

/// How many readings confirm a boundary on a noisy target where `off` of `n` base pairs
/// were out of tolerance: the fewest (odd, five to 31) whose median is out by chance, a
/// majority of them being late, with a probability under 1e-3 (a boundary needs two pairs
/// so, so a scan of a thousand pairs confirms a false one with odds of about 1e-3). The
/// share is taken as at least one in `2n`, as fifteen pairs cannot show a smaller one.
fn confirm_readings(off: usize, n: usize) -> usize {
    let p = (off as f64 / n as f64).max(0.5 / n as f64);
    let mut k = 5;
    while k < 31 {
        // P(at least (k + 1) / 2 of k readings are off).
        let tail: f64 = ((k + 1) / 2..=k).map(|j| binomial(k, j) * p.powi(j as i32) * (1.0 - p).powi((k - j) as i32)).sum();
        if tail < 1e-3 {
            break;
        }
        k += 2;
    }
    k
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The median of `repeats` pair times at `x`, `first` being one already taken.
fn median_pair_ns<T: Target>(c: &mut Counted<T>, x: u64, first: u64, repeats: usize) -> Result<u64, ProbeError> {
    let mut v = vec![first];
    while v.len() < repeats.max(1) {
        v.push(pair_ns(c, x)?);
    }
    v.sort_unstable();
    Ok(v[v.len() / 2])
}

/// Characterise `target`: its cache must be off (see the module documentation); `cached`,
/// if given, is the same drive with its cache on, for the cache test.
pub fn probe<T: Target, C: Target>(target: &mut T, cached: Option<&mut C>, opts: &ProbeOptions) -> Result<ProbeReport, ProbeError> {
    let sectors = target.sectors();
    if sectors < 4096 {
        return Err(ProbeError::Unusable(format!("the device has {sectors} sectors: too small to probe (at least 4096)")));
    }
    if opts.start_lbn + 4 >= sectors {
        return Err(ProbeError::Unusable(format!("--start {} is beyond the device's {sectors} sectors", opts.start_lbn)));
    }
    let sector_bytes = target.sector_bytes();
    let mut c = Counted { t: target, reads: 0 };
    let (rev, noisy) = rotation_ns(&mut c, opts.start_lbn)?;
    if rev < MIN_REVOLUTION_NS {
        return Err(no_revolution(&mut c, rev));
    }
    // Track boundaries.
    let mut tracks: Vec<TrackRun> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    let mut s = opts.start_lbn;
    let mut found = 0u64;
    let mut noisy_pairs: Option<PairTimes> = None;
    let mut tolerance_ns = 0u64;
    while s + 3 < sectors && opts.max_tracks.is_none_or(|m| found < m) {
        let mut p = match &noisy_pairs {
            Some(p) => p.clone(),
            None if noisy => PairTimes::noisy(&mut c, s, rev)?,
            None => PairTimes::exact(&mut c, s, rev)?,
        };
        // A boundary at `b` changes the pairs at `b` and `b + 1`; on a noisy target both
        // must show it.
        let ends_at = |c: &mut Counted<T>, b: u64| -> Result<bool, ProbeError> {
            if b >= sectors {
                return Ok(true);
            }
            if p.noisy {
                // One reading of a boundary's pair falls within the tolerance now and then.
                return Ok(p.surely_same(c, b - 1)? && p.confirmed(c, b, sectors)?);
            }
            Ok(p.same(c, b - 1)? && !p.same(c, b)?)
        };
        let mut next = None;
        for &t in &sizes {
            if t >= 3 && ends_at(&mut c, s + t)? {
                next = Some(s + t);
                break;
            }
        }
        let next = match next {
            Some(n) => n,
            None => {
                // A scan takes a thousand pairs or so: on a noisy target the noise, which
                // changes with the host's load, is measured again first.
                if noisy_pairs.is_some() {
                    p = PairTimes::noisy(&mut c, s, rev)?;
                }
                if noisy {
                    noisy_pairs = Some(p.clone());
                }
                let mut x = s + 3;
                while x < sectors {
                    let d = p.measure(&mut c, x)?;
                    if p.is_base(d) {
                        x += 1;
                        continue;
                    }
                    // A slipped (skipped) sector inside the track delays just this pair by
                    // about a sector's time, and a late completion on a noisy target one
                    // pair by any time; a boundary changes this pair and the next. On a
                    // noisy target a boundary whose own pair read as `base` shows here as
                    // the pair after it: the pair before this one then differs too. There
                    // each pair out of tolerance is a boundary's if more readings of it
                    // and the next say so, or the pair before it if they say so of that
                    // one and this.
                    if p.noisy {
                        if p.confirmed(&mut c, x, sectors)? {
                            break;
                        }
                        if x > s + 3 && p.confirmed(&mut c, x - 1, sectors)? {
                            x -= 1;
                            break;
                        }
                        x += 1;
                        continue;
                    }
                    let lone = d > p.base && d <= p.base + 3 * p.sector && x + 1 < sectors && p.same(&mut c, x + 1)?;
                    if !lone {
                        break;
                    }
                    x += 1;
                }
                x
            }
        };
        tolerance_ns = tolerance_ns.max(p.tol);
        let size = next - s;
        if !sizes.contains(&size) {
            sizes.push(size);
        }
        match tracks.last_mut() {
            Some(r) if r.sectors == size && r.first_lbn + r.sectors * r.tracks == s => r.tracks += 1,
            _ => tracks.push(TrackRun { first_lbn: s, sectors: size, tracks: 1 }),
        }
        found += 1;
        s = next;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    // Zero-latency: whole-track reads from sixteen rotational positions.
    let first = tracks.first().map_or(TrackRun { first_lbn: opts.start_lbn, sectors: 64, tracks: 1 }, |r| r.clone());
    let mut whole = Vec::with_capacity(WHOLE_TRACK_PHASES as usize);
    for k in 0..WHOLE_TRACK_PHASES {
        // A busy host delays some completions (by a scheduler's time slice, several
        // milliseconds) and never hastens one: on a noisy target each phase's time is the
        // least of three.
        let mut least = u64::MAX;
        for _ in 0..if noisy { 3 } else { 1 } {
            c.read(first.first_lbn, 1)?;
            c.t.pause(rev * (2 * k + 1) / (2 * WHOLE_TRACK_PHASES));
            least = least.min(c.read(first.first_lbn, first.sectors)?);
        }
        whole.push(least);
    }
    whole.sort_unstable();
    let n = whole.len();
    let full = [whole[0] as f64 / 1e6, whole[n - 1] as f64 / 1e6];
    // Judged on the faster half, for the same reason. Without zero latency the times
    // spread evenly over a revolution, their faster half over half of one.
    let zero_latency = whole[n / 2] - whole[0] < rev / 4;
    // Boundary cost: 64-sector reads around random boundaries of the tracks found.
    let bounds: Vec<u64> = tracks
        .iter()
        .flat_map(|r| (0..r.tracks).map(move |i| r.first_lbn + i * r.sectors))
        .filter(|&b| b >= 96 && b + 96 < sectors)
        .collect();
    let boundary_cost = if opts.boundary_reads > 0 && bounds.len() >= 2 {
        let (mut within, mut across, mut nw, mut na) = (0.0, 0.0, 0u64, 0u64);
        for _ in 0..opts.boundary_reads {
            let b = bounds[below(&mut rng, bounds.len() as u64) as usize];
            let off = below(&mut rng, 160) as i64 - 96; // start 96 sectors before to 63 after
            let start = (b as i64 + off) as u64;
            c.t.pause(below(&mut rng, rev));
            let t = c.read(start, 64)? as f64 / 1e6;
            if off < 0 && off > -64 {
                across += t;
                na += 1;
            } else {
                within += t;
                nw += 1;
            }
        }
        Some(BoundaryCost { reads: opts.boundary_reads, within_ms: within / nw.max(1) as f64, across_ms: across / na.max(1) as f64 })
    } else {
        None
    };
    // Seek curve: the least time over the phases at each distance.
    let mut seek_curve = Vec::new();
    let mut d = first.sectors;
    let base = opts.start_lbn;
    while base + d < sectors {
        let mut best = u64::MAX;
        for k in 0..SEEK_PHASES {
            c.read(base, 1)?;
            c.t.pause(rev * k / SEEK_PHASES);
            best = best.min(c.read(base + d, 1)?);
        }
        seek_curve.push(SeekPoint { distance_sectors: d, min_access_ms: best as f64 / 1e6 });
        if base + d == sectors - 1 {
            break;
        }
        d = (d * 4).min(sectors - 1 - base);
    }
    let reads = c.reads;
    let cache = match cached {
        Some(w) => Some(cache_report(w, first.first_lbn, rev, &mut rng)?),
        None => None,
    };
    Ok(ProbeReport {
        sectors,
        sector_bytes,
        rotation_ms: rev as f64 / 1e6,
        rpm: 60.0e9 / rev as f64,
        pair_tolerance_ms: tolerance_ns as f64 / 1e6,
        noisy_timing: noisy,
        zero_latency,
        full_track_read_ms: full,
        tracks_found: found,
        tracks,
        boundary_cost,
        seek_curve,
        cache,
        reads,
    })
}

/// The cache test, on the drive with its cache on.
fn cache_report<C: Target>(t: &mut C, lbn: u64, rev: u64, rng: &mut ChaCha8Rng) -> Result<CacheReport, ProbeError> {
    let hit = |ns: u64| ns < rev / 4;
    t.read(lbn, 1)?;
    let repeat = t.read(lbn, 1)?;
    t.read(lbn + 64, 8)?;
    t.pause(rev);
    let ahead = t.read(lbn + 72, 8)?;
    let span = t.sectors().saturating_sub(2).max(1);
    let mut hits = 0;
    for _ in 0..20 {
        let x = below(rng, span);
        t.read(x + 1, 1)?;
        if hit(t.read(x, 1)?) {
            hits += 1;
        }
    }
    Ok(CacheReport { repeat_hit: hit(repeat), repeat_ms: repeat as f64 / 1e6, read_ahead: hit(ahead), reverse_pair_hits: f64::from(hits) / 20.0 })
}

#[cfg(test)]
mod tests;
