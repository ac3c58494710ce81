//! Alternating regions of a raised arrival rate, for the MixDyn experiments' "periods of
//! reduced inter-arrival time" (a 1x-2x stream): each period runs at the base rate for
//! `(1 - duty) × period_s`, then at `factor` times it for `duty × period_s`.

use serde::{Deserialize, Serialize};
use tierlab_config::{FieldError, Validate};

/// The `[rate]` section of a statistics file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateRegions {
    /// Arrival rate in the raised part of each period, times the base rate.
    pub factor: f64,
    /// Length of one base + raised period, seconds.
    pub period_s: f64,
    /// Share of each period at the raised rate, 0 to 1.
    pub duty: f64,
    /// Key of `[sources]` where the regions come from, when a document gives them.
    #[serde(default)]
    pub source: Option<String>,
}

impl Validate for RateRegions {
    fn validate(&self) -> Result<(), FieldError> {
        if !(self.factor.is_finite() && self.factor > 0.0 && self.factor <= 1000.0) {
            return Err(FieldError::new(
                "factor",
                format!(
                    "expected a rate multiplier above 0 and at most 1000, found {}",
                    self.factor
                ),
            ));
        }
        if !(self.period_s.is_finite() && self.period_s >= 0.001) {
            return Err(FieldError::new(
                "period_s",
                format!(
                    "expected a period of at least 0.001 s, found {}",
                    self.period_s
                ),
            ));
        }
        if !(self.duty.is_finite() && (0.0..=1.0).contains(&self.duty)) {
            return Err(FieldError::new(
                "duty",
                format!(
                    "expected the raised share of each period, 0 to 1, found {}",
                    self.duty
                ),
            ));
        }
        Ok(())
    }
}

impl RateRegions {
    fn base_s(&self) -> f64 {
        (1.0 - self.duty) * self.period_s
    }

    /// Base-rate seconds in one period.
    fn per_period(&self) -> f64 {
        self.base_s() + self.duty * self.period_s * self.factor
    }

    /// Mean rate over whole periods, times the base rate.
    pub fn mean_factor(&self) -> f64 {
        self.per_period() / self.period_s
    }

    /// The integral of the rate multiplier from 0 to `t_s`: base-rate seconds of
    /// arrivals before `t_s`.
    pub fn operational_s(&self, t_s: f64) -> f64 {
        let n = (t_s / self.period_s).floor();
        let r = t_s - n * self.period_s;
        let base = self.base_s();
        n * self.per_period() + r.min(base) + (r - base).max(0.0) * self.factor
    }

    /// The inverse of [`RateRegions::operational_s`]: the time by which `u_s` base-rate
    /// seconds of arrivals have come.
    pub fn time_at(&self, u_s: f64) -> f64 {
        let per = self.per_period();
        let n = (u_s / per).floor();
        let r = u_s - n * per;
        let base = self.base_s();
        let within = if r < base {
            r
        } else {
            base + (r - base) / self.factor
        };
        n * self.period_s + within.min(self.period_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operational_time_and_its_inverse_agree() {
        let r = RateRegions {
            factor: 2.0,
            period_s: 600.0,
            duty: 0.5,
            source: None,
        };
        assert!((r.mean_factor() - 1.5).abs() < 1e-12);
        assert!((r.operational_s(300.0) - 300.0).abs() < 1e-9);
        assert!((r.operational_s(600.0) - 900.0).abs() < 1e-9);
        assert!((r.operational_s(3600.0) - 5400.0).abs() < 1e-9);
        for t in [0.0, 1.0, 299.9, 300.0, 450.0, 599.0, 600.0, 1234.5, 3599.0] {
            let back = r.time_at(r.operational_s(t));
            assert!((back - t).abs() < 1e-6, "{t} -> {back}");
        }
    }
}
