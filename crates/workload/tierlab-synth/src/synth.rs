//! The request stream: an iterator of [`IoRequest`]s in time order, carrying out a
//! [`Plan`] in constant memory.
//!
//! - **Layout.** Record `L(i)` is hot for `i` below the hot count and cold above, `L` an
//!   affine permutation of the footprint's records that keeps the highest record last
//!   (cold whenever anything is), so hot records are scattered over the address space.
//! - **Visits.** Hot and cold records are each visited in the order of their own affine
//!   permutation, starting from the highest record; hot bursts and cold requests are
//!   interleaved uniformly at random with exact counts (selection sampling), as are
//!   reads among requests and sequential requests among burst follow-ups.
//! - **Time.** Arrivals are the order statistics of a Poisson process given its count
//!   (uniform spacings generated in order), mapped through the raised-rate regions. A
//!   burst's second request is held inside the aligned second of its first, so the
//!   record is hot by the classifier's one-second rule whatever the rate.
//! - **Sizes and offsets.** Lengths come from [`crate::sizes`]; every request lies
//!   inside one record, so it counts on that record alone; a request that is not meant to
//!   be sequential never starts where the previous one ended.

use crate::perm::Affine;
use crate::plan::{Plan, SynthOptions};
use crate::rate::RateRegions;
use crate::sizes::SizeLaw;
use crate::stats::{WorkloadStats, RECORD_BYTES};
use crate::SynthError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tierlab_types::{IoRequest, Op, NS_PER_S, SECTOR_BYTES};

const RECORD_SECTORS: u64 = RECORD_BYTES / SECTOR_BYTES;

/// A synthesised request stream (see the module docs).
#[derive(Clone, Debug)]
pub struct Synth {
    plan: Plan,
    rng: ChaCha8Rng,
    layout: Affine,
    hot_order: Affine,
    cold_order: Affine,
    sizes: SizeLaw,
    arrivals: Arrivals,
    /// Requests, reads, bursts, cold requests, follow-ups and sequential requests still
    /// to come.
    requests_left: u64,
    reads_left: u64,
    bursts_left: u64,
    cold_left: u64,
    followups_left: u64,
    sequential_left: u64,
    hot_visits: u64,
    cold_visits: u64,
    /// The burst under way: its record, the requests still to come, its first second and
    /// how many requests it has had.
    burst_record: u64,
    burst_left: u64,
    burst_second: u64,
    burst_done: u64,
    /// Cold requests in `cold_second` (only counted when cold records are revisited).
    cold_second: u64,
    cold_in_second: u64,
    /// End of the previous request, bytes; its time; the earliest time still allowed.
    prev_end: Option<u64>,
    last_ns: u64,
    floor_ns: u64,
}

#[derive(Clone, Debug)]
struct Arrivals {
    left: u64,
    /// The previous arrival as a fraction of the stream's base-rate seconds.
    x: f64,
    operational_s: f64,
    rate: Option<RateRegions>,
    duration_ns: u64,
}

impl Arrivals {
    fn next(&mut self, rng: &mut ChaCha8Rng) -> u64 {
        let v = 1.0 - rng.gen::<f64>();
        // The minimum of `left` uniforms on (x, 1): the next order statistic.
        self.x = 1.0 - (1.0 - self.x) * v.powf(1.0 / self.left.max(1) as f64);
        self.left = self.left.saturating_sub(1);
        let u = self.x.clamp(0.0, 1.0) * self.operational_s;
        let t_s = self.rate.as_ref().map_or(u, |r| r.time_at(u));
        ((t_s * NS_PER_S as f64) as u64).min(self.duration_ns.saturating_sub(1))
    }
}

/// `true` with probability `k / n` (never when `n` is 0).
fn pick(rng: &mut ChaCha8Rng, k: u64, n: u64) -> bool {
    n > 0 && rng.gen_range(0..n) < k
}

impl Synth {
    /// The stream for `stats` with `options`; it is made whatever the plan's shortfalls
    /// ([`Synth::plan`] lists them).
    pub fn new(stats: &WorkloadStats, options: &SynthOptions) -> Result<Synth, SynthError> {
        let plan = Plan::new(stats, options)?;
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let (n, nh, nc) = (plan.records, plan.hot_records, plan.cold_records);
        let layout = Affine::random(n, &mut rng, n - 1, n - 1);
        let hot_order = Affine::random(nh, &mut rng, 0, nh.saturating_sub(1));
        let cold_order = Affine::random(nc, &mut rng, 0, nc.saturating_sub(1));
        let duration_ns = (stats.duration_s * NS_PER_S as f64) as u64;
        Ok(Synth {
            rng,
            layout,
            hot_order,
            cold_order,
            sizes: SizeLaw::with_mean(
                stats.request_kb * 1024.0 / SECTOR_BYTES as f64,
                RECORD_SECTORS,
            ),
            arrivals: Arrivals {
                left: plan.requests,
                x: 0.0,
                operational_s: stats.operational_s(),
                rate: stats.rate.clone(),
                duration_ns,
            },
            requests_left: plan.requests,
            reads_left: plan.read_requests,
            bursts_left: plan.hot_bursts,
            cold_left: plan.cold_requests,
            followups_left: plan.hot_requests - plan.hot_bursts,
            sequential_left: plan.sequential_requests,
            hot_visits: 0,
            cold_visits: 0,
            burst_record: 0,
            burst_left: 0,
            burst_second: 0,
            burst_done: 0,
            cold_second: 0,
            cold_in_second: 0,
            prev_end: None,
            last_ns: 0,
            floor_ns: 0,
            plan,
        })
    }

    /// How the stream spends its requests, and the targets it cannot meet.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Length of burst `j` of the plan's bursts: the hot requests spread evenly.
    fn burst_len(&self, j: u64) -> u64 {
        let (h, v) = (
            u128::from(self.plan.hot_requests),
            u128::from(self.plan.hot_bursts),
        );
        let j = u128::from(j);
        ((j + 1) * h / v - j * h / v) as u64
    }

    /// A sector offset for `len` sectors inside a record, uniform over `0..=hi`, never
    /// starting at `avoid` (the previous request's end, as a sector of this record).
    fn offset(&mut self, len: u64, hi: u64, avoid: Option<u64>) -> u64 {
        let hi = hi.min(RECORD_SECTORS - len);
        let o = self.rng.gen_range(0..=hi);
        match avoid {
            Some(a) if a == o => {
                if o < RECORD_SECTORS - len {
                    o + 1
                } else {
                    o.saturating_sub(1)
                }
            }
            _ => o,
        }
    }
}

impl Iterator for Synth {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.requests_left == 0 {
            return None;
        }
        let mut t = self
            .arrivals
            .next(&mut self.rng)
            .max(self.last_ns)
            .max(self.floor_ns);
        let len = self.sizes.sample(self.rng.gen::<f64>());
        let record;
        let sector;
        let in_record = |record: u64, prev_end: Option<u64>| {
            prev_end.and_then(|e| {
                let base = record * RECORD_BYTES;
                (e >= base && e <= base + RECORD_BYTES).then(|| (e - base) / SECTOR_BYTES)
            })
        };
        if self.burst_left > 0 {
            // A follow-up in the burst under way.
            record = self.burst_record;
            if self.burst_done == 1 {
                t = t.min((self.burst_second + 1) * NS_PER_S - 1);
            }
            let prev = in_record(record, self.prev_end);
            let sequential = pick(&mut self.rng, self.sequential_left, self.followups_left);
            self.followups_left -= 1;
            sector = match prev {
                Some(p) if sequential && p + len <= RECORD_SECTORS => {
                    self.sequential_left -= 1;
                    p
                }
                _ => self.offset(len, RECORD_SECTORS, prev),
            };
            self.burst_left -= 1;
            self.burst_done += 1;
        } else if pick(
            &mut self.rng,
            self.bursts_left,
            self.bursts_left + self.cold_left,
        ) {
            // The first request of a burst on the next hot record.
            let j = self.plan.hot_bursts - self.bursts_left;
            self.bursts_left -= 1;
            let visit = self.hot_visits % self.plan.hot_records.max(1);
            self.hot_visits += 1;
            record = self.layout.apply(self.hot_order.apply(visit));
            self.burst_left = self.burst_len(j).saturating_sub(1);
            self.burst_done = 1;
            self.burst_second = t / NS_PER_S;
            self.burst_record = record;
            // Leave room for a sequential run in the rest of the record.
            let hi = if self.sequential_left > 0 {
                RECORD_SECTORS / 2
            } else {
                RECORD_SECTORS
            };
            let prev = in_record(record, self.prev_end);
            sector = self.offset(len, hi, prev);
        } else {
            // A cold record, at most once per second.
            self.cold_left = self.cold_left.saturating_sub(1);
            let nc = self.plan.cold_records.max(1);
            if self.plan.cold_requests > self.plan.cold_records {
                let second = t / NS_PER_S;
                if second != self.cold_second {
                    self.cold_second = second;
                    self.cold_in_second = 0;
                }
                if self.cold_in_second >= nc {
                    self.cold_second = second + 1;
                    self.cold_in_second = 0;
                    t = self.cold_second * NS_PER_S;
                    self.floor_ns = t;
                }
                self.cold_in_second += 1;
            }
            let visit = self.cold_visits % nc;
            self.cold_visits += 1;
            record = self
                .layout
                .apply(self.plan.hot_records + self.cold_order.apply(visit));
            let prev = in_record(record, self.prev_end);
            sector = self.offset(len, RECORD_SECTORS, prev);
        }
        let op = if pick(&mut self.rng, self.reads_left, self.requests_left) {
            self.reads_left -= 1;
            Op::Read
        } else {
            Op::Write
        };
        self.requests_left -= 1;
        let offset_bytes = record * RECORD_BYTES + sector * SECTOR_BYTES;
        let len_bytes = len * SECTOR_BYTES;
        self.prev_end = Some(offset_bytes + len_bytes);
        self.last_ns = t;
        Some(IoRequest {
            time_ns: t,
            volume: 0,
            offset_bytes,
            len_bytes,
            op,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.requests_left).unwrap_or(usize::MAX);
        (n, usize::try_from(self.requests_left).ok())
    }
}
