//! Validate every drive under a directory and print the table (and JSON with `--json`).
//!
//! `cargo run --release -p tierlab-disksim --example validate -- ../shared/validation/disksim`

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let dir = args.iter().find(|a| !a.starts_with("--")).map_or_else(|| PathBuf::from("../shared/validation/disksim"), PathBuf::from);
    let mut subdirs: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.filter_map(|d| d.ok().map(|d| d.path())).filter(|p| p.is_dir()).collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            std::process::exit(1);
        }
    };
    subdirs.sort();
    let mut rows = Vec::new();
    println!("| drive | requests | mean measured (ms) | mean simulated (ms) | demerit (ms) |");
    println!("|---|---|---|---|---|");
    for d in &subdirs {
        match tierlab_disksim::validate_drive(d) {
            Ok(v) => {
                println!("| {} | {} | {:.3} | {:.3} | {:.3} |", v.drive, v.requests, v.mean_measured_ms, v.mean_simulated_ms, v.demerit_ms);
                rows.push(v);
            }
            Err(e) => println!("| {} | error: {e} | | | |", d.display()),
        }
    }
    if json {
        match serde_json::to_string_pretty(&rows) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("{e}"),
        }
    }
}
