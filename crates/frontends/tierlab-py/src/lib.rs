//! The Python bindings of tierlab's study commands, registered into the extension module
//! `tierlab._native` (built by `tierlab-wheel`). They call a study command by its path and
//! named parameters ([`Job`], through `tierlab_commands::api`), stream a trace as column
//! batches ([`TraceBatches`]), describe each command's parameters for the functions'
//! signatures, and turn a failure into the typed exception of `tierlab.errors` with its
//! file, line and field. Everything a user calls is in the Python package
//! (`python/tierlab`), which documents it.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;
use tierlab_commands::api::{self, Failure, FailureKind};
use tierlab_types::Op;

/// `failure` as the matching exception of `tierlab.errors`.
fn raise(py: Python<'_>, failure: Failure) -> PyErr {
    let name = match failure.kind {
        FailureKind::Usage => "UsageError",
        FailureKind::Trace => "TraceError",
        FailureKind::Config => "ConfigError",
        FailureKind::Interrupted => "Interrupted",
        FailureKind::Other => "Error",
    };
    let (file, line, field) = match failure.location {
        Some(at) => (Some(at.file), (at.line > 0).then_some(at.line), (!at.field.is_empty()).then_some(at.field)),
        None => (None, None, None),
    };
    let made = py
        .import("tierlab.errors")
        .and_then(|m| m.getattr(name))
        .and_then(|class| class.call1((failure.message.clone(), file, line, field)));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}

/// A panic's message.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
}

/// Run `f`, turning a panic into `tierlab.errors.Error`, so that the interpreter (a
/// Jupyter kernel, a Ray worker) lives on. The extension is built to unwind for this
/// (`[profile.python]` in the workspace's Cargo.toml).
pub fn guarded<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(raise(py, Failure { kind: FailureKind::Other, message: format!("internal error (a bug in tierlab, please report it): {}", panic_message(&*p)), location: None }))
    })
}

/// A study command running on a thread of its own.
#[pyclass(module = "tierlab._native")]
struct Job {
    job: Mutex<Option<api::Job>>,
}

#[pymethods]
impl Job {
    /// Start the command at `path` (`["array", "simulate"]`) with `params`, a JSON object
    /// of its parameters by name; its report comes back as JSON. A call the command refuses
    /// raises `tierlab.UsageError`.
    #[new]
    fn new(py: Python<'_>, path: Vec<String>, params: &str) -> PyResult<Self> {
        guarded(py, || {
            let job = api::Job::call(&path, &object(params).map_err(|f| raise(py, f))?).map_err(|f| raise(py, f))?;
            Ok(Job { job: Mutex::new(Some(job)) })
        })
    }

    /// Wait up to `timeout_s` seconds without holding the GIL; True once the command ended.
    fn wait(&self, py: Python<'_>, timeout_s: f64) -> bool {
        let timeout = Duration::from_secs_f64(timeout_s.clamp(0.0, 3600.0));
        py.detach(|| match self.job.lock() {
            Ok(guard) => guard.as_ref().is_none_or(|j| j.wait(timeout)),
            Err(_) => true,
        })
    }

    /// The command's progress bars, oldest first: (message, position, length or None).
    fn progress(&self) -> Vec<(String, u64, Option<u64>)> {
        match self.job.lock() {
            Ok(guard) => guard.as_ref().map_or_else(Vec::new, |j| {
                j.progress().into_iter().map(|b| (b.message, b.position, b.length)).collect()
            }),
            Err(_) => Vec::new(),
        }
    }

    /// Stop the command (its simulations at their next progress point): `finish` then
    /// raises `Interrupted`. False if it had already ended.
    fn stop(&self) -> bool {
        match self.job.lock() {
            Ok(guard) => guard.as_ref().is_some_and(|j| j.stop()),
            Err(_) => false,
        }
    }

    /// Wait for the end (without the GIL) and return what the command printed, or raise
    /// the typed error of `tierlab.errors`. Once only.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let job = self.job.lock().ok().and_then(|mut g| g.take());
        let job = job.ok_or_else(|| PyRuntimeError::new_err("this job has already finished"))?;
        match py.detach(|| job.finish()) {
            Ok(out) => Ok(PyBytes::new(py, &out)),
            Err(f) => Err(raise(py, f)),
        }
    }
}

/// A configuration given as JSON text, as a TOML document.
#[pyfunction]
fn json_to_toml(py: Python<'_>, json: &str) -> PyResult<String> {
    guarded(py, || api::json_to_toml(json).map_err(|f| raise(py, f)))
}

/// Panic with `message`, inside and outside a command's thread: the package's tests check
/// that each becomes `tierlab.errors.Error` and the interpreter lives on.
#[pyfunction]
fn _panic(py: Python<'_>, message: String, on_thread: bool) -> PyResult<()> {
    if on_thread {
        let job = api::Job::spawn_panic(message).map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        return py.detach(|| job.finish()).map(|_| ()).map_err(|f| raise(py, f));
    }
    guarded(py, || panic!("{message}"))
}

/// A trace read in batches of columns: each batch is a tuple of `bytes` holding
/// little-endian arrays — time_ns (u64), volume (u32), offset_bytes (u64),
/// len_bytes (u64), is_write (u8) — for Arrow to wrap without copying again.
#[pyclass(module = "tierlab._native")]
struct TraceBatches {
    reader: Mutex<tierlab_trace::TraceReader>,
    batch_rows: usize,
}

type Columns<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

#[pymethods]
impl TraceBatches {
    /// Open `path` with the trace parameters `params`, a JSON object (`{"format": "msr"}`).
    #[new]
    fn new(py: Python<'_>, path: PathBuf, params: &str, batch_rows: usize) -> PyResult<Self> {
        guarded(py, || {
            let params = object(params).map_err(|f| raise(py, f))?;
            let reader = py.detach(|| api::open_trace(&path, &params)).map_err(|f| raise(py, f))?;
            Ok(TraceBatches { reader: Mutex::new(reader), batch_rows: batch_rows.max(1) })
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Columns<'py>>> {
        guarded(py, || self.next_batch(py))
    }
}

impl TraceBatches {
    fn next_batch<'py>(&self, py: Python<'py>) -> PyResult<Option<Columns<'py>>> {
        let n = self.batch_rows;
        let read = py.detach(|| {
            let mut reader = match self.reader.lock() {
                Ok(r) => r,
                Err(_) => return Err(Failure { kind: FailureKind::Other, message: "the trace reader failed earlier".into(), location: None }),
            };
            let (mut time, mut volume, mut offset, mut len, mut write) =
                (Vec::with_capacity(n * 8), Vec::with_capacity(n * 4), Vec::with_capacity(n * 8), Vec::with_capacity(n * 8), Vec::with_capacity(n));
            for r in reader.by_ref().take(n) {
                let r = r.map_err(|e| api::failure(&e.into()))?;
                time.extend_from_slice(&r.time_ns.to_le_bytes());
                volume.extend_from_slice(&r.volume.to_le_bytes());
                offset.extend_from_slice(&r.offset_bytes.to_le_bytes());
                len.extend_from_slice(&r.len_bytes.to_le_bytes());
                write.push(u8::from(r.op == Op::Write));
            }
            Ok((time, volume, offset, len, write))
        });
        let (time, volume, offset, len, write) = read.map_err(|f| raise(py, f))?;
        if write.is_empty() {
            return Ok(None);
        }
        Ok(Some((PyBytes::new(py, &time), PyBytes::new(py, &volume), PyBytes::new(py, &offset), PyBytes::new(py, &len), PyBytes::new(py, &write))))
    }
}

/// The design families and their report colours: (name, mode, `#rrggbb`).
#[pyfunction]
fn design_families() -> Vec<(&'static str, String)> {
    api::design_families()
}

/// The parameters of the command at `path` (`["array", "simulate"]`) as JSON text, from
/// the definitions its `--help` prints; `None` if there is no such command. The package's
/// functions take their signatures and docstrings from it.
#[pyfunction]
fn describe(path: Vec<String>) -> Option<String> {
    api::describe(&path).and_then(|spec| serde_json::to_string(&spec).ok())
}

/// A JSON object of parameters by name.
fn object(json: &str) -> Result<serde_json::Map<String, serde_json::Value>, Failure> {
    let usage = |message: String| Failure { kind: FailureKind::Usage, message, location: None };
    match serde_json::from_str(json) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err(usage("parameters must be an object of values by name".into())),
        Err(e) => Err(usage(format!("parameters are not JSON: {e}"))),
    }
}

/// Add the bindings to the extension module `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Job>()?;
    m.add_class::<TraceBatches>()?;
    m.add_function(wrap_pyfunction!(json_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    m.add_function(wrap_pyfunction!(design_families, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
