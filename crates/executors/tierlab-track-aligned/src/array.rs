//! A RAID-5 of modelled disks for the FSU study's workloads: conventional (Linux software
//! RAID-5, left-symmetric, a small chunk), or track-aligned as the paper builds it:
//!
//! - **A chunk per track.** The disks' tracks are made common ([`TrackMap`]: each virtual
//!   track is the smallest of the disks' tracks at that index, rounded down to the chunk)
//!   and no disk operation crosses one.
//! - **Parity fill-in.** A read that covers every data chunk of a stripe also reads the
//!   stripe's parity chunk, so each disk gets one whole-track request rather than a
//!   request with a hole at every parity chunk ([`Geometry::with_parity_fill_in`]).
//! - **Read-ahead by array track**: one request reads a track of each data disk.
//!
//! The disks run under tierlab's array executor (`tierlab-array-sim`) with no NVRAM and no
//! power management; each has its own queue, C-LOOK by block address.

use crate::workloads::{mechanics, run, FirstResponses, Replayed, Scheme, Target, QUEUE};
use crate::{Extent, Tracks};
use tierlab_raid::{Geometry, RaidLevel};
use tierlab_array_policy::Baseline;
use tierlab_array_sim::ArrayController;
use tierlab_hdd::{HddDevice, HddSpec, Layout};
use tierlab_engine::{Replay, SchedulerKind, Simulation};
use tierlab_track_map::{TrackMap, TrackMapError};
use tierlab_types::IoRequest;

/// The paper's chunk: 4 KB.
pub const FSU_CHUNK_BYTES: u64 = 4096;

/// A RAID-5 of `specs`, laid out both ways.
pub struct Array {
    specs: Vec<HddSpec>,
    sector_bytes: u64,
    plain: Geometry,
    /// The plain array's logical space cut where disk 0's tracks fall (a track of each
    /// data disk), for read-ahead windows of that size.
    plain_tracks: Tracks,
    aligned: Geometry,
    map: TrackMap,
    /// The track-aligned array's logical tracks: a virtual track of each data disk.
    aligned_tracks: Tracks,
    queue: SchedulerKind,
}

impl Array {
    /// A RAID-5 of the disks `specs` (at least three, one sector size) with chunks of
    /// `chunk_bytes`.
    pub fn raid5(specs: Vec<HddSpec>, chunk_bytes: u64) -> Result<Array, String> {
        let sector_bytes = specs.first().map(|s| u64::from(s.sector_bytes)).ok_or("an array needs disks")?;
        if let Some(s) = specs.iter().find(|s| u64::from(s.sector_bytes) != sector_bytes) {
            return Err(format!("disk `{}` has {}-byte sectors, the first disk {sector_bytes}", s.name, s.sector_bytes));
        }
        if chunk_bytes == 0 || !chunk_bytes.is_multiple_of(sector_bytes) {
            return Err(format!("the chunk must be a positive whole number of {sector_bytes}-byte sectors, found {chunk_bytes} bytes"));
        }
        let mut boundaries = Vec::with_capacity(specs.len());
        for s in &specs {
            let layout = Layout::new(s).map_err(|e| format!("{}: {}: {}", s.name, e.parameter, e.problem))?;
            boundaries.push(tierlab_track_map::boundaries(&layout, s.block_count));
        }
        let smallest_bytes = boundaries.iter().map(|b| b.last().copied().unwrap_or(0)).min().unwrap_or(0) * sector_bytes;
        let plain = Geometry::new(RaidLevel::Raid5, specs.len(), chunk_bytes, smallest_bytes).map_err(|e| e.to_string())?;
        let map = TrackMap::new(&boundaries, chunk_bytes / sector_bytes, sector_bytes).map_err(|e| match e {
            TrackMapError::Invalid { field: "block_sectors", .. } => {
                format!("a chunk of {chunk_bytes} bytes is larger than the disks' tracks: a track-aligned array needs chunks of a track or less")
            }
            e => e.to_string(),
        })?;
        let aligned = Geometry::new(RaidLevel::Raid5, specs.len(), chunk_bytes, map.disk_bytes()).map_err(|e| e.to_string())?.with_parity_fill_in(true);
        let data = plain.data_units_per_stripe();
        let logical = |bounds: &[u64], g: &Geometry| {
            Tracks::from_boundaries(bounds.iter().map(|b| b * data), g.capacity_bytes() / sector_bytes)
                .ok_or_else(|| "the array holds no whole track".to_string())
        };
        let plain_tracks = logical(&boundaries[0], &plain)?;
        let aligned_tracks = logical(map.virtual_boundaries_sectors(), &aligned)?;
        Ok(Array { specs, sector_bytes, plain, plain_tracks, aligned, map, aligned_tracks, queue: QUEUE })
    }

    /// Order each disk's queue with `queue` rather than [`QUEUE`].
    pub fn with_queue(self, queue: SchedulerKind) -> Array {
        Array { queue, ..self }
    }

    pub fn disks(&self) -> usize {
        self.specs.len()
    }

    pub fn data_disks(&self) -> u64 {
        self.plain.data_units_per_stripe()
    }

    /// The track-aligned layout's unused share of the disks' sectors.
    pub fn unused_fraction(&self) -> f64 {
        self.map.unused_fraction()
    }

    /// Logical bytes of the conventional and the track-aligned array.
    pub fn capacity_bytes(&self) -> (u64, u64) {
        (self.plain.capacity_bytes(), self.aligned.capacity_bytes())
    }
}

impl Target for Array {
    fn sector_bytes(&self) -> u64 {
        self.sector_bytes
    }

    fn tracks(&self, scheme: Scheme) -> &Tracks {
        match scheme {
            Scheme::TrackAligned => &self.aligned_tracks,
            _ => &self.plain_tracks,
        }
    }

    fn drain(&self) -> Vec<Extent> {
        // Two stripes' data at the end: between them every disk holds data.
        let end = self.plain_tracks.end().min(self.aligned_tracks.end());
        let sectors = 2 * self.plain.stripe_data_bytes() / self.sector_bytes;
        vec![Extent { lbn: end - sectors, sectors }]
    }

    fn replay(&self, scheme: Scheme, requests: &mut dyn Iterator<Item = IoRequest>, replay: Replay) -> Result<Replayed, String> {
        let mut sim = Simulation::new(self.queue);
        for (i, spec) in self.specs.iter().enumerate() {
            sim.add_device(Box::new(HddDevice::new(format!("disk{i}"), mechanics(spec, scheme)?)));
        }
        let controller = match scheme {
            Scheme::TrackAligned => ArrayController::new(self.aligned, Box::new(Baseline), None, 1, false).with_track_map(self.map.clone())?,
            _ => ArrayController::new(self.plain, Box::new(Baseline), None, 1, false),
        };
        run(sim, FirstResponses::new(controller), requests, replay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::maxtor_like;
    use crate::workloads::{bonnie, diff, streams};

    fn array() -> Array {
        let outers = [[1144, 1092], [1092, 1144], [1092, 1144], [1025, 1196], [1060, 1170]];
        Array::raid5(outers.iter().map(|&o| maxtor_like(o, 2_000_000_000)).collect(), FSU_CHUNK_BYTES).unwrap()
    }

    #[test]
    fn aligned_array_tracks_are_a_common_track_of_each_data_disk() {
        let a = array();
        // The outermost tracks: the smallest of 1,144/1,092/1,025/1,060 is 1,025, rounded
        // down to 8 sectors: 1,024; four data disks.
        assert_eq!(a.tracks(Scheme::TrackAligned).track_of(0), (0, 4 * 1024));
        assert_eq!(a.tracks(Scheme::Conventional).track_of(0), (0, 4 * 1144));
        let unused = a.unused_fraction();
        assert!(unused > 0.05 && unused < 0.12, "{unused}");
        let (plain, aligned) = a.capacity_bytes();
        assert!(aligned < plain && aligned as f64 > 0.85 * plain as f64, "{aligned} vs {plain}");
    }

    #[test]
    fn track_aligned_raid5_reads_faster_and_keeps_every_byte() {
        let a = array();
        let conv = bonnie(&a, Scheme::Conventional, 64_000_000).unwrap();
        let aligned = bonnie(&a, Scheme::TrackAligned, 64_000_000).unwrap();
        assert!(aligned.read_mb_s > conv.read_mb_s, "{aligned:?} vs {conv:?}");
        let d_conv = diff(&a, Scheme::Conventional, 16_000_000).unwrap();
        let d_aligned = diff(&a, Scheme::TrackAligned, 16_000_000).unwrap();
        assert!(d_aligned.seconds < d_conv.seconds, "{d_aligned:?} vs {d_conv:?}");
        let s = streams(&a, Scheme::TrackAligned, 500_000.0, 20, 3).unwrap();
        assert!(s.startup_s.iter().all(|l| l.is_finite() && *l > 0.0), "{:?}", s.startup_s);
    }

    #[test]
    fn an_array_track_read_is_one_whole_track_on_every_disk() {
        let a = array();
        let tracks = a.tracks(Scheme::TrackAligned);
        let mut lbn = 0;
        let mut reqs = Vec::new();
        for _ in 0..40 {
            let (first, len) = tracks.track_of(lbn);
            reqs.push(IoRequest { time_ns: 0, volume: 0, offset_bytes: first * 512, len_bytes: len * 512, op: tierlab_types::Op::Read });
            lbn = first + len;
        }
        let r = a.replay(Scheme::TrackAligned, &mut reqs.into_iter(), Replay::Closed { depth: 1 }).unwrap().report;
        // Parity fill-in: every disk reads a fifth more than its share of data, and each
        // array track is one operation per disk, never cut at a boundary.
        let total: u64 = r.devices.iter().map(|d| d.read_bytes).sum();
        assert_eq!(total * 4, lbn * 512 * 5);
        assert!(r.devices.iter().all(|d| d.ops == 40), "{:?}", r.devices.iter().map(|d| d.ops).collect::<Vec<_>>());
        let exec = &r.controller["executor"];
        assert_eq!(exec["track_splits"], 0);
        assert!(exec["fill_in_reads"].as_u64().unwrap() > 0);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::tests::maxtor_like;
    use proptest::prelude::*;
    use std::sync::OnceLock;
    use tierlab_raid::Plan;
    use tierlab_types::Op;

    fn array() -> &'static Array {
        static ARRAY: OnceLock<Array> = OnceLock::new();
        ARRAY.get_or_init(|| {
            let outers = [[1144, 1092], [1092, 1144], [1025, 1196], [1060, 1170]];
            Array::raid5(outers.iter().map(|&o| maxtor_like(o, 1_000_000_000)).collect(), FSU_CHUNK_BYTES).unwrap()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Any mix of reads and writes on either layout: every request completes, and the
        /// disks move exactly the bytes the geometry plans (cutting at track boundaries
        /// neither loses nor adds any).
        #[test]
        fn no_request_or_byte_is_lost_through_the_track_map(
            reqs in prop::collection::vec((0u64..1_000_000, 1u64..600, any::<bool>()), 1..60),
            aligned in any::<bool>(),
        ) {
            let a = array();
            let scheme = if aligned { Scheme::TrackAligned } else { Scheme::Conventional };
            let geometry = if aligned { a.aligned } else { a.plain };
            let sectors = geometry.capacity_bytes() / 512;
            let requests: Vec<IoRequest> = reqs
                .iter()
                .map(|&(at, len, write)| {
                    let lbn = at * 7919 % (sectors - len);
                    IoRequest { time_ns: 0, volume: 0, offset_bytes: lbn * 512, len_bytes: len * 512, op: if write { Op::Write } else { Op::Read } }
                })
                .collect();
            let (mut read_bytes, mut write_bytes) = (0, 0);
            let mut plan = Plan::default();
            for r in &requests {
                geometry.plan(r.op, r.offset_bytes, r.len_bytes, &mut plan).unwrap();
                read_bytes += plan.reads.iter().map(|p| p.len_bytes).sum::<u64>();
                write_bytes += plan.writes.iter().map(|p| p.len_bytes).sum::<u64>();
            }
            let report = a.replay(scheme, &mut requests.clone().into_iter(), Replay::Closed { depth: 4 }).unwrap().report;
            prop_assert_eq!(report.requests, requests.len() as u64);
            prop_assert_eq!(report.response_time.count, requests.len() as u64);
            prop_assert_eq!(report.devices.iter().map(|d| d.read_bytes).sum::<u64>(), read_bytes);
            prop_assert_eq!(report.devices.iter().map(|d| d.write_bytes).sum::<u64>(), write_bytes);
        }
    }
}
