//! `tierlab plan`: HybridStore's capacity planner on a trace or on published statistics.

use crate::args::TraceInput;
use tierlab_report::with_interval;
use crate::measure_args::{MeasureArgs};
use tierlab_render::charts::{bars, column_notes, esc, figure, grouped, num, page_head, plot_linear, plot_log, Bar, Chart, Marker, Series, Style, XAxis, PALETTE};
use crate::progress::{requests_bar, write_file, write_json};
use crate::report_doc::Doc;
use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use tierlab_classes::{ClassConfig, Classes};
use tierlab_mixplan::{BandwidthForm, Plan, WearRate};
use tierlab_plan_study::{Options, PlanReport};
use tierlab_measure::Protocol;
use tierlab_report::Table;

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Plan for this trace.
    #[arg(long, value_name = "FILE", conflicts_with = "stats", required_unless_present = "stats")]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub input: TraceInput,
    /// Plan for a workload statistics file (a synthesised stream stands in for the trace);
    /// a file, or the id of a shipped one (`catalog/workloads`).
    #[arg(long, value_name = "FILE|ID")]
    pub stats: Option<String>,
    /// Planning catalog: a shipped id (hybridstore-2009, recent) or a file.
    #[arg(long, value_name = "ID|FILE", default_value = "hybridstore-2009")]
    pub catalog: String,
    /// Leave a device type of the catalog out (repeatable).
    #[arg(long, value_name = "ID")]
    pub without: Vec<String>,
    /// Set a device type's price, $/GB (repeatable): `--price x25m=0.48`.
    #[arg(long, value_name = "ID=USD_PER_GB")]
    pub price: Vec<String>,
    /// 17 or 33 data classes.
    #[arg(long, default_value_t = 33)]
    pub classes: u32,
    #[arg(long, value_name = "YEARS", default_value_t = 5.0)]
    pub horizon_years: f64,
    /// The SSDs must last this long (default: the horizon).
    #[arg(long, value_name = "YEARS")]
    pub lifetime_years: Option<f64>,
    #[arg(long, value_name = "USD", default_value_t = 0.10)]
    pub usd_per_kwh: f64,
    /// Cooling as a multiple of the electricity: 2 counts cooling equal to it (Eq. 4.3),
    /// 1 counts electricity alone.
    #[arg(long, value_name = "FACTOR", default_value_t = 2.0)]
    pub cooling_factor: f64,
    /// Purchase price only (no power or cooling over the horizon).
    #[arg(long)]
    pub no_recurring: bool,
    /// How classes share a device type's bandwidth.
    #[arg(long, value_enum, default_value_t = FormArg::Literal)]
    pub bandwidth: FormArg,
    /// What wears the flash: each class's mean write rate, or its write share of F_j.
    #[arg(long, value_enum, default_value_t = WearArg::Mean)]
    pub wear: WearArg,
    /// At most this many devices in all.
    #[arg(long, value_name = "N")]
    pub max_devices: Option<u32>,
    /// Multiply every class's bandwidth need (the research's 1x-8x arrival-rate scaling).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub scale: f64,
    /// How many runner-up plans to list.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runner_ups: usize,
    /// Requests per class shape when measuring a device's bandwidth.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub probe_requests: u32,
    /// Requests kept outstanding when measuring a device's bandwidth (1: one request's
    /// service time, the research's disk model; more lets an SSD use its channels).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub probe_depth: u32,
    /// Measure an SSD timed from its data sheet on its internals model instead (the
    /// catalog entry's `internals`, filled to its usable share and aged): the aged-FTL
    /// sensitivity run.
    #[arg(long)]
    pub ssd_internals: bool,
    /// Measure device bandwidths anew instead of reading the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Check the plan by simulation: build it (and each device type alone) from
    /// tierlab's device models, replay the workload, and set what the planner assumed
    /// beside what happened.
    #[arg(long)]
    pub simulate: bool,
    /// How `--simulate` measures each design (`docs/measurement.md`).
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Seed of the synthesised stream (`--stats`) and of the simulated placement.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
    /// Also write an HTML report.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// The largest `--scale`: a million times the workload's rate already asks for more
/// devices than any catalog's prices were quoted for, and far larger factors make the
/// program's coefficients too far apart for the solver to be trusted.
const MAX_SCALE: f64 = 1e6;
/// The longest horizon or required SSD life, in years.
const MAX_YEARS: f64 = 1000.0;

/// Numbers that would reach the solver out of its range are refused here, each with its
/// flag and the range expected.
fn check_inputs(a: &PlanArgs) -> Result<()> {
    let within = |flag: &str, v: f64, lo: f64, lo_open: bool, hi: f64, what: &str| -> Result<()> {
        let ok = v.is_finite() && (if lo_open { v > lo } else { v >= lo }) && v <= hi;
        if !ok {
            let found = if v.is_finite() && v.abs() >= 1e9 { format!("{v:e}") } else { v.to_string() };
            anyhow::bail!("{flag}: expected {what}, found {found}");
        }
        Ok(())
    };
    within("--scale", a.scale, 0.0, true, MAX_SCALE, &format!("a factor above 0 and at most {MAX_SCALE:e}"))?;
    within("--horizon-years", a.horizon_years, 0.0, true, MAX_YEARS, &format!("a number of years above 0 and at most {MAX_YEARS}"))?;
    if let Some(y) = a.lifetime_years {
        within("--lifetime-years", y, 0.0, true, MAX_YEARS, &format!("a number of years above 0 and at most {MAX_YEARS}"))?;
    }
    within("--usd-per-kwh", a.usd_per_kwh, 0.0, false, 1000.0, "a price from 0 to 1000 $/kWh")?;
    within("--cooling-factor", a.cooling_factor, 0.0, false, 100.0, "a factor from 0 to 100")?;
    Ok(())
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormArg {
    Literal,
    Aggregated,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WearArg {
    Mean,
    Peak,
}

pub fn run(a: PlanArgs) -> Result<()> {
    check_inputs(&a)?;
    let intensity_bins = match a.classes {
        17 => 1,
        33 => 2,
        n => anyhow::bail!("--classes: expected 17 or 33, found {n}"),
    };
    let cfg = ClassConfig { intensity_bins, ..ClassConfig::default() };
    let mut catalog = tierlab_mixplan::catalog::load(&a.catalog).map_err(|e| anyhow!("--catalog {}: {e}", a.catalog))?;
    for id in &a.without {
        let before = catalog.devices.len();
        catalog.devices.retain(|d| &d.id != id);
        if catalog.devices.len() == before {
            anyhow::bail!("--without {id}: no such device type in catalog `{}` (it has {})", catalog.id, ids(&catalog));
        }
    }
    for p in &a.price {
        let (id, usd) = p.split_once('=').ok_or_else(|| anyhow!("--price {p}: expected ID=USD_PER_GB"))?;
        let usd: f64 = usd.parse().ok().filter(|v: &f64| v.is_finite() && (0.0..=1e6).contains(v)).ok_or_else(|| anyhow!("--price {p}: expected a price from 0 to 1e6 $/GB after `=`"))?;
        let names = ids(&catalog);
        let d = catalog.devices.iter_mut().find(|d| d.id == id).ok_or_else(|| anyhow!("--price {p}: no device type `{id}` in the catalog (it has {names})"))?;
        d.price_usd_per_gb = Some(usd);
    }
    let options = Options {
        cost: tierlab_mixplan::CostModel { horizon_years: a.horizon_years, usd_per_kwh: a.usd_per_kwh, cooling_factor: a.cooling_factor, recurring: !a.no_recurring },
        bandwidth_form: match a.bandwidth {
            FormArg::Literal => BandwidthForm::Literal,
            FormArg::Aggregated => BandwidthForm::Aggregated,
        },
        wear_rate: match a.wear {
            WearArg::Mean => WearRate::Mean,
            WearArg::Peak => WearRate::Peak,
        },
        lifetime_years: a.lifetime_years,
        max_devices: a.max_devices,
        solver: tierlab_mixplan::SolverKind::best(),
        rate_scale: a.scale,
        runner_ups: a.runner_ups,
        probe: tierlab_plan_study::Probe { requests: a.probe_requests.max(1), queue_depth: a.probe_depth.max(1), ssd_internals: a.ssd_internals, ..Default::default() },
    };
    let cache = if a.no_cache { None } else { tierlab_plan_study::default_cache_dir() };
    let protocol = a.measure.protocol()?;
    let report = match (&a.trace, &a.stats) {
        (Some(file), _) => {
            let open = || a.input.open(file);
            let classes = crate::cmd_trace::characterise(&cfg, open)?;
            let mut report = plan(&file.display().to_string(), &classes, &catalog, &options, cache.as_deref())?;
            if a.simulate {
                let labelled = tierlab_classes::label(&cfg, open()?)?;
                report.simulated = simulate(&report, &catalog, &classes, &labelled, &open, &protocol)?;
            }
            report
        }
        (None, Some(stats)) => {
            let stats = tierlab_plan_study::load_stats(stats)?;
            // The stream is made at the projected rate, so the needs are not scaled again.
            let synth = tierlab_synth::SynthOptions { seed: a.seed, rate_scale: options.rate_scale };
            let options = Options { rate_scale: 1.0, ..options };
            let bar = requests_bar("synthesising and labelling records");
            let (classes, synthesis) = tierlab_plan_study::characterise_stats(&stats, &synth, &cfg)?;
            bar.finish_and_clear();
            let mut report = plan(&format!("{} ({})", stats.id, stats.description), &classes, &catalog, &options, cache.as_deref())?;
            report.options.rate_scale = synth.rate_scale;
            report.synthesis = Some(synthesis);
            if a.simulate {
                let open = || -> Result<_> { Ok(tierlab_synth::Synth::new(&stats, &synth)?.map(Ok::<_, std::convert::Infallible>)) };
                let labelled = tierlab_classes::label(&cfg, open()?).map_err(|e| anyhow!("{e}"))?;
                report.simulated = simulate(&report, &catalog, &classes, &labelled, &open, &protocol)?;
            }
            report
        }
        (None, None) => anyhow::bail!("give --trace FILE or --stats FILE"),
    };
    let mut out = crate::session::stdout();
    if a.json {
        write_json(&mut out, &report)?;
    } else {
        write!(out, "{}", render_text(&report, &catalog))?;
    }
    if let Some(path) = &a.html {
        write_file(path, render_html(&report, &catalog)?)?;
    }
    Ok(())
}

fn plan(workload: &str, classes: &Classes, catalog: &tierlab_mixplan::catalog::PlanCatalog, options: &Options, cache: Option<&std::path::Path>) -> Result<PlanReport> {
    let bar = requests_bar("measuring device bandwidths");
    let report = tierlab_plan_study::plan(workload, classes, catalog, options, cache, &mut |m| bar.set_message(m.to_string()));
    bar.finish_and_clear();
    report
}

fn simulate<I, E>(
    report: &PlanReport,
    catalog: &tierlab_mixplan::catalog::PlanCatalog,
    classes: &Classes,
    labelled: &tierlab_classes::Labelled,
    open: &dyn Fn() -> Result<I>,
    protocol: &Protocol,
) -> Result<Vec<tierlab_plan_study::check::Checked>>
where
    I: Iterator<Item = Result<tierlab_types::IoRequest, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    let bar = requests_bar("simulating");
    let checked = tierlab_plan_study::check::check(report, catalog, classes, labelled, open, Some(protocol), &mut |design, n| {
        bar.set_message(design.to_string());
        bar.set_position(n);
    });
    bar.finish_and_clear();
    checked
}

fn ids(c: &tierlab_mixplan::catalog::PlanCatalog) -> String {
    c.devices.iter().map(|d| d.id.as_str()).collect::<Vec<_>>().join(", ")
}

fn usd(v: f64) -> String {
    format!("${v:.2}")
}

/// The text report.
pub fn render_text(r: &PlanReport, catalog: &tierlab_mixplan::catalog::PlanCatalog) -> String {
    render_doc(r, catalog).text()
}

/// The report's lines and tables, for the terminal and the HTML page.
fn render_doc(r: &PlanReport, catalog: &tierlab_mixplan::catalog::PlanCatalog) -> Doc {
    let o = &r.options;
    let s = &r.study;
    let mut t = Doc::default();
    t.field("plan", format_args!("{} with catalog {} (solver: {})", r.workload, r.catalog, o.solver.name()));
    let cost = &o.cost;
    t.field(
        "cost",
        format_args!(
        "purchase{}",
        if cost.recurring {
            format!(" + {} years of power at ${}/kWh{}", num(cost.horizon_years), num(cost.usd_per_kwh), match cost.cooling_factor {
                1.0 => ", no cooling".to_string(),
                2.0 => ", cooling equal to the electricity".to_string(),
                f => format!(", cooling {} x the electricity", num(f - 1.0)),
            })
        } else {
            " only".into()
        }
    ),
    );
    t.field(
        "constraints",
        format_args!(
        "capacity, bandwidth ({}), SSD lifetime >= {} years ({} write rate){}{}",
        format!("{:?}", o.bandwidth_form).to_lowercase(),
        num(o.lifetime_years.unwrap_or(cost.horizon_years)),
        format!("{:?}", o.wear_rate).to_lowercase(),
        o.max_devices.map_or(String::new(), |m| format!(", at most {m} devices")),
        if o.rate_scale != 1.0 { format!("; bandwidth needs x{}", num(o.rate_scale)) } else { String::new() },
    ),
    );
    if o.probe.ssd_internals {
        t.field("bandwidth", "SSDs timed from a data sheet measured on their internals model instead, filled and aged");
    }
    let footprint: f64 = r.classes.iter().map(|c| c.size_gb).sum();
    t.field("workload", format_args!("{} requests over {:.0} s; {} non-empty classes, {:.1} GB", r.requests, r.span_s, r.classes.len(), footprint));
    t.push_str("\n");
    if let Some(syn) = &r.synthesis {
        let _ = writeln!(t, "synthesised from statistics file {} (seed {}, rate x{}): target against achieved", syn.stats, syn.seed, num(syn.rate_scale));
        let mut st = Table::new(["statistic", "target", "achieved", "difference"]);
        for row in &syn.rows {
            st.row([format!("{} ({})", row.label, row.unit), format!("{:.4}", row.target), format!("{:.4}", row.achieved), format!("{:+.2} %", row.deviation_percent())]);
        }
        t.table(st);
        for f in &syn.shortfalls {
            let _ = writeln!(t, "cannot meet {}: {}", f.key, f.message);
        }
        t.push_str("\n");
    }
    let b = &s.best;
    t.field("best", format_args!("{}: {} = {} purchase + {} electricity + {} cooling", b.summary(), usd(b.total_usd), usd(b.cost.install_usd), usd(b.cost.electricity_usd), usd(b.cost.cooling_usd)));
    t.push_str("\n");
    let mut tt = Table::new(["device", "count", "placed GB", "need: capacity", "bandwidth", "lifetime", "binds", "SSD years", "cost"]);
    for u in b.types.iter().filter(|u| u.count > 0) {
        tt.row([
            u.device.clone(),
            u.count.to_string(),
            format!("{:.1}", u.placed_gb.iter().sum::<f64>()),
            format!("{:.2}", u.need_capacity),
            format!("{:.2}", u.need_bandwidth),
            format!("{:.2}", u.need_lifetime),
            u.binding.map_or("-".into(), |b| format!("{b:?}").to_lowercase()),
            u.lifetime_years.map_or("-".into(), |y| format!("{y:.1}")),
            usd(u.cost.total_usd()),
        ]);
    }
    t.table(tt);
    t.push_str("\nplacement, GB per class (F_j: 95th-percentile KB/s; B: what one device gives the class, KB/s)\n");
    let used: Vec<usize> = b.types.iter().enumerate().filter(|(_, u)| u.count > 0).map(|(i, _)| i).collect();
    let mut header = vec!["class".to_string(), "size GB".into(), "F_j".into()];
    for &i in &used {
        header.push(b.types[i].device.clone());
        header.push(format!("B {}", b.types[i].device));
    }
    let mut pt = Table::new(header);
    for (j, c) in r.classes.iter().enumerate() {
        let mut row = vec![c.label.clone(), format!("{:.2}", c.size_gb), format!("{:.1}", c.bandwidth_kb_s)];
        for &i in &used {
            row.push(format!("{:.2}", b.types[i].placed_gb[j]));
            row.push(if c.bandwidth_kb_s > 0.0 { format!("{:.0}", r.bandwidth_kb_s[i][j]) } else { "-".into() });
        }
        pt.row(row);
    }
    t.table(pt);
    if !s.runner_ups.is_empty() {
        t.push_str("\nrunner-ups (the cheapest plan of each other set of device types)\n");
        let mut rt = Table::new(["plan", "total", "purchase", "recurring", "vs best"]);
        for p in &s.runner_ups {
            rt.row([p.summary(), usd(p.total_usd), usd(p.cost.install_usd), usd(p.cost.recurring_usd()), format!("+{:.1} %", (p.total_usd / b.total_usd - 1.0) * 100.0)]);
        }
        t.table(rt);
    }
    t.push_str("\none device type alone (saving: what the best plan saves against it)\n");
    let mut st = Table::new(["only", "plan", "total", "purchase", "recurring", "binds", "saving"]);
    for one in &s.single_type {
        match &one.plan {
            Some(p) => {
                let binds = p.types.iter().find(|u| u.count > 0).and_then(|u| u.binding).map_or("-".into(), |b| format!("{b:?}").to_lowercase());
                st.row([one.device.clone(), p.summary(), usd(p.total_usd), usd(p.cost.install_usd), usd(p.cost.recurring_usd()), binds, one.saving_percent.map_or("-".into(), |v| format!("{v:.1} %"))]);
            }
            None => {
                st.row([one.device.clone(), one.infeasible.clone().unwrap_or_default(), "-".into(), "-".into(), "-".into(), "-".into(), "-".into()]);
            }
        }
    }
    t.table(st);
    if !r.simulated.is_empty() {
        render_simulated(&mut t, &r.simulated);
    }
    let estimated: Vec<String> = catalog.devices.iter().filter(|d| !d.estimates.is_empty()).map(|d| format!("{} ({})", d.id, d.estimates.join(", "))).collect();
    if !estimated.is_empty() {
        t.push_str("\n");
        t.field("estimates", estimated.join("; "));
    }
    t
}

/// The designs replayed, and where the planner's assumptions and the simulation differ.
fn render_simulated(t: &mut Doc, checked: &[tierlab_plan_study::check::Checked]) {
    use tierlab_plan_study::check::difference_percent;
    let pct = |p: f64, s: f64| difference_percent(p, s).map_or("-".into(), |d| format!("{d:+.0} %"));
    t.push_str("\nsimulated: each design replayed on tierlab's device models\n");
    let mut dt = Table::new(["design", "devices", "mean ms", "p95 ms", "p99 ms", "mean W", "energy kJ", "SSD erases", "measured"]);
    for c in checked {
        if let Some(r) = &c.report {
            let rt = &r.system.response_time;
            let erases: u64 = r.groups.iter().filter_map(|g| g.ssd.as_ref()).map(|s| s.block_erases).sum();
            let (mean, power) = match &c.measured {
                Some(m) => (with_interval(m.summary.mean_ms.mean, m.summary.mean_ms.half_width, 3), with_interval(m.summary.power_w.mean, m.summary.power_w.half_width, 1)),
                None => (format!("{:.3}", rt.mean_ms), format!("{:.1}", r.system.mean_power_w)),
            };
            let mark = if c.measured.as_ref().is_some_and(|m| !m.sustained()) { "!" } else { "" };
            dt.row([format!("{}{mark}", c.design), c.devices.clone(), mean, format!("{:.3}", rt.p95_ms), format!("{:.3}", rt.p99_ms), power, format!("{:.1}", r.system.energy_j / 1e3), erases.to_string(), c.measured.as_ref().map_or("one replay".into(), measured_note)]);
        }
    }
    t.table(dt);
    for c in checked {
        if let Some(m) = c.measured.as_ref().filter(|m| !m.sustained()) {
            let _ = writeln!(t, "{}! {}", c.design, tierlab_measure::cannot_sustain(m.offered_iops, m.iops.mean));
        }
    }
    for c in checked.iter().filter(|c| c.report.is_none()) {
        let _ = writeln!(t, "not simulated: {} ({}): {}", c.design, c.devices, c.skipped.clone().unwrap_or_default());
    }
    t.push_str("\nplanner against simulation, per device type (load: planned bandwidth share at F_j against the simulated busy fraction)\n");
    let mut pt = Table::new(["design", "device", "W planned", "W simulated", "diff", "load planned", "busy simulated", "SSD years planned", "SSD years simulated", "diff"]);
    for c in checked.iter().filter(|c| c.report.is_some()) {
        for ty in &c.types {
            let years = |y: Option<f64>| y.map_or("-".into(), |y| if y > 1e4 { ">10000".into() } else { format!("{y:.1}") });
            pt.row([
                c.design.clone(),
                format!("{} x {}", ty.count, ty.device),
                format!("{:.1}", ty.planned_power_w),
                format!("{:.1}", ty.simulated_power_w),
                pct(ty.planned_power_w, ty.simulated_power_w),
                format!("{:.3}", ty.planned_load),
                format!("{:.3}", ty.simulated_busy),
                years(ty.planned_lifetime_years),
                years(ty.simulated_lifetime_years),
                match (ty.planned_lifetime_years, ty.simulated_lifetime_years) {
                    (Some(p), Some(s)) => pct(p, s),
                    _ => "-".into(),
                },
            ]);
        }
    }
    t.table(pt);
}

/// How a design's replay was measured: its warm-up and window, or why it was cut short.
fn measured_note(m: &tierlab_plan_study::check::Measured) -> String {
    let s = &m.summary;
    let warm = if s.settled { format!("warm-up {} s", grouped(s.warmup_s, 1)) } else { "never settled".to_string() };
    format!("{warm}, window {} s", grouped(s.window_s, 1))
}

const STYLE: Style = Style { height: 420, legend_width: 200, zero_based: true };

/// The HTML report: costs of the best, runner-up and single-type plans, and the placement.
pub fn render_html(r: &PlanReport, catalog: &tierlab_mixplan::catalog::PlanCatalog) -> Result<String> {
    let mut s = page_head(
        &format!("Plan for {}", r.workload),
        "table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}td:first-child{text-align:left}th{background:#f2f2f2}\n\
         h3{font-size:15px;margin:1.4em 0 .5em}.warn{color:#a00;font-weight:600;border-left:4px solid #a00;padding-left:.6em}",
    );
    let b = &r.study.best;
    let _ = writeln!(s, "<p>Catalog <code>{}</code> ({}). Best plan: <b>{}</b>, {} over {} years.</p>", esc(&r.catalog), esc(&catalog.description), esc(&b.summary()), usd(b.total_usd), num(r.options.cost.horizon_years));
    if let Some(warning) = overload_warning(&r.simulated) {
        let _ = writeln!(s, "<p class=\"warn\">{}</p>", esc(&warning));
    }
    let mut plans: Vec<(String, &Plan)> = vec![(format!("best: {}", b.summary()), b)];
    plans.extend(r.study.runner_ups.iter().map(|p| (p.summary(), p)));
    // The single-type plans not already among them.
    for p in r.study.single_type.iter().filter_map(|o| o.plan.as_ref()) {
        if !plans.iter().any(|(_, q)| q.counts() == p.counts()) {
            plans.push((p.summary(), p));
        }
    }
    let categories: Vec<String> = plans.iter().map(|(l, _)| l.clone()).collect();
    type Part = (&'static str, fn(&Plan) -> f64);
    let parts: [Part; 4] = [
        ("total", |p| p.total_usd),
        ("purchase", |p| p.cost.install_usd),
        ("electricity", |p| p.cost.electricity_usd),
        ("cooling", |p| p.cost.cooling_usd),
    ];
    let series: Vec<Series> = parts
        .iter()
        .enumerate()
        .map(|(k, (label, f))| Series { label: label.to_string(), colour: PALETTE[k], dashed: false, marker: Marker::ALL[k], points: plans.iter().enumerate().map(|(i, (_, p))| (i as f64, f(p).max(0.01), true)).collect() })
        .collect();
    let chart = Chart::new("plan", "cost over the horizon ($, log scale)", XAxis::Categories(&categories), &series);
    figure(&mut s, "Cost of the best plan, the runner-ups and each device type alone", &plot_log(&chart, STYLE)?);
    let labels: Vec<String> = r.classes.iter().map(|c| c.label.clone()).collect();
    let series: Vec<Series> = b
        .types
        .iter()
        .enumerate()
        .filter(|(_, u)| u.count > 0)
        .map(|(k, u)| Series {
            label: u.device.clone(),
            colour: PALETTE[k % PALETTE.len()],
            dashed: false,
            marker: Marker::ALL[k % Marker::ALL.len()],
            points: u.placed_gb.iter().enumerate().map(|(j, gb)| (j as f64, *gb, true)).collect(),
        })
        .collect();
    let chart = Chart::new("data class (H/C hot or cold, R/W, size bin, intensity bin)", "GB placed on the type", XAxis::Categories(&labels), &series).unit("GB");
    figure(&mut s, "Where the best plan puts each data class (cf. the research's Figure 4.6)", &plot_linear(&chart, STYLE)?);
    let simulated: Vec<Bar> = r
        .simulated
        .iter()
        .filter_map(|c| {
            let report = c.report.as_ref()?;
            Some(Bar {
                label: format!("{}: {}", c.design, c.devices),
                value: report.system.response_time.mean_ms,
                colour: if c.design == "planned" { PALETTE[0] } else { PALETTE[8] },
                note: flag(c, &r.simulated).map(|why| format!("({why})")),
            })
        })
        .collect();
    if !simulated.is_empty() {
        let legend = [(PALETTE[0], "the plan".to_string()), (PALETTE[8], "one type alone".to_string())];
        figure(&mut s, "Mean response time of each design replayed on tierlab's device models (hatched: does not serve the workload)", &bars(&simulated, "mean response time, ms", &legend)?);
    }
    s.push_str("<h2>Report</h2>\n");
    s.push_str(&render_doc(r, catalog).html());
    column_notes(&mut s, PLAN_COLUMNS);
    s.push_str("</body></html>\n");
    Ok(s)
}

/// A simulated device this busy cannot keep up: its queue grows for the whole run.
const OVERLOADED_BUSY: f64 = 0.95;
/// A design whose simulated mean response time is this many times the fastest simulated
/// design's (and above [`SLOW_MS`]) is flagged as too slow for the workload.
const SLOW_FACTOR: f64 = 10.0;
const SLOW_MS: f64 = 50.0;

/// A design's busiest device type in simulation: (device, busy fraction).
fn busiest(c: &tierlab_plan_study::check::Checked) -> Option<(&str, f64)> {
    c.types.iter().filter(|t| t.simulated_busy.is_finite()).max_by(|a, b| a.simulated_busy.total_cmp(&b.simulated_busy)).map(|t| (t.device.as_str(), t.simulated_busy))
}

/// The fastest simulated design: (design, mean ms).
fn fastest(checked: &[tierlab_plan_study::check::Checked]) -> Option<(&str, f64)> {
    checked.iter().filter_map(|c| Some((c.design.as_str(), c.report.as_ref()?.system.response_time.mean_ms))).filter(|(_, m)| m.is_finite()).min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Why a simulated design does not serve the workload, if it does not: a device type
/// (nearly) always busy, or a mean response time far above the fastest design's.
fn flag(c: &tierlab_plan_study::check::Checked, checked: &[tierlab_plan_study::check::Checked]) -> Option<String> {
    let mean = c.report.as_ref()?.system.response_time.mean_ms;
    if let Some(m) = c.measured.as_ref().filter(|m| !m.sustained()) {
        return Some(tierlab_measure::cannot_sustain(m.offered_iops, m.iops.mean));
    }
    if let Some((device, busy)) = busiest(c).filter(|(_, b)| *b >= OVERLOADED_BUSY) {
        return Some(format!("overloaded: {device} {:.1} % busy", busy * 100.0));
    }
    let (best, best_ms) = fastest(checked)?;
    (mean >= SLOW_MS && mean >= SLOW_FACTOR * best_ms).then(|| format!("{} times the mean of {best}", grouped(mean / best_ms, 0)))
}

/// What to say when the planned design, replayed, does not serve the workload.
fn overload_warning(checked: &[tierlab_plan_study::check::Checked]) -> Option<String> {
    let c = checked.iter().find(|c| c.design == "planned")?;
    let rt = &c.report.as_ref()?.system.response_time;
    let why = flag(c, checked)?;
    Some(format!(
        "Replayed on tierlab's device models, the best plan does not serve this workload: mean response time {} ms, p99 {} ms ({why}). \
         The planner's constraints (capacity, bandwidth at the classes' 95th-percentile rates, lifetime) passed it; see the simulation below.",
        grouped(rt.mean_ms, 1),
        grouped(rt.p99_ms, 1)
    ))
}

/// What the columns of the report's tables measure.
const PLAN_COLUMNS: &[(&str, &str)] = &[
    ("need: capacity, bandwidth, lifetime", "devices of the type each constraint alone needs for what the plan places on it"),
    ("binds", "the constraint that sets the device count"),
    ("SSD years", "the SSDs' lifetime at the planned write rate"),
    ("cost", "purchase plus power (and cooling) over the horizon, USD"),
    ("size GB, F_j", "a data class's size and its 95th-percentile bandwidth, KB/s"),
    ("B device", "the bandwidth one device of the type gives the class, KB/s"),
    ("total, purchase, recurring", "the plan's cost over the horizon and its parts, USD"),
    ("vs best, saving", "how much dearer than the best plan, and what the best plan saves against it"),
    ("mean ms, p95 ms, p99 ms", "simulated response time, arrival to completion, over the measured window; ± is the 95 % interval of the mean"),
    ("mean W, energy kJ", "simulated mean power (± its 95 % interval) and energy over the measured window"),
    ("measured", "the warm-up before the window and the window's length, in simulated time (the trace played pass after pass)"),
    ("SSD erases", "blocks the simulated SSDs erased"),
    ("load planned, busy simulated", "the planner's bandwidth share per device, against the share of time the simulated devices were busy"),
];
