mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tierlab_tiered_layout::{LayoutError, TemperatureSnapshot, TierLoad};

/// Independent per-RB computation of the documented rule.
fn brute(temps: &[f32], sizes: &[u32], slots: u64, f: f64) -> Option<Vec<TierLoad>> {
    let mut sorted: Vec<f32> = temps.to_vec();
    sorted.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let phys: Vec<u64> = sizes
        .iter()
        .map(|&s| u64::from(s.saturating_sub(1)) * slots)
        .collect();
    let nonempty: Vec<usize> = (0..sizes.len()).filter(|&t| sizes[t] > 0).collect();
    let last = *nonempty.last()?;
    let mut quota: Vec<u64> = (0..sizes.len())
        .map(|t| {
            if t == last {
                phys[t]
            } else {
                (f * phys[t] as f64).floor() as u64
            }
        })
        .collect();
    // Grow the faster tiers one RB at a time, slowest first, until everything fits.
    for &t in nonempty.iter().rev().skip(1) {
        while quota.iter().sum::<u64>() < sorted.len() as u64 && quota[t] < phys[t] {
            quota[t] += 1;
        }
    }
    let mut out = vec![TierLoad::default(); sizes.len()];
    let mut t = 0;
    for &temp in &sorted {
        while t < sizes.len() && out[t].rbs == quota[t] {
            t += 1;
        }
        if t == sizes.len() {
            return None;
        }
        out[t].rbs += 1;
        out[t].rate += f64::from(temp);
    }
    Some(out)
}

fn random_sizes(rng: &mut ChaCha8Rng, n: u32) -> Vec<u32> {
    let len = rng.gen_range(1..=4usize);
    let mut v = vec![0u32; len];
    let mut left = n;
    while left > 0 {
        let t = rng.gen_range(0..len);
        let take = if left <= 3 {
            left
        } else {
            rng.gen_range(2..=left)
        };
        v[t] += take;
        left -= take;
    }
    v
}

#[test]
fn prediction_matches_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut checked = 0;
    let mut spilled = 0;
    for _ in 0..3000 {
        let n = rng.gen_range(2..=9u32);
        let slots = rng.gen_range(1..=6u32);
        let n_rbs = rng.gen_range(0..=(n - 1) as usize * slots as usize);
        let temps: Vec<f32> = (0..n_rbs)
            .map(|_| {
                if rng.gen_bool(0.3) {
                    0.0
                } else {
                    f32::from(rng.gen_range(0u8..20)) * 0.5
                }
            })
            .collect();
        let snap = TemperatureSnapshot::new(&temps, n, slots);
        let sizes = random_sizes(&mut rng, n);
        let f = if rng.gen_bool(0.2) {
            1.0
        } else {
            rng.gen_range(0.05..1.0)
        };
        let got = snap.predict(&sizes, f);
        if sizes.contains(&1) {
            assert!(matches!(got, Err(LayoutError::BadTierSizes { .. })));
            continue;
        }
        match (got, brute(&temps, &sizes, u64::from(slots), f)) {
            (Ok(g), Some(b)) => {
                checked += 1;
                assert_eq!(g.len(), b.len());
                let first: u64 = sizes
                    .iter()
                    .enumerate()
                    .filter(|(_, &s)| s > 0)
                    .map(|(t, _)| g[t].rbs)
                    .sum();
                assert_eq!(first, n_rbs as u64);
                for (x, y) in g.iter().zip(&b) {
                    assert_eq!(x.rbs, y.rbs, "{sizes:?} f={f} temps={temps:?}");
                    assert!((x.rate - y.rate).abs() < 1e-9 * (1.0 + y.rate.abs()));
                }
                let last = sizes.iter().rposition(|&s| s > 0).unwrap();
                let f_cap = |t: usize| (f * f64::from(sizes[t] - 1) * f64::from(slots)).floor();
                if (0..last).any(|t| sizes[t] > 0 && g[t].rbs as f64 > f_cap(t)) {
                    spilled += 1;
                }
                // Hotter tiers never hold a colder RB than a slower tier's hottest.
                let filled: Vec<&TierLoad> = g.iter().filter(|x| x.rbs > 0).collect();
                for w in filled.windows(2) {
                    assert!(w[0].rate / w[0].rbs as f64 >= w[1].rate / w[1].rbs as f64 - 1e-9);
                }
            }
            (Err(e), None) => assert!(matches!(e, LayoutError::BadTierSizes { .. }), "{e}"),
            (g, b) => panic!("{sizes:?} f={f}: predict {g:?} vs brute force {b:?}"),
        }
    }
    assert!(checked > 1000, "only {checked} comparisons");
    assert!(spilled > 10, "the spill path ran only {spilled} times");
}

#[test]
fn prediction_orders_by_temperature_and_rejects_bad_input() {
    let temps = [1.0f32, 5.0, 3.0, 0.0, 2.0, 4.0];
    let snap = TemperatureSnapshot::new(&temps, 4, 3);
    assert_eq!(snap.n_rbs(), 6);
    assert!((snap.total_rate() - 15.0).abs() < 1e-12);
    // Tier 0 of 2 disks holds 1 · 3 · 1.0 = 3 RBs: 5 + 4 + 3.
    let p = snap.predict(&[2, 2], 1.0).unwrap();
    assert_eq!(p[0].rbs, 3);
    assert!((p[0].rate - 12.0).abs() < 1e-12);
    assert_eq!(p[1].rbs, 3);
    assert!((p[1].rate - 3.0).abs() < 1e-12);
    // Empty tiers in between are skipped.
    // Quota ⌊0.5 · 3⌋ = 1 for tier 0; the slowest tier holds at most 3, so tier 0's
    // quota grows to 3 and it takes the three hottest.
    let p = snap.predict(&[2, 0, 2], 0.5).unwrap();
    assert_eq!((p[0].rbs, p[1].rbs, p[2].rbs), (3, 0, 3));
    assert!((p[0].rate - 12.0).abs() < 1e-12);
    let six = TemperatureSnapshot::new(&temps, 6, 3);
    let p = six.predict(&[4, 0, 2], 0.5).unwrap();
    assert_eq!((p[0].rbs, p[1].rbs, p[2].rbs), (4, 0, 2));
    assert!((p[0].rate - 14.0).abs() < 1e-12);
    assert!(matches!(
        snap.predict(&[2, 2], 0.0),
        Err(LayoutError::BadFillFactor(_))
    ));
    assert!(snap.predict(&[2, 2], f64::NAN).is_err());
    assert!(snap.predict(&[3, 1], 1.0).is_err());
    assert!(snap.predict(&[2, 3], 1.0).is_err());
    assert!(snap.predict(&[], 1.0).is_err());
    // Two tiers of 2 disks x 3 slots hold 6 data RBs, one tier of 4 disks holds 9.
    let big = TemperatureSnapshot::new(&[1.0; 7], 4, 3);
    assert!(big.predict(&[2, 2], 1.0).is_err(), "7 RBs > 6 data slots");
    assert!(big.predict(&[4], 1.0).is_ok());
}

#[test]
fn snapshot_of_a_layout() {
    let mut l = common::layout(4, 5, 2, 2);
    for rb in 0..10 {
        l.set_temperature(rb, rb as f64).unwrap();
    }
    let snap = l.temperature_snapshot();
    let p = snap.predict(&[2, 2], l.fill_factor()).unwrap();
    // Fill factor 10 / 15 gives tier 0 a quota of 3, but the two tiers hold exactly the
    // 10 RBs, so tier 0 takes the 5 hottest (9 + 8 + 7 + 6 + 5).
    assert_eq!(p[0].rbs, 5);
    assert!((p[0].rate - 35.0).abs() < 1e-9);
    assert_eq!(p[1].rbs, 5);
    assert!((p[1].rate - 10.0).abs() < 1e-9);
    let p = snap.predict(&[4], 1.0).unwrap();
    assert_eq!(p[0].rbs, 10);
    assert!((p[0].rate - 45.0).abs() < 1e-9);
}

proptest::proptest! {
    /// A snapshot of access counts tallied is the snapshot of their rates sorted: the same
    /// prefix sums, bit for bit (counts spread wide and bunched at a few values).
    #[test]
    fn a_snapshot_of_counts_is_the_snapshot_of_their_rates(
        counts in proptest::collection::vec(proptest::prop_oneof![0u16..4, proptest::num::u16::ANY], 0..400),
        per_s in proptest::prop_oneof![1e-9f64..1e-3, 1e-3f64..10.0, proptest::strategy::Just(1.0 / 3600.0)],
    ) {
        let rates: Vec<f32> = counts.iter().map(|&c| (f64::from(c) * per_s) as f32).collect();
        proptest::prop_assert_eq!(
            TemperatureSnapshot::from_counts(&counts, per_s, 4, 100),
            TemperatureSnapshot::new(&rates, 4, 100)
        );
    }
}
