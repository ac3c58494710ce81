//! Where a logical byte of an array lives, and which disk operations a read or a write
//! becomes.
//!
//! Layouts:
//! - **RAID-0**: stripe unit `u` bytes; logical unit `k` is unit `k / n` of disk `k % n`.
//! - **RAID-1/10**: disks in mirrored pairs (0,1), (2,3), …; the pairs are striped as in
//!   RAID-0. Two disks are plain RAID-1. A read goes to one copy (the executor picks which:
//!   [`Piece::mirror`]); a write goes to both.
//! - **RAID-5, left-symmetric**: stripe `s` keeps its parity on disk `n − 1 − (s mod n)`;
//!   its data unit `k` is on disk `(parity + 1 + k) mod n`. Consecutive logical units
//!   therefore visit every disk before one repeats, and a sequential read keeps all disks
//!   busy.
//!
//! RAID-5 writes, per stripe touched: a write that covers every data unit of the stripe
//! writes data and parity with no reads (full-stripe write). Otherwise the parity of the
//! byte range it touches (the union of its in-unit offsets, the "parity range") is brought
//! up to date by the cheaper of:
//! - **read-modify-write**: read the old data it overwrites and the old parity range, then
//!   write the new data and parity (`k + 1` reads for `k` touched units);
//! - **reconstruct-write**: read the parity range from every data unit the write does not
//!   cover within that range, then write the new data and parity (`n − 1 − k` reads).
//!
//! Reconstruct-write is chosen when it reads fewer bytes; ties go to read-modify-write.
//! A plan's reads all finish before its writes start (the executor's job).
//!
//! RAID-5 parity fill-in ([`Geometry::with_parity_fill_in`], the FSU study's track-aligned
//! RAID-5): a read that touches every data unit of a stripe also reads that stripe's parity
//! unit and discards it. A long read then asks each disk for one contiguous range instead
//! of a range with a hole every `n` units, which is what keeps a track-sized read whole.

use crate::ArrayError;
use serde::{Deserialize, Serialize};
use std::fmt;
use tierlab_types::{Op, SECTOR_BYTES};

/// A RAID level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RaidLevel {
    /// Striping without redundancy.
    Raid0,
    /// Mirrored pairs, striped (RAID-1 with two disks).
    Raid10,
    /// Striping with rotating parity, left-symmetric.
    Raid5,
}

impl RaidLevel {
    /// The fewest disks the level works with.
    pub fn min_disks(self) -> usize {
        match self {
            RaidLevel::Raid0 => 1,
            RaidLevel::Raid10 => 2,
            RaidLevel::Raid5 => 3,
        }
    }
}

impl fmt::Display for RaidLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RaidLevel::Raid0 => "raid0",
            RaidLevel::Raid10 => "raid10",
            RaidLevel::Raid5 => "raid5",
        })
    }
}

impl std::str::FromStr for RaidLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().replace('-', "").as_str() {
            "raid0" | "0" => Ok(RaidLevel::Raid0),
            "raid1" | "raid10" | "1" | "10" => Ok(RaidLevel::Raid10),
            "raid5" | "5" => Ok(RaidLevel::Raid5),
            _ => Err(format!("expected raid0, raid1, raid10 or raid5, found `{s}`")),
        }
    }
}

/// One disk operation of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub disk: u32,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    pub op: Op,
    /// RAID-10 reads: the other copy, which serves the same bytes equally well.
    pub mirror: Option<u32>,
}

/// The disk operations one logical request becomes: every read finishes before any write
/// starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub reads: Vec<Piece>,
    pub writes: Vec<Piece>,
    /// Stripes written in full (no reads), for the report.
    pub full_stripe_writes: u32,
    pub read_modify_writes: u32,
    pub reconstruct_writes: u32,
    /// Parity units read only to keep disks' reads contiguous (parity fill-in).
    pub fill_in_reads: u32,
}

impl Plan {
    pub fn clear(&mut self) {
        self.reads.clear();
        self.writes.clear();
        self.full_stripe_writes = 0;
        self.read_modify_writes = 0;
        self.reconstruct_writes = 0;
        self.fill_in_reads = 0;
    }
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty()
    }
}

/// The shape of an array: level, disk count, stripe unit and the bytes used on each disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    pub level: RaidLevel,
    pub disks: u32,
    pub stripe_unit_bytes: u64,
    /// Bytes used on each disk: a whole number of stripe units.
    pub disk_bytes: u64,
    /// RAID-5 reads covering a stripe's data also read its parity (see the module notes).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub parity_fill_in: bool,
}

impl Geometry {
    /// `disk_capacity_bytes` is rounded down to whole stripe units.
    pub fn new(level: RaidLevel, disks: usize, stripe_unit_bytes: u64, disk_capacity_bytes: u64) -> Result<Geometry, ArrayError> {
        if disks < level.min_disks() {
            return Err(ArrayError::TooFewDisks { level, disks, min: level.min_disks() });
        }
        if level == RaidLevel::Raid10 && !disks.is_multiple_of(2) {
            return Err(ArrayError::OddMirror { disks });
        }
        if disks > u32::MAX as usize / 2 {
            return Err(ArrayError::Invalid { field: "disks", expected: "at most 2^31 disks".into(), found: disks.to_string() });
        }
        if stripe_unit_bytes == 0 || !stripe_unit_bytes.is_multiple_of(SECTOR_BYTES) {
            return Err(ArrayError::Invalid {
                field: "stripe_unit_bytes",
                expected: format!("a positive whole number of {SECTOR_BYTES}-byte sectors"),
                found: stripe_unit_bytes.to_string(),
            });
        }
        let disk_bytes = disk_capacity_bytes / stripe_unit_bytes * stripe_unit_bytes;
        if disk_bytes == 0 {
            return Err(ArrayError::Invalid {
                field: "stripe_unit_bytes",
                expected: format!("at most the disk's capacity ({disk_capacity_bytes} bytes)"),
                found: stripe_unit_bytes.to_string(),
            });
        }
        Ok(Geometry { level, disks: disks as u32, stripe_unit_bytes, disk_bytes, parity_fill_in: false })
    }

    /// The same geometry with RAID-5 parity fill-in on or off (no effect on other levels).
    pub fn with_parity_fill_in(self, on: bool) -> Geometry {
        Geometry { parity_fill_in: on, ..self }
    }

    /// Data units per stripe (row).
    pub fn data_units_per_stripe(&self) -> u64 {
        match self.level {
            RaidLevel::Raid0 => u64::from(self.disks),
            RaidLevel::Raid10 => u64::from(self.disks / 2),
            RaidLevel::Raid5 => u64::from(self.disks - 1),
        }
    }

    /// Stripes (rows) in the array.
    pub fn stripes(&self) -> u64 {
        self.disk_bytes / self.stripe_unit_bytes
    }

    /// Bytes the array holds for its user.
    pub fn capacity_bytes(&self) -> u64 {
        self.stripes() * self.data_units_per_stripe() * self.stripe_unit_bytes
    }

    /// Bytes of one full stripe's data.
    pub fn stripe_data_bytes(&self) -> u64 {
        self.data_units_per_stripe() * self.stripe_unit_bytes
    }

    /// The disk holding stripe `s`'s parity (RAID-5 only).
    pub fn parity_disk(&self, stripe: u64) -> Option<u32> {
        (self.level == RaidLevel::Raid5).then(|| self.disks - 1 - (stripe % u64::from(self.disks)) as u32)
    }

    /// The disk holding data unit `k` of stripe `s` (for RAID-10: the pair's first disk).
    pub fn data_disk(&self, stripe: u64, k: u64) -> u32 {
        let n = u64::from(self.disks);
        match self.level {
            RaidLevel::Raid0 => k as u32,
            RaidLevel::Raid10 => (2 * k) as u32,
            RaidLevel::Raid5 => {
                let p = n - 1 - stripe % n;
                ((p + 1 + k) % n) as u32
            }
        }
    }

    /// The disk operations of a request of `len_bytes` at `offset_bytes`, appended to
    /// `plan` (which is cleared first). The range must lie within the array.
    pub fn plan(&self, op: Op, offset_bytes: u64, len_bytes: u64, plan: &mut Plan) -> Result<(), ArrayError> {
        plan.clear();
        let end = offset_bytes.checked_add(len_bytes).filter(|&e| e <= self.capacity_bytes() && len_bytes > 0);
        let Some(end) = end else {
            return Err(ArrayError::OutOfRange { offset_bytes, len_bytes, capacity_bytes: self.capacity_bytes() });
        };
        let row = self.stripe_data_bytes();
        let mut pos = offset_bytes;
        while pos < end {
            let stripe = pos / row;
            let stripe_end = ((stripe + 1) * row).min(end);
            self.plan_stripe(op, stripe, pos - stripe * row, stripe_end - stripe * row, plan);
            pos = stripe_end;
        }
        merge(&mut plan.reads);
        merge(&mut plan.writes);
        Ok(())
    }

    /// One stripe's share: bytes `[from, to)` of its data.
    fn plan_stripe(&self, op: Op, stripe: u64, from: u64, to: u64, plan: &mut Plan) {
        let u = self.stripe_unit_bytes;
        let base = stripe * u;
        let first = from / u;
        let last = (to - 1) / u;
        let piece = |disk: u32, lo: u64, hi: u64, op: Op, mirror: Option<u32>| Piece { disk, offset_bytes: base + lo, len_bytes: hi - lo, op, mirror };
        match (self.level, op) {
            (RaidLevel::Raid0, _) | (RaidLevel::Raid5, Op::Read) => {
                for k in first..=last {
                    let (lo, hi) = unit_range(k, u, from, to);
                    let p = piece(self.data_disk(stripe, k), lo, hi, op, None);
                    if op.is_read() { plan.reads.push(p) } else { plan.writes.push(p) }
                }
                // Every data unit read: its parity disk is the only one left out.
                if self.parity_fill_in && op.is_read() && first == 0 && last + 1 == self.data_units_per_stripe() {
                    if let Some(parity) = self.parity_disk(stripe) {
                        plan.reads.push(piece(parity, 0, u, op, None));
                        plan.fill_in_reads += 1;
                    }
                }
            }
            (RaidLevel::Raid10, _) => {
                for k in first..=last {
                    let (lo, hi) = unit_range(k, u, from, to);
                    let d = self.data_disk(stripe, k);
                    match op {
                        Op::Read => plan.reads.push(piece(d, lo, hi, op, Some(d + 1))),
                        Op::Write => {
                            plan.writes.push(piece(d, lo, hi, op, None));
                            plan.writes.push(piece(d + 1, lo, hi, op, None));
                        }
                    }
                }
            }
            (RaidLevel::Raid5, Op::Write) => self.plan_raid5_write(stripe, from, to, plan),
        }
    }

    fn plan_raid5_write(&self, stripe: u64, from: u64, to: u64, plan: &mut Plan) {
        let u = self.stripe_unit_bytes;
        let base = stripe * u;
        let units = self.data_units_per_stripe();
        let parity = self.parity_disk(stripe).unwrap_or(0);
        let first = from / u;
        let last = (to - 1) / u;
        let mk = |disk: u32, lo: u64, hi: u64, op: Op| Piece { disk, offset_bytes: base + lo, len_bytes: hi - lo, op, mirror: None };
        for k in first..=last {
            let (lo, hi) = unit_range(k, u, from, to);
            plan.writes.push(mk(self.data_disk(stripe, k), lo, hi, Op::Write));
        }
        if from == 0 && to == units * u {
            plan.writes.push(mk(parity, 0, u, Op::Write));
            plan.full_stripe_writes += 1;
            return;
        }
        // The parity range: the in-unit range written, or for a write spanning units the
        // whole unit (the hull of a unit's tail and the next unit's head).
        let (p_lo, p_hi) = if first == last { unit_range(first, u, from, to) } else { (0, u) };
        // Read-modify-write: the old data written and the old parity range.
        let rmw_bytes: u64 = (first..=last).map(|k| { let (lo, hi) = unit_range(k, u, from, to); hi - lo }).sum::<u64>() + (p_hi - p_lo);
        // Reconstruct-write: within the parity range, what the write does not cover (all
        // of it on every unit the write leaves alone; counted without visiting them, so a
        // small write costs the same on a wide stripe as on a narrow one).
        let untouched = units - (last - first + 1);
        let rcw_bytes = untouched * (p_hi - p_lo)
            + (first..=last).map(|k| { let (lo, hi) = unit_range(k, u, from, to); uncovered(p_lo, p_hi, lo, hi) }).sum::<u64>();
        if rcw_bytes < rmw_bytes {
            plan.reconstruct_writes += 1;
            for k in 0..units {
                let (lo, hi) = if (first..=last).contains(&k) { unit_range(k, u, from, to) } else { (0, 0) };
                let d = self.data_disk(stripe, k);
                if hi <= p_lo || lo >= p_hi || lo >= hi {
                    plan.reads.push(mk(d, p_lo, p_hi, Op::Read));
                } else {
                    if lo > p_lo {
                        plan.reads.push(mk(d, p_lo, lo, Op::Read));
                    }
                    if hi < p_hi {
                        plan.reads.push(mk(d, hi, p_hi, Op::Read));
                    }
                }
            }
        } else {
            plan.read_modify_writes += 1;
            for k in first..=last {
                let (lo, hi) = unit_range(k, u, from, to);
                plan.reads.push(mk(self.data_disk(stripe, k), lo, hi, Op::Read));
            }
            plan.reads.push(mk(parity, p_lo, p_hi, Op::Read));
        }
        plan.writes.push(mk(parity, p_lo, p_hi, Op::Write));
    }
}

/// The part of `[from, to)` (stripe-relative) that falls in unit `k`, as in-unit offsets.
fn unit_range(k: u64, u: u64, from: u64, to: u64) -> (u64, u64) {
    let lo = from.max(k * u) - k * u;
    let hi = to.min((k + 1) * u) - k * u;
    (lo, hi)
}

/// Bytes of `[a, b)` not covered by `[lo, hi)`.
fn uncovered(a: u64, b: u64, lo: u64, hi: u64) -> u64 {
    let covered = hi.min(b).saturating_sub(lo.max(a));
    (b - a) - covered
}

/// Join pieces of one disk that are adjacent on it (a request spanning stripes touches
/// consecutive units of each disk), keeping the first piece's position in the list.
fn merge(pieces: &mut Vec<Piece>) {
    if pieces.len() < 2 {
        return;
    }
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    'next: for p in pieces.drain(..) {
        for q in out.iter_mut().rev() {
            if q.disk == p.disk && q.op == p.op && q.mirror == p.mirror {
                if q.offset_bytes + q.len_bytes == p.offset_bytes {
                    q.len_bytes += p.len_bytes;
                    continue 'next;
                }
                if p.offset_bytes + p.len_bytes == q.offset_bytes {
                    q.offset_bytes = p.offset_bytes;
                    q.len_bytes += p.len_bytes;
                    continue 'next;
                }
            }
        }
        out.push(p);
    }
    *pieces = out;
}
