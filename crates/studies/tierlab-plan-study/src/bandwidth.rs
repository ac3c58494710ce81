//! B_ij: what one device of a planning type delivers to a data class, measured by running
//! a stream shaped like the class through the device's tierlab model.
//!
//! The stream: the class's mean request size (rounded up to whole 512-byte sectors), its
//! read share (each request drawn with a seeded generator), offsets uniform over the
//! device's usable share (the class's records lie among the other classes' records on a
//! shared device, so a request may seek anywhere the planner fills), kept at a queue
//! depth of 1 by default: the research's disk model is one request's seek, rotation and
//! transfer, and its bandwidth need F_j is a per-second rate, not a queue. Each shape
//! starts on an idle device at time zero. An SSD timed from its data sheet is measured
//! from its figures; one modelled from its internals (its own model, or with
//! [`Probe::ssd_internals`] the internals a data-sheet entry names) is first filled to its
//! usable share and aged with random overwrites, so writes pay garbage collection as in
//! service. Write-back caches (a disk's buffer, an SSD's DRAM write buffer) are off while
//! measuring: a stream that runs for the life of a plan is paced by the media, not by a
//! buffer that fills in a second.
//!
//! Results are cached per device model and class shape (request size, read share) in
//! a JSON file per device under the cache directory; the key includes everything that
//! changes the figure (model and its full specification, capacity, usable share,
//! data-sheet rates, probe settings, tierlab's version).

use anyhow::{anyhow, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tierlab_mixedsim::DeviceSpec;
use tierlab_mixplan::catalog::{ModelRef, PlanDevice};
use tierlab_mixplan::ClassNeed;
use tierlab_engine::{Device, Direct, Replay, SchedulerKind, Simulation};
use tierlab_types::{IoRequest, Op};

/// How a class's bandwidth is measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    pub requests: u32,
    pub queue_depth: u32,
    pub seed: u64,
    /// An SSD's aging before the measurement: random overwrites as a multiple of its
    /// filled pages.
    pub ssd_overwrites: f64,
    /// An SSD timed from its data sheet is measured on its `internals` model instead,
    /// filled and aged (the aged-FTL sensitivity run).
    pub ssd_internals: bool,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            requests: 2000,
            queue_depth: 1,
            seed: 1,
            ssd_overwrites: 0.5,
            ssd_internals: false,
        }
    }
}

/// A class's shape as the probe sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Shape {
    request_bytes: u64,
    read_percent: u8,
}

impl Shape {
    fn of(c: &ClassNeed) -> Shape {
        let bytes = if c.mean_request_bytes.is_finite() {
            c.mean_request_bytes.max(512.0)
        } else {
            4096.0
        };
        Shape {
            request_bytes: (bytes as u64).div_ceil(512).min(1 << 14) * 512,
            read_percent: (c.read_fraction.clamp(0.0, 1.0) * 100.0).round() as u8,
        }
    }

    fn key(&self) -> String {
        format!("{}B-{}r", self.request_bytes, self.read_percent)
    }
}

#[derive(Default, Serialize, Deserialize)]
struct CacheFile {
    key: String,
    kb_s: BTreeMap<String, f64>,
}

/// B_ij for every device and class, KB/s (10^3 bytes), measured or from the cache.
pub fn measure(
    devices: &[PlanDevice],
    classes: &[ClassNeed],
    probe: &Probe,
    cache_dir: Option<&Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Vec<f64>>> {
    devices
        .iter()
        .map(|d| measure_device(d, classes, probe, cache_dir, progress))
        .collect()
}

fn measure_device(
    d: &PlanDevice,
    classes: &[ClassNeed],
    probe: &Probe,
    cache_dir: Option<&Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<f64>> {
    let key = cache_key(d, probe)?;
    let path =
        cache_dir.map(|dir| dir.join(format!("bandwidth-{}-{:016x}.json", d.id, fnv1a(&key))));
    let mut cache: CacheFile = path
        .as_ref()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice::<CacheFile>(&b).ok())
        .filter(|c| c.key == key)
        .unwrap_or(CacheFile {
            key: key.clone(),
            kb_s: BTreeMap::new(),
        });
    let mut shapes: Vec<Shape> = classes
        .iter()
        .filter(|c| c.size_gb > 0.0 && c.bandwidth_kb_s > 0.0)
        .map(Shape::of)
        .collect();
    shapes.sort();
    shapes.dedup();
    let missing: Vec<Shape> = shapes
        .iter()
        .copied()
        .filter(|s| !cache.kb_s.contains_key(&s.key()))
        .collect();
    if !missing.is_empty() {
        progress(&format!(
            "measuring {} class shapes on {}",
            missing.len(),
            d.id
        ));
        let mut fresh =
            Fresh::new(d, probe).with_context(|| format!("device `{}`: its model", d.id))?;
        for s in &missing {
            // Each shape on an idle device, its clock at zero: a device reused as the
            // previous shape left it would still be busy with that shape's requests.
            let device = fresh
                .device()
                .with_context(|| format!("device `{}`: its model", d.id))?;
            let span_bytes = ((d.usable_gb() * 1e9) as u64).min(device.capacity_bytes());
            let kb_s = run_shape(device, *s, span_bytes, probe)
                .with_context(|| format!("device `{}`: class shape {}", d.id, s.key()))?;
            cache.kb_s.insert(s.key(), kb_s);
        }
        if let Some(p) = &path {
            // A cache that cannot be written only costs time next run.
            let _ = std::fs::create_dir_all(p.parent().unwrap_or(Path::new("."))).and_then(|_| {
                std::fs::write(p, serde_json::to_vec_pretty(&cache).unwrap_or_default())
            });
        }
    }
    Ok(classes
        .iter()
        .map(|c| {
            if c.size_gb > 0.0 && c.bandwidth_kb_s > 0.0 {
                cache.kb_s.get(&Shape::of(c).key()).copied().unwrap_or(0.0)
            } else {
                0.0
            }
        })
        .collect())
}

/// What decides a device's figures, as the cache's key: tierlab's version, the probe,
/// every field of the entry the measurement reads (its model, capacity, usable share and
/// data-sheet rates) and a hash of the model's full specification (a changed
/// `catalog/ssd` or `catalog/hdd` entry measures anew).
fn cache_key(d: &PlanDevice, probe: &Probe) -> Result<String> {
    let spec = crate::model(d)?;
    Ok(format!(
        "{}|{:?}|{}|{:?}|{}|{}|{}|{:016x}",
        env!("CARGO_PKG_VERSION"),
        d.model,
        d.usable_fraction,
        probe,
        d.capacity_gb,
        d.read_mb_s,
        d.write_mb_s,
        fnv1a(&format!("{spec:?}"))
    ))
}

/// Devices of one planning type, each idle at time zero for the next shape: a disk (or a
/// data-sheet SSD) built anew; an SSD model filled and aged once, its clock restarted
/// before each shape (its state carries on: a shape's 2,000 requests barely age a drive
/// filled with millions of pages, and a copy per shape would double the memory of
/// mapping tables that reach gigabytes).
struct Fresh<'a> {
    d: &'a PlanDevice,
    ssd: Option<tierlab_ssd::Ssd>,
}

impl<'a> Fresh<'a> {
    fn new(d: &'a PlanDevice, probe: &'a Probe) -> Result<Fresh<'a>> {
        let by_sheet = matches!(d.model, ModelRef::Datasheet(_)) && !probe.ssd_internals;
        let ssd = match crate::model(d)? {
            Some(DeviceSpec::Ssd(m)) if !by_sheet => {
                let mut spec = m.spec;
                spec.write_buffer = None;
                let mut ssd = tierlab_ssd::Ssd::new(spec)?;
                ssd.precondition(&tierlab_ssd::Precondition {
                    occupancy: d.usable_fraction,
                    random_overwrites: probe.ssd_overwrites,
                    seed: probe.seed,
                })?;
                Some(ssd)
            }
            _ => None,
        };
        Ok(Fresh { d, ssd })
    }

    /// The tierlab model of the planning device, ready to be measured: the model the
    /// simulation check builds ([`crate::model`]), write-back caches off, an SSD filled
    /// to its usable share and aged; or, for an SSD with no internals model, its data
    /// sheet.
    fn device(&mut self) -> Result<Box<dyn Device + '_>> {
        match &mut self.ssd {
            Some(ssd) => {
                ssd.reset_stats();
                Ok(Box::new(ssd))
            }
            None => build_unaged(self.d),
        }
    }
}

/// A disk, or an SSD timed from its data sheet (no state to age).
fn build_unaged(d: &PlanDevice) -> Result<Box<dyn Device>> {
    if let ModelRef::Datasheet(f) = &d.model {
        let us = |v: f64| (v * 1e3).round() as u64;
        let (read_mb_s, write_mb_s) = f.sustained_mb_s(d);
        let spec = tierlab_ssd_datasheet::DatasheetSpec {
            read_latency_ns: us(f.read_latency_us),
            write_latency_ns: us(f.write_latency_us),
            read_bytes_per_s: (read_mb_s * 1e6) as u64,
            write_bytes_per_s: (write_mb_s * 1e6) as u64,
            read_iops: f.read_iops as u64,
            write_iops: f.write_iops as u64,
            active_read_w: d.device_w,
            active_write_w: d.device_w,
        };
        return Ok(Box::new(tierlab_ssd_datasheet::DatasheetSsd::new(
            &d.name,
            (d.capacity_gb * 1e9) as u64,
            &spec,
            d.device_w,
            None,
        )?));
    }
    Ok(match crate::model(d)? {
        Some(DeviceSpec::Ssd(_)) => {
            return Err(anyhow!("device `{}`: an SSD model is aged first", d.id))
        }
        Some(DeviceSpec::Hdd(m)) => {
            let mut spec = tierlab_hdd::HddSpec::from_datasheet(&m.datasheet)?;
            spec.cache.write_back = false;
            Box::new(tierlab_hdd::HddDevice::new(
                d.id.clone(),
                tierlab_hdd::Mechanics::new(spec)?,
            ))
        }
        None => return Err(anyhow!("device `{}` has no model to measure", d.id)),
    })
}

/// Closed-loop run of one class shape; bytes moved over the run's span, KB/s.
fn run_shape(
    device: Box<dyn Device + '_>,
    s: Shape,
    span_bytes: u64,
    probe: &Probe,
) -> Result<f64> {
    let slots = (span_bytes / 4096)
        .saturating_sub(s.request_bytes.div_ceil(4096))
        .max(1);
    let mut rng = ChaCha8Rng::seed_from_u64(
        probe.seed ^ s.request_bytes.rotate_left(17) ^ u64::from(s.read_percent),
    );
    let requests: Vec<Result<IoRequest, std::convert::Infallible>> = (0..probe.requests)
        .map(|_| {
            let op = if rng.gen_range(0..100) < s.read_percent {
                Op::Read
            } else {
                Op::Write
            };
            Ok(IoRequest {
                time_ns: 0,
                volume: 0,
                offset_bytes: rng.gen_range(0..slots) * 4096,
                len_bytes: s.request_bytes,
                op,
            })
        })
        .collect();
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(device);
    let report = sim.run(
        requests.into_iter(),
        Replay::Closed {
            depth: probe.queue_depth.max(1),
        },
        &mut Direct::default(),
        &mut |_| {},
    )?;
    if report.span_s <= 0.0 {
        return Err(anyhow!("the run took no time"));
    }
    Ok((report.read_bytes + report.write_bytes) as f64 / report.span_s / 1e3)
}

/// FNV-1a, 64 bits: a cache file name stable across Rust versions.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `$TIERLAB_CACHE_DIR`, else `$XDG_CACHE_HOME/tierlab`, else `~/.cache/tierlab`.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("TIERLAB_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("tierlab"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("tierlab"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_mixplan::catalog::{HddFigures, Kind};

    fn class(label: &str, request_bytes: f64, read_fraction: f64) -> ClassNeed {
        ClassNeed {
            label: label.into(),
            size_gb: 1.0,
            bandwidth_kb_s: 100.0,
            write_mean_kb_s: 10.0,
            write_fraction: 1.0 - read_fraction,
            mean_request_bytes: request_bytes,
            read_fraction,
        }
    }

    fn device(id: &str, kind: Kind, capacity_gb: f64, model: ModelRef) -> PlanDevice {
        PlanDevice {
            id: id.into(),
            name: id.into(),
            kind,
            source: "test".into(),
            estimates: Vec::new(),
            unknown: Vec::new(),
            capacity_gb,
            price_usd_per_gb: Some(1.0),
            usable_fraction: 0.5,
            read_mb_s: 42.66,
            write_mb_s: 42.66,
            device_w: 5.8,
            supplement_w: 0.0,
            erase_cycles: (kind == Kind::Ssd).then_some(10_000.0),
            model,
            internals: None,
        }
    }

    fn low_end_disk() -> PlanDevice {
        let figures = HddFigures {
            rpm: 5400.0,
            average_seek_ms: 8.9,
            cache_mib: 32.0,
        };
        device("disk", Kind::Hdd, 1000.0, ModelRef::HddDatasheet(figures))
    }

    fn probe() -> Probe {
        Probe {
            requests: 200,
            ..Probe::default()
        }
    }

    fn b(d: &PlanDevice, classes: &[ClassNeed], cache: Option<&Path>) -> Vec<f64> {
        measure_device(d, classes, &probe(), cache, &mut |_| {}).unwrap()
    }

    /// A shape measured after others (shapes are measured smallest first) gives what it
    /// gives measured alone, within `tolerance` (relative): no shape pays for the device
    /// time of the ones before it.
    fn same_first_and_last(d: &PlanDevice, tolerance: f64) {
        let last = class("last", 64.0 * 1024.0, 0.0);
        let alone = b(d, &[last.clone()], None)[0];
        let shapes = [class("a", 4096.0, 1.0), class("b", 7475.0, 0.2), last];
        let after_others = b(d, &shapes, None)[2];
        assert!(alone > 0.0);
        assert!(
            (after_others - alone).abs() <= tolerance * alone,
            "{}: alone {alone} KB/s, measured last {after_others} KB/s",
            d.id
        );
    }

    /// A disk is built anew for every shape: the same figure exactly.
    #[test]
    fn a_disk_measures_each_shape_on_its_own() {
        same_first_and_last(&low_end_disk(), 0.0);
    }

    /// An SSD model is aged once and its clock restarted for every shape; the shapes
    /// before age it a little further (here 400 requests on a million filled pages).
    #[test]
    fn an_aged_ssd_measures_each_shape_from_an_idle_start() {
        let ssd = device("ssd", Kind::Ssd, 4.0, ModelRef::Ssd("study-slc".into()));
        same_first_and_last(&ssd, 0.01);
    }

    /// A changed data sheet is measured anew, not read from the cache of the old one.
    #[test]
    fn the_cache_key_holds_the_data_sheet_rates() {
        let dir =
            std::env::temp_dir().join(format!("tierlab-plan-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sequential = [class("big", 1024.0 * 1024.0, 1.0)];
        let mut d = low_end_disk();
        let fast = b(&d, &sequential, Some(&dir))[0];
        assert_eq!(
            fast,
            b(&d, &sequential, Some(&dir))[0],
            "read back from the cache"
        );
        d.read_mb_s = 10.0;
        d.write_mb_s = 10.0;
        let slow = b(&d, &sequential, Some(&dir))[0];
        let measured = b(&d, &sequential, None)[0];
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            slow, measured,
            "a 10 MB/s sheet gives its own figure, not the 42.66 MB/s sheet's {fast}"
        );
        assert!(
            slow < fast * 0.5,
            "1 MiB reads: {slow} KB/s at 10 MB/s against {fast} at 42.66"
        );
    }
}
