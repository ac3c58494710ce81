//! Per-device queue schedulers: which waiting operation a free device serves next.

use std::collections::{BTreeSet, VecDeque};
use std::fmt;
use std::str::FromStr;

/// An operation waiting in a device queue: its position key (cylinder for a disk), the
/// order it arrived in (ties and FCFS) and the engine's slot holding the op itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Waiting {
    pub key: u64,
    pub seq: u64,
    pub slot: u32,
}

/// A queue discipline.
pub trait Scheduler {
    fn push(&mut self, w: Waiting);
    /// The next op to serve given where the device is now (`head_key`).
    fn pop(&mut self, head_key: u64) -> Option<Waiting>;
    /// The same, for a queue that orders by what serving each op would cost now (`cost`:
    /// the device's estimate, `None` where it has none) and by how long ops have waited
    /// (`now_ns`). Most queues ignore both.
    fn pop_by_cost(&mut self, head_key: u64, now_ns: u64, cost: &mut dyn FnMut(&Waiting) -> Option<u64>) -> Option<Waiting> {
        let _ = (now_ns, cost);
        self.pop(head_key)
    }
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The schedulers tierlab ships.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchedulerKind {
    /// First come, first served.
    #[default]
    Fcfs,
    /// Shortest seek time first (nearest position key; ties to the earlier arrival).
    Sstf,
    /// Circular LOOK: sweep upwards from the head, then jump back to the lowest key.
    Clook,
    /// Circular LOOK by logical block address rather than by the device's position, as a
    /// host's I/O scheduler (Linux's elevator) sorts. On a disk numbered in serpentine
    /// bands, block order is not cylinder order.
    ClookLba,
    /// Shortest positioning time first among the [`COMMAND_QUEUE_DEPTH`] oldest waiting
    /// ops, by the device's own estimate of seek and rotation: a disk with command
    /// queueing (SATA NCQ, SCSI TCQ) reordering what the host has sent it. FCFS on a
    /// device that cannot estimate.
    Sptf,
    /// Both: the host's elevator (C-LOOK by block address) sends requests in its order
    /// into the drive's command queue as it has room ([`COMMAND_QUEUE_DEPTH`]), and the
    /// drive serves the quickest to reach of those it holds. Linux with NCQ.
    ClookLbaSptf,
}

/// Commands a drive's queue holds: NCQ's 32.
pub const COMMAND_QUEUE_DEPTH: usize = 32;

/// A drive's command-aging limit: a command that has been in the drive's queue longer than
/// this is served next, the oldest first, whatever positioning would prefer. HGST's
/// Ultrastar C15K600 specification, mode page 00h: with CAEN set (its default), "when
/// commands have been in the queue for a period of time greater than the timer limit they
/// will be reordered to be executed on a first come first served basis"; the Command
/// Aging Limit defaults to 30h units of 50 ms, 2.4 s. No drive of the catalog publishes
/// its own, so every drive's queue ages at this one.
pub const COMMAND_AGE_LIMIT_NS: u64 = 2_400_000_000;

impl SchedulerKind {
    pub const ALL: [SchedulerKind; 6] =
        [SchedulerKind::Fcfs, SchedulerKind::Sstf, SchedulerKind::Clook, SchedulerKind::ClookLba, SchedulerKind::Sptf, SchedulerKind::ClookLbaSptf];

    pub fn build(self) -> Box<dyn Scheduler> {
        match self {
            SchedulerKind::Fcfs => Box::new(Fcfs::default()),
            SchedulerKind::Sstf => Box::new(Sstf::default()),
            SchedulerKind::Clook | SchedulerKind::ClookLba => Box::new(Clook::default()),
            SchedulerKind::Sptf => Box::new(Sptf::default()),
            SchedulerKind::ClookLbaSptf => Box::new(ElevatorNcq::default()),
        }
    }

    /// What the queue's position keys are.
    pub fn keys(self) -> QueueKeys {
        match self {
            SchedulerKind::Fcfs | SchedulerKind::Sptf => QueueKeys::Unused,
            SchedulerKind::ClookLba | SchedulerKind::ClookLbaSptf => QueueKeys::Block,
            SchedulerKind::Sstf | SchedulerKind::Clook => QueueKeys::Position,
        }
    }
}

/// What a queue orders by, so the engine knows which key to give each op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueKeys {
    /// Nothing: arrival order, or the device's own estimate (no lookup needed).
    Unused,
    /// Logical block address.
    Block,
    /// The device's position (cylinder for a disk).
    Position,
}

impl fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchedulerKind::Fcfs => "fcfs",
            SchedulerKind::Sstf => "sstf",
            SchedulerKind::Clook => "clook",
            SchedulerKind::ClookLba => "clook-lba",
            SchedulerKind::Sptf => "sptf",
            SchedulerKind::ClookLbaSptf => "clook-lba+sptf",
        })
    }
}

impl FromStr for SchedulerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().replace('-', "").as_str() {
            "fcfs" | "fifo" => Ok(SchedulerKind::Fcfs),
            "sstf" => Ok(SchedulerKind::Sstf),
            "clook" => Ok(SchedulerKind::Clook),
            "clooklba" => Ok(SchedulerKind::ClookLba),
            "sptf" | "ncq" => Ok(SchedulerKind::Sptf),
            "clooklba+sptf" => Ok(SchedulerKind::ClookLbaSptf),
            _ => Err(format!("unknown scheduler `{s}`: expected one of fcfs, sstf, clook, clook-lba, sptf, clook-lba+sptf")),
        }
    }
}

#[derive(Default)]
pub struct Fcfs(VecDeque<Waiting>);

impl Scheduler for Fcfs {
    fn push(&mut self, w: Waiting) {
        self.0.push_back(w);
    }
    fn pop(&mut self, _head_key: u64) -> Option<Waiting> {
        self.0.pop_front()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Ordered by (key, seq) so that range queries find the nearest keys.
#[derive(Default)]
pub struct Sstf(BTreeSet<Waiting>);

impl Scheduler for Sstf {
    fn push(&mut self, w: Waiting) {
        self.0.insert(w);
    }
    fn pop(&mut self, head: u64) -> Option<Waiting> {
        let probe = Waiting { key: head, seq: 0, slot: 0 };
        let above = self.0.range(probe..).next().copied();
        // The nearest key below the head; among equal keys the earliest arrival.
        let below = self.0.range(..probe).next_back().map(|w| w.key).and_then(|k| {
            self.0.range(Waiting { key: k, seq: 0, slot: 0 }..).next().copied()
        });
        let pick = match (below, above) {
            (Some(b), Some(a)) => {
                let (db, da) = (head - b.key, a.key - head);
                if db < da || (db == da && b.seq < a.seq) {
                    b
                } else {
                    a
                }
            }
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => return None,
        };
        self.0.remove(&pick);
        Some(pick)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// The position in `ops` of the first of the cheapest by `cost` (an op without an
/// estimate costs nothing extra).
fn cheapest<'a>(ops: impl Iterator<Item = &'a Waiting>, cost: &mut dyn FnMut(&Waiting) -> Option<u64>) -> Option<usize> {
    let mut best: Option<(u64, usize)> = None;
    for (i, w) in ops.enumerate() {
        let c = cost(w).unwrap_or(0);
        if best.is_none_or(|(b, _)| c < b) {
            best = Some((c, i));
        }
        if c == 0 {
            break;
        }
    }
    best.map(|(_, i)| i)
}

/// A drive's command queue behind a host queue `H`: the host's order moves waiting ops
/// into the drive as it has room ([`COMMAND_QUEUE_DEPTH`]), and the drive takes the
/// cheapest it holds, the oldest among equals, unless one has been held longer than
/// [`COMMAND_AGE_LIMIT_NS`]: then the one held longest.
#[derive(Default)]
pub struct CommandQueue<H> {
    host: H,
    /// The host's dispatch position: the key after the last op it sent.
    dispatched_to: u64,
    /// The ops the drive holds, in the order it received them, each with the time it did.
    drive: Vec<(Waiting, u64)>,
    /// The latest time a dispatch was asked for.
    now_ns: u64,
}

/// SPTF: the host sends in arrival order, so the drive chooses among the oldest 32.
pub type Sptf = CommandQueue<Fcfs>;

/// Linux with NCQ: the host's C-LOOK by block address feeds the drive.
pub type ElevatorNcq = CommandQueue<Clook>;

impl<H: Scheduler> CommandQueue<H> {
    fn refill(&mut self) {
        while self.drive.len() < COMMAND_QUEUE_DEPTH {
            let Some(next) = self.host.pop(self.dispatched_to) else { break };
            self.dispatched_to = next.key.saturating_add(1);
            self.drive.push((next, self.now_ns));
        }
    }
}

impl<H: Scheduler> Scheduler for CommandQueue<H> {
    fn push(&mut self, w: Waiting) {
        self.host.push(w);
    }
    /// Without estimates the drive serves in the order the host sent.
    fn pop(&mut self, _head_key: u64) -> Option<Waiting> {
        self.refill();
        (!self.drive.is_empty()).then(|| self.drive.remove(0).0)
    }
    fn pop_by_cost(&mut self, _head_key: u64, now_ns: u64, cost: &mut dyn FnMut(&Waiting) -> Option<u64>) -> Option<Waiting> {
        self.now_ns = self.now_ns.max(now_ns);
        self.refill();
        // Held in the order received, so the first past the limit is the one held longest.
        let aged = self.drive.iter().position(|(_, at)| self.now_ns.saturating_sub(*at) > COMMAND_AGE_LIMIT_NS);
        let i = match aged {
            Some(i) => i,
            None => cheapest(self.drive.iter().map(|(w, _)| w), cost)?,
        };
        Some(self.drive.remove(i).0)
    }
    fn len(&self) -> usize {
        self.host.len() + self.drive.len()
    }
}

#[derive(Default)]
pub struct Clook(BTreeSet<Waiting>);

impl Scheduler for Clook {
    fn push(&mut self, w: Waiting) {
        self.0.insert(w);
    }
    fn pop(&mut self, head: u64) -> Option<Waiting> {
        let probe = Waiting { key: head, seq: 0, slot: 0 };
        let pick = self.0.range(probe..).next().or_else(|| self.0.iter().next()).copied()?;
        self.0.remove(&pick);
        Some(pick)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn w(key: u64, seq: u64) -> Waiting {
        Waiting { key, seq, slot: seq as u32 }
    }

    fn drain(s: &mut dyn Scheduler, mut head: u64) -> Vec<u64> {
        let mut keys = Vec::new();
        while let Some(x) = s.pop(head) {
            head = x.key;
            keys.push(x.key);
        }
        keys
    }

    #[test]
    fn fcfs_keeps_arrival_order() {
        let mut s = Fcfs::default();
        for (i, k) in [50, 10, 90].into_iter().enumerate() {
            s.push(w(k, i as u64));
        }
        assert_eq!(drain(&mut s, 0), vec![50, 10, 90]);
    }

    #[test]
    fn a_command_held_past_the_aging_limit_is_served_next_the_oldest_first() {
        let mut s = Sptf::default();
        for i in 0..3u64 {
            s.push(w(i, i));
        }
        // Key 0 is always the dearest: SPTF alone would leave it for last.
        let mut dear_low = |x: &Waiting| Some(100 - x.key.min(99) + if x.key == 0 { 1000 } else { 0 });
        assert_eq!(s.pop_by_cost(0, 0, &mut dear_low).map(|x| x.key), Some(2));
        s.push(w(7, 3));
        assert_eq!(s.pop_by_cost(0, COMMAND_AGE_LIMIT_NS, &mut dear_low).map(|x| x.key), Some(7), "at the limit, not past it");
        s.push(w(8, 4));
        // Past the limit, the ones received at 0 go first, oldest first; 8 (received just now) waits.
        assert_eq!(s.pop_by_cost(0, COMMAND_AGE_LIMIT_NS + 1, &mut dear_low).map(|x| x.key), Some(0));
        assert_eq!(s.pop_by_cost(0, COMMAND_AGE_LIMIT_NS + 1, &mut dear_low).map(|x| x.key), Some(1));
        assert_eq!(s.pop_by_cost(0, COMMAND_AGE_LIMIT_NS + 1, &mut dear_low).map(|x| x.key), Some(8));
        assert!(s.is_empty());
    }

    #[test]
    fn sptf_takes_the_cheapest_of_the_oldest_thirty_two() {
        let mut s = Sptf::default();
        for i in 0..40u64 {
            s.push(w(i, i));
        }
        // Cost falls with the key, so the cheapest of the first 32 is key 31 (keys 32..40
        // are cheaper but not yet in the drive's queue); equal costs go to the oldest.
        let mut by_key = |x: &Waiting| Some(100 - x.key);
        assert_eq!(s.pop_by_cost(0, 0, &mut by_key).map(|x| x.key), Some(31));
        let mut flat = |_: &Waiting| Some(5);
        assert_eq!(s.pop_by_cost(0, 0, &mut flat).map(|x| x.key), Some(0));
        // Without estimates it is FCFS.
        let mut none = |_: &Waiting| None;
        assert_eq!(s.pop_by_cost(0, 0, &mut none).map(|x| x.key), Some(1));
        assert_eq!(s.pop(0).map(|x| x.key), Some(2));
        assert_eq!(s.len(), 36);
    }

    #[test]
    fn an_elevator_feeds_the_drive_in_its_order_and_the_drive_takes_the_cheapest() {
        let mut s = ElevatorNcq::default();
        // 40 ops, keys given out of order; the host sends keys 0..32 (C-LOOK from 0).
        for i in 0..40u64 {
            s.push(w((i * 7) % 40, i));
        }
        let mut cheap_high = |x: &Waiting| Some(100 - x.key);
        assert_eq!(s.pop_by_cost(0, 0, &mut cheap_high).map(|x| x.key), Some(31), "key 31 is the cheapest the drive holds");
        // Room for one more: the host sends key 32 next, which is now the cheapest held.
        assert_eq!(s.pop_by_cost(0, 0, &mut cheap_high).map(|x| x.key), Some(32));
        // Without estimates: the oldest the drive holds, in the order the host sent.
        assert_eq!(s.pop(0).map(|x| x.key), Some(0));
        assert_eq!(s.len(), 37);
        let mut rest: Vec<u64> = std::iter::from_fn(|| s.pop(0).map(|x| x.key)).collect();
        rest.sort_unstable();
        assert_eq!(rest, (1..31).chain(33..40).collect::<Vec<_>>());
    }

    #[test]
    fn sstf_goes_to_nearest() {
        let mut s = Sstf::default();
        for (i, k) in [50, 10, 95, 45].into_iter().enumerate() {
            s.push(w(k, i as u64));
        }
        assert_eq!(drain(&mut s, 40), vec![45, 50, 10, 95]);
    }

    #[test]
    fn sstf_tie_goes_to_earlier_arrival() {
        let mut s = Sstf::default();
        s.push(w(60, 1));
        s.push(w(40, 2));
        assert_eq!(s.pop(50).map(|x| x.key), Some(60));
    }

    #[test]
    fn clook_sweeps_up_then_wraps() {
        let mut s = Clook::default();
        for (i, k) in [50, 10, 90, 45].into_iter().enumerate() {
            s.push(w(k, i as u64));
        }
        assert_eq!(drain(&mut s, 47), vec![50, 90, 10, 45]);
    }

    proptest! {
        /// No request is lost or duplicated by any scheduler.
        #[test]
        fn every_scheduler_returns_each_op_once(keys in proptest::collection::vec(0u64..1000, 0..200), head in 0u64..1000) {
            for kind in SchedulerKind::ALL {
                let mut s = kind.build();
                for (i, k) in keys.iter().enumerate() {
                    s.push(w(*k, i as u64));
                }
                let mut seen: Vec<u32> = Vec::new();
                let mut h = head;
                // Alternate plain pops with pops by an arbitrary cost (some ops without one).
                let mut cost = |w: &Waiting| (w.key % 7 != 3).then_some(w.key.wrapping_mul(2_654_435_761) % 1000);
                while let Some(x) = if seen.len().is_multiple_of(2) { s.pop(h) } else { s.pop_by_cost(h, 0, &mut cost) } {
                    h = x.key;
                    seen.push(x.slot);
                }
                seen.sort_unstable();
                prop_assert_eq!(seen, (0..keys.len() as u32).collect::<Vec<_>>());
                prop_assert!(s.is_empty());
            }
        }
    }
}
