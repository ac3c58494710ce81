//! Arrays inside a described system: the whole system's energy beside the disks', and
//! slot power-down as a scheme's spin-down.

use tierlab_array_policy::SchemeConfig;
use tierlab_array_sim::{common_span_bytes, compare, oltp_workload, run_array, ArrayConfig, ArrayRun, Load};
use tierlab_workload::Workload;
use tierlab_system_power::{EnclosureGroup, LowPower, SystemSpec, POWERED_DOWN};

fn system(low_power: LowPower) -> SystemSpec {
    SystemSpec {
        controller: "emc-dd880".into(),
        controller_workload: None,
        controller_rated_mb_s: None,
        low_power,
        catalog: None,
        enclosures: vec![EnclosureGroup { model: "emc-es20".into(), count: 1, disks: None }],
    }
}

fn cfg(low_power: LowPower) -> ArrayConfig {
    ArrayConfig { disks: 6, nvram_bytes: 64 << 20, system: Some(system(low_power)), ..ArrayConfig::default() }
}

fn run(cfg: &ArrayConfig, scheme: &str) -> ArrayRun {
    let s = SchemeConfig { tpm_timeout_s: Some(5.0), ..SchemeConfig::named(scheme).unwrap() };
    let w = oltp_workload(common_span_bytes(cfg, &s).unwrap(), 2.0, 1800.0, 7);
    run_array(cfg, &s, &Workload::Synthetic(w), &mut |_| {}).unwrap()
}

#[test]
fn power_down_cuts_slots_and_counts_power_cycles() {
    let spin = run(&cfg(LowPower::SpinDown), "tpm");
    let off = run(&cfg(LowPower::PowerDown), "tpm");
    let (es, eo) = (spin.system.as_ref().unwrap(), off.system.as_ref().unwrap());
    // Spin-down never cuts a slot; power-down does, and each cut is a power cycle and a
    // start/stop cycle.
    assert_eq!(es.powered_down_disk_s, 0.0);
    assert!(spin.per_disk.iter().all(|d| d.power_cycles == 0));
    assert!(eo.powered_down_disk_s > 0.0);
    let down_s: f64 = off.per_disk.iter().flat_map(|d| &d.states).filter(|s| s.state == POWERED_DOWN).map(|s| s.time_s).sum();
    assert!((down_s - eo.powered_down_disk_s).abs() < 1e-6);
    for d in &off.per_disk {
        assert!(d.power_cycles > 0, "{}", d.name);
        assert_eq!(d.power_cycles, d.start_stop_cycles, "{}", d.name);
    }
    assert!(off.power_cycles_per_disk_day > 0.0);
    // The enclosure draws less with slots off: its fixed part for the whole run, its
    // per-slot part only while a slot is on.
    let slot_w = (176.0 - 155.0) / 16.0 - 0.5;
    assert!((es.enclosures_j - (155.0 + 6.0 * slot_w) * es.span_s).abs() < 1e-6 * es.enclosures_j);
    assert!((eo.enclosures_j - (155.0 * eo.span_s + slot_w * (6.0 * eo.span_s - eo.powered_down_disk_s))).abs() < 1e-6 * eo.enclosures_j);
    assert!(eo.enclosures_w < es.enclosures_w);
    // A powered-down disk takes longer to come back than a spun-down one: every spin-up
    // is whole (the run ends with the last request), one per cycle but for the disks
    // still asleep at the end.
    let leaves = |r: &ArrayRun, name: &str, each_s: f64, cycles: u64| {
        let t = r.energy_by_state.iter().find(|s| s.state == name).map_or(0.0, |s| s.time_s);
        let n = (t / each_s).round();
        assert!((t - n * each_s).abs() < 1e-6, "{name}: {t} s is not a whole number of {each_s} s spin-ups");
        assert!(n as u64 <= cycles && n as u64 + r.per_disk.len() as u64 >= cycles, "{name}: {n} spin-ups for {cycles} cycles");
    };
    leaves(&spin, "leave_stopped", 10.9, spin.per_disk.iter().map(|d| d.start_stop_cycles).sum());
    leaves(&off, "leave_powered_down", 10.9 + 3.0, off.per_disk.iter().map(|d| d.power_cycles).sum());
    // The three parts add up to the whole.
    for e in [es, eo] {
        assert!((e.total_j - e.controller_j - e.enclosures_j - e.disks_j).abs() < 1e-6 * e.total_j);
    }
    assert!((es.disks_j - spin.energy_j).abs() < 1e-6 * spin.energy_j);
}

#[test]
fn a_saving_on_the_disks_is_smaller_on_the_whole_system() {
    let c = cfg(LowPower::SpinDown);
    let s = SchemeConfig { tpm_timeout_s: Some(5.0), ..SchemeConfig::named("tpm").unwrap() };
    let w = oltp_workload(common_span_bytes(&c, &s).unwrap(), 0.2, 3600.0, 3);
    let load = Load { label: "0.2 req/s".into(), iops: Some(0.2), workload: Workload::Synthetic(w) };
    let rows = compare(&c, &[s], &[load], &mut |_, _, _| {}).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].system_saving, Some(0.0));
    let h = &rows[1];
    assert!(h.energy_saving > 0.1, "TPM saves on the disks: {}", h.energy_saving);
    let sys = h.system_saving.unwrap();
    assert!(sys > 0.0 && sys < h.energy_saving, "system {sys} vs disks {}", h.energy_saving);
    // The difference is the controller's and the enclosures' share, which do not sleep.
    // Savings compare mean powers, so runs of different lengths compare.
    let (b, e) = (rows[0].run.system.as_ref().unwrap(), h.run.system.as_ref().unwrap());
    let expected = (b.total_w - e.total_w) / b.total_w;
    assert!((sys - expected).abs() < 1e-12);
}

#[test]
fn a_system_too_small_for_the_array_is_refused() {
    let c = ArrayConfig { disks: 17, ..cfg(LowPower::SpinDown) };
    let s = SchemeConfig::named("raid5").unwrap();
    let w = oltp_workload(1 << 30, 1.0, 10.0, 1);
    let e = run_array(&c, &s, &Workload::Synthetic(w), &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("the system description") && e.contains("17 disks do not fit"), "{e}");
}
