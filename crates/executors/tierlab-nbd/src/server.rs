//! The listening server: configuration, accept loop, one thread per
//! connection (plus its worker pool), and orderly shutdown.

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::conn::Conn;
use crate::export::Export;
use crate::handshake::{negotiate, refuse, ExportInfo};
use crate::proto::MAX_STRING_BYTES;
use crate::transmission::serve;

/// Where the server listens (and, once bound, where it actually listens).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenAddr {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

impl Default for ListenAddr {
    /// `127.0.0.1:10809`, the IANA NBD port on loopback only.
    fn default() -> Self {
        ListenAddr::Tcp(SocketAddr::from((Ipv4Addr::LOCALHOST, 10809)))
    }
}

/// Server settings. `Default` gives the conventional values.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Name clients must ask for (`""` is the default export).
    pub export_name: String,
    /// Overrides `Export::description()` when set.
    pub description: Option<String>,
    pub listen: ListenAddr,
    /// Threads running requests of one connection concurrently.
    pub workers_per_connection: usize,
    /// Largest read or write payload, advertised in `NBD_INFO_BLOCK_SIZE`.
    pub max_payload_bytes: u32,
    /// Advertise `NBD_FLAG_READ_ONLY` and refuse writes with `EPERM`.
    pub read_only: bool,
    /// Connections served at once; a client beyond them is answered
    /// `NBD_REP_ERR_POLICY` ("too many connections") to every option, then closed.
    pub max_connections: usize,
    /// Bytes of request buffers one connection may hold at once (raised to
    /// `max_payload_bytes` if that is larger, so any legal request can proceed).
    pub inflight_bytes_per_connection: u64,
    /// A client that takes no reply bytes for this long is disconnected.
    pub reply_write_timeout: Duration,
    /// A client that has not finished the handshake in this long is disconnected.
    pub handshake_timeout: Duration,
    /// On shutdown, connections get this long to finish the requests they
    /// have sent; then their sockets are shut, so a client that reads no
    /// replies cannot hold the server up.
    pub shutdown_grace: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            export_name: String::new(),
            description: None,
            listen: ListenAddr::default(),
            workers_per_connection: 8,
            max_payload_bytes: 32 << 20,
            read_only: false,
            max_connections: 32,
            inflight_bytes_per_connection: 64 << 20,
            reply_write_timeout: Duration::from_secs(30),
            handshake_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// Connections being refused at once (beyond the limit); more are closed
/// without a word.
const MAX_REFUSING: usize = 8;
/// How long a refused client may take to hear why.
const REFUSE_TIMEOUT: Duration = Duration::from_secs(5);

enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

impl Listener {
    fn accept(&self) -> io::Result<Conn> {
        match self {
            Listener::Tcp(l) => {
                let (s, _) = l.accept()?;
                // Replies are whole messages; do not let Nagle hold them back.
                s.set_nodelay(true)?;
                Ok(Conn::Tcp(s))
            }
            Listener::Unix(l) => {
                let (s, _) = l.accept()?;
                Ok(Conn::Unix(s))
            }
        }
    }
}

/// Stops a running server: no new connections; open ones finish the
/// requests they have sent, then are closed.
#[derive(Debug, Clone)]
pub struct ShutdownHandle {
    stop: Arc<AtomicBool>,
    addr: ListenAddr,
}

impl ShutdownHandle {
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept with a connection that is dropped at once.
        let _ = match &self.addr {
            ListenAddr::Tcp(a) => {
                let mut a = *a;
                if a.ip().is_unspecified() {
                    a.set_ip(if a.is_ipv4() {
                        Ipv4Addr::LOCALHOST.into()
                    } else {
                        Ipv6Addr::LOCALHOST.into()
                    });
                }
                TcpStream::connect(a).map(drop)
            }
            ListenAddr::Unix(p) => UnixStream::connect(p).map(drop),
        };
    }
}

/// The limits one connection runs under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub workers: usize,
    pub inflight_bytes: u64,
    pub reply_write_timeout: Duration,
    pub handshake_timeout: Duration,
}

/// An NBD server for one export.
pub struct Server {
    listener: Listener,
    local: ListenAddr,
    info: Arc<ExportInfo>,
    limits: Limits,
    max_connections: usize,
    shutdown_grace: Duration,
    export: Arc<dyn Export>,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Checks the configuration and binds the listening socket.
    pub fn bind(config: ServerConfig, export: Arc<dyn Export>) -> io::Result<Server> {
        let invalid = |msg: &str| io::Error::new(io::ErrorKind::InvalidInput, msg.to_string());
        let description = config.description.unwrap_or_else(|| export.description());
        if config.export_name.len() > MAX_STRING_BYTES || description.len() > MAX_STRING_BYTES {
            return Err(invalid(
                "export name and description must be at most 4096 bytes",
            ));
        }
        if config.max_payload_bytes < 4096 {
            return Err(invalid(
                "max_payload_bytes must be at least the 4096-byte preferred block size",
            ));
        }
        if config.max_connections == 0 {
            return Err(invalid("max_connections must be at least 1"));
        }
        let zero = Duration::ZERO;
        if config.reply_write_timeout == zero || config.handshake_timeout == zero {
            return Err(invalid("timeouts must be longer than zero"));
        }
        let (listener, local) = match &config.listen {
            ListenAddr::Tcp(a) => {
                let l = TcpListener::bind(a)?;
                let local = ListenAddr::Tcp(l.local_addr()?);
                (Listener::Tcp(l), local)
            }
            ListenAddr::Unix(p) => (
                Listener::Unix(UnixListener::bind(p)?),
                ListenAddr::Unix(p.clone()),
            ),
        };
        let info = ExportInfo {
            name: config.export_name,
            description,
            size_bytes: export.size_bytes(),
            read_only: config.read_only,
            multi_conn: export.multi_conn(),
            max_payload: config.max_payload_bytes,
        };
        Ok(Server {
            listener,
            local,
            info: Arc::new(info),
            limits: Limits {
                workers: config.workers_per_connection.max(1),
                inflight_bytes: config.inflight_bytes_per_connection.max(u64::from(config.max_payload_bytes)),
                reply_write_timeout: config.reply_write_timeout,
                handshake_timeout: config.handshake_timeout,
            },
            max_connections: config.max_connections,
            shutdown_grace: config.shutdown_grace,
            export,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The address actually bound (with the real port when port 0 was asked).
    pub fn local_addr(&self) -> &ListenAddr {
        &self.local
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle {
            stop: self.stop.clone(),
            addr: self.local.clone(),
        }
    }

    /// Accepts and serves clients until a `ShutdownHandle` fires, then waits
    /// for every connection to finish. One client's misbehaviour only ever
    /// ends that client's connection.
    pub fn run(&self) -> io::Result<()> {
        let open: Arc<Mutex<HashMap<u64, Conn>>> = Arc::default();
        let mut threads: Vec<JoinHandle<()>> = Vec::new();
        let refusing = Arc::new(AtomicUsize::new(0));
        let mut next_id = 0u64;
        let result = loop {
            let conn = match self.listener.accept() {
                Ok(conn) => conn,
                Err(_) if self.stop.load(Ordering::SeqCst) => break Ok(()),
                Err(e) if is_transient(&e) => {
                    // Out of descriptors or a client gone before accept: back off, go on.
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Err(e) => break Err(e),
            };
            if self.stop.load(Ordering::SeqCst) {
                break Ok(());
            }
            threads.retain(|t| !t.is_finished());
            if open.lock().unwrap_or_else(|e| e.into_inner()).len() >= self.max_connections {
                self.refuse(conn, &refusing);
                continue;
            }
            let id = next_id;
            next_id += 1;
            if let Ok(clone) = conn.try_clone() {
                open.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id, clone);
            }
            let (open2, export, info, limits) = (
                open.clone(),
                self.export.clone(),
                self.info.clone(),
                self.limits,
            );
            let spawned = std::thread::Builder::new()
                .name(format!("nbd-conn-{id}"))
                .spawn(move || {
                    handle(&conn, &*export, &info, limits);
                    open2.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                });
            match spawned {
                Ok(t) => threads.push(t),
                Err(_) => {
                    open.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                }
            }
        };
        // Stop reading from every client; each drains what it accepted, then closes.
        for conn in open.lock().unwrap_or_else(|e| e.into_inner()).values() {
            conn.shutdown(Shutdown::Read);
        }
        // A client that reads no replies would hold its worker in a write: after the
        // grace period its socket is shut both ways, which ends that write at once.
        let deadline = std::time::Instant::now() + self.shutdown_grace;
        while threads.iter().any(|t| !t.is_finished()) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        for conn in open.lock().unwrap_or_else(|e| e.into_inner()).values() {
            conn.shutdown(Shutdown::Both);
        }
        for t in threads {
            let _ = t.join();
        }
        result
    }

    /// A connection beyond the limit hears why (on a thread of its own, a
    /// few at a time), or is closed at once when too many are being refused.
    fn refuse(&self, conn: Conn, refusing: &Arc<AtomicUsize>) {
        if refusing.fetch_add(1, Ordering::SeqCst) >= MAX_REFUSING {
            refusing.fetch_sub(1, Ordering::SeqCst);
            conn.shutdown(Shutdown::Both);
            return;
        }
        let (info, refusing2, limit) = (self.info.clone(), refusing.clone(), self.max_connections);
        let spawned = std::thread::Builder::new().name("nbd-refuse".into()).spawn(move || {
            let _ = conn.set_timeouts(Some(REFUSE_TIMEOUT), Some(REFUSE_TIMEOUT));
            let why = format!("too many connections: this server serves {limit} at once");
            let _ = refuse(&mut &conn, &info, &why);
            conn.shutdown(Shutdown::Both);
            refusing2.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            refusing.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Runs the server on a background thread (handy for tests and embedding).
    pub fn spawn(self) -> io::Result<BackgroundServer> {
        let handle = self.shutdown_handle();
        let addr = self.local.clone();
        let thread = std::thread::Builder::new()
            .name("nbd-accept".into())
            .spawn(move || self.run())?;
        Ok(BackgroundServer {
            addr,
            handle,
            thread: Some(thread),
        })
    }
}

/// Accept errors after which the server should keep accepting.
fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
    ) || matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// One connection from greeting to close.
pub(crate) fn handle(conn: &Conn, export: &dyn Export, info: &ExportInfo, limits: Limits) {
    let mut stream = conn;
    if conn.set_timeouts(Some(limits.handshake_timeout), Some(limits.reply_write_timeout)).is_err() {
        return conn.shutdown(Shutdown::Both);
    }
    if let Ok(Some(negotiated)) = negotiate(&mut stream, info) {
        // An idle client is fine once it is in; one that takes no replies is not.
        if conn.set_timeouts(None, Some(limits.reply_write_timeout)).is_ok() {
            let _ = serve(conn, export, info, negotiated, limits);
        }
    }
    conn.shutdown(Shutdown::Both);
}

/// A server running on its own thread; stopped by `stop` or on drop.
pub struct BackgroundServer {
    addr: ListenAddr,
    handle: ShutdownHandle,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl BackgroundServer {
    pub fn local_addr(&self) -> &ListenAddr {
        &self.addr
    }

    /// The TCP address, if listening on TCP.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        match self.addr {
            ListenAddr::Tcp(a) => Some(a),
            ListenAddr::Unix(_) => None,
        }
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.handle.clone()
    }

    /// Shuts the server down and waits for it; returns what `run` returned.
    pub fn stop(mut self) -> io::Result<()> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> io::Result<()> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        self.handle.shutdown();
        thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("server thread panicked")))
    }
}

impl Drop for BackgroundServer {
    fn drop(&mut self) {
        let _ = self.stop_inner();
    }
}
