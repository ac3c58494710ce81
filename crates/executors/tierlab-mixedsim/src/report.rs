//! What a mixed-system run reports: the whole system and each group — requests and
//! pieces, response-time distribution, bytes moved, energy and mean power — and for SSD
//! groups their wear: block erases, erase rate, projected lifetime, host bytes written per
//! day and how full the devices are.
//!
//! Two clocks are used. Rates (IOPS, erases per second, bytes per day) are over the
//! workload's **span**, from the first arrival to the last completion. Mean power is
//! energy over the **duration**, from time 0 to the last completion, because devices are
//! powered (and their energy accounted) from time 0, as in every tierlab run.
//!
//! Lifetime, as the research projects it (Kim 2009, Eq. 4.8 and section 5.2: perfect
//! wear leveling, no other wear), per SSD:
//!
//! `lifetime_years = blocks × erase_cycles / (block_erases / span_s) / seconds_per_year`
//!
//! with `blocks` the drive's physical blocks (spare area included: collection erases
//! those too), `erase_cycles` the rated P/E cycles, and a year of 365 days (the research's). A group
//! lasts as long as its first device to wear out (the minimum). A run that erased nothing
//! projects no lifetime (`None`). Eq. 4.8 as printed, from host writes with no write
//! amplification, is given beside it: `flash_bytes × erase_cycles / host write rate`.

use crate::controller::{GroupStats, MixedController};
use crate::devices::DeviceSpec;
use crate::placement::{ClassSplit, Layout};
use serde::Serialize;
use tierlab_cost::SECONDS_PER_365_DAY_YEAR;
use tierlab_report::LatencyHistogram;
use tierlab_engine::{DeviceRun, SimReport};

/// A response-time distribution, milliseconds (HDR histogram, 3 significant digits).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ResponseTime {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl ResponseTime {
    fn of(h: &LatencyHistogram) -> ResponseTime {
        if h.count() == 0 {
            return ResponseTime::default();
        }
        let s = h.summary();
        ResponseTime {
            count: s.count,
            mean_ms: s.mean_ms,
            p50_ms: s.p50_ms,
            p95_ms: h.quantile_ns(0.95) as f64 / 1e6,
            p99_ms: s.p99_ms,
            max_ms: s.max_ms,
        }
    }
}

/// The whole system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemReport {
    pub devices: u32,
    pub records: u64,
    pub placed_bytes: u64,
    pub capacity_bytes: u64,
    /// Host requests completed.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// Device operations: one per record a request touches.
    pub pieces: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Requests per second of span.
    pub throughput_iops: f64,
    /// Host response time: arrival to the completion of the request's last piece.
    pub response_time: ResponseTime,
    pub read_response_time: ResponseTime,
    pub write_response_time: ResponseTime,
    pub energy_j: f64,
    pub mean_power_w: f64,
}

/// An SSD group's wear (see the module documentation for the lifetime formula).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SsdWear {
    pub erase_cycles: u32,
    /// Physical blocks of one device.
    pub blocks_per_device: u64,
    pub block_erases: u64,
    pub block_erases_per_device: Vec<u64>,
    /// Erases per second of span, the group's devices together.
    pub erase_rate_per_s: f64,
    /// Years until the group's first device reaches its rated cycles; `None`: no erases.
    pub lifetime_years: Option<f64>,
    /// Host bytes written to the group per day of span.
    pub host_write_bytes_per_day: f64,
    /// Eq. 4.8 as printed (host writes, no write amplification), the group's first device
    /// to wear out; `None`: no writes.
    pub lifetime_years_host_writes: Option<f64>,
}

/// One device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceFigures {
    /// `group/index`.
    pub name: String,
    pub records: u64,
    pub placed_bytes: u64,
    pub capacity_bytes: u64,
    /// Placed bytes / capacity.
    pub utilisation: f64,
    pub ops: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Share of the span with an operation in service.
    pub busy_fraction: f64,
    pub energy_j: f64,
    pub mean_power_w: f64,
    /// SSDs: block erases in the run.
    pub block_erases: Option<u64>,
    pub erase_rate_per_s: Option<f64>,
    pub lifetime_years: Option<f64>,
    pub host_write_bytes_per_day: Option<f64>,
    pub lifetime_years_host_writes: Option<f64>,
    /// SSDs: flash page programs per host page written.
    pub write_amplification: Option<f64>,
    /// Operations the device refused (an SSD out of space); 0 in a sound run.
    pub rejected_ops: u64,
}

/// One group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    pub name: String,
    /// `ssd` or `hdd`.
    pub kind: String,
    pub model: String,
    pub devices: u32,
    pub device_capacity_bytes: u64,
    pub capacity_bytes: u64,
    pub records: u64,
    pub placed_bytes: u64,
    /// Placed bytes / capacity.
    pub utilisation: f64,
    /// Host requests with at least one piece here.
    pub requests: u64,
    pub pieces: u64,
    pub read_pieces: u64,
    pub write_pieces: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Pieces served here: the request's arrival to the piece's completion.
    pub response_time: ResponseTime,
    /// Host requests touching the group, to their completion (a request split over
    /// groups counts in each).
    pub request_response_time: ResponseTime,
    /// Mean over the devices of the share of the span each had an operation in service.
    pub busy_fraction: f64,
    pub energy_j: f64,
    pub mean_power_w: f64,
    pub ssd: Option<SsdWear>,
    /// Disk figures that are estimates, not the catalog's.
    pub estimates: Vec<String>,
    pub per_device: Vec<DeviceFigures>,
}

/// Counts that show nothing was lost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Integrity {
    pub requests_arrived: u64,
    pub requests_completed: u64,
    /// Requests the engine saw complete (in the measured window, when a warm-up was cut).
    pub engine_requests: u64,
    pub pieces_submitted: u64,
    pub pieces_completed: u64,
    /// Callbacks whose clock was earlier than the previous one's.
    pub clock_regressions: u64,
}

/// Everything a mixed-system run measures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MixedReport {
    pub seed: u64,
    pub record_bytes: u64,
    pub replay: String,
    pub scheduler: String,
    /// First arrival to last completion, seconds (the base of every rate).
    pub span_s: f64,
    /// Time 0 to the last completion, seconds (the base of mean power).
    pub duration_s: f64,
    pub system: SystemReport,
    pub groups: Vec<GroupReport>,
    /// How each class's records were split over the groups.
    pub classes: Vec<ClassSplit>,
    pub integrity: Integrity,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

fn counter(run: &DeviceRun, key: &str) -> Option<f64> {
    run.device.counters.get(key).copied()
}

/// `blocks × cycles / (erases / span_s)` in years; `None` without erases or time.
pub fn lifetime_years(blocks: u64, erase_cycles: u32, erases: u64, span_s: f64) -> Option<f64> {
    if span_s <= 0.0 {
        return None;
    }
    tierlab_cost::erase_lifetime_years(
        blocks as f64,
        f64::from(erase_cycles),
        erases as f64 / span_s,
    )
}

/// Eq. 4.8: `flash_bytes × cycles / (host_write_bytes / span_s)` in years; `None`
/// without writes or time.
pub fn lifetime_years_host_writes(
    flash_bytes: u64,
    erase_cycles: u32,
    host_write_bytes: u64,
    span_s: f64,
) -> Option<f64> {
    (host_write_bytes > 0 && span_s > 0.0).then(|| {
        flash_bytes as f64 * f64::from(erase_cycles)
            / (host_write_bytes as f64 / span_s)
            / SECONDS_PER_365_DAY_YEAR
    })
}

fn min_option(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    values.flatten().min_by(f64::total_cmp)
}

pub(crate) fn build(
    layout: &Layout,
    sim: &SimReport,
    ctl: &MixedController<'_>,
    replay: String,
    scheduler: String,
) -> MixedReport {
    // A measured run's figures cover its window, from the end of the warm-up on.
    let span_s = match ctl.window_from_ns.or(ctl.first_arrival_ns) {
        Some(first) => ctl.last_ns.saturating_sub(first) as f64 / 1e9,
        None => 0.0,
    };
    let duration_s = ctl.last_ns.saturating_sub(ctl.window_from_ns.unwrap_or(0)) as f64 / 1e9;
    let rb = layout.record_bytes;
    let mut groups = Vec::with_capacity(layout.groups.len());
    for (g, spec) in layout.groups.iter().enumerate() {
        let first = layout.first_device[g] as usize;
        let runs: Vec<&DeviceRun> = (first..first + spec.count as usize)
            .filter_map(|d| sim.devices.get(d))
            .collect();
        let records = layout.records_on_devices(g);
        let device_capacity_bytes = layout.device_capacity_bytes(g);
        let ssd = match &spec.device {
            DeviceSpec::Ssd(s) => Some((
                s.erase_cycles(),
                s.spec.total_blocks(),
                s.spec.total_blocks().saturating_mul(s.spec.block_bytes()),
            )),
            DeviceSpec::Hdd(_) => None,
        };
        let per_device: Vec<DeviceFigures> = runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                let placed_bytes = records.get(i).copied().unwrap_or(0).saturating_mul(rb);
                let erases = ssd.and(counter(run, "block_erases")).map(|e| e as u64);
                let (life, life_writes, per_day) = match ssd {
                    Some((cycles, blocks, flash_bytes)) => (
                        lifetime_years(blocks, cycles, erases.unwrap_or(0), span_s),
                        lifetime_years_host_writes(flash_bytes, cycles, run.write_bytes, span_s),
                        Some(ratio(run.write_bytes as f64, span_s) * 86_400.0),
                    ),
                    None => (None, None, None),
                };
                DeviceFigures {
                    name: format!("{}/{i}", spec.name),
                    records: records.get(i).copied().unwrap_or(0),
                    placed_bytes,
                    capacity_bytes: device_capacity_bytes,
                    utilisation: ratio(placed_bytes as f64, device_capacity_bytes as f64),
                    ops: run.ops,
                    read_bytes: run.read_bytes,
                    write_bytes: run.write_bytes,
                    busy_fraction: run.utilisation,
                    energy_j: run.device.energy_j,
                    mean_power_w: ratio(run.device.energy_j, duration_s),
                    block_erases: erases,
                    erase_rate_per_s: erases.map(|e| ratio(e as f64, span_s)),
                    lifetime_years: life,
                    host_write_bytes_per_day: per_day,
                    lifetime_years_host_writes: life_writes,
                    write_amplification: ssd.and(counter(run, "write_amplification")),
                    rejected_ops: counter(run, "rejected_requests").map_or(0, |r| r as u64),
                }
            })
            .collect();
        let stats: &GroupStats = &ctl.groups[g];
        let energy_j: f64 = per_device.iter().map(|d| d.energy_j).sum();
        let placed_bytes: u64 = per_device.iter().map(|d| d.placed_bytes).sum();
        let capacity_bytes = device_capacity_bytes.saturating_mul(u64::from(spec.count));
        let wear = ssd.map(|(erase_cycles, blocks, _)| {
            let block_erases_per_device: Vec<u64> = per_device
                .iter()
                .map(|d| d.block_erases.unwrap_or(0))
                .collect();
            let block_erases = block_erases_per_device.iter().sum();
            SsdWear {
                erase_cycles,
                blocks_per_device: blocks,
                block_erases,
                block_erases_per_device,
                erase_rate_per_s: ratio(block_erases as f64, span_s),
                lifetime_years: min_option(per_device.iter().map(|d| d.lifetime_years)),
                host_write_bytes_per_day: ratio(stats.write_bytes as f64, span_s) * 86_400.0,
                lifetime_years_host_writes: min_option(
                    per_device.iter().map(|d| d.lifetime_years_host_writes),
                ),
            }
        });
        groups.push(GroupReport {
            name: spec.name.clone(),
            kind: spec.device.kind().to_string(),
            model: spec.device.model_name().to_string(),
            devices: spec.count,
            device_capacity_bytes,
            capacity_bytes,
            records: records.iter().sum(),
            placed_bytes,
            utilisation: ratio(placed_bytes as f64, capacity_bytes as f64),
            requests: stats.requests,
            pieces: stats.read_pieces + stats.write_pieces,
            read_pieces: stats.read_pieces,
            write_pieces: stats.write_pieces,
            read_bytes: stats.read_bytes,
            write_bytes: stats.write_bytes,
            response_time: ResponseTime::of(&stats.piece_response),
            request_response_time: ResponseTime::of(&stats.request_response),
            busy_fraction: ratio(
                per_device.iter().map(|d| d.busy_fraction).sum(),
                per_device.len() as f64,
            ),
            energy_j,
            mean_power_w: ratio(energy_j, duration_s),
            ssd: wear,
            estimates: match &spec.device {
                DeviceSpec::Hdd(h) => h.estimates.clone(),
                DeviceSpec::Ssd(_) => Vec::new(),
            },
            per_device,
        });
    }
    let energy_j: f64 = groups.iter().map(|g| g.energy_j).sum();
    let system = SystemReport {
        devices: groups.iter().map(|g| g.devices).sum(),
        records: groups.iter().map(|g| g.records).sum(),
        placed_bytes: groups.iter().map(|g| g.placed_bytes).sum(),
        capacity_bytes: groups.iter().map(|g| g.capacity_bytes).sum(),
        requests: ctl.window_completed,
        reads: sim.reads,
        writes: sim.writes,
        pieces: groups.iter().map(|g| g.pieces).sum(),
        read_bytes: sim.read_bytes,
        write_bytes: sim.write_bytes,
        throughput_iops: ratio(ctl.window_completed as f64, span_s),
        response_time: ResponseTime::of(&ctl.response),
        read_response_time: ResponseTime::of(&ctl.read_response),
        write_response_time: ResponseTime::of(&ctl.write_response),
        energy_j,
        mean_power_w: ratio(energy_j, duration_s),
    };
    MixedReport {
        seed: layout.seed,
        record_bytes: rb,
        replay,
        scheduler,
        span_s,
        duration_s,
        system,
        groups,
        classes: layout.splits.clone(),
        integrity: Integrity {
            requests_arrived: ctl.requests_arrived,
            requests_completed: ctl.requests_completed,
            engine_requests: sim.requests,
            pieces_submitted: ctl.pieces_submitted,
            pieces_completed: ctl.pieces_completed,
            clock_regressions: ctl.clock_regressions,
        },
    }
}
