//! Ideal page-level mapping: the whole logical-to-physical page map in SRAM, writes
//! out of place, greedy (or configured) garbage collection. The baseline every other
//! FTL is measured against.

use super::Ftl;
use crate::alloc::{PageAlloc, Stream};
use crate::error::OutOfSpace;
use crate::flash::{Flash, Purpose, NONE};
use crate::mem::NoneTable;
use crate::spec::{FtlKind, SsdSpec};

pub struct PageFtl {
    alloc: PageAlloc,
    /// Logical page → physical page, `NONE` if never written.
    map: NoneTable<1>,
}

impl PageFtl {
    pub fn new(spec: &SsdSpec) -> Self {
        PageFtl {
            alloc: PageAlloc::new(spec),
            map: NoneTable::new(spec.logical_pages() as usize),
        }
    }

    fn absorb_moves(&mut self) {
        for m in self.alloc.moves.drain(..) {
            self.map.set_word(m.owner as usize, 0, m.to);
        }
    }
}

impl Ftl for PageFtl {
    fn kind(&self) -> FtlKind {
        FtlKind::Page
    }

    fn read(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        match self.map.word(lpn as usize, 0) {
            NONE => Ok(now_ns),
            ppn => Ok(flash.read(ppn, now_ns, Purpose::User)),
        }
    }

    fn write(&mut self, flash: &mut Flash, lpn: u32, now_ns: u64) -> Result<u64, OutOfSpace> {
        let ppn = self.alloc.alloc_page(flash, Stream::Data, now_ns)?;
        self.absorb_moves();
        let old = self.map.word(lpn as usize, 0);
        if old != NONE {
            flash.invalidate(old);
        }
        self.map.set_word(lpn as usize, 0, ppn);
        Ok(flash.program(ppn, lpn, now_ns, Purpose::User))
    }

    fn lookup(&self, _flash: &Flash, lpn: u32) -> Option<u32> {
        Some(self.map.word(lpn as usize, 0)).filter(|&p| p != NONE)
    }

    fn relocate_cold(
        &mut self,
        flash: &mut Flash,
        block: u32,
        now_ns: u64,
    ) -> Result<bool, OutOfSpace> {
        let moved = self.alloc.relocate_cold(flash, block, now_ns);
        self.absorb_moves();
        Ok(moved)
    }

    fn heap_bytes(&self) -> usize {
        self.map.len() * 4
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![("gc_runs", self.alloc.gc_runs as f64)]
    }
}
