//! `tierlab serve`, `tierlab ctl` and `tierlab fsck`: the hybrid drive as a real block
//! device over NBD, its administration while it runs, and its offline check.

use anyhow::{anyhow, Context, Result};
use clap::{Args, Subcommand};
use serde::Deserialize;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use tierlab_cache::Algorithm;
use tierlab_block_device::admin::{self, Request};
use tierlab_block_device::{Created, CreateSpec, DeviceModel, Drive, Knobs, Mode, OpenOptions, PolicySettings};
use tierlab_block_device::serve::{self, PowerHook, ServeConfig, ServeError};
use tierlab_nbd::{ListenAddr, ServerConfig};
use tierlab_render::drive::{render_ctl, render_fsck};
use tierlab_hybrid_policy::WritePolicy;
use tierlab_types::NS_PER_S;

/// The research's devices, for modelled energy and wear.
const MODEL_PRICES: &str = "greendm-2012";
const MODEL_SSD: &str = "intel-320-300gb";

/// Drive settings; each may also come from `--config FILE` (TOML, the same names with
/// underscores), and a flag wins over the file.
#[derive(Args, Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSettings {
    /// tiering (the SSD holds hot extents) or caching (the SSD caches the HDD). Needed to
    /// create a drive (--format); an existing drive keeps its own.
    #[arg(long)]
    pub mode: Option<String>,
    /// Extent size ES in bytes (K/M suffixes allowed; 4 KiB … 1 MiB). Fixed at creation.
    #[arg(long)]
    pub es: Option<String>,
    /// Size of the SSD backing file --format creates when it is missing (e.g. 1G).
    #[arg(long)]
    pub ssd_size: Option<String>,
    /// Size of the HDD backing file --format creates when it is missing (e.g. 4G).
    #[arg(long)]
    pub hdd_size: Option<String>,
    /// Promotion (tiering) or pre-fetch (caching) threshold.
    #[arg(long)]
    pub pt: Option<u32>,
    /// Maximum concurrent migrations.
    #[arg(long)]
    pub mcml: Option<u32>,
    /// Time window TW in seconds.
    #[arg(long)]
    pub tw_s: Option<f64>,
    /// Tiering: low watermark of free SSD extents.
    #[arg(long)]
    pub lt: Option<u32>,
    /// Tiering: high watermark of free SSD extents.
    #[arg(long)]
    pub ht: Option<u32>,
    /// Caching: write-back, write-through or write-around.
    #[arg(long)]
    pub write_policy: Option<String>,
    /// Caching: lru, arc, 2q, wsclock or fifo.
    #[arg(long)]
    pub replacement: Option<String>,
    /// Journal size in bytes (K/M suffixes allowed; default 4M).
    #[arg(long)]
    pub journal_size: Option<String>,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The fast backing store (file or block device).
    #[arg(long, value_name = "PATH")]
    pub ssd: PathBuf,
    /// The slow backing store (file or block device).
    #[arg(long, value_name = "PATH")]
    pub hdd: PathBuf,
    /// Create the drive: on new files (sized by --ssd-size and --hdd-size) or on stores
    /// that are all zeros, with --mode and the settings given. Stores that already hold
    /// this drive are served as they are; anything else is refused and nothing is written.
    /// Without it, serve opens an existing drive only.
    #[arg(long)]
    pub format: bool,
    #[command(flatten)]
    pub settings: DriveSettings,
    /// Read drive settings from a TOML file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// TCP address to listen on (loopback unless you ask for another).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:10809")]
    pub listen: String,
    /// Listen on this Unix socket instead of TCP.
    #[arg(long, value_name = "PATH")]
    pub unix: Option<PathBuf>,
    /// The export's name.
    #[arg(long, default_value = "")]
    pub name: String,
    /// The admin socket `tierlab ctl` talks to. Default: one per drive, `tierlab-HASH.ctl`
    /// in $XDG_RUNTIME_DIR (else /tmp/tierlab-UID), which `tierlab ctl --ssd STORE` finds.
    /// An existing file there is replaced only if it is a socket of yours that no server
    /// answers on.
    #[arg(long, value_name = "PATH")]
    pub ctl: Option<PathBuf>,
    /// Serve Prometheus metrics at http://ADDR/metrics (off by default).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// Run the power hook after the HDD path has been idle this many seconds (SP; off by
    /// default, 5 is GreenDM's).
    #[arg(long, value_name = "SECONDS")]
    pub spin_down_s: Option<f64>,
    /// The power hook: a shell command that spins the HDD down (e.g. `hdparm -y /dev/sdb`).
    #[arg(long, value_name = "COMMAND")]
    pub spin_down_cmd: Option<String>,
    /// Delay each HDD-path I/O to the catalog model's service time (emulate a real disk on
    /// an ordinary file).
    #[arg(long)]
    pub emulate: bool,
    /// The catalog HDD whose model gives modelled energy (and emulated timing).
    #[arg(long, value_name = "ID", default_value = tierlab_devices::DEFAULT_HDD)]
    pub hdd_model: String,
    /// The HDD model with its read cache and read-ahead off, as `sdparm --set RCD=1` sets
    /// a real drive's: every read goes to the modelled media, so `tierlab hdd probe` can
    /// time the emulated disk through the export.
    #[arg(long)]
    pub hdd_model_without_read_cache: bool,
    /// Lay the HDD's data inside these tracks, on whole 4 KiB blocks that never cross a
    /// boundary: the JSON of `tierlab hdd probe --json` on the HDD store (or of `tierlab
    /// hdd layout --json` for the emulated model). Fixed at creation and kept in the
    /// drive's metadata; a reopen may leave it out.
    #[arg(long, value_name = "FILE")]
    pub hdd_tracks: Option<PathBuf>,
    /// Also model the SSD path with a catalog SSD timed from its data sheet, sized to the
    /// SSD store: modelled SSD energy and, with --emulate, SSD timing. `--model-ssd` alone
    /// models the research's Intel 320; `--model-ssd=ID` another catalog SSD with a
    /// [datasheet] section.
    #[arg(long, value_name = "ID", num_args = 0..=1, require_equals = true, default_missing_value = MODEL_SSD)]
    pub model_ssd: Option<String>,
    /// Worker threads per connection.
    #[arg(long, default_value_t = 8)]
    pub threads: usize,
    /// NBD connections served at once; a client beyond them is refused with the
    /// protocol's error (NBD_REP_ERR_POLICY, "too many connections").
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub max_connections: usize,
    /// Request buffers one connection may hold at once (K/M/G suffixes; at least the
    /// 32 MiB largest request). Memory for requests is at most this times
    /// --max-connections.
    #[arg(long, value_name = "BYTES", default_value = "64M")]
    pub max_inflight_bytes: String,
    /// Print a JSON line with the address when listening.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum CtlCommand {
    /// Show the tunables and their values.
    Get,
    /// Change a tunable while the drive runs (all but ES): pt, mcml, tw_s, lt, ht,
    /// writeback_queue_cap.
    Set { name: String, value: f64 },
    /// Hit ratio, migrations, dirty and free extents, bytes moved, modelled energy and wear.
    Stats,
    /// Dump the mapping table: extent, location (physical extent or cache slot), dirty.
    Table,
}

#[derive(Args, Debug)]
pub struct CtlArgs {
    #[command(subcommand)]
    pub command: CtlCommand,
    /// The admin socket of the running `tierlab serve` (its --ctl).
    #[arg(long, value_name = "PATH", global = true, conflicts_with = "ssd")]
    pub socket: Option<PathBuf>,
    /// The drive's SSD store: talk to the server of that drive at its default socket.
    /// Without --socket or --ssd, the one running drive's default socket is used.
    #[arg(long, value_name = "PATH", global = true)]
    pub ssd: Option<PathBuf>,
    /// Print the drive's JSON answer as it is.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct FsckArgs {
    #[arg(long, value_name = "PATH")]
    pub ssd: PathBuf,
    #[arg(long, value_name = "PATH")]
    pub hdd: PathBuf,
    /// Repair what is inconsistent (dropping mappings that cannot be trusted).
    #[arg(long)]
    pub repair: bool,
    /// With --repair, when committed metadata is lost on both stores: drop the mappings of
    /// the extents that cannot be recovered (they then read as zeros, or in caching mode as
    /// the HDD holds them). Without it such a drive is left as it is.
    #[arg(long, requires = "repair")]
    pub discard_unrecoverable: bool,
    #[arg(long)]
    pub json: bool,
}

/// `512`, `4K`, `256KiB`, `1M`, `4G`: bytes.
fn parse_bytes(s: &str, flag: &str) -> Result<u64> {
    tierlab_commands::args::parse_bytes(s).map_err(|e| anyhow!("--{flag}: {e}"))
}

impl DriveSettings {
    /// Flags over the config file.
    fn merged(self, file: Option<DriveSettings>) -> DriveSettings {
        let f = file.unwrap_or_default();
        DriveSettings {
            mode: self.mode.or(f.mode),
            es: self.es.or(f.es),
            ssd_size: self.ssd_size.or(f.ssd_size),
            hdd_size: self.hdd_size.or(f.hdd_size),
            pt: self.pt.or(f.pt),
            mcml: self.mcml.or(f.mcml),
            tw_s: self.tw_s.or(f.tw_s),
            lt: self.lt.or(f.lt),
            ht: self.ht.or(f.ht),
            write_policy: self.write_policy.or(f.write_policy),
            replacement: self.replacement.or(f.replacement),
            journal_size: self.journal_size.or(f.journal_size),
        }
    }

    /// How to create the drive, if a mode was given.
    fn create_spec(&self) -> Result<Option<CreateSpec>> {
        let Some(mode) = &self.mode else { return Ok(None) };
        let mode: Mode = mode.parse().map_err(|e: String| anyhow!("--mode: {e}"))?;
        let tw_ns = match self.tw_s {
            Some(s) if s.is_finite() && s > 0.0 => Some((s * NS_PER_S as f64) as u64),
            Some(s) => return Err(anyhow!("--tw-s: expected a positive number of seconds, found {s}")),
            None => None,
        };
        // The caching knobs are read (and refused if wrong) for a caching drive only.
        let caching = |s: &Option<String>| s.clone().filter(|_| mode == Mode::Caching);
        let write = caching(&self.write_policy).as_deref().map(str::parse::<WritePolicy>).transpose().map_err(|e| anyhow!("--write-policy: {e}"))?;
        let replacement = caching(&self.replacement).as_deref().map(str::parse::<Algorithm>).transpose().map_err(|e| anyhow!("--replacement: {e}"))?;
        let knobs = Knobs { pt: self.pt, mcml: self.mcml, tw_ns, lt: self.lt, ht: self.ht, write, replacement };
        let created = Created::new(mode, &knobs);
        Ok(Some(CreateSpec {
            settings: PolicySettings::new(created),
            extent_bytes: self.es.as_deref().map(|s| parse_bytes(s, "es")).transpose()?.unwrap_or(256 << 10),
            ssd_bytes: self.ssd_size.as_deref().map(|s| parse_bytes(s, "ssd-size")).transpose()?,
            hdd_bytes: self.hdd_size.as_deref().map(|s| parse_bytes(s, "hdd-size")).transpose()?,
            journal_bytes: self.journal_size.as_deref().map(|s| parse_bytes(s, "journal-size")).transpose()?.unwrap_or(4 << 20),
        }))
    }
}

/// The catalog SSD `id` timed from its data sheet, sized to the SSD store (its size from
/// the store, or from `--ssd-size` when the store is yet to be created).
fn ssd_model(id: &str, path: &std::path::Path, create: Option<&str>) -> Result<Box<dyn tierlab_engine::Device + Send>> {
    use std::io::Seek;
    let bytes = match std::fs::File::open(path) {
        Ok(mut f) => f.seek(std::io::SeekFrom::End(0)).with_context(|| format!("{}", path.display()))?,
        Err(_) => create.map(|s| parse_bytes(s, "ssd-size")).transpose()?.unwrap_or(0),
    };
    if bytes == 0 {
        return Err(anyhow!("--model-ssd: the SSD store's size is unknown (give --ssd-size)"));
    }
    Ok(Box::new(tierlab_devices::datasheet_ssd(id, Some(bytes)).with_context(|| format!("--model-ssd={id}"))?))
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

pub fn serve(a: ServeArgs) -> Result<()> {
    let file = match &a.config {
        Some(p) => Some(tierlab_config::load_toml::<DriveSettings>(p)?),
        None => None,
    };
    let settings = a.settings.clone().merged(file);
    let create = match (a.format, settings.create_spec()?) {
        (true, Some(c)) => Some(c),
        (true, None) => return Err(anyhow!("--format: give --mode tiering or --mode caching (and the drive's settings) to create a drive")),
        (false, _) => {
            // A config file's creation settings are for --format; flags without it are a mistake.
            let f = &a.settings;
            let given = [("--mode", f.mode.is_some()), ("--es", f.es.is_some()), ("--ssd-size", f.ssd_size.is_some()), ("--hdd-size", f.hdd_size.is_some()), ("--journal-size", f.journal_size.is_some()), ("--write-policy", f.write_policy.is_some()), ("--replacement", f.replacement.is_some())];
            if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
                return Err(anyhow!("{flag} is a creation setting: add --format to create a drive (an existing drive keeps the settings it was created with)"));
            }
            None
        }
    };
    // Settings given for an existing drive still apply (all but ES and the mode) once open.
    let overrides: Vec<(&str, Option<f64>)> = vec![
        ("pt", settings.pt.map(f64::from)),
        ("mcml", settings.mcml.map(f64::from)),
        ("tw_s", settings.tw_s),
        ("lt", settings.lt.map(f64::from)),
        ("ht", settings.ht.map(f64::from)),
    ];
    let inflight = parse_bytes(&a.max_inflight_bytes, "max-inflight-bytes")?;
    let defaults = ServerConfig::default();
    if inflight < u64::from(defaults.max_payload_bytes) {
        return Err(anyhow!("--max-inflight-bytes: expected at least {} bytes (the largest request), found {inflight}", defaults.max_payload_bytes));
    }
    if a.max_connections == 0 {
        return Err(anyhow!("--max-connections: expected at least 1, found 0"));
    }
    // The admin socket's place is checked before the drive is opened or created.
    let ctl_path = match &a.ctl {
        Some(p) => p.clone(),
        None => admin::default_ctl_path(&a.ssd).context("the default ctl socket (give --ctl PATH)")?,
    };
    admin::claim(&ctl_path).with_context(|| format!("--ctl {}", ctl_path.display()))?;
    let hdd_choice = tierlab_devices::HddChoice { device: a.hdd_model.clone(), without_read_cache: a.hdd_model_without_read_cache, ..Default::default() };
    let hdd_model = tierlab_devices::build_hdd(&hdd_choice).with_context(|| format!("--hdd-model {}", a.hdd_model))?;
    let ssd_model = match &a.model_ssd {
        Some(id) => Some(DeviceModel::new(ssd_model(id, &a.ssd, settings.ssd_size.as_deref())?, a.emulate)),
        None => None,
    };
    let prices = tierlab_cost::builtin_prices(MODEL_PRICES)?;
    // The priced SSD's rated writes: from the research's price list, or for another
    // modelled SSD from its catalog entry.
    let ssd_id = a.model_ssd.as_deref().unwrap_or(MODEL_SSD);
    let ssd_rated = prices.device(ssd_id).ok().and_then(|d| d.rated_write_bytes).or_else(|| tierlab_ssd::catalog::builtin(ssd_id).ok()?.ssd.rated_endurance_bytes);
    let hdd_rated = prices.device(tierlab_devices::DEFAULT_HDD).ok().and_then(|d| d.start_stop_cycles);
    let drive = Drive::open(OpenOptions {
        ssd_path: a.ssd.clone(),
        hdd_path: a.hdd.clone(),
        create,
        migration_threads: 4,
        models: [ssd_model, Some(DeviceModel::new(hdd_model, a.emulate))],
        ssd_rated_write_bytes: ssd_rated,
        hdd_rated_cycles: hdd_rated,
        hdd_tracks: a.hdd_tracks.as_deref().map(tierlab_hdd_study::track_boundaries_file).transpose().context("--hdd-tracks")?,
    })
    .context("cannot open the drive")?;
    for note in &drive.open_notes {
        eprintln!("note: recovery: {note}");
    }
    for (name, v) in overrides {
        let Some(v) = v else { continue };
        if drive.params()?.iter().any(|(n, cur)| *n == name && *cur != v) {
            drive.set_param(name, v).with_context(|| format!("--{}", name.replace('_', "-")))?;
        }
    }
    let listen = match &a.unix {
        Some(p) => ListenAddr::Unix(p.clone()),
        None => ListenAddr::Tcp(a.listen.parse().map_err(|_| anyhow!("--listen: expected an address such as 127.0.0.1:10809, found `{}`", a.listen))?),
    };
    let config = ServerConfig {
        export_name: a.name.clone(),
        description: None,
        listen,
        workers_per_connection: a.threads.max(1),
        max_connections: a.max_connections,
        inflight_bytes_per_connection: inflight,
        ..defaults
    };
    let bound = serve::bind(drive.clone(), ServeConfig { server: config, ctl_path: ctl_path.clone(), metrics: a.metrics }).map_err(flagged)?;
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let served = bound.spawn().map_err(flagged)?;
    let addr = served.address();
    let g = drive.geometry();
    let mut out = tierlab_commands::session::stdout();
    if a.json {
        let m = served.metrics_addr().map(|m| m.to_string());
        writeln!(out, "{}", serde_json::json!({ "listening": addr, "ctl": ctl_path, "metrics": m, "size_bytes": drive.virtual_bytes(), "extent_bytes": g.extent_bytes, "mode": drive.mode() }))?;
    } else {
        writeln!(
            out,
            "tierlab serve: {:?} drive of {} bytes ({} SSD + {} HDD extents of {} KiB), listening on {addr}, ctl {}",
            drive.mode(),
            drive.virtual_bytes(),
            g.ssd_extents,
            g.hdd_extents,
            g.extent_bytes / 1024,
            ctl_path.display()
        )?;
    }
    out.flush()?;
    drop(out);
    let hook = match (a.spin_down_s, &a.spin_down_cmd) {
        (Some(idle_s), Some(command)) => Some(PowerHook { idle_s, command: command.clone() }),
        _ => None,
    };
    served.run_until(&STOP, hook.as_ref(), &mut |w| eprintln!("warning: {w}"));
    eprintln!("tierlab serve: stopping");
    served.shut_down().map_err(flagged)
}

/// A serving error, its admin socket and metrics address named by their flags.
fn flagged(e: ServeError) -> anyhow::Error {
    match e {
        ServeError::Ctl(path, e) => anyhow::Error::new(e).context(format!("--ctl {}", path.display())),
        ServeError::Metrics(addr, e) => anyhow::Error::new(e).context(format!("--metrics {addr}")),
        e => e.into(),
    }
}

pub fn ctl(a: CtlArgs) -> Result<()> {
    let req = match &a.command {
        CtlCommand::Get => Request::Get,
        CtlCommand::Set { name, value } => Request::Set { name: name.clone(), value: *value },
        CtlCommand::Stats => Request::Stats,
        CtlCommand::Table => Request::Table,
    };
    let socket = match (&a.socket, &a.ssd) {
        (Some(p), _) => p.clone(),
        (None, Some(ssd)) => admin::default_ctl_path(ssd).with_context(|| format!("--ssd {}", ssd.display()))?,
        (None, None) => {
            let live = admin::live_sockets();
            match live.as_slice() {
                [one] => one.clone(),
                [] => return Err(anyhow!("no running `tierlab serve` answers in {} (give --socket PATH, or --ssd STORE)", admin::runtime_dir().map(|d| d.display().to_string()).unwrap_or_default())),
                many => {
                    let names: Vec<String> = many.iter().map(|p| p.display().to_string()).collect();
                    return Err(anyhow!("{} drives are running; name one with --ssd STORE or --socket PATH: {}", many.len(), names.join(", ")));
                }
            }
        }
    };
    let v = admin::request(&socket, &req).map_err(|e| anyhow!(e))?;
    let mut out = tierlab_commands::session::stdout();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    write!(out, "{}", render_ctl(&v, matches!(a.command, CtlCommand::Table)))?;
    Ok(())
}

pub fn fsck(a: FsckArgs) -> Result<()> {
    let rep = tierlab_block_device::fsck::fsck_with(&a.ssd, &a.hdd, a.repair, a.discard_unrecoverable)?;
    let mut out = tierlab_commands::session::stdout();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&rep)?)?;
    } else {
        write!(out, "{}", render_fsck(&rep))?;
    }
    if rep.clean() || rep.repaired {
        Ok(())
    } else {
        Err(anyhow!("the drive has {} problem(s)", rep.problems.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units_and_reject_nonsense() {
        assert_eq!(parse_bytes("4096", "x").unwrap(), 4096);
        assert_eq!(parse_bytes("256K", "x").unwrap(), 256 << 10);
        assert_eq!(parse_bytes("1GiB", "x").unwrap(), 1 << 30);
        assert!(parse_bytes("12Q", "x").unwrap_err().to_string().contains("unknown unit"));
        assert!(parse_bytes("K", "x").is_err());
        assert!(parse_bytes("99999999999T", "x").is_err());
    }

    #[test]
    fn the_ssd_model_is_a_catalog_ssd_timed_from_its_data_sheet_and_sized_to_the_store() {
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            serve: ServeArgs,
        }
        use clap::Parser;
        let base = ["tierlab", "--ssd", "/nonexistent/s.img", "--hdd", "/nonexistent/h.img"];
        let parse = |more: &[&str]| Flags::try_parse_from(base.iter().chain(more)).map(|f| f.serve.model_ssd);
        assert_eq!(parse(&[]).ok(), Some(None));
        assert_eq!(parse(&["--model-ssd"]).ok(), Some(Some(MODEL_SSD.to_string())));
        assert_eq!(parse(&["--model-ssd=samsung-990pro-1tb"]).ok(), Some(Some("samsung-990pro-1tb".to_string())));
        let store = std::path::Path::new("/nonexistent/s.img");
        let m = ssd_model(MODEL_SSD, store, Some("8G")).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!((m.name(), m.capacity_bytes(), m.max_in_flight()), (MODEL_SSD, 8 << 30, 3));
        let e = ssd_model("study-slc", store, Some("8G")).err().map(|e| format!("{e:#}")).unwrap_or_default();
        assert!(e.contains("--model-ssd=study-slc") && e.contains("no [datasheet] section"), "{e}");
        assert!(ssd_model(MODEL_SSD, store, None).is_err(), "the store's size is unknown");
    }
}
