//! Engine tests with toy devices whose timing is known in closed form.

use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use tierlab_types::{IoRequest, Op};

/// Serves every op in a fixed time, `lanes` at a time.
struct FixedDevice {
    service_ns: u64,
    lanes: usize,
    capacity_bytes: u64,
    served: u64,
    last_now: u64,
}

impl FixedDevice {
    fn new(service_ns: u64, lanes: usize) -> Self {
        FixedDevice { service_ns, lanes, capacity_bytes: 1 << 40, served: 0, last_now: 0 }
    }
}

impl Device for FixedDevice {
    fn name(&self) -> &str {
        "fixed"
    }
    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }
    fn max_in_flight(&self) -> usize {
        self.lanes
    }
    fn service(&mut self, now_ns: u64, _op: &DeviceOp) -> u64 {
        assert!(now_ns >= self.last_now, "engine called the device with time running backwards");
        self.last_now = now_ns;
        self.served += 1;
        now_ns + self.service_ns
    }
    fn finish(&mut self, _end_ns: u64) {}
    fn report(&self) -> DeviceReport {
        let mut counters = BTreeMap::new();
        counters.insert("served".to_string(), self.served as f64);
        DeviceReport { name: "fixed".into(), kind: "test".into(), energy_j: 1.0, states: vec![], counters }
    }
}

fn req(time_ns: u64, offset_bytes: u64) -> Result<IoRequest, std::io::Error> {
    Ok(IoRequest { time_ns, volume: 0, offset_bytes, len_bytes: 4096, op: if offset_bytes.is_multiple_of(3) { Op::Read } else { Op::Write } })
}

fn run(reqs: Vec<Result<IoRequest, std::io::Error>>, replay: Replay, dev: FixedDevice, sched: SchedulerKind) -> Result<SimReport, SimError> {
    let mut sim = Simulation::new(sched);
    sim.add_device(Box::new(dev));
    sim.run(reqs.into_iter(), replay, &mut Direct::default(), &mut |_| {})
}

#[test]
fn closed_loop_depth_one_is_back_to_back() {
    let reqs = (0..100).map(|i| req(0, i * 4096)).collect();
    let r = run(reqs, Replay::Closed { depth: 1 }, FixedDevice::new(1_000_000, 1), SchedulerKind::Fcfs).unwrap();
    assert_eq!(r.requests, 100);
    assert!((r.span_s - 0.1).abs() < 1e-12, "100 x 1 ms back to back: {}", r.span_s);
    assert!((r.throughput_iops - 1000.0).abs() < 1e-6);
    assert!((r.response_time.mean_ms - 1.0).abs() < 1e-9);
    assert!((r.devices[0].utilisation - 1.0).abs() < 1e-12);
}

#[test]
fn closed_loop_depth_n_queues_behind_a_single_lane() {
    let reqs = (0..100).map(|i| req(0, i * 4096)).collect();
    let r = run(reqs, Replay::Closed { depth: 4 }, FixedDevice::new(1_000_000, 1), SchedulerKind::Fcfs).unwrap();
    // Each request waits for the 3 ahead of it once the pipe is full: response 4 ms.
    assert!((r.response_time.p50_ms - 4.0).abs() < 0.01, "{:?}", r.response_time);
    assert!((r.span_s - 0.1).abs() < 1e-12);
    assert_eq!(r.devices[0].max_queue_length, 3);
}

#[test]
fn parallel_lanes_overlap() {
    let reqs = (0..100).map(|i| req(0, i * 4096)).collect();
    let r = run(reqs, Replay::Closed { depth: 4 }, FixedDevice::new(1_000_000, 4), SchedulerKind::Fcfs).unwrap();
    assert!((r.span_s - 0.025).abs() < 1e-12, "4 lanes: 25 ms, got {}", r.span_s);
    assert!((r.response_time.mean_ms - 1.0).abs() < 1e-9);
}

#[test]
fn open_loop_follows_arrival_times() {
    // Arrivals every 2 ms, service 1 ms: no queueing, span = last arrival + 1 ms.
    let reqs = (0..10).map(|i| req(i * 2_000_000, i * 4096)).collect();
    let r = run(reqs, Replay::Open, FixedDevice::new(1_000_000, 1), SchedulerKind::Fcfs).unwrap();
    assert!((r.response_time.max_ms - 1.0).abs() < 1e-3);
    assert!((r.span_s - 0.019).abs() < 1e-12);
    assert!((r.devices[0].utilisation - 10.0 / 19.0).abs() < 1e-9);
    assert_eq!(r.reads + r.writes, 10);
}

#[test]
fn open_loop_burst_queues() {
    // 5 requests at once on a 1 ms device: responses 1, 2, 3, 4, 5 ms.
    let reqs = (0..5).map(|i| req(0, i * 4096)).collect();
    let r = run(reqs, Replay::Open, FixedDevice::new(1_000_000, 1), SchedulerKind::Fcfs).unwrap();
    assert!((r.response_time.mean_ms - 3.0).abs() < 1e-9);
    assert!((r.devices[0].queue_time.as_ref().unwrap().mean_ms - 2.0).abs() < 1e-9);
    assert!((r.devices[0].service_time.as_ref().unwrap().mean_ms - 1.0).abs() < 1e-9);
    // Queue lengths 4,3,2,1,0 for 1 ms each over 5 ms: mean 2.
    assert!((r.devices[0].mean_queue_length - 2.0).abs() < 1e-9);
}

#[test]
fn a_run_without_device_latency_reports_none_and_the_same_figures() {
    let reqs = || (0..5).map(|i| req(0, i * 4096)).collect::<Vec<_>>().into_iter();
    let with = run(reqs().collect(), Replay::Open, FixedDevice::new(1_000_000, 1), SchedulerKind::Fcfs).unwrap();
    let mut sim = Simulation::new(SchedulerKind::Fcfs).without_device_latency();
    sim.add_device(Box::new(FixedDevice::new(1_000_000, 1)));
    let without = sim.run(reqs(), Replay::Open, &mut Direct::default(), &mut |_| {}).unwrap();
    let (a, b) = (&with.devices[0], &without.devices[0]);
    assert!(a.queue_time.is_some() && a.service_time.is_some());
    assert_eq!((&b.queue_time, &b.service_time), (&None, &None));
    assert_eq!((a.ops, a.utilisation, a.mean_queue_length), (b.ops, b.utilisation, b.mean_queue_length));
    assert_eq!(with.response_time, without.response_time);
    // The JSON of a run that keeps them is unchanged; one that does not leaves them out.
    let json = |r: &SimReport| serde_json::to_value(&r.devices[0]).unwrap();
    assert!(json(&with).get("queue_time").is_some());
    assert!(json(&without).get("queue_time").is_none() && json(&without).get("service_time").is_none());
}

/// A disk whose positions run against its block addresses (as a serpentine band's
/// outward surface does), recording the order it serves blocks in.
struct ReversedDisk {
    served: std::sync::Arc<std::sync::Mutex<Vec<u64>>>,
}

impl Device for ReversedDisk {
    fn name(&self) -> &str {
        "reversed"
    }
    fn capacity_bytes(&self) -> u64 {
        1 << 30
    }
    fn service(&mut self, now_ns: u64, op: &DeviceOp) -> u64 {
        self.served.lock().unwrap().push(op.offset_bytes / 4096);
        now_ns + 1_000_000
    }
    fn position_key(&self, offset_bytes: u64) -> u64 {
        (1 << 30) - offset_bytes
    }
    fn finish(&mut self, _end_ns: u64) {}
    fn report(&self) -> DeviceReport {
        DeviceReport { name: "reversed".into(), kind: "test".into(), energy_j: 0.0, states: vec![], counters: BTreeMap::new() }
    }
}

#[test]
fn clook_lba_sweeps_block_addresses_where_clook_sweeps_positions() {
    // Block 3 occupies the disk; 5, 2, 8 and 1 queue behind it.
    let order = |sched| {
        let served = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut sim = Simulation::new(sched);
        sim.add_device(Box::new(ReversedDisk { served: served.clone() }));
        let reqs = [(0, 3), (1, 5), (1, 2), (1, 8), (1, 1)].map(|(t, b)| req(t, b * 4096));
        sim.run(reqs.into_iter(), Replay::Open, &mut Direct::default(), &mut |_| {}).unwrap();
        let v = served.lock().unwrap().clone();
        v
    };
    // Up from the block after the last one served, then round to the lowest.
    assert_eq!(order(SchedulerKind::ClookLba), [3, 5, 8, 1, 2]);
    // Up from the head's position key (0 here): the highest blocks have the lowest keys.
    assert_eq!(order(SchedulerKind::Clook), [3, 8, 5, 2, 1]);
    assert_eq!("clook-lba".parse::<SchedulerKind>(), Ok(SchedulerKind::ClookLba));
    assert_eq!(SchedulerKind::ClookLba.to_string(), "clook-lba");
}

#[test]
fn out_of_range_request_is_an_error_naming_the_request() {
    let mut dev = FixedDevice::new(1, 1);
    dev.capacity_bytes = 8192;
    let reqs = vec![req(0, 0), req(1, 8192)];
    let e = run(reqs, Replay::Open, dev, SchedulerKind::Fcfs).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("request #1") && msg.contains("8192"), "{msg}");
}

#[test]
fn wrapping_folds_requests_into_the_device() {
    let mut dev = FixedDevice::new(1, 1);
    dev.capacity_bytes = 8192;
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(dev));
    let reqs = vec![req(0, 0), req(1, 8192), req(2, 1 << 30)];
    let r = sim.run(reqs.into_iter(), Replay::Open, &mut Direct::wrapping(), &mut |_| {}).unwrap();
    assert_eq!(r.requests, 3);
}

#[test]
fn source_errors_stop_the_run() {
    let reqs = vec![req(0, 0), Err(std::io::Error::other("bad line 2"))];
    let e = run(reqs, Replay::Open, FixedDevice::new(1, 1), SchedulerKind::Fcfs).unwrap_err();
    assert!(e.to_string().contains("bad line 2"));
}

/// What a controller hears in an open-loop run: (`upcoming`'s next and after, each
/// arrival), and how many requests the source had handed out by then.
#[derive(Debug, PartialEq)]
enum Heard {
    Upcoming(IoRequest, Option<IoRequest>, u64),
    Arrival(IoRequest, u64),
}

/// [`Direct`], noting what it hears ([`Heard`]); `read` counts the source's requests.
struct Listener<'a> {
    inner: Direct,
    heard: std::cell::RefCell<Vec<Heard>>,
    read: &'a std::cell::Cell<u64>,
}

impl Controller for Listener<'_> {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        self.inner.attach(devices)
    }
    fn on_request(&mut self, now_ns: u64, host: HostId, i: u64, r: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        self.heard.get_mut().push(Heard::Arrival(*r, self.read.get()));
        self.inner.on_request(now_ns, host, i, r, io)
    }
    fn upcoming(&self, next: &IoRequest, after: Option<&IoRequest>) {
        self.heard.borrow_mut().push(Heard::Upcoming(*next, after.copied(), self.read.get()));
    }
    fn on_device_done(&mut self, now_ns: u64, d: usize, t: u64, io: &mut Io) {
        self.inner.on_device_done(now_ns, d, t, io)
    }
}

proptest! {
    /// Open-loop replay tells the controller of each request before it arrives, with the
    /// one after it (none after the last), and reads the source at most two requests
    /// ahead of the arrivals: every request arrives once, in order, and is told once,
    /// just before the previous one's arrival is over (the first before any arrival).
    #[test]
    fn upcoming_tells_each_request_and_the_one_after_before_it_arrives(gaps in prop::collection::vec(0u64..3_000, 0..40)) {
        let mut t = 0;
        let reqs: Vec<IoRequest> = gaps.iter().enumerate().map(|(i, g)| { t += g; req(t, i as u64 * 4096).unwrap() }).collect();
        let read = std::cell::Cell::new(0u64);
        let source = reqs.iter().map(|r| { read.set(read.get() + 1); Ok::<_, std::io::Error>(*r) });
        let mut c = Listener { inner: Direct::default(), heard: Default::default(), read: &read };
        let mut sim = Simulation::new(SchedulerKind::Fcfs);
        sim.add_device(Box::new(FixedDevice::new(1_000, 1)));
        let r = sim.run(source, Replay::Open, &mut c, &mut |_| {}).unwrap();
        prop_assert_eq!(r.requests, reqs.len() as u64);
        let n = reqs.len() as u64;
        let mut expected = Vec::new();
        for (i, q) in reqs.iter().enumerate() {
            let i = i as u64;
            if i > 0 {
                expected.push(Heard::Arrival(reqs[i as usize - 1], (i + 1).min(n)));
            }
            // Told once the one after it is read (the source then has handed out i + 2).
            expected.push(Heard::Upcoming(*q, reqs.get(i as usize + 1).copied(), (i + 2).min(n)));
        }
        if let Some(last) = reqs.last() {
            expected.push(Heard::Arrival(*last, n));
        }
        prop_assert_eq!(c.heard.into_inner(), expected);
    }
}

#[test]
fn zero_depth_is_rejected() {
    let e = run(vec![], Replay::Closed { depth: 0 }, FixedDevice::new(1, 1), SchedulerKind::Fcfs).unwrap_err();
    assert!(e.to_string().contains("depth"));
}

#[test]
fn empty_trace_gives_an_empty_report() {
    let r = run(vec![], Replay::Open, FixedDevice::new(1, 1), SchedulerKind::Fcfs).unwrap();
    assert_eq!(r.requests, 0);
    assert_eq!(r.throughput_iops, 0.0);
}

/// A controller that sets a timer per request and completes it from the timer, to check
/// timers and commands flow through the engine.
struct TimerController {
    fired: Vec<u64>,
}

impl Controller for TimerController {
    fn on_request(&mut self, now_ns: u64, host: HostId, _i: u64, _r: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        io.timer(now_ns + 500, host as u64);
        io.command(0, DeviceCommand::Standby);
        Ok(())
    }
    fn on_device_done(&mut self, _now_ns: u64, _d: usize, _t: u64, _io: &mut Io) {}
    fn on_timer(&mut self, now_ns: u64, token: u64, io: &mut Io) {
        self.fired.push(now_ns);
        io.complete(token as HostId);
    }
}

#[test]
fn timers_fire_at_their_time_and_complete_requests() {
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(FixedDevice::new(1, 1)));
    let mut c = TimerController { fired: vec![] };
    let reqs = vec![req(1000, 0), req(3000, 0)];
    let r = sim.run(reqs.into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap();
    assert_eq!(c.fired, vec![1500, 3500]);
    assert_eq!(r.requests, 2);
    assert!((r.response_time.mean_ms - 0.0005).abs() < 1e-9);
}

proptest! {
    /// No request is lost, none completes before it arrived, and the run is deterministic,
    /// whatever the arrival pattern, depth, lanes and scheduler.
    #[test]
    fn no_request_lost_and_deterministic(
        gaps in proptest::collection::vec(0u64..3_000, 1..300),
        offsets in proptest::collection::vec(0u64..1_000_000, 300),
        service in 1u64..5_000,
        lanes in 1usize..4,
        depth in 0u32..6,
        sched in 0usize..SchedulerKind::ALL.len(),
    ) {
        let mut t = 0;
        let reqs: Vec<_> = gaps.iter().zip(&offsets).map(|(g, o)| { t += g; req(t, o * 4096) }).collect();
        let n = reqs.len() as u64;
        let replay = if depth == 0 { Replay::Open } else { Replay::Closed { depth } };
        let kind = SchedulerKind::ALL[sched];
        let again: Vec<_> = reqs.iter().map(|r| r.as_ref().map(|x| *x).map_err(|_| std::io::Error::other("x"))).collect();
        let a = run(reqs, replay, FixedDevice::new(service, lanes), kind).unwrap();
        let b = run(again, replay, FixedDevice::new(service, lanes), kind).unwrap();
        prop_assert_eq!(a.requests, n);
        prop_assert_eq!(a.response_time.count, n);
        prop_assert_eq!(a.devices[0].ops, n);
        prop_assert_eq!(a.devices[0].device.counters["served"], n as f64);
        prop_assert!(a.response_time.p50_ms * 1e6 >= service as f64 * 0.999);
        prop_assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    }
}

/// Completes every request from a timer, never from a device.
struct TimerOnly;

impl Controller for TimerOnly {
    fn on_request(&mut self, now_ns: u64, host: HostId, _i: u64, _r: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        io.timer(now_ns + 10, host as u64);
        Ok(())
    }
    fn on_device_done(&mut self, _now_ns: u64, _d: usize, _t: u64, _io: &mut Io) {}
    fn on_timer(&mut self, _now_ns: u64, token: u64, io: &mut Io) {
        io.complete(token as HostId);
    }
}

#[test]
fn closed_loop_refills_after_completions_from_timers_too() {
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(FixedDevice::new(1, 1)));
    let reqs: Vec<_> = (0..50).map(|i| req(0, i * 4096)).collect();
    let r = sim.run(reqs.into_iter(), Replay::Closed { depth: 2 }, &mut TimerOnly, &mut |_| {}).unwrap();
    assert_eq!(r.requests, 50);
    assert!((r.span_s - 250e-9).abs() < 1e-15, "25 rounds of 10 ns: {}", r.span_s);
}

#[test]
fn progress_is_told_at_each_multiple_of_its_step_and_at_the_end() {
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.progress_every = 10;
    sim.add_device(Box::new(FixedDevice::new(1_000, 1)));
    // Open loop, every request at time 0 on one lane: one completion per event.
    let reqs: Vec<_> = (0..35).map(|i| req(0, i * 4096)).collect();
    let mut told = Vec::new();
    sim.run(reqs.into_iter(), Replay::Open, &mut Direct::default(), &mut |n| told.push(n)).unwrap();
    assert_eq!(told, vec![10, 20, 30, 35]);
}

/// Direct, plus a timer every `period_ns` for ever (a controller that ticks periodically).
struct Ticking {
    inner: Direct,
    period_ns: u64,
    ticks: u64,
}

impl Controller for Ticking {
    fn attach(&mut self, devices: &[DeviceInfo]) -> Result<(), SimError> {
        self.inner.attach(devices)
    }
    fn on_request(&mut self, now_ns: u64, host: HostId, index: u64, req: &IoRequest, io: &mut Io) -> Result<(), SimError> {
        if index == 0 {
            io.timer(now_ns + self.period_ns, 7);
        }
        self.inner.on_request(now_ns, host, index, req, io)
    }
    fn on_device_done(&mut self, now_ns: u64, device: usize, token: u64, io: &mut Io) {
        self.inner.on_device_done(now_ns, device, token, io)
    }
    fn on_timer(&mut self, now_ns: u64, _token: u64, io: &mut Io) {
        self.ticks += 1;
        io.timer(now_ns + self.period_ns, 7);
    }
}

#[test]
fn a_periodic_controller_ends_with_the_last_request() {
    let reqs: Vec<_> = (0..10).map(|i| req(i * 10_000_000, i * 4096)).collect();
    let mut c = Ticking { inner: Direct::default(), period_ns: 1_000_000, ticks: 0 };
    let mut sim = Simulation::new(SchedulerKind::Fcfs).end_with_last_request();
    sim.add_device(Box::new(FixedDevice::new(500_000, 1)));
    let r = sim.run(reqs.into_iter(), Replay::Open, &mut c, &mut |_| {}).unwrap();
    assert_eq!(r.requests, 10);
    // Ticks every 1 ms from 1 ms up to the last completion at 90.5 ms, then none.
    assert_eq!(c.ticks, 90);
    assert!((r.span_s - 0.0905).abs() < 1e-12);
}

#[test]
fn measurement_from_a_warm_up_instant_counts_only_what_follows() {
    // 100 requests 1 ms apart, 0.5 ms each; measure from 50 ms on.
    let reqs: Vec<_> = (0..100).map(|i| req(i * 1_000_000, i * 4096)).collect();
    let mut sim = Simulation::new(SchedulerKind::Fcfs).measure_from(50_000_000);
    sim.add_device(Box::new(FixedDevice::new(500_000, 1)));
    let r = sim.run(reqs.into_iter(), Replay::Open, &mut Direct::default(), &mut |_| {}).unwrap();
    assert_eq!(r.requests, 50);
    assert_eq!(r.response_time.count, 50);
    assert_eq!(r.devices[0].ops, 50);
    // 49.5 ms from 50 ms to the last completion at 99.5 ms; busy half of it.
    assert!((r.span_s - 0.0495).abs() < 1e-12, "{}", r.span_s);
    assert!((r.devices[0].utilisation - 50.0 * 0.5 / 49.5).abs() < 1e-9);
    // The device's counters are differences: 100 served in all, 50 at the checkpoint.
    assert_eq!(r.devices[0].device.counters["served"], 50.0);
    assert_eq!(r.devices[0].device.energy_j, 0.0);
}

#[test]
fn an_interrupt_stops_the_run_at_its_next_progress_point_and_the_next_run_at_once() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let flag = Arc::new(AtomicBool::new(false));
    let stop = flag.clone();
    std::thread::spawn(move || {
        crate::interrupt::on_this_thread(stop);
        let mut sim = Simulation::new(SchedulerKind::Fcfs);
        sim.progress_every = 10;
        sim.add_device(Box::new(FixedDevice::new(1_000, 1)));
        let reqs: Vec<_> = (0..35).map(|i| req(0, i * 4096)).collect();
        let mut told = Vec::new();
        let e = sim.run(reqs.into_iter(), Replay::Open, &mut Direct::default(), &mut |n| {
            told.push(n);
            if n >= 20 {
                flag.store(true, Ordering::Relaxed);
            }
        });
        assert!(matches!(e, Err(SimError::Interrupted)), "{e:?}");
        assert_eq!(told, vec![10, 20], "stopped at the progress point where the flag was seen");
        let mut again = Simulation::new(SchedulerKind::Fcfs);
        again.add_device(Box::new(FixedDevice::new(1_000, 1)));
        let e = again.run(vec![req(0, 0)].into_iter(), Replay::Open, &mut Direct::default(), &mut |_| {});
        assert!(matches!(e, Err(SimError::Interrupted)), "{e:?}");
    })
    .join()
    .unwrap();
}
