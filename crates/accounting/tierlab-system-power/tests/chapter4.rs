//! The GreenDM dissertation's chapter 4, recomputed from the shipped catalog: every
//! figure the chapter prints about its controllers, enclosures and systems.

use tierlab_system_power::study::{
    controller_figures, enclosure_figures, figure_4_4, managed_curve, summarise,
};
use tierlab_system_power::{builtin, LowPower};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn the_builtin_catalog_is_every_file_in_the_directory() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../..");
    let mut on_disk = Vec::new();
    for kind in ["controller", "enclosure"] {
        for f in std::fs::read_dir(format!("{root}/catalog/system/{kind}")).unwrap() {
            let name = f.unwrap().file_name().into_string().unwrap();
            on_disk.push(format!("catalog/system/{kind}/{name}"));
        }
    }
    on_disk.sort();
    let mut embedded: Vec<String> = tierlab_system_power::builtin_files()
        .map(String::from)
        .collect();
    embedded.sort();
    assert_eq!(on_disk, embedded);
    let c = builtin();
    assert_eq!(c.controllers().count(), 4);
    assert_eq!(c.enclosures().count(), 2);
}

#[test]
fn controllers_idle_power_per_terabyte_and_under_load() {
    let c = builtin();
    // Section 4.3.1: 2.89, 2.96, 1.35 and 0.675 W/TB.
    for (id, idle, per_tb) in [
        ("emc-dd880", 555.0, 2.89),
        ("emc-dd670", 225.0, 2.96),
        ("emc-dd860", 261.0, 1.35),
        ("emc-dd990", 778.0, 0.675),
    ] {
        let f = controller_figures(c.controller(id).unwrap());
        assert_eq!(f.idle_w, idle, "{id}");
        // The chapter truncates DD860's 1.359 to 1.35.
        assert!(
            close(f.idle_w_per_tb.unwrap(), per_tb, 0.01),
            "{id}: {:?}",
            f.idle_w_per_tb
        );
    }
    // "almost 3.5x more power than DD670"
    assert!(close(778.0 / 225.0, 3.5, 0.06));
    // Figure 4.2(a): DD990's peak under WL-A was 937 W, "20 % higher than idle".
    let dd990 = controller_figures(c.controller("emc-dd990").unwrap());
    let wl_a = dd990.loaded.iter().find(|(w, _, _)| w == "wl-a").unwrap();
    assert!(close(wl_a.2, 937.0, 937.0 * 0.01), "{wl_a:?}");
    // C6 saves 60 W, "a mere 8 %"; only DD990 has it.
    assert_eq!(dd990.deep_c_idle_w, Some(718.0));
    assert!(close(60.0 / 778.0, 0.08, 0.005));
    for id in ["emc-dd880", "emc-dd670", "emc-dd860"] {
        assert_eq!(
            controller_figures(c.controller(id).unwrap()).deep_c_idle_w,
            None
        );
    }
    // Table 4.5's trend: DD880 and DD860 always rise more than DD670 and DD990.
    for w in ["wl-a", "wl-b", "wl-c"] {
        let rise = |id: &str| {
            c.controller(id)
                .unwrap()
                .load_rise
                .as_ref()
                .unwrap()
                .workloads[w]
        };
        assert!(
            rise("emc-dd880").min(rise("emc-dd860")) > rise("emc-dd670").max(rise("emc-dd990")),
            "{w}"
        );
    }
}

#[test]
fn enclosure_spin_down_and_power_down_savings() {
    let c = builtin();
    // Section 4.3.2 / Figure 4.3: ES30 179 -> 80 W (-55 %), power-down -78 %;
    // ES20 278 -> 176 W (-37 %), power-down -44 % (155 W); Table 4.6 maxima +15 %, +22 %.
    for (id, spun, powered, rise) in [
        ("emc-es30", 0.55, 0.78, 0.15),
        ("emc-es20", 0.37, 0.44, 0.22),
    ] {
        let f = enclosure_figures(c.enclosure(id).unwrap());
        assert!(
            close(f.spun_down_saving, spun, 0.005),
            "{id} spin-down {}",
            f.spun_down_saving
        );
        assert!(
            close(f.powered_down_saving.unwrap(), powered, 0.005),
            "{id} power-down {:?}",
            f.powered_down_saving
        );
        assert!(
            close(f.max_rise.unwrap(), rise, 0.005),
            "{id} max {:?}",
            f.max_rise
        );
        // The model's split gives the printed states back ...
        assert!(close(f.model_idle_w, f.idle_w, 1e-9));
        assert!(close(f.model_spun_down_w, f.spun_down_w, 1e-9));
        assert!(close(
            f.model_powered_down_w,
            f.powered_down_w.unwrap(),
            1e-9
        ));
        assert!(close(f.model_max_w.unwrap(), f.max_w.unwrap(), 1e-9));
        // ... and the disk power it implies is what section 4.2 says the drives draw.
        assert_eq!(
            f.implied_idle_in_range,
            Some(true),
            "{id}: implied idle {}",
            f.model.implied_idle_w
        );
        assert_eq!(
            f.implied_active_in_range,
            Some(true),
            "{id}: implied active {:?}",
            f.model.implied_active_w
        );
        assert!(f.model.slot_w > 0.0);
    }
    let es20 = enclosure_figures(c.enclosure("emc-es20").unwrap());
    // Observation 8: with every disk powered down ES20 draws 155 W, more than the 123 W
    // powering them down saved.
    assert_eq!(es20.powered_down_w, Some(155.0));
    assert!(es20.idle_w - 155.0 < 155.0);
    // Both enclosures save "roughly 100 W" by spinning down, and power-down saves more
    // than 1 W per disk over spin-down.
    for id in ["emc-es20", "emc-es30"] {
        let f = enclosure_figures(c.enclosure(id).unwrap());
        assert!(close(f.idle_w - f.spun_down_w, 100.0, 3.0), "{id}");
        assert!(
            (f.spun_down_w - f.powered_down_w.unwrap()) / f64::from(f.slots) > 1.0,
            "{id}"
        );
    }
    // "an idle ES30 consumes 64 % of an idle ES20, ... in power-down mode only 25 %".
    let es30 = enclosure_figures(c.enclosure("emc-es30").unwrap());
    assert!(close(es30.idle_w / es20.idle_w, 0.64, 0.005));
    assert!(close(
        es30.powered_down_w.unwrap() / es20.powered_down_w.unwrap(),
        0.25,
        0.005
    ));
}

#[test]
fn figure_4_4_system_savings() {
    let c = builtin();
    // Best case, DD860 + ES30: 13 of 32 enclosures spun down for 20 %, over 40 % of the disks.
    let best = summarise(&c, "emc-dd860", "emc-es30", 32, LowPower::SpinDown).unwrap();
    assert_eq!(best.managed_for_20pct, Some(13));
    assert!(best.disk_share_for_20pct.unwrap() > 0.40);
    // Worst case, DD990 + ES20: 19 of 32, almost 60 % of the disks.
    let worst = summarise(&c, "emc-dd990", "emc-es20", 32, LowPower::SpinDown).unwrap();
    assert_eq!(worst.managed_for_20pct, Some(19));
    assert!(close(worst.disk_share_for_20pct.unwrap(), 0.6, 0.02));
    // Six pairs (DD670 left out: it attaches four shelves); two pass 50 % with every disk
    // spun down.
    let all = figure_4_4(&c, 32).unwrap();
    let spun: Vec<_> = all
        .iter()
        .filter(|p| p.mode == LowPower::SpinDown)
        .collect();
    assert_eq!(spun.len(), 6);
    assert!(spun.iter().all(|p| p.controller != "emc-dd670"));
    let passing: Vec<_> = spun
        .iter()
        .filter(|p| p.saving_all > 0.5)
        .map(|p| (p.controller.as_str(), p.enclosure.as_str()))
        .collect();
    assert_eq!(
        passing,
        [("emc-dd860", "emc-es30"), ("emc-dd880", "emc-es30")]
    );
    // Power-down does better on every pair, but still needs many disks.
    for p in all.iter().filter(|p| p.mode == LowPower::PowerDown) {
        let s = spun
            .iter()
            .find(|s| s.controller == p.controller && s.enclosure == p.enclosure)
            .unwrap();
        assert!(p.saving_all > s.saving_all, "{p:?}");
        assert!(
            p.managed_for_20pct.unwrap() <= s.managed_for_20pct.unwrap(),
            "{p:?}"
        );
        assert!(p.managed_for_20pct.unwrap() >= 8, "{p:?}");
    }
    // A curve is monotone and starts at no saving.
    let curve = managed_curve(&c, "emc-dd880", "emc-es20", 32, LowPower::PowerDown).unwrap();
    assert_eq!(curve.len(), 33);
    assert_eq!(curve[0].saving, 0.0);
    assert!(curve.windows(2).all(|w| w[1].saving > w[0].saving));
}
