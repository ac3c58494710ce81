//! Between the host and the NAND: the host link (one serial channel that every command's
//! protocol exchange and data cross, in the order the drive takes them) and the
//! controller's command rate.

use crate::spec::{link_transfer_ns, HostSpec};
use tierlab_types::{Op, NS_PER_S};

/// The host link's timeline.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    bytes_per_s: u64,
    command_ns: u64,
    /// When what is booked on the link ends.
    free_ns: u64,
}

impl Link {
    pub(crate) fn new(bytes_per_s: u64, command_ns: u64) -> Link {
        Link { bytes_per_s: bytes_per_s.max(1), command_ns, free_ns: 0 }
    }

    pub(crate) fn of(host: &HostSpec) -> Link {
        Link::new(host.link_bytes_per_s, host.command_ns)
    }

    /// Time `bytes` of data take on the link.
    pub(crate) fn transfer_ns(&self, bytes: u64) -> u64 {
        link_transfer_ns(bytes, self.bytes_per_s)
    }

    /// A command whose `bytes` of data are ready at `ready_ns` (a write's, from the host):
    /// returns when its exchange and data have crossed, after what is booked before it.
    pub(crate) fn send(&mut self, ready_ns: u64, bytes: u64) -> u64 {
        let start = ready_ns.max(self.free_ns);
        self.free_ns = start.saturating_add(self.command_ns).saturating_add(self.transfer_ns(bytes));
        self.free_ns
    }

    /// A read issued at `issued_ns` whose `bytes` the flash delivers until `last_ns`,
    /// streamed out as they come: it takes the link's time for its exchange and all its
    /// data after what is booked before it, and ends no earlier than its exchange (the
    /// data frames' setup and the status come once data are ready) and its last
    /// `tail_bytes` can cross after `last_ns`. Returns when the data are at the host.
    pub(crate) fn stream(&mut self, issued_ns: u64, last_ns: u64, bytes: u64, tail_bytes: u64) -> u64 {
        let booked = self.send(issued_ns, bytes);
        let end = booked.max(last_ns.saturating_add(self.command_ns).saturating_add(self.transfer_ns(tail_bytes)));
        self.free_ns = end;
        end
    }

    /// Restart the clock for a new measurement.
    pub(crate) fn restart(&mut self) {
        self.free_ns = 0;
    }
}

/// The controller's command rate: each command holds it `10⁹ / iops` ns for its kind,
/// commands in the order the drive takes them. Throughput, not latency: a command that
/// finds it free starts at once.
#[derive(Clone, Debug, Default)]
pub(crate) struct Commands {
    read_ns: u64,
    write_ns: u64,
    free_ns: u64,
}

impl Commands {
    pub(crate) fn of(host: &HostSpec) -> Commands {
        let interval = |iops: Option<u64>| iops.map_or(0, |n| NS_PER_S.div_ceil(n.max(1)));
        Commands { read_ns: interval(host.read_iops), write_ns: interval(host.write_iops), free_ns: 0 }
    }

    /// When a command of kind `op` arriving at `now_ns` starts.
    pub(crate) fn start(&mut self, now_ns: u64, op: Op) -> u64 {
        let interval = if op == Op::Read { self.read_ns } else { self.write_ns };
        if interval == 0 {
            return now_ns;
        }
        let start = now_ns.max(self.free_ns);
        self.free_ns = start.saturating_add(interval);
        start
    }

    pub(crate) fn restart(&mut self) {
        self.free_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_carries_one_thing_at_a_time() {
        // 300 MB/s, 1 µs a command: 4 KiB take 13,654 ns.
        let mut l = Link::new(300_000_000, 1_000);
        assert_eq!(l.send(0, 4096), 14_654);
        assert_eq!(l.send(0, 4096), 2 * 14_654);
        // A read whose data come late ends a tail after them.
        assert_eq!(l.stream(100_000, 200_000, 4096, 4096), 214_654);
        // One whose data come early waits for the link.
        assert_eq!(l.stream(100_000, 100_000, 4096, 4096), 214_654 + 14_654);
    }

    #[test]
    fn commands_start_no_faster_than_the_rate() {
        let mut c = Commands::of(&HostSpec { link_bytes_per_s: 1_000_000, command_ns: 0, read_iops: Some(40_000), write_iops: None });
        assert_eq!((c.start(0, Op::Read), c.start(0, Op::Read), c.start(0, Op::Read)), (0, 25_000, 50_000));
        assert_eq!(c.start(0, Op::Write), 0, "no write limit");
        assert_eq!(c.start(1_000_000, Op::Read), 1_000_000, "an idle controller adds no latency");
    }
}
