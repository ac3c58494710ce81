//! The server's limits: connections beyond the limit hear the protocol's error, a write
//! header alone pins no buffer, a client that reads no replies cannot hold up shutdown,
//! and one that never finishes its handshake is dropped.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use tierlab_nbd::codec::{InfoRequest, Request};
use tierlab_nbd::proto::*;
use tierlab_nbd::MemoryExport;

const MIB: u64 = 1 << 20;

/// The memory test measures this process's resident set: nothing else may run meanwhile.
static ALONE: Mutex<()> = Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

#[test]
fn connections_beyond_the_limit_are_refused_with_the_protocols_error() {
    let _g = alone();
    let server = start(Arc::new(MemoryExport::new(MIB)), |c| c.max_connections = 2);
    let addr = server.tcp_addr().unwrap();
    let a = Client::go(addr, false);
    let _b = Client::go(addr, true);
    let mut s = connect(addr);
    s.write_all(&(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES).to_be_bytes()).unwrap();
    let go = InfoRequest { name: NAME.as_bytes(), requests: vec![] };
    for _ in 0..2 {
        send_option(&mut s, OPT_GO, &go.encode());
        let (h, data) = read_option_reply(&mut s);
        assert_eq!(h.reply_type, REP_ERR_POLICY);
        let why = String::from_utf8_lossy(&data);
        assert!(why.contains("too many connections") && why.contains('2'), "{why}");
    }
    send_option(&mut s, OPT_ABORT, &[]);
    assert_eq!(read_option_reply(&mut s).0.reply_type, REP_ACK);
    assert!(closed_by_server(&mut s));
    // A place freed is taken by the next client.
    drop(a);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut s = connect(addr);
        s.write_all(&(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES).to_be_bytes()).unwrap();
        send_option(&mut s, OPT_GO, &go.encode());
        let (h, _) = read_option_reply(&mut s);
        if h.reply_type != REP_ERR_POLICY {
            break;
        }
        assert!(Instant::now() < deadline, "the freed connection was never given back");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_write_header_without_its_payload_pins_no_buffer() {
    let _g = alone();
    let server = start(Arc::new(MemoryExport::new(64 * MIB)), |c| c.max_payload_bytes = 32 << 20);
    let addr = server.tcp_addr().unwrap();
    let before = resident_bytes();
    let mut clients = Vec::new();
    for i in 0..12 {
        let mut c = Client::go(addr, false);
        let req = Request { flags: 0, command: CMD_WRITE, cookie: i, offset: 0, length: 32 << 20 };
        c.s.write_all(&req.encode()).unwrap();
        // A little of the payload, so the server is surely waiting for the rest.
        c.s.write_all(&[7u8; 4096]).unwrap();
        clients.push(c);
    }
    std::thread::sleep(Duration::from_millis(500));
    let grown = resident_bytes().saturating_sub(before);
    assert!(grown < 48 * MIB, "12 write headers of 32 MiB pinned {} MiB", grown / MIB);
    drop(clients);
}

#[test]
fn a_client_that_reads_no_replies_does_not_hold_up_shutdown() {
    let _g = alone();
    let server = start(Arc::new(MemoryExport::new(64 * MIB)), |c| c.shutdown_grace = Duration::from_millis(500));
    let addr = server.tcp_addr().unwrap();
    let c = Client::go(addr, false);
    let mut w = c.s.try_clone().unwrap();
    // Reads of 1 MiB, never collected: the socket fills, the workers block writing.
    let sender = std::thread::spawn(move || {
        for i in 0..400u64 {
            let req = Request { flags: 0, command: CMD_READ, cookie: i, offset: (i % 64) * MIB, length: MIB as u32 };
            if w.write_all(&req.encode()).is_err() {
                return;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(700));
    let t = Instant::now();
    server.stop().unwrap();
    let took = t.elapsed();
    assert!(took < Duration::from_secs(4), "shutdown took {took:?}");
    drop(c);
    let _ = sender.join();
}

#[test]
fn a_client_that_never_finishes_its_handshake_is_dropped() {
    let _g = alone();
    let server = start(Arc::new(MemoryExport::new(MIB)), |c| c.handshake_timeout = Duration::from_millis(300));
    let mut s: TcpStream = connect(server.tcp_addr().unwrap());
    let t = Instant::now();
    let mut b = [0u8; 1];
    assert!(matches!(s.read(&mut b), Ok(0) | Err(_)));
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}
