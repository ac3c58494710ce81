//! FAST (Lee et al., 2007): block-mapped data blocks plus log blocks (a fraction of
//! flash, about 3 %): one sequential log block (SW) that takes writes starting at offset
//! 0 of a block and continuing in order, and random log blocks (RW) shared by all data
//! blocks, page-mapped, written as a FIFO. Reclaiming the SW log is a switch, partial or
//! full merge; reclaiming the oldest RW log fully merges every logical block with a
//! valid page in it.

use super::{BlockMapped, relocate_data_block, Ftl, MergeCounts};
use crate::error::OutOfSpace;
use crate::flash::{BlockKind, Flash, Purpose, NONE};
use crate::mem::NoneTable;
use crate::spec::{FtlKind, SsdSpec};
use std::collections::VecDeque;

struct SeqLog {
    lbn: u32,
    block: u32,
    /// Next offset expected (log page i holds offset i).
    next: u32,
}

pub struct Fast {
    ppb: u32,
    max_rw: usize,
    data: Vec<u32>,
    sw: Option<SeqLog>,
    /// Random log blocks, oldest first; the last one is being written.
    rw: VecDeque<u32>,
    /// Logical page -> its page in a random log block.
    rw_map: NoneTable<1>,
    merges: MergeCounts,
}

impl Fast {
    pub fn new(spec: &SsdSpec) -> Self {
        Fast {
            ppb: spec.geometry.pages_per_block,
            max_rw: (spec.log_blocks() as usize).saturating_sub(1).max(1),
            data: vec![NONE; spec.logical_blocks() as usize],
            sw: None,
            rw: VecDeque::new(),
            rw_map: NoneTable::new(spec.logical_pages() as usize),
            merges: MergeCounts::default(),
        }
    }



    /// Gather the latest copy of every offset of `lbn` into a fresh block; erase the old
    /// data block and the SW log if it belonged to `lbn`.
    fn full_merge(&mut self, flash: &mut Flash, lbn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let n = flash
            .alloc_block_any(BlockKind::Data)
            .ok_or(OutOfSpace)?;
        let mut t = now_ns;
        for off in 0..self.ppb {
            let lpn = lbn * self.ppb + off;
            if let Some(src) = self.latest(flash, lpn) {
                t = t.max(flash.copy(src, flash.first_page(n) + off, now_ns, Purpose::Gc));
            }
            self.rw_map.set_word(lpn as usize, 0, NONE);
        }
        let d = self.data[lbn as usize];
        if d != NONE {
            t = t.max(flash.erase(d, t));
        }
        if self.sw.as_ref().is_some_and(|s| s.lbn == lbn) {
            if let Some(sw) = self.sw.take() {
                t = t.max(flash.erase(sw.block, t));
            }
        }
        self.data[lbn as usize] = n;
        self.merges.full += 1;
        Ok(t)
    }

    /// Reclaim the SW log: switch, partial, or (if pages in it were superseded) full merge.
    fn merge_sw(&mut self, flash: &mut Flash, now_ns: u64) -> Result<u64, OutOfSpace> {
        let Some(sw) = self.sw.as_ref() else {
            return Ok(now_ns);
        };
        let (lbn, block, next) = (sw.lbn, sw.block, sw.next);
        let lf = flash.first_page(block);
        if !(lf..lf + next).all(|p| flash.is_valid(p)) {
            let t = self.full_merge(flash, lbn, now_ns)?;
            self.erase_dead_rw(flash, t);
            return Ok(t);
        }
        let mut t = now_ns;
        for off in next..self.ppb {
            let lpn = lbn * self.ppb + off;
            // Not yet in the SW log: the latest copy is in a random log or the data block.
            if let Some(src) = self.latest(flash, lpn) {
                t = t.max(flash.copy(src, lf + off, now_ns, Purpose::Gc));
            }
            self.rw_map.set_word(lpn as usize, 0, NONE);
        }
        if next == self.ppb {
            self.merges.switch += 1;
        } else {
            self.merges.partial += 1;
        }
        self.sw = None;
        let d = self.data[lbn as usize];
        if d != NONE {
            t = t.max(flash.erase(d, t));
        }
        self.data[lbn as usize] = block;
        self.erase_dead_rw(flash, t);
        Ok(t)
    }

    /// Reclaim the oldest RW log: fully merge each logical block with a valid page in it.
    fn reclaim_rw(&mut self, flash: &mut Flash, now_ns: u64) -> Result<u64, OutOfSpace> {
        let Some(victim) = self.rw.pop_front() else {
            return Ok(now_ns);
        };
        let first = flash.first_page(victim);
        let mut lbns: Vec<u32> = (first..first + self.ppb)
            .filter(|&p| flash.is_valid(p))
            .map(|p| flash.owner(p) / self.ppb)
            .collect();
        lbns.dedup();
        lbns.sort_unstable();
        lbns.dedup();
        let mut t = now_ns;
        for lbn in lbns {
            t = t.max(self.full_merge(flash, lbn, now_ns)?);
        }
        t = t.max(flash.erase(victim, t));
        self.erase_dead_rw(flash, t);
        Ok(t)
    }

    /// Erase random log blocks left without valid pages (all but a partly written last one).
    fn erase_dead_rw(&mut self, flash: &mut Flash, t: u64) {
        let last = self.rw.back().copied();
        let mut keep = VecDeque::with_capacity(self.rw.len());
        for b in self.rw.drain(..) {
            let writing = Some(b) == last && !flash.block_written_out(b);
            if flash.valid_count(b) == 0 && !writing {
                flash.erase(b, t);
            } else {
                keep.push_back(b);
            }
        }
        self.rw = keep;
    }

    fn write_rw(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let mut t = now_ns;
        let need_new = match self.rw.back() {
            None => true,
            Some(&b) => flash.block_written_out(b),
        };
        if need_new {
            if self.rw.len() >= self.max_rw {
                t = t.max(self.reclaim_rw(flash, now_ns)?);
            }
            let (b, tm) = self.alloc(flash, now_ns)?;
            self.rw.push_back(b);
            t = t.max(tm);
        }
        let b = *self.rw.back().ok_or(OutOfSpace)?;
        let lp = flash.take_page(b).ok_or(OutOfSpace)?;
        if let Some(old) = self.latest(flash, lpn) {
            flash.invalidate(old);
        }
        self.rw_map.set_word(lpn as usize, 0, lp);
        Ok(t.max(flash.program(lp, lpn, now_ns, Purpose::User)))
    }
}

impl BlockMapped for Fast {
    fn pages_per_block(&self) -> u32 {
        self.ppb
    }

    fn data_block(&mut self, lbn: usize) -> &mut u32 {
        &mut self.data[lbn]
    }

    fn latest(&self, flash: &Flash, lpn: u32) -> Option<u32> {
        let (lbn, off) = (lpn / self.ppb, lpn % self.ppb);
        let r = self.rw_map.word(lpn as usize, 0);
        if r != NONE {
            return Some(r);
        }
        if let Some(sw) = self.sw.as_ref().filter(|s| s.lbn == lbn && off < s.next) {
            let p = flash.first_page(sw.block) + off;
            if flash.is_valid(p) {
                return Some(p);
            }
        }
        let d = self.data[lbn as usize];
        Some(d)
            .filter(|&d| d != NONE)
            .map(|d| flash.first_page(d) + off)
            .filter(|&p| flash.is_valid(p))
    }

    /// A free block, reclaiming logs so that one free block stays in reserve for merges.
    fn alloc(&mut self, flash: &mut Flash, now_ns: u64) -> Result<(u32, u64), OutOfSpace> {
        let mut t = now_ns;
        while flash.total_free_blocks() < 2 {
            t = t.max(if !self.rw.is_empty() {
                self.reclaim_rw(flash, now_ns)?
            } else {
                self.merge_sw(flash, now_ns)?
            });
            if self.rw.is_empty() && self.sw.is_none() && flash.total_free_blocks() < 2 {
                return Err(OutOfSpace);
            }
        }
        Ok((
            flash
                .alloc_block_any(BlockKind::Data)
                .ok_or(OutOfSpace)?,
            t,
        ))
    }
}

impl Ftl for Fast {
    fn kind(&self) -> FtlKind {
        FtlKind::Fast
    }

    fn read(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        Ok(self.read_latest(flash, lpn, now_ns))
    }

    fn write(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let (lbn, off) = (lpn / self.ppb, lpn % self.ppb);
        let mut t = match self.write_in_place(flash, lpn, now_ns)? {
            Ok(done) => return Ok(done),
            Err(t) => t,
        };
        if off == 0 {
            t = t.max(self.merge_sw(flash, now_ns)?);
            let (b, tm) = self.alloc(flash, now_ns)?;
            t = t.max(tm);
            self.sw = Some(SeqLog {
                lbn,
                block: b,
                next: 0,
            });
        }
        let appends = self
            .sw
            .as_ref()
            .is_some_and(|s| s.lbn == lbn && s.next == off);
        if !appends {
            return Ok(t.max(self.write_rw(flash, lpn, now_ns)?));
        }
        if let Some(old) = self.latest(flash, lpn) {
            flash.invalidate(old);
        }
        self.rw_map.set_word(lpn as usize, 0, NONE);
        let Some(sw) = self.sw.as_mut() else {
            return Err(OutOfSpace);
        };
        let lp = flash.first_page(sw.block) + off;
        sw.next += 1;
        let full = sw.next == self.ppb;
        t = t.max(flash.program(lp, lpn, now_ns, Purpose::User));
        if full {
            t = t.max(self.merge_sw(flash, now_ns)?);
        }
        Ok(t)
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
        let sw_lbn = self.sw.as_ref().map(|s| s.lbn);
        let (rw_map, ppb) = (&self.rw_map, self.ppb);
        let has_log = |lbn: u32| {
            Some(lbn) == sw_lbn || (lbn * ppb..(lbn + 1) * ppb).any(|l| rw_map.word(l as usize, 0) != NONE)
        };
        Ok(relocate_data_block(
            flash,
            &mut self.data,
            block,
            now_ns,
            has_log,
        ))
    }

    fn heap_bytes(&self) -> usize {
        (self.data.len() + self.rw.len() + self.rw_map.len()) * 4
    }

    fn merges(&self) -> MergeCounts {
        self.merges
    }
}
