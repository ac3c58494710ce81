use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

const P: u64 = PAGE_BYTES;
const MS_NS: u64 = 1_000_000;

fn geo(slots: u64, pages: u64) -> Geometry {
    Geometry::new(P, slots * P, pages * P).unwrap()
}

fn policy(slots: u64, pages: u64, params: MixDynParams) -> MixDynPolicy {
    MixDynPolicy::new(geo(slots, pages), params).unwrap()
}

/// Route and complete at once; the pieces.
fn io(p: &mut MixDynPolicy, now_ns: u64, op: Op, offset: u64, len: u64) -> Vec<Piece> {
    let mut out = Vec::new();
    assert_eq!(
        p.route(now_ns, op, offset, len, &mut out).unwrap(),
        Routing::Go
    );
    p.done(&out);
    out
}

fn places(pieces: &[Piece]) -> Vec<Place> {
    pieces.iter().map(|x| x.place).collect()
}

// ---- regression --------------------------------------------------------------------

#[test]
fn regression_recovers_known_coefficients() {
    let truth = [0.7, -0.66, -0.79, -0.00007, 0.12, 0.0122];
    let mut acc = Accumulator::default();
    let mut rng = SplitMix64::new(7);
    for _ in 0..5000 {
        let x = [
            rng.next_f64(),
            rng.next_f64() * 0.3,
            rng.next_f64() * 400.0,
            0.5 + rng.next_f64() * 64.0,
            rng.next_f64() * 5.0,
        ];
        let noise = (rng.next_f64() - 0.5) * 1e-3;
        let y = truth[0] + truth[1..].iter().zip(&x).map(|(c, v)| c * v).sum::<f64>() + noise;
        acc.add(&x, y);
    }
    let f = acc.fit().unwrap();
    assert!((f.intercept - truth[0]).abs() < 1e-3, "{f:?}");
    for (i, c) in f.coefficients.iter().enumerate() {
        assert!(
            (c - truth[i + 1]).abs() < 1e-4 + 1e-3 * truth[i + 1].abs(),
            "coefficient {i}: {c} vs {}",
            truth[i + 1]
        );
    }
    assert!(f.r2 > 0.9999 && f.adj_r2 > 0.9999, "{f:?}");
    assert_eq!(f.observations, 5000);
    let x = [0.1, 0.0, 133.0, 4.0, 0.5];
    let want = truth[0] + truth[1..].iter().zip(&x).map(|(c, v)| c * v).sum::<f64>();
    assert!((f.predict(&x) - want).abs() < 1e-3);
}

#[test]
fn regression_with_a_constant_feature_and_pure_noise() {
    // A feature that never varies gets no weight; y unrelated to x gives R² near 0.
    let mut acc = Accumulator::default();
    let mut rng = SplitMix64::new(3);
    for _ in 0..4000 {
        let x = [0.0, rng.next_f64(), 5.0, rng.next_f64(), rng.next_f64()];
        acc.add(&x, 2.0 + rng.next_f64());
    }
    let f = acc.fit().unwrap();
    assert_eq!(f.coefficients[0], 0.0);
    assert_eq!(f.coefficients[2], 0.0);
    assert!(f.r2 < 0.01, "{f:?}");
    assert!((f.intercept - 2.5).abs() < 0.05, "{f:?}");
    // Too few samples, non-finite samples ignored.
    let mut tiny = Accumulator::default();
    tiny.add(&[1.0; FEATURES], f64::NAN);
    tiny.add(&[1.0; FEATURES], 1.0);
    assert_eq!(tiny.len(), 1);
    assert!(tiny.fit().is_none());
}

// ---- the static rule and the location table ----------------------------------------

#[test]
fn static_rule_sends_small_writes_to_the_ssd_and_reads_follow() {
    let mut p = policy(64, 1024, MixDynParams::static4k());
    assert_eq!(p.name(), "static4k");
    let w = io(&mut p, 0, Op::Write, 10 * P, 4096);
    assert_eq!(places(&w), [Place::Ssd]);
    assert_eq!(p.location(10), Some(Tier::Ssd));
    let w = io(&mut p, 1, Op::Write, 20 * P, 4097);
    assert!(places(&w).iter().all(|&x| x == Place::Hdd), "{w:?}");
    let w = io(&mut p, 2, Op::Write, 30 * P, 8192);
    assert_eq!(places(&w), [Place::Hdd]);
    assert_eq!(
        (w[0].device_offset_bytes, w[0].len_bytes),
        (30 * P, 8192),
        "one HDD piece at the page's home"
    );
    // Reads follow the data; a read spanning both devices is split.
    assert_eq!(places(&io(&mut p, 3, Op::Read, 10 * P, 4096)), [Place::Ssd]);
    assert_eq!(places(&io(&mut p, 4, Op::Read, 30 * P, 4096)), [Place::Hdd]);
    assert_eq!(
        places(&io(&mut p, 5, Op::Read, 10 * P, 2 * P)),
        [Place::Ssd, Place::Hdd]
    );
    // A large write over an SSD page moves it back to the HDD (the SSD copy is dropped).
    io(&mut p, 6, Op::Write, 9 * P, 3 * P);
    assert_eq!(p.location(10), Some(Tier::Hdd));
    assert_eq!(places(&io(&mut p, 7, Op::Read, 10 * P, 512)), [Place::Hdd]);
    let c = p.mixdyn_stats();
    assert_eq!((c.writes_to_ssd, c.writes_to_hdd), (1, 3));
    p.check().unwrap();
}

#[test]
fn partial_pages_enter_the_ssd_only_when_already_there() {
    let mut p = policy(64, 1024, MixDynParams::static4k());
    // 512 bytes of a page that lives on the HDD: the SSD would lack the rest of it.
    assert_eq!(
        places(&io(&mut p, 0, Op::Write, 5 * P + 512, 512)),
        [Place::Hdd]
    );
    assert_eq!(p.mixdyn_stats().partial_pages_to_hdd, 1);
    io(&mut p, 1, Op::Write, 5 * P, P);
    let w = io(&mut p, 2, Op::Write, 5 * P + 512, 512);
    assert_eq!(places(&w), [Place::Ssd]);
    assert_eq!(w[0].device_offset_bytes % P, 512);
}

#[test]
fn a_full_ssd_sends_new_pages_to_the_hdd_and_makes_room() {
    let params = MixDynParams {
        low_free: 0.25,
        high_free: 0.5,
        mcml: 4,
        ..MixDynParams::static4k()
    };
    let mut p = policy(8, 1024, params);
    for page in 0..8 {
        assert_eq!(
            places(&io(&mut p, page, Op::Write, page * P, P)),
            [Place::Ssd]
        );
    }
    assert_eq!(places(&io(&mut p, 9, Op::Write, 100 * P, P)), [Place::Hdd]);
    assert_eq!(p.mixdyn_stats().full_ssd_pages_to_hdd, 1);
    // Room is made from the cold end while busy (no idle needed): pages 0.. first.
    let mut moved = Vec::new();
    while let Some(m) = p.next_migration(10) {
        assert_eq!(
            (m.kind, m.from, m.to, m.len_bytes),
            (MoveKind::Demote, Tier::Ssd, Tier::Hdd, P)
        );
        assert_eq!(m.to_offset_bytes, m.extent as u64 * P);
        moved.push(m);
    }
    assert_eq!(
        moved.iter().map(|m| m.extent).collect::<Vec<_>>(),
        [0, 1, 2, 3],
        "half the SSD, coldest first"
    );
    for m in &moved {
        p.migration_copied(m.id);
        p.migration_done(20, m.id, true);
    }
    assert_eq!(p.stats().free_ssd_extents, 4);
    assert_eq!(p.mixdyn_stats().flushed_bytes_room, 4 * P);
    assert_eq!(p.location(0), Some(Tier::Hdd));
    assert!(p.next_migration(30).is_none());
    p.check().unwrap();
}

#[test]
fn writes_wait_for_a_move_and_reads_use_its_ram_copy() {
    let params = MixDynParams {
        low_free: 0.5,
        high_free: 0.5,
        ..MixDynParams::static4k()
    };
    let mut p = policy(4, 64, params);
    for page in 0..3 {
        io(&mut p, page, Op::Write, page * P, P);
    }
    let m = p.next_migration(5).unwrap();
    assert_eq!(m.extent, 0);
    let mut out = Vec::new();
    assert_eq!(
        p.route(6, Op::Write, 0, 512, &mut out).unwrap(),
        Routing::Wait(m.id)
    );
    assert_eq!(
        places(&io(&mut p, 7, Op::Read, 0, 512)),
        [Place::Ssd],
        "not copied yet: the source"
    );
    p.migration_copied(m.id);
    let r = io(&mut p, 8, Op::Read, 100, 200);
    assert_eq!(places(&r), [Place::Ram]);
    assert_eq!(r[0].device_offset_bytes, 100);
    // A read still in flight on the old slot holds it back from reuse.
    let mut held = Vec::new();
    p.route(9, Op::Read, 0, 512, &mut held).unwrap();
    p.migration_done(10, m.id, true);
    assert_eq!(p.held_slots(), 1);
    p.done(&held);
    assert_eq!(p.held_slots(), 0);
    assert_eq!(places(&io(&mut p, 11, Op::Write, 0, 512)), [Place::Hdd]);
    p.check().unwrap();
}

#[test]
fn a_slot_is_not_reused_while_io_to_its_old_page_is_in_flight() {
    let mut p = policy(4, 64, MixDynParams::static4k());
    io(&mut p, 0, Op::Write, 5 * P, P);
    let slot = p.slot_of(5).unwrap();
    let mut read = Vec::new();
    p.route(1, Op::Read, 5 * P, P, &mut read).unwrap();
    // A large write moves page 5 to the HDD while the read is still on its slot.
    assert_eq!(
        places(&io(&mut p, 2, Op::Write, 4 * P, 3 * P)),
        [Place::Hdd]
    );
    assert_eq!(p.held_slots(), 1);
    for page in 10..13 {
        let w = io(&mut p, 3, Op::Write, page * P, P);
        assert_ne!(
            w[0].device_offset_bytes / P,
            slot as u64,
            "slot {slot} reused under the read"
        );
    }
    assert_eq!(
        places(&io(&mut p, 4, Op::Write, 20 * P, P)),
        [Place::Hdd],
        "the SSD is full meanwhile"
    );
    p.done(&read);
    assert_eq!(p.held_slots(), 0);
    assert_eq!(
        io(&mut p, 5, Op::Write, 21 * P, P)[0].device_offset_bytes,
        slot as u64 * P
    );
    p.check().unwrap();
}

#[test]
fn requests_beyond_the_drive_are_errors() {
    let mut p = policy(4, 64, MixDynParams::mixdyn());
    let mut out = Vec::new();
    for (off, len) in [(64 * P, 1), (0, 0), (u64::MAX, 2), (63 * P, P + 1)] {
        assert!(
            matches!(
                p.route(0, Op::Write, off, len, &mut out),
                Err(PolicyError::OutOfRange { .. })
            ),
            "{off} {len}"
        );
    }
    assert!(MixDynPolicy::new(
        Geometry::new(8192, 8192, 8192 * 4).unwrap(),
        MixDynParams::mixdyn()
    )
    .is_err());
    // Pieces the policy never routed do not upset it.
    p.done(&[Piece {
        place: Place::Ssd,
        op: Op::Read,
        device_offset_bytes: u64::MAX - 5,
        len_bytes: 100,
        extent: u32::MAX,
    }]);
    p.observe(
        0,
        &Piece {
            place: Place::Hdd,
            op: Op::Read,
            device_offset_bytes: 0,
            len_bytes: 1,
            extent: 0,
        },
        5,
    );
    p.check().unwrap();
}

// ---- the predictive partitioner ------------------------------------------------------

/// Route a write and report its pieces' responses: `ssd_ms`/`hdd_ms` by device.
fn write_observed(
    p: &mut MixDynPolicy,
    now_ns: u64,
    page: u64,
    len: u64,
    ssd_ms: f64,
    hdd_ms: f64,
) -> Vec<Piece> {
    let mut out = Vec::new();
    assert_eq!(
        p.route(now_ns, Op::Write, page * P, len, &mut out).unwrap(),
        Routing::Go
    );
    for piece in &out {
        let ms = if piece.place == Place::Ssd {
            ssd_ms
        } else {
            hdd_ms
        };
        p.observe(now_ns + (ms * 1e6) as u64, piece, (ms * 1e6) as u64);
    }
    p.done(&out);
    out
}

#[test]
fn the_predictor_trains_on_the_static_rule_then_routes_by_prediction() {
    // The static rule at 16 KiB while training, so that the SSD sees several sizes.
    let params = MixDynParams {
        train_ssd: 200,
        train_hdd: 20,
        static_max_bytes: 16 * 1024,
        flush_fraction: 0.0,
        redirect_p: 0.0,
        ..MixDynParams::mixdyn()
    };
    let mut p = policy(4096, 1 << 16, params);
    assert_eq!(p.name(), "mixdyn");
    // Training: SSD answers in 0.1 ms + 0.05 ms per KiB, the HDD in 8 ms.
    let mut t = 0;
    for i in 0..400u64 {
        let len = [4096, 8192, 16384, 65536][i as usize % 4];
        let w = write_observed(
            &mut p,
            t,
            i * 16,
            len,
            0.1 + 0.05 * len as f64 / 1024.0,
            8.0,
        );
        assert_eq!(
            w[0].place,
            if len <= 16384 { Place::Ssd } else { Place::Hdd },
            "static while training"
        );
        t += 10 * MS_NS;
        if p.fit().is_some() {
            break;
        }
    }
    let f = *p.fit().expect("trained");
    assert!(f.r2 > 0.99, "{f:?}");
    assert!(
        (f.coefficients[3] - 0.05).abs() < 1e-4,
        "size coefficient {f:?}"
    );
    assert_eq!(p.hdd_training_mean_ms(), Some(8.0));
    // Now a 64 KiB write is predicted at 3.3 ms on the SSD, under the HDD's 8: SSD.
    let w = write_observed(&mut p, t, 5000, 64 * 1024, 3.3, 8.0);
    assert!(w.iter().all(|x| x.place == Place::Ssd), "{w:?}");
    // 256 KiB: 12.9 ms predicted: the HDD.
    let w = write_observed(&mut p, t + MS_NS, 6000, 256 * 1024, 12.9, 8.0);
    assert!(w.iter().all(|x| x.place == Place::Hdd), "{w:?}");
    assert_eq!(
        (
            p.mixdyn_stats().predicted_ssd,
            p.mixdyn_stats().predicted_hdd
        ),
        (1, 1)
    );
    assert_eq!(p.awaiting_response(), 0);
    let names: Vec<_> = p.counters().into_iter().map(|(n, _)| n).collect();
    assert!(
        names.contains(&"fit_r2") && names.contains(&"mae_ssd_regression_ms"),
        "{names:?}"
    );
}

#[test]
fn the_queue_predictor_sees_the_hdd_backlog() {
    let params = MixDynParams {
        train_ssd: 50,
        train_hdd: 10,
        hdd_predictor: HddPredictor::Queue,
        flush_fraction: 0.0,
        ..MixDynParams::mixdyn()
    };
    let mut p = policy(4096, 1 << 16, params);
    let mut t = 0;
    for i in 0..200u64 {
        let len = if i % 3 == 0 { 8192 } else { 4096 };
        write_observed(&mut p, t, i * 4, len, 2.0, 5.0);
        t += 10 * MS_NS;
    }
    assert!(p.fit().is_some());
    // SSD predicted at 2 ms, HDD at 5 ms with an empty queue: the SSD.
    assert_eq!(
        write_observed(&mut p, t, 9000, 8192, 2.0, 5.0)[0].place,
        Place::Ssd
    );
    // Flip it: make the SSD look slow (its recent responses feed S_avg) — the regression
    // was fitted on a constant SSD, so it predicts 2 ms whatever; instead load the HDD less:
    // nothing outstanding, HDD 5 ms vs SSD 2 ms stays SSD. With the training-mean predictor
    // nothing changes with the queue; with the queue predictor a backlog makes the HDD dear.
    let mut backlog = Vec::new();
    for k in 0..3 {
        let mut out = Vec::new();
        p.route(t + k, Op::Read, (20_000 + k) * P, P, &mut out)
            .unwrap();
        backlog.push(out);
    }
    assert_eq!(p.outstanding[1], 3);
    let hdd = p
        .predictor
        .predict_hdd(HddPredictor::Queue, p.outstanding[1])
        .unwrap();
    assert!((hdd - 20.0).abs() < 1e-9, "4 × 5 ms: {hdd}");
    for b in &backlog {
        p.done(b);
    }
}

// ---- fragmentation buster --------------------------------------------------------------

fn buster() -> MixDynParams {
    MixDynParams {
        partitioner: Partitioner::Static,
        idle_ns: 1000 * MS_NS,
        mcml: 64,
        redirect_p: 0.0,
        ..MixDynParams::mixdyn()
    }
}

#[test]
fn idle_flushes_the_least_recently_used_quarter() {
    let mut p = policy(64, 4096, buster());
    for page in 0..40u64 {
        io(&mut p, page * MS_NS, Op::Write, page * P, P);
    }
    // Reading pages 0..10 again makes 10..20 the coldest.
    for page in 0..10u64 {
        io(&mut p, (100 + page) * MS_NS, Op::Read, page * P, P);
    }
    let last = 109 * MS_NS;
    assert_eq!(p.next_wake_ns(), Some(last + 1000 * MS_NS));
    // Busy: no move until idle.
    assert!(p.next_migration(last + 999 * MS_NS).is_none());
    let mut moved = Vec::new();
    while let Some(m) = p.next_migration(last + 1000 * MS_NS) {
        moved.push(m);
    }
    let pages: Vec<u32> = moved.iter().map(|m| m.extent).collect();
    assert_eq!(
        pages,
        (10..20).collect::<Vec<_>>(),
        "a quarter of 40, coldest first"
    );
    for m in &moved {
        p.migration_copied(m.id);
        p.migration_done(last + 1001 * MS_NS, m.id, true);
    }
    assert_eq!(p.mixdyn_stats().flushed_bytes_idle, 10 * P);
    assert_eq!(p.mixdyn_stats().flush_rounds, 1);
    // The next round waits for the period.
    assert!(p.next_migration(last + 2000 * MS_NS).is_none());
    assert_eq!(p.next_wake_ns(), Some(last + 1000 * MS_NS + 60_000 * MS_NS));
    p.check().unwrap();
}

#[test]
fn a_busy_drive_flushes_nothing() {
    let mut p = policy(64, 4096, buster());
    // A request every 100 ms, with a migration asked for between them: never idle.
    for i in 0..200u64 {
        io(&mut p, i * 100 * MS_NS, Op::Write, (i % 50) * P, P);
        assert!(p.next_migration(i * 100 * MS_NS + 50 * MS_NS).is_none());
    }
    // Idle, but with a request still in flight: nothing either.
    let mut out = Vec::new();
    p.route(20_000 * MS_NS, Op::Read, 0, P, &mut out).unwrap();
    assert!(p.next_migration(30_000 * MS_NS).is_none());
    p.done(&out);
    assert!(p.next_migration(30_000 * MS_NS).is_some());
    assert_eq!(p.stats().demotions, 0);
}

#[test]
fn a_round_stops_when_requests_return_and_resumes_when_idle_again() {
    let params = MixDynParams {
        mcml: 1,
        ..buster()
    };
    let mut p = policy(64, 4096, params);
    for page in 0..40u64 {
        io(&mut p, 0, Op::Write, page * P, P);
    }
    let t = 1000 * MS_NS;
    let m = p.next_migration(t).unwrap();
    p.migration_copied(m.id);
    p.migration_done(t, m.id, true);
    io(&mut p, t + 1, Op::Read, 39 * P, P); // a request: no longer idle
    assert!(p.next_migration(t + 2).is_none());
    assert_eq!(
        p.next_wake_ns(),
        Some(t + 1 + 1000 * MS_NS),
        "the rest of the round when idle again"
    );
    let m = p.next_migration(t + 1 + 1000 * MS_NS).unwrap();
    assert_eq!(m.extent, 1);
}

// ---- write regulator --------------------------------------------------------------------

fn regulated(p: f64) -> MixDynParams {
    // A 64-page SSD (256 KiB) over a 1-year life at 10 cycles: 81 bytes/s.
    MixDynParams {
        partitioner: Partitioner::Static,
        flush_fraction: 0.0,
        redirect_p: p,
        erase_cycles: 10,
        lifetime_s: SECONDS_PER_YEAR,
        regulator_window_ns: 10 * NS_PER_S,
        regulator_sustain_ns: 5 * NS_PER_S,
        low_free: 0.0,
        high_free: 0.0,
        ..MixDynParams::mixdyn()
    }
}

#[test]
fn over_budget_redirects_about_p_of_flash_bound_writes() {
    for p_red in [0.25, 0.5] {
        let mut p = policy(64, 1 << 16, regulated(p_red));
        // 4 KiB every 10 ms (400 KB/s) to the same 32 pages: far over budget.
        let mut to_ssd_after = 0;
        for i in 0..20_000u64 {
            let w = io(&mut p, i * 10 * MS_NS, Op::Write, (i % 32) * P, P);
            if i * 10 * MS_NS > 10 * NS_PER_S && w[0].place == Place::Ssd {
                to_ssd_after += 1;
            }
        }
        let c = p.mixdyn_stats().clone();
        assert!(p.regulating());
        let share = c.redirected_writes as f64 / c.flash_bound_regulated as f64;
        assert!(
            (share - p_red).abs() < 0.03,
            "p = {p_red}: {share} of {} ({c:?})",
            c.flash_bound_regulated
        );
        // Engaged once the excess had lasted 5 s: every write after that was regulated.
        assert!(
            c.flash_bound_regulated > 19_000 && c.flash_bound_regulated < 19_600,
            "{c:?}"
        );
        assert_eq!(c.writes_to_hdd, c.redirected_writes);
        assert!(to_ssd_after > 0);
        assert!(p.ssd_wear_leveling_paused());
    }
}

#[test]
fn under_budget_redirects_nothing() {
    let mut p = policy(64, 1 << 16, regulated(0.5));
    // One 4 KiB write a minute: 68 bytes/s, under the 81 bytes/s budget.
    for i in 0..500u64 {
        io(&mut p, i * 60 * NS_PER_S, Op::Write, (i % 32) * P, P);
    }
    let c = p.mixdyn_stats();
    assert_eq!(
        (
            c.redirected_writes,
            c.flash_bound_regulated,
            c.writes_to_hdd
        ),
        (0, 0, 0)
    );
    assert!(!p.regulating() && !p.ssd_wear_leveling_paused());
}

#[test]
fn the_regulator_lets_go_when_the_burst_ends() {
    let mut p = policy(64, 1 << 16, regulated(0.5));
    for i in 0..2000u64 {
        io(&mut p, i * 10 * MS_NS, Op::Write, (i % 32) * P, P);
    }
    assert!(p.regulating());
    // Quiet for a whole window: the rate falls back within the budget.
    io(&mut p, 20 * NS_PER_S + 11 * NS_PER_S, Op::Read, 0, P);
    assert!(!p.regulating());
    let regulated_s = p
        .counters()
        .into_iter()
        .find(|(n, _)| *n == "regulated_s")
        .unwrap()
        .1;
    assert!(regulated_s > 10.0 && regulated_s < 30.0, "{regulated_s}");
}

// ---- parameters, persistence --------------------------------------------------------------

#[test]
fn parameters_are_checked() {
    let mut p = policy(64, 1024, MixDynParams::mixdyn());
    p.set_param("redirect_p", 0.5).unwrap();
    p.set_param("hdd_predictor", 1.0).unwrap();
    p.set_param("idle_s", 0.25).unwrap();
    let params: BTreeMap<_, _> = p.params().into_iter().collect();
    assert_eq!(
        (
            params["redirect_p"],
            params["hdd_predictor"],
            params["idle_s"]
        ),
        (0.5, 1.0, 0.25)
    );
    for (name, v) in [
        ("redirect_p", 1.5),
        ("window", 0.0),
        ("mcml", 0.5),
        ("low_free", 0.9),
        ("lifetime_years", -1.0),
        ("hdd_predictor", 2.0),
        ("idle_s", f64::NAN),
    ] {
        assert!(p.set_param(name, v).is_err(), "{name} = {v}");
    }
    assert!(matches!(
        p.set_param("nope", 1.0),
        Err(PolicyError::UnknownParam(_))
    ));
    assert_eq!(p.params().len(), params.len());
}

#[test]
fn the_table_survives_a_journal_and_a_snapshot() {
    let mut p = policy(16, 256, MixDynParams::static4k());
    p.enable_journal();
    for page in [3u64, 7, 9] {
        io(&mut p, 0, Op::Write, page * P, P);
    }
    io(&mut p, 1, Op::Write, 6 * P, 3 * P); // page 7 back to the HDD
    let mut log = Vec::new();
    p.take_changes(&mut log);
    assert_eq!(log.len(), 4);
    let mut snap = Vec::new();
    p.snapshot(&mut snap);
    for records in [&log, &snap] {
        let mut q = policy(16, 256, MixDynParams::static4k());
        q.restore(records).unwrap();
        for page in 0..256 {
            assert_eq!(q.slot_of(page), p.slot_of(page), "page {page}");
        }
        q.check().unwrap();
    }
    let mut q = policy(16, 256, MixDynParams::static4k());
    assert!(q
        .restore(&[MapRecord::new(1, 2, false), MapRecord::new(5, 2, false)])
        .is_err());
    assert!(q.restore(&[MapRecord::new(1, 99, false)]).is_err());
    assert!(p.restore(&snap).is_err(), "a policy in use");
}

// ---- the location table against a model ---------------------------------------------

#[derive(Clone, Debug)]
enum Step {
    Io {
        write: bool,
        page: u64,
        within: u64,
        len: u64,
        big: bool,
    },
    Complete(usize),
    Move,
    Advance(usize),
    Idle,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        // Mostly page-aligned single pages (the ones that enter the SSD), some partial
        // pages and multi-page requests.
        6 => (any::<bool>(), 0u64..40, prop_oneof![3 => Just(0u64), 1 => 1u64..8], prop_oneof![3 => Just(1u64), 1 => 2u64..5], prop_oneof![3 => Just(true), 1 => Just(false)])
            .prop_map(|(write, page, within, len, big)| Step::Io { write, page, within, len, big }),
        4 => (0usize..8).prop_map(Step::Complete),
        1 => Just(Step::Move),
        2 => (0usize..4).prop_map(Step::Advance),
        1 => Just(Step::Idle),
    ]
}

/// A request in flight: its pieces, and for each page it reads the version it must see.
struct InFlight {
    pieces: Vec<Piece>,
    reads: Vec<(u32, u64, Place, u64)>,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    /// Any mix of reads, writes (whole and partial pages, small and large), completions in
    /// any order and moves: every read is served from the device holding the page's last
    /// write and sees that write's data, no page is on both devices, and the SSD never
    /// holds more pages than it has slots (slots held for in-flight I/O included).
    #[test]
    fn reads_find_the_last_write(steps in proptest::collection::vec(step(), 1..200), predictive in any::<bool>()) {
        let base = if predictive { MixDynParams { train_ssd: 5, train_hdd: 1, ..MixDynParams::mixdyn() } } else { MixDynParams::static4k() };
        let params = MixDynParams { idle_ns: 5, mcml: 3, low_free: 0.25, high_free: 0.5, ..base };
        let mut p = policy(12, 48, params);
        // The data model: per page its latest version; per slot and per HDD page what is
        // stored there (page, version); versions bumped per write.
        let mut version = vec![0u64; 48];
        let mut hdd: Vec<u64> = vec![0; 48];
        let mut ssd: Vec<Option<(u32, u64)>> = vec![None; 12];
        let mut where_: Vec<Tier> = vec![Tier::Hdd; 48];
        let mut inflight: Vec<InFlight> = Vec::new();
        let mut moves: Vec<(Migration, Option<u64>)> = Vec::new();
        let mut now = 0u64;
        let mut seq = 0u64;
        for s in steps {
            now += 3;
            match s {
                Step::Io { write, page, within, len, big } => {
                    let offset = page * P + within * 512;
                    let len = if big { len * P } else { len * 512 };
                    let len = len.min(48 * P - offset);
                    let op = if write { Op::Write } else { Op::Read };
                    let mut out = Vec::new();
                    match p.route(now, op, offset, len, &mut out).unwrap() {
                        Routing::Wait(id) => {
                            prop_assert!(write && moves.iter().any(|(m, _)| m.id == id));
                            continue;
                        }
                        Routing::Go => {}
                    }
                    let mut covered = 0;
                    let mut reads = Vec::new();
                    for piece in &out {
                        covered += piece.len_bytes;
                        let pages = piece_pages(piece);
                        for (k, pg) in pages.clone().enumerate() {
                            let pgu = pg as usize;
                            let slot_off = piece.device_offset_bytes / P + k as u64;
                            if write {
                                seq += 1;
                                version[pgu] = seq;
                                match piece.place {
                                    Place::Ssd => {
                                        ssd[slot_off as usize] = Some((pg, seq));
                                        where_[pgu] = Tier::Ssd;
                                    }
                                    Place::Hdd => {
                                        prop_assert_eq!(slot_off, pg as u64, "HDD pieces at the page's home");
                                        hdd[pgu] = seq;
                                        where_[pgu] = Tier::Hdd;
                                    }
                                    Place::Ram => prop_assert!(false, "a write to RAM"),
                                }
                            } else {
                                match piece.place {
                                    Place::Ssd => prop_assert_eq!(where_[pgu], Tier::Ssd, "page {} read from the SSD", pg),
                                    Place::Hdd => prop_assert_eq!(where_[pgu], Tier::Hdd, "page {} read from the HDD", pg),
                                    Place::Ram => prop_assert!(moves.iter().any(|(m, c)| m.extent == pg && c.is_some())),
                                }
                                reads.push((pg, version[pgu], piece.place, slot_off));
                            }
                        }
                    }
                    prop_assert_eq!(covered, len);
                    inflight.push(InFlight { pieces: out, reads });
                }
                Step::Complete(i) => {
                    if inflight.is_empty() { continue; }
                    let r = inflight.remove(i % inflight.len());
                    // A read sees, when it completes, the page's data where it was sent:
                    // the version it was routed for, or a later one if a write to the page
                    // overlapped it — never another page's data.
                    for (pg, v, place, at) in r.reads {
                        match place {
                            Place::Ssd => {
                                let held = ssd[at as usize];
                                prop_assert!(held.is_some_and(|(q, w)| q == pg && w >= v), "slot {} for page {} v{}: {:?}", at, pg, v, held);
                            }
                            Place::Hdd => prop_assert!(hdd[pg as usize] >= v),
                            Place::Ram => {}
                        }
                    }
                    for piece in &r.pieces {
                        p.observe(now, piece, 100);
                    }
                    p.done(&r.pieces);
                }
                Step::Idle => now += 10,
                Step::Move => {
                    if let Some(m) = p.next_migration(now) {
                        prop_assert_eq!(where_[m.extent as usize], Tier::Ssd);
                        prop_assert_eq!(Some((m.from_offset_bytes / P) as u32), p.slot_of(m.extent));
                        moves.push((m, None));
                    }
                }
                Step::Advance(i) => {
                    if moves.is_empty() { continue; }
                    let k = i % moves.len();
                    let (m, copied) = moves[k];
                    match copied {
                        None => {
                            let slot = (m.from_offset_bytes / P) as usize;
                            let (pg, v) = ssd[slot].expect("a move from an empty slot");
                            prop_assert_eq!(pg, m.extent);
                            moves[k].1 = Some(v);
                            p.migration_copied(m.id);
                        }
                        Some(v) => {
                            moves.remove(k);
                            hdd[m.extent as usize] = v;
                            where_[m.extent as usize] = Tier::Hdd;
                            p.migration_done(now, m.id, true);
                        }
                    }
                }
            }
            p.check().map_err(TestCaseError::fail)?;
            for pg in 0..48u32 {
                prop_assert_eq!(p.location(pg), Some(where_[pg as usize]), "page {}", pg);
            }
            let used = p.stats().mapped_extents + p.held_slots() as u64 + p.stats().free_ssd_extents;
            prop_assert_eq!(used, 12);
        }
    }

    /// The same requests and responses give the same decisions.
    #[test]
    fn deterministic(writes in proptest::collection::vec((0u64..1000, 1u64..20), 1..300)) {
        let run = || {
            let params = MixDynParams { train_ssd: 20, train_hdd: 5, ..regulated(0.5) };
            let mut p = policy(64, 2048, MixDynParams { partitioner: Partitioner::Predictive, ..params });
            let mut t = 0;
            let mut trace = Vec::new();
            for &(page, kib) in &writes {
                t += 7 * MS_NS;
                let w = write_observed(&mut p, t, page, kib * 1024, 0.2 + kib as f64 * 0.1, 6.0);
                trace.push(places(&w));
            }
            (trace, p.counters())
        };
        prop_assert_eq!(run(), run());
    }
}
