//! `tierlab._native`, the extension module of tierlab's Python wheel: the Python API's
//! bindings (`tierlab-py`, over the study commands of `tierlab-commands`) and the whole
//! `tierlab` command line (`tierlab-cli`) for the `tierlab` command the wheel installs.
//! The two are separate front ends side by side: the API does not go through the command
//! line.

use pyo3::prelude::*;

/// Run `tierlab ARGS…` (with the program name) as the binary does, printing to stdout and
/// stderr; returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<String>) -> PyResult<i32> {
    tierlab_py::guarded(py, || {
        let code = py.detach(|| tierlab_cli::main(args.into_iter().map(Into::into)));
        Ok(if code == std::process::ExitCode::SUCCESS { 0 } else { 1 })
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    tierlab_py::register(m)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
