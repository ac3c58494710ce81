mod common;

use common::check_invariants;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tierlab_tiered_layout::{Layout, LayoutConfig, LayoutError, Migration, Shuffle};

#[derive(Debug, Clone)]
enum Op {
    Access { rb: u64, dt: f64, times: u8 },
    SetTemp { rb: u64, t: f64 },
    Swaps { h: f64, count: u8, commit_every: u8 },
    Reorg { seed: u64, kind: u8, ahead: u8 },
    BadSizes { seed: u64 },
    Decay { f: f64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (any::<u64>(), 0.0..5.0f64, 1u8..25).prop_map(|(rb, dt, times)| Op::Access {
            rb,
            dt,
            times
        }),
        3 => (any::<u64>(), 0.0..50.0f64).prop_map(|(rb, t)| Op::SetTemp { rb, t }),
        2 => (0.0..0.5f64, 1u8..20, 2u8..5).prop_map(|(h, count, commit_every)| Op::Swaps {
            h,
            count,
            commit_every
        }),
        3 => (any::<u64>(), 0u8..3, 0u8..4).prop_map(|(seed, kind, ahead)| Op::Reorg {
            seed,
            kind,
            ahead
        }),
        1 => any::<u64>().prop_map(|seed| Op::BadSizes { seed }),
        1 => (0.1..1.0f64).prop_map(|f| Op::Decay { f }),
    ]
}

/// A random valid tier-size vector with 1..=max_tiers non-empty tiers of ≥ 2 disks.
fn random_sizes(rng: &mut ChaCha8Rng, n: u32, max_tiers: u32) -> Vec<u32> {
    let t = rng.gen_range(1..=max_tiers);
    let mut parts = vec![2u32; t as usize];
    for _ in 0..n - 2 * t {
        let i = rng.gen_range(0..parts.len());
        parts[i] += 1;
    }
    let len = t as usize + rng.gen_range(0..=2usize);
    let mut v = vec![0u32; len];
    let mut slots: Vec<usize> = (0..len).collect();
    for p in parts {
        let i = slots.remove(rng.gen_range(0..slots.len()));
        v[i] = p;
    }
    v
}

fn snapshot(l: &Layout) -> Vec<(u32, u32)> {
    (0..l.n_rbs())
        .map(|rb| {
            let loc = l.locate(rb).unwrap();
            (loc.disk, loc.slot)
        })
        .collect()
}

fn run(n: u32, slots: u32, max_tiers: u32, fill: f64, ops: Vec<Op>) {
    let mut cfg = LayoutConfig::new(n, slots, 0);
    cfg.max_tiers = max_tiers;
    cfg.n_rbs = (fill * cfg.capacity_rbs() as f64).floor() as u64;
    let mut l = Layout::new(cfg).unwrap();
    check_invariants(&l);
    let mut now = 0.0f64;
    for op in ops {
        match op {
            Op::Access { rb, dt, times } => {
                if l.n_rbs() == 0 {
                    assert!(l.record_access(rb, now).is_err());
                    continue;
                }
                for _ in 0..times {
                    now += dt;
                    l.record_access(rb % l.n_rbs(), now).unwrap();
                }
            }
            Op::SetTemp { rb, t } => {
                if l.n_rbs() > 0 {
                    l.set_temperature(rb % l.n_rbs(), t).unwrap();
                }
            }
            Op::Swaps {
                h,
                count,
                commit_every,
            } => {
                for i in 0..count {
                    match l.next_swap(h).unwrap() {
                        None => break,
                        Some(m) => {
                            if (i + 1) % commit_every == 0 {
                                let before = snapshot(&l);
                                l.abort_swap().unwrap();
                                assert_eq!(before, snapshot(&l));
                            } else {
                                if let Migration::Move { from, to, .. } = m {
                                    assert_eq!(from.slot, to.slot);
                                }
                                l.commit_swap(&m).unwrap();
                            }
                        }
                    }
                    l.verify().unwrap();
                }
            }
            Op::Reorg { seed, kind, ahead } => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let sizes = random_sizes(&mut rng, n, max_tiers);
                let kind =
                    [Shuffle::Randomized, Shuffle::Permutational, Shuffle::Sorted][kind as usize];
                let nonempty = sizes.iter().filter(|&&s| s > 0).count() as u32;
                let before = snapshot(&l);
                let mut plan = match l.plan_reorg(&sizes, kind, seed) {
                    Ok(p) => p,
                    Err(LayoutError::StripeCapacity { .. }) => {
                        assert!(l.stripe_rbs() > n - nonempty);
                        assert_eq!(before, snapshot(&l));
                        continue;
                    }
                    Err(e) => panic!("{sizes:?}: {e}"),
                };
                // Produce up to `ahead` extra steps before applying, accessing RBs between.
                let mut queue = std::collections::VecDeque::new();
                let mut seen = std::collections::HashSet::new();
                loop {
                    while queue.len() <= ahead as usize {
                        match plan.next_step(&l).unwrap() {
                            Some(s) => queue.push_back(s),
                            None => break,
                        }
                    }
                    let Some(step) = queue.pop_front() else { break };
                    for mv in step.moves() {
                        assert!(seen.insert(mv.rb), "RB {} moved twice", mv.rb);
                    }
                    l.apply_step(&step).unwrap();
                    l.verify().unwrap();
                    if l.n_rbs() > 0 {
                        now += 0.5;
                        l.record_access(seed % l.n_rbs(), now).unwrap();
                    }
                }
                assert_eq!(l.reorg_progress(), None);
                let got = l.tier_sizes();
                assert_eq!(&got[..sizes.len()], &sizes[..]);
                assert!(got[sizes.len()..].iter().all(|&s| s == 0));
            }
            Op::BadSizes { seed } => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut sizes = random_sizes(&mut rng, n, max_tiers);
                match seed % 3 {
                    0 => sizes.push(1),
                    1 => sizes[0] += 1,
                    _ => sizes = vec![1; n as usize],
                }
                let before = snapshot(&l);
                let kind = Shuffle::Randomized;
                assert!(matches!(
                    l.plan_reorg(&sizes, kind, seed),
                    Err(LayoutError::BadTierSizes { .. })
                ));
                assert_eq!(before, snapshot(&l));
            }
            Op::Decay { f } => l.decay_temperatures(f).unwrap(),
        }
        check_invariants(&l);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn queries_never_panic(
        rb in any::<u64>(),
        disk in any::<u32>(),
        slot in any::<u32>(),
        tier in any::<u32>(),
        x in any::<f64>(),
        sizes in prop::collection::vec(any::<u32>(), 0..5),
    ) {
        let mut l = Layout::new(LayoutConfig::new(5, 7, 20)).unwrap();
        let _ = l.locate(rb);
        let _ = l.content(disk, slot);
        let _ = l.parity_of(disk, slot);
        let _ = l.tier_at(disk, slot);
        let _ = l.tier_of_disk(disk);
        let _ = l.tier_disks(tier);
        let _ = l.byte_offset(slot);
        let _ = l.temperature(rb);
        let _ = l.record_access(rb, x);
        let _ = l.set_temperature(rb, x);
        let _ = l.decay_temperatures(x);
        if l.next_swap(x).is_ok() {
            let _ = l.abort_swap();
        }
        let _ = l.temperature_snapshot().predict(&sizes, x);
        let _ = tierlab_tiered_layout::merge_single_disk_tiers(&sizes);
        let _ = l.run_reorg(&sizes, Shuffle::Sorted, rb);
        check_invariants(&l);
    }

    #[test]
    fn invariants_hold_under_any_sequence(
        (n, max_tiers) in (2u32..=9).prop_flat_map(|n| (Just(n), 1..=n / 2)),
        slots in 1u32..=8,
        fill in 0.0..=1.0f64,
        ops in prop::collection::vec(op(), 1..20),
    ) {
        run(n, slots, max_tiers, fill, ops);
    }
}
