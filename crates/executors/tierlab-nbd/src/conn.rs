//! One accepted client socket, TCP or Unix, behind one type.
//!
//! `Read` and `Write` are implemented for `&Conn` (as std does for its
//! sockets), so a reader thread and reply writers share one socket without
//! cloning file descriptors.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;

#[derive(Debug)]
pub(crate) enum Conn {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Conn {
    pub fn try_clone(&self) -> io::Result<Conn> {
        Ok(match self {
            Conn::Tcp(s) => Conn::Tcp(s.try_clone()?),
            Conn::Unix(s) => Conn::Unix(s.try_clone()?),
        })
    }

    /// Read and write timeouts (None: wait for ever).
    pub fn set_timeouts(&self, read: Option<std::time::Duration>, write: Option<std::time::Duration>) -> io::Result<()> {
        match self {
            Conn::Tcp(s) => s.set_read_timeout(read).and_then(|()| s.set_write_timeout(write)),
            Conn::Unix(s) => s.set_read_timeout(read).and_then(|()| s.set_write_timeout(write)),
        }
    }

    /// Shuts one or both directions; errors (already closed) do not matter here.
    pub fn shutdown(&self, how: Shutdown) {
        let _ = match self {
            Conn::Tcp(s) => s.shutdown(how),
            Conn::Unix(s) => s.shutdown(how),
        };
    }
}

impl Read for &Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Tcp(s) => (&*s).read(buf),
            Conn::Unix(s) => (&*s).read(buf),
        }
    }
}

impl Write for &Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Tcp(s) => (&*s).write(buf),
            Conn::Unix(s) => (&*s).write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
