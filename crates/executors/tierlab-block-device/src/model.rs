//! Modelled devices: the catalog's SSD and HDD models fed with the I/O the drive really
//! issues, at wall-clock time, to report energy and wear (labelled modelled), and — when
//! emulating — to delay each real I/O until the modelled device would have finished it,
//! as Hibernator's emulated storage server did.

use std::sync::Mutex;
use std::time::{Duration, Instant};
use tierlab_engine::{Device, DeviceOp, DeviceReport};
use tierlab_types::Op;

pub struct DeviceModel {
    inner: Mutex<Inner>,
    emulate: bool,
}

struct Inner {
    dev: Box<dyn Device + Send>,
    busy_until_ns: u64,
}

impl DeviceModel {
    pub fn new(dev: Box<dyn Device + Send>, emulate: bool) -> Self {
        DeviceModel { inner: Mutex::new(Inner { dev, busy_until_ns: 0 }), emulate }
    }

    /// Account one I/O issued at `now_ns` (since `epoch`); when emulating, sleep until the
    /// modelled device completes it.
    pub fn io(&self, epoch: Instant, now_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64) {
        let done_ns = {
            let Ok(mut m) = self.inner.lock() else { return };
            let cap = m.dev.capacity_bytes().max(1);
            let offset_bytes = offset_bytes % cap;
            let len_bytes = len_bytes.min(cap - offset_bytes).max(1);
            let start = now_ns.max(m.busy_until_ns);
            let done = m.dev.service(start, &DeviceOp { op, offset_bytes, len_bytes, fua: false });
            m.busy_until_ns = done;
            done
        };
        if self.emulate {
            let target = epoch + Duration::from_nanos(done_ns);
            let now = Instant::now();
            if target > now {
                std::thread::sleep(target - now);
            }
        }
    }

    /// The model's report, with energy accounted up to `now_ns`.
    pub fn report(&self, now_ns: u64) -> Option<DeviceReport> {
        let mut m = self.inner.lock().ok()?;
        let end = now_ns.max(m.busy_until_ns);
        m.dev.finish(end);
        Some(m.dev.report())
    }
}
