//! Request lengths in 512-byte sectors with a given mean: a geometric law truncated to
//! one record (1 to 2,048 sectors), its ratio solved so that the truncated law has the
//! mean asked for exactly. Small requests are the most common, as in block traces, and
//! no request crosses a record.

/// A truncated geometric law on `1..=max` sectors, or its mirror image for means above
/// the middle of the range.
#[derive(Clone, Debug)]
pub(crate) struct SizeLaw {
    max: u64,
    /// Ratio of successive probabilities (0: always 1 sector; 1: uniform).
    q: f64,
    ln_q: f64,
    /// 1 - q^max.
    norm: f64,
    /// Lengths counted down from `max` (means above (max + 1) / 2).
    mirrored: bool,
}

/// Mean of the law with ratio `q` on `1..=max`, by direct summation (stable near q = 1).
fn mean_of(q: f64, max: u64) -> f64 {
    let (mut w, mut s0, mut s1) = (1.0f64, 0.0f64, 0.0f64);
    for k in 1..=max {
        s0 += w;
        s1 += k as f64 * w;
        w *= q;
        if w < 1e-300 {
            break;
        }
    }
    s1 / s0
}

impl SizeLaw {
    /// The law with mean `mean_sectors`, clamped to `1..=max_sectors` (max >= 1).
    pub(crate) fn with_mean(mean_sectors: f64, max_sectors: u64) -> SizeLaw {
        let max = max_sectors.max(1);
        let mean = if mean_sectors.is_finite() {
            mean_sectors.clamp(1.0, max as f64)
        } else {
            1.0
        };
        let middle = (max as f64 + 1.0) / 2.0;
        let (mirrored, m) = if mean > middle {
            (true, max as f64 + 1.0 - mean)
        } else {
            (false, mean)
        };
        // mean_of is increasing in q, from 1 at q = 0 to the middle at q = 1.
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if mean_of(mid, max) < m {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let q = 0.5 * (lo + hi);
        let ln_q = q.ln();
        SizeLaw {
            max,
            q,
            ln_q,
            norm: -(max as f64 * ln_q).exp_m1(),
            mirrored,
        }
    }

    /// The law's mean, sectors.
    #[cfg(test)]
    pub(crate) fn mean(&self) -> f64 {
        let m = mean_of(self.q, self.max);
        if self.mirrored {
            self.max as f64 + 1.0 - m
        } else {
            m
        }
    }

    /// The length for a uniform draw `u` in [0, 1), sectors.
    pub(crate) fn sample(&self, u: f64) -> u64 {
        let k = if self.q <= 0.0 || self.max == 1 {
            1
        } else if self.q >= 1.0 - 1e-12 {
            1 + (u * self.max as f64) as u64
        } else {
            (((-u * self.norm).ln_1p() / self.ln_q).ceil() as u64).max(1)
        };
        let k = k.clamp(1, self.max);
        if self.mirrored {
            self.max + 1 - k
        } else {
            k
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn draws_have_the_asked_mean_and_stay_in_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for mean in [
            1.0, 1.3, 6.84, 51.2, 93.0, 700.0, 1024.5, 1500.0, 2047.0, 2048.0,
        ] {
            let law = SizeLaw::with_mean(mean, 2048);
            assert!(
                (law.mean() - mean).abs() < 1e-6 * mean,
                "{mean}: {}",
                law.mean()
            );
            let n = 200_000;
            let mut sum = 0u64;
            let mut distinct = std::collections::BTreeSet::new();
            for _ in 0..n {
                let k = law.sample(rng.gen::<f64>());
                assert!((1..=2048).contains(&k));
                sum += k;
                distinct.insert(k);
            }
            let got = sum as f64 / n as f64;
            assert!(
                (got - mean).abs() < 0.01 * mean + 0.01,
                "{mean}: drew {got}"
            );
            if mean > 1.0 && mean < 2048.0 {
                assert!(
                    distinct.len() > 2,
                    "{mean}: a constant is not a distribution"
                );
            }
        }
    }
}
