//! The system studies' reports as text and CSV: the catalog's controllers and enclosures,
//! the Figure 4.4 summary and a pair's curve, a resolved system description, and what a
//! whole system drew in a run. Byte-stable (golden-file tested).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use tierlab_report::{csv_field, Table};
use tierlab_system_power::study::{enclosure_figures, ControllerFigures, PairSummary};
use tierlab_system_power::{EnclosureEntry, LowPower, SystemEnergy};
use tierlab_system_study::{Curve, SavingsReport, ShowReport, TARGET};

/// A share as a percentage, without a "-0.0".
pub fn percent(share: f64) -> f64 {
    let p = share * 100.0;
    if p.abs() < 0.005 {
        0.0
    } else {
        p
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$}")).unwrap_or_else(|| "-".into())
}

/// What a whole system drew over a run, in two lines.
pub fn render_system_energy(e: &SystemEnergy) -> String {
    let share = |w: f64| if e.total_w > 0.0 { w / e.total_w * 100.0 } else { 0.0 };
    format!(
        "system      {}\n  power     controller {:.1} W (load {:.2}), enclosures {:.1} W, disks {:.1} W: {:.1} W, the disks {:.1} %; {:.1} kWh\n",
        e.system,
        e.controller_w,
        e.controller_load,
        e.enclosures_w,
        e.disks_w,
        e.total_w,
        share(e.disks_w),
        e.total_j / 3.6e6
    )
}

/// The controllers table and its source.
pub fn render_controllers(figures: &[ControllerFigures]) -> String {
    let workloads: BTreeSet<&str> = figures.iter().flat_map(|f| f.loaded.iter().map(|(w, _, _)| w.as_str())).collect();
    let mut header = vec!["controller".to_string(), "ship year".into(), "idle W".into(), "max TB".into(), "idle W/TB".into()];
    header.extend(workloads.iter().map(|w| format!("{w} W (rise)")));
    header.push("deep C idle W".into());
    let mut t = Table::new(header);
    for f in figures {
        let mut row = vec![
            f.id.clone(),
            f.ship_year.map(|y| y.to_string()).unwrap_or_else(|| "-".into()),
            format!("{:.1}", f.idle_w),
            opt(f.max_capacity_tb, 0),
            opt(f.idle_w_per_tb, 3),
        ];
        for w in &workloads {
            row.push(match f.loaded.iter().find(|(name, _, _)| name == w) {
                Some((_, rise, loaded)) => format!("{loaded:.1} (+{:.0} %)", percent(*rise)),
                None => "-".into(),
            });
        }
        row.push(opt(f.deep_c_idle_w, 1));
        t.row(row);
    }
    let mut s = t.render();
    s.push_str(
        "\nSource: GreenDM dissertation, chapter 4: Table 4.4 (idle power), Table 4.5 (rise from idle to loaded under \
         WL-A (NFS), WL-B (OST), WL-C (BOOST)), section 4.3.1 (maximum usable capacities; DD990 in C6, the only one \
         with a deep C-state).\n",
    );
    s
}

const DERIVED: &str = "*";
const ESTIMATE: &str = "†";

/// A value followed by its marker: `*` if the entry derived it, `†` if it estimated it,
/// a space otherwise (so that marked and unmarked numbers line up).
fn marked(value: String, e: &EnclosureEntry, key: &str, used: &mut BTreeSet<&'static str>) -> String {
    let mark = if e.derived.iter().any(|k| k == key) {
        DERIVED
    } else if e.estimates.iter().any(|k| k == key) {
        ESTIMATE
    } else {
        " "
    };
    if mark != " " {
        used.insert(mark);
    }
    format!("{value}{mark}")
}

fn range_check(in_range: Option<bool>, range: Option<[f64; 2]>) -> String {
    match (in_range, range) {
        (Some(ok), Some([lo, hi])) => format!("{} {lo}-{hi}", if ok { "in" } else { "OUTSIDE" }),
        _ => "-".into(),
    }
}

/// The enclosures' measured states, the model's split, and the legend.
pub fn render_enclosures(entries: &[&EnclosureEntry]) -> String {
    let mut used = BTreeSet::new();
    let mut t = Table::new([
        "enclosure", "ship year", "slots", "idle W", "spun down W", "saving %", "powered down W", "saving %", "max W", "rise %",
    ]);
    for e in entries {
        let f = enclosure_figures(e);
        t.row([
            f.id.clone(),
            e.ship_year.map(|y| y.to_string()).unwrap_or_else(|| "-".into()),
            f.slots.to_string(),
            marked(format!("{:.1}", f.idle_w), e, "idle_w", &mut used),
            marked(format!("{:.1}", f.spun_down_w), e, "spun_down_w", &mut used),
            marked(format!("{:.1}", percent(f.spun_down_saving)), e, "spun_down_w", &mut used),
            marked(opt(f.powered_down_w, 1), e, "powered_down_w", &mut used),
            marked(opt(f.powered_down_saving.map(percent), 1), e, "powered_down_w", &mut used),
            marked(opt(f.max_w, 1), e, "max_w", &mut used),
            marked(opt(f.max_rise.map(percent), 1), e, "max_w", &mut used),
        ]);
    }
    let mut s = String::from("measured, with the disks inside (saving and rise against idle)\n\n");
    s.push_str(&t.render());

    let mut t = Table::new([
        "enclosure", "base W", "per-slot W", "disk standby W", "disk idle W", "vendor idle W", "disk active W", "vendor active W", "slot power-on s",
    ]);
    for e in entries {
        let f = enclosure_figures(e);
        let m = &f.model;
        t.row([
            f.id.clone(),
            marked(format!("{:.2}", m.base_w), e, "powered_down_w", &mut used),
            format!("{:.3} ", m.slot_w),
            marked(format!("{:.2}", m.measured_standby_w), e, "measured_disk.standby_w", &mut used),
            format!("{:.3} ", m.implied_idle_w),
            range_check(f.implied_idle_in_range, e.measured_disk.idle_w_range),
            m.implied_active_w.map(|w| format!("{w:.3} ")).unwrap_or_else(|| "- ".into()),
            range_check(f.implied_active_in_range, e.measured_disk.active_w_range),
            marked(opt(e.slot_power_on_s, 1), e, "slot_power_on_s", &mut used),
        ]);
    }
    s.push_str("\nthe model: enclosure W = base + per-slot × powered slots + the disks' own W\n\n");
    s.push_str(&t.render());
    s.push_str(
        "\nbase: every slot powered down; per-slot: the spun-down figure less base and the disks' standby power, per slot;\n\
         disk idle and active: the idle and max figures less base and the slots, per disk, as the enclosure measured them,\n\
         checked against the vendor ranges the chapter quotes for the drives inside.\n",
    );
    if used.contains(DERIVED) {
        s.push_str(&format!("{DERIVED} derived from printed figures, not printed itself (the entry's `assumptions` say how)\n"));
    }
    if used.contains(ESTIMATE) {
        s.push_str(&format!("{ESTIMATE} an estimate, not a measurement (the entry's `assumptions` say why)\n"));
    }
    s.push_str(
        "Source: GreenDM dissertation, chapter 4: Table 4.2 (slots, ship year), Table 4.6 (idle and max power), section \
         4.3.2 and Figure 4.3 (spin-down and power-down), section 4.2 (the drives: 6-8 W idle, 8-12 W active, under 1 W \
         spun down).\n",
    );
    s
}

/// "13 of 32" and "40.6", or "never" and "-".
fn target_cells(managed: Option<u32>, share: Option<f64>, n: u32) -> (String, String) {
    match (managed, share) {
        (Some(k), Some(s)) => (format!("{k} of {n}"), format!("{:.1}", percent(s))),
        _ => ("never".into(), "-".into()),
    }
}

/// The columns of the Figure 4.4 summary, one row per pair and mode (text and HTML).
pub const SUMMARY_HEADER: [&str; 7] = ["controller", "enclosure", "low power", "unmanaged W", "managed for 20 %", "disks %", "all managed saving %"];

/// One pair's row of the Figure 4.4 summary (text and HTML).
pub fn summary_cells(p: &PairSummary, n: u32) -> [String; 7] {
    let (k, share) = target_cells(p.managed_for_20pct, p.disk_share_for_20pct, n);
    [p.controller.clone(), p.enclosure.clone(), p.mode.name().to_string(), format!("{:.1}", p.unmanaged_w), k, share, format!("{:.1}", percent(p.saving_all))]
}

/// Figure 4.4 in one row per pair and mode.
pub fn render_summary(r: &SavingsReport) -> String {
    let n = r.enclosures;
    let mut s = format!(
        "system      an idle controller with {n} idle enclosures full of their measured disks (GreenDM Figure 4.4)\n\
         managed     enclosures with every disk spun down (spin-down) or every slot powered down (power-down)\n\
         saving      1 − system power / the unmanaged system's; the target is {:.0} %\n",
        TARGET * 100.0
    );
    if !r.left_out.is_empty() {
        s.push_str(&format!("left out    {}\n", r.left_out.join(", ")));
    }
    s.push('\n');
    let mut t = Table::new(SUMMARY_HEADER);
    for p in &r.summary {
        t.row(summary_cells(p, n));
    }
    s.push_str(&t.render());
    s.push_str(&format!(
        "\n`tierlab system savings --controller ID --enclosure ID [--power-down]` shows a pair's curve for k = 0..{n}.\n"
    ));
    s
}

/// One pair's curve, k = 0..n.
pub fn render_curve(c: &Curve, n: u32) -> String {
    let disks = u64::from(c.slots) * u64::from(n);
    let mut s = format!(
        "system      idle {} + {n} × idle {} ({disks} disks)\nmanaged     k enclosures with every {}\nsaving      1 − system power / the unmanaged system's\n",
        c.controller,
        c.enclosure,
        if c.mode == LowPower::PowerDown { "slot powered down" } else { "disk spun down" }
    );
    match c.points.iter().find(|p| p.saving >= TARGET - 1e-12) {
        Some(p) => s.push_str(&format!(
            "20 %        reached at k = {} ({:.1} % of the disks)\n",
            p.managed,
            percent(f64::from(p.managed) / f64::from(n))
        )),
        None => s.push_str("20 %        never reached\n"),
    }
    s.push('\n');
    let mut t = Table::new(["managed enclosures", "managed disks", "system W", "saving %"]);
    for p in &c.points {
        t.row([
            p.managed.to_string(),
            (u64::from(p.managed) * u64::from(c.slots)).to_string(),
            format!("{:.1}", p.total_w),
            format!("{:.1}", percent(p.saving)),
        ]);
    }
    s.push_str(&t.render());
    s
}

/// Curves as CSV, one line per point.
pub fn render_csv(curves: &[Curve]) -> String {
    let mut s = String::from("controller,enclosure,mode,enclosures,managed,managed_disks,total_w,saving\n");
    for c in curves {
        let n = c.points.len().saturating_sub(1);
        for p in &c.points {
            let _ = writeln!(
                s,
                "{},{},{},{n},{},{},{},{}",
                csv_field(&c.controller),
                csv_field(&c.enclosure),
                c.mode.name(),
                p.managed,
                u64::from(p.managed) * u64::from(c.slots),
                p.total_w,
                p.saving
            );
        }
    }
    s
}

/// A resolved system description read from `path`.
pub fn render_show(path: &Path, r: &ShowReport) -> String {
    let sys = &r.system;
    let c = &sys.controller;
    let mut s = format!("file        {}\nsystem      {}\n", path.display(), r.description);
    let low = match sys.power_down_extra_s() {
        Some(extra) => format!("power-down: a managed disk's slot is cut; it comes back {extra:.1} s slower than from a spin-down"),
        None => "spin-down: a managed disk stops its spindle; its slot stays powered".into(),
    };
    s.push_str(&format!("low power   {low}\n"));
    let load = match (&c.workload, c.rated_mb_s) {
        (Some(w), Some(r)) => format!("loaded {:.1} W ({w}, +{:.0} %) at {r} MB/s", c.power_w(1.0), percent(c.rise)),
        (Some(w), None) => format!("loaded {:.1} W ({w}, +{:.0} %) when it moves data as fast as all its disks stream", c.power_w(1.0), percent(c.rise)),
        (None, _) => "no load figures: its power stays at idle".into(),
    };
    s.push_str(&format!("controller  {}: idle {:.1} W, {load}\n\n", c.id, c.idle_w));
    let mut t = Table::new(["enclosure", "disks", "slots", "base W", "per-slot W", "own W"]);
    for (i, (e, &d)) in sys.enclosures.iter().zip(&sys.disks_per_enclosure).enumerate() {
        t.row([
            format!("{i}: {}", e.id),
            d.to_string(),
            e.slots.to_string(),
            format!("{:.2}", e.base_w),
            format!("{:.3}", e.slot_w),
            format!("{:.2}", r.enclosures_own_w[i]),
        ]);
    }
    s.push_str(&t.render());
    let enclosures_w: f64 = r.enclosures_own_w.iter().sum();
    s.push_str(&format!(
        "\nown W: base + per-slot × the enclosure's disks (their slots powered), the disks' own power excluded\n\
         idle, disks excluded: {:.1} W (controller {:.1} W + enclosures {:.1} W)\n",
        r.idle_w_excluding_disks, c.idle_w, enclosures_w
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_have_no_negative_zero() {
        assert_eq!(format!("{:.1}", percent(-1e-9)), "0.0");
        assert_eq!(format!("{:.1}", percent(0.406)), "40.6");
    }
}
