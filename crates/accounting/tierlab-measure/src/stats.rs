//! Intervals: Student-t 95 % confidence intervals over independent values (replications
//! or batch means), and the grouping of a run's batches into nearly independent ones.

use serde::{Deserialize, Serialize};

/// A figure's mean and the half-width of its 95 % confidence interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub mean: f64,
    /// Half-width of the 95 % interval; infinite with fewer than two values.
    pub half_width: f64,
    /// How many independent values it stands on.
    pub n: usize,
}

impl Interval {
    /// An exact figure (no uncertainty).
    pub fn exact(mean: f64) -> Interval {
        Interval { mean, half_width: 0.0, n: 1 }
    }

    /// Half-width as a share of the mean (0 for an exact zero, infinite for an uncertain one).
    pub fn relative(&self) -> f64 {
        if self.half_width == 0.0 {
            0.0
        } else if self.mean == 0.0 {
            f64::INFINITY
        } else {
            (self.half_width / self.mean).abs()
        }
    }

    /// The interval scaled by `k` (a unit change, or a rate times a horizon).
    pub fn scale(&self, k: f64) -> Interval {
        Interval { mean: self.mean * k, half_width: self.half_width * k.abs(), n: self.n }
    }

    /// Whether `self` and `other` are within each other's noise: the 95 % interval of their
    /// difference (taken as independent estimates) contains zero.
    pub fn ties(&self, other: &Interval) -> bool {
        let hw = (self.half_width.powi(2) + other.half_width.powi(2)).sqrt();
        (self.mean - other.mean).abs() <= hw
    }
}

/// Student's t, two-sided 95 % (the 0.975 quantile), for `df` degrees of freedom.
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
        2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        31..=40 => 2.021,
        41..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// The 95 % interval of the mean of independent `values`.
pub fn interval(values: &[f64]) -> Interval {
    let n = values.len();
    if n == 0 {
        return Interval { mean: f64::NAN, half_width: f64::INFINITY, n };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Interval { mean, half_width: f64::INFINITY, n };
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Interval { mean, half_width: t_975(n - 1) * (var / n as f64).sqrt(), n }
}

/// The least-squares slope of `ys` against `xs` with its 95 % interval (Student's t with
/// n − 2 degrees of freedom); infinite half-width with fewer than three points or no spread
/// in `xs`.
pub fn trend(xs: &[f64], ys: &[f64]) -> Interval {
    let n = xs.len().min(ys.len());
    let uncertain = |mean: f64| Interval { mean, half_width: f64::INFINITY, n };
    if n < 2 {
        return uncertain(0.0);
    }
    let (mx, my) = (xs[..n].iter().sum::<f64>() / n as f64, ys[..n].iter().sum::<f64>() / n as f64);
    let sxx: f64 = xs[..n].iter().map(|x| (x - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return uncertain(0.0);
    }
    let slope = xs[..n].iter().zip(&ys[..n]).map(|(x, y)| (x - mx) * (y - my)).sum::<f64>() / sxx;
    if n < 3 {
        return uncertain(slope);
    }
    let residual: f64 = xs[..n].iter().zip(&ys[..n]).map(|(x, y)| (y - my - slope * (x - mx)).powi(2)).sum();
    let se = (residual / (n - 2) as f64 / sxx).sqrt();
    Interval { mean: slope, half_width: t_975(n - 2) * se, n }
}

/// Lag-1 autocorrelation of `values` (0 for fewer than three, or constant values).
pub fn lag1_autocorrelation(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 3 {
        return 0.0;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    if var == 0.0 {
        return 0.0;
    }
    values.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / var
}

/// Most and fewest groups the batches of a window are merged into for an interval.
pub const MAX_GROUPS: usize = 20;
pub const MIN_GROUPS: usize = 10;

/// How `batches` consecutive batches are cut into groups for batch means: at most
/// [`MAX_GROUPS`] groups of equal size (the first groups take the remainder), merged pairwise
/// while the lag-1 autocorrelation of `key`'s group values exceeds 0.3 and more than
/// [`MIN_GROUPS`] groups remain. Returns the group boundaries as index ranges.
pub fn groups(batches: usize, key: &dyn Fn(std::ops::Range<usize>) -> f64) -> Vec<std::ops::Range<usize>> {
    let mut k = batches.min(MAX_GROUPS);
    loop {
        let cut = cut(batches, k);
        if k <= MIN_GROUPS {
            return cut;
        }
        let values: Vec<f64> = cut.iter().map(|r| key(r.clone())).collect();
        if lag1_autocorrelation(&values) <= 0.3 {
            return cut;
        }
        k = (k / 2).max(MIN_GROUPS);
    }
}

fn cut(n: usize, k: usize) -> Vec<std::ops::Range<usize>> {
    if k == 0 {
        return Vec::new();
    }
    let (size, extra) = (n / k, n % k);
    let mut start = 0;
    (0..k)
        .map(|i| {
            let len = size + usize::from(i < extra);
            let r = start..start + len;
            start += len;
            r
        })
        .collect()
}

/// MSER-5's truncation point of a series of batch values: the number of leading values to
/// drop so that the standard error of the rest's mean is smallest (searched over the first
/// half). Values are first averaged in fives, as MSER-5 does; the result counts input
/// values. Linear in the series' length.
pub fn mser5(values: &[f64]) -> usize {
    let fives: Vec<f64> = values.chunks_exact(5).map(|c| c.iter().sum::<f64>() / 5.0).collect();
    let n = fives.len();
    if n < 4 {
        return 0;
    }
    // Suffix sums of x and x², so each truncation's SSE is O(1).
    let (mut sx, mut sxx) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for i in (0..n).rev() {
        sx[i] = sx[i + 1] + fives[i];
        sxx[i] = sxx[i + 1] + fives[i] * fives[i];
    }
    let (mut best, mut best_d) = (f64::INFINITY, 0);
    for d in 0..=n / 2 {
        let m = (n - d) as f64;
        let sse = (sxx[d] - sx[d] * sx[d] / m).max(0.0);
        let score = sse / (m * m);
        if score < best * (1.0 - 1e-12) {
            best = score;
            best_d = d;
        }
    }
    best_d * 5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_of_known_values_matches_a_hand_computation() {
        // mean 3, sample variance 2.5, n 5: t(4) = 2.776, half-width 2.776 * sqrt(0.5)
        let i = interval(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(i.mean, 3.0);
        assert!((i.half_width - 2.776 * 0.5f64.sqrt()).abs() < 1e-9, "{i:?}");
        assert!(interval(&[7.0]).half_width.is_infinite());
    }

    #[test]
    fn ties_when_the_difference_is_within_the_noise() {
        let a = Interval { mean: 100.0, half_width: 3.0, n: 10 };
        assert!(a.ties(&Interval { mean: 104.0, half_width: 3.0, n: 10 }));
        assert!(!a.ties(&Interval { mean: 105.0, half_width: 3.0, n: 10 }));
    }

    #[test]
    fn groups_cover_every_batch_once_in_order() {
        for n in [0usize, 1, 7, 20, 21, 99, 400] {
            let g = groups(n, &|r| r.start as f64);
            assert_eq!(g.iter().map(|r| r.len()).sum::<usize>(), n);
            assert!(g.windows(2).all(|w| w[0].end == w[1].start));
            assert!(g.len() <= MAX_GROUPS);
        }
    }

    #[test]
    fn correlated_batches_are_merged_into_fewer_groups() {
        // A slow sine: neighbouring groups are strongly correlated.
        let series: Vec<f64> = (0..400).map(|i| (i as f64 / 60.0).sin()).collect();
        let g = groups(series.len(), &|r| series[r.clone()].iter().sum::<f64>() / r.len() as f64);
        assert_eq!(g.len(), MIN_GROUPS);
        let flat: Vec<f64> = (0..400).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
        assert_eq!(groups(flat.len(), &|r| flat[r.clone()].iter().sum::<f64>()).len(), MAX_GROUPS);
    }

    #[test]
    fn a_trend_is_the_least_squares_slope_with_its_interval() {
        // y = 2x + 1 exactly: slope 2, no residual.
        let exact = trend(&[0.0, 1.0, 2.0, 3.0], &[1.0, 3.0, 5.0, 7.0]);
        assert_eq!((exact.mean, exact.half_width), (2.0, 0.0));
        // Residuals +1, −1, −1, +1 around a flat line: slope 0, se = sqrt(4/2/5).
        let flat = trend(&[0.0, 1.0, 2.0, 3.0], &[1.0, -1.0, -1.0, 1.0]);
        assert!(flat.mean.abs() < 1e-12);
        assert!((flat.half_width - t_975(2) * (0.4f64).sqrt()).abs() < 1e-12, "{flat:?}");
        assert!(trend(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).half_width.is_infinite());
    }

    #[test]
    fn mser5_cuts_an_initial_transient_and_leaves_a_flat_series_whole() {
        let mut series: Vec<f64> = (0..50).map(|i| 10.0 - i as f64 * 0.2).collect();
        series.extend((0..150).map(|i| if i % 2 == 0 { 0.1 } else { -0.1 }));
        let d = mser5(&series);
        assert!((45..=60).contains(&d), "truncated {d}");
        let flat: Vec<f64> = (0..200).map(|i| if i % 3 == 0 { 1.0 } else { 1.1 }).collect();
        assert!(mser5(&flat) <= 10, "{}", mser5(&flat));
    }
}
