//! Property tests: no input — arbitrary bytes, mutated valid lines, damaged compressed
//! streams — makes the reader panic, and what it does emit obeys the invariants
//! (positive lengths, non-decreasing times, sorting within the window).

mod common;

use common::{all_samples, compress, read_all, CODECS};
use proptest::prelude::*;
use tierlab_trace::{Format, ReadOptions, TraceReader};

/// Reads everything, returning how many requests came out before the end or an error.
/// Any panic fails the property.
fn drain(bytes: &[u8], opts: &ReadOptions) -> usize {
    match TraceReader::from_bufread(std::io::Cursor::new(bytes.to_vec()), "fuzz", opts) {
        Err(_) => 0,
        Ok(r) => {
            let mut n = 0;
            let mut last = 0;
            for item in r {
                match item {
                    Ok(req) => {
                        assert!(
                            req.len_bytes > 0 && req.len_bytes <= tierlab_trace::MAX_REQUEST_BYTES
                        );
                        assert!(req.time_ns >= last, "times must not decrease");
                        last = req.time_ns;
                        n += 1;
                    }
                    Err(e) => {
                        let _ = e.to_string();
                        break;
                    }
                }
            }
            n
        }
    }
}

/// Default detection, every forced format, and sorting.
fn all_option_sets() -> Vec<ReadOptions> {
    let mut sets = vec![
        ReadOptions::default(),
        ReadOptions {
            sort: true,
            ..ReadOptions::default()
        },
    ];
    sets.extend(Format::ALL.map(|f| ReadOptions {
        format: Some(f),
        ..ReadOptions::default()
    }));
    sets
}

/// A change to a valid sample.
#[derive(Clone, Debug)]
enum Mutation {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    DuplicateLine(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes that matter to the parsers, plus any byte.
    let byte = prop_oneof![
        prop::sample::select(b"0123456789,;.+- \t\n\r#RWrwxX-".to_vec()),
        any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 1usize..12).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
    ]
}

fn apply(text: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut out = text.to_vec();
    for m in mutations {
        let len = out.len().max(1);
        match *m {
            Mutation::Replace(i, b) if !out.is_empty() => out[i % len] = b,
            Mutation::Replace(..) => {}
            Mutation::Insert(i, b) => out.insert(i % (out.len() + 1), b),
            Mutation::Delete(i, n) if !out.is_empty() => {
                let start = i % len;
                let end = (start + n).min(out.len());
                out.drain(start..end);
            }
            Mutation::Delete(..) => {}
            Mutation::DuplicateLine(i) => {
                let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
                let pick = lines[i % lines.len()].to_vec();
                out.extend_from_slice(&pick);
                out.push(b'\n');
            }
        }
    }
    out
}

// 256 cases each by default; set PROPTEST_CASES for a longer hunt.
proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        for opts in all_option_sets() {
            drain(&bytes, &opts);
        }
    }

    #[test]
    fn trace_like_text_never_panics(text in "[0-9a-fA-FRWrw ,;.#+\\-\\[\\]\n]{0,300}") {
        for opts in all_option_sets() {
            drain(text.as_bytes(), &opts);
        }
    }

    #[test]
    fn mutated_valid_samples_never_panic(
        which in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let samples = all_samples();
        let (format, text) = samples[which.index(samples.len())];
        let bytes = apply(text.as_bytes(), &mutations);
        drain(&bytes, &ReadOptions::default());
        drain(&bytes, &ReadOptions { format: Some(format), ..ReadOptions::default() });
        drain(&bytes, &ReadOptions { format: Some(format), sort: true, ..ReadOptions::default() });
    }

    #[test]
    fn damaged_compressed_streams_never_panic(
        which in any::<prop::sample::Index>(),
        codec in prop::sample::select(CODECS.to_vec()),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let samples = all_samples();
        let (_, text) = samples[which.index(samples.len())];
        let packed = compress(codec, text.as_bytes());
        drain(&packed[..cut.index(packed.len())], &ReadOptions::default());
        let mut flipped = packed.clone();
        flipped[flip.index(packed.len())] ^= 1 << bit;
        drain(&flipped, &ReadOptions::default());
    }

    /// Valid generated DiskSim lines all come back, in order, with their fields.
    #[test]
    fn generated_disksim_lines_round_trip(
        lines in prop::collection::vec((0u64..1_000_000, 0u32..4, 0u64..1 << 40, 1u64..2048, any::<bool>()), 1..60)
    ) {
        let mut time = 0u64;
        let mut text = String::new();
        let mut expected = Vec::new();
        for (gap, dev, lba, sectors, read) in &lines {
            time += gap;
            text.push_str(&format!("{time} {dev} {lba} {sectors} {}\n", u8::from(*read)));
            expected.push((time, *dev, lba * 512, sectors * 512, *read));
        }
        let opts = ReadOptions { format: Some(Format::Disksim), ..ReadOptions::default() };
        let got = read_all(text.as_bytes(), "g", &opts).unwrap();
        let base = expected[0].0;
        let got: Vec<_> = got.iter().map(|r| (r.time_ns + base, r.volume, r.offset_bytes, r.len_bytes, r.op.is_read())).collect();
        prop_assert_eq!(got, expected);
    }

    /// Records displaced by less than the window come out sorted, none lost; ties keep
    /// file order.
    #[test]
    fn sort_window_restores_order(
        stamps in prop::collection::vec(0u64..50, 1..200),
        jitter in prop::collection::vec(0u64..=1, 200),
    ) {
        // Non-decreasing seconds, some lines moved back by up to the 1 s window.
        let mut sorted = stamps.clone();
        sorted.sort_unstable();
        let shown: Vec<u64> = sorted.iter().zip(&jitter).map(|(s, j)| s.saturating_sub(*j)).collect();
        let text: String = shown.iter().enumerate().map(|(i, s)| format!("{},8,8,0,{i}\n", 1_000 + s)).collect();
        let opts = ReadOptions { sort: true, format: Some(Format::TencentCbs), ..ReadOptions::default() };
        let got = read_all(text.as_bytes(), "s", &opts).unwrap();
        prop_assert_eq!(got.len(), shown.len());
        let mut expected: Vec<(u64, u32)> = shown.iter().enumerate().map(|(i, s)| (*s, i as u32)).collect();
        expected.sort_unstable();
        let min = expected[0].0;
        let got: Vec<(u64, u32)> = got.iter().map(|r| (r.time_ns / 1_000_000_000 + min, r.volume)).collect();
        prop_assert_eq!(got, expected);
    }
}
