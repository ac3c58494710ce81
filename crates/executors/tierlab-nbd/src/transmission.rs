//! The transmission phase of one connection.
//!
//! A pool of worker threads per connection takes turns reading the next
//! request (and its write payload) from the socket, then serves it, so one
//! client can keep many requests in flight. Each reply leaves in a single
//! `write` under the connection's writer lock.
//!
//! Memory is bounded whatever the client claims: write payloads are read only
//! up to the advertised maximum, and all request buffers (write payloads and
//! read results) are charged against a per-connection byte budget before
//! they are allocated. A write payload's buffer grows as its bytes arrive
//! (at most a megabyte ahead of them), so a header alone pins no memory.
//! Buffers are recycled through a small pool.

use std::io::{self, BufReader, Read, Write};
use std::net::Shutdown;
use std::sync::{Condvar, Mutex};

use crate::codec::{encode_error_chunk, ChunkHeader, Request, SimpleReply};
use crate::conn::Conn;
use crate::export::Export;
use crate::handshake::{ExportInfo, Negotiated, BASE_ALLOCATION_ID};
use crate::proto::*;
use crate::request::{classify, errno_of, Op};
use crate::server::Limits;

/// How far a write payload's buffer grows ahead of the bytes received.
const PAYLOAD_CHUNK_BYTES: usize = 1 << 20;
/// An oversized write payload up to this length is read and dropped so the
/// stream stays in step; beyond it the connection is closed.
const MAX_SKIP_BYTES: u32 = 64 << 20;
/// Pooled buffers larger than this are freed rather than kept.
const MAX_POOLED_CAPACITY: usize = 4 << 20;

/// A counting semaphore over bytes.
struct Budget {
    capacity: u64,
    state: Mutex<BudgetState>,
    freed: Condvar,
}

struct BudgetState {
    available: u64,
    /// Threads waiting for bytes (waking nobody would still cost a system call).
    waiting: u32,
}

impl Budget {
    fn new(capacity: u64) -> Self {
        Budget {
            capacity,
            state: Mutex::new(BudgetState { available: capacity, waiting: 0 }),
            freed: Condvar::new(),
        }
    }

    /// Waits until `bytes` (clamped to the capacity) are free and takes them;
    /// returns the amount to give back.
    fn acquire(&self, bytes: u64) -> u64 {
        let bytes = bytes.min(self.capacity);
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while st.available < bytes {
            st.waiting += 1;
            st = self.freed.wait(st).unwrap_or_else(|e| e.into_inner());
            st.waiting -= 1;
        }
        st.available -= bytes;
        bytes
    }

    fn release(&self, bytes: u64) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.available += bytes;
        let wake = st.waiting > 0;
        drop(st);
        if wake {
            self.freed.notify_all();
        }
    }
}

/// Recycled byte buffers, to avoid an allocation per request.
struct BufferPool {
    free: Mutex<Vec<Vec<u8>>>,
    keep: usize,
}

impl BufferPool {
    /// A buffer of exactly `len` bytes. A recycled buffer keeps its old bytes (zeroing a
    /// megabyte per request costs more than the copy): every user overwrites all of it
    /// before sending any (a read fills it or fails; a payload is read in whole).
    fn get(&self, len: usize) -> Vec<u8> {
        let mut buf = self
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        if buf.len() >= len {
            buf.truncate(len);
        } else {
            buf.resize(len, 0);
        }
        buf
    }

    fn put(&self, buf: Vec<u8>) {
        if buf.capacity() <= MAX_POOLED_CAPACITY {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            if free.len() < self.keep {
                free.push(buf);
            }
        }
    }
}

/// One accepted request on its way to a worker.
struct Job {
    req: Request,
    op: Op,
    /// The write payload; empty for other commands.
    payload: Vec<u8>,
    /// Budget bytes to release when the job is done.
    charge: u64,
}

/// Everything the reader and the workers of one connection share.
struct Shared<'a> {
    conn: &'a Conn,
    export: &'a dyn Export,
    info: &'a ExportInfo,
    negotiated: Negotiated,
    writer: Mutex<()>,
    budget: Budget,
    pool: BufferPool,
}

/// Serves requests until the client disconnects, sends `NBD_CMD_DISC`, sends
/// garbage, or the socket is shut down. Requests already accepted are always
/// completed (and answered, if the socket still allows) before returning.
///
/// Each worker reads its own next request (taking turns on the socket, as
/// nbdkit's parallel model does) and then serves it: a request costs one
/// thread wake-up, not a hand-off from a reader thread to a worker.
pub(crate) fn serve(
    conn: &Conn,
    export: &dyn Export,
    info: &ExportInfo,
    negotiated: Negotiated,
    limits: Limits,
) -> io::Result<()> {
    let workers = limits.workers.max(1);
    let shared = Shared {
        conn,
        export,
        info,
        negotiated,
        writer: Mutex::new(()),
        budget: Budget::new(limits.inflight_bytes.max(u64::from(info.max_payload))),
        pool: BufferPool {
            free: Mutex::new(Vec::new()),
            keep: workers * 2,
        },
    };
    let input = Mutex::new(Input {
        reader: BufReader::with_capacity(64 * 1024, conn),
        end: None,
    });
    std::thread::scope(|s| {
        let mut started = 0;
        for _ in 0..workers {
            // Out of threads: run with fewer workers rather than fail (or panic).
            let spawned = std::thread::Builder::new().spawn_scoped(s, || worker(&shared, &input));
            started += usize::from(spawned.is_ok());
        }
        if started == 0 {
            return Err(io::Error::other("could not start any worker thread"));
        }
        Ok(())
    })?;
    let end = input.into_inner().unwrap_or_else(|e| e.into_inner()).end;
    end.unwrap_or(Ok(()))
}

/// The connection's request stream, read by one worker at a time.
struct Input<'a> {
    reader: BufReader<&'a Conn>,
    /// How the session ended, once it has: no worker reads after that.
    end: Option<io::Result<()>>,
}

/// What reading the next request gave.
enum Next {
    Job(Job),
    /// Answered already (refused, or an oversized write skipped).
    Answered,
    /// The session is over: EOF or `NBD_CMD_DISC` (Ok), or garbage (Err).
    End(io::Result<()>),
}

fn worker(sh: &Shared, input: &Mutex<Input>) {
    loop {
        let job = {
            let mut input = input.lock().unwrap_or_else(|e| e.into_inner());
            if input.end.is_some() {
                return;
            }
            match next_request(sh, &mut input.reader) {
                Next::Job(job) => job,
                Next::Answered => continue,
                Next::End(end) => {
                    input.end = Some(end);
                    return;
                }
            }
        };
        run(sh, job);
    }
}

/// Reads one request (and its write payload).
fn next_request(sh: &Shared, reader: &mut BufReader<&Conn>) -> Next {
    let mut header = [0u8; Request::LEN];
    if let Err(e) = reader.read_exact(&mut header) {
        return Next::End(if e.kind() == io::ErrorKind::UnexpectedEof {
            Ok(())
        } else {
            Err(e)
        });
    }
    let req = match Request::decode(&header) {
        Ok(req) => req,
        Err(e) => return Next::End(Err(io::Error::new(io::ErrorKind::InvalidData, e))),
    };
    if req.command == CMD_DISC {
        return Next::End(Ok(()));
    }
    let mut payload = Vec::new();
    let mut charge = 0;
    if req.command == CMD_WRITE {
        if req.length > sh.info.max_payload {
            if req.length > MAX_SKIP_BYTES {
                return Next::End(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "write payload too large to skip",
                )));
            }
            if let Err(e) = io::copy(&mut reader.take(u64::from(req.length)), &mut io::sink()) {
                return Next::End(Err(e));
            }
            reply_error(
                sh,
                req.cookie,
                EINVAL,
                "write longer than the maximum payload",
            );
            return Next::Answered;
        }
        charge = sh.budget.acquire(u64::from(req.length));
        payload = sh.pool.get(0);
        if let Err(e) = read_payload(reader, &mut payload, req.length as usize) {
            sh.pool.put(payload);
            sh.budget.release(charge);
            return Next::End(Err(e));
        }
    }
    match classify(&req, sh.info, &sh.negotiated) {
        Err(errno) => {
            sh.budget.release(charge);
            sh.pool.put(payload);
            reply_error(sh, req.cookie, errno, "request refused");
            Next::Answered
        }
        Ok(op) => {
            if op == Op::Read {
                charge = sh.budget.acquire(u64::from(req.length));
            }
            Next::Job(Job {
                req,
                op,
                payload,
                charge,
            })
        }
    }
}

/// Reads a `len`-byte payload into `buf`, growing it as the bytes arrive.
fn read_payload(reader: &mut BufReader<&Conn>, buf: &mut Vec<u8>, len: usize) -> io::Result<()> {
    buf.clear();
    while buf.len() < len {
        let room = (len - buf.len()).min(PAYLOAD_CHUNK_BYTES);
        buf.reserve_exact(room);
        // Into the reserved room, without zeroing it first.
        if reader.take(room as u64).read_to_end(buf)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
    Ok(())
}

/// Runs one job against the export and answers it.
fn run(sh: &Shared, job: Job) {
    let Job {
        req,
        op,
        payload,
        charge,
    } = job;
    let (off, len) = (req.offset, u64::from(req.length));
    let done = match op {
        Op::Read => {
            read(sh, &req);
            Ok(())
        }
        Op::Write { fua } => sh.export.write_at(off, &payload, fua),
        Op::Flush => sh.export.flush(),
        Op::Trim { fua } => {
            sh.export
                .trim(off, len)
                .and_then(|()| if fua { sh.export.flush() } else { Ok(()) })
        }
        Op::WriteZeroes { fua, may_trim } => sh.export.write_zeroes(off, len, fua, may_trim),
        Op::BlockStatus => {
            block_status(sh, &req);
            Ok(())
        }
    };
    sh.pool.put(payload);
    sh.budget.release(charge);
    match (op, done) {
        (Op::Read | Op::BlockStatus, _) => {}
        (_, Ok(())) => reply_ok(sh, req.cookie),
        (_, Err(e)) => reply_error(sh, req.cookie, errno_of(&e), &e.to_string()),
    }
}

/// Reads into a buffer with room for the reply header in front, so header
/// and data leave in one write.
fn read(sh: &Shared, req: &Request) {
    let room = if sh.negotiated.structured {
        ChunkHeader::LEN + 8
    } else {
        SimpleReply::LEN
    };
    let len = req.length as usize;
    let mut buf = sh.pool.get(room + len);
    if let Err(e) = sh.export.read_at(req.offset, &mut buf[room..]) {
        sh.pool.put(buf);
        return reply_error(sh, req.cookie, errno_of(&e), &e.to_string());
    }
    if !sh.negotiated.structured {
        buf[..room].copy_from_slice(
            &SimpleReply {
                error: 0,
                cookie: req.cookie,
            }
            .encode(),
        );
    } else if len == 0 {
        // OFFSET_DATA must carry at least one byte; an empty read is just "done".
        buf.truncate(0);
        buf.extend_from_slice(&none_chunk(req.cookie));
    } else {
        let header = ChunkHeader {
            flags: REPLY_FLAG_DONE,
            chunk_type: REPLY_TYPE_OFFSET_DATA,
            cookie: req.cookie,
            length: 8 + req.length,
        };
        buf[..ChunkHeader::LEN].copy_from_slice(&header.encode());
        buf[ChunkHeader::LEN..room].copy_from_slice(&req.offset.to_be_bytes());
    }
    send(sh, &buf);
    sh.pool.put(buf);
}

/// `base:allocation` for an export without holes: one extent, all data.
fn block_status(sh: &Shared, req: &Request) {
    let header = ChunkHeader {
        flags: REPLY_FLAG_DONE,
        chunk_type: REPLY_TYPE_BLOCK_STATUS,
        cookie: req.cookie,
        length: 12,
    };
    let mut out = [0u8; ChunkHeader::LEN + 12];
    out[..ChunkHeader::LEN].copy_from_slice(&header.encode());
    out[20..24].copy_from_slice(&BASE_ALLOCATION_ID.to_be_bytes());
    out[24..28].copy_from_slice(&req.length.to_be_bytes());
    // Status flags 0: allocated, contents not known to be zero.
    send(sh, &out);
}

fn none_chunk(cookie: u64) -> [u8; ChunkHeader::LEN] {
    ChunkHeader {
        flags: REPLY_FLAG_DONE,
        chunk_type: REPLY_TYPE_NONE,
        cookie,
        length: 0,
    }
    .encode()
}

fn reply_ok(sh: &Shared, cookie: u64) {
    if sh.negotiated.structured {
        send(sh, &none_chunk(cookie));
    } else {
        send(sh, &SimpleReply { error: 0, cookie }.encode());
    }
}

fn reply_error(sh: &Shared, cookie: u64, error: u32, message: &str) {
    if sh.negotiated.structured {
        let mut out = Vec::with_capacity(ChunkHeader::LEN + 6 + message.len());
        encode_error_chunk(&mut out, cookie, error, message);
        send(sh, &out);
    } else {
        send(sh, &SimpleReply { error, cookie }.encode());
    }
}

/// Writes one whole reply under the writer lock. If the client cannot take
/// it, the socket is shut down so the reader stops too.
fn send(sh: &Shared, bytes: &[u8]) {
    let _guard = sh.writer.lock().unwrap_or_else(|e| e.into_inner());
    let mut w = sh.conn;
    if w.write_all(bytes).is_err() {
        sh.conn.shutdown(Shutdown::Both);
    }
}
