//! `tierlab cache`: miss-ratio curves of replacement algorithms on a trace, every
//! algorithm at every cache size in one pass (`tierlab_placement::MissRatioCurves`).

use crate::args::{parse_bytes, TraceInput};
use crate::charts::{column_notes, esc, figure, page_head, plot_linear, Chart, Marker, Series, Style, XAxis, PALETTE};
use crate::progress::{csv_field, requests_bar, write_file, write_json};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use tierlab_cache::Algorithm;
use tierlab_placement::{CurveObjects, CurvePoint, Footprint, FootprintCounter, MissRatioCurves, PlacementError, Replay};
use tierlab_report::{fmt_bytes, fmt_f, Table};
use tierlab_trace::{Format, TraceReader};
use tierlab_types::NS_PER_S;

/// The algorithms simulated when none are named, in the order reported.
const DEFAULT_ALGORITHMS: [Algorithm; 7] =
    [Algorithm::Lru, Algorithm::Fifo, Algorithm::Arc, Algorithm::TwoQ, Algorithm::WsClock, Algorithm::Sieve, Algorithm::S3Fifo];

/// Shares of the footprint that `--sizes auto` simulates.
const AUTO_SHARES: [f64; 10] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];

#[derive(Args)]
pub struct CacheArgs {
    /// The trace file: any format `tierlab trace formats` lists (libCacheSim's
    /// oracleGeneral and id streams too), compressed or not.
    trace: PathBuf,
    #[command(flatten)]
    input: TraceInput,
    /// Replacement algorithms, comma separated: lru, fifo, arc, 2q, wsclock, sieve, s3fifo
    /// (default: all of them).
    #[arg(long, short = 'a', value_delimiter = ',', value_name = "ALG,…")]
    algorithms: Vec<Algorithm>,
    /// Cache sizes, comma separated: bytes (65536, 64K, 16M, 2G), or numbers of objects
    /// with --count-objects. `auto`: ten sizes from 0.1 % to 100 % of the trace's
    /// footprint, which a first pass over the trace measures.
    #[arg(long, value_name = "SIZE,…|auto", default_value = "auto")]
    sizes: String,
    /// Cache fixed-size blocks of this many bytes: every block a request touches is one
    /// object; a request hits when all its blocks do. The default (4K) for block traces.
    #[arg(long, value_name = "SIZE", conflicts_with_all = ["objects", "count_objects"])]
    block: Option<String>,
    /// Cache whole requests: each is one object named by its first sector (libCacheSim's
    /// object id) and as large as the request; sizes are bytes. The default for
    /// libCacheSim's oracleGeneral traces.
    #[arg(long)]
    objects: bool,
    /// Cache whole requests each counting one object; sizes are numbers of objects
    /// (libCacheSim's ignore_obj_size). The default for id streams, which carry no sizes.
    #[arg(long)]
    count_objects: bool,
    /// WSClock's working-set window, in seconds of trace time (id streams tick one
    /// nanosecond per request).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    window_s: f64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write the points as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Also write a self-contained HTML page with the miss-ratio curves to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    memory: crate::memory::MemoryArgs,
}

/// The `--json` output.
#[derive(Serialize)]
struct CacheReport {
    trace: String,
    format: String,
    requests: u64,
    bytes: u64,
    objects: CurveObjects,
    /// `bytes` or `objects`: what `size` counts.
    sizes_in: &'static str,
    /// Whether requests have sizes of their own (not an id stream, whose requests are
    /// given one sector each: its byte counts mean nothing).
    sized_requests: bool,
    /// Measured for `--sizes auto`.
    footprint: Option<Footprint>,
    window_s: f64,
    points: Vec<CurvePoint>,
}

pub fn run(a: CacheArgs) -> Result<()> {
    if !(a.window_s.is_finite() && a.window_s >= 0.0) {
        bail!("--window-s: expected a non-negative number of seconds, found {}", a.window_s);
    }
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for alg in if a.algorithms.is_empty() { DEFAULT_ALGORITHMS.to_vec() } else { a.algorithms.clone() } {
        if !algorithms.contains(&alg) {
            algorithms.push(alg);
        }
    }
    let mut reader = a.input.open(&a.trace)?;
    let format = reader.format();
    let objects = curve_objects(&a, format)?;
    let footprint = if a.sizes.trim().eq_ignore_ascii_case("auto") {
        let mut first = a.input.open(&a.trace)?;
        let mut counter = FootprintCounter::new(objects);
        replay(&mut first, &mut counter, "measuring the footprint")?;
        Some(counter.footprint())
    } else {
        None
    };
    let sizes = match footprint {
        Some(f) => auto_sizes(objects, f)?,
        None => parse_sizes(&a.sizes, objects)?,
    };
    // A cache holds at most its capacity, and at most every object the trace touches
    // (counted in a first pass only when the capacities alone would not fit).
    let caches = |touched: Option<u64>| crate::memory::cache_bytes(algorithms.len(), sizes.iter().map(|&s| objects.capacity_units(s)), touched);
    let mut touched = footprint.map(|f| f.objects);
    if touched.is_none() && a.memory.check(caches(None), "").is_err() {
        let mut first = a.input.open(&a.trace)?;
        let mut counter = FootprintCounter::new(objects);
        replay(&mut first, &mut counter, "measuring the footprint")?;
        touched = Some(counter.footprint().objects);
    }
    let what = format!("{} caches ({} algorithms × {} sizes{})", algorithms.len() * sizes.len(), algorithms.len(), sizes.len(), touched.map(|t| format!(", {t} distinct objects")).unwrap_or_default());
    a.memory.check(caches(touched), &what)?;
    let window_ns = (a.window_s * NS_PER_S as f64).round() as u64;
    let mut curves = MissRatioCurves::new(&algorithms, &sizes, objects, window_ns).map_err(|e| anyhow!("{e}"))?;
    let what = format!("{} caches", algorithms.len() * sizes.len());
    let requests = replay(&mut reader, &mut curves, &what)?;
    let points = curves.points();
    let report = CacheReport {
        trace: a.trace.display().to_string(),
        format: format.name().to_string(),
        requests,
        bytes: points.first().map_or(0, |p| p.counts.bytes),
        objects,
        sizes_in: if objects.sizes_are_counts() { "objects" } else { "bytes" },
        sized_requests: !is_id_stream(format),
        footprint,
        window_s: a.window_s,
        points,
    };
    if let Some(path) = &a.csv {
        write_file(path, csv(&report))?;
    }
    if let Some(path) = &a.html {
        write_file(path, html(&report)?)?;
    }
    let mut out = crate::session::stdout();
    if a.json {
        write_json(&mut out, &report)?;
    } else {
        out.write_all(text(&report).as_bytes())?;
    }
    Ok(())
}

/// Whether `format` is a stream of bare object ids (no sizes, no operations).
fn is_id_stream(format: Format) -> bool {
    format.is_id_stream()
}

/// What an object is, from the flags and the trace's format.
fn curve_objects(a: &CacheArgs, format: Format) -> Result<CurveObjects> {
    let id_stream = is_id_stream(format);
    if format.is_binary() {
        if a.block.is_some() {
            bail!(
                "--block: {} is an object trace (its requests name objects, not byte addresses); \
                 cache its objects with --objects or --count-objects",
                format.name()
            );
        }
        if id_stream && a.objects && !a.count_objects {
            bail!("--objects: {} holds object ids without sizes; use --count-objects (the default for it)", format.name());
        }
        return Ok(if id_stream || a.count_objects { CurveObjects::CountedObjects } else { CurveObjects::Objects });
    }
    if a.count_objects {
        return Ok(CurveObjects::CountedObjects);
    }
    if a.objects {
        return Ok(CurveObjects::Objects);
    }
    let block_bytes = match &a.block {
        Some(s) => parse_bytes(s).map_err(|e| anyhow!("--block: {e}"))?,
        None => 4096,
    };
    if block_bytes == 0 {
        bail!("--block: expected a block size of at least 1 byte, found 0");
    }
    Ok(CurveObjects::Blocks { block_bytes })
}

/// `--sizes` as a list of bytes (or objects).
fn parse_sizes(list: &str, objects: CurveObjects) -> Result<Vec<u64>> {
    let mut sizes = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let size = parse_bytes(item).map_err(|e| anyhow!("--sizes: {e}"))?;
        if let CurveObjects::Blocks { block_bytes } = objects {
            if size < block_bytes {
                bail!("--sizes: `{item}` is smaller than one block of {block_bytes} bytes (--block)");
            }
        } else if size == 0 {
            bail!("--sizes: expected cache sizes of at least 1, found `{item}`");
        }
        sizes.push(size);
    }
    if sizes.is_empty() {
        bail!("--sizes: expected `auto` or a comma-separated list of sizes such as 1M,4M,16M, found `{list}`");
    }
    Ok(sizes)
}

/// [`AUTO_SHARES`] of the footprint, in whole blocks for block caches, without repeats.
fn auto_sizes(objects: CurveObjects, f: Footprint) -> Result<Vec<u64>> {
    let total = if objects.sizes_are_counts() { f.objects } else { f.bytes };
    if total == 0 {
        bail!("--sizes auto: the trace has no requests to size caches from (give --sizes)");
    }
    let mut sizes: Vec<u64> = Vec::new();
    for share in AUTO_SHARES {
        let raw = (total as f64 * share).round() as u64;
        let size = match objects {
            CurveObjects::Blocks { block_bytes } => (raw / block_bytes).max(1) * block_bytes,
            _ => raw.max(1),
        };
        if sizes.last() != Some(&size) {
            sizes.push(size);
        }
    }
    Ok(sizes)
}

/// Feeds every request of `reader` to `replay` under a progress spinner; returns the count.
fn replay(reader: &mut TraceReader, replay: &mut dyn Replay, what: &str) -> Result<u64> {
    let bar = requests_bar(what);
    let mut n = 0u64;
    while let Some(req) = reader.next() {
        let req = req.with_context(|| format!("cannot read trace {}", reader.name()))?;
        replay.access(&req).map_err(|e: PlacementError| anyhow!("{}", e.at(reader.name(), reader.line())))?;
        n += 1;
        if n.is_multiple_of(1 << 16) {
            bar.set_position(n);
        }
    }
    bar.finish_and_clear();
    Ok(n)
}

/// A cache size as the user reads it.
fn size_label(objects: CurveObjects, size: u64) -> String {
    if objects.sizes_are_counts() {
        format!("{size} objects")
    } else {
        fmt_bytes(size)
    }
}

fn describe_objects(objects: CurveObjects) -> String {
    match objects {
        CurveObjects::Blocks { block_bytes } => {
            format!("blocks of {}; a request hits when all its blocks do; sizes in bytes", fmt_bytes(block_bytes))
        }
        CurveObjects::Objects => "whole requests, as large as each request; sizes in bytes".into(),
        CurveObjects::CountedObjects => "whole requests, each counting one; sizes in objects".into(),
    }
}

fn text(r: &CacheReport) -> String {
    let mut out = String::new();
    let _ = write!(out, "trace      {} ({}): {} requests", r.trace, r.format, r.requests);
    if r.sized_requests {
        let _ = write!(out, ", {} requested", fmt_bytes(r.bytes));
    }
    out.push('\n');
    let _ = writeln!(out, "objects    {}", describe_objects(r.objects));
    if let Some(f) = r.footprint {
        let what = if matches!(r.objects, CurveObjects::Blocks { .. }) { "blocks" } else { "objects" };
        let _ = writeln!(out, "footprint  {} distinct {what}, {}; sizes from 0.1 % to 100 % of it", f.objects, fmt_bytes(f.bytes));
    }
    out.push('\n');
    let blocks = matches!(r.objects, CurveObjects::Blocks { .. });
    let mut header = vec!["algorithm", "cache size"];
    if blocks {
        header.extend(["blocks", "request miss ratio", "block miss ratio", "byte miss ratio", "block misses"]);
    } else if r.sized_requests {
        header.extend(["request miss ratio", "byte miss ratio", "misses"]);
    } else {
        header.extend(["request miss ratio", "misses"]);
    }
    let mut table = Table::new(header);
    let mut previous = None;
    for p in &r.points {
        if previous.is_some_and(|a| a != p.algorithm) {
            table.row([""; 1]);
        }
        previous = Some(p.algorithm);
        let mut row = vec![p.algorithm.to_string(), size_label(r.objects, p.size)];
        if blocks {
            row.extend([
                p.capacity_units.to_string(),
                fmt_f(p.request_miss_ratio, 4),
                fmt_f(p.object_miss_ratio, 4),
                fmt_f(p.byte_miss_ratio, 4),
                p.counts.object_misses.to_string(),
            ]);
        } else if r.sized_requests {
            row.extend([fmt_f(p.request_miss_ratio, 4), fmt_f(p.byte_miss_ratio, 4), p.counts.object_misses.to_string()]);
        } else {
            row.extend([fmt_f(p.request_miss_ratio, 4), p.counts.object_misses.to_string()]);
        }
        table.row(row);
    }
    out.push_str(&table.render());
    out
}

fn csv(r: &CacheReport) -> String {
    let mut out = String::from(
        "algorithm,size,capacity_units,requests,request_misses,objects,object_misses,bytes,byte_misses,request_miss_ratio,object_miss_ratio,byte_miss_ratio\n",
    );
    for p in &r.points {
        let c = p.counts;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6}",
            csv_field(&p.algorithm.to_string()),
            p.size,
            p.capacity_units,
            c.requests,
            c.request_misses,
            c.objects,
            c.object_misses,
            c.bytes,
            c.byte_misses,
            p.request_miss_ratio,
            p.object_miss_ratio,
            p.byte_miss_ratio
        );
    }
    out
}

/// One charted quantity of a point.
type Metric = fn(&CurvePoint) -> f64;

fn html(r: &CacheReport) -> Result<String> {
    let name = Path::new(&r.trace).file_name().map_or(r.trace.clone(), |n| n.to_string_lossy().into_owned());
    let mut out = page_head(&format!("Miss-ratio curves: {name}"), "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}");
    let requested = if r.sized_requests { format!(", {} requested", fmt_bytes(r.bytes)) } else { String::new() };
    let _ = writeln!(
        out,
        "<p>{} ({}): {} requests{}. Objects: {}.</p>",
        esc(&r.trace),
        esc(&r.format),
        r.requests,
        esc(&requested),
        esc(&describe_objects(r.objects))
    );
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for p in &r.points {
        if !algorithms.contains(&p.algorithm) {
            algorithms.push(p.algorithm);
        }
    }
    let style = Style { height: 420, legend_width: 130, zero_based: true };
    let blocks = matches!(r.objects, CurveObjects::Blocks { .. });
    let mut metrics: Vec<(&str, Metric)> = vec![("Request miss ratio", |p| 100.0 * p.request_miss_ratio)];
    if blocks {
        metrics.push(("Block miss ratio", |p| 100.0 * p.object_miss_ratio));
    }
    if r.sized_requests {
        metrics.push(("Byte miss ratio", |p| 100.0 * p.byte_miss_ratio));
    }
    for (title, value) in metrics {
        let series: Vec<Series> = algorithms
            .iter()
            .enumerate()
            .map(|(i, &alg)| Series {
                label: alg.to_string(),
                colour: PALETTE[i % PALETTE.len()],
                dashed: i >= Marker::ALL.len(),
                marker: Marker::ALL[i % Marker::ALL.len()],
                points: r
                    .points
                    .iter()
                    .filter(|p| p.algorithm == alg)
                    .map(|p| (p.size as f64, value(p), true))
                    .collect(),
            })
            .collect();
        let x_desc = if r.objects.sizes_are_counts() { "cache size (objects, log scale)" } else { "cache size (log scale)" };
        let y_desc = format!("{}, %", title.to_lowercase());
        let x = if r.objects.sizes_are_counts() { XAxis::Log } else { XAxis::LogBytes };
        let chart = Chart::new(x_desc, &y_desc, x, &series).joined();
        figure(&mut out, &format!("{title} by cache size"), &plot_linear(&chart, style)?);
    }
    out.push_str("<table>\n<tr><th>algorithm</th><th>cache size</th><th>request miss ratio</th>");
    if blocks {
        out.push_str("<th>block miss ratio</th>");
    }
    if r.sized_requests {
        out.push_str("<th>byte miss ratio</th>");
    }
    out.push_str("<th>misses</th></tr>\n");
    for p in &r.points {
        let _ = write!(out, "<tr><td>{}</td><td>{}</td><td>{:.4}</td>", p.algorithm, esc(&size_label(r.objects, p.size)), p.request_miss_ratio);
        if blocks {
            let _ = write!(out, "<td>{:.4}</td>", p.object_miss_ratio);
        }
        if r.sized_requests {
            let _ = write!(out, "<td>{:.4}</td>", p.byte_miss_ratio);
        }
        let _ = writeln!(out, "<td>{}</td></tr>", p.counts.object_misses);
    }
    out.push_str("</table>\n");
    let mut notes = vec![
        ("algorithm", "the replacement algorithm"),
        ("cache size", if r.objects.sizes_are_counts() { "the cache's capacity in objects" } else { "the cache's capacity in bytes" }),
        ("request miss ratio", "share of requests not served wholly from the cache"),
    ];
    if blocks {
        notes.push(("block miss ratio", "share of block accesses that missed"));
    }
    if r.sized_requests {
        notes.push(("byte miss ratio", "share of the requested bytes that missed"));
    }
    notes.push(("misses", "objects (blocks) fetched into the cache on a miss"));
    column_notes(&mut out, &notes);
    out.push_str("</body></html>\n");
    Ok(out)
}
