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

/// Headless Chromium with a window of `width` × `height` and its profile in `dir`.
fn headless(browser: &Path, dir: &Path, width: u32, height: u32) -> Command {
    let mut c = Command::new(browser);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        &format!("--user-data-dir={}", dir.join("profile").display()),
        &format!("--window-size={width},{height}"),
    ]);
    c
}

/// A new directory beside `page` for one Chromium run and its profile: tests of one
/// binary run on parallel threads, and two Chromiums on one profile refuse each other
/// (its SingletonLock).
fn own_dir(page: &Path, prefix: &str) -> PathBuf {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = page.parent().unwrap().join(format!("{prefix}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Load `page` in headless Chromium at `width` × `height` and take a screenshot.
pub fn load(browser: &Path, page: &Path, width: u32, height: u32) -> Loaded {
    let dir = own_dir(page, "chromium");
    let shot = dir.join("shot.png");
    let out = headless(browser, &dir, width, height)
        .args(["--enable-logging=stderr", "--v=0", &format!("--screenshot={}", shot.display())])
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

/// What the browser measured on a report's charts and tables (see [`inspect`]).
#[derive(Debug, serde::Deserialize)]
pub struct Inspection {
    /// The viewport's width, CSS px, and the page's scroll width (wider: it scrolls sideways).
    pub viewport_width: f64,
    pub scroll_width: f64,
    pub charts: Vec<ChartFacts>,
    /// Each table's and preformatted block's right edge, CSS px.
    pub blocks: Vec<Block>,
}

#[derive(Debug, serde::Deserialize)]
pub struct ChartFacts {
    /// The chart's first words (its caption), to name it in a failure.
    pub caption: String,
    pub x_ticks: Vec<String>,
    pub y_ticks: Vec<String>,
    /// Pairs of texts whose drawn boxes overlap (by more than a pixel each way).
    pub overlaps: Vec<(String, String)>,
    /// Texts drawn (partly) outside the chart.
    pub outside: Vec<String>,
    /// Pairs of series lines (by their order in the chart) of which one has a point on a
    /// point of the other, so that the one drawn later hides the other there.
    pub hidden_lines: Vec<(usize, usize)>,
}

#[derive(Debug, serde::Deserialize)]
pub struct Block {
    pub tag: String,
    pub right: f64,
    /// How much of its content it hides behind a sideways scroll, px.
    pub hidden: f64,
}

/// Runs in the page: every text box of every chart as the browser drew it (its local box
/// through its transform: turned labels are measured turned), tested pairwise for overlap
/// by separating axes; the tick labels; each table's extent. The result goes into the DOM
/// as JSON, which `--dump-dom` prints.
const INSPECT_JS: &str = r#"
(function () {
  function corners(t) {
    var b = t.getBBox(), m = t.getScreenCTM();
    function p(x, y) { return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]; }
    return [p(b.x, b.y), p(b.x + b.width, b.y), p(b.x + b.width, b.y + b.height), p(b.x, b.y + b.height)];
  }
  function overlap(a, b) {
    var polys = [a, b];
    for (var k = 0; k < 2; k++) {
      var q = polys[k];
      for (var i = 0; i < 4; i++) {
        var e = [q[(i + 1) % 4][0] - q[i][0], q[(i + 1) % 4][1] - q[i][1]];
        var len = Math.hypot(e[0], e[1]);
        if (len < 1e-6) continue;
        var n = [-e[1] / len, e[0] / len];
        var pa = a.map(function (p) { return p[0] * n[0] + p[1] * n[1]; });
        var pb = b.map(function (p) { return p[0] * n[0] + p[1] * n[1]; });
        var ov = Math.min(Math.max.apply(null, pa), Math.max.apply(null, pb)) - Math.max(Math.min.apply(null, pa), Math.min.apply(null, pb));
        if (ov <= 1.0) return false;
      }
    }
    return true;
  }
  var out = { viewport_width: document.documentElement.clientWidth, scroll_width: document.documentElement.scrollWidth, charts: [], blocks: [] };
  document.querySelectorAll('svg').forEach(function (svg) {
    var fig = svg.closest('figure'), cap = fig && fig.querySelector('figcaption');
    var texts = Array.prototype.filter.call(svg.querySelectorAll('text'), function (t) { return t.textContent.trim() !== ''; });
    var boxes = texts.map(corners);
    var r = svg.getBoundingClientRect();
    var c = { caption: cap ? cap.textContent.slice(0, 80) : '(no caption)', x_ticks: [], y_ticks: [], overlaps: [], outside: [] };
    texts.forEach(function (t, i) {
      if (t.classList.contains('tick-x')) c.x_ticks.push(t.textContent);
      if (t.classList.contains('tick-y')) c.y_ticks.push(t.textContent);
      var xs = boxes[i].map(function (p) { return p[0]; }), ys = boxes[i].map(function (p) { return p[1]; });
      if (Math.min.apply(null, xs) < r.left - 1 || Math.max.apply(null, xs) > r.right + 1 || Math.min.apply(null, ys) < r.top - 1 || Math.max.apply(null, ys) > r.bottom + 1) c.outside.push(t.textContent);
      for (var j = 0; j < i; j++) if (overlap(boxes[i], boxes[j])) c.overlaps.push([texts[j].textContent, t.textContent]);
    });
    // A series' line is its points; two lines with a point in common (within a pixel
    // across, a pixel and a half up or down) hide one another there.
    var lines = Array.prototype.map.call(svg.querySelectorAll('polyline.series-line'), function (l) {
      return l.getAttribute('points').trim().split(/\s+/).map(function (p) { return p.split(',').map(Number); });
    });
    c.hidden_lines = [];
    for (var i = 0; i < lines.length; i++) for (var j = i + 1; j < lines.length; j++) {
      var shared = lines[i].some(function (p) { return lines[j].some(function (q) { return Math.abs(p[0] - q[0]) < 1 && Math.abs(p[1] - q[1]) < 1.5; }); });
      if (shared) c.hidden_lines.push([i, j]);
    }
    out.charts.push(c);
  });
  document.querySelectorAll('table, pre').forEach(function (t) {
    out.blocks.push({ tag: t.tagName.toLowerCase(), right: t.getBoundingClientRect().right, hidden: Math.max(0, t.scrollWidth - t.clientWidth) });
  });
  var pre = document.createElement('pre');
  pre.id = 'tierlab-inspection';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"#;

/// Load a copy of `page` with [`INSPECT_JS`] at the end of its body in headless Chromium
/// at `width` px and return what it measured.
pub fn inspect(browser: &Path, page: &Path, width: u32) -> Inspection {
    let dir = own_dir(page, "chromium-inspect");
    let html = std::fs::read_to_string(page).unwrap();
    let copy = dir.join("inspect.html");
    let at = html.rfind("</body>").unwrap_or(html.len());
    std::fs::write(&copy, format!("{}<script>{INSPECT_JS}</script>{}", &html[..at], &html[at..])).unwrap();
    let out = headless(browser, &dir, width, 1000)
        .arg("--dump-dom")
        .arg(format!("file://{}", copy.canonicalize().unwrap().display()))
        .output()
        .expect("Chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"tierlab-inspection\">").unwrap_or_else(|| panic!("no inspection in the page {}: {}", page.display(), String::from_utf8_lossy(&out.stderr)));
    let json = &dom[start + "<pre id=\"tierlab-inspection\">".len()..];
    let json = &json[..json.find("</pre>").unwrap()];
    let json = json.replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u{a0}").replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("inspection of {}: {e}: {json}", page.display()))
}

/// A report as a reader sees it, at 1200 px: it loads without console errors and is not
/// blank; every chart has labels on both axes, no text over other text or outside it and
/// no series line drawn over another;
/// no table or block is wider than the window or hides part of itself, and nothing makes
/// the page scroll sideways.
pub fn check_report(browser: &Path, page: &Path) {
    let name = page.display();
    let blank = page.with_file_name("blank.html");
    std::fs::write(&blank, "<!doctype html><html><body></body></html>").unwrap();
    let empty = load(browser, &blank, 1200, 2000);
    let loaded = load(browser, page, 1200, 2000);
    assert_eq!(loaded.size, (1200, 2000), "{name}");
    assert!(loaded.console_errors.is_empty(), "{name}: {:?}", loaded.console_errors);
    assert!(loaded.png_bytes > 10 * empty.png_bytes, "{name}: {} bytes against a blank page's {}", loaded.png_bytes, empty.png_bytes);
    let i = inspect(browser, page, 1200);
    assert!(!i.charts.is_empty(), "{name}: no charts");
    for c in &i.charts {
        assert!(c.x_ticks.len() >= 2 && c.y_ticks.len() >= 2, "{name}: chart `{}` has x ticks {:?} and y ticks {:?}", c.caption, c.x_ticks, c.y_ticks);
        assert!(c.overlaps.is_empty(), "{name}: chart `{}` has overlapping texts {:?}", c.caption, c.overlaps);
        assert!(c.outside.is_empty(), "{name}: chart `{}` has texts outside it {:?}", c.caption, c.outside);
        assert!(c.hidden_lines.is_empty(), "{name}: chart `{}` has series lines drawn over each other (series, by order) {:?}", c.caption, c.hidden_lines);
    }
    for b in &i.blocks {
        assert!(b.right <= i.viewport_width + 0.5, "{name}: a {} reaches {} px in a {} px window", b.tag, b.right, i.viewport_width);
        assert!(b.hidden <= 1.0, "{name}: a {} hides {} px of its content behind a scroll", b.tag, b.hidden);
    }
    assert!(i.scroll_width <= i.viewport_width + 0.5, "{name}: the page is {} px wide in a {} px window", i.scroll_width, i.viewport_width);
}
