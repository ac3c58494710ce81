//! `tierlab compare`: one workload on a matrix of drive designs, in the four currencies —
//! performance, energy, endurance and dollars. The matrix and the runs are
//! `tierlab_hybrid_study`'s; this module parses arguments and renders the rows.

use crate::cmd_simulate::{ReplayMode, RunArgs};
use crate::hybrid::DesignArgs;
use crate::measure_args::PriceArgs;
use crate::progress::requests_bar;
use tierlab_render::compare::{render_csv, render_failed, render_legend, render_text};
use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tierlab_hybrid_study::{CostModel, Matrix};
use tierlab_types::MIB;

#[derive(Args)]
pub struct CompareArgs {
    /// The workload, device and replay options of `tierlab simulate` (its other hybrid
    /// knobs hold for every design). Replay is closed-loop unless `--replay open` is given.
    #[command(flatten)]
    pub base: RunArgs,
    /// The designs to run (the others are left out): ssd-only, hdd-only, linear, tiering,
    /// caching. `--mode tiering --ssd-fraction 0.25 --pt 2 --extent-bytes 1M --mcml 4` is
    /// one run.
    #[arg(long, alias = "modes", alias = "hybrid", value_delimiter = ',', value_enum, default_values_t = Matrix::DESIGNS)]
    pub mode: Vec<tierlab_hybrid_study::Mode>,
    /// SSD shares of the capacity to try for tiering and caching.
    #[arg(long, alias = "fractions", value_delimiter = ',', default_values_t = [0.25, 0.125])]
    pub ssd_fraction: Vec<f64>,
    /// Extent sizes (bytes) to try.
    #[arg(long, alias = "extents", alias = "es", value_name = "BYTES", value_delimiter = ',', default_values_t = [MIB, 256 * 1024])]
    pub extent_bytes: Vec<u64>,
    /// Promotion / pre-fetch thresholds to try.
    #[arg(long, alias = "pts", value_delimiter = ',', default_values_t = [2, 8])]
    pub pt: Vec<u32>,
    /// Concurrent-migration limits to try.
    #[arg(long, alias = "mcmls", value_delimiter = ',', default_values_t = [4])]
    pub mcml: Vec<u32>,
    #[command(flatten)]
    pub prices: PriceArgs,
    /// Each row is also priced over this many years (the workload at its own rate).
    #[arg(long, default_value_t = 5.0)]
    pub years: f64,
    /// Also write the table as CSV here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write a self-contained HTML report with charts here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

impl CompareArgs {
    /// The library's matrix: the base configuration (closed-loop by default) and the sweeps.
    pub fn matrix(&self) -> Matrix {
        Matrix {
            base: self.base.config(&DesignArgs::default(), ReplayMode::Closed),
            fractions: self.ssd_fraction.clone(),
            pts: self.pt.clone(),
            extents: self.extent_bytes.clone(),
            mcmls: self.mcml.clone(),
            modes: self.mode.clone(),
        }
    }

    pub fn cost_model(&self) -> CostModel {
        self.prices.cost_model(self.years)
    }
}

pub fn run(a: CompareArgs) -> Result<()> {
    let workload = a.base.workload()?;
    let bar = requests_bar("simulating");
    let mut current = String::new();
    let protocol = a.base.measurement.protocol()?;
    let report = tierlab_hybrid_study::compare(&a.matrix(), &workload, &a.cost_model(), &protocol, &mut |label, n| {
        if label != current {
            current = label.to_string();
            bar.set_message(current.clone());
        }
        bar.set_position(n);
    })?;
    bar.finish_and_clear();
    let rows = &report.rows;
    if let Some(path) = &a.csv {
        std::fs::write(path, render_csv(rows, &report.failed)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &a.html {
        std::fs::write(path, tierlab_render::compare_html::render(rows, &report.failed)?).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = crate::session::stdout();
    if a.base.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}{}{}", render_legend(rows), render_text(rows), render_failed(&report.failed))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use tierlab_engine::Replay;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        compare: CompareArgs,
    }

    #[test]
    fn compare_replays_closed_loop_unless_told_otherwise() {
        let f = Flags::parse_from(["tierlab"]);
        let m = f.compare.matrix();
        assert_eq!(m.base.replay, Replay::Closed { depth: 1 });
        let defaults = Matrix::new(m.base.clone());
        assert_eq!((m.fractions, m.pts, m.extents, m.mcmls, m.modes), (defaults.fractions, defaults.pts, defaults.extents, defaults.mcmls, defaults.modes));
        assert_eq!(f.compare.cost_model(), CostModel::default());
        let f = Flags::parse_from(["tierlab", "--replay", "open"]);
        assert_eq!(f.compare.matrix().base.replay, Replay::Open);
        let f = Flags::parse_from(["tierlab", "--depth", "4"]);
        assert_eq!(f.compare.matrix().base.replay, Replay::Closed { depth: 4 });
    }
}
