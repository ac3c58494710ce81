use super::*;
use std::io::Write;
use std::path::PathBuf;

/// A DiskSim ASCII trace (`arrival_ns devno lba_sectors size_sectors op`, op 1 = read).
fn write_trace(dir: &tempfile::TempDir, name: &str, lines: &[&str]) -> PathBuf {
    let path = dir.path().join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    path
}

fn disksim() -> ReadOptions {
    ReadOptions {
        format: Some(tierlab_trace::Format::Disksim),
        ..ReadOptions::default()
    }
}

const TRACE: [&str; 6] = [
    "0 0 0 8 0",
    "1000 0 8 8 1",
    "2000 1 100 16 0",
    "3000 0 1024 8 0",
    "4000 1 100 16 0",
    "5000 0 0 8 1",
];

fn drain(s: &mut BlockForwarding) -> Vec<Transaction> {
    let mut out = Vec::new();
    let mut t = Transaction::default();
    while s.next_transaction(&mut t).unwrap() {
        out.push(t.clone());
    }
    out
}

#[test]
fn writes_become_records_and_reads_ship_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_trace(&dir, "t.disksim", &TRACE);
    let mut s = BlockForwarding::open(&path, &disksim(), &ForwardingConfig::default()).unwrap();
    assert_eq!(s.page_bytes(), 512);
    // End to end: volume 0 ends at sector 1032 → 1 MiB; volume 1 follows at 1 MiB.
    assert_eq!(s.data_bytes(), 2 << 20);
    let txns = drain(&mut s);
    assert_eq!(txns.len(), 6);
    let records: Vec<UpdateRecord> = txns.iter().flat_map(|t| t.records.clone()).collect();
    assert_eq!(records.len(), 4);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.lsn, i as u64 + 1);
        assert_eq!(r.value, r.lsn);
        assert_eq!(r.op, UpdateOp::Write);
        assert_eq!(r.key, RecordKey::Block);
        assert_eq!(r.log_bytes, r.len_bytes + 64);
        assert!(r.addr_bytes + u64::from(r.len_bytes) <= s.data_bytes());
    }
    assert_eq!(records[0].addr_bytes, 0);
    assert_eq!(records[0].len_bytes, 4096);
    assert_eq!(records[1].addr_bytes, (1 << 20) + 100 * 512);
    assert_eq!(records[1].len_bytes, 8192);
    assert_eq!(records[2].addr_bytes, 1024 * 512);
    for t in &txns {
        assert_eq!(t.primary_ios.len(), 1);
        let io = t.primary_ios[0];
        assert_eq!(io.volume, PrimaryVolume::Data);
        match io.op {
            Op::Read => assert!(t.records.is_empty()),
            Op::Write => {
                assert_eq!(t.records.len(), 1);
                assert_eq!(io.offset_bytes, t.records[0].addr_bytes);
                assert_eq!(io.len_bytes, u64::from(t.records[0].len_bytes));
            }
        }
    }
    let st = *s.stats();
    assert_eq!((st.requests, st.reads, st.writes), (6, 2, 4));
    assert_eq!(st.write_bytes, 4096 + 8192 + 4096 + 8192);
    assert_eq!(st.log_bytes, st.write_bytes + 4 * 64);
    // The end stays the end.
    let mut t = Transaction::default();
    assert!(!s.next_transaction(&mut t).unwrap());
}

#[test]
fn reopening_replays_the_same_stream() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_trace(&dir, "t.disksim", &TRACE);
    let cfg = ForwardingConfig {
        compact: true,
        chunk_bytes: 4096,
        header_bytes: 32,
    };
    let mut a = BlockForwarding::open(&path, &disksim(), &cfg).unwrap();
    let first = drain(&mut a);
    let mut b = a.reopen().unwrap();
    assert_eq!(first, drain(&mut b));
    let mut c = BlockForwarding::open(&path, &disksim(), &cfg).unwrap();
    assert_eq!(first, drain(&mut c));
    // Compact: the touched 4 KiB chunks are (0,0), (0,1), (0,128) and (1,12..=14):
    // sector 100 of volume 1 is byte 51,200, in chunk 12, and its 8 KiB reach chunk 14.
    assert_eq!(a.data_bytes(), 6 * 4096);
    for t in &first {
        for r in &t.records {
            assert!(r.addr_bytes + u64::from(r.len_bytes) <= a.data_bytes());
            assert_eq!(r.log_bytes, r.len_bytes + 32);
        }
    }
}

#[test]
fn trace_errors_carry_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_trace(&dir, "bad.disksim", &["0 0 0 8 0", "10 0 8 x 0"]);
    // The learning pass meets the bad line first.
    let e = BlockForwarding::open(&path, &disksim(), &ForwardingConfig::default())
        .err()
        .unwrap();
    assert!(e.message.contains("bad.disksim:2"), "{e}");
    let e = BlockForwarding::open(
        &dir.path().join("absent"),
        &disksim(),
        &ForwardingConfig::default(),
    )
    .err()
    .unwrap();
    assert!(e.message.contains("absent"), "{e}");
    let e = BlockForwarding::open(
        &path,
        &disksim(),
        &ForwardingConfig {
            chunk_bytes: 0,
            ..ForwardingConfig::default()
        },
    )
    .err()
    .unwrap();
    assert!(e.message.contains("chunk_bytes"), "{e}");
}

#[test]
fn an_oversized_record_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // 2 MiB write: fits a u32, but not with u32::MAX - 1 MiB of framing.
    let path = write_trace(&dir, "big.disksim", &["0 0 0 4096 0"]);
    let cfg = ForwardingConfig {
        header_bytes: u32::MAX - (1 << 20),
        ..ForwardingConfig::default()
    };
    let mut s = BlockForwarding::open(&path, &disksim(), &cfg).unwrap();
    let mut t = Transaction::default();
    let e = s.next_transaction(&mut t).unwrap_err();
    assert!(e.message.contains("big.disksim:1"), "{e}");
}

#[test]
fn forwards_the_mysql_trace() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../../shared/traces/blkreplay-linux-mysql.load.gz");
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return;
    }
    let options = ReadOptions {
        max_requests: Some(200_000),
        ..ReadOptions::default()
    };
    for compact in [false, true] {
        let cfg = ForwardingConfig {
            compact,
            ..ForwardingConfig::default()
        };
        let mut s = BlockForwarding::open(&path, &options, &cfg).unwrap();
        let data_bytes = s.data_bytes();
        let (mut records, mut writes, mut lsn) = (0u64, 0u64, 0u64);
        let mut t = Transaction::default();
        while s.next_transaction(&mut t).unwrap() {
            writes += t.primary_ios.iter().filter(|io| io.op == Op::Write).count() as u64;
            for r in &t.records {
                records += 1;
                assert_eq!(r.lsn, lsn + 1);
                lsn = r.lsn;
                assert!(r.addr_bytes + u64::from(r.len_bytes) <= data_bytes);
            }
            for io in &t.primary_ios {
                assert!(io.offset_bytes + io.len_bytes <= data_bytes);
            }
        }
        let st = *s.stats();
        eprintln!(
            "mysql (compact {compact}): {} requests, {} writes, {} MB written, data volume {} MB",
            st.requests,
            st.writes,
            st.write_bytes / 1_000_000,
            data_bytes / 1_000_000
        );
        assert_eq!(records, writes);
        assert_eq!(st.writes, writes);
        assert!(writes > 0);
    }
}
