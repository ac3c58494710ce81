//! Checkpoints and the journal: how the mapping is written so that a crash at any instant,
//! torn writes included, leaves a state that recovery can trust.
//!
//! - A checkpoint is the whole mapping with a generation number, written to the slot the
//!   older checkpoint is not in; the newer valid one wins at recovery.
//! - Journal records are the changes made since: each carries its sequence number, the
//!   checkpoint generation it follows and a CRC. Recovery (`meta::recover`) replays, from
//!   either store's copy, every record whose CRC holds and whose sequence number and
//!   generation fit its place; a record neither copy holds whole ends the replay when it is
//!   the torn tail of a write that was never committed, and is reported as lost otherwise.

use crate::layout::{u32_at, u64_at, CHECKPOINT_HEADER_BYTES, ENTRY_BYTES, RECORD_BYTES};
use crate::DriveError;
use tierlab_hybrid_policy::MapRecord;

const CHECKPOINT_MAGIC: &[u8; 8] = b"TLCKPT01";
const MAX_PARAMS_BYTES: usize = 3072;

/// A journal entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Extent `extent` now lives at `location` (see [`MapRecord`]).
    Map(MapRecord),
    /// Physical extents of `tier` (0 SSD, 1 HDD) at or above `extents` have never held data.
    HighWater { tier: u8, extents: u32 },
}

pub fn encode_record(seq: u64, generation: u64, c: &Change) -> [u8; RECORD_BYTES as usize] {
    let mut b = [0u8; RECORD_BYTES as usize];
    b[0..8].copy_from_slice(&seq.to_le_bytes());
    b[8..16].copy_from_slice(&generation.to_le_bytes());
    let (kind, flag, a, loc) = match c {
        Change::Map(r) => (1u8, r.dirty as u8, r.extent, r.location),
        Change::HighWater { tier, extents } => (2u8, *tier, 0, *extents),
    };
    b[16] = kind;
    b[17] = flag;
    b[20..24].copy_from_slice(&a.to_le_bytes());
    b[24..28].copy_from_slice(&loc.to_le_bytes());
    let crc = crc32c::crc32c(&b[..28]);
    b[28..32].copy_from_slice(&crc.to_le_bytes());
    b
}

/// The record in `b` if it is whole and is record `seq` of `generation`.
pub fn decode_record(b: &[u8], seq: u64, generation: u64) -> Option<Change> {
    decode_any(b).filter(|&(s, g, _)| s == seq && g == generation).map(|(_, _, c)| c)
}

/// Any whole record in `b`: its sequence number, generation and change.
pub fn decode_any(b: &[u8]) -> Option<(u64, u64, Change)> {
    if b.len() < RECORD_BYTES as usize || crc32c::crc32c(&b[..28]) != u32_at(b, 28) {
        return None;
    }
    let change = match (b[16], b[17]) {
        (1, d @ (0 | 1)) => Change::Map(MapRecord::new(u32_at(b, 20), u32_at(b, 24), d == 1)),
        (2, tier @ (0 | 1)) => Change::HighWater { tier, extents: u32_at(b, 24) },
        _ => return None,
    };
    Some((u64_at(b, 0), u64_at(b, 8), change))
}

/// The mapping as of one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checkpoint {
    pub generation: u64,
    /// The sequence number of the first journal record that follows it.
    pub next_seq: u64,
    /// Per tier (SSD, HDD): physical extents at or above this have never held data.
    pub high_water: [u32; 2],
    /// The policy's settings (changes made while running persist).
    pub params: String,
    /// Written by a clean shutdown: no I/O can have happened after it. After an unclean one,
    /// a cache's copies may differ from the HDD's where a write was never flushed, so every
    /// cached extent is treated as dirty (written back) — as dm-cache does.
    pub clean: bool,
    pub entries: Vec<MapRecord>,
}

impl Checkpoint {
    pub fn encoded_bytes(&self) -> u64 {
        CHECKPOINT_HEADER_BYTES + self.entries.len() as u64 * ENTRY_BYTES
    }

    pub fn encode(&self) -> Result<Vec<u8>, DriveError> {
        if self.params.len() > MAX_PARAMS_BYTES {
            return Err(DriveError::Invalid(format!("parameters take {} bytes, at most {MAX_PARAMS_BYTES} fit", self.params.len())));
        }
        let mut b = Vec::with_capacity(self.encoded_bytes() as usize);
        b.extend_from_slice(CHECKPOINT_MAGIC);
        b.extend_from_slice(&self.generation.to_le_bytes());
        b.extend_from_slice(&self.next_seq.to_le_bytes());
        b.extend_from_slice(&self.high_water[0].to_le_bytes());
        b.extend_from_slice(&self.high_water[1].to_le_bytes());
        b.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        b.extend_from_slice(&(self.params.len() as u32).to_le_bytes());
        b.extend_from_slice(&u32::from(self.clean).to_le_bytes());
        b.extend_from_slice(self.params.as_bytes());
        b.resize(CHECKPOINT_HEADER_BYTES as usize, 0);
        for e in &self.entries {
            b.extend_from_slice(&e.extent.to_le_bytes());
            b.extend_from_slice(&e.location.to_le_bytes());
            b.push(e.dirty as u8);
        }
        // The CRC sits in the header's last 4 bytes and covers everything else.
        let crc = checkpoint_crc(&b);
        b[CHECKPOINT_HEADER_BYTES as usize - 4..CHECKPOINT_HEADER_BYTES as usize].copy_from_slice(&crc.to_le_bytes());
        Ok(b)
    }

    /// The header alone tells how many bytes the whole checkpoint takes (None: not one).
    pub fn total_bytes(header: &[u8], slot_bytes: u64) -> Option<u64> {
        if header.len() < CHECKPOINT_HEADER_BYTES as usize || &header[0..8] != CHECKPOINT_MAGIC {
            return None;
        }
        let count = u64_at(header, 32);
        let total = count.checked_mul(ENTRY_BYTES)?.checked_add(CHECKPOINT_HEADER_BYTES)?;
        (total <= slot_bytes).then_some(total)
    }

    pub fn decode(b: &[u8]) -> Option<Checkpoint> {
        let total = Self::total_bytes(b, u64::MAX)? as usize;
        if b.len() < total || checkpoint_crc(&b[..total]) != u32_at(b, CHECKPOINT_HEADER_BYTES as usize - 4) {
            return None;
        }
        let params_len = u32_at(b, 40) as usize;
        if params_len > MAX_PARAMS_BYTES {
            return None;
        }
        let clean = match u32_at(b, 44) {
            0 => false,
            1 => true,
            _ => return None,
        };
        let params = String::from_utf8(b[48..48 + params_len].to_vec()).ok()?;
        let entries = b[CHECKPOINT_HEADER_BYTES as usize..total]
            .chunks_exact(ENTRY_BYTES as usize)
            .map(|e| MapRecord::new(u32_at(e, 0), u32_at(e, 4), e[8] == 1))
            .collect();
        Some(Checkpoint {
            generation: u64_at(b, 8),
            next_seq: u64_at(b, 16),
            high_water: [u32_at(b, 24), u32_at(b, 28)],
            params,
            clean,
            entries,
        })
    }
}

fn checkpoint_crc(b: &[u8]) -> u32 {
    let h = CHECKPOINT_HEADER_BYTES as usize;
    let head = crc32c::crc32c(&b[..h - 4]);
    crc32c::crc32c_append(head, &b[h..])
}

/// Replay the journal area `area` after checkpoint `ck`: the valid run of records.
pub fn replay(area: &[u8], ck: &Checkpoint) -> Vec<Change> {
    area.chunks_exact(RECORD_BYTES as usize)
        .enumerate()
        .map_while(|(i, b)| decode_record(b, ck.next_seq + i as u64, ck.generation))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ck(n: u32) -> Checkpoint {
        Checkpoint {
            generation: 3,
            next_seq: 100,
            high_water: [5, 9],
            params: "pt=2\nmcml=4\n".into(),
            clean: true,
            entries: (0..n).map(|i| MapRecord::new(i, i * 2, i % 3 == 0)).collect(),
        }
    }

    #[test]
    fn checkpoint_round_trips_and_rejects_damage() {
        let c = ck(1000);
        let b = c.encode().unwrap();
        assert_eq!(b.len() as u64, c.encoded_bytes());
        assert_eq!(Checkpoint::decode(&b), Some(c));
        for i in [0, 9, 30, 45, 4091, 4096, 5000, b.len() - 1] {
            let mut d = b.clone();
            d[i] ^= 1;
            assert_eq!(Checkpoint::decode(&d), None, "flip at {i} accepted");
        }
        // Torn: only a prefix made it.
        assert_eq!(Checkpoint::decode(&b[..b.len() - 9]), None);
    }

    #[test]
    fn replay_stops_at_torn_record_and_at_an_older_generation() {
        let c = ck(0);
        let changes: Vec<Change> = (0..10).map(|i| Change::Map(MapRecord::new(i, i + 50, false))).collect();
        let mut area = Vec::new();
        for (i, ch) in changes.iter().enumerate() {
            area.extend_from_slice(&encode_record(100 + i as u64, 3, ch));
        }
        // A stale record of the previous generation follows.
        area.extend_from_slice(&encode_record(110, 2, &changes[0]));
        assert_eq!(replay(&area, &c), changes);
        area[5 * 32 + 3] ^= 0xff;
        assert_eq!(replay(&area, &c), changes[..5].to_vec());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..9000)) {
            let _ = Checkpoint::decode(&b);
            let _ = Checkpoint::total_bytes(&b, 1 << 20);
            let _ = replay(&b, &ck(0));
            let _ = crate::layout::Superblock::decode(&b, "fuzz");
        }

        #[test]
        fn records_round_trip(seq in any::<u64>(), g in any::<u64>(), e in any::<u32>(), l in any::<u32>(), d in any::<bool>(), tier in 0u8..2) {
            let m = Change::Map(MapRecord::new(e, l, d));
            prop_assert_eq!(decode_record(&encode_record(seq, g, &m), seq, g), Some(m));
            let h = Change::HighWater { tier, extents: l };
            prop_assert_eq!(decode_record(&encode_record(seq, g, &h), seq, g), Some(h));
            prop_assert_eq!(decode_record(&encode_record(seq, g, &h), seq.wrapping_add(1), g), None);
        }
    }
}
