//! A `compare` report rendered as text and CSV, and the table cells the HTML report
//! shares: one place for both, so the command and the HTML page do not import each other.

use tierlab_report::csv_field;
use tierlab_hybrid_study::{FailedRow, RunRow};
use tierlab_report::Table;

/// The configurations that could not run, one line each, after the table.
pub fn render_failed(failed: &[FailedRow]) -> String {
    failed.iter().map(|f| format!("not run: {}: {}\n", f.config, f.error)).collect()
}

/// What each column of the table measures, for the lines above it.
pub fn render_legend(rows: &[RunRow]) -> String {
    let Some(r) = rows.first() else { return String::new() };
    let closed = r.runs.iter().find(|n| n.replay.starts_with("closed"));
    let iops = match closed {
        Some(c) => format!("IOPS: as fast as the design goes ({}); every other column: the workload\nat its own arrival times ({:.1} IOPS offered), measured at steady state;", c.replay, r.offered_iops),
        None => format!("IOPS and every other column: the workload at its own arrival times ({:.1} IOPS\noffered), measured at steady state;", r.offered_iops),
    };
    let hdd = rows.iter().find_map(|r| r.hdd_ratings.as_ref()).map_or(String::new(), |h| format!(" HDD eu: {} against {}.", h.describe(), h.drive));
    let tail = format!("$ at α passes; ! cannot sustain the load, ~ never settled; 95 % intervals in --json and --csv;{hdd}");
    format!("{iops} energy, moves, eu and $ per pass\nof the workload ({:.1} s);\n{}\n", r.pass_s, wrapped(&tail, "", "", 80))
}

/// `text` wrapped at spaces to `width` columns, its first line after `first`, the others
/// after `rest`; every line ends in a newline.
pub fn wrapped(text: &str, first: &str, rest: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The table's header and each row's cells, as the text and the HTML report show them.
pub fn table_cells(rows: &[RunRow]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let header = vec![
        "config", "IOPS", "mean ms", "p99 ms", "energy J", "avg W", "spun down %", "SSD hit %", "moves", "SSD eu", "HDD eu",
        "$ α=1", "$ α=1e3", "$ α=1e5",
    ];
    let cells = rows
        .iter()
        .map(|r| {
            let mark = match (r.sustainable, r.settled()) {
                (false, _) => "!",
                (true, false) => "~",
                (true, true) => "",
            };
            let moves = if r.prefetches + r.evictions + r.write_backs > 0 {
                format!("{}p/{}e/{}w", r.prefetches, r.evictions, r.write_backs)
            } else {
                format!("{}↑/{}↓", r.promotions, r.demotions)
            };
            vec![
                format!("{}{mark}", r.config),
                format!("{:.1}", r.throughput_iops),
                format!("{:.3}", r.mean_ms),
                format!("{:.3}", r.p99_ms),
                format!("{:.1}", r.energy_j),
                format!("{:.2}", r.average_power_w),
                format!("{:.1}", r.hdd_spun_down_fraction * 100.0),
                r.ssd_hit_ratio.map_or("-".into(), |h| format!("{:.1}", h * 100.0)),
                moves,
                format!("{:.3}", r.ssd_eu_read_tenth),
                format!("{:.3}", r.hdd_eu),
                format!("{:.2}", r.cost_at(1.0)),
                format!("{:.2}", r.cost_at(1e3)),
                format!("{:.2}", r.cost_at(1e5)),
            ]
        })
        .collect();
    (header, cells)
}

pub fn render_text(rows: &[RunRow]) -> String {
    let (header, cells) = table_cells(rows);
    let mut t = Table::new(header);
    for c in cells {
        t.row(c);
    }
    t.render()
}

pub fn render_csv(rows: &[RunRow], failed: &[FailedRow]) -> String {
    let mut s = String::from(
        "config,mode,ssd_fraction,extent_bytes,pt,mcml,lt,ht,throughput_iops,mean_ms,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,energy_j,average_power_w,hdd_spun_down_fraction,ssd_hit_ratio,promotions,demotions,prefetches,evictions,write_backs,ssd_write_bytes,ssd_read_bytes,hdd_start_stop_cycles,ssd_eu_read_tenth,ssd_eu_read_hundredth,hdd_eu,hdd_load_unload_cycles,hdd_transfer_bytes,hdd_workload_tb_per_year,offered_iops,sustainable,settled,pass_s,throughput_iops_hw,mean_ms_hw,energy_j_hw,ssd_hit_ratio_hw,ssd_eu_read_tenth_hw,horizon_years,horizon_usd,horizon_usd_hw",
    );
    for a in tierlab_cost::ALPHAS {
        s.push_str(&format!(",cost_usd_alpha_{a}"));
    }
    s.push_str(",error\n");
    // Every column but config, mode and error holds a figure.
    let figures = s.matches(',').count() - 2;
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in rows {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.config),
            r.mode,
            opt(r.ssd_fraction.map(|v| v.to_string())),
            opt(r.extent_bytes.map(|v| v.to_string())),
            opt(r.pt.map(|v| v.to_string())),
            opt(r.mcml.map(|v| v.to_string())),
            opt(r.lt.map(|v| v.to_string())),
            opt(r.ht.map(|v| v.to_string())),
            r.throughput_iops,
            r.mean_ms,
            r.p50_ms,
            r.p90_ms,
            r.p99_ms,
            r.p999_ms,
            r.max_ms,
            r.energy_j,
            r.average_power_w,
            r.hdd_spun_down_fraction,
            opt(r.ssd_hit_ratio.map(|v| v.to_string())),
            r.promotions,
            r.demotions,
            r.prefetches,
            r.evictions,
            r.write_backs,
            r.ssd_write_bytes,
            r.ssd_read_bytes,
            r.hdd_start_stop_cycles,
            r.ssd_eu_read_tenth,
            r.ssd_eu_read_hundredth,
            r.hdd_eu
        ));
        s.push_str(&format!(",{},{},{}", r.hdd_load_unload_cycles, r.hdd_transfer_bytes, r.hdd_workload_tb_per_year));
        let hw = &r.half_width;
        s.push_str(&format!(
            ",{},{},{},{},{},{},{},{},{},{},{},{}",
            r.offered_iops,
            r.sustainable,
            r.settled(),
            r.pass_s,
            hw.throughput_iops,
            hw.mean_ms,
            hw.energy_j,
            hw.ssd_hit_ratio,
            hw.ssd_eu_read_tenth,
            r.horizon.years,
            r.horizon.total_usd,
            hw.horizon_usd
        ));
        for c in &r.cost {
            s.push_str(&format!(",{}", c.total_usd));
        }
        s.push_str(",\n");
    }
    // A configuration that did not run: its name, mode and why; every figure empty.
    for f in failed {
        s.push_str(&format!("{},{},{}{}\n", csv_field(&f.config), f.mode, ",".repeat(figures), csv_field(&f.error)));
    }
    s
}
