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
//!   the end of a segment; the cache is split into 16 segments.

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
        let blocks = d.capacity_bytes / u64::from(d.sector_bytes);
        if blocks == 0 {
            return Err(SpecError::new("capacity_bytes", "must hold at least one sector"));
        }
        let rev_s = 60.0 / d.rpm;
        let outer = (d.sustained_transfer_mb_s * 1.0e6 * rev_s / f64::from(d.sector_bytes)).round().max(2.0);
        if outer > 1.0e6 {
            return Err(SpecError::new("sustained_transfer_mb_s", "implies more than 10^6 sectors per track"));
        }
        let inner = (outer * INNER_RATIO).round().max(1.0);
        let spt: Vec<u64> = (0..ZONES)
            .map(|k| (outer - (outer - inner) * k as f64 / (ZONES - 1) as f64).round() as u64)
            .collect();
        let surfaces = (2 * d.capacity_bytes.div_ceil(1_000_000_000_000)).clamp(2, 20);
        let per_cyl_avg: u64 = spt.iter().sum::<u64>() * surfaces;
        // Cylinders per zone: enough for the capacity.
        let cyl_per_zone = (blocks * ZONES).div_ceil(per_cyl_avg).div_ceil(ZONES).max(1);
        let single = d.seek_single_track_ms.unwrap_or(0.2 * d.seek_average_ms);
        let full = d.seek_full_stroke_ms.unwrap_or(2.0 * d.seek_average_ms);
        let sector_ms = |s: u64| rev_s * 1000.0 / s as f64;
        let mut zones = Vec::with_capacity(ZONES as usize);
        let mut left = blocks;
        for (k, &s) in spt.iter().enumerate() {
            if left == 0 {
                break;
            }
            let zone_blocks = cyl_per_zone * surfaces * s;
            let used = zone_blocks.min(left);
            left -= used;
            let first = k as u64 * cyl_per_zone;
            zones.push(ZoneSpec {
                first_cylinder: u32::try_from(first).map_err(|_| SpecError::new("capacity_bytes", "too many cylinders"))?,
                last_cylinder: u32::try_from(first + cyl_per_zone - 1).map_err(|_| SpecError::new("capacity_bytes", "too many cylinders"))?,
                blocks_per_track: s as u32,
                first_block_offset_sectors: 0.0,
                reserved_front_blocks: 0,
                track_skew_sectors: (HEAD_SWITCH_MS / sector_ms(s)).ceil(),
                cylinder_skew_sectors: (single.max(HEAD_SWITCH_MS) / sector_ms(s)).ceil(),
                spares: zone_blocks - used,
                slips: Vec::new(),
                defects: Vec::new(),
            });
        }
        let cylinders = zones.last().map_or(1, |z| z.last_cylinder + 1);
        let segments = 16u32;
        let cache_blocks = (d.cache_mib * 1024.0 * 1024.0 / f64::from(d.sector_bytes)) as u64;
        let segment_blocks = (cache_blocks / u64::from(segments)).max(1);
        let c = COMMAND_OVERHEAD_MS;
        let spec = HddSpec {
            name: d.name.clone(),
            surfaces: surfaces as u32,
            cylinders,
            block_count: blocks,
            sector_bytes: d.sector_bytes,
            rpm: d.rpm,
            mapping: LbnMapping::Conventional,
            sparing: Sparing::SectorsPerZone,
            zones,
            seek: SeekModel::Datasheet { single_track_ms: single, average_ms: d.seek_average_ms, full_stroke_ms: full },
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
                zero_latency_read: true,
                zero_latency_write: false,
                stop_prefetch_in_sector: true,
            },
        };
        spec.validate()?;
        Ok(spec)
    }
}
