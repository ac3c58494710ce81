//! A miss-ratio study rendered as text and CSV.

use std::fmt::Write;
use tierlab_cache_study::CacheReport;
use tierlab_placement::CurveObjects;
use tierlab_report::{csv_field, fmt_bytes, fmt_f, Table};

/// A cache size as the user reads it.
pub fn size_label(objects: CurveObjects, size: u64) -> String {
    if objects.sizes_are_counts() {
        format!("{size} objects")
    } else {
        fmt_bytes(size)
    }
}

/// What one cached object is, in words.
pub fn describe_objects(objects: CurveObjects) -> String {
    match objects {
        CurveObjects::Blocks { block_bytes } => {
            format!("blocks of {}; a request hits when all its blocks do; sizes in bytes", fmt_bytes(block_bytes))
        }
        CurveObjects::Objects => "whole requests, as large as each request; sizes in bytes".into(),
        CurveObjects::CountedObjects => "whole requests, each counting one; sizes in objects".into(),
    }
}

/// The curves as a table, one block of rows per algorithm, under what was simulated.
pub fn render_text(r: &CacheReport) -> String {
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

/// Every point, with its counts and ratios.
pub fn render_csv(r: &CacheReport) -> String {
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
