use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use tierlab_types::Op;

const U: u64 = 64 * 1024;

fn g(level: RaidLevel, disks: usize) -> Geometry {
    Geometry::new(level, disks, U, 100 * U).unwrap()
}

#[test]
fn left_symmetric_parity_rotates_and_data_follows_parity() {
    let g = g(RaidLevel::Raid5, 5);
    // Stripe 0: parity on disk 4, data 0..3 on disks 0..3; stripe 1: parity on 3, data on 4,0,1,2.
    assert_eq!(g.parity_disk(0), Some(4));
    assert_eq!((0..4).map(|k| g.data_disk(0, k)).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(g.parity_disk(1), Some(3));
    assert_eq!((0..4).map(|k| g.data_disk(1, k)).collect::<Vec<_>>(), vec![4, 0, 1, 2]);
    assert_eq!(g.parity_disk(4), Some(0));
    assert_eq!(g.parity_disk(5), Some(4));
    // Every disk holds parity once per 5 stripes.
    let mut count = [0; 5];
    for s in 0..100 {
        count[g.parity_disk(s).unwrap() as usize] += 1;
    }
    assert_eq!(count, [20; 5]);
    assert_eq!(g.capacity_bytes(), 100 * 4 * U);
}

#[test]
fn small_raid5_write_is_read_modify_write() {
    let g = g(RaidLevel::Raid5, 5);
    let mut p = Plan::default();
    g.plan(Op::Write, U + 4096, 8192, &mut p).unwrap();
    assert_eq!(p.read_modify_writes, 1);
    assert_eq!(p.reads.len(), 2, "old data and old parity: {p:?}");
    assert_eq!(p.writes.len(), 2);
    let disks: Vec<u32> = p.writes.iter().map(|w| w.disk).collect();
    assert_eq!(disks, vec![1, 4]);
    assert!(p.reads.iter().chain(&p.writes).all(|x| x.offset_bytes == 4096 && x.len_bytes == 8192));
}

#[test]
fn three_disk_raid5_unit_write_reconstructs() {
    // Writing one whole unit of two: reading the other unit (1 read) beats reading old data and parity (2).
    let g = g(RaidLevel::Raid5, 3);
    let mut p = Plan::default();
    g.plan(Op::Write, 0, U, &mut p).unwrap();
    assert_eq!(p.reconstruct_writes, 1);
    assert_eq!(p.reads.len(), 1);
    assert_eq!(p.reads[0].disk, g.data_disk(0, 1));
    assert_eq!(p.writes.len(), 2);
}

#[test]
fn full_stripe_write_skips_reads() {
    let g = g(RaidLevel::Raid5, 5);
    let mut p = Plan::default();
    g.plan(Op::Write, 4 * U, 4 * U, &mut p).unwrap();
    assert!(p.reads.is_empty());
    assert_eq!(p.full_stripe_writes, 1);
    assert_eq!(p.writes.len(), 5);
    let mut disks: Vec<u32> = p.writes.iter().map(|w| w.disk).collect();
    disks.sort();
    assert_eq!(disks, vec![0, 1, 2, 3, 4]);
}

#[test]
fn raid10_reads_offer_the_mirror_and_writes_hit_both() {
    let g = g(RaidLevel::Raid10, 4);
    let mut p = Plan::default();
    g.plan(Op::Read, U, 4096, &mut p).unwrap();
    assert_eq!(p.reads, vec![Piece { disk: 2, offset_bytes: 0, len_bytes: 4096, op: Op::Read, mirror: Some(3) }]);
    g.plan(Op::Write, U, 4096, &mut p).unwrap();
    assert_eq!(p.writes.iter().map(|w| w.disk).collect::<Vec<_>>(), vec![2, 3]);
}

#[test]
fn a_long_read_is_one_piece_per_disk() {
    let g = g(RaidLevel::Raid0, 4);
    let mut p = Plan::default();
    g.plan(Op::Read, 0, 8 * U, &mut p).unwrap();
    assert_eq!(p.reads.len(), 4);
    assert!(p.reads.iter().all(|r| r.len_bytes == 2 * U && r.offset_bytes == 0));
}

#[test]
fn bad_shapes_are_named() {
    let e = Geometry::new(RaidLevel::Raid5, 2, U, U * 10).unwrap_err();
    assert_eq!(e.to_string(), "raid5 needs at least 3 disks, found 2");
    assert!(Geometry::new(RaidLevel::Raid10, 3, U, U * 10).unwrap_err().to_string().contains("even"));
    let e = Geometry::new(RaidLevel::Raid0, 2, 1000, U * 10).unwrap_err().to_string();
    assert!(e.contains("stripe_unit_bytes") && e.contains("512-byte sectors") && e.contains("1000"), "{e}");
    assert!(Geometry::new(RaidLevel::Raid0, 2, U, U - 512).is_err());
    let g = g(RaidLevel::Raid5, 3);
    assert!(g.plan(Op::Read, g.capacity_bytes() - 512, 1024, &mut Plan::default()).is_err());
    assert!(g.plan(Op::Read, u64::MAX, 1024, &mut Plan::default()).is_err());
    assert!(g.plan(Op::Read, 0, 0, &mut Plan::default()).is_err());
}

/// Execute plans against a byte model of the disks (data as version numbers, parity as
/// XOR) and check that parity always matches and reads return the latest writes.
#[derive(Default)]
struct Model {
    disks: BTreeMap<(u32, u64), u64>, // (disk, 512-byte sector) -> value
}

impl Model {
    fn get(&self, d: u32, s: u64) -> u64 {
        self.disks.get(&(d, s)).copied().unwrap_or(0)
    }
}

proptest! {
    #[test]
    fn raid5_plans_keep_parity_and_data(
        disks in 3usize..7,
        writes in prop::collection::vec((0u64..40, 1u64..20), 1..30),
    ) {
        let unit = 4 * 512;
        let g = Geometry::new(RaidLevel::Raid5, disks, unit, unit * 8).unwrap();
        let mut m = Model::default();
        let mut logical: BTreeMap<u64, u64> = BTreeMap::new();
        let mut plan = Plan::default();
        let sectors = g.capacity_bytes() / 512;
        for (i, &(start, len)) in writes.iter().enumerate() {
            let start = start % sectors;
            let len = len.min(sectors - start);
            let value = i as u64 + 1;
            g.plan(Op::Write, start * 512, len * 512, &mut plan).unwrap();
            // A merged piece may hold data of one stripe and parity of the next: classify
            // each sector by its stripe.
            let is_parity = |d: u32, sector: u64| g.parity_disk(sector * 512 / unit) == Some(d);
            let sectors_of = |w: &Piece| { let d = w.disk; (w.offset_bytes / 512..(w.offset_bytes + w.len_bytes) / 512).map(move |s| (d, s)) };
            let written: Vec<(u32, u64)> = plan.writes.iter().flat_map(sectors_of).collect();
            prop_assert!(written.iter().any(|&(d, s)| is_parity(d, s)));
            for s in start..start + len { logical.insert(s, value); }
            for &(d, s) in written.iter().filter(|&&(d, s)| !is_parity(d, s)) {
                m.disks.insert((d, s), value);
            }
            // Recompute the parity sectors the plan writes from the data; the plan must have
            // covered every sector whose stripe data changed.
            for &(d, s) in written.iter().filter(|&&(d, s)| is_parity(d, s)) {
                let x = (0..disks as u32).filter(|&o| o != d).fold(0, |acc, o| acc ^ m.get(o, s));
                m.disks.insert((d, s), x);
            }
        }
        // Parity holds on every sector of every stripe.
        for s in 0..g.disk_bytes / 512 {
            let x = (0..disks as u32).fold(0, |acc, d| acc ^ m.get(d, s));
            prop_assert_eq!(x, 0, "parity broken at disk sector {}", s);
        }
        // Reads of every logical sector return the latest value.
        for s in 0..sectors {
            g.plan(Op::Read, s * 512, 512, &mut plan).unwrap();
            prop_assert_eq!(plan.reads.len(), 1);
            let r = plan.reads[0];
            prop_assert_eq!(m.get(r.disk, r.offset_bytes / 512), logical.get(&s).copied().unwrap_or(0));
        }
    }

    #[test]
    fn plans_cover_exactly_the_request(level in 0usize..3, disks in 2usize..9, off in 0u64..200, len in 1u64..200) {
        let level = [RaidLevel::Raid0, RaidLevel::Raid10, RaidLevel::Raid5][level];
        let disks = if level == RaidLevel::Raid10 { disks / 2 * 2 } else { disks.max(level.min_disks()) };
        let g = Geometry::new(level, disks, 1024, 1024 * 16).unwrap();
        let sectors = g.capacity_bytes() / 512;
        let off = off % sectors;
        let len = len.min(sectors - off);
        let mut plan = Plan::default();
        g.plan(Op::Read, off * 512, len * 512, &mut plan).unwrap();
        let total: u64 = plan.reads.iter().map(|r| r.len_bytes).sum();
        prop_assert_eq!(total, len * 512);
        prop_assert!(plan.reads.iter().all(|r| r.offset_bytes + r.len_bytes <= g.disk_bytes && r.disk < disks as u32));
    }
}

#[test]
fn nvram_absorbs_writes_hits_reads_and_destages_oldest_first() {
    let mut n = Nvram::new(NvramConfig { capacity_bytes: 64 * 4096, block_bytes: 4096, high_watermark: 0.5, max_age_ns: 1_000, max_destage_bytes: 8 * 4096 });
    assert!(n.write(10, 0, 8192));
    assert!(n.write(20, 100 * 4096, 4096));
    assert_eq!(n.dirty_bytes(), 3 * 4096);
    assert!(n.read(0, 4096), "written data is a hit");
    assert!(!n.read(50 * 4096, 4096));
    assert!(!n.destage_due(500));
    assert!(n.destage_due(1_010));
    assert_eq!(n.next_destage(), Some((0, 8192)));
    assert_eq!(n.next_destage(), Some((100 * 4096, 4096)));
    assert_eq!(n.next_destage(), None);
    // Rewritten during its destage: stays dirty.
    assert!(n.write(30, 100 * 4096, 4096));
    n.destaged(40, 0, 8192);
    n.destaged(40, 100 * 4096, 4096);
    assert_eq!(n.dirty_bytes(), 4096);
    assert_eq!(n.next_destage(), Some((100 * 4096, 4096)));
    n.destaged(50, 100 * 4096, 4096);
    assert_eq!(n.dirty_bytes(), 0);
    let s = n.stats();
    assert_eq!((s.read_hits, s.read_misses, s.writes_absorbed, s.destages), (1, 1, 3, 3));
}

#[test]
fn a_full_nvram_throttles_writes_until_destaged() {
    let mut n = Nvram::new(NvramConfig { capacity_bytes: 4 * 4096, block_bytes: 4096, high_watermark: 0.5, max_age_ns: u64::MAX, max_destage_bytes: 4096 });
    assert!(n.write(0, 0, 4 * 4096));
    assert!(!n.write(0, 10 * 4096, 4096), "full of dirty data");
    assert!(n.destage_due(0));
    let (off, len) = n.next_destage().unwrap();
    assert!(!n.write(0, 10 * 4096, 4096), "in flight is still dirty");
    n.destaged(1, off, len);
    assert!(n.write(2, 10 * 4096, 4096), "a clean block can be evicted");
    assert_eq!(n.stats().writes_throttled, 2);
    // A read of clean data fills; more than capacity evicts the least recent clean.
    n.fill(20 * 4096, 4096);
    assert!(n.write(3, 5 * 4096, 4096) || n.dirty_bytes() == 4 * 4096);
}

#[test]
fn a_warmed_nvram_holds_dirty_data_up_to_its_watermark_and_counts_from_zero() {
    let mut n = Nvram::new(NvramConfig { capacity_bytes: 64 * 4096, block_bytes: 4096, high_watermark: 0.5, max_age_ns: u64::MAX, max_destage_bytes: 4096 });
    // Every other request writes a new block: the 33rd write (request 65) passes the
    // watermark of 32 blocks, the next write (request 67) finds a destage due, and as many
    // requests again go through; then warming stops, whatever remains.
    let used = n.warm((0..1000u64).map(|b| (b * 4096, 4096, b % 2 == 0)));
    assert_eq!(used, 2 * 67);
    assert!(n.dirty_bytes() <= 33 * 4096 && n.dirty_bytes() >= 32 * 4096, "dirty {}", n.dirty_bytes());
    assert_eq!(n.stats(), NvramStats::default());
    // A workload that never passes the watermark is used whole.
    let mut m = Nvram::new(NvramConfig { capacity_bytes: 64 * 4096, block_bytes: 4096, high_watermark: 0.5, max_age_ns: u64::MAX, max_destage_bytes: 4096 });
    assert_eq!(m.warm((0..10u64).map(|b| (b * 4096, 4096, true))), 10);
}

#[test]
fn nvram_lru_evicts_least_recently_used_clean_block() {
    let mut n = Nvram::new(NvramConfig { capacity_bytes: 3 * 4096, block_bytes: 4096, high_watermark: 0.9, max_age_ns: u64::MAX, max_destage_bytes: 4096 });
    n.fill(0, 4096);
    n.fill(4096, 4096);
    n.fill(8192, 4096);
    assert!(n.read(0, 4096)); // 0 is now most recent; 1 is least
    n.fill(3 * 4096, 4096);
    assert!(!n.read(4096, 4096));
    assert!(n.read(0, 4096) && n.read(8192, 4096) && n.read(3 * 4096, 4096));
}

proptest! {
    /// Any mix of reads, fills, writes and destages keeps the cache within its capacity,
    /// its dirty count exact, and loses no dirty block: destaging everything leaves
    /// nothing dirty.
    #[test]
    fn nvram_invariants(ops in prop::collection::vec((0u8..4, 0u64..64, 1u64..4), 1..300), cap in 4u64..32) {
        let mut n = Nvram::new(NvramConfig { capacity_bytes: cap * 4096, block_bytes: 4096, high_watermark: 0.5, max_age_ns: 10, max_destage_bytes: 4 * 4096 });
        let mut in_flight = Vec::new();
        for (t, &(kind, block, len)) in ops.iter().enumerate() {
            let (off, len) = (block * 4096, len * 4096);
            match kind {
                0 => { n.read(off, len); }
                1 => n.fill(off, len),
                2 => { if n.can_hold(len) { n.write(t as u64, off, len); } }
                _ => {
                    if let Some(r) = n.next_destage() { in_flight.push(r); }
                    if in_flight.len() > 2 { let (o, l) = in_flight.remove(0); n.destaged(t as u64, o, l); }
                }
            }
            prop_assert!(n.dirty_bytes() <= cap * 4096);
        }
        for (o, l) in in_flight.drain(..) { n.destaged(1_000, o, l); }
        let mut guard = 0;
        while let Some((o, l)) = n.next_destage() {
            n.destaged(2_000, o, l);
            guard += 1;
            prop_assert!(guard < 10_000);
        }
        prop_assert_eq!(n.dirty_bytes(), 0);
        prop_assert!(!n.destage_due(u64::MAX));
    }
}

proptest! {
    /// Parity fill-in: a read still covers exactly the data it asks for (plus whole parity
    /// units of stripes it reads in full), and a read of whole stripes asks each disk for
    /// one contiguous range; through a track map no piece crosses a track and every
    /// sector lands inside its disk's track.
    #[test]
    fn fill_in_reads_are_contiguous_per_disk_and_tracks_hold_them(
        disks in 3usize..7,
        start_stripe in 0u64..20,
        stripes in 1u64..30,
        head in 0u64..4,
        tail in 0u64..4,
        sizes in prop::collection::vec(prop::collection::vec(9u64..40, 60), 3..7),
    ) {
        let unit = 4 * 512;
        let g = Geometry::new(RaidLevel::Raid5, disks, unit, unit * 64).unwrap().with_parity_fill_in(true);
        let row = g.stripe_data_bytes();
        let mut plan = Plan::default();
        g.plan(Op::Read, start_stripe * row, stripes * row, &mut plan).unwrap();
        prop_assert_eq!(plan.fill_in_reads as u64, stripes);
        prop_assert_eq!(plan.reads.len(), disks, "{:?}", plan.reads);
        for p in &plan.reads {
            prop_assert_eq!((p.offset_bytes, p.len_bytes), (start_stripe * unit, stripes * unit));
        }
        // A ragged read: the data sectors it reads are exactly those asked for.
        let from = start_stripe * row + head * 512;
        let len = stripes * row - (head + tail) * 512;
        g.plan(Op::Read, from, len, &mut plan).unwrap();
        let mut data = 0;
        for p in &plan.reads {
            for s in p.offset_bytes / 512..(p.offset_bytes + p.len_bytes) / 512 {
                if g.parity_disk(s * 512 / unit) != Some(p.disk) { data += 1; }
            }
        }
        prop_assert_eq!(data * 512, len);
        // Track map: disk d's tracks (in sectors) from `sizes`, chunk of one unit.
        let boundaries: Vec<Vec<u64>> = (0..disks).map(|d| {
            let mut b = vec![0];
            for s in &sizes[d % sizes.len()] { b.push(b.last().unwrap() + s); }
            b
        }).collect();
        let map = tierlab_track_map::TrackMap::new(&boundaries, unit / 512, 512).unwrap();
        let tg = Geometry::new(RaidLevel::Raid5, disks, unit, map.disk_bytes()).unwrap().with_parity_fill_in(true);
        let capacity = tg.capacity_bytes();
        let from = (from % capacity) / 512 * 512;
        let len = len.min(capacity - from);
        tg.plan(Op::Read, from, len, &mut plan).unwrap();
        let virtual_sectors: u64 = plan.reads.iter().map(|p| p.len_bytes / 512).sum();
        let mut physical_sectors = 0;
        for p in &plan.reads {
            let mut parts = Vec::new();
            map.split(p.disk as usize, p.offset_bytes, p.len_bytes, &mut parts).unwrap();
            let b = &boundaries[p.disk as usize];
            for (offset, len) in parts {
                let first = offset / 512;
                let last = first + len / 512 - 1;
                let track = b.partition_point(|&x| x <= first) - 1;
                prop_assert!(last < b[track + 1], "{:?} crosses a track boundary of disk {}", (offset, len), p.disk);
                physical_sectors += len / 512;
            }
        }
        prop_assert_eq!(physical_sectors, virtual_sectors);
    }
}

proptest! {
    /// A partial-stripe RAID-5 write reads whichever of read-modify-write and
    /// reconstruct-write reads fewer bytes (ties: read-modify-write), counted here by
    /// visiting every data unit of the stripe.
    #[test]
    fn raid5_partial_writes_read_the_cheaper_way(disks in 3usize..40, from in 0u64..10_000, len in 1u64..10_000) {
        let unit = 1024;
        let g = Geometry::new(RaidLevel::Raid5, disks, unit, unit * 4).unwrap();
        let row = g.stripe_data_bytes();
        let from = from % row;
        let to = (from + len).min(row);
        prop_assume!(!(from == 0 && to == row));
        let (first, last) = (from / unit, (to - 1) / unit);
        let part = |k: u64| (from.max(k * unit) - k * unit, to.min((k + 1) * unit) - k * unit);
        let (p_lo, p_hi) = if first == last { part(first) } else { (0, unit) };
        let written: u64 = (first..=last).map(|k| { let (lo, hi) = part(k); hi - lo }).sum();
        let rmw = written + (p_hi - p_lo);
        let rcw: u64 = (0..disks as u64 - 1)
            .map(|k| {
                let (lo, hi) = if (first..=last).contains(&k) { part(k) } else { (0, 0) };
                (p_hi - p_lo) - hi.min(p_hi).saturating_sub(lo.max(p_lo))
            })
            .sum();
        let mut plan = Plan::default();
        g.plan(Op::Write, from, to - from, &mut plan).unwrap();
        let read: u64 = plan.reads.iter().map(|r| r.len_bytes).sum();
        prop_assert_eq!(read, rmw.min(rcw));
        prop_assert_eq!((plan.reconstruct_writes, plan.read_modify_writes), if rcw < rmw { (1, 0) } else { (0, 1) });
    }
}
