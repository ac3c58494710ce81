//! The drive's metadata on its two stores: format, commit of journal records, checkpoints,
//! and recovery of the newest consistent mapping from whichever copy survived best.

use crate::faults;
use crate::journal::{encode_record, replay, Change, Checkpoint};
use crate::layout::{Superblock, RECORD_BYTES};
use crate::store::Store;
use crate::DriveError;
use tierlab_policy::MapRecord;

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
}

impl Recovered {
    /// The mapping records in the order they happened, and the high-water marks.
    pub fn mapping(&self) -> (Vec<MapRecord>, [u32; 2]) {
        let mut records = self.checkpoint.entries.clone();
        let mut hw = self.checkpoint.high_water;
        for c in &self.changes {
            match c {
                Change::Map(r) => records.push(*r),
                Change::HighWater { tier, extents } => hw[*tier as usize & 1] = hw[*tier as usize & 1].max(*extents),
            }
        }
        (records, hw)
    }
}

impl Meta {
    /// Write a new drive's superblocks and first checkpoint to both stores.
    pub fn format(stores: &Stores, sb: &Superblock, high_water: [u32; 2], params: String) -> Result<Meta, DriveError> {
        for s in stores {
            let mut own = sb.clone();
            own.role = s.role;
            s.write_at(0, &own.encode())?;
            // Clear both checkpoint slots' headers and the journal's first block, so nothing
            // left on a reused device can pass for ours.
            let zero = vec![0u8; 4096];
            s.write_at(sb.layout.checkpoint_offset(0), &zero)?;
            s.write_at(sb.layout.checkpoint_offset(1), &zero)?;
            s.write_at(sb.layout.journal_offset(), &zero)?;
        }
        let mut m = Meta { sb: sb.clone(), generation: 0, base_seq: 0, written: 0, pending: Vec::new(), high_water, params, commits: 0, checkpoints: 0 };
        m.checkpoint(stores, Vec::new(), false)?;
        Ok(m)
    }

    /// Continue after recovery: the next checkpoint supersedes `r`.
    pub fn resume(sb: Superblock, r: &Recovered, high_water: [u32; 2]) -> Meta {
        Meta {
            sb,
            generation: r.checkpoint.generation,
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
            generation: self.generation + 1,
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

/// Find the newest valid checkpoint on either store, then the longest valid journal run
/// after it on either store.
pub fn recover(stores: &Stores, sb: &Superblock) -> Result<Recovered, DriveError> {
    let layout = sb.layout;
    let mut found: Vec<(Checkpoint, usize)> = Vec::new();
    let mut notes = Vec::new();
    for (i, s) in stores.iter().enumerate() {
        for slot in 0..2 {
            let at = layout.checkpoint_offset(slot);
            let mut header = vec![0u8; crate::layout::CHECKPOINT_HEADER_BYTES as usize];
            s.read_at(at, &mut header)?;
            let Some(total) = Checkpoint::total_bytes(&header, layout.checkpoint_slot_bytes) else { continue };
            let mut b = vec![0u8; total as usize];
            s.read_at(at, &mut b)?;
            match Checkpoint::decode(&b) {
                Some(ck) => found.push((ck, i)),
                None => notes.push(format!("{}: checkpoint slot {slot} is damaged (torn write?)", s.path.display())),
            }
        }
    }
    let newest = found.iter().map(|(c, _)| c.generation).max().ok_or_else(|| DriveError::Corrupt("no valid checkpoint on either store".into()))?;
    for (i, s) in stores.iter().enumerate() {
        if !found.iter().any(|(c, j)| c.generation == newest && *j == i) {
            notes.push(format!("{}: lacks checkpoint generation {newest} (taken from the other store)", s.path.display()));
        }
    }
    let checkpoint = found.into_iter().find(|(c, _)| c.generation == newest).map(|(c, _)| c).ok_or_else(|| DriveError::Corrupt("checkpoint vanished".into()))?;
    let mut runs = Vec::new();
    for s in stores {
        let mut area = vec![0u8; layout.journal_bytes as usize];
        s.read_at(layout.journal_offset(), &mut area)?;
        runs.push(replay(&area, &checkpoint));
    }
    if runs[0].len() != runs[1].len() {
        notes.push(format!("journal copies differ in length ({} and {} records): the longer is used", runs[0].len(), runs[1].len()));
    }
    let n = runs[0].len().min(runs[1].len());
    if runs[0][..n] != runs[1][..n] {
        return Err(DriveError::Corrupt("the two journal copies disagree".into()));
    }
    let changes = runs.into_iter().max_by_key(|r| r.len()).unwrap_or_default();
    Ok(Recovered { checkpoint, changes, notes })
}
