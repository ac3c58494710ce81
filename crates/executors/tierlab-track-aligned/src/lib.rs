//! Track-aligned extents on one disk (Schindler et al., FAST 2002, as re-implemented in
//! Linux ext2 by Qian, Meyers and Wang): where a file's blocks go, how it is read ahead,
//! and what that does to the FSU study's three workloads on tierlab's HDD model.
//!
//! - [`Tracks`]: every track's first block, from the model's layout (or a probe).
//! - [`allocate`]: a file's extents, contiguous ([`Allocation::Conventional`]) or kept
//!   inside tracks ([`Allocation::TrackAligned`]: blocks that straddle a boundary are never
//!   used, as the paper's bad-block list makes them, and files take whole tracks, as its
//!   pre-allocation does).
//! - [`reads`]: the requests reading a file issues: fixed read-ahead windows, or one
//!   request per track extent.
//! - [`workloads`]: Bonnie's sequential read and write of a 1 GB file, diff's interleaved
//!   reads of two 512 MB files, and multimedia streams at 500 KB/s added one a second, on
//!   a disk or an array.
//! - [`array`]: a RAID-5 of such disks, conventional or track-aligned (a chunk per track
//!   common to the disks, parity fill-in), run by tierlab's array executor.

pub mod array;
pub mod workloads;

use serde::Serialize;

/// File system block: 4 KiB, in 512-byte sectors.
pub const BLOCK_SECTORS: u64 = 8;

/// The first block of every track of a disk, ascending, and the disk's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tracks {
    starts: Vec<u64>,
    end: u64,
}

impl Tracks {
    /// The tracks of the model's layout up to block `blocks` (the drive's capacity; its
    /// zones may map more).
    pub fn of_layout(layout: &tierlab_hdd::Layout, blocks: u64) -> Tracks {
        let mut starts = tierlab_track_map::boundaries(layout, blocks);
        let end = starts.pop().unwrap_or(1);
        Tracks { starts, end }
    }

    /// Tracks from their first blocks (ascending, the first 0) and the disk's end.
    pub fn new(starts: Vec<u64>, end: u64) -> Option<Tracks> {
        let ok = starts.first() == Some(&0) && starts.windows(2).all(|w| w[0] < w[1]) && starts.last().is_some_and(|&l| l < end);
        ok.then_some(Tracks { starts, end })
    }

    /// The track holding `lbn`: its first block and its length in sectors.
    pub fn track_of(&self, lbn: u64) -> (u64, u64) {
        let i = self.starts.partition_point(|&s| s <= lbn).saturating_sub(1);
        let next = self.starts.get(i + 1).copied().unwrap_or(self.end);
        (self.starts[i], next - self.starts[i])
    }

    /// Track boundaries ending in `end`: `[0, b1, b2, …, end]`, the last track cut at
    /// `end` (`None` if `end` is 0 or the boundaries do not rise from 0).
    pub fn from_boundaries(boundaries: impl IntoIterator<Item = u64>, end: u64) -> Option<Tracks> {
        let starts: Vec<u64> = boundaries.into_iter().take_while(|&b| b < end).collect();
        Tracks::new(starts, end)
    }

    pub fn end(&self) -> u64 {
        self.end
    }

    pub fn count(&self) -> usize {
        self.starts.len()
    }
}

/// How a file's blocks are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Allocation {
    /// One contiguous run of blocks from the start.
    Conventional,
    /// Whole tracks from the first track starting at or after the start, each track's
    /// blocks that lie wholly inside it (boundary-straddling blocks are skipped).
    TrackAligned,
}

/// A run of sectors on the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Extent {
    pub lbn: u64,
    pub sectors: u64,
}

/// Where a file of `bytes` starting near `start` goes, as extents in file order; `None`
/// if it does not fit before the disk's end.
pub fn allocate(tracks: &Tracks, start: u64, bytes: u64, how: Allocation) -> Option<Vec<Extent>> {
    let mut left = bytes.div_ceil(BLOCK_SECTORS * 512) * BLOCK_SECTORS;
    let mut out = Vec::new();
    match how {
        Allocation::Conventional => {
            let lbn = start.div_ceil(BLOCK_SECTORS) * BLOCK_SECTORS;
            (lbn + left <= tracks.end).then(|| vec![Extent { lbn, sectors: left }])
        }
        Allocation::TrackAligned => {
            let (first, len) = tracks.track_of(start);
            let mut t = if first == start { first } else { first + len };
            while left > 0 {
                if t >= tracks.end {
                    return None;
                }
                let (s, len) = tracks.track_of(t);
                let lo = s.div_ceil(BLOCK_SECTORS) * BLOCK_SECTORS;
                let hi = (s + len) / BLOCK_SECTORS * BLOCK_SECTORS;
                if hi > lo {
                    let take = (hi - lo).min(left);
                    out.push(Extent { lbn: lo, sectors: take });
                    left -= take;
                }
                t = s + len;
            }
            Some(out)
        }
    }
}

/// How a file is read ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadAhead {
    /// Requests of this many sectors, each ending early only where the file's extent ends.
    Window(u64),
    /// One request per extent piece inside a track (with track-aligned extents: one per
    /// track, a track's worth).
    Tracks,
}

/// The requests reading `extents` from the start issues: (first sector, sectors).
pub fn reads<'a>(tracks: &'a Tracks, extents: &'a [Extent], ra: ReadAhead) -> impl Iterator<Item = Extent> + 'a {
    extents.iter().flat_map(move |e| {
        let mut at = e.lbn;
        let end = e.lbn + e.sectors;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let n = match ra {
                ReadAhead::Window(w) => w.max(1).min(end - at),
                ReadAhead::Tracks => {
                    let (s, len) = tracks.track_of(at);
                    (s + len).min(end) - at
                }
            };
            let r = Extent { lbn: at, sectors: n };
            at += n;
            Some(r)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_hdd::{Datasheet, DatasheetLayout, DatasheetTiming, HddSpec};

    /// A drive like the paper's Maxtor (10,000 rpm, 89.5 MB/s) with two surfaces whose
    /// outermost tracks hold `outer` sectors.
    pub(crate) fn maxtor_like(outer: [u32; 2], capacity_bytes: u64) -> HddSpec {
        HddSpec::from_datasheet(&Datasheet {
            name: format!("maxtor-like-{}-{}", outer[0], outer[1]),
            capacity_bytes,
            rpm: 10_000.0,
            seek_single_track_ms: Some(0.3),
            seek_average_ms: 4.6,
            seek_full_stroke_ms: None,
            sustained_transfer_mb_s: 89.5,
            cache_mib: 8.0,
            sector_bytes: 512,
            timing: DatasheetTiming::default(),
            layout: Some(DatasheetLayout { band_cylinders: 32, surface_outer_sectors: outer.to_vec() }),
        })
        .unwrap()
    }

    fn tracks() -> Tracks {
        // Tracks of 1,144 sectors from 0, then of 1,092.
        let mut starts: Vec<u64> = (0..4).map(|i| i * 1144).collect();
        starts.extend((0..4).map(|i| 4 * 1144 + i * 1092));
        Tracks::new(starts, 4 * 1144 + 4 * 1092).unwrap()
    }

    #[test]
    fn aligned_extents_stay_inside_tracks_and_skip_straddling_blocks() {
        let t = tracks();
        let ext = allocate(&t, 0, 3 * 1144 * 512, Allocation::TrackAligned).unwrap();
        for e in &ext {
            let (s, len) = t.track_of(e.lbn);
            assert!(e.lbn >= s && e.lbn + e.sectors <= s + len, "{e:?} leaves its track");
            assert_eq!(e.lbn % BLOCK_SECTORS, 0);
        }
        // 1,144 = 143 blocks exactly; the second track starts at 1,144 (block-aligned) too.
        assert_eq!(ext[0], Extent { lbn: 0, sectors: 1144 });
        let total: u64 = ext.iter().map(|e| e.sectors).sum();
        assert_eq!(total, 3 * 1144);
        // A track starting off the block grid loses its straddling blocks.
        let odd = Tracks::new(vec![0, 1100, 2203], 3300).unwrap();
        // Usable: 0..1096, 1104..2200 and 2208..3296: 3,280 sectors.
        assert_eq!(allocate(&odd, 0, 3288 * 512, Allocation::TrackAligned), None, "the file does not fit");
        assert!(allocate(&odd, 0, 3280 * 512, Allocation::TrackAligned).is_some());
        let ext = allocate(&odd, 0, 2000 * 512, Allocation::TrackAligned).unwrap();
        assert_eq!(ext[0], Extent { lbn: 0, sectors: 1096 });
        assert_eq!(ext[1].lbn, 1104, "the first whole block of the second track");
        assert!(ext[1].lbn + ext[1].sectors <= 2200);
        let conv = allocate(&t, 3, 10 * 512, Allocation::Conventional).unwrap();
        assert_eq!(conv, vec![Extent { lbn: 8, sectors: 16 }]);
    }

    #[test]
    fn reads_cover_the_file_once_in_order() {
        let t = tracks();
        let ext = allocate(&t, 0, 5 * 1100 * 512, Allocation::TrackAligned).unwrap();
        for ra in [ReadAhead::Window(256), ReadAhead::Tracks] {
            let rs: Vec<Extent> = reads(&t, &ext, ra).collect();
            let total: u64 = rs.iter().map(|r| r.sectors).sum();
            assert_eq!(total, ext.iter().map(|e| e.sectors).sum::<u64>());
            if ra == ReadAhead::Tracks {
                assert!(rs.iter().all(|r| t.track_of(r.lbn) == t.track_of(r.lbn + r.sectors - 1)));
                assert_eq!(rs.len(), ext.len());
            }
        }
    }
}
