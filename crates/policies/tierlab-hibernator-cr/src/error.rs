//! The one error type of the crate.

/// Why a plan could not be computed. Every variant names the offending input and what was
/// expected of it; nothing in this crate panics on bad input, it returns one of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// A field of [`EpochParams`](crate::EpochParams) is out of range.
    #[error("epoch parameter `{field}` is {value}; expected {expected}")]
    InvalidParam {
        /// Field name, e.g. `"r_limit_s"`.
        field: &'static str,
        /// The value given.
        value: f64,
        /// What the field must be.
        expected: &'static str,
    },

    /// The epoch cannot contain a whole speed transition.
    #[error(
        "epoch parameter `epoch_s` is {epoch_s} s but `transition_s` is {transition_s} s; \
         expected an epoch strictly longer than one speed transition"
    )]
    EpochShorterThanTransition {
        /// The epoch length given.
        epoch_s: f64,
        /// The transition time given.
        transition_s: f64,
    },

    /// A per-disk field of a [`DiskForecast`](crate::DiskForecast) is out of range.
    #[error("disk {disk}: `{field}` is {value}; expected {expected}")]
    InvalidDisk {
        /// Index of the disk in the input slice.
        disk: usize,
        /// Field name.
        field: &'static str,
        /// The value given.
        value: f64,
        /// What the field must be.
        expected: &'static str,
    },

    /// A field of one of a disk's [`SpeedOption`](crate::SpeedOption)s is out of range.
    #[error("disk {disk}, speed option {option}: `{field}` is {value}; expected {expected}")]
    InvalidOption {
        /// Index of the disk in the input slice.
        disk: usize,
        /// Index of the option in the disk's `options`.
        option: usize,
        /// Field name.
        field: &'static str,
        /// The value given.
        value: f64,
        /// What the field must be.
        expected: &'static str,
    },

    /// A disk offers no speed at all.
    #[error("disk {disk}: `options` is empty; expected at least one speed level")]
    NoOptions {
        /// Index of the disk.
        disk: usize,
    },

    /// More speed levels than the solver supports.
    #[error("disk {disk}: {levels} speed levels; expected at most {max}")]
    TooManyLevels {
        /// Index of the disk.
        disk: usize,
        /// Number of levels given.
        levels: usize,
        /// The supported maximum.
        max: usize,
    },

    /// Disks offer different numbers of speed levels.
    #[error(
        "disk {disk}: {found} speed options but disk 0 has {expected}; \
         expected every disk of the array to offer the same speed levels"
    )]
    OptionCountMismatch {
        /// Index of the first disk that differs from disk 0.
        disk: usize,
        /// Number of options of disk 0.
        expected: usize,
        /// Number of options of this disk.
        found: usize,
    },

    /// An option's `level` is not its position in the list.
    #[error("disk {disk}: option at index {index} has `level` {level}; expected `level` == {index} (options are listed slowest first, level = index)")]
    LevelIndexMismatch {
        /// Index of the disk (for tier forecasts: the tier).
        disk: usize,
        /// Position in the list.
        index: usize,
        /// The `level` given.
        level: usize,
    },

    /// Options are not listed slowest first.
    #[error("disk {disk}: option {index} has rpm {rpm} but option {} has rpm {previous}; expected strictly increasing rpm (slowest first)", .index - 1)]
    RpmNotIncreasing {
        /// Index of the disk (for tier forecasts: the tier).
        disk: usize,
        /// Position of the offending option (≥ 1).
        index: usize,
        /// Its rpm.
        rpm: u32,
        /// The rpm of the option before it.
        previous: u32,
    },

    /// A disk's current level does not exist.
    #[error("disk {disk}: `current_level` is {current}; expected a level below {levels}")]
    CurrentLevelOutOfRange {
        /// Index of the disk.
        disk: usize,
        /// The `current_level` given.
        current: usize,
        /// Number of levels the disk has.
        levels: usize,
    },

    /// [`plan_tiers`](crate::plan_tiers) was given no speed levels.
    #[error("`current_sizes` is empty; expected one entry per speed level (at least one)")]
    NoTiers,

    /// [`plan_tiers`](crate::plan_tiers): the current tier sizes do not add up to the array.
    #[error("`current_sizes` add up to {sum} disks; expected n_disks = {n_disks}")]
    TierSizesMismatch {
        /// Number of disks in the array.
        n_disks: usize,
        /// Sum of `current_sizes`.
        sum: usize,
    },

    /// [`plan_tiers`](crate::plan_tiers): too many tier-size vectors to enumerate.
    #[error(
        "{n_disks} disks over {levels} speed levels give more than {max} tier-size vectors; \
         expected at most {max}"
    )]
    TooManyCompositions {
        /// Number of disks.
        n_disks: usize,
        /// Number of speed levels.
        levels: usize,
        /// The enumeration limit.
        max: usize,
    },

    /// [`plan_tiers`](crate::plan_tiers): the predictor returned the wrong number of tiers.
    #[error("predictor returned {found} tier forecasts for sizes {sizes:?}; expected {expected} (one per speed level)")]
    ForecastCountMismatch {
        /// The candidate tier sizes passed to the predictor.
        sizes: Vec<usize>,
        /// Number of speed levels.
        expected: usize,
        /// Number of forecasts returned.
        found: usize,
    },

    /// [`plan_tiers`](crate::plan_tiers): a forecast for a non-empty tier is out of range.
    #[error(
        "predictor, tier {tier} for sizes {sizes:?}: `{field}` is {value}; expected {expected}"
    )]
    InvalidTierForecast {
        /// The candidate tier sizes passed to the predictor.
        sizes: Vec<usize>,
        /// The tier (speed level).
        tier: usize,
        /// Field name.
        field: &'static str,
        /// The value given.
        value: f64,
        /// What the field must be.
        expected: &'static str,
    },

    /// [`evaluate_level`](crate::evaluate_level) was asked for a level the disk does not have.
    #[error("level {level} requested; expected a level below {levels}")]
    LevelOutOfRange {
        /// The level requested.
        level: usize,
        /// Number of levels of the disk.
        levels: usize,
    },
}
