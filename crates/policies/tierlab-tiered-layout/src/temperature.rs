use serde::{Deserialize, Serialize};

use crate::error::{LayoutError, Result};
use crate::tiers::validate_tier_sizes;

/// Predicted contents of one tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TierLoad {
    /// RBs the tier would hold.
    pub rbs: u64,
    /// Summed temperature of those RBs: the tier's predicted logical access rate
    /// (accesses/s). Parity fan-out of writes is the caller's to add.
    pub rate: f64,
}

/// Every RB's temperature, sorted hottest first, as prefix sums: built once per epoch
/// (O(N log N)), after which [`TemperatureSnapshot::predict`] costs O(tiers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TemperatureSnapshot {
    /// `prefix[i]` = summed temperature of the `i` hottest RBs.
    prefix: Vec<f64>,
    n_disks: u32,
    slots_per_disk: u32,
}

impl TemperatureSnapshot {
    /// A snapshot of arbitrary temperatures for an array of `n_disks` × `slots_per_disk`.
    /// Negative or NaN temperatures count as 0.
    pub fn new(temps: &[f32], n_disks: u32, slots_per_disk: u32) -> TemperatureSnapshot {
        let mut sorted: Vec<f32> = temps
            .iter()
            .map(|&t| if t.is_nan() || t < 0.0 { 0.0 } else { t })
            .collect();
        sorted.sort_unstable_by(|a, b| b.total_cmp(a));
        let mut prefix = Vec::with_capacity(sorted.len() + 1);
        let mut acc = 0.0f64;
        prefix.push(0.0);
        for t in sorted {
            acc += f64::from(t);
            prefix.push(acc);
        }
        TemperatureSnapshot {
            prefix,
            n_disks,
            slots_per_disk,
        }
    }

    /// The snapshot of [`TemperatureSnapshot::new`] for the temperatures
    /// `(count · per_s) as f32` of per-RB access counts, without sorting them: the counts
    /// are tallied (a temperature grows with its count), and the prefix sums run from the
    /// largest count down, adding the same values in the same order. O(N + largest count).
    pub fn from_counts(counts: &[u16], per_s: f64, n_disks: u32, slots_per_disk: u32) -> TemperatureSnapshot {
        let rate = |c: usize| -> f32 {
            let t = (c as f64 * per_s) as f32;
            if t.is_nan() || t < 0.0 {
                0.0
            } else {
                t
            }
        };
        let mut tally = vec![0usize; usize::from(u16::MAX) + 1];
        for &c in counts {
            tally[usize::from(c)] += 1;
        }
        let mut prefix = Vec::with_capacity(counts.len() + 1);
        let mut acc = 0.0f64;
        prefix.push(0.0);
        for (c, &k) in tally.iter().enumerate().rev() {
            let t = f64::from(rate(c));
            for _ in 0..k {
                acc += t;
                prefix.push(acc);
            }
        }
        TemperatureSnapshot {
            prefix,
            n_disks,
            slots_per_disk,
        }
    }

    pub fn n_rbs(&self) -> u64 {
        (self.prefix.len() - 1) as u64
    }

    /// Summed temperature of all RBs.
    pub fn total_rate(&self) -> f64 {
        *self.prefix.last().unwrap_or(&0.0)
    }

    /// Summed temperature of the RBs ranked `[from, to)` (0 = hottest).
    pub fn rate_of_ranks(&self, from: u64, to: u64) -> f64 {
        let n = self.n_rbs();
        let (a, b) = (from.min(n) as usize, to.min(n) as usize);
        if a >= b {
            0.0
        } else {
            self.prefix[b] - self.prefix[a]
        }
    }

    /// Predicted load of each tier of a candidate tier-size vector (fastest first).
    ///
    /// Each non-empty tier gets a quota: `⌊fill_factor · (n_t − 1) · slots⌋` RBs for every
    /// tier but the slowest non-empty one, whose quota is its physical data capacity
    /// `(n_t − 1) · slots`. If the quotas add up to fewer than the RBs (only possible with
    /// `fill_factor` < 1), the faster tiers' quotas grow up to their physical capacity,
    /// slowest of them first. Then the RBs, hottest first, fill tier 0 up to its quota,
    /// then the next tier, and so on. Errors: invalid sizes (see [`validate_tier_sizes`]),
    /// `fill_factor` outside (0, 1], or more RBs than the tiers' total data capacity.
    pub fn predict(&self, tier_sizes: &[u32], fill_factor: f64) -> Result<Vec<TierLoad>> {
        if !(fill_factor.is_finite() && fill_factor > 0.0 && fill_factor <= 1.0) {
            return Err(LayoutError::BadFillFactor(fill_factor));
        }
        validate_tier_sizes(tier_sizes, self.n_disks)?;
        let slots = u64::from(self.slots_per_disk);
        let phys: Vec<u64> = tier_sizes
            .iter()
            .map(|&s| u64::from(s.saturating_sub(1)) * slots)
            .collect();
        let Some(last) = tier_sizes.iter().rposition(|&s| s > 0) else {
            return Err(LayoutError::BadTierSizes {
                sizes: tier_sizes.to_vec(),
                reason: "no tier has any disk".into(),
            });
        };
        let mut quota: Vec<u64> = (0..tier_sizes.len())
            .map(|t| {
                if t == last {
                    phys[t]
                } else {
                    ((fill_factor * phys[t] as f64).floor() as u64).min(phys[t])
                }
            })
            .collect();
        let total = self.n_rbs();
        let mut excess = total.saturating_sub(quota.iter().sum());
        for t in (0..last).rev() {
            let grow = excess.min(phys[t] - quota[t]);
            quota[t] += grow;
            excess -= grow;
        }
        if excess > 0 {
            return Err(LayoutError::BadTierSizes {
                sizes: tier_sizes.to_vec(),
                reason: format!(
                    "{total} RBs exceed the tiers' data capacity of {} RBs",
                    phys.iter().sum::<u64>()
                ),
            });
        }
        let mut out = vec![TierLoad::default(); tier_sizes.len()];
        let mut start = 0u64;
        for (t, o) in out.iter_mut().enumerate() {
            let take = quota[t].min(total - start);
            *o = TierLoad {
                rbs: take,
                rate: self.rate_of_ranks(start, start + take),
            };
            start += take;
        }
        Ok(out)
    }
}
