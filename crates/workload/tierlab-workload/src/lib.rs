//! A run's workload ([`Workload`]): a trace file, or a synthetic workload for the
//! patterns the storage research uses, deterministic from a seed: the same
//! [`WorkloadSpec`] always yields the same requests, byte for byte.
//!
//! A generator is an iterator of [`IoRequest`]s; it holds O(streams) state, never the
//! requests it made.

mod looped;
mod source;
mod zipf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tierlab_types::{IoRequest, Op, NS_PER_S};
pub use looped::{pass_length_ns, Looped};
pub use source::{open_trace, pass_of, pass_seconds, Workload};
pub use zipf::Zipf;

/// A synthetic workload, as written in a TOML `[workload]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default)]
    pub seed: u64,
    /// How many requests to generate.
    pub requests: u64,
    /// Size of the address space the requests fall in.
    pub span_bytes: u64,
    /// Every offset is a multiple of this (and sizes of at least this much are too).
    #[serde(default = "default_align")]
    pub align_bytes: u64,
    /// Share of requests that are reads, 0..=1.
    pub read_fraction: f64,
    pub address: AddressDist,
    pub size: SizeDist,
    pub arrival: Arrival,
    #[serde(default)]
    pub volume: u32,
    /// The parts of a hot/cold or JESD219 address mix, and the ranks of a Zipf mix that is
    /// not scrambled, are laid out in regions of this many bytes, scattered over the span
    /// by a fixed permutation, so that the hot part lines up with no design's layout (a
    /// linear drive's SSD is the start of the space, say) while popular blocks stay
    /// together within a region. 0 keeps each part contiguous, the hottest first.
    /// Default 16 MiB.
    #[serde(default = "default_hot_region")]
    pub hot_region_bytes: u64,
}

fn default_name() -> String {
    "synthetic".into()
}
fn default_align() -> u64 {
    4096
}
/// The default region of a scattered address mix: 16 MiB, larger than any extent a hybrid
/// drive uses (at most 1 MiB), so extents are wholly hot or cold as in the contiguous mix.
pub const DEFAULT_HOT_REGION_BYTES: u64 = 16 << 20;
fn default_hot_region() -> u64 {
    DEFAULT_HOT_REGION_BYTES
}

/// Where requests fall in the address space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum AddressDist {
    Uniform,
    /// Zipf over aligned blocks with exponent `theta` (0 < theta, ≠ 1 handled too); the
    /// popular blocks are scattered over the space one by one, or with `scramble = false`
    /// kept in rank order within regions of `hot_region_bytes` that are scattered.
    Zipf {
        theta: f64,
        #[serde(default = "yes")]
        scramble: bool,
    },
    /// `hot_access_fraction` of accesses go to the first `hot_space_fraction` of the
    /// space (the "x % of accesses to y % of the space" pattern), uniformly within each part.
    HotCold { hot_access_fraction: f64, hot_space_fraction: f64 },
    /// JESD219's enterprise address mix: 50 % of accesses to the first 5 % of the space,
    /// 30 % to the next 15 %, 20 % to the remaining 80 %.
    Jesd219,
    /// `streams` sequential streams, each starting at a random aligned offset and running
    /// on; a request picks a stream uniformly. A stream that reaches the end restarts.
    Sequential {
        #[serde(default = "one")]
        streams: u32,
    },
}

fn yes() -> bool {
    true
}
fn one() -> u32 {
    1
}

/// How large requests are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed { bytes: u64 },
    /// Each `(bytes, weight)` pair chosen with probability weight / Σ weights.
    Choice { sizes: Vec<(u64, f64)> },
    /// The JEDEC JESD219 enterprise transfer-size mix (512 B 4 %, 1–3.5 KiB 1 % each,
    /// 4 KiB 67 %, 8 KiB 10 %, 16 KiB 7 %, 32 KiB 3 %, 64 KiB 3 %).
    Jesd219,
}

/// JESD219 (JEDEC, "Solid State Drive (SSD) Endurance Workloads", 2010), the enterprise
/// workload's transfer-size distribution: (bytes, percent).
pub const JESD219_SIZES: [(u64, f64); 12] = [
    (512, 4.0),
    (1024, 1.0),
    (1536, 1.0),
    (2048, 1.0),
    (2560, 1.0),
    (3072, 1.0),
    (3584, 1.0),
    (4096, 67.0),
    (8192, 10.0),
    (16384, 7.0),
    (32768, 3.0),
    (65536, 3.0),
];

/// When requests arrive (open loop). A closed-loop replay ignores these times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Arrival {
    /// Poisson process: exponential inter-arrival times with mean 1/iops.
    Poisson { iops: f64 },
    /// One request every 1/iops seconds exactly.
    Fixed { iops: f64 },
    /// All at time 0: for closed-loop replay, where the next request is issued when one completes.
    Back2back,
}

/// A spec that cannot generate a workload, with the key at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub key: &'static str,
    pub expected: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "workload key `{}`: expected {}", self.key, self.expected)
    }
}
impl std::error::Error for SpecError {}

fn check(ok: bool, key: &'static str, expected: &str) -> Result<(), SpecError> {
    if ok {
        Ok(())
    } else {
        Err(SpecError { key, expected: expected.to_string() })
    }
}

fn fraction(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

impl WorkloadSpec {
    /// The bundled default workload of `tierlab`'s main job: an OLTP-like mix on 100 GiB —
    /// 90 % of accesses to 10 % of the space (in 16 MiB regions scattered over it), JESD219
    /// sizes, 60 % reads, Poisson arrivals at 80 IOPS (a load a single 7,200 RPM disk
    /// serves with queueing but also idle gaps).
    pub fn bundled_default() -> Self {
        WorkloadSpec {
            name: "default-oltp".into(),
            seed: 42,
            requests: 20_000,
            span_bytes: 100 * tierlab_types::GIB,
            align_bytes: 4096,
            read_fraction: 0.6,
            address: AddressDist::HotCold { hot_access_fraction: 0.9, hot_space_fraction: 0.1 },
            size: SizeDist::Jesd219,
            arrival: Arrival::Poisson { iops: 80.0 },
            volume: 0,
            hot_region_bytes: DEFAULT_HOT_REGION_BYTES,
        }
    }

    pub fn validate(&self) -> Result<(), SpecError> {
        check(self.align_bytes > 0 && self.align_bytes.is_multiple_of(512), "align_bytes", "a positive multiple of 512")?;
        check(self.span_bytes >= self.align_bytes, "span_bytes", "at least align_bytes")?;
        check(self.hot_region_bytes.is_multiple_of(self.align_bytes), "hot_region_bytes", "0 or a multiple of align_bytes")?;
        check(fraction(self.read_fraction), "read_fraction", "a number from 0 to 1")?;
        match &self.address {
            AddressDist::Zipf { theta, .. } => check(theta.is_finite() && *theta > 0.0, "address.theta", "a positive number")?,
            AddressDist::HotCold { hot_access_fraction, hot_space_fraction } => {
                check(fraction(*hot_access_fraction), "address.hot_access_fraction", "a number from 0 to 1")?;
                check(
                    *hot_space_fraction > 0.0 && *hot_space_fraction < 1.0,
                    "address.hot_space_fraction",
                    "a number strictly between 0 and 1",
                )?;
            }
            AddressDist::Sequential { streams } => check(*streams > 0, "address.streams", "at least 1")?,
            AddressDist::Uniform | AddressDist::Jesd219 => {}
        }
        let max_size = match &self.size {
            SizeDist::Fixed { bytes } => {
                check(*bytes > 0, "size.bytes", "a positive number of bytes")?;
                *bytes
            }
            SizeDist::Choice { sizes } => {
                check(!sizes.is_empty(), "size.sizes", "at least one (bytes, weight) pair")?;
                check(sizes.iter().all(|(b, _)| *b > 0), "size.sizes", "positive sizes")?;
                check(sizes.iter().all(|(_, w)| w.is_finite() && *w >= 0.0), "size.sizes", "non-negative weights")?;
                check(sizes.iter().map(|(_, w)| w).sum::<f64>() > 0.0, "size.sizes", "weights that add up to more than 0")?;
                sizes.iter().map(|(b, _)| *b).max().unwrap_or(0)
            }
            SizeDist::Jesd219 => 65536,
        };
        check(max_size <= self.span_bytes, "size", "requests no larger than span_bytes")?;
        match self.arrival {
            Arrival::Poisson { iops } | Arrival::Fixed { iops } => {
                check(iops.is_finite() && iops > 0.0, "arrival.iops", "a positive rate")?
            }
            Arrival::Back2back => {}
        }
        Ok(())
    }

    /// A generator of this workload's requests.
    pub fn generate(&self) -> Result<Generator, SpecError> {
        self.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let blocks = self.span_bytes / self.align_bytes;
        let address = match &self.address {
            AddressDist::Uniform => Addr::Uniform,
            AddressDist::Zipf { theta, scramble } => Addr::Zipf(Zipf::new(blocks, *theta), *scramble),
            AddressDist::HotCold { hot_access_fraction, hot_space_fraction } => Addr::Tiers(vec![
                (*hot_access_fraction, 0.0, *hot_space_fraction),
                (1.0 - hot_access_fraction, *hot_space_fraction, 1.0),
            ]),
            AddressDist::Jesd219 => Addr::Tiers(vec![(0.5, 0.0, 0.05), (0.3, 0.05, 0.20), (0.2, 0.20, 1.0)]),
            AddressDist::Sequential { streams } => {
                Addr::Streams((0..*streams).map(|_| rng.gen_range(0..blocks) * self.align_bytes).collect())
            }
        };
        let sizes: Vec<(u64, f64)> = match &self.size {
            SizeDist::Fixed { bytes } => vec![(*bytes, 1.0)],
            SizeDist::Choice { sizes } => sizes.clone(),
            SizeDist::Jesd219 => JESD219_SIZES.to_vec(),
        };
        let total: f64 = sizes.iter().map(|(_, w)| w).sum();
        let mut acc = 0.0;
        let size_cdf = sizes
            .iter()
            .map(|(b, w)| {
                acc += w / total;
                (acc, *b)
            })
            .collect();
        let region_blocks = self.hot_region_bytes / self.align_bytes;
        let regions = blocks.checked_div(region_blocks).unwrap_or(0);
        Ok(Generator { spec: self.clone(), rng, blocks, region_blocks, regions, address, size_cdf, emitted: 0, clock_ns: 0.0, timed: true })
    }
}

enum Addr {
    Uniform,
    Zipf(Zipf, bool),
    /// (share of accesses, start, end) as fractions of the space.
    Tiers(Vec<(f64, f64, f64)>),
    /// Next offset of each stream.
    Streams(Vec<u64>),
}

/// Iterator over a workload's requests.
pub struct Generator {
    spec: WorkloadSpec,
    rng: ChaCha8Rng,
    blocks: u64,
    address: Addr,
    /// Blocks per scattered region of a tiered address mix (0: not scattered).
    region_blocks: u64,
    /// Whole regions in the space (`blocks / region_blocks`; 0 when not scattered).
    regions: u64,
    /// Cumulative probability → size in bytes.
    size_cdf: Vec<(f64, u64)>,
    emitted: u64,
    clock_ns: f64,
    /// Whether requests carry their arrival times (see [`Generator::untimed`]).
    timed: bool,
}

/// A bijection on [0, n) that scatters consecutive ranks (popular Zipf items) over the
/// space: an odd-multiplier mix on the enclosing power of two, cycle-walked into range.
fn scatter(rank: u64, n: u64) -> u64 {
    let bits = 64 - (n.max(2) - 1).leading_zeros();
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let mut x = rank;
    loop {
        // Each step is a bijection on [0, 2^bits): xor-shift then multiply by an odd constant.
        x ^= x >> (bits / 2).max(1);
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        x ^= x >> (bits / 3).max(1);
        if x < n {
            return x;
        }
    }
}

/// `block`'s place once the first `regions` whole regions of `region_blocks` are
/// scattered among themselves (a partial last region stays where it is; fewer than two
/// regions: no change).
fn scatter_regions(block: u64, regions: u64, region_blocks: u64) -> u64 {
    if regions >= 2 && block < regions * region_blocks {
        // (A power of two, as region sizes are, divides with a shift.)
        if region_blocks.is_power_of_two() {
            let sh = region_blocks.trailing_zeros();
            (scatter(block >> sh, regions) << sh) | (block & (region_blocks - 1))
        } else {
            scatter(block / region_blocks, regions) * region_blocks + block % region_blocks
        }
    } else {
        block
    }
}

impl Generator {
    fn pick_size(&mut self) -> u64 {
        let u: f64 = self.rng.gen();
        self.size_cdf.iter().find(|(c, _)| u < *c).or(self.size_cdf.last()).map(|(_, b)| *b).unwrap_or(4096)
    }

    fn pick_offset(&mut self, len_bytes: u64) -> u64 {
        let align = self.spec.align_bytes;
        let blocks = self.blocks;
        let block = match &mut self.address {
            Addr::Uniform => self.rng.gen_range(0..blocks),
            Addr::Zipf(z, scramble) => {
                let rank = z.sample(&mut self.rng);
                if *scramble {
                    scatter(rank, blocks)
                } else {
                    // Ranks in address order, in regions scattered as a tiered mix's.
                    scatter_regions(rank, self.regions, self.region_blocks)
                }
            }
            Addr::Tiers(tiers) => {
                let u: f64 = self.rng.gen();
                let mut acc = 0.0;
                let mut chosen = tiers[tiers.len() - 1];
                for t in tiers.iter() {
                    acc += t.0;
                    if u < acc {
                        chosen = *t;
                        break;
                    }
                }
                let lo = (chosen.1 * blocks as f64) as u64;
                let hi = ((chosen.2 * blocks as f64) as u64).clamp(lo + 1, blocks);
                scatter_regions(self.rng.gen_range(lo..hi), self.regions, self.region_blocks)
            }
            Addr::Streams(next) => {
                let i = self.rng.gen_range(0..next.len());
                let mut off = next[i];
                if off + len_bytes > self.spec.span_bytes {
                    off = 0;
                }
                next[i] = off + len_bytes.div_ceil(align) * align;
                return off;
            }
        };
        // Keep the whole request inside the space.
        let off = block * align;
        let off = off.min(self.spec.span_bytes - len_bytes);
        // (A power of two, as alignments are, rounds down with a mask, not a division.)
        if align.is_power_of_two() {
            off & !(align - 1)
        } else {
            off / align * align
        }
    }

    /// The same requests without their arrival times (every `time_ns` is 0), for a
    /// caller that needs only where they go: the random draws are the same, so the
    /// addresses, sizes and operations are those of the timed generator, and the time
    /// arithmetic (a logarithm a request under Poisson arrivals) is skipped.
    pub fn untimed(mut self) -> Self {
        self.timed = false;
        self
    }

    fn next_time_ns(&mut self) -> u64 {
        if !self.timed {
            if let Arrival::Poisson { .. } = self.spec.arrival {
                let _: f64 = self.rng.gen();
            }
            return 0;
        }
        let t = self.clock_ns as u64;
        match self.spec.arrival {
            Arrival::Poisson { iops } => {
                let u: f64 = self.rng.gen();
                // Inverse CDF of the exponential; 1-u is in (0, 1].
                self.clock_ns += -(1.0 - u).ln() / iops * NS_PER_S as f64;
            }
            Arrival::Fixed { iops } => self.clock_ns += NS_PER_S as f64 / iops,
            Arrival::Back2back => {}
        }
        t
    }
}

impl Iterator for Generator {
    type Item = Result<IoRequest, std::convert::Infallible>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.emitted >= self.spec.requests {
            return None;
        }
        self.emitted += 1;
        let time_ns = self.next_time_ns();
        let op = if self.rng.gen::<f64>() < self.spec.read_fraction { Op::Read } else { Op::Write };
        let len_bytes = self.pick_size();
        let offset_bytes = self.pick_offset(len_bytes);
        Some(Ok(IoRequest { time_ns, volume: self.spec.volume, offset_bytes, len_bytes, op }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.spec.requests - self.emitted) as usize;
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests;
