//! Figures and fields as reports print them.

/// `value ±n%`: a figure to about three significant digits (at most `decimals` decimals)
/// and the half-width of its 95 % interval as a share of it (`±?` when the interval is
/// unknown, nothing when it is exact).
pub fn with_interval(value: f64, half_width: f64, decimals: usize) -> String {
    let magnitude = if value.abs() >= 1.0 { value.abs().log10().floor() as usize + 1 } else { 0 };
    let decimals = decimals.min(3usize.saturating_sub(magnitude));
    let v = format!("{value:.decimals$}");
    if half_width == 0.0 {
        return v;
    }
    if !half_width.is_finite() || value == 0.0 {
        return format!("{v} ±?");
    }
    let rel = (half_width / value).abs() * 100.0;
    if rel >= 1.0 {
        format!("{v} ±{rel:.0}%")
    } else {
        format!("{v} ±{rel:.1}%")
    }
}

/// `s` as one CSV field: quoted (inner quotes doubled) when it holds a comma, a quote or
/// a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_field("×2"), "×2");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
    }

    #[test]
    fn a_figure_carries_its_interval_as_a_share() {
        assert_eq!(with_interval(8.296, 0.01, 3), "8.30 ±0.1%");
        assert_eq!(with_interval(226.0, 9.0, 0), "226 ±4%");
        assert_eq!(with_interval(5.0, 0.0, 2), "5.00");
        assert_eq!(with_interval(5.0, f64::NAN, 2), "5.00 ±?");
    }
}
