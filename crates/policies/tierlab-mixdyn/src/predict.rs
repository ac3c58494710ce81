//! Response-time predictors for the SSD and the HDD, learnt from the responses the
//! executor reports.
//!
//! SSD (HybridStore's short-term model): R = c0 + c1·W + c2·S_avg, a multiple linear
//! regression whose features describe the last `window` requests the SSD was given —
//! the share of reads, the share of sequential requests (a request is sequential when it
//! starts where the previous one ended on the device) — the time since the previous SSD
//! request (ms, capped at 10 s so that one long idle gap does not dominate the fit), the
//! request's own size (KiB), and S_avg, the mean of the last `window` SSD response times
//! (ms) as the black-box picture of the flash's state. The executor reports response
//! times (queueing plus service), so S_avg averages those. Each SSD request's features are
//! taken when it is submitted and paired with its response when it completes.
//!
//! The coefficients are fitted once, by least squares, when the training phase ends:
//! `train_ssd` SSD responses and `train_hdd` HDD responses observed. They stay fixed
//! afterwards, as in the research (which trained on the first half of a trace).
//!
//! HDD, two predictors side by side:
//! - `training-mean` (the research's): the mean HDD response time over the training phase,
//!   a constant;
//! - `queue`: (requests outstanding on the HDD + 1) × the mean service estimate of the
//!   last `window` HDD requests, each estimate being the request's response divided by
//!   (the requests outstanding when it was submitted + 1) — an FCFS disk serves a request
//!   after those ahead of it.
//!
//! After training, every observation also scores the predictions made for it (absolute
//! error), and the research's baseline for the SSD — the last observed response — is
//! scored beside the regression.

use crate::regress::{Accumulator, Fit, FEATURES};
use serde::Serialize;
use std::collections::VecDeque;
use tierlab_types::Op;

/// Which HDD predictor routes writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HddPredictor {
    /// The mean HDD response time of the training phase (the research's).
    TrainingMean,
    /// Outstanding HDD requests + 1, times the recent mean service estimate.
    Queue,
}

/// Requests awaiting their response, per device, at most this many (an executor that never
/// reports responses costs bounded memory; the oldest are forgotten).
const MAX_PENDING: usize = 1 << 16;
/// How far into the pending queue a response is looked for (the match is near the front:
/// requests complete roughly in submission order).
const MAX_SCAN: usize = 4096;
const MS: f64 = 1e6;
const MAX_GAP_MS: f64 = 10_000.0;

struct Pending {
    op: Op,
    offset_bytes: u64,
    len_bytes: u64,
    /// SSD: the regression's features at submission; HDD: [outstanding, ...].
    x: [f64; FEATURES],
    /// The predictions made at submission (SSD: regression, last value; HDD: training
    /// mean, queue), for scoring.
    predicted: [Option<f64>; 2],
}

/// Mean absolute error of one predictor.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Score {
    pub sum_abs_ms: f64,
    pub count: u64,
}

impl Score {
    fn add(&mut self, predicted: Option<f64>, actual_ms: f64) {
        if let Some(p) = predicted {
            self.sum_abs_ms += (p - actual_ms).abs();
            self.count += 1;
        }
    }

    pub fn mean_abs_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_abs_ms / self.count as f64
        }
    }
}

/// A fixed-length window of recent values with their sum.
#[derive(Clone, Debug, Default)]
struct Window {
    values: VecDeque<f64>,
    sum: f64,
}

impl Window {
    fn push(&mut self, v: f64, cap: usize) {
        self.values.push_back(v);
        self.sum += v;
        while self.values.len() > cap.max(1) {
            if let Some(old) = self.values.pop_front() {
                self.sum -= old;
            }
        }
    }

    fn mean(&self) -> Option<f64> {
        (!self.values.is_empty()).then(|| self.sum / self.values.len() as f64)
    }
}

pub(crate) struct Predictor {
    window: usize,
    train_ssd: u64,
    train_hdd: u64,
    /// The last `window` SSD requests: (read, sequential).
    recent: VecDeque<(bool, bool)>,
    reads: usize,
    sequential: usize,
    last_ssd_end: Option<u64>,
    last_ssd_submit_ns: Option<u64>,
    ssd_responses: Window,
    last_ssd_ms: Option<f64>,
    hdd_service: Window,
    pending: [VecDeque<Pending>; 2],
    acc: Accumulator,
    fit: Option<Fit>,
    hdd_train_sum_ms: f64,
    hdd_train_n: u64,
    hdd_mean_ms: Option<f64>,
    pub scores: Scores,
    pub observed: [u64; 2],
}

/// Scores of the predictors after training.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Scores {
    pub ssd_regression: Score,
    pub ssd_last_value: Score,
    pub hdd_training_mean: Score,
    pub hdd_queue: Score,
}

impl Predictor {
    pub fn new(window: usize, train_ssd: u64, train_hdd: u64) -> Self {
        Predictor {
            window: window.max(1),
            train_ssd,
            train_hdd,
            recent: VecDeque::new(),
            reads: 0,
            sequential: 0,
            last_ssd_end: None,
            last_ssd_submit_ns: None,
            ssd_responses: Window::default(),
            last_ssd_ms: None,
            hdd_service: Window::default(),
            pending: [VecDeque::new(), VecDeque::new()],
            acc: Accumulator::default(),
            fit: None,
            hdd_train_sum_ms: 0.0,
            hdd_train_n: 0,
            hdd_mean_ms: None,
            scores: Scores::default(),
            observed: [0, 0],
        }
    }

    pub fn trained(&self) -> bool {
        self.fit.is_some()
    }

    pub fn fit(&self) -> Option<&Fit> {
        self.fit.as_ref()
    }

    pub fn hdd_mean_ms(&self) -> Option<f64> {
        self.hdd_mean_ms
    }

    /// The training phase's progress: (SSD, HDD) responses taken so far.
    pub fn training_samples(&self) -> (u64, u64) {
        (self.acc.len(), self.hdd_train_n)
    }

    /// Change the window length (the windows in use are trimmed at their next push).
    pub fn set_window(&mut self, window: usize) {
        self.window = window.max(1);
        while self.recent.len() > self.window {
            self.pop_recent();
        }
    }

    pub fn set_training(&mut self, train_ssd: u64, train_hdd: u64) {
        self.train_ssd = train_ssd;
        self.train_hdd = train_hdd;
    }

    /// The SSD features of a request of `len_bytes` submitted at `now_ns`.
    pub fn features(&self, now_ns: u64, len_bytes: u64) -> [f64; FEATURES] {
        let n = self.recent.len().max(1) as f64;
        let gap_ms = self.last_ssd_submit_ns.map_or(0.0, |t| {
            (now_ns.saturating_sub(t) as f64 / MS).min(MAX_GAP_MS)
        });
        [
            self.reads as f64 / n,
            self.sequential as f64 / n,
            gap_ms,
            len_bytes as f64 / 1024.0,
            self.ssd_responses.mean().unwrap_or(0.0),
        ]
    }

    /// The SSD's predicted response (ms) to a request of `len_bytes` now; `None` before
    /// the fit.
    pub fn predict_ssd(&self, now_ns: u64, len_bytes: u64) -> Option<f64> {
        self.fit
            .map(|f| f.predict(&self.features(now_ns, len_bytes)))
    }

    /// The HDD's predicted response (ms) with `outstanding` requests on it; `None` before
    /// the training phase ends (the queue predictor: before any HDD response).
    pub fn predict_hdd(&self, which: HddPredictor, outstanding: u32) -> Option<f64> {
        match which {
            HddPredictor::TrainingMean => self.hdd_mean_ms,
            HddPredictor::Queue => self
                .hdd_service
                .mean()
                .map(|s| s * (outstanding as f64 + 1.0)),
        }
    }

    fn pop_recent(&mut self) {
        if let Some((r, s)) = self.recent.pop_front() {
            self.reads -= r as usize;
            self.sequential -= s as usize;
        }
    }

    /// An SSD request submitted at `now_ns`.
    pub fn submit_ssd(&mut self, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64) {
        let x = self.features(now_ns, len_bytes);
        let predicted = [self.fit.map(|f| f.predict(&x)), self.last_ssd_ms];
        push_pending(
            &mut self.pending[0],
            Pending {
                op,
                offset_bytes,
                len_bytes,
                x,
                predicted,
            },
        );
        let read = op == Op::Read;
        let seq = self.last_ssd_end == Some(offset_bytes);
        self.recent.push_back((read, seq));
        self.reads += read as usize;
        self.sequential += seq as usize;
        while self.recent.len() > self.window {
            self.pop_recent();
        }
        self.last_ssd_end = Some(offset_bytes.saturating_add(len_bytes));
        self.last_ssd_submit_ns = Some(now_ns);
    }

    /// An HDD request submitted with `outstanding` requests on the HDD before it.
    pub fn submit_hdd(&mut self, op: Op, offset_bytes: u64, len_bytes: u64, outstanding: u32) {
        let mut x = [0.0; FEATURES];
        x[0] = outstanding as f64;
        let predicted = [
            self.hdd_mean_ms,
            self.predict_hdd(HddPredictor::Queue, outstanding),
        ];
        push_pending(
            &mut self.pending[1],
            Pending {
                op,
                offset_bytes,
                len_bytes,
                x,
                predicted,
            },
        );
    }

    /// The response of an SSD (`ssd`) or HDD request; true if it ended the training.
    pub fn observe(
        &mut self,
        ssd: bool,
        op: Op,
        offset_bytes: u64,
        len_bytes: u64,
        response_ns: u64,
    ) -> bool {
        let dev = if ssd { 0 } else { 1 };
        let queue = &mut self.pending[dev];
        let found = queue
            .iter()
            .take(MAX_SCAN)
            .position(|p| p.op == op && p.offset_bytes == offset_bytes && p.len_bytes == len_bytes);
        let Some(p) = found.and_then(|i| queue.remove(i)) else {
            return false;
        };
        self.observed[dev] += 1;
        let ms = response_ns as f64 / MS;
        let training = self.fit.is_none();
        if ssd {
            if training {
                self.acc.add(&p.x, ms);
            } else {
                self.scores.ssd_regression.add(p.predicted[0], ms);
                self.scores.ssd_last_value.add(p.predicted[1], ms);
            }
            self.ssd_responses.push(ms, self.window);
            self.last_ssd_ms = Some(ms);
        } else {
            if training {
                self.hdd_train_sum_ms += ms;
                self.hdd_train_n += 1;
            } else {
                self.scores.hdd_training_mean.add(p.predicted[0], ms);
                self.scores.hdd_queue.add(p.predicted[1], ms);
            }
            self.hdd_service.push(ms / (p.x[0] + 1.0), self.window);
        }
        if training
            && self.acc.len() >= self.train_ssd.max(2)
            && self.hdd_train_n >= self.train_hdd.max(1)
        {
            self.hdd_mean_ms = Some(self.hdd_train_sum_ms / self.hdd_train_n as f64);
            self.fit = self.acc.fit();
            return self.fit.is_some();
        }
        false
    }

    /// Requests still waiting for their response (both devices).
    pub fn pending(&self) -> usize {
        self.pending[0].len() + self.pending[1].len()
    }
}

fn push_pending(q: &mut VecDeque<Pending>, p: Pending) {
    if q.len() >= MAX_PENDING {
        q.pop_front();
    }
    q.push_back(p);
}
