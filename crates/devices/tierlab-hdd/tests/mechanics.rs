//! Timing behaviour of `Mechanics` on a drive whose numbers are easy to check by hand:
//! 6000 rpm (10 ms per revolution), 100 sectors per track in the outer zone.

mod common;
use common::*;
use proptest::prelude::*;
use tierlab_hdd::*;
use tierlab_engine::{Device, DeviceCommand, DeviceOp};
use tierlab_types::Op;

const REV_NS: u64 = 10_000_000;

fn op(op: Op, lbn: u64, blocks: u64) -> DeviceOp {
    DeviceOp { op, offset_bytes: lbn * 512, len_bytes: blocks * 512, fua: false }
}

#[test]
fn rotational_latency_follows_the_platter_angle() {
    let mut m = Mechanics::new(small_spec()).expect("valid");
    // At t = 0 the head is over sector 0 of track 0: no wait, 10 sectors take 1 ms.
    let a = m.access(0, &op(Op::Read, 0, 10));
    assert_eq!((a.seek_ns, a.rotate_ns), (0, 0));
    assert_eq!(a.done_ns, 1_000_000);
    // Issued at 1 ms, block 5 (sector 5) passed 0.5 ms ago: wait 9.5 ms.
    let a = m.access(1_000_000, &op(Op::Read, 5, 1));
    assert_eq!(a.rotate_ns, 9_500_000);
    assert_eq!(a.done_ns, 1_000_000 + 9_500_000 + 100_000);
}

#[test]
fn latency_is_never_more_than_a_revolution() {
    let mut m = Mechanics::new(small_spec()).expect("valid");
    let mut t = 0;
    for i in 0..200u64 {
        let a = m.access(t, &op(Op::Read, (i * 7919) % 30_000, 1));
        assert!(a.rotate_ns <= REV_NS, "{a:?}");
        let parts = a.seek_ns + a.rotate_ns + a.transfer_ns;
        assert!((a.done_ns - t).abs_diff(parts) <= 3, "no overheads in this spec: {a:?}");
        t = a.done_ns + 1_234_567;
    }
}

#[test]
fn skew_lets_a_transfer_cross_tracks_without_losing_a_revolution() {
    let mut m = Mechanics::new(small_spec()).expect("valid");
    // 100 + 100 blocks: track 0 then track 1 (head switch 0.2 ms < skew of 4 sectors).
    let a = m.access(0, &op(Op::Read, 0, 200));
    assert_eq!(a.done_ns, 2 * REV_NS + 400_000, "two revolutions plus the 4-sector skew");
    assert_eq!(a.seek_ns, 200_000);
}

#[test]
fn seek_time_comes_from_the_curve() {
    let mut m = Mechanics::new(small_spec()).expect("valid");
    // Zone 1: 50 cylinders × 400 blocks; zone 2: 320 blocks per cylinder.
    let lbn = 20_000 + 320 * 24;
    let a = m.access(0, &op(Op::Read, lbn, 1));
    assert_eq!(m.cylinder_of(lbn * 512), 74);
    assert_eq!(m.current_cylinder(), 74);
    // Table (1, 1 ms) .. (99, 10 ms): distance 74 → 1 + 73 × 9/98 ms.
    let expect = (1.0 + 73.0 * 9.0 / 98.0) * 1e6;
    assert!((a.seek_ns as f64 - expect).abs() < 2.0, "{} vs {expect}", a.seek_ns);
}

#[test]
fn halving_the_speed_doubles_rotation_but_not_seeks() {
    let mut fast = Mechanics::new(small_spec()).expect("valid");
    let mut slow = Mechanics::new(small_spec()).expect("valid");
    slow.set_rpm(3000.0).expect("valid rpm");
    assert!(slow.set_rpm(-1.0).is_err());
    let a = fast.access(0, &op(Op::Read, 0, 100));
    let b = slow.access(0, &op(Op::Read, 0, 100));
    assert_eq!(b.transfer_ns, 2 * a.transfer_ns);
    let a = fast.access(a.done_ns, &op(Op::Read, 400 * 30, 1));
    let b = slow.access(b.done_ns, &op(Op::Read, 400 * 30, 1));
    assert_eq!(a.seek_ns, b.seek_ns);
}

#[test]
fn overheads_depend_on_operation_hit_and_previous_operation() {
    let mut s = with_cache(small_spec());
    s.overheads.read_miss_after_read_ms = 0.5;
    s.overheads.read_miss_after_write_ms = 0.7;
    s.overheads.read_hit_after_read_ms = 0.1;
    s.overheads.read_hit_after_write_ms = 0.3;
    s.cache.read_ahead = ReadAheadMode::None;
    let mut m = Mechanics::new(s).expect("valid");
    let a = m.access(0, &op(Op::Read, 0, 10));
    assert_eq!(a.overhead_ns, 500_000);
    let b = m.access(a.done_ns, &op(Op::Read, 0, 10));
    assert!(b.cache_hit);
    assert_eq!(b.overhead_ns, 100_000);
    assert_eq!(b.done_ns - a.done_ns, 100_000, "a hit with a free bus costs its overhead only");
    let c = m.access(b.done_ns, &op(Op::Write, 5000, 1));
    let d = m.access(c.done_ns + REV_NS, &op(Op::Read, 0, 10));
    assert!(!d.cache_hit || d.overhead_ns == 300_000);
    let e = m.access(d.done_ns, &op(Op::Write, 9000, 1));
    let f = m.access(e.done_ns, &op(Op::Read, 20_000, 1));
    assert_eq!(f.overhead_ns, 700_000);
}

#[test]
fn read_ahead_turns_the_next_sequential_read_into_a_hit() {
    let mut m = Mechanics::new(with_cache(small_spec())).expect("valid");
    let a = m.access(0, &op(Op::Read, 1000, 8));
    assert!(!a.cache_hit);
    // 50 ms later the read-ahead (200 blocks) is done.
    let b = m.access(a.done_ns + 50_000_000, &op(Op::Read, 1008, 8));
    assert!(b.cache_hit, "{b:?}");
    assert_eq!(b.seek_ns + b.rotate_ns + b.transfer_ns, 0);
    // Beyond the read-ahead: a miss.
    let c = m.access(b.done_ns + 50_000_000, &op(Op::Read, 5000, 8));
    assert!(!c.cache_hit);
    assert_eq!(m.stats().read_full_hits, 1);
}

/// Track-ahead read-ahead (DiskSim's scheme 4) reads to the end of the track whatever the
/// segment holds, and the segment keeps the last blocks read: with 20-block segments and
/// 100-sector tracks, the blocks right after an isolated read in mid-track are gone again
/// when the pass ends, and only the track's last 20 blocks are held.
#[test]
fn track_ahead_read_ahead_keeps_only_the_tracks_tail_in_a_small_segment() {
    let mut s = with_cache(small_spec());
    s.cache.read_ahead = ReadAheadMode::TrackAhead;
    s.cache.segment_blocks = 20;
    s.cache.max_read_ahead_blocks = 20;
    s.cache.read_ahead_over_requested = false;
    let after_isolated_read = |s: &HddSpec, lbn: u64| {
        let mut m = Mechanics::new(s.clone()).expect("valid");
        let a = m.access(0, &op(Op::Read, 10, 4));
        m.access(a.done_ns + 50_000_000, &op(Op::Read, lbn, 4)).cache_hit
    };
    assert!(!after_isolated_read(&s, 14), "the next blocks were read ahead, then wrapped out");
    assert!(after_isolated_read(&s, 90), "the track's last 20 blocks stay");
    assert!(!after_isolated_read(&s, 100), "the next track was not read: the segment began on this one");
    // Without track-ahead the pass stops at the maximum read-ahead and the next blocks hit.
    s.cache.read_ahead = ReadAheadMode::SegmentFull;
    assert!(after_isolated_read(&s, 14));
}

#[test]
fn a_read_just_after_a_miss_continues_the_read_ahead_stream() {
    let mut m = Mechanics::new(with_cache(small_spec())).expect("valid");
    let a = m.access(0, &op(Op::Read, 0, 10)); // done at 1 ms, read-ahead runs on
    let b = m.access(a.done_ns + 500_000, &op(Op::Read, 10, 10)); // blocks 10..15 already read
    assert!(!b.cache_hit);
    assert_eq!(b.done_ns, 2_000_000, "served as the head passes, with no new positioning");
}

/// A drive with DiskSim's extra write disconnect starts a write's media pass only once
/// min(n, 10) of its blocks are in the buffer. Data arrives at 0.2 ms a block, the media
/// takes 0.1 ms a sector: a 10-block write to sector 15 (under the head at 1.5 ms) could
/// start there if the media only had to stay behind the data (1.1 ms), but waiting for
/// 10 blocks (2.0 ms) misses it by a revolution.
#[test]
fn a_write_waits_for_its_buffered_blocks_on_drives_with_the_extra_write_disconnect() {
    let done = |buffered: u64| {
        let mut s = small_spec();
        s.bus_write_ms_per_sector = 0.2;
        s.overheads.never_disconnect = false;
        s.overheads.extra_write_disconnect = Some(ExtraWriteDisconnect {
            command_ms: 0.0,
            disconnect_ms: 0.0,
            inter_disconnect_ms: 0.0,
            seek_delta_ms: 0.0,
            buffered_before_write_blocks: buffered,
            buffered_before_large_write_blocks: 15,
            large_write_blocks: 45,
        });
        let mut m = Mechanics::new(s).expect("valid");
        m.access(0, &op(Op::Write, 15, 10)).media_done_ns
    };
    assert_eq!(done(1), 2_500_000);
    assert_eq!(done(10), 12_500_000);
    let x = ExtraWriteDisconnect { command_ms: 0.0, disconnect_ms: 0.0, inter_disconnect_ms: 0.0, seek_delta_ms: 0.0, buffered_before_write_blocks: 10, buffered_before_large_write_blocks: 15, large_write_blocks: 45 };
    assert_eq!([x.buffered_before_write(4), x.buffered_before_write(44), x.buffered_before_write(45)], [4, 10, 15]);
}

#[test]
fn write_back_reports_before_the_media_and_fua_waits_for_it() {
    let mut s = with_cache(small_spec());
    s.cache.write_back = true;
    s.bus_write_ms_per_sector = 0.01;
    let mut m = Mechanics::new(s).expect("valid");
    let w = m.access(5_000_000, &op(Op::Write, 30_000, 8));
    assert!(w.write_back);
    assert_eq!(w.done_ns, 5_000_000 + 80_000);
    assert!(w.media_done_ns > w.done_ns);
    assert_eq!(m.flush(w.done_ns), w.media_done_ns);
    let mut fua = op(Op::Write, 30_000, 8);
    fua.fua = true;
    let f = m.access(w.media_done_ns, &fua);
    assert!(!f.write_back);
    assert_eq!(f.done_ns, f.media_done_ns);
    // Written data serves reads.
    let r = m.access(f.done_ns, &op(Op::Read, 30_002, 4));
    assert!(r.cache_hit);
}

#[test]
fn a_request_waits_for_the_background_write() {
    let mut s = small_spec();
    s.cache = with_cache(small_spec()).cache;
    s.cache.write_back = true;
    let mut m = Mechanics::new(s).expect("valid");
    let w = m.access(0, &op(Op::Write, 79 * 400, 50));
    let r = m.access(w.done_ns, &op(Op::Read, 0, 1));
    assert!(r.done_ns > w.media_done_ns, "the arm is busy with the write until {}", w.media_done_ns);
}

#[test]
fn zero_latency_read_starts_where_the_head_lands() {
    let mut s = small_spec();
    s.cache.zero_latency_read = true;
    let mut m = Mechanics::new(s).expect("valid");
    // At 5 ms the head is over sector 50 of track 0; reading sectors 0..100 takes one
    // revolution from there instead of 5 ms waiting + 10 ms reading.
    let a = m.access(5_000_000, &op(Op::Read, 0, 100));
    assert_eq!(a.done_ns, 15_000_000);
}

#[test]
fn datasheet_drive_is_plausible() {
    let d = Datasheet {
        name: "4TB 7200".into(),
        capacity_bytes: 4_000_000_000_000,
        rpm: 7200.0,
        seek_single_track_ms: None,
        seek_average_ms: 8.5,
        seek_full_stroke_ms: None,
        sustained_transfer_mb_s: 200.0,
        cache_mib: 64.0,
        sector_bytes: 512,
        timing: DatasheetTiming::default(),
        layout: None,
    };
    let s = HddSpec::from_datasheet(&d).expect("valid");
    assert_eq!(s.block_count, 4_000_000_000_000 / 512);
    assert!(s.zones.windows(2).all(|w| w[0].blocks_per_track > w[1].blocks_per_track), "outer zones are faster");
    let outer_mb_s = f64::from(s.zones[0].blocks_per_track) * 512.0 * 7200.0 / 60.0 / 1e6;
    assert!((outer_mb_s - 200.0).abs() < 0.5, "outer zone media rate {outer_mb_s}");
    let mut m = Mechanics::new(s).expect("valid");
    assert_eq!(m.capacity_bytes(), 4_000_000_000_000);
    // A long sequential read at the outer edge runs near the sustained rate.
    let a = m.access(0, &op(Op::Read, 0, 200_000));
    let mb_s = 200_000.0 * 512.0 / (a.done_ns as f64 / 1e9) / 1e6;
    assert!(mb_s > 150.0 && mb_s <= 200.5, "{mb_s} MB/s");
    let mut bad = d.clone();
    bad.rpm = f64::NAN;
    assert_eq!(HddSpec::from_datasheet(&bad).unwrap_err().parameter, "rpm");
}

fn datasheet_18gb(timing: DatasheetTiming) -> Datasheet {
    Datasheet {
        name: "18GB 15k".into(),
        capacity_bytes: 18_000_000_000,
        rpm: 15_000.0,
        seek_single_track_ms: None,
        seek_average_ms: 3.4,
        seek_full_stroke_ms: None,
        sustained_transfer_mb_s: 80.0,
        cache_mib: 0.0,
        sector_bytes: 512,
        timing,
        layout: None,
    }
}

fn outer_and_inner_mb_s(s: &HddSpec) -> (f64, f64) {
    let rate = |z: &ZoneSpec| f64::from(z.blocks_per_track) * 512.0 * s.rpm / 60.0 / 1e6;
    (rate(&s.zones[0]), rate(s.zones.last().unwrap()))
}

#[test]
fn datasheet_timing_defaults_to_the_documented_rule() {
    let d = datasheet_18gb(DatasheetTiming::default());
    let s = HddSpec::from_datasheet(&d).expect("valid");
    assert_eq!(s.zones.len(), 16);
    let (outer, inner) = outer_and_inner_mb_s(&s);
    assert_eq!(outer, 80.0);
    assert!((inner / outer - 0.55).abs() < 0.002, "{inner} / {outer}");
    assert_eq!(s.overheads.read_miss_after_read_ms, 0.1);
    assert!(s.cache.zero_latency_read);
    assert_eq!(s.seek, SeekModel::Datasheet { single_track_ms: 0.2 * 3.4, average_ms: 3.4, full_stroke_ms: 6.8 });
    // A datasheet written before `timing` existed reads as the default.
    let mut json = serde_json::to_value(&d).unwrap();
    json.as_object_mut().unwrap().remove("timing");
    let old: Datasheet = serde_json::from_value(json).unwrap();
    assert_eq!(HddSpec::from_datasheet(&old).unwrap(), s);
}

#[test]
fn one_published_rate_gives_one_zone_at_that_rate() {
    let one = DatasheetTiming { inner_transfer_mb_s: Some(80.0), ..DatasheetTiming::default() };
    let s = HddSpec::from_datasheet(&datasheet_18gb(one)).expect("valid");
    assert_eq!(s.zones.len(), 1);
    assert_eq!(s.zones[0].blocks_per_track, 625, "80 MB/s x 4 ms / 512 B");
    assert_eq!(outer_and_inner_mb_s(&s), (80.0, 80.0));
    // 18e9 B / 512 B = 35,156,250 blocks on 2 surfaces x 625 = exactly 28,125 cylinders.
    assert_eq!((s.surfaces, s.cylinders, s.zones[0].spares), (2, 28_125, 0));
    // A published inner rate below the outer one: zones step down to it.
    let zoned = DatasheetTiming { inner_transfer_mb_s: Some(40.0), ..DatasheetTiming::default() };
    let s = HddSpec::from_datasheet(&datasheet_18gb(zoned)).expect("valid");
    assert_eq!(s.zones.len(), 16);
    let (outer, inner) = outer_and_inner_mb_s(&s);
    assert_eq!(outer, 80.0);
    assert!((inner - 40.0).abs() < 0.1, "{inner}");
}

#[test]
fn overhead_and_zero_latency_follow_the_timing() {
    let t = DatasheetTiming { command_overhead_ms: 0.0, zero_latency_read: false, ..DatasheetTiming::default() };
    let s = HddSpec::from_datasheet(&datasheet_18gb(t)).expect("valid");
    let o = &s.overheads;
    for ms in [o.read_hit_after_read_ms, o.read_miss_after_write_ms, o.write_hit_after_write_ms, o.write_miss_after_read_ms, o.per_request_ms] {
        assert_eq!(ms, 0.0);
    }
    assert!(!s.cache.zero_latency_read);
    // Without zero-latency reads a whole-track read waits for its first sector.
    let mut m = Mechanics::new(s).expect("valid");
    let a = m.access(1_000_000, &op(Op::Read, 0, 625));
    assert_eq!(a.overhead_ns, 0);
    assert_eq!((a.rotate_ns, a.transfer_ns), (3_000_000, 4_000_000), "wait 3/4 revolution, then read one");
}

/// Mean seek time between two of the first `n` cylinders drawn uniformly at random.
fn random_mean_ms(curve: &SeekCurve, n: u32) -> f64 {
    let nf = f64::from(n);
    (1..n).map(|d| 2.0 * (nf - f64::from(d)) / (nf * nf) * curve.ns(d)).sum::<f64>() / 1e6
}

#[test]
fn random_mean_seek_makes_random_seeks_average_the_datasheet_figure() {
    let third = HddSpec::from_datasheet(&datasheet_18gb(DatasheetTiming { inner_transfer_mb_s: Some(80.0), ..DatasheetTiming::default() })).unwrap();
    let t = DatasheetTiming { inner_transfer_mb_s: Some(80.0), average_seek: AverageSeek::RandomMean, ..DatasheetTiming::default() };
    let mean = HddSpec::from_datasheet(&datasheet_18gb(t)).unwrap();
    let n = mean.cylinders;
    let (c3, cm) = (SeekCurve::new(&third.seek, n), SeekCurve::new(&mean.seek, n));
    // The third-of-stroke reading averages less than the figure over random seeks
    // (the curve is concave); the random-mean fit averages the figure itself.
    let m3 = random_mean_ms(&c3, n);
    assert!(m3 < 3.35, "{m3}");
    let mm = random_mean_ms(&cm, n);
    assert!((mm - 3.4).abs() < 1e-4, "{mm}");
    // Both curves keep the single-track and full-stroke figures.
    for c in [&c3, &cm] {
        assert!((c.ns(1) - 0.68e6).abs() < 1.0);
        assert!((c.ns(n - 1) - 6.8e6).abs() < 1.0);
    }
    // A zoned drive with spare cylinders at the end: the mean is over those with data.
    let zoned = DatasheetTiming { average_seek: AverageSeek::RandomMean, ..DatasheetTiming::default() };
    let s = HddSpec::from_datasheet(&datasheet_18gb(zoned)).unwrap();
    let last = s.zones.last().unwrap();
    let spare_cyls = last.spares / (u64::from(s.surfaces) * u64::from(last.blocks_per_track));
    assert!(spare_cyls > 0);
    let data = s.cylinders - spare_cyls as u32;
    let mm = random_mean_ms(&SeekCurve::new(&s.seek, s.cylinders), data);
    assert!((mm - 3.4).abs() < 1e-3, "{mm}");
}

#[test]
fn impossible_timing_is_named() {
    let bad = |t: DatasheetTiming| HddSpec::from_datasheet(&datasheet_18gb(t)).unwrap_err().parameter;
    assert_eq!(bad(DatasheetTiming { inner_transfer_mb_s: Some(81.0), ..DatasheetTiming::default() }), "timing.inner_transfer_mb_s");
    assert_eq!(bad(DatasheetTiming { inner_transfer_mb_s: Some(0.0), ..DatasheetTiming::default() }), "timing.inner_transfer_mb_s");
    assert_eq!(bad(DatasheetTiming { command_overhead_ms: -0.1, ..DatasheetTiming::default() }), "timing.command_overhead_ms");
    assert_eq!(bad(DatasheetTiming { command_overhead_ms: f64::NAN, ..DatasheetTiming::default() }), "timing.command_overhead_ms");
}

#[test]
fn idle_policy_and_speed_of_a_drive_without_power_figures() {
    let mut dev = HddDevice::new("disk0", Mechanics::new(small_spec()).expect("valid"));
    assert_eq!(dev.set_idle_policy(0, tierlab_power::IdlePolicy::never()), Ok(()));
    assert!(dev.set_idle_policy(0, tierlab_power::IdlePolicy::after(1, 0)).is_err());
    assert!(dev.set_speed_level(0, 0).is_err());
    assert_eq!(dev.command(5, DeviceCommand::SetSpeedLevel(0)), 5);
    assert_eq!(dev.mechanics().rpm(), 6000.0);
}

#[test]
fn device_wrapper_reports_and_flushes() {
    let mut dev = HddDevice::new("disk0", Mechanics::new(with_cache(small_spec())).expect("valid"));
    assert_eq!(dev.capacity_bytes(), 36_000 * 512);
    let t = dev.service(0, &op(Op::Read, 0, 8));
    assert!(t > 0);
    assert_eq!(dev.command(t, DeviceCommand::FlushCache), t);
    assert_eq!(dev.position_key(400 * 512), 1);
    dev.finish(t);
    let r = dev.report();
    assert_eq!(r.kind, "hdd");
    assert_eq!(r.counters.get("reads"), Some(&1.0));
}

proptest! {
    #[test]
    fn any_request_sequence_completes_after_it_is_issued(
        reqs in prop::collection::vec((any::<bool>(), any::<u64>(), 0u64..2_000_000, 0u64..50_000_000, any::<bool>()), 1..40),
        cache in any::<bool>(), zl in any::<bool>(), wb in any::<bool>())
    {
        let mut s = if cache { with_cache(small_spec()) } else { small_spec() };
        s.cache.zero_latency_read = zl;
        s.cache.write_back = wb && cache;
        s.bus_read_ms_per_sector = 0.02;
        let mut m = Mechanics::new(s).expect("valid");
        let mut t = 0u64;
        for (w, off, len, gap, fua) in reqs {
            let d = DeviceOp { op: if w { Op::Write } else { Op::Read }, offset_bytes: off, len_bytes: len, fua };
            let a = m.access(t, &d);
            prop_assert!(a.done_ns >= t);
            prop_assert!(a.done_ns - t < 10_000_000_000, "{:?}", a);
            t = a.done_ns + gap;
        }
    }
}

#[test]
fn read_ahead_stopped_inside_a_sector_finishes_it_unless_allowed_to_stop_there() {
    // Read-ahead after blocks 0..10 reads sector 11 from 1.1 to 1.2 ms. A read of sector 2
    // of cylinder 1 (1.05 ms away; it passes the head at 2.2 ms) issued at 1.12 ms makes it
    // if the arm is free at once, and misses it by a revolution if sector 11 must finish.
    let run = |stop_in_sector: bool| {
        let mut s = with_cache(small_spec());
        s.seek = SeekModel::Table { points: vec![(1, 1.05), (99, 10.0)] };
        s.cache.stop_prefetch_in_sector = stop_in_sector;
        let mut m = Mechanics::new(s).expect("valid");
        assert_eq!(m.access(0, &op(Op::Read, 0, 10)).done_ns, 1_000_000);
        m.access(1_120_000, &op(Op::Read, 402, 1)).done_ns
    };
    assert_eq!(run(true), 2_300_000);
    assert_eq!(run(false), 12_300_000);
}

#[test]
fn a_read_ahead_stopped_mid_switch_finishes_the_switch() {
    // Blocks 0..100 fill track 0 and are read by 10 ms; the read-ahead then switches to
    // track 1 from 10.0 to 10.2 ms. A read of block 491 on cylinder 1 (a 1 ms seek; it
    // passes the head at 11.1 ms) issued at 10.05 ms makes it only if the arm could leave
    // before the switch ends: it cannot, so the read waits a revolution.
    for stop_in_sector in [true, false] {
        let mut s = with_cache(small_spec());
        s.cache.stop_prefetch_in_sector = stop_in_sector;
        let mut m = Mechanics::new(s).expect("valid");
        assert_eq!(m.access(0, &op(Op::Read, 0, 100)).done_ns, REV_NS);
        assert_eq!(m.access(10_050_000, &op(Op::Read, 491, 1)).done_ns, 21_200_000, "stop in sector {stop_in_sector}");
    }
}

/// A sequential stream read one request at a time, each issued as the one before it
/// completes, back to back or skipping a few sectors each time: on a drive whose
/// read-ahead continues for it no revolution is lost after the first request; under
/// DiskSim's semantics (the default) each request loses most of one.
#[test]
fn back_to_back_sequential_reads_continue_the_read_ahead_where_the_drive_streams() {
    let d = Datasheet {
        name: "sequential".into(),
        capacity_bytes: 4_000_000_000,
        rpm: 10_000.0,
        seek_single_track_ms: Some(0.3),
        seek_average_ms: 4.6,
        seek_full_stroke_ms: None,
        sustained_transfer_mb_s: 89.5,
        cache_mib: 8.0,
        sector_bytes: 512,
        timing: DatasheetTiming::default(),
        layout: None,
    };
    let spec = HddSpec::from_datasheet(&d).expect("valid");
    let spt = f64::from(spec.zones[0].blocks_per_track);
    // 256 sectors of a track of `spt` at 6 ms a revolution.
    let media_ms = 256.0 / spt * 6.0;
    // Requests of 256 sectors every `stride` sectors: 256 is back to back; 264 skips 8
    // sectors each time, as a RAID-5 disk's reads skip a 4 KB parity chunk.
    let mean_ms = |continues: bool, stride: u64| {
        let mut s = spec.clone();
        s.cache.read_ahead_continues = continues;
        let mut m = Mechanics::new(s).expect("valid");
        let mut now = 0;
        let mut took = Vec::new();
        for i in 0..16u64 {
            let a = m.access(now, &DeviceOp { op: Op::Read, offset_bytes: i * stride * 512, len_bytes: 256 * 512, fua: false });
            took.push((a.done_ns - now) as f64 / 1e6);
            now = a.done_ns;
        }
        took[1..].iter().sum::<f64>() / 15.0
    };
    let skip_ms = 8.0 / spt * 6.0;
    assert!(mean_ms(true, 256) < media_ms * 1.15, "{} ms against {media_ms} ms of media time", mean_ms(true, 256));
    assert!(mean_ms(true, 264) < (media_ms + skip_ms) * 1.15, "a skip of 8 sectors: {} ms", mean_ms(true, 264));
    assert!(mean_ms(false, 256) > media_ms + 2.0, "DiskSim's semantics lose rotation: {} ms", mean_ms(false, 256));
    assert!(mean_ms(false, 264) > media_ms + 2.0, "DiskSim's semantics lose rotation: {} ms", mean_ms(false, 264));
}

/// A disconnected read miss pays the disconnect figure of the operation before it, as
/// DiskSim charges it (Read disconnect afterread / afterwrite).
#[test]
fn a_read_miss_disconnects_at_the_cost_set_for_what_came_before() {
    let mut s = small_spec();
    s.overheads.never_disconnect = false;
    s.overheads.read_disconnect_ms = 0.2;
    s.overheads.read_disconnect_after_write_ms = 0.9;
    let mut m = Mechanics::new(s).expect("valid");
    // Same sector, read again a whole number of revolutions later, so each read waits
    // alike for the platter: only the disconnect differs.
    let a = m.access(0, &op(Op::Read, 0, 1));
    let t = 10 * REV_NS;
    let after_read = m.access(t, &op(Op::Read, 0, 1)).done_ns - t;
    let w = m.access(20 * REV_NS, &op(Op::Write, 50, 1));
    let t = (w.done_ns / REV_NS + 1) * REV_NS + 10 * REV_NS;
    let after_write = m.access(t, &op(Op::Read, 0, 1)).done_ns - t;
    assert!(a.done_ns > 0);
    assert_eq!(after_write - after_read, 700_000, "{after_read} ns after a read, {after_write} ns after a write");
}

/// A positioning estimate leaves the drive as it was, and is what serving then costs in
/// seek and rotation.
#[test]
fn a_positioning_estimate_changes_nothing_and_matches_the_access() {
    let mut m = Mechanics::new(small_spec()).expect("valid");
    m.access(0, &op(Op::Read, 0, 10));
    let next = op(Op::Read, 12_345, 4);
    let t = 3 * REV_NS + 1_234_567;
    let before = m.clone();
    let est = m.positioning_ns(t, &next);
    let twice = m.positioning_ns(t, &next);
    let a = m.access(t, &next);
    assert_eq!((est, twice), (a.seek_ns + a.rotate_ns, est), "the estimate moved the drive, or differs from the access");
    assert!(est > 0);
    let mut again = before;
    assert_eq!(again.access(t, &next).done_ns, a.done_ns);
}

/// With command queueing (SPTF among the 32 oldest) a disk serves deep random queues
/// faster than in arrival order or in cylinder order, by choosing the request it reaches
/// first; at depth 1 there is nothing to choose.
#[test]
fn command_queueing_serves_deep_random_queues_fastest() {
    use tierlab_engine::{Direct, Replay, SchedulerKind, Simulation};
    let spec = small_spec();
    let blocks = spec.block_count;
    let iops = |kind: SchedulerKind, depth: u32| {
        let mut sim = Simulation::new(kind);
        sim.add_device(Box::new(HddDevice::new("d", Mechanics::new(small_spec()).expect("valid"))));
        // A fixed pseudo-random sequence of 1-block reads over the whole disk.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let reqs: Vec<Result<tierlab_types::IoRequest, std::io::Error>> = (0..3000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                Ok(tierlab_types::IoRequest { time_ns: 0, volume: 0, offset_bytes: (x % blocks) * 512, len_bytes: 512, op: Op::Read })
            })
            .collect();
        sim.run(reqs.into_iter(), Replay::Closed { depth }, &mut Direct::default(), &mut |_| {}).expect("run").throughput_iops
    };
    let (fcfs, clook, sptf) = (iops(SchedulerKind::Fcfs, 16), iops(SchedulerKind::Clook, 16), iops(SchedulerKind::Sptf, 16));
    assert!(sptf > 1.2 * clook && clook > fcfs, "depth 16: sptf {sptf:.1}, clook {clook:.1}, fcfs {fcfs:.1} IOPS");
    // Behind a host elevator the drive holds all 16 as well: the same choices.
    assert_eq!(iops(SchedulerKind::ClookLbaSptf, 16), sptf);
    assert_eq!(iops(SchedulerKind::Sptf, 1), iops(SchedulerKind::Fcfs, 1));
}

/// A write-back drive with 4 segments of 400 blocks (`with_cache`): scattered 8-block
/// writes issued back to back, each as the one before completes.
fn scattered_write_backs(s: HddSpec, count: u64) -> (Mechanics, Vec<Access>) {
    let mut m = Mechanics::new(s).expect("valid");
    let mut t = 0;
    let mut out = Vec::new();
    for i in 0..count {
        let a = m.access(t, &op(Op::Write, 1_000 + i * 7_919, 8));
        t = a.done_ns;
        out.push(a);
    }
    (m, out)
}

fn write_back_spec() -> HddSpec {
    let mut s = with_cache(small_spec());
    s.cache.write_back = true;
    s
}

#[test]
fn write_back_data_fills_every_segment_and_then_a_write_waits_for_the_oldest() {
    let (m, w) = scattered_write_backs(write_back_spec(), 6);
    for a in &w[..4] {
        assert_eq!(a.done_ns, w[0].done_ns, "four segments take four writes at once: {a:?}");
        assert!(a.media_done_ns > a.done_ns);
    }
    assert_eq!(w[4].done_ns, w[0].media_done_ns, "the fifth takes the first's segment once it is written");
    assert_eq!(w[5].done_ns, w[1].media_done_ns);
    assert_eq!(m.stats().write_segment_waits, 2);
    assert_eq!(m.stats().write_backs, 6);
}

#[test]
fn disksims_write_segment_limit_makes_the_second_write_wait() {
    let mut s = write_back_spec();
    s.cache.max_write_segments = 1;
    let (_, every) = scattered_write_backs(s.clone(), 2);
    assert_eq!(every[1].done_ns, every[0].done_ns, "every segment may hold write data");
    s.cache.write_back_in_every_segment = false;
    let (_, limited) = scattered_write_backs(s, 2);
    assert_eq!(limited[1].done_ns, limited[0].media_done_ns, "one write segment: wait for the media");
}

#[test]
fn an_appending_write_joins_the_segment_it_continues() {
    let mut s = write_back_spec();
    s.cache.max_write_segments = 1;
    s.cache.write_back_in_every_segment = false;
    let mut m = Mechanics::new(s).expect("valid");
    let mut t = 0;
    // 50 writes of 8 blocks, each appending to the one before: 400 blocks, one segment.
    for i in 0..50 {
        let a = m.access(t, &op(Op::Write, 5_000 + i * 8, 8));
        assert_eq!(a.done_ns, t, "append {i} fits the segment");
        t = a.done_ns;
    }
    let full = m.access(t, &op(Op::Write, 5_400, 8));
    assert!(full.done_ns > t, "the segment is full: the next append waits for the media");
    assert_eq!(m.stats().write_segment_waits, 1);
}

#[test]
fn a_drive_that_disconnects_pays_the_write_disconnect_and_reselect_when_it_waits() {
    let mut s = write_back_spec();
    s.cache.max_write_segments = 1;
    s.cache.write_back_in_every_segment = false;
    s.overheads.never_disconnect = false;
    s.overheads.write_disconnect_ms = 0.5;
    s.overheads.reselect_ms = 0.3;
    let (_, w) = scattered_write_backs(s, 2);
    assert_eq!(w[1].done_ns, w[0].media_done_ns + 300_000, "reconnects 0.3 ms after the segment frees");
    assert_eq!(w[1].overhead_ns, 800_000);
}

#[test]
fn a_write_back_write_larger_than_a_segment_waits_until_the_rest_fits() {
    // 1,000 blocks against segments of 400: the first 600 (six tracks of 100) must be on
    // the media before the last block is in the buffer.
    let mut m = Mechanics::new(write_back_spec()).expect("valid");
    let a = m.access(0, &op(Op::Write, 0, 1_000));
    let small = Mechanics::new(write_back_spec()).expect("valid").access(0, &op(Op::Write, 0, 400));
    assert_eq!(small.done_ns, 0, "a segment's worth goes into the buffer at once");
    assert!(a.write_back && a.done_ns < a.media_done_ns);
    // The same drive writing only the first 600 blocks through to the media.
    let mut through = write_back_spec();
    through.cache.write_back = false;
    let six_tracks = Mechanics::new(through).expect("valid").access(0, &op(Op::Write, 0, 600));
    assert_eq!(a.done_ns, six_tracks.media_done_ns);
    assert!(a.media_done_ns >= a.done_ns + 4 * REV_NS, "four more tracks to write");
}

proptest! {
    #[test]
    fn the_buffer_never_holds_more_write_back_writes_than_it_has_segments(
        reqs in prop::collection::vec((0u64..30_000, 1u64..600, 0u64..20_000_000, any::<bool>()), 1..60),
        limit in any::<bool>())
    {
        let mut s = write_back_spec();
        s.cache.max_write_segments = 2;
        s.cache.write_back_in_every_segment = !limit;
        let segments = if limit { 2 } else { 4 };
        let mut m = Mechanics::new(s).expect("valid");
        let mut t = 0u64;
        // Each write-back write's media end; a write completes only when fewer than
        // `segments` earlier ones (that did not append) are still waiting for the media.
        let mut pending: Vec<(u64, u64, u64)> = Vec::new(); // (start, end, media_done)
        for (lbn, n, gap, read) in reqs {
            let o = op(if read { Op::Read } else { Op::Write }, lbn, n);
            let a = m.access(t, &o);
            prop_assert!(a.done_ns >= t);
            if !read {
                let appends = pending.last().is_some_and(|&(s0, e, d)| e == lbn && d > t && e - s0 + n <= 400);
                let waiting = pending.iter().filter(|p| p.2 > a.done_ns).count();
                 prop_assert!(appends || waiting < segments, "{} writes still buffered at {}", waiting, a.done_ns);
                if appends {
                    let last = pending.last_mut().expect("appends to one");
                    last.1 = lbn + n;
                    last.2 = a.media_done_ns;
                } else {
                    pending.push((lbn, lbn + n, a.media_done_ns));
                }
            }
            t = a.done_ns + gap;
        }
    }
}

/// A write-back drive with power figures: active 10 W, seek 12 W, idle 5 W, and a
/// "stopped" level (1 W; 1 s and 10 J down, 5 s and 60 J up), spun down after `timeout`.
fn powered_write_back(timeout_ns: Option<u64>) -> HddDevice {
    use tierlab_power::{CycleKind, IdlePolicy, PowerModel, PowerSpec, StandbyLevel, Transition};
    let spec = PowerSpec {
        active_w: 10.0,
        seek_w: 12.0,
        idle_w: 5.0,
        standby: vec![StandbyLevel {
            name: "stopped".into(),
            power_w: 1.0,
            enter: Some(Transition { time_s: 1.0, energy_j: 10.0 }),
            leave: Some(Transition { time_s: 5.0, energy_j: 60.0 }),
            cycle: CycleKind::StartStop,
        }],
        speeds: None,
    };
    let policy = timeout_ns.map_or(IdlePolicy::never(), |t| IdlePolicy::after(t, 0));
    let power = PowerModel::new(&spec, 6000, policy, 0).expect("valid power figures");
    HddDevice::with_power("disk0", Mechanics::new(write_back_spec()).expect("valid"), power)
}

fn state_ns(r: &tierlab_engine::DeviceReport, state: &str) -> u64 {
    r.states.iter().filter(|s| s.state == state).map(|s| s.time_ns).sum()
}

#[test]
fn a_write_back_writes_media_work_is_charged_until_its_data_is_on_the_media() {
    let far = op(Op::Write, 79 * 400, 50);
    let a = Mechanics::new(write_back_spec()).expect("valid").access(0, &far);
    assert!(a.write_back && a.media_done_ns > a.done_ns + 5_000_000, "{a:?}");
    let mut dev = powered_write_back(None);
    assert_eq!(dev.service(0, &far), a.done_ns);
    dev.finish(1_000_000_000);
    let r = dev.report();
    assert_eq!(state_ns(&r, "seek"), a.seek_ns, "the write's seek, at seek power");
    assert_eq!(state_ns(&r, "seek") + state_ns(&r, "active"), a.media_done_ns, "busy until the data is on the media");
    assert_eq!(state_ns(&r, "idle"), 1_000_000_000 - a.media_done_ns);
}

#[test]
fn a_request_during_a_background_write_is_not_held_up_by_its_charge() {
    // The read arrives while the write is still going to the media: the mechanics alone
    // time it (it waits for the arm), and the power model adds nothing.
    let (w, r) = (op(Op::Write, 79 * 400, 50), op(Op::Read, 0, 8));
    let mut m = Mechanics::new(write_back_spec()).expect("valid");
    let wd = m.access(0, &w).done_ns;
    let rd = m.access(wd, &r).done_ns;
    let mut dev = powered_write_back(None);
    assert_eq!(dev.service(0, &w), wd);
    assert_eq!(dev.service(wd, &r), rd);
    dev.finish(rd);
    assert_eq!(dev.report().states.iter().map(|s| s.time_ns).sum::<u64>(), rd, "every instant charged once");
}

#[test]
fn the_idle_timeout_counts_from_the_end_of_a_background_write() {
    let far = op(Op::Write, 79 * 400, 50);
    let media_done = Mechanics::new(write_back_spec()).expect("valid").access(0, &far).media_done_ns;
    // A timeout shorter than the background write: the drive must not spin down during it.
    let mut dev = powered_write_back(Some(1_000_000));
    dev.service(0, &far);
    dev.finish(media_done + 500_000);
    assert_eq!(dev.report().counters.get("start_stop_cycles"), Some(&0.0), "idle for 0.5 ms of a 1 ms timeout");
    let mut dev = powered_write_back(Some(1_000_000));
    dev.service(0, &far);
    dev.finish(media_done + 2_000_000_000);
    let r = dev.report();
    assert_eq!(r.counters.get("start_stop_cycles"), Some(&1.0));
    assert_eq!(state_ns(&r, "idle"), 1_000_000, "idle from the media's end for the timeout, then down");
}

/// A read ahead of the read-ahead's front continues the pass through the blocks between
/// only while that is no slower than repositioning: within a revolution's worth of blocks
/// the target passes under the head no sooner either way, and beyond it a seek reaches the
/// target's track and waits less than a revolution. So a drive that streams is never
/// slower than one with DiskSim's semantics, however far ahead within its read-ahead's
/// reach the next read lands.
#[test]
fn a_read_further_ahead_than_a_revolution_repositions_instead_of_reading_through() {
    let d = Datasheet {
        name: "narrow tracks".into(),
        capacity_bytes: 4_000_000_000,
        rpm: 10_000.0,
        seek_single_track_ms: Some(0.3),
        seek_average_ms: 4.6,
        seek_full_stroke_ms: None,
        // 30 MB/s: about 350 sectors a track, so the 1,024-sector read-ahead reaches
        // three tracks ahead.
        sustained_transfer_mb_s: 30.0,
        cache_mib: 8.0,
        sector_bytes: 512,
        timing: DatasheetTiming::default(),
        layout: None,
    };
    let spec = HddSpec::from_datasheet(&d).expect("valid");
    let spt = u64::from(spec.zones[0].blocks_per_track);
    let took_ms = |continues: bool, gap: u64| {
        let mut s = spec.clone();
        s.cache.read_ahead_continues = continues;
        let mut m = Mechanics::new(s).expect("valid");
        let now = m.access(0, &DeviceOp { op: Op::Read, offset_bytes: 0, len_bytes: 64 * 512, fua: false }).done_ns;
        let a = m.access(now, &DeviceOp { op: Op::Read, offset_bytes: (64 + gap) * 512, len_bytes: 16 * 512, fua: false });
        (a.done_ns - now) as f64 / 1e6
    };
    for gap in [spt / 4, spt / 2, spt * 3 / 2, spt * 2, spt * 5 / 2] {
        let (streaming, disksim) = (took_ms(true, gap), took_ms(false, gap));
        assert!(streaming <= disksim + 0.2, "{gap} sectors ahead ({spt} a track): {streaming:.2} ms streaming against {disksim:.2} ms repositioning");
    }
    // Two tracks ahead, reading through would take two revolutions (12 ms).
    assert!(took_ms(true, spt * 2) < 9.0, "{:.2} ms", took_ms(true, spt * 2));
}

/// A read-ahead pass that starts where the request before it ended, at the instant it
/// ended, finds its first sector under the head however long the drive has been running:
/// the platter's angle, computed from a clock of 10¹³ ns and more, is a few 10⁻⁸ of a
/// sector off either way, and a pass that took that as "just past the sector" waited a
/// whole revolution. Sequential 8 KiB reads of a 7,200 rpm drive that streams, each
/// issued as the one before completes (back to back and skipping a page), after 0 s,
/// 1 h and a day.
#[test]
fn a_stream_loses_no_revolution_however_late_in_the_run() {
    let d = Datasheet {
        name: "7200 rpm, 61 MB/s".into(),
        capacity_bytes: 250_000_000_000,
        rpm: 7_200.0,
        seek_single_track_ms: None,
        seek_average_ms: 8.5,
        seek_full_stroke_ms: None,
        sustained_transfer_mb_s: 61.0,
        cache_mib: 8.0,
        sector_bytes: 512,
        timing: DatasheetTiming::default(),
        layout: None,
    };
    let spec = HddSpec::from_datasheet(&d).expect("valid");
    assert!(spec.cache.read_ahead_continues);
    let rev_ms = 60_000.0 / 7_200.0;
    for start_s in [0u64, 3_600, 86_400] {
        for stride in [16u64, 32] {
            let mut m = Mechanics::new(spec.clone()).expect("valid");
            let mut now = start_s * 1_000_000_000;
            let mut worst_ms = 0.0f64;
            for i in 0..400u64 {
                let a = m.access(now, &DeviceOp { op: Op::Read, offset_bytes: (1_000_000 + i * stride) * 512, len_bytes: 16 * 512, fua: false });
                if i > 0 {
                    worst_ms = worst_ms.max((a.done_ns - now) as f64 / 1e6);
                }
                now = a.done_ns;
            }
            assert!(worst_ms < rev_ms / 2.0, "after {start_s} s, every {stride} sectors: a read took {worst_ms:.3} ms ({rev_ms:.2} ms a revolution)");
        }
    }
}
