//! Time rebasing, windows, volume filters, speed, request limits and sorting.

mod common;

use common::read_all;
use tierlab_trace::ReadOptions;

/// Tencent-style lines: (seconds, volume).
fn tencent(lines: &[(u64, u32)]) -> Vec<u8> {
    lines
        .iter()
        .map(|(s, v)| format!("{},8,8,0,{v}\n", 1_538_323_200 + s))
        .collect::<String>()
        .into_bytes()
}

fn times_s(bytes: &[u8], opts: &ReadOptions) -> Vec<f64> {
    read_all(bytes, "t.csv", opts)
        .unwrap()
        .iter()
        .map(|r| r.time_ns as f64 / 1e9)
        .collect()
}

#[test]
fn times_are_rebased_to_the_first_request() {
    let data = tencent(&[(5, 1), (6, 2), (9, 1)]);
    assert_eq!(times_s(&data, &ReadOptions::default()), vec![0.0, 1.0, 4.0]);
}

#[test]
fn window_keeps_start_inclusive_end_exclusive_and_shifts_to_start() {
    let data = tencent(&[(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)]);
    let opts = ReadOptions {
        start_ns: 1_000_000_000,
        end_ns: Some(3_000_000_000),
        ..ReadOptions::default()
    };
    assert_eq!(times_s(&data, &opts), vec![0.0, 1.0]);
}

#[test]
fn volume_filter_keeps_the_whole_trace_time_base() {
    let data = tencent(&[(0, 1), (2, 2), (3, 1), (5, 2)]);
    let opts = ReadOptions {
        volumes: Some(vec![2]),
        ..ReadOptions::default()
    };
    let got = read_all(&data, "t.csv", &opts).unwrap();
    assert!(got.iter().all(|r| r.volume == 2));
    assert_eq!(
        got.iter()
            .map(|r| r.time_ns / 1_000_000_000)
            .collect::<Vec<_>>(),
        vec![2, 5]
    );
}

#[test]
fn speed_divides_times() {
    let data = tencent(&[(0, 1), (10, 1), (15, 1)]);
    let opts = ReadOptions {
        speed: 10.0,
        ..ReadOptions::default()
    };
    assert_eq!(times_s(&data, &opts), vec![0.0, 1.0, 1.5]);
    let slow = ReadOptions {
        speed: 0.5,
        ..ReadOptions::default()
    };
    assert_eq!(times_s(&data, &slow), vec![0.0, 20.0, 30.0]);
}

#[test]
fn max_requests_stops_after_filtering() {
    let data = tencent(&[(0, 1), (1, 2), (2, 1), (3, 1)]);
    let opts = ReadOptions {
        max_requests: Some(2),
        volumes: Some(vec![1]),
        ..ReadOptions::default()
    };
    assert_eq!(times_s(&data, &opts), vec![0.0, 2.0]);
    let none = ReadOptions {
        max_requests: Some(0),
        ..ReadOptions::default()
    };
    assert!(read_all(&data, "t.csv", &none).unwrap().is_empty());
}

#[test]
fn sort_reorders_within_the_window_and_keeps_file_order_for_ties() {
    // Whole-second stamps with records one second early, like the Tencent file.
    let data = tencent(&[
        (1, 10),
        (0, 20),
        (1, 30),
        (0, 40),
        (2, 50),
        (1, 60),
        (3, 70),
    ]);
    let opts = ReadOptions {
        sort: true,
        ..ReadOptions::default()
    };
    let got = read_all(&data, "t.csv", &opts).unwrap();
    let order: Vec<(u64, u32)> = got
        .iter()
        .map(|r| (r.time_ns / 1_000_000_000, r.volume))
        .collect();
    assert_eq!(
        order,
        vec![
            (0, 20),
            (0, 40),
            (1, 10),
            (1, 30),
            (1, 60),
            (2, 50),
            (3, 70)
        ]
    );
}

#[test]
fn sorted_input_is_unchanged_by_sort() {
    let data = tencent(&[(0, 1), (0, 2), (1, 3), (7, 4)]);
    let plain = read_all(&data, "t.csv", &ReadOptions::default()).unwrap();
    let sorted = read_all(
        &data,
        "t.csv",
        &ReadOptions {
            sort: true,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(plain, sorted);
}

#[test]
fn comments_and_blank_lines_are_skipped_and_counted_as_lines() {
    let data = b"# a comment\n\n100 0 8 8 1\r\n   # indented comment\n200 0 8 8 0\n";
    let mut r = tierlab_trace::TraceReader::from_bufread(
        std::io::Cursor::new(data.to_vec()),
        "t",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(r.by_ref().count(), 2);
    assert_eq!(r.line(), 5);
}
