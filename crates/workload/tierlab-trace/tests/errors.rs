//! Every class of bad input ends in an error naming the file, line and field.

mod common;

use common::{compress, error_text, read_all, CODECS};
use tierlab_trace::{Format, ReadOptions, TraceError, TraceReader};

fn forced(format: Format) -> ReadOptions {
    ReadOptions {
        format: Some(format),
        ..ReadOptions::default()
    }
}

#[test]
fn negative_size_quotes_the_field_and_value() {
    let text = "version,time,op,size,lbn\n1,10,28,4096,8\n1,11,2a,-4,16\n";
    assert_eq!(
        error_text(text.as_bytes(), "trace.csv", &ReadOptions::default()),
        "trace.csv:3: field `size`: expected a positive whole number of bytes (at most 1 GiB), found \"-4\""
    );
}

#[test]
fn zero_size_is_an_error() {
    let text = "1538323200,8,8,0,7\n1538323200,8,0,0,7\n";
    let e = error_text(text.as_bytes(), "t.csv", &ReadOptions::default());
    assert!(
        e.starts_with(
            "t.csv:2: field `size`: expected a positive whole number of 512-byte sectors"
        ),
        "{e}"
    );
}

#[test]
fn oversized_request_is_an_error() {
    let text = "100 0 8 8 1\n200 0 8 4194304 1\n";
    let e = error_text(text.as_bytes(), "t.disksim", &ReadOptions::default());
    assert!(e.starts_with("t.disksim:2: field `size_sectors`"), "{e}");
    assert!(e.contains("at most 1 GiB"), "{e}");
}

#[test]
fn non_numeric_field_is_an_error() {
    let text = "100 0 8 8 1\n200 0 x8 8 1\n";
    let e = error_text(text.as_bytes(), "t.disksim", &ReadOptions::default());
    assert_eq!(e, "t.disksim:2: field `lba_sectors`: expected a whole number of 512-byte sectors (below 2^55), found \"x8\"");
}

#[test]
fn missing_field_is_an_error() {
    let text = "128166385295514663,hm,1,Read,4096,4096,10\n128166385295524663,hm,1,Write,0,512\n";
    let e = error_text(text.as_bytes(), "hm_0.csv", &ReadOptions::default());
    assert!(
        e.starts_with("hm_0.csv:2: field `ResponseTime`: expected"),
        "{e}"
    );
    assert!(e.ends_with("found \"end of line\""), "{e}");
}

#[test]
fn extra_field_is_an_error() {
    let e = error_text(b"100 0 8 8 1 7\n", "t", &forced(Format::Disksim));
    assert_eq!(
        e,
        "t:1: field `line`: expected 5 fields and no more, found \"7\""
    );
}

#[test]
fn unknown_op_codes_are_errors_in_every_format_that_has_them() {
    let cases: [(Format, &str, &str); 11] = [
        (Format::Disksim, "100 0 8 8 2", "op"),
        (Format::Cloudphysics, "1,10,2b,512,8", "op"),
        (
            Format::Blkreplay,
            "start ; sector ; length ; op\n0.5 ; 8 ; 8 ; X ; 0 ; 0",
            "op",
        ),
        (Format::Fiu, "1000 1 nfsd 8 8 Q 8 1 abc", "op"),
        (Format::Msr, "1,hm,1,Flush,0,512,1", "Type"),
        (Format::TencentCbs, "1,8,8,2,7", "io_type"),
        (Format::UmassSpc, "0,1,512,x,0.0", "op"),
        (Format::DisksimValidate, "T Hit 8 8 1.0 1.0", "op"),
        (
            Format::FioIolog,
            "fio version 2 iolog\nf fly 0 512",
            "action",
        ),
        (Format::Systor17, "1456135200.5,0.001,T,0,0,512", "IOType"),
        (Format::AlibabaBlock, "0,T,0,512,1577808000000626", "opcode"),
    ];
    for (format, line, field) in cases {
        let e = error_text(format!("{line}\n").as_bytes(), "bad.trace", &forced(format));
        let line_no = line.lines().count();
        assert!(
            e.starts_with(&format!("bad.trace:{line_no}: field `{field}`: expected")),
            "{format}: {e}"
        );
    }
}

#[test]
fn disksim_ns_rejects_fractional_arrivals_and_points_to_ms() {
    let e = error_text(b"1.5 0 8 8 1\n", "t", &forced(Format::Disksim));
    assert!(
        e.contains("field `arrival_ns`") && e.contains("disksim-ms"),
        "{e}"
    );
}

#[test]
fn out_of_order_time_without_sort_names_the_line_and_previous_time() {
    let text = "100 0 8 8 1\n300 0 8 8 1\n200 0 8 8 1\n";
    let e = error_text(text.as_bytes(), "t.disksim", &ReadOptions::default());
    assert!(
        e.starts_with("t.disksim:3: field `time`: expected a time ≥ 300 ns"),
        "{e}"
    );
    assert!(e.ends_with("found \"200 ns\""), "{e}");
}

#[test]
fn out_of_order_beyond_the_sort_window_is_an_error() {
    // Line 4 (second 1) comes after second 3 was released: second 5 had been seen, more
    // than the 1 s window after second 3.
    let text = "1538323200,8,8,0,7\n1538323203,8,8,0,7\n1538323205,8,8,0,7\n1538323201,8,8,0,7\n";
    let opts = ReadOptions {
        sort: true,
        ..ReadOptions::default()
    };
    let e = error_text(text.as_bytes(), "t.csv", &opts);
    assert!(
        e.starts_with("t.csv:4: field `time`: expected a time ≥ "),
        "{e}"
    );
    assert!(e.contains("sort window"), "{e}");
    // Within a wider window it sorts.
    let wide = ReadOptions {
        sort: true,
        sort_window_ns: 5_000_000_000,
        ..ReadOptions::default()
    };
    let got = read_all(text.as_bytes(), "t.csv", &wide).unwrap();
    let secs: Vec<u64> = got.iter().map(|r| r.time_ns / 1_000_000_000).collect();
    assert_eq!(secs, vec![0, 1, 3, 5]);
}

#[test]
fn empty_and_comment_only_inputs_are_errors() {
    let e = error_text(b"", "empty.csv", &ReadOptions::default());
    assert!(e.starts_with("empty.csv: the input is empty"), "{e}");
    let e = error_text(b"# nothing\n\n   \n", "c.csv", &ReadOptions::default());
    assert!(e.contains("only blank lines and comments"), "{e}");
    for codec in CODECS {
        let e = error_text(&compress(codec, b""), "e.gz", &ReadOptions::default());
        assert!(e.contains("is empty"), "{codec}: {e}");
    }
}

#[test]
fn binary_input_is_an_error() {
    let e = error_text(
        &[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, b'\n'],
        "a.out",
        &ReadOptions::default(),
    );
    assert!(e.starts_with("a.out: line 1 is binary data"), "{e}");
    let no_newlines = vec![b'x'; 200_000];
    let e = error_text(&no_newlines, "blob", &ReadOptions::default());
    assert!(e.contains("longer than 64 KiB"), "{e}");
}

#[test]
fn truncated_or_corrupt_compressed_streams_are_errors() {
    let text: String = (0..20_000)
        .map(|i| format!("{} 0 {} 8 1\n", 1000 + i, i * 8))
        .collect();
    for codec in CODECS {
        let whole = compress(codec, text.as_bytes());
        assert_eq!(
            read_all(&whole, "t", &ReadOptions::default())
                .unwrap()
                .len(),
            20_000,
            "{codec}"
        );
        for cut in [whole.len() / 2, whole.len() - 1] {
            let e = read_all(&whole[..cut], "t.z", &ReadOptions::default())
                .map(|r| r.len())
                .expect_err(&format!(
                    "{codec} cut at {cut} of {} must fail",
                    whole.len()
                ));
            let msg = e.to_string();
            assert!(matches!(e, TraceError::Io { .. }), "{codec}: {msg}");
            assert!(msg.starts_with("t.z"), "{msg}");
        }
    }
}

#[test]
fn unknown_format_lists_what_was_tried_and_how_to_force() {
    let e = error_text(
        b"hello world\nthis is not a trace\n",
        "notes.txt",
        &ReadOptions::default(),
    );
    for f in Format::ALL {
        assert!(e.contains(&format!("\n  {f}: ")), "{f} missing in {e}");
    }
    assert!(e.contains("--format"), "{e}");
}

#[test]
fn fio_without_header_is_an_error() {
    let e = error_text(
        b"/dev/sdb read 0 4096\n",
        "j.iolog",
        &forced(Format::FioIolog),
    );
    assert!(e.starts_with("j.iolog:1: field `header`"), "{e}");
}

#[test]
fn invalid_options_are_errors() {
    for speed in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let opts = ReadOptions {
            speed,
            ..ReadOptions::default()
        };
        let e = TraceReader::from_bufread(std::io::Cursor::new("1 0 0 1 1\n"), "x", &opts)
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("invalid option `speed`"), "{e}");
    }
    let opts = ReadOptions {
        start_ns: 10,
        end_ns: Some(10),
        ..ReadOptions::default()
    };
    assert!(TraceReader::from_bufread(std::io::Cursor::new("1 0 0 1 1\n"), "x", &opts).is_err());
}

#[test]
fn missing_file_names_the_path() {
    let e = tierlab_trace::open("/nonexistent/t.csv".as_ref(), &ReadOptions::default())
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/t.csv: cannot open the trace"),
        "{e}"
    );
}

#[test]
fn errors_carry_a_structured_location() {
    let e = read_all(b"100 0 8 8 1\n200 0 8 0 1\n", "t", &ReadOptions::default()).unwrap_err();
    let loc = e.location().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.field.as_str()),
        ("t", 2, "size_sectors")
    );
}

#[test]
fn systor17_errors_name_line_and_field() {
    let text = "Timestamp,Response,IOType,LUN,Offset,Size\n\
                1456135200.5,0.001,R,0,0,512\n\
                1456135201.5,0.001,W,0,4096,0\n";
    assert_eq!(
        error_text(text.as_bytes(), "2016022219-LUN0.csv", &ReadOptions::default()),
        "2016022219-LUN0.csv:3: field `Size`: expected a positive whole number of bytes (at most 1 GiB), found \"0\""
    );
    let text = "Timestamp,Response,IOType,LUN,Offset,Size\n1456135200.5,0.001,R,lun0,0,512\n";
    let e = error_text(text.as_bytes(), "s.csv", &forced(Format::Systor17));
    assert!(
        e.starts_with("s.csv:2: field `LUN`: expected a whole number below 2^32"),
        "{e}"
    );
}

#[test]
fn alibaba_errors_name_line_and_field() {
    let text = "0,R,0,4096,1577808000000626\n0,W,4096,4096,1577808000000626.5\n";
    assert_eq!(
        error_text(text.as_bytes(), "io_traces.csv", &ReadOptions::default()),
        "io_traces.csv:2: field `timestamp`: expected a whole number of microseconds (below 2^64 ns), found \"1577808000000626.5\""
    );
    let text = "0,R,0,4096,1577808000000626\n0,R,0,4096\n";
    let e = error_text(text.as_bytes(), "a.csv", &forced(Format::AlibabaBlock));
    assert_eq!(
        e,
        "a.csv:2: field `timestamp`: expected a time in microseconds, found \"end of line\""
    );
}
