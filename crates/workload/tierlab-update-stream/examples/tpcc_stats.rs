//! Generate a TPC-C log and print its layout and what it produced, as JSON.
//!
//! `cargo run -p tierlab-update-stream --example tpcc_stats -- [transactions] [warehouses]
//! [window_records]`: defaults 20000, 160 and 0 (0: no fold measurement). With a window,
//! also prints the share of records whose key already occurred in the same window of
//! that many records.

use std::collections::HashSet;
use std::time::Instant;
use tierlab_update_log::{Transaction, UpdateSource};
use tierlab_update_stream::{TpccConfig, TpccLog};

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transactions = arg(1, 20_000);
    let warehouses = u32::try_from(arg(2, 160))?;
    let window = usize::try_from(arg(3, 0))?;
    let start = Instant::now();
    let mut g = TpccLog::new(TpccConfig {
        warehouses,
        transactions: Some(transactions),
        ..TpccConfig::default()
    })?;
    let built_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut t = Transaction::default();
    let mut seen = HashSet::new();
    let (mut in_window, mut repeats, mut records) = (0usize, 0u64, 0u64);
    while g.next_transaction(&mut t)? {
        if window == 0 {
            continue;
        }
        for r in &t.records {
            if in_window == window {
                seen.clear();
                in_window = 0;
            }
            repeats += u64::from(!seen.insert(r.key));
            in_window += 1;
            records += 1;
        }
    }
    let run_s = start.elapsed().as_secs_f64();
    let s = g.stats();
    let n = s.transactions.total().max(1) as f64;
    println!("{}", serde_json::to_string_pretty(&g.describe())?);
    println!("{}", serde_json::to_string_pretty(s)?);
    println!(
        "construction {built_s:.3} s; {:.0} transactions/s; per transaction: {:.2} records, {:.0} log bytes, {:.2} data reads, {:.2} data writes; buffer hit ratio {:.4}",
        n / run_s.max(1e-9),
        s.records.total() as f64 / n,
        s.log_bytes as f64 / n,
        s.data_reads as f64 / n,
        s.data_writes as f64 / n,
        s.buffer_hit_ratio()
    );
    if window > 0 {
        println!(
            "records whose key repeats within a {window}-record window: {:.4}",
            repeats as f64 / records.max(1) as f64
        );
    }
    Ok(())
}
