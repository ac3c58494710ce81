//! `tierlab hdd`: a disk's geometry as the model lays it out, a drive characterised by
//! timing it (the model's, or a real device's through O_DIRECT), and track-aligned extents
//! under the FSU study's workloads. The studies are `tierlab_hdd_study`'s and their text
//! `tierlab_render::hdd`'s; this module turns flags into their configurations.

use tierlab_commands::devices::DeviceChoice;
use tierlab_commands::progress::write_json;
use anyhow::{anyhow, Result};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use tierlab_hdd_study::{HddStudyError, LayoutConfig, ProbeConfig, ProbeTarget, TrackAlignedConfig};
use tierlab_render::hdd::{render_layout, render_probe, render_track_aligned};

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

/// A study's error in the words of the flags that set the field at fault.
fn blame(e: HddStudyError) -> anyhow::Error {
    use HddStudyError as E;
    match e {
        E::StartBeyond { start, blocks } => anyhow!("--start {start} is beyond the drive's {blocks} blocks"),
        E::VariantOfArray => anyhow!("--hdd-variant names one disk's layout; a RAID-5's disks take theirs from --variants"),
        E::VariantCount { given, disks } => anyhow!("--variants lists {given} layouts for --raid5 {disks} disks: give one per disk"),
        E::Raid5 { disks, message } => anyhow!("--raid5 {disks}: {message}"),
        E::Device(e) => e,
        e => e.into(),
    }
}

fn track_aligned(a: TrackAlignedArgs) -> Result<()> {
    let cfg = TrackAlignedConfig {
        device: a.device.choice(),
        bonnie_mb: a.bonnie_mb,
        diff_mb: a.diff_mb,
        streams: a.streams,
        stream_kb_s: a.stream_kb_s,
        seed: a.seed,
        streaming_read_ahead: a.streaming_read_ahead,
        raid5: a.raid5,
        chunk_bytes: a.chunk_bytes,
        variants: a.variants.clone(),
        queue: a.queue.to_string(),
    };
    let bar = tierlab_commands::progress::runs_bar(tierlab_track_aligned::workloads::Scheme::ALL.len() * 3);
    let report = tierlab_hdd_study::track_aligned(&cfg, &mut |scheme, done| {
        bar.set_message(scheme.to_string());
        bar.set_position(done);
    });
    // A study refused or failed leaves no summary.
    let report = report.map_err(blame)?;
    tierlab_commands::progress::finish(&bar, "hdd track-aligned");
    let mut out = tierlab_commands::session::stdout();
    if a.json {
        return write_json(&mut out, &report);
    }
    write!(out, "{}", render_track_aligned(&report))?;
    Ok(())
}

fn layout(a: LayoutArgs) -> Result<()> {
    let report = tierlab_hdd_study::layout(&LayoutConfig { device: a.device.choice(), start: a.start, tracks: a.tracks }).map_err(blame)?;
    let mut out = tierlab_commands::session::stdout();
    if a.json {
        return write_json(&mut out, &report);
    }
    write!(out, "{}", render_layout(&report))?;
    Ok(())
}

fn probe(a: ProbeArgs) -> Result<()> {
    let target = match &a.path {
        Some(path) => ProbeTarget::Device { path: path.clone(), sector_bytes: a.sector_bytes },
        None => ProbeTarget::Model(a.device.choice()),
    };
    let cfg = ProbeConfig { target, start: a.start, tracks: a.tracks, boundary_reads: a.boundary_reads, seed: a.seed };
    let bar = tierlab_commands::progress::requests_bar("probing");
    let probed = tierlab_hdd_study::probe(&cfg);
    let probed = probed.map_err(blame)?;
    tierlab_commands::progress::finish(&bar, "hdd probe");
    let mut out = tierlab_commands::session::stdout();
    if a.json {
        return write_json(&mut out, &probed);
    }
    write!(out, "{}", render_probe(&probed))?;
    Ok(())
}
