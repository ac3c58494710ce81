//! Timing, energy, device-interface and determinism tests of the SSD model.

mod common;

use common::{tiny, with_policy};
use tierlab_engine::{Device, DeviceOp};
use tierlab_ssd::{
    compare_ftl, CompareOptions, FtlKind, Precondition, Ssd, SsdError, SsdSpec, VictimPolicy,
    WearLeveling,
};
use tierlab_types::{IoRequest, Op, NS_PER_MS};

fn op(op: Op, offset_bytes: u64, len_bytes: u64) -> DeviceOp {
    DeviceOp {
        op,
        offset_bytes,
        len_bytes,
        fua: false,
    }
}

#[test]
fn lone_operations_take_the_study_times() {
    let mut ssd = Ssd::new(SsdSpec::study_slc(256, FtlKind::Page)).unwrap();
    assert_eq!(
        ssd.try_service(0, &op(Op::Write, 0, 2048)).unwrap(),
        405_900
    );
    assert_eq!(
        ssd.try_service(NS_PER_MS, &op(Op::Read, 0, 2048)).unwrap(),
        NS_PER_MS + 130_900
    );
    let r = ssd.ssd_report();
    assert!((r.energy.page_program_j - 38.04e-6).abs() < 1e-12);
    assert!((r.energy.page_read_j - 4.72e-6).abs() < 1e-12);
}

#[test]
fn writes_on_one_channel_overlap_their_programs_but_not_their_transfers() {
    // Pages 0 and 1 go to planes 0 and 1: two dies on channel 0.
    let mut ssd = Ssd::new(SsdSpec::study_slc(256, FtlKind::Page)).unwrap();
    let done = ssd.try_service(0, &op(Op::Write, 0, 4096)).unwrap();
    // Second transfer waits for the first (105.9 µs), then programs: 211.8 + 300 µs.
    assert_eq!(done, 511_800);
    // Reads: the second die's data waits for the bus after the first's transfer.
    let t0 = 10 * NS_PER_MS;
    let done = ssd.try_service(t0, &op(Op::Read, 0, 4096)).unwrap();
    assert_eq!(done - t0, 236_500);
    // A single page read on the other channel is not delayed at all.
    let mut ssd = Ssd::new(SsdSpec::study_slc(256, FtlKind::Page)).unwrap();
    ssd.try_service(0, &op(Op::Write, 0, 2048 * 3)).unwrap(); // planes 0, 1, 2 (channel 1)
    let a = ssd.try_service(t0, &op(Op::Read, 0, 2048)).unwrap();
    let b = ssd.try_service(t0, &op(Op::Read, 4096, 2048)).unwrap();
    assert_eq!((a - t0, b - t0), (130_900, 130_900));
    assert!(ssd.max_in_flight() > 1);
}

#[test]
fn requests_beyond_capacity_are_errors_not_wrapped() {
    let mut ssd = Ssd::new(tiny(FtlKind::Page)).unwrap();
    let cap = ssd.capacity_bytes();
    assert!(matches!(
        ssd.try_service(0, &op(Op::Write, cap - 10, 20)),
        Err(SsdError::OutOfRange { capacity_bytes, .. }) if capacity_bytes == cap
    ));
    assert!(matches!(
        ssd.try_service(0, &op(Op::Read, u64::MAX, 2)),
        Err(SsdError::OutOfRange { .. })
    ));
    assert!(matches!(
        ssd.try_service(0, &op(Op::Read, 0, 0)),
        Err(SsdError::EmptyRequest { .. })
    ));
    // Through the Device trait the request completes at once and is counted.
    assert_eq!(ssd.service(5, &op(Op::Write, cap, 1)), 5);
    let rep = ssd.report();
    assert_eq!(rep.counters.get("rejected_requests"), Some(&1.0));
    assert!(ssd.try_service(0, &op(Op::Write, cap - 64, 64)).is_ok());
}

#[test]
fn error_messages_name_the_parameter() {
    let mut s = SsdSpec::study_slc(256, FtlKind::Dftl);
    s.sram_bytes = 16;
    let msg = Ssd::new(s).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains("sram_bytes"), "{msg}");
}

fn workload(n: usize, span_pages: u64, page: u64, seed: u64) -> Vec<IoRequest> {
    let mut x = seed;
    (0..n)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let lpn = (x >> 33) % span_pages;
            IoRequest {
                time_ns: i as u64 * 200_000,
                volume: 0,
                offset_bytes: lpn * page,
                len_bytes: page * (1 + (x >> 20) % 2).min(span_pages - lpn),
                op: if (x >> 40) & 3 == 0 {
                    Op::Read
                } else {
                    Op::Write
                },
            }
        })
        .collect()
}

#[test]
fn same_seed_same_report_for_every_ftl_and_policy() {
    for victim in [
        VictimPolicy::Greedy,
        VictimPolicy::CostBenefit,
        VictimPolicy::Random,
    ] {
        let base = with_policy(tiny(FtlKind::Page), victim, WearLeveling::Explicit);
        let lp = base.logical_pages();
        let reqs = workload(3000, lp, 64, 9);
        let opts = CompareOptions {
            precondition: Precondition {
                occupancy: 0.9,
                random_overwrites: 1.0,
                seed: 3,
            },
            ..Default::default()
        };
        let a = compare_ftl(|| reqs.iter().copied(), &base, &opts).unwrap();
        let b = compare_ftl(|| reqs.iter().copied(), &base, &opts).unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        assert_eq!(a.runs.len(), 5);
        assert!(a.to_text().lines().count() >= 7);
    }
}

#[test]
fn measurement_starts_after_preconditioning() {
    let mut ssd = Ssd::new(tiny(FtlKind::Dftl)).unwrap();
    ssd.precondition(&Precondition {
        occupancy: 1.0,
        random_overwrites: 2.0,
        seed: 1,
    })
    .unwrap();
    let r = ssd.ssd_report();
    assert_eq!(
        r.page_writes.total() + r.page_reads.total() + r.block_erases.data,
        0
    );
    assert!(
        ssd.erase_counts().iter().sum::<u32>() > 0,
        "aging erased blocks"
    );
    assert!(ssd
        .precondition(&Precondition {
            occupancy: 1.5,
            random_overwrites: 0.0,
            seed: 1
        })
        .is_err());
}

#[test]
fn wear_leveling_modes_switch_at_run_time_and_explicit_narrows_the_gap() {
    let gap = |mode: WearLeveling| {
        let mut s = with_policy(tiny(FtlKind::Page), VictimPolicy::Greedy, mode);
        s.geometry.blocks_per_plane = 32;
        s.sram_bytes = 1 << 20;
        let mut ssd = Ssd::new(s).unwrap();
        ssd.precondition(&Precondition {
            occupancy: 1.0,
            random_overwrites: 0.0,
            seed: 1,
        })
        .unwrap();
        // Hot spot: the first 8 logical pages only; the rest is cold.
        for i in 0..20_000u64 {
            ssd.try_service(i, &op(Op::Write, (i % 8) * 64, 64))
                .unwrap();
        }
        ssd.check_invariants().unwrap();
        let e = ssd.erase_counts();
        (
            e.iter().max().unwrap() - e.iter().min().unwrap(),
            ssd.ssd_report().wear_leveling_moves,
        )
    };
    let (none_gap, none_moves) = gap(WearLeveling::None);
    let (explicit_gap, explicit_moves) = gap(WearLeveling::Explicit);
    assert_eq!(none_moves, 0);
    assert!(explicit_moves > 0);
    assert!(
        explicit_gap < none_gap,
        "explicit {explicit_gap} vs none {none_gap}"
    );

    let mut ssd = Ssd::new(tiny(FtlKind::Fast)).unwrap();
    ssd.set_wear_leveling(WearLeveling::None);
    assert_eq!(ssd.wear_leveling(), WearLeveling::None);
    ssd.set_wear_leveling(WearLeveling::Explicit);
    assert_eq!(ssd.wear_leveling(), WearLeveling::Explicit);
    ssd.check_invariants().unwrap();
}

#[test]
fn device_report_carries_headline_counters_and_energy() {
    let mut ssd = Ssd::new(tiny(FtlKind::Fast)).unwrap();
    for i in 0..500u64 {
        ssd.service(i * 1000, &op(Op::Write, (i * 7 % 100) * 64, 64));
    }
    ssd.finish(10 * NS_PER_MS);
    let r = ssd.report();
    assert_eq!(r.kind, "ssd");
    for k in [
        "page_writes_data",
        "page_writes_gc",
        "block_erases_data",
        "merges_full",
        "write_amplification",
    ] {
        assert!(r.counters.contains_key(k), "{k}");
    }
    assert!(r.counters["write_amplification"] >= 1.0);
    let sum: f64 = r.states.iter().map(|s| s.energy_j).sum();
    assert!((sum - r.energy_j).abs() < 1e-9);
}

/// DFTL pays for its translation pages, but its collection of data blocks costs about
/// what the ideal page FTL's does on the same random writes.
#[test]
fn dftl_collection_costs_about_what_page_mapping_costs() {
    let gc_writes = |kind: FtlKind| {
        let mut s = SsdSpec::study_slc(128, kind);
        s.sram_bytes = s
            .sram_needed_bytes(FtlKind::Fast)
            .max(s.sram_needed_bytes(kind));
        let mut ssd = Ssd::new(s).unwrap();
        ssd.precondition(&Precondition {
            occupancy: 1.0,
            random_overwrites: 0.0,
            seed: 1,
        })
        .unwrap();
        let lp = ssd.logical_pages();
        let mut x = 5u64;
        for i in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ssd.try_service(i * 1_000_000, &op(Op::Write, (x >> 33) % lp * 2048, 2048))
                .unwrap();
        }
        ssd.ssd_report().page_writes.gc as f64
    };
    let (page, dftl) = (gc_writes(FtlKind::Page), gc_writes(FtlKind::Dftl));
    assert!(page > 0.0);
    assert!(dftl < 1.5 * page, "dftl {dftl} page {page}");
}

/// The model's per-page state follows the data the drive holds, not what it has written:
/// rewriting the same 1 MiB 600 times (over twice the array, wear leveling rotating the
/// writes through every block) keeps it where one pass put it, far below a table of every
/// page.
#[test]
fn page_state_follows_the_data_held_not_the_data_written() {
    for kind in [FtlKind::Page, FtlKind::Dftl] {
        let mut ssd = Ssd::new(SsdSpec::study_slc(256, kind)).unwrap();
        let whole_array = ssd.spec().total_pages() as usize * 4;
        let mut now = 0;
        let mut pass = |ssd: &mut Ssd| {
            for i in 0..16u64 {
                now = ssd.try_service(now, &DeviceOp { op: Op::Write, offset_bytes: i * 65_536, len_bytes: 65_536, fua: false }).unwrap();
            }
        };
        pass(&mut ssd);
        let after_one = ssd.page_state_bytes();
        for _ in 1..600 {
            pass(&mut ssd);
        }
        let r = ssd.ssd_report();
        assert!(r.page_writes.data > 2 * ssd.spec().total_pages(), "{kind:?}: {} pages written", r.page_writes.data);
        let after_all = ssd.page_state_bytes();
        assert!(after_all <= after_one + 64 * 64 * 4, "{kind:?}: {after_one} bytes after one pass, {after_all} after 600");
        assert!(after_all * 8 <= whole_array, "{kind:?}: {after_all} bytes against {whole_array} for every page");
    }
}
