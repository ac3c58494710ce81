use super::*;
use proptest::prelude::*;

fn spec() -> WorkloadSpec {
    WorkloadSpec { requests: 50_000, ..WorkloadSpec::bundled_default() }
}

fn collect(s: &WorkloadSpec) -> Vec<IoRequest> {
    s.generate().unwrap().map(|r| r.unwrap()).collect()
}

#[test]
fn same_seed_same_requests_other_seed_other_requests() {
    let a = collect(&spec());
    assert_eq!(a, collect(&spec()));
    let b = collect(&WorkloadSpec { seed: 7, ..spec() });
    assert_ne!(a, b);
}

#[test]
fn read_fraction_and_jesd219_sizes_hold() {
    let reqs = collect(&spec());
    let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as f64 / reqs.len() as f64;
    assert!((reads - 0.6).abs() < 0.01, "read share {reads}");
    let four_k = reqs.iter().filter(|r| r.len_bytes == 4096).count() as f64 / reqs.len() as f64;
    assert!((four_k - 0.67).abs() < 0.01, "4 KiB share {four_k}");
    let half_k = reqs.iter().filter(|r| r.len_bytes == 512).count() as f64 / reqs.len() as f64;
    assert!((half_k - 0.04).abs() < 0.005, "512 B share {half_k}");
    assert_eq!(JESD219_SIZES.iter().map(|(_, p)| p).sum::<f64>(), 100.0);
}

#[test]
fn hot_cold_sends_the_hot_share_to_the_hot_space() {
    let s = WorkloadSpec { hot_region_bytes: 0, ..spec() };
    let hot_end = s.span_bytes / 10;
    let reqs = collect(&s);
    let hot = reqs.iter().filter(|r| r.offset_bytes < hot_end).count() as f64 / reqs.len() as f64;
    assert!((hot - 0.9).abs() < 0.01, "hot share {hot}");
}

#[test]
fn a_scattered_hot_set_keeps_its_skew_but_not_its_place() {
    let s = spec();
    assert_eq!(s.hot_region_bytes, 16 << 20);
    let reqs = collect(&s);
    // The start of the space (a linear drive's SSD share) gets its share of the accesses,
    // not the whole hot set.
    let first_quarter = reqs.iter().filter(|r| r.offset_bytes < s.span_bytes / 4).count() as f64 / reqs.len() as f64;
    assert!((first_quarter - 0.25).abs() < 0.05, "first quarter {first_quarter}");
    // Whole 16 MiB regions are hot: the busiest tenth of the regions still take 90 %.
    let mut per_region = std::collections::HashMap::new();
    for r in &reqs {
        *per_region.entry(r.offset_bytes / s.hot_region_bytes).or_insert(0u64) += 1;
    }
    let regions = (s.span_bytes / s.hot_region_bytes) as usize;
    let mut counts: Vec<u64> = per_region.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = counts.iter().take(regions / 10).sum();
    let share = top as f64 / reqs.len() as f64;
    assert!((share - 0.9).abs() < 0.02, "busiest tenth of regions {share}");
}

#[test]
fn an_unscrambled_zipf_keeps_popular_blocks_together_in_scattered_regions() {
    let zipf = |region: u64| WorkloadSpec { address: AddressDist::Zipf { theta: 1.0, scramble: false }, hot_region_bytes: region, ..spec() };
    // In address order the second region holds the next most popular blocks; scattered,
    // it lies elsewhere with the same share of the accesses.
    let region = 16u64 << 20;
    let in_order = collect(&zipf(0));
    let scattered = collect(&zipf(region));
    let share = |reqs: &[IoRequest], lo: u64, len: u64| reqs.iter().filter(|r| r.offset_bytes >= lo && r.offset_bytes < lo + len).count() as f64 / reqs.len() as f64;
    let s = zipf(region);
    let regions = s.span_bytes / region;
    let second = share(&in_order, region, region);
    let home = scatter(1, regions) * region;
    assert_ne!(home, region);
    assert!(second > 0.02 && (share(&scattered, home, region) - second).abs() < 0.01, "the second region's accesses moved with it");
    // The start of the space is no longer where the popular blocks are.
    let tenth = s.span_bytes / 10;
    let (before, after) = (share(&in_order, 0, tenth), share(&scattered, 0, tenth));
    assert!(before - after > 0.2, "first tenth of the space: {before} in order, {after} scattered");
}

#[test]
fn jesd219_address_mix() {
    let s = WorkloadSpec { address: AddressDist::Jesd219, hot_region_bytes: 0, ..spec() };
    let reqs = collect(&s);
    let first5 = reqs.iter().filter(|r| r.offset_bytes < s.span_bytes / 20).count() as f64 / reqs.len() as f64;
    assert!((first5 - 0.5).abs() < 0.01, "{first5}");
}

#[test]
fn poisson_rate_is_close_to_the_target() {
    let reqs = collect(&spec());
    let span_s = reqs.last().unwrap().time_ns as f64 / 1e9;
    let iops = reqs.len() as f64 / span_s;
    assert!((iops - 80.0).abs() / 80.0 < 0.02, "measured {iops} IOPS");
    assert!(reqs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns), "time runs forward");
}

#[test]
fn zipf_rank_ratio_follows_the_exponent() {
    for theta in [0.8, 1.0, 1.2] {
        let z = Zipf::new(1_000_000, theta);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts = [0u64; 4];
        for _ in 0..400_000 {
            let k = z.sample(&mut rng);
            if k < 4 {
                counts[k as usize] += 1;
            }
        }
        let ratio = counts[0] as f64 / counts[1] as f64;
        let expected = 2f64.powf(theta);
        assert!((ratio - expected).abs() / expected < 0.05, "theta {theta}: ratio {ratio}, expected {expected}");
    }
}

#[test]
fn sequential_streams_continue_where_they_left_off() {
    let s = WorkloadSpec {
        address: AddressDist::Sequential { streams: 1 },
        size: SizeDist::Fixed { bytes: 65536 },
        ..spec()
    };
    let reqs = collect(&s);
    let seq = reqs.windows(2).filter(|w| w[1].offset_bytes == w[0].offset_bytes + 65536).count();
    assert!(seq as f64 / (reqs.len() - 1) as f64 > 0.99);
}

#[test]
fn invalid_specs_name_the_key() {
    let bad = WorkloadSpec { read_fraction: 1.5, ..spec() };
    assert_eq!(bad.validate().unwrap_err().key, "read_fraction");
    let bad = WorkloadSpec { address: AddressDist::HotCold { hot_access_fraction: 0.9, hot_space_fraction: 0.0 }, ..spec() };
    assert_eq!(bad.validate().unwrap_err().key, "address.hot_space_fraction");
    let bad = WorkloadSpec { arrival: Arrival::Poisson { iops: 0.0 }, ..spec() };
    assert_eq!(bad.validate().unwrap_err().key, "arrival.iops");
    let bad = WorkloadSpec { span_bytes: 8192, ..spec() };
    assert_eq!(bad.validate().unwrap_err().key, "size");
}

#[test]
fn spec_reads_from_toml() {
    let text = r#"
        seed = 3
        requests = 10
        span_bytes = 1073741824
        read_fraction = 0.5
        address = { kind = "zipf", theta = 0.9 }
        size = { kind = "choice", sizes = [[4096, 3.0], [65536, 1.0]] }
        arrival = { kind = "poisson", iops = 100.0 }
    "#;
    let s: WorkloadSpec = toml::from_str(text).unwrap();
    assert_eq!(collect(&s).len(), 10);
    let bad = toml::from_str::<WorkloadSpec>(&text.replace("seed", "sede"));
    assert!(bad.is_err());
}

proptest! {
    #[test]
    fn requests_stay_aligned_and_in_range(
        seed in any::<u64>(),
        span_blocks in 16u64..1_000_000,
        kind in 0usize..5,
        theta in 0.1f64..2.0,
    ) {
        let address = match kind {
            0 => AddressDist::Uniform,
            1 => AddressDist::Zipf { theta, scramble: true },
            2 => AddressDist::HotCold { hot_access_fraction: 0.8, hot_space_fraction: 0.2 },
            3 => AddressDist::Jesd219,
            _ => AddressDist::Sequential { streams: 3 },
        };
        let s = WorkloadSpec { seed, requests: 500, span_bytes: span_blocks * 4096, address, ..spec() };
        for r in collect(&s) {
            prop_assert!(r.end_bytes() <= s.span_bytes);
            prop_assert_eq!(r.offset_bytes % 4096, 0);
            prop_assert!(r.len_bytes > 0);
        }
    }

    #[test]
    fn scatter_is_a_bijection(n in 1u64..5000) {
        let mut seen = vec![false; n as usize];
        for r in 0..n {
            let x = scatter(r, n);
            prop_assert!(x < n);
            prop_assert!(!seen[x as usize]);
            seen[x as usize] = true;
        }
    }
}

#[test]
fn an_untimed_generator_gives_the_same_requests_without_times() {
    for arrival in [Arrival::Poisson { iops: 140.0 }, Arrival::Fixed { iops: 50.0 }, Arrival::Back2back] {
        let s = WorkloadSpec { requests: 5_000, arrival: arrival.clone(), ..spec() };
        let timed = collect(&s);
        let untimed: Vec<IoRequest> = s.generate().unwrap().untimed().map(|r| r.unwrap()).collect();
        assert_eq!(untimed.len(), timed.len());
        for (u, t) in untimed.iter().zip(&timed) {
            assert_eq!(*u, IoRequest { time_ns: 0, ..*t });
        }
        assert!(arrival == Arrival::Back2back || timed.last().is_some_and(|r| r.time_ns > 0));
    }
}

proptest::proptest! {
    /// Scattering regions whose size is a power of two (shifts and masks) places every
    /// block where the division by the region size places it.
    #[test]
    fn scattered_regions_of_a_power_of_two_divide_as_any_size(block in 0u64..1 << 40, regions in 0u64..100_000, shift in 0u32..20) {
        let size = 1u64 << shift;
        let by_division = if regions >= 2 && block < regions * size { scatter(block / size, regions) * size + block % size } else { block };
        proptest::prop_assert_eq!(scatter_regions(block, regions, size), by_division);
    }
}
