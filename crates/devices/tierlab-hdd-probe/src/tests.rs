use super::*;
use tierlab_hdd::{Datasheet, DatasheetLayout, DatasheetTiming, HddSpec, Layout};

/// A 10,000 rpm drive of `mb` megabytes; with `layout`, the surface serpentine layout of
/// the FSU paper's Maxtor (1,144 and 1,092 sectors on the outer tracks, bands of 32).
fn drive(mb: u64, layout: bool, zero_latency: bool) -> HddSpec {
    HddSpec::from_datasheet(&Datasheet {
        name: "probe-test".into(),
        capacity_bytes: mb * 1_000_000,
        rpm: 10_000.0,
        seek_single_track_ms: Some(0.3),
        seek_average_ms: 4.5,
        seek_full_stroke_ms: Some(10.0),
        sustained_transfer_mb_s: 97.0,
        cache_mib: 8.0,
        sector_bytes: 512,
        timing: DatasheetTiming { zero_latency_read: zero_latency, ..DatasheetTiming::default() },
        layout: layout.then(|| DatasheetLayout { band_cylinders: 32, surface_outer_sectors: vec![1144, 1092] }),
    })
    .expect("valid drive")
}

/// The first sector of every track from sector 0, from the model's own layout.
fn true_boundaries(spec: &HddSpec, tracks: usize) -> Vec<u64> {
    let layout = Layout::new(spec).unwrap();
    let mut out = vec![0];
    let mut prev = layout.lbn_to_pbn(0).unwrap();
    let mut lbn = 1;
    while out.len() <= tracks && lbn < layout.blocks() {
        let p = layout.lbn_to_pbn(lbn).unwrap();
        if (p.cylinder, p.surface) != (prev.cylinder, prev.surface) {
            out.push(lbn);
        }
        prev = p;
        lbn += 1;
    }
    out.truncate(tracks);
    out
}

#[test]
fn a_probe_of_the_model_gets_its_own_boundaries_rotation_and_zero_latency_back() {
    for layout in [true, false] {
        let spec = drive(2000, layout, true);
        let mut off = ModelTarget::new(spec.clone(), false).unwrap();
        let mut on = ModelTarget::new(spec.clone(), true).unwrap();
        let opts = ProbeOptions { max_tracks: Some(150), boundary_reads: 400, ..ProbeOptions::default() };
        let r = probe(&mut off, Some(&mut on), &opts).unwrap();
        assert_eq!(r.boundaries(), true_boundaries(&spec, 150), "layout {layout}: every boundary exactly");
        assert!((r.rotation_ms - 6.0).abs() < 1e-5, "{}", r.rotation_ms);
        assert!(r.zero_latency, "{:?}", r.full_track_read_ms);
        if layout {
            let sizes: Vec<u64> = r.track_sizes().take(65).collect();
            assert_eq!(&sizes[..32], &[1144; 32], "a band of 32 tracks on surface 0");
            assert_eq!(&sizes[32..64], &[1092; 32], "then surface 1");
            assert_eq!(sizes[64], 1092, "the next band starts on surface 1");
        }
        let cost = r.boundary_cost.unwrap();
        assert!(cost.across_ms > cost.within_ms, "{cost:?}");
        let cache = r.cache.unwrap();
        assert!(cache.repeat_hit && cache.read_ahead, "{cache:?}");
        assert!(r.seek_curve.windows(2).all(|w| w[1].min_access_ms >= w[0].min_access_ms - 0.2), "{:?}", r.seek_curve);
    }
}

#[test]
fn a_drive_without_zero_latency_is_told_apart() {
    let spec = drive(300, true, false);
    let mut off = ModelTarget::new(spec, false).unwrap();
    let r = probe::<_, ModelTarget>(&mut off, None, &ProbeOptions { max_tracks: Some(4), boundary_reads: 0, ..ProbeOptions::default() }).unwrap();
    assert!(!r.zero_latency, "{:?}", r.full_track_read_ms);
    assert!(r.full_track_read_ms[1] - r.full_track_read_ms[0] > 3.0);
}

#[test]
fn a_cache_that_answers_repeats_and_a_tiny_device_are_refused() {
    let spec = drive(300, true, true);
    let mut on = ModelTarget::new(spec, true).unwrap();
    let e = probe::<_, ModelTarget>(&mut on, None, &ProbeOptions::default()).unwrap_err();
    // It answers the repeat but not the sectors far apart: a cache, not a device without rotation.
    assert!(e.to_string().contains("RCD=1") && !e.to_string().contains("no rotating media"), "{e}");
    let tiny = drive(1, false, true);
    let mut t = ModelTarget::new(tiny, false).unwrap();
    let e = probe::<_, ModelTarget>(&mut t, None, &ProbeOptions::default()).unwrap_err();
    assert!(e.to_string().contains("too small"), "{e}");
}

/// The model behind a kernel and a network, as `tierlab serve --emulate` puts it behind
/// NBD: each read reaches the drive 20–120 µs after it is issued and its completion the
/// prober 20–120 µs after the drive finished, and one of these in `late_in` is late by
/// `late_ns` more.
struct BehindAKernel {
    model: ModelTarget,
    rng: ChaCha8Rng,
    late_in: u32,
    late_ns: std::ops::Range<u64>,
    reads: u64,
}

impl BehindAKernel {
    /// On a quiet host: one in fifty 2–5 ms late.
    fn quiet(spec: &HddSpec, seed: u64) -> Self {
        Self::new(spec, seed, 50, 2_000_000..5_000_000)
    }

    /// On a host whose cores are all busy: one in `late_in` 1–30 ms late (a runnable
    /// thread waiting for a core; measured on a two-core machine running twenty compilers:
    /// 12–25 % of served one-sector reads over 1 ms off a revolution, the 99th percentile
    /// 17–45 ms).
    fn busy(spec: &HddSpec, seed: u64, late_in: u32) -> Self {
        Self::new(spec, seed, late_in, 1_000_000..30_000_000)
    }

    fn new(spec: &HddSpec, seed: u64, late_in: u32, late_ns: std::ops::Range<u64>) -> Self {
        BehindAKernel { model: ModelTarget::new(spec.clone(), false).unwrap(), rng: ChaCha8Rng::seed_from_u64(seed), late_in, late_ns, reads: 0 }
    }

    fn delay_ns(&mut self) -> u64 {
        let d = self.rng.gen_range(20_000..120_000);
        if self.rng.gen_range(0..self.late_in) == 0 {
            d + self.rng.gen_range(self.late_ns.clone())
        } else {
            d
        }
    }
}

impl Target for BehindAKernel {
    fn sectors(&self) -> u64 {
        self.model.sectors()
    }
    fn sector_bytes(&self) -> u64 {
        self.model.sector_bytes()
    }
    fn read(&mut self, lbn: u64, n: u64) -> Result<u64, ProbeError> {
        self.reads += 1;
        let (there, back) = (self.delay_ns(), self.delay_ns());
        self.model.pause(there);
        let media = self.model.read(lbn, n)?;
        self.model.pause(back);
        Ok(there + media + back)
    }
    fn pause(&mut self, ns: u64) {
        self.model.pause(ns);
    }
}

#[test]
fn a_probe_through_noisy_timing_still_finds_every_boundary() {
    let spec = drive(300, true, true);
    for seed in 1..=3 {
        let mut t = BehindAKernel::quiet(&spec, seed);
        let r = probe::<_, ModelTarget>(&mut t, None, &ProbeOptions { max_tracks: Some(34), boundary_reads: 0, ..ProbeOptions::default() }).unwrap();
        assert!(r.noisy_timing, "seed {seed}");
        assert_eq!(r.boundaries(), true_boundaries(&spec, 34), "seed {seed}: the band of 1,144 and the first tracks of 1,092");
        assert!((r.rotation_ms - 6.0).abs() < 0.06, "seed {seed}: {}", r.rotation_ms);
        assert!(r.zero_latency, "seed {seed}: {:?}", r.full_track_read_ms);
        assert!(r.pair_tolerance_ms > 0.05 && r.pair_tolerance_ms < 0.4, "seed {seed}: {}", r.pair_tolerance_ms);
    }
    // The model itself times exactly.
    let mut exact = ModelTarget::new(spec, false).unwrap();
    let r = probe::<_, ModelTarget>(&mut exact, None, &ProbeOptions { max_tracks: Some(4), boundary_reads: 0, ..ProbeOptions::default() }).unwrap();
    assert!(!r.noisy_timing && r.pair_tolerance_ms < 0.002, "a quarter sector: {}", r.pair_tolerance_ms);
}

#[test]
fn a_drive_without_zero_latency_is_told_apart_through_noisy_timing() {
    let spec = drive(300, true, false);
    let mut t = BehindAKernel::quiet(&spec, 7);
    let r = probe::<_, ModelTarget>(&mut t, None, &ProbeOptions { max_tracks: Some(2), boundary_reads: 0, ..ProbeOptions::default() }).unwrap();
    assert!(r.noisy_timing && !r.zero_latency, "{:?}", r.full_track_read_ms);
}

/// A device without moving parts: every read takes 50 µs.
struct SolidState;

impl Target for SolidState {
    fn sectors(&self) -> u64 {
        1 << 24
    }
    fn sector_bytes(&self) -> u64 {
        512
    }
    fn read(&mut self, _lbn: u64, _n: u64) -> Result<u64, ProbeError> {
        Ok(50_000)
    }
    fn pause(&mut self, _ns: u64) {}
}

#[test]
fn a_device_without_rotation_is_told_apart_from_a_cache() {
    let e = probe::<_, SolidState>(&mut SolidState, None, &ProbeOptions::default()).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("no rotating media") && m.contains("0.050 ms (median of 9)") && !m.contains("RCD=1"), "{m}");
}

#[test]
fn a_file_that_cannot_be_read_directly_is_a_clear_error() {
    let e = DeviceTarget::open(std::path::Path::new("/nonexistent/disk"), 512).err().unwrap();
    assert!(e.to_string().starts_with("/nonexistent/disk: cannot open"), "{e}");
    let e = DeviceTarget::open(std::path::Path::new("/dev/null"), 500).err().unwrap();
    assert!(e.to_string().contains("multiple of 512"), "{e}");
}

#[test]
fn a_probe_on_a_busy_host_finds_every_boundary_or_says_it_is_too_noisy() {
    let spec = drive(300, true, true);
    // A tenth or a fifth of the reads 1-30 ms late, or nearly half of them 0.1-3 ms late
    // (as through nbdfuse on such a host): every boundary, in a bounded number of reads
    // (a tolerance taken over late pairs hid every boundary, and the scan read on to the
    // device's end: over a million reads).
    let late = [(20, 1_000_000..30_000_000, 40_000), (10, 1_000_000..30_000_000, 60_000), (4, 100_000..3_000_000, 80_000)];
    for (late_in, late_ns, most_reads) in late {
        for seed in 1..=2 {
            let mut t = BehindAKernel::new(&spec, seed, late_in, late_ns.clone());
            let r = probe::<_, ModelTarget>(&mut t, None, &ProbeOptions { max_tracks: Some(34), boundary_reads: 0, ..ProbeOptions::default() }).unwrap();
            assert_eq!(r.boundaries(), true_boundaries(&spec, 34), "1 in {late_in} late, seed {seed}");
            assert!((r.rotation_ms - 6.0).abs() < 0.06, "1 in {late_in} late, seed {seed}: {}", r.rotation_ms);
            assert!(r.zero_latency, "1 in {late_in} late, seed {seed}: {:?}", r.full_track_read_ms);
            assert!(t.reads < most_reads, "1 in {late_in} late, seed {seed}: {} reads", t.reads);
        }
    }
    // Half of them late: the probe stops early and says why.
    for seed in 1..=2 {
        let mut t = BehindAKernel::busy(&spec, seed, 2);
        let e = probe::<_, ModelTarget>(&mut t, None, &ProbeOptions { max_tracks: Some(34), boundary_reads: 0, ..ProbeOptions::default() }).unwrap_err();
        assert!(e.to_string().contains("too noisy") && e.to_string().contains("too busy"), "seed {seed}: {e}");
        assert!(t.reads < 1_000, "seed {seed}: {} reads", t.reads);
    }
}
