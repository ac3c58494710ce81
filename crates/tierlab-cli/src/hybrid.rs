//! `tierlab simulate --hybrid …`: an SSD and an HDD combined by a policy (GreenDM tiering
//! or caching, or a linear baseline), run in the simulator by the same policy code the
//! block device uses.

use crate::devices::{build_hdd, DeviceChoice};
use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use tierlab_cache::Algorithm;
use tierlab_policy::{CachingParams, CachingPolicy, Geometry, LinearPolicy, Policy, TieringParams, TieringPolicy, WritePolicy};
use tierlab_sim::Device;
use tierlab_ssd::{Precondition, Ssd};
use tierlab_trace::Compactor;
use tierlab_types::{IoRequest, MIB, NS_PER_S};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HybridMode {
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
}

#[derive(Args, Clone, Debug)]
pub struct HybridArgs {
    /// Run a hybrid drive built from an SSD and the HDD (--device) instead of the HDD alone.
    #[arg(long, value_enum)]
    pub hybrid: Option<HybridMode>,
    /// The SSD, from the SSD catalog (catalog/ssd).
    #[arg(long, value_name = "ID", default_value = "intel-320-300gb")]
    pub ssd: String,
    /// The SSD's share of the drive's capacity (tiering, linear), or the cache's size as a
    /// share of the capacity (caching).
    #[arg(long, default_value_t = 0.25)]
    pub ssd_fraction: f64,
    /// Capacity the hybrid drive exposes. Default: the workload's span, or the highest
    /// address the trace uses (its volumes laid end to end).
    #[arg(long, value_name = "BYTES")]
    pub capacity_bytes: Option<u64>,
    /// Pack the extents a trace touches densely (in address order) instead of laying its
    /// volumes end to end: for traces of large, sparsely used volumes.
    #[arg(long)]
    pub compact: bool,
    /// Extent size ES in bytes (a multiple of 4 KiB, at most 1 MiB).
    #[arg(long, value_name = "BYTES", default_value_t = MIB)]
    pub es: u64,
    /// Promotion (tiering) or pre-fetch (caching) threshold PT.
    #[arg(long, default_value_t = 2)]
    pub pt: u32,
    /// Time window TW in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub tw_s: f64,
    /// Maximum concurrent migrations MCML.
    #[arg(long, default_value_t = 4)]
    pub mcml: u32,
    /// Tiering: demotion starts at this many free SSD extents (LT).
    #[arg(long, default_value_t = 64)]
    pub lt: u32,
    /// Tiering: demotion stops at this many free SSD extents (HT).
    #[arg(long, default_value_t = 128)]
    pub ht: u32,
    /// Caching: write-back, write-through or write-around.
    #[arg(long, default_value = "write-back")]
    pub write_policy: WritePolicy,
    /// Caching: fifo, lru, arc, 2q or wsclock.
    #[arg(long, default_value = "lru")]
    pub replacement: Algorithm,
}

/// How a trace's (volume, offset) addresses become one hybrid drive's addresses.
pub enum AddressMap {
    /// Volumes end to end, each at a 1 MiB-aligned base: addresses keep their distances.
    EndToEnd { base: BTreeMap<u32, u64>, capacity_bytes: u64 },
    /// Touched chunks packed densely in address order (`Compactor`).
    Compact(Compactor),
}

impl AddressMap {
    /// Learn the map from one pass over the requests.
    pub fn learn<E>(compact: bool, chunk_bytes: u64, requests: impl Iterator<Item = Result<IoRequest, E>>) -> Result<Self, E> {
        if compact {
            let mut err = None;
            let c = Compactor::build(chunk_bytes, requests.map_while(|r| r.map_err(|e| err = Some(e)).ok()));
            return match err {
                Some(e) => Err(e),
                None => Ok(AddressMap::Compact(c)),
            };
        }
        let mut ends: BTreeMap<u32, u64> = BTreeMap::new();
        for r in requests {
            let r = r?;
            let e = ends.entry(r.volume).or_default();
            *e = (*e).max(r.end_bytes());
        }
        let mut base = BTreeMap::new();
        let mut next = 0u64;
        for (v, end) in ends {
            base.insert(v, next);
            next = next.saturating_add(end.div_ceil(MIB) * MIB);
        }
        Ok(AddressMap::EndToEnd { base, capacity_bytes: next })
    }

    pub fn capacity_bytes(&self) -> u64 {
        match self {
            AddressMap::EndToEnd { capacity_bytes, .. } => *capacity_bytes,
            AddressMap::Compact(c) => c.footprint_bytes(),
        }
    }

    /// The request at its drive address (the learning pass saw every request, so the
    /// compact map knows every chunk).
    pub fn map(&self, r: IoRequest) -> IoRequest {
        match self {
            AddressMap::EndToEnd { base, .. } => {
                IoRequest { offset_bytes: r.offset_bytes + base.get(&r.volume).copied().unwrap_or(0), volume: 0, ..r }
            }
            AddressMap::Compact(c) => c.map(&r).unwrap_or(r),
        }
    }
}

/// The SSD, with the part the drive uses (`[0, need_bytes)`) already written once: the
/// data a trace reads exists before the trace starts (a fresh model would answer reads of
/// never-written pages without touching flash). Counters start at zero after the fill.
fn ssd_device(id: &str, need_bytes: u64) -> Result<Box<dyn Device>> {
    let spec = tierlab_ssd::catalog::builtin(id)?.ssd;
    let capacity = spec.capacity_bytes();
    if capacity < need_bytes {
        return Err(anyhow!("SSD `{id}` holds {capacity} bytes but the hybrid drive needs {need_bytes} on it"));
    }
    let mut ssd = Ssd::new(spec)?;
    let occupancy = need_bytes as f64 / capacity.max(1) as f64;
    ssd.precondition(&Precondition { occupancy, random_overwrites: 0.0, seed: 1 })?;
    Ok(Box::new(ssd))
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
}

/// The devices and the policy for `mode` over `capacity`.
pub fn build(h: &HybridArgs, hdd: &DeviceChoice, capacity: u64) -> Result<Built> {
    let mode = h.hybrid.ok_or_else(|| anyhow!("no hybrid mode chosen"))?;
    if !(h.ssd_fraction > 0.0 && h.ssd_fraction < 1.0) {
        return Err(anyhow!("--ssd-fraction: expected a share strictly between 0 and 1, found {}", h.ssd_fraction));
    }
    if !(h.tw_s.is_finite() && h.tw_s > 0.0) {
        return Err(anyhow!("--tw-s: expected a positive number of seconds, found {}", h.tw_s));
    }
    let es = h.es;
    let capacity = capacity.div_ceil(es.max(1)) * es.max(1);
    let ssd_share = round_down((capacity as f64 * h.ssd_fraction) as u64, es.max(1));
    let tw_ns = (h.tw_s * NS_PER_S as f64) as u64;
    let with_policy = |policy: Box<dyn Policy>| -> Result<Built> {
        let geo = *policy.geometry();
        Ok(Built {
            devices: vec![ssd_device(&h.ssd, geo.ssd_bytes())?, build_hdd(hdd)?],
            policy: Some(policy),
            ssd_used_bytes: geo.ssd_bytes(),
            hdd_used_bytes: geo.hdd_bytes(),
        })
    };
    match mode {
        HybridMode::SsdOnly => {
            Ok(Built { devices: vec![ssd_device(&h.ssd, capacity)?], policy: None, ssd_used_bytes: capacity, hdd_used_bytes: 0 })
        }
        HybridMode::HddOnly => Ok(Built { devices: vec![build_hdd(hdd)?], policy: None, ssd_used_bytes: 0, hdd_used_bytes: capacity }),
        HybridMode::Linear => with_policy(Box::new(LinearPolicy::new(Geometry::new(es, ssd_share, capacity - ssd_share)?))),
        HybridMode::Tiering => {
            let params = TieringParams { pt: h.pt, tw_ns, mcml: h.mcml, lt: h.lt, ht: h.ht, reserved_hdd_extents: h.ht + h.mcml };
            // The HDD gets the rest of the capacity plus the reserve that keeps demotion moving.
            let hdd_bytes = capacity - ssd_share + params.reserved_hdd_extents as u64 * es;
            with_policy(Box::new(TieringPolicy::new(Geometry::new(es, ssd_share, hdd_bytes)?, params)?))
        }
        HybridMode::Caching => {
            let params = CachingParams { pt: h.pt, tw_ns, mcml: h.mcml, write: h.write_policy, replacement: h.replacement, ..CachingParams::default() };
            with_policy(Box::new(CachingPolicy::new(Geometry::new(es, ssd_share, capacity)?, params)?))
        }
    }
}
