//! The planner's speed: characterisation (both classifier passes) over a Financial-like
//! hour from the synthesiser, held in memory so that only the classifier is timed (beside
//! a pass that only sums the requests' bytes), and the MILP for 33 classes and the four device
//! types of the research's catalog (Financial's classes padded to 33), with each solver
//! built in.
//!
//! `cargo bench -p tierlab-plan-study --features highs --bench plan` (prints its figures).

use std::time::Instant;
use tierlab_classes::ClassConfig;
use tierlab_mixplan::{BandwidthForm, CostModel, Problem, SolverKind, WearRate};
use tierlab_synth::{Synth, SynthOptions};

fn main() {
    let stats = tierlab_synth::builtin("hybridstore-t4.3-financial")
        .expect("shipped")
        .expect("parses");
    let options = SynthOptions::default();
    let t = Instant::now();
    let requests: Vec<_> = Synth::new(&stats, &options).expect("synthesises").collect();
    let generate_s = t.elapsed().as_secs_f64();
    let n = requests.len() as f64;
    let cfg = ClassConfig {
        intensity_bins: 2,
        ..ClassConfig::default()
    };
    let replay = || {
        requests
            .iter()
            .copied()
            .map(Ok::<_, std::convert::Infallible>)
    };
    let t = Instant::now();
    let labelled = tierlab_classes::label(&cfg, replay()).expect("labels");
    let label_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let classes = tierlab_classes::measure(labelled, replay()).expect("measures");
    let measure_s = t.elapsed().as_secs_f64();
    // The peer: one pass that only sums the stream's bytes (the floor of any pass).
    let t = Instant::now();
    let bytes: u64 = replay().map(|r| r.map_or(0, |r| r.len_bytes)).sum();
    let floor_s = t.elapsed().as_secs_f64();
    println!("stream           {n:.0} requests (Financial*, one hour; {:.1} GB moved), generated in {generate_s:.2} s ({:.1} M requests/s), held in memory", bytes as f64 / 1e9, n / generate_s / 1e6);
    println!(
        "label pass       {label_s:.2} s: {:.1} M requests/s",
        n / label_s / 1e6
    );
    println!(
        "measure pass     {measure_s:.2} s: {:.1} M requests/s",
        n / measure_s / 1e6
    );
    println!("peer: summing    {floor_s:.3} s: {:.0} M requests/s (a pass that does nothing per request)", n / floor_s / 1e6);

    // Financial's non-empty classes, padded to the full 33 with classes of its shape.
    let mut needs = tierlab_plan_study::needs(&classes, 1.0);
    let real = needs.len();
    for k in real..33 {
        let mut c = needs[k % real].clone();
        c.label = format!("extra-{k}");
        c.size_gb = 5.0 + k as f64;
        c.bandwidth_kb_s = 50.0 * k as f64;
        needs.push(c);
    }
    let catalog = tierlab_mixplan::catalog::load("hybridstore-2009").expect("catalog");
    // B_ij as a fixed table: the solver's time is measured, not the device models'.
    let bandwidth_kb_s = catalog
        .devices
        .iter()
        .map(|d| {
            needs
                .iter()
                .enumerate()
                .map(|(j, _)| d.read_mb_s * 10.0 * (1.0 + j as f64 / 40.0))
                .collect()
        })
        .collect();
    let mut problem = Problem {
        devices: catalog.devices.clone(),
        classes: needs.clone(),
        bandwidth_kb_s,
        cost: CostModel::default(),
        bandwidth_form: BandwidthForm::Literal,
        wear_rate: WearRate::Mean,
        lifetime_years: 5.0,
        max_devices: None,
        solver: SolverKind::Microlp,
    };
    #[cfg(feature = "highs")]
    let solvers = [SolverKind::Microlp, SolverKind::Highs];
    #[cfg(not(feature = "highs"))]
    let solvers = [SolverKind::Microlp];
    for solver in solvers {
        problem.solver = solver;
        let t = Instant::now();
        let study = problem.study(3).expect("solves");
        let one = t.elapsed().as_secs_f64();
        let t = Instant::now();
        problem.solve(&[true; 4]).expect("solves");
        let single = t.elapsed().as_secs_f64();
        println!(
            "plan ({:<7})  {} classes x {} types: one MILP {:.1} ms; the study (all 15 type sets, runner-ups) {:.1} ms -> {}",
            solver.name(),
            needs.len(),
            problem.devices.len(),
            single * 1e3,
            one * 1e3,
            study.best.summary()
        );
    }
}
