//! `tierlab fsck`: check a drive's metadata on both stores, and repair it.
//!
//! Problems (the drive is inconsistent): superblocks that disagree or are damaged, no
//! valid checkpoint, journal copies that contradict each other, mapping entries out of
//! range or sharing a location, extents mapped above the high-water mark, settings that do
//! not parse. Notes (what a crash normally leaves, handled by recovery): a torn
//! checkpoint, the newest checkpoint on one store only, a journal copy shorter than the
//! other.
//!
//! `--repair` rebuilds what recovery would use, drops entries that cannot be trusted
//! (reporting the extents whose data is lost), and writes a new checkpoint to both stores.

use crate::journal::Checkpoint;
use crate::layout::{Mode, Role, Superblock};
use crate::meta::{recover, Stores};
use crate::params::PolicySettings;
use crate::store::Store;
use crate::DriveError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use tierlab_hybrid_policy::{Geometry, MapRecord, NO_LOCATION};

#[derive(Clone, Debug, Serialize)]
pub struct FsckReport {
    pub mode: Option<Mode>,
    pub checkpoint_generation: u64,
    pub journal_records: usize,
    pub mapped_extents: usize,
    /// Tracks the HDD's data is laid in (none: laid end to end).
    pub hdd_tracks: Option<u64>,
    pub problems: Vec<String>,
    pub notes: Vec<String>,
    /// Extents whose mapping cannot be recovered (committed metadata lost on both stores).
    pub unrecoverable_extents: Vec<u32>,
    pub repaired: bool,
}

impl FsckReport {
    pub fn clean(&self) -> bool {
        self.problems.is_empty()
    }
}

pub fn fsck(ssd: &Path, hdd: &Path, repair: bool) -> Result<FsckReport, DriveError> {
    fsck_with(ssd, hdd, repair, false)
}

/// `fsck`, and with `discard_unrecoverable` a repair may drop the mappings of extents that
/// cannot be recovered (committed metadata lost on both stores); without it, such a drive
/// is not repaired.
pub fn fsck_with(ssd: &Path, hdd: &Path, repair: bool, discard_unrecoverable: bool) -> Result<FsckReport, DriveError> {
    let (s, _) = Store::open(ssd, Role::Ssd, None)?;
    let (h, _) = Store::open(hdd, Role::Hdd, None)?;
    let stores: Stores = [s, h];
    let mut rep = FsckReport { mode: None, checkpoint_generation: 0, journal_records: 0, mapped_extents: 0, hdd_tracks: None, problems: Vec::new(), notes: Vec::new(), unrecoverable_extents: Vec::new(), repaired: false };

    // Superblocks: both must decode and agree; a damaged one can be rebuilt from the other.
    let mut sbs = Vec::new();
    for st in &stores {
        let mut b = vec![0u8; 4096];
        st.read_at(0, &mut b)?;
        match Superblock::decode(&b, &st.path.display().to_string()) {
            Ok(sb) if sb.role == st.role => sbs.push(Some(sb)),
            Ok(sb) => {
                rep.problems.push(format!("{}: superblock says it is the {:?} store", st.path.display(), sb.role));
                sbs.push(None)
            }
            Err(e) => {
                rep.problems.push(e.to_string());
                sbs.push(None)
            }
        }
    }
    let sb = match (&sbs[0], &sbs[1]) {
        (Some(a), Some(b)) if a.same_drive(b) => a.clone(),
        (Some(_), Some(_)) => {
            rep.problems.push("the two stores' superblocks describe different drives".into());
            return Ok(rep);
        }
        (Some(a), None) | (None, Some(a)) => a.clone(),
        (None, None) => return Ok(rep),
    };
    rep.mode = Some(sb.mode);
    // The HDD track table: a damaged copy is rebuilt from the other store's.
    let mut good_table = None;
    if sb.layout.tracks_bytes > 0 {
        let copies: Vec<_> = stores.iter().map(|s| crate::tracks::read_one(s, &sb)).collect();
        let good = copies.iter().find_map(|c| c.as_ref().ok()).cloned();
        rep.problems.extend(copies.into_iter().filter_map(Result::err).map(|e| e.to_string()));
        let Some(good) = good else {
            rep.problems.push("no copy of the HDD track table is readable: the HDD's data cannot be located".into());
            return Ok(rep);
        };
        rep.hdd_tracks = Some(good.tracks());
        good_table = Some(good);
    }
    let r = match recover(&stores, &sb) {
        Ok(r) => r,
        Err(e) => {
            rep.problems.push(e.to_string());
            return Ok(rep);
        }
    };
    rep.notes.extend(r.notes.iter().cloned());
    rep.checkpoint_generation = r.checkpoint.generation;
    rep.journal_records = r.changes.len();
    let settings = match PolicySettings::decode(&r.checkpoint.params) {
        Ok(s) if s.mode() == sb.mode => Some(s),
        Ok(_) => {
            rep.problems.push("checkpoint settings are for another mode than the superblock's".into());
            None
        }
        Err(e) => {
            rep.problems.push(e.to_string());
            None
        }
    };
    let geo = Geometry::new(sb.extent_bytes, sb.ssd_data_bytes, sb.hdd_data_bytes).map_err(|e| DriveError::Corrupt(e.to_string()))?;
    let (mut records, mut high_water) = r.mapping();
    let unrecoverable = r.unrecoverable();
    if let Some(DriveError::Unrecoverable(m)) = r.loss_error(&stores) {
        rep.problems.push(m);
        rep.unrecoverable_extents = unrecoverable.clone();
        if repair && !discard_unrecoverable {
            rep.notes.push(format!("not repaired: {} extent(s) cannot be recovered; --repair --discard-unrecoverable drops their mappings", unrecoverable.len()));
            return Ok(rep);
        }
        // Their stale places are not checked against the mapping that holds.
        let drop: std::collections::BTreeSet<u32> = unrecoverable.iter().copied().collect();
        records.retain(|r| !drop.contains(&r.extent));
    }
    let (kept, mut lost) = check_mapping(&sb, &geo, &records, &mut high_water, &mut rep.problems);
    lost.extend(unrecoverable);
    rep.mapped_extents = kept.len();
    if let Some(s) = &settings {
        let mut p = s.build(geo)?;
        if let Err(e) = p.restore(&kept) {
            rep.problems.push(format!("the policy rejects the repaired mapping: {e}"));
        }
    }
    if !repair || rep.problems.is_empty() {
        return Ok(rep);
    }
    let Some(settings) = settings else {
        rep.notes.push("not repaired: the policy settings cannot be read".into());
        return Ok(rep);
    };
    for ext in lost {
        rep.notes.push(format!("extent {ext}: mapping dropped, its data is lost"));
    }
    for st in &stores {
        if let Some(t) = &good_table {
            st.write_at(sb.layout.tracks_offset(), &t.encode())?;
        }
        let own = Superblock { role: st.role, ..sb.clone() };
        st.write_at(0, &own.encode())?;
    }
    let ck = Checkpoint {
        // Above every generation seen, so that no record left in the journal follows it.
        generation: r.max_generation.max(r.checkpoint.generation).saturating_add(1),
        next_seq: r.checkpoint.next_seq + r.changes.len() as u64,
        high_water,
        params: settings.encode(),
        clean: false,
        entries: kept,
    };
    let bytes = ck.encode()?;
    for st in &stores {
        st.write_at(sb.layout.checkpoint_offset(ck.generation), &bytes)?;
        st.sync()?;
    }
    rep.repaired = true;
    Ok(rep)
}

/// The final mapping with entries that cannot be trusted dropped: out of range, or sharing a
/// location (the lower-numbered extent keeps it). Raises high-water marks below mapped
/// extents. Returns the kept records and the dropped extents.
fn check_mapping(sb: &Superblock, geo: &Geometry, records: &[MapRecord], high_water: &mut [u32; 2], problems: &mut Vec<String>) -> (Vec<MapRecord>, Vec<u32>) {
    let mut last: BTreeMap<u32, MapRecord> = BTreeMap::new();
    for r in records {
        last.insert(r.extent, *r);
    }
    let (extents, locations) = match sb.mode {
        Mode::Tiering => (geo.physical_extents(), geo.physical_extents()),
        Mode::Caching => (geo.hdd_extents, geo.ssd_extents),
    };
    let mut owner: BTreeMap<u32, u32> = BTreeMap::new();
    let mut kept = Vec::new();
    let mut lost = Vec::new();
    for (ext, r) in last {
        if r.location == NO_LOCATION {
            continue;
        }
        if ext >= extents || r.location >= locations {
            problems.push(format!("extent {ext}: location {} out of range", r.location));
            lost.push(ext);
            continue;
        }
        if let Some(first) = owner.get(&r.location) {
            problems.push(format!("extent {ext}: location {} already holds extent {first}", r.location));
            lost.push(ext);
            continue;
        }
        owner.insert(r.location, ext);
        if sb.mode == Mode::Tiering {
            let (t, idx) = if r.location < geo.ssd_extents { (0, r.location) } else { (1, r.location - geo.ssd_extents) };
            if idx >= high_water[t] {
                problems.push(format!("extent {ext}: mapped at {} above the high-water mark {}", r.location, high_water[t]));
                high_water[t] = idx + 1;
            }
        }
        kept.push(r);
    }
    (kept, lost)
}
