//! A small drive for tests: every parameter explicit, timings easy to reason about.

#![allow(dead_code)]

use tierlab_hdd::*;

pub fn zone(first: u32, last: u32, spt: u32, spares: u64, slips: Vec<u64>) -> ZoneSpec {
    ZoneSpec {
        first_cylinder: first,
        last_cylinder: last,
        blocks_per_track: spt,
        first_block_offset_sectors: 0.0,
        reserved_front_blocks: 0,
        track_skew_sectors: 4.0,
        cylinder_skew_sectors: 8.0,
        spares,
        slips,
        defects: Vec::new(),
        surface_blocks_per_track: Vec::new(),
    }
}

/// 4 surfaces, 100 cylinders in two zones (100 and 80 sectors per track), 6000 rpm
/// (10 ms per revolution), no spares, no cache, no overheads, infinitely fast bus.
pub fn small_spec() -> HddSpec {
    let mut s = HddSpec {
        name: "test".into(),
        surfaces: 4,
        cylinders: 100,
        block_count: 0,
        sector_bytes: 512,
        rpm: 6000.0,
        mapping: LbnMapping::Conventional,
        sparing: Sparing::None,
        zones: vec![zone(0, 49, 100, 0, vec![]), zone(50, 99, 80, 0, vec![])],
        seek: SeekModel::Table { points: vec![(1, 1.0), (99, 10.0)] },
        head_switch_ms: 0.2,
        write_settle_ms: 0.0,
        overheads: Overheads { time_scale: 1.0, never_disconnect: true, ..Overheads::default() },
        bus_read_ms_per_sector: 0.0,
        bus_write_ms_per_sector: 0.0,
        cache: CacheSpec::disabled(),
    };
    s.block_count = s.zones.iter().map(|z| s.zone_blocks(z) as u64).sum();
    s
}

pub fn with_cache(mut s: HddSpec) -> HddSpec {
    s.cache.enabled = true;
    s.cache.segments = 4;
    s.cache.segment_blocks = 400;
    s.cache.max_write_segments = 4;
    s.cache.read_ahead = ReadAheadMode::SegmentFull;
    s.cache.max_read_ahead_blocks = 200;
    s.cache.read_ahead_over_requested = true;
    s.cache.read_hits_on_write_data = true;
    s
}
