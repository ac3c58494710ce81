//! Block-level mapping with replacement blocks: a logical page lives at a fixed offset
//! of its logical block's data block; an overwrite goes to the same offset of the
//! block's replacement block; a second overwrite of that offset (or a shortage of free
//! blocks) merges data and replacement block into a fresh block (a full merge).
//!
//! Like FlashSim, pages of a block may be programmed out of order.

use super::{BlockMapped, relocate_data_block, Ftl, MergeCounts};
use crate::error::OutOfSpace;
use crate::flash::{BlockKind, Flash, Purpose, NONE};
use crate::spec::{FtlKind, SsdSpec};
use std::collections::VecDeque;

pub struct BlockFtl {
    ppb: u32,
    data: Vec<u32>,
    repl: Vec<u32>,
    /// Logical blocks in the order their replacement block was opened (oldest merged
    /// first when free blocks run short); entries whose replacement is gone are skipped.
    repl_order: VecDeque<u32>,
    merges: MergeCounts,
}

impl BlockFtl {
    pub fn new(spec: &SsdSpec) -> Self {
        let lb = spec.logical_blocks() as usize;
        BlockFtl {
            ppb: spec.geometry.pages_per_block,
            data: vec![NONE; lb],
            repl: vec![NONE; lb],
            repl_order: VecDeque::new(),
            merges: MergeCounts::default(),
        }
    }



    /// Gather the latest page of every offset of `lbn` into a fresh block (the page at
    /// `new_off`, if any, is the host's new data), then erase the old blocks.
    fn merge(
        &mut self,
        flash: &mut Flash,
        lbn: u32,
        new_off: Option<u32>,
        now_ns: u64,
    ) -> Result<u64, OutOfSpace> {
        let n = flash
            .alloc_block_any(BlockKind::Data)
            .ok_or(OutOfSpace)?;
        let mut t = now_ns;
        for off in 0..self.ppb {
            let lpn = lbn * self.ppb + off;
            let dst = flash.first_page(n) + off;
            match (self.latest(flash, lpn), new_off == Some(off)) {
                (Some(src), false) => t = t.max(flash.copy(src, dst, now_ns, Purpose::Gc)),
                (Some(src), true) => {
                    flash.invalidate(src);
                    t = t.max(flash.program(dst, lpn, now_ns, Purpose::User));
                }
                (None, true) => t = t.max(flash.program(dst, lpn, now_ns, Purpose::User)),
                (None, false) => {}
            }
        }
        for old in [self.data[lbn as usize], self.repl[lbn as usize]] {
            if old != NONE {
                t = t.max(flash.erase(old, t));
            }
        }
        self.data[lbn as usize] = n;
        self.repl[lbn as usize] = NONE;
        self.merges.full += 1;
        Ok(t)
    }
}

impl BlockMapped for BlockFtl {
    fn pages_per_block(&self) -> u32 {
        self.ppb
    }

    fn data_block(&mut self, lbn: usize) -> &mut u32 {
        &mut self.data[lbn]
    }

    fn latest(&self, flash: &Flash, lpn: u32) -> Option<u32> {
        let (lbn, off) = ((lpn / self.ppb) as usize, lpn % self.ppb);
        [self.repl[lbn], self.data[lbn]]
            .into_iter()
            .filter(|&b| b != NONE)
            .map(|b| flash.first_page(b) + off)
            .find(|&p| flash.is_valid(p))
    }

    /// A free block, merging the oldest replacement chains first so that one free block
    /// always stays in reserve for merges. Returns the block and when merging finished.
    fn alloc(&mut self, flash: &mut Flash, now_ns: u64) -> Result<(u32, u64), OutOfSpace> {
        let mut t = now_ns;
        while flash.total_free_blocks() < 2 {
            let lbn = loop {
                let l = self.repl_order.pop_front().ok_or(OutOfSpace)?;
                if self.repl[l as usize] != NONE {
                    break l;
                }
            };
            t = t.max(self.merge(flash, lbn, None, now_ns)?);
        }
        Ok((
            flash
                .alloc_block_any(BlockKind::Data)
                .ok_or(OutOfSpace)?,
            t,
        ))
    }
}

impl Ftl for BlockFtl {
    fn kind(&self) -> FtlKind {
        FtlKind::Block
    }

    fn read(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        Ok(self.read_latest(flash, lpn, now_ns))
    }

    fn write(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let (lbn, off) = ((lpn / self.ppb) as usize, lpn % self.ppb);
        let mut t = match self.write_in_place(flash, lpn, now_ns)? {
            Ok(done) => return Ok(done),
            Err(t) => t,
        };
        if self.repl[lbn] == NONE {
            let (b, tm) = self.alloc(flash, now_ns)?;
            // Allocation may have merged other blocks, never this one (it had no replacement).
            self.repl[lbn] = b;
            self.repl_order.push_back(lbn as u32);
            t = t.max(tm);
        }
        let rp = flash.first_page(self.repl[lbn]) + off;
        if flash.is_free(rp) {
            if let Some(old) = self.latest(flash, lpn) {
                flash.invalidate(old);
            }
            return Ok(t.max(flash.program(rp, lpn, now_ns, Purpose::User)));
        }
        Ok(t.max(self.merge(flash, lbn as u32, Some(off), now_ns)?))
    }

    fn lookup(&self, flash: &Flash, lpn: u32) -> Option<u32> {
        self.latest(flash, lpn)
    }

    fn relocate_cold(
        &mut self,
        flash: &mut Flash,
        block: u32,
        now_ns: u64,
    ) -> Result<bool, OutOfSpace> {
        let repl = &self.repl;
        Ok(relocate_data_block(
            flash,
            &mut self.data,
            block,
            now_ns,
            |lbn| repl[lbn as usize] != NONE,
        ))
    }

    fn heap_bytes(&self) -> usize {
        (self.data.len() + self.repl.len() + self.repl_order.len()) * 4
    }

    fn merges(&self) -> MergeCounts {
        self.merges
    }
}
