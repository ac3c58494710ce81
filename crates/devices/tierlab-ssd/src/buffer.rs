//! The controller's write buffer (`SsdSpec::write_buffer`). A host write is acknowledged
//! once its pages are in the buffer; the buffer programs them in the background, oldest
//! first, through the FTL and so on the same channel and plane timelines as reads,
//! collection and mapping traffic. A page stays in the buffer until its program ends.
//!
//! - A write over a page still waiting in the buffer replaces it there (merged: one
//!   program for both). A page being programmed is not touched; the new data takes a new
//!   entry.
//! - At most one program per plane is in flight from the buffer.
//! - A full buffer makes a write wait for room: entries free as programs end, so writes
//!   then go at the speed of the NAND. Pages enter in arrival order (a write waiting for
//!   room holds back later ones).
//! - Reads of buffered pages are answered from the buffer.
//! - FUA writes and flushes: see [`WriteBuffer::drop_pages`] and [`WriteBuffer::drain`].
//!
//! The device interface is lazy: nothing runs between two calls. Each call first plays
//! the background programs that started before it (`advance`), in time order, so a run
//! is the same whatever the calls in between. Time is u64 ns.

use crate::error::OutOfSpace;
use crate::host::Link;
use crate::flash::NONE;
use crate::mem::NoneTable;
use crate::report::WriteBufferReport;
use crate::spec::WriteBufferSpec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::ops::Range;

/// Where the buffer's pages go: the FTL, programming `lpn` at `start_ns`. `version`
/// is the host write the data comes from (a verification aid).
pub(crate) trait Destage {
    fn program(&mut self, lpn: u32, start_ns: u64, version: u64) -> Result<u64, OutOfSpace>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Free,
    /// Waiting to be programmed; later writes of the page merge into it.
    Dirty,
    /// Handed to the FTL; held until the program ends.
    Programming,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    lpn: u32,
    state: State,
    /// Bumped each time the entry is freed, so that queue records of an older use are
    /// recognised as stale.
    generation: u32,
    /// When the page entered the buffer: its program starts no earlier.
    admitted_ns: u64,
    /// The host write whose data the entry holds.
    version: u64,
}

pub(crate) struct WriteBuffer {
    spec: WriteBufferSpec,
    /// Programs in flight from the buffer at most: one per plane.
    max_programming: usize,
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Per logical page, the entry holding its newest buffered copy (`NONE`: not
    /// buffered). A table, not a hash map: it is read on every page of every request,
    /// and costs memory only where written (`NoneTable`).
    index: NoneTable<1>,
    /// Entries in the index.
    indexed: usize,
    /// Pages waiting to be programmed, oldest first: (entry, generation).
    queue: VecDeque<(u32, u32)>,
    /// Pages being programmed, earliest end on top: program end << 32 | entry, one
    /// integer so that the heap compares one word pair per step.
    programming: BinaryHeap<Reverse<u128>>,
    /// Programs start in time order.
    last_start_ns: u64,
    /// Pages enter in time order.
    admit_floor_ns: u64,
    /// When the last program issued from the buffer ends.
    last_done_ns: u64,
    pub(crate) report: WriteBufferReport,
}

impl WriteBuffer {
    /// An empty buffer of `spec.pages(page_bytes)` pages (at least one: the spec is
    /// validated) in front of `planes` planes, for `logical_pages` logical pages.
    pub(crate) fn new(spec: &WriteBufferSpec, page_bytes: u64, planes: usize, logical_pages: usize) -> WriteBuffer {
        let pages = spec.pages(page_bytes).clamp(1, u64::from(u32::MAX)) as usize;
        WriteBuffer {
            spec: spec.clone(),
            max_programming: planes.max(1),
            entries: vec![Entry { lpn: 0, state: State::Free, generation: 0, admitted_ns: 0, version: 0 }; pages],
            free: (0..pages as u32).rev().collect(),
            index: NoneTable::new(logical_pages),
            indexed: 0,
            queue: VecDeque::new(),
            programming: BinaryHeap::new(),
            last_start_ns: 0,
            admit_floor_ns: 0,
            last_done_ns: 0,
            report: WriteBufferReport { capacity_bytes: pages as u64 * page_bytes, ..WriteBufferReport::default() },
        }
    }

    /// Pages held: waiting or being programmed.
    pub(crate) fn pages_held(&self) -> u64 {
        (self.entries.len() - self.free.len()) as u64
    }

    /// The entry holding `lpn`'s newest buffered copy.
    #[inline]
    fn lookup(&self, lpn: u32) -> Option<u32> {
        if self.indexed == 0 {
            return None;
        }
        Some(self.index.word(lpn as usize, 0)).filter(|&e| e != NONE)
    }

    fn set_index(&mut self, lpn: u32, e: u32) {
        if self.index.word(lpn as usize, 0) == NONE {
            self.indexed += 1;
        }
        self.index.set_word(lpn as usize, 0, e);
    }

    fn unindex(&mut self, lpn: u32) {
        if self.index.word(lpn as usize, 0) != NONE {
            self.indexed -= 1;
            self.index.set_word(lpn as usize, 0, NONE);
        }
    }

    /// Whether a read of `lpn` is answered from the buffer.
    #[inline]
    pub(crate) fn holds(&self, lpn: u32) -> bool {
        self.lookup(lpn).is_some()
    }

    /// The host write whose data a read of `lpn` gets from the buffer, if it holds the page.
    pub(crate) fn version(&self, lpn: u32) -> Option<u64> {
        self.lookup(lpn).map(|e| self.entries[e as usize].version)
    }

    /// Heap bytes of the buffer's tables (the index has an entry per logical page).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.index.len() * 4 + self.entries.len() * std::mem::size_of::<Entry>()
    }

    /// When the last program issued from the buffer ends.
    pub(crate) fn last_done_ns(&self) -> u64 {
        self.last_done_ns
    }

    fn release(&mut self, e: u32) {
        let entry = &mut self.entries[e as usize];
        entry.state = State::Free;
        entry.generation = entry.generation.wrapping_add(1);
        self.free.push(e);
    }

    /// Free the entries whose programs end at or before `t`.
    fn retire(&mut self, t: u64) {
        while let Some(&Reverse(key)) = self.programming.peek() {
            let (done, e) = ((key >> 32) as u64, key as u32);
            if done > t {
                break;
            }
            self.programming.pop();
            let lpn = self.entries[e as usize].lpn;
            if self.lookup(lpn) == Some(e) {
                self.unindex(lpn);
            }
            self.release(e);
        }
    }

    /// The oldest waiting page and when its program can start (stale queue records
    /// dropped on the way).
    fn next_start(&mut self) -> Option<(u32, u64)> {
        while let Some(&(e, generation)) = self.queue.front() {
            let entry = self.entries[e as usize];
            if entry.generation == generation && entry.state == State::Dirty {
                let mut start = entry.admitted_ns.max(self.last_start_ns);
                if self.programming.len() >= self.max_programming {
                    if let Some(&Reverse(key)) = self.programming.peek() {
                        start = start.max((key >> 32) as u64);
                    }
                }
                return Some((e, start));
            }
            self.queue.pop_front();
        }
        None
    }

    /// Play the background: start every program that starts at or before `limit` and
    /// free the entries whose programs end by then.
    pub(crate) fn advance(&mut self, limit: u64, to: &mut impl Destage) -> Result<(), OutOfSpace> {
        while let Some((e, start)) = self.next_start() {
            if start > limit {
                break;
            }
            self.retire(start);
            self.queue.pop_front();
            let entry = &mut self.entries[e as usize];
            entry.state = State::Programming;
            let (lpn, version) = (entry.lpn, entry.version);
            let done = to.program(lpn, start, version)?.max(start);
            self.programming.push(Reverse(u128::from(done) << 32 | u128::from(e)));
            self.last_start_ns = start;
            self.last_done_ns = self.last_done_ns.max(done);
            self.report.pages_destaged += 1;
        }
        self.retire(limit);
        Ok(())
    }

    /// When, at or after `from_ns`, an entry is free (the background played up to then).
    /// `None` if none can be (nothing held is waiting or being programmed, which a buffer
    /// of at least one page never reaches).
    fn wait_for_room(&mut self, from_ns: u64, to: &mut impl Destage) -> Result<Option<u64>, OutOfSpace> {
        let mut t = from_ns;
        while self.free.is_empty() {
            let target = match self.programming.peek() {
                Some(&Reverse(key)) => (key >> 32) as u64,
                None => match self.next_start() {
                    Some((_, start)) => start,
                    None => return Ok(None),
                },
            };
            self.advance(target, to)?;
            t = t.max(target);
        }
        Ok(Some(t))
    }

    /// Take the pages `lpns` of a host write of `len_bytes` (host write number
    /// `version`) issued at `now_ns`; returns when it is acknowledged: its data over the
    /// link, every page in the buffer, plus the controller time. The background must have
    /// been played up to `now_ns`.
    pub(crate) fn write(
        &mut self,
        now_ns: u64,
        lpns: Range<u32>,
        len_bytes: u64,
        version: u64,
        link: &mut Link,
        to: &mut impl Destage,
    ) -> Result<u64, OutOfSpace> {
        let linked = link.send(now_ns, len_bytes);
        let mut ready = now_ns;
        for lpn in lpns {
            if let Some(e) = self.lookup(lpn) {
                let entry = &mut self.entries[e as usize];
                if entry.state == State::Dirty {
                    entry.version = version;
                    self.report.pages_merged += 1;
                    continue;
                }
            }
            let from = now_ns.max(self.admit_floor_ns);
            let slot = match self.wait_for_room(from, to)? {
                Some(t) => self.free.pop().map(|e| (e, t)),
                None => None,
            };
            let Some((e, t)) = slot else {
                // Unreachable with a buffer of at least one page; the page is then
                // programmed directly rather than lost.
                let done = to.program(lpn, from, version)?;
                self.last_done_ns = self.last_done_ns.max(done);
                ready = ready.max(done);
                continue;
            };
            let entry = &mut self.entries[e as usize];
            *entry = Entry { lpn, state: State::Dirty, generation: entry.generation, admitted_ns: t, version };
            let generation = entry.generation;
            self.set_index(lpn, e);
            self.queue.push_back((e, generation));
            self.admit_floor_ns = t;
            ready = ready.max(t);
            self.report.pages_admitted += 1;
        }
        if ready > now_ns {
            self.report.throttled_writes += 1;
            self.report.throttle_ns += ready - now_ns;
        }
        self.advance(now_ns, to)?;
        Ok(linked.max(ready).saturating_add(self.spec.ack_ns))
    }

    /// A read of `pages` buffered pages (`bytes` in all) issued at `now_ns`: when they
    /// are out over the link, plus the controller time.
    pub(crate) fn read_hit(&mut self, now_ns: u64, pages: u64, bytes: u64, link: &mut Link) -> u64 {
        self.count_read_hits(pages);
        link.send(now_ns, bytes).saturating_add(self.spec.ack_ns)
    }

    /// `pages` of a read answered from the buffer, whose data go out with the rest of
    /// the request's.
    pub(crate) fn count_read_hits(&mut self, pages: u64) {
        self.report.read_hit_pages += pages;
    }

    /// A FUA write of `lpns` is about to be programmed directly: buffered copies of
    /// those pages are superseded. Waiting ones are dropped (never programmed: the FUA
    /// data replaces them); ones being programmed finish but no longer answer reads.
    pub(crate) fn drop_pages(&mut self, lpns: Range<u32>) {
        self.report.fua_writes += 1;
        for lpn in lpns {
            if let Some(e) = self.lookup(lpn) {
                self.unindex(lpn);
                if self.entries[e as usize].state == State::Dirty {
                    self.release(e);
                }
            }
        }
    }

    /// Program everything held, from `now_ns` on; returns when the last program ends
    /// (`now_ns` if nothing was held). `flush` counts it as a host flush.
    pub(crate) fn drain(&mut self, now_ns: u64, flush: bool, to: &mut impl Destage) -> Result<u64, OutOfSpace> {
        if flush {
            self.report.flushes += 1;
        }
        self.advance(u64::MAX, to)?;
        Ok(now_ns.max(self.last_done_ns))
    }

    /// Restart the clock for a new measurement (the buffer must be empty: flush first);
    /// the counts restart too.
    pub(crate) fn restart(&mut self) {
        self.last_start_ns = 0;
        self.admit_floor_ns = 0;
        self.last_done_ns = 0;
        self.report = WriteBufferReport { capacity_bytes: self.report.capacity_bytes, ..WriteBufferReport::default() };
    }
}
