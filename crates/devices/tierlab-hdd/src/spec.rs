//! `HddSpec`: the plain-data description of one disk drive (geometry, layout, mechanics,
//! firmware overheads, on-board cache) and its validation. Times in a spec are
//! milliseconds (`_ms`, `f64`) because that is how drive descriptions and datasheets give
//! them; the timing model converts them to nanoseconds once.

use serde::{Deserialize, Serialize};

/// An impossible or unsupported value in a spec, naming the parameter at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid drive spec: `{parameter}`: {problem}")]
pub struct SpecError {
    /// The parameter at fault, e.g. `zones[3].blocks_per_track`.
    pub parameter: String,
    /// What is wrong and what was expected.
    pub problem: String,
}

impl SpecError {
    pub fn new(parameter: impl Into<String>, problem: impl Into<String>) -> Self {
        SpecError { parameter: parameter.into(), problem: problem.into() }
    }
}

/// How logical blocks advance across the tracks of consecutive cylinders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LbnMapping {
    /// Surface 0..n-1 on every cylinder, then the next cylinder.
    Conventional,
    /// Serpentine: odd cylinders (counted from the first cylinder of each zone) run from the
    /// last surface down, so a cylinder switch needs no head switch (DiskSim scheme 1).
    SerpentinePerZone,
    /// Serpentine by absolute cylinder parity (DiskSim scheme 2).
    SerpentineGlobal,
    /// Surface serpentine, as measured on Maxtor, Seagate and Fujitsu drives (Qian, Meyers
    /// and Wang, FSU, Figure 2): each zone is cut into bands of `band_cylinders`
    /// cylinders (counted from the zone's first); a band is filled one surface at a time,
    /// surfaces in order 0, 1, … on even bands and in reverse on odd ones, the first
    /// surface of a band outward (from the band's highest cylinder down), the next inward,
    /// and so on alternately. A track switch inside a surface's run is a one-cylinder
    /// seek; a switch of surface stays on the cylinder. Surfaces may hold different
    /// numbers of sectors per track (`ZoneSpec::surface_blocks_per_track`). No sparing.
    SurfaceSerpentine { band_cylinders: u32 },
}

/// Where spare space lies and how slipped sectors consume it.
///
/// A *region* is the unit that owns spares; slips (defective sectors skipped at
/// format time) inside a region shift the following blocks of that region by one
/// physical sector and consume one of its spares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Sparing {
    /// No spare space; slips are not allowed.
    None,
    /// `spares` whole tracks at the end of each zone; slips are zone-relative track numbers.
    TracksPerZone,
    /// `spares` sectors at the end of each track.
    SectorsPerTrack,
    /// `spares` sectors at the end of each cylinder.
    SectorsPerCylinder,
    /// `spares` sectors at the end of each range of `range_cylinders` cylinders (a last,
    /// partial range has no spares).
    SectorsPerRange { range_cylinders: u32 },
    /// `spares` sectors at the end of each zone.
    SectorsPerZone,
}

/// One zone (band) of cylinders with the same number of sectors per track.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneSpec {
    pub first_cylinder: u32,
    /// Inclusive.
    pub last_cylinder: u32,
    pub blocks_per_track: u32,
    /// Angular offset of the zone's first block, in sectors of this zone.
    pub first_block_offset_sectors: f64,
    /// Blocks reserved at the front of the zone (not mapped to logical blocks).
    pub reserved_front_blocks: u64,
    /// Rotational skew added at each track (head) switch, in sectors.
    pub track_skew_sectors: f64,
    /// Rotational skew added at each cylinder switch, in sectors.
    pub cylinder_skew_sectors: f64,
    /// Spare sectors (or tracks, for `Sparing::TracksPerZone`) per sparing region.
    pub spares: u64,
    /// Slipped physical sectors (tracks for `TracksPerZone`), counted from the zone start.
    pub slips: Vec<u64>,
    /// Remapped defects: (defective physical sector, spare physical sector), zone-relative.
    pub defects: Vec<(u64, u64)>,
    /// Sectors per track of each surface, where surfaces differ (heads of lower frequency
    /// response are formatted with fewer sectors); empty: `blocks_per_track` on every
    /// surface. Only with `LbnMapping::SurfaceSerpentine`; skews stay in sectors of
    /// `blocks_per_track`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surface_blocks_per_track: Vec<u32>,
}

/// How seek time depends on seek distance (in cylinders).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SeekModel {
    /// Measured (distance, time) points, linearly interpolated (and extrapolated from the
    /// last two points beyond the end). Distances strictly increasing, the first one ≥ 1.
    Table { points: Vec<(u32, f64)> },
    /// Datasheet figures fitted to `t(d) = a + b·sqrt(d) + c·d` through
    /// (1, single), (cylinders/3, average) and (cylinders-1, full stroke).
    Datasheet { single_track_ms: f64, average_ms: f64, full_stroke_ms: f64 },
    /// Ruemmler–Wilkes equation: `sqrt_const + sqrt_mult·sqrt(d)` below `boundary_cyl`,
    /// `linear_const + linear_mult·d` from it on; `single_cyl_ms` for d = 1 if given,
    /// and the measured `first_ten_ms` for d = 1..=10 if given.
    Equation {
        boundary_cyl: f64,
        sqrt_const_ms: f64,
        sqrt_mult_ms: f64,
        linear_const_ms: f64,
        linear_mult_ms: f64,
        single_cyl_ms: Option<f64>,
        first_ten_ms: Option<Vec<f64>>,
    },
}

/// Firmware command-processing overheads (DiskSim's names in brackets). The default is
/// all zero with a time scale of 1. A read uses the "after write" figures when the request
/// before it was a write; a write, unless `after_write_figures_for_appends_only` is off,
/// only when it appends to the write before it (the figures are measured on sequential
/// streams; a write elsewhere costs what it costs after a read).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overheads {
    pub read_hit_after_read_ms: f64,
    pub read_hit_after_write_ms: f64,
    pub read_miss_after_read_ms: f64,
    pub read_miss_after_write_ms: f64,
    pub write_hit_after_read_ms: f64,
    pub write_hit_after_write_ms: f64,
    pub write_miss_after_read_ms: f64,
    pub write_miss_after_write_ms: f64,
    /// Before the completion message of a read.
    pub read_completion_ms: f64,
    /// Before the completion message of a write.
    pub write_completion_ms: f64,
    /// Before each data transfer over the bus [Data preparation overhead].
    pub data_prep_ms: f64,
    /// Added to every request [Per-request overhead time].
    pub per_request_ms: f64,
    /// Reconnecting to the host after a disconnect [First reselect overhead].
    pub reselect_ms: f64,
    /// Later reconnections within the same request [Other reselect overhead].
    pub reselect_other_ms: f64,
    /// Least positioning time of a non-sequential write, even on the same track
    /// [Minimum seek delay].
    pub min_write_access_ms: f64,
    /// The drive disconnects after a write command before taking its data.
    pub extra_write_disconnect: Option<ExtraWriteDisconnect>,
    /// Disconnecting from the host while the media is read, after a read [Read
    /// disconnect afterread].
    pub read_disconnect_ms: f64,
    /// The same after a write [Read disconnect afterwrite].
    #[serde(default)]
    pub read_disconnect_after_write_ms: f64,
    /// Disconnecting from the host when a write-back write finds no write segment free
    /// and must wait for one [Write disconnect overhead].
    #[serde(default)]
    pub write_disconnect_ms: f64,
    /// Multiplies every overhead above [Time scale for overheads].
    pub time_scale: f64,
    /// The drive keeps the bus for the whole request: no disconnect/reselect.
    pub never_disconnect: bool,
    /// A write after a write pays the "after write" figures only when it appends to it
    /// (off: after any write, as DiskSim's code charges them).
    #[serde(default = "default_true")]
    pub after_write_figures_for_appends_only: bool,
}

fn default_true() -> bool {
    true
}

impl Default for Overheads {
    fn default() -> Self {
        Overheads {
            read_hit_after_read_ms: 0.0,
            read_hit_after_write_ms: 0.0,
            read_miss_after_read_ms: 0.0,
            read_miss_after_write_ms: 0.0,
            write_hit_after_read_ms: 0.0,
            write_hit_after_write_ms: 0.0,
            write_miss_after_read_ms: 0.0,
            write_miss_after_write_ms: 0.0,
            read_completion_ms: 0.0,
            write_completion_ms: 0.0,
            data_prep_ms: 0.0,
            per_request_ms: 0.0,
            reselect_ms: 0.0,
            reselect_other_ms: 0.0,
            min_write_access_ms: 0.0,
            extra_write_disconnect: None,
            read_disconnect_ms: 0.0,
            read_disconnect_after_write_ms: 0.0,
            write_disconnect_ms: 0.0,
            time_scale: 1.0,
            never_disconnect: false,
            after_write_figures_for_appends_only: true,
        }
    }
}

/// Overheads of drives that disconnect after a write command before taking its data
/// (observed in some SCSI drives; DiskSim's "Extradisc" parameters). They replace the
/// write command overhead of write-through writes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtraWriteDisconnect {
    /// Command processing before disconnecting and before any positioning.
    pub command_ms: f64,
    /// Disconnecting (in parallel with positioning).
    pub disconnect_ms: f64,
    /// From the disconnect to the attempt to reconnect for the data.
    pub inter_disconnect_ms: f64,
    /// Extra delay before positioning starts.
    pub seek_delta_ms: f64,
    /// Blocks of a write's data that must be in the buffer before the media write starts,
    /// for a write shorter than `large_write_blocks` (capped at its length). DiskSim's code
    /// fixes these three figures for drives with this habit (`DISKSIM_*`).
    #[serde(default = "ExtraWriteDisconnect::default_buffered_blocks")]
    pub buffered_before_write_blocks: u64,
    /// The same for a write of `large_write_blocks` or more.
    #[serde(default = "ExtraWriteDisconnect::default_buffered_blocks_large")]
    pub buffered_before_large_write_blocks: u64,
    /// Where a write counts as large.
    #[serde(default = "ExtraWriteDisconnect::default_large_write_blocks")]
    pub large_write_blocks: u64,
}

impl ExtraWriteDisconnect {
    /// DiskSim's figures (`disk_buffer_block_available` in `disksim_diskcache.c`).
    pub const DISKSIM_BUFFERED_BLOCKS: u64 = 10;
    pub const DISKSIM_BUFFERED_BLOCKS_LARGE: u64 = 15;
    pub const DISKSIM_LARGE_WRITE_BLOCKS: u64 = 45;

    fn default_buffered_blocks() -> u64 {
        Self::DISKSIM_BUFFERED_BLOCKS
    }
    fn default_buffered_blocks_large() -> u64 {
        Self::DISKSIM_BUFFERED_BLOCKS_LARGE
    }
    fn default_large_write_blocks() -> u64 {
        Self::DISKSIM_LARGE_WRITE_BLOCKS
    }

    /// Blocks of an `n`-block write that must be buffered before its media write starts.
    pub fn buffered_before_write(&self, n: u64) -> u64 {
        if n < self.large_write_blocks { self.buffered_before_write_blocks.min(n) } else { self.buffered_before_large_write_blocks.min(n) }
    }
}

/// What the drive reads beyond a read request into its cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadAheadMode {
    None,
    /// Up to the end of the track holding the request's last block.
    TrackEnd,
    /// Up to the end of the cylinder holding the request's last block.
    CylinderEnd,
    /// Until `max_blocks` (or the segment) is full.
    SegmentFull,
    /// To the end of the track after the request; one track more when the stream is
    /// sequential (the segment began on an earlier track).
    TrackAhead,
}

/// The on-board buffer/cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheSpec {
    /// Use the buffer as a cache (read hits) and not only for speed matching.
    pub enabled: bool,
    pub segments: u32,
    pub segment_blocks: u64,
    /// Segments that may hold write data at once (1..=segments).
    pub max_write_segments: u32,
    /// One segment is reserved for writes; reads use the others.
    pub separate_write_segment: bool,
    pub read_ahead: ReadAheadMode,
    /// Upper bound on blocks read ahead beyond a request (0 = bounded by the segment).
    pub max_read_ahead_blocks: u64,
    /// Read-ahead may overwrite the requested blocks in the segment.
    pub read_ahead_over_requested: bool,
    /// Start read-ahead after a read that hit completely in the cache.
    pub read_ahead_on_idle_hit: bool,
    /// Write-back: report writes once their data is in the buffer.
    pub write_back: bool,
    /// Keep in the cache the blocks that pass under the head before a read's first block
    /// while the drive waits for it (they precede it on the same track).
    pub read_free_blocks: bool,
    /// Written data can serve later reads.
    pub read_hits_on_write_data: bool,
    /// Fraction of the request (or of the segment) that must be in the buffer before a
    /// disconnected read reconnects to the host (at least one sector).
    pub read_watermark: f64,
    /// The watermark is a fraction of the request rather than of the segment.
    pub watermark_by_request: bool,
    /// Zero-latency reads: read a track's requested sectors in the order they pass the head.
    pub zero_latency_read: bool,
    /// Zero-latency writes.
    pub zero_latency_write: bool,
    /// Read-ahead asked to stop may stop inside a sector (else it finishes the sector it
    /// is reading). A seek or head switch in progress is finished either way.
    #[serde(default = "default_true")]
    pub stop_prefetch_in_sector: bool,
    /// A read that starts exactly where the read-ahead has got to (the next request of a
    /// sequential stream, issued as the one before it completes) continues the read-ahead,
    /// so the stream loses no revolution. Off: DiskSim's semantics, under which such a
    /// read stops the read-ahead and goes to the media after its command overhead, by
    /// which time its first sectors have passed the head.
    #[serde(default)]
    pub read_ahead_continues: bool,
    /// Write-back data not yet on the media may fill every segment writes can use (the
    /// dedicated write segment, else all of them) before a write-back write waits for the
    /// media. Off: only `max_write_segments` of them, as DiskSim's code limits it.
    #[serde(default = "default_true")]
    pub write_back_in_every_segment: bool,
}

impl CacheSpec {
    /// No on-board cache: every request goes to the media, writes included.
    pub fn disabled() -> CacheSpec {
        CacheSpec {
            enabled: false,
            segments: 0,
            segment_blocks: 0,
            max_write_segments: 0,
            separate_write_segment: false,
            read_ahead: ReadAheadMode::None,
            max_read_ahead_blocks: 0,
            read_ahead_over_requested: false,
            read_ahead_on_idle_hit: false,
            write_back: false,
            read_free_blocks: false,
            read_hits_on_write_data: false,
            read_watermark: 0.0,
            watermark_by_request: true,
            zero_latency_read: false,
            zero_latency_write: false,
            stop_prefetch_in_sector: true,
            read_ahead_continues: false,
            write_back_in_every_segment: true,
        }
    }
}

/// Everything the timing model needs to know about one drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HddSpec {
    pub name: String,
    pub surfaces: u32,
    /// Physical cylinders (zones may leave some unmapped).
    pub cylinders: u32,
    /// Logical blocks exposed to the host: at most the blocks the zones map (drives often
    /// map more than they advertise; the extra blocks are never addressed).
    pub block_count: u64,
    pub sector_bytes: u32,
    pub rpm: f64,
    pub mapping: LbnMapping,
    pub sparing: Sparing,
    pub zones: Vec<ZoneSpec>,
    pub seek: SeekModel,
    pub head_switch_ms: f64,
    /// Added to every non-zero positioning time of a write (may be negative: some
    /// extracted drives position for writes faster than for reads; the sum stays >= 0).
    pub write_settle_ms: f64,
    pub overheads: Overheads,
    /// Bus (interface) transfer time per sector, reading (drive to host).
    pub bus_read_ms_per_sector: f64,
    /// Bus transfer time per sector, writing (host to drive).
    pub bus_write_ms_per_sector: f64,
    pub cache: CacheSpec,
}

/// The longest any one time parameter of a drive may be: an hour. No drive's overhead, seek
/// or transfer comes near it; the bound keeps every sum of them inside the simulator's
/// nanosecond clock, so a damaged file is refused rather than timed as overflowing.
pub const MAX_PARAMETER_MS: f64 = 3_600_000.0;

/// The largest `overheads.time_scale`: a factor on every overhead.
pub const MAX_TIME_SCALE: f64 = 1000.0;

fn duration_ms(name: &str, v: f64) -> Result<(), SpecError> {
    if v.is_finite() && (0.0..=MAX_PARAMETER_MS).contains(&v) {
        Ok(())
    } else {
        Err(SpecError::new(name, format!("must be a time in [0, {MAX_PARAMETER_MS}] ms, got {v}")))
    }
}

fn finite_nonneg(name: &str, v: f64) -> Result<(), SpecError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(SpecError::new(name, format!("must be a finite number >= 0, got {v}")))
    }
}

impl HddSpec {
    /// The drive with its read cache and its read-ahead off, as `sdparm --set RCD=1` sets a
    /// real SCSI drive's: every read goes to the media. Writes are handled as before.
    pub fn without_read_cache(mut self) -> HddSpec {
        self.cache.enabled = false;
        self.cache.read_ahead = ReadAheadMode::None;
        self
    }

    /// Logical blocks zone `z` provides under this spec's sparing scheme.
    pub fn zone_blocks(&self, z: &ZoneSpec) -> i128 {
        let cyls = i128::from(z.last_cylinder) - i128::from(z.first_cylinder) + 1;
        let spt = i128::from(z.blocks_per_track);
        let surf = i128::from(self.surfaces);
        let spares = i128::from(z.spares);
        let per_cylinder = if z.surface_blocks_per_track.is_empty() {
            spt * surf
        } else {
            z.surface_blocks_per_track.iter().map(|&s| i128::from(s)).sum()
        };
        let physical = cyls * per_cylinder - i128::from(z.reserved_front_blocks);
        physical
            - match self.sparing {
                Sparing::None => 0,
                Sparing::TracksPerZone => spares * spt,
                Sparing::SectorsPerTrack => spares * cyls * surf,
                Sparing::SectorsPerCylinder => spares * cyls,
                Sparing::SectorsPerRange { range_cylinders } => {
                    spares * (cyls / i128::from(range_cylinders.max(1)))
                }
                Sparing::SectorsPerZone => spares,
            }
    }

    /// Check every parameter; the first impossible one is returned as an error.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.surfaces == 0 || self.surfaces > 1024 {
            return Err(SpecError::new("surfaces", format!("must be 1..=1024, got {}", self.surfaces)));
        }
        if self.cylinders == 0 || self.cylinders > 10_000_000 {
            return Err(SpecError::new("cylinders", format!("must be 1..=10000000, got {}", self.cylinders)));
        }
        if self.block_count == 0 {
            return Err(SpecError::new("block_count", "must be > 0"));
        }
        if self.sector_bytes == 0 {
            return Err(SpecError::new("sector_bytes", "must be > 0"));
        }
        if !(self.rpm.is_finite() && self.rpm >= 1.0 && self.rpm <= 1.0e6) {
            return Err(SpecError::new("rpm", format!("must be 1..=1e6, got {}", self.rpm)));
        }
        duration_ms("head_switch_ms", self.head_switch_ms)?;
        if !(self.write_settle_ms.is_finite() && self.write_settle_ms.abs() <= MAX_PARAMETER_MS) {
            return Err(SpecError::new("write_settle_ms", format!("must be a time in [-{MAX_PARAMETER_MS}, {MAX_PARAMETER_MS}] ms, got {}", self.write_settle_ms)));
        }
        duration_ms("bus_read_ms_per_sector", self.bus_read_ms_per_sector)?;
        duration_ms("bus_write_ms_per_sector", self.bus_write_ms_per_sector)?;
        let o = &self.overheads;
        for (n, v) in [
            ("overheads.read_hit_after_read_ms", o.read_hit_after_read_ms),
            ("overheads.read_hit_after_write_ms", o.read_hit_after_write_ms),
            ("overheads.read_miss_after_read_ms", o.read_miss_after_read_ms),
            ("overheads.read_miss_after_write_ms", o.read_miss_after_write_ms),
            ("overheads.write_hit_after_read_ms", o.write_hit_after_read_ms),
            ("overheads.write_hit_after_write_ms", o.write_hit_after_write_ms),
            ("overheads.write_miss_after_read_ms", o.write_miss_after_read_ms),
            ("overheads.write_miss_after_write_ms", o.write_miss_after_write_ms),
            ("overheads.read_completion_ms", o.read_completion_ms),
            ("overheads.write_completion_ms", o.write_completion_ms),
            ("overheads.data_prep_ms", o.data_prep_ms),
            ("overheads.per_request_ms", o.per_request_ms),
            ("overheads.reselect_ms", o.reselect_ms),
            ("overheads.read_disconnect_ms", o.read_disconnect_ms),
            ("overheads.read_disconnect_after_write_ms", o.read_disconnect_after_write_ms),
            ("overheads.write_disconnect_ms", o.write_disconnect_ms),
            ("overheads.reselect_other_ms", o.reselect_other_ms),
            ("overheads.min_write_access_ms", o.min_write_access_ms),
        ] {
            duration_ms(n, v)?;
        }
        if !(o.time_scale.is_finite() && (0.0..=MAX_TIME_SCALE).contains(&o.time_scale)) {
            return Err(SpecError::new("overheads.time_scale", format!("must be a factor in [0, {MAX_TIME_SCALE}], got {}", o.time_scale)));
        }
        if let Some(x) = &o.extra_write_disconnect {
            duration_ms("overheads.extra_write_disconnect.command_ms", x.command_ms)?;
            duration_ms("overheads.extra_write_disconnect.disconnect_ms", x.disconnect_ms)?;
            duration_ms("overheads.extra_write_disconnect.inter_disconnect_ms", x.inter_disconnect_ms)?;
            duration_ms("overheads.extra_write_disconnect.seek_delta_ms", x.seek_delta_ms)?;
        }
        if let Sparing::SectorsPerRange { range_cylinders } = self.sparing {
            if range_cylinders == 0 {
                return Err(SpecError::new("sparing.range_cylinders", "must be > 0"));
            }
        }
        if let LbnMapping::SurfaceSerpentine { band_cylinders } = self.mapping {
            if band_cylinders == 0 {
                return Err(SpecError::new("mapping.band_cylinders", "must be > 0"));
            }
            if !matches!(self.sparing, Sparing::None) {
                return Err(SpecError::new("sparing", "surface_serpentine mapping takes no sparing scheme (kind = \"none\")"));
            }
        }
        self.validate_zones()?;
        self.validate_seek()?;
        let c = &self.cache;
        if c.enabled && c.segments == 0 {
            return Err(SpecError::new("cache.segments", "an enabled cache needs >= 1 segment of >= 1 block"));
        }
        if c.enabled && c.segment_blocks == 0 {
            return Err(SpecError::new("cache.segment_blocks", "an enabled cache needs >= 1 segment of >= 1 block"));
        }
        if !(c.read_watermark.is_finite() && (0.0..=1.0).contains(&c.read_watermark)) {
            return Err(SpecError::new("cache.read_watermark", "must be a fraction in [0, 1]"));
        }
        if c.segments > 4096 {
            return Err(SpecError::new("cache.segments", format!("must be <= 4096, got {}", c.segments)));
        }
        Ok(())
    }

    fn validate_zones(&self) -> Result<(), SpecError> {
        if self.zones.is_empty() {
            return Err(SpecError::new("zones", "at least one zone is needed"));
        }
        let mut total: i128 = 0;
        let mut prev_last: Option<u32> = None;
        for (i, z) in self.zones.iter().enumerate() {
            let p = |f: &str| format!("zones[{i}].{f}");
            if z.last_cylinder < z.first_cylinder {
                return Err(SpecError::new(p("last_cylinder"), "must be >= first_cylinder"));
            }
            if z.last_cylinder >= self.cylinders {
                return Err(SpecError::new(
                    p("last_cylinder"),
                    format!("{} is beyond the drive's {} cylinders", z.last_cylinder, self.cylinders),
                ));
            }
            if let Some(pl) = prev_last {
                if z.first_cylinder <= pl {
                    return Err(SpecError::new(p("first_cylinder"), "zones must be in ascending, non-overlapping cylinder order"));
                }
            }
            prev_last = Some(z.last_cylinder);
            if z.blocks_per_track == 0 || z.blocks_per_track > 1_000_000 {
                return Err(SpecError::new(p("blocks_per_track"), "must be 1..=1000000"));
            }
            if !z.surface_blocks_per_track.is_empty() {
                if !matches!(self.mapping, LbnMapping::SurfaceSerpentine { .. }) {
                    return Err(SpecError::new(p("surface_blocks_per_track"), "per-surface track sizes need mapping surface_serpentine"));
                }
                if z.surface_blocks_per_track.len() != self.surfaces as usize {
                    return Err(SpecError::new(
                        p("surface_blocks_per_track"),
                        format!("expected one size per surface ({}), found {}", self.surfaces, z.surface_blocks_per_track.len()),
                    ));
                }
                if let Some(k) = z.surface_blocks_per_track.iter().position(|&s| s == 0 || s > 1_000_000) {
                    return Err(SpecError::new(format!("zones[{i}].surface_blocks_per_track[{k}]"), "must be 1..=1000000"));
                }
            }
            if matches!(self.mapping, LbnMapping::SurfaceSerpentine { .. })
                && (!z.slips.is_empty() || !z.defects.is_empty() || z.reserved_front_blocks > 0 || z.spares > 0)
            {
                return Err(SpecError::new(p("spares"), "surface_serpentine mapping takes no spares, slips, defects or reserved blocks"));
            }
            for (n, v) in [
                ("first_block_offset_sectors", z.first_block_offset_sectors),
                ("track_skew_sectors", z.track_skew_sectors),
                ("cylinder_skew_sectors", z.cylinder_skew_sectors),
            ] {
                finite_nonneg(&p(n), v)?;
            }
            let blocks = self.zone_blocks(z);
            if blocks <= 0 {
                return Err(SpecError::new(p("spares"), "spares and reserved blocks leave no usable blocks"));
            }
            let cyls = u64::from(z.last_cylinder - z.first_cylinder + 1);
            let spt = u64::from(z.blocks_per_track);
            let phys = cyls * spt * u64::from(self.surfaces);
            let unit_count = match self.sparing {
                Sparing::TracksPerZone => cyls * u64::from(self.surfaces),
                _ => phys,
            };
            let mut prev: Option<u64> = None;
            for (k, &s) in z.slips.iter().enumerate() {
                if s >= unit_count {
                    return Err(SpecError::new(format!("zones[{i}].slips[{k}]"), format!("{s} is beyond the zone ({unit_count})")));
                }
                if prev.is_some_and(|q| s <= q) {
                    return Err(SpecError::new(format!("zones[{i}].slips[{k}]"), "slips must be strictly ascending"));
                }
                prev = Some(s);
            }
            if matches!(self.sparing, Sparing::None) && !z.slips.is_empty() {
                return Err(SpecError::new(p("slips"), "slips need a sparing scheme with spare space"));
            }
            if matches!(self.sparing, Sparing::SectorsPerZone | Sparing::TracksPerZone)
                && (z.slips.len() + z.defects.len()) as u64 > z.spares
            {
                return Err(SpecError::new(p("slips"), format!("{} slips and defects exceed the zone's {} spares", z.slips.len() + z.defects.len(), z.spares)));
            }
            for (k, &(d, r)) in z.defects.iter().enumerate() {
                if d >= phys || r >= phys {
                    return Err(SpecError::new(format!("zones[{i}].defects[{k}]"), "defect or remap location beyond the zone"));
                }
            }
            total += blocks;
        }
        if total < i128::from(self.block_count) {
            return Err(SpecError::new(
                "block_count",
                format!("is {} but the zones provide only {total} blocks", self.block_count),
            ));
        }
        Ok(())
    }

    fn validate_seek(&self) -> Result<(), SpecError> {
        match &self.seek {
            SeekModel::Table { points } => {
                if points.is_empty() {
                    return Err(SpecError::new("seek.points", "at least one point is needed"));
                }
                let mut prev = 0u32;
                for (k, &(d, t)) in points.iter().enumerate() {
                    if d <= prev {
                        return Err(SpecError::new(format!("seek.points[{k}]"), "distances must be >= 1 and strictly ascending"));
                    }
                    prev = d;
                    duration_ms(&format!("seek.points[{k}]"), t)?;
                }
                if points.len() == 1 && points[0].0 != 1 {
                    return Err(SpecError::new("seek.points", "a one-point table must be for distance 1"));
                }
            }
            SeekModel::Datasheet { single_track_ms, average_ms, full_stroke_ms } => {
                duration_ms("seek.single_track_ms", *single_track_ms)?;
                duration_ms("seek.average_ms", *average_ms)?;
                duration_ms("seek.full_stroke_ms", *full_stroke_ms)?;
                if !(single_track_ms <= average_ms && average_ms <= full_stroke_ms) || *average_ms <= 0.0 {
                    return Err(SpecError::new("seek.average_ms", "need 0 < single_track <= average <= full_stroke"));
                }
            }
            SeekModel::Equation { boundary_cyl, sqrt_const_ms, sqrt_mult_ms, linear_const_ms, linear_mult_ms, single_cyl_ms, first_ten_ms } => {
                finite_nonneg("seek.boundary_cyl", *boundary_cyl)?;
                for (n, v) in [
                    ("seek.sqrt_const_ms", *sqrt_const_ms),
                    ("seek.sqrt_mult_ms", *sqrt_mult_ms),
                    ("seek.linear_const_ms", *linear_const_ms),
                    ("seek.linear_mult_ms", *linear_mult_ms),
                ] {
                    if !(v.is_finite() && v.abs() <= MAX_PARAMETER_MS) {
                        return Err(SpecError::new(n, format!("must be in [-{MAX_PARAMETER_MS}, {MAX_PARAMETER_MS}] ms, got {v}")));
                    }
                }
                // Either branch of the equation at the longest seek stays within the bound.
                let longest = f64::from(self.cylinders);
                let bound = sqrt_const_ms.abs() + sqrt_mult_ms.abs() * longest.sqrt() + linear_const_ms.abs() + linear_mult_ms.abs() * longest;
                if bound > MAX_PARAMETER_MS {
                    return Err(SpecError::new("seek.linear_mult_ms", format!("gives seeks over {MAX_PARAMETER_MS} ms across {} cylinders", self.cylinders)));
                }
                if let Some(s) = single_cyl_ms {
                    duration_ms("seek.single_cyl_ms", *s)?;
                }
                if let Some(f) = first_ten_ms {
                    if f.len() != 10 {
                        return Err(SpecError::new("seek.first_ten_ms", format!("needs 10 values, got {}", f.len())));
                    }
                    for (k, v) in f.iter().enumerate() {
                        duration_ms(&format!("seek.first_ten_ms[{k}]"), *v)?;
                    }
                }
            }
        }
        Ok(())
    }
}
