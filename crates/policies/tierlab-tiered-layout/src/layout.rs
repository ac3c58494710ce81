use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::config::LayoutConfig;
use crate::error::{LayoutError, Result};
use crate::temp_order::TempOrder;
use crate::temperature::TemperatureSnapshot;

/// Slot code: the slot holds nothing.
pub(crate) const FREE: u32 = u32::MAX;
/// Slot code: the slot holds its tier stripe's parity.
pub(crate) const PARITY: u32 = u32::MAX - 1;
/// Slot code used only while a reorganisation step is computed: a parity slot whose tier
/// dissolved (free, but the preferred place for the parity of a tier built from scratch).
pub(crate) const FORMER_PARITY: u32 = u32::MAX - 2;
/// Parity-table entry of a tier with no disks in a stripe.
const NO_PARITY: u32 = u32::MAX;
/// Bit 7 of the per-RB counter byte: the RB has a temperature value.
const HAS_TEMP: u8 = 0x80;
const COUNT_MASK: u8 = 0x7f;

#[inline]
pub(crate) fn is_rb(code: u32) -> bool {
    code < FORMER_PARITY
}

#[inline]
pub(crate) fn pack(disk: usize, slot: usize) -> u64 {
    ((disk as u64) << 32) | slot as u64
}

#[inline]
pub(crate) fn unpack(v: u64) -> (usize, usize) {
    ((v >> 32) as usize, (v & 0xffff_ffff) as usize)
}

/// Key of an RB in its tier's temperature-ordered set: temperature bits (non-negative
/// f32, whose bit patterns sort like the values) above the RB id.
#[inline]
pub(crate) fn temp_key(t: f32, rb: u32) -> u64 {
    (u64::from(t.to_bits()) << 32) | u64::from(rb)
}

#[inline]
fn key_parts(k: u64) -> (f32, u32) {
    (f32::from_bits((k >> 32) as u32), (k & 0xffff_ffff) as u32)
}

/// Clamps a computed temperature into the stored domain: finite, ≥ 0, no negative zero.
#[inline]
pub(crate) fn store_temp(t: f64) -> f32 {
    if t.is_nan() || t <= 0.0 {
        0.0
    } else {
        (t as f32).min(f32::MAX)
    }
}

/// A physical RB slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    pub disk: u32,
    pub slot: u32,
}

/// What a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SlotContent {
    Rb(u64),
    /// The parity of the slot's tier stripe.
    Parity,
    Free,
}

impl SlotContent {
    pub(crate) fn from_code(code: u32) -> SlotContent {
        match code {
            PARITY => SlotContent::Parity,
            FREE | FORMER_PARITY => SlotContent::Free,
            rb => SlotContent::Rb(u64::from(rb)),
        }
    }
}

/// Memory held by the two maps, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapBytes {
    /// RB → (disk, slot): 8 bytes per RB.
    pub forward: u64,
    /// (disk, slot) → RB, parity or free: 4 bytes per slot.
    pub inverse: u64,
}

/// A small-scale migration proposed by [`Layout::next_swap`]. The executor reads the
/// source(s), writes the destination(s), updates the parity of every stripe involved
/// (see [`Layout::parity_of`]) and then calls [`Layout::commit_swap`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Migration {
    /// `hot` (the hottest RB of the slower tier, at `hot_at`) and `cold` (the coldest RB
    /// of the next faster tier, at `cold_at`) exchange places.
    Swap {
        hot: u64,
        hot_at: Location,
        cold: u64,
        cold_at: Location,
    },
    /// `rb` (the hottest RB of the slower tier) moves into the free slot `to` of the next
    /// faster tier, in the same stripe index.
    Move {
        rb: u64,
        from: Location,
        to: Location,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct ActiveReorg {
    pub id: u64,
    pub new_tier_of: Vec<u32>,
    pub new_tiers: Vec<Vec<u32>>,
    /// Stripes `0..next_slot` are in the new layout, the rest in the old one.
    pub next_slot: u32,
}

/// The tiered array: RB map, per-slot inverse map, tier membership, temperatures and
/// the per-tier temperature order. See the crate documentation for the model. Cloning
/// copies everything (e.g. to try a plan on a copy).
#[derive(Clone)]
pub struct Layout {
    pub(crate) cfg: LayoutConfig,
    pub(crate) n: usize,
    pub(crate) slots: usize,
    /// RB → packed (disk << 32 | slot).
    pub(crate) fwd: Vec<u64>,
    /// slot-major: index `slot · n + disk` → RB id, [`PARITY`] or [`FREE`].
    pub(crate) inv: Vec<u32>,
    /// Disk → tier (for stripes not yet reorganised when a plan runs).
    pub(crate) tier_of: Vec<u32>,
    /// Tier → its disks, ascending.
    pub(crate) tiers: Vec<Vec<u32>>,
    /// Stripe-major: index `slot · tiers.len() + tier` → the disk holding that tier
    /// stripe's parity ([`NO_PARITY`] for an empty tier), in the tiers the stripe is laid
    /// out in (the running reorganisation's target tiers once it has applied the stripe).
    /// [`Layout::parity_of`] reads it instead of searching the stripe.
    parity: Vec<u32>,
    pub(crate) temp: Vec<f32>,
    /// Start of the current k-access window (NaN: never accessed).
    win_start: Vec<f64>,
    /// Bits 0–6: accesses in the current window; bit 7: [`HAS_TEMP`].
    win_count: Vec<u8>,
    /// Per tier: [`temp_key`] of every RB in the tier, in order.
    pub(crate) by_temp: Vec<TempOrder>,
    /// Most RBs any stripe index holds (constant: every operation keeps RBs in their
    /// stripe index or exchanges two RBs).
    pub(crate) stripe_rbs: u32,
    pub(crate) in_flight: Option<Migration>,
    pub(crate) reorg: Option<ActiveReorg>,
}

/// Plan ids are unique in the process, so a step can never be applied to another layout.
static NEXT_PLAN_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn new_plan_id() -> u64 {
    NEXT_PLAN_ID.fetch_add(1, Ordering::Relaxed)
}

/// A vector of `len` copies of `value`, or an error instead of aborting when the memory
/// cannot be had.
fn alloc<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| LayoutError::Config(format!("cannot allocate the {what} ({len} entries)")))?;
    v.resize(len, value);
    Ok(v)
}

impl Layout {
    /// Builds the initial layout: all disks in tier 0, left-symmetric parity (stripe `s`
    /// has its parity on disk `n − 1 − s mod n`, data positions follow it cyclically),
    /// and RB `i` at data position `i mod c` of stripe `i div c`, where
    /// `c = ⌈n_rbs / slots_per_disk⌉` spreads the RBs over all stripes.
    pub fn new(cfg: LayoutConfig) -> Result<Layout> {
        cfg.validate()?;
        let n = cfg.n_disks as usize;
        let slots = cfg.slots_per_disk as usize;
        let n_rbs = cfg.n_rbs as usize;
        let per = n_rbs.div_ceil(slots);
        let mut inv = alloc(n * slots, FREE, "inverse map")?;
        let mut fwd = alloc(n_rbs, 0u64, "forward map")?;
        let temp = alloc(n_rbs, 0.0f32, "temperatures")?;
        let win_start = alloc(n_rbs, f64::NAN, "access windows")?;
        let win_count = alloc(n_rbs, 0u8, "access counters")?;
        for s in 0..slots {
            let p = n - 1 - (s % n);
            inv[s * n + p] = PARITY;
            for i in 0..per.min(n - 1) {
                let rb = s * per + i;
                if rb >= n_rbs {
                    break;
                }
                let d = (p + 1 + i) % n;
                inv[s * n + d] = rb as u32;
                fwd[rb] = pack(d, s);
            }
        }
        let mut parity = alloc(slots, NO_PARITY, "parity table")?;
        for (s, p) in parity.iter_mut().enumerate() {
            *p = (n - 1 - (s % n)) as u32;
        }
        Ok(Layout {
            n,
            slots,
            fwd,
            inv,
            tier_of: vec![0; n],
            tiers: vec![(0..n as u32).collect()],
            parity,
            temp,
            win_start,
            win_count,
            by_temp: vec![TempOrder::all_cold(n_rbs)],
            stripe_rbs: per as u32,
            in_flight: None,
            reorg: None,
            cfg,
        })
    }

    // ----- geometry and queries -------------------------------------------------------

    pub fn config(&self) -> &LayoutConfig {
        &self.cfg
    }
    pub fn n_disks(&self) -> u32 {
        self.cfg.n_disks
    }
    pub fn slots_per_disk(&self) -> u32 {
        self.cfg.slots_per_disk
    }
    pub fn n_rbs(&self) -> u64 {
        self.cfg.n_rbs
    }
    pub fn rb_bytes(&self) -> u64 {
        self.cfg.rb_bytes
    }
    /// Most RBs that share one stripe index (constant for the layout's life).
    pub fn stripe_rbs(&self) -> u32 {
        self.stripe_rbs
    }
    /// Length of the tier vector (tiers may be empty).
    pub fn tier_count(&self) -> u32 {
        self.tiers.len() as u32
    }
    /// Disks per tier, as a tier-size vector.
    pub fn tier_sizes(&self) -> Vec<u32> {
        self.tiers.iter().map(|t| t.len() as u32).collect()
    }

    pub(crate) fn check_rb(&self, rb: u64) -> Result<usize> {
        if rb < self.cfg.n_rbs {
            Ok(rb as usize)
        } else {
            Err(LayoutError::RbOutOfRange {
                rb,
                n_rbs: self.cfg.n_rbs,
            })
        }
    }
    fn check_disk(&self, disk: u32) -> Result<usize> {
        if disk < self.cfg.n_disks {
            Ok(disk as usize)
        } else {
            Err(LayoutError::DiskOutOfRange {
                disk,
                n_disks: self.cfg.n_disks,
            })
        }
    }
    fn check_slot(&self, slot: u32) -> Result<usize> {
        if slot < self.cfg.slots_per_disk {
            Ok(slot as usize)
        } else {
            Err(LayoutError::SlotOutOfRange {
                slot,
                slots_per_disk: self.cfg.slots_per_disk,
            })
        }
    }

    /// Where logical RB `rb` lives.
    pub fn locate(&self, rb: u64) -> Result<Location> {
        let i = self.check_rb(rb)?;
        let (d, s) = unpack(self.fwd[i]);
        Ok(Location {
            disk: d as u32,
            slot: s as u32,
        })
    }

    /// What slot `slot` of disk `disk` holds.
    pub fn content(&self, disk: u32, slot: u32) -> Result<SlotContent> {
        let d = self.check_disk(disk)?;
        let s = self.check_slot(slot)?;
        Ok(SlotContent::from_code(self.inv[s * self.n + d]))
    }

    /// Byte offset of `slot` on its disk: `slot · rb_bytes`.
    pub fn byte_offset(&self, slot: u32) -> Result<u64> {
        self.check_slot(slot)?;
        Ok(u64::from(slot) * self.cfg.rb_bytes)
    }

    /// The tier `disk` belongs to. While a reorganisation runs this is its tier before
    /// the plan; [`Layout::tier_at`] tells the tier of one stripe.
    pub fn tier_of_disk(&self, disk: u32) -> Result<u32> {
        let d = self.check_disk(disk)?;
        Ok(self.tier_of[d])
    }

    /// The tier whose stripe `slot` includes `disk` (differs from [`Layout::tier_of_disk`]
    /// only for stripes a running reorganisation has already applied).
    pub fn tier_at(&self, disk: u32, slot: u32) -> Result<u32> {
        let d = self.check_disk(disk)?;
        let s = self.check_slot(slot)?;
        Ok(self.tier_at_raw(d, s))
    }

    /// The disks of `tier`, ascending (before the running reorganisation, if any).
    pub fn tier_disks(&self, tier: u32) -> Result<&[u32]> {
        self.tiers
            .get(tier as usize)
            .map(|v| v.as_slice())
            .ok_or(LayoutError::TierOutOfRange {
                tier,
                tiers: self.tiers.len() as u32,
            })
    }

    /// The disk holding the parity of the tier stripe that slot `slot` of `disk` is in.
    pub fn parity_of(&self, disk: u32, slot: u32) -> Result<u32> {
        let d = self.check_disk(disk)?;
        let s = self.check_slot(slot)?;
        let t = self.tier_at_raw(d, s) as usize;
        match self.parity.get(s * self.tiers.len() + t) {
            Some(&p) if p != NO_PARITY => Ok(p),
            _ => Err(LayoutError::Corrupt(format!(
                "stripe {s} of disk {d}'s tier has no parity"
            ))),
        }
    }

    /// The parity disk of every tier stripe of slot `s`, searched in the stripe (as the
    /// stripe is laid out now).
    fn parity_row(&self, s: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.tiers.len()).map(move |t| {
            self.members_at(t, s)
                .iter()
                .copied()
                .find(|&m| self.inv[s * self.n + m as usize] == PARITY)
                .unwrap_or(NO_PARITY)
        })
    }

    /// Brings slot `s`'s entries of the parity table up to date with its stripe.
    pub(crate) fn update_parity_row(&mut self, s: usize) {
        let w = self.tiers.len();
        let row: Vec<u32> = self.parity_row(s).collect();
        self.parity[s * w..(s + 1) * w].copy_from_slice(&row);
    }

    /// Rebuilds the parity table for the current number of tiers (after it changed).
    pub(crate) fn rebuild_parity_table(&mut self) {
        let table: Vec<u32> = (0..self.slots).flat_map(|s| self.parity_row(s).collect::<Vec<_>>()).collect();
        self.parity = table;
    }

    /// Memory of the forward and inverse maps.
    pub fn map_bytes(&self) -> MapBytes {
        MapBytes {
            forward: (self.fwd.len() * std::mem::size_of::<u64>()) as u64,
            inverse: (self.inv.len() * std::mem::size_of::<u32>()) as u64,
        }
    }

    /// Forward-map bytes for an array of `total_bytes` cut into `rb_bytes` RBs, without
    /// building it: 8 bytes per RB (10 TiB / 256 KiB → 320 MiB). `None` if `rb_bytes` is 0
    /// or the result overflows.
    pub fn forward_map_bytes_for(total_bytes: u64, rb_bytes: u64) -> Option<u64> {
        if rb_bytes == 0 {
            return None;
        }
        total_bytes
            .div_ceil(rb_bytes)
            .checked_mul(std::mem::size_of::<u64>() as u64)
    }

    pub(crate) fn tier_at_raw(&self, d: usize, s: usize) -> u32 {
        match &self.reorg {
            Some(r) if s < r.next_slot as usize => r.new_tier_of[d],
            _ => self.tier_of[d],
        }
    }

    pub(crate) fn members_at(&self, tier: usize, s: usize) -> &[u32] {
        match &self.reorg {
            Some(r) if s < r.next_slot as usize => &r.new_tiers[tier],
            _ => &self.tiers[tier],
        }
    }

    pub(crate) fn tier_of_rb(&self, i: usize) -> usize {
        let (d, s) = unpack(self.fwd[i]);
        self.tier_at_raw(d, s) as usize
    }

    // ----- temperature -----------------------------------------------------------------

    /// Current temperature of `rb` in accesses/s (0 until its first k accesses).
    pub fn temperature(&self, rb: u64) -> Result<f64> {
        let i = self.check_rb(rb)?;
        Ok(f64::from(self.temp[i]))
    }

    /// Whether `rb` has a temperature value yet (k accesses seen or one was set).
    pub fn has_temperature(&self, rb: u64) -> Result<bool> {
        let i = self.check_rb(rb)?;
        Ok(self.win_count[i] & HAS_TEMP != 0)
    }

    /// Records one access to `rb` at time `now_s` (seconds, the caller's clock). After
    /// every k-th access the temperature is updated and returned.
    pub fn record_access(&mut self, rb: u64, now_s: f64) -> Result<Option<f64>> {
        let i = self.check_rb(rb)?;
        if !now_s.is_finite() {
            return Err(LayoutError::BadTime(now_s));
        }
        let p = self.cfg.temperature;
        let c = self.win_count[i];
        if self.win_start[i].is_nan() {
            self.win_start[i] = now_s;
        }
        let cnt = (c & COUNT_MASK) + 1;
        if u32::from(cnt) < p.k {
            self.win_count[i] = (c & HAS_TEMP) | cnt;
            return Ok(None);
        }
        let span = (now_s - self.win_start[i]).max(p.min_span_s);
        let rate = f64::from(p.k) / span;
        let t = if c & HAS_TEMP != 0 {
            (1.0 - p.xi) * f64::from(self.temp[i]) + p.xi * rate
        } else {
            rate
        };
        self.set_temp_internal(i, store_temp(t));
        self.win_start[i] = now_s;
        self.win_count[i] = HAS_TEMP;
        Ok(Some(f64::from(self.temp[i])))
    }

    /// Sets the temperature of `rb` (e.g. carried over from a warm-up run). The access
    /// window in progress is kept.
    pub fn set_temperature(&mut self, rb: u64, temperature: f64) -> Result<()> {
        let i = self.check_rb(rb)?;
        if !(temperature.is_finite() && temperature >= 0.0) {
            return Err(LayoutError::BadTemperature(temperature));
        }
        self.set_temp_internal(i, store_temp(temperature));
        self.win_count[i] |= HAS_TEMP;
        Ok(())
    }

    fn set_temp_internal(&mut self, i: usize, t: f32) {
        let old = temp_key(self.temp[i], i as u32);
        let new = temp_key(t, i as u32);
        self.temp[i] = t;
        // While a reorganisation runs the order is rebuilt when it ends.
        if old != new && self.reorg.is_none() {
            let tier = self.tier_of_rb(i);
            self.by_temp[tier].remove(&old);
            self.by_temp[tier].insert(new);
        }
    }

    /// Rebuilds the per-tier temperature order from scratch; a no-op while a
    /// reorganisation runs (it is rebuilt when the last step is applied). Only the RBs
    /// with a temperature are sorted (O(N + W log W) for W of them); the others go to
    /// their tier's bit set.
    pub(crate) fn rebuild_temperature_order(&mut self) {
        if self.reorg.is_some() {
            return;
        }
        let tiers = self.tiers.len();
        let mut orders = vec![TempOrder::default(); tiers];
        let mut warm: Vec<Vec<u64>> = vec![Vec::new(); tiers];
        for i in 0..self.fwd.len() {
            let k = temp_key(self.temp[i], i as u32);
            let t = self.tier_of_rb(i);
            if k >> 32 == 0 {
                orders[t].insert(k);
            } else {
                warm[t].push(k);
            }
        }
        for (order, mut keys) in orders.iter_mut().zip(warm) {
            keys.sort_unstable();
            order.set_warm(keys);
        }
        self.by_temp = orders;
    }

    /// Epoch boundary hook: applies `epoch_decay` if configured, else does nothing.
    pub fn epoch_boundary(&mut self) {
        if let Some(f) = self.cfg.temperature.epoch_decay {
            self.scale_temperatures(f);
        }
    }

    /// Multiplies every temperature by `factor` in (0, 1] (order-preserving).
    pub fn decay_temperatures(&mut self, factor: f64) -> Result<()> {
        if !(factor.is_finite() && factor > 0.0 && factor <= 1.0) {
            return Err(LayoutError::BadDecay(factor));
        }
        self.scale_temperatures(factor);
        Ok(())
    }

    fn scale_temperatures(&mut self, factor: f64) {
        for t in self.temp.iter_mut() {
            *t = store_temp(f64::from(*t) * factor);
        }
        self.rebuild_temperature_order();
    }

    /// Summed temperature of the RBs on each disk.
    pub fn disk_temperatures(&self) -> Vec<f64> {
        let mut sum = vec![0.0f64; self.n];
        for (i, &loc) in self.fwd.iter().enumerate() {
            sum[unpack(loc).0] += f64::from(self.temp[i]);
        }
        sum
    }

    /// RB count and summed temperature per tier (tier vector order; while a
    /// reorganisation runs, per stripe as [`Layout::tier_at`] says).
    pub fn tier_temperatures(&self) -> Vec<(u64, f64)> {
        let mut out = vec![(0u64, 0.0f64); self.tiers.len()];
        for i in 0..self.fwd.len() {
            let t = &mut out[self.tier_of_rb(i)];
            t.0 += 1;
            t.1 += f64::from(self.temp[i]);
        }
        out
    }

    /// Temperatures sorted hottest first, with prefix sums, for tier-load prediction.
    pub fn temperature_snapshot(&self) -> TemperatureSnapshot {
        TemperatureSnapshot::new(&self.temp, self.cfg.n_disks, self.cfg.slots_per_disk)
    }

    /// The fraction of a single-tier RAID-5's data capacity in use:
    /// `n_rbs / ((n_disks − 1) · slots_per_disk)`.
    pub fn fill_factor(&self) -> f64 {
        self.cfg.n_rbs as f64 / ((self.n - 1) as f64 * self.slots as f64)
    }

    // ----- small-scale migration -------------------------------------------------------

    /// An error if a reorganisation or a small-scale migration is under way.
    pub(crate) fn ensure_nothing_running(&self) -> Result<()> {
        if let Some(r) = &self.reorg {
            return Err(LayoutError::ReorgInProgress {
                applied: r.next_slot,
                slots: self.cfg.slots_per_disk,
            });
        }
        if self.in_flight.is_some() {
            return Err(LayoutError::MigrationInFlight);
        }
        Ok(())
    }

    /// Proposes the next small-scale migration, or `None` if the tiers are in temperature
    /// order. For each pair of adjacent non-empty tiers (faster `f`, slower `l`), with
    /// `hot` the hottest RB of `l` and `cold` the coldest RB of `f` (temperature 0 if `f`
    /// holds none): if `T_hot > T_cold · (1 + h)`, `hot` moves into a free slot of `f`'s
    /// stripe at `hot`'s stripe index if there is one, else `hot` and `cold` swap. Of all
    /// pairs the one with the largest `T_hot − T_cold · (1 + h)` is proposed. The
    /// proposal stays in flight until [`Layout::commit_swap`] or [`Layout::abort_swap`].
    pub fn next_swap(&mut self, h: f64) -> Result<Option<Migration>> {
        if !(h.is_finite() && h >= 0.0) {
            return Err(LayoutError::BadHysteresis(h));
        }
        self.ensure_nothing_running()?;
        let nonempty: Vec<usize> = (0..self.tiers.len())
            .filter(|&t| !self.tiers[t].is_empty())
            .collect();
        let mut best: Option<(f64, Migration)> = None;
        for w in nonempty.windows(2) {
            let (fast, slow) = (w[0], w[1]);
            let Some(hk) = self.by_temp[slow].last() else {
                continue;
            };
            let (t_hot, hot) = key_parts(hk);
            let cold = self.by_temp[fast].first().map(key_parts);
            let t_cold = cold.map_or(0.0, |c| f64::from(c.0));
            let margin = f64::from(t_hot) - t_cold * (1.0 + h);
            if margin <= 0.0 || best.as_ref().is_some_and(|b| b.0 >= margin) {
                continue;
            }
            let (hd, hs) = unpack(self.fwd[hot as usize]);
            let hot_at = Location {
                disk: hd as u32,
                slot: hs as u32,
            };
            let members = &self.tiers[fast];
            let w = members.len();
            let free = (0..w)
                .map(|j| members[(hs + j) % w])
                .find(|&m| self.inv[hs * self.n + m as usize] == FREE);
            let m = if let Some(fd) = free {
                Migration::Move {
                    rb: u64::from(hot),
                    from: hot_at,
                    to: Location {
                        disk: fd,
                        slot: hs as u32,
                    },
                }
            } else if let Some((_, cold_rb)) = cold {
                let (cd, cs) = unpack(self.fwd[cold_rb as usize]);
                Migration::Swap {
                    hot: u64::from(hot),
                    hot_at,
                    cold: u64::from(cold_rb),
                    cold_at: Location {
                        disk: cd as u32,
                        slot: cs as u32,
                    },
                }
            } else {
                continue;
            };
            best = Some((margin, m));
        }
        let m = best.map(|b| b.1);
        self.in_flight = m;
        Ok(m)
    }

    /// The migration proposed by [`Layout::next_swap`] and not yet committed or aborted.
    pub fn swap_in_flight(&self) -> Option<Migration> {
        self.in_flight
    }

    /// Drops the migration in flight without changing the maps.
    pub fn abort_swap(&mut self) -> Result<Migration> {
        self.in_flight
            .take()
            .ok_or(LayoutError::NoMigrationInFlight)
    }

    /// Records that the migration in flight is durable: updates both maps and the
    /// per-tier temperature order. `m` must equal the proposal.
    pub fn commit_swap(&mut self, m: &Migration) -> Result<()> {
        let Some(cur) = self.in_flight else {
            return Err(LayoutError::NoMigrationInFlight);
        };
        if cur != *m {
            return Err(LayoutError::MigrationMismatch {
                in_flight: format!("{cur:?}"),
            });
        }
        let n = self.n;
        match cur {
            Migration::Swap {
                hot,
                hot_at,
                cold,
                cold_at,
            } => {
                let (h, c) = (hot as usize, cold as usize);
                let hi = hot_at.slot as usize * n + hot_at.disk as usize;
                let ci = cold_at.slot as usize * n + cold_at.disk as usize;
                if self.inv[hi] != hot as u32 || self.inv[ci] != cold as u32 {
                    return Err(LayoutError::Corrupt(
                        "swap endpoints changed while the swap was in flight".into(),
                    ));
                }
                let th = self.tier_of_rb(h);
                let tc = self.tier_of_rb(c);
                self.inv.swap(hi, ci);
                self.fwd.swap(h, c);
                self.retier(h, th);
                self.retier(c, tc);
            }
            Migration::Move { rb, from, to } => {
                let r = rb as usize;
                let fi = from.slot as usize * n + from.disk as usize;
                let ti = to.slot as usize * n + to.disk as usize;
                if self.inv[fi] != rb as u32 || self.inv[ti] != FREE {
                    return Err(LayoutError::Corrupt(
                        "move endpoints changed while the move was in flight".into(),
                    ));
                }
                let t = self.tier_of_rb(r);
                self.inv[ti] = rb as u32;
                self.inv[fi] = FREE;
                self.fwd[r] = pack(to.disk as usize, to.slot as usize);
                self.retier(r, t);
            }
        }
        self.in_flight = None;
        Ok(())
    }

    /// Moves RB `i`'s temperature key from tier `old` to its current tier if they differ.
    pub(crate) fn retier(&mut self, i: usize, old: usize) {
        let new = self.tier_of_rb(i);
        if new != old {
            let k = temp_key(self.temp[i], i as u32);
            self.by_temp[old].remove(&k);
            self.by_temp[new].insert(k);
        }
    }

    // ----- consistency -----------------------------------------------------------------

    /// Full consistency check (O(RBs + slots · disks)): the forward and inverse maps
    /// agree, every RB is in exactly one slot, every non-empty tier stripe has exactly one
    /// parity, no stripe index holds more than [`Layout::stripe_rbs`] RBs, tiers have ≥ 2
    /// disks, and (outside reorganisations) the temperature order holds every RB in its
    /// tier.
    pub fn verify(&self) -> Result<()> {
        let n = self.n;
        let bad = |m: String| Err(LayoutError::Corrupt(m));
        for (i, &loc) in self.fwd.iter().enumerate() {
            let (d, s) = unpack(loc);
            if d >= n || s >= self.slots || self.inv[s * n + d] != i as u32 {
                return bad(format!("RB {i} maps to ({d}, {s}), which does not hold it"));
            }
        }
        let cells = self.inv.iter().filter(|&&c| is_rb(c)).count();
        if cells != self.fwd.len() {
            return bad(format!(
                "{cells} slots hold RBs but the layout has {} RBs",
                self.fwd.len()
            ));
        }
        for (t, members) in self.tiers.iter().enumerate() {
            if members.len() == 1 {
                return bad(format!("tier {t} has a single disk"));
            }
            if members
                .iter()
                .any(|&d| self.tier_of[d as usize] != t as u32)
            {
                return bad(format!("tier {t}'s disk list disagrees with tier_of"));
            }
        }
        if self.tiers.iter().map(Vec::len).sum::<usize>() != n {
            return bad("tiers do not partition the disks".into());
        }
        for s in 0..self.slots {
            let row = &self.inv[s * n..(s + 1) * n];
            let rbs = row.iter().filter(|&&c| is_rb(c)).count();
            if rbs > self.stripe_rbs as usize {
                return bad(format!(
                    "stripe {s} holds {rbs} RBs, more than {}",
                    self.stripe_rbs
                ));
            }
            if row.contains(&FORMER_PARITY) {
                return bad(format!("stripe {s} holds a transient slot code"));
            }
            for t in 0..self.tiers.len() {
                let members = self.members_at(t, s);
                if members.is_empty() {
                    continue;
                }
                let p = members
                    .iter()
                    .filter(|&&d| row[d as usize] == PARITY)
                    .count();
                if p != 1 {
                    return bad(format!("tier {t} stripe {s} holds {p} parity slots"));
                }
            }
            let w = self.tiers.len();
            if !self.parity_row(s).eq(self.parity[s * w..(s + 1) * w].iter().copied()) {
                return bad(format!("the parity table disagrees with stripe {s}"));
            }
        }
        if self.reorg.is_some() {
            return Ok(()); // the temperature order is rebuilt when the plan ends
        }
        if self.by_temp.len() != self.tiers.len() {
            return bad("temperature order and tiers differ in length".into());
        }
        let in_sets: usize = self.by_temp.iter().map(TempOrder::len).sum();
        if in_sets != self.fwd.len() {
            return bad(format!(
                "temperature order holds {in_sets} entries for {} RBs",
                self.fwd.len()
            ));
        }
        for i in 0..self.fwd.len() {
            let t = self.tier_of_rb(i);
            if !self.by_temp[t].contains(&temp_key(self.temp[i], i as u32)) {
                return bad(format!(
                    "RB {i} is missing from tier {t}'s temperature order"
                ));
            }
        }
        Ok(())
    }
}
