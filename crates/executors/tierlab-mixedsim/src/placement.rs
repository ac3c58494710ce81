//! Where each record lives: a plan's per-class shares turned into a record → (device,
//! offset) map.
//!
//! The planner says, for each data class, which fraction of it goes to each device
//! group. A class is made of records (the classifier's fixed-size pieces of the address
//! space), so a fraction becomes a count of records: the class's n records are ordered by
//! a hash of (seed, volume, record) — a seeded shuffle, so a split class does not put its
//! low addresses on one group and its high ones on another — and cut into consecutive
//! runs of n × fraction records, rounded by largest remainder so that the counts add up to
//! n exactly. Within a group, the records it receives are taken in address order and
//! striped over its devices round-robin: the i-th goes to device i mod count, slot
//! i / count, at device offset slot × record size. Each device's used space is therefore
//! its record count × record size, from offset 0 (a disk's outer zones; the part of an SSD
//! written before the run).
//!
//! Memory is one map entry per record the trace touches; records never touched are never
//! placed and see no I/O.

use crate::devices::GroupSpec;
use crate::MixedError;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use tierlab_classes::{ClassKey, Labelled};

/// How far a share may lie outside [0, 1], and the shares' sum from 1: rounding in the
/// planner's arithmetic, never a real overdraw.
pub const SHARE_TOLERANCE: f64 = 1e-6;

/// One group's share of a class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Share {
    pub group: String,
    /// Fraction of the class's records, 0..=1.
    pub fraction: f64,
}

/// One class's shares.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassShares {
    pub class: ClassKey,
    pub shares: Vec<Share>,
}

/// Per class, the fraction of it on each group (the planner's x_ij / S_j).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Placement {
    pub classes: Vec<ClassShares>,
    /// Shares of every class not listed; `None`: a touched class with no entry is an error.
    pub default: Option<Vec<Share>>,
}

fn shares(list: &[(&str, f64)]) -> Vec<Share> {
    list.iter()
        .map(|&(group, fraction)| Share {
            group: group.to_string(),
            fraction,
        })
        .collect()
}

impl Placement {
    /// No class placed yet.
    pub fn new() -> Placement {
        Placement::default()
    }

    /// Every class wholly on `group` (the all-HDD and SSD-only systems).
    pub fn all_on(group: &str) -> Placement {
        Placement {
            classes: Vec::new(),
            default: Some(shares(&[(group, 1.0)])),
        }
    }

    /// `class` split as `shares` (group name, fraction) say.
    pub fn with_class(mut self, class: ClassKey, list: &[(&str, f64)]) -> Placement {
        self.classes.push(ClassShares {
            class,
            shares: shares(list),
        });
        self
    }

    /// Classes not listed split as `shares` say.
    pub fn otherwise(mut self, list: &[(&str, f64)]) -> Placement {
        self.default = Some(shares(list));
        self
    }

    /// The shares of `class`: its own entry, else the default.
    pub fn shares_of(&self, class: &ClassKey) -> Option<&[Share]> {
        self.classes
            .iter()
            .find(|c| c.class == *class)
            .map(|c| c.shares.as_slice())
            .or(self.default.as_deref())
    }

    /// Each share's group index, checked: known groups, each once, fractions in [0, 1]
    /// adding up to 1, both within [`SHARE_TOLERANCE`] (a planner's x_ij / S_j can land
    /// an ulp above 1). What passes is clamped to [0, 1] and scaled to add up to 1.
    fn resolve(
        list: &[Share],
        what: &str,
        groups: &[GroupSpec],
    ) -> Result<Vec<(usize, f64)>, MixedError> {
        let mut out: Vec<(usize, f64)> = Vec::with_capacity(list.len());
        for s in list {
            let Some(g) = groups.iter().position(|g| g.name == s.group) else {
                let known: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
                return Err(MixedError::Placement(format!(
                    "{what} names group `{}`, which the system does not have; its groups are {}",
                    s.group,
                    known.join(", ")
                )));
            };
            if !(s.fraction.is_finite()
                && (-SHARE_TOLERANCE..=1.0 + SHARE_TOLERANCE).contains(&s.fraction))
            {
                return Err(MixedError::Placement(format!(
                    "{what}: the share of group `{}` is {}; expected a fraction from 0 to 1",
                    s.group, s.fraction
                )));
            }
            if out.iter().any(|&(o, _)| o == g) {
                return Err(MixedError::Placement(format!(
                    "{what} names group `{}` twice",
                    s.group
                )));
            }
            out.push((g, s.fraction.clamp(0.0, 1.0)));
        }
        let sum: f64 = out.iter().map(|&(_, f)| f).sum();
        if (sum - 1.0).abs() > SHARE_TOLERANCE {
            return Err(MixedError::Placement(format!(
                "{what}: the shares add up to {sum}; expected 1"
            )));
        }
        for (_, f) in &mut out {
            *f /= sum;
        }
        Ok(out)
    }
}

/// Where one record lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Index into the system's groups.
    pub group: usize,
    /// Index of the device within its group.
    pub device: usize,
    /// Offset of the record's first byte on that device.
    pub offset_bytes: u64,
}

/// A placed record: the engine's device number (groups' devices numbered in order) and
/// its slot on that device.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub(crate) device: u32,
    pub(crate) slot: u64,
}

/// FxHash-style mixing for (volume, record) keys: the replay looks one up for every piece
/// of every request, and SipHash's resistance to crafted keys buys nothing here.
#[derive(Default, Clone, Copy)]
pub(crate) struct RecordHasher(u64);

impl Hasher for RecordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type RecordMap = HashMap<(u32, u64), Slot, BuildHasherDefault<RecordHasher>>;

/// How one class's records were split over the groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSplit {
    pub class: ClassKey,
    /// `H-W-s0-i0` style.
    pub label: String,
    pub records: u64,
    /// The shares asked for, by group (0 where the class has none there).
    pub planned_fractions: Vec<f64>,
    /// Records placed on each group, in the system's group order.
    pub records_per_group: Vec<u64>,
}

/// splitmix64's finaliser: the seeded order of a class's records.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn order_key(seed: u64, volume: u32, record: u64) -> u64 {
    mix(mix(seed ^ 0x9e37_79b9_7f4a_7c15)
        .wrapping_add(u64::from(volume))
        .rotate_left(17)
        ^ mix(record.wrapping_add(seed)))
}

/// Counts of `n` items in proportion to `fractions` (which add up to 1), adding up to `n`:
/// each gets the floor of its quota, and what is left goes one each to the largest
/// remainders (ties to the earlier).
fn apportion(n: u64, fractions: &[(usize, f64)]) -> Vec<(usize, u64)> {
    let quotas: Vec<(usize, f64)> = fractions.iter().map(|&(g, f)| (g, n as f64 * f)).collect();
    let mut counts: Vec<(usize, u64)> = quotas
        .iter()
        .map(|&(g, q)| (g, (q.floor() as u64).min(n)))
        .collect();
    let given: u64 = counts.iter().map(|&(_, c)| c).sum();
    let mut order: Vec<usize> = (0..quotas.len())
        .filter(|&i| fractions[i].1 > 0.0)
        .collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a].1 - quotas[a].1.floor();
        let rb = quotas[b].1 - quotas[b].1.floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    let mut left = n.saturating_sub(given);
    let mut i = 0;
    while left > 0 && !order.is_empty() {
        counts[order[i % order.len()]].1 += 1;
        left -= 1;
        i += 1;
    }
    // Rounding can only over-give when floors exceed n, which `min(n)` and fractions
    // adding up to 1 rule out beyond one item; take any excess back from the largest.
    let mut total: u64 = counts.iter().map(|&(_, c)| c).sum();
    while total > n {
        if let Some(c) = counts.iter_mut().max_by_key(|c| c.1) {
            c.1 -= 1;
        }
        total -= 1;
    }
    counts
}

/// The records of a trace placed on a system's devices.
pub struct Layout {
    pub(crate) groups: Vec<GroupSpec>,
    pub(crate) record_bytes: u64,
    pub(crate) seed: u64,
    pub(crate) map: RecordMap,
    /// Per group, the records on each of its devices.
    pub(crate) device_records: Vec<Vec<u64>>,
    pub(crate) device_capacity_bytes: Vec<u64>,
    /// The engine's device number of each group's first device.
    pub(crate) first_device: Vec<u32>,
    pub(crate) splits: Vec<ClassSplit>,
}

/// At most this many groups: a request remembers the groups it touched in one word.
pub const MAX_GROUPS: usize = 64;

impl Layout {
    /// Place every record `labelled` lists on `groups` as `placement` says, from `seed`.
    /// Fails naming the group whose devices cannot hold what is placed on them, a class
    /// with no shares, or a share that names no group.
    pub fn place(
        groups: &[GroupSpec],
        placement: &Placement,
        labelled: &Labelled,
        seed: u64,
    ) -> Result<Layout, MixedError> {
        if groups.is_empty() {
            return Err(MixedError::Config("the system has no device group".into()));
        }
        if groups.len() > MAX_GROUPS {
            return Err(MixedError::Config(format!(
                "the system has {} device groups; at most {MAX_GROUPS} are supported",
                groups.len()
            )));
        }
        for (i, g) in groups.iter().enumerate() {
            if g.count == 0 {
                return Err(MixedError::Config(format!(
                    "group `{}` has no device: expected a count of at least 1",
                    g.name
                )));
            }
            if groups[..i].iter().any(|o| o.name == g.name) {
                return Err(MixedError::Config(format!(
                    "two groups are named `{}`: group names must differ",
                    g.name
                )));
            }
        }
        let record_bytes = labelled.config().record_bytes;
        if record_bytes == 0 {
            return Err(MixedError::Config(
                "the classification's record size is 0 bytes; expected a positive size".into(),
            ));
        }
        let device_capacity_bytes = groups
            .iter()
            .map(|g| g.device.capacity_bytes())
            .collect::<Result<Vec<_>, _>>()?;
        let total_devices: u64 = groups.iter().map(|g| u64::from(g.count)).sum();
        if total_devices > u64::from(u32::MAX) {
            return Err(MixedError::Config(format!(
                "the system has {total_devices} devices; at most {} are supported",
                u32::MAX
            )));
        }
        for c in &placement.classes {
            if placement
                .classes
                .iter()
                .filter(|o| o.class == c.class)
                .count()
                > 1
            {
                return Err(MixedError::Placement(format!(
                    "class {} is placed twice",
                    c.class.label()
                )));
            }
        }

        // Each class's records, in address order (the classifier keeps them unordered).
        let mut by_class: BTreeMap<ClassKey, Vec<(u32, u64)>> = BTreeMap::new();
        for (key, class) in labelled.records() {
            by_class.entry(class).or_default().push(key);
        }
        let mut per_group: Vec<Vec<(u32, u64)>> = vec![Vec::new(); groups.len()];
        let mut splits = Vec::with_capacity(by_class.len());
        for (class, mut records) in by_class {
            let what = format!("the placement of class {}", class.label());
            let Some(list) = placement.shares_of(&class) else {
                return Err(MixedError::Placement(format!(
                    "class {} ({} records) has no shares: give it its groups, or a default for unlisted classes",
                    class.label(),
                    records.len()
                )));
            };
            let fractions = Placement::resolve(list, &what, groups)?;
            records.sort_unstable_by_key(|&(v, r)| (order_key(seed, v, r), v, r));
            let mut planned_fractions = vec![0.0; groups.len()];
            let mut records_per_group = vec![0u64; groups.len()];
            let mut rest = records.as_slice();
            for (g, count) in apportion(records.len() as u64, &fractions) {
                let (take, after) = rest.split_at((count as usize).min(rest.len()));
                per_group[g].extend_from_slice(take);
                records_per_group[g] += take.len() as u64;
                rest = after;
            }
            for &(g, f) in &fractions {
                planned_fractions[g] = f;
            }
            splits.push(ClassSplit {
                class,
                label: class.label(),
                records: records.len() as u64,
                planned_fractions,
                records_per_group,
            });
        }

        let mut map = RecordMap::default();
        map.reserve(splits.iter().map(|s| s.records as usize).sum());
        let mut device_records = Vec::with_capacity(groups.len());
        let mut first_device = Vec::with_capacity(groups.len());
        let mut next_device = 0u32;
        for (g, (group, mut records)) in groups.iter().zip(per_group).enumerate() {
            records.sort_unstable();
            let count = u64::from(group.count);
            let n = records.len() as u64;
            let fullest_records = n.div_ceil(count);
            let fullest_device_bytes = fullest_records.saturating_mul(record_bytes);
            if fullest_device_bytes > device_capacity_bytes[g] {
                return Err(MixedError::GroupTooSmall {
                    group: group.name.clone(),
                    model: group.device.model_name().to_string(),
                    records: n,
                    record_bytes,
                    placed_bytes: n.saturating_mul(record_bytes),
                    devices: group.count,
                    device_capacity_bytes: device_capacity_bytes[g],
                    capacity_bytes: device_capacity_bytes[g].saturating_mul(count),
                    fullest_device_bytes,
                });
            }
            let mut on_device = vec![0u64; group.count as usize];
            for (i, key) in records.into_iter().enumerate() {
                let i = i as u64;
                let d = (i % count) as usize;
                on_device[d] += 1;
                map.insert(
                    key,
                    Slot {
                        device: next_device + d as u32,
                        slot: i / count,
                    },
                );
            }
            device_records.push(on_device);
            first_device.push(next_device);
            next_device += group.count;
        }
        Ok(Layout {
            groups: groups.to_vec(),
            record_bytes,
            seed,
            map,
            device_records,
            device_capacity_bytes,
            first_device,
            splits,
        })
    }

    pub fn groups(&self) -> &[GroupSpec] {
        &self.groups
    }

    /// The classification's record size, bytes.
    pub fn record_bytes(&self) -> u64 {
        self.record_bytes
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Records placed on group `group` (0 for an index the system does not have).
    pub fn records_on_group(&self, group: usize) -> u64 {
        self.device_records.get(group).map_or(0, |d| d.iter().sum())
    }

    /// Records placed on each device of group `group`.
    pub fn records_on_devices(&self, group: usize) -> &[u64] {
        self.device_records.get(group).map_or(&[], Vec::as_slice)
    }

    /// Bytes one device of group `group` holds.
    pub fn device_capacity_bytes(&self, group: usize) -> u64 {
        self.device_capacity_bytes.get(group).copied().unwrap_or(0)
    }

    /// How each class was split, in class order.
    pub fn class_splits(&self) -> &[ClassSplit] {
        &self.splits
    }

    /// Every record placed.
    pub fn records(&self) -> u64 {
        self.map.len() as u64
    }

    /// Where record `record` (offset / record size) of `volume` lives; `None` for a record
    /// the classification never saw.
    pub fn locate(&self, volume: u32, record: u64) -> Option<Location> {
        let s = self.map.get(&(volume, record))?;
        let group = self.first_device.iter().rposition(|&f| f <= s.device)?;
        Some(Location {
            group,
            device: (s.device - self.first_device[group]) as usize,
            offset_bytes: s.slot * self.record_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::apportion;

    #[test]
    fn apportion_adds_up_and_follows_the_fractions() {
        assert_eq!(apportion(10, &[(0, 0.5), (1, 0.5)]), vec![(0, 5), (1, 5)]);
        assert_eq!(apportion(11, &[(0, 0.5), (1, 0.5)]), vec![(0, 6), (1, 5)]);
        assert_eq!(
            apportion(3, &[(0, 1.0 / 3.0), (1, 1.0 / 3.0), (2, 1.0 / 3.0)]),
            vec![(0, 1), (1, 1), (2, 1)]
        );
        assert_eq!(apportion(7, &[(1, 0.0), (0, 1.0)]), vec![(1, 0), (0, 7)]);
        assert_eq!(apportion(0, &[(0, 0.3), (1, 0.7)]), vec![(0, 0), (1, 0)]);
        for n in 0..50u64 {
            let c = apportion(n, &[(0, 0.1), (1, 0.25), (2, 0.65)]);
            assert_eq!(c.iter().map(|x| x.1).sum::<u64>(), n);
            for (&(_, k), f) in c.iter().zip([0.1, 0.25, 0.65]) {
                assert!((k as f64 - n as f64 * f).abs() < 1.0 + 1e-9, "{n}: {c:?}");
            }
        }
    }
}
