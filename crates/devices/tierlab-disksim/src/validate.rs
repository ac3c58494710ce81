//! Replay a DiskSim validation trace through the imported drive and score it.
//!
//! The replay keeps exactly one request outstanding: the first is issued at time 0, each
//! later one when the previous completes in the simulation plus the previous line's gap,
//! so the simulated response time is the simulated service time.

use crate::demerit::{demerit, mean_abs_error};
use crate::error::Error;
use crate::import::{import_drive, Semantics};
use crate::trace::{find_trace, read_trace, TraceRecord};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tierlab_hdd::Mechanics;
use tierlab_engine::DeviceOp;
use tierlab_types::SECTOR_BYTES;

/// How well the model reproduces one real drive.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriveValidation {
    pub drive: String,
    pub requests: usize,
    pub demerit_ms: f64,
    /// Mean over requests of |simulated − measured| service time: the request-by-request
    /// error, where the demerit compares only the two distributions.
    pub mean_abs_error_ms: f64,
    pub mean_measured_ms: f64,
    pub mean_simulated_ms: f64,
    /// Whose behaviour the import followed.
    pub semantics: Semantics,
    /// What the import approximates or takes as DiskSim does (`Imported::notes`).
    pub notes: Vec<String>,
}

/// Replay `trace` through `mech`; the simulated service times in milliseconds.
pub fn replay(mech: &mut Mechanics, trace: &[TraceRecord]) -> Vec<f64> {
    let mut out = Vec::with_capacity(trace.len());
    let mut t_ns: u64 = 0;
    for r in trace {
        let op = DeviceOp { op: r.op, offset_bytes: r.block.saturating_mul(SECTOR_BYTES), len_bytes: r.blocks.saturating_mul(SECTOR_BYTES), fua: false };
        let done = mech.access(t_ns, &op).done_ns.max(t_ns);
        out.push((done - t_ns) as f64 / 1.0e6);
        t_ns = done.saturating_add((r.gap_us * 1000.0).round() as u64);
    }
    out
}

/// `dir` validated whichever it holds: a drive (a directory with a `.parv` file) as
/// [`validate_drive_as`] does, or else every drive in the directories below it as
/// [`validate_all_as`] does.
pub fn validate_path_as(dir: &Path, semantics: Semantics) -> Result<Vec<DriveValidation>, Error> {
    let is_drive = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().any(|e| e.path().extension().is_some_and(|x| x == "parv")))
        .unwrap_or(false);
    if is_drive {
        Ok(vec![validate_drive_as(dir, semantics)?])
    } else {
        validate_all_as(dir, semantics)
    }
}

/// Import the drive in `dir`, replay its validation trace, and compute the demerit.
pub fn validate_drive(dir: &Path) -> Result<DriveValidation, Error> {
    validate_drive_as(dir, Semantics::Drive)
}

/// `validate_drive` with the drive imported under `semantics`.
pub fn validate_drive_as(dir: &Path, semantics: Semantics) -> Result<DriveValidation, Error> {
    let imported = import_drive(dir)?.with_semantics(semantics);
    let trace_dir = if dir.is_dir() { dir.to_path_buf() } else { dir.parent().map(Path::to_path_buf).unwrap_or_default() };
    let trace = read_trace(&find_trace(&trace_dir, &imported.parv)?)?;
    let notes = imported.notes;
    let mut mech = Mechanics::new(imported.spec).map_err(|e| Error::new(imported.parv.display().to_string(), 0, e.parameter, e.problem))?;
    let simulated = replay(&mut mech, &trace);
    let measured: Vec<f64> = trace.iter().map(|r| r.measured_us / 1000.0).collect();
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
    let drive = trace_dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok(DriveValidation {
        drive,
        requests: trace.len(),
        demerit_ms: demerit(&measured, &simulated),
        mean_abs_error_ms: mean_abs_error(&measured, &simulated),
        mean_measured_ms: mean(&measured),
        mean_simulated_ms: mean(&simulated),
        semantics,
        notes,
    })
}

/// `validate_drive` for every subdirectory of `dir`, sorted by name.
pub fn validate_all(dir: &Path) -> Result<Vec<DriveValidation>, Error> {
    validate_all_as(dir, Semantics::Drive)
}

/// `validate_all` with every drive imported under `semantics`.
pub fn validate_all_as(dir: &Path, semantics: Semantics) -> Result<Vec<DriveValidation>, Error> {
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::new(dir.display().to_string(), 0, "", format!("cannot list directory: {e}")))?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    subdirs.iter().map(|d| validate_drive_as(d, semantics)).collect()
}
