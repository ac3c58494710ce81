//! tierlab's HDD model as a probe target, timed in virtual time.

use crate::{ProbeError, Target};
use tierlab_hdd::{HddSpec, Mechanics};
use tierlab_engine::DeviceOp;
use tierlab_types::Op;

/// The model of one drive; each read is issued when the previous one completed.
pub struct ModelTarget {
    mech: Mechanics,
    now_ns: u64,
}

impl ModelTarget {
    /// The drive `spec` with its cache as specified (`cache = true`) or turned off with its
    /// read-ahead, as `sdparm --set RCD=1` turns a real drive's off.
    pub fn new(spec: HddSpec, cache: bool) -> Result<ModelTarget, ProbeError> {
        let spec = if cache { spec } else { spec.without_read_cache() };
        let mech = Mechanics::new(spec).map_err(|e| ProbeError::Unusable(format!("the drive's model: {}: {}", e.parameter, e.problem)))?;
        Ok(ModelTarget { mech, now_ns: 0 })
    }
}

impl Target for ModelTarget {
    fn sectors(&self) -> u64 {
        self.mech.spec().block_count
    }

    fn sector_bytes(&self) -> u64 {
        u64::from(self.mech.spec().sector_bytes)
    }

    fn read(&mut self, lbn: u64, n: u64) -> Result<u64, ProbeError> {
        let sb = self.sector_bytes();
        let op = DeviceOp { op: Op::Read, offset_bytes: lbn * sb, len_bytes: n * sb, fua: false };
        let a = self.mech.access(self.now_ns, &op);
        let took = a.done_ns.saturating_sub(self.now_ns);
        self.now_ns = a.done_ns.max(self.now_ns);
        Ok(took)
    }

    fn pause(&mut self, ns: u64) {
        self.now_ns += ns;
    }
}
