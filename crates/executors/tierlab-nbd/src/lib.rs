//! Server side of the NBD (Network Block Device) protocol, as a library.
//!
//! Anything implementing [`Export`] can be served: the tierlab hybrid drive,
//! or the reference [`MemoryExport`] and [`FileExport`]. [`Server`] speaks
//! fixed newstyle negotiation (`INFO`, `GO`, `LIST`, structured replies,
//! `base:allocation`) and runs each connection's requests on a worker pool
//! so many can be in flight at once. TLS is not supported.
//!
//! Layers: [`proto`] (constants) and [`codec`] (pure byte-level encoding) are
//! independent of sockets; `handshake`, `request` and `transmission` hold
//! the protocol logic; `server` owns sockets and threads.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tierlab_nbd::{MemoryExport, Server, ServerConfig};
//! let server = Server::bind(ServerConfig::default(), Arc::new(MemoryExport::new(1 << 30)))?;
//! let stop = server.shutdown_handle();
//! // ... hand `stop` to a signal handler, then:
//! server.run()?;
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod codec;
mod conn;
mod export;
#[doc(hidden)]
pub mod fuzzing;
mod handshake;
pub mod proto;
mod request;
mod server;
mod transmission;

pub use export::{write_zero_chunks, Export, FileExport, MemoryExport};
pub use server::{BackgroundServer, ListenAddr, Server, ServerConfig, ShutdownHandle};
