//! Logical-to-physical block mapping: zones, spare regions, slips, remapped defects,
//! and the rotational angle at which each physical sector starts (track and cylinder skew).
//!
//! The mapping follows the semantics of DiskSim's `layout_g1` (read for understanding,
//! not copied): within a zone, physical sectors are numbered track by track; a sparing
//! *region* (track, cylinder, range of cylinders or zone) keeps its spares at its end;
//! a slipped sector is skipped and pushes the rest of its region by one sector.
//!
//! Surface serpentine numbering (`LbnMapping::SurfaceSerpentine`) is arithmetic too: a
//! zone's bands all have the same size, so a block's band is a division and its surface a
//! scan of at most the drive's surfaces; lookups stay O(log zones).

use crate::spec::{HddSpec, LbnMapping, Sparing, SpecError};

/// A physical sector address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pbn {
    pub cylinder: u32,
    pub surface: u32,
    pub sector: u32,
}

/// A zone prepared for fast mapping.
#[derive(Clone, Debug)]
pub(crate) struct Zone {
    pub first_cyl: u32,
    pub last_cyl: u32,
    pub spt: u32,
    /// Sectors per track of each surface (all `spt` unless the surfaces differ).
    surface_spt: Vec<u32>,
    /// Physical sectors per cylinder: the sum of `surface_spt`.
    cyl_sectors: u64,
    pub first_lbn: u64,
    pub blocks: u64,
    reserved: u64,
    /// Physical sectors per sparing region and spares at its end (sectors; tracks for
    /// track sparing).
    region_units: u64,
    region_spares: u64,
    slips: Vec<u64>,
    defects: Vec<(u64, u64)>,
    offset_sectors: f64,
    track_skew: f64,
    cyl_skew: f64,
}

/// The drive's complete logical-to-physical layout.
#[derive(Clone, Debug)]
pub struct Layout {
    pub(crate) zones: Vec<Zone>,
    surfaces: u32,
    mapping: LbnMapping,
    track_sparing: bool,
    /// Slips push the skew of later tracks forward (per-track / per-cylinder schemes).
    slips_shift_skew: bool,
    blocks: u64,
}

impl Layout {
    /// Build the layout of a validated spec.
    pub fn new(spec: &HddSpec) -> Result<Layout, SpecError> {
        spec.validate()?;
        let surf = u64::from(spec.surfaces);
        let mut zones = Vec::with_capacity(spec.zones.len());
        let mut first_lbn = 0u64;
        for (i, z) in spec.zones.iter().enumerate() {
            let spt = u64::from(z.blocks_per_track);
            let cyls = u64::from(z.last_cylinder - z.first_cylinder + 1);
            let surface_spt =
                if z.surface_blocks_per_track.is_empty() { vec![z.blocks_per_track; spec.surfaces as usize] } else { z.surface_blocks_per_track.clone() };
            let cyl_sectors: u64 = surface_spt.iter().map(|&s| u64::from(s)).sum();
            // A last, partial range of cylinders has no spares: its blocks all fit below
            // the per-region count, so the same arithmetic maps it.
            let region_units = match spec.sparing {
                Sparing::None | Sparing::SectorsPerZone => cyls * cyl_sectors,
                Sparing::TracksPerZone => cyls * surf,
                Sparing::SectorsPerTrack => spt,
                Sparing::SectorsPerCylinder => spt * surf,
                Sparing::SectorsPerRange { range_cylinders } => spt * surf * u64::from(range_cylinders),
            };
            let region_spares = if matches!(spec.sparing, Sparing::None) { 0 } else { z.spares };
            if region_spares >= region_units {
                return Err(SpecError::new(format!("zones[{i}].spares"), "spares fill the whole sparing region"));
            }
            let blocks = u64::try_from(spec.zone_blocks(z))
                .map_err(|_| SpecError::new(format!("zones[{i}]"), "no usable blocks"))?;
            // Every region must have room for its slips (a last, partial range has none).
            let zone_units = if matches!(spec.sparing, Sparing::TracksPerZone) { cyls * surf } else { cyls * spt * surf };
            let full_regions = zone_units / region_units;
            let mut k = 0;
            while k < z.slips.len() {
                let r = z.slips[k] / region_units;
                let n = z.slips[k..].iter().take_while(|&&s| s / region_units == r).count() as u64;
                let room = if r < full_regions { region_spares } else { 0 };
                if n > room {
                    return Err(SpecError::new(
                        format!("zones[{i}].slips"),
                        format!("{n} slips in one sparing region exceed its {room} spares"),
                    ));
                }
                k += n as usize;
            }
            zones.push(Zone {
                first_cyl: z.first_cylinder,
                last_cyl: z.last_cylinder,
                spt: z.blocks_per_track,
                surface_spt,
                cyl_sectors,
                first_lbn,
                blocks,
                reserved: z.reserved_front_blocks,
                region_units,
                region_spares,
                slips: z.slips.clone(),
                defects: z.defects.clone(),
                // DiskSim truncates skews and offsets to whole sectors.
                offset_sectors: z.first_block_offset_sectors.trunc(),
                track_skew: z.track_skew_sectors.trunc(),
                cyl_skew: z.cylinder_skew_sectors.trunc(),
            });
            first_lbn += blocks;
        }
        Ok(Layout {
            zones,
            surfaces: spec.surfaces,
            mapping: spec.mapping,
            track_sparing: matches!(spec.sparing, Sparing::TracksPerZone),
            slips_shift_skew: matches!(spec.sparing, Sparing::SectorsPerTrack | Sparing::SectorsPerCylinder),
            blocks: first_lbn,
        })
    }

    /// Logical blocks mapped.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Index of the zone holding `lbn` (binary search); `lbn` must be < `blocks()`.
    pub(crate) fn zone_of_lbn(&self, lbn: u64) -> usize {
        self.zones.partition_point(|z| z.first_lbn + z.blocks <= lbn).min(self.zones.len() - 1)
    }

    /// Index of the zone holding physical cylinder `cyl`, if any.
    pub(crate) fn zone_of_cyl(&self, cyl: u32) -> Option<usize> {
        let i = self.zones.partition_point(|z| z.last_cyl < cyl);
        (i < self.zones.len() && self.zones[i].first_cyl <= cyl).then_some(i)
    }

    /// Sectors on the tracks of `surface` in zone `zi`.
    pub(crate) fn track_spt(&self, zi: usize, surface: u32) -> u32 {
        let z = &self.zones[zi];
        z.surface_spt.get(surface as usize).copied().unwrap_or(z.spt)
    }

    /// Physical surface for logical track `t` of a cylinder under the mapping scheme.
    fn surface_on_cyl(&self, z: &Zone, cyl: u32, t: u32) -> u32 {
        let flip = match self.mapping {
            LbnMapping::Conventional | LbnMapping::SurfaceSerpentine { .. } => false,
            LbnMapping::SerpentinePerZone => (cyl - z.first_cyl) % 2 == 1,
            LbnMapping::SerpentineGlobal => cyl % 2 == 1,
        };
        if flip {
            self.surfaces - 1 - t
        } else {
            t
        }
    }

    /// Map a logical block to its physical sector. `None` if `lbn >= blocks()`.
    pub fn lbn_to_pbn(&self, lbn: u64) -> Option<Pbn> {
        self.map(lbn).map(|(_, p)| p)
    }

    /// `lbn_to_pbn` that also tells the zone's index.
    pub(crate) fn map(&self, lbn: u64) -> Option<(usize, Pbn)> {
        if lbn >= self.blocks {
            return None;
        }
        let zi = self.zone_of_lbn(lbn);
        self.map_in(zi, lbn).map(|p| (zi, p))
    }

    /// Map `lbn`, known to lie in zone `zi`.
    fn map_in(&self, zi: usize, lbn: u64) -> Option<Pbn> {
        let z = self.zones.get(zi)?;
        if lbn < z.first_lbn || lbn >= z.first_lbn + z.blocks {
            return None;
        }
        let rel = lbn - z.first_lbn + z.reserved;
        if let LbnMapping::SurfaceSerpentine { band_cylinders } = self.mapping {
            return Some(self.banded_pbn(z, band_cylinders, rel));
        }
        let spt = u64::from(z.spt);
        let surf = u64::from(self.surfaces);
        let phys = if self.track_sparing {
            // Spare tracks at the zone end; slips are whole tracks.
            let mut track = rel / spt;
            for &s in &z.slips {
                if s <= track {
                    track += 1;
                }
            }
            track * spt + rel % spt
        } else {
            let per_region = z.region_units - z.region_spares;
            // Most blocks lie in a zone's first region (always, with per-zone sparing):
            // skip the division then.
            let (region, mut off) = if rel < per_region { (0, rel) } else { (rel / per_region, rel % per_region) };
            let base = region * z.region_units;
            // Slips of this region before the sector push it forward.
            let lo = z.slips.partition_point(|&s| s < base);
            for &s in &z.slips[lo..] {
                if s - base <= off && s < base + z.region_units {
                    off += 1;
                } else {
                    break;
                }
            }
            base + off
        };
        let phys = z.defects.iter().find(|d| d.0 == phys).map_or(phys, |d| d.1);
        let track = phys / spt;
        let cyl = z.first_cyl + (track / surf) as u32;
        let t = (track % surf) as u32;
        Some(Pbn { cylinder: cyl, surface: self.surface_on_cyl(z, cyl, t), sector: (phys % spt) as u32 })
    }

    /// A band's first cylinder and its cylinder count (the last band of a zone may be short).
    fn band(z: &Zone, band_cylinders: u32, band: u32) -> (u32, u32) {
        let first = z.first_cyl + band * band_cylinders;
        (first, band_cylinders.min(z.last_cyl + 1 - first))
    }

    /// The surface visited `k`-th in `band`: 0, 1, … on even bands, reversed on odd ones.
    fn band_surface(&self, band: u32, k: u32) -> u32 {
        if band.is_multiple_of(2) {
            k
        } else {
            self.surfaces - 1 - k
        }
    }

    /// Surface serpentine: physical sector of zone-relative block `rel`.
    fn banded_pbn(&self, z: &Zone, band_cylinders: u32, rel: u64) -> Pbn {
        let band_sectors = u64::from(band_cylinders) * z.cyl_sectors;
        let band = (rel / band_sectors) as u32;
        let mut r = rel % band_sectors;
        let (first, cyls) = Self::band(z, band_cylinders, band);
        for k in 0..self.surfaces {
            let surface = self.band_surface(band, k);
            let spt = u64::from(z.surface_spt[surface as usize]);
            let run = u64::from(cyls) * spt;
            if r < run || k + 1 == self.surfaces {
                let i = (r / spt) as u32;
                // The first surface of a band runs outward (from its highest cylinder down).
                let cylinder = if k.is_multiple_of(2) { first + cyls - 1 - i } else { first + i };
                return Pbn { cylinder, surface, sector: (r % spt) as u32 };
            }
            r -= run;
        }
        Pbn { cylinder: first, surface: 0, sector: 0 }
    }

    /// Surface serpentine: how many head switches and how many cylinder switches come
    /// before track (`cylinder`, `surface`) in block order within its zone.
    fn banded_switches(&self, z: &Zone, band_cylinders: u32, cylinder: u32, surface: u32) -> (u64, u64) {
        let band = (cylinder - z.first_cyl) / band_cylinders;
        let (first, cyls) = Self::band(z, band_cylinders, band);
        let k = if band.is_multiple_of(2) { surface } else { self.surfaces - 1 - surface };
        let i = if k.is_multiple_of(2) { first + cyls - 1 - cylinder } else { cylinder - first };
        let tracks = u64::from(band) * u64::from(self.surfaces) * u64::from(band_cylinders) + u64::from(k) * u64::from(cyls) + u64::from(i);
        // Consecutive bands meet on one surface: no head switch between them.
        let heads = u64::from(band) * u64::from(self.surfaces - 1) + u64::from(k);
        (heads, tracks - heads)
    }

    /// Angle (fraction of a revolution, in [0, 1)) at which physical sector `p` begins.
    pub fn sector_angle(&self, p: Pbn) -> f64 {
        self.zone_of_cyl(p.cylinder).map_or(0.0, |zi| self.sector_angle_in(zi, p))
    }

    /// `sector_angle` for a sector known to lie in zone `zi`.
    pub(crate) fn sector_angle_in(&self, zi: usize, p: Pbn) -> f64 {
        let z = &self.zones[zi];
        if let LbnMapping::SurfaceSerpentine { band_cylinders } = self.mapping {
            let (heads, cylinders) = self.banded_switches(z, band_cylinders, p.cylinder, p.surface);
            let skew = z.offset_sectors + heads as f64 * z.track_skew + cylinders as f64 * z.cyl_skew;
            let spt = f64::from(self.track_spt(zi, p.surface));
            return crate::mechanics::frac(skew / f64::from(z.spt) + f64::from(p.sector) / spt);
        }
        let cyl_rel = u64::from(p.cylinder - z.first_cyl);
        // Skew follows the logical track order.
        let t = u64::from(self.surface_on_cyl(z, p.cylinder, p.surface));
        let switches = t + (u64::from(self.surfaces) - 1) * cyl_rel;
        let mut sectors = z.offset_sectors + switches as f64 * z.track_skew + cyl_rel as f64 * z.cyl_skew;
        if self.slips_shift_skew {
            let spt = u64::from(z.spt);
            let tracks_before = cyl_rel * u64::from(self.surfaces) + t;
            let cutoff = tracks_before * spt;
            sectors += z.slips.partition_point(|&s| s < cutoff) as f64;
        }
        sectors += f64::from(p.sector);
        crate::mechanics::frac(sectors / f64::from(z.spt))
    }

    /// Sectors on the track holding `lbn` (the last block's track beyond the end).
    pub fn sectors_per_track(&self, lbn: u64) -> u32 {
        match self.map(lbn.min(self.blocks.saturating_sub(1))) {
            Some((zi, p)) => self.track_spt(zi, p.surface),
            None => self.zones[0].spt,
        }
    }

    /// How many of the `n` blocks from `lbn` lie on `lbn`'s track, contiguously, and the
    /// physical sector of the last of them. Requires `n >= 1` and `lbn + n <= blocks()`.
    pub(crate) fn run_on_track(&self, zi: usize, lbn: u64, n: u64, first: Pbn) -> (u64, Pbn) {
        let z = &self.zones[zi];
        let zone_left = z.first_lbn + z.blocks - lbn;
        let max_k = n.min(zone_left).min(u64::from(self.track_spt(zi, first.surface) - first.sector));
        if z.slips.is_empty() && z.defects.is_empty() {
            // Without slips or remaps a sparing region's blocks are contiguous, so the run
            // ends at the track's end, the zone's, the request's or the region's spares.
            let max_k = if self.track_sparing {
                max_k
            } else {
                let per_region = z.region_units - z.region_spares;
                let off = (lbn - z.first_lbn + z.reserved) % per_region;
                max_k.min(per_region - off)
            };
            return (max_k, Pbn { sector: first.sector + (max_k - 1) as u32, ..first });
        }
        let same = |k: u64| -> Option<Pbn> {
            let p = self.map_in(zi, lbn + k)?;
            (p.cylinder == first.cylinder && p.surface == first.surface && p.sector >= first.sector)
                .then_some(p)
        };
        // Usually the run simply goes on to the end of the track (or the zone, or the
        // request): check that guess with one mapping before searching.
        if max_k > 1 && same(max_k - 1).is_some_and(|q| u64::from(q.sector - first.sector) == max_k - 1) {
            return (max_k, Pbn { sector: first.sector + (max_k - 1) as u32, ..first });
        }
        if !z.defects.is_empty() {
            // Remaps break monotonicity: scan.
            let mut last = (1, first);
            for k in 1..max_k {
                match same(k) {
                    Some(p) if p.sector > last.1.sector => last = (k + 1, p),
                    _ => break,
                }
            }
            return last;
        }
        // Monotone: binary search the last k (0-based) still on this track.
        let (mut lo, mut hi) = (0u64, max_k - 1);
        let mut lo_p = first;
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            match same(mid) {
                Some(p) => {
                    lo = mid;
                    lo_p = p;
                }
                None => hi = mid - 1,
            }
        }
        (lo + 1, lo_p)
    }

    /// First logical block of the track after the one holding `lbn` (or `blocks()`).
    pub fn next_track_lbn(&self, lbn: u64) -> u64 {
        let Some((zi, p)) = self.map(lbn) else { return self.blocks };
        let left = self.blocks - lbn;
        let (k, _) = self.run_on_track(zi, lbn, left, p);
        lbn + k
    }

    /// First logical block of the cylinder after the one holding `lbn` (or `blocks()`).
    pub(crate) fn next_cylinder_lbn(&self, lbn: u64) -> u64 {
        let Some(p) = self.lbn_to_pbn(lbn) else { return self.blocks };
        let mut l = lbn;
        for _ in 0..=self.surfaces {
            l = self.next_track_lbn(l);
            match self.lbn_to_pbn(l) {
                Some(q) if q.cylinder == p.cylinder => continue,
                _ => return l,
            }
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{CacheSpec, Overheads, SeekModel, ZoneSpec};

    fn spec(sparing: Sparing, spares: u64, reserved: u64, slips: Vec<u64>) -> HddSpec {
        let zone = |first, last, spt, slips| ZoneSpec {
            first_cylinder: first,
            last_cylinder: last,
            blocks_per_track: spt,
            first_block_offset_sectors: 0.0,
            reserved_front_blocks: reserved,
            track_skew_sectors: 3.0,
            cylinder_skew_sectors: 5.0,
            spares,
            slips,
            defects: Vec::new(),
            surface_blocks_per_track: Vec::new(),
        };
        let mut s = HddSpec {
            name: "run".into(),
            surfaces: 3,
            cylinders: 10,
            block_count: 0,
            sector_bytes: 512,
            rpm: 6000.0,
            mapping: LbnMapping::SerpentinePerZone,
            sparing,
            zones: vec![zone(0, 4, 17, slips), zone(5, 9, 13, Vec::new())],
            seek: SeekModel::Table { points: vec![(1, 1.0), (9, 3.0)] },
            head_switch_ms: 0.1,
            write_settle_ms: 0.0,
            overheads: Overheads { time_scale: 1.0, ..Overheads::default() },
            bus_read_ms_per_sector: 0.0,
            bus_write_ms_per_sector: 0.0,
            cache: CacheSpec::disabled(),
        };
        s.block_count = s.zones.iter().map(|z| s.zone_blocks(z) as u64).sum();
        s
    }

    /// The run found by `run_on_track` (closed form without slips, search with them) is
    /// the one a block-by-block walk finds, for every block, request length and scheme.
    #[test]
    fn run_on_track_matches_a_block_by_block_walk() {
        let specs = [
            spec(Sparing::None, 0, 0, Vec::new()),
            spec(Sparing::SectorsPerTrack, 2, 1, Vec::new()),
            spec(Sparing::SectorsPerCylinder, 4, 0, Vec::new()),
            spec(Sparing::SectorsPerCylinder, 4, 0, vec![20, 70]),
            spec(Sparing::SectorsPerRange { range_cylinders: 2 }, 5, 3, Vec::new()),
            spec(Sparing::SectorsPerZone, 6, 0, Vec::new()),
            spec(Sparing::TracksPerZone, 1, 0, Vec::new()),
            spec(Sparing::TracksPerZone, 2, 0, vec![4]),
        ];
        for s in &specs {
            let layout = Layout::new(s).expect("valid test spec");
            for lbn in 0..layout.blocks() {
                let (zi, first) = layout.map(lbn).expect("mapped");
                for n in [1, 2, 5, 40] {
                    let n = n.min(layout.blocks() - lbn);
                    let mut walk = (1, first);
                    while walk.0 < n {
                        match layout.map(lbn + walk.0) {
                            Some((_, p))
                                if p.cylinder == first.cylinder && p.surface == first.surface && p.sector > walk.1.sector =>
                            {
                                walk = (walk.0 + 1, p)
                            }
                            _ => break,
                        }
                    }
                    assert_eq!(layout.run_on_track(zi, lbn, n, first), walk, "{:?} lbn {lbn} n {n}", s.sparing);
                }
            }
        }
    }
}

#[cfg(test)]
mod surface_serpentine {
    use super::*;
    use crate::spec::{CacheSpec, Overheads, SeekModel, ZoneSpec};
    use std::collections::HashSet;

    /// `surfaces` surfaces, zones of (first, last cylinder, per-surface sectors per track).
    fn banded(surfaces: u32, band: u32, zones: &[(u32, u32, Vec<u32>)]) -> HddSpec {
        let mut s = HddSpec {
            name: "banded".into(),
            surfaces,
            cylinders: zones.last().map_or(1, |z| z.1 + 1),
            block_count: 0,
            sector_bytes: 512,
            rpm: 10_000.0,
            mapping: LbnMapping::SurfaceSerpentine { band_cylinders: band },
            sparing: Sparing::None,
            zones: zones
                .iter()
                .map(|(first, last, spt)| ZoneSpec {
                    first_cylinder: *first,
                    last_cylinder: *last,
                    blocks_per_track: spt[0],
                    first_block_offset_sectors: 0.0,
                    reserved_front_blocks: 0,
                    track_skew_sectors: 2.0,
                    cylinder_skew_sectors: 3.0,
                    spares: 0,
                    slips: Vec::new(),
                    defects: Vec::new(),
                    surface_blocks_per_track: spt.clone(),
                })
                .collect(),
            seek: SeekModel::Table { points: vec![(1, 1.0), (9, 3.0)] },
            head_switch_ms: 0.1,
            write_settle_ms: 0.0,
            overheads: Overheads::default(),
            bus_read_ms_per_sector: 0.0,
            bus_write_ms_per_sector: 0.0,
            cache: CacheSpec::disabled(),
        };
        s.block_count = s.zones.iter().map(|z| s.zone_blocks(z) as u64).sum();
        s
    }

    #[test]
    fn blocks_run_as_in_the_papers_figure_2() {
        // Two surfaces, 64 tracks each, bands of 32: top 31→0, bottom 0→31, bottom 63→32,
        // top 32→63.
        let l = Layout::new(&banded(2, 32, &[(0, 63, vec![10, 10])])).unwrap();
        let at = |lbn| l.lbn_to_pbn(lbn).map(|p| (p.cylinder, p.surface, p.sector));
        assert_eq!(at(0), Some((31, 0, 0)));
        assert_eq!(at(9), Some((31, 0, 9)));
        assert_eq!(at(10), Some((30, 0, 0)));
        assert_eq!(at(310), Some((0, 0, 0)));
        assert_eq!(at(320), Some((0, 1, 0)));
        assert_eq!(at(630), Some((31, 1, 0)));
        assert_eq!(at(640), Some((63, 1, 0)));
        assert_eq!(at(960), Some((32, 0, 0)));
        assert_eq!(at(1279), Some((63, 0, 9)));
        assert_eq!(at(1280), None);
    }

    #[test]
    fn every_physical_sector_holds_exactly_one_block_and_runs_stop_at_track_ends() {
        // Three surfaces of different sizes, a short last band, two zones.
        let spec = banded(3, 4, &[(0, 9, vec![12, 10, 11]), (10, 16, vec![8, 9, 7])]);
        let l = Layout::new(&spec).unwrap();
        let expected: u64 = 10 * (12 + 10 + 11) + 7 * (8 + 9 + 7);
        assert_eq!(l.blocks(), expected);
        let mut seen = HashSet::new();
        for lbn in 0..l.blocks() {
            let (zi, p) = l.map(lbn).unwrap();
            assert!(p.sector < l.track_spt(zi, p.surface), "lbn {lbn}: {p:?}");
            assert!(seen.insert(p), "lbn {lbn} maps to {p:?} twice");
            for n in [1, 3, 20] {
                let n = n.min(l.blocks() - lbn);
                let mut walk = (1, p);
                while walk.0 < n {
                    match l.map(lbn + walk.0) {
                        Some((_, q)) if q.cylinder == p.cylinder && q.surface == p.surface && q.sector == walk.1.sector + 1 => walk = (walk.0 + 1, q),
                        _ => break,
                    }
                }
                assert_eq!(l.run_on_track(zi, lbn, n, p), walk, "lbn {lbn} n {n}");
            }
        }
        assert_eq!(l.sectors_per_track(0), 12);
        assert_eq!(l.sectors_per_track(4 * 12), 10, "the second surface of the first band");
    }

    #[test]
    fn skew_grows_by_a_cylinder_skew_along_a_surface_and_a_track_skew_at_a_surface_switch() {
        let l = Layout::new(&banded(2, 4, &[(0, 7, vec![10, 10])])).unwrap();
        let start = |lbn: u64| {
            let (zi, p) = l.map(lbn).unwrap();
            assert_eq!(p.sector, 0);
            l.sector_angle_in(zi, p) * 10.0
        };
        let close = |a: f64, b: f64| ((a - b).rem_euclid(10.0)).min((b - a).rem_euclid(10.0)) < 1e-9;
        assert!(close(start(0), 0.0));
        assert!(close(start(10), 3.0), "one cylinder switch");
        assert!(close(start(40), 4.0 * 3.0 - 3.0 + 2.0), "three cylinder switches, then a head switch");
        assert!(close(start(80), 6.0 * 3.0 + 2.0 + 3.0), "into the next band on the same surface: a cylinder switch");
    }
}
