//! Reads every real trace in `../shared/traces` and checks the request count against the
//! README and the first requests against the raw lines. Skips (with a note) if the shared
//! directory is absent.

use std::path::PathBuf;
use tierlab_trace::{open, stats, Compression, Format, ReadOptions, TraceReader};
use tierlab_types::{IoRequest, Op};

fn traces_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../shared/traces"
    ));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} is absent; skipping the shared-trace tests",
            dir.display()
        );
        None
    }
}

fn reader(file: &str, sort: bool) -> Option<TraceReader> {
    let path = traces_dir()?.join(file);
    let opts = ReadOptions {
        sort,
        ..ReadOptions::default()
    };
    Some(open(&path, &opts).unwrap_or_else(|e| panic!("{file}: {e}")))
}

fn req(time_ns: u64, volume: u32, offset_sectors: u64, len_bytes: u64, op: Op) -> IoRequest {
    IoRequest {
        time_ns,
        volume,
        offset_bytes: offset_sectors * 512,
        len_bytes,
        op,
    }
}

/// (file, format, compression, records per the README, sort needed)
const TRACES: [(&str, Format, Compression, u64, bool); 8] = [
    (
        "umass-websearch-small.disksim",
        Format::Disksim,
        Compression::None,
        24_783,
        false,
    ),
    (
        "tpcc-small.disksim",
        Format::Disksim,
        Compression::None,
        6_999,
        false,
    ),
    (
        "cloudphysics-io.csv",
        Format::Cloudphysics,
        Compression::None,
        113_872,
        false,
    ),
    (
        "blkreplay-linux-mysql.load.gz",
        Format::Blkreplay,
        Compression::Gzip,
        80_794,
        false,
    ),
    (
        "msn-fs-30s.disksim-ms",
        Format::DisksimMs,
        Compression::None,
        149_999,
        false,
    ),
    (
        "fiu-mail-10k.fiu",
        Format::Fiu,
        Compression::None,
        9_997,
        false,
    ),
    (
        "msr-hm0-1k.csv",
        Format::Msr,
        Compression::None,
        1_000,
        false,
    ),
    (
        "tencent-cbs-1s.csv.bz2",
        Format::TencentCbs,
        Compression::Bzip2,
        50_000,
        true,
    ),
];

#[test]
fn every_shared_trace_reads_fully_with_the_readme_record_count() {
    for (file, format, compression, records, sort) in TRACES {
        let Some(mut r) = reader(file, sort) else {
            return;
        };
        assert_eq!(r.format(), format, "{file}");
        assert_eq!(r.compression(), compression, "{file}");
        let mut count = 0u64;
        let mut previous = 0u64;
        for request in r.by_ref() {
            let request = request.unwrap_or_else(|e| panic!("{e}"));
            assert!(request.time_ns >= previous, "{file}: time went backwards");
            assert!(request.len_bytes > 0);
            previous = request.time_ns;
            count += 1;
        }
        assert_eq!(count, records, "{file}");
    }
}

#[test]
fn detection_does_not_depend_on_the_file_name() {
    let Some(dir) = traces_dir() else { return };
    for (file, format, _, _, sort) in TRACES {
        if format == Format::DisksimMs {
            continue; // its arrivals have decimals anyway; checked below
        }
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let opts = ReadOptions {
            sort,
            ..ReadOptions::default()
        };
        let r = TraceReader::from_bufread(std::io::Cursor::new(bytes), "stdin", &opts).unwrap();
        assert_eq!(r.format(), format, "{file} read as stdin");
    }
    let bytes = std::fs::read(dir.join("msn-fs-30s.disksim-ms")).unwrap();
    let r = TraceReader::from_bufread(
        std::io::Cursor::new(bytes),
        "stdin",
        &ReadOptions::default(),
    );
    assert_eq!(
        r.unwrap().format(),
        Format::DisksimMs,
        "decimal arrivals mean milliseconds"
    );
}

fn first_two(file: &str, sort: bool) -> Option<(Vec<IoRequest>, u64)> {
    let mut r = reader(file, sort)?;
    let two: Vec<IoRequest> = r.by_ref().take(2).map(|x| x.unwrap()).collect();
    Some((two, r.first_timestamp_ns().unwrap()))
}

#[test]
fn first_requests_match_the_raw_lines() {
    // 11413000 0 657728 16 1 / 11565000 1 31244784 64 1
    if let Some((r, t0)) = first_two("umass-websearch-small.disksim", false) {
        assert_eq!(t0, 11_413_000);
        assert_eq!(
            r,
            vec![
                req(0, 0, 657_728, 8192, Op::Read),
                req(152_000, 1, 31_244_784, 32_768, Op::Read)
            ]
        );
    }
    // 938513000 4 264719034 16 0
    if let Some((r, _)) = first_two("tpcc-small.disksim", false) {
        assert_eq!(r[0], req(0, 4, 264_719_034, 8192, Op::Write));
    }
    // 1,5633898,2a,512,42932745
    if let Some((r, t0)) = first_two("cloudphysics-io.csv", false) {
        assert_eq!(t0, 5_633_898 * 1_000_000_000);
        assert_eq!(r[0], req(0, 0, 42_932_745, 512, Op::Write));
    }
    // 0.000000000 ; 37766853 ; 64 ; W / 0.449518165 ; 37766917 ; 14 ; W
    if let Some((r, _)) = first_two("blkreplay-linux-mysql.load.gz", false) {
        assert_eq!(
            r,
            vec![
                req(0, 0, 37_766_853, 32_768, Op::Write),
                req(449_518_165, 0, 37_766_917, 7168, Op::Write)
            ]
        );
    }
    // 0.000 5 174224064 16 1 / 0.221 5 162947904 16 1
    if let Some((r, _)) = first_two("msn-fs-30s.disksim-ms", false) {
        assert_eq!(
            r,
            vec![
                req(0, 5, 174_224_064, 8192, Op::Read),
                req(221_000, 5, 162_947_904, 8192, Op::Read)
            ]
        );
    }
    // 89966527950584 4253 nfsd 508516672 8 W 6 0 … / 89966527996712 … 508516680
    if let Some((r, t0)) = first_two("fiu-mail-10k.fiu", false) {
        assert_eq!(t0, 89_966_527_950_584);
        let dev_6_0 = 6 << 20;
        assert_eq!(
            r,
            vec![
                req(0, dev_6_0, 508_516_672, 4096, Op::Write),
                req(46_128, dev_6_0, 508_516_680, 4096, Op::Write)
            ]
        );
    }
    // 128166385295514663,hm,0,Write,9056014336,2048,2833 / …514878,hm,0,Write,11855351808,512
    if let Some((r, t0)) = first_two("msr-hm0-1k.csv", false) {
        assert_eq!(t0, 128_166_385_295_514_663 * 100);
        let a = IoRequest {
            time_ns: 0,
            volume: 0,
            offset_bytes: 9_056_014_336,
            len_bytes: 2048,
            op: Op::Write,
        };
        let b = IoRequest {
            time_ns: 21_500,
            volume: 0,
            offset_bytes: 11_855_351_808,
            len_bytes: 512,
            op: Op::Write,
        };
        assert_eq!(r, vec![a, b]);
    }
    // Line 1 is 1538323200,…; line 2, one second earlier, comes first in time order:
    // 1538323199,13896880,128,0,1063
    if let Some((r, t0)) = first_two("tencent-cbs-1s.csv.bz2", true) {
        assert_eq!(t0, 1_538_323_199 * 1_000_000_000);
        assert_eq!(r[0], req(0, 1063, 13_896_880, 65_536, Op::Read));
    }
}

#[test]
fn tencent_without_sort_names_the_out_of_order_line() {
    let Some(r) = reader("tencent-cbs-1s.csv.bz2", false) else {
        return;
    };
    let err = r
        .map(|x| x.map(|_| ()))
        .find_map(Result::err)
        .expect("an order error");
    let text = err.to_string();
    assert!(
        text.contains("tencent-cbs-1s.csv.bz2:2: field `time`"),
        "{text}"
    );
    assert!(
        text.contains("expected a time ≥ 1538323200000000000 ns"),
        "{text}"
    );
}

#[test]
fn disksim_validation_traces_read_with_cumulative_times() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../shared/validation/disksim"
    ));
    if !dir.is_dir() {
        eprintln!("note: {} is absent; skipping", dir.display());
        return;
    }
    // (drive, requests per the validation README)
    for (drive, records) in [
        ("cheetah9LP", 10_000),
        ("hp_c2247a", 9_999),
        ("atlas10k", 10_000),
        ("dec_rz26", 7_980),
        ("barracuda", 10_000),
    ] {
        let path = dir.join(drive).join(format!("{drive}.trace"));
        let mut r = open(&path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.format(), Format::DisksimValidate, "{drive}");
        let all: Vec<IoRequest> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(all.len(), records, "{drive}");
        if drive == "atlas10k" {
            // W Hit 4583176 4 663.00000 45422.00000 / W Hit 4583180 4 607.00000 …
            assert_eq!(all[0], req(0, 0, 4_583_176, 2048, Op::Write));
            assert_eq!(
                all[1],
                req((663 + 45_422) * 1000, 0, 4_583_180, 2048, Op::Write)
            );
        }
    }
}

#[test]
fn statistics_of_a_real_trace_are_consistent() {
    let Some(mut r) = reader("msr-hm0-1k.csv", false) else {
        return;
    };
    let s = stats(&mut r).unwrap();
    assert_eq!(s.format, "msr");
    assert_eq!(s.requests, 1000);
    assert_eq!(s.reads + s.writes, 1000);
    assert_eq!(s.volumes.len(), 1);
    assert_eq!(
        s.size_distribution.buckets.iter().map(|b| b.1).sum::<u64>(),
        1000
    );
    assert!(s.working_set_bytes > 0 && s.working_set_bytes.is_multiple_of(4096));
    assert!(s.span_s > 0.0);
    // Reads are ~50.8 % of hm_0's first 1,000 records (counted with awk on the raw file).
    assert_eq!(s.reads, 508);
}

#[test]
fn tencent_statistics_cover_all_volumes() {
    let Some(mut r) = reader("tencent-cbs-1s.csv.bz2", true) else {
        return;
    };
    let s = stats(&mut r).unwrap();
    assert_eq!(
        s.volumes.len(),
        2038,
        "README: 50,000 requests over 2,038 volumes"
    );
    assert_eq!(s.volumes.iter().map(|v| v.requests).sum::<u64>(), 50_000);
    assert!(
        s.volumes.windows(2).all(|w| w[0].volume < w[1].volume),
        "sorted by volume id"
    );
}

/// Parse throughput on the CloudPhysics file (run with `--ignored --nocapture`, in
/// release mode for a meaningful figure).
#[test]
#[ignore]
fn cloudphysics_parse_throughput() {
    let Some(dir) = traces_dir() else { return };
    let path = dir.join("cloudphysics-io.csv");
    let mut best = f64::MAX;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let r = open(&path, &ReadOptions::default()).unwrap();
        let mut n = 0;
        for request in r {
            request.unwrap();
            n += 1;
        }
        best = best.min(started.elapsed().as_secs_f64());
        assert_eq!(n, 113_872);
    }
    println!(
        "cloudphysics-io.csv: {:.2} M lines/s (best of 5)",
        113_873.0 / best / 1e6
    );
}
