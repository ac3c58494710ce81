//! Logical-to-physical mapping: exact for hand-checked cases, and as a property over many
//! generated layouts: a bijection onto physical sectors, monotone along a track, inside
//! the drive.

mod common;
use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;
use tierlab_hdd::*;

#[test]
fn conventional_mapping_walks_surfaces_then_cylinders() {
    let l = Layout::new(&small_spec()).expect("valid");
    assert_eq!(l.lbn_to_pbn(0), Some(Pbn { cylinder: 0, surface: 0, sector: 0 }));
    assert_eq!(l.lbn_to_pbn(100), Some(Pbn { cylinder: 0, surface: 1, sector: 0 }));
    assert_eq!(l.lbn_to_pbn(400), Some(Pbn { cylinder: 1, surface: 0, sector: 0 }));
    // Second zone starts after 50 cylinders × 4 tracks × 100 sectors.
    assert_eq!(l.lbn_to_pbn(20_000), Some(Pbn { cylinder: 50, surface: 0, sector: 0 }));
    assert_eq!(l.lbn_to_pbn(20_081), Some(Pbn { cylinder: 50, surface: 1, sector: 1 }));
    assert_eq!(l.lbn_to_pbn(l.blocks()), None);
}

#[test]
fn skew_moves_each_track_start() {
    let l = Layout::new(&small_spec()).expect("valid");
    let a = |lbn| l.sector_angle(l.lbn_to_pbn(lbn).expect("mapped"));
    assert_eq!(a(0), 0.0);
    assert!((a(100) - 0.04).abs() < 1e-12, "track skew of 4 sectors of 100");
    assert!((a(400) - (3.0 * 4.0 + 8.0) / 100.0).abs() < 1e-12, "3 track switches and a cylinder switch");
}

#[test]
fn slips_push_blocks_and_spares_absorb_them() {
    let mut s = small_spec();
    s.sparing = Sparing::SectorsPerTrack;
    s.zones = vec![zone(0, 99, 10, 2, vec![3])];
    s.block_count = s.zones.iter().map(|z| s.zone_blocks(z) as u64).sum();
    assert_eq!(s.block_count, 100 * 4 * 8);
    let l = Layout::new(&s).expect("valid");
    assert_eq!(l.lbn_to_pbn(2).map(|p| p.sector), Some(2));
    assert_eq!(l.lbn_to_pbn(3).map(|p| p.sector), Some(4), "physical sector 3 is slipped");
    assert_eq!(l.lbn_to_pbn(7).map(|p| p.sector), Some(8));
    assert_eq!(l.lbn_to_pbn(8), Some(Pbn { cylinder: 0, surface: 1, sector: 0 }), "the track's spares end it");
}

#[test]
fn serpentine_mapping_reverses_odd_cylinders() {
    let mut s = small_spec();
    s.mapping = LbnMapping::SerpentinePerZone;
    let l = Layout::new(&s).expect("valid");
    assert_eq!(l.lbn_to_pbn(400).map(|p| p.surface), Some(3));
    assert_eq!(l.lbn_to_pbn(800).map(|p| p.surface), Some(0));
}

#[test]
fn impossible_specs_name_the_parameter() {
    let mut s = small_spec();
    s.zones[1].first_cylinder = 40;
    assert_eq!(Layout::new(&s).unwrap_err().parameter, "zones[1].first_cylinder");
    let mut s = small_spec();
    s.block_count += 1;
    assert_eq!(s.validate().unwrap_err().parameter, "block_count");
    let mut s = small_spec();
    s.rpm = 0.0;
    assert_eq!(s.validate().unwrap_err().parameter, "rpm");
    let mut s = small_spec();
    s.sparing = Sparing::SectorsPerTrack;
    s.zones = vec![zone(0, 99, 10, 1, vec![3, 4])];
    s.block_count = s.zones.iter().map(|z| s.zone_blocks(z) as u64).sum();
    assert_eq!(Layout::new(&s).unwrap_err().parameter, "zones[0].slips");
    // Found by the property test below: a slip in a last, partial range of cylinders
    // (which has no spares) must be rejected, not mapped off the zone.
    let mut s = small_spec();
    s.surfaces = 1;
    s.sparing = Sparing::SectorsPerRange { range_cylinders: 2 };
    s.zones = vec![zone(0, 0, 3, 1, vec![1]), zone(1, 1, 3, 1, vec![])];
    s.cylinders = 2;
    s.block_count = 6;
    assert_eq!(Layout::new(&s).unwrap_err().parameter, "zones[0].slips");
    let mut s = small_spec();
    s.seek = SeekModel::Table { points: vec![(5, 1.0), (3, 2.0)] };
    assert_eq!(s.validate().unwrap_err().parameter, "seek.points[1]");
    // Times beyond an hour would overflow the nanosecond clock once summed: refused.
    let mut s = small_spec();
    s.overheads.read_miss_after_read_ms = 1e308;
    assert_eq!(s.validate().unwrap_err().parameter, "overheads.read_miss_after_read_ms");
    let mut s = small_spec();
    s.write_settle_ms = -1e12;
    assert_eq!(s.validate().unwrap_err().parameter, "write_settle_ms");
    let mut s = small_spec();
    s.overheads.time_scale = 1e9;
    assert_eq!(s.validate().unwrap_err().parameter, "overheads.time_scale");
    let mut s = small_spec();
    s.seek = SeekModel::Equation {
        boundary_cyl: 10.0,
        sqrt_const_ms: 1.0,
        sqrt_mult_ms: 0.1,
        linear_const_ms: 2.0,
        linear_mult_ms: 1e5,
        single_cyl_ms: None,
        first_ten_ms: None,
    };
    assert_eq!(s.validate().unwrap_err().parameter, "seek.linear_mult_ms");
    let mut s = small_spec();
    s.cache.enabled = true;
    s.cache.segments = 2;
    s.cache.segment_blocks = 0;
    assert_eq!(s.validate().unwrap_err().parameter, "cache.segment_blocks");
}

/// A small random layout: scheme, zones, spares and slips that fit their regions.
fn arb_spec() -> impl Strategy<Value = HddSpec> {
    (1u32..4, 0usize..6, prop::collection::vec((1u32..4, 3u32..12), 1..4), 0u64..3, any::<u64>(), 0usize..3).prop_map(
        |(surfaces, scheme, zone_shapes, spares, seed, mapping)| {
            let mut s = small_spec();
            s.surfaces = surfaces;
            s.mapping = [LbnMapping::Conventional, LbnMapping::SerpentinePerZone, LbnMapping::SerpentineGlobal][mapping];
            s.sparing = [
                Sparing::None,
                Sparing::TracksPerZone,
                Sparing::SectorsPerTrack,
                Sparing::SectorsPerCylinder,
                Sparing::SectorsPerRange { range_cylinders: 2 },
                Sparing::SectorsPerZone,
            ][scheme];
            let mut cyl = 0;
            let mut rng = seed;
            s.zones = zone_shapes
                .iter()
                .map(|&(cyls, spt)| {
                    let first = cyl;
                    cyl += cyls;
                    let spares = if s.sparing == Sparing::None { 0 } else { spares.min(u64::from(spt) - 1) };
                    // At most one slip, in the zone's first region, when there are spares.
                    let slips = if spares > 0 && rng % 2 == 0 {
                        let region = match s.sparing {
                            Sparing::TracksPerZone => u64::from(cyls * surfaces),
                            Sparing::SectorsPerTrack => u64::from(spt),
                            _ => u64::from(spt * surfaces),
                        };
                        vec![(rng >> 8) % region]
                    } else {
                        vec![]
                    };
                    rng = rng.rotate_left(13) ^ 0x9e37_79b9;
                    zone(first, cyl - 1, spt, spares, slips)
                })
                .collect();
            s.cylinders = cyl;
            s.block_count = s.zones.iter().map(|z| s.zone_blocks(z).max(0) as u64).sum();
            s
        },
    )
}

proptest! {
    #[test]
    fn mapping_is_a_bijection_inside_the_drive_and_monotone_along_tracks(s in arb_spec()) {
        let Ok(l) = Layout::new(&s) else { return Ok(()) };
        let mut seen = BTreeSet::new();
        let mut prev: Option<Pbn> = None;
        for lbn in 0..l.blocks() {
            let p = l.lbn_to_pbn(lbn).expect("every block maps");
            prop_assert!(p.cylinder < s.cylinders);
            prop_assert!(p.surface < s.surfaces);
            let z = s.zones.iter().find(|z| z.first_cylinder <= p.cylinder && p.cylinder <= z.last_cylinder).expect("in a zone");
            prop_assert!(p.sector < z.blocks_per_track);
            prop_assert!(seen.insert(p), "two blocks on one sector: {:?}", p);
            if let Some(q) = prev {
                if q.cylinder == p.cylinder && q.surface == p.surface {
                    prop_assert!(p.sector > q.sector, "not monotone within a track at {}", lbn);
                }
            }
            prev = Some(p);
        }
        prop_assert_eq!(l.lbn_to_pbn(l.blocks()), None);
    }
}
