//! Loading a report in a real headless browser (Chromium, which `.ci/run` installs).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Chromium binary, or `None` (and a note) where there is none outside CI. In CI a
/// missing browser is a failure: `.ci/run` installs it.
pub fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in ["/usr/bin", "/usr/local/bin", "/snap/bin"] {
            let p = Path::new(dir).join(name);
            if p.exists() {
                return Some(p);
            }
        }
    }
    assert!(std::env::var_os("CI").is_none(), "CI needs Chromium (installed by .ci/run) to check the HTML reports");
    eprintln!("note: no Chromium here; the browser check is skipped");
    None
}

/// What the browser made of a page.
pub struct Loaded {
    /// The screenshot's width and height, px.
    pub size: (u32, u32),
    pub png_bytes: usize,
    /// Console messages of level warning or error the browser logged for the page.
    pub console_errors: Vec<String>,
}

/// Load `page` in headless Chromium at `width` × `height` and take a screenshot.
pub fn load(browser: &Path, page: &Path, width: u32, height: u32) -> Loaded {
    let dir = page.parent().unwrap().join(format!("chromium-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("shot.png");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", dir.join("profile").display()),
            &format!("--window-size={width},{height}"),
            &format!("--screenshot={}", shot.display()),
        ])
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output()
        .expect("Chromium runs");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && shot.exists(), "Chromium failed on {}: {log}", page.display());
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[1..4], b"PNG", "a PNG screenshot");
    let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    // Chromium logs a page's console as `…:CONSOLE(line)] "message", source: …`, with the
    // level in the prefix (INFO, WARNING, ERROR).
    let console_errors = log.lines().filter(|l| l.contains("CONSOLE") && (l.contains(":ERROR:") || l.contains(":WARNING:"))).map(str::to_string).collect();
    Loaded { size: (be(16), be(20)), png_bytes: png.len(), console_errors }
}
