//! The bundled default workload fitted to the drive a configuration builds.

use crate::drive::Mode;
use crate::run::Config;
use anyhow::{Context, Result};
use tierlab_engine::Device;
use tierlab_types::{GIB, MIB};
use tierlab_workload::WorkloadSpec;

/// The bundled default workload, its span shrunk where the drive `config` builds cannot
/// hold it (an 18 GB disk, a 4 GB SSD's share of a hybrid drive): to 95 % of the room the
/// smallest device leaves, in whole GiB (MiB below 1 GiB). Also says, for stderr, what was
/// shrunk; `None` when the default fits as it is.
pub fn default_workload(config: &Config) -> Result<(WorkloadSpec, Option<String>)> {
    let mut spec = WorkloadSpec::bundled_default();
    spec.validate().context("in the bundled default workload")?;
    let mut limits: Vec<(u64, String)> = Vec::new();
    if config.mode != Some(Mode::SsdOnly) {
        let hdd = &config.hdd;
        let (name, bytes) = match &hdd.disksim {
            Some(dir) => {
                let imported = tierlab_disksim::import_drive(dir).with_context(|| format!("cannot import DiskSim drive {}", dir.display()))?;
                (format!("DiskSim drive {}", dir.display()), tierlab_hdd::Mechanics::new(imported.spec)?.capacity_bytes())
            }
            None => (format!("HDD `{}`", hdd.device), tierlab_devices::build_hdd(hdd)?.capacity_bytes()),
        };
        limits.push((bytes, format!("{name} holds {}", tierlab_report::fmt_bytes(bytes))));
    }
    if let Some(mode) = config.mode.filter(|m| *m != Mode::HddOnly) {
        let id = &config.hybrid.ssd;
        let ssd = tierlab_ssd::catalog::builtin(id)?.ssd.capacity_bytes();
        let (room, why) = if mode == Mode::SsdOnly {
            (ssd, String::new())
        } else {
            let share = config.hybrid.ssd_fraction;
            ((ssd as f64 / share.clamp(f64::MIN_POSITIVE, 1.0)).min(u64::MAX as f64) as u64, format!(", the SSD's share being {share}"))
        };
        limits.push((room, format!("SSD `{id}` holds {}{why}", tierlab_report::fmt_bytes(ssd))));
    }
    let Some((room, why)) = limits.into_iter().min_by_key(|(room, _)| *room) else {
        return Ok((spec, None));
    };
    if room >= spec.span_bytes {
        return Ok((spec, None));
    }
    let fit = room / 20 * 19;
    let unit = if fit >= GIB { GIB } else { MIB };
    let span = (fit / unit * unit).max(spec.align_bytes.max(65536));
    let note = format!(
        "the bundled default workload's span is {} instead of {}: {why} (give --workload FILE for another; `tierlab workload show` prints the default)",
        tierlab_report::fmt_bytes(span),
        tierlab_report::fmt_bytes(spec.span_bytes)
    );
    spec.span_bytes = span;
    Ok((spec, Some(note)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive::HybridParams;

    #[test]
    fn the_default_fits_as_it_is_or_shrinks_to_the_smallest_device() {
        let (spec, note) = default_workload(&Config::default()).unwrap();
        assert_eq!((spec, note), (WorkloadSpec::bundled_default(), None), "the default HDD holds it");
        let config = Config { mode: Some(Mode::SsdOnly), hybrid: HybridParams { ssd: "intel-x25m-80gb".into(), ..HybridParams::default() }, ..Config::default() };
        let (spec, note) = default_workload(&config).unwrap();
        // 95 % of the SSD, in whole GiB.
        let ssd = tierlab_ssd::catalog::builtin("intel-x25m-80gb").unwrap().ssd.capacity_bytes();
        assert_eq!(spec.span_bytes, ssd / 20 * 19 / GIB * GIB);
        let note = note.unwrap_or_default();
        assert!(note.contains("SSD `intel-x25m-80gb` holds") && note.contains("instead of"), "{note}");
    }
}
