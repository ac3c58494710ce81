//! Zipf sampling over a huge number of items in O(1) time and memory per sample, by
//! rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to generate
//! variates from monotone discrete distributions", ACM TOMACS 6(3), 1996). Works for any
//! exponent > 0, including 1, without summing the harmonic series.

use rand::Rng;

/// P(rank k) ∝ k^-theta for k in 1..=n; `sample` returns the 0-based rank k - 1.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: f64,
    theta: f64,
    /// 1 − theta.
    one_minus_theta: f64,
    h_integral_x1: f64,
    h_integral_n: f64,
    /// h_integral_x1 − h_integral_n, the width of the sampled interval.
    h_integral_span: f64,
    squeeze: f64,
}

/// ln(1 + z) / z, continuous at 0.
fn log1p_over(z: f64) -> f64 {
    if z.abs() > 1e-8 {
        z.ln_1p() / z
    } else {
        1.0 - z / 2.0 + z * z / 3.0
    }
}

/// (e^z − 1) / z, continuous at 0.
fn expm1_over(z: f64) -> f64 {
    if z.abs() > 1e-8 {
        z.exp_m1() / z
    } else {
        1.0 + z / 2.0 + z * z / 6.0
    }
}

/// `v.floor()`, through an integer where that is exact (0 < v < 2^52: the common case,
/// which needs no call where the target has no rounding instruction).
fn floor(v: f64) -> f64 {
    if v > 0.0 && v < 4_503_599_627_370_496.0 {
        (v as u64) as f64
    } else {
        v.floor()
    }
}

impl Zipf {
    /// `n` ≥ 1 items, exponent `theta` > 0 (callers validate).
    pub fn new(n: u64, theta: f64) -> Self {
        let mut z = Zipf { n: n.max(1) as f64, theta, one_minus_theta: 1.0 - theta, h_integral_x1: 0.0, h_integral_n: 0.0, h_integral_span: 0.0, squeeze: 0.0 };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(z.n + 0.5);
        z.h_integral_span = z.h_integral_x1 - z.h_integral_n;
        z.squeeze = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z
    }

    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    /// ∫ x^-theta, shifted so H(1) = 0: (x^(1-θ) − 1)/(1 − θ), or ln x at θ = 1.
    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        expm1_over(self.one_minus_theta * lx) * lx
    }

    fn h_integral_inv(&self, y: f64) -> f64 {
        let t = (y * self.one_minus_theta).max(-1.0);
        (log1p_over(t) * y).exp()
    }

    pub fn sample<R: Rng>(&self, rng: &mut R) -> u64 {
        loop {
            let u = self.h_integral_n + rng.gen::<f64>() * self.h_integral_span;
            let x = self.h_integral_inv(u);
            let k = floor(x + 0.5).clamp(1.0, self.n);
            if k - x <= self.squeeze || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64 - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The integer floor is `f64::floor`, bit for bit, on any value.
        #[test]
        fn floor_is_f64_floor(bits in any::<u64>(), small in 0.0f64..1e7) {
            for v in [f64::from_bits(bits), small, small + 0.5, -small] {
                prop_assert_eq!(super::floor(v).to_bits(), v.floor().to_bits());
            }
        }
    }

    #[test]
    fn floor_at_the_edges() {
        for v in [0.0, -0.0, 0.5, 1.0, 1.5, 4_503_599_627_370_495.5, 4_503_599_627_370_496.0, 1e300, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE] {
            assert_eq!(super::floor(v).to_bits(), v.floor().to_bits(), "{v}");
        }
    }
}
