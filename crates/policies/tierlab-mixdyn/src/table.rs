//! The location table: which logical pages have their current copy on the SSD, in which
//! slot, and in what order they were last used.
//!
//! The HDD is the home of every page (page `p` at byte `p × page` of the HDD); the SSD
//! holds a subset, each in one slot of its own. Per page one u32 (its slot, or none); per
//! slot the page it holds and the links of an intrusive LRU list (12 bytes). Free slots
//! are a stack: the next slots handed out are consecutive while the SSD fills, so a
//! multi-page write usually lands contiguously.

pub(crate) const NONE: u32 = u32::MAX;

pub(crate) struct Table {
    slot_of: Vec<u32>,
    page_in: Vec<u32>,
    /// LRU links: `prev` towards the most recently used end, `next` towards the least.
    prev: Vec<u32>,
    next: Vec<u32>,
    mru: u32,
    lru: u32,
    free: Vec<u32>,
    valid: u32,
}

impl Table {
    pub fn new(pages: u32, slots: u32) -> Self {
        Table {
            slot_of: vec![NONE; pages as usize],
            page_in: vec![NONE; slots as usize],
            prev: vec![NONE; slots as usize],
            next: vec![NONE; slots as usize],
            mru: NONE,
            lru: NONE,
            free: (0..slots).rev().collect(),
            valid: 0,
        }
    }

    pub fn pages(&self) -> u32 {
        self.slot_of.len() as u32
    }

    pub fn slots(&self) -> u32 {
        self.page_in.len() as u32
    }

    /// Pages whose current copy is on the SSD.
    pub fn valid(&self) -> u32 {
        self.valid
    }

    /// Slots free to hand out now.
    pub fn free(&self) -> u32 {
        self.free.len() as u32
    }

    pub fn slot(&self, page: u32) -> Option<u32> {
        self.slot_of
            .get(page as usize)
            .copied()
            .filter(|&s| s != NONE)
    }

    pub fn page_in(&self, slot: u32) -> Option<u32> {
        self.page_in
            .get(slot as usize)
            .copied()
            .filter(|&p| p != NONE)
    }

    /// Give `page` (not on the SSD) a free slot, as the most recently used.
    pub fn alloc(&mut self, page: u32) -> Option<u32> {
        if self.slot(page).is_some() || page >= self.pages() {
            return None;
        }
        let slot = self.free.pop()?;
        self.place(page, slot);
        Some(slot)
    }

    /// Rebuild a new (empty) table from `(page, slot or NONE)` pairs, a later pair for a
    /// page replacing an earlier one; the pair at fault if one is out of range or two
    /// pages end in one slot.
    pub fn restore(&mut self, pairs: &[(u32, u32)]) -> Result<(), (u32, u32)> {
        for &(page, slot) in pairs {
            if page >= self.pages() || (slot != NONE && slot >= self.slots()) {
                return Err((page, slot));
            }
            self.slot_of[page as usize] = slot;
        }
        for page in 0..self.pages() {
            let slot = self.slot_of[page as usize];
            if slot == NONE {
                continue;
            }
            if self.page_in[slot as usize] != NONE {
                return Err((page, slot));
            }
            self.page_in[slot as usize] = page;
            self.valid += 1;
            self.link_mru(slot);
        }
        self.free = (0..self.slots())
            .rev()
            .filter(|&s| self.page_in[s as usize] == NONE)
            .collect();
        Ok(())
    }

    fn place(&mut self, page: u32, slot: u32) {
        self.slot_of[page as usize] = slot;
        self.page_in[slot as usize] = page;
        self.valid += 1;
        self.link_mru(slot);
    }

    /// Drop `page`'s SSD copy: the slot it had (no longer in use by the table, but not
    /// free either until [`Table::release`]).
    pub fn unmap(&mut self, page: u32) -> Option<u32> {
        let slot = self.slot(page)?;
        self.unlink(slot);
        self.slot_of[page as usize] = NONE;
        self.page_in[slot as usize] = NONE;
        self.valid -= 1;
        Some(slot)
    }

    /// Return a slot from [`Table::unmap`] to the free stack.
    pub fn release(&mut self, slot: u32) {
        if slot < self.slots() && self.page_in[slot as usize] == NONE {
            self.free.push(slot);
        }
    }

    /// Mark the page in `slot` as the most recently used.
    pub fn touch(&mut self, slot: u32) {
        if self.page_in(slot).is_some() && self.mru != slot {
            self.unlink(slot);
            self.link_mru(slot);
        }
    }

    /// `(slot, page)` from the least recently used on.
    pub fn coldest(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = self.lru;
        std::iter::from_fn(move || {
            if at == NONE {
                return None;
            }
            let slot = at;
            at = self.prev[slot as usize];
            Some((slot, self.page_in[slot as usize]))
        })
    }

    fn link_mru(&mut self, slot: u32) {
        let s = slot as usize;
        self.prev[s] = NONE;
        self.next[s] = self.mru;
        if self.mru != NONE {
            self.prev[self.mru as usize] = slot;
        }
        self.mru = slot;
        if self.lru == NONE {
            self.lru = slot;
        }
    }

    fn unlink(&mut self, slot: u32) {
        let s = slot as usize;
        let (p, n) = (self.prev[s], self.next[s]);
        if p != NONE {
            self.next[p as usize] = n;
        } else if self.mru == slot {
            self.mru = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        } else if self.lru == slot {
            self.lru = p;
        }
        self.prev[s] = NONE;
        self.next[s] = NONE;
    }

    /// Every mapped `(page, slot)`, in page order.
    pub fn mapped(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.slot_of
            .iter()
            .enumerate()
            .filter(|(_, &s)| s != NONE)
            .map(|(p, &s)| (p as u32, s))
    }

    /// The table's invariants, for tests: forward and reverse maps agree, the LRU list
    /// holds exactly the mapped slots, and no slot is both free and in use.
    pub fn check(&self, limbo: usize) -> Result<(), String> {
        let mapped = self.mapped().count();
        if mapped != self.valid as usize {
            return Err(format!("{mapped} pages mapped, valid count {}", self.valid));
        }
        for (p, s) in self.mapped() {
            if self.page_in[s as usize] != p {
                return Err(format!(
                    "page {p} → slot {s}, slot holds {}",
                    self.page_in[s as usize]
                ));
            }
        }
        let listed = self.coldest().count();
        if listed != mapped {
            return Err(format!("LRU list has {listed} slots, {mapped} mapped"));
        }
        if self.free.iter().any(|&s| self.page_in[s as usize] != NONE) {
            return Err("a free slot holds a page".into());
        }
        if mapped + self.free.len() + limbo != self.slots() as usize {
            return Err(format!(
                "{mapped} used + {} free + {limbo} held != {} slots",
                self.free.len(),
                self.slots()
            ));
        }
        Ok(())
    }
}
