//! One replication run and a comparison of schemes.

use crate::config::{ReplicationConfig, Scheme};
use tierlab_replica_policy::Defer;
use crate::primary::{run_primary, volumes, Arrival, PrimaryReport};
use crate::replica::{ApplyStats, ReplicaController, ReplicaSetup};
use crate::{add_disks, secondary_disk};
use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use tierlab_array_sim::{s_to_ns, system_usage, DiskModel};
use tierlab_replica_policy::{PolicyConfig, PolicyReport, ReplicaPolicy, VolumeCosts};
use tierlab_update_log::{
    break_even_s, t_wnd, CompactionConfig, Compactor, StandbyCosts, Transition,
};
use tierlab_engine::{Controller, DeviceRun, Observer, Replay, SchedulerKind, Simulation};
use tierlab_measure::{CycleCounters, CycleMeasurement, CycleProbe, CycleProtocol, CycleSummary, Interval};
use tierlab_system_power::SystemEnergy;
use tierlab_types::{IoRequest, Op};

/// The data volume's standby level, its costs, and the disk's idle and active power.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DataStandby {
    pub level: String,
    pub idle_w: f64,
    pub active_w: f64,
    pub costs: StandbyCosts,
    /// Idle time beyond which a spin-down saves energy (never less than `T_up + T_down`).
    pub break_even_s: f64,
}

/// The standby level of `cfg`'s disk that the data volume sleeps in (the chosen one, or
/// the profile's deepest; slot power-down when its system powers slots down) and what
/// it costs.
pub fn data_standby(cfg: &ReplicationConfig) -> Result<DataStandby> {
    standby_of(cfg, &secondary_disk(cfg, cfg.system()?.as_ref())?)
}

fn standby_of(cfg: &ReplicationConfig, model: &DiskModel) -> Result<DataStandby> {
    let profile = tierlab_devices::power_profile(&model.entry, cfg.power_profile.as_deref())?
        .ok_or_else(|| {
            anyhow!(
                "drive `{}` has no power figures: a replica's energy cannot be accounted",
                cfg.disk
            )
        })?;
    let spec = &profile.spec;
    let index = match &model.choice.standby {
        Some(name) => spec.standby_index(name).ok_or_else(|| {
            let known: Vec<&str> = spec.standby.iter().map(|l| l.name.as_str()).collect();
            anyhow!(
                "power profile `{}` of `{}` has no standby level `{name}`: it has {}",
                profile.name,
                cfg.disk,
                known.join(", ")
            )
        })?,
        None => spec.deepest_standby().ok_or_else(|| {
            anyhow!(
                "power profile `{}` of `{}` has no usable standby level",
                profile.name,
                cfg.disk
            )
        })?,
    };
    let level = &spec.standby[index];
    let (Some(down), Some(up)) = (level.enter, level.leave) else {
        bail!(
            "standby level `{}` of `{}` (profile `{}`) has unknown transition costs",
            level.name,
            cfg.disk,
            profile.name
        );
    };
    let costs = StandbyCosts {
        standby_w: level.power_w,
        down: Transition {
            time_s: down.time_s,
            energy_j: down.energy_j,
        },
        up: Transition {
            time_s: up.time_s,
            energy_j: up.energy_j,
        },
    };
    let break_even_s = break_even_s(spec.idle_w, &costs)
        .map_err(|e| anyhow!("standby level `{}` of `{}`: {e}", level.name, cfg.disk))?;
    Ok(DataStandby {
        level: level.name.clone(),
        idle_w: spec.idle_w,
        active_w: spec.active_w,
        costs,
        break_even_s,
    })
}

/// One disk's figures over the measured part of a run.
#[derive(Clone, Debug, Serialize)]
pub struct DiskFigures {
    pub name: String,
    pub role: &'static str,
    pub average_power_w: f64,
    pub utilisation: f64,
    pub start_stop_cycles: f64,
    pub start_stops_per_day: f64,
    /// (state, seconds, joules)
    pub states: Vec<(String, f64, f64)>,
}

/// What one scheme did.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicationRun {
    pub scheme: Scheme,
    pub source: String,
    pub disk: String,
    pub standby: DataStandby,
    pub rto_s: f64,
    pub window_bytes: u64,
    pub primary: PrimaryReport,
    /// Measured part of the secondary's run, s.
    pub span_s: f64,
    /// Log bytes reaching the secondary per second, over the measured cycles (the
    /// primary's whole run when not measured by cycles).
    pub r_gen_bytes_s: f64,
    /// Log bytes applied per second of apply time, over the measured cycles (every window
    /// of the run when not measured by cycles).
    pub r_apl_bytes_s: f64,
    pub r: f64,
    /// The batch formula's interval at the measured r (the strict formula in strict mode).
    pub t_wnd_planned_s: f64,
    pub t_wnd_observed_s: f64,
    pub cycles_per_day: f64,
    pub data_utilisation: f64,
    pub data_power_w: f64,
    pub log_power_w: f64,
    /// Mean per data disk and per log disk.
    pub data_disk_w: f64,
    pub log_disk_w: f64,
    pub policy: PolicyReport,
    pub apply: ApplyStats,
    pub disks: Vec<DiskFigures>,
    /// The secondary site's whole energy, when its system is described.
    pub system: Option<SystemEnergy>,
    /// How the run was measured, when over whole cycles: the disks' powers and busy
    /// shares above are then the window's.
    pub measured: Option<CycleMeasured>,
    /// Commits the primary shipped that the secondary never took: the run stopped once
    /// its measurement was precise.
    pub not_taken: NotTaken,
}

/// Commits shipped after the secondary stopped, and their log bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct NotTaken {
    pub commits: u64,
    pub log_bytes: u64,
}

/// Run the primary and the secondary under `scheme`. `progress` is told, now and then,
/// how far the run is: whole seconds of primary time (commits up to that instant have
/// reached the secondary), out of `cfg.duration_s`.
pub fn run_replication(
    cfg: &ReplicationConfig,
    scheme: Scheme,
    progress: &mut dyn FnMut(u64),
) -> Result<ReplicationRun> {
    cfg.check()?;
    let system = cfg.system()?;
    let model = secondary_disk(cfg, system.as_ref())?;
    let standby = standby_of(cfg, &model)?;
    let costs = standby.costs;
    // The secondary reads the log again from its source; the primary's data I/O is the
    // primary's (run_primary), not modelled twice.
    let mut cursor = cfg.source.open()?;
    cursor.records_only();
    let page_bytes = cursor.page_bytes().max(512);

    let mut sim = Simulation::new(SchedulerKind::Fcfs).end_with_last_request().without_device_latency();
    if cfg.warmup_s > 0.0 && !cfg.measure {
        sim = sim.measure_from(s_to_ns(cfg.warmup_s));
    }
    let disk_bytes = add_disks(cfg, &model, &mut sim, cfg.data_disks + cfg.log_disks)?;
    let (data, log, _) = volumes(cfg, disk_bytes)?;
    if cfg.window_bytes > log.capacity_bytes() {
        bail!("`window_bytes`: a window of {} bytes is larger than the log volume ({} bytes on {} disks)", cfg.window_bytes, log.capacity_bytes(), cfg.log_disks);
    }
    let compaction = if scheme.compacts() {
        CompactionConfig {
            page_bytes,
            fold: true,
            sort: true,
            merge_max_bytes: (cfg.merge_max_bytes > 0).then_some(cfg.merge_max_bytes),
        }
    } else {
        CompactionConfig::plain_redo(page_bytes)
    };
    let policy = ReplicaPolicy::new(PolicyConfig {
        defer: scheme.defer(),
        trigger: cfg.trigger,
        mode: cfg.rto_mode,
        rto_s: cfg.rto_s,
        costs: VolumeCosts {
            up_s: costs.up.time_s,
            down_s: costs.down.time_s,
            break_even_s: standby.break_even_s,
        },
        window_bytes: cfg.window_bytes,
        drain_floor_bytes: (cfg.window_bytes / 64).max(4096),
        ewma_weight: cfg.ewma_weight,
        // Recovery is scored from the least warm-up on, whatever window the power is
        // measured over: every instant after it is one a disaster could strike.
        measure_from_ns: s_to_ns(cfg.warmup_s),
    });
    let arrivals = Rc::new(RefCell::new(VecDeque::new()));
    let mut controller = ReplicaController::new(
        cfg,
        scheme,
        ReplicaSetup {
            data,
            log,
            policy,
            compactor: Compactor::new(compaction).map_err(|e| anyhow!("{e}"))?,
            page_bytes,
            cursor,
            arrivals: arrivals.clone(),
            spin_down_s: costs.down.time_s,
            spin_up_s: costs.up.time_s,
            idle_timeout_ns: (scheme == Scheme::IdleTimeout).then(|| s_to_ns(standby.break_even_s)),
        },
    );

    let (tx, mut rx) = crate::shipping::link();
    let primary_cfg = cfg.clone();
    let primary = std::thread::Builder::new()
        .name("tierlab-primary".into())
        .spawn(move || run_primary(&primary_cfg, tx))
        .context("cannot start the primary's thread")?;
    let reached_ns = Rc::new(std::cell::Cell::new(0u64));
    let reached = reached_ns.clone();
    let requests = rx.by_ref().map(|a: Arrival| {
        reached.set(a.arrive_ns);
        arrivals.borrow_mut().push_back(a);
        Ok::<_, std::io::Error>(IoRequest {
            time_ns: a.arrive_ns,
            volume: 0,
            offset_bytes: 0,
            len_bytes: a.log_bytes.max(1),
            op: Op::Write,
        })
    });
    let protocol = CycleProtocol { min_warmup_s: cfg.warmup_s, max_warmup_s: (cfg.duration_s / 2.0).max(cfg.warmup_s), ..CycleProtocol::default() };
    // A deferring scheme's cycle starts when its data volume begins to wake; the others
    // are measured over fixed periods.
    let probe: Option<CycleProbe> = (scheme.defer() != Defer::Never).then(|| Box::new(|c: &dyn Controller| c.report()["last_spin_up_ns"].as_u64()) as CycleProbe);
    // Each cycle also counts the log that arrived, the log applied and the time spent
    // applying it, so that the apply rate is the window's, as the power is.
    let counters: CycleCounters = Box::new(|c: &dyn Controller| {
        let report = c.report();
        ["arrived_bytes", "log_bytes_applied", "apply_busy_s"].iter().map(|k| report[k].as_f64().unwrap_or(0.0)).collect()
    });
    let mut cycles = cfg.measure.then(|| CycleMeasurement::new(&protocol, probe).with_counters(counters));
    let report = sim.run_observed(requests, Replay::Open, &mut controller, cycles.as_mut().map(|c| c as &mut dyn Observer), &mut |_| {
        progress(reached_ns.get() / tierlab_types::NS_PER_S)
    });
    // The secondary has what it needs (or failed): the primary starts no more
    // transactions, and what it ships from here on is counted, never applied.
    rx.stop();
    let mut not_taken = NotTaken::default();
    for a in arrivals.borrow_mut().drain(..).chain(rx) {
        not_taken.commits += 1;
        not_taken.log_bytes += a.log_bytes;
    }

    let primary = primary
        .join()
        .map_err(|_| anyhow!("the primary's thread panicked"))??;
    let report = report.map_err(|e| anyhow!("secondary: {e}"))?;
    if let Some(e) = controller.cursor_error() {
        bail!("reading the update stream back for applying: {e}");
    }
    controller.finish();
    let measured = cycles.map(|c| CycleMeasured::of(c, cfg));
    let energy = match &system {
        Some(s) => Some(
            s.account(&system_usage(&report.devices, report.span_s, &model))
                .map_err(|e| anyhow!(e))?,
        ),
        None => None,
    };
    Ok(ReplicationRun {
        system: energy,
        not_taken,
        ..summarise(
            cfg,
            scheme,
            standby,
            primary,
            &controller,
            &report.devices,
            report.span_s,
            measured,
        )
    })
}

/// A run measured over whole replica cycles (`ReplicationConfig::measure`): the window's
/// powers with their 95 % intervals (the regenerative ratio estimator over its cycles).
#[derive(Clone, Debug, Serialize)]
pub struct CycleMeasured {
    #[serde(flatten)]
    pub summary: CycleSummary,
    pub data_power_w: Interval,
    pub log_power_w: Interval,
    /// Power per disk weighted as the paper's reference system (`data_disk_share` data,
    /// the rest log): what the weighted saving compares.
    pub weighted_disk_w: Interval,
    /// Log bytes that reached the secondary per second of the window, and log bytes
    /// applied per second of apply time in it (0 when nothing was applied): the run's
    /// `r_gen_bytes_s` and `r_apl_bytes_s`, so not written twice.
    #[serde(skip)]
    r_gen_bytes_s: f64,
    #[serde(skip)]
    r_apl_bytes_s: f64,
    /// Per disk over the window's cycles: mean power, W, and the share of time busy.
    #[serde(skip)]
    per_disk: Vec<(f64, f64)>,
}

impl CycleMeasured {
    fn of(m: CycleMeasurement, cfg: &ReplicationConfig) -> CycleMeasured {
        let (window, summary) = m.finish();
        let nd = cfg.data_disks;
        let data = |e: &[f64]| e[..nd.min(e.len())].iter().sum::<f64>();
        let log = |e: &[f64]| e[nd.min(e.len())..].iter().sum::<f64>();
        let f = cfg.data_disk_share;
        let seconds: f64 = window.iter().map(|c| c.seconds()).sum();
        let disks = window.first().map_or(0, |c| c.energy_j.len());
        let per_disk = (0..disks)
            .map(|d| {
                let energy: f64 = window.iter().map(|c| c.energy_j[d]).sum();
                let busy_s: f64 = window.iter().map(|c| c.busy_ns[d] as f64 / 1e9).sum();
                (energy / seconds, busy_s / seconds)
            })
            .collect();
        let counted = |i: usize| window.iter().map(|c| c.counters.get(i).copied().unwrap_or(0.0)).sum::<f64>();
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        CycleMeasured {
            r_gen_bytes_s: ratio(counted(0), seconds),
            r_apl_bytes_s: ratio(counted(1), counted(2)),
            data_power_w: CycleMeasurement::figure(&window, data),
            log_power_w: CycleMeasurement::figure(&window, log),
            weighted_disk_w: CycleMeasurement::figure(&window, |e| f * data(e) / nd as f64 + (1.0 - f) * log(e) / cfg.log_disks as f64),
            summary,
            per_disk,
        }
    }
}

fn summarise(
    cfg: &ReplicationConfig,
    scheme: Scheme,
    standby: DataStandby,
    primary: PrimaryReport,
    c: &ReplicaController,
    devices: &[DeviceRun],
    span_s: f64,
    measured: Option<CycleMeasured>,
) -> ReplicationRun {
    // Measured by cycles, each disk's power and busy share are its window's.
    let window = measured.as_ref().filter(|m| m.summary.cycles > 0 && m.per_disk.len() == devices.len());
    let day = 86_400.0;
    let disks: Vec<DiskFigures> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let cycles = d
                .device
                .counters
                .get("start_stop_cycles")
                .copied()
                .unwrap_or(0.0)
                + d.device
                    .counters
                    .get("load_unload_cycles")
                    .copied()
                    .unwrap_or(0.0);
            DiskFigures {
                name: d.device.name.clone(),
                role: if i < cfg.data_disks { "data" } else { "log" },
                average_power_w: match window {
                    Some(m) => m.per_disk[i].0,
                    None if span_s > 0.0 => d.device.energy_j / span_s,
                    None => 0.0,
                },
                utilisation: window.map_or(d.utilisation, |m| m.per_disk[i].1),
                start_stop_cycles: cycles,
                start_stops_per_day: if span_s > 0.0 {
                    cycles * day / span_s
                } else {
                    0.0
                },
                states: d
                    .device
                    .states
                    .iter()
                    .map(|s| (s.state.clone(), s.time_ns as f64 / 1e9, s.energy_j))
                    .collect(),
            }
        })
        .collect();
    let sum = |role: &str| {
        disks
            .iter()
            .filter(|d| d.role == role)
            .map(|d| d.average_power_w)
            .sum::<f64>()
    };
    let (data_power_w, log_power_w) = (sum("data"), sum("log"));
    let stats = c.stats().clone();
    let policy = c.policy().report();
    // Measured by cycles, the rates are the window's; otherwise the whole run's.
    let (r_gen, r_apl) = match window {
        Some(m) if m.r_apl_bytes_s > 0.0 => (m.r_gen_bytes_s, m.r_apl_bytes_s),
        _ => (primary.r_gen_bytes_s, if stats.apply_busy_s > 0.0 { stats.log_bytes_applied as f64 / stats.apply_busy_s } else { 0.0 }),
    };
    // A deferring scheme's cycle length is the window's too.
    let mean_cycle_s = match window {
        Some(m) if m.summary.own_cycles => m.summary.cycle_s.mean,
        _ => policy.mean_cycle_s,
    };
    let r = if r_gen > 0.0 { r_apl / r_gen } else { 0.0 };
    let t_wnd_planned_s = if r > 1.0 {
        t_wnd(r, cfg.rto_s)
    } else {
        f64::INFINITY
    };
    ReplicationRun {
        scheme,
        source: cfg.source.label(),
        disk: cfg.disk.clone(),
        standby,
        rto_s: cfg.rto_s,
        window_bytes: cfg.window_bytes,
        primary,
        span_s,
        r_gen_bytes_s: r_gen,
        r_apl_bytes_s: r_apl,
        r,
        t_wnd_planned_s,
        t_wnd_observed_s: mean_cycle_s,
        cycles_per_day: if mean_cycle_s > 0.0 {
            day / mean_cycle_s
        } else {
            0.0
        },
        data_utilisation: disks
            .iter()
            .filter(|d| d.role == "data")
            .map(|d| d.utilisation)
            .sum::<f64>()
            / cfg.data_disks as f64,
        data_power_w,
        log_power_w,
        data_disk_w: data_power_w / cfg.data_disks as f64,
        log_disk_w: log_power_w / cfg.log_disks as f64,
        policy,
        apply: stats,
        disks,
        system: None,
        measured,
        not_taken: NotTaken::default(),
    }
}

/// One scheme against conventional replication.
#[derive(Clone, Debug, Serialize)]
pub struct SchemeRow {
    pub run: ReplicationRun,
    /// 1 − P/P_conventional over the simulated data and log disks.
    pub saving_total: f64,
    /// The same with the disks weighted as the paper's reference system
    /// (`data_disk_share` data, the rest log).
    pub saving_weighted: f64,
    /// Data disks alone.
    pub saving_data: f64,
    /// The secondary site's whole power (controller, enclosures, disks), when its system
    /// is described.
    pub saving_system: Option<f64>,
    /// The weighted saving against the pooled baseline (`conventional-pooled`), when it
    /// was run beside.
    pub saving_weighted_vs_pooled: Option<f64>,
    /// Half-width of the weighted saving's 95 % interval, when both runs were measured by
    /// cycles (the two power estimates taken as independent).
    pub saving_weighted_half_width: Option<f64>,
}

/// Several schemes on the same primary.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The conventional run's mean data-disk utilisation: how busy the baseline is.
    pub u: f64,
    /// The same of the pooled baseline, when it was run.
    pub u_pooled: Option<f64>,
    pub rows: Vec<SchemeRow>,
}

impl SchemeRow {
    /// `run` against the conventional run `base` of the same primary; `data_disk_share`
    /// weights data and log disks as the paper's reference system.
    pub fn against(run: ReplicationRun, base: &ReplicationRun, data_disk_share: f64) -> SchemeRow {
        let f = data_disk_share;
        let weighted = |r: &ReplicationRun| f * r.data_disk_w + (1.0 - f) * r.log_disk_w;
        let saving = |p: f64, c: f64| if c > 0.0 { 1.0 - p / c } else { 0.0 };
        SchemeRow {
            saving_total: saving(
                run.data_power_w + run.log_power_w,
                base.data_power_w + base.log_power_w,
            ),
            saving_weighted: saving(weighted(&run), weighted(base)),
            saving_data: saving(run.data_power_w, base.data_power_w),
            saving_system: match (&run.system, &base.system) {
                (Some(e), Some(b)) => Some(e.saving_against(b).system),
                _ => None,
            },
            saving_weighted_vs_pooled: None,
            saving_weighted_half_width: match (&run.measured, &base.measured) {
                (Some(r), Some(b)) if b.weighted_disk_w.mean > 0.0 => {
                    let q = r.weighted_disk_w.mean / b.weighted_disk_w.mean;
                    Some(q * (r.weighted_disk_w.relative().powi(2) + b.weighted_disk_w.relative().powi(2)).sqrt())
                }
                _ => None,
            },
            run,
        }
    }

    /// Also state the weighted saving against the pooled baseline `pooled`.
    pub fn with_pooled(mut self, pooled: &ReplicationRun, data_disk_share: f64) -> SchemeRow {
        self.saving_weighted_vs_pooled =
            Some(SchemeRow::against(self.run.clone(), pooled, data_disk_share).saving_weighted);
        self
    }
}

/// Run conventional replication and each of `schemes` (conventional is always first);
/// `progress` is told each run's scheme and its progress as [`run_replication`] gives it.
pub fn compare(
    cfg: &ReplicationConfig,
    schemes: &[Scheme],
    progress: &mut dyn FnMut(&str, u64),
) -> Result<Comparison> {
    let base = run_replication(cfg, Scheme::Conventional, &mut |n| {
        progress(Scheme::Conventional.name(), n)
    })?;
    let mut rows = vec![SchemeRow::against(base.clone(), &base, cfg.data_disk_share)];
    for &s in schemes.iter().filter(|&&s| s != Scheme::Conventional) {
        let run = run_replication(cfg, s, &mut |n| progress(s.name(), n))?;
        rows.push(SchemeRow::against(run, &base, cfg.data_disk_share));
    }
    let pooled = rows
        .iter()
        .find(|r| r.run.scheme == Scheme::ConventionalPooled)
        .map(|r| r.run.clone());
    if let Some(p) = &pooled {
        rows = rows
            .into_iter()
            .map(|r| r.with_pooled(p, cfg.data_disk_share))
            .collect();
    }
    Ok(Comparison {
        u: base.data_utilisation,
        u_pooled: pooled.map(|p| p.data_utilisation),
        rows,
    })
}
