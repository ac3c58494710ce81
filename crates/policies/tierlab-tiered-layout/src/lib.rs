//! Hibernator's multi-tier disk-array layout (Zhu et al., SOSP 2005, §3.2): relocation
//! blocks, per-tier RAID-5 stripes, the RB map, block temperature, small-scale migration
//! between tiers, and the shuffling plans (randomized, permutational, sorted) that move
//! whole disks between tiers.
//!
//! The crate is data structures and planning only: it has no clock and does no I/O. A
//! simulator's executor drives it:
//!
//! 1. [`Layout::locate`] (and [`Layout::parity_of`], [`Layout::byte_offset`]) to route
//!    requests to a disk and slot;
//! 2. [`Layout::record_access`] with the executor's timestamp on every access;
//! 3. once per epoch [`Layout::temperature_snapshot`], whose
//!    [`TemperatureSnapshot::predict`] the speed planner calls for each candidate
//!    tier-size vector;
//! 4. when the tier sizes change, [`Layout::plan_reorg`], then repeatedly
//!    [`ReorgPlan::next_step`], the step's I/O, and [`Layout::apply_step`] once the step
//!    is durable;
//! 5. when the disks are idle, [`Layout::next_swap`], the migration's I/O, and
//!    [`Layout::commit_swap`] once it is durable.
//!
//! # Model
//!
//! * The array has `n_disks` disks of `slots_per_disk` RB slots of `rb_bytes` each (default
//!   256 KiB). Slot `s` starts at byte `s · rb_bytes` of its disk.
//! * A tier is a set of disks. Tier 0 is the fastest; speeds are the caller's business.
//!   Stripe `s` of a tier is slot `s` of each of its disks; exactly one of those slots holds
//!   the stripe's parity (one parity per stripe per tier, RAID-5), the others hold RBs or
//!   are free. The stripe unit is one RB.
//! * Initially all disks form tier 0 with left-symmetric parity (stripe `s` has its parity
//!   on disk `n − 1 − s mod n`, data positions follow it cyclically) and the RBs are placed
//!   in stripe order.
//! * Maps: forward RB → (disk, slot) packed in a `u64` (8 bytes per RB, as the paper's
//!   320 MB for 10 TB of 256 KB RBs; [`Layout::forward_map_bytes_for`]); inverse
//!   (disk, slot) → RB id, parity or free in a `u32` (4 bytes per slot);
//!   [`Layout::map_bytes`] reports both.
//! * Temperature memory per RB: 4 bytes of temperature (`f32`), 8 bytes of window start
//!   time (`f64`), 1 byte of access counter and flag, plus one 8-byte key in its tier's
//!   ordered set (a B-tree: roughly 10–16 bytes per key including node overhead).
//!
//! # Decisions where the paper is silent
//!
//! * **Capacity reserve.** Every operation keeps an RB in its stripe index (reorganisation
//!   steps permute one stripe index; swaps exchange two RBs; moves into free slots stay in
//!   the stripe index), so the number of RBs per stripe index never changes. Splitting a
//!   stripe into `T` tiers needs `T` parity slots, so a stripe may hold at most
//!   `n_disks − T` RBs. The configuration names `max_tiers` (default 2, a two-speed
//!   disk); capacity is `(n_disks − max_tiers) · slots_per_disk` RBs, and [`Layout::new`]
//!   (through [`LayoutConfig::validate`]) rejects more with [`LayoutError::DoesNotFit`].
//!   The RBs are spread evenly: each stripe holds `c = ⌈n_rbs / slots⌉` RBs (the last
//!   ones fewer), RB `i` at data position `i mod c` of stripe `i div c`, so every stripe
//!   keeps the same slack. [`Layout::plan_reorg`] rejects a target whose non-empty tier
//!   count leaves fewer than `c` data slots per stripe ([`LayoutError::StripeCapacity`]).
//! * **One-disk tiers.** A tier has 0 or at least 2 disks (a one-disk tier has no room for
//!   a parity slot and would lose data with its disk; the paper keeps RAID-5 reliability).
//!   [`validate_tier_sizes`] rejects size 1; [`merge_single_disk_tiers`] folds such a disk
//!   into the nearest faster non-empty tier for a planner that produces one.
//! * **Temperature.** `T_last` is the time from the end of the previous k-access window
//!   (its k-th access) to the k-th access of this one, so consecutive windows tile time;
//!   the first window starts at the RB's first access, and its value `k / T_last` is the
//!   first temperature. Until then the temperature is 0. `T_last` is at least
//!   `min_span_s` (default 1 µs), which also covers timestamps that go backwards. No decay
//!   by default; [`TemperatureParams::epoch_decay`] with [`Layout::epoch_boundary`] (or
//!   [`Layout::decay_temperatures`]) multiplies all temperatures by a factor. k is 2..=127.
//! * **Tier-load prediction.** Every non-empty tier but the slowest gets a quota of
//!   `⌊f · (n_t − 1) · slots⌋` RBs, the slowest its physical capacity `(n_t − 1) · slots`;
//!   if that is not enough for all RBs (only with `f < 1`), the faster tiers' quotas grow
//!   up to their physical capacity, slowest first (the array is full and the data has to
//!   live somewhere). RBs sorted hottest first then fill tier 0 to its quota, then tier 1,
//!   and so on. A tier's load is the summed temperature of its RBs (accesses/s); write
//!   parity fan-out and per-disk division are the caller's. [`Layout::fill_factor`] gives
//!   `n_rbs / ((n − 1) · slots)` as a default `f`.
//! * **Small-scale migration.** [`Layout::next_swap`]`(h)`: for each pair of adjacent
//!   non-empty tiers, the hottest RB of the slower tier is promoted when its temperature
//!   exceeds `(1 + h)` times the coldest RB of the faster tier (0 if that tier holds no
//!   RB): into a free slot of the faster tier in the same stripe index if one exists (one
//!   read, one write), else by swapping with that coldest RB. The pair with the largest
//!   margin wins. Equal temperatures never migrate, so with `h ≥ 0` repeated calls end. One
//!   migration is in flight at a time, and none while a reorganisation runs; per-tier
//!   ordered sets keyed by (temperature, RB) give the hottest and coldest RB (the RBs
//!   without temperature as a bit set in RB order, those with one in a B-tree, O(log W)
//!   for W of them), updated whenever a temperature changes (every k accesses) or a
//!   migration commits, and rebuilt once (O(N + W log W)) when a reorganisation ends.
//! * **Which disks move.** Per tier `min(old, new)` disks stay (disks already in the right
//!   tier first). Surplus disks are matched to deficit tiers in tier order, which minimises
//!   the summed distance moved. A tier's disks bound for hotter tiers are its hottest
//!   disks by summed RB temperature (the hottest destination gets the hottest disk); those
//!   bound for colder tiers are its coldest (the coldest destination gets the coldest).
//!   Hottest disks going up and coldest going down tend to need the fewest concentration
//!   moves.
//! * **Pre-migration concentration** (per stripe of a tier that loses disks). The disks
//!   leaving for one destination tier form a group of `k` disks that takes `k` blocks of
//!   the old stripe: for a hotter destination the `k` hottest RBs, for a colder one the
//!   `k` coldest (ties: blocks already on the group's disks, then lower disk), then free
//!   slots if RBs run out. Hotter destinations choose first (hottest destination first),
//!   then colder ones (coldest first). The staying disks keep the parity and the rest, so
//!   a leaving disk never holds parity. Blocks already on a right disk stay; the others
//!   fill the vacated slots in random order. Parity displaced from a leaving disk goes to
//!   a uniformly random staying disk (whose RB, if it was staying, takes a vacated slot:
//!   at most one extra copy per stripe), which keeps parity balanced over the staying
//!   disks; restricting it to vacated slots would inherit structure of the old layout
//!   (e.g. the initial free slot next to the parity) and skew it. When every disk leaves,
//!   the parity slot becomes free. One RB per leaving disk per stripe ("the hottest
//!   blocks of each stripe" read as `m` blocks for `m` disks).
//! * **Tiers built from scratch** (no disk stays): the shuffle's "old" disks are the
//!   largest group coming from one old tier (ties: the faster source). That group takes
//!   one free slot (if its stripe has one) in place of its last RB. The tier's parity
//!   goes to a former parity slot among its disks (a tier moved as a whole keeps its
//!   parity), else to a uniformly random disk of the tier, whose RB (if any) moves to a
//!   random free slot of the tier. If none is free, the tier's coldest RB (its hottest,
//!   if the nearest tier with a free slot is hotter) moves to a random free slot of the
//!   nearest tier that has one (ties: the colder) and the parity takes its place
//!   ([`StepStats::evictions`]). A tier moved as a whole keeps its blocks and parity in
//!   place.
//! * **Join shuffle** in each tier that gains disks; the staying disks are the "old" ones.
//!   RS, PS and SS as documented on [`Shuffle`]. RS draws a joining disk's partner among
//!   the positions not yet settled by an earlier joining disk of the same stripe (its own
//!   position included). With independent draws over all `W` positions the first joining
//!   disk would end up with parity in `(W − 1)/W²` of the stripes instead of `1/W` (0.16
//!   vs 0.2 for `W = 5`, `m = 2`); with the settled-position rule every block, parity
//!   included, ends on each disk of the tier with probability exactly `1/W` when the old
//!   disks' blocks are evenly spread. Its expected shuffle moves are `m(2W − 1 − m)/W`,
//!   the least any rule with that property can have, equal to the paper's
//!   `2m(1 − 1/W)` for `m = 1` and below it by `m(m − 1)/W` otherwise ("a bit less than
//!   2m"). PS is the Fig. 4(b) reading: joining disk `k` exchanges with old disk
//!   `(s + k) mod W_old`. SS ranks parity first, then RBs hottest first, then free slots,
//!   and rotates the ranking by `s`.
//! * **Coalescing.** Concentration, parity placement, eviction and shuffle are composed on
//!   a per-stripe working copy; the step lists only each RB's original and final slot, so
//!   no RB moves twice. Moves of free slots cost nothing; a parity relocation is not a
//!   copy but a [`ParityWrite`].
//! * **Parity.** Every stripe of a target tier whose disk set differs from every old
//!   tier's gets a parity write, as does any other target tier stripe whose contents
//!   changed (an eviction into it).
//! * **Plan as a stream.** A step covers one stripe index across all tiers, so memory is
//!   O(n_disks) per step. Step `s` uses its own RNG stream (`ChaCha8` seeded with the plan
//!   seed, stream `s`): a plan is deterministic whatever the production order. Steps must
//!   be applied in order; `apply_step` checks the plan id, the order and that the stripe
//!   still holds the same RBs. While a plan runs, [`Layout::tier_at`] gives the tier of
//!   one stripe (new for applied stripes), [`Layout::tier_of_disk`] and
//!   [`Layout::tier_disks`] the tiers before the plan, and [`Layout::locate`] and
//!   [`Layout::parity_of`] are always exact. A running plan cannot be cancelled.
//!
//! Every input is validated: out-of-range RBs, disks, slots and tiers, bad sizes, times,
//! temperatures and factors return a [`LayoutError`] saying what was expected.

mod config;
mod error;
mod layout;
mod reorg;
mod temp_order;
mod temperature;
mod tiers;

pub use config::{
    LayoutConfig, TemperatureParams, DEFAULT_K, DEFAULT_MAX_TIERS, DEFAULT_RB_BYTES, DEFAULT_XI,
    MAX_K, MAX_RBS,
};
pub use error::{LayoutError, Result};
pub use layout::{Layout, Location, MapBytes, Migration, SlotContent};
pub use reorg::{
    BlockMove, DiskMove, ParityWrite, PlanTotals, ReorgPlan, ReorgStep, Shuffle, StepStats,
};
pub use temperature::{TemperatureSnapshot, TierLoad};
pub use tiers::{merge_single_disk_tiers, validate_tier_sizes};
