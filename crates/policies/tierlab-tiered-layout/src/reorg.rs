use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::error::{LayoutError, Result};
use crate::layout::{
    is_rb, new_plan_id, pack, unpack, ActiveReorg, Layout, Location, SlotContent, FORMER_PARITY,
    FREE, PARITY,
};
use crate::temp_order::TempOrder;
use crate::tiers::validate_tier_sizes;

/// The join shuffle run in every tier that gains disks (§3.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Shuffle {
    /// RS (Hibernator's): every block on a joining disk exchanges with a uniformly random
    /// position of the post-join stripe, data or parity, among the positions not already
    /// settled by an earlier joining disk of that stripe (its own position included: no
    /// move).
    Randomized,
    /// PS: the k-th joining disk (ascending disk order) exchanges its block in stripe `s`
    /// with the block of the base disk at index `(s + k) mod W_old` (base disks ascending).
    Permutational,
    /// SS: the stripe's blocks are sorted (parity first, then data hottest first, then
    /// free slots) and the sorted sequence is rotated by `s` positions over the tier's
    /// disks (ascending), i.e. one more position than the previous stripe.
    Sorted,
}

/// A disk changing tier in a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskMove {
    pub disk: u32,
    pub from_tier: u32,
    pub to_tier: u32,
}

/// One RB copy of a reorganisation step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockMove {
    pub rb: u64,
    pub from: Location,
    pub to: Location,
}

/// A parity slot to recompute and write: tier `tier`'s stripe at the step's slot, with
/// its parity on `disk`. The stripe's members are the plan's target disks of `tier`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParityWrite {
    pub tier: u32,
    pub disk: u32,
}

/// Counts for one step (one stripe index across all tiers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepStats {
    /// RB copies the executor performs (after coalescing).
    pub rb_moves: u32,
    /// Parity slots recomputed and written.
    pub parity_writes: u32,
    /// RBs that pre-migration concentration alone would move.
    pub concentration_moves: u32,
    /// Data and parity positions whose block the join shuffle changed, summed over tiers.
    pub shuffle_moves: u32,
    /// RBs that left the slot chosen for the parity of a tier built from scratch.
    pub parity_displacements: u32,
    /// RBs moved to another tier because a tier built from scratch had no free slot for
    /// its parity.
    pub evictions: u32,
}

/// Running totals over the steps a plan has produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanTotals {
    pub stripes: u64,
    pub rb_moves: u64,
    pub parity_writes: u64,
    pub concentration_moves: u64,
    pub shuffle_moves: u64,
    pub parity_displacements: u64,
    pub evictions: u64,
    pub max_rb_moves_in_stripe: u32,
}

impl PlanTotals {
    fn add(&mut self, s: &StepStats) {
        self.stripes += 1;
        self.rb_moves += u64::from(s.rb_moves);
        self.parity_writes += u64::from(s.parity_writes);
        self.concentration_moves += u64::from(s.concentration_moves);
        self.shuffle_moves += u64::from(s.shuffle_moves);
        self.parity_displacements += u64::from(s.parity_displacements);
        self.evictions += u64::from(s.evictions);
        self.max_rb_moves_in_stripe = self.max_rb_moves_in_stripe.max(s.rb_moves);
    }
}

/// The work for one stripe index: copy every [`BlockMove`] (read all sources before
/// writing any destination: moves may form cycles; at most one RB per disk), then write
/// every [`ParityWrite`], then call [`Layout::apply_step`].
#[derive(Clone, Debug)]
pub struct ReorgStep {
    plan_id: u64,
    slot: u32,
    moves: Vec<BlockMove>,
    parity_writes: Vec<ParityWrite>,
    intermediate: Vec<u32>,
    fin: Vec<u32>,
    stats: StepStats,
}

impl ReorgStep {
    pub fn plan_id(&self) -> u64 {
        self.plan_id
    }
    /// The stripe index (slot on every disk) this step reorganises.
    pub fn slot(&self) -> u32 {
        self.slot
    }
    pub fn moves(&self) -> &[BlockMove] {
        &self.moves
    }
    pub fn parity_writes(&self) -> &[ParityWrite] {
        &self.parity_writes
    }
    pub fn stats(&self) -> StepStats {
        self.stats
    }
    /// What `disk`'s slot would hold after pre-migration concentration alone (before the
    /// join shuffle and coalescing): for inspection. `None` for an out-of-range disk.
    pub fn intermediate(&self, disk: u32) -> Option<SlotContent> {
        self.intermediate
            .get(disk as usize)
            .map(|&c| SlotContent::from_code(c))
    }
    /// What `disk`'s slot holds once the step is applied. `None` for an out-of-range disk.
    pub fn after(&self, disk: u32) -> Option<SlotContent> {
        self.fin
            .get(disk as usize)
            .map(|&c| SlotContent::from_code(c))
    }
}

/// A large-scale reorganisation from the current tiers to a target tier-size vector,
/// produced lazily one stripe index at a time by [`ReorgPlan::next_step`].
#[derive(Debug)]
pub struct ReorgPlan {
    id: u64,
    kind: Shuffle,
    seed: u64,
    slots: u32,
    next_slot: u32,
    new_tier_of: Vec<u32>,
    old_tiers: Vec<Vec<u32>>,
    new_tiers: Vec<Vec<u32>>,
    /// Per target tier: the disks whose blocks are "old" in the join shuffle.
    base: Vec<Vec<u32>>,
    /// Per target tier without staying disks: the old tier its base disks come from.
    base_source: Vec<Option<u32>>,
    /// Per target tier: its disk set equals no old tier's (every stripe needs new parity).
    changed: Vec<bool>,
    disk_moves: Vec<DiskMove>,
    /// Per old tier, what the concentration (a step's first part) does alike in every
    /// stripe, worked out once for the plan.
    bins_of: Vec<TierBins>,
    totals: PlanTotals,
    /// Lists a step gathers, kept from step to step so that their memory is allocated
    /// once per plan rather than a few dozen times per stripe.
    work: StepWork,
}

/// What the concentration of every stripe does for one old tier (see
/// [`ReorgPlan::compute`]): it depends on the tiers alone, not on the stripe.
#[derive(Debug, Default)]
struct TierBins {
    /// Every disk of the tier stays in it: nothing to concentrate.
    all_stay: bool,
    /// Some disk stays.
    has_stayers: bool,
    /// The tiers its leaving disks go to, in the order their bins are filled (hotter
    /// tiers hottest first, then colder ones coldest first), each with those disks
    /// (ascending).
    dests: Vec<(u32, Vec<u32>)>,
    /// The disks that stay (ascending).
    stay: Vec<u32>,
}

impl TierBins {
    fn new(a: u32, members: &[u32], new_tier_of: &[u32]) -> TierBins {
        let to = |d: u32| new_tier_of[d as usize];
        let mut dests: Vec<u32> = members.iter().map(|&d| to(d)).filter(|&b| b != a).collect();
        dests.sort_unstable();
        dests.dedup();
        let order = dests.iter().copied().filter(|&b| b < a).chain(dests.iter().rev().copied().filter(|&b| b > a));
        TierBins {
            all_stay: members.iter().all(|&d| to(d) == a),
            has_stayers: members.iter().any(|&d| to(d) == a),
            dests: order.map(|b| (b, members.iter().copied().filter(|&d| to(d) == b).collect())).collect(),
            stay: members.iter().copied().filter(|&d| to(d) == a).collect(),
        }
    }
}

/// The working lists of [`ReorgPlan::compute`]; each is emptied where it is used.
#[derive(Debug, Default)]
struct StepWork {
    /// Per disk, 0 between uses (see [`place`], [`same_rbs`]).
    marks: Vec<u8>,
    pool: Vec<(u32, u32)>,
    taken: Vec<bool>,
    keyed: Vec<(u64, usize)>,
    frees: Vec<usize>,
    chosen: Vec<usize>,
    /// The bins of one old tier: ranges of `bin_disks` and `bin_items`.
    bins: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    bin_disks: Vec<u32>,
    bin_items: Vec<(u32, u32)>,
    incoming: Vec<u32>,
    vacant: Vec<u32>,
}

impl ReorgPlan {
    pub fn id(&self) -> u64 {
        self.id
    }
    pub fn shuffle(&self) -> Shuffle {
        self.kind
    }
    /// Disks that change tier, ascending.
    pub fn disk_moves(&self) -> &[DiskMove] {
        &self.disk_moves
    }
    /// The tier-size vector after the plan.
    pub fn target_sizes(&self) -> Vec<u32> {
        self.new_tiers.iter().map(|t| t.len() as u32).collect()
    }
    /// The disks of `tier` after the plan, ascending.
    pub fn target_tier_disks(&self, tier: u32) -> Result<&[u32]> {
        self.new_tiers
            .get(tier as usize)
            .map(|v| v.as_slice())
            .ok_or(LayoutError::TierOutOfRange {
                tier,
                tiers: self.new_tiers.len() as u32,
            })
    }
    /// Steps the plan produces in all (0 when no disk changes tier).
    pub fn steps_total(&self) -> u32 {
        self.slots
    }
    /// Steps produced so far.
    pub fn steps_produced(&self) -> u32 {
        self.next_slot
    }
    /// Totals over the steps produced so far.
    pub fn totals(&self) -> PlanTotals {
        self.totals
    }

    /// Produces the step for the next stripe index, or `None` when all are produced.
    /// Steps may be produced ahead of [`Layout::apply_step`] (each reads only its own
    /// stripe index); they must be applied in the order produced.
    pub fn next_step(&mut self, layout: &Layout) -> Result<Option<ReorgStep>> {
        if self.next_slot >= self.slots {
            return Ok(None);
        }
        match &layout.reorg {
            Some(r) if r.id == self.id => {
                if r.next_slot > self.next_slot {
                    return Err(LayoutError::StepOutOfOrder {
                        got: self.next_slot,
                        expected: r.next_slot,
                    });
                }
            }
            Some(r) => {
                return Err(LayoutError::PlanMismatch {
                    got: self.id,
                    expected: r.id,
                })
            }
            None => return Err(LayoutError::NoReorgInProgress),
        }
        let mut work = std::mem::take(&mut self.work);
        let step = self.compute(layout, self.next_slot as usize, &mut work);
        self.work = work;
        let step = step?;
        self.next_slot += 1;
        self.totals.add(&step.stats);
        Ok(Some(step))
    }

    fn compute(&self, layout: &Layout, s: usize, w: &mut StepWork) -> Result<ReorgStep> {
        let n = layout.n;
        let orig: &[u32] = &layout.inv[s * n..(s + 1) * n];
        let mut conc = orig.to_vec();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(s as u64);
        let temp = |c: u32| -> f32 {
            if is_rb(c) {
                layout.temp[c as usize]
            } else {
                0.0
            }
        };
        let corrupt =
            |what: &str| LayoutError::Corrupt(format!("reorganisation of stripe {s}: {what}"));
        if w.marks.len() < n {
            w.marks.resize(n, 0);
        }
        let mut stats = StepStats::default();

        // 1. Pre-migration temperature concentration, per old tier that loses disks.
        for (a, members) in self.old_tiers.iter().enumerate() {
            let a32 = a as u32;
            let tier = &self.bins_of[a];
            if tier.all_stay {
                continue;
            }
            let mut pds = members.iter().filter(|&&d| orig[d as usize] == PARITY);
            let (Some(&pd), None) = (pds.next(), pds.next()) else {
                return Err(corrupt("an old tier stripe lacks exactly one parity"));
            };
            // (The lists of a step are filled by plain loops: a filtered iterator's
            // `extend` costs several times as much on lists this short.)
            let pool = &mut w.pool;
            pool.clear();
            for &d in members {
                if d != pd {
                    pool.push((orig[d as usize], d));
                }
            }
            let has_stayers = tier.has_stayers;
            if !has_stayers {
                pool.push((FORMER_PARITY, pd));
            }
            let taken = &mut w.taken;
            taken.clear();
            taken.resize(pool.len(), false);
            w.bins.clear();
            w.bin_disks.clear();
            w.bin_items.clear();
            for (b, disks) in &tier.dests {
                let b = *b;
                let first_disk = w.bin_disks.len();
                w.bin_disks.extend_from_slice(disks);
                // Whether a disk of the old tier (every block's origin is one) is in the bin.
                let on = |o: u32| self.new_tier_of[o as usize] == b;
                let hotward = b < a32;
                let k = disks.len();
                let quota = if self.base_source[b as usize] == Some(a32) {
                    k - 1
                } else {
                    k
                };
                // The blocks in the order they are chosen: by temperature (hottest first
                // towards a hotter tier, coldest first towards a colder one); equally warm
                // blocks (most have no temperature yet): the one already in place, else
                // an order of the disks that changes from stripe to stripe, so the copies
                // leaving a tier are read from all of its disks alike; then as they lie.
                // Each block's key is computed once (one look at its temperature).
                let turn = |o: u32| (u64::from(o) ^ ((s as u64) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                let keyed = &mut w.keyed;
                keyed.clear();
                let frees = &mut w.frees;
                frees.clear();
                for (i, &(c, o)) in pool.iter().enumerate() {
                    if taken[i] {
                        continue;
                    }
                    if is_rb(c) {
                        let t = total_order_bits(temp(c));
                        let t = if hotward { !t } else { t };
                        keyed.push(((u64::from(t) << 32) | (u64::from(!on(o)) << 24) | turn(o), i));
                    } else {
                        frees.push(i);
                    }
                }
                // (Every key is distinct, as each holds its pool index: any sort gives
                // the one order, and insertion sort is the quickest on a few dozen.)
                insertion_sort_by_key(keyed, |&k| k);
                // (Stable, as `sort_by_key`; the keys are distinct too, each holding its disk.)
                insertion_sort_by_key(frees, |&i| (!on(pool[i].1), pool[i].0 != FORMER_PARITY, pool[i].1));
                let chosen = &mut w.chosen;
                chosen.clear();
                chosen.extend(keyed.iter().take(quota).map(|&(_, i)| i));
                let (mut di, mut fi) = (chosen.len(), 0);
                while chosen.len() < k {
                    if fi < frees.len() {
                        chosen.push(frees[fi]);
                        fi += 1;
                    } else if di < keyed.len() {
                        chosen.push(keyed[di].1);
                        di += 1;
                    } else {
                        return Err(corrupt("a leaving group found too few slots"));
                    }
                }
                let first_item = w.bin_items.len();
                for &i in chosen.iter() {
                    taken[i] = true;
                    w.bin_items.push(pool[i]);
                }
                w.bins.push((first_disk..w.bin_disks.len(), first_item..w.bin_items.len()));
            }
            if !has_stayers {
                if taken.iter().any(|&t| !t) {
                    return Err(corrupt("a dissolved tier left blocks behind"));
                }
            } else {
                let first_disk = w.bin_disks.len();
                w.bin_disks.extend_from_slice(&tier.stay);
                let first_item = w.bin_items.len();
                for (i, &item) in pool.iter().enumerate() {
                    if !taken[i] {
                        w.bin_items.push(item);
                    }
                }
                w.bin_items.push((PARITY, pd));
                w.bins.push((first_disk..w.bin_disks.len(), first_item..w.bin_items.len()));
            }
            for (disks, items) in &w.bins {
                place(&mut conc, &mut w.marks, &w.bin_disks[disks.clone()], &w.bin_items[items.clone()], &mut rng, &mut w.incoming, &mut w.vacant)
                    .map_err(|()| corrupt("a bin's item count differs from its disk count"))?;
            }
        }
        let intermediate: Vec<u32> = conc
            .iter()
            .map(|&c| if c == FORMER_PARITY { FREE } else { c })
            .collect();
        stats.concentration_moves = (0..n)
            .filter(|&d| is_rb(conc[d]) && conc[d] != orig[d])
            .count() as u32;

        // 2. Parity for target tiers built without staying disks.
        let mut overflow = Vec::new();
        for (b, members) in self.new_tiers.iter().enumerate() {
            if members.is_empty() || self.base_source[b].is_none() {
                continue;
            }
            if let Some(&p) = members.iter().find(|&&d| conc[d as usize] == FORMER_PARITY) {
                conc[p as usize] = PARITY;
                continue;
            }
            // A uniformly random disk takes the parity; its RB, if any, takes a free slot.
            let x = members[rng.gen_range(0..members.len())] as usize;
            if conc[x] == FREE {
                conc[x] = PARITY;
                continue;
            }
            // A uniformly random one of the tier's free slots (counted, then found).
            let is_free = |d: &&u32| conc[**d as usize] == FREE;
            let free_count = members.iter().filter(is_free).count();
            if free_count == 0 {
                overflow.push(b);
            } else {
                let pick = rng.gen_range(0..free_count);
                let Some(&f) = members.iter().filter(is_free).nth(pick) else {
                    return Err(corrupt("a free slot went missing"));
                };
                let f = f as usize;
                conc[f] = conc[x];
                conc[x] = PARITY;
                stats.parity_displacements += 1;
            }
        }
        for c in conc.iter_mut() {
            if *c == FORMER_PARITY {
                *c = FREE;
            }
        }
        for b in overflow {
            let has_free = |e: usize| self.new_tiers[e].iter().any(|&d| conc[d as usize] == FREE);
            let Some(e) = (0..self.new_tiers.len())
                .filter(|&e| e != b && has_free(e))
                .min_by_key(|&e| (e.abs_diff(b), std::cmp::Reverse(e)))
            else {
                return Err(corrupt("no tier has a free slot for an evicted block"));
            };
            let rbs = self.new_tiers[b]
                .iter()
                .copied()
                .filter(|&d| is_rb(conc[d as usize]));
            let by_temp = |x: &u32, y: &u32| {
                let (cx, cy) = (conc[*x as usize], conc[*y as usize]);
                temp(cx).total_cmp(&temp(cy)).then(cy.cmp(&cx))
            };
            // To a colder tier goes the coldest block, to a hotter one the hottest.
            let victim = if e > b {
                rbs.min_by(by_temp)
            } else {
                rbs.max_by(by_temp)
            };
            let Some(victim) = victim else {
                return Err(corrupt("a tier without free slots holds no block"));
            };
            let frees: Vec<u32> = self.new_tiers[e]
                .iter()
                .copied()
                .filter(|&d| conc[d as usize] == FREE)
                .collect_within(self.new_tiers[e].len());
            let target = frees[rng.gen_range(0..frees.len())];
            conc[target as usize] = conc[victim as usize];
            conc[victim as usize] = PARITY;
            stats.evictions += 1;
        }

        // 3. Join shuffle in every target tier with joining disks.
        for (b, members) in self.new_tiers.iter().enumerate() {
            let base = &self.base[b];
            if members.len() == base.len() || base.is_empty() {
                continue;
            }
            let w = members.len();
            let pre: Vec<u32> = members.iter().map(|&d| conc[d as usize]).collect();
            let is_base: Vec<bool> = members
                .iter()
                .map(|d| base.binary_search(d).is_ok())
                .collect();
            let joiners: Vec<usize> = (0..w).filter(|&i| !is_base[i]).collect_within(w);
            let mut cur = pre.clone();
            match self.kind {
                Shuffle::Randomized => {
                    let mut settled = vec![false; w];
                    for &j in &joiners {
                        let open: Vec<usize> = (0..w).filter(|&i| !settled[i]).collect_within(w);
                        let r = open[rng.gen_range(0..open.len())];
                        cur.swap(j, r);
                        settled[j] = true;
                    }
                }
                Shuffle::Permutational => {
                    let bases: Vec<usize> = (0..w).filter(|&i| is_base[i]).collect_within(w);
                    for (k, &j) in joiners.iter().enumerate() {
                        cur.swap(j, bases[(s + k) % bases.len()]);
                    }
                }
                Shuffle::Sorted => {
                    let rank = |c: u32| match c {
                        PARITY => 0u8,
                        FREE => 2,
                        _ => 1,
                    };
                    let mut order: Vec<usize> = (0..w).collect();
                    order.sort_by(|&x, &y| {
                        rank(pre[x])
                            .cmp(&rank(pre[y]))
                            .then(temp(pre[y]).total_cmp(&temp(pre[x])))
                            .then(x.cmp(&y))
                    });
                    for (i, &o) in order.iter().enumerate() {
                        cur[(i + s) % w] = pre[o];
                    }
                }
            }
            for i in 0..w {
                if cur[i] != pre[i] && cur[i] != FREE {
                    stats.shuffle_moves += 1;
                }
                conc[members[i] as usize] = cur[i];
            }
        }

        // 4. Checks, coalesced moves and parity writes.
        let fin = conc;
        if !same_rbs(orig, &fin, &layout.fwd, s, &mut w.marks) {
            return Err(corrupt("blocks were lost or duplicated"));
        }
        let mut moves = Vec::with_capacity(n);
        for (d, &c) in fin.iter().enumerate() {
            if is_rb(c) && orig[d] != c {
                let (od, os) = unpack(layout.fwd[c as usize]);
                if os != s {
                    return Err(corrupt("the RB map disagrees with the slot contents"));
                }
                moves.push(BlockMove {
                    rb: u64::from(c),
                    from: Location {
                        disk: od as u32,
                        slot: s as u32,
                    },
                    to: Location {
                        disk: d as u32,
                        slot: s as u32,
                    },
                });
            }
        }
        let mut parity_writes = Vec::new();
        for (b, members) in self.new_tiers.iter().enumerate() {
            if members.is_empty() {
                continue;
            }
            let mut ps = members.iter().filter(|&&d| fin[d as usize] == PARITY);
            let (Some(&p), None) = (ps.next(), ps.next()) else {
                return Err(corrupt("a target tier stripe lacks exactly one parity"));
            };
            let touched = members.iter().any(|&d| fin[d as usize] != orig[d as usize]);
            if self.changed[b] || touched {
                parity_writes.push(ParityWrite {
                    tier: b as u32,
                    disk: p,
                });
            }
        }
        stats.rb_moves = moves.len() as u32;
        stats.parity_writes = parity_writes.len() as u32;
        Ok(ReorgStep {
            plan_id: self.id,
            slot: s as u32,
            moves,
            parity_writes,
            intermediate,
            fin,
            stats,
        })
    }
}

/// Puts `items` (code, origin disk) onto `disks`: items already on one of the disks stay,
/// the others fill the remaining disks in random order. A parity item that arrives from
/// outside goes to a uniformly random disk of the bin; if that disk's item was staying,
/// the item joins the arrivals instead. `scratch` is all 0 on entry and exit;
/// `incoming` and `vacant` are working lists (emptied here).
fn place(
    conc: &mut [u32],
    scratch: &mut [u8],
    disks: &[u32],
    items: &[(u32, u32)],
    rng: &mut ChaCha8Rng,
    incoming: &mut Vec<u32>,
    vacant: &mut Vec<u32>,
) -> std::result::Result<(), ()> {
    const IN_BIN: u8 = 1;
    const KEPT: u8 = 2;
    for &d in disks {
        scratch[d as usize] = IN_BIN;
    }
    incoming.clear();
    let mut parity_arrives = false;
    for &(c, o) in items {
        if scratch[o as usize] == IN_BIN {
            conc[o as usize] = c;
            scratch[o as usize] = KEPT;
        } else if c == PARITY {
            parity_arrives = true;
        } else {
            incoming.push(c);
        }
    }
    if parity_arrives && !disks.is_empty() {
        let x = disks[rng.gen_range(0..disks.len())] as usize;
        if scratch[x] == KEPT {
            incoming.push(conc[x]);
        }
        conc[x] = PARITY;
        scratch[x] = KEPT;
    }
    vacant.clear();
    for &d in disks {
        if scratch[d as usize] == IN_BIN {
            vacant.push(d);
        }
    }
    for &d in disks {
        scratch[d as usize] = 0;
    }
    if vacant.len() != incoming.len() {
        return Err(());
    }
    vacant.shuffle(rng);
    for (&d, &c) in vacant.iter().zip(incoming.iter()) {
        conc[d as usize] = c;
    }
    Ok(())
}

/// Whether the stripe row `after` holds the same RBs as `before`, each once as often.
/// Quick test first: as many RBs, and each RB of `after` found (through the RB map `fwd`)
/// at a distinct disk of `before` in stripe `s`, which makes `after`'s RBs a part of
/// `before`'s as large as the whole. Only when that fails (a row the RB map does not
/// describe) are both lists sorted and compared. The disks found are noted in a bit set
/// on rows of up to 64 disks, else in `marks` (one per disk, all 0 on entry and exit).
fn same_rbs(before: &[u32], after: &[u32], fwd: &[u64], s: usize, marks: &mut [u8]) -> bool {
    let in_before = before.iter().filter(|&&c| is_rb(c)).count();
    // Where `after`'s RB `c` lies in `before` by the RB map, if it does.
    let place = |c: u32| fwd.get(c as usize).map(|&loc| unpack(loc)).filter(|&(d, slot)| slot == s && before.get(d) == Some(&c)).map(|(d, _)| d);
    let wide = before.len() > 64;
    let mut seen = 0u64;
    // Note disk `d` as found; whether it was not yet (`d` < `before.len()`, so below 64
    // on a row kept in the bit set).
    let mut first_find = |d: usize| {
        if wide {
            std::mem::replace(&mut marks[d], 1) == 0
        } else {
            let new = seen >> d & 1 == 0;
            seen |= 1 << d;
            new
        }
    };
    let mut quick = true;
    let mut found = 0;
    for &c in after.iter().filter(|&&c| is_rb(c)) {
        match place(c) {
            Some(d) if first_find(d) => found += 1,
            _ => {
                quick = false;
                break;
            }
        }
    }
    if wide {
        // (Every marked disk holds one of `after`'s first `found` RBs.)
        for &c in after.iter().filter(|&&c| is_rb(c)).take(found) {
            marks[unpack(fwd[c as usize]).0] = 0;
        }
    }
    // (With no RB missed, `found` counts `after`'s RBs.)
    let quick = quick && found == in_before;
    if quick {
        return true;
    }
    let n = before.len().max(after.len());
    let mut b: Vec<u32> = before.iter().copied().filter(|&c| is_rb(c)).collect_within(n);
    let mut a: Vec<u32> = after.iter().copied().filter(|&c| is_rb(c)).collect_within(n);
    b.sort_unstable();
    a.sort_unstable();
    a == b
}

/// `collect` into a vector allocated once for at most `bound` items (a filtered
/// iterator's `collect` starts from an empty vector and reallocates as it grows): a
/// reorganisation step gathers a few dozen small lists for every stripe.
trait CollectWithin: Iterator + Sized {
    fn collect_within(self, bound: usize) -> Vec<Self::Item> {
        let mut v = Vec::with_capacity(bound);
        v.extend(self);
        v
    }
}

impl<I: Iterator> CollectWithin for I {}

/// Sorts `v` by `key`, stably, by insertion: for the few dozen items of a stripe's lists,
/// quicker than the library's sorts, and the same order as any stable sort.
fn insertion_sort_by_key<T: Copy, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    for i in 1..v.len() {
        let x = v[i];
        let kx = key(&x);
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > kx {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// `t`'s bits as an integer that orders as [`f32::total_cmp`] orders the values.
fn total_order_bits(t: f32) -> u32 {
    let b = t.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

impl Layout {
    /// Plans the reorganisation to the tier-size vector `target` (fastest tier first;
    /// zeros allowed; see [`validate_tier_sizes`]) with the join shuffle `kind` and RNG
    /// `seed`, and marks it as running. Disk choice: per tier `min(old, new)` disks stay;
    /// surplus disks are matched to deficit tiers in tier order (the i-th surplus disk
    /// goes to the i-th deficit place, which minimises the summed tier distance); of a
    /// tier's leaving disks those bound for hotter tiers are its hottest disks (summed RB
    /// temperature) and those bound for colder tiers its coldest. When no disk changes
    /// tier the plan has no steps and nothing is marked as running.
    pub fn plan_reorg(&mut self, target: &[u32], kind: Shuffle, seed: u64) -> Result<ReorgPlan> {
        self.ensure_nothing_running()?;
        let t_new = validate_tier_sizes(target, self.cfg.n_disks)?;
        let data_slots = self.cfg.n_disks - t_new;
        if self.stripe_rbs > data_slots {
            return Err(LayoutError::StripeCapacity {
                sizes: target.to_vec(),
                n_disks: self.cfg.n_disks,
                data_slots,
                stripe_rbs: self.stripe_rbs,
            });
        }
        let n = self.n;
        let len = target.len().max(self.tiers.len());
        if len != self.tiers.len() {
            self.tiers.resize(len, Vec::new());
            self.rebuild_parity_table();
        }
        self.by_temp.resize_with(len, TempOrder::default);
        let old_sizes: Vec<usize> = self.tiers.iter().map(Vec::len).collect();
        let new_sizes: Vec<usize> = (0..len)
            .map(|t| target.get(t).map_or(0, |&x| x as usize))
            .collect();
        let mut surplus = Vec::new();
        let mut deficit = Vec::new();
        for t in 0..len {
            surplus.extend(std::iter::repeat_n(
                t,
                old_sizes[t].saturating_sub(new_sizes[t]),
            ));
            deficit.extend(std::iter::repeat_n(
                t,
                new_sizes[t].saturating_sub(old_sizes[t]),
            ));
        }
        let mut dests: Vec<Vec<usize>> = vec![Vec::new(); len];
        for (&a, &b) in surplus.iter().zip(&deficit) {
            dests[a].push(b);
        }
        let dtemp = self.disk_temperatures();
        let mut new_tier_of = self.tier_of.clone();
        for (a, ds) in dests.iter().enumerate() {
            if ds.is_empty() {
                continue;
            }
            let mut disks = self.tiers[a].clone();
            disks.sort_by(|&x, &y| {
                dtemp[y as usize]
                    .total_cmp(&dtemp[x as usize])
                    .then(x.cmp(&y))
            });
            let hotter: Vec<usize> = ds.iter().copied().filter(|&b| b < a).collect();
            let mut colder: Vec<usize> = ds.iter().copied().filter(|&b| b > a).collect();
            colder.sort_unstable_by(|x, y| y.cmp(x));
            for (i, &b) in hotter.iter().enumerate() {
                new_tier_of[disks[i] as usize] = b as u32;
            }
            for (i, &b) in colder.iter().enumerate() {
                new_tier_of[disks[disks.len() - 1 - i] as usize] = b as u32;
            }
        }
        let mut new_tiers: Vec<Vec<u32>> = vec![Vec::new(); len];
        for (d, &t) in new_tier_of.iter().enumerate() {
            new_tiers[t as usize].push(d as u32);
        }
        let disk_moves: Vec<DiskMove> = (0..n)
            .filter(|&d| new_tier_of[d] != self.tier_of[d])
            .map(|d| DiskMove {
                disk: d as u32,
                from_tier: self.tier_of[d],
                to_tier: new_tier_of[d],
            })
            .collect();
        let id = new_plan_id();
        let mut base = vec![Vec::new(); len];
        let mut base_source = vec![None; len];
        let mut changed = vec![false; len];
        for (b, members) in new_tiers.iter().enumerate() {
            if members.is_empty() {
                continue;
            }
            changed[b] = !self.tiers.iter().any(|o| o == members);
            let stayers: Vec<u32> = members
                .iter()
                .copied()
                .filter(|&d| self.tier_of[d as usize] == b as u32)
                .collect();
            if !stayers.is_empty() {
                base[b] = stayers;
                continue;
            }
            let mut count = vec![0usize; len];
            for &d in members {
                count[self.tier_of[d as usize] as usize] += 1;
            }
            let src = (0..len)
                .max_by_key(|&a| (count[a], std::cmp::Reverse(a)))
                .unwrap_or(0);
            base[b] = members
                .iter()
                .copied()
                .filter(|&d| self.tier_of[d as usize] == src as u32)
                .collect();
            base_source[b] = Some(src as u32);
        }
        let bins_of = self.tiers.iter().enumerate().map(|(a, members)| TierBins::new(a as u32, members, &new_tier_of)).collect();
        let slots = if disk_moves.is_empty() {
            0
        } else {
            self.reorg = Some(ActiveReorg {
                id,
                new_tier_of: new_tier_of.clone(),
                new_tiers: new_tiers.clone(),
                next_slot: 0,
            });
            self.cfg.slots_per_disk
        };
        Ok(ReorgPlan {
            id,
            kind,
            seed,
            slots,
            next_slot: 0,
            new_tier_of,
            old_tiers: self.tiers.clone(),
            new_tiers,
            base,
            base_source,
            changed,
            disk_moves,
            bins_of,
            totals: PlanTotals::default(),
            work: StepWork::default(),
        })
    }

    /// Whether a reorganisation is running, and how many stripes it has applied.
    pub fn reorg_progress(&self) -> Option<(u32, u32)> {
        self.reorg
            .as_ref()
            .map(|r| (r.next_slot, self.cfg.slots_per_disk))
    }

    /// Records that `step` is durable: updates both maps. Steps must come from the
    /// running plan, in order. After the last step the target tiers become the layout's
    /// tiers and the per-tier temperature order is rebuilt (O(N + W log W), instead of moving
    /// every RB of every migrated disk between ordered sets step by step).
    pub fn apply_step(&mut self, step: &ReorgStep) -> Result<()> {
        let Some(r) = self.reorg.take() else {
            return Err(LayoutError::NoReorgInProgress);
        };
        let res = self.apply_inner(&r, step);
        let mut r = r;
        if res.is_ok() {
            r.next_slot += 1;
            if r.next_slot >= self.cfg.slots_per_disk {
                self.tier_of = r.new_tier_of;
                self.tiers = r.new_tiers;
                self.update_parity_row(step.slot as usize);
                self.rebuild_temperature_order();
                return Ok(());
            }
        }
        self.reorg = Some(r);
        if res.is_ok() {
            self.update_parity_row(step.slot as usize);
        }
        res
    }

    fn apply_inner(&mut self, r: &ActiveReorg, step: &ReorgStep) -> Result<()> {
        if step.plan_id != r.id {
            return Err(LayoutError::PlanMismatch {
                got: step.plan_id,
                expected: r.id,
            });
        }
        if step.slot != r.next_slot {
            return Err(LayoutError::StepOutOfOrder {
                got: step.slot,
                expected: r.next_slot,
            });
        }
        let n = self.n;
        let s = step.slot as usize;
        if step.fin.len() != n {
            return Err(LayoutError::Corrupt(
                "step width differs from the array".into(),
            ));
        }
        let row = &self.inv[s * n..(s + 1) * n];
        // (`same_rbs` needs marks only on rows wider than 64 disks.)
        let mut marks = if n > 64 { vec![0u8; n] } else { Vec::new() };
        if !same_rbs(row, &step.fin, &self.fwd, s, &mut marks) {
            return Err(LayoutError::Corrupt(format!(
                "stripe {s} changed since its step was planned"
            )));
        }
        for (d, &c) in step.fin.iter().enumerate() {
            if is_rb(c) {
                self.fwd[c as usize] = pack(d, s);
            }
        }
        self.inv[s * n..(s + 1) * n].copy_from_slice(&step.fin);
        Ok(())
    }

    /// Plans and applies a whole reorganisation at once; returns its totals.
    pub fn run_reorg(&mut self, target: &[u32], kind: Shuffle, seed: u64) -> Result<PlanTotals> {
        let mut plan = self.plan_reorg(target, kind, seed)?;
        while let Some(step) = plan.next_step(self)? {
            self.apply_step(&step)?;
        }
        Ok(plan.totals())
    }
}

#[cfg(test)]
mod tests {
    use super::{insertion_sort_by_key, same_rbs, total_order_bits};
    use crate::layout::{is_rb, pack, FREE, PARITY};
    use proptest::prelude::*;

    proptest! {
        /// The quick test of `same_rbs` gives the answer of comparing the rows' sorted
        /// RBs, on rows narrower and wider than 64 disks, whether the RB map describes
        /// `before` or not (a stale entry), and leaves the marks all 0.
        #[test]
        fn same_rbs_is_comparing_the_sorted_rbs(
            wide in any::<bool>(),
            kinds in prop::collection::vec(0u8..5, 70),
            shuffle in prop::collection::vec(any::<prop::sample::Index>(), 70),
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0u8..4), 0..3),
            stale in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<bool>()), 0..2),
        ) {
            let n = if wide { 70 } else { 24 };
            let s = 5;
            // Each disk a free slot, parity or an RB of its own (3d + 1).
            let before: Vec<u32> = (0..n).map(|d| match kinds[d] { 0 => FREE, 1 => PARITY, _ => 3 * d as u32 + 1 }).collect();
            let mut fwd = vec![pack(0, 0); 256];
            for (d, &c) in before.iter().enumerate() {
                if is_rb(c) {
                    fwd[c as usize] = pack(d, s);
                }
            }
            for &(at, to, other_stripe) in &stale {
                let c = before[at.index(n)];
                if is_rb(c) {
                    fwd[c as usize] = if other_stripe { pack(at.index(n), s + 1) } else { pack(to.index(n), s) };
                }
            }
            let mut after = before.clone();
            for (i, j) in shuffle[..n].iter().enumerate() {
                after.swap(i, j.index(n));
            }
            // An edit writes a free slot, parity, another disk's block (an RB twice, or
            // one lost) or an RB from nowhere.
            for &(at, from, kind) in &edits {
                after[at.index(n)] = match kind { 0 => FREE, 1 => PARITY, 2 => before[from.index(n)], _ => 250 };
            }
            let sorted = |row: &[u32]| { let mut v: Vec<u32> = row.iter().copied().filter(|&c| is_rb(c)).collect(); v.sort_unstable(); v };
            let mut marks = vec![0u8; n];
            prop_assert_eq!(same_rbs(&before, &after, &fwd, s, &mut marks), sorted(&before) == sorted(&after));
            prop_assert!(marks.iter().all(|&m| m == 0));
        }

        /// The insertion sort gives the library's stable sort's order, equal keys (few
        /// distinct keys here, so many ties) in their first order.
        #[test]
        fn insertion_sort_is_the_stable_sort(v in prop::collection::vec((0u8..6, any::<u32>()), 0..60)) {
            let mut mine = v.clone();
            insertion_sort_by_key(&mut mine, |&(k, _)| k);
            let mut theirs = v;
            theirs.sort_by_key(|&(k, _)| k);
            prop_assert_eq!(mine, theirs);
        }

        /// The integer key orders any two values (signed zeros, infinities and NaNs too)
        /// as `f32::total_cmp` does.
        #[test]
        fn total_order_bits_orders_as_total_cmp(a in any::<u32>(), b in any::<u32>(), pick in 0usize..16) {
            let special = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN, 1.0, f32::MIN_POSITIVE];
            let (x, y) = (f32::from_bits(a), if pick < 8 { special[pick] } else { f32::from_bits(b) });
            prop_assert_eq!(total_order_bits(x).cmp(&total_order_bits(y)), x.total_cmp(&y));
            prop_assert_eq!(total_order_bits(y).cmp(&total_order_bits(x)), y.total_cmp(&x));
        }
    }
}
