//! `tierlab cache`: miss-ratio curves of replacement algorithms on a trace, every
//! algorithm at every cache size in one pass. The study is `tierlab_cache_study`; this
//! file turns flags into its configuration and renders its report (text, JSON, CSV, HTML).

use crate::args::{parse_bytes, TraceInput};
use tierlab_render::charts::{column_notes, esc, figure, page_head, plot_linear, Chart, Marker, Series, Style, XAxis, PALETTE};
use tierlab_report::csv_field;
use crate::progress::{requests_bar, write_file, write_json};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use tierlab_cache::Algorithm;
use tierlab_cache_study::{CacheReport, CacheStudyConfig, CacheStudyError, Progress, Sizes};
use tierlab_placement::{CurveObjects, CurvePoint};
use tierlab_report::{fmt_bytes, fmt_f, Table};

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

pub fn run(a: CacheArgs) -> Result<()> {
    let objects = if a.count_objects {
        Some(CurveObjects::CountedObjects)
    } else if a.objects {
        Some(CurveObjects::Objects)
    } else {
        a.block.as_deref().map(|s| parse_bytes(s).map(|block_bytes| CurveObjects::Blocks { block_bytes })).transpose().map_err(|e| anyhow!("--block: {e}"))?
    };
    let cfg = CacheStudyConfig {
        trace: a.trace.clone(),
        read: a.input.read_options()?,
        algorithms: a.algorithms.clone(),
        sizes: parse_sizes(&a.sizes)?,
        objects,
        window_s: a.window_s,
        memory_limit_bytes: a.memory.limit_bytes()?,
    };
    let mut bar: Option<(String, indicatif::ProgressBar)> = None;
    let report = tierlab_cache_study::run(&cfg, &mut |p: Progress| {
        if bar.as_ref().is_none_or(|(phase, _)| phase != p.phase) {
            bar = Some((p.phase.to_string(), requests_bar(p.phase)));
        }
        if let Some((_, b)) = &bar {
            if p.done {
                b.finish_and_clear();
            } else {
                b.set_position(p.requests);
            }
        }
    })
    .map_err(|e| blame(e, &a))?;
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

/// A study's error in the words of the flags that set the field at fault.
fn blame(e: CacheStudyError, a: &CacheArgs) -> anyhow::Error {
    use CacheStudyError as E;
    match e {
        E::WindowS(s) => anyhow!("--window-s: expected a non-negative number of seconds, found {s}"),
        E::BlocksOfObjectTrace { format } => {
            anyhow!("--block: {format} is an object trace (its requests name objects, not byte addresses); cache its objects with --objects or --count-objects")
        }
        E::SizedObjectsOfIdStream { format } => anyhow!("--objects: {format} holds object ids without sizes; use --count-objects (the default for it)"),
        E::ZeroBlock => anyhow!("--block: expected a block size of at least 1 byte, found 0"),
        E::SizeBelowBlock { size, block_bytes } => {
            let flag = if a.block.is_some() { " (--block)" } else { " (the default --block)" };
            anyhow!("--sizes: {size} bytes is smaller than one block of {block_bytes} bytes{flag}")
        }
        E::ZeroSize => anyhow!("--sizes: expected cache sizes of at least 1, found 0"),
        E::NoSizes => anyhow!("--sizes: expected `auto` or a comma-separated list of sizes such as 1M,4M,16M, found `{}`", a.sizes),
        E::NothingToSize => anyhow!("--sizes auto: the trace has no requests to size caches from (give --sizes)"),
        E::Memory { what, need_bytes, limit_bytes } => anyhow!(
            "{what} needs about {} of memory, more than the limit of {} (--memory-limit raises it)",
            crate::memory::human(need_bytes),
            crate::memory::human(limit_bytes as f64)
        ),
        e @ (E::Trace { .. } | E::Request(_)) => anyhow!("{e}"),
    }
}

/// `--sizes`: `auto` or a list of bytes (or objects).
fn parse_sizes(list: &str) -> Result<Sizes> {
    if list.trim().eq_ignore_ascii_case("auto") {
        return Ok(Sizes::Auto);
    }
    let sizes = list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|item| parse_bytes(item).map_err(|e| anyhow!("--sizes: {e}"))).collect::<Result<Vec<u64>>>()?;
    if sizes.is_empty() {
        bail!("--sizes: expected `auto` or a comma-separated list of sizes such as 1M,4M,16M, found `{list}`");
    }
    Ok(Sizes::List(sizes))
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
