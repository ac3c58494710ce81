//! `tierlab array …`: energy-managed disk arrays. `simulate` runs one scheme on one
//! workload; `compare` runs schemes × loads (or × R_limit) and states each scheme's saving
//! against RAID-5. The runs are `tierlab_array_sim`'s; this module turns flags and a
//! config file into its values and renders what comes back.

use crate::args::TraceInput;
use crate::cmd_simulate::ReplayMode;
use tierlab_render::array::{compare_cells, row_note, CompareContext, Study};
use crate::cmd_workload::load_spec;
use tierlab_report::csv_field;
use crate::progress::{requests_bar, runs_bar, write_file, write_json};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde::Deserialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use tierlab_raid::{Geometry, RaidLevel};
use tierlab_array_policy::{SchemeConfig, SchemeKind};
use tierlab_array_sim::{common_span_bytes, compare, oltp_workload_with, run_array, ArrayConfig, ArrayMeasured, ArrayRun, CompareRow, DiskModel, Load, OltpSkew, Protocol, Stop};
use tierlab_report::with_interval;
use tierlab_report::{fmt_bytes, Table};
use tierlab_engine::SchedulerKind;
use tierlab_system_power::LowPower;
use tierlab_render::system::render_system_energy;
use tierlab_system_study::load_system;
use tierlab_workload::{Arrival, Workload};

/// The OLTP workload's default length in hours (the cap of a measured run).
pub const DEFAULT_HOURS: f64 = 48.0;

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

    /// How the workload line names it.
    pub fn describe(self) -> String {
        let regions = fmt_bytes(tierlab_array_sim::OLTP_REGION_BYTES);
        match self {
            Skew::Zipf => format!("Zipf θ = {} skew over 8 KiB pages in scattered {regions} regions", tierlab_array_sim::OLTP_ZIPF_THETA),
            Skew::HotCold => format!("hot/cold skew: 90 % of accesses to 10 % of the space, in scattered {regions} regions"),
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

/// The smallest NVRAM accepted (other than none).
const MIN_NVRAM_BYTES: u64 = 1 << 20;

/// The `--config` file: both tables optional, every key checked.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    array: Option<ArrayConfig>,
    #[serde(default)]
    scheme: Option<SchemeConfig>,
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

fn load_config(path: &Path) -> Result<(ArrayConfig, SchemeConfig, bool)> {
    let file: ConfigFile = tierlab_config::load_toml(path)?;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    let kind_from_file = text
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("scheme").and_then(|s| s.as_table()).map(|s| s.contains_key("kind")))
        .unwrap_or(false);
    let scheme = file.scheme.unwrap_or_default();
    if let Err((key, expected)) = scheme.check() {
        let e = tierlab_config::FieldError::new(format!("scheme.{key}"), format!("expected {expected}"));
        return Err(tierlab_config::field_error(&text, &name, e).into());
    }
    if let Some(spec) = file.array.as_ref().and_then(|a| a.system.as_ref()) {
        let disks = file.array.as_ref().map_or(ArrayConfig::default().disks, |a| a.disks);
        if let Err(e) = spec.resolve_with_own_catalog(disks) {
            return Err(tierlab_config::field_error(&text, &name, e.within("array.system")).into());
        }
    }
    if let Some(w) = file.array.as_ref().and_then(|a| a.warmup_s) {
        if !(w.is_finite() && w >= 0.0) {
            let e = tierlab_config::FieldError::new("array.warmup_s", format!("expected a warm-up >= 0 s, found {w}"));
            return Err(tierlab_config::field_error(&text, &name, e).into());
        }
    }
    Ok((file.array.unwrap_or_default(), scheme, kind_from_file))
}

fn positive(v: f64, flag: &str, what: &str) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        bail!("{flag}: expected {what} > 0, found {v}")
    }
}

impl ArrayOptions {
    /// The config file's settings with the flags given laid over them.
    pub fn settings(&self) -> Result<Settings> {
        let (mut array, mut scheme, kind_from_file) = match &self.config {
            Some(p) => load_config(p)?,
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
        // An NVRAM too small to hold a write holds it for ever (the library then loses the
        // request, or runs on without end): refuse one smaller than any sane write.
        if array.nvram_bytes > 0 && array.nvram_bytes < MIN_NVRAM_BYTES {
            bail!("the NVRAM (--nvram, or nvram_bytes in [array]): expected 0 (none) or at least 1 MiB, found {} bytes", array.nvram_bytes);
        }
        if !(array.nvram_max_age_s.is_finite() && array.nvram_max_age_s >= 0.0) {
            bail!("nvram_max_age_s in [array]: expected an age >= 0 s (0: destage only above the high watermark), found {}", array.nvram_max_age_s);
        }
        if let Some(path) = &self.system {
            array.system = Some(load_system(path, array.disks)?);
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

    /// Checks the array can be built (the library's own error otherwise) and returns the
    /// span of the default OLTP workload (`tierlab_array_sim::common_span_bytes`).
    pub fn oltp_span(&self, s: &Settings) -> Result<u64> {
        let array = &s.array;
        let model = DiskModel::from_catalog(&array.disk, array.power_profile.as_deref())?;
        Geometry::new(array.level, array.disks, array.stripe_unit_bytes, model.capacity_bytes)
            .map_err(|e| anyhow!("cannot build a {} array of {} × {}: {e}", array.level, array.disks, array.disk))?;
        common_span_bytes(array, &s.scheme)
    }

    /// Refuse a run whose memory would exceed `--memory-limit`: each disk's model, the
    /// per-block tables of the schemes that keep them (Hibernator's temperatures, PDC's
    /// popularity order), and the requests an OLTP workload at `rates` would queue beyond
    /// what the disks can serve.
    fn check_memory(&self, s: &Settings, kinds: &[SchemeKind], rates: &[f64]) -> Result<()> {
        // Measured on the default array (bytes per stripe unit of a disk; per request queued).
        // A disk: 7.3 KiB (peak RSS of RAID-5 arrays of 1,000 and 4,000 disks without NVRAM,
        // 2026-11-29), counted twice over.
        const DISK_BYTES: f64 = 16.0 * 1024.0;
        const QUEUED_REQUEST_BYTES: f64 = 256.0;
        const BASE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;
        let per_unit = |k: &SchemeKind| match k {
            SchemeKind::Hibernator => 12.0,
            SchemeKind::PdcLd => 2.5,
            _ => 0.0,
        };
        let array = &s.array;
        let model = DiskModel::from_catalog(&array.disk, array.power_profile.as_deref())?;
        let units = model.capacity_bytes as f64 / array.stripe_unit_bytes.max(1) as f64;
        let disks = array.disks as f64;
        let per_disk = DISK_BYTES + units * kinds.iter().map(per_unit).fold(0.0, f64::max);
        // What the disks can serve: one request per average seek and half a turn each.
        let rpm = model.speeds.iter().map(|l| l.rpm).max().unwrap_or(7200).max(1);
        let disk_iops = 1.0 / (model.average_seek_s + 30.0 / f64::from(rpm)).max(1e-6);
        let span_s = self.hours * 3600.0;
        let queued = if self.trace.is_some() || self.workload.is_some() {
            0.0
        } else {
            rates.iter().map(|&r| (r - disks * disk_iops).max(0.0) * span_s).fold(0.0, f64::max)
        };
        let need = BASE_BYTES + disks * per_disk + queued * QUEUED_REQUEST_BYTES;
        let what = format!(
            "an array of {} × {} ({:.1} MiB a disk){}",
            array.disks,
            array.disk,
            per_disk / (1u64 << 20) as f64,
            if queued > 0.0 { format!(" with {} requests queued beyond what its disks serve", crate::memory::count(queued)) } else { String::new() }
        );
        self.memory.check(need, &what)
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

    /// One workload: the trace, the workload file, or the OLTP workload at `iops`.
    fn workload(&self, s: &Settings, iops: f64) -> Result<(Workload, Option<f64>)> {
        self.check_trace_flags()?;
        if let Some(path) = &self.trace {
            return Ok((Workload::Trace { path: path.clone(), options: self.input.read_options()? }, None));
        }
        if let Some(path) = &self.workload {
            let spec = load_spec(Some(path))?;
            let iops = match spec.arrival {
                Arrival::Poisson { iops } | Arrival::Fixed { iops } => Some(iops),
                Arrival::Back2back => None,
            };
            return Ok((Workload::Synthetic(spec), iops));
        }
        Ok((Workload::Synthetic(self.oltp(s, iops)?), Some(iops)))
    }

    fn oltp(&self, s: &Settings, iops: f64) -> Result<tierlab_workload::WorkloadSpec> {
        positive(iops, "--iops", "a rate")?;
        let hours = positive(self.hours, "--hours", "a duration")?;
        let span = self.oltp_span(s)?;
        let mut spec = oltp_workload_with(span, iops, hours * 3600.0, self.seed, self.skew.oltp());
        spec.name = format!("{}-{}", spec.name, self.skew.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default());
        spec.validate().context("the OLTP workload")?;
        Ok(spec)
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
    // The array is checked first, so that an impossible one is reported as such.
    a.opts.oltp_span(&s)?;
    a.opts.check_memory(&s, &[scheme.kind], &[a.iops])?;
    let (workload, _) = a.opts.workload(&s, a.iops)?;
    let bar = requests_bar(&format!("simulating {}", scheme.label()));
    let run = run_array(&s.array, &scheme, &workload, &mut |n| bar.set_position(n));
    crate::progress::finish(&bar, "array simulate");
    let run = run?;
    let mut out = crate::session::stdout();
    if a.opts.json {
        write_json(&mut out, &run)?;
    } else {
        write!(out, "{}", render_run(&s.array, &run))?;
    }
    Ok(())
}

/// How a run was measured: its warm-up, whether it settled, its window, why it stopped.
pub fn describe_measured(m: &ArrayMeasured) -> String {
    let settled = if m.settled { "steady" } else { "never settled: cut at half the run" };
    let stop = match m.stop {
        Stop::Precise => "intervals within the target",
        Stop::Limit => "the run's cap (--hours) came first",
        Stop::SourceEnd => "the workload ended",
        Stop::Unsustainable => "CANNOT SUSTAIN the load: its backlog grew",
    };
    format!(
        "{:.2} h window of {} batches of {} requests after a {:.2} h warm-up ({settled}); stopped: {stop}",
        m.window_s / 3600.0,
        m.window_batches,
        m.batch_requests,
        m.warmup_s / 3600.0
    )
}

/// One line describing the array and its replay.
pub fn describe_array(c: &ArrayConfig, disks: &str) -> String {
    let replay = match c.closed_depth {
        Some(d) => format!("closed-loop replay at depth {d}"),
        None => "open-loop replay".to_string(),
    };
    let profile = c.power_profile.as_deref().map(|p| format!(" ({p} profile)")).unwrap_or_default();
    let nvram = if c.nvram_bytes > 0 { format!("{} NVRAM", fmt_bytes(c.nvram_bytes)) } else { "no NVRAM".to_string() };
    let mut s = format!(
        "{disks} × {}{profile}, {}, {} stripe unit, {nvram}; {replay}, {} scheduler",
        c.disk,
        c.level,
        fmt_bytes(c.stripe_unit_bytes),
        c.scheduler
    );
    if c.compact {
        s.push_str(", compact");
    }
    if c.wrap {
        s.push_str(", wrap");
    }
    s
}

/// The report of one run as people read it. Byte-stable for a given run (golden-file
/// tested).
pub fn render_run(c: &ArrayConfig, r: &ArrayRun) -> String {
    let mut s = String::new();
    let rt = &r.response_time;
    let extra = r.per_disk.len().saturating_sub(r.disks);
    let disks = if extra > 0 { format!("{} (+{extra} cache)", r.disks) } else { r.disks.to_string() };
    s.push_str(&format!("scheme      {}\n", r.scheme));
    s.push_str(&format!("workload    {}\n", r.workload));
    s.push_str(&format!("array       {}\n", describe_array(c, &disks)));
    let ex = &r.executor;
    s.push_str(&format!("requests    {} ({} reads, {} writes)\n", r.requests, r.reads, r.writes));
    let warm = c.warmup_s.map(|w| format!(", measured after a {w} s warm-up")).unwrap_or_default();
    s.push_str(&format!("span        {:.3} s ({:.3} h{warm})\n", r.span_s, r.span_s / 3600.0));
    if let Some(m) = &r.measured {
        s.push_str(&format!("measured    {}\n", describe_measured(m)));
        s.push_str(&format!(
            "            mean response {} ms, power {} W (95 % intervals, batch means)\n",
            with_interval(m.mean_ms.mean, m.mean_ms.half_width, 3),
            with_interval(m.power_w.mean, m.power_w.half_width, 2)
        ));
    }
    s.push_str(&format!("throughput  {:.1} IOPS\n", r.throughput_iops));
    s.push_str(&format!(
        "response    mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms\n",
        rt.mean_ms, rt.p50_ms, rt.p99_ms, rt.max_ms
    ));
    s.push_str(&format!(
        "goal        {}: mean {:.3} ms {} R_limit {:.3} ms\n",
        if r.goal_met { "met" } else { "MISSED" },
        rt.mean_ms,
        if r.goal_met { "<=" } else { ">" },
        r.r_limit_ms
    ));
    s.push_str(&format!("energy      {:.1} J ({:.3} kWh), average {:.2} W\n", r.energy_j, r.energy_j / 3.6e6, r.average_power_w));
    s.push_str(&format!(
        "per disk    {:.2} speed changes/day (busiest disk {:.2}), {:.2} start/stops/day",
        r.speed_changes_per_disk_day, r.max_speed_changes_per_disk_day, r.start_stops_per_disk_day
    ));
    if r.power_cycles_per_disk_day > 0.0 {
        s.push_str(&format!(" ({:.2} of them slot power-downs)", r.power_cycles_per_disk_day));
    }
    s.push('\n');
    if let Some(e) = &r.system {
        s.push_str(&render_system_energy(e));
    }

    let mut t = Table::new(["power state", "time (disk-s)", "energy (J)", "energy %"]);
    for st in &r.energy_by_state {
        let share = if r.energy_j > 0.0 { st.energy_j / r.energy_j * 100.0 } else { 0.0 };
        t.row([st.state.clone(), format!("{:.1}", st.time_s), format!("{:.1}", st.energy_j), format!("{share:.1}")]);
    }
    if !t.is_empty() {
        s.push('\n');
        s.push_str(&t.render());
    }

    let sr = &r.scheme_report;
    s.push_str(&format!(
        "\nscheme      {} decisions ({} found no plan meeting the goal); the guarantee forced full speed {} times, for {:.1} s\n",
        sr.decisions, sr.infeasible_decisions, sr.guarantee_activations, sr.guarantee_s
    ));
    for note in &sr.notes {
        s.push_str(&format!("  note: {note}\n"));
    }
    s.push_str(&format!(
        "executor    {} full-stripe writes, {} read-modify-writes, {} reconstruct-writes; {} background moves ({}); {} speed and {} standby commands",
        ex.full_stripe_writes,
        ex.read_modify_writes,
        ex.reconstruct_writes,
        ex.background_moves,
        fmt_bytes(ex.background_bytes),
        ex.speed_commands,
        ex.standby_commands
    ));
    if ex.wrapped_requests > 0 {
        s.push_str(&format!("; {} requests wrapped", ex.wrapped_requests));
    }
    s.push('\n');
    if let Some(n) = &ex.nvram {
        s.push_str(&format!(
            "nvram       {} read hits, {} read misses, {} writes absorbed, {} throttled, {} destages ({}){}\n",
            n.read_hits,
            n.read_misses,
            n.writes_absorbed,
            n.writes_throttled,
            n.destages,
            fmt_bytes(n.destaged_bytes),
            if r.nvram_warm_requests > 0 { format!("; warmed first with {} requests of the workload (another seed)", r.nvram_warm_requests) } else { String::new() }
        ));
    }

    let mut t = Table::new(["disk", "ops", "util %", "energy (J)", "speed changes", "start/stops"]);
    for d in &r.per_disk {
        t.row([
            d.name.clone(),
            d.ops.to_string(),
            format!("{:.1}", d.utilisation * 100.0),
            format!("{:.1}", d.energy_j),
            d.speed_changes.to_string(),
            d.start_stop_cycles.to_string(),
        ]);
    }
    if !t.is_empty() {
        s.push('\n');
        s.push_str(&t.render());
    }
    s
}

fn loads(a: &ArrayCompareArgs, s: &Settings) -> Result<(Vec<Load>, String)> {
    let o = &a.opts;
    if let Some(path) = &o.trace {
        let speeds = a.speeds.clone().unwrap_or_else(|| vec![o.input.speed]);
        if speeds.is_empty() {
            bail!("--speeds: expected at least one speed");
        }
        let mut list = Vec::with_capacity(speeds.len());
        for sp in speeds {
            positive(sp, "--speeds", "a replay speed")?;
            let mut input = o.input.clone();
            input.speed = sp;
            list.push(Load { label: format!("×{sp}"), iops: None, workload: Workload::Trace { path: path.clone(), options: input.read_options()? } });
        }
        return Ok((list, "trace replay speed (×)".into()));
    }
    if o.workload.is_some() {
        let (w, iops) = o.workload(s, 0.0)?;
        let label = match &w {
            Workload::Synthetic(spec) => spec.name.clone(),
            Workload::Trace { .. } => unreachable!("no trace here"),
        };
        return Ok((vec![Load { label, iops, workload: w }], "workload".into()));
    }
    o.check_trace_flags()?;
    let rates = a.loads.clone().unwrap_or_else(|| vec![7.0, 14.0, 140.0, 700.0, 1400.0]);
    if rates.is_empty() {
        bail!("--loads: expected at least one load");
    }
    let mut list = Vec::with_capacity(rates.len());
    for r in rates {
        positive(r, "--loads", "a rate in requests/s")?;
        list.push(Load { label: format!("{r} req/s"), iops: Some(r), workload: Workload::Synthetic(o.oltp(s, r)?) });
    }
    Ok((list, "load (requests/s)".into()))
}

fn compare_cmd(a: ArrayCompareArgs) -> Result<()> {
    if a.speeds.is_some() && a.opts.input.speed != 1.0 {
        bail!("--speed and --speeds: give one or the other");
    }
    let s = a.opts.settings()?;
    if a.schemes.is_empty() {
        bail!("--schemes: expected at least one scheme");
    }
    let mut schemes = Vec::with_capacity(a.schemes.len());
    for name in &a.schemes {
        schemes.push(scheme_named(name, &s.scheme, "--schemes")?);
    }
    // The array is checked first, so that an impossible one is reported as such.
    a.opts.oltp_span(&s)?;
    let kinds: Vec<SchemeKind> = schemes.iter().map(|sc| sc.kind).collect();
    a.opts.check_memory(&s, &kinds, a.loads.as_deref().unwrap_or(&[]))?;
    let (mut loads, axis) = loads(&a, &s)?;
    let study = match &a.r_limits {
        Some(limits) => {
            if limits.is_empty() {
                bail!("--r-limits: expected at least one R_limit");
            }
            for &l in limits {
                positive(l, "--r-limits", "a response-time goal in ms")?;
            }
            loads.truncate(1);
            schemes = schemes.iter().flat_map(|sc| limits.iter().map(move |&l| SchemeConfig { r_limit_ms: l, ..sc.clone() })).collect();
            Study::RLimits { load: loads[0].label.clone(), limits: limits.clone() }
        }
        None => Study::Loads { labels: loads.iter().map(|l| l.label.clone()).collect(), axis },
    };
    let runs_per_load = 1 + schemes.iter().filter(|sc| sc.kind != SchemeKind::Raid5 || sc.guarantee).count();
    let bar = runs_bar(runs_per_load * loads.len());
    let rows = compare(&s.array, &schemes, &loads, &mut |done, total, label| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(format!("done: {label}"));
    });
    crate::progress::finish(&bar, "array compare");
    let rows = rows?;
    let ctx = CompareContext {
        study,
        array: describe_array(&s.array, &s.array.disks.to_string()),
        workload: match (&a.opts.trace, &a.opts.workload) {
            (Some(t), _) => format!("trace {}", t.display()),
            (None, Some(w)) => format!("workload file {}", w.display()),
            (None, None) => format!("synthetic OLTP workload ({}), at most {} h per load, seed {}", a.opts.skew.describe(), a.opts.hours, a.opts.seed),
        },
        r_limit_ms: s.scheme.r_limit_ms,
        system: rows.first().and_then(|r| r.run.system.as_ref()).map(|e| e.system.clone()),
    };
    if let Some(path) = &a.csv {
        write_file(path, render_csv(&rows))?;
    }
    if let Some(path) = &a.html {
        write_file(path, tierlab_render::array_html::render(&rows, &ctx)?)?;
    }
    let mut out = crate::session::stdout();
    if a.opts.json {
        write_json(&mut out, &rows)?;
    } else {
        write!(out, "{}", render_compare(&rows, &ctx))?;
    }
    Ok(())
}

pub fn compare_table(rows: &[CompareRow], ctx: &CompareContext) -> Table {
    let (header, cells) = compare_cells(rows, ctx);
    let mut t = Table::new(header);
    for c in cells {
        t.row(c);
    }
    t
}

pub fn render_compare(rows: &[CompareRow], ctx: &CompareContext) -> String {
    let mut s = format!("array       {}\nworkload    {}\n", ctx.array, ctx.workload);
    match &ctx.study {
        Study::Loads { .. } => s.push_str(&format!("R_limit     {} ms (mean response time)\n", ctx.r_limit_ms)),
        Study::RLimits { load, .. } => s.push_str(&format!("study       saving against R_limit at {load}\n")),
    }
    match &ctx.system {
        Some(system) => {
            s.push_str(&format!("system      {system}\n"));
            s.push_str("saving      1 − energy / RAID-5's energy at the same load: of the disks alone (saving %) and of the whole system (system saving %)\n\n");
        }
        None => s.push_str("saving      1 − energy / RAID-5's energy at the same load\n\n"),
    }
    s.push_str(&compare_table(rows, ctx).render());
    s
}

pub fn render_csv(rows: &[CompareRow]) -> String {
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut s = String::from(
        "load,load_iops,scheme,r_limit_ms,requests,span_s,throughput_iops,mean_ms,p50_ms,p99_ms,max_ms,goal_met,energy_j,average_power_w,energy_saving,speed_changes_per_disk_day,start_stops_per_disk_day,max_speed_changes_per_disk_day,guarantee_activations,guarantee_s,controller_j,enclosures_j,system_j,system_saving,mean_ms_half_width,power_w_half_width,energy_saving_half_width,warmup_s,window_s,settled,note\n",
    );
    for r in rows {
        let run = &r.run;
        let rt = &run.response_time;
        let m = run.measured.as_ref();
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(&r.load),
            r.load_iops.map(|v| v.to_string()).unwrap_or_default(),
            csv_field(&r.scheme),
            run.r_limit_ms,
            run.requests,
            run.span_s,
            run.throughput_iops,
            rt.mean_ms,
            rt.p50_ms,
            rt.p99_ms,
            rt.max_ms,
            run.goal_met,
            run.energy_j,
            run.average_power_w,
            r.energy_saving,
            run.speed_changes_per_disk_day,
            run.start_stops_per_disk_day,
            run.max_speed_changes_per_disk_day,
            run.scheme_report.guarantee_activations,
            run.scheme_report.guarantee_s,
            opt(run.system.as_ref().map(|e| e.controller_j)),
            opt(run.system.as_ref().map(|e| e.enclosures_j)),
            opt(run.system.as_ref().map(|e| e.total_j)),
            opt(r.system_saving),
            opt(m.map(|m| m.mean_ms.half_width)),
            opt(m.map(|m| m.power_w.half_width)),
            opt(r.energy_saving_half_width),
            opt(m.map(|m| m.warmup_s)),
            opt(m.map(|m| m.window_s)),
            m.map(|m| m.settled.to_string()).unwrap_or_default(),
            csv_field(&row_note(r))
        ));
    }
    s
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
