use crate::error::{LayoutError, Result};

/// Checks a tier-size vector against an array of `n_disks` disks: the sizes add up to
/// `n_disks`, at least one tier is non-empty, and no tier has exactly one disk (a
/// one-disk tier cannot hold a parity slot). Returns the number of non-empty tiers.
pub fn validate_tier_sizes(sizes: &[u32], n_disks: u32) -> Result<u32> {
    let bad = |reason: String| LayoutError::BadTierSizes {
        sizes: sizes.to_vec(),
        reason,
    };
    let total: u64 = sizes.iter().map(|&s| u64::from(s)).sum();
    if total != u64::from(n_disks) {
        return Err(bad(format!(
            "the sizes add up to {total} disks; the array has {n_disks}"
        )));
    }
    if let Some(t) = sizes.iter().position(|&s| s == 1) {
        return Err(bad(format!(
            "tier {t} has 1 disk; a tier needs 0 or at least 2 disks (one parity per stripe)"
        )));
    }
    let nonempty = sizes.iter().filter(|&&s| s > 0).count() as u32;
    if nonempty == 0 {
        return Err(bad("no tier has any disk".into()));
    }
    Ok(nonempty)
}

/// Makes a tier-size vector usable by folding every one-disk tier into the nearest
/// faster non-empty tier (or, for a one-disk tier with no faster tier, the nearest
/// slower one). Faster first because the disk then runs at a higher speed, which never
/// hurts the response-time goal. A vector whose total is 1 is returned unchanged.
pub fn merge_single_disk_tiers(sizes: &[u32]) -> Vec<u32> {
    let mut v = sizes.to_vec();
    loop {
        let Some(t) = v.iter().position(|&s| s == 1) else {
            return v;
        };
        let faster = (0..t).rev().find(|&i| v[i] > 0);
        let slower = (t + 1..v.len()).find(|&i| v[i] > 0);
        match faster.or(slower) {
            Some(i) => {
                v[i] = v[i].saturating_add(1);
                v[t] = 0;
            }
            None => return v,
        }
    }
}
