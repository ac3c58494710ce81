//! Flash translation layers behind one small trait. Each FTL maps logical pages (host
//! address / page size) to physical pages and drives the flash array for reads, writes,
//! garbage collection or merges; one file per FTL.

mod bast;
mod block;
mod dftl;
mod fast;
mod page;

use crate::error::OutOfSpace;
use crate::flash::{Flash, Purpose, NONE};
use crate::spec::{FtlKind, SsdSpec};
use serde::Serialize;
use std::ops::Range;
use tierlab_types::Op;

/// Merges performed by the block-mapped FTLs, by type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MergeCounts {
    /// A log block written in order became the data block; only the old block is erased.
    pub switch: u64,
    /// A log block written in order up to some page was completed from the data block.
    pub partial: u64,
    /// Latest pages gathered from data and log blocks into a fresh block.
    pub full: u64,
}

pub trait Ftl: Send {
    fn kind(&self) -> FtlKind;
    /// Read logical page `lpn` (issued at `now_ns`); returns when its data is out.
    /// A page never written costs no flash operation.
    fn read(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace>;
    /// Write logical page `lpn`; returns when it is programmed (including any collection
    /// or merge done on its behalf).
    fn write(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace>;
    /// Serve the pages `lpns` of one request issued at `now_ns`, in order; returns when
    /// the last is done. One dynamic call per request: inside it, `read` or `write` is a
    /// static call the compiler can inline, where a call per page through `dyn Ftl`
    /// could not be.
    fn serve(&mut self, flash: &mut Flash, op: Op, lpns: Range<u32>, now_ns: u64) -> Result<u64, OutOfSpace> {
        let mut done = now_ns;
        for lpn in lpns {
            let t = match op {
                Op::Read => self.read(flash, lpn, now_ns)?,
                Op::Write => self.write(flash, lpn, now_ns)?,
            };
            done = done.max(t);
        }
        Ok(done)
    }
    /// The physical page holding the latest copy of `lpn`, if it was ever written.
    fn lookup(&self, flash: &Flash, lpn: u32) -> Option<u32>;
    /// Explicit wear leveling: move cold data out of `block` into a worn free block.
    /// Returns false when the FTL cannot move that block now.
    fn relocate_cold(
        &mut self,
        flash: &mut Flash,
        block: u32,
        now_ns: u64,
    ) -> Result<bool, OutOfSpace>;
    fn merges(&self) -> MergeCounts {
        MergeCounts::default()
    }
    /// A measurement starts: forget controller-buffer contents that tie one request to
    /// the next (the clock restarts).
    fn start_measurement(&mut self) {}
    /// Heap bytes of the FTL's tables in the simulator (not the modelled SRAM).
    fn heap_bytes(&self) -> usize;
    /// FTL-specific counters for the report (name, value), in a fixed order.
    fn counters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// What the block-mapped FTLs (block, BAST, FAST) share: a data block per logical block,
/// reads of the latest copy, and the first step of every write — program the page at its
/// own offset in the data block while that page is still free.
pub(crate) trait BlockMapped {
    fn pages_per_block(&self) -> u32;
    /// The data block of logical block `lbn` (`NONE` when it has none yet).
    fn data_block(&mut self, lbn: usize) -> &mut u32;
    /// A free data block, merging to make one if needed; and when it was ready.
    fn alloc(&mut self, flash: &mut Flash, now_ns: u64) -> Result<(u32, u64), OutOfSpace>;
    /// The physical page holding `lpn`'s latest data.
    fn latest(&self, flash: &Flash, lpn: u32) -> Option<u32>;

    fn read_latest(&self, flash: &mut Flash, lpn: u32, now_ns: u64) -> u64 {
        match self.latest(flash, lpn) {
            Some(p) => flash.read(p, now_ns, Purpose::User),
            None => now_ns,
        }
    }

    /// Give `lpn`'s logical block a data block if it has none, then program `lpn` at its
    /// own offset if that page is free: `Ok(Ok(done))`. Otherwise `Ok(Err(t))`, with `t`
    /// the time spent so far, and the FTL goes on with its log or replacement blocks.
    fn write_in_place(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<Result<u64, u64>, OutOfSpace> {
        let ppb = self.pages_per_block();
        let (lbn, off) = ((lpn / ppb) as usize, lpn % ppb);
        let mut t = now_ns;
        if *self.data_block(lbn) == NONE {
            let (b, ready) = self.alloc(flash, now_ns)?;
            *self.data_block(lbn) = b;
            t = ready;
        }
        let p = flash.first_page(*self.data_block(lbn)) + off;
        if flash.is_free(p) {
            return Ok(Ok(t.max(flash.program(p, lpn, now_ns, Purpose::User))));
        }
        Ok(Err(t))
    }
}

/// The FTL a validated spec asks for.
pub fn build(spec: &SsdSpec) -> Box<dyn Ftl> {
    match spec.ftl.kind {
        FtlKind::Page => Box::new(page::PageFtl::new(spec)),
        FtlKind::Block => Box::new(block::BlockFtl::new(spec)),
        FtlKind::Bast => Box::new(bast::Bast::new(spec)),
        FtlKind::Fast => Box::new(fast::Fast::new(spec)),
        FtlKind::Dftl => Box::new(dftl::Dftl::new(spec)),
    }
}

/// Explicit wear leveling for the block-mapped FTLs: if `block` is the data block of a
/// logical block without log/replacement blocks, copy its pages (same offsets) into the
/// most worn free block of its plane, remap, and erase it. Keeps one free block spare.
fn relocate_data_block(
    flash: &mut Flash,
    data: &mut [u32],
    block: u32,
    now_ns: u64,
    has_log: impl Fn(u32) -> bool,
) -> bool {
    if flash.total_free_blocks() < 2 || flash.is_block_free(block) {
        return false;
    }
    let ppb = flash.pages_per_block();
    let first = flash.first_page(block);
    let Some(lpn) = (first..first + ppb)
        .find(|&p| flash.is_valid(p))
        .map(|p| flash.owner(p))
    else {
        return false;
    };
    let lbn = lpn / ppb;
    if data.get(lbn as usize) != Some(&block) || has_log(lbn) {
        return false;
    }
    let Some(worn) = flash.alloc_most_worn(flash.plane_of(block), crate::flash::BlockKind::Data)
    else {
        return false;
    };
    let mut t = now_ns;
    for off in 0..ppb {
        if flash.is_valid(first + off) {
            t = t.max(flash.copy(
                first + off,
                flash.first_page(worn) + off,
                now_ns,
                crate::flash::Purpose::Wear,
            ));
        }
    }
    flash.erase(block, t);
    data[lbn as usize] = worn;
    true
}
