//! `Ssd`: the simulated drive as a `tierlab_engine::Device`. It splits host requests into
//! logical pages, hands them to its FTL (which drives the flash timelines) directly or
//! through its write buffer where it has one, runs explicit wear leveling when due, and
//! accounts energy and wear for the report. Preconditioning fills and ages the drive
//! before a measurement.

use crate::buffer::{Destage, WriteBuffer};
use crate::error::{OutOfSpace, SsdError};
use crate::flash::{Flash, MAP_TAG};
use crate::ftl::{self, Ftl, MergeCounts};
use crate::host::{Commands, Link};
use crate::report::{BlockErases, EnergySplit, PageOps, Spread, SsdReport};
use crate::rng::SplitMix64;
use crate::spec::{FtlKind, SsdSpec, WearLeveling};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tierlab_engine::{Device, DeviceCommand, DeviceOp, DeviceReport, StateEnergy};
use tierlab_types::{Op, NS_PER_S, SECONDS_PER_YEAR};

/// How to bring a fresh drive to a realistic state before measuring.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precondition {
    /// Fraction of the logical pages written once, sequentially from page 0.
    pub occupancy: f64,
    /// Random overwrites within the filled pages, as a multiple of their number (aging
    /// until garbage collection is in steady state; 1.0–2.0 suffices for greedy GC).
    pub random_overwrites: f64,
    pub seed: u64,
}

impl Default for Precondition {
    fn default() -> Self {
        Precondition {
            occupancy: 1.0,
            random_overwrites: 1.0,
            seed: 1,
        }
    }
}

/// The FTL as the write buffer's destination: programs one page, and (verification aid)
/// records which host write each logical page's flash copy comes from.
struct ToFtl<'a> {
    ftl: &'a mut dyn Ftl,
    flash: &'a mut Flash,
    durable: &'a mut [u64],
}

impl Destage for ToFtl<'_> {
    #[inline]
    fn program(&mut self, lpn: u32, start_ns: u64, version: u64) -> Result<u64, OutOfSpace> {
        if let Some(v) = self.durable.get_mut(lpn as usize) {
            *v = version;
        }
        self.ftl.write(self.flash, lpn, start_ns)
    }
}

pub struct Ssd {
    spec: SsdSpec,
    flash: Flash,
    ftl: Box<dyn Ftl>,
    /// The write buffer, where the spec gives one.
    buffer: Option<WriteBuffer>,
    /// The host link: the spec's `host`, or for a buffered drive without one the
    /// buffer's (then only buffered data cross it, as FlashSim-style drives time it).
    link: Option<Link>,
    /// Whether the spec has a host interface: every command crosses the link.
    host: bool,
    /// The controller's command rate (no limit without a host interface).
    commands: Commands,
    /// Host writes so far (never reset): each write's number, its data's version.
    write_seq: u64,
    /// Verification aid (`enable_data_versions`): per logical page, the host write whose
    /// data the FTL holds; empty otherwise.
    durable: Vec<u64>,
    wear: WearLeveling,
    page_bytes: u64,
    capacity_bytes: u64,
    start_ns: Option<u64>,
    last_now_ns: u64,
    end_ns: u64,
    host_reads: u64,
    host_writes: u64,
    host_write_pages: u64,
    rejected: u64,
    /// The first request the drive refused through the `Device` trait, and why.
    first_refusal: Option<SsdError>,
    wl_moves: u64,
    /// Explicit wear leveling held by the controller's hint (HybridStore's adaptive wear
    /// leveling); the checks due meanwhile run once it resumes.
    wl_paused: bool,
    merge_base: MergeCounts,
    ftl_counter_base: Vec<(&'static str, f64)>,
}

impl Ssd {
    /// A fresh (erased) drive; the spec is validated first.
    pub fn new(spec: SsdSpec) -> Result<Ssd, SsdError> {
        spec.validate()?;
        let flash = Flash::new(&spec);
        let ftl = ftl::build(&spec);
        let buffer = spec
            .write_buffer
            .as_ref()
            .map(|w| WriteBuffer::new(w, spec.geometry.page_bytes as u64, spec.planes() as usize, spec.logical_pages() as usize));
        let link = match (&spec.host, &spec.write_buffer) {
            (Some(h), _) => Some(Link::of(h)),
            (None, Some(w)) => Some(Link::new(w.host_bytes_per_s, 0)),
            (None, None) => None,
        };
        Ok(Ssd {
            buffer,
            link,
            host: spec.host.is_some(),
            commands: spec.host.as_ref().map(Commands::of).unwrap_or_default(),
            write_seq: 0,
            durable: Vec::new(),
            wear: spec.wear_leveling.mode,
            page_bytes: spec.geometry.page_bytes as u64,
            capacity_bytes: spec.capacity_bytes(),
            flash,
            ftl,
            spec,
            start_ns: None,
            last_now_ns: 0,
            end_ns: 0,
            host_reads: 0,
            host_writes: 0,
            host_write_pages: 0,
            rejected: 0,
            first_refusal: None,
            wl_moves: 0,
            wl_paused: false,
            merge_base: MergeCounts::default(),
            ftl_counter_base: Vec::new(),
        })
    }

    pub fn spec(&self) -> &SsdSpec {
        &self.spec
    }
    pub fn ftl_kind(&self) -> FtlKind {
        self.ftl.kind()
    }
    pub fn logical_pages(&self) -> u64 {
        self.capacity_bytes / self.page_bytes
    }

    /// Change the wear-leveling mode now (HybridStore's adaptive wear leveling halts and
    /// resumes it).
    pub fn set_wear_leveling(&mut self, mode: WearLeveling) {
        self.wear = mode;
        self.flash.set_wear_leveling(mode);
    }
    pub fn wear_leveling(&self) -> WearLeveling {
        self.wear
    }

    /// Serve one request: the completion time, or an error for a request the drive
    /// cannot serve (zero length, beyond capacity).
    /// The first request refused through the `Device` trait since the last call, and why.
    pub fn take_refusal(&mut self) -> Option<SsdError> {
        self.first_refusal.take()
    }

    pub fn try_service(&mut self, now_ns: u64, op: &DeviceOp) -> Result<u64, SsdError> {
        if op.len_bytes == 0 {
            return Err(SsdError::EmptyRequest {
                offset_bytes: op.offset_bytes,
            });
        }
        let end = op
            .offset_bytes
            .checked_add(op.len_bytes)
            .filter(|&e| e <= self.capacity_bytes)
            .ok_or(SsdError::OutOfRange {
                offset_bytes: op.offset_bytes,
                len_bytes: op.len_bytes,
                capacity_bytes: self.capacity_bytes,
            })?;
        let now = now_ns.max(self.last_now_ns);
        self.last_now_ns = now;
        self.start_ns.get_or_insert(now);
        let (first, last) = (
            op.offset_bytes / self.page_bytes,
            (end - 1) / self.page_bytes,
        );
        // Page numbers are below the logical page count, below 2^31 (checked by validation).
        let lpns = first as u32..last as u32 + 1;
        if op.op == Op::Write {
            self.write_seq += 1;
        }
        let start = self.commands.start(now, op.op);
        let mut done = match self.buffer {
            None => {
                if op.op == Op::Write && !self.durable.is_empty() {
                    for lpn in lpns.clone() {
                        if let Some(v) = self.durable.get_mut(lpn as usize) {
                            *v = self.write_seq;
                        }
                    }
                }
                self.serve_direct(start, op, lpns)?
            }
            Some(_) => self.serve_buffered(start, op, lpns)?,
        };
        match op.op {
            Op::Read => self.host_reads += 1,
            Op::Write => {
                self.host_writes += 1;
                self.host_write_pages += last - first + 1;
            }
        }
        done = done.max(self.wear_level(now)?);
        self.end_ns = self.end_ns.max(done);
        if let Some(b) = &self.buffer {
            self.end_ns = self.end_ns.max(b.last_done_ns());
        }
        Ok(done)
    }

    /// A request straight to the FTL: over the host link, where the drive has one, before
    /// a write's programs and after a read's page reads (streamed out as they come).
    fn serve_direct(&mut self, now: u64, op: &DeviceOp, lpns: std::ops::Range<u32>) -> Result<u64, SsdError> {
        let link = self.link.as_mut().filter(|_| self.host);
        let Some(link) = link else {
            return Ok(self.ftl.serve(&mut self.flash, op.op, lpns, now)?);
        };
        Ok(match op.op {
            Op::Read => {
                let read = self.ftl.serve(&mut self.flash, Op::Read, lpns, now)?;
                link.stream(now, read, op.len_bytes, op.len_bytes.min(self.page_bytes))
            }
            Op::Write => {
                let arrived = link.send(now, op.len_bytes);
                self.ftl.serve(&mut self.flash, Op::Write, lpns, arrived)?
            }
        })
    }

    /// A request through the write buffer (the background played up to `now` first):
    /// writes go into it (FUA ones past it, straight to the FTL), reads are answered from
    /// it for the pages it holds and from flash for the rest.
    fn serve_buffered(&mut self, now: u64, op: &DeviceOp, lpns: std::ops::Range<u32>) -> Result<u64, SsdError> {
        let (Some(buffer), Some(link)) = (self.buffer.as_mut(), self.link.as_mut()) else {
            return Ok(self.ftl.serve(&mut self.flash, op.op, lpns, now)?);
        };
        let mut to = ToFtl { ftl: &mut *self.ftl, flash: &mut self.flash, durable: &mut self.durable };
        buffer.advance(now, &mut to)?;
        match op.op {
            Op::Write if op.fua => {
                buffer.drop_pages(lpns.clone());
                for lpn in lpns.clone() {
                    if let Some(v) = self.durable.get_mut(lpn as usize) {
                        *v = self.write_seq;
                    }
                }
                let arrived = if self.host { link.send(now, op.len_bytes) } else { now };
                Ok(self.ftl.serve(&mut self.flash, Op::Write, lpns, arrived)?)
            }
            Op::Write => Ok(buffer.write(now, lpns, op.len_bytes, self.write_seq, link, &mut to)?),
            Op::Read => {
                let (mut done, mut hits, mut miss_from) = (now, 0u64, None);
                for lpn in lpns.clone() {
                    if buffer.holds(lpn) {
                        hits += 1;
                        if let Some(from) = miss_from.take() {
                            done = done.max(self.ftl.serve(&mut self.flash, Op::Read, from..lpn, now)?);
                        }
                    } else if miss_from.is_none() {
                        miss_from = Some(lpn);
                    }
                }
                if let Some(from) = miss_from {
                    done = done.max(self.ftl.serve(&mut self.flash, Op::Read, from..lpns.end, now)?);
                }
                let from_flash = hits < lpns.len() as u64;
                if self.host && from_flash {
                    // All the request's data go out over the link, as the flash delivers them.
                    buffer.count_read_hits(hits);
                    return Ok(link.stream(now, done, op.len_bytes, op.len_bytes.min(self.page_bytes)));
                }
                if hits > 0 {
                    let bytes = if hits == lpns.len() as u64 { op.len_bytes } else { hits * self.page_bytes };
                    done = done.max(buffer.read_hit(now, hits, bytes, link));
                }
                Ok(done)
            }
        }
    }

    /// FLUSH CACHE issued at `now_ns`: every page in the write buffer is programmed;
    /// returns when the last program ends (`now_ns` without a buffer or with it empty).
    pub fn flush(&mut self, now_ns: u64) -> Result<u64, SsdError> {
        self.drain(now_ns, true)
    }

    /// Program what the write buffer holds (a host flush if `flush`, else the drive's
    /// own: the end of a run, a new measurement).
    fn drain(&mut self, now_ns: u64, flush: bool) -> Result<u64, SsdError> {
        let now = now_ns.max(self.last_now_ns);
        let Some(buffer) = self.buffer.as_mut() else {
            return Ok(now);
        };
        let mut to = ToFtl { ftl: &mut *self.ftl, flash: &mut self.flash, durable: &mut self.durable };
        let done = buffer.drain(now, flush, &mut to)?;
        self.end_ns = self.end_ns.max(done);
        Ok(done)
    }

    /// Play the write buffer's background work (programs starting, programs ending) up
    /// to `now_ns`, as the next request at `now_ns` would first; a no-op without a buffer.
    pub fn settle(&mut self, now_ns: u64) -> Result<(), SsdError> {
        let now = now_ns.max(self.last_now_ns);
        if let Some(buffer) = self.buffer.as_mut() {
            let mut to = ToFtl { ftl: &mut *self.ftl, flash: &mut self.flash, durable: &mut self.durable };
            buffer.advance(now, &mut to)?;
            self.end_ns = self.end_ns.max(buffer.last_done_ns());
        }
        Ok(())
    }

    /// Whether a read of logical page `lpn` is answered from the write buffer (as of the
    /// last request or `settle`).
    pub fn buffer_holds(&self, lpn: u32) -> bool {
        self.buffer.as_ref().is_some_and(|b| b.holds(lpn))
    }

    /// Pages in the write buffer (waiting or being programmed); 0 without one.
    pub fn buffered_pages(&self) -> u64 {
        self.buffer.as_ref().map_or(0, |b| b.pages_held())
    }

    /// Host writes served so far: the number of the last one (verification aid).
    pub fn write_seq(&self) -> u64 {
        self.write_seq
    }

    /// Verification aid (after `enable_data_versions`): the host write whose data for
    /// `lpn` the FTL holds (handed to it, its program possibly still running); `None`
    /// if no write of it has reached the FTL since versions were enabled.
    pub fn durable_write(&self, lpn: u32) -> Option<u64> {
        self.durable.get(lpn as usize).copied().filter(|&v| v > 0)
    }

    /// Verification aid: the host write whose data a read of `lpn` returns now, from the
    /// write buffer or from flash.
    pub fn readable_write(&self, lpn: u32) -> Option<u64> {
        self.buffer.as_ref().and_then(|b| b.version(lpn)).or_else(|| self.durable_write(lpn))
    }

    /// Explicit wear leveling, checked every `check_interval_erases` erases: when the
    /// erase-count gap exceeds `gap_erases`, move the coldest block's data into a worn block.
    fn wear_level(&mut self, now_ns: u64) -> Result<u64, SsdError> {
        if self.wear != WearLeveling::Explicit
            || self.wl_paused
            || self.flash.erases_since_wl_check
                < self.spec.wear_leveling.check_interval_erases as u64
        {
            return Ok(now_ns);
        }
        self.flash.erases_since_wl_check = 0;
        let (max, coldest) = self.flash.wear_candidate();
        let Some(cold) = coldest else {
            return Ok(now_ns);
        };
        if max - self.flash.erase_count(cold) <= self.spec.wear_leveling.gap_erases {
            return Ok(now_ns);
        }
        if self.ftl.relocate_cold(&mut self.flash, cold, now_ns)? {
            self.wl_moves += 1;
        }
        Ok(now_ns)
    }

    /// Fill and age the drive, then start the measurement afresh (counters, timelines and
    /// the run's erase counts reset; the wear and mapping state stay).
    pub fn precondition(&mut self, p: &Precondition) -> Result<(), SsdError> {
        if !(p.occupancy >= 0.0 && p.occupancy <= 1.0) {
            return Err(SsdError::InvalidPrecondition {
                param: "occupancy".into(),
                reason: "must be in [0, 1]".into(),
            });
        }
        if !(p.random_overwrites >= 0.0 && p.random_overwrites <= 100.0) {
            return Err(SsdError::InvalidPrecondition {
                param: "random_overwrites".into(),
                reason: "must be in [0, 100]".into(),
            });
        }
        // What the buffer holds goes to flash first, so it cannot land on top later.
        self.drain(self.last_now_ns, false)?;
        let filled = (self.logical_pages() as f64 * p.occupancy) as u64;
        for lpn in 0..filled {
            self.ftl.write(&mut self.flash, lpn as u32, 0)?;
        }
        let mut rng = SplitMix64::new(p.seed);
        if filled > 0 {
            for _ in 0..(filled as f64 * p.random_overwrites) as u64 {
                self.ftl
                    .write(&mut self.flash, rng.below(filled) as u32, 0)?;
            }
        }
        self.reset_stats();
        Ok(())
    }

    /// Start a new measurement without changing the drive's state (what the write buffer
    /// holds is programmed first, at the old clock).
    pub fn reset_stats(&mut self) {
        if let Err(e) = self.drain(self.last_now_ns, false) {
            self.first_refusal.get_or_insert(e);
        }
        if let Some(b) = &mut self.buffer {
            b.restart();
        }
        if let Some(l) = &mut self.link {
            l.restart();
        }
        self.commands.restart();
        self.flash.reset_stats();
        self.start_ns = None;
        self.last_now_ns = 0;
        self.end_ns = 0;
        self.host_reads = 0;
        self.host_writes = 0;
        self.host_write_pages = 0;
        self.rejected = 0;
        self.wl_moves = 0;
        self.ftl.start_measurement();
        self.merge_base = self.ftl.merges();
        self.ftl_counter_base = self.ftl.counters();
    }

    /// The physical page holding logical page `lpn`'s latest data (for tests and tools).
    pub fn lookup(&self, lpn: u32) -> Option<u32> {
        self.ftl.lookup(&self.flash, lpn)
    }

    /// Verification aid: from now on every programmed page carries a data version (each
    /// page program takes the next number; collector copies keep it), and each logical
    /// page the number of the host write its flash copy comes from (`durable_write`).
    /// Costs 4 B per physical and 8 B per logical page.
    pub fn enable_data_versions(&mut self) {
        self.flash.enable_versions();
        self.durable = vec![0; self.logical_pages() as usize];
    }

    /// Version of the last page programmed (0 before any, or with versions off).
    pub fn last_data_version(&self) -> u32 {
        self.flash.version_clock
    }

    /// Version of the data logical page `lpn` reads back now.
    pub fn data_version(&self, lpn: u32) -> Option<u32> {
        self.lookup(lpn).map(|p| self.flash.version(p))
    }

    /// Check mapping and flash bookkeeping: every mapped logical page points at a valid
    /// page that records it as owner, and no other valid data page exists (nothing lost,
    /// nothing duplicated); block valid counts and the free pools agree with page states.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.flash.check()?;
        let mut mapped = 0u64;
        for lpn in 0..self.logical_pages() as u32 {
            if let Some(p) = self.lookup(lpn) {
                if !self.flash.is_valid(p) || self.flash.owner(p) != lpn {
                    return Err(format!(
                        "lpn {lpn} maps to page {p} owned by {:#x}",
                        self.flash.owner(p)
                    ));
                }
                mapped += 1;
            }
        }
        let ppb = self.flash.pages_per_block();
        let valid_data = (0..self.flash.blocks() as u32)
            .flat_map(|b| b * ppb..(b + 1) * ppb)
            .filter(|&p| self.flash.is_valid(p) && self.flash.owner(p) & MAP_TAG == 0)
            .count() as u64;
        if valid_data != mapped {
            return Err(format!(
                "{valid_data} valid data pages but {mapped} mapped logical pages"
            ));
        }
        Ok(())
    }

    /// Valid pages on flash holding mapping (DFTL translation pages).
    pub fn valid_mapping_pages(&self) -> u64 {
        let ppb = self.flash.pages_per_block();
        (0..self.flash.blocks() as u32)
            .flat_map(|b| b * ppb..(b + 1) * ppb)
            .filter(|&p| self.flash.is_valid(p) && self.flash.owner(p) & MAP_TAG != 0)
            .count() as u64
    }

    /// Total erase count of every block (wear state, not reset by measurements).
    pub fn erase_counts(&self) -> Vec<u32> {
        (0..self.flash.blocks() as u32)
            .map(|b| self.flash.erase_count(b))
            .collect()
    }

    /// Simulated flash page operations (reads + programs) since the last reset.
    pub fn page_ops(&self) -> u64 {
        self.flash.counters.page_ops()
    }

    /// Bytes of flash-array state per physical page and per block (FTL tables excluded).
    pub fn state_bytes(&self) -> (usize, usize) {
        self.flash.state_bytes()
    }

    /// Heap bytes of the per-page state (owner tags) the model holds: a chunk per block
    /// holding data (open, or sealed with a valid page), at most the whole array.
    pub fn page_state_bytes(&self) -> usize {
        self.flash.page_state_bytes()
    }

    /// Heap bytes the simulated drive holds (flash array plus FTL tables).
    pub fn heap_bytes(&self) -> usize {
        self.flash.heap_bytes() + self.ftl.heap_bytes() + self.buffer.as_ref().map_or(0, |b| b.heap_bytes())
    }

    fn elapsed_ns(&self) -> u64 {
        self.start_ns.map_or(0, |s| self.end_ns.saturating_sub(s))
    }

    pub fn ssd_report(&self) -> SsdReport {
        let c = &self.flash.counters;
        let nblocks = self.flash.blocks() as u32;
        let run: Vec<u32> = (0..nblocks).map(|b| self.flash.run_erases(b)).collect();
        let total_erases: u64 = run.iter().map(|&e| e as u64).sum();
        let max_run = run.iter().copied().max().unwrap_or(0);
        let spread = Spread {
            min: run.iter().copied().min().unwrap_or(0) as f64,
            mean: total_erases as f64 / nblocks.max(1) as f64,
            max: max_run as f64,
        };
        let secs = self.elapsed_ns() as f64 / NS_PER_S as f64;
        let limit = self.spec.pe_cycle_limit as f64;
        let years = |erases_per_block: f64| {
            (erases_per_block > 0.0 && secs > 0.0)
                .then(|| limit / (erases_per_block / secs) / SECONDS_PER_YEAR)
        };
        let writes = PageOps::from_array(c.page_writes);
        let idle_j = self.spec.energy.idle_w * secs;
        let merges = self.ftl.merges();
        let base = self.merge_base;
        let mut ftl_counters = BTreeMap::new();
        for (k, v) in self.ftl.counters() {
            let b = self
                .ftl_counter_base
                .iter()
                .find(|(bk, _)| *bk == k)
                .map_or(0.0, |(_, bv)| *bv);
            ftl_counters.insert(k.to_string(), v - b);
        }
        if self.ftl.kind() == FtlKind::Dftl {
            let cap = self.spec.dftl_cmt_entries().min(self.logical_pages());
            ftl_counters.insert("cmt_capacity_entries".into(), cap as f64);
        }
        SsdReport {
            name: self.spec.name.clone(),
            ftl: self.ftl.kind().name().to_string(),
            capacity_bytes: self.capacity_bytes,
            sram_bytes: self.spec.sram_bytes,
            elapsed_ns: self.elapsed_ns(),
            host_read_requests: self.host_reads,
            host_write_requests: self.host_writes,
            rejected_requests: self.rejected,
            page_reads: PageOps::from_array(c.page_reads),
            page_writes: writes,
            block_erases: BlockErases {
                data: c.erases_data,
                mapping: c.erases_map,
            },
            merges: MergeCounts {
                switch: merges.switch - base.switch,
                partial: merges.partial - base.partial,
                full: merges.full - base.full,
            },
            copy_backs: c.copy_backs,
            wear_leveling_moves: self.wl_moves,
            write_amplification: (self.host_write_pages > 0)
                .then(|| writes.total() as f64 / self.host_write_pages as f64),
            erases_per_block: spread,
            lifetime_years_even_wear: years(spread.mean),
            lifetime_years_worst_block: years(max_run as f64),
            energy: EnergySplit {
                page_read_j: c.read_j,
                page_program_j: c.program_j,
                block_erase_j: c.erase_j,
                idle_j,
                total_j: c.read_j + c.program_j + c.erase_j + idle_j,
            },
            ftl_counters,
            write_buffer: self.buffer.as_ref().map(|b| b.report),
        }
    }
}

impl Device for Ssd {
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }
    /// One operation per plane can be in the array at once.
    fn max_in_flight(&self) -> usize {
        self.flash.planes()
    }
    /// Serves `op`; a request the drive cannot serve (see `try_service`) completes at
    /// once and is counted in `rejected_requests` — the trait has no error channel.
    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        match self.try_service(now_ns, op) {
            Ok(done) => done,
            Err(e) => {
                self.rejected += 1;
                self.first_refusal.get_or_insert(e);
                now_ns
            }
        }
    }
    /// FLUSH CACHE programs what the write buffer holds; other commands are ignored.
    fn command(&mut self, now_ns: u64, cmd: DeviceCommand) -> u64 {
        if cmd != DeviceCommand::FlushCache {
            return now_ns;
        }
        self.flush(now_ns).unwrap_or_else(|e| {
            self.first_refusal.get_or_insert(e);
            now_ns
        })
    }
    /// Hold explicit wear leveling (the cold-data moves; allocation by erase count goes on)
    /// or resume it.
    fn set_wear_leveling_paused(&mut self, paused: bool) {
        self.wl_paused = paused;
    }
    /// The run ends; what the write buffer still holds is programmed (its programs, their
    /// energy and wear count, and the drive is busy until they end).
    fn finish(&mut self, end_ns: u64) {
        self.end_ns = self.end_ns.max(end_ns);
        if let Err(e) = self.drain(end_ns, false) {
            self.first_refusal.get_or_insert(e);
        }
    }
    fn report(&self) -> DeviceReport {
        let r = self.ssd_report();
        let c = &self.flash.counters;
        let t = &self.spec.timing;
        let xfer = self.spec.transfer_ns();
        let reads: u64 = c.page_reads.iter().sum();
        let writes: u64 = c.page_writes.iter().sum();
        let erases = c.erases_data + c.erases_map;
        let states = vec![
            StateEnergy {
                state: "idle".into(),
                time_ns: r.elapsed_ns,
                energy_j: r.energy.idle_j,
                standby: false,
            },
            StateEnergy {
                state: "page_read".into(),
                time_ns: reads * (t.command_ns + t.page_read_ns + xfer),
                energy_j: r.energy.page_read_j,
                standby: false,
            },
            StateEnergy {
                state: "page_program".into(),
                time_ns: writes * (t.command_ns + t.page_program_ns + xfer),
                energy_j: r.energy.page_program_j,
                standby: false,
            },
            StateEnergy {
                state: "block_erase".into(),
                time_ns: erases * (t.command_ns + t.block_erase_ns),
                energy_j: r.energy.block_erase_j,
                standby: false,
            },
        ];
        DeviceReport {
            name: r.name.clone(),
            kind: "ssd".into(),
            energy_j: r.energy.total_j,
            states,
            counters: r.headline(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::VictimPolicy;

    /// Random one- and two-page writes and reads over `span` pages, every request at a
    /// later time.
    fn drive(ssd: &mut Ssd, span: u64, n: u64) {
        let mut rng = SplitMix64::new(7);
        for i in 0..n {
            let lpn = rng.below(span - 1);
            let op = if rng.below(4) == 0 { Op::Read } else { Op::Write };
            let len_bytes = ssd.page_bytes * (1 + rng.below(2));
            let op = DeviceOp { op, offset_bytes: lpn * ssd.page_bytes, len_bytes, fua: false };
            assert!(ssd.try_service(i * 100_000, &op).is_ok());
        }
    }

    /// The reclaim index built on first use from stamps (the default), kept from the
    /// start, or built when its stamps run out: the same collection decisions, so the
    /// same report, under every victim policy and both page-mapped FTLs.
    #[test]
    fn reclaim_index_built_late_decides_as_one_kept_from_the_start() {
        for ftl in [FtlKind::Page, FtlKind::Dftl] {
            for victim in [VictimPolicy::Greedy, VictimPolicy::CostBenefit, VictimPolicy::Random] {
                let mut spec = SsdSpec::study_slc(128, ftl);
                spec.gc.victim = victim;
                let reports: Vec<String> = [Some(0), None, Some(u32::MAX - 40)]
                    .into_iter()
                    .map(|stamps| {
                        let mut ssd = Ssd::new(spec.clone()).unwrap_or_else(|e| panic!("{e}"));
                        ssd.flash.set_reclaim_stamps(stamps);
                        // Filled, then overwritten until collection starts.
                        let pre = Precondition { occupancy: 0.9, random_overwrites: 0.3, seed: 1 };
                        assert_eq!(ssd.precondition(&pre).map_err(|e| e.to_string()), Ok(()));
                        let span = ssd.logical_pages() * 9 / 10;
                        drive(&mut ssd, span, 5000);
                        assert_eq!(ssd.check_invariants(), Ok(()));
                        assert!(ssd.flash.counters.erases_data > 0, "no collection to compare");
                        serde_json::to_string(&ssd.ssd_report()).unwrap_or_default()
                    })
                    .collect();
                assert_eq!(reports[0], reports[1], "{ftl:?} {victim:?}: built late");
                assert_eq!(reports[2], reports[1], "{ftl:?} {victim:?}: stamps ran out");
            }
        }
    }
}
