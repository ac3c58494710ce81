//! The engine's controller for a mixed system: each host request is cut at record
//! boundaries, each piece sent to the device its record was placed on, and the request
//! completes when its last piece does. It keeps the figures the engine does not split by
//! group: per-group piece and request response times (arrival to completion, queueing
//! included), and the counts that show no request or piece was lost.

use crate::placement::RecordMap;
use tierlab_report::LatencyHistogram;
use tierlab_engine::{Controller, DeviceInfo, DeviceOp, HostId, Io, SimError};
use tierlab_types::{IoRequest, Op};

/// What one group saw.
#[derive(Default)]
pub(crate) struct GroupStats {
    /// Host requests with at least one piece here.
    pub(crate) requests: u64,
    pub(crate) read_pieces: u64,
    pub(crate) write_pieces: u64,
    pub(crate) read_bytes: u64,
    pub(crate) write_bytes: u64,
    pub(crate) pieces_done: u64,
    /// Piece response: the request's arrival to the piece's completion.
    pub(crate) piece_response: LatencyHistogram,
    /// Response of the host requests touching the group (one request may count in several).
    pub(crate) request_response: LatencyHistogram,
}

#[derive(Clone, Copy, Default)]
struct Outstanding {
    arrival_ns: u64,
    pieces_left: u64,
    /// Bit g: a piece went to group g.
    groups: u64,
    write: bool,
}

pub(crate) struct MixedController<'a> {
    map: &'a RecordMap,
    record_bytes: u64,
    /// Group of each engine device.
    device_group: Vec<u8>,
    devices: usize,
    hosts: Vec<Outstanding>,
    pub(crate) groups: Vec<GroupStats>,
    pub(crate) response: LatencyHistogram,
    pub(crate) read_response: LatencyHistogram,
    pub(crate) write_response: LatencyHistogram,
    pub(crate) requests_arrived: u64,
    pub(crate) requests_completed: u64,
    pub(crate) pieces_submitted: u64,
    pub(crate) pieces_completed: u64,
    /// Callbacks whose clock was earlier than the one before (the engine's order
    /// guarantees none; counted, not assumed).
    pub(crate) clock_regressions: u64,
    pub(crate) first_arrival_ns: Option<u64>,
    pub(crate) last_ns: u64,
    /// Where the measured window starts, once the engine ends the warm-up; the groups'
    /// statistics, the response histograms and `window_completed` cover the window only.
    pub(crate) window_from_ns: Option<u64>,
    pub(crate) window_completed: u64,
}

impl<'a> MixedController<'a> {
    /// `device_group[d]`: the group of engine device `d`.
    pub(crate) fn new(
        map: &'a RecordMap,
        record_bytes: u64,
        device_group: Vec<u8>,
        groups: usize,
    ) -> Self {
        MixedController {
            map,
            record_bytes,
            devices: device_group.len(),
            device_group,
            hosts: Vec::new(),
            groups: (0..groups).map(|_| GroupStats::default()).collect(),
            response: LatencyHistogram::new(),
            read_response: LatencyHistogram::new(),
            write_response: LatencyHistogram::new(),
            requests_arrived: 0,
            requests_completed: 0,
            pieces_submitted: 0,
            pieces_completed: 0,
            clock_regressions: 0,
            first_arrival_ns: None,
            last_ns: 0,
            window_from_ns: None,
            window_completed: 0,
        }
    }

    fn tick(&mut self, now_ns: u64) {
        if now_ns < self.last_ns {
            self.clock_regressions += 1;
        }
        self.last_ns = self.last_ns.max(now_ns);
    }
}

impl Controller for MixedController<'_> {
    fn on_measure(&mut self, now_ns: u64) {
        self.window_from_ns = Some(now_ns);
        self.window_completed = 0;
        self.groups.iter_mut().for_each(|g| *g = GroupStats::default());
        self.response = LatencyHistogram::new();
        self.read_response = LatencyHistogram::new();
        self.write_response = LatencyHistogram::new();
    }

    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        if devices.len() != self.devices {
            return Err(SimError::Config(format!(
                "the mixed system has {} devices but the engine holds {}",
                self.devices,
                devices.len()
            )));
        }
        Ok(())
    }

    fn on_request(
        &mut self,
        now_ns: u64,
        host: HostId,
        index: u64,
        req: &IoRequest,
        io: &mut Io,
    ) -> Result<(), SimError> {
        self.tick(now_ns);
        self.first_arrival_ns.get_or_insert(now_ns);
        let rb = self.record_bytes;
        let Some(end) = req
            .offset_bytes
            .checked_add(req.len_bytes)
            .filter(|_| req.len_bytes > 0)
        else {
            return Err(SimError::Config(format!(
                "request #{index} addresses {} bytes at offset {}: expected a positive length that ends within 2^64 bytes",
                req.len_bytes, req.offset_bytes
            )));
        };
        let first = req.offset_bytes / rb;
        let last = (end - 1) / rb;
        // Every record first, so that a request with an unplaced record submits nothing.
        for record in first..=last {
            if !self.map.contains_key(&(req.volume, record)) {
                return Err(SimError::Config(format!(
                    "request #{index} (volume {}, bytes {}..{end}) touches record {record} ({} bytes each), which the \
                     classification never saw: replay the trace that was classified",
                    req.volume, req.offset_bytes, rb
                )));
            }
        }
        let mut touched = 0u64;
        for record in first..=last {
            let Some(slot) = self.map.get(&(req.volume, record)) else {
                continue;
            };
            let base = record * rb;
            let lo = base.max(req.offset_bytes);
            let hi = base.saturating_add(rb).min(end);
            let len_bytes = hi - lo;
            let group = usize::from(
                self.device_group
                    .get(slot.device as usize)
                    .copied()
                    .unwrap_or(0),
            );
            let g = &mut self.groups[group];
            match req.op {
                Op::Read => {
                    g.read_pieces += 1;
                    g.read_bytes += len_bytes;
                }
                Op::Write => {
                    g.write_pieces += 1;
                    g.write_bytes += len_bytes;
                }
            }
            touched |= 1 << group;
            let op = DeviceOp {
                op: req.op,
                offset_bytes: slot.slot * rb + (lo - base),
                len_bytes,
                fua: false,
            };
            io.submit(slot.device as usize, op, u64::from(host));
            self.pieces_submitted += 1;
        }
        for (g, stats) in self.groups.iter_mut().enumerate() {
            if touched & (1 << g) != 0 {
                stats.requests += 1;
            }
        }
        let h = host as usize;
        if h >= self.hosts.len() {
            self.hosts.resize(h + 1, Outstanding::default());
        }
        self.hosts[h] = Outstanding {
            arrival_ns: now_ns,
            pieces_left: last - first + 1,
            groups: touched,
            write: req.op == Op::Write,
        };
        self.requests_arrived += 1;
        Ok(())
    }

    fn on_device_done(&mut self, now_ns: u64, device: usize, token: u64, io: &mut Io) {
        self.tick(now_ns);
        self.pieces_completed += 1;
        let Some(h) = self.hosts.get_mut(token as usize) else {
            return;
        };
        let group = usize::from(self.device_group.get(device).copied().unwrap_or(0));
        let rt = now_ns.saturating_sub(h.arrival_ns);
        if let Some(g) = self.groups.get_mut(group) {
            g.pieces_done += 1;
            g.piece_response.record(rt);
        }
        h.pieces_left = h.pieces_left.saturating_sub(1);
        if h.pieces_left > 0 {
            return;
        }
        let touched = h.groups;
        self.response.record(rt);
        if h.write {
            self.write_response.record(rt);
        } else {
            self.read_response.record(rt);
        }
        for (g, stats) in self.groups.iter_mut().enumerate() {
            if touched & (1 << g) != 0 {
                stats.request_response.record(rt);
            }
        }
        self.requests_completed += 1;
        self.window_completed += 1;
        io.complete(token as HostId);
    }
}
