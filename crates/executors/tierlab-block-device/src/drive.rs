//! The drive: the shared policy core executing real I/O on two backing stores.
//!
//! Host requests are routed by the policy under one lock, then served without it; the
//! policy hears when they finish. Migration threads ask the policy for work, copy the
//! extent (reads of it are served from the RAM copy meanwhile; writes to it wait), make the
//! copy durable, and only then let the policy point the mapping at it — the change is in
//! the journal on both stores before the old place can be reused.

use crate::faults;
use crate::journal::Change;
use crate::layout::{Layout, Mode, Role, Superblock};
use crate::meta::{examine, read_superblocks, recover, Found, Meta, Recovered, Stores};
use crate::model::DeviceModel;
use crate::params::PolicySettings;
use crate::store::Store;
use crate::tracks::{HddTracks, TrackTable};
use crate::DriveError;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tierlab_hybrid_policy::{Geometry, MapRecord, Migration, Piece, Place, Policy, PolicyStats, Routing, Tier};
use tierlab_types::Op;

/// How to create a drive that does not exist yet.
#[derive(Clone, Debug)]
pub struct CreateSpec {
    pub settings: PolicySettings,
    pub extent_bytes: u64,
    /// Sizes of backing files to create when missing (existing files and devices keep theirs).
    pub ssd_bytes: Option<u64>,
    pub hdd_bytes: Option<u64>,
    pub journal_bytes: u64,
}

#[derive(Default)]
pub struct OpenOptions {
    pub ssd_path: PathBuf,
    pub hdd_path: PathBuf,
    /// Create the drive on stores that are missing or all zeros (stores holding this drive
    /// are opened as they are; anything else is refused).
    pub create: Option<CreateSpec>,
    /// Copy threads (the policy's MCML bounds how many copy at once).
    pub migration_threads: usize,
    /// Device models of the SSD and HDD paths, for modelled energy and emulation.
    pub models: [Option<DeviceModel>; 2],
    /// Rated limits for modelled wear: SSD bytes written, HDD start/stop cycles.
    pub ssd_rated_write_bytes: Option<u64>,
    pub hdd_rated_cycles: Option<u64>,
    /// Lay the HDD's data inside these tracks (boundaries in bytes of the HDD store: each
    /// track's first byte, then the end of the last). Taken when the drive is created and
    /// kept in its metadata; on a formatted drive it must be the table it was created with.
    pub hdd_tracks: Option<Vec<u64>>,
}

/// SSD reads wear flash a tenth as much as writes (read disturb), the default ratio.
pub const READ_EFFECT: f64 = 0.1;

pub struct Drive {
    stores: Stores,
    geo: Geometry,
    mode: Mode,
    uuid: [u8; 16],
    data_offset_bytes: u64,
    /// The HDD's data laid inside its tracks, if it is.
    hdd_tracks: Option<HddTracks>,
    virtual_bytes: u64,
    state: Mutex<State>,
    /// A migration finished, or host I/O completed.
    changed: Condvar,
    /// There may be migration work.
    work: Condvar,
    epoch: Instant,
    shutdown: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
    models: [Option<DeviceModel>; 2],
    limits: (Option<u64>, Option<u64>),
    counters: Counters,
    /// What recovery reported when the drive was opened.
    pub open_notes: Vec<String>,
}

struct State {
    policy: Box<dyn Policy + Send>,
    settings: PolicySettings,
    meta: Meta,
    /// The RAM copies of extents being migrated, once read.
    ram: HashMap<u32, Arc<Vec<u8>>>,
    scratch: Vec<MapRecord>,
    last_hdd_io: Instant,
    /// Threads waiting on `changed` (notifying nobody costs a system call, so it is skipped).
    changed_waiters: u32,
    /// Per tier: extents at or above this have not been written since the drive opened and
    /// were zero then (it starts at the durable high-water mark).
    unwritten_from: [u32; 2],
}

#[derive(Default)]
struct Counters {
    reads: AtomicU64,
    writes: AtomicU64,
    read_bytes: AtomicU64,
    write_bytes: AtomicU64,
    flushes: AtomicU64,
    errors: AtomicU64,
    store_read_bytes: [AtomicU64; 2],
    store_write_bytes: [AtomicU64; 2],
    zeroed_extents: AtomicU64,
    spin_downs: AtomicU64,
    hdd_track_splits: AtomicU64,
}

/// One I/O on a store (or a copy from a RAM copy) serving part of a host request.
struct Span {
    place: Place,
    device_offset_bytes: u64,
    /// The bytes of the host request's buffer it covers.
    buf: std::ops::Range<usize>,
}

/// A drive's state as formatted or recovered, before it runs.
struct Opened {
    sb: Superblock,
    meta: Meta,
    policy: Box<dyn Policy + Send>,
    settings: PolicySettings,
    /// What recovery reported.
    notes: Vec<String>,
    hdd_tracks: Option<HddTracks>,
}

/// Everything `ctl stats` and `/metrics` show.
#[derive(Clone, Debug, Serialize)]
pub struct DriveStats {
    pub mode: Mode,
    pub extent_bytes: u64,
    pub virtual_bytes: u64,
    pub uptime_s: f64,
    pub policy: PolicyStats,
    pub ssd_hit_ratio: f64,
    pub host_reads: u64,
    pub host_writes: u64,
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub flushes: u64,
    pub io_errors: u64,
    pub ssd_read_bytes: u64,
    pub ssd_write_bytes: u64,
    pub hdd_read_bytes: u64,
    pub hdd_write_bytes: u64,
    pub zeroed_extents: u64,
    pub checkpoint_generation: u64,
    pub journal_commits: u64,
    pub checkpoints: u64,
    pub hdd_idle_s: f64,
    pub hdd_spin_downs: u64,
    /// Tracks the HDD's data is laid in (none: laid end to end).
    pub hdd_tracks: Option<u64>,
    /// HDD I/Os that crossed a track boundary and went to the store as one I/O per track.
    pub hdd_track_splits: u64,
    /// Modelled by the catalog's device models from the I/O really issued.
    pub modelled: Option<Modelled>,
    /// Rated life used so far, in parts per million (modelled).
    pub endurance: Option<Endurance>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Endurance {
    /// (SSD writes + reads × READ_EFFECT) / rated writes × 10^6.
    pub ssd_wear_eu: f64,
    /// Spin-downs (start/stop cycles) / rated cycles × 10^6.
    pub hdd_wear_eu: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Modelled {
    pub ssd_energy_j: Option<f64>,
    pub hdd_energy_j: Option<f64>,
    /// Time and energy by power state of the HDD model (active, idle, standby…).
    pub hdd_states: Vec<tierlab_engine::StateEnergy>,
}

fn tier_index(t: Tier) -> usize {
    match t {
        Tier::Ssd => 0,
        Tier::Hdd => 1,
    }
}

fn place_index(p: Place) -> usize {
    match p {
        Place::Hdd => 1,
        _ => 0,
    }
}

impl Drive {
    /// Open (or create) a drive and start its migration threads.
    ///
    /// Without `create`, both stores must hold the same valid drive. With it, stores that
    /// are missing (files, created at the sizes given) or all zeros get a new drive; stores
    /// that already hold a drive are opened as they are, never formatted again. Anything
    /// else is refused, naming what each store holds; a damaged drive is pointed at `fsck`.
    /// Backing files created here are removed again if the drive cannot be created.
    pub fn open(opts: OpenOptions) -> Result<Arc<Drive>, DriveError> {
        if let Some(c) = &opts.create {
            // Checked before any file is created.
            Geometry::new(c.extent_bytes, 0, 0).map_err(|e| DriveError::Invalid(e.to_string()))?;
        }
        let mut created: Vec<PathBuf> = Vec::new();
        let res = Self::open_stores(opts, &mut created);
        if res.is_err() {
            for p in created {
                let _ = std::fs::remove_file(p);
            }
        }
        res
    }

    fn open_stores(opts: OpenOptions, created: &mut Vec<PathBuf>) -> Result<Arc<Drive>, DriveError> {
        let size = |b: Option<u64>| opts.create.as_ref().and(b);
        let (ssd, ssd_new) = Store::open(&opts.ssd_path, Role::Ssd, size(opts.create.as_ref().and_then(|c| c.ssd_bytes)))?;
        if ssd_new {
            created.push(opts.ssd_path.clone());
        }
        let (hdd, hdd_new) = Store::open(&opts.hdd_path, Role::Hdd, size(opts.create.as_ref().and_then(|c| c.hdd_bytes)))?;
        if hdd_new {
            created.push(opts.hdd_path.clone());
        }
        let stores: Stores = [ssd, hdd];
        let formatted = match read_superblocks(&stores) {
            Ok(sbs) => Some(sbs),
            Err(first) => {
                let found_ssd = examine(&stores[0], None)?;
                let sb_ssd = match &found_ssd {
                    Found::Drive(sb) => Some(sb.clone()),
                    _ => None,
                };
                let found_hdd = examine(&stores[1], sb_ssd.as_ref())?;
                let found_ssd = match (&found_ssd, &found_hdd) {
                    (Found::Drive(_), _) => found_ssd,
                    (_, Found::Drive(sb)) => examine(&stores[0], Some(sb))?,
                    _ => found_ssd,
                };
                match (&found_ssd, &found_hdd, &opts.create) {
                    (Found::Empty, Found::Empty, Some(_)) => None,
                    (Found::Empty, Found::Empty, None) => {
                        return Err(DriveError::NotFormatted(format!(
                            "{} and {} hold no drive yet (all zeros); `tierlab serve --format` creates one",
                            stores[0].path.display(),
                            stores[1].path.display()
                        )))
                    }
                    (a, b, _) => {
                        let damaged = [a, b].iter().any(|f| matches!(f, Found::Damaged(_) | Found::Drive(_)));
                        let mut m = format!(
                            "{}: {}; {}: {}",
                            stores[0].path.display(),
                            found_ssd.describe(),
                            stores[1].path.display(),
                            found_hdd.describe()
                        );
                        if matches!((a, b), (Found::Drive(_), Found::Drive(_))) {
                            m = format!("{first}");
                        }
                        if damaged {
                            m.push_str(&format!(
                                ". Nothing was written. `tierlab fsck --ssd {} --hdd {}` checks the drive and `--repair` mends it",
                                stores[0].path.display(),
                                stores[1].path.display()
                            ));
                            return Err(DriveError::Corrupt(m));
                        }
                        let create = if opts.create.is_some() { "a drive is created only on stores that are all zeros" } else { "not a tierlab drive" };
                        return Err(DriveError::Invalid(format!("{m}: {create}; nothing was written")));
                    }
                }
            }
        };
        let asked_tracks = opts.hdd_tracks.as_deref().map(TrackTable::from_boundaries).transpose()?;
        let Opened { sb, meta, mut policy, settings, notes, hdd_tracks } = match formatted {
            Some([sb, _]) => {
                if let Some(c) = &opts.create {
                    if c.extent_bytes != sb.extent_bytes {
                        return Err(DriveError::Invalid(format!(
                            "the drive was created with extent size {} bytes; {} was asked for (ES is fixed at creation)",
                            sb.extent_bytes, c.extent_bytes
                        )));
                    }
                    if c.settings.mode() != sb.mode {
                        return Err(DriveError::Invalid(format!("the drive was created in {:?} mode, not {:?}", sb.mode, c.settings.mode())));
                    }
                }
                Self::reopen(&stores, sb, asked_tracks)?
            }
            None => {
                let c = opts.create.as_ref().ok_or_else(|| DriveError::Invalid("not formatted".into()))?;
                // Both stores were found all zero: nothing needs zeroing before use.
                Self::format(&stores, c, true, asked_tracks)?
            }
        };
        policy.enable_journal();
        let geo = *policy.geometry();
        let virtual_bytes = policy.virtual_bytes();
        let unwritten_from = meta.high_water;
        created.clear();
        let drive = Arc::new(Drive {
            geo,
            mode: sb.mode,
            uuid: sb.uuid,
            data_offset_bytes: sb.layout.data_offset_bytes,
            hdd_tracks,
            virtual_bytes,
            stores,
            state: Mutex::new(State { policy, settings, meta, ram: HashMap::new(), scratch: Vec::new(), last_hdd_io: Instant::now(), changed_waiters: 0, unwritten_from }),
            changed: Condvar::new(),
            work: Condvar::new(),
            epoch: Instant::now(),
            shutdown: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
            models: opts.models,
            limits: (opts.ssd_rated_write_bytes, opts.hdd_rated_cycles),
            counters: Counters::default(),
            open_notes: notes,
        });
        let n = opts.migration_threads.max(1);
        let mut threads = drive.threads.lock().map_err(|_| DriveError::Io("lock poisoned".into()))?;
        for i in 0..n {
            let d = Arc::clone(&drive);
            let h = std::thread::Builder::new().name(format!("tierlab-migrate-{i}")).spawn(move || d.migration_loop()).map_err(|e| DriveError::Io(format!("spawn: {e}")))?;
            threads.push(h);
        }
        drop(threads);
        Ok(drive)
    }

    fn format(stores: &Stores, c: &CreateSpec, fresh: bool, tracks: Option<TrackTable>) -> Result<Opened, DriveError> {
        let es = c.extent_bytes;
        let upper = stores.iter().map(|s| s.len_bytes() / es.max(1)).sum::<u64>();
        let layout = Layout::new(upper, c.journal_bytes, tracks.as_ref().map_or(0, |t| t.region_bytes()));
        let hdd_tracks = tracks.map(|t| HddTracks::new(t, layout.data_offset_bytes, stores[1].len_bytes())).transpose()?;
        let data = |s: &Store, laid: Option<u64>| {
            let room = laid.or_else(|| s.len_bytes().checked_sub(layout.data_offset_bytes));
            let d = room.filter(|&d| d >= es).ok_or_else(|| {
                DriveError::Invalid(format!("{}: {} bytes leave no room for data after {} bytes of metadata", s.path.display(), s.len_bytes(), layout.data_offset_bytes))
            })?;
            Ok::<u64, DriveError>(d / es * es)
        };
        let (ssd_data_bytes, hdd_data_bytes) = (data(&stores[0], None)?, data(&stores[1], hdd_tracks.as_ref().map(HddTracks::data_bytes))?);
        let geo = Geometry::new(es, ssd_data_bytes, hdd_data_bytes).map_err(|e| DriveError::Invalid(e.to_string()))?;
        let policy = c.settings.build(geo)?;
        let mut uuid = [0u8; 16];
        let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0) ^ (std::process::id() as u128) << 64;
        uuid.copy_from_slice(&seed.to_le_bytes());
        let tracks_crc = hdd_tracks.as_ref().map_or(0, |t| t.table.crc());
        let sb = Superblock { role: Role::Ssd, mode: c.settings.mode(), uuid, extent_bytes: es, ssd_data_bytes, hdd_data_bytes, layout, tracks_crc };
        // The table is durable on both stores before a superblock points at it.
        if let Some(t) = &hdd_tracks {
            for s in stores {
                s.write_at(layout.tracks_offset(), &t.table.encode())?;
                s.sync()?;
            }
        }
        // Stores we created are sparse files, all zero (high water 0); reused ones may hold
        // anything anywhere (high water at the end: every newly mapped extent is zeroed).
        let high_water = if fresh { [0, 0] } else { [geo.ssd_extents, geo.hdd_extents] };
        let meta = Meta::format(stores, &sb, high_water, c.settings.encode())?;
        Ok(Opened { sb, meta, policy, settings: c.settings.clone(), notes: Vec::new(), hdd_tracks })
    }

    fn reopen(stores: &Stores, sb: Superblock, asked_tracks: Option<TrackTable>) -> Result<Opened, DriveError> {
        let table = crate::tracks::read_table(stores, &sb)?;
        if let Some(asked) = asked_tracks {
            if table.as_ref() != Some(&asked) {
                let had = table.as_ref().map_or("end to end, in no tracks".to_string(), |t| format!("inside {} tracks", t.tracks()));
                return Err(DriveError::Invalid(format!(
                    "the drive's HDD data was laid {had} when it was created; the tracks given ({}) differ (the layout is fixed at creation)",
                    asked.tracks()
                )));
            }
        }
        let hdd_tracks = table.map(|t| HddTracks::new(t, sb.layout.data_offset_bytes, stores[1].len_bytes())).transpose()?;
        if let Some(t) = &hdd_tracks {
            if t.data_bytes() < sb.hdd_data_bytes {
                return Err(DriveError::Invalid(format!(
                    "{}: its tracks hold {} bytes of data, the drive was created with {} (the store shrank?)",
                    stores[1].path.display(),
                    t.data_bytes(),
                    sb.hdd_data_bytes
                )));
            }
        }
        let r: Recovered = recover(stores, &sb)?;
        if let Some(e) = r.loss_error(stores) {
            return Err(e);
        }
        let settings = PolicySettings::decode(&r.checkpoint.params)?;
        if settings.mode() != sb.mode {
            return Err(DriveError::Corrupt("checkpoint settings disagree with the superblock's mode".into()));
        }
        let geo = Geometry::new(sb.extent_bytes, sb.ssd_data_bytes, sb.hdd_data_bytes).map_err(|e| DriveError::Corrupt(e.to_string()))?;
        let mut policy = settings.build(geo)?;
        let (mut records, high_water) = r.mapping();
        if sb.mode == Mode::Caching && !(r.checkpoint.clean && r.changes.is_empty()) {
            for rec in records.iter_mut().filter(|rec| rec.location != tierlab_hybrid_policy::NO_LOCATION) {
                rec.dirty = true;
            }
        }
        policy.restore(&records).map_err(|e| DriveError::Corrupt(format!("recovered mapping: {e} (run `tierlab fsck --repair`)")))?;
        let mut meta = Meta::resume(sb.clone(), &r, high_water);
        // Start clean: one checkpoint of what was recovered, on both stores.
        let mut entries = Vec::new();
        policy.snapshot(&mut entries);
        meta.checkpoint(stores, entries, false)?;
        Ok(Opened { sb, meta, policy, settings, notes: r.notes, hdd_tracks })
    }

    pub fn virtual_bytes(&self) -> u64 {
        self.virtual_bytes
    }

    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn uuid_hex(&self) -> String {
        self.uuid.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>, DriveError> {
        self.state.lock().map_err(|_| DriveError::Io("drive state lock poisoned".into()))
    }

    /// Journal the policy's mapping changes; make a newly mapped extent safe to expose
    /// (zero it if it may hold an old extent's bytes) before any I/O reaches it.
    fn absorb_changes(&self, st: &mut State) -> Result<(), DriveError> {
        st.policy.take_changes(&mut st.scratch);
        if st.scratch.is_empty() {
            return Ok(());
        }
        let changes = std::mem::take(&mut st.scratch);
        for r in &changes {
            if r.fresh {
                let (tier, offset) = self.geo.locate(r.location);
                self.prepare_for_data(st, tier, offset, true)?;
            }
            st.meta.push(Change::Map(*r));
        }
        st.scratch = changes;
        st.scratch.clear();
        if !st.meta.fits() {
            self.checkpoint_locked(st, false)?;
        }
        Ok(())
    }

    /// Before data goes to the extent at `offset` of `tier`: if it may hold an old
    /// extent's bytes, zero it (when `zero`: a newly mapped extent); if it is at or above
    /// the durable high-water mark, raise the mark durably first (in steps, so rarely), so
    /// that a crash never leaves data above the mark.
    fn prepare_for_data(&self, st: &mut State, tier: Tier, offset: u64, zero: bool) -> Result<(), DriveError> {
        if self.mode != Mode::Tiering {
            return Ok(());
        }
        let t = tier_index(tier);
        let idx = (offset / self.geo.extent_bytes) as u32;
        if idx < st.unwritten_from[t] {
            if zero {
                let zeros = vec![0u8; self.geo.extent_bytes as usize];
                self.store_at(t, offset, zeros.len() as u64, &mut |at, range| self.stores[t].write_at(at, &zeros[range]))?;
                self.counters.zeroed_extents.fetch_add(1, Ordering::Relaxed);
            }
        } else {
            st.unwritten_from[t] = idx + 1;
        }
        if idx >= st.meta.high_water[t] {
            let extents = if t == 0 { self.geo.ssd_extents } else { self.geo.hdd_extents };
            let step = (extents / 64).max(16);
            let mark = idx.saturating_add(step).min(extents);
            st.meta.push(Change::HighWater { tier: t as u8, extents: mark });
            self.commit_locked(st)?;
        }
        Ok(())
    }

    fn commit_locked(&self, st: &mut State) -> Result<(), DriveError> {
        if st.meta.fits() {
            st.meta.commit(&self.stores)
        } else {
            self.checkpoint_locked(st, false)
        }
    }

    fn checkpoint_locked(&self, st: &mut State, clean: bool) -> Result<(), DriveError> {
        let mut entries = Vec::new();
        st.policy.snapshot(&mut entries);
        st.meta.params = st.settings.encode();
        st.meta.checkpoint(&self.stores, entries, clean)
    }

    /// Route a host request; waits while it must (a write to an extent being copied).
    fn route(&self, op: Op, offset: u64, len: u64, pieces: &mut Vec<Piece>, ram: &mut Vec<Arc<Vec<u8>>>) -> Result<(), DriveError> {
        let mut st = self.lock()?;
        loop {
            match st.policy.route(self.now_ns(), op, offset, len, pieces) {
                Ok(Routing::Go) => break,
                Ok(Routing::Wait(_)) => st = self.wait_changed(st)?,
                Err(e) => return Err(DriveError::Range(e.to_string())),
            }
        }
        let absorbed = self.absorb_changes(&mut st);
        ram.clear();
        for p in pieces.iter().filter(|p| p.place == Place::Ram) {
            match st.ram.get(&p.extent) {
                Some(buf) => ram.push(Arc::clone(buf)),
                None => {
                    st.policy.done(pieces);
                    return Err(DriveError::Io(format!("extent {} routed to a RAM copy that is not there", p.extent)));
                }
            }
        }
        if pieces.iter().any(|p| p.place == Place::Hdd) {
            st.last_hdd_io = Instant::now();
        }
        // Copy threads are woken when the request is done, not now: a promotion of an extent
        // with I/O in flight would be dropped (GreenDM's rule).
        drop(st);
        if let Err(e) = absorbed {
            self.finish(pieces);
            return Err(e);
        }
        Ok(())
    }

    fn finish(&self, pieces: &[Piece]) {
        let Ok(mut st) = self.state.lock() else { return };
        st.policy.done(pieces);
        let (waiters, wake) = (st.changed_waiters > 0, st.policy.wants_to_move());
        drop(st);
        if waiters {
            self.changed.notify_all();
        }
        if wake {
            self.work.notify_one();
        }
    }

    /// Wait for a migration to end or host I/O to complete.
    fn wait_changed<'a>(&self, mut st: MutexGuard<'a, State>) -> Result<MutexGuard<'a, State>, DriveError> {
        st.changed_waiters += 1;
        let mut st = self.changed.wait(st).map_err(|_| DriveError::Io("lock poisoned".into()))?;
        st.changed_waiters -= 1;
        Ok(st)
    }

    /// The I/Os that serve `pieces`: adjacent pieces contiguous on the same store (extents
    /// laid out in order, as first touches leave them) become one.
    fn spans(&self, offset: u64, pieces: &[Piece]) -> Vec<Span> {
        let mut out: Vec<Span> = Vec::with_capacity(pieces.len());
        for p in pieces {
            let buf = self.buf_range(offset, p);
            if let Some(last) = out.last_mut() {
                let joins = p.place != Place::Ram && last.place == p.place && last.buf.end == buf.start;
                if joins && last.device_offset_bytes + last.buf.len() as u64 == p.device_offset_bytes {
                    last.buf.end = buf.end;
                    continue;
                }
            }
            out.push(Span { place: p.place, device_offset_bytes: p.device_offset_bytes, buf });
        }
        out
    }

    /// Where a piece's bytes sit in the host request's buffer.
    fn buf_range(&self, offset: u64, p: &Piece) -> std::ops::Range<usize> {
        let start = offset.max(p.extent as u64 * self.geo.extent_bytes) - offset;
        start as usize..(start + p.len_bytes) as usize
    }

    /// Run `io(store byte, part of the buffer)` for the store ranges of `len` data bytes
    /// at `offset` of tier `t`: one range, or with the HDD laid inside tracks one per
    /// track touched.
    fn store_at(&self, t: usize, offset: u64, len: u64, io: &mut dyn FnMut(u64, std::ops::Range<usize>) -> Result<(), DriveError>) -> Result<(), DriveError> {
        let Some(tracks) = self.hdd_tracks.as_ref().filter(|_| t == 1) else {
            return io(self.data_offset_bytes + offset, 0..len as usize);
        };
        let mut parts = Vec::with_capacity(2);
        tracks.split(offset, len, &mut parts)?;
        if parts.len() > 1 {
            self.counters.hdd_track_splits.fetch_add(1, Ordering::Relaxed);
        }
        let mut done = 0usize;
        for (at, n) in parts {
            io(at, done..done + n as usize)?;
            done += n as usize;
        }
        Ok(())
    }

    fn store_io(&self, op: Op, t: usize, device_offset: u64, read: Option<&mut [u8]>, write: Option<&[u8]>) -> Result<(), DriveError> {
        let len = read.as_ref().map(|b| b.len()).or(write.map(|b| b.len())).unwrap_or(0) as u64;
        let store = &self.stores[t];
        match (read, write) {
            (Some(buf), _) => {
                self.counters.store_read_bytes[t].fetch_add(len, Ordering::Relaxed);
                self.store_at(t, device_offset, len, &mut |at, range| {
                    self.model_io(t, op, device_offset, at, range.len() as u64);
                    store.read_at(at, &mut buf[range])
                })
            }
            (None, Some(data)) => {
                self.counters.store_write_bytes[t].fetch_add(len, Ordering::Relaxed);
                self.store_at(t, device_offset, len, &mut |at, range| {
                    self.model_io(t, op, device_offset, at, range.len() as u64);
                    store.write_at(at, &data[range])
                })
            }
            (None, None) => Ok(()),
        }
    }

    /// Tell tier `t`'s model of an I/O: at its data offset, or, with the HDD laid inside
    /// tracks, at its store byte `at` (where the tracks were found).
    fn model_io(&self, t: usize, op: Op, data_offset: u64, at: u64, len: u64) {
        if let Some(m) = &self.models[t] {
            let offset = if t == 1 && self.hdd_tracks.is_some() { at } else { data_offset };
            m.io(self.epoch, self.now_ns(), op, offset, len);
        }
    }

    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), DriveError> {
        let mut pieces = Vec::with_capacity(4);
        let mut ram = Vec::new();
        self.route(Op::Read, offset, buf.len() as u64, &mut pieces, &mut ram)?;
        let mut rams = ram.iter();
        let mut result = Ok(());
        for span in self.spans(offset, &pieces) {
            let out = &mut buf[span.buf];
            let at = span.device_offset_bytes as usize;
            let res = match span.place {
                Place::Ram => match rams.next().and_then(|copy| copy.get(at..at + out.len())) {
                    Some(src) => {
                        out.copy_from_slice(src);
                        Ok(())
                    }
                    None => Err(DriveError::Io("the RAM copy of a moving extent is missing or short".into())),
                },
                place => self.store_io(Op::Read, place_index(place), span.device_offset_bytes, Some(out), None),
            };
            if res.is_err() && result.is_ok() {
                result = res;
            }
        }
        self.finish(&pieces);
        self.counters.reads.fetch_add(1, Ordering::Relaxed);
        self.counters.read_bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        result.inspect_err(|_| {
            self.counters.errors.fetch_add(1, Ordering::Relaxed);
        })
    }

    pub fn write(&self, offset: u64, data: &[u8], fua: bool) -> Result<(), DriveError> {
        let mut pieces = Vec::with_capacity(4);
        let mut ram = Vec::new();
        self.route(Op::Write, offset, data.len() as u64, &mut pieces, &mut ram)?;
        let mut result = Ok(());
        for span in self.spans(offset, &pieces) {
            let src = &data[span.buf];
            let res = match span.place {
                Place::Ram => Err(DriveError::Io("a write was routed to a RAM copy".into())),
                place => self.store_io(Op::Write, place_index(place), span.device_offset_bytes, None, Some(src)),
            };
            if res.is_err() && result.is_ok() {
                result = res;
            }
        }
        faults::point("after-data-write");
        self.finish(&pieces);
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        self.counters.write_bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        result?;
        if fua {
            self.flush()?;
        }
        Ok(())
    }

    /// Make every completed write durable, with the mapping that finds it.
    pub fn flush(&self) -> Result<(), DriveError> {
        self.counters.flushes.fetch_add(1, Ordering::Relaxed);
        let mut st = self.lock()?;
        self.absorb_changes(&mut st)?;
        self.commit_locked(&mut st)
    }

    fn migration_loop(self: Arc<Self>) {
        let mut buf = Vec::new();
        while !self.shutdown.load(Ordering::Relaxed) {
            let m = match self.next_migration() {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(_) => {
                    self.counters.errors.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            let ok = self.copy(&m, &mut buf).is_ok();
            if !ok {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
            }
            if self.complete(&m, ok).is_err() {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The next migration, with everything it depends on durable: the journal records of
    /// the moves that freed its destination, and a raised high-water mark.
    fn next_migration(&self) -> Result<Option<Migration>, DriveError> {
        let mut st = self.lock()?;
        let Some(m) = st.policy.next_migration(self.now_ns()) else {
            let _ = self.work.wait_timeout(st, Duration::from_millis(50));
            return Ok(None);
        };
        let ready = self.absorb_changes(&mut st).and_then(|_| self.prepare_for_data(&mut st, m.to, m.to_offset_bytes, false));
        let ready = ready.and_then(|_| if st.meta.pending() > 0 { self.commit_locked(&mut st) } else { Ok(()) });
        if let Err(e) = ready {
            // Give the move up, so that writes waiting for it go on.
            st.policy.migration_done(self.now_ns(), m.id, false);
            drop(st);
            self.changed.notify_all();
            return Err(e);
        }
        Ok(Some(m))
    }

    fn copy(&self, m: &Migration, buf: &mut Vec<u8>) -> Result<(), DriveError> {
        buf.resize(m.len_bytes as usize, 0);
        let (from, to) = (tier_index(m.from), tier_index(m.to));
        self.store_io(Op::Read, from, m.from_offset_bytes, Some(buf), None)?;
        {
            let mut st = self.lock()?;
            st.ram.insert(m.extent, Arc::new(buf.clone()));
            st.policy.migration_copied(m.id);
        }
        if faults::due("mid-copy") {
            let _ = self.store_io(Op::Write, to, m.to_offset_bytes, None, Some(&buf[..buf.len() / 2]));
            faults::die();
        }
        self.store_io(Op::Write, to, m.to_offset_bytes, None, Some(buf))?;
        self.stores[to].sync()?;
        faults::point("after-copy");
        Ok(())
    }

    fn complete(&self, m: &Migration, ok: bool) -> Result<(), DriveError> {
        let mut st = self.lock()?;
        // Reads that reached the old copy before the RAM copy existed must finish first.
        while st.policy.extent_in_flight(m.extent) {
            st = self.wait_changed(st)?;
        }
        st.policy.migration_done(self.now_ns(), m.id, ok);
        let res = self.absorb_changes(&mut st).and_then(|_| self.commit_locked(&mut st));
        st.ram.remove(&m.extent);
        drop(st);
        self.changed.notify_all();
        self.work.notify_one();
        res
    }

    /// Change a tunable (all but ES); the change persists with the next checkpoint, which
    /// is taken now.
    pub fn set_param(&self, name: &str, value: f64) -> Result<(), DriveError> {
        let mut st = self.lock()?;
        st.policy.set_param(name, value).map_err(|e| DriveError::Invalid(e.to_string()))?;
        st.settings.record_set(name, value);
        self.absorb_changes(&mut st)?;
        self.checkpoint_locked(&mut st, false)?;
        drop(st);
        self.work.notify_all();
        Ok(())
    }

    pub fn params(&self) -> Result<Vec<(&'static str, f64)>, DriveError> {
        Ok(self.lock()?.policy.params())
    }

    /// The mapping: every placed extent (tiering: physical extent; caching: slot, dirty).
    pub fn table(&self) -> Result<Vec<MapRecord>, DriveError> {
        let mut out = Vec::new();
        self.lock()?.policy.snapshot(&mut out);
        Ok(out)
    }

    pub fn stats(&self) -> Result<DriveStats, DriveError> {
        let now = self.now_ns();
        let st = self.lock()?;
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let policy = st.policy.stats();
        let [s, h] = [0, 1].map(|t| self.models[t].as_ref().and_then(|m| m.report(now)));
        let modelled = (s.is_some() || h.is_some()).then(|| Modelled {
            ssd_energy_j: s.as_ref().map(|r| r.energy_j),
            hdd_energy_j: h.as_ref().map(|r| r.energy_j),
            hdd_states: h.map(|r| r.states).unwrap_or_default(),
        });
        Ok(DriveStats {
            mode: self.mode,
            extent_bytes: self.geo.extent_bytes,
            virtual_bytes: self.virtual_bytes,
            uptime_s: now as f64 / 1e9,
            ssd_hit_ratio: policy.ssd_hit_ratio(),
            policy,
            host_reads: get(&c.reads),
            host_writes: get(&c.writes),
            host_read_bytes: get(&c.read_bytes),
            host_write_bytes: get(&c.write_bytes),
            flushes: get(&c.flushes),
            io_errors: get(&c.errors),
            ssd_read_bytes: get(&c.store_read_bytes[0]),
            ssd_write_bytes: get(&c.store_write_bytes[0]),
            hdd_read_bytes: get(&c.store_read_bytes[1]),
            hdd_write_bytes: get(&c.store_write_bytes[1]),
            zeroed_extents: get(&c.zeroed_extents),
            checkpoint_generation: st.meta.generation(),
            journal_commits: st.meta.commits,
            checkpoints: st.meta.checkpoints,
            hdd_idle_s: st.last_hdd_io.elapsed().as_secs_f64(),
            hdd_spin_downs: get(&c.spin_downs),
            hdd_tracks: self.hdd_tracks.as_ref().map(|t| t.table.tracks()),
            hdd_track_splits: get(&c.hdd_track_splits),
            modelled,
            endurance: match self.limits {
                (Some(ssd), Some(hdd)) if ssd > 0 && hdd > 0 => Some(Endurance {
                    ssd_wear_eu: (get(&c.store_write_bytes[0]) as f64 + get(&c.store_read_bytes[0]) as f64 * READ_EFFECT) / ssd as f64 * 1e6,
                    hdd_wear_eu: get(&c.spin_downs) as f64 / hdd as f64 * 1e6,
                }),
                _ => None,
            },
        })
    }

    /// The power hook spun the HDD down (one start/stop cycle).
    pub fn note_spin_down(&self) {
        self.counters.spin_downs.fetch_add(1, Ordering::Relaxed);
    }

    /// How long the HDD path has had no host I/O (for the spin-down hook).
    pub fn hdd_idle(&self) -> Duration {
        self.state.lock().map(|s| s.last_hdd_io.elapsed()).unwrap_or_default()
    }

    /// Stop the migration threads (after the copies under way).
    fn stop_threads(&self) -> Result<(), DriveError> {
        self.shutdown.store(true, Ordering::Relaxed);
        self.work.notify_all();
        let threads = std::mem::take(&mut *self.threads.lock().map_err(|_| DriveError::Io("lock poisoned".into()))?);
        for t in threads {
            let _ = t.join();
        }
        Ok(())
    }

    /// Stop as a crash would, but with the threads joined: no final checkpoint.
    pub(crate) fn halt(&self) {
        let _ = self.stop_threads();
    }

    /// Stop the migration threads and write a final, clean checkpoint.
    pub fn close(&self) -> Result<(), DriveError> {
        self.stop_threads()?;
        let mut st = self.lock()?;
        self.absorb_changes(&mut st)?;
        self.checkpoint_locked(&mut st, true)
    }
}
