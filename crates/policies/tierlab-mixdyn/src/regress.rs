//! Multiple linear regression by ordinary least squares, from running sums.
//!
//! Samples are never stored: the accumulator keeps the sums of x, xxᵀ, xy, y and y² (each
//! taken relative to the first sample, which keeps the differences small and the sums
//! exact enough in f64), so memory does not grow with the training phase. `fit` solves the
//! normal equations on standardised features (the correlation matrix, with a ridge of
//! 1e-9 so that exactly collinear features still give an answer) and converts back.
//! A feature that never varied over the sample gets coefficient 0: the intercept carries it.

use serde::Serialize;

/// Features per sample.
pub const FEATURES: usize = 5;

/// Least-squares coefficients and goodness of fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fit {
    pub intercept: f64,
    pub coefficients: [f64; FEATURES],
    /// Coefficient of determination, 0..=1 (1 when y never varied).
    pub r2: f64,
    /// R² adjusted for the features that entered the fit.
    pub adj_r2: f64,
    /// Standard error of the regression, in y's unit.
    pub std_err: f64,
    pub observations: u64,
}

impl Fit {
    pub fn predict(&self, x: &[f64; FEATURES]) -> f64 {
        self.intercept
            + self
                .coefficients
                .iter()
                .zip(x)
                .map(|(c, v)| c * v)
                .sum::<f64>()
    }
}

/// Running sums of a regression's samples.
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    n: u64,
    /// The first sample: the origin the sums are taken from.
    x0: [f64; FEATURES],
    y0: f64,
    sx: [f64; FEATURES],
    sxx: [[f64; FEATURES]; FEATURES],
    sxy: [f64; FEATURES],
    sy: f64,
    syy: f64,
}

impl Accumulator {
    /// Add one sample; samples with a non-finite value are ignored.
    pub fn add(&mut self, x: &[f64; FEATURES], y: f64) {
        if !y.is_finite() || x.iter().any(|v| !v.is_finite()) {
            return;
        }
        if self.n == 0 {
            self.x0 = *x;
            self.y0 = y;
        }
        self.n += 1;
        let d: [f64; FEATURES] = std::array::from_fn(|i| x[i] - self.x0[i]);
        let dy = y - self.y0;
        for i in 0..FEATURES {
            self.sx[i] += d[i];
            self.sxy[i] += d[i] * dy;
            for j in 0..FEATURES {
                self.sxx[i][j] += d[i] * d[j];
            }
        }
        self.sy += dy;
        self.syy += dy * dy;
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The least-squares fit of the samples so far; `None` with fewer than two.
    pub fn fit(&self) -> Option<Fit> {
        if self.n < 2 {
            return None;
        }
        let n = self.n as f64;
        let mx: [f64; FEATURES] = std::array::from_fn(|i| self.sx[i] / n);
        let my = self.sy / n;
        let cov = |i: usize, j: usize| self.sxx[i][j] / n - mx[i] * mx[j];
        let var_y = (self.syy / n - my * my).max(0.0);
        // Features that varied (relative to their own scale) enter the fit.
        let used: Vec<usize> = (0..FEATURES)
            .filter(|&i| {
                let scale = 1.0 + (mx[i] + self.x0[i]).powi(2);
                cov(i, i) > 1e-12 * scale
            })
            .collect();
        let p = used.len();
        let sd: Vec<f64> = used.iter().map(|&i| cov(i, i).sqrt()).collect();
        let mut a = vec![vec![0.0; p + 1]; p];
        for (r, &i) in used.iter().enumerate() {
            for (c, &j) in used.iter().enumerate() {
                a[r][c] = cov(i, j) / (sd[r] * sd[c]);
            }
            a[r][r] += 1e-9;
            a[r][p] = (self.sxy[i] / n - mx[i] * my) / sd[r];
        }
        let z = solve(a)?;
        let mut coefficients = [0.0; FEATURES];
        let mut explained = 0.0;
        for (r, &i) in used.iter().enumerate() {
            coefficients[i] = z[r] / sd[r];
            explained += z[r] * (self.sxy[i] / n - mx[i] * my) / sd[r];
        }
        // Back to the original origin: y = y0 + c·(x − x0) fitted as ȳ + c·(x − x̄).
        let mut intercept = self.y0 + my;
        for i in 0..FEATURES {
            intercept -= coefficients[i] * (mx[i] + self.x0[i]);
        }
        let r2 = if var_y > 1e-300 {
            (explained / var_y).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let dof = n - p as f64 - 1.0;
        let adj_r2 = if dof > 0.0 {
            1.0 - (1.0 - r2) * (n - 1.0) / dof
        } else {
            r2
        };
        let sse = (n * var_y * (1.0 - r2)).max(0.0);
        let std_err = if dof > 0.0 { (sse / dof).sqrt() } else { 0.0 };
        Some(Fit {
            intercept,
            coefficients,
            r2,
            adj_r2,
            std_err,
            observations: self.n,
        })
    }
}

/// Gaussian elimination with partial pivoting on an augmented p × (p + 1) matrix.
fn solve(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let p = a.len();
    for col in 0..p {
        let pivot = (col..p).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-15 {
            return None;
        }
        a.swap(col, pivot);
        let (upper, lower) = a.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for row in lower.iter_mut() {
            let f = row[col] / pivot_row[col];
            for (x, y) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * y;
            }
        }
    }
    let mut z = vec![0.0; p];
    for row in (0..p).rev() {
        let mut v = a[row][p];
        for (c, zk) in a[row][row + 1..p].iter().zip(&z[row + 1..p]) {
            v -= c * zk;
        }
        z[row] = v / a[row][row];
    }
    z.iter().all(|v| v.is_finite()).then_some(z)
}
