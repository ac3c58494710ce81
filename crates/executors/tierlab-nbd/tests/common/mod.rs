//! A tiny NBD client for tests, built on the crate's own codec, plus helpers
//! to start an in-process server.
#![allow(dead_code)] // each test file uses a different subset

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use tierlab_nbd::codec::{
    ChunkHeader, InfoRequest, MetaContextRequest, OptionHeader, OptionReplyHeader, Request,
    SimpleReply,
};
use tierlab_nbd::proto::*;
use tierlab_nbd::{BackgroundServer, Export, ListenAddr, MemoryExport, Server, ServerConfig};

pub const NAME: &str = "tierlab";

/// Starts a server on an ephemeral loopback port.
pub fn start(export: Arc<dyn Export>, tweak: impl FnOnce(&mut ServerConfig)) -> BackgroundServer {
    let mut config = ServerConfig {
        export_name: NAME.into(),
        listen: ListenAddr::Tcp("127.0.0.1:0".parse().unwrap()),
        ..ServerConfig::default()
    };
    tweak(&mut config);
    Server::bind(config, export).unwrap().spawn().unwrap()
}

pub fn start_memory(size: u64) -> (BackgroundServer, Arc<MemoryExport>) {
    let export = Arc::new(MemoryExport::new(size));
    (start(export.clone(), |_| {}), export)
}

/// A connected socket with the server greeting already checked. The read
/// timeout only keeps a broken server from hanging the test run.
pub fn connect(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.set_nodelay(true).unwrap();
    let mut greeting = [0u8; 18];
    s.read_exact(&mut greeting).unwrap();
    assert_eq!(&greeting[..8], b"NBDMAGIC");
    assert_eq!(&greeting[8..16], b"IHAVEOPT");
    assert_eq!(
        u16::from_be_bytes([greeting[16], greeting[17]]),
        FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES
    );
    s
}

/// True once the server has closed the connection (EOF or reset).
pub fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0) | Err(_))
}

pub fn send_option(s: &mut TcpStream, option: u32, data: &[u8]) {
    let header = OptionHeader {
        option,
        data_len: data.len() as u32,
    };
    let mut msg = header.encode().to_vec();
    msg.extend_from_slice(data);
    s.write_all(&msg).unwrap();
}

pub fn read_option_reply(s: &mut TcpStream) -> (OptionReplyHeader, Vec<u8>) {
    let mut h = [0u8; OptionReplyHeader::LEN];
    s.read_exact(&mut h).unwrap();
    let h = OptionReplyHeader::decode(&h).unwrap();
    let mut data = vec![0u8; h.data_len as usize];
    s.read_exact(&mut data).unwrap();
    (h, data)
}

/// A client in the transmission phase.
pub struct Client {
    pub s: TcpStream,
    pub structured: bool,
    pub size: u64,
    pub flags: u16,
}

/// A reply as the client sees it.
#[derive(Debug, PartialEq, Eq)]
pub struct Reply {
    pub cookie: u64,
    pub error: u32,
    pub data: Vec<u8>,
}

impl Client {
    /// Negotiates with `NBD_OPT_GO`, optionally with structured replies and
    /// `base:allocation`.
    pub fn go(addr: SocketAddr, structured: bool) -> Client {
        let mut s = connect(addr);
        s.write_all(&(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES).to_be_bytes())
            .unwrap();
        if structured {
            send_option(&mut s, OPT_STRUCTURED_REPLY, &[]);
            assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ACK);
            let meta = MetaContextRequest {
                name: NAME.as_bytes(),
                queries: vec![b"base:allocation"],
            };
            send_option(&mut s, OPT_SET_META_CONTEXT, &meta.encode());
            assert_eq!(read_option_reply(&mut s).0.reply_type, REP_META_CONTEXT);
            assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ACK);
        }
        let go = InfoRequest {
            name: NAME.as_bytes(),
            requests: vec![INFO_BLOCK_SIZE],
        };
        send_option(&mut s, OPT_GO, &go.encode());
        let (mut size, mut flags) = (0, 0);
        loop {
            let (h, data) = read_option_reply(&mut s);
            match h.reply_type {
                REP_INFO if data[..2] == INFO_EXPORT.to_be_bytes() => {
                    size = u64::from_be_bytes(data[2..10].try_into().unwrap());
                    flags = u16::from_be_bytes([data[10], data[11]]);
                }
                REP_INFO => {}
                REP_ACK => break,
                other => panic!("GO failed with reply type {other:#x}"),
            }
        }
        Client {
            s,
            structured,
            size,
            flags,
        }
    }

    pub fn send(
        &mut self,
        command: u16,
        flags: u16,
        cookie: u64,
        offset: u64,
        length: u32,
        payload: &[u8],
    ) {
        let req = Request {
            flags,
            command,
            cookie,
            offset,
            length,
        };
        let mut msg = req.encode().to_vec();
        msg.extend_from_slice(payload);
        self.s.write_all(&msg).unwrap();
    }

    /// Reads one reply; `read_len` is the data length expected if it is a
    /// successful simple read reply (the simple protocol is not self-describing).
    pub fn recv(&mut self, read_len: usize) -> Reply {
        if !self.structured {
            let mut h = [0u8; SimpleReply::LEN];
            self.s.read_exact(&mut h).unwrap();
            let h = SimpleReply::decode(&h).unwrap();
            let mut data = Vec::new();
            if h.error == 0 {
                data.resize(read_len, 0);
                self.s.read_exact(&mut data).unwrap();
            }
            return Reply {
                cookie: h.cookie,
                error: h.error,
                data,
            };
        }
        let mut reply = Reply {
            cookie: 0,
            error: 0,
            data: Vec::new(),
        };
        loop {
            let mut h = [0u8; ChunkHeader::LEN];
            self.s.read_exact(&mut h).unwrap();
            let h = ChunkHeader::decode(&h).unwrap();
            let mut payload = vec![0u8; h.length as usize];
            self.s.read_exact(&mut payload).unwrap();
            reply.cookie = h.cookie;
            match h.chunk_type {
                REPLY_TYPE_OFFSET_DATA => reply.data.extend_from_slice(&payload[8..]),
                REPLY_TYPE_ERROR => {
                    reply.error = u32::from_be_bytes(payload[..4].try_into().unwrap())
                }
                _ => reply.data.extend_from_slice(&payload),
            }
            if h.flags & REPLY_FLAG_DONE != 0 {
                return reply;
            }
        }
    }

    /// One request, one reply.
    pub fn call(
        &mut self,
        command: u16,
        flags: u16,
        offset: u64,
        length: u32,
        payload: &[u8],
    ) -> Reply {
        self.send(command, flags, 42, offset, length, payload);
        let read_len = if command == CMD_READ {
            length as usize
        } else {
            0
        };
        let r = self.recv(read_len);
        assert_eq!(r.cookie, 42);
        r
    }

    pub fn write(&mut self, offset: u64, data: &[u8]) -> u32 {
        self.call(CMD_WRITE, 0, offset, data.len() as u32, data)
            .error
    }

    pub fn read(&mut self, offset: u64, len: u32) -> Result<Vec<u8>, u32> {
        let r = self.call(CMD_READ, 0, offset, len, &[]);
        if r.error == 0 {
            Ok(r.data)
        } else {
            Err(r.error)
        }
    }
}

/// Deterministic pseudo-random bytes (xorshift), different per seed.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
