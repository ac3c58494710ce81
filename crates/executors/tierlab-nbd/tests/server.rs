//! The server over loopback: normal operation, spec error codes, and clients
//! that misbehave while others keep being served.

mod common;

use std::io::{self, Read, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use common::*;
use tierlab_nbd::codec::{InfoRequest, Request};
use tierlab_nbd::proto::*;
use tierlab_nbd::{Export, ListenAddr, MemoryExport, Server, ServerConfig};

const MIB: u64 = 1 << 20;

#[test]
fn read_write_flush_trim_zero_simple_and_structured() {
    let (server, mem) = start_memory(4 * MIB);
    let addr = server.tcp_addr().unwrap();
    for structured in [false, true] {
        let mut c = Client::go(addr, structured);
        assert_eq!(c.size, 4 * MIB);
        let expected = FLAG_HAS_FLAGS
            | FLAG_SEND_FLUSH
            | FLAG_SEND_FUA
            | FLAG_SEND_TRIM
            | FLAG_SEND_WRITE_ZEROES
            | FLAG_SEND_FAST_ZERO
            | FLAG_CAN_MULTI_CONN
            | if structured { FLAG_SEND_DF } else { 0 };
        assert_eq!(c.flags, expected);
        let data = pattern(structured as u64 + 1, 100_000);
        assert_eq!(
            c.call(CMD_WRITE, CMD_FLAG_FUA, 12_345, data.len() as u32, &data)
                .error,
            0
        );
        assert_eq!(c.read(12_345, data.len() as u32).unwrap(), data);
        assert_eq!(&mem.to_vec()[12_345..112_345], &data[..]);
        assert_eq!(c.call(CMD_FLUSH, 0, 0, 0, &[]).error, 0);
        assert_eq!(
            c.call(CMD_WRITE_ZEROES, CMD_FLAG_NO_HOLE, 20_000, 1000, &[])
                .error,
            0
        );
        assert_eq!(c.call(CMD_TRIM, 0, 30_000, 1000, &[]).error, 0);
        let back = c.read(12_345, data.len() as u32).unwrap();
        assert!(back[7_655..8_655].iter().all(|&b| b == 0));
        assert!(back[17_655..18_655].iter().all(|&b| b == 0));
        assert_eq!(back[..7_655], data[..7_655]);
        assert_eq!(c.read(0, 0).unwrap(), Vec::<u8>::new());
        c.send(CMD_DISC, 0, 1, 0, 0, &[]);
        assert!(closed_by_server(&mut c.s));
    }
    server.stop().unwrap();
}

#[test]
fn block_status_reports_one_data_extent() {
    let (server, _mem) = start_memory(MIB);
    let mut c = Client::go(server.tcp_addr().unwrap(), true);
    let r = c.call(CMD_BLOCK_STATUS, CMD_FLAG_REQ_ONE, 4096, 8192, &[]);
    assert_eq!(r.error, 0);
    // context id, extent length, flags
    assert_eq!(
        r.data,
        [
            &1u32.to_be_bytes()[..],
            &8192u32.to_be_bytes(),
            &0u32.to_be_bytes()
        ]
        .concat()
    );
    assert_eq!(c.call(CMD_BLOCK_STATUS, 0, MIB - 1, 2, &[]).error, EINVAL);
    // Without SET_META_CONTEXT, block status is refused.
    let mut plain = Client::go(server.tcp_addr().unwrap(), false);
    assert_eq!(plain.call(CMD_BLOCK_STATUS, 0, 0, 512, &[]).error, EINVAL);
}

#[test]
fn out_of_range_oversized_and_unknown_requests_get_spec_errors() {
    let export = Arc::new(MemoryExport::new(MIB));
    let server = start(export.clone(), |c| c.max_payload_bytes = 65536);
    let addr = server.tcp_addr().unwrap();
    for structured in [false, true] {
        let mut c = Client::go(addr, structured);
        assert_eq!(c.read(MIB - 512, 1024), Err(EINVAL));
        assert_eq!(c.read(u64::MAX - 10, 512), Err(EINVAL));
        assert_eq!(c.write(MIB - 512, &[7u8; 1024]), ENOSPC);
        assert_eq!(c.call(CMD_WRITE_ZEROES, 0, MIB, 1, &[]).error, ENOSPC);
        assert_eq!(c.call(CMD_TRIM, 0, MIB, 512, &[]).error, EINVAL);
        assert_eq!(
            c.read(0, 65537),
            Err(if structured { EOVERFLOW } else { EINVAL })
        );
        // An oversized write payload is consumed, refused, and the stream stays in step.
        assert_eq!(c.write(0, &vec![9u8; 200_000]), EINVAL);
        assert_eq!(c.call(77, 0, 0, 0, &[]).error, EINVAL);
        assert_eq!(c.call(CMD_READ, 1 << 12, 0, 512, &[]).error, EINVAL);
        assert_eq!(
            c.call(CMD_WRITE_ZEROES, CMD_FLAG_FAST_ZERO, 0, 512, &[])
                .error,
            ENOTSUP
        );
        // Zeroing more than the maximum payload is fine: no payload travels.
        assert_eq!(c.call(CMD_WRITE_ZEROES, 0, 0, MIB as u32, &[]).error, 0);
        assert_eq!(c.write(0, b"still in sync"), 0);
        assert_eq!(c.read(0, 13).unwrap(), b"still in sync");
    }
    // None of the refused writes touched the export.
    let mem = export.to_vec();
    assert_eq!(&mem[..13], b"still in sync");
    assert!(mem[13..].iter().all(|&b| b == 0));
}

#[test]
fn read_only_export_refuses_writes_with_eperm() {
    let export = Arc::new(MemoryExport::new(MIB));
    let server = start(export, |c| c.read_only = true);
    let mut c = Client::go(server.tcp_addr().unwrap(), false);
    assert_ne!(c.flags & FLAG_READ_ONLY, 0);
    assert_eq!(c.flags & (FLAG_SEND_TRIM | FLAG_SEND_WRITE_ZEROES), 0);
    assert_eq!(c.write(0, &[1u8; 512]), EPERM);
    assert_eq!(c.call(CMD_TRIM, 0, 0, 512, &[]).error, EPERM);
    assert_eq!(c.call(CMD_WRITE_ZEROES, 0, 0, 512, &[]).error, EPERM);
    assert_eq!(c.read(0, 512).unwrap(), vec![0u8; 512]);
}

#[test]
fn handshake_errors_and_export_name() {
    let (server, _mem) = start_memory(MIB);
    let addr = server.tcp_addr().unwrap();
    let mut s = connect(addr);
    s.write_all(&FLAG_C_FIXED_NEWSTYLE.to_be_bytes()).unwrap();
    send_option(&mut s, 0x1234, b"whatever");
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ERR_UNSUP);
    send_option(&mut s, OPT_STARTTLS, &[]);
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ERR_UNSUP);
    send_option(
        &mut s,
        OPT_INFO,
        &InfoRequest {
            name: b"other",
            requests: vec![],
        }
        .encode(),
    );
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ERR_UNKNOWN);
    send_option(&mut s, OPT_LIST, &[]);
    let (h, data) = read_option_reply(&mut s);
    assert_eq!(h.reply_type, REP_SERVER);
    assert_eq!(&data[4..11], NAME.as_bytes());
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ACK);
    // 100 KiB of option data: skipped and refused, session continues.
    send_option(&mut s, OPT_GO, &vec![0u8; 100 * 1024]);
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ERR_TOO_BIG);
    // Old-style entry: EXPORT_NAME, then size, flags and 124 zero bytes.
    send_option(&mut s, OPT_EXPORT_NAME, NAME.as_bytes());
    let mut reply = [0u8; 134];
    s.read_exact(&mut reply).unwrap();
    assert_eq!(u64::from_be_bytes(reply[..8].try_into().unwrap()), MIB);
    assert!(reply[10..].iter().all(|&b| b == 0));
    s.write_all(
        &Request {
            flags: 0,
            command: CMD_READ,
            cookie: 5,
            offset: 0,
            length: 4,
        }
        .encode(),
    )
    .unwrap();
    let mut r = [0u8; 20];
    s.read_exact(&mut r).unwrap();
    assert_eq!(&r[4..8], &[0, 0, 0, 0]);
}

#[test]
fn abusive_clients_are_dropped_while_others_are_served() {
    let (server, mem) = start_memory(MIB);
    let addr = server.tcp_addr().unwrap();
    let mut good = Client::go(addr, false);
    assert_eq!(good.write(0, b"before"), 0);

    // Unknown client flags.
    let mut s = connect(addr);
    s.write_all(&0xffff_ffffu32.to_be_bytes()).unwrap();
    assert!(closed_by_server(&mut s));
    // Wrong option magic.
    let mut s = connect(addr);
    s.write_all(&1u32.to_be_bytes()).unwrap();
    s.write_all(&[0xab; 16]).unwrap();
    assert!(closed_by_server(&mut s));
    // An option length nobody should buffer: closed, nothing allocated.
    let mut s = connect(addr);
    s.write_all(&1u32.to_be_bytes()).unwrap();
    s.write_all(
        &tierlab_nbd::codec::OptionHeader {
            option: OPT_GO,
            data_len: u32::MAX,
        }
        .encode(),
    )
    .unwrap();
    assert!(closed_by_server(&mut s));
    // Unknown export via EXPORT_NAME: the only answer is to close.
    let mut s = connect(addr);
    s.write_all(&1u32.to_be_bytes()).unwrap();
    send_option(&mut s, OPT_EXPORT_NAME, b"nope");
    assert!(closed_by_server(&mut s));
    // Bad request magic in transmission.
    let mut c = Client::go(addr, false);
    c.s.write_all(&[0x55; 28]).unwrap();
    assert!(closed_by_server(&mut c.s));
    // Half a header, then gone.
    let mut c = Client::go(addr, false);
    c.s.write_all(
        &Request {
            flags: 0,
            command: CMD_WRITE,
            cookie: 1,
            offset: 0,
            length: 4,
        }
        .encode()[..10],
    )
    .unwrap();
    drop(c);
    // A write header and half its payload, then gone: nothing is written.
    let mut c = Client::go(addr, true);
    c.send(CMD_WRITE, 0, 1, 4096, 8192, &[0xee; 4096]);
    drop(c);
    // A write with a 4 GiB claimed payload: closed rather than buffered or skipped.
    let mut c = Client::go(addr, false);
    c.send(CMD_WRITE, 0, 1, 0, u32::MAX, &[1; 100]);
    assert!(closed_by_server(&mut c.s));
    // An abort.
    let mut s = connect(addr);
    s.write_all(&1u32.to_be_bytes()).unwrap();
    send_option(&mut s, OPT_ABORT, &[]);
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ACK);
    assert!(closed_by_server(&mut s));

    // The well-behaved client was never disturbed.
    assert_eq!(good.read(0, 6).unwrap(), b"before");
    assert!(mem.to_vec()[4096..12288].iter().all(|&b| b == 0));
    let mut fresh = Client::go(addr, true);
    assert_eq!(fresh.read(0, 6).unwrap(), b"before");
    server.stop().unwrap();
}

#[test]
fn thirty_two_clients_at_once_each_see_their_own_data() {
    const REGION: u64 = 256 * 1024;
    let (server, mem) = start_memory(32 * REGION);
    let addr = server.tcp_addr().unwrap();
    let threads: Vec<_> = (0..32u64)
        .map(|i| {
            std::thread::spawn(move || {
                let mut c = Client::go(addr, i % 2 == 0);
                let base = i * REGION;
                let data = pattern(i + 100, REGION as usize);
                // Pipeline 16 writes, then 16 reads, before collecting replies.
                for k in 0..16u64 {
                    let piece = &data[(k * 16384) as usize..((k + 1) * 16384) as usize];
                    c.send(CMD_WRITE, 0, k, base + k * 16384, 16384, piece);
                }
                for _ in 0..16 {
                    assert_eq!(c.recv(0).error, 0);
                }
                for k in 0..16u64 {
                    c.send(CMD_READ, 0, 100 + k, base + k * 16384, 16384, &[]);
                }
                let mut back = vec![0u8; REGION as usize];
                for _ in 0..16 {
                    // Replies may arrive in any order; the cookie says which.
                    let r = if c.structured {
                        c.recv(0)
                    } else {
                        c.recv(16384)
                    };
                    assert_eq!(r.error, 0);
                    let k = (r.cookie - 100) as usize;
                    back[k * 16384..(k + 1) * 16384].copy_from_slice(&r.data);
                }
                assert_eq!(back, data, "client {i}");
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let all = mem.to_vec();
    for i in 0..32u64 {
        assert_eq!(
            &all[(i * REGION) as usize..((i + 1) * REGION) as usize],
            &pattern(i + 100, REGION as usize)[..]
        );
    }
}

/// An export whose reads wait until `want` reads are in progress at once,
/// proving that one connection's requests really overlap.
struct RendezvousExport {
    inner: MemoryExport,
    want: usize,
    arrived: Mutex<usize>,
    all_here: Condvar,
}

impl Export for RendezvousExport {
    fn size_bytes(&self) -> u64 {
        self.inner.size_bytes()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let mut n = self.arrived.lock().unwrap();
        *n += 1;
        self.all_here.notify_all();
        // The timeout only turns a serialising server into a failure instead of a hang.
        let (n, _) = self
            .all_here
            .wait_timeout_while(n, Duration::from_secs(20), |n| *n < self.want)
            .unwrap();
        if *n < self.want {
            return Err(io::Error::other("reads were not concurrent"));
        }
        self.inner.read_at(offset, buf)
    }
    fn write_at(&self, offset: u64, data: &[u8], fua: bool) -> io::Result<()> {
        self.inner.write_at(offset, data, fua)
    }
    fn flush(&self) -> io::Result<()> {
        Ok(())
    }
    fn trim(&self, offset: u64, len: u64) -> io::Result<()> {
        self.inner.trim(offset, len)
    }
}

#[test]
fn requests_of_one_connection_run_concurrently() {
    let export = Arc::new(RendezvousExport {
        inner: MemoryExport::new(MIB),
        want: 6,
        arrived: Mutex::new(0),
        all_here: Condvar::new(),
    });
    let server = start(export, |c| c.workers_per_connection = 8);
    let mut c = Client::go(server.tcp_addr().unwrap(), false);
    for k in 0..6 {
        c.send(CMD_READ, 0, k, k * 4096, 4096, &[]);
    }
    for _ in 0..6 {
        assert_eq!(c.recv(4096).error, 0);
    }
}

#[test]
fn disconnect_completes_outstanding_writes() {
    let (server, mem) = start_memory(MIB);
    let addr = server.tcp_addr().unwrap();
    let mut c = Client::go(addr, false);
    for k in 0..8u64 {
        c.send(CMD_WRITE, 0, k, k * 4096, 4096, &pattern(k, 4096));
    }
    c.send(CMD_DISC, 0, 99, 0, 0, &[]);
    // All eight replies arrive, then the server closes.
    for _ in 0..8 {
        assert_eq!(c.recv(0).error, 0);
    }
    assert!(closed_by_server(&mut c.s));
    let all = mem.to_vec();
    for k in 0..8usize {
        assert_eq!(&all[k * 4096..(k + 1) * 4096], &pattern(k as u64, 4096)[..]);
    }
}

#[test]
fn unix_socket_and_shutdown_with_idle_client() {
    let path = std::env::temp_dir().join(format!("tierlab-nbd-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let config = ServerConfig {
        listen: ListenAddr::Unix(path.clone()),
        ..ServerConfig::default()
    };
    let server = Server::bind(config, Arc::new(MemoryExport::new(MIB)))
        .unwrap()
        .spawn()
        .unwrap();
    let mut s = std::os::unix::net::UnixStream::connect(&path).unwrap();
    let mut greeting = [0u8; 18];
    s.read_exact(&mut greeting).unwrap();
    assert_eq!(&greeting[..8], b"NBDMAGIC");
    // The client sits idle mid-handshake; stopping must not wait for it.
    server.stop().unwrap();
    assert!(matches!(s.read(&mut greeting), Ok(0) | Err(_)));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bad_config_is_refused() {
    let export = Arc::new(MemoryExport::new(MIB));
    let small = ServerConfig {
        max_payload_bytes: 512,
        ..ServerConfig::default()
    };
    assert!(Server::bind(small, export.clone()).is_err());
    let long = ServerConfig {
        export_name: "x".repeat(5000),
        ..ServerConfig::default()
    };
    assert!(Server::bind(long, export).is_err());
}

/// An export whose every operation fails with a chosen OS error.
struct FailingExport;

impl Export for FailingExport {
    fn size_bytes(&self) -> u64 {
        MIB
    }
    fn read_at(&self, _: u64, _: &mut [u8]) -> io::Result<()> {
        Err(io::Error::from_raw_os_error(5)) // EIO on Linux
    }
    fn write_at(&self, _: u64, _: &[u8], _: bool) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::StorageFull))
    }
    fn flush(&self) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::PermissionDenied))
    }
    fn trim(&self, _: u64, _: u64) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

#[test]
fn export_errors_reach_the_client_mapped() {
    let server = start(Arc::new(FailingExport), |_| {});
    for structured in [false, true] {
        let mut c = Client::go(server.tcp_addr().unwrap(), structured);
        assert_eq!(c.read(0, 4096), Err(EIO));
        assert_eq!(c.write(0, &[1; 512]), ENOSPC);
        // The default write_zeroes goes through write_at.
        assert_eq!(c.call(CMD_WRITE_ZEROES, 0, 0, 512, &[]).error, ENOSPC);
        assert_eq!(c.call(CMD_FLUSH, 0, 0, 0, &[]).error, EPERM);
        assert_eq!(c.call(CMD_TRIM, 0, 0, 512, &[]).error, ENOTSUP);
        // After all those errors the connection is still in step.
        assert_eq!(c.read(0, 1), Err(EIO));
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;
    use std::net::Shutdown;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Arbitrary bytes after the handshake, optionally led by a valid
        /// request header, end at most that connection; the server then
        /// still serves a well-behaved client.
        #[test]
        fn arbitrary_transmission_bytes_only_hurt_their_sender(
            structured: bool,
            command in 0u16..10,
            flags: u16,
            offset in prop_oneof![0u64..(1 << 20), any::<u64>()],
            length in prop_oneof![0u32..70_000, any::<u32>()],
            tail in proptest::collection::vec(any::<u8>(), 0..600),
        ) {
            let (server, _mem) = start_memory(MIB);
            let addr = server.tcp_addr().unwrap();
            let mut c = Client::go(addr, structured);
            let mut bytes = Request { flags, command, cookie: 1, offset, length }.encode().to_vec();
            bytes.extend(tail);
            c.s.write_all(&bytes).unwrap();
            c.s.shutdown(Shutdown::Write).unwrap();
            // Drain whatever the server answers until it closes.
            let mut sink = Vec::new();
            let _ = c.s.read_to_end(&mut sink);
            let mut good = Client::go(addr, !structured);
            prop_assert_eq!(good.write(512, b"ok"), 0);
            prop_assert_eq!(good.read(512, 2).unwrap(), b"ok".to_vec());
            server.stop().unwrap();
        }
    }
}
