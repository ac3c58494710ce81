//! `tierlab hdd`: a disk's geometry as the model lays it out, and a drive characterised by
//! timing it (`tierlab_hdd_probe`): the model's, or a real device's through O_DIRECT.

use crate::devices::DeviceChoice;
use crate::progress::write_json;
use anyhow::{anyhow, Result};
use clap::{Args, Subcommand};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tierlab_hdd::{HddSpec, Layout};
use tierlab_hdd_probe::{DeviceTarget, ModelTarget, ProbeOptions, ProbeReport, TrackRun};
use tierlab_report::Table;
use tierlab_track_aligned::array::Array;
use tierlab_track_aligned::workloads::{self, Bonnie, Diff, Disk, Scheme, Streams, Target};

#[derive(Subcommand)]
pub enum HddCommand {
    /// The model's tracks from a block on: first block, cylinder, surface and size of each
    /// (runs of equal tracks), as the layout maps them.
    Layout(LayoutArgs),
    /// Characterise a drive by timing reads alone: rotation period, track boundaries,
    /// zero-latency access, the cost of crossing a boundary, a seek curve and the cache.
    /// `--path` probes a real device or file with O_DIRECT (its read cache must be off:
    /// `sdparm --set RCD=1`); otherwise the chosen model is probed.
    Probe(ProbeArgs),
    /// Track-aligned extents on one disk, or a track-aligned RAID-5 (`--raid5`), under the
    /// FSU study's workloads: Bonnie's sequential write and read, diff of two files, and
    /// multimedia streams added one a second; conventional, with a read-ahead of a track
    /// per data disk, and track-aligned. A release build takes a few seconds on one disk and
    /// about 30 s on `--raid5 5` (about 170 s with `--queue sptf`).
    TrackAligned(TrackAlignedArgs),
}

#[derive(Args)]
pub struct TrackAlignedArgs {
    #[command(flatten)]
    pub device: DeviceChoice,
    /// Bonnie's file, MB (10^6 bytes).
    #[arg(long, default_value_t = 1000)]
    pub bonnie_mb: u64,
    /// Each of diff's two files, MB.
    #[arg(long, default_value_t = 512)]
    pub diff_mb: u64,
    /// Streams to start, one a second (default: 160 on one disk, 120 per disk on a RAID-5).
    #[arg(long)]
    pub streams: Option<u32>,
    /// Each stream's rate, KB/s (10^3 bytes).
    #[arg(long, default_value_t = 500.0)]
    pub stream_kb_s: f64,
    /// Seed of the streams' positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The drive continues its read-ahead for a sequential request that arrives at its
    /// front, as a streaming drive does (default: DiskSim's semantics, under which such a
    /// request loses most of a revolution; see docs/tracks.md).
    #[arg(long)]
    pub streaming_read_ahead: bool,
    /// Run on a RAID-5 of this many disks (the paper's five) rather than one disk. The
    /// track-aligned array lays tracks common to the disks (each the smallest of the
    /// disks' tracks at that place) and reads parity chunks to keep reads whole.
    #[arg(long, value_name = "DISKS")]
    pub raid5: Option<usize>,
    /// The RAID-5's chunk (stripe unit), bytes: the paper's 4 KB, in both layouts.
    #[arg(long, default_value_t = tierlab_track_aligned::array::FSU_CHUNK_BYTES)]
    pub chunk_bytes: u64,
    /// The RAID-5's disks' layout variants, comma-separated, `base` for the drive's own
    /// (default: the drive's layout, then each variant its catalog entry lists, in turn).
    #[arg(long, value_delimiter = ',', requires = "raid5")]
    pub variants: Vec<String>,
    /// Each disk's queue: clook-lba (the host's elevator, the default), sptf (the drive's
    /// command queue choosing among the 32 oldest), clook-lba+sptf (the elevator feeding
    /// the drive's queue), or fcfs, sstf, clook.
    #[arg(long, value_name = "NAME", default_value_t = tierlab_track_aligned::workloads::QUEUE)]
    pub queue: tierlab_engine::SchedulerKind,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct LayoutArgs {
    #[command(flatten)]
    pub device: DeviceChoice,
    /// First block.
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// Tracks to list.
    #[arg(long, default_value_t = 128)]
    pub tracks: u64,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub device: DeviceChoice,
    /// A real block device or file to probe (read only, O_DIRECT) instead of a model.
    #[arg(long, value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Logical sector size of --path.
    #[arg(long, default_value_t = 512)]
    pub sector_bytes: u64,
    /// First block of the range whose tracks are found (a track's first block).
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// Tracks to find (default: every track of the device).
    #[arg(long)]
    pub tracks: Option<u64>,
    /// 64-sector reads around boundaries for the crossing cost (0: skip).
    #[arg(long, default_value_t = 2000)]
    pub boundary_reads: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: HddCommand) -> Result<()> {
    match cmd {
        HddCommand::Layout(a) => layout(a),
        HddCommand::Probe(a) => probe(a),
        HddCommand::TrackAligned(a) => track_aligned(a),
    }
}

#[derive(Serialize)]
struct TrackAlignedReport {
    device: String,
    /// The disks' queue discipline.
    queue: String,
    /// The RAID-5, when the run is on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    raid5: Option<Raid5Report>,
    bonnie: Vec<Bonnie>,
    diff: Vec<Diff>,
    streams: Vec<Streams>,
}

#[derive(Serialize)]
struct Raid5Report {
    disks: usize,
    chunk_bytes: u64,
    /// Each disk's layout variant (`base`: the drive's own).
    variants: Vec<String>,
    /// Logical bytes, conventional and track-aligned.
    capacity_bytes: u64,
    aligned_capacity_bytes: u64,
    /// The share of the disks' sectors the track-aligned layout leaves unused.
    aligned_unused_fraction: f64,
}

/// The RAID-5's disks: `variants` (or the drive's own layout and its variants in turn).
fn raid5(a: &TrackAlignedArgs, disks: usize) -> Result<(Array, Raid5Report)> {
    let choice = a.device.choice();
    if choice.variant.is_some() {
        return Err(anyhow!("--hdd-variant names one disk's layout; a RAID-5's disks take theirs from --variants"));
    }
    let names: Vec<String> = if a.variants.is_empty() {
        let cycle: Vec<String> = std::iter::once("base".to_string()).chain(tierlab_devices::hdd_variants(&choice)?).collect();
        (0..disks).map(|i| cycle[i % cycle.len()].clone()).collect()
    } else if a.variants.len() == disks {
        a.variants.iter().map(|v| v.trim().to_string()).collect()
    } else {
        return Err(anyhow!("--variants lists {} layouts for --raid5 {disks} disks: give one per disk", a.variants.len()));
    };
    let mut specs = Vec::with_capacity(disks);
    for v in &names {
        let mut c = choice.clone();
        c.variant = (v != "base").then(|| v.clone());
        let mut spec = tierlab_devices::hdd_spec(&c)?;
        spec.cache.read_ahead_continues = a.streaming_read_ahead;
        specs.push(spec);
    }
    let array = Array::raid5(specs, a.chunk_bytes).map_err(|e| anyhow!("--raid5 {disks}: {e}"))?;
    let (capacity_bytes, aligned_capacity_bytes) = array.capacity_bytes();
    let report = Raid5Report { disks, chunk_bytes: a.chunk_bytes, variants: names, capacity_bytes, aligned_capacity_bytes, aligned_unused_fraction: array.unused_fraction() };
    Ok((array, report))
}

fn track_aligned(a: TrackAlignedArgs) -> Result<()> {
    let mut spec = tierlab_devices::hdd_spec(&a.device.choice())?;
    spec.cache.read_ahead_continues = a.streaming_read_ahead;
    let device = spec.name.clone();
    let (target, raid5_report): (Box<dyn Target>, Option<Raid5Report>) = match a.raid5 {
        Some(disks) => {
            let (array, r) = raid5(&a, disks)?;
            (Box::new(array.with_queue(a.queue)), Some(r))
        }
        None => (Box::new(Disk::new(spec).map_err(|e| anyhow!("{device}: {e}"))?.with_queue(a.queue)), None),
    };
    let streams = a.streams.unwrap_or(match a.raid5 {
        Some(disks) => 120 * disks as u32,
        None => 160,
    });
    let bar = crate::progress::runs_bar(Scheme::ALL.len() * 3);
    let mut report = TrackAlignedReport { device, queue: a.queue.to_string(), raid5: raid5_report, bonnie: Vec::new(), diff: Vec::new(), streams: Vec::new() };
    for scheme in Scheme::ALL {
        bar.set_message(serde_json::to_value(scheme).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default());
        report.bonnie.push(workloads::bonnie(target.as_ref(), scheme, a.bonnie_mb * 1_000_000).map_err(|e| anyhow!(e))?);
        bar.inc(1);
        report.diff.push(workloads::diff(target.as_ref(), scheme, a.diff_mb * 1_000_000).map_err(|e| anyhow!(e))?);
        bar.inc(1);
        report.streams.push(workloads::streams(target.as_ref(), scheme, a.stream_kb_s * 1000.0, streams, a.seed).map_err(|e| anyhow!(e))?);
        bar.inc(1);
    }
    crate::progress::finish(&bar, "hdd track-aligned");
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &report);
    }
    let change = |v: f64, base: f64| format!("{:+.1} %", (v / base - 1.0) * 100.0);
    let read_ahead = match &report.raid5 {
        Some(r) => {
            let variants = r.variants.join(", ");
            let unused = r.aligned_unused_fraction * 100.0;
            writeln!(out, "{}: RAID-5 of {} disks ({variants}), {}-byte chunks; track-aligned: {unused:.1} % of the sectors unused", report.device, r.disks, r.chunk_bytes)?;
            format!("{}-track read-ahead", r.disks - 1)
        }
        None => {
            writeln!(out, "{}: {} tracks", report.device, target.tracks(Scheme::Conventional).count())?;
            "one-track read-ahead".to_string()
        }
    };
    let mut t = Table::new(["workload", "conventional", read_ahead.as_str(), "track-aligned", "track-aligned vs conventional"]);
    let row = |name: &str, v: [f64; 3], unit: &str| {
        [name.to_string(), format!("{:.2} {unit}", v[0]), format!("{:.2} {unit}", v[1]), format!("{:.2} {unit}", v[2]), change(v[2], v[0])]
    };
    let b = &report.bonnie;
    t.row(row("Bonnie write", [b[0].write_mb_s, b[1].write_mb_s, b[2].write_mb_s], "MB/s"));
    t.row(row("Bonnie read", [b[0].read_mb_s, b[1].read_mb_s, b[2].read_mb_s], "MB/s"));
    let d = &report.diff;
    t.row(row("diff", [d[0].seconds, d[1].seconds, d[2].seconds], "s"));
    let st = &report.streams;
    let supported = |k: usize| st[k].supported as f64;
    t.row(row(&format!("streams within {} s", st[0].limit_s), [supported(0), supported(1), supported(2)], ""));
    let mut at = vec![st[0].supported.max(6), 130];
    at.dedup();
    for n in at {
        if let [Some(x), Some(y), Some(z)] = [st[0].around(n), st[1].around(n), st[2].around(n)] {
            t.row(row(&format!("start-up around stream {n}"), [x, y, z], "s"));
        }
    }
    write!(out, "{}", t.render())?;
    Ok(())
}

/// One track of the model's layout.
#[derive(Serialize)]
struct Track {
    first_lbn: u64,
    cylinder: u32,
    surface: u32,
    sectors: u64,
}

fn tracks_of(spec: &HddSpec, start: u64, count: u64) -> Result<Vec<Track>> {
    let layout = Layout::new(spec).map_err(|e| anyhow!("{}: {}", e.parameter, e.problem))?;
    // The drive's capacity: its zones may map more blocks than it exposes.
    let blocks = spec.block_count.min(layout.blocks());
    if start >= blocks {
        return Err(anyhow!("--start {start} is beyond the drive's {blocks} blocks"));
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

fn layout(a: LayoutArgs) -> Result<()> {
    let spec = tierlab_devices::hdd_spec(&a.device.choice())?;
    let tracks = tracks_of(&spec, a.start, a.tracks)?;
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &tracks);
    }
    let mut t = Table::new(["first block", "tracks", "cylinders", "surface", "sectors"]);
    let mut i = 0;
    while i < tracks.len() {
        let first = &tracks[i];
        let mut j = i + 1;
        while j < tracks.len() && tracks[j].surface == first.surface && tracks[j].sectors == first.sectors {
            j += 1;
        }
        let last = &tracks[j - 1];
        t.row([first.first_lbn.to_string(), (j - i).to_string(), format!("{}–{}", first.cylinder, last.cylinder), first.surface.to_string(), first.sectors.to_string()]);
        i = j;
    }
    writeln!(out, "{}: {}, {} surfaces", spec.name, numbering(&spec.mapping), spec.surfaces)?;
    write!(out, "{}", t.render())?;
    Ok(())
}

/// How a drive numbers its blocks, in words.
fn numbering(m: &tierlab_hdd::LbnMapping) -> String {
    use tierlab_hdd::LbnMapping::*;
    match m {
        Conventional => "conventional numbering (every surface of a cylinder, then the next cylinder)".into(),
        SerpentinePerZone => "serpentine numbering (odd cylinders of each zone from the last surface down)".into(),
        SerpentineGlobal => "serpentine numbering (odd cylinders from the last surface down)".into(),
        SurfaceSerpentine { band_cylinders } => format!("surface serpentine numbering (one surface at a time in bands of {band_cylinders} cylinders)"),
    }
}

/// What a catalog entry's `[layout]` would say, read off the tracks found: surface
/// serpentine when the first band's surfaces differ in size.
#[derive(Serialize)]
struct LayoutHint {
    mapping: &'static str,
    band_cylinders: u64,
    surface_outer_sectors: Vec<u64>,
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

#[derive(Serialize)]
struct Probed<'a> {
    target: String,
    #[serde(flatten)]
    report: &'a ProbeReport,
    /// Figures for a catalog entry, read off the probe (estimates: see docs/tracks.md).
    catalog_hint: CatalogHint,
}

#[derive(Serialize)]
struct CatalogHint {
    rpm: f64,
    zero_latency_read: bool,
    layout: Option<LayoutHint>,
}

fn probe(a: ProbeArgs) -> Result<()> {
    let opts = ProbeOptions { start_lbn: a.start, max_tracks: a.tracks, boundary_reads: a.boundary_reads, seed: a.seed };
    let bar = crate::progress::requests_bar("probing");
    let (target, report) = match &a.path {
        Some(path) => {
            let mut t = DeviceTarget::open(path, a.sector_bytes)?;
            (path.display().to_string(), tierlab_hdd_probe::probe::<_, DeviceTarget>(&mut t, None, &opts)?)
        }
        None => {
            let spec = tierlab_devices::hdd_spec(&a.device.choice())?;
            let name = spec.name.clone();
            let mut off = ModelTarget::new(spec.clone(), false)?;
            let mut on = ModelTarget::new(spec, true)?;
            (format!("model {name}"), tierlab_hdd_probe::probe(&mut off, Some(&mut on), &opts)?)
        }
    };
    crate::progress::finish(&bar, "hdd probe");
    let hint = CatalogHint { rpm: report.rpm, zero_latency_read: report.zero_latency, layout: layout_hint(&report.tracks) };
    let mut out = crate::session::stdout();
    if a.json {
        return write_json(&mut out, &Probed { target, report: &report, catalog_hint: hint });
    }
    writeln!(out, "{target}: {} sectors of {} bytes, {} reads", report.sectors, report.sector_bytes, report.reads)?;
    writeln!(out, "rotation    {:.4} ms ({:.0} rpm)", report.rotation_ms, report.rpm)?;
    if report.noisy_timing {
        writeln!(out, "timing      noisy: pair times within {:.3} ms taken as equal, the others timed five times", report.pair_tolerance_ms)?;
    }
    writeln!(
        out,
        "zero-latency {} (whole-track reads {:.3}–{:.3} ms)",
        if report.zero_latency { "yes" } else { "no" },
        report.full_track_read_ms[0],
        report.full_track_read_ms[1]
    )?;
    if let Some(c) = &report.boundary_cost {
        writeln!(out, "64 sectors  {:.3} ms within a track, {:.3} ms across a boundary ({} reads)", c.within_ms, c.across_ms, c.reads)?;
    }
    writeln!(out, "\ntracks found: {}", report.tracks_found)?;
    let mut t = Table::new(["first block", "tracks", "sectors"]);
    for r in report.tracks.iter().take(24) {
        t.row([r.first_lbn.to_string(), r.tracks.to_string(), r.sectors.to_string()]);
    }
    write!(out, "{}", t.render())?;
    if report.tracks.len() > 24 {
        writeln!(out, "… {} more runs (--json lists them all)", report.tracks.len() - 24)?;
    }
    let mut t = Table::new(["seek distance (sectors)", "least access (ms)"]);
    for p in &report.seek_curve {
        t.row([p.distance_sectors.to_string(), format!("{:.3}", p.min_access_ms)]);
    }
    write!(out, "\n{}", t.render())?;
    if let Some(c) = &report.cache {
        writeln!(
            out,
            "\ncache: repeated read {} ({:.3} ms), read-ahead {}, reverse pairs from cache {:.0} %",
            if c.repeat_hit { "hit" } else { "miss" },
            c.repeat_ms,
            if c.read_ahead { "yes" } else { "no" },
            c.reverse_pair_hits * 100.0
        )?;
    }
    Ok(())
}

/// Track boundaries in bytes (each track's first byte, then the end of the last) from the
/// file of `tierlab hdd probe --json` or `tierlab hdd layout --json`.
pub fn track_boundaries_file(path: &std::path::Path) -> Result<Vec<u64>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    tierlab_hdd_probe::tracks_file::track_boundaries_bytes(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
}
