//! `tierlab compare`: one workload on a matrix of drive designs, in the four currencies —
//! performance, energy, endurance and dollars.

use crate::cmd_simulate::{simulate, SimulateArgs, Usage};
use crate::hybrid::HybridMode;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tierlab_cost::{cost_curve, CostBreakdown, CostDevice, CostInputs, Wear};
use tierlab_report::Table;
use tierlab_sim::SimReport;
use tierlab_types::MIB;

#[derive(Args)]
pub struct CompareArgs {
    /// The workload, device and replay options of `tierlab simulate` (its --hybrid knobs
    /// are the defaults the sweeps below vary).
    #[command(flatten)]
    pub base: SimulateArgs,
    /// SSD shares of the capacity to try for tiering and caching.
    #[arg(long, value_delimiter = ',', default_values_t = [0.25, 0.125])]
    pub fractions: Vec<f64>,
    /// Promotion / pre-fetch thresholds to try.
    #[arg(long, value_delimiter = ',', default_values_t = [2, 8])]
    pub pts: Vec<u32>,
    /// Extent sizes (bytes) to try.
    #[arg(long, value_delimiter = ',', default_values_t = [MIB, 256 * 1024])]
    pub extents: Vec<u64>,
    /// Concurrent-migration limits to try.
    #[arg(long, value_delimiter = ',', default_values_t = [4])]
    pub mcmls: Vec<u32>,
    /// Device prices and rated limits (catalog/cost).
    #[arg(long, default_value = "greendm-2012")]
    pub prices: String,
    /// Electricity tariff (catalog/cost).
    #[arg(long, default_value = "lipa-285-recent")]
    pub tariff: String,
    /// SSD wear counts reads times this ratio as well as writes (the research reports 1/10 and 1/100).
    #[arg(long, default_value_t = 0.1)]
    pub read_effect: f64,
    /// Also write the table as CSV here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write a self-contained HTML report with charts here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// One configuration's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub config: String,
    pub mode: String,
    pub ssd_fraction: Option<f64>,
    pub extent_bytes: Option<u64>,
    pub pt: Option<u32>,
    pub mcml: Option<u32>,
    pub throughput_iops: f64,
    pub mean_ms: f64,
    pub p99_ms: f64,
    pub energy_j: f64,
    pub average_power_w: f64,
    pub hdd_spun_down_fraction: f64,
    pub ssd_hit_ratio: Option<f64>,
    pub promotions: u64,
    pub demotions: u64,
    pub prefetches: u64,
    pub evictions: u64,
    pub write_backs: u64,
    pub ssd_write_bytes: u64,
    pub ssd_read_bytes: u64,
    pub hdd_start_stop_cycles: u64,
    /// Share of the SSD's rated life used, parts per million, with reads × 1/10 and × 1/100.
    pub ssd_eu_read_tenth: f64,
    pub ssd_eu_read_hundredth: f64,
    pub hdd_eu: f64,
    pub cost: Vec<CostBreakdown>,
}

/// The matrix: the baselines, then tiering and caching over every sweep value.
fn configs(a: &CompareArgs) -> Vec<(String, SimulateArgs)> {
    let mut out = Vec::new();
    let with = |mode: HybridMode, f: f64, es: u64, pt: u32, mcml: u32| {
        let mut s = a.base.clone();
        s.hybrid.hybrid = Some(mode);
        s.hybrid.ssd_fraction = f;
        s.hybrid.es = es;
        s.hybrid.pt = pt;
        s.hybrid.mcml = mcml;
        s
    };
    let h = &a.base.hybrid;
    out.push(("ssd-only".to_string(), with(HybridMode::SsdOnly, h.ssd_fraction, h.es, h.pt, h.mcml)));
    out.push(("hdd-only".to_string(), with(HybridMode::HddOnly, h.ssd_fraction, h.es, h.pt, h.mcml)));
    for &f in &a.fractions {
        out.push((format!("linear ssd={}", frac(f)), with(HybridMode::Linear, f, h.es, h.pt, h.mcml)));
    }
    for mode in [HybridMode::Tiering, HybridMode::Caching] {
        for &f in &a.fractions {
            for &pt in &a.pts {
                for &es in &a.extents {
                    for &mcml in &a.mcmls {
                        let name = if mode == HybridMode::Tiering { "tiering" } else { "caching" };
                        let label = format!("{name} ssd={} pt={pt} es={} mcml={mcml}", frac(f), size(es));
                        out.push((label, with(mode, f, es, pt, mcml)));
                    }
                }
            }
        }
    }
    out
}

fn frac(f: f64) -> String {
    if f > 0.0 && (1.0 / f).fract().abs() < 1e-9 {
        format!("1/{}", (1.0 / f).round())
    } else {
        format!("{f}")
    }
}

fn size(b: u64) -> String {
    if b.is_multiple_of(MIB) {
        format!("{}M", b / MIB)
    } else {
        format!("{}K", b / 1024)
    }
}

fn row(label: String, s: &SimulateArgs, r: &SimReport, usage: Usage, a: &CompareArgs) -> Result<Row> {
    let prices = tierlab_cost::builtin_prices(&a.prices)?;
    let tariff = tierlab_cost::builtin_tariff(&a.tariff)?;
    let mode = s.hybrid.hybrid.unwrap_or(HybridMode::HddOnly);
    let is_ssd = |d: &&tierlab_sim::DeviceRun| d.device.kind == "ssd";
    let ssd = r.devices.iter().find(is_ssd);
    let hdd = r.devices.iter().find(|d| d.device.kind == "hdd");
    let (ssd_write_bytes, ssd_read_bytes) = ssd.map_or((0, 0), |d| (d.write_bytes, d.read_bytes));
    let cycles = hdd.and_then(|d| d.device.counters.get("start_stop_cycles")).copied().unwrap_or(0.0) as u64;
    let span_ns = (r.span_s * 1e9).max(1.0);
    let spun_down = hdd.map_or(0.0, |d| {
        d.device.states.iter().filter(|st| st.standby).map(|st| st.time_ns).sum::<u64>() as f64 / span_ns
    });
    let mut devices = Vec::new();
    let mut ssd_eu = (0.0, 0.0);
    let mut hdd_eu = 0.0;
    if let Some(d) = ssd {
        let rated = prices.rated_limit(&d.device.name)?;
        let eu = |ratio: f64| (ssd_write_bytes as f64 + ssd_read_bytes as f64 * ratio) / rated as f64 * 1e6;
        ssd_eu = (eu(0.1), eu(0.01));
        devices.push(CostDevice {
            cost: prices.device_cost(&d.device.name, usage.ssd_bytes)?,
            wear: Wear::SsdBytes { write_bytes: ssd_write_bytes, read_bytes: ssd_read_bytes, read_effect_ratio: a.read_effect, rated_write_bytes: rated },
        });
    }
    if let Some(d) = hdd {
        let rated = prices.rated_limit(&d.device.name)?;
        hdd_eu = cycles as f64 / rated as f64 * 1e6;
        devices.push(CostDevice {
            cost: prices.device_cost(&d.device.name, usage.hdd_bytes)?,
            wear: Wear::HddCycles { start_stop_cycles: cycles, rated_cycles: rated },
        });
    }
    let inputs = CostInputs { devices, energy_j: r.energy_j, peak_power_w: None, duration_s: r.span_s, service_usd: prices.service_usd()? };
    let cost = cost_curve(&inputs, &tariff).with_context(|| format!("pricing `{label}`"))?;
    let stats = &r.controller["stats"];
    let count = |k: &str| stats[k].as_u64().unwrap_or(0);
    let hybrid = matches!(mode, HybridMode::Tiering | HybridMode::Caching | HybridMode::Linear);
    Ok(Row {
        config: label,
        mode: format!("{mode:?}").to_lowercase(),
        ssd_fraction: hybrid.then_some(s.hybrid.ssd_fraction),
        extent_bytes: hybrid.then_some(s.hybrid.es),
        pt: matches!(mode, HybridMode::Tiering | HybridMode::Caching).then_some(s.hybrid.pt),
        mcml: matches!(mode, HybridMode::Tiering | HybridMode::Caching).then_some(s.hybrid.mcml),
        throughput_iops: r.throughput_iops,
        mean_ms: r.response_time.mean_ms,
        p99_ms: r.response_time.p99_ms,
        energy_j: r.energy_j,
        average_power_w: r.average_power_w,
        hdd_spun_down_fraction: spun_down,
        ssd_hit_ratio: r.controller["ssd_hit_ratio"].as_f64().or(match mode {
            HybridMode::SsdOnly => Some(1.0),
            HybridMode::HddOnly => Some(0.0),
            _ => None,
        }),
        promotions: count("promotions"),
        demotions: count("demotions"),
        prefetches: count("prefetches"),
        evictions: count("evictions"),
        write_backs: count("write_backs"),
        ssd_write_bytes,
        ssd_read_bytes,
        hdd_start_stop_cycles: cycles,
        ssd_eu_read_tenth: ssd_eu.0,
        ssd_eu_read_hundredth: ssd_eu.1,
        hdd_eu,
        cost,
    })
}

/// Run every configuration; rows in matrix order.
pub fn compare(a: &CompareArgs) -> Result<Vec<Row>> {
    if !(a.read_effect.is_finite() && a.read_effect >= 0.0) {
        return Err(anyhow!("--read-effect: expected a non-negative ratio, found {}", a.read_effect));
    }
    let mut rows = Vec::new();
    for (label, s) in configs(a) {
        let (report, usage) = simulate(&s).with_context(|| format!("configuration `{label}`"))?;
        rows.push(row(label, &s, &report, usage, a)?);
    }
    Ok(rows)
}

fn cost_at(r: &Row, alpha: f64) -> f64 {
    r.cost.iter().find(|c| c.alpha == alpha).map_or(f64::NAN, |c| c.total_usd)
}

pub fn render_text(rows: &[Row]) -> String {
    let mut t = Table::new([
        "config", "IOPS", "mean ms", "p99 ms", "energy J", "avg W", "spun down %", "SSD hit %", "moves", "SSD eu", "HDD eu",
        "$ α=1", "$ α=1e3", "$ α=1e5",
    ]);
    for r in rows {
        let moves = if r.prefetches + r.evictions + r.write_backs > 0 {
            format!("{}p/{}e/{}w", r.prefetches, r.evictions, r.write_backs)
        } else {
            format!("{}↑/{}↓", r.promotions, r.demotions)
        };
        t.row([
            r.config.clone(),
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
            format!("{:.2}", cost_at(r, 1.0)),
            format!("{:.2}", cost_at(r, 1e3)),
            format!("{:.2}", cost_at(r, 1e5)),
        ]);
    }
    t.render()
}

pub fn render_csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "config,mode,ssd_fraction,extent_bytes,pt,mcml,throughput_iops,mean_ms,p99_ms,energy_j,average_power_w,hdd_spun_down_fraction,ssd_hit_ratio,promotions,demotions,prefetches,evictions,write_backs,ssd_write_bytes,ssd_read_bytes,hdd_start_stop_cycles,ssd_eu_read_tenth,ssd_eu_read_hundredth,hdd_eu",
    );
    for a in tierlab_cost::ALPHAS {
        s.push_str(&format!(",cost_usd_alpha_{a}"));
    }
    s.push('\n');
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in rows {
        s.push_str(&format!(
            "\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.config,
            r.mode,
            opt(r.ssd_fraction.map(|v| v.to_string())),
            opt(r.extent_bytes.map(|v| v.to_string())),
            opt(r.pt.map(|v| v.to_string())),
            opt(r.mcml.map(|v| v.to_string())),
            r.throughput_iops,
            r.mean_ms,
            r.p99_ms,
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
        for c in &r.cost {
            s.push_str(&format!(",{}", c.total_usd));
        }
        s.push('\n');
    }
    s
}

pub fn run(a: CompareArgs) -> Result<()> {
    let rows = compare(&a)?;
    if let Some(path) = &a.csv {
        std::fs::write(path, render_csv(&rows)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &a.html {
        std::fs::write(path, crate::html::render(&rows)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if a.base.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render_text(&rows))?;
    }
    Ok(())
}
