//! Running the `tierlab` binary as a user would, and golden files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn tierlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tierlab"))
        .args(args)
        .env("CI", "true") // no progress bars
        .output()
        .expect("the tierlab binary runs")
}

/// Stdout of a command that must succeed.
pub fn ok(args: &[&str]) -> String {
    let out = tierlab(args);
    assert!(out.status.success(), "tierlab {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Stderr of a command that must fail, and fail without a panic.
pub fn fails(args: &[&str]) -> String {
    let out = tierlab(args);
    assert!(!out.status.success(), "tierlab {args:?} should have failed");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "tierlab {args:?} panicked: {err}");
    err
}

/// Compare with `tests/golden/NAME`; `TIERLAB_BLESS=1` rewrites it instead.
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("TIERLAB_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing golden file {}", path.display()));
    assert!(expected == actual, "output differs from {}:\n--- expected\n{expected}\n--- actual\n{actual}", path.display());
}

pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("valid JSON")
}

/// `../shared` beside the checkout, if it is there (tests that read its traces skip
/// without it).
pub fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared");
    if p.join("traces").is_dir() {
        Some(p)
    } else {
        eprintln!("note: ../shared is absent; skipping");
        None
    }
}
