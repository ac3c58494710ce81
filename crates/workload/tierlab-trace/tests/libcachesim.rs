//! libCacheSim's binary object traces: `oracleGeneral` records and bare u32/u64 id
//! streams, written here byte by byte. Exact requests, detection, located errors, and no
//! panic on any bytes.

mod common;

use common::{compress, error_text, oracle_record, read_all, CODECS};
use proptest::prelude::*;
use tierlab_trace::{open, Format, ReadOptions, TraceError, TraceReader, MAX_REQUEST_BYTES};
use tierlab_types::{IoRequest, Op};

fn forced(format: Format) -> ReadOptions {
    ReadOptions {
        format: Some(format),
        ..ReadOptions::default()
    }
}

/// An object read as the binary formats produce it: the id is the sector number.
fn object(time_ns: u64, id: u64, len_bytes: u64) -> IoRequest {
    IoRequest {
        time_ns,
        volume: 0,
        offset_bytes: id * 512,
        len_bytes,
        op: Op::Read,
    }
}

/// Five records: two at second 100, one at 101, a size-0 record (skipped), one at 105
/// with the largest id placement takes and the largest size accepted.
fn oracle_sample() -> Vec<u8> {
    let mut bytes = oracle_record(100, 42, 4096, 3);
    bytes.extend(oracle_record(100, 7, 512, -1));
    bytes.extend(oracle_record(101, 42, 4096, -1));
    bytes.extend(oracle_record(101, 9, 0, -1));
    bytes.extend(oracle_record(105, (1 << 40) - 1, 1 << 30, i64::MAX));
    bytes
}

fn oracle_expected() -> Vec<IoRequest> {
    vec![
        object(0, 42, 4096),
        object(0, 7, 512),
        object(1_000_000_000, 42, 4096),
        object(5_000_000_000, (1 << 40) - 1, 1 << 30),
    ]
}

fn reader(bytes: &[u8], name: &str, opts: &ReadOptions) -> TraceReader {
    TraceReader::from_bufread(std::io::Cursor::new(bytes.to_vec()), name, opts)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn oracle_general_reads_exact_object_requests() {
    let mut r = reader(
        &oracle_sample(),
        "cloudPhysicsIO.oracleGeneral.bin",
        &ReadOptions::default(),
    );
    assert_eq!(r.format(), Format::OracleGeneral);
    let got: Vec<IoRequest> = r.by_ref().map(|x| x.unwrap()).collect();
    assert_eq!(got, oracle_expected());
    assert_eq!(r.first_timestamp_ns(), Some(100_000_000_000));
    assert_eq!(r.line(), 5, "records read, the skipped one included");
    // tierlab-placement's `request` objects key on offset_bytes / 512: the object ids.
    let keys: Vec<u64> = got.iter().map(|q| q.offset_bytes / 512).collect();
    assert_eq!(keys, [42, 7, 42, (1 << 40) - 1]);
}

#[test]
fn oracle_general_is_detected_by_name_or_by_binary_content() {
    for name in [
        "x.oracleGeneral",
        "w44.oracleGeneral.bin.zst",
        "c.ORACLEGENERAL.sample10",
        "stdin",
        "trace.bin",
    ] {
        assert_eq!(
            reader(&oracle_sample(), name, &ReadOptions::default()).format(),
            Format::OracleGeneral,
            "{name}"
        );
    }
    // Through every codec, from a file whose name says nothing.
    let dir = tempfile::tempdir().unwrap();
    for codec in CODECS {
        let path = dir.path().join(format!("t-{codec}.dat"));
        std::fs::write(&path, compress(codec, &oracle_sample())).unwrap();
        let mut r = open(&path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{codec}: {e}"));
        assert_eq!(r.format(), Format::OracleGeneral, "{codec}");
        assert_eq!(
            r.by_ref().map(|x| x.unwrap()).collect::<Vec<_>>(),
            oracle_expected(),
            "{codec}"
        );
    }
}

#[test]
fn implausible_binary_is_not_taken_for_oracle_general() {
    // Clock times that go backwards, then a next_access_vtime pointing backwards, then a
    // size above 1 GiB: binary, but not oracleGeneral records.
    let cases = [
        [
            oracle_record(100, 1, 512, -1),
            oracle_record(99, 2, 512, -1),
        ]
        .concat(),
        [
            oracle_record(100, 1, 512, -1),
            oracle_record(100, 2, 512, 1),
        ]
        .concat(),
        oracle_record(100, 1, (1 << 30) + 1, -1),
    ];
    for bytes in cases {
        let e = error_text(&bytes, "x.bin", &ReadOptions::default());
        assert!(e.starts_with("x.bin: line 1 is binary data"), "{e}");
        assert!(e.contains("--format oracle-general"), "{e}");
    }
    // A text trace whose name says oracleGeneral is still read as text.
    let text = "version,time,op,size,lbn\n1,10,28,4096,8\n1,11,2a,512,16\n";
    let r = reader(
        text.as_bytes(),
        "mislabelled.oracleGeneral",
        &ReadOptions::default(),
    );
    assert_eq!(r.format(), Format::Cloudphysics);
}

#[test]
fn oracle_general_errors_are_located_by_record() {
    let mut bytes = oracle_record(1, 5, 512, -1);
    bytes.extend(oracle_record(2, 6, (1 << 30) + 1, -1));
    assert_eq!(
        error_text(&bytes, "t.oracleGeneral", &ReadOptions::default()),
        "t.oracleGeneral:2: field `obj_size`: expected an object size of at most 1 GiB \
         (record 2, bytes 36..40 of the decompressed input), found \"1073741825\""
    );
    let bytes = [
        oracle_record(1, 5, 512, -1),
        oracle_record(2, 1 << 55, 512, -1),
    ]
    .concat();
    let e = error_text(&bytes, "t.oracleGeneral", &ReadOptions::default());
    assert!(
        e.starts_with("t.oracleGeneral:2: field `obj_id`: expected an object id below 2^55"),
        "{e}"
    );
    assert!(e.contains("bytes 28..36"), "{e}");
    // A truncated last record: the whole ones are read first.
    let mut bytes = oracle_sample();
    bytes.extend([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    let r = reader(&bytes, "t.oracleGeneral", &ReadOptions::default());
    let all: Vec<_> = r.collect();
    assert_eq!(all.len(), 5);
    assert!(all[..4].iter().all(Result::is_ok));
    let e = all[4].as_ref().unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.oracleGeneral:6: field `record`: expected a whole 24-byte oracle-general record \
         from byte 120 of the decompressed input (the input is truncated, or not \
         oracle-general), found \"10 bytes and the end of the input\""
    );
    let loc = e.location().unwrap();
    assert_eq!((loc.line, loc.field.as_str()), (6, "record"));
}

#[test]
fn oracle_general_times_going_back_are_an_error_or_sorted() {
    let bytes = [
        oracle_record(10, 1, 512, -1),
        oracle_record(12, 2, 512, -1),
        oracle_record(11, 3, 512, -1),
    ]
    .concat();
    let opts = forced(Format::OracleGeneral);
    let e = error_text(&bytes, "o.bin", &opts);
    assert!(
        e.starts_with("o.bin:3: field `time`: expected a time ≥ 12000000000 ns"),
        "{e}"
    );
    let sorted = ReadOptions { sort: true, ..opts };
    let got = read_all(&bytes, "o.bin", &sorted).unwrap();
    assert_eq!(
        got,
        vec![
            object(0, 1, 512),
            object(1_000_000_000, 3, 512),
            object(2_000_000_000, 2, 512)
        ]
    );
}

#[test]
fn id_streams_are_read_only_when_forced() {
    let ids32: [u32; 4] = [5, 0, u32::MAX, 5];
    let bytes32: Vec<u8> = ids32.iter().flat_map(|id| id.to_le_bytes()).collect();
    let ids64: [u64; 3] = [7, (1 << 55) - 1, 7];
    let bytes64: Vec<u8> = ids64.iter().flat_map(|id| id.to_le_bytes()).collect();
    // Not detected: reported as binary, naming the formats to force.
    let e = error_text(&bytes32, "ids.bin", &ReadOptions::default());
    assert!(e.contains("binary data") && e.contains("binary-u32"), "{e}");
    let got = read_all(&bytes32, "ids.bin", &forced(Format::BinaryU32)).unwrap();
    let expected: Vec<IoRequest> = ids32
        .iter()
        .enumerate()
        .map(|(i, &id)| object(i as u64, u64::from(id), 512))
        .collect();
    assert_eq!(got, expected);
    let got = read_all(&bytes64, "ids.bin", &forced(Format::BinaryU64)).unwrap();
    let expected: Vec<IoRequest> = ids64
        .iter()
        .enumerate()
        .map(|(i, &id)| object(i as u64, id, 512))
        .collect();
    assert_eq!(got, expected);
    // Through a codec, and with libCacheSim's spelling of nothing but case and hyphens.
    let packed = compress("zstd", &bytes64);
    let opts = forced("BINARYU64".parse().unwrap());
    assert_eq!(read_all(&packed, "ids.bin.zst", &opts).unwrap().len(), 3);
}

#[test]
fn id_stream_errors_are_located_by_record() {
    let mut bytes: Vec<u8> = [1u64, 2].iter().flat_map(|id| id.to_le_bytes()).collect();
    bytes.extend((1u64 << 55).to_le_bytes());
    assert_eq!(
        error_text(&bytes, "ids.u64", &forced(Format::BinaryU64)),
        "ids.u64:3: field `obj_id`: expected an object id below 2^55 (the id is the request's \
         sector number, at byte id × 512) (record 3, bytes 16..24 of the decompressed input), \
         found \"36028797018963968\""
    );
    let e = error_text(&[1, 0, 0, 0, 2, 0], "ids.u32", &forced(Format::BinaryU32));
    assert!(
        e.starts_with(
            "ids.u32:2: field `record`: expected a whole 4-byte binary-u32 record from byte 4"
        ),
        "{e}"
    );
    for format in [Format::OracleGeneral, Format::BinaryU32, Format::BinaryU64] {
        let e = error_text(b"", "empty", &forced(format));
        assert!(e.starts_with("empty: the input is empty"), "{format}: {e}");
    }
}

#[test]
fn binary_formats_list_why_they_were_not_detected_in_text() {
    let e = error_text(
        b"hello world\nthis is not a trace\n",
        "notes.txt",
        &ReadOptions::default(),
    );
    assert!(
        e.contains("\n  oracle-general: binary records; this input is text"),
        "{e}"
    );
    assert!(
        e.contains("\n  binary-u32: binary records, never detected: force it with --format"),
        "{e}"
    );
}

/// Reads everything, checking what comes out; any panic fails the property.
fn drain(bytes: &[u8], name: &str, opts: &ReadOptions) {
    let Ok(r) = TraceReader::from_bufread(std::io::Cursor::new(bytes.to_vec()), name, opts) else {
        return;
    };
    let mut last = 0;
    for item in r {
        match item {
            Ok(q) => {
                assert!(q.len_bytes > 0 && q.len_bytes <= MAX_REQUEST_BYTES);
                assert_eq!(q.offset_bytes % 512, 0);
                assert!(q.time_ns >= last);
                last = q.time_ns;
            }
            Err(e) => {
                if let TraceError::Parse { location, .. } = &e {
                    assert!(location.line > 0 && !location.field.is_empty(), "{e}");
                }
                break;
            }
        }
    }
}

proptest! {
    /// Valid oracleGeneral records of any values come back exactly (size-0 ones skipped),
    /// detected from the content alone.
    #[test]
    fn generated_oracle_records_round_trip(
        records in prop::collection::vec((0u32..3, 0u64..1 << 55, prop_oneof![Just(0u32), 1u32..=1 << 30], any::<bool>()), 1..80),
        start in 0u32..1_000_000,
    ) {
        let mut clock = start;
        let mut bytes = Vec::new();
        let mut expected = Vec::new();
        let mut first = None;
        for (i, (gap, id, size, last)) in records.iter().enumerate() {
            clock += gap;
            let next = if *last { -1 } else { i as i64 + 2 };
            bytes.extend(oracle_record(clock, *id, *size, next));
            if *size > 0 {
                let base = *first.get_or_insert(clock);
                expected.push(object(u64::from(clock - base) * 1_000_000_000, *id, u64::from(*size)));
            }
        }
        let r = TraceReader::from_bufread(std::io::Cursor::new(bytes), "p", &ReadOptions::default()).unwrap();
        prop_assert_eq!(r.format(), Format::OracleGeneral);
        let got: Vec<IoRequest> = r.map(|x| x.unwrap()).collect();
        prop_assert_eq!(got, expected);
    }

    /// Any bytes, with each binary format forced or under an oracleGeneral name: no panic,
    /// and parse errors carry a record and a field.
    #[test]
    fn arbitrary_bytes_never_panic_as_binary(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        for format in [Format::OracleGeneral, Format::BinaryU32, Format::BinaryU64] {
            drain(&bytes, "fuzz", &forced(format));
            drain(&bytes, "fuzz", &ReadOptions { sort: true, ..forced(format) });
        }
        drain(&bytes, "fuzz.oracleGeneral", &ReadOptions::default());
    }

    /// A valid oracleGeneral trace with bytes flipped, inserted or cut: no panic.
    #[test]
    fn damaged_oracle_records_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        insert in prop::option::of((any::<prop::sample::Index>(), any::<u8>())),
    ) {
        let mut bytes = oracle_sample();
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if let Some((at, b)) = insert {
            let i = at.index(bytes.len());
            bytes.insert(i, b);
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        drain(&bytes, "d.oracleGeneral", &ReadOptions::default());
        drain(&bytes, "d", &ReadOptions::default());
        drain(&bytes, "d", &forced(Format::OracleGeneral));
    }
}
