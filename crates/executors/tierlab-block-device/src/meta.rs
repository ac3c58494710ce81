//! The drive's metadata on its two stores: format, commit of journal records, checkpoints,
//! and recovery of the newest consistent mapping from whichever copy survived best.

use crate::faults;
use crate::journal::{decode_any, encode_record, Change, Checkpoint};
use crate::layout::{Superblock, RECORD_BYTES};
use crate::store::Store;
use crate::DriveError;
use tierlab_hybrid_policy::MapRecord;

/// The two stores, SSD first.
pub type Stores = [Store; 2];

/// The journal's in-memory side: where the next record goes, and what is not yet written.
pub struct Meta {
    pub sb: Superblock,
    generation: u64,
    /// Sequence number of journal position 0 (the newest checkpoint's `next_seq`).
    base_seq: u64,
    /// Records already written.
    written: u64,
    pending: Vec<Change>,
    /// Durable high-water marks (SSD, HDD): extents at or above them have never held data.
    pub high_water: [u32; 2],
    pub params: String,
    pub commits: u64,
    pub checkpoints: u64,
}

/// What recovery found.
pub struct Recovered {
    pub checkpoint: Checkpoint,
    pub changes: Vec<Change>,
    /// Problems that did not stop recovery (a damaged copy, a shorter journal copy).
    pub notes: Vec<String>,
    /// Committed metadata that is gone on both stores, if any.
    pub loss: Option<Loss>,
    /// The highest checkpoint generation seen, in a valid checkpoint or a whole journal
    /// record: the next checkpoint goes above it, so that no older record can follow it.
    pub max_generation: u64,
    /// The drive's extents per tier (SSD, HDD).
    extents: [u32; 2],
}

/// Committed metadata that cannot be recovered.
#[derive(Clone, Debug, PartialEq)]
pub struct Loss {
    /// What is gone.
    pub why: String,
    /// `changes[trusted_from..]` were written after what is gone, so they hold; the
    /// checkpoint and the changes before may have been superseded by what is gone.
    pub trusted_from: usize,
    /// No checkpoint survives: which extents the lost ones mapped is not known.
    pub mapping_unknown: bool,
}

impl Recovered {
    /// The mapping records in the order they happened, and the high-water marks (after a
    /// loss, every extent may hold data: the marks are at the end).
    pub fn mapping(&self) -> (Vec<MapRecord>, [u32; 2]) {
        let mut records = self.checkpoint.entries.clone();
        let mut hw = self.checkpoint.high_water;
        for c in &self.changes {
            match c {
                Change::Map(r) => records.push(*r),
                Change::HighWater { tier, extents } => hw[*tier as usize & 1] = hw[*tier as usize & 1].max(*extents),
            }
        }
        if self.loss.is_some() {
            hw = self.extents;
        }
        (records, hw)
    }

    /// The extents that cannot be recovered: mapped by the checkpoint or a change from
    /// before a loss, and not mapped again after it. What is gone may have moved them, and
    /// their old place may hold another extent's data now.
    pub fn unrecoverable(&self) -> Vec<u32> {
        let Some(loss) = &self.loss else { return Vec::new() };
        let mut last: std::collections::BTreeMap<u32, (u32, bool)> = self.checkpoint.entries.iter().map(|e| (e.extent, (e.location, false))).collect();
        for (i, c) in self.changes.iter().enumerate() {
            if let Change::Map(r) = c {
                last.insert(r.extent, (r.location, i >= loss.trusted_from));
            }
        }
        last.into_iter().filter(|(_, (loc, trusted))| *loc != tierlab_hybrid_policy::NO_LOCATION && !trusted).map(|(e, _)| e).collect()
    }

    /// The refusal to serve after a loss: what is gone, which extents, what to do.
    pub fn loss_error(&self, stores: &Stores) -> Option<DriveError> {
        let loss = self.loss.as_ref()?;
        let lost = self.unrecoverable();
        let mut list: Vec<String> = lost.iter().take(16).map(u32::to_string).collect();
        if lost.len() > 16 {
            list.push(format!("… ({} more)", lost.len() - 16));
        }
        let (ssd, hdd) = (stores[0].path.display(), stores[1].path.display());
        let which = if loss.mapping_unknown {
            "The extents the lost checkpoints mapped are not known; every one the surviving journal records do not map again is lost".to_string()
        } else {
            format!(
                "{} extent(s) cannot be recovered, as their mapping may now point at another extent's data: {}",
                lost.len(),
                if list.is_empty() { "none mapped".to_string() } else { list.join(", ") }
            )
        };
        Some(DriveError::Unrecoverable(format!(
            "committed metadata is lost: {}. {which}. \
             Nothing was served or written. `tierlab fsck --ssd {ssd} --hdd {hdd}` lists them; `tierlab fsck --ssd {ssd} --hdd {hdd} --repair --discard-unrecoverable` \
             drops their mappings (they then read as zeros, or in caching mode as the HDD holds them) so that the drive can be served",
            loss.why
        )))
    }
}

impl Meta {
    /// Write a new drive's superblocks and first checkpoint to both stores.
    pub fn format(stores: &Stores, sb: &Superblock, high_water: [u32; 2], params: String) -> Result<Meta, DriveError> {
        for s in stores {
            // Clear both checkpoint slots' headers and the journal's first block, so nothing
            // left on a reused device can pass for ours.
            let zero = vec![0u8; 4096];
            s.write_at(sb.layout.checkpoint_offset(0), &zero)?;
            s.write_at(sb.layout.checkpoint_offset(1), &zero)?;
            s.write_at(sb.layout.journal_offset(), &zero)?;
        }
        let mut m = Meta { sb: sb.clone(), generation: 0, base_seq: 0, written: 0, pending: Vec::new(), high_water, params, commits: 0, checkpoints: 0 };
        m.checkpoint(stores, Vec::new(), false)?;
        // The superblocks last: a creation cut short leaves either no drive, or one whose
        // other superblock `fsck --repair` rebuilds.
        for s in stores {
            let mut own = sb.clone();
            own.role = s.role;
            s.write_at(0, &own.encode())?;
            s.sync()?;
        }
        Ok(m)
    }

    /// Continue after recovery: the next checkpoint supersedes `r`.
    pub fn resume(sb: Superblock, r: &Recovered, high_water: [u32; 2]) -> Meta {
        Meta {
            sb,
            generation: r.checkpoint.generation.max(r.max_generation),
            base_seq: r.checkpoint.next_seq,
            written: r.changes.len() as u64,
            pending: Vec::new(),
            high_water,
            params: r.checkpoint.params.clone(),
            commits: 0,
            checkpoints: 0,
        }
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn push(&mut self, c: Change) {
        if let Change::HighWater { tier, extents } = c {
            let t = tier as usize & 1;
            self.high_water[t] = self.high_water[t].max(extents);
        }
        self.pending.push(c);
    }

    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether the pending records fit in the journal (else the caller checkpoints).
    pub fn fits(&self) -> bool {
        self.written + self.pending.len() as u64 <= self.sb.layout.journal_records()
    }

    /// Make both stores durable, then write the pending records to both journals durably
    /// (this is also the drive's flush). The caller checkpoints instead when the records do
    /// not fit.
    pub fn commit(&mut self, stores: &Stores) -> Result<(), DriveError> {
        faults::point("before-commit");
        if !self.pending.is_empty() {
            if !self.fits() {
                return Err(DriveError::Invalid("journal full: checkpoint needed".into()));
            }
            // The data the records describe goes first: a store's cache may write the
            // journal block before the data blocks, so a record must never be written while
            // its data (a copy's source or destination, a zeroed extent) is not yet durable.
            for s in stores {
                s.sync()?;
            }
            let mut bytes = Vec::with_capacity(self.pending.len() * RECORD_BYTES as usize);
            for (i, c) in self.pending.iter().enumerate() {
                bytes.extend_from_slice(&encode_record(self.base_seq + self.written + i as u64, self.generation, c));
            }
            let at = self.sb.layout.journal_offset() + self.written * RECORD_BYTES;
            if faults::due("torn-journal") {
                let _ = stores[0].write_at(at, &bytes[..bytes.len() / 2 + 7]);
                let _ = stores[0].sync();
                faults::die();
            }
            stores[0].write_at(at, &bytes)?;
            stores[0].sync()?;
            faults::point("after-journal-ssd");
            stores[1].write_at(at, &bytes)?;
            self.written += self.pending.len() as u64;
            self.pending.clear();
        } else {
            stores[0].sync()?;
        }
        stores[1].sync()?;
        self.commits += 1;
        faults::point("after-commit");
        Ok(())
    }

    /// Write the whole mapping as the next generation's checkpoint to both stores (the
    /// older checkpoint's slot), durably; the journal starts afresh after it.
    pub fn checkpoint(&mut self, stores: &Stores, entries: Vec<MapRecord>, clean: bool) -> Result<(), DriveError> {
        // Data written so far must be durable before a checkpoint that may point at it.
        for s in stores {
            s.sync()?;
        }
        let ck = Checkpoint {
            generation: self.generation.saturating_add(1),
            next_seq: self.base_seq + self.written + self.pending.len() as u64,
            high_water: self.high_water,
            params: self.params.clone(),
            clean,
            entries,
        };
        let bytes = ck.encode()?;
        if bytes.len() as u64 > self.sb.layout.checkpoint_slot_bytes {
            return Err(DriveError::Invalid(format!("checkpoint of {} bytes exceeds its {}-byte slot", bytes.len(), self.sb.layout.checkpoint_slot_bytes)));
        }
        let at = self.sb.layout.checkpoint_offset(ck.generation);
        if faults::due("torn-checkpoint") {
            let _ = stores[0].write_at(at, &bytes[..bytes.len() / 2 + 5]);
            let _ = stores[0].sync();
            faults::die();
        }
        for s in stores {
            s.write_at(at, &bytes)?;
            s.sync()?;
        }
        self.generation = ck.generation;
        self.base_seq = ck.next_seq;
        self.written = 0;
        self.pending.clear();
        self.checkpoints += 1;
        Ok(())
    }
}

/// Read both superblocks; they must describe the same drive.
pub fn read_superblocks(stores: &Stores) -> Result<[Superblock; 2], DriveError> {
    let mut out = Vec::new();
    for s in stores {
        let mut b = vec![0u8; 4096];
        s.read_at(0, &mut b)?;
        let sb = Superblock::decode(&b, &s.path.display().to_string())?;
        if sb.role != s.role {
            return Err(DriveError::Invalid(format!("{}: is the drive's {:?} store, given as its {:?} store", s.path.display(), sb.role, s.role)));
        }
        out.push(sb);
    }
    let [a, b]: [Superblock; 2] = out.try_into().map_err(|_| DriveError::Invalid("two stores expected".into()))?;
    if !a.same_drive(&b) {
        return Err(DriveError::Invalid("the two stores belong to different drives (superblocks differ)".into()));
    }
    Ok([a, b])
}

/// What a store holds, as far as creating or opening a drive on it is concerned.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    /// A valid tierlab superblock.
    Drive(Superblock),
    /// Nothing: every byte is zero.
    Empty,
    /// tierlab metadata that fails its checks (why).
    Damaged(String),
    /// Something else (what, and where its first non-zero byte is).
    Other(String),
}

impl Found {
    /// How the store is described in an error.
    pub fn describe(&self) -> String {
        match self {
            Found::Drive(sb) => format!("a tierlab {:?} drive ({} KiB extents)", sb.mode, sb.extent_bytes / 1024).to_lowercase(),
            Found::Empty => "nothing (all zeros)".into(),
            Found::Damaged(why) => format!("a damaged tierlab drive ({why})"),
            Found::Other(what) => what.clone(),
        }
    }
}

/// What `store` holds. `other` is the other store's superblock, if it has a valid one: a
/// store whose superblock is gone but whose checkpoint slots (where `other` places them)
/// hold tierlab checkpoints is a damaged drive, not foreign data.
pub fn examine(store: &Store, other: Option<&Superblock>) -> Result<Found, DriveError> {
    let mut b = vec![0u8; crate::layout::BLOCK_BYTES as usize];
    store.read_at(0, &mut b)?;
    match Superblock::decode(&b, &store.path.display().to_string()) {
        Ok(sb) if sb.role == store.role => return Ok(Found::Drive(sb)),
        Ok(sb) => return Ok(Found::Damaged(format!("its superblock says it is the drive's {:?} store", sb.role).to_lowercase())),
        Err(DriveError::NotFormatted(_)) => {}
        Err(e) => return Ok(Found::Damaged(e.to_string())),
    }
    // A superblock whose magic is damaged: most of it still matches.
    let magic = crate::layout::MAGIC;
    if b[..8].iter().zip(magic.iter()).filter(|(a, m)| a == m).count() >= 5 {
        return Ok(Found::Damaged(format!("superblock magic {:?}, expected {:?}", String::from_utf8_lossy(&b[..8]), String::from_utf8_lossy(magic))));
    }
    if let Some(sb) = other {
        for slot in 0..2 {
            let mut h = vec![0u8; crate::layout::CHECKPOINT_HEADER_BYTES as usize];
            store.read_at(sb.layout.checkpoint_offset(slot), &mut h)?;
            if Checkpoint::total_bytes(&h, sb.layout.checkpoint_slot_bytes).is_some() {
                return Ok(Found::Damaged(format!("no valid superblock, but tierlab checkpoints where the other store's superblock places them (checkpoint slot {slot})")));
            }
        }
    }
    let Some(at) = store.first_nonzero()? else { return Ok(Found::Empty) };
    let mut head = vec![0u8; 72 << 10];
    store.read_at(0, &mut head)?;
    Ok(Found::Other(format!("other data ({}first non-zero byte at {at})", signature(&head).map(|s| format!("{s}; ")).unwrap_or_default())))
}

/// A well-known format recognised from a store's first 72 KiB.
fn signature(b: &[u8]) -> Option<&'static str> {
    let at = |i: usize, m: &[u8]| b.get(i..i + m.len()) == Some(m);
    [
        (1080, &[0x53u8, 0xEF][..], "an ext2/3/4 file system"),
        (0, &b"XFSB"[..], "an XFS file system"),
        (0x10040, &b"_BHRfS_M"[..], "a Btrfs file system"),
        (0, &b"LUKS\xba\xbe"[..], "a LUKS volume"),
        (4086, &b"SWAPSPACE2"[..], "a swap area"),
        (512, &b"EFI PART"[..], "a GPT partition table"),
        (0, &b"QFI\xfb"[..], "a qcow2 image"),
        (510, &[0x55, 0xAA][..], "a boot sector or MBR partition table"),
    ]
    .into_iter()
    .find(|(i, m, _)| at(*i, m))
    .map(|(_, _, name)| name)
}

/// Find the newest valid checkpoint on either store, then every journal record after it
/// that checksums and chains (its sequence number and generation), from either copy.
///
/// A record missing from both copies ends the replay when only the SSD copy goes on past
/// it: the SSD copy is written and synced before the HDD copy, so that is a write that was
/// never committed. When the HDD copy goes on past it, or when whole journal records or a
/// checkpoint slot carry a generation newer than every valid checkpoint, committed
/// metadata is gone: every record that still chains is replayed, and `loss` says what is
/// gone (the caller refuses to serve until the user decides).
pub fn recover(stores: &Stores, sb: &Superblock) -> Result<Recovered, DriveError> {
    let layout = sb.layout;
    let mut found: Vec<(Checkpoint, usize)> = Vec::new();
    let mut notes = Vec::new();
    // Per slot, per store: the header's generation of a checkpoint that fails its checks.
    let mut damaged: [[Option<u64>; 2]; 2] = [[None; 2]; 2];
    // The settings a damaged checkpoint still carries, if they read as the drive's.
    let mut salvaged: Option<String> = None;
    for (i, s) in stores.iter().enumerate() {
        for slot in 0..2 {
            let at = layout.checkpoint_offset(slot);
            let mut header = vec![0u8; crate::layout::CHECKPOINT_HEADER_BYTES as usize];
            s.read_at(at, &mut header)?;
            let Some(total) = Checkpoint::total_bytes(&header, layout.checkpoint_slot_bytes) else {
                if header[..8] == *b"TLCKPT01" {
                    salvaged = salvaged.or_else(|| salvage_params(&header, sb));
                    damaged[slot as usize][i] = Some(crate::layout::u64_at(&header, 8));
                    notes.push(format!("{}: checkpoint slot {slot} is damaged (its length is out of range)", s.path.display()));
                }
                continue;
            };
            let mut b = vec![0u8; total as usize];
            s.read_at(at, &mut b)?;
            match Checkpoint::decode(&b) {
                Some(ck) => found.push((ck, i)),
                None => {
                    salvaged = salvaged.or_else(|| salvage_params(&header, sb));
                    damaged[slot as usize][i] = Some(crate::layout::u64_at(&header, 8));
                    notes.push(format!("{}: checkpoint slot {slot} is damaged (torn write?)", s.path.display()))
                }
            }
        }
    }
    // A damaged header's generation may itself be damaged: one beyond any a drive reaches
    // (2^48 checkpoints) is not believed.
    let damaged_max = damaged.iter().flatten().flatten().copied().filter(|&g| g < 1 << 48).max();
    let (newest, checkpoint) = match found.iter().map(|(c, _)| c.generation).max() {
        Some(newest) => {
            for (i, s) in stores.iter().enumerate() {
                if !found.iter().any(|(c, j)| c.generation == newest && *j == i) {
                    notes.push(format!("{}: lacks checkpoint generation {newest} (taken from the other store)", s.path.display()));
                }
            }
            (newest, found.into_iter().find(|(c, _)| c.generation == newest).map(|(c, _)| c).ok_or_else(|| DriveError::Corrupt("checkpoint vanished".into()))?)
        }
        // Every checkpoint is damaged: the drive's mapping as of them is gone. What the
        // journal holds after the newest still holds, on an empty mapping, with the
        // settings a damaged checkpoint still carries.
        None => {
            let (Some(_), Some(params)) = (damaged_max, salvaged) else {
                return Err(DriveError::Corrupt("no valid checkpoint on either store".into()));
            };
            (0, Checkpoint { generation: 0, next_seq: 0, high_water: [0, 0], params, clean: false, entries: Vec::new() })
        }
    };
    let mut areas = Vec::new();
    for s in stores {
        let mut area = vec![0u8; layout.journal_bytes as usize];
        s.read_at(layout.journal_offset(), &mut area)?;
        areas.push(area);
    }
    let records = |a: &Vec<u8>| a.chunks_exact(RECORD_BYTES as usize).map(decode_any).collect::<Vec<_>>();
    let copies = [records(&areas[0]), records(&areas[1])];
    let journal_max = copies.iter().flatten().flatten().map(|(_, g, _)| *g).max().unwrap_or(0);
    let extents = [
        u32::try_from(sb.ssd_data_bytes / sb.extent_bytes.max(1)).unwrap_or(u32::MAX),
        u32::try_from(sb.hdd_data_bytes / sb.extent_bytes.max(1)).unwrap_or(u32::MAX),
    ];
    let max_generation = newest.max(journal_max).max(damaged_max.unwrap_or(0));
    let mut r = Recovered { checkpoint, changes: Vec::new(), notes, loss: None, max_generation, extents };
    let (before, gap) = chain(&copies, r.checkpoint.next_seq, newest, &mut r.notes)?;
    r.changes = before;
    if journal_max > newest {
        // A newer checkpoint existed: its records start the journal, their sequence numbers
        // counted from the first that survives.
        let base = copies.iter().flat_map(|c| c.iter().enumerate()).find_map(|(i, rec)| rec.as_ref().filter(|(_, g, _)| *g == journal_max).map(|(seq, _, _)| seq.wrapping_sub(i as u64)));
        let (after, _) = chain(&copies, base.unwrap_or(0), journal_max, &mut r.notes)?;
        let n = after.len();
        let why = if newest == 0 {
            format!("no checkpoint survives on either store (the newest, generation {journal_max}, is damaged on both); {n} journal record(s) written after it survive")
        } else {
            format!("checkpoint generation {journal_max}, newer than the newest valid one ({newest}), is damaged on both stores; {n} journal record(s) written after it survive")
        };
        r.loss = Some(Loss { why, trusted_from: r.changes.len(), mapping_unknown: newest == 0 });
        r.changes.extend(after);
        return Ok(r);
    }
    if let Some((seq, after)) = gap {
        let n = after.len();
        r.loss = Some(Loss {
            why: format!("journal record {seq} is damaged on both stores, and {n} committed record(s) follow it"),
            trusted_from: r.changes.len(),
            mapping_unknown: newest == 0,
        });
        r.changes.extend(after);
        return Ok(r);
    }
    if newest == 0 {
        r.loss = Some(Loss { why: "no checkpoint survives on either store: every one is damaged on both".into(), trusted_from: 0, mapping_unknown: true });
        return Ok(r);
    }
    for (slot, gens) in damaged.iter().enumerate() {
        if let [Some(a), Some(b)] = gens {
            let g = (*a).max(*b).min(damaged_max.unwrap_or(0));
            if g > newest {
                r.loss = Some(Loss {
                    why: format!("checkpoint slot {slot} is damaged on both stores, and its header gives generation {g}, newer than the newest valid one ({newest})"),
                    trusted_from: r.changes.len(),
                    mapping_unknown: false,
                });
            }
        }
    }
    Ok(r)
}

/// The settings in a damaged checkpoint's header, if they still read as the drive's.
fn salvage_params(header: &[u8], sb: &Superblock) -> Option<String> {
    let len = crate::layout::u32_at(header, 40) as usize;
    let text = std::str::from_utf8(header.get(48..48usize.checked_add(len)?)?).ok()?;
    crate::params::PolicySettings::decode(text).ok().filter(|p| p.mode() == sb.mode).map(|_| text.to_string())
}

type Records = Vec<Option<(u64, u64, Change)>>;

/// The records of `generation` from sequence `base` at position 0, taken from whichever
/// copy has each. Returns the run up to the first record neither copy has, and, if the HDD
/// copy holds a record of the chain past that point (so it was committed), that missing
/// record's sequence number and every record of the chain after it.
fn chain(copies: &[Records; 2], base: u64, generation: u64, notes: &mut Vec<String>) -> Result<(Vec<Change>, Option<(u64, Vec<Change>)>), DriveError> {
    let at = |c: usize, i: usize| -> Option<Change> {
        copies[c].get(i).copied().flatten().filter(|&(s, g, _)| s == base.wrapping_add(i as u64) && g == generation).map(|(_, _, ch)| ch)
    };
    let n = copies[0].len().max(copies[1].len());
    let mut run = Vec::new();
    let mut counts = [0usize; 2];
    let mut gap: Option<(u64, Vec<Change>)> = None;
    let mut first_missing = None;
    for i in 0..n {
        let (a, b) = (at(0, i), at(1, i));
        for (c, x) in [a, b].iter().enumerate() {
            counts[c] += x.is_some() as usize;
        }
        match (a, b) {
            (Some(a), Some(b)) if a != b => return Err(DriveError::Corrupt(format!("the two journal copies disagree at record {}", base.wrapping_add(i as u64)))),
            (Some(x), _) | (None, Some(x)) => match (&mut gap, first_missing) {
                (Some((_, after)), _) => after.push(x),
                (None, None) => run.push(x),
                (None, Some(_)) => {}
            },
            (None, None) => {
                if first_missing.is_none() {
                    first_missing = Some(i);
                    if (i + 1..n).any(|j| at(1, j).is_some()) {
                        gap = Some((base.wrapping_add(i as u64), Vec::new()));
                    } else if (i + 1..n).any(|j| at(0, j).is_some()) {
                        notes.push(format!("the SSD's journal copy has records past record {} that neither copy holds whole: a write never committed, ignored", base.wrapping_add(i as u64)));
                    }
                }
            }
        }
    }
    if counts[0] != counts[1] && gap.is_none() {
        notes.push(format!("journal copies differ in length ({} and {} records): the longer is used", counts[0], counts[1]));
    }
    Ok((run, gap))
}
