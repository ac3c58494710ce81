//! The demerit figure (Ruemmler & Wilkes 1994): the root mean square horizontal distance
//! between two cumulative distributions of service times, read at 10,000 evenly spaced
//! probability levels from 0 to 1 with linear interpolation between sorted samples; and the
//! mean absolute error, which pairs the samples request by request.

/// Probability levels at which the two distributions are compared.
pub const LEVELS: usize = 10_000;

/// The value below which a fraction `p` of `sorted` lies (linear interpolation between
/// order statistics; `p = 0` is the minimum, `p = 1` the maximum).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let h = p.clamp(0.0, 1.0) * (n - 1) as f64;
            let i = (h.floor() as usize).min(n - 2);
            let f = h - i as f64;
            sorted[i] + f * (sorted[i + 1] - sorted[i])
        }
    }
}

/// RMS horizontal distance between the CDFs of `a` and `b` (same unit as the samples).
/// Non-finite samples are ignored; an empty side gives 0.
pub fn demerit(a: &[f64], b: &[f64]) -> f64 {
    let sorted = |v: &[f64]| {
        let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        s.sort_by(f64::total_cmp);
        s
    };
    let (sa, sb) = (sorted(a), sorted(b));
    if sa.is_empty() || sb.is_empty() {
        return 0.0;
    }
    let sum: f64 = (0..LEVELS)
        .map(|i| {
            let p = i as f64 / (LEVELS - 1) as f64;
            let d = quantile(&sa, p) - quantile(&sb, p);
            d * d
        })
        .sum();
    (sum / LEVELS as f64).sqrt()
}

/// Mean over paired requests of |b − a|: the request-by-request error, which the demerit,
/// comparing only the two distributions, does not see. Pairs up to the shorter slice; 0 for none.
pub fn mean_abs_error(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| (y - x).abs()).sum::<f64>() / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identical_distributions_have_zero_demerit() {
        let a = [1.0, 5.0, 2.0, 9.0, 3.5];
        assert_eq!(demerit(&a, &a), 0.0);
    }

    #[test]
    fn a_shift_by_c_gives_c() {
        let a: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin() * 3.0 + 10.0).collect();
        let b: Vec<f64> = a.iter().map(|x| x + 0.25).collect();
        assert!((demerit(&a, &b) - 0.25).abs() < 1e-9);
    }

    #[test]
    fn order_of_samples_does_not_matter_and_sizes_may_differ() {
        let a = [3.0, 1.0, 2.0];
        let b = [1.0, 2.0, 3.0, 1.5, 2.5];
        assert!(demerit(&a, &b).abs() < 1e-12, "both are uniform on [1, 3] after interpolation");
        assert!((quantile(&[1.0, 3.0], 0.5) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_reordering_has_zero_demerit_but_a_mean_abs_error() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [4.0, 3.0, 2.0, 1.0];
        assert_eq!(demerit(&a, &b), 0.0);
        assert!((mean_abs_error(&a, &b) - 2.0).abs() < 1e-12, "(3 + 1 + 1 + 3) / 4");
        assert_eq!(mean_abs_error(&a, &[]), 0.0);
    }

    proptest! {
        #[test]
        fn symmetric_and_nonnegative(a in proptest::collection::vec(0.0f64..100.0, 1..50), b in proptest::collection::vec(0.0f64..100.0, 1..50)) {
            let d1 = demerit(&a, &b);
            let d2 = demerit(&b, &a);
            prop_assert!(d1 >= 0.0);
            prop_assert!((d1 - d2).abs() < 1e-9);
        }
    }
}
