//! Any valid statistics give a well-formed stream: time never runs backwards, every
//! request lies inside the footprint and inside one record, none is empty, the counts are
//! the plan's, and the classifier finds exactly the hot records the plan reaches.

use proptest::prelude::*;
use tierlab_classes::ClassConfig;
use tierlab_synth::{evaluate, RateRegions, Synth, SynthOptions, WorkloadStats, RECORD_BYTES};

fn stats() -> impl Strategy<Value = WorkloadStats> {
    (
        1u64..600,       // records
        0.0f64..=1.0,    // hot share of the footprint
        1.0f64..200.0,   // duration, s
        0.01f64..20.0,   // base requests/s
        0.5f64..=1024.0, // request KB
        0.0f64..=100.0,  // read %
        prop::option::of(0.0f64..=100.0),
        prop::option::of((0.1f64..5.0, 0.5f64..50.0, 0.0f64..=1.0)),
        any::<bool>(), // bandwidth or inter-arrival
    )
        .prop_map(
            |(records, hot_share, duration_s, iops, request_kb, read, seq, rate, by_bw)| {
                let total_gb = records as f64 / 1024.0;
                let hot_gb = (records as f64 * hot_share).round() / 1024.0;
                WorkloadStats {
                    id: "prop".into(),
                    description: "generated".into(),
                    source: "x".into(),
                    estimates: vec![],
                    assumptions: vec![],
                    total_gb,
                    hot_gb,
                    cold_gb: total_gb - hot_gb,
                    cold_touched_gb: None,
                    bandwidth_kb_s: by_bw.then_some(iops * request_kb),
                    interarrival_ms: (!by_bw).then_some(1000.0 / iops),
                    request_kb,
                    read_percent: read,
                    sequential_percent: seq,
                    duration_s,
                    rate: rate.map(|(factor, period_s, duty)| RateRegions {
                        factor,
                        period_s,
                        duty,
                        source: None,
                    }),
                    notes: None,
                    sources: [("x".to_string(), "generated".to_string())].into(),
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn any_valid_statistics_give_a_well_formed_stream(s in stats(), seed in any::<u64>()) {
        let opts = SynthOptions::new(seed);
        let synth = Synth::new(&s, &opts).unwrap();
        let plan = synth.plan().clone();
        let footprint = plan.records * RECORD_BYTES;
        let duration_ns = (s.duration_s * 1e9) as u64;
        let (mut n, mut reads, mut last, mut whole_records) = (0u64, 0u64, 0u64, 0u64);
        for r in synth {
            prop_assert!(r.time_ns >= last, "time ran backwards at request {}", n);
            prop_assert!(r.len_bytes > 0 && r.len_bytes % 512 == 0);
            prop_assert!(r.end_bytes() <= footprint, "{:?} beyond {}", r, footprint);
            prop_assert_eq!(r.offset_bytes / RECORD_BYTES, (r.end_bytes() - 1) / RECORD_BYTES);
            last = r.time_ns;
            n += 1;
            reads += u64::from(r.op.is_read());
            whole_records += u64::from(r.len_bytes == RECORD_BYTES);
        }
        prop_assert_eq!(n, plan.requests);
        prop_assert_eq!(reads, plan.read_requests);
        // Only cold records revisited (nothing hot) may be deferred past the duration, so
        // as not to get two requests in one second.
        if plan.cold_requests <= plan.cold_records {
            prop_assert!(last < duration_ns.max(1));
        }
        let e = evaluate(&s, &opts, &ClassConfig::default()).unwrap();
        prop_assert_eq!(
            e.achieved.hot_gb * 1024.0,
            plan.hot_records_reached as f64,
            "plan {:?}", plan
        );
        if n > 0 {
            prop_assert_eq!(e.achieved.total_gb * 1024.0, plan.records as f64);
        }
        let seq = e.stream.sequential;
        prop_assert!(seq <= plan.sequential_requests + whole_records,
            "{} sequential, {} planned", seq, plan.sequential_requests);
    }
}
