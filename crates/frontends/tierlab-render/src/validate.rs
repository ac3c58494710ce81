//! DiskSim validations as one table (`tierlab validate disksim`): each drive's requests,
//! measured and simulated mean service time, demerit and mean request-by-request error.

use tierlab_disksim::DriveValidation;
use tierlab_report::Table;

/// One row per validated drive.
pub fn render_table(results: &[DriveValidation]) -> String {
    let mut t = Table::new(["drive", "requests", "measured mean (ms)", "simulated mean (ms)", "demerit (ms)", "demerit (% of mean)", "mean |error| (ms)"]);
    for v in results {
        t.row([
            v.drive.clone(),
            v.requests.to_string(),
            format!("{:.3}", v.mean_measured_ms),
            format!("{:.3}", v.mean_simulated_ms),
            format!("{:.3}", v.demerit_ms),
            format!("{:.1}", 100.0 * v.demerit_ms / v.mean_measured_ms.max(f64::MIN_POSITIVE)),
            format!("{:.3}", v.mean_abs_error_ms),
        ]);
    }
    t.render()
}
