//! The pieces of a media pass: where the heads are, each track's chunk of a transfer with
//! the times its blocks reach the buffer, and the bus transfer pipelined behind them.

/// Position of the head stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Head {
    pub cylinder: u32,
    pub surface: u32,
}

/// Blocks read one after another: the first is complete at `first_ns`, the last at
/// `last_ns`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Run {
    pub blocks: u64,
    pub first_ns: f64,
    pub last_ns: f64,
}

/// One track's part of a media pass.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    /// First logical block of the chunk and number of blocks.
    pub lbn: u64,
    pub blocks: u64,
    /// When positioning for this chunk began.
    pub begin_ns: f64,
    /// When positioning (seek, head switch, settle) for this chunk ended.
    pub arrive_ns: f64,
    /// When its blocks are in the buffer (or on the media), as runs in logical order, each
    /// read at the track's sector rate.
    pub runs: [Run; 2],
    /// When the head leaves the chunk.
    pub end_ns: f64,
    /// Time per sector on this track.
    pub sector_ns: f64,
    /// Sectors of this track just before the chunk (logically preceding it) that passed
    /// whole under the head while it waited for the chunk.
    pub passed_before: u64,
    pub head: Head,
}

/// The bus transfer of a read, pipelined behind the media: each sector goes to the host
/// after it is in the buffer and after the sector before it. `b = max(b + k·bus,
/// first + k·bus, last + bus)` per chunk is exact for sectors arriving at a steady rate;
/// the part independent of the start is tracked so the start can be decided last.
pub(crate) struct BusPipe {
    per_ns: f64,
    independent_ns: f64,
    /// Sectors fed so far.
    pub sectors: u64,
    water: u64,
    /// When the `water`-th sector from the media was in the buffer.
    pub water_ns: f64,
}

impl BusPipe {
    pub fn new(per_ns: f64, water: u64) -> BusPipe {
        BusPipe { per_ns, independent_ns: f64::NEG_INFINITY, sectors: 0, water, water_ns: f64::NEG_INFINITY }
    }

    /// Feed one chunk's runs, in logical order, skipping its first `skip` blocks.
    pub fn chunk(&mut self, c: &Chunk, skip: u64) {
        let mut skip = skip;
        for r in c.runs {
            let s = skip.min(r.blocks);
            skip -= s;
            if r.blocks > s {
                self.run(r.blocks - s, r.first_ns + s as f64 * c.sector_ns, r.last_ns, c.sector_ns);
            }
        }
    }

    fn run(&mut self, k: u64, first_ns: f64, last_ns: f64, sector_ns: f64) {
        let kf = k as f64;
        self.independent_ns = (self.independent_ns + kf * self.per_ns).max(first_ns + kf * self.per_ns).max(last_ns + self.per_ns);
        if self.sectors < self.water && self.sectors + k >= self.water {
            let idx = (self.water - self.sectors - 1) as f64;
            self.water_ns = (first_ns + idx * sector_ns).min(last_ns);
        }
        self.sectors += k;
    }

    /// When the last sector has crossed the bus, if the transfer may start at `start_ns`.
    pub fn finish(&self, start_ns: f64) -> f64 {
        self.independent_ns.max(start_ns + self.sectors as f64 * self.per_ns)
    }
}

/// Time components accumulated over a media pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PassTimes {
    pub seek_ns: f64,
    pub rotate_ns: f64,
    pub transfer_ns: f64,
}

