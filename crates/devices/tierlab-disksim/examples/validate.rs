//! Validate every drive under a directory and print the table (and JSON with `--json`).
//!
//! `cargo run --release -p tierlab-disksim --example validate -- ../shared/validation/disksim`
//!
//! `--speed N` also times the replay alone (import and trace parsing excluded): every
//! drive's trace is replayed N times through a fresh model, and the rate is printed as
//! requests per second of the replaying thread's wall time (one thread; on an idle core
//! that is its CPU time).

use std::path::PathBuf;
use std::time::Instant;
use tierlab_disksim::trace::{find_trace, read_trace};
use tierlab_disksim::validate::replay;
use tierlab_hdd::Mechanics;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let speed: usize = args.iter().position(|a| a == "--speed").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let dir = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--speed"))
        .map_or_else(|| PathBuf::from("../shared/validation/disksim"), |(_, a)| PathBuf::from(a));
    let mut subdirs: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.filter_map(|d| d.ok().map(|d| d.path())).filter(|p| p.is_dir()).collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            std::process::exit(1);
        }
    };
    subdirs.sort();
    let mut rows = Vec::new();
    println!("| drive | requests | mean measured (ms) | mean simulated (ms) | demerit (ms) | mean abs error (ms) |");
    println!("|---|---|---|---|---|---|");
    for d in &subdirs {
        match tierlab_disksim::validate_drive(d) {
            Ok(v) => {
                println!(
                    "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                    v.drive, v.requests, v.mean_measured_ms, v.mean_simulated_ms, v.demerit_ms, v.mean_abs_error_ms
                );
                rows.push(v);
            }
            Err(e) => println!("| {} | error: {e} | | | | |", d.display()),
        }
    }
    if speed > 0 {
        let mut work = Vec::new();
        for d in &subdirs {
            let Ok(imp) = tierlab_disksim::import_drive(d) else { continue };
            let Ok(trace) = find_trace(d, &imp.parv).and_then(|t| read_trace(&t)) else { continue };
            work.push((imp.spec, trace));
        }
        let (mut requests, mut checksum) = (0usize, 0.0f64);
        let start = Instant::now();
        for _ in 0..speed {
            for (spec, trace) in &work {
                let Ok(mut mech) = Mechanics::new(spec.clone()) else { continue };
                checksum += replay(&mut mech, trace).iter().sum::<f64>();
                requests += trace.len();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "replay: {requests} requests in {secs:.3} s: {:.2} million requests per second (checksum {checksum:.1})",
            requests as f64 / secs / 1e6
        );
    }
    if json {
        match serde_json::to_string_pretty(&rows) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("{e}"),
        }
    }
}
