//! Formats without a shared sample (UMass SPC, blkparse, fio iolog v2/v3, SNIA SYSTOR '17,
//! Alibaba block), written here, every text format through every codec, as files, and
//! preambles before CSV headers.

mod common;

use common::{
    all_samples, compress, error_text, read_all, ALIBABA, BLKPARSE, CODECS, FIO_V2, FIO_V3, OTHERS,
    SYSTOR, UMASS,
};
use tierlab_trace::{open, BlkparseAction, Compression, Format, ReadOptions, TraceReader};
use tierlab_types::{IoRequest, Op};

fn req(time_ns: u64, volume: u32, offset_bytes: u64, len_bytes: u64, op: Op) -> IoRequest {
    IoRequest {
        time_ns,
        volume,
        offset_bytes,
        len_bytes,
        op,
    }
}

fn umass_expected() -> Vec<IoRequest> {
    vec![
        req(0, 0, 303_567 * 512, 3584, Op::Write),
        req(0, 1, 55_590 * 512, 3072, Op::Read),
        req(26_214_000, 0, 303_574 * 512, 3584, Op::Write),
    ]
}

#[test]
fn umass_spc_reads_asu_lba_bytes_op_and_seconds() {
    let got = read_all(UMASS.as_bytes(), "Financial1.spc", &ReadOptions::default()).unwrap();
    assert_eq!(got, umass_expected());
    let detected = tierlab_trace::TraceReader::from_bufread(
        std::io::Cursor::new(UMASS),
        "x",
        &ReadOptions::default(),
    );
    assert_eq!(detected.unwrap().format(), Format::UmassSpc);
}

#[test]
fn blkparse_takes_one_action_per_io_and_skips_summaries() {
    let dev = |maj: u32, min: u32| (maj << 20) | min;
    let issue = read_all(BLKPARSE.as_bytes(), "sda.txt", &ReadOptions::default()).unwrap();
    assert_eq!(
        issue,
        vec![
            req(0, dev(8, 0), 223_490 * 512, 4096, Op::Write),
            req(1_092_000, dev(8, 16), 1000 * 512, 8192, Op::Read)
        ]
    );
    let queue_opts = ReadOptions {
        blkparse_action: BlkparseAction::Queue,
        ..ReadOptions::default()
    };
    let queued = read_all(BLKPARSE.as_bytes(), "sda.txt", &queue_opts).unwrap();
    assert_eq!(
        queued.iter().map(|r| r.time_ns).collect::<Vec<_>>(),
        vec![0, 999_000]
    );
    let complete_opts = ReadOptions {
        blkparse_action: BlkparseAction::Complete,
        ..ReadOptions::default()
    };
    let completed = read_all(BLKPARSE.as_bytes(), "sda.txt", &complete_opts).unwrap();
    assert_eq!(
        completed
            .iter()
            .map(|r| (r.time_ns, r.op))
            .collect::<Vec<_>>(),
        vec![(0, Op::Write), (2_000_000, Op::Read)]
    );
}

#[test]
fn fio_v2_numbers_files_and_times_requests_by_waits() {
    let got = read_all(FIO_V2.as_bytes(), "job.iolog", &ReadOptions::default()).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, 0, 0, 4096, Op::Write),
            req(1_000_000, 0, 4096, 8192, Op::Read),
            req(1_000_000, 1, 0, 512, Op::Read)
        ]
    );
}

#[test]
fn fio_v3_timestamps_are_microseconds() {
    let mut r = tierlab_trace::TraceReader::from_bufread(
        std::io::Cursor::new(FIO_V3),
        "x",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(r.format(), Format::FioIolog);
    let got: Vec<IoRequest> = r.by_ref().map(|x| x.unwrap()).collect();
    assert_eq!(
        got,
        vec![
            req(0, 0, 0, 4096, Op::Read),
            req(240_000, 0, 8192, 4096, Op::Write)
        ]
    );
    assert_eq!(r.first_timestamp_ns(), Some(10_000));
}

#[test]
fn every_format_reads_the_same_through_every_codec_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (format, text)) in all_samples().into_iter().enumerate() {
        let plain = read_all(text.as_bytes(), "plain", &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{format}: {e}"));
        assert!(!plain.is_empty(), "{format}");
        for codec in CODECS {
            // A name without any hint: both codec and format come from the content.
            let path = dir.path().join(format!("sample{i}-{codec}.bin"));
            std::fs::write(&path, compress(codec, text.as_bytes())).unwrap();
            let mut r = open(&path, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{format} {codec}: {e}"));
            assert_eq!(r.format(), format, "{codec}");
            assert_eq!(r.compression().to_string(), codec);
            let got: Vec<IoRequest> = r.by_ref().map(|x| x.unwrap()).collect();
            assert_eq!(got, plain, "{format} through {codec}");
        }
    }
}

#[test]
fn other_formats_parse_their_fields() {
    let expect: [(Format, IoRequest); 8] = [
        (Format::Disksim, req(100, 1, 16 * 512, 4096, Op::Write)),
        (
            Format::DisksimMs,
            req(750_000, 1, 16 * 512, 4096, Op::Write),
        ),
        (
            Format::Cloudphysics,
            req(1_000_000_000, 0, 16 * 512, 512, Op::Write),
        ),
        (
            Format::Blkreplay,
            req(500_000_000, 0, 16 * 512, 4096, Op::Write),
        ),
        (
            Format::Fiu,
            req(1000, (8 << 20) | 1, 16 * 512, 4096, Op::Write),
        ),
        (Format::Msr, req(1_000_000, 1, 0, 512, Op::Write)),
        (
            Format::TencentCbs,
            req(1_000_000_000, 7, 16 * 512, 4096, Op::Write),
        ),
        (
            Format::DisksimValidate,
            req(1_000_000, 0, 16 * 512, 4096, Op::Write),
        ),
    ];
    for ((format, text), (format2, second)) in OTHERS.iter().zip(expect) {
        assert_eq!(*format, format2);
        let r = tierlab_trace::TraceReader::from_bufread(
            std::io::Cursor::new(*text),
            "x",
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(r.format(), *format, "detected");
        let got: Vec<IoRequest> = r.map(|x| x.unwrap()).collect();
        assert_eq!(got.len(), 2, "{format}");
        assert_eq!(got[0].time_ns, 0, "{format}: rebased");
        assert_eq!(got[1], second, "{format}");
    }
}

#[test]
fn concatenated_gzip_members_are_all_read() {
    let mut data = compress("gzip", b"100 0 8 8 1\n");
    data.extend(compress("gzip", b"200 0 16 8 0\n"));
    let got = read_all(&data, "x", &ReadOptions::default()).unwrap();
    assert_eq!(got.len(), 2);
}

#[test]
fn compression_is_reported() {
    let r = tierlab_trace::TraceReader::from_bufread(
        std::io::Cursor::new("1 0 0 1 1\n"),
        "x",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(r.compression(), Compression::None);
}

#[test]
fn stats_progress_reports_running_and_final_counts() {
    let text: String = (0..70_000)
        .map(|i| format!("{i} 0 {} 8 1\n", i * 8))
        .collect();
    let reader = tierlab_trace::TraceReader::from_bufread(
        std::io::Cursor::new(text),
        "x",
        &ReadOptions::default(),
    )
    .unwrap();
    let mut seen = Vec::new();
    let s = tierlab_trace::stats_with_progress(reader, &mut |n| seen.push(n)).unwrap();
    assert_eq!(s.requests, 70_000);
    assert_eq!(seen, vec![65_536, 70_000]);
    assert_eq!(s.sequential_fraction, 69_999.0 / 70_000.0);
}

#[test]
fn every_format_has_a_description() {
    for f in Format::ALL {
        assert!(f.description().len() > 20, "{f}");
    }
}

/// Reads `text` named `name` with detection; returns the format, the requests, the first
/// timestamp and the last line read.
fn detect_and_read(text: &str, name: &str) -> (Format, Vec<IoRequest>, Option<u64>, u64) {
    let mut r = TraceReader::from_bufread(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        name,
        &ReadOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<IoRequest> = r.by_ref().map(|x| x.unwrap()).collect();
    (r.format(), got, r.first_timestamp_ns(), r.line())
}

#[test]
fn systor17_reads_seconds_lun_bytes_and_skips_blank_iotypes() {
    let (format, got, t0, lines) = detect_and_read(SYSTOR, "2016022219-LUN4.csv");
    assert_eq!(format, Format::Systor17);
    assert_eq!(t0, Some(1_456_135_200_013_118_000));
    assert_eq!(
        got,
        vec![
            req(0, 4, 899_056_122_368, 131_072, Op::Read),
            req(486_882_500, 6, 4096, 4096, Op::Write),
        ]
    );
    assert_eq!(lines, 4);
}

#[test]
fn alibaba_block_reads_device_bytes_and_microseconds() {
    let (format, got, t0, _) = detect_and_read(ALIBABA, "io_traces.csv");
    assert_eq!(format, Format::AlibabaBlock);
    assert_eq!(t0, Some(1_577_808_000_000_626_000));
    assert_eq!(
        got,
        vec![
            req(0, 3, 126_703_644_672, 4096, Op::Read),
            req(374_000, 999, 0, 512, Op::Write),
        ]
    );
}

/// `lines` lines of free text (commas, semicolons, numbers: nothing a parser could take
/// for the header).
fn preamble(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("Trace {i}; collected by host-{i}, 2016 (see LICENCE, 3 clauses)\n"))
        .collect()
}

#[test]
fn free_text_before_a_csv_header_is_skipped() {
    let cloudphysics = "version,time,op,size,lbn\n1,10,28,4096,8\n1,11,2a,512,16\n";
    for (format, body, count) in [
        (Format::Cloudphysics, cloudphysics, 2),
        (Format::Systor17, SYSTOR, 2),
    ] {
        let text = format!("{}{body}", preamble(7));
        let (detected, got, _, lines) = detect_and_read(&text, "x.csv");
        assert_eq!(detected, format);
        assert_eq!(got.len(), count, "{format}");
        assert_eq!(
            lines,
            7 + body.lines().count() as u64,
            "line numbers count the preamble"
        );
        // The same requests as without the preamble, and with the format forced.
        assert_eq!(
            read_all(body.as_bytes(), "x.csv", &ReadOptions::default()).unwrap(),
            got
        );
        let forced = ReadOptions {
            format: Some(format),
            ..ReadOptions::default()
        };
        assert_eq!(read_all(text.as_bytes(), "x.csv", &forced).unwrap(), got);
    }
}

#[test]
fn the_header_must_be_within_the_first_hundred_lines() {
    assert_eq!(tierlab_trace::detect::PREAMBLE_MAX_LINES, 100);
    // Header on line 100: read.
    let text = format!("{}{SYSTOR}", preamble(99));
    assert_eq!(detect_and_read(&text, "x.csv").1.len(), 2);
    // Header on line 101: no preamble is recognised, and line 1 is reported.
    let text = format!("{}{SYSTOR}", preamble(100));
    let forced = ReadOptions {
        format: Some(Format::Systor17),
        ..ReadOptions::default()
    };
    let e = error_text(text.as_bytes(), "x.csv", &forced);
    assert!(
        e.starts_with("x.csv:1: field `Timestamp`: expected a non-negative number of seconds"),
        "{e}"
    );
    let e = error_text(text.as_bytes(), "x.csv", &ReadOptions::default());
    assert!(e.contains("not in any trace format"), "{e}");
}

#[test]
fn data_after_a_preamble_is_still_checked() {
    let text = format!("{}{SYSTOR}1456135201.0,0.001,Q,6,4096,4096\n", preamble(3));
    let e = error_text(text.as_bytes(), "p.csv", &ReadOptions::default());
    assert!(
        e.starts_with("p.csv:8: field `IOType`: expected `R`, `W` or nothing"),
        "{e}"
    );
}

#[test]
fn a_header_after_data_is_no_preamble() {
    // Concatenated files: the lines before the second header are data, not a preamble.
    let text = "1456135200.5,0.001,R,0,0,512\nTimestamp,Response,IOType,LUN,Offset,Size\n\
                1456135201.5,0.001,W,0,512,512\n";
    let (format, got, _, _) = detect_and_read(text, "cat.csv");
    assert_eq!(format, Format::Systor17);
    assert_eq!(got.len(), 2);
}
