//! Every catalog drive streams sequential reads at queue depth 1 near its sustained media
//! rate, as drives do: the next request of the stream continues the read-ahead instead of
//! waiting for its sectors to come round again. Drives whose cache size or sustained rate
//! the catalog does not know (the 36Z15s, the Spinpoint F1) have no read-ahead or no rate
//! to hold them to, and are left out.

use tierlab_hdd::{Mechanics, ReadAheadMode};
use tierlab_devices::{catalog, hdd_spec, HddChoice};
use tierlab_engine::DeviceOp;
use tierlab_types::Op;

const MIB: f64 = 1024.0 * 1024.0;

/// MiB/s of `requests` back-to-back reads of `len_bytes` from block 0, each issued as the
/// one before it completes (queue depth 1), after the first.
fn stream_mib_s(spec: tierlab_hdd::HddSpec, len_bytes: u64, requests: u64) -> f64 {
    let mut m = Mechanics::new(spec).expect("a catalog drive builds");
    let mut now = m.access(0, &DeviceOp { op: Op::Read, offset_bytes: 0, len_bytes, fua: false }).done_ns;
    let start = now;
    for i in 1..=requests {
        now = m.access(now, &DeviceOp { op: Op::Read, offset_bytes: i * len_bytes, len_bytes, fua: false }).done_ns;
    }
    (requests * len_bytes) as f64 / MIB / ((now - start) as f64 / 1e9)
}

#[test]
fn every_catalog_drive_streams_sequential_reads_at_qd1_near_its_sustained_rate() {
    let cat = catalog(None).expect("the built-in catalog loads");
    let mut checked = 0;
    for entry in cat.hdds() {
        let Some(sustained_mb_s) = entry.transfer.sustained_max_mb_s else { continue };
        let spec = hdd_spec(&HddChoice { device: entry.id.clone(), ..HddChoice::default() }).expect("a catalog drive has a spec");
        if !spec.cache.enabled || spec.cache.read_ahead == ReadAheadMode::None {
            continue;
        }
        let sustained_mib_s = sustained_mb_s * 1e6 / MIB;
        for len_bytes in [64 * 1024, 1024 * 1024] {
            let got = stream_mib_s(spec.clone(), len_bytes, 400);
            assert!(got >= 0.8 * sustained_mib_s, "{}: {} KiB sequential reads at QD1 stream at {got:.1} MiB/s, under 80 % of the sustained {sustained_mib_s:.1} MiB/s", entry.id, len_bytes / 1024);
            assert!(got <= 1.001 * sustained_mib_s, "{}: {} KiB sequential reads at {got:.1} MiB/s, faster than the media's {sustained_mib_s:.1} MiB/s", entry.id, len_bytes / 1024);
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} catalog drives checked");
}

#[test]
fn the_default_disk_streams_64_kib_reads_at_qd1_above_80_mib_s_and_disksim_semantics_do_not() {
    let spec = hdd_spec(&HddChoice::default()).expect("the default disk");
    let streaming = stream_mib_s(spec.clone(), 64 * 1024, 1000);
    assert!(streaming >= 80.0, "{streaming:.1} MiB/s");
    let mut disksim = spec;
    disksim.cache.read_ahead_continues = false;
    let lost = stream_mib_s(disksim, 64 * 1024, 1000);
    assert!(lost < 0.5 * streaming, "DiskSim's semantics lose a revolution per request: {lost:.1} against {streaming:.1} MiB/s");
}
