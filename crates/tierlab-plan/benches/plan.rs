//! The planner's speed: characterisation (both classifier passes) over a Financial-like
//! hour from the synthesiser, next to generating the same stream alone (the peer: what a
//! pass costs before any classifying), and the MILP for 33 classes and the four device
//! types of the research's catalog (Financial's classes padded to 33), with each solver
//! built in.
//!
//! `cargo bench -p tierlab-plan --features highs --bench plan` (prints its figures).

use std::time::Instant;
use tierlab_classes::ClassConfig;
use tierlab_mixplan::{BandwidthForm, CostModel, Problem, SolverKind, WearRate};
use tierlab_synth::{Synth, SynthOptions};

fn main() {
    let stats = tierlab_synth::builtin("hybridstore-t4.3-financial")
        .expect("shipped")
        .expect("parses");
    let options = SynthOptions::default();
    let stream = || {
        Synth::new(&stats, &options)
            .expect("synthesises")
            .map(Ok::<_, std::convert::Infallible>)
    };

    let t = Instant::now();
    let n = stream().count() as f64;
    let generate_s = t.elapsed().as_secs_f64();
    let cfg = ClassConfig {
        intensity_bins: 2,
        ..ClassConfig::default()
    };
    let t = Instant::now();
    let labelled = tierlab_classes::label(&cfg, stream()).expect("labels");
    let label_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let classes = tierlab_classes::measure(labelled, stream()).expect("measures");
    let measure_s = t.elapsed().as_secs_f64();
    // Each pass includes making the stream; take that out for the classifier's own rate.
    let own = |s: f64| n / (s - generate_s).max(1e-9);
    println!("stream           {n:.0} requests (Financial*, one hour), generated in {generate_s:.2} s ({:.1} M requests/s)", n / generate_s / 1e6);
    println!(
        "label pass       {label_s:.2} s with generation; classifier alone {:.1} M requests/s",
        own(label_s) / 1e6
    );
    println!(
        "measure pass     {measure_s:.2} s with generation; classifier alone {:.1} M requests/s",
        own(measure_s) / 1e6
    );

    // Financial's non-empty classes, padded to the full 33 with classes of its shape.
    let mut needs = tierlab_plan::needs(&classes, 1.0);
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
