//! Track-aligned disk space.
//!
//! Drives of one model do not agree on their track sizes: surfaces are formatted to their
//! heads, and numbering variants put the larger surface first on one drive and second on
//! another (Qian, Meyers and Wang's Table 2). A RAID stripes the same disk offsets on every
//! disk, so a chunk per track needs tracks that are the same size on every disk.
//! [`TrackMap`] builds them: its virtual track `k` has, on every disk, the smallest of the
//! disks' physical tracks `k` rounded down to a block, and is laid at the start of
//! physical track `k` of each disk. The rest of each larger track is left unused (the
//! paper's "about 10 % of unused sectors"), as is the tail of a track that is not a whole
//! block (the paper's excluded boundary blocks, here counted from each track's start).
//! A physical track smaller than one block on some disk is skipped on all.
//!
//! Users lay their data over the virtual space ([`TrackMap::disk_bytes`] per disk);
//! [`TrackMap::split`] turns a virtual range into physical ones, cut at track boundaries,
//! so no disk operation ever crosses one. [`TrackAlignedDevice`] does this for one
//! simulated disk: whatever runs on it (a hybrid drive's extents, a workload) is laid
//! inside tracks.

use tierlab_hdd::Layout;
use tierlab_engine::{Device, DeviceCommand, DeviceOp, DeviceReport};

/// A track map that cannot be built, or a range outside it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrackMapError {
    #[error("`{field}`: expected {expected}, found {found}")]
    Invalid { field: &'static str, expected: String, found: String },
    #[error("{len_bytes} bytes at byte {offset_bytes} of disk {disk} are outside the track map's {capacity_bytes} bytes per disk, or not whole sectors")]
    OutOfRange { disk: usize, offset_bytes: u64, len_bytes: u64, capacity_bytes: u64 },
}

/// The track boundaries of a modelled disk up to block `blocks` (its capacity; its zones
/// may map more): each track's first block, then the end.
pub fn boundaries(layout: &Layout, blocks: u64) -> Vec<u64> {
    let end = blocks.clamp(1, layout.blocks().max(1));
    let mut out = Vec::new();
    let mut lbn = 0;
    while lbn < end {
        out.push(lbn);
        lbn = layout.next_track_lbn(lbn).max(lbn + 1);
    }
    out.push(end);
    out
}

/// Tracks common to one or more disks, and where each lies on each disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackMap {
    sector_bytes: u64,
    /// First virtual sector of each virtual track, then the end of the virtual space.
    virtual_starts: Vec<u64>,
    /// Per disk, the physical first sector of each virtual track.
    physical_starts: Vec<Vec<u64>>,
    /// Per disk, the physical sectors of the tracks the map draws from.
    physical_sectors: Vec<u64>,
}

impl TrackMap {
    /// `boundaries[d]`: disk `d`'s track boundaries in sectors, rising from 0, the last
    /// one the end of its last track. `block_sectors`: the unit data is laid in (a file
    /// system block, an array's chunk).
    pub fn new(boundaries: &[Vec<u64>], block_sectors: u64, sector_bytes: u64) -> Result<TrackMap, TrackMapError> {
        let invalid = |field: &'static str, expected: &str, found: String| TrackMapError::Invalid { field, expected: expected.into(), found };
        if block_sectors == 0 {
            return Err(invalid("block_sectors", "a positive number of sectors", "0".into()));
        }
        if sector_bytes == 0 {
            return Err(invalid("sector_bytes", "a positive number of bytes", "0".into()));
        }
        if boundaries.is_empty() {
            return Err(invalid("disks", "at least one disk's tracks", "none".into()));
        }
        for (d, b) in boundaries.iter().enumerate() {
            if b.len() < 2 || b[0] != 0 || b.windows(2).any(|w| w[0] >= w[1]) {
                return Err(invalid("tracks", "track boundaries rising from sector 0", format!("disk {d}: {} boundaries, not rising from 0", b.len())));
            }
        }
        let tracks = boundaries.iter().map(|b| b.len() - 1).min().unwrap_or(0);
        let mut virtual_starts = vec![0u64];
        let mut physical_starts = vec![Vec::new(); boundaries.len()];
        for k in 0..tracks {
            let smallest = boundaries.iter().map(|b| b[k + 1] - b[k]).min().unwrap_or(0);
            let size = smallest / block_sectors * block_sectors;
            if size == 0 {
                continue;
            }
            let last = *virtual_starts.last().unwrap_or(&0);
            virtual_starts.push(last + size);
            for (d, b) in boundaries.iter().enumerate() {
                physical_starts[d].push(b[k]);
            }
        }
        if virtual_starts.len() < 2 {
            return Err(invalid("block_sectors", "a block no larger than the disks' smallest tracks", format!("{block_sectors} sectors")));
        }
        let physical_sectors = boundaries.iter().map(|b| b[tracks]).collect();
        Ok(TrackMap { sector_bytes, virtual_starts, physical_starts, physical_sectors })
    }

    /// Disks the map covers.
    pub fn disks(&self) -> usize {
        self.physical_starts.len()
    }

    /// Virtual tracks.
    pub fn tracks(&self) -> usize {
        self.virtual_starts.len() - 1
    }

    /// Bytes of virtual space on each disk.
    pub fn disk_bytes(&self) -> u64 {
        self.virtual_starts[self.tracks()] * self.sector_bytes
    }

    /// The first virtual sector of each virtual track, then the space's end.
    pub fn virtual_boundaries_sectors(&self) -> &[u64] {
        &self.virtual_starts
    }

    /// The share of the disks' physical sectors (over the tracks the map draws from) that
    /// the map leaves unused.
    pub fn unused_fraction(&self) -> f64 {
        let physical: u64 = self.physical_sectors.iter().sum();
        let used = self.virtual_starts[self.tracks()] * self.disks() as u64;
        if physical == 0 {
            return 0.0;
        }
        1.0 - used as f64 / physical as f64
    }

    /// The virtual track holding virtual sector `s`: (index, first sector, sectors).
    fn track_of(&self, s: u64) -> (usize, u64, u64) {
        let k = self.virtual_starts.partition_point(|&v| v <= s).saturating_sub(1).min(self.tracks() - 1);
        (k, self.virtual_starts[k], self.virtual_starts[k + 1] - self.virtual_starts[k])
    }

    /// The physical ranges (byte offset, bytes) of `len_bytes` of disk `disk`'s virtual
    /// space at `offset_bytes`, one per track touched, in order, appended to `out`.
    pub fn split(&self, disk: usize, offset_bytes: u64, len_bytes: u64, out: &mut Vec<(u64, u64)>) -> Result<(), TrackMapError> {
        let sb = self.sector_bytes;
        let end = offset_bytes.checked_add(len_bytes).filter(|&e| e <= self.disk_bytes());
        let whole = offset_bytes.is_multiple_of(sb) && len_bytes.is_multiple_of(sb);
        let (Some(end), true, true) = (end, whole, disk < self.disks()) else {
            return Err(TrackMapError::OutOfRange { disk, offset_bytes, len_bytes, capacity_bytes: self.disk_bytes() });
        };
        let mut s = offset_bytes / sb;
        let end_s = end / sb;
        while s < end_s {
            let (k, first, len) = self.track_of(s);
            let n = (first + len).min(end_s) - s;
            out.push(((self.physical_starts[disk][k] + (s - first)) * sb, n * sb));
            s += n;
        }
        Ok(())
    }
}

/// A simulated disk whose space is laid inside its tracks ([`TrackMap`] of one disk): its
/// capacity is the map's, and an operation crossing a track boundary is served as one
/// command per track, back to back.
pub struct TrackAlignedDevice<D> {
    inner: D,
    map: TrackMap,
    parts: Vec<(u64, u64)>,
    /// Operations cut at a track boundary.
    splits: u64,
}

impl<D: Device> TrackAlignedDevice<D> {
    /// `inner` laid out by `map`, a map of one disk (`inner`'s).
    pub fn new(inner: D, map: TrackMap) -> Result<Self, TrackMapError> {
        if map.disks() != 1 {
            return Err(TrackMapError::Invalid { field: "disks", expected: "a track map of one disk".into(), found: map.disks().to_string() });
        }
        Ok(TrackAlignedDevice { inner, map, parts: Vec::new(), splits: 0 })
    }

    pub fn map(&self) -> &TrackMap {
        &self.map
    }

    fn physical(&self, offset_bytes: u64) -> u64 {
        let mut parts = Vec::with_capacity(1);
        match self.map.split(0, offset_bytes / self.map.sector_bytes * self.map.sector_bytes, self.map.sector_bytes, &mut parts) {
            Ok(()) => parts[0].0,
            Err(_) => offset_bytes,
        }
    }
}

impl<D: Device> Device for TrackAlignedDevice<D> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capacity_bytes(&self) -> u64 {
        self.map.disk_bytes().min(self.inner.capacity_bytes())
    }

    fn max_in_flight(&self) -> usize {
        self.inner.max_in_flight()
    }

    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        self.parts.clear();
        if self.map.split(0, op.offset_bytes, op.len_bytes, &mut self.parts).is_err() {
            // Outside the map or not whole sectors: the inner device judges it as it is.
            return self.inner.service(now_ns, op);
        }
        self.splits += self.parts.len().saturating_sub(1) as u64;
        let mut t = now_ns;
        for &(offset_bytes, len_bytes) in &self.parts {
            t = self.inner.service(t, &DeviceOp { offset_bytes, len_bytes, ..*op });
        }
        t
    }

    fn command(&mut self, now_ns: u64, cmd: DeviceCommand) -> u64 {
        self.inner.command(now_ns, cmd)
    }

    fn position_key(&self, offset_bytes: u64) -> u64 {
        self.inner.position_key(self.physical(offset_bytes))
    }

    fn current_position_key(&self) -> u64 {
        self.inner.current_position_key()
    }

    /// The positioning of the operation's first part (the others follow on its track's
    /// neighbours).
    fn positioning_ns(&self, now_ns: u64, op: &DeviceOp) -> Option<u64> {
        let mut parts = Vec::with_capacity(2);
        match self.map.split(0, op.offset_bytes, op.len_bytes, &mut parts) {
            Ok(()) => parts.first().and_then(|&(offset_bytes, len_bytes)| self.inner.positioning_ns(now_ns, &DeviceOp { offset_bytes, len_bytes, ..*op })),
            Err(_) => self.inner.positioning_ns(now_ns, op),
        }
    }

    fn finish(&mut self, end_ns: u64) {
        self.inner.finish(end_ns)
    }

    fn report(&self) -> DeviceReport {
        let mut r = self.inner.report();
        r.counters.insert("track_splits".into(), self.splits as f64);
        r
    }

    fn checkpoint(&mut self, now_ns: u64) -> DeviceReport {
        let mut r = self.inner.checkpoint(now_ns);
        r.counters.insert("track_splits".into(), self.splits as f64);
        r
    }

    fn set_wear_leveling_paused(&mut self, paused: bool) {
        self.inner.set_wear_leveling_paused(paused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any boundaries and any range: the map is built or refused, and a range is split
        /// or refused, never a panic; a split range keeps its bytes, each part inside one
        /// of the disk's tracks.
        #[test]
        fn any_input_is_mapped_or_refused(
            steps in prop::collection::vec(prop::collection::vec(0u64..300, 0..40), 0..4),
            block in 0u64..64,
            disk in 0usize..5,
            offset in any::<u64>(),
            len in any::<u64>(),
        ) {
            // Track sizes from `steps` (a zero makes boundaries that do not rise).
            let boundaries: Vec<Vec<u64>> = steps.iter().map(|v| {
                std::iter::once(0).chain(v.iter().scan(0, |at, s| { *at += s; Some(*at) })).collect()
            }).collect();
            let Ok(map) = TrackMap::new(&boundaries, block, 512) else { return Ok(()) };
            let mut parts = Vec::new();
            for (offset, len) in [(offset, len), (offset % (map.disk_bytes() + 1) / 512 * 512, len % 65_536 * 512)] {
                parts.clear();
                if map.split(disk, offset, len, &mut parts).is_ok() {
                    prop_assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), len);
                    let b = &boundaries[disk];
                    for &(at, n) in &parts {
                        let first = at / 512;
                        let track = b.partition_point(|&x| x <= first) - 1;
                        prop_assert!(first + n / 512 <= b[track + 1], "{:?} leaves its track", (at, n));
                    }
                }
            }
        }
    }

    #[test]
    fn virtual_tracks_take_the_smallest_rounded_to_the_block() {
        // Disk 0: 1,144 then 1,092; disk 1 the other way round; a block of 8 sectors.
        let a = vec![0, 1144, 2236, 3380];
        let b = vec![0, 1092, 2236, 3328];
        let m = TrackMap::new(&[a, b], 8, 512).unwrap();
        assert_eq!(m.virtual_boundaries_sectors(), &[0, 1088, 2176, 3264]);
        assert_eq!(m.disk_bytes(), 3264 * 512);
        let unused = 1.0 - (2.0 * 3264.0) / (3380.0 + 3328.0);
        assert!((m.unused_fraction() - unused).abs() < 1e-12);
        // A range across the first virtual boundary becomes two, each at its disk's track.
        let mut out = Vec::new();
        m.split(1, 1000 * 512, 200 * 512, &mut out).unwrap();
        assert_eq!(out, vec![(1000 * 512, 88 * 512), (1092 * 512, 112 * 512)]);
        out.clear();
        m.split(0, 1000 * 512, 200 * 512, &mut out).unwrap();
        assert_eq!(out, vec![(1000 * 512, 88 * 512), (1144 * 512, 112 * 512)]);
    }

    #[test]
    fn tiny_tracks_are_skipped_and_bad_input_is_refused() {
        let m = TrackMap::new(&[vec![0, 16, 20, 36]], 8, 512).unwrap();
        assert_eq!(m.virtual_boundaries_sectors(), &[0, 16, 32]);
        let mut out = Vec::new();
        m.split(0, 8 * 512, 16 * 512, &mut out).unwrap();
        assert_eq!(out, vec![(8 * 512, 8 * 512), (20 * 512, 8 * 512)], "the 4-sector track is never used");
        assert!(TrackMap::new(&[vec![0, 4]], 8, 512).is_err());
        assert!(TrackMap::new(&[vec![5, 40]], 8, 512).is_err());
        assert!(TrackMap::new(&[], 8, 512).is_err());
        assert!(m.split(0, 30 * 512, 4 * 512, &mut out).is_err(), "past the end");
        assert!(m.split(1, 0, 512, &mut out).is_err(), "no such disk");
        assert!(m.split(0, 100, 512, &mut out).is_err(), "not whole sectors");
        assert!(m.split(0, u64::MAX - 10, 512, &mut out).is_err(), "overflow");
    }
}
