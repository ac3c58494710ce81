//! The performance guarantee (Hibernator §3.3): the controller measures the array's mean
//! response time; while it exceeds R_limit the wrapped scheme is switched off and every
//! disk runs at full speed; once it is back under R_limit the scheme's own plan is
//! restored. It wraps any scheme (the "+" variants).
//!
//! The mean is over the whole run so far (`window_requests = 0`, the default: the
//! service-level agreement is an average, as in the paper and its source), or over the
//! last `window_requests` host requests. The guarantee judges a mean only once it covers
//! `min_requests` requests (default 5,000): one speed change stalls a disk's requests for
//! seconds, which would otherwise swing a young average past any goal and make the
//! guarantee cause the very transitions it reacts to. While the guarantee holds, the wrapped scheme
//! keeps deciding; its speed and spin-down commands are remembered, not carried out, and
//! the latest of them are carried out on release. Data moves pass through. The release
//! has hysteresis: the scheme gets its plan back only once the mean is below
//! `release_fraction` × R_limit (default 0.9), since its first speed changes stall
//! requests for seconds and a release just under the goal is tripped again at once (the
//! paper's source re-enables "sufficiently below" the goal without a figure; 0.9 is an
//! estimate). A warm-up only stops measuring: the mean covers the whole run.

use crate::scheme::{ArraySetup, ArrayView, Command, DiskStatus, Placement, Scheme, SchemeReport};
use std::collections::VecDeque;

/// Requests a mean must cover before the guarantee acts on it.
pub const DEFAULT_MIN_REQUESTS: u64 = 5_000;

/// The share of R_limit the mean must fall below before the scheme's plan is restored.
pub const DEFAULT_RELEASE_FRACTION: f64 = 0.9;

/// A scheme with the performance guarantee.
pub struct Guarantee<S> {
    inner: S,
    r_limit_ns: f64,
    window_requests: usize,
    window: VecDeque<u64>,
    sum_ns: u128,
    count: u64,
    forced: bool,
    forced_since_ns: u64,
    forced_total_ns: u64,
    activations: u64,
    top: usize,
    desired_level: Vec<usize>,
    desired_timeout: Vec<Option<u64>>,
    scratch: Vec<Command>,
    min_requests: u64,
    release_fraction: f64,
    last_ns: u64,
}

impl<S: Scheme> Guarantee<S> {
    /// `r_limit_s` is the goal; `window_requests` 0 means the mean over the whole run.
    pub fn new(inner: S, r_limit_s: f64, window_requests: usize) -> Guarantee<S> {
        Guarantee {
            inner,
            r_limit_ns: r_limit_s * 1e9,
            window_requests,
            window: VecDeque::new(),
            sum_ns: 0,
            count: 0,
            forced: false,
            forced_since_ns: 0,
            forced_total_ns: 0,
            activations: 0,
            top: 0,
            desired_level: Vec::new(),
            desired_timeout: Vec::new(),
            scratch: Vec::new(),
            min_requests: DEFAULT_MIN_REQUESTS,
            release_fraction: DEFAULT_RELEASE_FRACTION,
            last_ns: 0,
        }
    }

    /// Judge the mean only once it covers this many requests.
    pub fn with_min_requests(mut self, n: u64) -> Self {
        self.min_requests = n;
        self
    }

    /// Restore the scheme's plan only once the mean is below `fraction` × R_limit.
    pub fn with_release_fraction(mut self, fraction: f64) -> Self {
        self.release_fraction = fraction;
        self
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Whether full speed is being held now.
    pub fn is_forced(&self) -> bool {
        self.forced
    }

    /// Pass the wrapped scheme's commands on, or remember them while forced.
    fn filter(&mut self, out: &mut Vec<Command>) {
        for cmd in self.scratch.drain(..) {
            match cmd {
                Command::SetSpeed { disk, level } => {
                    if let Some(d) = self.desired_level.get_mut(disk) {
                        *d = level;
                    }
                    if !self.forced {
                        out.push(cmd);
                    }
                }
                Command::IdleTimeout { disk, timeout_ns } => {
                    if let Some(d) = self.desired_timeout.get_mut(disk) {
                        *d = timeout_ns;
                    }
                    if !self.forced {
                        out.push(cmd);
                    }
                }
                Command::Standby { .. } | Command::Wake { .. } => {
                    if !self.forced {
                        out.push(cmd);
                    }
                }
                Command::Reorganise => out.push(cmd),
            }
        }
    }

    fn mean_ns(&self) -> f64 {
        if self.window_requests == 0 {
            self.sum_ns as f64 / self.count.max(1) as f64
        } else {
            self.sum_ns as f64 / self.window.len().max(1) as f64
        }
    }
}

impl<S: Scheme> Scheme for Guarantee<S> {
    fn name(&self) -> String {
        format!("{}+", self.inner.name())
    }
    fn start(&mut self, setup: &ArraySetup, out: &mut Vec<Command>) {
        self.top = setup.top_level();
        self.desired_level = vec![self.top; setup.disks];
        self.desired_timeout = vec![None; setup.disks];
        let mut scratch = std::mem::take(&mut self.scratch);
        self.inner.start(setup, &mut scratch);
        self.scratch = scratch;
        self.filter(out);
    }
    fn next_tick_ns(&self) -> Option<u64> {
        self.inner.next_tick_ns()
    }
    fn tick(&mut self, view: &ArrayView, out: &mut Vec<Command>) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.inner.tick(view, &mut scratch);
        self.scratch = scratch;
        self.filter(out);
    }
    fn on_response(&mut self, now_ns: u64, response_ns: u64, status: &[DiskStatus], out: &mut Vec<Command>) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.inner.on_response(now_ns, response_ns, status, &mut scratch);
        self.scratch = scratch;
        self.filter(out);
        self.last_ns = now_ns;
        self.sum_ns += u128::from(response_ns);
        self.count += 1;
        if self.window_requests > 0 {
            self.window.push_back(response_ns);
            if self.window.len() > self.window_requests {
                if let Some(old) = self.window.pop_front() {
                    self.sum_ns -= u128::from(old);
                }
            }
        }
        let seen = if self.window_requests == 0 { self.count } else { self.window.len() as u64 };
        if seen < self.min_requests {
            return;
        }
        let mean = self.mean_ns();
        if !self.forced && mean > self.r_limit_ns {
            self.forced = true;
            self.forced_since_ns = now_ns;
            self.activations += 1;
            for disk in 0..self.desired_level.len() {
                out.push(Command::IdleTimeout { disk, timeout_ns: None });
                if status.get(disk).is_none_or(|s| s.level != self.top || s.standby) {
                    out.push(Command::SetSpeed { disk, level: self.top });
                }
            }
        } else if self.forced && mean < self.r_limit_ns * self.release_fraction {
            self.forced = false;
            self.forced_total_ns += now_ns - self.forced_since_ns;
            for disk in 0..self.desired_level.len() {
                if self.desired_level[disk] != self.top {
                    out.push(Command::SetSpeed { disk, level: self.desired_level[disk] });
                }
                if self.desired_timeout[disk].is_some() {
                    out.push(Command::IdleTimeout { disk, timeout_ns: self.desired_timeout[disk] });
                }
            }
        }
    }
    fn planned_levels(&self) -> Option<Vec<usize>> {
        self.inner.planned_levels()
    }
    fn placement(&mut self) -> Option<&mut dyn Placement> {
        self.inner.placement()
    }
    fn report(&self) -> SchemeReport {
        let mut r = self.inner.report();
        r.guarantee_activations = self.activations;
        let ongoing_ns = if self.forced { self.last_ns.saturating_sub(self.forced_since_ns) } else { 0 };
        r.guarantee_s = (self.forced_total_ns + ongoing_ns) as f64 / 1e9;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ArraySetup, Drpm, DrpmParams, SpeedInfo, Transition};

    fn setup(disks: usize) -> ArraySetup {
        let s = |rpm, idle_w| SpeedInfo { rpm, active_w: idle_w + 3.3, seek_w: 13.5, idle_w, media_bytes_per_s: 80e6 * f64::from(rpm) / 15e3 };
        ArraySetup {
            disks,
            disk_capacity_bytes: 18_000_000_000,
            speeds: vec![s(3000, 2.8), s(15000, 10.2)],
            speed_change: Transition { time_s: 12.4, energy_j: 152.0 },
            standby: None,
            average_seek_s: 3.4e-3,
            r_limit_s: 0.01,
        }
    }

    #[test]
    fn full_speed_while_the_mean_exceeds_the_goal_then_the_plan_again() {
        let st = setup(3);
        let mut g = Guarantee::new(Drpm::new(DrpmParams::default()), 0.010, 0).with_min_requests(4).with_release_fraction(1.0);
        let mut out = Vec::new();
        g.start(&st, &mut out);
        // DRPM steps every idle disk down at its first check.
        let status = vec![DiskStatus { level: 1, standby: false, queued: 0 }; 3];
        g.tick(&ArrayView { now_ns: 2_000_000_000, status: &status, since_tick: &[Default::default(); 3] }, &mut out);
        assert_eq!(out.len(), 3);
        out.clear();
        let slow = vec![DiskStatus { level: 0, standby: false, queued: 0 }; 3];
        // Three slow responses: too few to judge.
        for t in 0..3 {
            g.on_response(t, 50_000_000, &slow, &mut out);
        }
        assert!(out.is_empty() && !g.is_forced());
        // The fourth: the mean (50 ms) is over the goal: every disk to full speed.
        g.on_response(4, 50_000_000, &slow, &mut out);
        assert!(g.is_forced());
        assert_eq!(out.iter().filter(|c| matches!(c, Command::SetSpeed { level: 1, .. })).count(), 3);
        out.clear();
        // Many fast responses bring the mean under the goal: DRPM's levels come back.
        for t in 5..100 {
            g.on_response(t, 1_000_000, &status, &mut out);
        }
        assert!(!g.is_forced());
        assert_eq!(out.iter().filter(|c| matches!(c, Command::SetSpeed { level: 0, .. })).count(), 3);
        let r = g.report();
        assert_eq!(r.guarantee_activations, 1);
        assert!(r.guarantee_s > 0.0);
    }

    #[test]
    fn the_plan_comes_back_only_sufficiently_below_the_goal() {
        let st = setup(3);
        let mut g = Guarantee::new(Drpm::new(DrpmParams::default()), 0.010, 0).with_min_requests(4).with_release_fraction(0.9);
        let mut out = Vec::new();
        g.start(&st, &mut out);
        let slow = vec![DiskStatus { level: 0, standby: false, queued: 0 }; 3];
        for t in 0..4 {
            g.on_response(t, 20_000_000, &slow, &mut out);
        }
        assert!(g.is_forced());
        // 4 × 20 ms + 5 × 5 ms over 9 requests: 11.7 ms; then down to 9.5 ms (under the goal,
        // above 0.9 × it): still forced.
        let fast = vec![DiskStatus { level: 1, standby: false, queued: 0 }; 3];
        let mut t = 10;
        let mean = |g: &Guarantee<Drpm>| g.sum_ns as f64 / g.count as f64;
        while mean(&g) > 9.5e6 {
            g.on_response(t, 5_000_000, &fast, &mut out);
            t += 1;
        }
        assert!(g.is_forced(), "released at {} ms", mean(&g) / 1e6);
        while mean(&g) >= 9.0e6 {
            g.on_response(t, 5_000_000, &fast, &mut out);
            t += 1;
        }
        g.on_response(t, 5_000_000, &fast, &mut out);
        assert!(!g.is_forced());
    }
}
