//! The host interface: every command's exchange and data cross one link, and the
//! controller starts no more commands a second than its rated IOPS. Drives without one
//! (FlashSim's study drive) and FTL comparisons are not limited.

use tierlab_engine::{Device, Direct, Replay, SchedulerKind, Simulation};
use tierlab_ssd::{compare_ftl, CompareOptions, FtlKind, Precondition, Ssd, SsdSpec};
use tierlab_types::{IoRequest, Op};

/// The span the requests address: preconditioned, so every read reaches the flash.
const SPAN: u64 = 2 << 30;

fn intel_spec() -> SsdSpec {
    tierlab_ssd::catalog::builtin("intel-320-300gb").unwrap_or_else(|e| panic!("{e}")).ssd
}

/// `spec`'s drive with the first [`SPAN`] bytes written once.
fn filled(spec: SsdSpec) -> Ssd {
    let mut ssd = Ssd::new(spec).unwrap_or_else(|e| panic!("{e}"));
    let occupancy = SPAN as f64 / ssd.spec().capacity_bytes() as f64;
    ssd.precondition(&Precondition { occupancy, random_overwrites: 0.0, seed: 1 }).unwrap_or_else(|e| panic!("{e}"));
    ssd
}

struct Measured {
    iops: f64,
    bytes_per_s: f64,
    mean_ns: f64,
    energy_j: f64,
}

/// `n` requests of `len` bytes, closed loop at `depth`: random (4 KiB aligned) within
/// [`SPAN`], or sequential from 0.
fn measure(device: &mut dyn Device, op: Op, n: u64, len: u64, random: bool, depth: u32) -> Measured {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let reqs = (0..n).map(move |i| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let offset_bytes = if random { (x >> 33) % (SPAN / 4096) * 4096 } else { i * len % SPAN };
        Ok::<_, std::convert::Infallible>(IoRequest { time_ns: 0, volume: 0, offset_bytes, len_bytes: len, op })
    });
    let mut sim = Simulation::new(SchedulerKind::Fcfs);
    sim.add_device(Box::new(device));
    let r = sim.run(reqs, Replay::Closed { depth }, &mut Direct::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let span_s = r.span_s.max(1e-12);
    Measured {
        iops: n as f64 / span_s,
        bytes_per_s: (r.read_bytes + r.write_bytes) as f64 / span_s,
        mean_ns: r.response_time.mean_ms * 1e6,
        energy_j: r.energy_j,
    }
}

#[test]
fn random_4k_reads_at_qd32_stay_within_the_rated_iops() {
    let m = measure(&mut filled(intel_spec()), Op::Read, 8_000, 4096, true, 32);
    assert!(m.iops <= 1.25 * 39_500.0 && m.iops > 0.9 * 39_500.0, "{} IOPS", m.iops);
}

#[test]
fn large_sequential_reads_stay_within_the_link() {
    // SATA 3 Gb/s: 300 MB/s of data after 8b/10b coding.
    let m = measure(&mut filled(intel_spec()), Op::Read, 1_000, 1 << 20, false, 32);
    assert!(m.bytes_per_s <= 300e6 && m.bytes_per_s > 0.95 * 300e6, "{} B/s", m.bytes_per_s);
}

#[test]
fn unbuffered_writes_cross_the_link_before_their_programs() {
    // Without its buffer the NAND could take 128 KiB writes faster than the link carries them.
    let spec = SsdSpec { write_buffer: None, ..intel_spec() };
    let m = measure(&mut filled(spec), Op::Write, 2_000, 128 << 10, false, 32);
    assert!(m.bytes_per_s <= 300e6, "{} B/s", m.bytes_per_s);
}

#[test]
fn a_lone_read_pays_its_exchange_and_transfer_after_the_flash() {
    let with = measure(&mut filled(intel_spec()), Op::Read, 300, 4096, true, 1);
    let without = measure(&mut filled(SsdSpec { host: None, ..intel_spec() }), Op::Read, 300, 4096, true, 1);
    // 1,000 ns of exchange and 4 KiB at 300 MB/s (13,654 ns) after the data are read.
    assert!((with.mean_ns - without.mean_ns - 14_654.0).abs() < 1.0, "{} vs {}", with.mean_ns, without.mean_ns);
}

#[test]
fn drives_without_a_host_interface_and_ftl_comparisons_are_not_limited() {
    assert_eq!(SsdSpec::study_slc(64, FtlKind::Page).host, None);
    let requests: Vec<IoRequest> = (0..400u64)
        .map(|i| IoRequest { time_ns: i * 1_000, volume: 0, offset_bytes: i * 8192 % SPAN, len_bytes: 1 << 20, op: Op::Read })
        .collect();
    let precondition = Precondition { occupancy: 0.05, random_overwrites: 0.0, seed: 1 };
    let opts = CompareOptions { ftls: vec![FtlKind::Dftl], precondition, ..CompareOptions::default() };
    let mut spec = intel_spec();
    spec.geometry.blocks_per_plane = 48;
    let limited = compare_ftl(|| requests.iter().copied(), &spec, &opts).unwrap_or_else(|e| panic!("{e}"));
    let unlimited = compare_ftl(|| requests.iter().copied(), &SsdSpec { host: None, ..spec }, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(format!("{:?}", limited.runs), format!("{:?}", unlimited.runs));
}

/// At the load the data sheets rate (random 4 KiB reads at QD32) the internals, which
/// count NAND operations and idle power, spend no less a request than the data sheet's
/// active power spread over its rated IOPS (the catalog's cited full-load figures).
#[test]
fn energy_a_request_at_load_is_not_below_the_data_sheets() {
    for id in ["intel-320-300gb", "samsung-990pro-1tb"] {
        let entry = tierlab_ssd::catalog::builtin(id).unwrap_or_else(|e| panic!("{e}"));
        let sheet = entry.datasheet.clone().unwrap_or_else(|| panic!("{id}: no [datasheet]"));
        let n = 8_000;
        let m = measure(&mut filled(entry.ssd), Op::Read, n, 4096, true, 32);
        let per_request = m.energy_j / n as f64;
        let rated = sheet.active_read_w / sheet.read_iops as f64;
        assert!(per_request >= rated, "{id}: {per_request} J a request against {rated} J at the data sheet's full load ({} IOPS)", m.iops);
    }
}

#[test]
fn host_interfaces_are_checked_and_must_agree_with_the_buffer() {
    let mut spec = intel_spec();
    spec.host.as_mut().map(|h| h.read_iops = Some(0));
    assert!(Ssd::new(spec).err().map(|e| e.to_string()).is_some_and(|e| e.contains("host.read_iops")));
    let mut spec = intel_spec();
    spec.host.as_mut().map(|h| h.link_bytes_per_s = 600_000_000);
    let e = Ssd::new(spec).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("write_buffer.host_bytes_per_s") && e.contains("600000000"), "{e}");
}
