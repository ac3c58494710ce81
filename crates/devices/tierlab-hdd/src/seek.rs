//! Seek time as a function of seek distance, precomputed for every distance so that a
//! seek costs one array lookup.

use crate::spec::SeekModel;

/// Seek times in nanoseconds for every distance 0..cylinders (f32: 1 ns resolution up to
/// 16 ms, 4 bytes per cylinder).
#[derive(Clone, Debug)]
pub struct SeekCurve {
    ns: Vec<f32>,
}

/// Solve the 3×3 system `m · x = r` by Cramer's rule; `None` if singular.
pub(crate) fn solve3(m: [[f64; 3]; 3], r: [f64; 3]) -> Option<[f64; 3]> {
    let det = |a: [[f64; 3]; 3]| {
        a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    };
    let d = det(m);
    if d.abs() < 1e-12 {
        return None;
    }
    let mut x = [0.0; 3];
    for (c, xc) in x.iter_mut().enumerate() {
        let mut mc = m;
        for row in 0..3 {
            mc[row][c] = r[row];
        }
        *xc = det(mc) / d;
    }
    Some(x)
}

/// Coefficients (a, b, c) of `a + b·sqrt(d) + c·d` through the three datasheet points.
/// Falls back to a line through single and full when the points are degenerate.
pub fn fit_datasheet(single_ms: f64, avg_ms: f64, full_ms: f64, cylinders: u32) -> [f64; 3] {
    let full_d = f64::from(cylinders.max(4) - 1);
    let avg_d = (full_d / 3.0).max(2.0);
    let row = |d: f64| [1.0, d.sqrt(), d];
    solve3([row(1.0), row(avg_d), row(full_d)], [single_ms, avg_ms, full_ms]).unwrap_or_else(|| {
        let c = (full_ms - single_ms) / (full_d - 1.0);
        [single_ms - c, 0.0, c]
    })
}

impl SeekCurve {
    /// Tabulate `model` for distances 0..cylinders. Negative values are clamped to 0.
    pub fn new(model: &SeekModel, cylinders: u32) -> SeekCurve {
        let n = cylinders.max(1) as usize;
        let mut ns = Vec::with_capacity(n);
        ns.push(0.0f32);
        let fit = match model {
            SeekModel::Datasheet { single_track_ms, average_ms, full_stroke_ms } => {
                fit_datasheet(*single_track_ms, *average_ms, *full_stroke_ms, cylinders)
            }
            _ => [0.0; 3],
        };
        for d in 1..n {
            let df = d as f64;
            let ms = match model {
                SeekModel::Table { points } => interpolate(points, d as u32),
                SeekModel::Datasheet { .. } => fit[0] + fit[1] * df.sqrt() + fit[2] * df,
                SeekModel::Equation {
                    boundary_cyl,
                    sqrt_const_ms,
                    sqrt_mult_ms,
                    linear_const_ms,
                    linear_mult_ms,
                    single_cyl_ms,
                    first_ten_ms,
                } => match (first_ten_ms, single_cyl_ms) {
                    (Some(f), _) if d <= 10 && f.len() == 10 => f[d - 1],
                    (_, Some(s)) if d == 1 => *s,
                    _ if df < *boundary_cyl => sqrt_const_ms + sqrt_mult_ms * df.sqrt(),
                    _ => linear_const_ms + linear_mult_ms * df,
                },
            };
            ns.push((ms * 1e6).max(0.0) as f32);
        }
        SeekCurve { ns }
    }

    /// Seek time for a move of `distance` cylinders (0 for no move).
    #[inline]
    pub fn ns(&self, distance: u32) -> f64 {
        let i = (distance as usize).min(self.ns.len() - 1);
        f64::from(self.ns[i])
    }
}

/// Piecewise-linear interpolation of a seek table at distance `d` ≥ 1, extrapolating
/// from the last two points beyond the end (and flat below the first point).
fn interpolate(points: &[(u32, f64)], d: u32) -> f64 {
    let i = points.partition_point(|p| p.0 < d);
    if i < points.len() && points[i].0 == d {
        return points[i].1;
    }
    if i == 0 {
        return points[0].1;
    }
    let (j0, j1) = if i == points.len() {
        if points.len() < 2 {
            return points[0].1;
        }
        (points.len() - 2, points.len() - 1)
    } else {
        (i - 1, i)
    };
    let (d0, t0) = (f64::from(points[j0].0), points[j0].1);
    let (d1, t1) = (f64::from(points[j1].0), points[j1].1);
    t0 + (f64::from(d) - d0) * (t1 - t0) / (d1 - d0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_interpolates_between_and_beyond_points() {
        let m = SeekModel::Table { points: vec![(1, 1.0), (3, 2.0), (5, 2.0)] };
        let c = SeekCurve::new(&m, 10);
        assert_eq!(c.ns(0), 0.0);
        assert_eq!(c.ns(1), 1.0e6);
        assert_eq!(c.ns(2), 1.5e6);
        assert_eq!(c.ns(5), 2.0e6);
        assert_eq!(c.ns(9), 2.0e6); // flat extrapolation of the last segment
        assert_eq!(c.ns(1000), c.ns(9)); // clamped to the drive
    }

    #[test]
    fn datasheet_fit_passes_through_its_three_points() {
        let m = SeekModel::Datasheet { single_track_ms: 0.8, average_ms: 5.2, full_stroke_ms: 10.6 };
        let c = SeekCurve::new(&m, 9001);
        assert!((c.ns(1) - 0.8e6).abs() < 1e3);
        assert!((c.ns(3000) - 5.2e6).abs() < 1e3);
        assert!((c.ns(9000) - 10.6e6).abs() < 1e3);
        assert!(c.ns(100) < c.ns(1000));
    }

    #[test]
    fn equation_uses_first_ten_then_sqrt_then_linear() {
        let m = SeekModel::Equation {
            boundary_cyl: 300.0,
            sqrt_const_ms: 3.81,
            sqrt_mult_ms: 0.33,
            linear_const_ms: 7.75,
            linear_mult_ms: 0.0059,
            single_cyl_ms: None,
            first_ten_ms: Some((1..=10).map(f64::from).collect()),
        };
        let c = SeekCurve::new(&m, 2000);
        assert_eq!(c.ns(7), 7.0e6);
        assert!((c.ns(100) - (3.81 + 3.3) * 1e6).abs() < 2.0);
        assert!((c.ns(1000) - (7.75 + 5.9) * 1e6).abs() < 2.0);
    }
}
