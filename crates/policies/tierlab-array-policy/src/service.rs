//! Service-time moments of a disk at a speed it did not run at.
//!
//! A disk's measured service time is taken as seek + rotational latency + transfer. The
//! seek part does not depend on speed; rotational latency is uniform over one revolution
//! (mean 30/rpm s, variance (60/rpm)²/12 s²); transfer is the mean request size over the
//! media rate, which grows with rpm. So from what a disk did at speed `a`, its moments at
//! speed `b` are estimated by removing `a`'s rotation and transfer and adding `b`'s. With
//! no measurement the disk's average seek time stands in for the seek part and the
//! rotation's variance for the variance.

use crate::scheme::{DiskCounters, SpeedInfo};

/// Mean and variance (s, s²) of the service time at `target` speed.
pub fn moments_at(measured: &DiskCounters, measured_at: &SpeedInfo, target: &SpeedInfo, average_seek_s: f64, default_bytes: f64) -> (f64, f64) {
    let bytes = if measured.ops > 0 { measured.mean_bytes() } else { default_bytes };
    let transfer = |s: &SpeedInfo| if s.media_bytes_per_s > 0.0 { bytes / s.media_bytes_per_s } else { 0.0 };
    match (measured.mean_service_s(), measured.service_var_s2()) {
        (Some(mean), Some(var)) => {
            let seek = (mean - measured_at.mean_rotation_s() - transfer(measured_at)).max(0.0);
            let seek_var = (var - measured_at.rotation_var_s2()).max(0.0);
            (seek + target.mean_rotation_s() + transfer(target), seek_var + target.rotation_var_s2())
        }
        _ => (average_seek_s + target.mean_rotation_s() + transfer(target), target.rotation_var_s2()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed(rpm: u32, mb_s: f64) -> SpeedInfo {
        SpeedInfo { rpm, active_w: 0.0, seek_w: 0.0, idle_w: 0.0, media_bytes_per_s: mb_s * 1e6 }
    }

    #[test]
    fn the_paper_disk_8k_random_service_times() {
        // Table 2: 3.4 ms seek; 2 / 10 ms mean rotation; 80 / 16 MB/s. An 8 KiB request:
        // 5.50 ms at 15,000 rpm, 13.91 ms at 3,000 rpm (hibernator-notes §1.1.5).
        let (fast, slow) = (speed(15_000, 80.0), speed(3_000, 16.0));
        let none = DiskCounters::default();
        let (m_fast, v_fast) = moments_at(&none, &fast, &fast, 3.4e-3, 8192.0);
        let (m_slow, _) = moments_at(&none, &fast, &slow, 3.4e-3, 8192.0);
        assert!((m_fast - 5.502e-3).abs() < 1e-5, "{m_fast}");
        assert!((m_slow - 13.912e-3).abs() < 1e-5, "{m_slow}");
        assert!((v_fast - (4e-3f64).powi(2) / 12.0).abs() < 1e-12);
        // From a measurement at 15,000 rpm (mean 6 ms, 8 KiB), the slow estimate keeps
        // the measured seek part (6 − 2 − 0.1024 ms).
        let measured = DiskCounters { ops: 2, bytes: 16384, service_s: 0.012, service_sq_s2: 2.0 * 0.006f64.powi(2) + 8e-6, ..Default::default() };
        let (m, v) = moments_at(&measured, &fast, &slow, 3.4e-3, 8192.0);
        assert!((m - (0.006 - 0.002 - 8192.0 / 80e6 + 0.010 + 8192.0 / 16e6)).abs() < 1e-9, "{m}");
        // Measured variance 4 ms²: 4 − 16/12 of it is seek, kept; the slow rotation's 400/12 added.
        assert!((v - (4e-6 - 16e-6 / 12.0 + 400e-6 / 12.0)).abs() < 1e-12, "{v}");
    }
}
