//! Random small traces on random placements: every request completes, every piece
//! completes, the clock never goes back, and nothing panics. A zero-length request is
//! refused with an error, not a panic.

mod common;

use common::*;
use proptest::prelude::*;
use tierlab_mixedsim::{simulate, MixedConfig, MixedError, Placement};
use tierlab_types::{IoRequest, Op, KIB};

fn requests() -> impl Strategy<Value = Vec<IoRequest>> {
    // (gap to the previous arrival, offset in KiB, length in 512-byte sectors, write, volume)
    prop::collection::vec(
        (
            0u64..20_000_000,
            0u64..24 * 1024,
            0u64..4_200,
            any::<bool>(),
            0u32..2,
        ),
        1..40,
    )
    .prop_map(|v| {
        let mut t = 0;
        v.into_iter()
            .map(|(gap, off_kib, sectors, write, volume)| {
                t += gap;
                IoRequest {
                    time_ns: t,
                    volume,
                    offset_bytes: off_kib * KIB,
                    len_bytes: sectors * 512,
                    op: if write { Op::Write } else { Op::Read },
                }
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn no_request_is_lost_and_nothing_panics(
        trace in requests(),
        record_kib in prop::sample::select(vec![64u64, 256, 1024]),
        ssd_share in 0.0f64..=1.0,
        split_hot in any::<bool>(),
        disks in 1u32..4,
        seed in any::<u64>(),
        closed in any::<bool>(),
    ) {
        let record_bytes = record_kib * KIB;
        let labelled = classes(&trace, record_bytes);
        let groups = vec![ssd_group("ssd", 64, 1), hdd_group("hdd", disks)];
        // Either every class split by the same share, or hot classes on one side and the
        // rest split.
        let mut placement = Placement::new().otherwise(&[("ssd", ssd_share), ("hdd", 1.0 - ssd_share)]);
        if split_hot {
            for (_, class) in labelled.records() {
                if class.hot && placement.classes.iter().all(|c| c.class != class) {
                    placement = placement.with_class(class, &[("ssd", 1.0)]);
                }
            }
        }
        let mut config = MixedConfig::new(groups, placement).with_seed(seed);
        if closed {
            config.replay = tierlab_mixedsim::Replay::Closed { depth: 4 };
        }
        let result = simulate(&config, &labelled, ok(&trace), &mut |_| {});
        if trace.iter().any(|r| r.len_bytes == 0) {
            prop_assert!(matches!(&result, Err(MixedError::Sim(e)) if e.to_string().contains("positive length")), "{:?}", result.as_ref().err().map(ToString::to_string));
            return Ok(());
        }
        // 24 MiB on either volume fits the SSD (57.5 MiB) and any disk.
        let report = match result {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let n = trace.len() as u64;
        let pieces: u64 = trace.iter().map(|r| records_of(r, record_bytes).count() as u64).sum();
        let i = &report.integrity;
        prop_assert_eq!(i.requests_arrived, n);
        prop_assert_eq!(i.requests_completed, n);
        prop_assert_eq!(i.engine_requests, n);
        prop_assert_eq!(i.pieces_submitted, pieces);
        prop_assert_eq!(i.pieces_completed, pieces);
        prop_assert_eq!(report.groups.iter().map(|g| g.pieces).sum::<u64>(), pieces);
        prop_assert_eq!(report.groups.iter().map(|g| g.response_time.count).sum::<u64>(), pieces);
        prop_assert_eq!(i.clock_regressions, 0);
        prop_assert_eq!(report.system.response_time.count, n);
        prop_assert_eq!(report.system.records, labelled.records().count() as u64);
        for s in &report.classes {
            prop_assert_eq!(s.records_per_group.iter().sum::<u64>(), s.records);
        }
        prop_assert!(report.span_s <= report.duration_s + 1e-12);
        prop_assert!(report.system.energy_j.is_finite() && report.system.energy_j >= 0.0);
        let host_bytes: u64 = trace.iter().map(|r| r.len_bytes).sum();
        prop_assert_eq!(report.groups.iter().map(|g| g.read_bytes + g.write_bytes).sum::<u64>(), host_bytes);
        for g in &report.groups {
            for d in &g.per_device {
                prop_assert_eq!(d.rejected_ops, 0);
                prop_assert!(d.utilisation <= 1.0);
            }
        }
        prop_assert_eq!(report.record_bytes, record_bytes);
    }
}
