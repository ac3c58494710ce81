//! The `compare` matrix: the baselines, then tiering and caching over every value of the
//! sweeps (SSD share, PT, ES, MCML).

use crate::drive::Mode;
use crate::run::Config;
use tierlab_types::MIB;

/// Which configurations to run: `base` gives the workload-independent settings (devices,
/// replay, the knobs the sweeps do not vary); each sweep lists the values to try.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub base: Config,
    /// SSD shares of the capacity, for linear, tiering and caching.
    pub fractions: Vec<f64>,
    /// Promotion / pre-fetch thresholds.
    pub pts: Vec<u32>,
    /// Extent sizes in bytes.
    pub extents: Vec<u64>,
    /// Concurrent-migration limits.
    pub mcmls: Vec<u32>,
    /// The designs to run, of [`Matrix::DESIGNS`]; the others are left out.
    pub modes: Vec<Mode>,
}

impl Matrix {
    /// The designs a matrix can hold, in report order.
    pub const DESIGNS: [Mode; 5] = [Mode::SsdOnly, Mode::HddOnly, Mode::Linear, Mode::Tiering, Mode::Caching];

    /// The default sweeps (SSD at 1/4 and 1/8, PT 2 and 8, ES 1 MiB and 256 KiB, MCML 4)
    /// over `base`, every design.
    pub fn new(base: Config) -> Self {
        Matrix { base, fractions: vec![0.25, 0.125], pts: vec![2, 8], extents: vec![MIB, 256 * 1024], mcmls: vec![4], modes: Self::DESIGNS.to_vec() }
    }

    /// Every configuration with its label, in report order: SSD-only, HDD-only, linear per
    /// SSD share, then tiering and caching per share × PT × ES × MCML.
    pub fn entries(&self) -> Vec<MatrixEntry> {
        let h = &self.base.hybrid;
        let with = |mode: Mode, f: f64, es: u64, pt: u32, mcml: u32| {
            let mut c = self.base.clone();
            c.mode = Some(mode);
            c.hybrid.ssd_fraction = f;
            c.hybrid.es = es;
            c.hybrid.pt = pt;
            c.hybrid.mcml = mcml;
            c
        };
        let mut out = vec![
            MatrixEntry { label: "ssd-only".into(), config: with(Mode::SsdOnly, h.ssd_fraction, h.es, h.pt, h.mcml) },
            MatrixEntry { label: "hdd-only".into(), config: with(Mode::HddOnly, h.ssd_fraction, h.es, h.pt, h.mcml) },
        ];
        for &f in &self.fractions {
            out.push(MatrixEntry { label: format!("linear ssd={}", frac(f)), config: with(Mode::Linear, f, h.es, h.pt, h.mcml) });
        }
        for (mode, name) in [(Mode::Tiering, "tiering"), (Mode::Caching, "caching")] {
            for &f in &self.fractions {
                for &pt in &self.pts {
                    for &es in &self.extents {
                        for &mcml in &self.mcmls {
                            let label = format!("{name} ssd={} pt={pt} es={} mcml={mcml}", frac(f), size(es));
                            out.push(MatrixEntry { label, config: with(mode, f, es, pt, mcml) });
                        }
                    }
                }
            }
        }
        out.retain(|e| e.config.mode.is_some_and(|m| self.modes.contains(&m)));
        out
    }
}

/// One configuration of the matrix.
#[derive(Clone, Debug)]
pub struct MatrixEntry {
    /// E.g. `tiering ssd=1/4 pt=2 es=1M mcml=4`.
    pub label: String,
    /// Its `mode` is always set.
    pub config: Config,
}

/// A share as `1/n` when it is one, else as a decimal.
fn frac(f: f64) -> String {
    if f > 0.0 && (1.0 / f).fract().abs() < 1e-9 {
        format!("1/{}", (1.0 / f).round())
    } else {
        format!("{f}")
    }
}

/// A size as whole MiB (`1M`) or KiB (`256K`).
fn size(b: u64) -> String {
    if b.is_multiple_of(MIB) {
        format!("{}M", b / MIB)
    } else {
        format!("{}K", b / 1024)
    }
}
