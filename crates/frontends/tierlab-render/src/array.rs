//! Array studies rendered: a run's text report, a comparison's text table and CSV, and
//! the context and table cells a comparison's text table and its HTML report share.

use tierlab_array_sim::{ArrayConfig, ArrayMeasured, ArrayRun, CompareRow, OltpSkew, Stop};
pub use tierlab_array_study::Study;
use tierlab_array_study::{ArrayCompareConfig, ArrayCompareReport, Loads};
use tierlab_report::{csv_field, fmt_bytes, with_interval, Table};

/// Everything a compare report says besides its rows.
#[derive(Clone, Debug)]
pub struct CompareContext {
    pub study: Study,
    pub array: String,
    pub workload: String,
    pub r_limit_ms: f64,
    /// The system the array sits in, when one is described.
    pub system: Option<String>,
}

impl CompareContext {
    /// A comparison's context, read off its configuration and rows.
    pub fn of(cfg: &ArrayCompareConfig, report: &ArrayCompareReport) -> Self {
        CompareContext {
            study: report.study(cfg),
            array: describe_array(&cfg.array, &cfg.array.disks.to_string()),
            workload: match &cfg.loads {
                Loads::Trace { path, .. } => format!("trace {}", path.display()),
                Loads::File { path } => format!("workload file {}", path.display()),
                Loads::Oltp { oltp, .. } => format!("synthetic OLTP workload ({}), at most {} h per load, seed {}", describe_skew(oltp.skew), oltp.hours, oltp.seed),
            },
            r_limit_ms: cfg.schemes.first().map_or(0.0, |s| s.r_limit_ms),
            system: report.rows.first().and_then(|r| r.run.system.as_ref()).map(|e| e.system.clone()),
        }
    }
}

/// How the OLTP workload's skew reads in a report's workload line.
pub fn describe_skew(skew: OltpSkew) -> String {
    let regions = fmt_bytes(tierlab_array_sim::OLTP_REGION_BYTES);
    match skew {
        OltpSkew::Zipf => format!("Zipf θ = {} skew over 8 KiB pages in scattered {regions} regions", tierlab_array_sim::OLTP_ZIPF_THETA),
        OltpSkew::HotCold => format!("hot/cold skew: 90 % of accesses to 10 % of the space, in scattered {regions} regions"),
    }
}

/// The comparison's header and cells (the text table's and the HTML table's); with an
/// R_limit sweep there is an R_limit column. Figures measured through the layer carry
/// their 95 % intervals; a window that never settled is marked `~`, a run that cannot
/// sustain its load `!`.
pub fn compare_cells(rows: &[CompareRow], ctx: &CompareContext) -> (Vec<String>, Vec<Vec<String>>) {
    let sweep = matches!(ctx.study, Study::RLimits { .. });
    let measured = rows.iter().any(|r| r.run.measured.is_some());
    let mut header = vec!["load", "scheme"];
    if sweep {
        header.push("R_limit ms");
    }
    header.extend(["mean ms", "p99 ms", "goal"]);
    header.push(if measured { "power W" } else { "energy kJ" });
    header.push("saving %");
    let system = ctx.system.is_some();
    if system {
        header.extend(["system kJ", "system saving %"]);
    }
    header.extend(["speed changes/disk/day", "start-stops/disk/day", "guarantee activations"]);
    if measured {
        header.extend(["warm-up h", "window h"]);
    }
    header.push("note");
    let cells = rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.load.clone(), r.scheme.clone()];
            if sweep {
                cells.push(format!("{}", r.run.r_limit_ms));
            }
            let m = r.run.measured.as_ref();
            cells.push(match m {
                Some(m) => with_interval(m.mean_ms.mean, m.mean_ms.half_width, 3),
                None => format!("{:.3}", r.run.response_time.mean_ms),
            });
            cells.push(format!("{:.3}", r.run.response_time.p99_ms));
            cells.push(if r.run.goal_met { "✓" } else { "✗" }.to_string());
            cells.push(match m {
                Some(m) => with_interval(m.power_w.mean, m.power_w.half_width, 1),
                None => format!("{:.1}", r.run.energy_j / 1e3),
            });
            cells.push(match r.energy_saving_half_width {
                Some(hw) if hw > 0.0 && r.scheme != "raid5" => format!("{:.1} ±{:.1}", percent(r.energy_saving), hw * 100.0),
                _ => format!("{:.1}", percent(r.energy_saving)),
            });
            if system {
                cells.push(r.run.system.as_ref().map_or("-".into(), |e| format!("{:.1}", e.total_j / 1e3)));
                cells.push(r.system_saving.map_or("-".into(), |v| format!("{:.1}", percent(v))));
            }
            cells.extend([
                format!("{:.2}", r.run.speed_changes_per_disk_day),
                format!("{:.2}", r.run.start_stops_per_disk_day),
                r.run.scheme_report.guarantee_activations.to_string(),
            ]);
            if let Some(m) = m {
                cells.push(format!("{:.1}", m.warmup_s / 3600.0));
                let mark = match (m.stop, m.settled) {
                    (Stop::Unsustainable, _) => "!",
                    (_, false) => "~",
                    _ => "",
                };
                cells.push(format!("{mark}{:.1}", m.window_s / 3600.0));
            }
            cells.push(row_note(r));
            cells
        })
        .collect();
    (header.into_iter().map(str::to_string).collect(), cells)
}

/// A share as a percentage to one decimal, without a "-0.0".
pub fn percent(share: f64) -> f64 {
    let p = share * 100.0;
    if p.abs() < 0.05 {
        0.0
    } else {
        p
    }
}

/// Why a row is not what it seems: a scheme with the guarantee that missed its goal (how
/// long the guarantee held full speed), a window that never settled, a load not carried.
pub fn row_note(r: &CompareRow) -> String {
    let run = &r.run;
    let mut notes = Vec::new();
    if let Some(m) = &run.measured {
        if m.stop == Stop::Unsustainable {
            notes.push("cannot sustain the load".to_string());
        } else if !m.settled {
            notes.push("never settled".to_string());
        } else if m.stop == Stop::Limit {
            notes.push("intervals wider than the target at --hours".to_string());
        }
    }
    if r.scheme.ends_with('+') && !run.goal_met {
        let total_s = run.measured.as_ref().map_or(run.span_s, |m| m.warmup_s + m.window_s).max(1e-9);
        let held = run.scheme_report.guarantee_s / total_s * 100.0;
        notes.push(format!("missed: full speed held {held:.0} % of the run"));
    }
    notes.join("; ")
}

/// How a run was measured: its warm-up, whether it settled, its window, why it stopped.
pub fn describe_measured(m: &ArrayMeasured) -> String {
    let settled = if m.settled { "steady" } else { "never settled: cut at half the run" };
    let stop = match m.stop {
        Stop::Precise => "intervals within the target",
        Stop::Limit => "the run's cap (--hours) came first",
        Stop::SourceEnd => "the workload ended",
        Stop::Unsustainable => "CANNOT SUSTAIN the load: its backlog grew",
    };
    format!(
        "{:.2} h window of {} batches of {} requests after a {:.2} h warm-up ({settled}); stopped: {stop}",
        m.window_s / 3600.0,
        m.window_batches,
        m.batch_requests,
        m.warmup_s / 3600.0
    )
}

/// One line describing the array and its replay.
pub fn describe_array(c: &ArrayConfig, disks: &str) -> String {
    let replay = match c.closed_depth {
        Some(d) => format!("closed-loop replay at depth {d}"),
        None => "open-loop replay".to_string(),
    };
    let profile = c.power_profile.as_deref().map(|p| format!(" ({p} profile)")).unwrap_or_default();
    let nvram = if c.nvram_bytes > 0 { format!("{} NVRAM", fmt_bytes(c.nvram_bytes)) } else { "no NVRAM".to_string() };
    let mut s = format!(
        "{disks} × {}{profile}, {}, {} stripe unit, {nvram}; {replay}, {} scheduler",
        c.disk,
        c.level,
        fmt_bytes(c.stripe_unit_bytes),
        c.scheduler
    );
    if c.compact {
        s.push_str(", compact");
    }
    if c.wrap {
        s.push_str(", wrap");
    }
    s
}

/// The report of one run as people read it. Byte-stable for a given run (golden-file
/// tested).
pub fn render_run(c: &ArrayConfig, r: &ArrayRun) -> String {
    let mut s = String::new();
    let rt = &r.response_time;
    let extra = r.per_disk.len().saturating_sub(r.disks);
    let disks = if extra > 0 { format!("{} (+{extra} cache)", r.disks) } else { r.disks.to_string() };
    s.push_str(&format!("scheme      {}\n", r.scheme));
    s.push_str(&format!("workload    {}\n", r.workload));
    s.push_str(&format!("array       {}\n", describe_array(c, &disks)));
    let ex = &r.executor;
    s.push_str(&format!("requests    {} ({} reads, {} writes)\n", r.requests, r.reads, r.writes));
    let warm = c.warmup_s.map(|w| format!(", measured after a {w} s warm-up")).unwrap_or_default();
    s.push_str(&format!("span        {:.3} s ({:.3} h{warm})\n", r.span_s, r.span_s / 3600.0));
    if let Some(m) = &r.measured {
        s.push_str(&format!("measured    {}\n", describe_measured(m)));
        s.push_str(&format!(
            "            mean response {} ms, power {} W (95 % intervals, batch means)\n",
            with_interval(m.mean_ms.mean, m.mean_ms.half_width, 3),
            with_interval(m.power_w.mean, m.power_w.half_width, 2)
        ));
    }
    s.push_str(&format!("throughput  {:.1} IOPS\n", r.throughput_iops));
    s.push_str(&format!(
        "response    mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms\n",
        rt.mean_ms, rt.p50_ms, rt.p99_ms, rt.max_ms
    ));
    s.push_str(&format!(
        "goal        {}: mean {:.3} ms {} R_limit {:.3} ms\n",
        if r.goal_met { "met" } else { "MISSED" },
        rt.mean_ms,
        if r.goal_met { "<=" } else { ">" },
        r.r_limit_ms
    ));
    s.push_str(&format!("energy      {:.1} J ({:.3} kWh), average {:.2} W\n", r.energy_j, r.energy_j / 3.6e6, r.average_power_w));
    s.push_str(&format!(
        "per disk    {:.2} speed changes/day (busiest disk {:.2}), {:.2} start/stops/day",
        r.speed_changes_per_disk_day, r.max_speed_changes_per_disk_day, r.start_stops_per_disk_day
    ));
    if r.power_cycles_per_disk_day > 0.0 {
        s.push_str(&format!(" ({:.2} of them slot power-downs)", r.power_cycles_per_disk_day));
    }
    s.push('\n');
    if let Some(e) = &r.system {
        s.push_str(&crate::system::render_system_energy(e));
    }

    let mut t = Table::new(["power state", "time (disk-s)", "energy (J)", "energy %"]);
    for st in &r.energy_by_state {
        let share = if r.energy_j > 0.0 { st.energy_j / r.energy_j * 100.0 } else { 0.0 };
        t.row([st.state.clone(), format!("{:.1}", st.time_s), format!("{:.1}", st.energy_j), format!("{share:.1}")]);
    }
    if !t.is_empty() {
        s.push('\n');
        s.push_str(&t.render());
    }

    let sr = &r.scheme_report;
    s.push_str(&format!(
        "\nscheme      {} decisions ({} found no plan meeting the goal); the guarantee forced full speed {} times, for {:.1} s\n",
        sr.decisions, sr.infeasible_decisions, sr.guarantee_activations, sr.guarantee_s
    ));
    for note in &sr.notes {
        s.push_str(&format!("  note: {note}\n"));
    }
    s.push_str(&format!(
        "executor    {} full-stripe writes, {} read-modify-writes, {} reconstruct-writes; {} background moves ({}); {} speed and {} standby commands",
        ex.full_stripe_writes,
        ex.read_modify_writes,
        ex.reconstruct_writes,
        ex.background_moves,
        fmt_bytes(ex.background_bytes),
        ex.speed_commands,
        ex.standby_commands
    ));
    if ex.wrapped_requests > 0 {
        s.push_str(&format!("; {} requests wrapped", ex.wrapped_requests));
    }
    s.push('\n');
    if let Some(n) = &ex.nvram {
        s.push_str(&format!(
            "nvram       {} read hits, {} read misses, {} writes absorbed, {} throttled, {} destages ({}){}\n",
            n.read_hits,
            n.read_misses,
            n.writes_absorbed,
            n.writes_throttled,
            n.destages,
            fmt_bytes(n.destaged_bytes),
            if r.nvram_warm_requests > 0 { format!("; warmed first with {} requests of the workload (another seed)", r.nvram_warm_requests) } else { String::new() }
        ));
    }

    let mut t = Table::new(["disk", "ops", "util %", "energy (J)", "speed changes", "start/stops"]);
    for d in &r.per_disk {
        t.row([
            d.name.clone(),
            d.ops.to_string(),
            format!("{:.1}", d.utilisation * 100.0),
            format!("{:.1}", d.energy_j),
            d.speed_changes.to_string(),
            d.start_stop_cycles.to_string(),
        ]);
    }
    if !t.is_empty() {
        s.push('\n');
        s.push_str(&t.render());
    }
    s
}

pub fn compare_table(rows: &[CompareRow], ctx: &CompareContext) -> Table {
    let (header, cells) = compare_cells(rows, ctx);
    let mut t = Table::new(header);
    for c in cells {
        t.row(c);
    }
    t
}

pub fn render_compare(rows: &[CompareRow], ctx: &CompareContext) -> String {
    let mut s = format!("array       {}\nworkload    {}\n", ctx.array, ctx.workload);
    match &ctx.study {
        Study::Loads { .. } => s.push_str(&format!("R_limit     {} ms (mean response time)\n", ctx.r_limit_ms)),
        Study::RLimits { load, .. } => s.push_str(&format!("study       saving against R_limit at {load}\n")),
    }
    match &ctx.system {
        Some(system) => {
            s.push_str(&format!("system      {system}\n"));
            s.push_str("saving      1 − energy / RAID-5's energy at the same load: of the disks alone (saving %) and of the whole system (system saving %)\n\n");
        }
        None => s.push_str("saving      1 − energy / RAID-5's energy at the same load\n\n"),
    }
    s.push_str(&compare_table(rows, ctx).render());
    s
}

pub fn render_csv(rows: &[CompareRow]) -> String {
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut s = String::from(
        "load,load_iops,scheme,r_limit_ms,requests,span_s,throughput_iops,mean_ms,p50_ms,p99_ms,max_ms,goal_met,energy_j,average_power_w,energy_saving,speed_changes_per_disk_day,start_stops_per_disk_day,max_speed_changes_per_disk_day,guarantee_activations,guarantee_s,controller_j,enclosures_j,system_j,system_saving,mean_ms_half_width,power_w_half_width,energy_saving_half_width,warmup_s,window_s,settled,note\n",
    );
    for r in rows {
        let run = &r.run;
        let rt = &run.response_time;
        let m = run.measured.as_ref();
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(&r.load),
            r.load_iops.map(|v| v.to_string()).unwrap_or_default(),
            csv_field(&r.scheme),
            run.r_limit_ms,
            run.requests,
            run.span_s,
            run.throughput_iops,
            rt.mean_ms,
            rt.p50_ms,
            rt.p99_ms,
            rt.max_ms,
            run.goal_met,
            run.energy_j,
            run.average_power_w,
            r.energy_saving,
            run.speed_changes_per_disk_day,
            run.start_stops_per_disk_day,
            run.max_speed_changes_per_disk_day,
            run.scheme_report.guarantee_activations,
            run.scheme_report.guarantee_s,
            opt(run.system.as_ref().map(|e| e.controller_j)),
            opt(run.system.as_ref().map(|e| e.enclosures_j)),
            opt(run.system.as_ref().map(|e| e.total_j)),
            opt(r.system_saving),
            opt(m.map(|m| m.mean_ms.half_width)),
            opt(m.map(|m| m.power_w.half_width)),
            opt(r.energy_saving_half_width),
            opt(m.map(|m| m.warmup_s)),
            opt(m.map(|m| m.window_s)),
            m.map(|m| m.settled.to_string()).unwrap_or_default(),
            csv_field(&row_note(r))
        ));
    }
    s
}
