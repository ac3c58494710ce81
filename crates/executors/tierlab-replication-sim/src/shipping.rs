//! The link from the primary's thread to the secondary's: commits' arrivals in chunks,
//! and a stop that leaves the primary's run the same whatever the threads' timing.
//!
//! The primary runs on a thread of its own, a chunk ahead of the secondary. When the
//! secondary stops (its measurement had what it needed), the primary must stop at a point
//! that depends only on what the secondary took, not on how far ahead the primary's
//! thread happened to be: otherwise the primary's report (its transactions, its span, its
//! power) would change from run to run. So the secondary says how many chunks it had
//! received when it stopped (R), and the primary, which learns of it only as a send
//! returns, goes on until it has sent chunk R (0-based) and then starts no more
//! transactions. A rendezvous channel keeps the primary at most one chunk ahead: chunk R
//! is the one it was making, or had made, when the secondary stopped.

use crate::primary::Arrival;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

/// Arrivals a chunk.
const CHUNK_ARRIVALS: usize = 4096;
/// The secondary has not stopped.
const RUNNING: u64 = u64::MAX;

/// The two ends of a link.
pub fn link() -> (Shipper, Arrivals) {
    let (tx, rx) = std::sync::mpsc::sync_channel(0);
    let stopped_after = Arc::new(AtomicU64::new(RUNNING));
    let shipper = Shipper { tx, chunk: Vec::with_capacity(CHUNK_ARRIVALS), sent: 0, stopped_after: stopped_after.clone(), stop: false };
    let arrivals = Arrivals { rx, current: Vec::new().into_iter(), received: 0, stopped_after };
    (shipper, arrivals)
}

/// The primary's end.
pub struct Shipper {
    tx: SyncSender<Vec<Arrival>>,
    chunk: Vec<Arrival>,
    /// Chunks sent.
    sent: u64,
    stopped_after: Arc<AtomicU64>,
    stop: bool,
}

impl Shipper {
    pub fn ship(&mut self, a: Arrival) {
        self.chunk.push(a);
        if self.chunk.len() >= CHUNK_ARRIVALS {
            self.flush();
        }
    }

    /// Send the arrivals held (the last, partial chunk at the end of the primary's run).
    pub fn flush(&mut self) {
        if self.chunk.is_empty() {
            return;
        }
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK_ARRIVALS));
        let index = self.sent;
        self.sent += 1;
        if self.tx.send(chunk).is_err() {
            // The secondary's end is gone (its run failed or was interrupted).
            self.stop = true;
            return;
        }
        let received = self.stopped_after.load(Ordering::Acquire);
        if received != RUNNING && received <= index {
            self.stop = true;
        }
    }

    /// Whether the primary should start no more transactions.
    pub fn stopping(&self) -> bool {
        self.stop
    }
}

/// The secondary's end: the arrivals in order, until the primary's run ends.
pub struct Arrivals {
    rx: Receiver<Vec<Arrival>>,
    current: std::vec::IntoIter<Arrival>,
    /// Chunks received.
    received: u64,
    stopped_after: Arc<AtomicU64>,
}

impl Arrivals {
    /// The secondary takes no more: the primary stops once it has sent the chunk after
    /// those received so far. The arrivals still come (to be counted as not taken) until
    /// it has.
    pub fn stop(&self) {
        self.stopped_after.store(self.received, Ordering::Release);
    }
}

impl Iterator for Arrivals {
    type Item = Arrival;
    fn next(&mut self) -> Option<Arrival> {
        loop {
            if let Some(a) = self.current.next() {
                return Some(a);
            }
            self.current = self.rx.recv().ok()?.into_iter();
            self.received += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn arrival(n: u64) -> Arrival {
        Arrival { arrive_ns: n, log_bytes: 1, last_lsn: n, records: 1 }
    }

    /// However the two threads are timed (the primary slower than the secondary, or
    /// waiting on it), the primary ships exactly through the chunk after those the
    /// secondary had received when it stopped, and every arrival reaches the secondary's
    /// end, in order, taken or not.
    #[test]
    fn the_primary_stops_at_the_same_arrival_whatever_the_timing() {
        let chunk = CHUNK_ARRIVALS;
        for take in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 7] {
            for (primary_slow, secondary_slow) in [(false, false), (true, false), (false, true)] {
                let (mut tx, mut rx) = link();
                let primary = std::thread::spawn(move || {
                    let mut n = 0u64;
                    while !tx.stopping() && n < 100 * chunk as u64 {
                        tx.ship(arrival(n));
                        n += 1;
                        if primary_slow && n.is_multiple_of(1024) {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    }
                    tx.flush();
                    n
                });
                let taken: Vec<Arrival> = rx.by_ref().take(take).collect();
                if secondary_slow {
                    std::thread::sleep(Duration::from_millis(20));
                }
                rx.stop();
                let rest: Vec<Arrival> = rx.collect();
                let shipped = primary.join().unwrap();
                let received_chunks = take.div_ceil(chunk) as u64;
                assert_eq!(shipped, (received_chunks + 1) * chunk as u64, "take {take}, slow primary {primary_slow}, slow secondary {secondary_slow}");
                let all: Vec<u64> = taken.iter().chain(&rest).map(|a| a.arrive_ns).collect();
                assert_eq!(all, (0..shipped).collect::<Vec<_>>());
            }
        }
    }
}
