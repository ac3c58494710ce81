//! Serves a file over NBD until killed: `cargo run --release --example serve -- FILE [ADDR]`.
//!
//! For manual testing and benchmarking against `nbdkit file`.

use std::sync::Arc;

use tierlab_nbd::{FileExport, ListenAddr, Server, ServerConfig};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: serve FILE [ADDR, default 127.0.0.1:10809]");
        std::process::exit(2);
    };
    let mut config = ServerConfig::default();
    if let Some(addr) = args.next() {
        let addr = addr
            .parse()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        config.listen = ListenAddr::Tcp(addr);
    }
    let server = Server::bind(config, Arc::new(FileExport::open(path, false)?))?;
    eprintln!("serving on {:?}", server.local_addr());
    server.run()
}
