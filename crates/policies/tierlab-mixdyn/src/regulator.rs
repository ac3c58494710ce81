//! The burst detector behind the write regulator and adaptive wear leveling.
//!
//! The SSD's lifetime budget is a write rate: the SSD's bytes × its rated erase cycles,
//! spread over the lifetime target, divided by the write amplification assumed (1 by
//! default, as the research's lifetime equation has none). The detector counts the bytes
//! the policy sends to the SSD in per-slice buckets over a sliding window (`window_ns`,
//! 60 slices) and divides by the whole window, so the rate is never overstated while the
//! first window fills. When the rate has stayed above the budget for `sustain_ns` without
//! a break, the detector is engaged; it disengages as soon as the rate is back within the
//! budget.

const SLICES: u64 = 60;

pub(crate) struct Detector {
    budget_bytes_per_s: f64,
    window_ns: u64,
    sustain_ns: u64,
    slice_ns: u64,
    buckets: Vec<u64>,
    /// The absolute index of the slice the newest bucket counts.
    current: u64,
    sum_bytes: u64,
    over_since_ns: Option<u64>,
    engaged_since_ns: Option<u64>,
    pub engagements: u64,
    pub engaged_ns: u64,
}

impl Detector {
    pub fn new(budget_bytes_per_s: f64, window_ns: u64, sustain_ns: u64) -> Self {
        let window_ns = window_ns.max(SLICES);
        Detector {
            budget_bytes_per_s,
            window_ns,
            sustain_ns,
            slice_ns: window_ns / SLICES,
            buckets: vec![0; SLICES as usize],
            current: 0,
            sum_bytes: 0,
            over_since_ns: None,
            engaged_since_ns: None,
            engagements: 0,
            engaged_ns: 0,
        }
    }

    pub fn budget_bytes_per_s(&self) -> f64 {
        self.budget_bytes_per_s
    }

    pub fn set_budget(&mut self, budget_bytes_per_s: f64) {
        self.budget_bytes_per_s = budget_bytes_per_s;
    }

    pub fn set_sustain(&mut self, sustain_ns: u64) {
        self.sustain_ns = sustain_ns;
    }

    /// The SSD write rate over the window, bytes/s.
    pub fn rate_bytes_per_s(&self) -> f64 {
        self.sum_bytes as f64 / (self.window_ns as f64 / 1e9)
    }

    pub fn engaged(&self) -> bool {
        self.engaged_since_ns.is_some()
    }

    /// Bring the window and the state up to `now_ns`.
    pub fn advance(&mut self, now_ns: u64) {
        let slice = now_ns / self.slice_ns;
        if slice > self.current {
            let stale = (slice - self.current).min(SLICES);
            for k in 1..=stale {
                let b = &mut self.buckets[((self.current + k) % SLICES) as usize];
                self.sum_bytes -= *b;
                *b = 0;
            }
            self.current = slice;
        }
        if self.rate_bytes_per_s() > self.budget_bytes_per_s {
            let since = *self.over_since_ns.get_or_insert(now_ns);
            if self.engaged_since_ns.is_none() && now_ns.saturating_sub(since) >= self.sustain_ns {
                self.engaged_since_ns = Some(now_ns);
                self.engagements += 1;
            }
        } else {
            self.over_since_ns = None;
            if let Some(t) = self.engaged_since_ns.take() {
                self.engaged_ns += now_ns.saturating_sub(t);
            }
        }
    }

    /// `bytes` sent to the SSD at `now_ns`.
    pub fn add(&mut self, now_ns: u64, bytes: u64) {
        self.advance(now_ns);
        self.buckets[(self.current % SLICES) as usize] += bytes;
        self.sum_bytes += bytes;
    }

    /// Time engaged up to `now_ns`, the current engagement included.
    pub fn engaged_ns_at(&self, now_ns: u64) -> u64 {
        self.engaged_ns
            + self
                .engaged_since_ns
                .map_or(0, |t| now_ns.saturating_sub(t))
    }
}
