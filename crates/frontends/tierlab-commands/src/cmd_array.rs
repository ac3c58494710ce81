//! `tierlab array …`: energy-managed disk arrays. `simulate` runs one scheme on one
//! workload; `compare` runs schemes × loads (or × R_limit) and states each scheme's saving
//! against RAID-5. The studies are `tierlab_array_study`'s and their rendering
//! `tierlab_render::array`'s; this module turns flags and a config file into their
//! configurations and writes what comes back.

use crate::args::TraceInput;
use crate::cmd_simulate::ReplayMode;
use crate::progress::{requests_bar, runs_bar, write_file, write_json};
use anyhow::{anyhow, bail, Result};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_array_sim::{ArrayConfig, OltpSkew, Protocol};
use tierlab_array_study::{ArrayCompareConfig, ArraySimulateConfig, ArrayStudyError, Loads, Oltp, WorkloadSource, DEFAULT_HOURS};
use tierlab_engine::SchedulerKind;
use tierlab_raid::RaidLevel;
use tierlab_render::array::{render_compare, render_csv, render_run, CompareContext};
use tierlab_system_power::LowPower;

/// The OLTP workload's skew, as a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Skew {
    Zipf,
    HotCold,
}

impl Skew {
    fn oltp(self) -> OltpSkew {
        match self {
            Skew::Zipf => OltpSkew::Zipf,
            Skew::HotCold => OltpSkew::HotCold,
        }
    }
}

/// The schemes `array compare` runs when `--schemes` is absent: the Hibernator paper's set.
pub const DEFAULT_SCHEMES: &str = "raid5,tpm,raid-drpm,pdc-ld,maid,raid-drpm+,pdc-ld+,raid-cr+,hibernator+";

#[derive(Subcommand)]
pub enum ArrayCommand {
    /// Run one energy scheme on one workload on a disk array and report response time,
    /// whether the response-time goal held, energy by power state, and speed changes and
    /// start/stops per disk per day. Default: Hibernator on 24 two-speed disks in RAID-5,
    /// the synthetic OLTP workload at 140 req/s for 4 hours.
    Simulate(Box<ArraySimulateArgs>),
    /// Run several schemes at several loads (or R_limits) on the same array and report each
    /// one's energy saving against RAID-5, as a table, JSON, CSV or a self-contained HTML
    /// report with the Hibernator paper's charts.
    Compare(Box<ArrayCompareArgs>),
}

/// Options `simulate` and `compare` share: the array, the scheme's settings, the workload.
#[derive(Args, Clone, Debug)]
pub struct ArrayOptions {
    /// A TOML file with an `[array]` table (level, disks, stripe_unit_bytes, disk,
    /// power_profile, nvram_bytes, nvram_max_age_s, warm_nvram, max_destages, compact,
    /// wrap, closed_depth, warmup_s, scheduler) and a `[scheme]` table (kind, guarantee,
    /// r_limit_ms, epoch_s, tpm_timeout_s, drpm, pdc, maid, hibernator), both optional. Flags given override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Disks in the array (default 24).
    #[arg(long, value_name = "N")]
    pub disks: Option<usize>,
    /// RAID level: raid0, raid10 or raid5 (default raid5).
    #[arg(long, value_name = "LEVEL")]
    pub level: Option<RaidLevel>,
    /// Stripe unit: bytes, or with a unit (64K, 1M) (default 64K).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes)]
    pub stripe_unit: Option<u64>,
    /// Catalog drive every disk is (default: the Hibernator paper's two-speed 36Z15;
    /// `tierlab catalog list`).
    #[arg(long, value_name = "ID")]
    pub disk: Option<String>,
    /// The drive's power profile (default: its first).
    #[arg(long, value_name = "NAME")]
    pub power_profile: Option<String>,
    /// NVRAM write cache in front of the disks: bytes, or with a unit (2G); 0 for none
    /// (default 2G).
    #[arg(long, value_name = "BYTES", value_parser = crate::args::parse_bytes)]
    pub nvram: Option<u64>,
    /// Pack the blocks a trace touches densely instead of laying its volumes end to end.
    #[arg(long)]
    pub compact: bool,
    /// Fold requests beyond the array's end back into it.
    #[arg(long)]
    pub wrap: bool,
    /// Measure from this many seconds of virtual time on, for the rest of the run (instead
    /// of the measurement layer's detected warm-up; 0 measures the whole run).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub warmup_s: Option<f64>,
    /// Without --warmup-s, a run goes on after its warm-up until the 95 % intervals of its
    /// mean response time and power are within this share of their values (or --hours).
    #[arg(long, value_name = "SHARE", default_value_t = Protocol::default().target_relative_half_width)]
    pub target_interval: f64,
    /// Host requests per batch of the measurement layer (default: a tenth of an epoch of
    /// the load's arrivals, at least 1,000).
    #[arg(long, value_name = "N")]
    pub batch_requests: Option<u64>,
    /// Open-loop replay follows arrival times (the default); closed-loop keeps --depth
    /// requests outstanding.
    #[arg(long, value_enum)]
    pub replay: Option<ReplayMode>,
    /// Requests outstanding in closed-loop replay (implies --replay closed; default 1).
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Disk queue scheduler: fcfs, sstf, clook, clook-lba, sptf or clook-lba+sptf (default fcfs).
    #[arg(long, value_name = "NAME")]
    pub scheduler: Option<SchedulerKind>,
    /// The response-time goal R_limit: the array's mean response time, ms (default 10).
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    pub r_limit_ms: Option<f64>,
    /// The epoch of CR and Hibernator (how often they plan disk speeds), s (default 3600).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub epoch_s: Option<f64>,
    /// TPM's idle timeout before a spin-down, s (default: the disk's break-even time).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub tpm_timeout_s: Option<f64>,
    /// Replay this trace file (any format `tierlab trace formats` lists) instead of the
    /// synthetic OLTP workload.
    #[arg(long, value_name = "FILE", conflicts_with = "workload")]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub input: TraceInput,
    /// A synthetic workload TOML file (see `tierlab workload show`) instead of the OLTP
    /// workload.
    #[arg(long, value_name = "FILE")]
    pub workload: Option<PathBuf>,
    /// Hours of the synthetic OLTP workload: with the measurement layer, the most a run may
    /// take, warm-up included (a warm-up not over by half of it is cut there and marked);
    /// with --warmup-s, the run's length.
    #[arg(long, value_name = "HOURS", default_value_t = DEFAULT_HOURS, allow_negative_numbers = true)]
    pub hours: f64,
    /// How the OLTP workload's accesses are skewed: zipf (θ = 1.08 over 8 KiB pages, kept in
    /// rank order in scattered 16 MiB regions) or hot-cold (90 % of accesses to 10 % of the
    /// space, in the same regions).
    #[arg(long, value_enum, default_value_t = Skew::Zipf)]
    pub skew: Skew,
    /// Seed of the synthetic OLTP workload.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A system description (TOML: a controller and the enclosures that hold the disks;
    /// see `tierlab system show` and examples/system-hibernator.toml): the report then
    /// splits energy into controller, enclosures and disks, and states savings for the
    /// disks alone and for the whole system.
    #[arg(long, value_name = "FILE")]
    pub system: Option<PathBuf>,
    /// What a scheme's spin-down does in the system: spin-down (the drive's standby) or
    /// power-down (the enclosure cuts the slot's power). Default: the system file's.
    #[arg(long, value_name = "MODE", requires = "system")]
    pub low_power: Option<LowPower>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub memory: crate::memory::MemoryArgs,
}

#[derive(Args)]
pub struct ArraySimulateArgs {
    /// The energy scheme: raid5, tpm, raid-drpm, raid-cr, pdc-ld, maid or hibernator; a
    /// trailing `+` adds the performance guarantee (raid-cr+). Default: the config file's
    /// `[scheme] kind`, else hibernator.
    #[arg(long, value_name = "NAME")]
    pub scheme: Option<String>,
    /// Mean arrival rate of the synthetic OLTP workload, requests/s.
    #[arg(long, value_name = "REQ/S", default_value_t = 140.0, allow_negative_numbers = true)]
    pub iops: f64,
    #[command(flatten)]
    pub opts: ArrayOptions,
}

#[derive(Args)]
pub struct ArrayCompareArgs {
    /// Schemes to run, comma-separated (RAID-5 always runs first at each load: it is the
    /// reference for savings).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = DEFAULT_SCHEMES)]
    pub schemes: Vec<String>,
    /// Loads of the synthetic OLTP workload, requests/s, each run for --hours
    /// [default: 7,14,140,700,1400].
    #[arg(long, value_name = "LIST", value_delimiter = ',', conflicts_with_all = ["trace", "workload"])]
    pub loads: Option<Vec<f64>>,
    /// With --trace: replay it at each of these speeds (e.g. 0.5,1,2), one load each.
    #[arg(long, value_name = "LIST", value_delimiter = ',', requires = "trace")]
    pub speeds: Option<Vec<f64>>,
    /// Sweep the response-time goal instead of the load: run every scheme at each of
    /// these R_limits (ms) at the first load (the saving-against-R_limit study).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub r_limits: Option<Vec<f64>>,
    /// Also write the table as CSV here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write a self-contained HTML report with charts here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub opts: ArrayOptions,
}

pub fn run(cmd: ArrayCommand) -> Result<()> {
    match cmd {
        ArrayCommand::Simulate(a) => simulate(*a),
        ArrayCommand::Compare(a) => compare_cmd(*a),
    }
}

/// The array and the scheme settings after the config file and the flags.
#[derive(Clone, Debug)]
pub struct Settings {
    pub array: ArrayConfig,
    /// Scheme settings every scheme run starts from (its kind is replaced by `--scheme`
    /// or each of `--schemes`).
    pub scheme: SchemeConfig,
    /// Whether the config file named the scheme (`[scheme] kind`).
    pub kind_from_file: bool,
}

/// Flags a scheme setting comes from, for errors.
fn scheme_flag(key: &str) -> &str {
    match key {
        "r_limit_ms" => "--r-limit-ms",
        "epoch_s" => "--epoch-s",
        "tpm_timeout_s" => "--tpm-timeout-s",
        k => k,
    }
}

impl ArrayOptions {
    /// The config file's settings with the flags given laid over them.
    pub fn settings(&self) -> Result<Settings> {
        let (mut array, mut scheme, kind_from_file) = match &self.config {
            Some(p) => {
                let f = tierlab_array_study::load_config(p)?;
                (f.array, f.scheme, f.kind_from_file)
            }
            None => (ArrayConfig::default(), SchemeConfig::default(), false),
        };
        if let Some(n) = self.disks {
            array.disks = n;
        }
        if let Some(l) = self.level {
            array.level = l;
        }
        if let Some(u) = self.stripe_unit {
            array.stripe_unit_bytes = u;
        }
        if let Some(d) = &self.disk {
            array.disk = d.clone();
            // A profile named in the file belongs to the file's drive.
            if self.power_profile.is_none() {
                array.power_profile = None;
            }
        }
        if let Some(p) = &self.power_profile {
            array.power_profile = Some(p.clone());
        }
        if let Some(b) = self.nvram {
            array.nvram_bytes = b;
        }
        array.compact |= self.compact;
        array.wrap |= self.wrap;
        if let Some(w) = self.warmup_s {
            if !(w.is_finite() && w >= 0.0) {
                bail!("--warmup-s: expected a warm-up >= 0 s, found {w}");
            }
            array.warmup_s = Some(w);
        }
        match (self.replay, self.depth) {
            (Some(ReplayMode::Open), Some(_)) => bail!("--depth applies to closed-loop replay, not --replay open"),
            (Some(ReplayMode::Open), None) => array.closed_depth = None,
            (Some(ReplayMode::Closed), d) => array.closed_depth = Some(d.or(array.closed_depth).unwrap_or(1)),
            (None, Some(d)) => array.closed_depth = Some(d),
            (None, None) => {}
        }
        if array.closed_depth == Some(0) {
            bail!("--depth: expected at least 1 request outstanding");
        }
        if let Some(s) = self.scheduler {
            array.scheduler = s.to_string();
        }
        // An NVRAM too small to hold a write, or a negative destage age: refused as the
        // study refuses them, in the words of the flag or key that set them.
        tierlab_array_study::check_array(&array).map_err(blame)?;
        if let Some(path) = &self.system {
            array.system = Some(tierlab_system_study::load_system(path, array.disks)?);
        }
        if let (Some(mode), Some(system)) = (self.low_power, array.system.as_mut()) {
            system.low_power = mode;
            system.resolve_with_own_catalog(array.disks).map_err(|e| anyhow!("--low-power {}: {e}", mode.name()))?;
        }
        if array.warmup_s.is_none() {
            let t = self.target_interval;
            if !(t.is_finite() && t > 0.0) {
                bail!("--target-interval: expected a share > 0, found {t}");
            }
            if self.batch_requests == Some(0) {
                bail!("--batch-requests: expected at least 1");
            }
            // Batch size and request cap 0: taken from each load (`tierlab_array_sim`).
            array.measure = Some(Protocol { batch_requests: self.batch_requests.unwrap_or(0), target_relative_half_width: t, max_requests: 0, ..Protocol::default() });
        }
        if let Some(r) = self.r_limit_ms {
            scheme.r_limit_ms = r;
        }
        if let Some(e) = self.epoch_s {
            scheme.epoch_s = e;
        }
        if let Some(t) = self.tpm_timeout_s {
            scheme.tpm_timeout_s = Some(t);
        }
        if let Err((key, expected)) = scheme.check() {
            bail!("{}: expected {expected}", scheme_flag(&key));
        }
        Ok(Settings { array, scheme, kind_from_file })
    }

    /// Trace-only flags given without a trace are a mistake worth naming.
    fn check_trace_flags(&self) -> Result<()> {
        if self.trace.is_none()
            && (self.input.format.is_some()
                || self.input.sort
                || !self.input.volumes.is_empty()
                || self.input.start_s != 0.0
                || self.input.end_s.is_some()
                || self.input.speed != 1.0
                || self.input.max_requests.is_some())
        {
            bail!("--format, --sort, --volume, --start-s, --end-s, --speed and --max-requests apply to --trace only");
        }
        Ok(())
    }

    /// The OLTP workload's settings.
    fn oltp(&self) -> Oltp {
        Oltp { hours: self.hours, seed: self.seed, skew: self.skew.oltp() }
    }
}

/// A scheme by name with the shared settings; an unknown name lists the known ones.
fn scheme_named(name: &str, base: &SchemeConfig, flag: &str) -> Result<SchemeConfig> {
    let named = SchemeConfig::named(name.trim()).map_err(|e| anyhow!("{flag}: {e}"))?;
    Ok(SchemeConfig { kind: named.kind, guarantee: named.guarantee, ..base.clone() })
}

fn simulate(a: ArraySimulateArgs) -> Result<()> {
    let s = a.opts.settings()?;
    let scheme = match &a.scheme {
        Some(name) => scheme_named(name, &s.scheme, "--scheme")?,
        None if s.kind_from_file => s.scheme.clone(),
        None => SchemeConfig { kind: SchemeKind::Hibernator, ..s.scheme.clone() },
    };
    let o = &a.opts;
    let memory_limit_bytes = o.memory.limit_bytes()?;
    o.check_trace_flags()?;
    let workload = match (&o.trace, &o.workload) {
        (Some(path), _) => WorkloadSource::Trace { path: path.clone(), read: o.input.read_options()? },
        (None, Some(path)) => WorkloadSource::File { path: path.clone() },
        (None, None) => WorkloadSource::Oltp { iops: a.iops, oltp: o.oltp() },
    };
    let cfg = ArraySimulateConfig { array: s.array, scheme, workload, memory_limit_bytes };
    let bar = requests_bar(&format!("simulating {}", cfg.scheme.label()));
    let run = tierlab_array_study::simulate(&cfg, &mut |n| bar.set_position(n));
    finish(&bar, "array simulate", &run);
    let run = run.map_err(blame)?;
    let mut out = crate::session::stdout();
    if o.json {
        write_json(&mut out, &run)?;
    } else {
        write!(out, "{}", render_run(&cfg.array, &run))?;
    }
    Ok(())
}

fn compare_cmd(a: ArrayCompareArgs) -> Result<()> {
    if a.speeds.is_some() && a.opts.input.speed != 1.0 {
        bail!("--speed and --speeds: give one or the other");
    }
    let o = &a.opts;
    let s = o.settings()?;
    if a.schemes.is_empty() {
        bail!("--schemes: expected at least one scheme");
    }
    let mut schemes = Vec::with_capacity(a.schemes.len());
    for name in &a.schemes {
        schemes.push(scheme_named(name, &s.scheme, "--schemes")?);
    }
    let memory_limit_bytes = o.memory.limit_bytes()?;
    let loads = match (&o.trace, &o.workload) {
        (Some(path), _) => {
            // Each load's speed is checked as one of --speeds (the study's `loads.speeds`).
            let speeds = a.speeds.clone().unwrap_or_else(|| vec![o.input.speed]);
            let read = TraceInput { speed: 1.0, ..o.input.clone() }.read_options()?;
            Loads::Trace { path: path.clone(), read, speeds }
        }
        (None, Some(path)) => {
            o.check_trace_flags()?;
            Loads::File { path: path.clone() }
        }
        (None, None) => {
            o.check_trace_flags()?;
            if a.loads.as_ref().is_some_and(Vec::is_empty) {
                bail!("--loads: expected at least one load");
            }
            Loads::Oltp { rates_iops: a.loads.clone().unwrap_or_default(), oltp: o.oltp() }
        }
    };
    let cfg = ArrayCompareConfig { array: s.array, schemes, loads, r_limits: a.r_limits.clone(), memory_limit_bytes };
    let bar = runs_bar(cfg.runs());
    let report = tierlab_array_study::compare(&cfg, &mut |done, total, label| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(format!("done: {label}"));
    });
    finish(&bar, "array compare", &report);
    let report = report.map_err(blame)?;
    let ctx = CompareContext::of(&cfg, &report);
    if let Some(path) = &a.csv {
        write_file(path, render_csv(&report.rows))?;
    }
    if let Some(path) = &a.html {
        write_file(path, tierlab_render::array_html::render(&report.rows, &ctx)?)?;
    }
    let mut out = crate::session::stdout();
    if o.json {
        write_json(&mut out, &report)?;
    } else {
        write!(out, "{}", render_compare(&report.rows, &ctx))?;
    }
    Ok(())
}

/// The bar's summary for a study that ran (or failed in a run); a configuration refused
/// before any run leaves no summary.
fn finish<T>(bar: &indicatif::ProgressBar, command: &str, result: &Result<T, ArrayStudyError>) {
    match result {
        Ok(_) | Err(ArrayStudyError::Run(_)) => crate::progress::finish(bar, command),
        Err(_) => bar.finish_and_clear(),
    }
}

/// A study's error in the words of the flags (or config keys) that set the field at fault.
fn blame(e: ArrayStudyError) -> anyhow::Error {
    use ArrayStudyError as E;
    let flag = |field: &str| match field {
        "workload.iops" => "--iops",
        "workload.hours" | "loads.hours" => "--hours",
        "loads.rates_iops" => "--loads",
        "loads.speeds" => "--speeds",
        "r_limits" => "--r-limits",
        "schemes" => "--schemes",
        _ => "",
    };
    match e {
        E::NotPositive { field, what, found } if !flag(field).is_empty() => anyhow!("{}: expected {what} > 0, found {found}", flag(field)),
        E::Empty { field, what } if !flag(field).is_empty() => anyhow!("{}: expected at least one {what}", flag(field)),
        E::Field { field: "array.nvram_bytes", expected, found } => anyhow!("the NVRAM (--nvram, or nvram_bytes in [array]): expected {expected}, found {found}"),
        E::Field { field: "array.nvram_max_age_s", expected, found } => anyhow!("nvram_max_age_s in [array]: expected {expected}, found {found}"),
        E::Geometry { level, disks, disk, message } => anyhow!("cannot build a {level} array of {disks} × {disk}: {message}"),
        E::Memory { disks, disk, per_disk_bytes, queued_requests, need_bytes, limit_bytes } => {
            let queued = if queued_requests > 0.0 { format!(" with {} requests queued beyond what its disks serve", crate::memory::count(queued_requests)) } else { String::new() };
            let what = format!("an array of {disks} × {disk} ({:.1} MiB a disk){queued}", per_disk_bytes / (1u64 << 20) as f64);
            crate::memory::refusal(need_bytes, &what, limit_bytes)
        }
        E::Run(e) | E::Model(e) => e,
        e => e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(subcommand)]
        cmd: ArrayCommand,
    }

    fn sim(args: &[&str]) -> ArraySimulateArgs {
        let mut v = vec!["tierlab", "simulate"];
        v.extend_from_slice(args);
        match Flags::parse_from(v).cmd {
            ArrayCommand::Simulate(a) => *a,
            ArrayCommand::Compare(_) => unreachable!(),
        }
    }

    #[test]
    fn sizes_take_units() {
        assert_eq!(crate::args::parse_bytes("65536"), Ok(65536));
        assert_eq!(crate::args::parse_bytes("64K"), Ok(64 << 10));
        assert_eq!(crate::args::parse_bytes("2GiB"), Ok(2 << 30));
        assert!(crate::args::parse_bytes("3Q").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn flags_override_defaults_and_depth_implies_closed_loop() {
        let s = sim(&["--disks", "6", "--level", "raid10", "--stripe-unit", "32K", "--nvram", "0", "--depth", "3", "--r-limit-ms", "20"]).opts.settings().unwrap();
        assert_eq!((s.array.disks, s.array.level, s.array.stripe_unit_bytes, s.array.nvram_bytes), (6, RaidLevel::Raid10, 32 << 10, 0));
        assert_eq!(s.array.closed_depth, Some(3));
        assert_eq!(s.scheme.r_limit_ms, 20.0);
        let s = sim(&[]).opts.settings().unwrap();
        // The command measures through the measurement layer by default; the library's
        // default configuration leaves that to its caller. Everything else agrees.
        assert!(s.array.measure.is_some());
        assert_eq!(s.array, ArrayConfig { measure: s.array.measure.clone(), ..ArrayConfig::default() });
        assert!(sim(&["--replay", "open", "--depth", "2"]).opts.settings().is_err());
        let e = sim(&["--r-limit-ms", "-1"]).opts.settings().unwrap_err();
        assert!(e.to_string().contains("--r-limit-ms"), "{e}");
    }

    #[test]
    fn unknown_schemes_list_the_known_ones() {
        let e = scheme_named("hibernate", &SchemeConfig::default(), "--scheme").unwrap_err().to_string();
        assert!(e.starts_with("--scheme: unknown scheme `hibernate`"), "{e}");
        for k in SchemeKind::ALL {
            assert!(e.contains(k.as_str()), "{e}");
        }
        let s = scheme_named("raid-cr+", &SchemeConfig { r_limit_ms: 7.0, ..SchemeConfig::default() }, "--scheme").unwrap();
        assert_eq!((s.kind, s.guarantee, s.r_limit_ms), (SchemeKind::RaidCr, true, 7.0));
    }
}
