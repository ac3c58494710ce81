use thiserror::Error;

/// Everything that can go wrong when building, querying or changing a [`crate::Layout`].
/// Every variant names what was expected; no public function panics on bad input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LayoutError {
    /// A configuration field is outside its domain.
    #[error("invalid layout configuration: {0}")]
    Config(String),

    /// The requested RBs do not fit the array.
    #[error(
        "{n_rbs} RBs do not fit: {n_disks} disks x {slots_per_disk} slots with room kept for \
         the parity of {max_tiers} tiers hold at most {capacity} RBs"
    )]
    DoesNotFit {
        n_rbs: u64,
        n_disks: u32,
        slots_per_disk: u32,
        max_tiers: u32,
        capacity: u64,
    },

    #[error("RB {rb} is out of range: the layout holds {n_rbs} RBs (0..{n_rbs})")]
    RbOutOfRange { rb: u64, n_rbs: u64 },

    #[error("disk {disk} is out of range: the array has {n_disks} disks (0..{n_disks})")]
    DiskOutOfRange { disk: u32, n_disks: u32 },

    #[error(
        "slot {slot} is out of range: each disk has {slots_per_disk} slots (0..{slots_per_disk})"
    )]
    SlotOutOfRange { slot: u32, slots_per_disk: u32 },

    #[error("tier {tier} is out of range: the layout has {tiers} tiers (0..{tiers})")]
    TierOutOfRange { tier: u32, tiers: u32 },

    /// A tier-size vector is unusable (wrong total, a one-disk tier, no tier at all).
    #[error("invalid tier sizes {sizes:?}: {reason}")]
    BadTierSizes { sizes: Vec<u32>, reason: String },

    /// Some stripe holds more RBs than the target tiering has data slots per stripe.
    #[error(
        "tier sizes {sizes:?} leave {data_slots} data slots per stripe ({n_disks} disks minus one \
         parity per non-empty tier), but stripes of this layout hold up to {stripe_rbs} RBs"
    )]
    StripeCapacity {
        sizes: Vec<u32>,
        n_disks: u32,
        data_slots: u32,
        stripe_rbs: u32,
    },

    #[error("time {0} s is not a finite number of seconds")]
    BadTime(f64),

    #[error("temperature {0} is not a finite number >= 0 accesses/s")]
    BadTemperature(f64),

    #[error("hysteresis h = {0} is not a finite number >= 0")]
    BadHysteresis(f64),

    #[error("fill factor {0} is not in (0, 1]")]
    BadFillFactor(f64),

    #[error("decay factor {0} is not in (0, 1]")]
    BadDecay(f64),

    /// `next_swap` or `plan_reorg` while a small-scale migration awaits `commit_swap`.
    #[error("a small-scale migration is in flight: commit_swap or abort_swap it first")]
    MigrationInFlight,

    #[error("no small-scale migration is in flight")]
    NoMigrationInFlight,

    #[error("this migration is not the one in flight ({in_flight})")]
    MigrationMismatch { in_flight: String },

    /// Small-scale migration and new plans wait until the running reorganisation is applied.
    #[error("a large-scale reorganisation is in progress: {applied} of {slots} stripes applied")]
    ReorgInProgress { applied: u32, slots: u32 },

    #[error("no large-scale reorganisation is in progress")]
    NoReorgInProgress,

    #[error("the step or plan belongs to reorganisation {got}, the layout runs reorganisation {expected}")]
    PlanMismatch { got: u64, expected: u64 },

    #[error("step for stripe {got} applied out of order: stripe {expected} is next")]
    StepOutOfOrder { got: u32, expected: u32 },

    /// An internal consistency check failed (a bug, or a step applied to a changed layout).
    #[error("layout invariant violated: {0}")]
    Corrupt(String),
}

pub type Result<T, E = LayoutError> = std::result::Result<T, E>;
