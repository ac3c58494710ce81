use super::*;
use std::collections::{HashMap, HashSet};

const MIB: u64 = 1 << 20;

fn config(warehouses: u32, buffer_pool_bytes: u64, seed: u64) -> TpccConfig {
    TpccConfig {
        warehouses,
        buffer_pool_bytes,
        seed,
        ..TpccConfig::default()
    }
}

fn take(g: &mut TpccLog, n: usize) -> Vec<Transaction> {
    (0..n)
        .map(|_| {
            let mut t = Transaction::default();
            assert!(g.next_transaction(&mut t).unwrap());
            t
        })
        .collect()
}

/// Calls `f` on each of the next `n` transactions, reusing one buffer.
fn each(g: &mut TpccLog, n: u64, mut f: impl FnMut(&Transaction)) {
    let mut t = Transaction::default();
    for _ in 0..n {
        assert!(g.next_transaction(&mut t).unwrap());
        f(&t);
    }
}

#[test]
fn same_construction_same_stream_and_seeds_differ() {
    let cfg = config(4, 8 * MIB, 7);
    let mut a = TpccLog::new(cfg.clone()).unwrap();
    let mut b = TpccLog::new(cfg.clone()).unwrap();
    let first = take(&mut a, 2000);
    assert_eq!(first, take(&mut b, 2000));
    // Restarting replays the stream from its beginning.
    let mut again = a.restart();
    assert_eq!(first, take(&mut again, 2000));
    assert_eq!(a.stats(), again.stats());
    let mut other = TpccLog::new(TpccConfig { seed: 8, ..cfg }).unwrap();
    assert_ne!(first, take(&mut other, 2000));
}

/// A reader of the log alone gets the same records (and log writes) without the data I/O
/// of the primary's buffer: the replica's cursor relies on it.
#[test]
fn records_only_keeps_the_records_and_drops_the_data_io() {
    let cfg = config(4, 8 * MIB, 3);
    let mut full = TpccLog::new(cfg.clone()).unwrap();
    let mut log = TpccLog::new(cfg).unwrap();
    log.records_only();
    let (with_io, without) = (take(&mut full, 3000), take(&mut log, 3000));
    assert!(with_io.iter().any(|t| t.primary_ios.iter().any(|io| io.volume == PrimaryVolume::Data)));
    for (a, b) in with_io.iter().zip(&without) {
        assert_eq!(a.records, b.records);
        let log_ios: Vec<_> = a.primary_ios.iter().filter(|io| io.volume == PrimaryVolume::Log).collect();
        assert_eq!(log_ios, b.primary_ios.iter().collect::<Vec<_>>());
    }
    assert_eq!(log.stats().data_reads + log.stats().data_writes, 0);
}

#[test]
fn lsns_start_at_one_and_are_contiguous() {
    let mut g = TpccLog::new(config(2, 4 * MIB, 1)).unwrap();
    let mut expected = 1;
    each(&mut g, 5000, |t| {
        for r in &t.records {
            assert_eq!(r.lsn, expected);
            assert_eq!(r.value, r.lsn);
            expected += 1;
        }
    });
    assert_eq!(expected - 1, g.stats().records.total());
}

#[test]
fn records_and_io_stay_on_their_volumes() {
    for page_bytes in [1024, 8192, 65536] {
        let cfg = TpccConfig {
            warehouses: 3,
            page_bytes,
            buffer_pool_bytes: 2 * MIB,
            log_volume_bytes: MIB,
            seed: 3,
            ..TpccConfig::default()
        };
        let header = cfg.log_record_header_bytes;
        let commit = cfg.commit_record_bytes;
        let mut g = TpccLog::new(cfg).unwrap();
        let data_bytes = g.data_bytes();
        assert_eq!(g.page_bytes(), page_bytes);
        assert_eq!(data_bytes % page_bytes, 0);
        each(&mut g, 3000, |t| {
            for (i, r) in t.records.iter().enumerate() {
                let RecordKey::Row { table, page, .. } = r.key else {
                    panic!("a TPC-C record has a row key: {r:?}");
                };
                let table = Table::from_id(table).unwrap();
                assert_eq!(r.addr_bytes, page * page_bytes);
                assert_eq!(r.addr_bytes % page_bytes, 0);
                assert!(r.addr_bytes + page_bytes <= data_bytes);
                assert!(u64::from(r.len_bytes) <= page_bytes);
                let expected_len = match r.op {
                    UpdateOp::Delete => 0,
                    UpdateOp::Insert | UpdateOp::Update => table.row_bytes(),
                    UpdateOp::Write => panic!("no block writes in a database log"),
                };
                assert_eq!(r.len_bytes, expected_len);
                let last = i + 1 == t.records.len();
                let log = header + expected_len + if last { commit } else { 0 };
                assert_eq!(r.log_bytes, log);
            }
            for io in &t.primary_ios {
                match io.volume {
                    PrimaryVolume::Data => {
                        assert_eq!(io.len_bytes, page_bytes);
                        assert_eq!(io.offset_bytes % page_bytes, 0);
                        assert!(io.offset_bytes + io.len_bytes <= data_bytes);
                    }
                    PrimaryVolume::Log => {
                        assert_eq!(io.op, Op::Write);
                        assert_eq!(io.len_bytes % 512, 0);
                        assert_eq!(io.offset_bytes % 512, 0);
                        assert!(io.offset_bytes + io.len_bytes <= MIB);
                    }
                }
            }
            // A logging transaction ends with its one log append; others have none.
            let logs: Vec<_> = t
                .primary_ios
                .iter()
                .filter(|io| io.volume == PrimaryVolume::Log)
                .collect();
            if t.records.is_empty() {
                assert!(logs.is_empty());
            } else {
                assert_eq!(logs.len(), 1);
                let last = t.primary_ios.last().unwrap();
                assert_eq!(last.volume, PrimaryVolume::Log);
                assert_eq!(last.len_bytes, t.log_bytes().div_ceil(512) * 512);
            }
        });
        let s = g.stats();
        assert_eq!(
            s.log_writes,
            s.transactions.new_order + s.transactions.payment + s.transactions.delivery
        );
    }
}

#[test]
fn mix_and_new_order_lines_follow_the_specification() {
    let mut g = TpccLog::new(config(16, 64 * MIB, 11)).unwrap();
    let n = 20_000;
    each(&mut g, n, |_| {});
    let s = *g.stats();
    assert_eq!(s.transactions.total(), n);
    for (t, percent) in MIX_PERCENT {
        let share = s.transactions.get(t) as f64 / n as f64 * 100.0;
        assert!(
            (share - f64::from(percent)).abs() < 1.5,
            "{}: {share:.2} % against {percent} %",
            t.name()
        );
    }
    let lines = s.order_lines as f64 / s.transactions.new_order as f64;
    assert!((lines - 10.0).abs() < 0.2, "mean New-Order lines {lines}");
    // Read-only transactions log nothing; every New-Order, Payment and Delivery logs.
    assert_eq!(
        s.log_writes,
        s.transactions.new_order + s.transactions.payment + s.transactions.delivery
    );
    // New-Order inserts ORDER, NEW-ORDER and its lines; Payment one HISTORY row.
    assert_eq!(
        s.records.insert,
        s.transactions.new_order * 2 + s.order_lines + s.transactions.payment
    );
    assert_eq!(s.records.delete, s.delivered_orders);
    assert_eq!(
        s.delivered_orders + s.delivery_skipped_districts,
        s.transactions.delivery * 10
    );
}

/// Share of records whose key already occurred in the same window: what folding can
/// remove.
fn repeat_share(g: &mut TpccLog, windows: usize, window_records: usize) -> f64 {
    let mut seen = HashSet::new();
    let (mut repeats, mut total, mut in_window) = (0usize, 0usize, 0usize);
    let mut t = Transaction::default();
    while total < windows * window_records {
        assert!(g.next_transaction(&mut t).unwrap());
        for r in &t.records {
            if in_window == window_records {
                seen.clear();
                in_window = 0;
            }
            if !seen.insert(r.key) {
                repeats += 1;
            }
            in_window += 1;
            total += 1;
        }
    }
    repeats as f64 / total as f64
}

#[test]
fn keys_repeat_within_a_window() {
    // 160 warehouses: the paper's configuration; the warehouse and district rows and the
    // stock of popular items repeat within 10,000 records.
    let mut g = TpccLog::new(config(160, 512 * MIB, 5)).unwrap();
    let large = repeat_share(&mut g, 3, 10_000);
    // 16 warehouses: ten times the concentration.
    let mut g = TpccLog::new(config(16, 512 * MIB, 5)).unwrap();
    let small = repeat_share(&mut g, 3, 10_000);
    eprintln!("repeat share within 10,000 records: 160 wh {large:.4}, 16 wh {small:.4}");
    // Measured: 0.019 and 0.064 (about 330 transactions a window). The paper's windows
    // (32 to 512 MB of log) hold 25 to 400 times more.
    assert!(large > 0.01, "160 warehouses: {large}");
    assert!(
        small > 2.0 * large,
        "16 warehouses {small}, 160 warehouses {large}"
    );
    assert!(small < 0.9);
}

#[test]
fn delivery_deletes_what_new_order_inserted() {
    // One warehouse: a New-Order's NEW-ORDER row is delivered after the 900 older ones of
    // its district, within about 20,000 transactions; insert and delete share the key.
    let mut g = TpccLog::new(config(1, 64 * MIB, 2)).unwrap();
    let mut inserted = HashSet::new();
    let mut matched = 0;
    let new_order = Table::NewOrder.id();
    each(&mut g, 30_000, |t| {
        for r in &t.records {
            let RecordKey::Row { table, .. } = r.key else {
                continue;
            };
            if table != new_order {
                continue;
            }
            match r.op {
                UpdateOp::Insert => {
                    inserted.insert(r.key);
                }
                UpdateOp::Delete => matched += usize::from(inserted.remove(&r.key)),
                _ => panic!("NEW-ORDER rows are only inserted and deleted"),
            }
        }
    });
    assert!(matched > 100, "{matched} deliveries of generated orders");
}

#[test]
fn hit_ratio_rises_with_the_buffer() {
    let ratios: Vec<f64> = [MIB, 16 * MIB, 128 * MIB]
        .iter()
        .map(|&pool| {
            let mut g = TpccLog::new(config(4, pool, 9)).unwrap();
            each(&mut g, 6000, |_| {});
            g.stats().buffer_hit_ratio()
        })
        .collect();
    eprintln!("hit ratios {ratios:?}");
    assert!(ratios.windows(2).all(|w| w[0] < w[1]), "{ratios:?}");
    // With no buffer every reference misses.
    let mut g = TpccLog::new(config(1, 0, 9)).unwrap();
    each(&mut g, 200, |t| {
        for w in t.primary_ios.windows(2) {
            // Write-through: a modified page's write follows its read.
            if w[1].volume == PrimaryVolume::Data && w[1].op == Op::Write {
                assert_eq!(w[0].op, Op::Read);
                assert_eq!(w[0].offset_bytes, w[1].offset_bytes);
            }
        }
    });
    assert_eq!(g.stats().buffer_hits, 0);
    assert_eq!(g.stats().data_writes, g.stats().records.total());
}

#[test]
fn memory_does_not_grow_with_the_stream() {
    // Small regions (10 % room) so that every growing table wraps and NEW-ORDER queues
    // overflow within the run.
    let cfg = TpccConfig {
        warehouses: 2,
        buffer_pool_bytes: 4 * MIB,
        growth_room: 0.1,
        seed: 4,
        ..TpccConfig::default()
    };
    let mut g = TpccLog::new(cfg).unwrap();
    let before = g.memory();
    let data_bytes = g.data_bytes();
    let pool_pages = (4 * MIB / 8192) as usize;
    let mut t = Transaction::default();
    let mut max_ios = 0;
    let mut max_records = 0;
    for i in 0..200_000u64 {
        assert!(g.next_transaction(&mut t).unwrap());
        max_ios = max_ios.max(t.primary_ios.len());
        max_records = max_records.max(t.records.len());
        assert!(t.records.iter().all(|r| r.addr_bytes < data_bytes));
        if i % 10_000 == 0 {
            let m = g.memory();
            assert_eq!(m.district_states_capacity, before.district_states_capacity);
            assert!(m.buffer_resident_pages <= pool_pages);
            assert!(m.buffer_dirty_pages <= m.buffer_resident_pages);
        }
    }
    let after = g.memory();
    assert_eq!(after.district_states, 20);
    assert_eq!(
        after.district_states_capacity,
        before.district_states_capacity
    );
    assert_eq!(after.buffer_pool_capacity_pages, pool_pages);
    assert!(after.buffer_resident_pages <= pool_pages);
    assert_eq!(g.data_bytes(), data_bytes);
    // The largest transaction is bounded by the profiles: a Delivery of 10 orders of 15
    // lines, a Stock-Level of 20 orders of 15 lines.
    assert!(max_records <= 10 * (3 + 15), "{max_records} records");
    assert!(max_ios <= 2 * (1 + 20 * 15 * 2) + 1, "{max_ios} I/Os");
    assert!(g.stats().new_order_queue_overflows > 0);
}

#[test]
fn a_bounded_run_ends() {
    let mut g = TpccLog::new(TpccConfig {
        warehouses: 1,
        transactions: Some(25),
        ..TpccConfig::default()
    })
    .unwrap();
    let mut t = Transaction::default();
    for _ in 0..25 {
        assert!(g.next_transaction(&mut t).unwrap());
    }
    assert!(!g.next_transaction(&mut t).unwrap());
    assert!(t.records.is_empty() && t.primary_ios.is_empty());
    assert!(!g.next_transaction(&mut t).unwrap());
    assert_eq!(g.stats().transactions.total(), 25);
}

#[test]
fn layout_is_contiguous_and_described() {
    let g = TpccLog::new(TpccConfig::default()).unwrap();
    let d = g.describe();
    assert_eq!(d.data_bytes, g.data_bytes());
    assert_eq!(d.data_bytes, d.data_pages * 8192);
    assert_eq!(d.buffer_pool_pages, 65536);
    let mut next = 0;
    let mut by_name = HashMap::new();
    for t in &d.tables {
        assert_eq!(t.first_page, next);
        assert_eq!(t.rows_per_page, 8192 / u64::from(t.row_bytes));
        assert!(t.pages * t.rows_per_page >= t.partitions * t.rows_per_partition);
        next += t.pages;
        by_name.insert(t.name, t);
    }
    assert_eq!(next, d.data_pages);
    assert_eq!(by_name["STOCK"].initial_rows, 16_000_000);
    assert_eq!(by_name["ITEM"].initial_rows, 100_000);
    assert_eq!(by_name["CUSTOMER"].rows_per_page, 12);
    assert_eq!(by_name["ORDER-LINE"].partitions, 1600);
    assert_eq!(by_name["ORDER-LINE"].rows_per_partition, 60_000);
    assert_eq!(by_name["NEW-ORDER"].rows_per_partition, 1800);
    assert_eq!(by_name["HISTORY"].partitions, 1);
    assert!(d.nurand.c_last <= 255 && d.nurand.c_id <= 1023 && d.nurand.ol_i_id <= 8191);
    let json = serde_json::to_string(&d).unwrap();
    assert!(json.contains("\"ORDER-LINE\"") && json.contains("\"data_bytes\""));
    serde_json::to_string(g.stats()).unwrap();
    // About 90 MB of data volume per warehouse at the default room.
    let per_warehouse = d.data_bytes as f64 / 160.0 / 1e6;
    assert!((60.0..130.0).contains(&per_warehouse), "{per_warehouse} MB");
}

#[test]
fn config_reads_from_toml_with_defaults() {
    let c: TpccConfig = toml::from_str("warehouses = 16\nseed = 3\n").unwrap();
    assert_eq!(
        c,
        TpccConfig {
            warehouses: 16,
            seed: 3,
            ..TpccConfig::default()
        }
    );
    let c: TpccConfig = toml::from_str("transactions = 1000000").unwrap();
    assert_eq!(c.transactions, Some(1_000_000));
    assert!(toml::from_str::<TpccConfig>("warehouse = 16").is_err());
    assert!(TpccConfig::default().check().is_ok());
}

#[test]
fn config_errors_name_the_field() {
    let cases: Vec<(TpccConfig, &str)> = vec![
        (
            TpccConfig {
                warehouses: 0,
                ..TpccConfig::default()
            },
            "warehouses",
        ),
        (
            TpccConfig {
                warehouses: MAX_WAREHOUSES + 1,
                ..TpccConfig::default()
            },
            "warehouses",
        ),
        (
            TpccConfig {
                page_bytes: 3000,
                ..TpccConfig::default()
            },
            "page_bytes",
        ),
        (
            TpccConfig {
                page_bytes: 1 << 17,
                ..TpccConfig::default()
            },
            "page_bytes",
        ),
        (
            TpccConfig {
                page_bytes: 512,
                ..TpccConfig::default()
            },
            "page_bytes",
        ),
        (
            TpccConfig {
                log_record_header_bytes: 0,
                ..TpccConfig::default()
            },
            "log_record_header_bytes",
        ),
        (
            TpccConfig {
                commit_record_bytes: 5000,
                ..TpccConfig::default()
            },
            "commit_record_bytes",
        ),
        (
            TpccConfig {
                growth_room: f64::NAN,
                ..TpccConfig::default()
            },
            "growth_room",
        ),
        (
            TpccConfig {
                growth_room: -0.5,
                ..TpccConfig::default()
            },
            "growth_room",
        ),
        (
            TpccConfig {
                log_volume_bytes: MIB + 100,
                ..TpccConfig::default()
            },
            "log_volume_bytes",
        ),
        (
            TpccConfig {
                log_volume_bytes: 4096,
                ..TpccConfig::default()
            },
            "log_volume_bytes",
        ),
    ];
    for (cfg, field) in cases {
        let errors = cfg.check().unwrap_err();
        assert_eq!(errors.0.len(), 1, "{errors}");
        assert_eq!(errors.0[0].field, field);
        let text = errors.to_string();
        assert!(text.contains(field) && text.contains("expected"), "{text}");
        assert!(TpccLog::new(cfg).is_err());
    }
    let page_512 = TpccConfig {
        page_bytes: 512,
        ..TpccConfig::default()
    };
    assert!(page_512
        .check()
        .unwrap_err()
        .to_string()
        .contains("CUSTOMER"));
    // Several problems are all reported.
    let many = TpccConfig {
        warehouses: 0,
        page_bytes: 100,
        growth_room: 20.0,
        ..TpccConfig::default()
    };
    let fields: Vec<_> = many
        .check()
        .unwrap_err()
        .0
        .iter()
        .map(|e| e.field)
        .collect();
    assert_eq!(fields, ["warehouses", "page_bytes", "growth_room"]);
}

#[test]
fn table_ids_round_trip() {
    for (i, t) in TABLES.iter().enumerate() {
        assert_eq!(usize::from(t.id()), i);
        assert_eq!(Table::from_id(t.id()), Some(*t));
        assert!(u64::from(t.row_bytes()) <= u64::from(LARGEST_ROW_BYTES));
    }
    assert_eq!(Table::from_id(9), None);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Any accepted small configuration generates without panicking, within its
        /// volume; any configuration at all is checked without panicking.
        #[test]
        fn any_accepted_configuration_generates(
            warehouses in 0u32..4,
            page_shift in 8u32..18,
            pool_pages in 0u64..512,
            header in 0u32..5000,
            commit in 0u32..5000,
            growth_room in -1.0f64..12.0,
            seed in any::<u64>(),
        ) {
            let page_bytes = 1u64 << page_shift;
            let cfg = TpccConfig {
                warehouses,
                page_bytes,
                buffer_pool_bytes: pool_pages * page_bytes,
                log_record_header_bytes: header,
                commit_record_bytes: commit,
                growth_room,
                seed,
                transactions: Some(60),
                log_volume_bytes: MIB,
            };
            let Ok(mut g) = TpccLog::new(cfg) else {
                return Ok(());
            };
            let data_bytes = g.data_bytes();
            let mut t = Transaction::default();
            while g.next_transaction(&mut t).unwrap() {
                for io in &t.primary_ios {
                    let limit = match io.volume {
                        PrimaryVolume::Data => data_bytes,
                        PrimaryVolume::Log => MIB,
                    };
                    prop_assert!(io.offset_bytes + io.len_bytes <= limit);
                }
            }
        }
    }
}

/// The default room holds the paper's run at 16 warehouses (10⁶ transactions) without
/// reusing a slot. Slow in a debug build: `cargo test -- --ignored`.
#[test]
#[ignore]
fn the_paper_run_does_not_wrap() {
    let mut g = TpccLog::new(config(16, 512 * MIB, 0)).unwrap();
    each(&mut g, 1_000_000, |_| {});
    let order = g.layout.region(Table::Order).partition_rows;
    let order_line = g.layout.region(Table::OrderLine).partition_rows;
    let history = g.layout.region(Table::History).partition_rows;
    let max_orders = g.districts.iter().map(|d| d.next_o_id - 1).max().unwrap();
    let max_lines = g.districts.iter().map(|d| d.next_ol_pos).max().unwrap();
    eprintln!(
        "orders {max_orders}/{order}, lines {max_lines}/{order_line}, history {}/{history}",
        g.history_next
    );
    assert!(max_orders <= order && max_lines <= order_line && g.history_next <= history);
    assert_eq!(g.stats().new_order_queue_overflows, 0);
}

/// The stream of a small configuration whose buffer misses and writes back, pinned by a
/// digest of every I/O and record: the order the rows of a transaction are touched in
/// (and so which page is read, evicted and written when) must not change unnoticed.
#[test]
fn the_stream_of_a_pinned_configuration_is_unchanged() {
    let mut g = TpccLog::new(config(2, 2 * MIB, 11)).unwrap();
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    let mut mix_in = |v: u64| {
        for b in v.to_le_bytes() {
            digest = (digest ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let (mut reads, mut writes) = (0, 0);
    each(&mut g, 3000, |t| {
        for io in &t.primary_ios {
            let data = io.volume == PrimaryVolume::Data;
            reads += u64::from(data && io.op == Op::Read);
            writes += u64::from(data && io.op == Op::Write);
            mix_in(u64::from(data) << 1 | u64::from(io.op == Op::Write));
            mix_in(io.offset_bytes);
            mix_in(io.len_bytes);
        }
        for r in &t.records {
            let RecordKey::Row { table, page, slot } = r.key else { panic!("a block record") };
            mix_in(r.lsn);
            mix_in(r.op as u64);
            mix_in(u64::from(table) << 32 | u64::from(slot));
            mix_in(page);
            mix_in(r.addr_bytes);
            mix_in(u64::from(r.len_bytes) << 32 | u64::from(r.log_bytes));
            mix_in(r.value);
        }
    });
    assert!(reads > 1000 && writes > 100, "{reads} reads, {writes} writes: the buffer must miss and write back");
    assert_eq!(digest, 11_276_490_073_156_852_964);
}
