//! Disk studies rendered as text: a model's track layout, a probe's findings, and the
//! track-aligned workloads' table.

use std::fmt::Write;
use tierlab_hdd::LbnMapping;
use tierlab_hdd_study::{LayoutReport, Probed, TrackAlignedReport};
use tierlab_report::Table;

/// The tracks, runs of equal tracks on one surface to a row, under the drive's name and
/// numbering.
pub fn render_layout(r: &LayoutReport) -> String {
    let tracks = &r.tracks;
    let mut t = Table::new(["first block", "tracks", "cylinders", "surface", "sectors"]);
    let mut i = 0;
    while i < tracks.len() {
        let first = &tracks[i];
        let mut j = i + 1;
        while j < tracks.len() && tracks[j].surface == first.surface && tracks[j].sectors == first.sectors {
            j += 1;
        }
        let last = &tracks[j - 1];
        t.row([first.first_lbn.to_string(), (j - i).to_string(), format!("{}–{}", first.cylinder, last.cylinder), first.surface.to_string(), first.sectors.to_string()]);
        i = j;
    }
    format!("{}: {}, {} surfaces\n{}", r.drive, numbering(&r.mapping), r.surfaces, t.render())
}

/// How a drive numbers its blocks, in words.
pub fn numbering(m: &LbnMapping) -> String {
    use LbnMapping::*;
    match m {
        Conventional => "conventional numbering (every surface of a cylinder, then the next cylinder)".into(),
        SerpentinePerZone => "serpentine numbering (odd cylinders of each zone from the last surface down)".into(),
        SerpentineGlobal => "serpentine numbering (odd cylinders from the last surface down)".into(),
        SurfaceSerpentine { band_cylinders } => format!("surface serpentine numbering (one surface at a time in bands of {band_cylinders} cylinders)"),
    }
}

/// What a probe found: rotation, zero-latency access, the boundary cost, the first 24
/// runs of tracks, the seek curve and the cache.
pub fn render_probe(p: &Probed) -> String {
    let report = &p.report;
    let mut s = String::new();
    let _ = writeln!(s, "{}: {} sectors of {} bytes, {} reads", p.target, report.sectors, report.sector_bytes, report.reads);
    let _ = writeln!(s, "rotation    {:.4} ms ({:.0} rpm)", report.rotation_ms, report.rpm);
    if report.noisy_timing {
        let _ = writeln!(s, "timing      noisy: pair times within {:.3} ms taken as equal, the others timed five times", report.pair_tolerance_ms);
    }
    let _ = writeln!(
        s,
        "zero-latency {} (whole-track reads {:.3}–{:.3} ms)",
        if report.zero_latency { "yes" } else { "no" },
        report.full_track_read_ms[0],
        report.full_track_read_ms[1]
    );
    if let Some(c) = &report.boundary_cost {
        let _ = writeln!(s, "64 sectors  {:.3} ms within a track, {:.3} ms across a boundary ({} reads)", c.within_ms, c.across_ms, c.reads);
    }
    let _ = writeln!(s, "\ntracks found: {}", report.tracks_found);
    let mut t = Table::new(["first block", "tracks", "sectors"]);
    for r in report.tracks.iter().take(24) {
        t.row([r.first_lbn.to_string(), r.tracks.to_string(), r.sectors.to_string()]);
    }
    s.push_str(&t.render());
    if report.tracks.len() > 24 {
        let _ = writeln!(s, "… {} more runs (--json lists them all)", report.tracks.len() - 24);
    }
    let mut t = Table::new(["seek distance (sectors)", "least access (ms)"]);
    for p in &report.seek_curve {
        t.row([p.distance_sectors.to_string(), format!("{:.3}", p.min_access_ms)]);
    }
    let _ = write!(s, "\n{}", t.render());
    if let Some(c) = &report.cache {
        let _ = writeln!(
            s,
            "\ncache: repeated read {} ({:.3} ms), read-ahead {}, reverse pairs from cache {:.0} %",
            if c.repeat_hit { "hit" } else { "miss" },
            c.repeat_ms,
            if c.read_ahead { "yes" } else { "no" },
            c.reverse_pair_hits * 100.0
        );
    }
    s
}

/// The workloads under each scheme, with track-aligned's change against conventional.
pub fn render_track_aligned(report: &TrackAlignedReport) -> String {
    let mut s = String::new();
    let change = |v: f64, base: f64| format!("{:+.1} %", (v / base - 1.0) * 100.0);
    let read_ahead = match &report.raid5 {
        Some(r) => {
            let variants = r.variants.join(", ");
            let unused = r.aligned_unused_fraction * 100.0;
            let _ = writeln!(s, "{}: RAID-5 of {} disks ({variants}), {}-byte chunks; track-aligned: {unused:.1} % of the sectors unused", report.device, r.disks, r.chunk_bytes);
            format!("{}-track read-ahead", r.disks - 1)
        }
        None => {
            let _ = writeln!(s, "{}: {} tracks", report.device, report.tracks);
            "one-track read-ahead".to_string()
        }
    };
    let mut t = Table::new(["workload", "conventional", read_ahead.as_str(), "track-aligned", "track-aligned vs conventional"]);
    let row = |name: &str, v: [f64; 3], unit: &str| [name.to_string(), format!("{:.2} {unit}", v[0]), format!("{:.2} {unit}", v[1]), format!("{:.2} {unit}", v[2]), change(v[2], v[0])];
    let b = &report.bonnie;
    t.row(row("Bonnie write", [b[0].write_mb_s, b[1].write_mb_s, b[2].write_mb_s], "MB/s"));
    t.row(row("Bonnie read", [b[0].read_mb_s, b[1].read_mb_s, b[2].read_mb_s], "MB/s"));
    let d = &report.diff;
    t.row(row("diff", [d[0].seconds, d[1].seconds, d[2].seconds], "s"));
    let st = &report.streams;
    let supported = |k: usize| st[k].supported as f64;
    t.row(row(&format!("streams within {} s", st[0].limit_s), [supported(0), supported(1), supported(2)], ""));
    let mut at = vec![st[0].supported.max(6), 130];
    at.dedup();
    for n in at {
        if let [Some(x), Some(y), Some(z)] = [st[0].around(n), st[1].around(n), st[2].around(n)] {
            t.row(row(&format!("start-up around stream {n}"), [x, y, z], "s"));
        }
    }
    s.push_str(&t.render());
    s
}
