//! Property tests of the mapping invariants, for every FTL: no page is lost (every
//! written logical page reads back the data version last written to it, from a page
//! that records it as owner), valid-page counts agree with page states, erase counts never go
//! down, free pools stay consistent, and collection never runs out of space even at
//! full occupancy.

mod common;

use common::{tiny, with_policy};
use proptest::prelude::*;
use tierlab_engine::DeviceOp;
use tierlab_ssd::{FtlKind, Precondition, Ssd, VictimPolicy, WearLeveling};
use tierlab_types::Op;

fn run(
    kind: FtlKind,
    victim: VictimPolicy,
    wear: WearLeveling,
    prefill: bool,
    ops: &[(u64, u64, bool)],
) -> Result<(), String> {
    let spec = with_policy(tiny(kind), victim, wear);
    let page = spec.geometry.page_bytes as u64;
    let mut ssd = Ssd::new(spec).map_err(|e| e.to_string())?;
    if prefill {
        ssd.precondition(&Precondition {
            occupancy: 1.0,
            random_overwrites: 0.5,
            seed: 5,
        })
        .map_err(|e| e.to_string())?;
    }
    ssd.enable_data_versions();
    let lp = ssd.logical_pages();
    let mut expected = std::collections::BTreeMap::new();
    let mut erases = ssd.erase_counts();
    for (i, &(lpn, len, write)) in ops.iter().enumerate() {
        let lpn = lpn % lp;
        let len = len.min(lp - lpn);
        let op = DeviceOp {
            op: if write { Op::Write } else { Op::Read },
            offset_bytes: lpn * page,
            len_bytes: len * page,
            fua: false,
        };
        ssd.try_service(i as u64 * 50_000, &op)
            .map_err(|e| format!("op {i}: {e}"))?;
        if write {
            // Pages are programmed in address order, one version each.
            let v = ssd.last_data_version();
            for (k, l) in (lpn..lpn + len).rev().enumerate() {
                expected.insert(l as u32, v - k as u32);
            }
        }
        for (&l, &v) in &expected {
            if ssd.data_version(l) != Some(v) {
                return Err(format!(
                    "op {i}: lpn {l} reads version {:?}, last written {v}",
                    ssd.data_version(l)
                ));
            }
        }
        ssd.check_invariants().map_err(|e| format!("op {i}: {e}"))?;
        // Translation pages are never duplicated (and only DFTL has any).
        let tpages = if kind == FtlKind::Dftl {
            ssd.spec().translation_pages()
        } else {
            0
        };
        if ssd.valid_mapping_pages() > tpages {
            return Err(format!(
                "op {i}: {} valid translation pages, at most {tpages}",
                ssd.valid_mapping_pages()
            ));
        }
        let now = ssd.erase_counts();
        if now.iter().zip(&erases).any(|(a, b)| a < b) {
            return Err(format!("op {i}: an erase count went down"));
        }
        erases = now;
    }
    Ok(())
}

fn ops() -> impl Strategy<Value = Vec<(u64, u64, bool)>> {
    // Skewed addresses (a hot quarter) so that overwrites, collection and merges happen.
    let addr = prop_oneof![3 => 0u64..44, 1 => 0u64..1000];
    proptest::collection::vec((addr, 1u64..4, proptest::bool::weighted(0.8)), 1..400)
}

fn policies() -> impl Strategy<Value = (VictimPolicy, WearLeveling, bool)> {
    (
        prop_oneof![
            Just(VictimPolicy::Greedy),
            Just(VictimPolicy::CostBenefit),
            Just(VictimPolicy::Random)
        ],
        prop_oneof![
            Just(WearLeveling::None),
            Just(WearLeveling::Implicit),
            Just(WearLeveling::Explicit)
        ],
        proptest::bool::ANY,
    )
}

macro_rules! ftl_props {
    ($name:ident, $kind:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
            #[test]
            fn $name((victim, wear, prefill) in policies(), ops in ops()) {
                if let Err(e) = run($kind, victim, wear, prefill, &ops) {
                    prop_assert!(false, "{:?} {:?} {:?} prefill={}: {}", $kind, victim, wear, prefill, e);
                }
            }
        }
    };
}

ftl_props!(page_ftl_keeps_its_invariants, FtlKind::Page);
ftl_props!(block_ftl_keeps_its_invariants, FtlKind::Block);
ftl_props!(bast_keeps_its_invariants, FtlKind::Bast);
ftl_props!(fast_keeps_its_invariants, FtlKind::Fast);
ftl_props!(dftl_keeps_its_invariants, FtlKind::Dftl);

/// Full occupancy, then long random overwrites: collection must always find space.
#[test]
fn gc_never_deadlocks_at_full_occupancy() {
    for kind in FtlKind::ALL {
        for victim in [
            VictimPolicy::Greedy,
            VictimPolicy::CostBenefit,
            VictimPolicy::Random,
        ] {
            let spec = with_policy(tiny(kind), victim, WearLeveling::Explicit);
            let page = spec.geometry.page_bytes as u64;
            let mut ssd = Ssd::new(spec).unwrap();
            ssd.precondition(&Precondition {
                occupancy: 1.0,
                random_overwrites: 20.0,
                seed: 11,
            })
            .unwrap_or_else(|e| panic!("{kind:?} {victim:?}: {e}"));
            let lp = ssd.logical_pages();
            let mut x = 77u64;
            for i in 0..5000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                let op = DeviceOp {
                    op: Op::Write,
                    offset_bytes: (x >> 33) % lp * page,
                    len_bytes: page,
                    fua: false,
                };
                ssd.try_service(i, &op)
                    .unwrap_or_else(|e| panic!("{kind:?} {victim:?} write {i}: {e}"));
            }
            ssd.check_invariants()
                .unwrap_or_else(|e| panic!("{kind:?} {victim:?}: {e}"));
            let r = ssd.ssd_report();
            assert!(
                r.block_erases.data > 0 && r.write_amplification.unwrap_or(0.0) > 1.0,
                "{kind:?}"
            );
        }
    }
}
