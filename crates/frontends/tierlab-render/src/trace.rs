//! A trace's HybridStore data classes as people read them (`tierlab trace classes`).

use tierlab_classes::Classes;
use tierlab_report::{fmt_bytes, Table};

/// The classes as people read them: the non-empty ones, then how many are empty.
pub fn render_classes(c: &Classes) -> String {
    let mut s = format!(
        "requests    {} over {:.1} s; {} records of {} touched\n",
        c.requests,
        c.span_s,
        c.records_touched,
        fmt_bytes(c.config.record_bytes)
    );
    s.push_str(&match c.config.hot_window_s {
        0 => format!("hot         above {} IOPS on average over the trace\n", c.config.hot_iops),
        w => format!("hot         above {} IOPS in some {w}-s window\n", c.config.hot_iops),
    });
    if let Some(edge) = c.intensity_edge_iops {
        s.push_str(&format!("intensity   1 above {edge} requests in a second (the median record's peak)\n"));
    }
    s.push_str("class       H/C hot or cold, R/W by majority, s = size bin (edges ");
    s.push_str(&c.config.size_edges_bytes.iter().map(|&b| fmt_bytes(b)).collect::<Vec<_>>().join(", "));
    s.push_str("), i = intensity\n\n");
    let mut t = Table::new(["class", "records", "size", "requests", "read %", "mean request", "F_j p95 KB/s", "mean KB/s"]);
    for d in c.classes.iter().filter(|d| d.records > 0) {
        t.row([
            d.label.clone(),
            d.records.to_string(),
            fmt_bytes(d.size_bytes),
            d.requests.to_string(),
            format!("{:.1}", d.read_fraction * 100.0),
            fmt_bytes(d.mean_request_bytes.round() as u64),
            format!("{:.1}", d.bandwidth_p95_bytes_s / 1e3),
            format!("{:.1}", d.bandwidth_mean_bytes_s / 1e3),
        ]);
    }
    s.push_str(&t.render());
    let empty = c.classes.iter().filter(|d| d.records == 0).count();
    s.push_str(&format!("{} classes, {empty} of them empty (all in --json)\n", c.classes.len()));
    s
}
