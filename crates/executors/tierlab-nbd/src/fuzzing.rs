//! Entry points for the fuzz targets (`fuzz/`): one whole session, handshake and then
//! transmission, fed from bytes, against an export. The server's answers are drained and
//! dropped; what matters is that nothing panics and the session ends.

use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use crate::conn::Conn;
use crate::export::Export;
use crate::handshake::{negotiate, ExportInfo};
use crate::server::{handle, Limits};

/// The export as the server would describe it, with a small maximum payload so that
/// fuzzed lengths reach the limits quickly.
fn info(export: &dyn Export) -> ExportInfo {
    ExportInfo { name: String::new(), description: export.description(), size_bytes: export.size_bytes(), read_only: false, multi_conn: true, max_payload: 1 << 16 }
}

/// The handshake alone over an in-memory stream: `input` is what the client sends.
pub fn handshake(export: &dyn Export, input: &[u8]) {
    let mut stream = Duplex { input, output: Vec::new() };
    let _ = negotiate(&mut stream, &info(export));
}

/// A whole session over a socket pair: `input` is everything the client sends (it then
/// closes its side); the server's answers are read and dropped.
pub fn session(export: Arc<dyn Export>, input: &[u8]) {
    let Ok((server, mut client)) = UnixStream::pair() else { return };
    let Ok(mut reader) = client.try_clone() else { return };
    let drain = std::thread::spawn(move || {
        let mut sink = [0u8; 1 << 16];
        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
    });
    let limits = Limits { workers: 2, inflight_bytes: 1 << 20, reply_write_timeout: std::time::Duration::from_secs(5), handshake_timeout: std::time::Duration::from_secs(5) };
    let conn = Conn::Unix(server);
    let info = info(&*export);
    std::thread::scope(|s| {
        s.spawn(|| handle(&conn, &*export, &info, limits));
        let _ = client.write_all(input);
        let _ = client.shutdown(Shutdown::Write);
    });
    let _ = drain.join();
}

/// What a client sends to reach transmission on the default export: its flags, then
/// (with `structured`) STRUCTURED_REPLY and SET_META_CONTEXT for `base:allocation`, then GO.
pub fn go_prefix(structured: bool) -> Vec<u8> {
    use crate::codec::{InfoRequest, MetaContextRequest, OptionHeader};
    use crate::proto::*;
    let mut out = (FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES).to_be_bytes().to_vec();
    let mut option = |option: u32, data: &[u8]| {
        out.extend_from_slice(&OptionHeader { option, data_len: data.len() as u32 }.encode());
        out.extend_from_slice(data);
    };
    if structured {
        option(OPT_STRUCTURED_REPLY, &[]);
        option(OPT_SET_META_CONTEXT, &MetaContextRequest { name: b"", queries: vec![b"base:allocation"] }.encode());
    }
    option(OPT_GO, &InfoRequest { name: b"", requests: vec![] }.encode());
    out
}

/// Reads from `input`, collects writes.
struct Duplex<'a> {
    input: &'a [u8],
    output: Vec<u8>,
}

impl Read for Duplex<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for Duplex<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Bounded, whatever the input makes the server say.
        if self.output.len() < 1 << 20 {
            self.output.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::MemoryExport;

    #[test]
    fn sessions_from_bytes_end() {
        let export: Arc<dyn Export> = Arc::new(MemoryExport::new(1 << 20));
        handshake(&*export, b"garbage");
        session(export.clone(), b"");
        session(export.clone(), &[0u8; 100]);
        let mut s = go_prefix(true);
        // A read of 512 bytes at 0, then a disconnect.
        s.extend_from_slice(&crate::codec::Request { flags: 0, command: crate::proto::CMD_READ, cookie: 1, offset: 0, length: 512 }.encode());
        s.extend_from_slice(&crate::codec::Request { flags: 0, command: crate::proto::CMD_DISC, cookie: 2, offset: 0, length: 0 }.encode());
        session(export, &s);
    }
}
