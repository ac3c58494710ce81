//! BAST (Kim et al., 2002): block-mapped data blocks plus a small pool of log blocks,
//! each dedicated to one data block and written sequentially. When a log block fills,
//! or the pool is exhausted, the log is merged with its data block: a switch merge when
//! the log holds every page in order, a partial merge when it holds a prefix in order
//! (the rest is copied from the data block), a full merge otherwise.

use super::{BlockMapped, relocate_data_block, Ftl, MergeCounts};
use crate::error::OutOfSpace;
use crate::flash::{BlockKind, Flash, Purpose, NONE};
use crate::spec::{FtlKind, SsdSpec};
use std::collections::{BTreeMap, VecDeque};

struct Log {
    block: u32,
    /// Pages written so far (the log is filled sequentially).
    used: u32,
    /// Every log page i holds offset i so far.
    in_order: bool,
}

pub struct Bast {
    ppb: u32,
    max_logs: usize,
    data: Vec<u32>,
    logs: BTreeMap<u32, Log>,
    /// Logical blocks in the order their log was opened (the merge victim order).
    log_order: VecDeque<u32>,
    merges: MergeCounts,
}

impl Bast {
    pub fn new(spec: &SsdSpec) -> Self {
        Bast {
            ppb: spec.geometry.pages_per_block,
            max_logs: spec.log_blocks() as usize,
            data: vec![NONE; spec.logical_blocks() as usize],
            logs: BTreeMap::new(),
            log_order: VecDeque::new(),
            merges: MergeCounts::default(),
        }
    }


    fn merge_oldest(&mut self, flash: &mut Flash, now_ns: u64) -> Result<u64, OutOfSpace> {
        loop {
            let lbn = self.log_order.pop_front().ok_or(OutOfSpace)?;
            if self.logs.contains_key(&lbn) {
                return self.merge(flash, lbn, now_ns);
            }
        }
    }


    /// Merge `lbn`'s log block with its data block.
    fn merge(&mut self, flash: &mut Flash, lbn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let Some(log) = self.logs.remove(&lbn) else {
            return Ok(now_ns);
        };
        let d = self.data[lbn as usize];
        let (lf, df) = (flash.first_page(log.block), flash.first_page(d));
        let mut t = now_ns;
        if log.in_order {
            // Switch (whole block in the log) or partial (copy the tail from the data block).
            for off in log.used..self.ppb {
                if flash.is_valid(df + off) {
                    t = t.max(flash.copy(df + off, lf + off, now_ns, Purpose::Gc));
                }
            }
            if log.used == self.ppb {
                self.merges.switch += 1;
            } else {
                self.merges.partial += 1;
            }
            t = t.max(flash.erase(d, t));
            self.data[lbn as usize] = log.block;
            return Ok(t);
        }
        self.logs.insert(lbn, log); // `latest` must still see the log while gathering
        let n = flash
            .alloc_block_any(BlockKind::Data)
            .ok_or(OutOfSpace)?;
        for off in 0..self.ppb {
            if let Some(src) = self.latest(flash, lbn * self.ppb + off) {
                t = t.max(flash.copy(src, flash.first_page(n) + off, now_ns, Purpose::Gc));
            }
        }
        let log = self.logs.remove(&lbn).map(|l| l.block).unwrap_or(NONE);
        t = t.max(flash.erase(d, t));
        if log != NONE {
            t = t.max(flash.erase(log, t));
        }
        self.data[lbn as usize] = n;
        self.merges.full += 1;
        Ok(t)
    }
}

impl BlockMapped for Bast {
    fn pages_per_block(&self) -> u32 {
        self.ppb
    }

    fn data_block(&mut self, lbn: usize) -> &mut u32 {
        &mut self.data[lbn]
    }

    fn latest(&self, flash: &Flash, lpn: u32) -> Option<u32> {
        let (lbn, off) = (lpn / self.ppb, lpn % self.ppb);
        if let Some(log) = self.logs.get(&lbn) {
            let first = flash.first_page(log.block);
            // The newest copy is the last one written; scan the log backwards.
            if let Some(p) = (first..first + log.used)
                .rev()
                .find(|&p| flash.is_valid(p) && flash.owner(p) == lpn)
            {
                return Some(p);
            }
        }
        let d = self.data[lbn as usize];
        Some(d)
            .filter(|&d| d != NONE)
            .map(|d| flash.first_page(d) + off)
            .filter(|&p| flash.is_valid(p))
    }

    /// A free block, keeping one in reserve for merges.
    fn alloc(&mut self, flash: &mut Flash, now_ns: u64) -> Result<(u32, u64), OutOfSpace> {
        let mut t = now_ns;
        while flash.total_free_blocks() < 2 {
            t = t.max(self.merge_oldest(flash, now_ns)?);
        }
        Ok((
            flash
                .alloc_block_any(BlockKind::Data)
                .ok_or(OutOfSpace)?,
            t,
        ))
    }
}

impl Ftl for Bast {
    fn kind(&self) -> FtlKind {
        FtlKind::Bast
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
        if self.logs.get(&lbn).is_some_and(|l| l.used == self.ppb) {
            t = t.max(self.merge(flash, lbn, now_ns)?);
        }
        if !self.logs.contains_key(&lbn) {
            if self.logs.len() >= self.max_logs {
                t = t.max(self.merge_oldest(flash, now_ns)?);
            }
            let (b, tm) = self.alloc(flash, now_ns)?;
            t = t.max(tm);
            self.logs.insert(
                lbn,
                Log {
                    block: b,
                    used: 0,
                    in_order: true,
                },
            );
            self.log_order.push_back(lbn);
        }
        if let Some(old) = self.latest(flash, lpn) {
            flash.invalidate(old);
        }
        let Some(log) = self.logs.get_mut(&lbn) else {
            return Err(OutOfSpace);
        };
        let lp = flash.first_page(log.block) + log.used;
        log.in_order &= log.used == off;
        log.used += 1;
        Ok(t.max(flash.program(lp, lpn, now_ns, Purpose::User)))
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
        let logs = &self.logs;
        Ok(relocate_data_block(
            flash,
            &mut self.data,
            block,
            now_ns,
            |lbn| logs.contains_key(&lbn),
        ))
    }

    fn heap_bytes(&self) -> usize {
        self.data.len() * 4 + self.logs.len() * 48 + self.log_order.len() * 4
    }

    fn merges(&self) -> MergeCounts {
        self.merges
    }
}
