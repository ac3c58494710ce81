//! Detection never reads a file in the wrong units silently: byte-unit replayer traces,
//! readings that disagree, formats read sorted by default, big-endian id streams.

mod common;

use common::{error_text, read_all};
use tierlab_trace::{Format, ReadOptions, TraceReader};

fn detected(text: &str, name: &str) -> Format {
    TraceReader::from_bufread(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        name,
        &ReadOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .format()
}

fn forced(format: Format) -> ReadOptions {
    ReadOptions {
        format: Some(format),
        ..ReadOptions::default()
    }
}

/// `ts_ms devno offset_bytes size_bytes op` lines: one a millisecond, sizes cycling
/// through `sizes`, offsets spread over `span_bytes`.
fn replayer(lines: usize, sizes: &[u64], span_bytes: u64) -> String {
    (0..lines)
        .map(|i| {
            let size = sizes[i % sizes.len()];
            let offset = i as u64 * (span_bytes / lines as u64) / 4096 * 4096;
            format!("{}.{:03} 0 {offset} {size} {}\n", i, i % 1000, u8::from(i % 3 > 0))
        })
        .collect()
}

#[test]
fn a_byte_unit_replayer_trace_reads_with_its_true_sizes() {
    // 16 KiB mean: read as sectors it would be 8 MiB a request, which no trace has.
    let text = replayer(300, &[8192, 16384, 24576], 100 << 30);
    assert_eq!(detected(&text, "trace.txt"), Format::SsdReplay);
    let got = read_all(text.as_bytes(), "trace.txt", &ReadOptions::default()).unwrap();
    let mean = got.iter().map(|r| r.len_bytes).sum::<u64>() / got.len() as u64;
    assert_eq!(mean, 16384);
    assert_eq!(got[1].offset_bytes, (100 << 30) / 300 / 4096 * 4096);
}

#[test]
fn readings_that_both_make_sense_are_refused_with_both_named() {
    // Mean 5.2 KiB in bytes, 2.6 MiB read as sectors: both could be real.
    let text = replayer(300, &[4096, 4096, 8192, 4096, 4096, 12288, 4096, 4096, 4096, 4096], 64 << 30);
    let e = error_text(text.as_bytes(), "t.txt", &ReadOptions::default());
    for part in ["disksim-ms", "ssd-replay", "mean request 5.2 KiB", "mean request 2.6 MiB", "--format"] {
        assert!(e.contains(part), "{part} missing from: {e}");
    }
    // Forced, it reads.
    let got = read_all(text.as_bytes(), "t.txt", &forced(Format::SsdReplay)).unwrap();
    assert_eq!(got.len(), 300);
    let got = read_all(text.as_bytes(), "t.txt", &forced(Format::DisksimMs)).unwrap();
    assert_eq!(got[0].len_bytes, 4096 * 512);
}

#[test]
fn addresses_beyond_any_drive_rule_a_reading_out() {
    // Offsets up to 400 GB: as sectors, 200 TB, more than any drive holds.
    let text = replayer(300, &[4096, 8192], 400_000_000_000);
    assert_eq!(detected(&text, "t"), Format::SsdReplay);
}

#[test]
fn sector_sizes_are_not_read_as_bytes() {
    // MSN-like: decimal ms, 8-64 sectors. As bytes the mean request would be 28 B.
    let text: String = (0..100)
        .map(|i| format!("{}.{:03} 5 {} {} 1\n", i, i % 7, 174_224_064 + i * 64, 8 << (i % 4)))
        .collect();
    assert_eq!(detected(&text, "t"), Format::DisksimMs);
}

#[test]
fn integer_milliseconds_are_not_read_as_nanoseconds_at_a_billion_requests_a_second() {
    // One request a millisecond for a second: as ns, 1,000 requests in 999 ns.
    let text: String = (0..1000).map(|i| format!("{i} 0 {} 8 1\n", i * 8)).collect();
    assert_eq!(detected(&text, "t"), Format::DisksimMs);
    // At plausible rates both ways, whole numbers are nanoseconds (MQSim).
    let text: String = (0..1000).map(|i| format!("{} 0 {} 8 1\n", i * 10_000, i * 8)).collect();
    assert_eq!(detected(&text, "t"), Format::Disksim);
}

#[test]
fn a_name_ending_chooses_between_readings() {
    let text = replayer(300, &[4096, 8192, 4096], 64 << 30);
    assert_eq!(detected(&text, "t.disksim-ms"), Format::DisksimMs);
}

/// SYSTOR '17 lines in completion order: the second request arrived 3 ms before the
/// first but completed after it.
const SYSTOR_COMPLETION_ORDER: &str = "\
Timestamp,Response,IOType,LUN,Offset,Size
1456135200.013118000,0.000806000,R,4,899056122368,131072
1456135200.010118000,0.004000000,W,4,4096,4096
1456135200.500000500,0.001000000,W,6,4096,4096
";

#[test]
fn systor17_is_read_sorted_by_default() {
    let got = read_all(SYSTOR_COMPLETION_ORDER.as_bytes(), "2016022219-LUN4.csv", &ReadOptions::default()).unwrap();
    let times: Vec<u64> = got.iter().map(|r| r.time_ns).collect();
    assert_eq!(times, [0, 3_000_000, 489_882_500]);
    assert_eq!(got[0].offset_bytes, 4096);
    assert!(Format::Systor17.description().contains("sorted"));
    assert!(Format::Systor17.sorts_by_default() && !Format::Msr.sorts_by_default());
}

#[test]
fn big_endian_id_streams_are_read_when_forced() {
    let mut be32 = Vec::new();
    let mut be64 = Vec::new();
    for id in [1u64, 0x0102_0304, 7] {
        be32.extend((id as u32).to_be_bytes());
        be64.extend(id.to_be_bytes());
    }
    for (bytes, spelling) in [(&be32, ">I"), (&be64, ">Q")] {
        let format: Format = spelling.parse().unwrap();
        let got = read_all(bytes, "ids.bin", &forced(format)).unwrap();
        let ids: Vec<u64> = got.iter().map(|r| r.offset_bytes / 512).collect();
        assert_eq!(ids, [1, 0x0102_0304, 7], "{format}");
        assert!(format.is_id_stream());
    }
    // Read little-endian, the same bytes are other ids.
    let got = read_all(&be32, "ids.bin", &forced(Format::BinaryU32)).unwrap();
    assert_eq!(got[0].offset_bytes / 512, 1 << 24);
}
