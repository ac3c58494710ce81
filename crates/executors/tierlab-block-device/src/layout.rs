//! On-disk layout of a hybrid drive. Each backing store starts with the same metadata
//! region, so either store alone can bring the drive back:
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 4 KiB | superblock: identity, geometry, layout (this store's role) |
//! | 4 KiB | S | checkpoint slot A |
//! | 4 KiB + S | S | checkpoint slot B |
//! | 4 KiB + 2S | J | journal of mapping changes since the newest checkpoint |
//! | 4 KiB + 2S + J | T | the HDD's track table, when its data is laid inside tracks (`tracks`) |
//! | data offset (1 MiB aligned) | rest | extents |
//!
//! Every structure carries a CRC-32C, so a torn write is detected, never trusted.

use crate::DriveError;
use serde::{Deserialize, Serialize};

pub const BLOCK_BYTES: u64 = 4096;
pub(crate) const MAGIC: &[u8; 8] = b"TLDRIVE1";
const VERSION: u32 = 1;
const ALIGN_BYTES: u64 = 1 << 20;
/// One journal record.
pub const RECORD_BYTES: u64 = 32;
/// One checkpoint entry: extent u32, location u32, dirty u8.
pub const ENTRY_BYTES: u64 = 9;
/// Checkpoint header, before its entries.
pub const CHECKPOINT_HEADER_BYTES: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Tiering,
    Caching,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tiering" => Ok(Mode::Tiering),
            "caching" => Ok(Mode::Caching),
            _ => Err(format!("unknown mode `{s}`: expected tiering or caching")),
        }
    }
}

/// Which backing store a superblock belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Ssd,
    Hdd,
}

/// What the superblock records; identical on both stores but for `role`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Superblock {
    pub role: Role,
    pub mode: Mode,
    pub uuid: [u8; 16],
    pub extent_bytes: u64,
    pub ssd_data_bytes: u64,
    pub hdd_data_bytes: u64,
    pub layout: Layout,
    /// CRC-32C of the track table (0 without one).
    pub tracks_crc: u32,
}

/// Where the metadata structures sit (the same on both stores).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    pub checkpoint_slot_bytes: u64,
    pub journal_bytes: u64,
    /// The HDD track table's region (0: the HDD's data is not laid inside tracks).
    pub tracks_bytes: u64,
    pub data_offset_bytes: u64,
}

impl Layout {
    /// Room for a checkpoint of `max_entries`, a journal of `journal_bytes` and a track
    /// table of `tracks_bytes`.
    pub fn new(max_entries: u64, journal_bytes: u64, tracks_bytes: u64) -> Layout {
        let slot = (CHECKPOINT_HEADER_BYTES + max_entries * ENTRY_BYTES).div_ceil(BLOCK_BYTES) * BLOCK_BYTES;
        let journal_bytes = journal_bytes.div_ceil(BLOCK_BYTES).max(1) * BLOCK_BYTES;
        let tracks_bytes = tracks_bytes.div_ceil(BLOCK_BYTES) * BLOCK_BYTES;
        let meta = BLOCK_BYTES + 2 * slot + journal_bytes + tracks_bytes;
        Layout { checkpoint_slot_bytes: slot, journal_bytes, tracks_bytes, data_offset_bytes: meta.div_ceil(ALIGN_BYTES) * ALIGN_BYTES }
    }

    pub fn tracks_offset(&self) -> u64 {
        self.journal_offset() + self.journal_bytes
    }

    pub fn checkpoint_offset(&self, slot: u64) -> u64 {
        BLOCK_BYTES + (slot % 2) * self.checkpoint_slot_bytes
    }

    pub fn journal_offset(&self) -> u64 {
        BLOCK_BYTES + 2 * self.checkpoint_slot_bytes
    }

    pub fn journal_records(&self) -> u64 {
        self.journal_bytes / RECORD_BYTES
    }
}

impl Superblock {
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(BLOCK_BYTES as usize);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.push(match self.role {
            Role::Ssd => 0,
            Role::Hdd => 1,
        });
        b.push(match self.mode {
            Mode::Tiering => 0,
            Mode::Caching => 1,
        });
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&self.uuid);
        for v in [
            self.extent_bytes,
            self.ssd_data_bytes,
            self.hdd_data_bytes,
            self.layout.checkpoint_slot_bytes,
            self.layout.journal_bytes,
            self.layout.data_offset_bytes,
            self.layout.tracks_bytes,
            self.tracks_crc as u64,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.resize(BLOCK_BYTES as usize - 4, 0);
        let crc = crc32c::crc32c(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decode and check a superblock; `what` names the store in errors.
    pub fn decode(b: &[u8], what: &str) -> Result<Superblock, DriveError> {
        let bad = |m: String| DriveError::Corrupt(format!("{what}: superblock: {m}"));
        if b.len() < BLOCK_BYTES as usize {
            return Err(bad("shorter than 4 KiB".into()));
        }
        if &b[0..8] != MAGIC {
            return Err(DriveError::NotFormatted(what.to_string()));
        }
        let body = &b[..BLOCK_BYTES as usize - 4];
        let crc = u32_at(b, BLOCK_BYTES as usize - 4);
        if crc32c::crc32c(body) != crc {
            return Err(bad("checksum mismatch (torn or damaged)".into()));
        }
        let version = u32_at(b, 8);
        if version != VERSION {
            return Err(bad(format!("version {version}, expected {VERSION}")));
        }
        let role = match b[12] {
            0 => Role::Ssd,
            1 => Role::Hdd,
            r => return Err(bad(format!("role {r}, expected 0 (ssd) or 1 (hdd)"))),
        };
        let mode = match b[13] {
            0 => Mode::Tiering,
            1 => Mode::Caching,
            m => return Err(bad(format!("mode {m}, expected 0 (tiering) or 1 (caching)"))),
        };
        let mut uuid = [0u8; 16];
        uuid.copy_from_slice(&b[16..32]);
        let f = |i: usize| u64_at(b, 32 + 8 * i);
        // A superblock written before track tables existed has zeros there: no table.
        let layout = Layout { checkpoint_slot_bytes: f(3), journal_bytes: f(4), tracks_bytes: f(6), data_offset_bytes: f(5) };
        let tracks_crc = u32::try_from(f(7)).map_err(|_| bad(format!("track table checksum {:#x} wider than 32 bits", f(7))))?;
        let meta_end = layout
            .checkpoint_slot_bytes
            .checked_mul(2)
            .and_then(|c| c.checked_add(BLOCK_BYTES))
            .and_then(|j| j.checked_add(layout.journal_bytes))
            .and_then(|t| t.checked_add(layout.tracks_bytes));
        if layout.checkpoint_slot_bytes < CHECKPOINT_HEADER_BYTES || layout.journal_bytes < RECORD_BYTES || meta_end.is_none_or(|e| layout.data_offset_bytes < e) {
            return Err(bad("metadata regions overlap".into()));
        }
        Ok(Superblock { role, mode, uuid, extent_bytes: f(0), ssd_data_bytes: f(1), hdd_data_bytes: f(2), layout, tracks_crc })
    }

    /// Whether two superblocks describe the same drive.
    pub fn same_drive(&self, other: &Superblock) -> bool {
        Superblock { role: other.role, ..self.clone() } == *other
    }
}

pub(crate) fn u32_at(b: &[u8], i: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(a)
}

pub(crate) fn u64_at(b: &[u8], i: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Superblock {
        Superblock {
            role: Role::Hdd,
            mode: Mode::Caching,
            uuid: [7; 16],
            extent_bytes: 65536,
            ssd_data_bytes: 1 << 30,
            hdd_data_bytes: 4 << 30,
            layout: Layout::new(65536, 1 << 20, 8192),
            tracks_crc: 0xdead_beef,
        }
    }

    #[test]
    fn superblock_round_trips_and_detects_every_flipped_byte() {
        let s = sample();
        let b = s.encode();
        assert_eq!(b.len(), 4096);
        assert_eq!(Superblock::decode(&b, "x").unwrap(), s);
        for i in (0..4096).step_by(97) {
            let mut c = b.clone();
            c[i] ^= 0x40;
            assert!(Superblock::decode(&c, "x").is_err(), "byte {i} flipped went unnoticed");
        }
    }

    #[test]
    fn layout_keeps_regions_apart_and_data_aligned() {
        let l = Layout::new(1_000_000, 4 << 20, 5000);
        assert_eq!(l.checkpoint_offset(0), 4096);
        assert_eq!(l.checkpoint_offset(1), 4096 + l.checkpoint_slot_bytes);
        assert!(l.checkpoint_slot_bytes >= CHECKPOINT_HEADER_BYTES + 9_000_000);
        assert_eq!(l.tracks_offset(), l.journal_offset() + l.journal_bytes);
        assert_eq!(l.tracks_bytes, 8192);
        assert!(l.tracks_offset() + l.tracks_bytes <= l.data_offset_bytes);
        assert_eq!(l.data_offset_bytes % (1 << 20), 0);
    }
}
