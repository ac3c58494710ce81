#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tierlab_tiered_layout::{Layout, LayoutConfig, ReorgStep, Shuffle, SlotContent};

/// A layout of `n` disks × `slots` with `per_stripe` RBs in every stripe.
pub fn layout(n: u32, slots: u32, per_stripe: u64, max_tiers: u32) -> Layout {
    let mut c = LayoutConfig::new(n, slots, per_stripe * u64::from(slots));
    c.max_tiers = max_tiers;
    Layout::new(c).expect("valid layout")
}

/// Gives every RB an independent uniform temperature in [0, 100).
pub fn random_temps(l: &mut Layout, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for rb in 0..l.n_rbs() {
        l.set_temperature(rb, rng.gen_range(0.0..100.0)).unwrap();
    }
}

/// Plans and applies a reorganisation, returning every step.
pub fn run_collect(l: &mut Layout, target: &[u32], kind: Shuffle, seed: u64) -> Vec<ReorgStep> {
    let mut plan = l.plan_reorg(target, kind, seed).expect("plan");
    let mut steps = Vec::new();
    while let Some(step) = plan.next_step(l).expect("step") {
        l.apply_step(&step).expect("apply");
        steps.push(step);
    }
    steps
}

/// Checks the layout's invariants through the public API only.
pub fn check_invariants(l: &Layout) {
    let n = l.n_disks();
    let slots = l.slots_per_disk();
    let mut seen = vec![false; l.n_rbs() as usize];
    let mut rb_cells = 0u64;
    for s in 0..slots {
        for d in 0..n {
            if let SlotContent::Rb(rb) = l.content(d, s).unwrap() {
                rb_cells += 1;
                assert!(!seen[rb as usize], "RB {rb} found twice");
                seen[rb as usize] = true;
                let loc = l.locate(rb).unwrap();
                assert_eq!((loc.disk, loc.slot), (d, s), "forward map of RB {rb}");
            }
        }
        for t in 0..l.tier_count() {
            let disks = l.tier_disks(t).unwrap();
            if disks.is_empty() {
                continue;
            }
            let parities: Vec<u32> = disks
                .iter()
                .copied()
                .filter(|&d| l.content(d, s).unwrap() == SlotContent::Parity)
                .collect();
            assert_eq!(parities.len(), 1, "tier {t} stripe {s} parity count");
            for &d in disks {
                assert_eq!(l.parity_of(d, s).unwrap(), parities[0]);
            }
        }
    }
    assert_eq!(rb_cells, l.n_rbs(), "RBs lost or duplicated");
    assert!(seen.iter().all(|&x| x), "some RB is in no slot");
    let sizes = l.tier_sizes();
    assert!(sizes.iter().all(|&s| s != 1), "one-disk tier in {sizes:?}");
    assert_eq!(sizes.iter().sum::<u32>(), n);
    l.verify().expect("verify");
}
