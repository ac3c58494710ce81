//! `tierlab cache`: miss-ratio curves of replacement algorithms on a trace, every
//! algorithm at every cache size in one pass. The study is `tierlab_cache_study` and its
//! rendering `tierlab_render::cache` and `cache_html`; this file turns flags into the
//! study's configuration and writes its report (text, JSON, CSV, HTML).

use crate::args::{parse_bytes, TraceInput};
use crate::progress::{requests_bar, write_file, write_json};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tierlab_cache::Algorithm;
use tierlab_cache_study::{CacheStudyConfig, CacheStudyError, Progress, Sizes};
use tierlab_placement::CurveObjects;

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
        write_file(path, tierlab_render::cache::render_csv(&report))?;
    }
    if let Some(path) = &a.html {
        write_file(path, tierlab_render::cache_html::render(&report)?)?;
    }
    let mut out = crate::session::stdout();
    if a.json {
        write_json(&mut out, &report)?;
    } else {
        out.write_all(tierlab_render::cache::render_text(&report).as_bytes())?;
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
