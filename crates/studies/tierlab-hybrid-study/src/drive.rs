//! Building a hybrid configuration: the devices (SSD and/or HDD) and the policy that
//! combines them — GreenDM tiering or caching, HybridStore's dynamic controller (MixDyn)
//! or its static 4 KiB split, the linear baseline, or a single device.

use anyhow::{anyhow, Context, Result};
use tierlab_cache::Algorithm;
use tierlab_hybrid_sim::ssd_hints;
use tierlab_mixdyn::{MixDynParams, MixDynPolicy, PAGE_BYTES};
use tierlab_hybrid_policy::{CachingParams, CachingPolicy, Geometry, LinearPolicy, Policy, TieringParams, TieringPolicy, WritePolicy};
use tierlab_devices::{build_hdd, datasheet_ssd, filled_ssd, ssd_spec, HddChoice, SsdTiming, SsdWriteBuffer};
use tierlab_engine::Device;
use tierlab_types::{MIB, NS_PER_S};

/// The drive designs `compare` puts side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Mode {
    /// GreenDM tiering: hot extents live on the SSD, cold ones on the HDD.
    Tiering,
    /// GreenDM caching: the SSD caches HDD extents (the HDD holds everything).
    Caching,
    /// "Mylinear": the SSD then the HDD, laid end to end; nothing moves.
    Linear,
    /// Everything on the SSD.
    SsdOnly,
    /// Everything on the HDD.
    HddOnly,
    /// HybridStore's MixDyn: each write to the device predicted faster (4 KiB pages).
    ///
    /// The HDD holds every address and the SSD 4 KiB pages of it; cold pages are flushed
    /// to the HDD when idle, and writes are regulated against the SSD's lifetime budget.
    /// The page is 4 KiB whatever ES is; tunables through `policy_params` (see
    /// `tierlab_mixdyn::MixDynPolicy`).
    #[cfg_attr(feature = "clap", value(name = "mixdyn"))]
    MixDyn,
    /// HybridStore's static split: writes of at most 4 KiB to the SSD, larger to the HDD.
    ///
    /// Reads follow the data; 4 KiB pages, as MixDyn.
    #[cfg_attr(feature = "clap", value(name = "static4k"))]
    Static4k,
}

impl Mode {
    /// The name reports use, the one the command line takes: `tiering`, `caching`,
    /// `linear`, `ssd-only`, `hdd-only`, `mixdyn`, `static4k`.
    pub fn report_name(self) -> String {
        match self {
            Mode::Tiering => "tiering",
            Mode::Caching => "caching",
            Mode::Linear => "linear",
            Mode::SsdOnly => "ssd-only",
            Mode::HddOnly => "hdd-only",
            Mode::MixDyn => "mixdyn",
            Mode::Static4k => "static4k",
        }
        .to_string()
    }

    /// Tiering and caching move data; the others do not.
    pub fn moves_data(self) -> bool {
        matches!(self, Mode::Tiering | Mode::Caching)
    }

    /// Tiering, caching, linear and HybridStore's two combine two devices.
    pub fn is_hybrid(self) -> bool {
        matches!(self, Mode::Tiering | Mode::Caching | Mode::Linear | Mode::MixDyn | Mode::Static4k)
    }

    /// The HDD holds the whole capacity (the SSD a subset of it).
    fn hdd_holds_all(self) -> bool {
        matches!(self, Mode::Caching | Mode::MixDyn | Mode::Static4k)
    }
}

/// The knobs of a hybrid drive (GreenDM's names: ES, PT, TW, MCML, LT, HT).
#[derive(Clone, Debug, PartialEq)]
pub struct HybridParams {
    /// The SSD, from the SSD catalog (catalog/ssd).
    pub ssd: String,
    /// How the SSD is timed.
    pub ssd_timing: SsdTiming,
    /// The SSD's write buffer (timed from its internals).
    pub ssd_write_buffer: SsdWriteBuffer,
    /// The SSD's share of the drive's capacity (tiering, linear), or the cache's size as a
    /// share of the capacity (caching); strictly between 0 and 1.
    pub ssd_fraction: f64,
    /// Capacity the drive exposes; `None`: the workload's span.
    pub capacity_bytes: Option<u64>,
    /// Pack the extents a trace touches densely instead of laying its volumes end to end.
    pub compact: bool,
    /// Extent size ES in bytes (a multiple of 4 KiB, at most 1 MiB).
    pub es: u64,
    /// Promotion (tiering) or pre-fetch (caching) threshold PT.
    pub pt: u32,
    /// Time window TW in seconds.
    pub tw_s: f64,
    /// Maximum concurrent migrations MCML.
    pub mcml: u32,
    /// Tiering: demotion starts at this many free SSD extents (LT) …
    pub lt: Option<u32>,
    /// … and stops at this many (HT). Unset: derived from the SSD's size
    /// ([`TieringParams::default_watermarks`]; LT from a set HT is HT/2).
    pub ht: Option<u32>,
    /// Caching: write-back, write-through or write-around.
    pub write_policy: WritePolicy,
    /// Caching: the replacement algorithm.
    pub replacement: Algorithm,
    /// Tiering: start with the drive's whole capacity placed in address order (SSD first),
    /// as a drive in service holds its data (the default); off, the drive is new and empty
    /// and GreenDM maps extents on first touch — reads of never-written extents then cost
    /// no device I/O, which measures a drive before its data arrives. Caching starts cold
    /// (the measurement layer warms it) and linear is static either way.
    pub populated: bool,
    /// Tunables set on the policy once it is built, in order (`Policy::set_param` names:
    /// `pt`, `lt`, … for tiering; `redirect_p`, `hdd_predictor`, … for MixDyn).
    pub policy_params: Vec<(String, f64)>,
}

impl Default for HybridParams {
    /// The research's devices and GreenDM's defaults.
    fn default() -> Self {
        HybridParams {
            ssd: "intel-320-300gb".to_string(),
            ssd_timing: SsdTiming::Internals,
            ssd_write_buffer: SsdWriteBuffer::Catalog,
            ssd_fraction: 0.25,
            capacity_bytes: None,
            compact: false,
            es: MIB,
            pt: 2,
            tw_s: 60.0,
            mcml: 4,
            lt: None,
            ht: None,
            write_policy: WritePolicy::WriteBack,
            replacement: Algorithm::Lru,
            populated: true,
            policy_params: Vec::new(),
        }
    }
}

/// The SSD, timed as `timing` asks. Timed from its internals, the part the drive uses
/// (`[0, need_bytes)`) is already written once ([`filled_ssd`]). `write_buffer` chooses its
/// write buffer.
fn ssd_device(id: &str, timing: SsdTiming, write_buffer: SsdWriteBuffer, need_bytes: u64) -> Result<Box<dyn Device>> {
    let fits = |capacity: u64| {
        if capacity < need_bytes {
            return Err(anyhow!("SSD `{id}` holds {capacity} bytes but the hybrid drive needs {need_bytes} on it"));
        }
        Ok(())
    };
    if timing == SsdTiming::Datasheet {
        let ssd = datasheet_ssd(id, None).context("--ssd-timing datasheet")?;
        fits(ssd.capacity_bytes())?;
        return Ok(Box::new(ssd));
    }
    let spec = ssd_spec(id, write_buffer)?;
    fits(spec.capacity_bytes())?;
    Ok(Box::new(filled_ssd(spec, need_bytes)?))
}

fn round_down(bytes: u64, es: u64) -> u64 {
    bytes / es * es
}

/// What a hybrid configuration is made of.
pub struct Built {
    /// SSD first where there is one.
    pub devices: Vec<Box<dyn Device>>,
    /// None for the single-device baselines.
    pub policy: Option<Box<dyn Policy>>,
    /// Bytes of each device the drive uses (what the cost model prices).
    pub ssd_used_bytes: u64,
    pub hdd_used_bytes: u64,
    /// Tiering's demotion watermarks `(LT, HT)` as built.
    pub watermarks: Option<(u32, u32)>,
}

/// The tiering watermarks `(LT, HT)` for an SSD of `ssd_extents` extents: those set, the
/// rest derived from the SSD's size.
pub fn watermarks(h: &HybridParams, ssd_extents: u64) -> Result<(u32, u32)> {
    let n = u32::try_from(ssd_extents).unwrap_or(u32::MAX);
    let derived = || {
        TieringParams::default_watermarks(n).ok_or_else(|| {
            anyhow!("an SSD of {ssd_extents} extent(s) cannot tier: demotion needs a high watermark (HT) of at least one free extent below the SSD's size; use a larger SSD share or smaller extents")
        })
    };
    Ok(match (h.lt, h.ht) {
        (Some(lt), Some(ht)) => (lt, ht),
        (None, Some(ht)) => (ht / 2, ht),
        (Some(lt), None) => (lt, derived()?.1.max(lt.saturating_add(1))),
        (None, None) => derived()?,
    })
}

/// The devices and the policy for `mode` over `capacity` bytes (rounded up to whole extents).
pub fn build(mode: Mode, h: &HybridParams, hdd: &HddChoice, capacity: u64) -> Result<Built> {
    if !(h.ssd_fraction > 0.0 && h.ssd_fraction < 1.0) {
        return Err(anyhow!("--ssd-fraction: expected a share strictly between 0 and 1, found {}", h.ssd_fraction));
    }
    if !(h.tw_s.is_finite() && h.tw_s > 0.0) {
        return Err(anyhow!("--tw-s: expected a positive number of seconds, found {}", h.tw_s));
    }
    // ES itself is checked by the policy's geometry; `unit` only keeps the arithmetic sane.
    let (es, unit) = (h.es, h.es.max(1));
    let too_large = || anyhow!("capacity of {capacity} bytes: expected at most {} bytes", u64::MAX / 2);
    let capacity = capacity.div_ceil(unit).checked_mul(unit).filter(|c| *c <= u64::MAX / 2).ok_or_else(too_large)?;
    let mut ssd_share = round_down((capacity as f64 * h.ssd_fraction) as u64, unit);
    let mut capacity = capacity;
    if mode.is_hybrid() && h.capacity_bytes.is_none() {
        // A workload's span too small for the design (a tiny trace) grows to the smallest
        // drive that has whole extents on both devices: one on the SSD, two for tiering
        // (a demotion needs a free extent to stop at), and one on the HDD. A capacity the
        // user set is kept, and the policy says why it cannot work.
        let min_ssd = if mode == Mode::Tiering { 2 * unit } else { unit };
        ssd_share = ssd_share.max(min_ssd);
        let hdd_min = if mode.hdd_holds_all() { unit } else { ssd_share + unit };
        capacity = capacity.max(hdd_min);
    }
    let tw_ns = (h.tw_s * NS_PER_S as f64) as u64;
    let with_policy = |mut policy: Box<dyn Policy>| -> Result<Built> {
        if h.populated {
            // A no-op for the policies that start cold or static (caching, linear).
            policy.populate(u32::MAX);
        }
        for (name, value) in &h.policy_params {
            policy.set_param(name, *value).map_err(|e| anyhow!("--policy-param {name}={value}: {e}"))?;
        }
        let geo = *policy.geometry();
        let ssd = ssd_device(&h.ssd, h.ssd_timing, h.ssd_write_buffer, geo.ssd_bytes())?;
        // MixDyn's hint to hold the SSD's wear leveling reaches the SSD this way.
        let (policy, ssd): (Box<dyn Policy>, Box<dyn Device>) = if mode == Mode::MixDyn {
            let (policy, ssd) = ssd_hints(policy, ssd);
            (Box::new(policy), Box::new(ssd))
        } else {
            (policy, ssd)
        };
        Ok(Built { devices: vec![ssd, build_hdd(hdd)?], policy: Some(policy), ssd_used_bytes: geo.ssd_bytes(), hdd_used_bytes: geo.hdd_bytes(), watermarks: None })
    };
    match mode {
        Mode::SsdOnly => {
            Ok(Built { devices: vec![ssd_device(&h.ssd, h.ssd_timing, h.ssd_write_buffer, capacity)?], policy: None, ssd_used_bytes: capacity, hdd_used_bytes: 0, watermarks: None })
        }
        Mode::HddOnly => Ok(Built { devices: vec![build_hdd(hdd)?], policy: None, ssd_used_bytes: 0, hdd_used_bytes: capacity, watermarks: None }),
        Mode::Linear => with_policy(Box::new(LinearPolicy::new(Geometry::new(es, ssd_share, capacity - ssd_share)?))),
        Mode::Tiering => {
            let (lt, ht) = watermarks(h, ssd_share / unit)?;
            let params = TieringParams { pt: h.pt, tw_ns, mcml: h.mcml, lt, ht, reserved_hdd_extents: ht.saturating_add(h.mcml) };
            // The HDD gets the rest of the capacity plus the reserve that keeps demotion moving.
            let reserve = u64::from(params.reserved_hdd_extents).saturating_mul(unit);
            let hdd_bytes = (capacity - ssd_share).checked_add(reserve).ok_or_else(too_large)?;
            let built = with_policy(Box::new(TieringPolicy::new(Geometry::new(es, ssd_share, hdd_bytes)?, params)?))?;
            Ok(Built { watermarks: Some((lt, ht)), ..built })
        }
        Mode::Caching => {
            let params = CachingParams { pt: h.pt, tw_ns, mcml: h.mcml, write: h.write_policy, replacement: h.replacement, ..CachingParams::default() };
            with_policy(Box::new(CachingPolicy::new(Geometry::new(es, ssd_share, capacity)?, params)?))
        }
        Mode::MixDyn | Mode::Static4k => {
            let params = if mode == Mode::MixDyn { MixDynParams::mixdyn() } else { MixDynParams::static4k() };
            let geo = Geometry::new(PAGE_BYTES, round_down(ssd_share, PAGE_BYTES), capacity)?;
            with_policy(Box::new(MixDynPolicy::new(geo, params)?))
        }
    }
}
