//! A drive served until told to stop: its NBD export, the admin socket `tierlab ctl` talks
//! to, Prometheus metrics if asked, and a power hook run when the HDD path has been idle
//! long enough; then shut down in order (the server, the admin threads, the drive's final
//! checkpoint).

use crate::admin;
use crate::{Drive, DriveError};
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tierlab_nbd::{BackgroundServer, Export, ListenAddr, Server, ServerConfig};

/// How to serve a drive.
pub struct ServeConfig {
    /// The NBD server: address, export name, workers, connection and memory limits.
    pub server: ServerConfig,
    /// The admin socket (claimed as [`admin::claim`] does).
    pub ctl_path: PathBuf,
    /// Serve Prometheus metrics at this address.
    pub metrics: Option<SocketAddr>,
}

/// A shell command that spins the HDD down, run once the HDD path has been idle `idle_s`
/// seconds (and again only after it has been busy since).
#[derive(Clone, Debug)]
pub struct PowerHook {
    pub idle_s: f64,
    pub command: String,
}

/// What failed while serving, with the I/O error beneath it.
#[derive(Debug)]
pub enum ServeError {
    Listen(io::Error),
    Ctl(PathBuf, io::Error),
    Metrics(SocketAddr, io::Error),
    Start(io::Error),
    Stop(io::Error),
    Close(DriveError),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Listen(_) => write!(f, "cannot listen"),
            ServeError::Ctl(path, _) => write!(f, "the admin socket {}", path.display()),
            ServeError::Metrics(addr, _) => write!(f, "the metrics address {addr}"),
            ServeError::Start(_) => write!(f, "cannot start the server"),
            ServeError::Stop(_) => write!(f, "stopping the server"),
            ServeError::Close(_) => write!(f, "final checkpoint"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Listen(e) | ServeError::Ctl(_, e) | ServeError::Metrics(_, e) | ServeError::Start(e) | ServeError::Stop(e) => Some(e),
            ServeError::Close(e) => Some(e),
        }
    }
}

/// The admin socket's and the metrics listener's threads, and the flag that stops them.
struct Admin {
    stop: Arc<AtomicBool>,
    ctl: JoinHandle<()>,
    metrics: Option<(SocketAddr, JoinHandle<()>)>,
}

/// A drive whose export, admin socket and metrics listener are bound, not yet serving.
pub struct Bound {
    drive: Arc<Drive>,
    server: Server,
    admin: Admin,
}

/// A drive being served.
pub struct Served {
    drive: Arc<Drive>,
    server: BackgroundServer,
    admin: Admin,
}

/// Bind the export, the admin socket (answering at once) and the metrics listener.
pub fn bind(drive: Arc<Drive>, config: ServeConfig) -> Result<Bound, ServeError> {
    let export: Arc<dyn Export> = drive.clone();
    let server = Server::bind(config.server, export).map_err(ServeError::Listen)?;
    let stop = Arc::new(AtomicBool::new(false));
    let ctl = admin::serve_admin(drive.clone(), &config.ctl_path, stop.clone()).map_err(|e| ServeError::Ctl(config.ctl_path.clone(), e))?;
    let metrics = match config.metrics {
        Some(addr) => Some(admin::serve_metrics(drive.clone(), addr, stop.clone()).map_err(|e| ServeError::Metrics(addr, e))?),
        None => None,
    };
    Ok(Bound { drive, server, admin: Admin { stop, ctl, metrics } })
}

impl Bound {
    /// Start serving the export.
    pub fn spawn(self) -> Result<Served, ServeError> {
        let server = self.server.spawn().map_err(ServeError::Start)?;
        Ok(Served { drive: self.drive, server, admin: self.admin })
    }
}

impl Served {
    /// Where clients connect: a TCP address (the port bound, where 0 was asked) or a
    /// Unix socket's path.
    pub fn address(&self) -> String {
        match self.server.local_addr() {
            ListenAddr::Tcp(t) => self.server.tcp_addr().unwrap_or(*t).to_string(),
            ListenAddr::Unix(p) => p.display().to_string(),
        }
    }

    /// The metrics listener's address, when serving metrics.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.admin.metrics.as_ref().map(|(a, _)| *a)
    }

    /// Serve until `stop` is set, running `hook` when the HDD path has been idle long
    /// enough; `warn` is told when the hook fails.
    pub fn run_until(&self, stop: &AtomicBool, hook: Option<&PowerHook>, warn: &mut dyn FnMut(String)) {
        let mut spun_down = false;
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
            let Some(hook) = hook else { continue };
            let idle = self.drive.hdd_idle().as_secs_f64();
            if idle >= hook.idle_s && !spun_down {
                let cmd = &hook.command;
                match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
                    Ok(s) if s.success() => self.drive.note_spin_down(),
                    Ok(s) => warn(format!("power hook `{cmd}` exited with {s}")),
                    Err(e) => warn(format!("power hook `{cmd}`: {e}")),
                }
                spun_down = true;
            } else if idle < hook.idle_s {
                spun_down = false;
            }
        }
    }

    /// Stop the server, then the admin and metrics threads, then write the drive's final
    /// checkpoint.
    pub fn shut_down(self) -> Result<(), ServeError> {
        self.server.stop().map_err(ServeError::Stop)?;
        self.admin.stop.store(true, Ordering::SeqCst);
        let _ = self.admin.ctl.join();
        if let Some((_, h)) = self.admin.metrics {
            let _ = h.join();
        }
        self.drive.close().map_err(ServeError::Close)
    }
}
