//! Prints statistics of a trace and the parse rate:
//! `cargo run --release -p tierlab-trace --example trace_stats -- <trace> [format] [--sort]
//! [--parse-only]`. With `--parse-only` it only counts requests, to time the reader alone.

use std::time::Instant;
use tierlab_trace::{open, render_text, stats, Format, ReadOptions};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: trace_stats <trace> [format] [--sort]")?;
    let mut opts = ReadOptions::default();
    let mut parse_only = false;
    for arg in args {
        if arg == "--parse-only" {
            parse_only = true;
        } else if arg == "--sort" {
            opts.sort = true;
        } else {
            opts.format = Some(arg.parse::<Format>()?);
        }
    }
    let started = Instant::now();
    let mut reader = open(path.as_ref(), &opts)?;
    if parse_only {
        let mut requests = 0u64;
        for request in reader.by_ref() {
            request?;
            requests += 1;
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{requests} requests ({} lines) in {seconds:.3} s: {:.2} M lines/s (parse only)",
            reader.line(),
            reader.line() as f64 / seconds / 1e6
        );
        return Ok(());
    }
    let s = stats(&mut reader)?;
    let seconds = started.elapsed().as_secs_f64();
    print!("{}", render_text(&s));
    eprintln!(
        "\n{} requests ({} lines) in {:.3} s: {:.2} M requests/s, {:.2} M lines/s (with statistics)",
        s.requests,
        reader.line(),
        seconds,
        s.requests as f64 / seconds / 1e6,
        reader.line() as f64 / seconds / 1e6
    );
    Ok(())
}
