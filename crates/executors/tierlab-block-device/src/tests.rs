use super::*;
use crate::journal::Checkpoint;
use crate::layout::Superblock;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tierlab_cache::Algorithm;
use tierlab_hybrid_policy::{CachingParams, TieringParams, WritePolicy};

struct Dir(PathBuf, Option<Vec<u64>>);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("tierlab-drive-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d, None)
    }
    /// A drive whose HDD data is laid inside these tracks.
    fn with_tracks(name: &str, boundaries: Vec<u64>) -> Dir {
        let mut d = Dir::new(name);
        d.1 = Some(boundaries);
        d
    }
    fn opts(&self, create: Option<CreateSpec>) -> OpenOptions {
        OpenOptions { ssd_path: self.0.join("ssd"), hdd_path: self.0.join("hdd"), create, migration_threads: 2, hdd_tracks: self.1.clone(), ..Default::default() }
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const ES: u64 = 64 * 1024;

fn tiering() -> CreateSpec {
    let params = TieringParams { pt: 1, tw_ns: 60_000_000_000, mcml: 2, lt: 4, ht: 8, reserved_hdd_extents: 16 };
    CreateSpec { settings: PolicySettings::new(Created::Tiering(params)), extent_bytes: ES, ssd_bytes: Some(3 << 20), hdd_bytes: Some(8 << 20), journal_bytes: 64 << 10 }
}

fn caching() -> CreateSpec {
    let params = CachingParams { pt: 1, tw_ns: 60_000_000_000, mcml: 2, write: WritePolicy::WriteBack, replacement: Algorithm::Lru, writeback_queue_cap: 64 };
    CreateSpec { settings: PolicySettings::new(Created::Caching(params)), extent_bytes: ES, ssd_bytes: Some(3 << 20), hdd_bytes: Some(8 << 20), journal_bytes: 64 << 10 }
}

/// Block `i`'s contents in version `v`.
fn pattern(i: u64, v: u64) -> Vec<u8> {
    (0..4096u64).map(|k| (i.wrapping_mul(31) ^ v.wrapping_mul(131) ^ k) as u8).collect()
}

/// Wait until the background migrations have moved something and then nothing for
/// 150 ms (five samples 30 ms apart), or 10 s: a loaded machine can stall the migration
/// threads for longer than one sample.
fn settle(d: &Drive) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut quiet = 0;
    let mut last = d.stats().unwrap().policy.bytes_moved;
    while Instant::now() < deadline && quiet < 5 {
        std::thread::sleep(Duration::from_millis(30));
        let now = d.stats().unwrap().policy.bytes_moved;
        quiet = if now == last && now > 0 { quiet + 1 } else { 0 };
        last = now;
    }
}

/// Wait until `extent` is in the SSD (the prefetch its read asked for has landed), or 2 s
/// (some reads ask for none), so that a write then makes it dirty, to be written back when
/// it is evicted: on a loaded machine the migration thread can lag the reads so far that
/// every write reached the HDD and nothing was ever written back.
fn cached(d: &Drive, extent: u64) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && !d.table().unwrap().iter().any(|r| u64::from(r.extent) == extent) {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Write every block, read hot ones repeatedly so they move, then check all data through
/// migrations, a close, a reopen, and fsck.
fn survives_migrations_and_reopen(dir: &Dir, create: CreateSpec) -> DriveStats {
    let d = Drive::open(dir.opts(Some(create.clone()))).unwrap();
    let blocks = d.virtual_bytes() / 4096;
    assert!(blocks > 500, "{blocks}");
    for i in 0..blocks {
        d.write(i * 4096, &pattern(i, 1), false).unwrap();
    }
    // Touch a sweep of blocks several times: extents move both ways.
    for round in 0..4u64 {
        for i in (0..blocks).step_by(7) {
            let mut b = vec![0u8; 4096];
            d.read(i * 4096, &mut b).unwrap();
            assert_eq!(b, pattern(i, if round > 1 && i % 5 == 0 { 2 } else { 1 }), "block {i} round {round}");
            if round == 1 && i % 5 == 0 {
                if create.settings.mode() == Mode::Caching {
                    cached(&d, i * 4096 / ES);
                }
                d.write(i * 4096, &pattern(i, 2), false).unwrap();
            }
        }
        // Let each round's moves finish, so the next round's writes meet the extents
        // where the policy put them (in caching mode: dirty in the SSD, to be written back).
        settle(&d);
    }
    settle(&d);
    d.flush().unwrap();
    let stats = d.stats().unwrap();
    d.close().unwrap();
    drop(d);
    let d = Drive::open(dir.opts(Some(create))).unwrap();
    for i in 0..blocks {
        let mut b = vec![0u8; 4096];
        d.read(i * 4096, &mut b).unwrap();
        let v = if i % 7 == 0 && i % 5 == 0 { 2 } else { 1 };
        assert_eq!(b, pattern(i, v), "block {i} after reopen");
    }
    d.close().unwrap();
    drop(d);
    let rep = fsck::fsck(&dir.0.join("ssd"), &dir.0.join("hdd"), false).unwrap();
    assert!(rep.clean(), "{:?}", rep.problems);
    stats
}

#[test]
fn tiering_keeps_every_block_through_promotions_demotions_and_reopen() {
    let dir = Dir::new("tier");
    let s = survives_migrations_and_reopen(&dir, tiering());
    assert!(s.policy.promotions > 0 && s.policy.demotions > 0, "{:?}", s.policy);
}

#[test]
fn caching_keeps_every_block_through_prefetch_writeback_and_reopen() {
    let dir = Dir::new("cache");
    let s = survives_migrations_and_reopen(&dir, caching());
    assert!(s.policy.prefetches > 0 && s.policy.write_backs > 0 && s.policy.evictions > 0, "{:?}", s.policy);
}

/// 1,001-sector tracks (512,512 bytes) over the 8 MiB HDD store: 125 whole blocks each
/// and 512 bytes that data must never touch.
const TRACK_BYTES: u64 = 1001 * 512;
fn odd_tracks() -> Vec<u64> {
    (0..=16).map(|k| k * TRACK_BYTES).collect()
}

/// Every track's unused tail after the metadata is still zero; some track holds data.
fn assert_tails_untouched(dir: &Dir, data_offset_bytes: u64) {
    let hdd = std::fs::read(dir.0.join("hdd")).unwrap();
    let mut data_seen = false;
    for k in (0..16u64).filter(|k| k * TRACK_BYTES >= data_offset_bytes) {
        let (start, used_end, end) = (k * TRACK_BYTES, k * TRACK_BYTES + 125 * 4096, (k + 1) * TRACK_BYTES);
        assert!(hdd[used_end as usize..end as usize].iter().all(|&b| b == 0), "track {k}'s unused tail was written");
        data_seen |= hdd[start as usize..used_end as usize].iter().any(|&b| b != 0);
    }
    assert!(data_seen, "no data reached the HDD's tracks");
}

#[test]
fn hdd_laid_inside_tracks_keeps_every_block_and_never_writes_a_track_tail() {
    for (name, create) in [("tracks-tier", tiering()), ("tracks-cache", caching())] {
        let dir = Dir::with_tracks(name, odd_tracks());
        let s = survives_migrations_and_reopen(&dir, create);
        assert_eq!(s.hdd_tracks, Some(16));
        // 64 KiB extents on 500 KiB tracks: some I/O crossed a boundary and was cut.
        assert!(s.hdd_track_splits > 0, "{name}: no I/O was cut at a track boundary");
        assert_tails_untouched(&dir, 1 << 20);
        // Reopened without the tracks, the drive takes them from its metadata (the helper's
        // fsck read them too); with other tracks it refuses.
        let plain = Dir(dir.0.clone(), None);
        let d = Drive::open(plain.opts(None)).unwrap();
        assert_eq!(d.stats().unwrap().hdd_tracks, Some(16));
        d.close().unwrap();
        drop(d);
        let other = Dir(dir.0.clone(), Some((0..=16).map(|k| k * 1000 * 512).collect()));
        let e = Drive::open(other.opts(None)).err().expect("other tracks accepted");
        assert!(e.to_string().contains("inside 16 tracks"), "{e}");
        std::mem::forget(plain);
        std::mem::forget(other);
    }
}

#[test]
fn fsck_rebuilds_a_damaged_track_table_from_the_other_store() {
    let dir = Dir::with_tracks("tracks-fsck", odd_tracks());
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    d.write(0, &pattern(0, 1), true).unwrap();
    d.close().unwrap();
    drop(d);
    let hdd = dir.0.join("hdd");
    let sb = meta::read_superblocks(&[store::Store::open(&dir.0.join("ssd"), layout::Role::Ssd, None).unwrap().0, store::Store::open(&hdd, layout::Role::Hdd, None).unwrap().0]).unwrap()[1].clone();
    let mut bytes = std::fs::read(&hdd).unwrap();
    bytes[sb.layout.tracks_offset() as usize + 20] ^= 1;
    std::fs::write(&hdd, &bytes).unwrap();
    let rep = fsck::fsck(&dir.0.join("ssd"), &hdd, false).unwrap();
    assert!(rep.problems.iter().any(|p| p.contains("track table")), "{:?}", rep.problems);
    assert_eq!(rep.hdd_tracks, Some(16));
    // The drive still opens, from the SSD's copy; repair rewrites the HDD's.
    let d = Drive::open(dir.opts(None)).unwrap();
    let mut b = vec![0u8; 4096];
    d.read(0, &mut b).unwrap();
    assert_eq!(b, pattern(0, 1));
    d.close().unwrap();
    drop(d);
    assert!(fsck::fsck(&dir.0.join("ssd"), &hdd, true).unwrap().repaired);
    assert!(fsck::fsck(&dir.0.join("ssd"), &hdd, false).unwrap().clean());
}

#[test]
fn unwritten_blocks_read_as_zero_even_where_an_extent_lived_before() {
    let dir = Dir::new("zero");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let blocks = d.virtual_bytes() / 4096;
    // Fill only the first half, with nothing moving; then hot reads move extents and free
    // extents for reuse.
    d.set_param("pt", 1000.0).unwrap();
    for i in 0..blocks / 2 {
        d.write(i * 4096, &[0xAB; 4096], false).unwrap();
    }
    d.set_param("pt", 1.0).unwrap();
    // Only extents freed by a migration are zeroed before reuse: a new sparse store is zero.
    let s = d.stats().unwrap();
    assert!(s.zeroed_extents <= s.policy.promotions + s.policy.demotions, "{} zeroed, {:?}", s.zeroed_extents, s.policy);
    for _ in 0..3 {
        for i in (blocks / 4..blocks / 2).step_by(16) {
            let mut b = vec![0u8; 4096];
            d.read(i * 4096, &mut b).unwrap();
        }
    }
    settle(&d);
    for i in (blocks / 2..blocks).step_by(3) {
        let mut b = vec![1u8; 4096];
        d.read(i * 4096, &mut b).unwrap();
        assert!(b.iter().all(|&x| x == 0), "block {i} was never written but reads non-zero");
    }
    assert!(d.stats().unwrap().zeroed_extents > 0, "reused extents were not zeroed");
    d.close().unwrap();
}

#[test]
fn reopening_with_another_extent_size_or_mode_is_an_error() {
    let dir = Dir::new("es");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    d.close().unwrap();
    drop(d);
    let mut other = tiering();
    other.extent_bytes = 128 * 1024;
    let e = Drive::open(dir.opts(Some(other))).err().unwrap();
    assert!(e.to_string().contains("extent size 65536"), "{e}");
    let e = Drive::open(dir.opts(Some(caching()))).err().unwrap();
    assert!(e.to_string().contains("mode"), "{e}");
    // Opening without a create spec works and keeps the settings.
    let d = Drive::open(dir.opts(None)).unwrap();
    assert_eq!(d.geometry().extent_bytes, ES);
    d.close().unwrap();
}

#[test]
fn tunables_change_while_running_and_persist_but_es_does_not() {
    let dir = Dir::new("set");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    d.set_param("pt", 5.0).unwrap();
    assert!(d.set_param("es", 4096.0).is_err());
    assert!(d.set_param("lt", 100.0).is_err());
    assert!(d.set_param("bogus", 1.0).is_err());
    d.close().unwrap();
    drop(d);
    let d = Drive::open(dir.opts(None)).unwrap();
    assert!(d.params().unwrap().contains(&("pt", 5.0)));
    d.close().unwrap();
}

#[test]
fn out_of_range_requests_are_refused() {
    let dir = Dir::new("range");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let end = d.virtual_bytes();
    assert!(matches!(d.write(end - 4096, &[0; 8192], false), Err(DriveError::Range(_))));
    let mut b = [0u8; 10];
    assert!(matches!(d.read(end, &mut b), Err(DriveError::Range(_))));
    d.close().unwrap();
}

#[test]
fn a_torn_journal_tail_is_ignored_and_fsck_repairs_a_shared_location() {
    let dir = Dir::new("fsck");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    for i in 0..40u64 {
        d.write(i * ES, &pattern(i, 1), false).unwrap();
    }
    d.flush().unwrap();
    // No close: the journal holds the mappings.
    d.halt();
    drop(d);
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    let sb = {
        let b = std::fs::read(&ssd).unwrap();
        Superblock::decode(&b[..4096], "ssd").unwrap()
    };
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(rep.clean(), "{:?}", rep.problems);
    assert!(rep.journal_records > 0);
    // Write a checkpoint whose mapping puts two extents in one place.
    let gen = rep.checkpoint_generation + 1;
    let mut entries = vec![tierlab_hybrid_policy::MapRecord::new(0, 3, false), tierlab_hybrid_policy::MapRecord::new(1, 3, false)];
    entries.push(tierlab_hybrid_policy::MapRecord::new(2, 4, false));
    let ck = Checkpoint { generation: gen, next_seq: 1 << 40, high_water: [10, 10], params: tiering().settings.encode(), clean: false, entries };
    let bytes = ck.encode().unwrap();
    for p in [&ssd, &hdd] {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
        f.write_all_at(&bytes, sb.layout.checkpoint_offset(gen)).unwrap();
    }
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(rep.problems.iter().any(|p| p.contains("already holds extent 0")), "{:?}", rep.problems);
    assert!(Drive::open(dir.opts(None)).is_err(), "an inconsistent drive must not open");
    let rep = fsck::fsck(&ssd, &hdd, true).unwrap();
    assert!(rep.repaired);
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(rep.clean(), "{:?}", rep.problems);
    assert_eq!(rep.mapped_extents, 2);
    let d = Drive::open(dir.opts(None)).unwrap();
    d.close().unwrap();
}

#[test]
fn after_an_unclean_stop_every_cached_extent_is_dirty_until_written_back() {
    let dir = Dir::new("unclean");
    let d = Drive::open(dir.opts(Some(caching()))).unwrap();
    for i in 0..64u64 {
        d.write(i * ES, &pattern(i, 1), false).unwrap();
        let mut b = vec![0u8; 4096];
        d.read(i * ES, &mut b).unwrap();
    }
    settle(&d);
    d.flush().unwrap();
    let cached = d.table().unwrap().len();
    assert!(cached > 0);
    d.halt();
    drop(d);
    // Reopened after an unclean stop: the HDD may lack a write that reached the SSD copy,
    // so every copy counts as dirty and is written back.
    let d = Drive::open(dir.opts(None)).unwrap();
    assert!(d.table().unwrap().iter().all(|r| r.dirty), "copies trusted after an unclean stop");
    settle(&d);
    assert!(d.stats().unwrap().policy.write_backs >= cached as u64);
    d.close().unwrap();
    drop(d);
    // After a clean stop they are trusted as they are.
    let d = Drive::open(dir.opts(None)).unwrap();
    assert_eq!(d.stats().unwrap().policy.dirty_extents, 0, "written-back copies are clean after a clean stop");
    d.close().unwrap();
}

/// A device that takes 2 ms per operation and charges 1 J for each.
struct SlowDisk {
    ops: u64,
}

impl tierlab_engine::Device for SlowDisk {
    fn name(&self) -> &str {
        "slow"
    }
    fn capacity_bytes(&self) -> u64 {
        1 << 40
    }
    fn service(&mut self, now_ns: u64, _op: &tierlab_engine::DeviceOp) -> u64 {
        self.ops += 1;
        now_ns + 2_000_000
    }
    fn finish(&mut self, _end_ns: u64) {}
    fn report(&self) -> tierlab_engine::DeviceReport {
        tierlab_engine::DeviceReport { name: "slow".into(), kind: "hdd".into(), energy_j: self.ops as f64, states: Vec::new(), counters: Default::default() }
    }
}

#[test]
fn emulation_holds_hdd_io_for_the_modelled_time_and_energy_is_modelled() {
    let dir = Dir::new("emulate");
    let mut create = caching();
    create.settings = PolicySettings::new(Created::Caching(CachingParams { pt: 1000, ..CachingParams::default() }));
    let mut opts = dir.opts(Some(create));
    opts.models = [None, Some(DeviceModel::new(Box::new(SlowDisk { ops: 0 }), true))];
    let d = Drive::open(opts).unwrap();
    let t = Instant::now();
    for i in 0..10u64 {
        let mut b = vec![0u8; 4096];
        d.read(i * ES, &mut b).unwrap();
    }
    // Ten HDD-path reads, each held until the model's 2 ms completion (a lower bound only:
    // a slow machine makes it longer, never shorter).
    assert!(t.elapsed() >= Duration::from_millis(20), "{:?}", t.elapsed());
    let s = d.stats().unwrap();
    let m = s.modelled.expect("modelled figures");
    assert_eq!(m.hdd_energy_j, Some(10.0));
    assert_eq!(m.ssd_energy_j, None);
    d.close().unwrap();
}

#[test]
fn requests_spanning_extents_read_back_whole_and_in_parts() {
    for create in [tiering(), caching()] {
        let dir = Dir::new("span");
        let d = Drive::open(dir.opts(Some(create))).unwrap();
        let data: Vec<u8> = (0..300 * 1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        let at = 10 * 1024;
        d.write(at, &data, false).unwrap();
        // Touch the extents again so they move (PT 1), then check before and after.
        for round in 0..2 {
            let mut whole = vec![0u8; data.len()];
            d.read(at, &mut whole).unwrap();
            assert!(whole == data, "round {round}: the whole range differs");
            for (off, len) in [(0usize, 70_000usize), (60_000, 140_000), (250_000, 57_200)] {
                let mut part = vec![0u8; len];
                d.read(at + off as u64, &mut part).unwrap();
                assert!(part[..] == data[off..off + len], "round {round}: bytes {off}+{len} differ");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        d.close().unwrap();
    }
}

fn write_all_blocks(d: &Drive, version: u64) -> u64 {
    let blocks = d.virtual_bytes() / 4096;
    for i in 0..blocks {
        d.write(i * 4096, &pattern(i, version), false).unwrap();
    }
    d.flush().unwrap();
    blocks
}

fn assert_all_blocks(d: &Drive, blocks: u64, version: u64) {
    let mut b = vec![0u8; 4096];
    for i in 0..blocks {
        d.read(i * 4096, &mut b).unwrap();
        assert!(b == pattern(i, version), "block {i} lost");
    }
}

fn patch(path: &std::path::Path, at: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}

#[test]
fn a_damaged_superblock_is_refused_even_with_create_and_fsck_repair_restores_every_block() {
    let dir = Dir::new("damaged-sb");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let blocks = write_all_blocks(&d, 1);
    d.close().unwrap();
    drop(d);
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    let before = (std::fs::read(&ssd).unwrap(), std::fs::read(&hdd).unwrap());
    patch(&hdd, 2, b"X");
    let damaged_hdd = std::fs::read(&hdd).unwrap();
    for create in [Some(tiering()), None] {
        let e = Drive::open(dir.opts(create)).err().expect("a damaged drive opened");
        let m = e.to_string();
        assert!(matches!(e, DriveError::Corrupt(_)), "{m}");
        assert!(m.contains("damaged tierlab drive") && m.contains("tierlab fsck") && m.contains("--repair"), "{m}");
        assert!(m.contains(&hdd.display().to_string()), "{m}");
    }
    // Nothing was written to either store.
    assert!(std::fs::read(&ssd).unwrap() == before.0, "the SSD store changed");
    assert!(std::fs::read(&hdd).unwrap() == damaged_hdd, "the HDD store changed");
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(!rep.clean());
    let rep = fsck::fsck(&ssd, &hdd, true).unwrap();
    assert!(rep.repaired, "{rep:?}");
    let d = Drive::open(dir.opts(None)).unwrap();
    assert_all_blocks(&d, blocks, 1);
    d.close().unwrap();
}

#[test]
fn creating_refuses_stores_that_hold_anything_and_names_what_they_hold() {
    let dir = Dir::new("foreign");
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    // All-zero stores that exist already are fine…
    for p in [&ssd, &hdd] {
        std::fs::File::create(p).unwrap().set_len(8 << 20).unwrap();
    }
    // …but not once one holds a file system, or any non-zero byte.
    let mut ext4 = vec![0u8; 2048];
    ext4[1080..1082].copy_from_slice(&[0x53, 0xEF]);
    patch(&hdd, 0, &ext4);
    let e = Drive::open(dir.opts(Some(tiering()))).err().expect("formatted over ext4").to_string();
    assert!(e.contains("ext2/3/4") && e.contains(&hdd.display().to_string()) && e.contains("nothing (all zeros)"), "{e}");
    patch(&hdd, 0, &[0u8; 2048]);
    patch(&hdd, (5 << 20) + 17, b"x");
    let e = Drive::open(dir.opts(Some(tiering()))).err().expect("formatted over data").to_string();
    assert!(e.contains(&format!("first non-zero byte at {}", (5 << 20) + 17)), "{e}");
    assert!(std::fs::read(&ssd).unwrap().iter().all(|&b| b == 0), "the SSD store was written");
    patch(&hdd, (5 << 20) + 17, &[0]);
    // Without create, stores holding no drive are refused too, and the way to create one named.
    let e = Drive::open(dir.opts(None)).err().expect("opened zeros").to_string();
    assert!(e.contains("--format"), "{e}");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let blocks = write_all_blocks(&d, 3);
    d.close().unwrap();
    drop(d);
    // Create again on the drive: it is opened as it is, not formatted again.
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    assert_all_blocks(&d, blocks, 3);
    d.close().unwrap();
}

#[test]
fn a_bad_extent_size_creates_no_files() {
    let dir = Dir::new("es0");
    for es in [0, 1000, 2 << 20] {
        let mut c = tiering();
        c.extent_bytes = es;
        let e = Drive::open(dir.opts(Some(c))).err().expect("bad ES accepted").to_string();
        assert!(e.contains("extent size") && e.contains(&es.to_string()), "{e}");
        assert!(!dir.0.join("ssd").exists() && !dir.0.join("hdd").exists(), "ES {es}: backing files left behind");
    }
    // A failure after the files were created removes them as well.
    let mut c = tiering();
    c.hdd_bytes = Some(1 << 20);
    assert!(Drive::open(dir.opts(Some(c))).is_err());
    assert!(!dir.0.join("ssd").exists() && !dir.0.join("hdd").exists(), "backing files left behind");
}

#[test]
fn a_live_drive_locks_its_stores_against_a_second_open_and_fsck() {
    let dir = Dir::new("lock");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    for create in [None, Some(tiering())] {
        let e = Drive::open(dir.opts(create)).err().expect("a second open of a live drive");
        assert!(matches!(e, DriveError::InUse(_)) && e.to_string().contains("in use"), "{e}");
    }
    for repair in [false, true] {
        let e = fsck::fsck(&ssd, &hdd, repair).err().expect("fsck ran on a live drive");
        assert!(matches!(e, DriveError::InUse(_)), "{e}");
    }
    d.close().unwrap();
    drop(d);
    assert!(fsck::fsck(&ssd, &hdd, false).unwrap().clean());
    Drive::open(dir.opts(None)).unwrap().close().unwrap();
}

/// A tiering drive with extents `0..n` written (version 1) and flushed, stopped as a crash
/// would stop it: the journal holds the mappings. Returns the superblock.
fn journalled_drive(dir: &Dir, n: u64) -> Superblock {
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    for i in 0..n {
        d.write(i * ES, &pattern(i, 1), false).unwrap();
    }
    d.flush().unwrap();
    d.halt();
    drop(d);
    let b = std::fs::read(dir.0.join("ssd")).unwrap();
    Superblock::decode(&b[..4096], "ssd").unwrap()
}

/// Flip a byte inside journal record `i` of one store.
fn damage_record(path: &std::path::Path, sb: &Superblock, i: u64) {
    let at = sb.layout.journal_offset() + i * layout::RECORD_BYTES + 21;
    let b = std::fs::read(path).unwrap();
    patch(path, at, &[b[at as usize] ^ 0x5a]);
}

/// Every extent's first block holds its own data, or zeros: never another extent's.
fn no_foreign_data(d: &Drive, n: u64) -> (u64, u64) {
    let (mut own, mut zero) = (0, 0);
    let mut b = vec![0u8; 4096];
    for i in 0..n {
        d.read(i * ES, &mut b).unwrap();
        if b == pattern(i, 1) {
            own += 1;
        } else {
            assert!(b.iter().all(|&x| x == 0), "extent {i} reads data that is not its own");
            zero += 1;
        }
    }
    (own, zero)
}

#[test]
fn recovery_takes_each_journal_record_from_whichever_copy_holds_it_whole() {
    let dir = Dir::new("journal-mix");
    let sb = journalled_drive(&dir, 40);
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    let records = fsck::fsck(&ssd, &hdd, false).unwrap().journal_records as u64;
    assert!(records >= 40, "{records}");
    damage_record(&ssd, &sb, 5);
    damage_record(&hdd, &sb, 20);
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(rep.clean(), "{:?}", rep.problems);
    assert_eq!(rep.journal_records as u64, records);
    let d = Drive::open(dir.opts(None)).unwrap();
    assert_eq!(no_foreign_data(&d, 40), (40, 0));
    d.close().unwrap();
}

#[test]
fn a_journal_record_lost_on_both_copies_stops_the_drive_until_its_extents_are_discarded() {
    let dir = Dir::new("journal-lost");
    let sb = journalled_drive(&dir, 40);
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    for p in [&ssd, &hdd] {
        damage_record(p, &sb, 10);
    }
    let e = Drive::open(dir.opts(None)).err().expect("served a drive whose committed journal record is lost");
    let m = e.to_string();
    assert!(matches!(e, DriveError::Unrecoverable(_)) && m.contains("is damaged on both stores") && m.contains("cannot be recovered") && m.contains("--discard-unrecoverable"), "{m}");
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(!rep.clean() && !rep.unrecoverable_extents.is_empty(), "{rep:?}");
    let rep = fsck::fsck(&ssd, &hdd, true).unwrap();
    assert!(!rep.repaired, "repaired without being told to discard");
    let rep = fsck::fsck_with(&ssd, &hdd, true, true).unwrap();
    assert!(rep.repaired, "{rep:?}");
    let dropped = rep.unrecoverable_extents.len() as u64;
    assert!(fsck::fsck(&ssd, &hdd, false).unwrap().clean());
    let d = Drive::open(dir.opts(None)).unwrap();
    let (own, zero) = no_foreign_data(&d, 40);
    // The extents mapped after the lost record keep their data.
    assert!(own >= 40 - dropped - 1 && zero <= dropped + 1, "own {own}, zero {zero}, dropped {dropped}");
    d.close().unwrap();
}

/// A tiering drive with `ranges` of extents written and flushed in turn, a checkpoint
/// taken after each of the first `checkpoints`, stopped as a crash would stop it; then
/// its newest checkpoint damaged on both stores. Returns that checkpoint's generation.
fn newest_checkpoint_damaged(dir: &Dir, ranges: &[(u64, u64)], checkpoints: usize) -> u64 {
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    for (k, &(from, to)) in ranges.iter().enumerate() {
        for i in from..to {
            d.write(i * ES, &pattern(i, 1), false).unwrap();
        }
        d.flush().unwrap();
        if k < checkpoints {
            d.set_param("pt", 1.0).unwrap();
        }
    }
    let gen = d.stats().unwrap().checkpoint_generation;
    d.halt();
    drop(d);
    let ssd = dir.0.join("ssd");
    let sb = Superblock::decode(&std::fs::read(&ssd).unwrap()[..4096], "ssd").unwrap();
    for p in [ssd, dir.0.join("hdd")] {
        // Its next sequence number, which the checksum covers.
        patch(&p, sb.layout.checkpoint_offset(gen) + 17, &[0xee]);
    }
    gen
}

#[test]
fn a_newest_checkpoint_damaged_on_both_stores_is_not_replaced_by_an_older_one() {
    let dir = Dir::new("ckpt-lost");
    let gen = newest_checkpoint_damaged(&dir, &[(0, 20), (20, 40), (40, 60)], 2);
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    let e = Drive::open(dir.opts(None)).err().expect("served an older checkpoint in place of a damaged newer one");
    assert!(matches!(e, DriveError::Unrecoverable(_)) && e.to_string().contains(&format!("checkpoint generation {gen}")), "{e}");
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(!rep.clean(), "fsck says clean: {rep:?}");
    assert!(fsck::fsck_with(&ssd, &hdd, true, true).unwrap().repaired);
    let rep = fsck::fsck(&ssd, &hdd, false).unwrap();
    assert!(rep.clean() && rep.checkpoint_generation > gen, "{rep:?}");
    let d = Drive::open(dir.opts(None)).unwrap();
    let (own, _) = no_foreign_data(&d, 60);
    // Extents 40..60 were mapped by records written after the lost checkpoint.
    assert!(own >= 20, "{own}");
    d.close().unwrap();
}

#[test]
fn a_checkpoint_slot_damaged_on_both_stores_with_a_newer_generation_is_a_loss() {
    let dir = Dir::new("ckpt-slot");
    let gen = newest_checkpoint_damaged(&dir, &[(0, 20)], 1);
    let e = Drive::open(dir.opts(None)).err().expect("served an older checkpoint");
    assert!(matches!(e, DriveError::Unrecoverable(_)) && e.to_string().contains(&format!("generation {gen}")), "{e}");
    assert!(!fsck::fsck(&dir.0.join("ssd"), &dir.0.join("hdd"), false).unwrap().clean());
}

#[test]
fn idle_connections_do_not_delay_a_metrics_scrape() {
    use std::io::{Read, Write};
    let dir = Dir::new("metrics");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (addr, h) = admin::serve_metrics(d.clone(), "127.0.0.1:0".parse().unwrap(), stop.clone()).unwrap();
    let idle: Vec<_> = (0..6).map(|_| std::net::TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    let took = t.elapsed();
    assert!(body.starts_with("HTTP/1.1 200") && body.contains("tierlab_host_requests_total"), "{body}");
    assert!(took < Duration::from_secs(2), "a scrape behind six idle connections took {took:?}");
    drop(idle);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    h.join().unwrap();
    d.close().unwrap();
}

#[test]
fn a_drive_whose_only_checkpoint_is_damaged_on_both_stores_can_be_repaired_to_serve_no_foreign_data() {
    let dir = Dir::new("ckpt-only");
    newest_checkpoint_damaged(&dir, &[(0, 20)], 0);
    let (ssd, hdd) = (dir.0.join("ssd"), dir.0.join("hdd"));
    let e = Drive::open(dir.opts(None)).err().expect("served a drive with no valid checkpoint");
    assert!(matches!(e, DriveError::Unrecoverable(_)), "{e}");
    assert!(!fsck::fsck(&ssd, &hdd, false).unwrap().clean());
    assert!(fsck::fsck_with(&ssd, &hdd, true, true).unwrap().repaired);
    assert!(fsck::fsck(&ssd, &hdd, false).unwrap().clean());
    let d = Drive::open(dir.opts(None)).unwrap();
    // The journal's records, written after the lost checkpoint, still find their extents.
    let (own, _) = no_foreign_data(&d, 20);
    assert!(own > 0, "{own}");
    d.close().unwrap();
    drop(d);
    assert!(fsck::fsck(&ssd, &hdd, false).unwrap().clean());
}

#[test]
fn the_mapping_table_is_served_as_labelled_rows() {
    let dir = Dir::new("ctl-table");
    let d = Drive::open(dir.opts(Some(tiering()))).unwrap();
    d.write(0, &pattern(0, 1), true).unwrap();
    let r = admin::handle(&d, &admin::Request::Table);
    let rows = r.result.expect("a table");
    let first = &rows.as_array().expect("rows")[0];
    assert_eq!((first["extent"].as_u64(), first["dirty"].as_bool()), (Some(0), Some(false)), "{rows}");
    assert!(first["location"].is_u64(), "{rows}");
    d.close().unwrap();
}

#[test]
fn a_served_drive_runs_its_power_hook_when_idle_and_shuts_down_with_a_checkpoint() {
    use crate::serve::{bind, PowerHook, ServeConfig, ServeError};
    use std::sync::atomic::AtomicBool;
    let dir = Dir::new("served");
    let drive = Drive::open(dir.opts(Some(tiering()))).unwrap();
    let socket = dir.0.join("nbd.sock");
    let server = tierlab_nbd::ServerConfig { listen: tierlab_nbd::ListenAddr::Unix(socket.clone()), ..Default::default() };
    let served = bind(drive.clone(), ServeConfig { server, ctl_path: dir.0.join("ctl.sock"), metrics: None }).and_then(|b| b.spawn()).unwrap();
    assert_eq!((served.address(), served.metrics_addr()), (socket.display().to_string(), None));
    let stop = AtomicBool::new(false);
    let mut warnings = Vec::new();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(600));
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        // Idle from the start: the hook runs once, not again while the drive stays idle; a
        // failing hook is a warning.
        served.run_until(&stop, Some(&PowerHook { idle_s: 0.0, command: "true".into() }), &mut |w| warnings.push(w));
    });
    assert_eq!(drive.stats().unwrap().hdd_spin_downs, 1);
    assert!(warnings.is_empty(), "{warnings:?}");
    served.shut_down().unwrap();
    drop(drive);
    // The admin socket is taken before the server starts; a second server of the same
    // drive is refused there.
    let ctl = dir.0.join("ctl2.sock");
    std::fs::write(&ctl, b"not a socket").unwrap();
    let drive = Drive::open(dir.opts(None)).unwrap();
    let server = tierlab_nbd::ServerConfig { listen: tierlab_nbd::ListenAddr::Unix(dir.0.join("nbd2.sock")), ..Default::default() };
    let e = bind(drive.clone(), ServeConfig { server, ctl_path: ctl.clone(), metrics: None }).err().expect("a file that is not a socket is refused");
    assert!(matches!(&e, ServeError::Ctl(p, _) if *p == ctl), "{e:?}");
    drive.close().unwrap();
}

#[test]
fn knobs_left_out_take_the_policy_defaults_and_tiering_reserves_twice_ht_plus_mcml() {
    let d = TieringParams::default();
    let Created::Tiering(t) = Created::new(Mode::Tiering, &Knobs { ht: Some(10), mcml: Some(3), write: Some(WritePolicy::WriteThrough), ..Knobs::default() }) else { panic!("tiering") };
    assert_eq!(t, TieringParams { ht: 10, mcml: 3, reserved_hdd_extents: 26, ..d });
    let Created::Caching(c) = Created::new(Mode::Caching, &Knobs { pt: Some(5), replacement: Some(Algorithm::Arc), lt: Some(1), ..Knobs::default() }) else { panic!("caching") };
    assert_eq!(c, CachingParams { pt: 5, replacement: Algorithm::Arc, ..CachingParams::default() });
}
