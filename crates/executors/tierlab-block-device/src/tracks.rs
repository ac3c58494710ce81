//! The HDD store laid inside its tracks.
//!
//! Given the HDD's track boundaries (from `tierlab hdd probe --json` on the real device,
//! or `tierlab hdd layout --json` for a model), the drive keeps its HDD data on whole
//! 4 KiB blocks counted from each track's start and never across a boundary: the tail of
//! a track that is not a whole block is left unused (the excluded boundary blocks of
//! track-aligned extents), and an I/O that crosses a boundary goes to the store as one
//! I/O per track. The data space starts at the first track that begins at or after the
//! metadata.
//!
//! The boundaries are part of the drive: they are kept, run-length encoded, in a region
//! of both stores' metadata with their CRC-32C in the superblock, so a reopen and `fsck`
//! map exactly as the drive was formatted, and either store alone brings the map back.

use crate::layout::{Superblock, BLOCK_BYTES};
use crate::meta::Stores;
use crate::store::Store;
use crate::DriveError;
use tierlab_track_map::TrackMap;

const MAGIC: &[u8; 8] = b"TLTRACK1";
/// One run: first byte u64, track bytes u32, tracks u32.
const RUN_BYTES: usize = 16;
const HEADER_BYTES: usize = 16;
/// More tracks than any drive has (a 60 TB drive of 1 MB tracks has 60 M).
const MAX_TRACKS: u64 = 1 << 27;

/// Runs of equal tracks: (first byte, bytes per track, tracks), each starting where the
/// one before ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackTable {
    runs: Vec<(u64, u32, u32)>,
}

impl TrackTable {
    /// From boundaries in bytes: each track's first byte, then the end of the last.
    pub fn from_boundaries(boundaries: &[u64]) -> Result<TrackTable, DriveError> {
        if boundaries.len() < 2 || boundaries.windows(2).any(|w| w[0] >= w[1]) {
            return Err(DriveError::Invalid(format!("HDD tracks: expected rising track boundaries, at least two, found {}", boundaries.len())));
        }
        if boundaries.len() as u64 > MAX_TRACKS {
            return Err(DriveError::Invalid(format!("HDD tracks: {} tracks, more than the {MAX_TRACKS} a drive can have", boundaries.len() - 1)));
        }
        let mut runs: Vec<(u64, u32, u32)> = Vec::new();
        for w in boundaries.windows(2) {
            let size = u32::try_from(w[1] - w[0]).map_err(|_| DriveError::Invalid(format!("HDD tracks: the track at byte {} is over 4 GiB", w[0])))?;
            match runs.last_mut() {
                Some((_, s, n)) if *s == size && *n < u32::MAX => *n += 1,
                _ => runs.push((w[0], size, 1)),
            }
        }
        Ok(TrackTable { runs })
    }

    /// Each track's first byte, then the end of the last.
    pub fn boundaries(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for &(first, size, n) in &self.runs {
            out.extend((0..n as u64).map(|i| first + i * size as u64));
        }
        if let Some(&(first, size, n)) = self.runs.last() {
            out.push(first + n as u64 * size as u64);
        }
        out
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER_BYTES + RUN_BYTES * self.runs.len());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&(self.runs.len() as u64).to_le_bytes());
        for &(first, size, n) in &self.runs {
            b.extend_from_slice(&first.to_le_bytes());
            b.extend_from_slice(&size.to_le_bytes());
            b.extend_from_slice(&n.to_le_bytes());
        }
        b
    }

    /// The region's size on the stores: the encoding, rounded up to a block.
    pub fn region_bytes(&self) -> u64 {
        ((HEADER_BYTES + RUN_BYTES * self.runs.len()) as u64).div_ceil(BLOCK_BYTES) * BLOCK_BYTES
    }

    /// Decode the region `b` and check it against the superblock's `crc`; `what` names
    /// the store in errors.
    pub fn decode(b: &[u8], crc: u32, what: &str) -> Result<TrackTable, DriveError> {
        let bad = |m: &str| DriveError::Corrupt(format!("{what}: track table: {m}"));
        if b.len() < HEADER_BYTES || &b[..8] != MAGIC {
            return Err(bad("no track table where the superblock places it"));
        }
        let runs = crate::layout::u64_at(b, 8);
        let len = usize::try_from(runs).ok().and_then(|r| r.checked_mul(RUN_BYTES)).and_then(|r| r.checked_add(HEADER_BYTES)).filter(|&l| l <= b.len());
        let Some(len) = len else { return Err(bad(&format!("{runs} runs do not fit its {} bytes", b.len()))) };
        if crc32c::crc32c(&b[..len]) != crc {
            return Err(bad("checksum mismatch (torn or damaged)"));
        }
        let runs = b[HEADER_BYTES..len]
            .chunks_exact(RUN_BYTES)
            .map(|r| (crate::layout::u64_at(r, 0), crate::layout::u32_at(r, 8), crate::layout::u32_at(r, 12)))
            .collect::<Vec<_>>();
        let contiguous = runs.windows(2).all(|w| w[0].0.checked_add(w[0].1 as u64 * w[0].2 as u64) == Some(w[1].0));
        let ends = runs.iter().all(|r| r.0.checked_add(r.1 as u64 * r.2 as u64).is_some());
        if runs.is_empty() || runs.iter().any(|r| r.1 == 0 || r.2 == 0) || !contiguous || !ends {
            return Err(bad("runs that are empty or do not follow one another"));
        }
        let tracks: u64 = runs.iter().map(|r| r.2 as u64).sum();
        if tracks > MAX_TRACKS {
            return Err(bad(&format!("{tracks} tracks, more than the {MAX_TRACKS} a drive can have")));
        }
        Ok(TrackTable { runs })
    }

    pub fn crc(&self) -> u32 {
        crc32c::crc32c(&self.encode())
    }

    pub fn tracks(&self) -> u64 {
        self.runs.iter().map(|r| r.2 as u64).sum()
    }
}

/// The drive's track table, if its superblock has one: from the HDD store, or the SSD
/// store's copy where the HDD's is damaged.
pub fn read_table(stores: &Stores, sb: &Superblock) -> Result<Option<TrackTable>, DriveError> {
    if sb.layout.tracks_bytes == 0 {
        return Ok(None);
    }
    let mut errors = Vec::new();
    for s in stores.iter().rev() {
        match read_one(s, sb) {
            Ok(t) => return Ok(Some(t)),
            Err(e) => errors.push(e.to_string()),
        }
    }
    Err(DriveError::Corrupt(format!("the HDD track table is damaged on both stores: {}", errors.join("; "))))
}

/// One store's copy of the track table.
pub fn read_one(s: &Store, sb: &Superblock) -> Result<TrackTable, DriveError> {
    // A run per track of a 60 TB drive of 1 MB tracks is under 1 GiB.
    let bytes = usize::try_from(sb.layout.tracks_bytes).ok().filter(|&b| b <= 1 << 30);
    let Some(bytes) = bytes else { return Err(DriveError::Corrupt(format!("{}: a track table of {} bytes (over 1 GiB)", s.path.display(), sb.layout.tracks_bytes))) };
    let mut b = vec![0u8; bytes];
    s.read_at(sb.layout.tracks_offset(), &mut b)?;
    TrackTable::decode(&b, sb.tracks_crc, &s.path.display().to_string())
}

/// The HDD data space laid inside tracks: data byte `v` of the drive's HDD extents lies at
/// store byte `base_bytes` plus its place in the map.
pub struct HddTracks {
    pub table: TrackTable,
    map: TrackMap,
    base_bytes: u64,
}

impl HddTracks {
    /// The tracks of `table` that lie wholly in `[data_offset_bytes, store_bytes)`.
    pub fn new(table: TrackTable, data_offset_bytes: u64, store_bytes: u64) -> Result<HddTracks, DriveError> {
        let inside: Vec<u64> = table.boundaries().into_iter().filter(|&b| b >= data_offset_bytes && b <= store_bytes).collect();
        let base_bytes = inside.first().copied().unwrap_or(0);
        let relative: Vec<u64> = inside.iter().map(|b| b - base_bytes).collect();
        let map = TrackMap::new(&[relative], BLOCK_BYTES, 1).map_err(|e| {
            DriveError::Invalid(format!("HDD tracks: no whole 4 KiB block in a track between byte {data_offset_bytes} (after the metadata) and the store's end at byte {store_bytes}: {e}"))
        })?;
        Ok(HddTracks { table, map, base_bytes })
    }

    /// Bytes of data space.
    pub fn data_bytes(&self) -> u64 {
        self.map.disk_bytes()
    }

    /// The store ranges (byte offset, bytes) of `len` data bytes at `offset`, one per
    /// track touched, replacing `out`'s contents.
    pub fn split(&self, offset: u64, len: u64, out: &mut Vec<(u64, u64)>) -> Result<(), DriveError> {
        out.clear();
        self.map.split(0, offset, len, out).map_err(|e| DriveError::Range(format!("HDD store: {e}")))?;
        for r in out.iter_mut() {
            r.0 += self.base_bytes;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips_and_rejects_damage() {
        let b: Vec<u64> = (0..=10).map(|i| i * 1001 * 512).chain([10 * 1001 * 512 + 900 * 512]).collect();
        let t = TrackTable::from_boundaries(&b).unwrap();
        assert_eq!(t.runs.len(), 2);
        assert_eq!(t.boundaries(), b);
        let enc = t.encode();
        assert_eq!(TrackTable::decode(&enc, t.crc(), "x").unwrap(), t);
        for i in 0..enc.len() {
            let mut c = enc.clone();
            c[i] ^= 0x10;
            assert!(TrackTable::decode(&c, t.crc(), "x").is_err(), "byte {i} flipped went unnoticed");
        }
        assert!(TrackTable::from_boundaries(&[0, 5, 5]).is_err());
    }

    proptest::proptest! {
        /// Any bytes under any checksum decode to a table of runs that follow one another,
        /// or to an error; never a panic.
        #[test]
        fn any_region_decodes_or_is_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), runs in 0u64..6, crc in proptest::prelude::any::<u32>()) {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&runs.to_le_bytes());
            b.extend_from_slice(&bytes);
            for (region, crc) in [(&bytes, crc), (&b, crc32c::crc32c(&b[..(HEADER_BYTES + RUN_BYTES * runs as usize).min(b.len())]))] {
                if let Ok(t) = TrackTable::decode(region, crc, "x") {
                    let bounds = t.boundaries();
                    proptest::prop_assert!(bounds.windows(2).all(|w| w[0] < w[1]));
                    proptest::prop_assert_eq!(TrackTable::from_boundaries(&bounds).map(|u| u.tracks()).ok(), Some(t.tracks()));
                }
            }
        }
    }

    #[test]
    fn data_space_starts_after_the_metadata_and_never_crosses_a_track() {
        // 1,001-sector tracks (512,512 bytes): 125 whole blocks each, 512 bytes unused.
        let b: Vec<u64> = (0..=100).map(|i| i * 512_512).collect();
        let t = HddTracks::new(TrackTable::from_boundaries(&b).unwrap(), 1 << 20, 40 * 512_512 + 100).unwrap();
        // Tracks 3..40 lie wholly after 1 MiB and before the end.
        assert_eq!(t.base_bytes, 3 * 512_512);
        assert_eq!(t.data_bytes(), 37 * 125 * 4096);
        let mut out = Vec::new();
        t.split(124 * 4096, 2 * 4096, &mut out).unwrap();
        assert_eq!(out, vec![(3 * 512_512 + 124 * 4096, 4096), (4 * 512_512, 4096)]);
        assert!(t.split(t.data_bytes() - 4096, 8192, &mut out).is_err());
    }
}
