//! `tierlab replicate …`: power-aware remote replication (Goda & Kitsuregawa, USENIX ATC
//! 2008). `run` replays a primary and its secondary under conventional replication and
//! the chosen schemes and states each one's saving; `sweep` does so over windows, RTOs,
//! warehouse counts and standby levels (the paper's Figures 3 and 4); `plan` evaluates
//! the batch formulas and the analytic power model without simulating (Table 3); `log`
//! writes an update stream to a file that `run --log` replays. The studies are
//! `tierlab_replication_study`'s and their rendering `tierlab_render::replicate`'s; this
//! module turns flags and a config file into their configurations, naming the flag or the
//! file's line at fault in errors, and writes what comes back.

use crate::progress::{runs_bar, simulated_bar, write_file, write_json};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use tierlab_render::replicate::{describe, render_grid, render_log, render_plan, render_run, render_run_csv, render_sweep, render_sweep_csv, RunContext};
use tierlab_replica_policy::Trigger;
use tierlab_replication_sim::{data_standby, Redo, ReplicationConfig, Scheme, Shipping, SourceSpec};
use tierlab_replication_study::{DriveChoice, GridConfig, LogConfig, LogSource, PlanConfig, PlanStudyError, RunConfig, SweepConfig, WriteLogError};
use tierlab_system_power::LowPower;
use tierlab_update_log::PlanMode;
use tierlab_update_stream::TpccConfig;

#[derive(Subcommand)]
pub enum ReplicateCommand {
    /// Replay a primary at saturation and its secondary under conventional replication
    /// and the chosen schemes; report each scheme's power saving, apply speed-up r, batch
    /// interval, start/stop cycles, worst recovery time and per-disk energy. Default: the
    /// paper's set-up (160 TPC-C warehouses, 36Z15 disks, RTO 100 s, 512 MiB window, 4 h).
    /// Each scheme runs until its power is within 5 % over whole cycles, or the duration
    /// ends it; `run` simulates three by default: conventional, proposed and
    /// conventional-pooled (a release build: about 3 CPU-minutes, `--hours 2` about 2).
    Run(Box<RunArgs>),
    /// Run the schemes over the cross product of windows, RTOs, warehouse counts and
    /// standby levels (conventional replication once per workload) and report the savings
    /// as a table, JSON, CSV or a self-contained HTML report with the paper's charts.
    /// Heavy: `--windows 32M,128M,512M --rtos 100,300` takes about 15 CPU-minutes in a
    /// release build.
    Sweep(Box<SweepArgs>),
    /// The batch planner without simulation: the cycle length T_wnd, apply time, cycles
    /// per day, worst recovery and the analytic power saving for a speed-up r (or R_gen
    /// and R_apl) and an RTO on a disk's standby level; `--grid` prints the paper's grid.
    Plan(Box<PlanArgs>),
    /// Write an update stream (the TPC-C generator, or a trace's writes) to an update log
    /// file, which `replicate run --log FILE` replays.
    Log(Box<LogArgs>),
}

pub fn run(cmd: ReplicateCommand) -> Result<()> {
    match cmd {
        ReplicateCommand::Run(a) => run_cmd(*a),
        ReplicateCommand::Sweep(a) => sweep_cmd(*a),
        ReplicateCommand::Plan(a) => plan_cmd(*a),
        ReplicateCommand::Log(a) => log_cmd(*a),
    }
}

// ---------------------------------------------------------------------------------------
// Options

/// Options `run` and `sweep` share: the source, the sites, the link, the policy's mode.
#[derive(Args, Clone, Debug)]
pub struct ReplicationOptions {
    /// A TOML file with the replication settings at top level (disk, power_profile,
    /// standby, data_disks, log_disks, level, stripe_unit_bytes, primary_depth,
    /// duration_s, warmup_s, measure, rto_s, rto_mode, trigger, window_bytes, merge_max_bytes,
    /// apply_cache_bytes, apply_depth, ewma_weight, data_disk_share), a `[link]` table and
    /// a `[source]` table with `kind = "tpcc" | "forward" | "log-file"` (see
    /// examples/replicate.toml). Flags given override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Transactions the TPC-C generator yields (default: as many as the duration takes).
    #[arg(long, value_name = "N", conflicts_with_all = ["trace", "log"])]
    pub transactions: Option<u64>,
    /// Seed of the TPC-C generator (default 0).
    #[arg(long, value_name = "N", conflicts_with_all = ["trace", "log"])]
    pub seed: Option<u64>,
    /// The TPC-C primary's database buffer: bytes, or with a unit (default 512M, the
    /// paper's). A buffer smaller than the database makes the primary disk-bound.
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes, conflicts_with_all = ["trace", "log"])]
    pub buffer_pool: Option<u64>,
    /// Requests the primary keeps outstanding (it runs at saturation) (default 128).
    #[arg(long, value_name = "N")]
    pub primary_depth: Option<u32>,
    /// Forward the writes of this block trace (any format `tierlab trace formats` lists)
    /// instead of running the TPC-C generator.
    #[arg(long, value_name = "FILE", conflicts_with = "log")]
    pub trace: Option<PathBuf>,
    /// With --trace: pack the blocks the trace touches densely instead of laying its
    /// volumes end to end.
    #[arg(long, requires = "trace")]
    pub compact: bool,
    /// Replay this update log file (written by `tierlab replicate log`).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Primary time simulated, hours (default 4).
    #[arg(long, value_name = "HOURS", conflicts_with = "duration_s", allow_negative_numbers = true)]
    pub hours: Option<f64>,
    /// Primary time simulated, s.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub duration_s: Option<f64>,
    /// The secondary's least warm-up, s (default 600): measured over whole replica
    /// cycles, the window starts at the first wake-up after it where the last two cycles
    /// agree (`docs/measurement.md`); with --no-measure, from here.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub warmup_s: Option<f64>,
    /// Measure from --warmup-s to the end of the run instead of over whole cycles from a
    /// detected steady state until the power is within 5 %.
    #[arg(long)]
    pub no_measure: bool,
    /// How the RTO bounds a batch: paper (recovery within the RTO while the disks spin,
    /// the paper's formula) or strict (at every instant, spin-up included) (default paper).
    #[arg(long, value_name = "MODE")]
    pub rto_mode: Option<PlanMode>,
    /// When a deferring secondary wakes its data volume: backlog (when the backlog reaches
    /// what the RTO allows) or schedule (the batch formula's fixed cycle) (default backlog).
    #[arg(long, value_name = "TRIGGER")]
    pub trigger: Option<Trigger>,
    /// Catalog drive of both sites (default ibm-ultrastar-36z15; `tierlab catalog list`).
    #[arg(long, value_name = "ID")]
    pub disk: Option<String>,
    /// The drive's power profile (default replication, the paper's figures).
    #[arg(long, value_name = "NAME")]
    pub power_profile: Option<String>,
    /// Disks of the secondary's data volume (and of the primary's) (default 16).
    #[arg(long, value_name = "N")]
    pub data_disks: Option<usize>,
    /// Disks of the log volumes (default 1).
    #[arg(long, value_name = "N")]
    pub log_disks: Option<usize>,
    /// The secondary's apply-side page cache: bytes, or with a unit (512M) (default 512M).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes)]
    pub apply_cache: Option<u64>,
    /// How a row record's change reaches its page, for every scheme: read-modify-write
    /// (the page is read unless cached: what redo of a row log needs) or blind (pages
    /// written without reading: what a log of whole page images would allow) (default
    /// read-modify-write).
    #[arg(long, value_name = "REDO")]
    pub redo: Option<Redo>,
    /// One-way latency of the link, s (default 0).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub latency_s: Option<f64>,
    /// Bandwidth of the link, bytes per second, or with a unit (100M) (default: not a
    /// limit).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes)]
    pub bandwidth: Option<u64>,
    /// Ship asynchronously: a commit waits for the secondary only while more than this
    /// many shipped bytes are not yet durable there (bytes, or with a unit: 16M).
    /// Default: synchronous shipping.
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes)]
    pub async_lag: Option<u64>,
    /// The secondary site's system description (TOML: a controller and the enclosures
    /// holding its data and log disks, data first; see `tierlab system show`): reports
    /// then give the site's whole power and its saving beside the disks'.
    #[arg(long, value_name = "FILE")]
    pub system: Option<PathBuf>,
    /// What the data volume's sleep does in the system: spin-down (the drive's standby)
    /// or power-down (the enclosure cuts the slots' power). Default: the system file's.
    #[arg(long, value_name = "MODE", requires = "system")]
    pub low_power: Option<LowPower>,
    /// Schemes to run besides conventional replication, comma-separated: proposed,
    /// conventional-pooled, deferred-only, compaction-only, idle-timeout (conventional,
    /// which reflects each update at once, is always run: it is the reference for
    /// savings; conventional-pooled applies through a write-back cache and, when listed,
    /// each scheme's saving against it is reported beside).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "proposed,conventional-pooled")]
    pub schemes: Vec<String>,
    /// Print the result as JSON.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the result as CSV, one line per scheme (per point with `sweep`).
    #[arg(long)]
    pub csv: bool,
    /// Also write a self-contained HTML report with charts here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Args)]
pub struct RunArgs {
    /// TPC-C warehouses (default 160).
    #[arg(long, value_name = "N", conflicts_with_all = ["trace", "log"])]
    pub warehouses: Option<u32>,
    /// Log read, compacted and applied per window: bytes, or with a unit (512M)
    /// (default 512M).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes)]
    pub window: Option<u64>,
    /// The recovery time objective, s (default 100).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub rto_s: Option<f64>,
    /// The standby level the data volume sleeps in (default: the profile's deepest).
    #[arg(long, value_name = "LEVEL")]
    pub standby: Option<String>,
    /// Show the per-disk table of every scheme, conventional included.
    #[arg(long)]
    pub disks: bool,
    #[command(flatten)]
    pub opts: ReplicationOptions,
}

#[derive(Args)]
pub struct SweepArgs {
    /// TPC-C warehouse counts, comma-separated (default: the config file's, else 160).
    #[arg(long, value_name = "LIST", value_delimiter = ',', conflicts_with_all = ["trace", "log"])]
    pub warehouses: Option<Vec<u32>>,
    /// Window sizes, comma-separated, each bytes or with a unit [default: 32M,128M,512M].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = crate::args::parse_bytes)]
    pub windows: Option<Vec<u64>>,
    /// RTOs, s, comma-separated [default: 30,100,300,1000].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_negative_numbers = true)]
    pub rtos: Option<Vec<f64>>,
    /// Standby levels of the drive's profile, comma-separated (default: the config file's
    /// level, else the profile's deepest).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub standby_levels: Option<Vec<String>>,
    #[command(flatten)]
    pub opts: ReplicationOptions,
}

/// A rate in bytes per second: `1048576`, `1M`, `4.03M`, `512K/s`, `20MiB/s` (binary
/// units, as sizes are everywhere in tierlab).
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix("/s").unwrap_or(t).trim_end();
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let n: f64 = num.parse().map_err(|_| format!("expected a rate in bytes/s such as 1048576, 1M or 4.03M, found `{s}`"))?;
    let mult: f64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1.0,
        "K" | "KB" | "KIB" => 1024.0,
        "M" | "MB" | "MIB" => 1024.0 * 1024.0,
        "G" | "GB" | "GIB" => 1024.0 * 1024.0 * 1024.0,
        u => return Err(format!("unknown unit `{u}` in `{s}` (expected K, M or G)")),
    };
    let v = n * mult;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("expected a rate above zero, found `{s}`"))
    }
}

/// The settings after the config file and the flags, and where each came from (for
/// errors).
#[derive(Clone)]
struct Settings {
    cfg: ReplicationConfig,
    /// The config file's name and text.
    file: Option<(String, String)>,
    /// Settings a flag gave: (field, flag).
    given: Vec<(&'static str, &'static str)>,
    schemes: Vec<Scheme>,
}

impl Settings {
    /// An error about `field` (`message` says what was expected) named after the flag
    /// that set it, or located in the config file that did; `None` when it is a default.
    fn blame(&self, field: &str, message: &str) -> Option<anyhow::Error> {
        if let Some((_, flag)) = self.given.iter().find(|(f, _)| *f == field) {
            return Some(anyhow!("{flag}: {message}"));
        }
        let (name, text) = self.file.as_ref()?;
        let top = field.split('.').next().unwrap_or(field);
        let in_file = text.parse::<toml::Table>().is_ok_and(|t| t.contains_key(top));
        in_file.then(|| tierlab_config::field_error(text, name, tierlab_config::FieldError::new(field, message)).into())
    }

    /// `e`, when it is about a settings field (its message starts with the field in
    /// backticks), blamed as [`Settings::blame`] does; otherwise unchanged.
    fn blame_error(&self, e: anyhow::Error) -> anyhow::Error {
        let text = e.to_string();
        let Some((field, message)) = text.strip_prefix('`').and_then(|rest| rest.split_once('`')) else {
            return e;
        };
        let message = message.trim_start_matches(':').trim_start();
        // "`a` and `b`: …": a flag that set either is at fault before the file.
        if let Some(second) = message.strip_prefix("and `").and_then(|m| m.split_once('`')).map(|(f, _)| f) {
            let flagged = [second, field].into_iter().find(|f| self.given.iter().any(|(g, _)| g == f));
            return self.blame(flagged.unwrap_or(field), &text).or_else(|| self.blame(second, &text)).unwrap_or(e);
        }
        self.blame(field, message).unwrap_or(e)
    }

    /// `cfg` (these settings with a sweep's values laid over them) checked, every problem
    /// named after its flag or located in the config file.
    fn check(&self, cfg: &ReplicationConfig) -> Result<()> {
        cfg.check().map_err(|e| self.blame_error(e))?;
        if let Some(spec) = &cfg.system {
            if let Err(e) = spec.resolve_with_own_catalog(cfg.data_disks + cfg.log_disks) {
                let e = e.within("system");
                return Err(self.blame(&e.key, &e.message).unwrap_or_else(|| anyhow!("the secondary's system description: {e}")));
            }
        }
        if let SourceSpec::Tpcc(t) = &cfg.source {
            if let Err(errors) = t.check() {
                let e = &errors.0[0];
                return Err(self.blame(&format!("source.{}", e.field), &e.message).unwrap_or_else(|| anyhow!("{e}")));
            }
        }
        Ok(())
    }
}

fn load_config(path: &Path) -> Result<(ReplicationConfig, String)> {
    let cfg: ReplicationConfig = tierlab_config::load_toml(path)?;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok((cfg, text))
}

/// The single-value settings of `run` (`sweep` passes none and lays its lists over them).
#[derive(Default)]
struct Single<'a> {
    warehouses: Option<u32>,
    window: Option<u64>,
    rto_s: Option<f64>,
    standby: Option<&'a str>,
}

impl ReplicationOptions {
    fn settings(&self, single: Single) -> Result<Settings> {
        let (mut cfg, file) = match &self.config {
            Some(p) => {
                let (cfg, text) = load_config(p)?;
                (cfg, Some((p.display().to_string(), text)))
            }
            None => (ReplicationConfig::default(), None),
        };
        let mut given = Vec::new();
        if let Some(path) = &self.trace {
            cfg.source = SourceSpec::Forward { path: path.clone(), compact: self.compact };
        } else if let Some(path) = &self.log {
            cfg.source = SourceSpec::LogFile { path: path.clone() };
        } else if single.warehouses.is_some() || self.transactions.is_some() || self.seed.is_some() || self.buffer_pool.is_some() {
            if !matches!(cfg.source, SourceSpec::Tpcc(_)) {
                cfg.source = SourceSpec::Tpcc(TpccConfig::default());
            }
            let SourceSpec::Tpcc(t) = &mut cfg.source else { unreachable!("set above") };
            if let Some(w) = single.warehouses {
                t.warehouses = w;
                given.push(("source.warehouses", "--warehouses"));
            }
            if let Some(n) = self.transactions {
                t.transactions = Some(n);
                given.push(("source.transactions", "--transactions"));
            }
            if let Some(s) = self.seed {
                t.seed = s;
            }
            if let Some(b) = self.buffer_pool {
                t.buffer_pool_bytes = b;
            }
        }
        if let Some(d) = self.primary_depth {
            cfg.primary_depth = d;
            given.push(("primary_depth", "--primary-depth"));
        }
        if let Some(h) = self.hours {
            cfg.duration_s = h * 3600.0;
            given.push(("duration_s", "--hours"));
        }
        if let Some(d) = self.duration_s {
            cfg.duration_s = d;
            given.push(("duration_s", "--duration-s"));
        }
        if let Some(w) = self.warmup_s {
            cfg.warmup_s = w;
            given.push(("warmup_s", "--warmup-s"));
        }
        if self.no_measure {
            cfg.measure = false;
        }
        if let Some(w) = single.window {
            cfg.window_bytes = w;
            given.push(("window_bytes", "--window"));
        }
        if let Some(r) = single.rto_s {
            cfg.rto_s = r;
            given.push(("rto_s", "--rto-s"));
        }
        if let Some(m) = self.rto_mode {
            cfg.rto_mode = m;
        }
        if let Some(t) = self.trigger {
            cfg.trigger = t;
        }
        if let Some(d) = &self.disk {
            cfg.disk = d.clone();
        }
        if let Some(p) = &self.power_profile {
            cfg.power_profile = Some(p.clone());
        }
        if let Some(s) = single.standby {
            cfg.standby = Some(s.to_string());
        }
        if let Some(n) = self.data_disks {
            cfg.data_disks = n;
            given.push(("data_disks", "--data-disks"));
        }
        if let Some(n) = self.log_disks {
            cfg.log_disks = n;
            given.push(("log_disks", "--log-disks"));
        }
        if let Some(b) = self.apply_cache {
            cfg.apply_cache_bytes = b;
        }
        if let Some(r) = self.redo {
            cfg.redo = r;
        }
        if let Some(l) = self.latency_s {
            cfg.link.latency_s = l;
            given.push(("link.latency_s", "--latency-s"));
        }
        if let Some(b) = self.bandwidth {
            cfg.link.bandwidth_bytes_s = Some(b as f64);
            given.push(("link.bandwidth_bytes_s", "--bandwidth"));
        }
        if let Some(lag) = self.async_lag {
            cfg.link.shipping = Shipping::Async { max_lag_bytes: lag };
        }
        if let Some(path) = &self.system {
            cfg.system = Some(tierlab_system_study::load_system(path, cfg.data_disks + cfg.log_disks)?);
        }
        if let (Some(mode), Some(system)) = (self.low_power, cfg.system.as_mut()) {
            system.low_power = mode;
        }
        let mut schemes = Vec::new();
        for name in &self.schemes {
            let s: Scheme = name.trim().parse().map_err(|e| anyhow!("--schemes: {e}"))?;
            if !schemes.contains(&s) {
                schemes.push(s);
            }
        }
        if schemes.is_empty() {
            bail!("--schemes: expected at least one scheme");
        }
        let s = Settings { cfg, file, given, schemes };
        s.check(&s.cfg)?;
        Ok(s)
    }
}

// ---------------------------------------------------------------------------------------
// run

fn run_cmd(a: RunArgs) -> Result<()> {
    let single = Single { warehouses: a.warehouses, window: a.window, rto_s: a.rto_s, standby: a.standby.as_deref() };
    let s = a.opts.settings(single)?;
    let study = RunConfig { replication: s.cfg.clone(), schemes: s.schemes.clone() };
    study.standby()?;
    // Progress in seconds of primary time over every run (conventional and each scheme).
    let per_run_s = s.cfg.duration_s.ceil().max(1.0) as u64;
    let runs = 1 + s.schemes.iter().filter(|&&k| k != Scheme::Conventional).count() as u64;
    let bar = simulated_bar(per_run_s * runs);
    let mut done_runs = 0u64;
    let mut current = String::new();
    let report = tierlab_replication_study::run(&study, &mut |name, secs| {
        if current != name {
            if !current.is_empty() {
                done_runs += 1;
            }
            current = name.to_string();
            bar.set_message(format!("{name} (run {} of {runs})", done_runs + 1));
        }
        bar.set_position(done_runs * per_run_s + secs.min(per_run_s));
    });
    crate::progress::finish_counting(&bar, "replicate run", "s simulated");
    let report = report.map_err(|e| s.blame_error(e))?;
    let c = &report.comparison;
    let ctx = RunContext { lines: describe(&s.cfg, Some(&report.standby), true), all_disks: a.disks };
    if let Some(path) = &a.opts.html {
        write_file(path, tierlab_render::replicate_html::render_run(c, &ctx)?)?;
    }
    let mut out = crate::session::stdout();
    if a.opts.json {
        write_json(&mut out, &report)?;
    } else if a.opts.csv {
        write!(out, "{}", render_run_csv(c))?;
    } else {
        write!(out, "{}", render_run(c, &ctx))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// sweep

fn sweep_cmd(a: SweepArgs) -> Result<()> {
    let mut s = a.opts.settings(Single::default())?;
    if a.warehouses.is_some() && !matches!(s.cfg.source, SourceSpec::Tpcc(_)) {
        s.cfg.source = SourceSpec::Tpcc(TpccConfig::default());
    }
    let study = SweepConfig {
        base: s.cfg.clone(),
        windows_bytes: a.windows.clone().unwrap_or_else(|| vec![32 << 20, 128 << 20, 512 << 20]),
        rtos_s: a.rtos.clone().unwrap_or_else(|| vec![30.0, 100.0, 300.0, 1000.0]),
        warehouses: match (&a.warehouses, &s.cfg.source) {
            (Some(list), _) => list.iter().map(|&w| Some(w)).collect(),
            (None, SourceSpec::Tpcc(t)) => vec![Some(t.warehouses)],
            (None, _) => vec![None],
        },
        standby_levels: match &a.standby_levels {
            Some(list) => list.iter().map(|l| Some(l.trim().to_string())).collect(),
            None => vec![s.cfg.standby.clone()],
        },
        with_pooled: s.schemes.contains(&Scheme::ConventionalPooled),
        schemes: s.schemes.clone(),
    };
    // The study names its lists; the flags that gave them are what the user typed.
    study.validate().map_err(|e| {
        let text = e.to_string();
        let flags = [("`windows_bytes`", "--windows"), ("`rtos_s`", "--rtos"), ("`warehouses`", "--warehouses"), ("`standby_levels`", "--standby-levels"), ("`schemes`", "--schemes")];
        match flags.iter().find(|(field, _)| text.starts_with(field)) {
            Some((field, flag)) => anyhow!("{flag}{}", &text[field.len()..]),
            None => e,
        }
    })?;
    // Every configuration is checked before anything runs.
    let mut given = [&s.given[..], &[("window_bytes", "--windows"), ("rto_s", "--rtos")]].concat();
    if a.warehouses.is_some() {
        given.push(("source.warehouses", "--warehouses"));
    }
    let sweep_blame = Settings { given, ..s.clone() };
    for point in study.points() {
        sweep_blame.check(&point)?;
        data_standby(&point).map_err(|e| match &point.standby {
            Some(_) if a.standby_levels.is_some() => anyhow!("--standby-levels: {e}"),
            _ => e,
        })?;
    }
    let bar = runs_bar(study.runs());
    let report = tierlab_replication_study::sweep(&study, &mut |label, done| {
        bar.set_message(label.to_string());
        bar.set_position(done as u64);
    })
    .map_err(|e| sweep_blame.blame_error(e))?;
    bar.set_position(study.runs() as u64);
    crate::progress::finish(&bar, "replicate sweep");
    if let Some(path) = &a.opts.html {
        write_file(path, tierlab_render::replicate_html::render_sweep(&report)?)?;
    }
    let mut out = crate::session::stdout();
    if a.opts.json {
        write_json(&mut out, &report)?;
    } else if a.opts.csv {
        write!(out, "{}", render_sweep_csv(&report))?;
    } else {
        write!(out, "{}", render_sweep(&report))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// plan

#[derive(Args)]
pub struct PlanArgs {
    /// The apply speed-up r = R_apl / R_gen.
    #[arg(long = "r", value_name = "R", allow_negative_numbers = true, conflicts_with_all = ["r_gen", "r_apl", "grid"])]
    pub r: Option<f64>,
    /// The log generation rate R_gen: bytes/s, or with a unit (1M, 4.5M).
    #[arg(long, value_name = "RATE", value_parser = parse_rate, requires = "r_apl", conflicts_with = "grid")]
    pub r_gen: Option<f64>,
    /// The compacted apply rate R_apl: bytes/s, or with a unit (20M).
    #[arg(long, value_name = "RATE", value_parser = parse_rate, requires = "r_gen")]
    pub r_apl: Option<f64>,
    /// The recovery time objective, s (default 100).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, conflicts_with = "grid")]
    pub rto_s: Option<f64>,
    /// paper (recovery within the RTO while the disks spin) or strict (at every instant)
    /// (default paper).
    #[arg(long, value_name = "MODE")]
    pub mode: Option<PlanMode>,
    /// Catalog drive of the data volume (default ibm-ultrastar-36z15).
    #[arg(long, value_name = "ID")]
    pub disk: Option<String>,
    /// The drive's power profile (default replication).
    #[arg(long, value_name = "NAME")]
    pub power_profile: Option<String>,
    /// The standby level (default: the profile's deepest; `--grid`: every level).
    #[arg(long, value_name = "LEVEL")]
    pub standby: Option<String>,
    /// Check that one batch of log fits a log volume of this size (bytes, or with a unit).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes, conflicts_with = "grid")]
    pub log_volume: Option<u64>,
    /// Check that a compaction window of this size fits the log volume.
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes, requires = "log_volume")]
    pub window: Option<u64>,
    /// The conventional secondary's data-disk utilisation, for the analytic power model.
    #[arg(long, value_name = "U", default_value_t = 1.0, allow_negative_numbers = true)]
    pub u: f64,
    /// Print the paper's grid instead: r ∈ {4.030, 9.5835, 20.4486, 49.3} × RTO ∈ {30,
    /// 100, 300, 1000} s × the profile's standby levels.
    #[arg(long)]
    pub grid: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A plan-study error named after the flag that set its field.
fn plan_flag_error(e: PlanStudyError) -> anyhow::Error {
    let (field, message) = match e {
        PlanStudyError::Field { field, message } => (field, message),
        PlanStudyError::NoSpeed => return anyhow!("give the speed-up as --r R, or the rates as --r-gen RATE --r-apl RATE (or --grid for the paper's grid)"),
        PlanStudyError::Other(e) => return e,
    };
    let flag = match field {
        "u" => "--u",
        "r" => "--r",
        "r_gen_bytes_s" | "r_apl_bytes_s" => "--r-gen/--r-apl",
        "rto_s" => "--rto-s",
        "window_bytes" => "--window",
        "log_volume_bytes" => "--log-volume",
        other => other,
    };
    anyhow!("{flag}: {message}")
}

fn plan_cmd(a: PlanArgs) -> Result<()> {
    let defaults = PlanConfig::default();
    let drive = DriveChoice {
        disk: a.disk.clone().unwrap_or(defaults.drive.disk),
        power_profile: a.power_profile.clone().or(defaults.drive.power_profile),
        standby: a.standby.clone(),
    };
    let mode = a.mode.unwrap_or_default();
    let mut out = crate::session::stdout();
    if a.grid {
        let report = tierlab_replication_study::grid(&GridConfig { drive, mode, u: a.u }).map_err(plan_flag_error)?;
        return match a.json {
            true => write_json(&mut out, &report),
            false => Ok(write!(out, "{}", render_grid(&report))?),
        };
    }
    let cfg = PlanConfig {
        drive,
        r: a.r,
        r_gen_bytes_s: a.r_gen,
        r_apl_bytes_s: a.r_apl,
        rto_s: a.rto_s.unwrap_or(defaults.rto_s),
        mode,
        log_volume_bytes: a.log_volume,
        window_bytes: a.window,
        u: a.u,
    };
    let report = tierlab_replication_study::plan(&cfg).map_err(plan_flag_error)?;
    match a.json {
        true => write_json(&mut out, &report),
        false => Ok(write!(out, "{}", render_plan(&report))?),
    }
}

// ---------------------------------------------------------------------------------------
// log

#[derive(Args)]
pub struct LogArgs {
    /// Transactions to write (required for the TPC-C generator, which has no end; with
    /// --trace, at most this many).
    #[arg(long, value_name = "N")]
    pub transactions: Option<u64>,
    /// TPC-C warehouses (default 160).
    #[arg(long, value_name = "N", conflicts_with = "trace")]
    pub warehouses: Option<u32>,
    /// Seed of the TPC-C generator (default 0).
    #[arg(long, value_name = "N", conflicts_with = "trace")]
    pub seed: Option<u64>,
    /// The TPC-C primary's database buffer: bytes, or with a unit (default 512M).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes, conflicts_with = "trace")]
    pub buffer_pool: Option<u64>,
    /// Forward the writes of this block trace instead of running the TPC-C generator.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// With --trace: pack the blocks the trace touches densely.
    #[arg(long, requires = "trace")]
    pub compact: bool,
    /// The update log file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

fn log_cmd(a: LogArgs) -> Result<()> {
    let source = match &a.trace {
        Some(path) => LogSource::Forward { path: path.clone(), compact: a.compact },
        None => {
            let mut cfg = TpccConfig::default();
            if let Some(w) = a.warehouses {
                cfg.warehouses = w;
            }
            if let Some(s) = a.seed {
                cfg.seed = s;
            }
            if let Some(b) = a.buffer_pool {
                cfg.buffer_pool_bytes = b;
            }
            LogSource::Tpcc(cfg)
        }
    };
    let report = tierlab_replication_study::write_log(&LogConfig { source, transactions: a.transactions, output: a.output.clone() }).map_err(|e| match e {
        WriteLogError::Field { field, message } => {
            let flag = match field.as_str() {
                "source.warehouses" => "--warehouses",
                "transactions" => "--transactions",
                other => other.strip_prefix("source.").unwrap_or(other),
            };
            anyhow!("{flag}: {message}")
        }
        WriteLogError::Other(e) => e,
    })?;
    write!(crate::session::stdout(), "{}", render_log(&report))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_take_units_and_decimals() {
        assert_eq!(parse_rate("1048576"), Ok(1048576.0));
        assert_eq!(parse_rate("1M"), Ok(1048576.0));
        assert_eq!(parse_rate("2.5K/s"), Ok(2560.0));
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("3Q").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn modes_parse_and_reject_others() {
        assert_eq!("strict".parse(), Ok(PlanMode::Strict));
        assert_eq!("paper".parse(), Ok(PlanMode::Paper));
        assert_eq!("schedule".parse(), Ok(Trigger::Schedule));
        assert!("soon".parse::<Trigger>().unwrap_err().contains("`soon`"));
    }
}
