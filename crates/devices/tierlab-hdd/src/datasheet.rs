//! Drives known only from their datasheet: synthesize a plausible zoned geometry.
//!
//! The rule (documented so results can be reproduced and questioned):
//! - The sustained transfer rate is the outer zone's media rate, so the outermost track
//!   holds `rate · 60 / rpm / sector_bytes` sectors. The innermost track holds 55 % of that
//!   (a typical inner/outer recording radius ratio); 16 zones of equal cylinder counts
//!   step linearly between the two, outer zones first (low block numbers are fastest).
//! - Surfaces: two per started 1 TB of capacity, at least 2 and at most 20.
//! - Cylinders: just enough for the capacity; the blocks beyond the capacity in the last
//!   zone are spares at the end of that zone.
//! - Seek: the datasheet's single-track / average / full-stroke figures fitted to
//!   `a + b·sqrt(d) + c·d`; a missing single-track figure is 20 % of the average and a
//!   missing full-stroke figure twice the average.
//! - Head switch 0.5 ms (settles within a typical single-track seek); skews are the
//!   head-switch and single-track-seek times rounded up to whole sectors, so sequential
//!   transfers cross tracks without losing a revolution.
//! - Firmware: 0.1 ms command overhead for every kind of request, no bus limit (the
//!   interface outruns the media), write-back cache, zero-latency reads, read-ahead to
//!   the end of a segment that a sequential read arriving at its front continues (the
//!   stream runs at the media rate, as drives stream); the cache is split into 16 segments, any of which may hold
//!   write-back data waiting for the media (16 scattered writes, or as many appending
//!   writes as fill the segments, before a write waits for the media).
//!
//! [`DatasheetTiming`] replaces parts of the rule where a source says more (its default
//! is the rule above):
//! - `inner_transfer_mb_s`: the innermost zone's rate, instead of 55 % of the outer. Equal
//!   to the outer rate, the drive has one rate: a single zone.
//! - `command_overhead_ms`: instead of 0.1 ms.
//! - `zero_latency_read = false`: reads wait for their first sector, so a request's
//!   rotational delay averages half a revolution whatever its length.
//! - `average_seek = RandomMean`: the average seek figure is the mean seek time between
//!   two cylinders drawn uniformly at random from those holding data (the seek part of a
//!   random request), instead of the seek time over a third of the stroke. The curve is
//!   fitted to that mean and passes through the single-track and full-stroke figures;
//!   the spec then records the curve's value at a third of the stroke as its `average_ms`,
//!   which makes [`crate::SeekModel::Datasheet`] reproduce the same curve.
//! - `streaming_read_ahead = false`: DiskSim's read-ahead semantics, under which the next
//!   request of a sequential stream stops the read-ahead and waits for its sectors to
//!   come round again.

use crate::seek::solve3;
use crate::spec::{CacheSpec, HddSpec, LbnMapping, Overheads, ReadAheadMode, SeekModel, Sparing, SpecError, ZoneSpec};
use serde::{Deserialize, Serialize};

/// The figures a drive datasheet gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Datasheet {
    pub name: String,
    pub capacity_bytes: u64,
    pub rpm: f64,
    pub seek_single_track_ms: Option<f64>,
    pub seek_average_ms: f64,
    pub seek_full_stroke_ms: Option<f64>,
    /// Sustained (outer-zone) media transfer rate, in 10^6 bytes per second.
    pub sustained_transfer_mb_s: f64,
    pub cache_mib: f64,
    pub sector_bytes: u32,
    /// Where the synthesis departs from its default rule (see the module documentation).
    #[serde(default)]
    pub timing: DatasheetTiming,
    /// A measured block layout instead of the synthesized conventional one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<DatasheetLayout>,
}

/// A layout measured on a real drive: surface serpentine numbering in bands of
/// `band_cylinders` (`LbnMapping::SurfaceSerpentine`) and each surface's outermost track
/// size. With it the synthesis takes the surfaces and the outer zone's track sizes from
/// the layout (not from the sustained rate); inner zones scale every surface alike, and the
/// drive has no spare space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasheetLayout {
    pub band_cylinders: u32,
    pub surface_outer_sectors: Vec<u32>,
}

/// What a source says beyond the datasheet figures, replacing parts of the synthesis rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DatasheetTiming {
    /// Innermost zone's media rate, 10^6 bytes per second (at most the sustained rate);
    /// `None`: 55 % of the outer zone's.
    pub inner_transfer_mb_s: Option<f64>,
    /// Firmware overhead of every command, ms.
    pub command_overhead_ms: f64,
    /// Reads start with whichever of their sectors passes under the head first.
    pub zero_latency_read: bool,
    /// What the datasheet's average seek figure means.
    pub average_seek: AverageSeek,
    /// A read arriving where the read-ahead has got to continues it
    /// (`CacheSpec::read_ahead_continues`), as drives stream sequential reads; `false`
    /// keeps DiskSim's semantics, under which such a read loses most of a revolution.
    pub streaming_read_ahead: bool,
}

impl Default for DatasheetTiming {
    fn default() -> Self {
        DatasheetTiming {
            inner_transfer_mb_s: None,
            command_overhead_ms: COMMAND_OVERHEAD_MS,
            zero_latency_read: true,
            average_seek: AverageSeek::ThirdStroke,
            streaming_read_ahead: true,
        }
    }
}

/// The meaning of a datasheet's average seek time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AverageSeek {
    /// The seek time over a third of the full stroke.
    #[default]
    ThirdStroke,
    /// The mean seek time between two cylinders drawn uniformly at random from those
    /// holding data.
    RandomMean,
}

const ZONES: u64 = 16;
const INNER_RATIO: f64 = 0.55;
const HEAD_SWITCH_MS: f64 = 0.5;
const COMMAND_OVERHEAD_MS: f64 = 0.1;

impl HddSpec {
    /// Synthesize a spec from datasheet figures (see the module documentation for the rule).
    pub fn from_datasheet(d: &Datasheet) -> Result<HddSpec, SpecError> {
        if d.sector_bytes == 0 {
            return Err(SpecError::new("sector_bytes", "must be > 0"));
        }
        if !(d.rpm.is_finite() && d.rpm >= 1.0 && d.rpm <= 1.0e6) {
            return Err(SpecError::new("rpm", format!("must be 1..=1e6, got {}", d.rpm)));
        }
        if !(d.sustained_transfer_mb_s.is_finite() && d.sustained_transfer_mb_s > 0.0) {
            return Err(SpecError::new("sustained_transfer_mb_s", "must be > 0"));
        }
        if !(d.seek_average_ms.is_finite() && d.seek_average_ms > 0.0) {
            return Err(SpecError::new("seek_average_ms", "must be > 0"));
        }
        if !(d.cache_mib.is_finite() && d.cache_mib >= 0.0) {
            return Err(SpecError::new("cache_mib", "must be >= 0"));
        }
        let t = &d.timing;
        if let Some(inner) = t.inner_transfer_mb_s {
            if !(inner.is_finite() && inner > 0.0 && inner <= d.sustained_transfer_mb_s) {
                return Err(SpecError::new(
                    "timing.inner_transfer_mb_s",
                    format!("must be > 0 and at most sustained_transfer_mb_s ({}), got {inner}", d.sustained_transfer_mb_s),
                ));
            }
        }
        if !(t.command_overhead_ms.is_finite() && (0.0..=1_000.0).contains(&t.command_overhead_ms)) {
            return Err(SpecError::new("timing.command_overhead_ms", format!("must be 0..=1000 ms, got {}", t.command_overhead_ms)));
        }
        let blocks = d.capacity_bytes / u64::from(d.sector_bytes);
        if blocks == 0 {
            return Err(SpecError::new("capacity_bytes", "must hold at least one sector"));
        }
        let rev_s = 60.0 / d.rpm;
        let rate_outer = (d.sustained_transfer_mb_s * 1.0e6 * rev_s / f64::from(d.sector_bytes)).round().max(2.0);
        // Each surface's outermost track: all alike from the sustained rate, or measured.
        let outer: Vec<f64> = match &d.layout {
            None => {
                let surfaces = (2 * d.capacity_bytes.div_ceil(1_000_000_000_000)).clamp(2, 20);
                vec![rate_outer; surfaces as usize]
            }
            Some(l) => {
                if l.band_cylinders == 0 {
                    return Err(SpecError::new("layout.band_cylinders", "must be > 0"));
                }
                if l.surface_outer_sectors.is_empty() || l.surface_outer_sectors.len() > 64 {
                    return Err(SpecError::new("layout.surface_outer_sectors", "expected 1 to 64 surfaces"));
                }
                l.surface_outer_sectors.iter().map(|&n| f64::from(n)).collect()
            }
        };
        if outer.iter().any(|o| !(1.0..=1.0e6).contains(o)) {
            return Err(SpecError::new("sustained_transfer_mb_s", "implies more than 10^6 sectors per track"));
        }
        let surfaces = outer.len() as u64;
        let inner_ratio = t.inner_transfer_mb_s.map_or(INNER_RATIO, |r| r / d.sustained_transfer_mb_s);
        // One rate, one zone; otherwise zones step linearly from the outer to the inner rate.
        let zone_count = if (outer[0] * inner_ratio).round().max(1.0) == outer[0] { 1 } else { ZONES };
        let step = |o: f64, k: u64| {
            let inner = (o * inner_ratio).round().max(1.0);
            ((o - (o - inner) * k as f64 / (ZONES - 1) as f64).round() as u64).max(1)
        };
        // Sectors per track of each zone on each surface.
        let spt: Vec<Vec<u64>> = (0..zone_count).map(|k| outer.iter().map(|&o| step(o, k)).collect()).collect();
        let cyl_sectors = |k: usize| spt[k].iter().sum::<u64>();
        let per_cyl_total: u64 = (0..spt.len()).map(cyl_sectors).sum();
        // Cylinders per zone: enough for the capacity.
        let cyl_per_zone = (blocks * zone_count).div_ceil(per_cyl_total).div_ceil(zone_count).max(1);
        let single = d.seek_single_track_ms.unwrap_or(0.2 * d.seek_average_ms);
        let full = d.seek_full_stroke_ms.unwrap_or(2.0 * d.seek_average_ms);
        let sector_ms = |s: u64| rev_s * 1000.0 / s as f64;
        let mut zones = Vec::with_capacity(zone_count as usize);
        let mut left = blocks;
        // Cylinders holding data (the rest of the last zone is spare).
        let mut data_cylinders = 0u64;
        for (k, zone_spt) in spt.iter().enumerate() {
            if left == 0 {
                break;
            }
            let s = zone_spt[0];
            let zone_blocks = cyl_per_zone * cyl_sectors(k);
            let used = zone_blocks.min(left);
            left -= used;
            let first = k as u64 * cyl_per_zone;
            data_cylinders = first + used.div_ceil(cyl_sectors(k));
            zones.push(ZoneSpec {
                first_cylinder: u32::try_from(first).map_err(|_| SpecError::new("capacity_bytes", "too many cylinders"))?,
                last_cylinder: u32::try_from(first + cyl_per_zone - 1).map_err(|_| SpecError::new("capacity_bytes", "too many cylinders"))?,
                blocks_per_track: s as u32,
                first_block_offset_sectors: 0.0,
                reserved_front_blocks: 0,
                track_skew_sectors: (HEAD_SWITCH_MS / sector_ms(s)).ceil(),
                cylinder_skew_sectors: (single.max(HEAD_SWITCH_MS) / sector_ms(s)).ceil(),
                // A measured layout has no spare space: its last zone's extra blocks are
                // simply never addressed.
                spares: if d.layout.is_some() { 0 } else { zone_blocks - used },
                slips: Vec::new(),
                defects: Vec::new(),
                surface_blocks_per_track: if d.layout.is_some() { zone_spt.iter().map(|&n| n as u32).collect() } else { Vec::new() },
            });
        }
        let cylinders = zones.last().map_or(1, |z| z.last_cylinder + 1);
        let average = match t.average_seek {
            AverageSeek::ThirdStroke => d.seek_average_ms,
            AverageSeek::RandomMean => third_stroke_for_random_mean(single, d.seek_average_ms, full, cylinders, data_cylinders),
        };
        let segments = 16u32;
        let cache_blocks = (d.cache_mib * 1024.0 * 1024.0 / f64::from(d.sector_bytes)) as u64;
        let segment_blocks = (cache_blocks / u64::from(segments)).max(1);
        let c = t.command_overhead_ms;
        let spec = HddSpec {
            name: d.name.clone(),
            surfaces: surfaces as u32,
            cylinders,
            block_count: blocks,
            sector_bytes: d.sector_bytes,
            rpm: d.rpm,
            mapping: d.layout.as_ref().map_or(LbnMapping::Conventional, |l| LbnMapping::SurfaceSerpentine { band_cylinders: l.band_cylinders }),
            sparing: if d.layout.is_some() { Sparing::None } else { Sparing::SectorsPerZone },
            zones,
            seek: SeekModel::Datasheet { single_track_ms: single, average_ms: average, full_stroke_ms: full },
            head_switch_ms: HEAD_SWITCH_MS,
            write_settle_ms: 0.0,
            overheads: Overheads {
                read_hit_after_read_ms: c,
                read_hit_after_write_ms: c,
                read_miss_after_read_ms: c,
                read_miss_after_write_ms: c,
                write_hit_after_read_ms: c,
                write_hit_after_write_ms: c,
                write_miss_after_read_ms: c,
                write_miss_after_write_ms: c,
                time_scale: 1.0,
                never_disconnect: true,
                ..Overheads::default()
            },
            bus_read_ms_per_sector: 0.0,
            bus_write_ms_per_sector: 0.0,
            cache: CacheSpec {
                enabled: cache_blocks > 0,
                segments: if cache_blocks > 0 { segments } else { 0 },
                segment_blocks,
                max_write_segments: segments,
                separate_write_segment: false,
                read_ahead: ReadAheadMode::SegmentFull,
                max_read_ahead_blocks: segment_blocks,
                read_ahead_over_requested: true,
                read_ahead_on_idle_hit: false,
                write_back: cache_blocks > 0,
                read_free_blocks: false,
                read_hits_on_write_data: true,
                read_watermark: 0.0,
                watermark_by_request: true,
                zero_latency_read: t.zero_latency_read,
                zero_latency_write: false,
                stop_prefetch_in_sector: true,
                read_ahead_continues: t.streaming_read_ahead,
                write_back_in_every_segment: true,
            },
        };
        spec.validate()?;
        Ok(spec)
    }
}

/// The seek time over a third of the stroke of the curve `a + b·sqrt(d) + c·d` that
/// passes through (1, `single`) and (`cylinders` - 1, `full`) and whose mean over seeks
/// between two of the first `data_cylinders` cylinders, drawn uniformly and independently,
/// is `mean` (a zero-distance seek costs nothing). Given to `SeekModel::Datasheet` as its
/// average, this reproduces that curve. Falls back to `mean` if the fit is degenerate.
fn third_stroke_for_random_mean(single: f64, mean: f64, full: f64, cylinders: u32, data_cylinders: u64) -> f64 {
    let n = data_cylinders.clamp(2, u64::from(cylinders.max(2)));
    let nf = n as f64;
    // P(distance = d) = 2 (n - d) / n² for 1 <= d < n.
    let (mut p_sum, mut p_sqrt, mut p_lin) = (0.0, 0.0, 0.0);
    for dist in 1..n {
        let p = 2.0 * (nf - dist as f64) / (nf * nf);
        let df = dist as f64;
        p_sum += p;
        p_sqrt += p * df.sqrt();
        p_lin += p * df;
    }
    // The same distances as `fit_datasheet` uses for the full stroke and a third of it.
    let full_d = f64::from(cylinders.max(4) - 1);
    let third_d = (full_d / 3.0).max(2.0);
    let row = |x: f64| [1.0, x.sqrt(), x];
    match solve3([row(1.0), [p_sum, p_sqrt, p_lin], row(full_d)], [single, mean, full]) {
        Some([a, b, c]) => {
            let third = a + b * third_d.sqrt() + c * third_d;
            if third.is_finite() && third > 0.0 {
                third
            } else {
                mean
            }
        }
        None => mean,
    }
}
