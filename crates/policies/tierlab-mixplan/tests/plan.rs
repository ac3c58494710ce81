use tierlab_mixplan::catalog::{self, Kind, PlanCatalog};
use tierlab_mixplan::*;

fn hybridstore() -> PlanCatalog {
    catalog::load("hybridstore-2009").expect("the shipped catalog parses")
}

/// The three printed rows of Table 4.4 (the ioDrive has none).
fn table_4_4() -> Vec<catalog::PlanDevice> {
    hybridstore()
        .devices
        .into_iter()
        .filter(|d| d.id != "iodrive-80gb")
        .collect()
}

fn class(label: &str, size_gb: f64, bandwidth_kb_s: f64, write_mean_kb_s: f64) -> ClassNeed {
    ClassNeed {
        label: label.into(),
        size_gb,
        bandwidth_kb_s,
        write_mean_kb_s,
        write_fraction: 0.5,
        mean_request_bytes: 4096.0,
        read_fraction: 0.5,
    }
}

fn problem(devices: Vec<catalog::PlanDevice>, classes: Vec<ClassNeed>, b: f64) -> Problem {
    Problem {
        bandwidth_kb_s: vec![vec![b; classes.len()]; devices.len()],
        devices,
        classes,
        cost: CostModel::default(),
        bandwidth_form: BandwidthForm::Literal,
        wear_rate: WearRate::Mean,
        lifetime_years: 5.0,
        max_devices: None,
        solver: SolverKind::best(),
    }
}

/// The X25-M alone, written at 100 MB/s.
fn ssd_writing_100_mb_s() -> Problem {
    let ssd = table_4_4()
        .into_iter()
        .filter(|d| d.kind == Kind::Ssd)
        .collect();
    problem(ssd, vec![class("writes", 10.0, 0.0, 100_000.0)], 1e9)
}

#[test]
fn the_catalog_is_table_4_4() {
    let c = hybridstore();
    let row = |id: &str| c.devices.iter().find(|d| d.id == id).unwrap().clone();
    let ssd = row("x25m");
    assert_eq!(
        (
            ssd.kind,
            ssd.capacity_gb,
            ssd.price_usd_per_gb,
            ssd.read_mb_s,
            ssd.write_mb_s,
            ssd.device_w,
            ssd.supplement_w,
            ssd.erase_cycles
        ),
        (
            Kind::Ssd,
            80.0,
            Some(4.25),
            220.0,
            160.0,
            1.0,
            1.8,
            Some(10_000.0)
        )
    );
    let high = row("cheetah-15k5");
    assert_eq!(
        (
            high.capacity_gb,
            high.price_usd_per_gb,
            high.read_mb_s,
            high.device_w,
            high.supplement_w
        ),
        (300.0, Some(1.5), 128.0, 9.19, 17.0)
    );
    let low = row("samsung-green-1tb");
    assert_eq!(
        (
            low.capacity_gb,
            low.price_usd_per_gb,
            low.read_mb_s,
            low.device_w,
            low.supplement_w
        ),
        (1000.0, Some(0.12), 42.66, 5.8, 10.7)
    );
    assert_eq!(
        (
            ssd.usable_fraction,
            high.usable_fraction,
            low.usable_fraction
        ),
        (0.7, 0.5, 0.5)
    );
    // Installation cost per device: $340, $450, $120.
    let price = |d: &catalog::PlanDevice| (d.price_usd().unwrap() * 100.0).round() / 100.0;
    assert_eq!(
        (price(&ssd), price(&high), price(&low)),
        (340.0, 450.0, 120.0)
    );
    let io = row("iodrive-80gb");
    assert!(
        io.estimates.contains(&"price_usd_per_gb".to_string()),
        "the ioDrive's figures are marked as estimates"
    );
}

#[test]
fn five_years_of_power_at_ten_cents() {
    let c = hybridstore();
    let electricity_only = CostModel {
        cooling_factor: 1.0,
        ..CostModel::default()
    };
    let high = electricity_only
        .device(c.devices.iter().find(|d| d.id == "cheetah-15k5").unwrap())
        .unwrap();
    // 26.19 W × 43,800 h × $0.10/kWh = $114.71; the research prints $114.7.
    assert!(
        (high.electricity_usd - 114.71).abs() < 0.01,
        "{}",
        high.electricity_usd
    );
    assert_eq!(high.cooling_usd, 0.0);
    let ssd = electricity_only
        .device(c.devices.iter().find(|d| d.id == "x25m").unwrap())
        .unwrap();
    // 2.8 W: $12.26, within 2 % of the printed $12.4.
    assert!(
        (ssd.electricity_usd - 12.26).abs() < 0.01
            && (ssd.electricity_usd / 12.4 - 1.0).abs() < 0.02
    );
    // Eq. 4.3 counts cooling equal to the electricity.
    let with_cooling = CostModel::default()
        .device(c.devices.iter().find(|d| d.id == "cheetah-15k5").unwrap())
        .unwrap();
    assert!((with_cooling.total_usd() - (450.0 + 2.0 * 114.71)).abs() < 0.02);
    let install_only = CostModel {
        recurring: false,
        ..CostModel::default()
    };
    assert_eq!(
        install_only
            .device(c.devices.iter().find(|d| d.id == "x25m").unwrap())
            .unwrap()
            .total_usd(),
        340.0
    );
}

/// Table 4.3's footprints, GB, planned on capacity alone (no bandwidth need).
const TABLE_4_3_TOTAL_GB: [(&str, f64); 15] = [
    ("financial", 2763.0),
    ("tpc-h", 900.0),
    ("usr", 1359.0),
    ("proj", 1883.0),
    ("print", 430.0),
    ("hm", 39.0),
    ("resproj", 80.0),
    ("proxy", 88.0),
    ("src1", 555.0),
    ("src2", 101.0),
    ("webstg", 108.0),
    ("term", 22.0),
    ("websql", 441.0),
    ("media", 509.0),
    ("webdev", 102.0),
];

#[test]
fn capacity_alone_gives_the_research_low_end_counts_and_the_ssd_only_cases() {
    let mut ssd_beats_high_end = Vec::new();
    for (name, total) in TABLE_4_3_TOTAL_GB {
        let p = problem(table_4_4(), vec![class("all", total, 0.0, 0.0)], 1e9);
        let s = p.study(3).unwrap();
        let count = |id: &str| s.best.types.iter().find(|t| t.device == id).unwrap().count;
        match name {
            "financial" => assert_eq!(
                count("samsung-green-1tb"),
                6,
                "2,763 GB needs six 500 GB halves"
            ),
            "tpc-h" => assert_eq!(count("samsung-green-1tb"), 2),
            _ => {}
        }
        let single = |id: &str| {
            s.single_type
                .iter()
                .find(|t| t.device == id)
                .unwrap()
                .plan
                .as_ref()
                .unwrap()
                .total_usd
        };
        if single("x25m") < single("cheetah-15k5") {
            ssd_beats_high_end.push(name);
        }
        assert_eq!(
            s.best
                .types
                .iter()
                .find(|t| t.count > 0)
                .and_then(|t| t.binding),
            Some(Binding::Capacity)
        );
    }
    assert_eq!(
        ssd_beats_high_end,
        ["hm", "term"],
        "SSD-only is cheaper than high-end only for /hm and /term"
    );
}

#[test]
fn bandwidth_and_lifetime_bind_where_they_should() {
    // A hot class of 10 GB needing 50 MB/s: a disk gives 1 MB/s to it, an SSD 100 MB/s.
    let mut p = problem(
        table_4_4(),
        vec![
            class("hot", 10.0, 50_000.0, 0.0),
            class("cold", 900.0, 0.0, 0.0),
        ],
        1_000.0,
    );
    p.bandwidth_kb_s[0] = vec![100_000.0, 100_000.0];
    let s = p.study(5).unwrap();
    let ssd = s.best.types.iter().find(|t| t.device == "x25m").unwrap();
    assert_eq!(ssd.count, 1, "{}", s.best.summary());
    // The placement is not unique (the cost depends on the counts alone): two disks at
    // 1 MB/s each can take at most 0.4 GB of a class needing 5 MB/s per GB.
    assert!(
        ssd.placed_gb[0] >= 9.6 - 1e-6,
        "the hot class lives on the SSD: {:?}",
        ssd.placed_gb
    );
    let low = s
        .best
        .types
        .iter()
        .find(|t| t.device == "samsung-green-1tb")
        .unwrap();
    assert_eq!((low.count, low.binding), (2, Some(Binding::Capacity)));
    // Runner-ups are distinct and no cheaper than the best, in order.
    let mut last = s.best.total_usd;
    for r in &s.runner_ups {
        assert!(r.total_usd >= last - 1e-9 && r.counts() != s.best.counts());
        last = r.total_usd;
    }
    // Writing 100 MB/s into the SSD for five years needs 100e3 × 157.68e6 s / 1e6 GB
    // = 15.8 PB of endurance: 19.7 X25-Ms at 800 TB each.
    let mut w = ssd_writing_100_mb_s();
    w.cost.recurring = false;
    let plan = w.solve(&[true]).unwrap();
    let t = &plan.types[0];
    assert_eq!((t.count, t.binding), (20, Some(Binding::Lifetime)));
    assert!(
        (t.need_lifetime - 19.71).abs() < 0.01,
        "{}",
        t.need_lifetime
    );
    assert!(t.lifetime_years.unwrap() >= 5.0);
}

#[test]
fn the_aggregated_form_shares_a_type_between_classes() {
    // Two classes each needing 60 % of one disk's bandwidth: literally one disk serves
    // both; shared, it takes two.
    let mut p = problem(
        table_4_4()
            .into_iter()
            .filter(|d| d.id == "samsung-green-1tb")
            .collect(),
        vec![class("a", 10.0, 600.0, 0.0), class("b", 10.0, 600.0, 0.0)],
        1_000.0,
    );
    assert_eq!(p.solve(&[true]).unwrap().counts(), [1]);
    p.bandwidth_form = BandwidthForm::Aggregated;
    let plan = p.solve(&[true]).unwrap();
    assert_eq!(plan.counts(), [2]);
    assert_eq!(plan.types[0].binding, Some(Binding::Bandwidth));
}

#[test]
fn bad_input_is_an_answer_not_a_panic() {
    // A class no device can serve.
    let p = problem(table_4_4(), vec![class("x", 1.0, 10.0, 0.0)], 0.0);
    match p.study(3) {
        Err(PlanError::Infeasible(m)) => assert!(
            m.contains("class x") && m.contains("no device type can serve it"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    // A device limit the lifetime target cannot live with.
    let mut w = ssd_writing_100_mb_s();
    w.max_devices = Some(4);
    match w.solve(&[true]) {
        Err(PlanError::Infeasible(m)) => assert!(
            m.contains("limit of 4 devices binds") && m.contains("lifetime binds"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    // A device without a price.
    let mut devices = table_4_4();
    devices[0].price_usd_per_gb = None;
    match problem(devices, vec![class("x", 1.0, 0.0, 0.0)], 1.0).study(1) {
        Err(PlanError::Input(m)) => assert!(m.contains("x25m") && m.contains("no price"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Negative or absurd numbers.
    let mut p = problem(table_4_4(), vec![class("x", -1.0, 0.0, 0.0)], 1.0);
    assert!(matches!(p.study(1), Err(PlanError::Input(m)) if m.contains("size")));
    p.classes[0].size_gb = 1.0;
    p.cost.cooling_factor = 0.5;
    assert!(matches!(p.study(1), Err(PlanError::Input(m)) if m.contains("cooling")));
}

#[test]
fn a_catalog_entry_without_a_price_must_say_so() {
    let text = hybridstore_text().replace("price_usd_per_gb = 4.25\n", "");
    let e = tierlab_config::parse_toml_validated::<PlanCatalog>(&text, "plan.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("plan.toml")
            && e.contains("devices[0].price_usd_per_gb")
            && e.contains("unknown"),
        "{e}"
    );
    let listed = hybridstore_text().replace(
        "price_usd_per_gb = 4.25\n",
        "unknown = [\"price_usd_per_gb\"]\n",
    );
    let c: PlanCatalog = tierlab_config::parse_toml_validated(&listed, "plan.toml").unwrap();
    assert!(c.devices[0].price_usd().unwrap_err().contains("no price"));
    let hdd_cycles = hybridstore_text().replace(
        "price_usd_per_gb = 1.50\n",
        "price_usd_per_gb = 1.50\nerase_cycles = 5\n",
    );
    let e = tierlab_config::parse_toml_validated::<PlanCatalog>(&hdd_cycles, "plan.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("devices[1].erase_cycles"), "{e}");
}

fn hybridstore_text() -> String {
    catalog::BUILTIN
        .iter()
        .find(|(id, _)| *id == "hybridstore-2009")
        .unwrap()
        .1
        .to_string()
}

#[test]
fn every_shipped_catalog_parses() {
    for id in catalog::builtin_ids() {
        let c = catalog::load(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(c.id, id);
    }
}

/// Two independent solvers reach the same counts and cost on the research's shapes.
#[cfg(feature = "highs")]
#[test]
fn highs_and_microlp_agree() {
    let mut cases = Vec::new();
    for (_, total) in TABLE_4_3_TOTAL_GB {
        cases.push(problem(
            hybridstore().devices,
            vec![class("all", total, 0.0, 0.0)],
            1e9,
        ));
    }
    let mut hot = problem(
        hybridstore().devices,
        vec![
            class("hot", 10.0, 50_000.0, 400.0),
            class("warm", 90.0, 2_000.0, 100.0),
            class("cold", 900.0, 0.0, 0.0),
        ],
        1_000.0,
    );
    hot.bandwidth_kb_s[0] = vec![100_000.0; 3];
    hot.bandwidth_kb_s[3] = vec![400_000.0; 3];
    cases.push(hot.clone());
    hot.bandwidth_form = BandwidthForm::Aggregated;
    cases.push(hot);
    for p in cases {
        let a = Problem {
            solver: SolverKind::Highs,
            ..p.clone()
        }
        .study(3)
        .unwrap();
        let b = Problem {
            solver: SolverKind::Microlp,
            ..p
        }
        .study(3)
        .unwrap();
        assert_eq!(a.best.counts(), b.best.counts());
        assert!((a.best.total_usd - b.best.total_usd).abs() < 1e-6);
        let costs = |s: &Study| {
            s.runner_ups
                .iter()
                .map(|p| (p.total_usd * 100.0).round())
                .collect::<Vec<_>>()
        };
        assert_eq!(costs(&a), costs(&b));
    }
}

/// The X25-M is timed from its figures (the aged rates of the research's source [82])
/// and names the internals model the simulation check builds; only a data-sheet SSD may
/// name one, and its rates must be positive.
#[test]
fn the_x25m_is_timed_from_its_figures_and_names_its_internals() {
    let c = hybridstore();
    let ssd = c.devices.iter().find(|d| d.id == "x25m").unwrap();
    let catalog::ModelRef::Datasheet(f) = &ssd.model else {
        panic!("{:?}", ssd.model)
    };
    assert_eq!(f.sustained_mb_s(ssd), (60.0, 30.0));
    assert_eq!(ssd.internals.as_deref(), Some("intel-x25m-80gb"));
    let on_a_disk = hybridstore_text().replace(
        "model = { hdd = \"seagate-cheetah-15k5-300gb\" }",
        "model = { hdd = \"seagate-cheetah-15k5-300gb\" }\ninternals = \"intel-x25m-80gb\"",
    );
    let refused =
        |text: &str| match tierlab_config::parse_toml_validated::<PlanCatalog>(text, "plan.toml") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted"),
        };
    let e = refused(&on_a_disk);
    assert!(e.contains("devices[1].internals"), "{e}");
    let negative =
        hybridstore_text().replace("sustained_write_mb_s = 30.0", "sustained_write_mb_s = -3.0");
    let e = refused(&negative);
    assert!(e.contains("sustained_write_mb_s"), "{e}");
}
