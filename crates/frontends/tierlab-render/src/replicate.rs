//! The replication studies' reports as text and CSV (a run, a sweep, a plan and the
//! paper's grid), and the table cells the HTML reports share with them.

use tierlab_replica_policy::Trigger;
use tierlab_replication_sim::{Comparison, DataStandby, ReplicationConfig, ReplicationRun, Scheme, SchemeRow, Shipping, SourceSpec};
use tierlab_replication_study::{GridCell, GridReport, LogReport, PlanDisk, PlanReport, PAPER_RATIOS, PAPER_RTOS_S};
pub use tierlab_replication_study::{SweepPoint, SweepReport};
use tierlab_report::{csv_field, fmt_bytes, Table};
use tierlab_update_log::{PlanMode, DEFAULT_DATA_FRACTION};
use tierlab_update_stream::TpccConfig;
/// Header and cells of one run's per-disk table.
pub fn disk_cells(r: &ReplicationRun) -> (Vec<String>, Vec<Vec<String>>) {
    let header = ["disk", "role", "W", "util %", "start/stops/day", "energy by state (s / J)"];
    let cells = r
        .disks
        .iter()
        .map(|d| {
            let states: Vec<String> = d.states.iter().map(|(state, s, j)| format!("{state} {s:.1} / {j:.0}")).collect();
            vec![
                d.name.clone(),
                d.role.to_string(),
                format!("{:.2}", d.average_power_w),
                format!("{:.1}", d.utilisation * 100.0),
                format!("{:.1}", d.start_stops_per_day),
                states.join(", "),
            ]
        })
        .collect();
    (header.into_iter().map(str::to_string).collect(), cells)
}

/// The runs whose per-disk tables a `run` report shows.
pub fn disk_tables(c: &Comparison, all: bool) -> impl Iterator<Item = &ReplicationRun> {
    c.rows.iter().map(|r| &r.run).filter(move |r| all || r.scheme != Scheme::Conventional)
}

/// The primary's line: what it ran and how fast.
pub fn primary_line(c: &Comparison) -> String {
    let Some(base) = c.rows.first() else { return String::new() };
    let p = &base.run.primary;
    format!(
        "{} transactions ({} commits, {} records, {} of log) in {:.1} s: {:.1} transactions/s, mean commit {:.3} ms, R_gen {:.3} MiB/s",
        p.transactions,
        p.commits,
        p.records,
        fmt_bytes(p.log_bytes),
        p.span_s,
        p.transactions_per_s,
        p.mean_commit_ms,
        p.r_gen_bytes_s / MIB_F
    )
}

/// Header and cells of the per-scheme table of `run`.
pub fn scheme_cells(c: &Comparison) -> (Vec<String>, Vec<Vec<String>>) {
    let system = c.rows.iter().any(|r| r.saving_system.is_some());
    let pooled = c.rows.iter().any(|r| r.saving_weighted_vs_pooled.is_some());
    let mut header = vec!["scheme", "saving %", "weighted %", "data %"];
    if system {
        header.push("system %");
    }
    if pooled {
        header.push("weighted vs pooled %");
    }
    header.extend([
        "R_gen MiB/s",
        "R_apl MiB/s",
        "r",
        "T_wnd plan s",
        "T_wnd obs s",
        "cycles/day",
        "worst recovery s",
        "RTO violations",
        "data disk W",
        "log disk W",
    ]);
    let cells = c
        .rows
        .iter()
        .map(|row| {
            let r = &row.run;
            let weighted = match row.saving_weighted_half_width {
                Some(hw) if hw.is_finite() && hw > 0.0 => format!("{} ±{:.1}", percent(row.saving_weighted), hw * 100.0),
                Some(hw) if hw.is_infinite() => format!("{} ±?", percent(row.saving_weighted)),
                _ => percent(row.saving_weighted),
            };
            let mut cells = vec![r.scheme.name().to_string(), percent(row.saving_total), weighted, percent(row.saving_data)];
            if system {
                cells.push(row.saving_system.map_or("-".into(), percent));
            }
            if pooled {
                cells.push(row.saving_weighted_vs_pooled.map_or("-".into(), percent));
            }
            cells.extend([
                format!("{:.3}", r.r_gen_bytes_s / MIB_F),
                format!("{:.3}", r.r_apl_bytes_s / MIB_F),
                format!("{:.2}", r.r),
                seconds(r.t_wnd_planned_s),
                seconds(r.t_wnd_observed_s),
                format!("{:.1}", r.cycles_per_day),
                format!("{:.1}", r.policy.worst_recovery_s),
                r.policy.rto_violations.to_string(),
                format!("{:.2}", r.data_disk_w),
                format!("{:.2}", r.log_disk_w),
            ]);
            cells
        })
        .collect();
    (header.into_iter().map(str::to_string).collect(), cells)
}

/// A size as people write it: 4 MiB, 512 MiB, 1 GiB, else with two decimals.
pub fn size_label(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    fmt_bytes(bytes)
}

/// Header and cells of the sweep's table, and the reasons its infeasible points give.
/// A point's note names its reason by number (`infeasible (1)`) and the reasons follow the
/// table once each, so a long reason does not widen the table.
pub fn sweep_cells(r: &SweepReport) -> (Vec<String>, Vec<Vec<String>>, Vec<String>) {
    let mut reasons: Vec<String> = Vec::new();
    let header = [
        "warehouses",
        "standby",
        "window",
        "RTO s",
        "scheme",
        "weighted saving %",
        "vs pooled %",
        "data saving %",
        "r",
        "T_wnd plan s",
        "T_wnd obs s",
        "cycles/day",
        "worst recovery s",
        "violations",
        "note",
    ];
    let cells = r
        .points
        .iter()
        .map(|p| {
            let run = &p.row.run;
            let mut c = vec![
                p.warehouses.map(|w| w.to_string()).unwrap_or_else(|| p.workload.clone()),
                p.standby.clone(),
                size_label(p.window_bytes),
                g(p.rto_s),
                p.scheme.name().to_string(),
                percent(p.row.saving_weighted),
                p.row.saving_weighted_vs_pooled.map_or("-".into(), percent),
                percent(p.row.saving_data),
                format!("{:.2}", run.r),
            ];
            match &p.infeasible {
                Some(why) => {
                    c.extend(["—", "—", "0.0"].map(String::from));
                    c.push(format!("{:.1}", run.policy.worst_recovery_s));
                    c.push(run.policy.rto_violations.to_string());
                    let n = match reasons.iter().position(|w| w == why) {
                        Some(i) => i + 1,
                        None => {
                            reasons.push(why.clone());
                            reasons.len()
                        }
                    };
                    c.push(format!("infeasible ({n})"));
                }
                None => c.extend([
                    seconds(run.t_wnd_planned_s),
                    seconds(run.t_wnd_observed_s),
                    format!("{:.1}", run.cycles_per_day),
                    format!("{:.1}", run.policy.worst_recovery_s),
                    run.policy.rto_violations.to_string(),
                ]),
            }
            c
        })
        .collect();
    (header.into_iter().map(str::to_string).collect(), cells, reasons)
}

/// The sweep's settings as (label, text) lines.
pub fn sweep_lines(r: &SweepReport) -> Vec<(&'static str, String)> {
    let mut lines = describe(&r.config, None, false);
    let swept: Vec<String> = r.warehouses.iter().flatten().map(u32::to_string).collect();
    if let (SourceSpec::Tpcc(t), false) = (&r.config.source, swept.is_empty()) {
        let one = TpccConfig { warehouses: 0, ..t.clone() };
        lines[0].1 = describe_source(&SourceSpec::Tpcc(one)).replacen("0 warehouses", &format!("{} warehouses", swept.join(", ")), 1);
    }
    let windows: Vec<String> = r.windows_bytes.iter().map(|&w| size_label(w)).collect();
    let rtos: Vec<String> = r.rtos_s.iter().map(|&t| g(t)).collect();
    let schemes: Vec<&str> = r.schemes.iter().map(|s| s.name()).collect();
    let mut sweep = format!("windows {}; RTOs {} s; standby {}; schemes {}", windows.join(", "), rtos.join(", "), r.standby_levels.join(", "), schemes.join(", "));
    if r.warehouses.iter().any(Option::is_some) {
        let w: Vec<String> = r.warehouses.iter().flatten().map(u32::to_string).collect();
        sweep = format!("warehouses {}; {sweep}", w.join(", "));
    }
    lines.insert(3, ("sweep", sweep));
    for b in &r.baselines {
        lines.push((
            "reference",
            format!(
                "conventional replication of {}: u {:.3}, data disk {:.2} W, log disk {:.2} W, {:.1} transactions/s",
                b.workload, b.u, b.run.data_disk_w, b.run.log_disk_w, b.run.primary.transactions_per_s
            ),
        ));
        if let Some(p) = &b.pooled {
            lines.push((
                "pooled",
                format!("conventional-pooled replication of {}: u {:.3}, data disk {:.2} W, log disk {:.2} W", b.workload, p.data_utilisation, p.data_disk_w, p.log_disk_w),
            ));
        }
    }
    lines
}

/// Everything a `run` report says besides the comparison.
pub struct RunContext {
    pub lines: Vec<(&'static str, String)>,
    pub all_disks: bool,
}

/// A share as a percentage to one decimal, without a "-0.0".
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p.abs() < 0.05 {
        "0.0".into()
    } else {
        format!("{p:.1}")
    }
}

/// A number as short as it is exact: 15, 62.25, 904.8.
pub fn g(v: f64) -> String {
    format!("{v}")
}

pub fn describe_source(s: &SourceSpec) -> String {
    match s {
        SourceSpec::Tpcc(t) => {
            let n = t.transactions.map(|n| format!(", {n} transactions")).unwrap_or_default();
            format!(
                "TPC-C generator, {} warehouses{n}, seed {}, {} pages, {} buffer pool",
                t.warehouses,
                t.seed,
                size_label(t.page_bytes),
                size_label(t.buffer_pool_bytes)
            )
        }
        SourceSpec::Forward { path, compact } => {
            format!("block forwarding of trace {}{}", path.display(), if *compact { " (compact)" } else { "" })
        }
        SourceSpec::LogFile { path } => format!("update log {}", path.display()),
    }
}

/// The configuration as (label, text) lines, for the text and HTML reports. `policy`:
/// include the window and RTO (a sweep varies them).
pub fn describe(cfg: &ReplicationConfig, standby: Option<&DataStandby>, policy: bool) -> Vec<(&'static str, String)> {
    let mut lines = vec![("source", describe_source(&cfg.source))];
    let profile = cfg.power_profile.as_deref().map(|p| format!(" ({p} profile)")).unwrap_or_default();
    lines.push((
        "secondary",
        format!(
            "{} data + {} log disks, {}{profile}, {}, {} stripe unit, {} apply cache, {} redo; the primary has the same disks",
            cfg.data_disks,
            cfg.log_disks,
            cfg.disk,
            cfg.level,
            size_label(cfg.stripe_unit_bytes),
            size_label(cfg.apply_cache_bytes),
            cfg.redo.name()
        ),
    ));
    if let Some(s) = standby {
        lines.push(("standby", describe_standby(s)));
    }
    let shipping = match cfg.link.shipping {
        Shipping::Sync => "synchronous shipping (RPO 0)".to_string(),
        Shipping::Async { max_lag_bytes } => format!("asynchronous shipping, at most {} not yet durable at the secondary", size_label(max_lag_bytes)),
    };
    let bandwidth = match cfg.link.bandwidth_bytes_s {
        Some(b) => format!("{}/s", fmt_bytes(b as u64)),
        None => "not a limit".into(),
    };
    lines.push(("link", format!("{shipping}; one-way latency {} s; bandwidth {bandwidth}", g(cfg.link.latency_s))));
    let mode = format!("{} mode, {} trigger", rto_mode_name(cfg.rto_mode), trigger_name(cfg.trigger));
    if policy {
        lines.push(("policy", format!("window {}, RTO {} s ({mode})", size_label(cfg.window_bytes), g(cfg.rto_s))));
    } else {
        lines.push(("policy", mode));
    }
    lines.push(match cfg.measure {
        true => ("span", format!("at most {} s of primary time; each scheme measured over whole cycles from a steady state, after at least {} s", g(cfg.duration_s), g(cfg.warmup_s))),
        false => ("span", format!("{} s of primary time, measured after a {} s warm-up", g(cfg.duration_s), g(cfg.warmup_s))),
    });
    lines.push((
        "saving",
        format!(
            "1 − power / conventional replication's power; weighted: data disks {} %, log disks {} % of the storage",
            g((cfg.data_disk_share * 1000.0).round() / 10.0),
            g(((1.0 - cfg.data_disk_share) * 1000.0).round() / 10.0)
        ),
    ));
    lines
}

/// Seconds to one decimal; "—" when not finite or not measured (0).
pub fn seconds(v: f64) -> String {
    if v.is_finite() && v > 0.0 {
        format!("{v:.1}")
    } else {
        "—".into()
    }
}

pub const MIB_F: f64 = 1024.0 * 1024.0;

pub fn describe_standby(s: &DataStandby) -> String {
    format!(
        "{}: {} W; spin-down {} s / {} J, spin-up {} s / {} J; idle {} W, active {} W; break-even {:.1} s",
        s.level,
        g(s.costs.standby_w),
        g(s.costs.down.time_s),
        g(s.costs.down.energy_j),
        g(s.costs.up.time_s),
        g(s.costs.up.energy_j),
        g(s.idle_w),
        g(s.active_w),
        s.break_even_s
    )
}

pub fn rto_mode_name(m: PlanMode) -> &'static str {
    match m {
        PlanMode::Paper => "paper",
        PlanMode::Strict => "strict",
    }
}

pub fn trigger_name(t: Trigger) -> &'static str {
    match t {
        Trigger::Backlog => "backlog",
        Trigger::Schedule => "schedule",
    }
}

/// How a run was measured, in one line: its warm-up, its window of whole cycles (or fixed
/// periods) and the power's interval, or that it was measured from a fixed warm-up.
pub fn measured_line(run: &tierlab_replication_sim::ReplicationRun) -> String {
    let Some(m) = &run.measured else {
        return "measured from --warmup-s to the end of the run (--no-measure)".to_string();
    };
    let s = &m.summary;
    if s.cycles == 0 {
        return "too short for a whole cycle or period: power and busy shares over the whole run".to_string();
    }
    let warm = if s.drifting {
        format!("still drifting ({:+.0} % across the window from {:.0} s)", s.drift * 100.0, s.warmup_s)
    } else if s.settled {
        format!("warm-up {:.0} s", s.warmup_s)
    } else {
        format!("never settled (window from {:.0} s)", s.warmup_s)
    };
    let unit = if s.own_cycles { "whole cycles" } else { "periods of 60 s" };
    let stop = if s.precise { "power was within 5 %" } else { "run ended" };
    let power = tierlab_report::with_interval(s.power_w.mean, s.power_w.half_width, 2);
    format!("{warm}, {} {unit} ({:.0} s) until the {stop}: disks {power} W", s.cycles, s.window_s)
}

/// (label, text) lines as the text reports print them.
pub fn render_lines(lines: &[(&str, String)]) -> String {
    lines.iter().map(|(k, v)| format!("{k:<11} {v}\n")).collect()
}

fn table(header: Vec<String>, cells: Vec<Vec<String>>) -> Table {
    let mut t = Table::new(header);
    for c in cells {
        t.row(c);
    }
    t
}

/// The columns of a scheme's CSV line.
pub const CSV_ROW_HEADER: &str = "scheme,saving_total,saving_weighted,saving_data,r_gen_bytes_s,r_apl_bytes_s,r,t_wnd_planned_s,t_wnd_observed_s,cycles_per_day,worst_recovery_s,rto_violations,data_disk_w,log_disk_w,data_utilisation,data_start_stops_per_day,stayed_up_because,saving_system,system_w,saving_weighted_vs_pooled";

/// One scheme's CSV line, in the columns of [`CSV_ROW_HEADER`].
pub fn csv_row(row: &SchemeRow) -> String {
    let r = &row.run;
    let data: Vec<_> = r.disks.iter().filter(|d| d.role == "data").collect();
    let start_stops = if data.is_empty() { 0.0 } else { data.iter().map(|d| d.start_stops_per_day).sum::<f64>() / data.len() as f64 };
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        r.scheme.name(),
        row.saving_total,
        row.saving_weighted,
        row.saving_data,
        r.r_gen_bytes_s,
        r.r_apl_bytes_s,
        r.r,
        r.t_wnd_planned_s,
        r.t_wnd_observed_s,
        r.cycles_per_day,
        r.policy.worst_recovery_s,
        r.policy.rto_violations,
        r.data_disk_w,
        r.log_disk_w,
        r.data_utilisation,
        start_stops,
        csv_field(r.policy.stayed_up_because.as_deref().unwrap_or("")),
        row.saving_system.map(|v| v.to_string()).unwrap_or_default(),
        r.system.as_ref().map(|e| e.total_w.to_string()).unwrap_or_default(),
        row.saving_weighted_vs_pooled.map(|v| v.to_string()).unwrap_or_default()
    )
}

/// A run as CSV: the header and one line per scheme.
pub fn render_run_csv(c: &Comparison) -> String {
    let mut s = format!("{CSV_ROW_HEADER}\n");
    for row in &c.rows {
        s.push_str(&csv_row(row));
        s.push('\n');
    }
    s
}

/// The report of a `run` as people read it.
pub fn render_run(c: &Comparison, ctx: &RunContext) -> String {
    let mut s = render_lines(&ctx.lines);
    s.push('\n');
    let (header, cells) = scheme_cells(c);
    s.push_str(&table(header, cells).render());
    s.push('\n');
    s.push_str(&format!("u           {:.3} (conventional data-disk utilisation: each update reflected at once)\n", c.u));
    if let Some(u) = c.u_pooled {
        s.push_str(&format!("u pooled    {u:.3} (conventional-pooled: through the write-back apply cache)\n"));
    }
    s.push_str(&format!("primary     {}\n", primary_line(c)));
    for row in &c.rows {
        s.push_str(&format!("{:<11} {}\n", row.run.scheme.name(), measured_line(&row.run)));
    }
    for row in &c.rows {
        if let Some(why) = &row.run.policy.stayed_up_because {
            s.push_str(&format!("{:<11} stayed up because {why}\n", row.run.scheme.name()));
        }
    }
    for row in &c.rows {
        if let Some(e) = &row.run.system {
            s.push_str(&format!("\n{}:\n{}", row.run.scheme.name(), crate::system::render_system_energy(e)));
        }
    }
    for run in disk_tables(c, ctx.all_disks) {
        s.push_str(&format!("\nper disk: {}\n", run.scheme.name()));
        let (header, cells) = disk_cells(run);
        s.push_str(&table(header, cells).render());
    }
    s
}

/// The report of a `sweep` as people read it.
pub fn render_sweep(r: &SweepReport) -> String {
    let mut s = render_lines(&sweep_lines(r));
    s.push('\n');
    let (header, cells, reasons) = sweep_cells(r);
    s.push_str(&table(header, cells).render());
    for (i, why) in reasons.iter().enumerate() {
        s.push_str(&format!("infeasible ({}): {why}\n", i + 1));
    }
    s
}

/// A sweep as CSV, one line per point.
pub fn render_sweep_csv(r: &SweepReport) -> String {
    let mut s = format!("workload,warehouses,standby,window_bytes,rto_s,{CSV_ROW_HEADER},infeasible\n");
    for p in &r.points {
        s.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            csv_field(&p.workload),
            p.warehouses.map(|w| w.to_string()).unwrap_or_default(),
            csv_field(&p.standby),
            p.window_bytes,
            p.rto_s,
            csv_row(&p.row),
            p.infeasible.is_some()
        ));
    }
    s
}

fn mode_text(m: PlanMode) -> &'static str {
    match m {
        PlanMode::Paper => "paper: recovery within the RTO while the disks spin (the paper's formula)",
        PlanMode::Strict => "strict: recovery within the RTO at every instant, spin-up included",
    }
}

fn describe_disk(d: &PlanDisk) -> String {
    let profile = d.power_profile.as_deref().map(|p| format!(" ({p} profile)")).unwrap_or_default();
    format!("{}{profile}", d.disk)
}

/// The report of one plan as people read it.
pub fn render_plan(r: &PlanReport) -> String {
    let p = &r.plan;
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("{k:<17}{v}\n"));
    line(&mut s, "disk", describe_disk(&r.disk));
    line(&mut s, "standby", describe_standby(&r.standby));
    line(&mut s, "mode", mode_text(p.mode).to_string());
    let rates = match (r.r_gen_bytes_s, r.r_apl_bytes_s) {
        (Some(g), Some(a)) => format!(" (R_gen {:.3} MiB/s, R_apl {:.3} MiB/s)", g / MIB_F, a / MIB_F),
        _ => String::new(),
    };
    line(&mut s, "r", format!("{}{rates}", g(p.r)));
    line(&mut s, "RTO", format!("{} s", g(p.t_rto_s)));
    let spin_s = g(p.t_up_s + p.t_down_s);
    let over = p.worst_recovery_s - p.t_rto_s;
    let feasible = if over > 1e-9 {
        format!(
            "by the paper's conditions only (r > 1; the RTO exceeds spin-down + spin-up, {spin_s} s): recovery can take {:.1} s, {over:.1} s more than the RTO",
            p.worst_recovery_s
        )
    } else {
        format!("yes: r > 1, and the RTO exceeds spin-down + spin-up ({spin_s} s); no recovery takes longer than the RTO")
    };
    line(&mut s, "feasible", feasible);
    s.push('\n');
    line(&mut s, "T_wnd", format!("{:.1} s (the cycle: apply, spin down, stand by, spin up)", p.t_wnd_s));
    line(&mut s, "T_apl", format!("{:.1} s (applying, 1/r of the cycle)", p.t_apl_s));
    line(&mut s, "T_idle", format!("{:.1} s (spin-down, standby, spin-up)", p.t_idle_s));
    line(&mut s, "standby time", format!("{:.1} s per cycle", p.standby_s));
    match (r.u_max_bytes, r.batch_bytes) {
        (Some(u), Some(b)) => {
            line(&mut s, "U_max", format!("{} (peak unapplied log, as applying starts)", fmt_bytes(u.round() as u64)));
            line(&mut s, "batch", format!("{} (log per cycle: what the log volume must hold)", fmt_bytes(b.ceil() as u64)));
        }
        _ => {
            line(&mut s, "U_max", format!("R_gen × {:.1} s (peak unapplied log; --r-gen and --r-apl give bytes)", p.t_idle_s));
            line(&mut s, "batch", format!("R_gen × {:.1} s (log per cycle)", p.t_wnd_s));
        }
    }
    line(&mut s, "cycles/day", format!("{:.1}", p.cycles_per_day));
    let kind = r.disk.cycle_kind.replace('_', "/");
    let limit = match (r.disk.rated_cycles, r.days_to_rated_cycles) {
        (Some(c), Some(d)) => format!("{d:.0} days ({:.1} years) to the rated {c} {kind} cycles", d / 365.0),
        _ => format!("unknown: the catalog has no rated {kind} cycles for {}", r.disk.disk),
    };
    line(&mut s, "cycle limit", limit);
    let worst = match p.mode {
        PlanMode::Paper => "T_RTO + T_up·(1 − 1/r): a disaster as spin-up starts",
        PlanMode::Strict => "the RTO itself",
    };
    line(&mut s, "worst recovery", format!("{:.1} s ({worst})", p.worst_recovery_s));
    if over > 1e-9 {
        line(&mut s, "", format!("exceeds the RTO of {} s by {over:.1} s", g(p.t_rto_s)));
        if let Some(st) = &r.strict {
            line(
                &mut s,
                "strict mode",
                format!(
                    "T_wnd {:.1} s, {:.1} cycles/day, worst recovery {:.1} s (within the RTO), saving {} % of the storage",
                    st.t_wnd_s,
                    st.cycles_per_day,
                    st.worst_recovery_s,
                    percent(st.saving_total)
                ),
            );
        }
    }
    line(&mut s, "break-even", format!("{:.1} s of idle time pays for a spin-down", r.standby.break_even_s));
    if let Some(v) = r.log_volume_bytes {
        let window = r.window_bytes.map(|w| format!("a {} window fits", size_label(w))).unwrap_or_default();
        let batch = if r.batch_bytes.is_some() { "holds a batch" } else { "batch size unknown without --r-gen" };
        let sep = if window.is_empty() { "" } else { "; " };
        line(&mut s, "log volume", format!("{}: {batch}{sep}{window}", size_label(v)));
    }
    s.push('\n');
    let w = &r.power;
    line(
        &mut s,
        "power",
        format!(
            "data disk {:.2} W deferred against {:.2} W conventional (u = {}); analytic model",
            w.p_data_proposed_w,
            w.p_data_conventional_w,
            g(r.u)
        ),
    );
    line(
        &mut s,
        "saving",
        format!(
            "{} % of the storage, {} % of the data disks (data disks {:.1} % of the storage, log disks at idle {} W)",
            percent(w.saving_total),
            percent(w.saving_data),
            r.data_fraction * 100.0,
            g(r.log_disk_w)
        ),
    );
    s
}

/// The grid as people read it: one row per standby level and r, one column per RTO, each
/// cell T_wnd and the storage saving (or "infeasible").
pub fn render_grid(g_: &GridReport) -> String {
    let mut s = format!("disk        {}\nmode        {}\n", describe_disk(&g_.disk), mode_text(g_.mode));
    for sb in &g_.standby {
        s.push_str(&format!("standby     {}\n", describe_standby(sb)));
    }
    s.push_str(&format!(
        "cells       T_wnd and the analytic saving of the storage (u = {}, data disks {:.1} %, log disks at idle)\n\n",
        g(g_.u),
        DEFAULT_DATA_FRACTION * 100.0
    ));
    let mut header = vec!["standby".to_string(), "r".to_string()];
    header.extend(PAPER_RTOS_S.iter().map(|r| format!("RTO {} s", g(*r))));
    let mut t = Table::new(header);
    for sb in &g_.standby {
        for &r in &PAPER_RATIOS {
            let mut row = vec![sb.level.clone(), g(r)];
            for &rto in &PAPER_RTOS_S {
                let cell = g_.cells.iter().find(|c| c.standby == sb.level && c.r == r && c.rto_s == rto);
                row.push(match cell {
                    Some(GridCell { t_wnd_s: Some(tw), saving_total: Some(sv), .. }) => format!("{tw:.0} s, {} %", percent(*sv)),
                    _ => "infeasible".into(),
                });
            }
            t.row(row);
        }
    }
    s.push_str(&t.render());
    let reasons: Vec<&GridCell> = g_.cells.iter().filter(|c| !c.feasible).collect();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for c in reasons {
        let why = c.reason.as_deref().unwrap_or("");
        if !seen.iter().any(|(l, w)| *l == c.standby && *w == why) {
            seen.push((&c.standby, why));
        }
    }
    if !seen.is_empty() {
        s.push('\n');
        for (level, why) in seen {
            s.push_str(&format!("infeasible  {level}: {why}\n"));
        }
    }
    s
}

/// What `replicate log` wrote, in one line.
pub fn render_log(r: &LogReport) -> String {
    format!("wrote {} transactions, {} records, {} of log to {}\n", r.transactions, r.records, fmt_bytes(r.log_bytes), r.output.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_written() {
        assert_eq!(size_label(4 << 20), "4 MiB");
        assert_eq!(size_label(1 << 30), "1 GiB");
        assert_eq!(size_label(1536), "1.50 KiB");
        assert_eq!(size_label(100), "100 B");
    }
}
