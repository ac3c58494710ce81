//! Hibernator's reorganisation on the paper's disk: moving one disk from a slow tier into
//! a 22-disk full-speed tier (its Table 3 set-up, no foreground load). The paper: the
//! shuffle of an 18 GB disk takes "almost as [long as] sequentially scanning the disk
//! twice". Each tier shuffles at its own speed, so the joining disk's tier is done in
//! about 2 × its scan time at full speed, and the slow tier's parity follows at its own.

use tierlab_array_policy::SchemeConfig;
use tierlab_array_sim::{common_span_bytes, oltp_workload_with, run_array, ArrayConfig, DiskModel, OltpSkew};
use tierlab_workload::Workload;

#[test]
fn a_disk_joining_the_full_speed_tier_shuffles_in_about_two_scans() {
    let cfg = ArrayConfig { disks: 25, ..ArrayConfig::default() };
    let mut s = SchemeConfig::named("hibernator").unwrap();
    // 4 MiB relocation blocks: the same bytes as 256 KiB blocks (each disk's share read
    // and written once), in few enough stripes for a debug build.
    s.hibernator.rb_bytes = 4 << 20;

    s.hibernator.tier_schedule = vec![vec![22, 3], vec![23, 2]];
    s.epoch_s = 3600.0;
    // A request every 20 s for three hours: epoch 1 forms the slow tier, epoch 2 moves
    // one of its disks into the full-speed tier.
    let w = oltp_workload_with(common_span_bytes(&cfg, &s).unwrap(), 0.05, 3.0 * 3600.0, 11, OltpSkew::Zipf);
    let r = run_array(&ArrayConfig { warmup_s: Some(0.0), warm_nvram: false, ..cfg.clone() }, &s, &Workload::Synthetic(w), &mut |_| {}).unwrap();
    let d = &r.scheme_report.details;
    let lengths = |key: &str| -> Vec<f64> { d[key].as_array().map(|v| v.iter().filter_map(|x| x.as_f64()).collect()).unwrap_or_default() };
    let whole = lengths("reorganisation_lengths_s");
    // The shuffle of the joining disk's tier (before per-tier shuffling there was no such
    // figure: the whole reorganisation was the shuffle).
    let shuffle = lengths("shuffle_lengths_s");
    let shuffle = if shuffle.is_empty() { whole.clone() } else { shuffle };
    assert_eq!(whole.len(), 2, "two reorganisations, both finished: {d}");
    let disk = DiskModel::from_catalog(&cfg.disk, None).unwrap();
    let scan_s = |level: usize| disk.capacity_bytes as f64 / disk.speeds[level].media_bytes_per_s;
    let (slow, fast) = (scan_s(0), scan_s(disk.speeds.len() - 1));
    // 2 × Scan at 80 MB/s is 7.5 min; the tolerance covers positioning between the
    // 4 MiB operations and the joining disk's blocks read from the slow disks.
    let ratio = shuffle[1] / (2.0 * fast);
    eprintln!("22+3 → 23+2: shuffle {:.1} min ({ratio:.2} × 2 scans at full speed), whole {:.1} min", shuffle[1] / 60.0, whole[1] / 60.0);
    assert!((0.8..=1.5).contains(&ratio), "the joining disk's shuffle took {:.1} min, {ratio:.2} × 2 scans at full speed ({:.1} min)", shuffle[1] / 60.0, 2.0 * fast / 60.0);
    // The slow tier rewrites the parity of its stripes at 16 MB/s, within 2 × its own scan.
    assert!(whole[1] <= 1.1 * 2.0 * slow, "the reorganisation took {:.1} min, 2 slow scans are {:.1} min", whole[1] / 60.0, 2.0 * slow / 60.0);
    assert!(d["deferred_parity_writes"].as_u64().unwrap_or(0) > 0, "{d}");
}
