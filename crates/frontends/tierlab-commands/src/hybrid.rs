//! The design (`--mode` and the knobs `compare` sweeps) and the hybrid drive's other
//! options: an SSD and an HDD combined by a policy (GreenDM tiering or caching,
//! HybridStore's MixDyn or static 4 KiB split, or a linear baseline). Building and
//! running the drive is `tierlab_hybrid_study`'s.

use clap::Args;
use tierlab_cache::Algorithm;
use tierlab_devices::{SsdTiming, SsdWriteBuffer};
use tierlab_hybrid_study::{HybridParams, Mode};
use tierlab_hybrid_policy::WritePolicy;
use tierlab_types::MIB;

/// The design: which drive, and the knobs `compare` sweeps. `simulate` takes one value
/// of each; `compare` takes lists under the same names, and reports name them so too
/// (`mode`, `ssd_fraction`, `extent_bytes`, `pt`, `mcml`).
#[derive(Args, Clone, Debug, PartialEq)]
pub struct DesignArgs {
    /// Run this drive design instead of the HDD (--device) alone: a hybrid built from an
    /// SSD and the HDD, or one of the two alone.
    #[arg(long, alias = "hybrid", value_enum)]
    pub mode: Option<Mode>,
    #[command(flatten)]
    pub knobs: KnobArgs,
}

/// The knobs of a design that `compare` sweeps (`overview` takes one value of each for
/// its tiering and caching designs).
#[derive(Args, Clone, Debug, PartialEq)]
pub struct KnobArgs {
    /// The SSD's share of the drive's capacity (tiering, linear), or the cache's size as a
    /// share of the capacity (caching).
    #[arg(long, default_value_t = 0.25)]
    pub ssd_fraction: f64,
    /// Extent size ES in bytes (a multiple of 4 KiB, at most 1 MiB).
    #[arg(long, alias = "es", value_name = "BYTES", default_value_t = MIB)]
    pub extent_bytes: u64,
    /// Promotion (tiering) or pre-fetch (caching) threshold PT.
    #[arg(long, default_value_t = 2)]
    pub pt: u32,
    /// Maximum concurrent migrations MCML.
    #[arg(long, default_value_t = 4)]
    pub mcml: u32,
}

impl Default for DesignArgs {
    /// The HDD alone, with the library's default knobs.
    fn default() -> Self {
        let p = HybridParams::default();
        DesignArgs { mode: None, knobs: KnobArgs { ssd_fraction: p.ssd_fraction, extent_bytes: p.es, pt: p.pt, mcml: p.mcml } }
    }
}

/// The hybrid drive's other knobs: its SSD, capacity, thresholds and policies.
#[derive(Args, Clone, Debug)]
pub struct HybridArgs {
    /// The SSD, from the SSD catalog (catalog/ssd).
    #[arg(long, value_name = "ID", default_value = "intel-320-300gb")]
    pub ssd: String,
    /// How the SSD is timed: from its internals (NAND, FTL, garbage collection), or from
    /// its data sheet (latency, bandwidth, IOPS; the catalog entry needs a [datasheet]).
    #[arg(long, value_enum, default_value = "internals")]
    pub ssd_timing: SsdTiming,
    /// The SSD's write buffer, timed from its internals: `on` (as its catalog entry gives
    /// it; none where it gives none), `off` (every write waits for its NAND program, as in
    /// FlashSim), or a size in bytes with the entry's other buffer figures.
    #[arg(long, value_name = "on|off|BYTES", default_value = "on")]
    pub ssd_write_buffer: SsdWriteBuffer,
    /// Capacity the hybrid drive exposes. Default: the workload's span, or the highest
    /// address the trace uses (its volumes laid end to end).
    #[arg(long, value_name = "BYTES")]
    pub capacity_bytes: Option<u64>,
    /// Pack the extents a trace touches densely (in address order) instead of laying its
    /// volumes end to end: for traces of large, sparsely used volumes.
    #[arg(long)]
    pub compact: bool,
    /// Time window TW in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub tw_s: f64,
    /// Tiering: demotion starts at this many free SSD extents (LT) (default: HT/2 with HT
    /// set, else GreenDM's 64, scaled down on an SSD under 512 extents).
    #[arg(long)]
    pub lt: Option<u32>,
    /// Tiering: demotion stops at this many free SSD extents (HT) (default: GreenDM's 128
    /// while that is at most a quarter of the SSD's extents, else a quarter of them).
    #[arg(long)]
    pub ht: Option<u32>,
    /// Caching: write-back, write-through or write-around.
    #[arg(long, default_value = "write-back")]
    pub write_policy: WritePolicy,
    /// Caching: fifo, lru, arc, 2q or wsclock.
    #[arg(long, default_value = "lru")]
    pub replacement: Algorithm,
    /// Tiering: start with the drive full, its data laid in address order (SSD first), as
    /// a drive in service holds its data. The default; see --empty.
    #[arg(long, conflicts_with = "empty")]
    pub populated: bool,
    /// Tiering: start new and empty instead (extents mapped on first touch, SSD first):
    /// reads of never-written extents then cost no device I/O, so this measures a drive
    /// before its data arrives, not one in service.
    #[arg(long)]
    pub empty: bool,
    /// Set a policy tunable by name once the drive is built, e.g. `redirect_p=0.5`,
    /// `hdd_predictor=1` or `idle_s=0.5` for mixdyn (repeatable; the names are the
    /// policy's `params`).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_policy_param)]
    pub policy_param: Vec<(String, f64)>,
}

fn parse_policy_param(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| format!("`{s}`: expected NAME=VALUE"))?;
    let value: f64 = value.trim().parse().map_err(|_| format!("`{s}`: the value is not a number"))?;
    if name.trim().is_empty() || !value.is_finite() {
        return Err(format!("`{s}`: expected a name and a finite number"));
    }
    Ok((name.trim().to_string(), value))
}

impl HybridArgs {
    /// The library's hybrid-drive knobs, the design's among them.
    pub fn params(&self, design: &DesignArgs) -> HybridParams {
        HybridParams {
            ssd: self.ssd.clone(),
            ssd_timing: self.ssd_timing,
            ssd_write_buffer: self.ssd_write_buffer,
            ssd_fraction: design.knobs.ssd_fraction,
            capacity_bytes: self.capacity_bytes,
            compact: self.compact,
            es: design.knobs.extent_bytes,
            pt: design.knobs.pt,
            tw_s: self.tw_s,
            mcml: design.knobs.mcml,
            lt: self.lt,
            ht: self.ht,
            write_policy: self.write_policy,
            replacement: self.replacement,
            populated: !self.empty,
            policy_params: self.policy_param.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::DeviceChoice;
    use clap::Parser;
    use tierlab_devices::HddChoice;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        design: DesignArgs,
        #[command(flatten)]
        hybrid: HybridArgs,
        #[command(flatten)]
        device: DeviceChoice,
    }

    #[test]
    fn command_line_defaults_are_the_library_defaults() {
        let f = Flags::parse_from(["tierlab"]);
        assert_eq!(f.design.mode, None);
        assert_eq!(f.hybrid.params(&f.design), HybridParams::default());
        assert_eq!(f.device.choice(), HddChoice::default());
        assert_eq!(f.design, DesignArgs::default());
        // The flags reports and `compare` use, and the names they had before.
        let f = Flags::parse_from(["tierlab", "--mode", "tiering", "--extent-bytes", "262144"]);
        let g = Flags::parse_from(["tierlab", "--hybrid", "tiering", "--es", "262144"]);
        assert_eq!((f.design.mode, f.design.knobs.extent_bytes), (Some(Mode::Tiering), 262144));
        assert_eq!(f.design, g.design);
        let f = Flags::parse_from(["tierlab", "--hybrid", "ssd-only", "--pt", "8", "--es", "65536", "--spin-down-s", "5"]);
        assert_eq!(f.design.mode, Some(Mode::SsdOnly));
        assert_eq!((f.hybrid.params(&f.design).pt, f.hybrid.params(&f.design).es), (8, 65536));
        assert_eq!(f.device.choice().spin_down_s, Some(5.0));
        let f = Flags::parse_from(["tierlab", "--hybrid", "tiering", "--ssd-timing", "datasheet"]);
        assert_eq!(f.hybrid.params(&f.design).ssd_timing, SsdTiming::Datasheet);
        for (arg, want) in [("off", SsdWriteBuffer::Off), ("on", SsdWriteBuffer::Catalog), ("1048576", SsdWriteBuffer::Bytes(1 << 20))] {
            let f = Flags::parse_from(["tierlab", "--hybrid", "ssd-only", "--ssd-write-buffer", arg]);
            assert_eq!(f.hybrid.params(&f.design).ssd_write_buffer, want);
        }
        assert!(Flags::try_parse_from(["tierlab", "--ssd-write-buffer", "big"]).is_err());
        let f = Flags::parse_from(["tierlab", "--hybrid", "mixdyn", "--policy-param", "redirect_p=0.5", "--policy-param", "idle_s = 2"]);
        assert_eq!(f.design.mode, Some(Mode::MixDyn));
        assert_eq!(f.hybrid.params(&f.design).policy_params, [("redirect_p".to_string(), 0.5), ("idle_s".to_string(), 2.0)]);
        assert_eq!(Flags::parse_from(["tierlab", "--hybrid", "static4k"]).design.mode, Some(Mode::Static4k));
        // A report names a design as the command line does.
        for m in <Mode as clap::ValueEnum>::value_variants() {
            assert_eq!(clap::ValueEnum::to_possible_value(m).unwrap().get_name(), m.report_name());
        }
        for bad in ["redirect_p", "=1", "x=y", "x=inf"] {
            assert!(Flags::try_parse_from(["tierlab", "--policy-param", bad]).is_err(), "{bad}");
        }
    }
}
