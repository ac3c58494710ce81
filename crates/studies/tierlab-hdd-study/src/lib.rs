//! The disk studies behind `tierlab hdd`, each from a serde configuration to a report:
//! [`layout`] lists the model's tracks from a block on; [`probe`] characterises a drive by
//! timing reads alone (`tierlab_hdd_probe`), the model's or a real device's through
//! O_DIRECT, and reads catalog figures off what it found; [`track_aligned`] runs the FSU
//! study's workloads (Bonnie, diff, streams) on one disk or a RAID-5, conventional, with a
//! track of read-ahead, and track-aligned (`tierlab_track_aligned`).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tierlab_devices::HddChoice;
use tierlab_engine::SchedulerKind;
use tierlab_hdd::{HddSpec, LbnMapping, Layout};
use tierlab_hdd_probe::{DeviceTarget, ModelTarget, ProbeError, ProbeOptions, ProbeReport, TrackRun};
use tierlab_track_aligned::array::Array;
use tierlab_track_aligned::workloads::{self, Bonnie, Diff, Disk, Scheme, Streams, Target};

/// Why a study could not run. Each names the configuration field at fault first, in
/// backticks, where there is one.
#[derive(Debug, thiserror::Error)]
pub enum HddStudyError {
    /// The drive could not be built from its description.
    #[error(transparent)]
    Device(#[from] anyhow::Error),
    #[error("{parameter}: {problem}")]
    Layout { parameter: String, problem: String },
    #[error("`start`: {start} is beyond the drive's {blocks} blocks")]
    StartBeyond { start: u64, blocks: u64 },
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error("`device.variant`: names one disk's layout; a RAID-5's disks take theirs from `variants`")]
    VariantOfArray,
    #[error("`variants`: lists {given} layouts for a RAID-5 of {disks} disks; expected one per disk")]
    VariantCount { given: usize, disks: usize },
    #[error("`raid5`: {disks} disks: {message}")]
    Raid5 { disks: usize, message: String },
    #[error("`queue`: {0}")]
    Queue(String),
    #[error("{device}: {message}")]
    Disk { device: String, message: String },
    #[error("{0}")]
    Workload(String),
    #[error("{path}: {message}")]
    TracksFile { path: String, message: String },
}

type Result<T, E = HddStudyError> = std::result::Result<T, E>;

/// The model's tracks from `start` on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutConfig {
    #[serde(default)]
    pub device: HddChoice,
    /// First block.
    #[serde(default)]
    pub start: u64,
    /// Tracks to list.
    pub tracks: u64,
}

/// One track of the model's layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Track {
    pub first_lbn: u64,
    pub cylinder: u32,
    pub surface: u32,
    pub sectors: u64,
}

/// The tracks found; serialised as the list of tracks alone (what
/// [`track_boundaries_file`] reads back), the drive's description beside them.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct LayoutReport {
    #[serde(skip)]
    pub drive: String,
    #[serde(skip)]
    pub mapping: LbnMapping,
    #[serde(skip)]
    pub surfaces: u32,
    pub tracks: Vec<Track>,
}

/// Lists the tracks of the configured drive's model.
pub fn layout(cfg: &LayoutConfig) -> Result<LayoutReport> {
    let spec = tierlab_devices::hdd_spec(&cfg.device)?;
    let tracks = tracks_of(&spec, cfg.start, cfg.tracks)?;
    Ok(LayoutReport { drive: spec.name.clone(), mapping: spec.mapping, surfaces: spec.surfaces, tracks })
}

fn tracks_of(spec: &HddSpec, start: u64, count: u64) -> Result<Vec<Track>> {
    let layout = Layout::new(spec).map_err(|e| HddStudyError::Layout { parameter: e.parameter.to_string(), problem: e.problem.to_string() })?;
    // The drive's capacity: its zones may map more blocks than it exposes.
    let blocks = spec.block_count.min(layout.blocks());
    if start >= blocks {
        return Err(HddStudyError::StartBeyond { start, blocks });
    }
    let mut out: Vec<Track> = Vec::new();
    let mut lbn = start;
    while (out.len() as u64) < count && lbn < blocks {
        let Some(p) = layout.lbn_to_pbn(lbn) else { break };
        // The track ends where the surface or cylinder changes: step by the track's size.
        let spt = u64::from(layout.sectors_per_track(lbn));
        let mut end = (lbn + spt - u64::from(p.sector)).min(blocks);
        while end > lbn + 1 && layout.lbn_to_pbn(end - 1).is_none_or(|q| (q.cylinder, q.surface) != (p.cylinder, p.surface)) {
            end -= 1;
        }
        out.push(Track { first_lbn: lbn, cylinder: p.cylinder, surface: p.surface, sectors: end - lbn });
        lbn = end;
    }
    Ok(out)
}

/// What a probe times: the configured drive's model, or a real device or file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum ProbeTarget {
    Model(HddChoice),
    /// Read only, with O_DIRECT; its read cache must be off.
    Device { path: PathBuf, sector_bytes: u64 },
}

/// One probe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeConfig {
    pub target: ProbeTarget,
    /// First block of the range whose tracks are found (a track's first block).
    #[serde(default)]
    pub start: u64,
    /// Tracks to find; `None`: every track of the device.
    #[serde(default)]
    pub tracks: Option<u64>,
    /// 64-sector reads around boundaries for the crossing cost (0: skip).
    pub boundary_reads: u64,
    pub seed: u64,
}

/// What a probe found, and the catalog figures read off it.
#[derive(Clone, Debug, Serialize)]
pub struct Probed {
    pub target: String,
    #[serde(flatten)]
    pub report: ProbeReport,
    /// Figures for a catalog entry, read off the probe (estimates: see docs/tracks.md).
    pub catalog_hint: CatalogHint,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CatalogHint {
    pub rpm: f64,
    pub zero_latency_read: bool,
    pub layout: Option<LayoutHint>,
}

/// What a catalog entry's `[layout]` would say, read off the tracks found: surface
/// serpentine when the first band's surfaces differ in size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayoutHint {
    pub mapping: &'static str,
    pub band_cylinders: u64,
    pub surface_outer_sectors: Vec<u64>,
}

/// Probes the configured target.
pub fn probe(cfg: &ProbeConfig) -> Result<Probed> {
    let opts = ProbeOptions { start_lbn: cfg.start, max_tracks: cfg.tracks, boundary_reads: cfg.boundary_reads, seed: cfg.seed };
    let (target, report) = match &cfg.target {
        ProbeTarget::Device { path, sector_bytes } => {
            let mut t = DeviceTarget::open(path, *sector_bytes)?;
            (path.display().to_string(), tierlab_hdd_probe::probe::<_, DeviceTarget>(&mut t, None, &opts)?)
        }
        ProbeTarget::Model(choice) => {
            let spec = tierlab_devices::hdd_spec(choice)?;
            let name = spec.name.clone();
            let mut off = ModelTarget::new(spec.clone(), false)?;
            let mut on = ModelTarget::new(spec, true)?;
            (format!("model {name}"), tierlab_hdd_probe::probe(&mut off, Some(&mut on), &opts)?)
        }
    };
    let catalog_hint = CatalogHint { rpm: report.rpm, zero_latency_read: report.zero_latency, layout: layout_hint(&report.tracks) };
    Ok(Probed { target, report, catalog_hint })
}

fn layout_hint(runs: &[TrackRun]) -> Option<LayoutHint> {
    // Surface serpentine: a first run of one band, then runs of two bands (the last surface
    // of a band and the first of the next are the same surface) of other sizes.
    let band = runs.first()?.tracks;
    let mut sizes = vec![runs[0].sectors];
    for r in &runs[1..] {
        if sizes.contains(&r.sectors) {
            break;
        }
        sizes.push(r.sectors);
        if r.tracks == 2 * band {
            break;
        }
    }
    (sizes.len() >= 2 && runs.get(1).is_some_and(|r| r.tracks == band || r.tracks == 2 * band))
        .then_some(LayoutHint { mapping: "surface_serpentine", band_cylinders: band, surface_outer_sectors: sizes })
}

/// Track boundaries in bytes (each track's first byte, then the end of the last) from the
/// file of `tierlab hdd probe --json` or `tierlab hdd layout --json`.
pub fn track_boundaries_file(path: &Path) -> Result<Vec<u64>> {
    let err = |message: String| HddStudyError::TracksFile { path: path.display().to_string(), message };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    tierlab_hdd_probe::tracks_file::track_boundaries_bytes(&text).map_err(|e| err(e.to_string()))
}

/// Track-aligned extents under the FSU study's workloads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackAlignedConfig {
    /// The drive (each RAID-5 disk's layout variant comes from `variants`).
    #[serde(default)]
    pub device: HddChoice,
    /// Bonnie's file, MB (10^6 bytes).
    pub bonnie_mb: u64,
    /// Each of diff's two files, MB.
    pub diff_mb: u64,
    /// Streams to start, one a second; `None`: 160 on one disk, 120 per disk on a RAID-5.
    #[serde(default)]
    pub streams: Option<u32>,
    /// Each stream's rate, KB/s (10^3 bytes).
    pub stream_kb_s: f64,
    /// Seed of the streams' positions.
    pub seed: u64,
    /// The drive continues its read-ahead for a sequential request that arrives at its
    /// front, as a streaming drive does (otherwise DiskSim's semantics).
    #[serde(default)]
    pub streaming_read_ahead: bool,
    /// Run on a RAID-5 of this many disks rather than one disk.
    #[serde(default)]
    pub raid5: Option<usize>,
    /// The RAID-5's chunk (stripe unit), bytes.
    pub chunk_bytes: u64,
    /// The RAID-5's disks' layout variants, `base` for the drive's own; empty: the drive's
    /// layout, then each variant its catalog entry lists, in turn.
    #[serde(default)]
    pub variants: Vec<String>,
    /// Each disk's queue discipline (`tierlab_engine::SchedulerKind`'s names).
    pub queue: String,
}

impl TrackAlignedConfig {
    /// The FSU study's settings on `device`: 1,000 MB for Bonnie, two 512 MB files for
    /// diff, 500 KB/s streams, one disk, the host's elevator.
    pub fn new(device: HddChoice) -> Self {
        TrackAlignedConfig {
            device,
            bonnie_mb: 1000,
            diff_mb: 512,
            streams: None,
            stream_kb_s: 500.0,
            seed: 1,
            streaming_read_ahead: false,
            raid5: None,
            chunk_bytes: tierlab_track_aligned::array::FSU_CHUNK_BYTES,
            variants: Vec::new(),
            queue: workloads::QUEUE.to_string(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TrackAlignedReport {
    pub device: String,
    /// The disks' queue discipline.
    pub queue: String,
    /// The RAID-5, when the run is on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raid5: Option<Raid5Report>,
    /// Tracks of the single disk's conventional layout (not reported for a RAID-5).
    #[serde(skip)]
    pub tracks: usize,
    /// One entry per scheme, in [`Scheme::ALL`]'s order.
    pub bonnie: Vec<Bonnie>,
    pub diff: Vec<Diff>,
    pub streams: Vec<Streams>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Raid5Report {
    pub disks: usize,
    pub chunk_bytes: u64,
    /// Each disk's layout variant (`base`: the drive's own).
    pub variants: Vec<String>,
    /// Logical bytes, conventional and track-aligned.
    pub capacity_bytes: u64,
    pub aligned_capacity_bytes: u64,
    /// The share of the disks' sectors the track-aligned layout leaves unused.
    pub aligned_unused_fraction: f64,
}

/// The RAID-5's disks: `variants` (or the drive's own layout and its variants in turn).
fn raid5(cfg: &TrackAlignedConfig, disks: usize) -> Result<(Array, Raid5Report)> {
    let choice = &cfg.device;
    if choice.variant.is_some() {
        return Err(HddStudyError::VariantOfArray);
    }
    let names: Vec<String> = if cfg.variants.is_empty() {
        let cycle: Vec<String> = std::iter::once("base".to_string()).chain(tierlab_devices::hdd_variants(choice)?).collect();
        (0..disks).map(|i| cycle[i % cycle.len()].clone()).collect()
    } else if cfg.variants.len() == disks {
        cfg.variants.iter().map(|v| v.trim().to_string()).collect()
    } else {
        return Err(HddStudyError::VariantCount { given: cfg.variants.len(), disks });
    };
    let mut specs = Vec::with_capacity(disks);
    for v in &names {
        let mut c = choice.clone();
        c.variant = (v != "base").then(|| v.clone());
        let mut spec = tierlab_devices::hdd_spec(&c)?;
        spec.cache.read_ahead_continues = cfg.streaming_read_ahead;
        specs.push(spec);
    }
    let array = Array::raid5(specs, cfg.chunk_bytes).map_err(|message| HddStudyError::Raid5 { disks, message })?;
    let (capacity_bytes, aligned_capacity_bytes) = array.capacity_bytes();
    let report = Raid5Report { disks, chunk_bytes: cfg.chunk_bytes, variants: names, capacity_bytes, aligned_capacity_bytes, aligned_unused_fraction: array.unused_fraction() };
    Ok((array, report))
}

/// Runs Bonnie, diff and the streams under each scheme; `progress(scheme, runs_done)`
/// hears as each scheme starts and each run ends (three runs a scheme).
pub fn track_aligned(cfg: &TrackAlignedConfig, progress: &mut dyn FnMut(&str, u64)) -> Result<TrackAlignedReport> {
    let queue: SchedulerKind = cfg.queue.parse().map_err(HddStudyError::Queue)?;
    let mut spec = tierlab_devices::hdd_spec(&cfg.device)?;
    spec.cache.read_ahead_continues = cfg.streaming_read_ahead;
    let device = spec.name.clone();
    let (target, raid5_report): (Box<dyn Target>, Option<Raid5Report>) = match cfg.raid5 {
        Some(disks) => {
            let (array, r) = raid5(cfg, disks)?;
            (Box::new(array.with_queue(queue)), Some(r))
        }
        None => (Box::new(Disk::new(spec).map_err(|message| HddStudyError::Disk { device: device.clone(), message })?.with_queue(queue)), None),
    };
    let streams = cfg.streams.unwrap_or(match cfg.raid5 {
        Some(disks) => 120 * disks as u32,
        None => 160,
    });
    let tracks = if cfg.raid5.is_some() { 0 } else { target.tracks(Scheme::Conventional).count() };
    let mut report = TrackAlignedReport { device, queue: queue.to_string(), raid5: raid5_report, tracks, bonnie: Vec::new(), diff: Vec::new(), streams: Vec::new() };
    let mut done = 0;
    for scheme in Scheme::ALL {
        let name = scheme_name(scheme);
        progress(name, done);
        report.bonnie.push(workloads::bonnie(target.as_ref(), scheme, cfg.bonnie_mb * 1_000_000).map_err(HddStudyError::Workload)?);
        done += 1;
        progress(name, done);
        report.diff.push(workloads::diff(target.as_ref(), scheme, cfg.diff_mb * 1_000_000).map_err(HddStudyError::Workload)?);
        done += 1;
        progress(name, done);
        report.streams.push(workloads::streams(target.as_ref(), scheme, cfg.stream_kb_s * 1000.0, streams, cfg.seed).map_err(HddStudyError::Workload)?);
        done += 1;
        progress(name, done);
    }
    Ok(report)
}

/// A scheme's name, as reports spell it.
pub fn scheme_name(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::Conventional => "conventional",
        Scheme::OneTrackReadAhead => "one-track-read-ahead",
        Scheme::TrackAligned => "track-aligned",
    }
}

#[cfg(test)]
mod tests;
