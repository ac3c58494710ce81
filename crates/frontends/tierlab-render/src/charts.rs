//! Charts for the self-contained HTML reports, and the page they sit in. A chart is inline
//! SVG written here (no scripts, no fonts, no network), with one axis and label layer for
//! every report:
//!
//! - x: categories at equal spacing (labels turned or thinned when they would touch), or a
//!   numeric axis, linear or logarithmic (decades, or powers of two for byte sizes);
//! - y: linear, or logarithmic with a label at every decade and at 2 and 5 where there is
//!   room; a value far above the rest is drawn at the top edge with an arrow and its value,
//!   and the axis shows the break, so that one outlier does not flatten every other line;
//! - series of markers (filled or hollow, four shapes), joined or side by side within a
//!   category, reference lines, point labels placed where they touch no other text, and a
//!   legend beside the plot.
//!
//! Text carries classes (`tick-x`, `tick-y`, `axis-title`, `legend`, `point-label`,
//! `outlier`) so that the browser test can find the tick labels and measure every box.

use anyhow::Result;
use std::fmt::Write;

/// Text escaped for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The start of a page: `<title>` and `<h1>` are `title`, the styles every report shares
/// are followed by `css`, the report's own.
pub fn page_head(title: &str, css: &str) -> String {
    let title = esc(title);
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n<style>\
         body{{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}}figure{{margin:1.5em 0}}figcaption{{font-weight:600;margin-bottom:.4em}}\n\
         svg{{max-width:100%;height:auto}}dl.columns{{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:13px;margin:.5em 0 1.5em}}\
         dl.columns dt{{font-weight:600}}dl.columns dd{{margin:0}}\n\
         {css}</style></head><body>\n<h1>{title}</h1>\n"
    )
}

/// A chart with its caption.
pub fn figure(out: &mut String, caption: &str, svg: &str) {
    let _ = write!(out, "<figure><figcaption>{}</figcaption>\n{svg}\n</figure>\n", esc(caption));
}

/// The start of a table up to its body: `<table><thead><tr>`, a `<th>` per column
/// heading, `</tr></thead><tbody>` and a newline.
pub fn table_head<S: AsRef<str>>(out: &mut String, header: &[S]) {
    out.push_str("<table><thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", esc(h.as_ref()));
    }
    out.push_str("</tr></thead><tbody>\n");
}

/// What each column of the table above measures: (column, meaning) pairs as a list.
pub fn column_notes(out: &mut String, notes: &[(&str, &str)]) {
    out.push_str("<dl class=\"columns\">\n");
    for (column, meaning) in notes {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(column), esc(meaning));
    }
    out.push_str("</dl>\n");
}

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Colour(pub u8, pub u8, pub u8);

impl Colour {
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// This colour mixed with white: `amount` 0 keeps it, 1 is white.
    pub fn lighter(self, amount: f64) -> Colour {
        let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * amount.clamp(0.0, 1.0)).round() as u8;
        Colour(mix(self.0), mix(self.1), mix(self.2))
    }
}

/// Ten distinct colours (Okabe–Ito's eight, colour-blind safe, then two more), for series
/// without a colour of their own; take them round with `PALETTE[i % PALETTE.len()]`.
pub const PALETTE: [Colour; 10] = [
    Colour(0x00, 0x72, 0xb2), // blue
    Colour(0xd5, 0x5e, 0x00), // vermillion
    Colour(0x00, 0x9e, 0x73), // bluish green
    Colour(0xcc, 0x79, 0xa7), // reddish purple
    Colour(0xe6, 0x9f, 0x00), // orange
    Colour(0x56, 0xb4, 0xe9), // sky blue
    Colour(0x00, 0x00, 0x00), // black
    Colour(0x8c, 0x56, 0x4b), // brown
    Colour(0x7f, 0x7f, 0x7f), // grey
    Colour(0xbc, 0xbd, 0x22), // olive
];

/// The storage design families, as the command line (`--mode`) and a report's `mode`
/// name them, and their colour in every report and in the Python plots
/// (`tierlab.palette`, which reads this table).
pub const DESIGN_FAMILIES: [(&str, Colour); 5] = [
    ("ssd-only", Colour(0xd5, 0x5e, 0x00)),
    ("hdd-only", Colour(0x59, 0x59, 0x59)),
    ("linear", Colour(0xcc, 0x79, 0xa7)),
    ("tiering", Colour(0x00, 0x72, 0xb2)),
    ("caching", Colour(0x00, 0x9e, 0x73)),
];

/// How a series marks its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Triangle,
    Square,
    Diamond,
}

impl Marker {
    pub const ALL: [Marker; 4] = [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond];
}

/// One line (or set of markers) of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub colour: Colour,
    /// A dashed line, in the chart and in the legend.
    pub dashed: bool,
    pub marker: Marker,
    /// (x, y, filled marker): x is a category's index or a value on a numeric axis; a
    /// hollow marker has a white centre.
    pub points: Vec<(f64, f64, bool)>,
}

/// A dashed black line drawn behind the series (a goal such as R_limit, a front).
#[derive(Clone, Debug)]
pub struct Reference {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Solid instead of dashed.
    pub solid: bool,
    pub colour: Colour,
}

impl Reference {
    /// A dashed black horizontal line across the whole plot at `y`.
    pub fn level(label: impl Into<String>, y: f64) -> Reference {
        Reference { label: label.into(), points: vec![(f64::NEG_INFINITY, y), (f64::INFINITY, y)], solid: false, colour: Colour(0, 0, 0) }
    }

    /// A solid black line through `points`.
    pub fn through(label: impl Into<String>, points: Vec<(f64, f64)>) -> Reference {
        Reference { label: label.into(), points, solid: true, colour: Colour(0, 0, 0) }
    }

    pub fn coloured(mut self, colour: Colour) -> Self {
        self.colour = colour;
        self
    }
}

/// A text at a point, placed beside it where it touches no other text (or left out).
#[derive(Clone, Debug)]
pub struct PointLabel {
    pub x: f64,
    pub y: f64,
    pub text: String,
}

/// The x axis.
#[derive(Clone, Copy, Debug)]
pub enum XAxis<'a> {
    /// Categories 0 … n − 1 at equal spacing.
    Categories(&'a [String]),
    /// Numbers on a linear axis.
    Linear,
    /// Numbers on a logarithmic axis, labelled at decades (and 2, 5 where there is room).
    Log,
    /// Byte sizes on a logarithmic axis, labelled at powers of two (4 KiB, 1 MiB, …).
    LogBytes,
}

pub struct Chart<'a> {
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub x: XAxis<'a>,
    pub series: &'a [Series],
    /// Join a series' points with lines (an ordered axis). Unjoined series on a category
    /// axis sit side by side within each category, so that equal values stay visible.
    pub joined: bool,
    pub references: Vec<Reference>,
    pub labels: Vec<PointLabel>,
    /// The unit an outlier's value is written with ("ms").
    pub y_unit: &'a str,
}

impl<'a> Chart<'a> {
    pub fn new(x_desc: &'a str, y_desc: &'a str, x: XAxis<'a>, series: &'a [Series]) -> Self {
        Chart { x_desc, y_desc, x, series, joined: false, references: Vec::new(), labels: Vec::new(), y_unit: "" }
    }

    pub fn joined(mut self) -> Self {
        self.joined = true;
        self
    }

    pub fn reference(mut self, r: Reference) -> Self {
        self.references.push(r);
        self
    }

    pub fn labels(mut self, labels: Vec<PointLabel>) -> Self {
        self.labels = labels;
        self
    }

    pub fn unit(mut self, unit: &'a str) -> Self {
        self.y_unit = unit;
        self
    }
}

/// What a report sets for all its charts.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Height of the plot with its axes, px (the chart is [`WIDTH`] wide; a long legend
    /// makes it taller).
    pub height: u32,
    /// Width of the legend at the right, px.
    pub legend_width: u32,
    /// A linear y axis without negative values starts at zero; otherwise it is padded
    /// below its lowest value (zero included) as above its highest.
    pub zero_based: bool,
}

/// Width of a chart, legend included, px.
pub const WIDTH: u32 = 960;
const TICK_FONT: f64 = 12.0;
const TITLE_FONT: f64 = 13.0;
const LEGEND_FONT: f64 = 12.0;
const LABEL_FONT: f64 = 11.5;
/// Line height of text, as a multiple of its size.
const LINE: f64 = 1.25;

/// A short, exact-enough number: 0.5, 2, 10, 12.5, 1000.
pub fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let decimals = if v.abs() >= 100.0 { 0 } else if v.abs() >= 1.0 { 2 } else { 4 };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

pub use tierlab_report::grouped;

/// An axis label: short numbers as they are, 10,000 and up with k, M, G, T.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    for (scale, suffix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e4, "k")] {
        if a >= scale {
            let scale = if suffix == "k" { 1e3 } else { scale };
            return format!("{}{suffix}", num(v / scale));
        }
    }
    if a != 0.0 && a < 1e-4 {
        return format!("{v:.0e}");
    }
    num(v)
}

/// A byte size at a power of two: 512 B, 4 KiB, 1 MiB.
pub fn bytes_label(v: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = v;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{} {}", num(v), UNITS[unit])
}

/// The width of `s` in a sans-serif font of `size` px, estimated from DejaVu Sans's
/// advances (a little generous: an estimate that errs keeps labels apart).
pub fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' => 0.30,
            ' ' => 0.33,
            'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '/' | '-' | '−' => 0.42,
            'm' | 'w' | 'M' | 'W' | '%' | '@' => 1.0,
            '0'..='9' | '$' | '+' | '=' | '<' | '>' | '~' | '_' => 0.64,
            c if c.is_uppercase() => 0.74,
            _ => 0.62,
        })
        .sum();
    em * size
}

/// An axis-aligned box: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect(f64, f64, f64, f64);

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.0 < o.2 && o.0 < self.2 && self.1 < o.3 && o.1 < self.3
    }

    fn inside(&self, o: &Rect) -> bool {
        self.0 >= o.0 && self.2 <= o.2 && self.1 >= o.1 && self.3 <= o.3
    }
}

/// Where text sits relative to its anchor point.
#[derive(Clone, Copy, PartialEq)]
enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn svg(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// The box of a one-line text of `size` whose baseline-middle is (x, y-centre).
fn text_box(s: &str, size: f64, x: f64, y_mid: f64, anchor: Anchor) -> Rect {
    let w = text_width(s, size);
    let left = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    let h = size * LINE;
    Rect(left, y_mid - h / 2.0, left + w, y_mid + h / 2.0)
}

/// An SVG being written.
struct Svg {
    out: String,
}

impl Svg {
    /// A line of text vertically centred on `y`.
    fn text(&mut self, class: &str, s: &str, x: f64, y: f64, size: f64, anchor: Anchor, extra: &str) {
        let _ = writeln!(
            self.out,
            r#"<text class="{class}" x="{x:.1}" y="{:.1}" font-size="{size}" text-anchor="{}"{extra}>{}</text>"#,
            y + size * 0.35,
            anchor.svg(),
            esc(s)
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64, dash: &str) {
        let dash = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
        let _ = writeln!(self.out, r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#);
    }

    fn polyline(&mut self, pts: &[(f64, f64)], stroke: &str, width: f64, dash: &str) {
        self.polyline_of("", pts, stroke, width, dash);
    }

    /// A polyline with a class (`series-line`: a series' line, which the browser test
    /// finds) or none.
    fn polyline_of(&mut self, class: &str, pts: &[(f64, f64)], stroke: &str, width: f64, dash: &str) {
        if pts.len() < 2 {
            return;
        }
        let dash = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
        let class = if class.is_empty() { String::new() } else { format!(r#" class="{class}""#) };
        let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = writeln!(self.out, r#"<polyline{class} points="{}" fill="none" stroke="{stroke}" stroke-width="{width}"{dash}/>"#, p.join(" "));
    }

    fn marker(&mut self, m: Marker, x: f64, y: f64, r: f64, colour: Colour, filled: bool) {
        let (fill, stroke) = if filled { (colour.hex(), colour.hex()) } else { ("#fff".to_string(), colour.hex()) };
        let attrs = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="1.8""#);
        let _ = match m {
            Marker::Circle => writeln!(self.out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" {attrs}/>"#),
            Marker::Square => {
                let s = r * 0.9;
                writeln!(self.out, r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {attrs}/>"#, x - s, y - s, 2.0 * s, 2.0 * s)
            }
            Marker::Triangle => {
                let s = r * 1.2;
                writeln!(self.out, r#"<polygon points="{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" {attrs}/>"#, y - s, x - s, y + s * 0.7, x + s, y + s * 0.7)
            }
            Marker::Diamond => {
                let s = r * 1.25;
                writeln!(self.out, r#"<polygon points="{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}" {attrs}/>"#, y - s, x + s, y + s, x - s)
            }
        };
    }
}

/// A tick: value, label (None: a grid line only).
type Tick = (f64, Option<String>);

/// Nice linear ticks over at least `lo..hi`: the step (1, 2 or 5 × 10^k) is the smallest
/// whose labels, `px` pixels along the axis, stand `gap` px apart, given each label's
/// extent along the axis. Returns the widened range and the ticks.
fn linear_ticks(lo: f64, hi: f64, px: f64, extent: &dyn Fn(&str) -> f64) -> ((f64, f64), Vec<Tick>) {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, lo + 1.0) };
    let span = hi - lo;
    let mut step = 10f64.powf((span / 20.0).log10().floor());
    for _ in 0..60 {
        for m in [1.0, 2.0, 5.0] {
            let s = step * m;
            let (a, b) = ((lo / s + 1e-9).floor() * s, (hi / s - 1e-9).ceil() * s);
            let n = ((b - a) / s).round() as usize;
            if n > 0 && n <= 40 {
                let spacing = px / n as f64;
                let widest = (0..=n).map(|i| extent(&tick_label(a + i as f64 * s))).fold(0.0, f64::max);
                if spacing >= widest + 10.0 && spacing >= 28.0 {
                    let ticks = (0..=n).map(|i| {
                        let v = a + i as f64 * s;
                        let v = if v.abs() < s * 1e-9 { 0.0 } else { v };
                        (v, Some(tick_label(v)))
                    });
                    return ((a, b), ticks.collect());
                }
            }
        }
        step *= 10.0;
    }
    ((lo, hi), vec![(lo, Some(tick_label(lo))), (hi, Some(tick_label(hi)))])
}

/// The 1-2-5 value at or below (`down`) or above `v` (> 0).
fn snap125(v: f64, down: bool) -> f64 {
    let e = v.log10().floor();
    let d = 10f64.powf(e);
    let m = v / d;
    let pick = if down {
        [5.0, 2.0, 1.0].into_iter().find(|c| *c <= m * (1.0 + 1e-9)).unwrap_or(1.0)
    } else {
        [1.0, 2.0, 5.0, 10.0].into_iter().find(|c| *c >= m * (1.0 - 1e-9)).unwrap_or(10.0)
    };
    pick * d
}

/// Logarithmic ticks over `lo..hi` (both > 0), `px` long: a grid line at every 1…9 × 10^k
/// where decades are wide enough (else at decades), a label at every decade, and at 2 and
/// 5 × 10^k too where all labels then stand apart; decades are thinned (every 2nd, 3rd…)
/// only when even they would touch.
fn log_ticks(lo: f64, hi: f64, px: f64, extent: &dyn Fn(&str) -> f64) -> Vec<Tick> {
    let per_decade = px / (hi.log10() - lo.log10()).max(1e-9);
    let pos = |v: f64| (v.log10() - lo.log10()) * per_decade;
    let (e0, e1) = (lo.log10().floor() as i32 - 1, hi.log10().ceil() as i32 + 1);
    let inside = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let fits = |vals: &[f64]| {
        vals.windows(2).all(|w| pos(w[1]) - pos(w[0]) >= (extent(&tick_label(w[0])) + extent(&tick_label(w[1]))) / 2.0 + 8.0)
    };
    let with = |ms: &[f64], every: i32| -> Vec<f64> {
        (e0..=e1).filter(|e| e.rem_euclid(every) == 0).flat_map(|e| ms.iter().map(move |m| m * 10f64.powi(e))).filter(|v| inside(*v)).collect()
    };
    let mut labelled = Vec::new();
    // Within about a decade every 1…9 × 10^k is labelled where they fit; across more, 1-2-5.
    const ALL: [f64; 9] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
    let short = hi / lo <= 12.0;
    let tiers: [(&[f64], i32); 7] = [(if short { &ALL[..] } else { &[1.0, 2.0, 5.0][..] }, 1), (&[1.0, 2.0, 5.0], 1), (&[1.0], 1), (&[1.0], 2), (&[1.0], 3), (&[1.0], 5), (&[1.0], 10)];
    for (ms, every) in tiers {
        let vals = with(ms, every);
        if fits(&vals) {
            labelled = vals;
            break;
        }
    }
    if labelled.len() < 2 {
        // Less than a decade and 2, 5 do not fall inside: label every 1…9 × 10^k that fits.
        let all = with(&ALL, 1);
        let mut kept: Vec<f64> = Vec::new();
        for v in all {
            if kept.last().is_none_or(|k| fits(&[*k, v])) {
                kept.push(v);
            }
        }
        if kept.len() > labelled.len() {
            labelled = kept;
        }
    }
    let grid: Vec<f64> = if per_decade >= 60.0 { with(&ALL, 1) } else { with(&[1.0], 1) };
    let mut ticks: Vec<Tick> = grid.into_iter().filter(|g| !labelled.iter().any(|l| (l / g - 1.0).abs() < 1e-9)).map(|g| (g, None)).collect();
    ticks.extend(labelled.into_iter().map(|v| (v, Some(tick_label(v)))));
    ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
    ticks
}

/// Byte sizes on a log axis: a label at every power of two (every 2nd, 4th, 10th … where
/// they would touch), a grid line at each labelled one.
fn log2_ticks(lo: f64, hi: f64, px: f64, extent: &dyn Fn(&str) -> f64) -> Vec<Tick> {
    let per_octave = px / (hi.log2() - lo.log2()).max(1e-9);
    let (k0, k1) = (lo.log2().ceil() as i32, hi.log2().floor() as i32);
    for every in [1, 2, 5, 10, 20] {
        let vals: Vec<f64> = (k0..=k1).filter(|k| k.rem_euclid(every) == 0).map(|k| 2f64.powi(k)).collect();
        let widest = vals.iter().map(|v| extent(&bytes_label(*v))).fold(0.0, f64::max);
        if per_octave * every as f64 >= widest + 10.0 {
            return vals.into_iter().map(|v| (v, Some(bytes_label(v)))).collect();
        }
    }
    vec![(lo, Some(bytes_label(lo))), (hi, Some(bytes_label(hi)))]
}

/// A scale from values to pixels.
#[derive(Clone, Copy, Debug)]
struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    /// Pixels of lo and hi.
    p0: f64,
    p1: f64,
}

impl Scale {
    fn at(&self, v: f64) -> f64 {
        let f = if self.log { (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()) } else { (v - self.lo) / (self.hi - self.lo) };
        self.p0 + f * (self.p1 - self.p0)
    }
}

/// The upper limit above which values are drawn as outliers at the top edge, if any: a
/// few values (at most a fifth, at most three) standing more than 8 times (log) or 2.5
/// times the span (linear) above the rest.
fn outlier_cap(values: &[f64], log: bool, floor: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|v| v.is_finite() && (!log || *v > 0.0)).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() < 4 {
        return None;
    }
    let max_out = (v.len() / 5).clamp(1, 3);
    for k in 1..=max_out {
        let (rest_hi, out_lo) = (v[v.len() - 1 - k], v[v.len() - k]);
        let rest_hi = rest_hi.max(floor);
        let far = if log { out_lo > 8.0 * rest_hi } else { out_lo - rest_hi > 2.5 * (rest_hi - v[0].min(0.0)).max(1e-12) };
        if far {
            return Some(if log { rest_hi * 2.0 } else { rest_hi + 0.15 * (rest_hi - v[0].min(0.0)) });
        }
    }
    None
}

/// The legend's entries: series, then references.
fn legend_entries(c: &Chart) -> usize {
    c.series.len() + c.references.iter().filter(|r| !r.label.is_empty()).count()
}

/// Legend text wrapped to `width` px: lines.
fn wrap(s: &str, width: f64, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ') {
        let cand = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if !cur.is_empty() && text_width(&cand, size) > width {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        } else {
            cur = cand;
        }
    }
    lines.push(cur);
    lines
}

/// How category labels are drawn: rotation (0, 45 or 90 degrees) and every how many.
fn category_layout(cats: &[String], slot: f64) -> (u32, usize) {
    let widest = cats.iter().map(|c| text_width(c, TICK_FONT)).fold(0.0, f64::max);
    let line = TICK_FONT * LINE;
    // Labels the report left blank already thin the axis.
    let shown: Vec<usize> = cats.iter().enumerate().filter(|(_, c)| !c.is_empty()).map(|(i, _)| i).collect();
    let gap = shown.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(1) as f64;
    if widest + 6.0 <= slot * gap {
        return (0, 1);
    }
    // Numbers read as well thinned as all there.
    if cats.iter().all(|c| c.is_empty() || c.parse::<f64>().is_ok()) {
        return (0, ((widest + 8.0) / slot).ceil() as usize);
    }
    if slot * std::f64::consts::FRAC_1_SQRT_2 >= line && widest <= 260.0 {
        return (45, 1);
    }
    let every = (line / slot).ceil().max(1.0) as usize;
    (90, every)
}

/// Draw `c` on a y axis that is logarithmic (`log`) or linear, as an `<svg>` element.
fn render(c: &Chart, style: Style, log: bool) -> Result<String> {
    let width = f64::from(WIDTH);
    let legend_w = f64::from(style.legend_width);
    // The y values and their range.
    let mut ys: Vec<f64> = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).filter(|v| v.is_finite() && (!log || *v > 0.0)).collect();
    let ref_ys: Vec<f64> = c.references.iter().flat_map(|r| r.points.iter().map(|p| p.1)).filter(|v| v.is_finite() && (!log || *v > 0.0)).collect();
    let floor = ref_ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let cap = outlier_cap(&ys, log, floor);
    ys.extend(&ref_ys);
    let shown: Vec<f64> = ys.iter().copied().filter(|v| cap.is_none_or(|k| *v <= k)).collect();
    let (mut lo, mut hi) = shown.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    if !lo.is_finite() {
        (lo, hi) = if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if let Some(k) = cap {
        hi = hi.max(k);
    }
    // Layout: the plot's box. The y labels' width is known after the ticks; start with a
    // guess and settle in two rounds.
    let legend_lines: usize = c.series.iter().map(|s| wrap(&s.label, legend_w - 40.0, LEGEND_FONT).len()).sum::<usize>()
        + c.references.iter().filter(|r| !r.label.is_empty()).map(|r| wrap(&r.label, legend_w - 40.0, LEGEND_FONT).len()).sum::<usize>();
    let legend_h = legend_lines as f64 * LEGEND_FONT * LINE + legend_entries(c) as f64 * 5.0 + 20.0;
    let (x_rot, x_every, x_label_h) = match c.x {
        XAxis::Categories(cats) => {
            let slot = (width - legend_w - 90.0) / cats.len().max(1) as f64;
            let (rot, every) = category_layout(cats, slot);
            let widest = cats.iter().map(|c| text_width(c, TICK_FONT)).fold(0.0, f64::max);
            let h = match rot {
                0 => TICK_FONT * LINE,
                45 => widest * std::f64::consts::FRAC_1_SQRT_2 + TICK_FONT,
                _ => widest + 4.0,
            };
            (rot, every, h)
        }
        _ => (0, 1, TICK_FONT * LINE),
    };
    let top = 14.0 + if cap.is_some() { 16.0 } else { 0.0 };
    let plot_h = f64::from(style.height) - top - x_label_h - 50.0;
    // Long turned category labels make the chart taller, not the plot flatter.
    let plot_h = plot_h.max(legend_h - top - 10.0).max(240.0);
    let height = top + plot_h + x_label_h + 50.0;
    let y_px = plot_h;
    let y_extent = |_: &str| TICK_FONT * LINE;
    let (y_ticks, (lo, hi)) = if log {
        let (a, b) = (snap125(lo, true), snap125(hi, false));
        let (a, b) = if a == b { (a / 2.0, b * 2.0) } else { (a, b) };
        let (a, b) = if let Some(k) = cap { (a, k.max(snap125(shown.iter().copied().fold(0.0, f64::max), false))) } else { (a, b) };
        (log_ticks(a, b, y_px, &y_extent), (a, b))
    } else {
        let (a, b) = if style.zero_based && lo >= 0.0 { (0.0, hi) } else { (lo.min(0.0), hi) };
        // The ticks widen the range to round values; a value may sit on the top one.
        let (r, t) = linear_ticks(a, b, y_px, &y_extent);
        let r = if let Some(k) = cap { (r.0, r.1.min(k.max(shown.iter().copied().filter(|v| *v <= k).fold(r.0, f64::max)))) } else { r };
        (t.into_iter().filter(|t| t.0 <= r.1 + 1e-9).collect::<Vec<_>>(), r)
    };
    let y_label_w = y_ticks.iter().filter_map(|t| t.1.as_ref()).map(|l| text_width(l, TICK_FONT)).fold(0.0, f64::max);
    let mut left = 10.0 + TITLE_FONT * LINE + 6.0 + y_label_w + 8.0;
    let right = width - legend_w - 16.0;
    // Turned labels reach left of their tick: the first ones must stay inside.
    if let (XAxis::Categories(cats), 45) = (c.x, x_rot) {
        for _ in 0..3 {
            let slot = (right - left) / cats.len().max(1) as f64;
            let reach = cats.iter().enumerate().map(|(i, l)| text_width(l, TICK_FONT) * std::f64::consts::FRAC_1_SQRT_2 + 6.0 - (i as f64 + 0.5) * slot).fold(0.0, f64::max);
            left = left.max(reach);
        }
    }
    let bottom = top + plot_h;
    let ys_scale = Scale { lo, hi, log, p0: bottom, p1: top };
    // The x scale.
    let (xs_scale, x_ticks): (Scale, Vec<Tick>) = match c.x {
        XAxis::Categories(cats) => {
            let n = cats.len().max(1) as f64;
            let ticks = cats.iter().enumerate().map(|(i, l)| (i as f64, (i % x_every == 0 && !l.is_empty()).then(|| l.clone()))).collect();
            (Scale { lo: -0.5, hi: n - 0.5, log: false, p0: left, p1: right }, ticks)
        }
        XAxis::Linear | XAxis::Log | XAxis::LogBytes => {
            let xs: Vec<f64> = c
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .chain(c.references.iter().flat_map(|r| r.points.iter().map(|p| p.0)))
                .filter(|v| v.is_finite())
                .collect();
            let xlog = !matches!(c.x, XAxis::Linear);
            let xs: Vec<f64> = xs.into_iter().filter(|v| !xlog || *v > 0.0).collect();
            let (a, b) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
            let (a, b) = if a.is_finite() { (a, b) } else if xlog { (1.0, 10.0) } else { (0.0, 1.0) };
            let px = right - left;
            let ext = |s: &str| text_width(s, TICK_FONT);
            match c.x {
                XAxis::Linear => {
                    let (a, b) = (a.min(0.0), if b > a { b * 1.05 } else { a + 1.0 });
                    let (r, t) = linear_ticks(a, b, px, &ext);
                    (Scale { lo: r.0, hi: r.1, log: false, p0: left, p1: right }, t)
                }
                XAxis::Log => {
                    let (a, b) = (snap125(a, true), snap125(b, false));
                    let (a, b) = if a == b { (a / 2.0, b * 2.0) } else { (a, b) };
                    (Scale { lo: a, hi: b, log: true, p0: left, p1: right }, log_ticks(a, b, px, &ext))
                }
                _ => {
                    let f = ((b / a).log2() * 0.04).max(0.25).exp2();
                    let (a, b) = (a / f, b * f);
                    (Scale { lo: a, hi: b, log: true, p0: left, p1: right }, log2_ticks(a, b, px, &ext))
                }
            }
        }
    };
    // The body first: the legend may end lower than the plot (see the end).
    let mut svg = Svg { out: String::new() };
    let mut placed: Vec<Rect> = Vec::new();
    // Grid and ticks.
    for (v, label) in &y_ticks {
        let y = ys_scale.at(*v);
        let colour = if label.is_some() { "#dcdcdc" } else { "#f0f0f0" };
        svg.line(left, y, right, y, colour, 1.0, "");
        if let Some(l) = label {
            svg.line(left - 5.0, y, left, y, "#444", 1.0, "");
            svg.text("tick-y", l, left - 8.0, y, TICK_FONT, Anchor::End, "");
            placed.push(text_box(l, TICK_FONT, left - 8.0, y, Anchor::End));
        }
    }
    let label_y = bottom + 8.0;
    for (v, label) in &x_ticks {
        let x = xs_scale.at(*v);
        let colour = if label.is_some() { "#dcdcdc" } else { "#f0f0f0" };
        if !matches!(c.x, XAxis::Categories(_)) || label.is_some() {
            svg.line(x, top, x, bottom, colour, 1.0, "");
        }
        if let Some(l) = label {
            svg.line(x, bottom, x, bottom + 5.0, "#444", 1.0, "");
            match x_rot {
                0 => {
                    svg.text("tick-x", l, x, label_y + TICK_FONT * 0.5, TICK_FONT, Anchor::Middle, "");
                    placed.push(text_box(l, TICK_FONT, x, label_y + TICK_FONT * 0.5, Anchor::Middle));
                }
                rot => {
                    let (tx, ty) = (x + TICK_FONT * 0.3, label_y);
                    let extra = format!(r#" transform="rotate(-{rot} {tx:.1} {:.1})""#, ty + TICK_FONT * 0.35);
                    svg.text("tick-x", l, tx, ty, TICK_FONT, Anchor::End, &extra);
                }
            }
        }
    }
    // Axes, and the break mark where outliers are cut off.
    svg.line(left, top, left, bottom, "#444", 1.2, "");
    svg.line(left, bottom, right, bottom, "#444", 1.2, "");
    if cap.is_some() {
        let y = top + 6.0;
        let _ = writeln!(svg.out, r##"<path d="M{:.1},{:.1} l10,-4 M{:.1},{:.1} l10,-4" stroke="#444" stroke-width="1.5" fill="none"/>"##, left - 5.0, y + 2.0, left - 5.0, y + 6.0);
    }
    // Axis titles.
    let x_title_y = bottom + x_label_h + 26.0;
    svg.text("axis-title", c.x_desc, (left + right) / 2.0, x_title_y, TITLE_FONT, Anchor::Middle, "");
    placed.push(text_box(c.x_desc, TITLE_FONT, (left + right) / 2.0, x_title_y, Anchor::Middle));
    let (tx, ty) = (14.0, (top + bottom) / 2.0);
    svg.text("axis-title", c.y_desc, tx, ty, TITLE_FONT, Anchor::Middle, &format!(r#" transform="rotate(-90 {tx:.1} {:.1})""#, ty + TITLE_FONT * 0.35));
    // Reference lines, across the plot where they run to infinity.
    for r in &c.references {
        let pts: Vec<(f64, f64)> = r
            .points
            .iter()
            .filter(|p| p.1.is_finite() && (!log || p.1 > 0.0))
            .map(|&(x, y)| {
                let px = if x == f64::NEG_INFINITY { left } else if x == f64::INFINITY { right } else { xs_scale.at(x).clamp(left, right) };
                (px, ys_scale.at(y.min(hi)).clamp(top, bottom))
            })
            .collect();
        svg.polyline(&pts, &r.colour.hex(), 1.6, if r.solid { "" } else { "7 4" });
    }
    // Series: lines, then markers; unjoined series on categories sit side by side.
    let cat_slot = match c.x {
        XAxis::Categories(cats) => (right - left) / cats.len().max(1) as f64,
        _ => 0.0,
    };
    let n = c.series.len();
    let dodge = |k: usize| -> f64 {
        if c.joined || cat_slot == 0.0 || n < 2 {
            return 0.0;
        }
        let step = (cat_slot * 0.7 / n as f64).min(12.0);
        (k as f64 - (n as f64 - 1.0) / 2.0) * step
    };
    let mut outliers: Vec<(f64, f64, f64)> = Vec::new();
    let mut markers: Vec<Rect> = Vec::new();
    let at = |k: usize, x: f64, y: f64| -> (f64, f64) {
        let px = xs_scale.at(x) + dodge(k);
        let py = if cap.is_some_and(|m| y > m) { top - 8.0 } else { ys_scale.at(y) };
        (px, py)
    };
    let radius = if n > 6 { 3.6 } else { 4.5 };
    let drawn = |s: &Series| -> Vec<(f64, f64, bool)> { s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite() && (!log || p.1 > 0.0)).collect() };
    // Points of different series that would fall on one another (equal values) are spread
    // a few pixels apart, up and down, so that none hides another; the legend says so.
    // Unjoined series on categories already sit side by side.
    let pixels: Vec<Vec<(f64, f64, bool, f64)>> = c
        .series
        .iter()
        .enumerate()
        .map(|(k, s)| {
            drawn(s)
                .into_iter()
                .map(|(x, y, filled)| {
                    let (px, py) = at(k, x, y);
                    (px, py, filled, y)
                })
                .collect()
        })
        .collect();
    let mut pixels = pixels;
    let spread = if c.joined || cat_slot == 0.0 { spread_apart(&mut pixels) } else { false };
    if c.joined {
        for (k, s) in c.series.iter().enumerate() {
            let line: Vec<(f64, f64)> = pixels[k].iter().map(|p| (p.0, p.1)).collect();
            svg.polyline_of("series-line", &line, &s.colour.hex(), 2.0, if s.dashed { "7 4" } else { "" });
        }
    }
    // Filled markers first, hollow ones over them: a hollow marker is the exception (a
    // missed goal) and stays in sight where another series has the same value.
    let layers = [false, true].into_iter().flat_map(|hollow| c.series.iter().enumerate().map(move |(k, s)| (hollow, k, s)));
    for (hollow, k, s) in layers {
        for &(px, py, filled, y) in pixels[k].iter().filter(|p| p.2 != hollow) {
            if cap.is_some_and(|m| y > m) {
                outliers.push((px, py, y));
                let _ = writeln!(svg.out, r#"<path d="M{px:.1},{:.1} l-6,9 h12 z" fill="{}"/>"#, py - 5.0, s.colour.hex());
            } else {
                svg.marker(s.marker, px, py, radius, s.colour, filled);
            }
            markers.push(Rect(px - radius, py - radius, px + radius, py + radius));
        }
    }
    // Outlier values above their arrows, then point labels, each where it touches no
    // other text.
    let plot_box = Rect(left, 0.0, right + 12.0, bottom);
    for (px, py, v) in outliers {
        let text = if c.y_unit.is_empty() { grouped(v, 0) } else { format!("{} {}", grouped(v, if v < 100.0 { 1 } else { 0 }), c.y_unit) };
        let text = format!("↑ {text}");
        let cands = [(px + 9.0, py, Anchor::Start), (px - 9.0, py, Anchor::End), (px, py + 18.0, Anchor::Middle)];
        if let Some((x, y, a)) = cands.into_iter().find(|(x, y, a)| {
            let b = text_box(&text, LABEL_FONT, *x, *y, *a);
            b.inside(&Rect(left, 0.0, right + 8.0, bottom)) && !placed.iter().any(|p| p.overlaps(&b))
        }) {
            svg.text("outlier", &text, x, y, LABEL_FONT, a, "");
            placed.push(text_box(&text, LABEL_FONT, x, y, a));
        }
    }
    for l in &c.labels {
        if !(l.x.is_finite() && l.y.is_finite()) || (log && l.y <= 0.0) || cap.is_some_and(|m| l.y > m) {
            continue;
        }
        let (px, py) = (xs_scale.at(l.x), ys_scale.at(l.y));
        let d = radius + 4.0;
        let cands = [
            (px + d, py - d, Anchor::Start),
            (px - d, py - d, Anchor::End),
            (px + d, py + d, Anchor::Start),
            (px - d, py + d, Anchor::End),
            (px, py - 2.2 * d, Anchor::Middle),
            (px, py + 2.2 * d, Anchor::Middle),
            (px + d, py - 3.0 * d, Anchor::Start),
            (px - d, py - 3.0 * d, Anchor::End),
            (px + d, py + 3.0 * d, Anchor::Start),
            (px - d, py + 3.0 * d, Anchor::End),
        ];
        let fits = |(x, y, a): &(f64, f64, Anchor)| {
            let b = text_box(&l.text, LABEL_FONT, *x, *y, *a);
            b.inside(&plot_box) && !placed.iter().any(|p| p.overlaps(&b)) && !markers.iter().any(|m| m.overlaps(&b))
        };
        if let Some((x, y, a)) = cands.into_iter().find(fits) {
            svg.text("point-label", &l.text, x, y, LABEL_FONT, a, "");
            placed.push(text_box(&l.text, LABEL_FONT, x, y, a));
        }
    }
    // The legend, beside the plot.
    let lx = width - legend_w + 4.0;
    let mut y = top + 8.0;
    for s in c.series {
        let line = s.colour.hex();
        svg.line(lx, y, lx + 26.0, y, &line, 2.0, if s.dashed { "6 3" } else { "" });
        svg.marker(s.marker, lx + 13.0, y, 4.0, s.colour, true);
        y = legend_text(&mut svg, &s.label, lx + 34.0, y, legend_w - 40.0);
    }
    for r in c.references.iter().filter(|r| !r.label.is_empty()) {
        svg.line(lx, y, lx + 26.0, y, &r.colour.hex(), 1.6, if r.solid { "" } else { "7 4" });
        y = legend_text(&mut svg, &r.label, lx + 34.0, y, legend_w - 40.0);
    }
    if spread {
        let what = if c.joined { "lines" } else { "markers" };
        y = legend_text(&mut svg, &format!("Equal values: {what} drawn {NUDGE_PX:.0}\u{a0}px apart"), lx, y + 4.0, legend_w - 6.0);
    }
    let height = height.max(y + 4.0);
    let head = format!(
        r#"<svg class="chart" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif" role="img"><rect width="100%" height="100%" fill="white"/>"#
    );
    Ok(format!("{head}\n{}</svg>", svg.out))
}

/// How far apart points of equal value are drawn, px.
const NUDGE_PX: f64 = 3.0;

/// Spreads apart, in place, points of different series (x px, y px, …) that would be drawn
/// on one another: at each x, points closer than 3/4 of [`NUDGE_PX`] (in a chain) form a
/// group, which is redrawn [`NUDGE_PX`] apart in its order, centred where it was; groups
/// that then come too close merge. Returns whether any point moved.
fn spread_apart<T: Copy>(series: &mut [Vec<(f64, f64, bool, T)>]) -> bool {
    // Every point: (x, y, series, index).
    let mut all: Vec<(f64, f64, usize, usize)> = series.iter().enumerate().flat_map(|(k, pts)| pts.iter().enumerate().map(move |(i, p)| (p.0, p.1, k, i))).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    let near = NUDGE_PX * 0.75;
    let mut moved = false;
    let mut start = 0;
    while start < all.len() {
        // One column: points within a pixel across of its first.
        let end = start + all[start..].iter().take_while(|p| (p.0 - all[start].0).abs() < 1.0).count();
        let column = &all[start..end];
        // Groups as (first, last) indices into the column, by y; merged until they stand apart.
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for i in 0..column.len() {
            match groups.last_mut() {
                Some(g) if column[i].1 - column[i - 1].1 < near => g.1 = i,
                _ => groups.push((i, i)),
            }
        }
        let placed = |g: &(usize, usize)| -> (f64, f64) {
            let m = (g.1 - g.0 + 1) as f64;
            let centre = column[g.0..=g.1].iter().map(|p| p.1).sum::<f64>() / m;
            (centre - (m - 1.0) / 2.0 * NUDGE_PX, centre + (m - 1.0) / 2.0 * NUDGE_PX)
        };
        loop {
            let clash = groups.windows(2).position(|w| placed(&w[1]).0 - placed(&w[0]).1 < near);
            match clash {
                Some(i) => {
                    groups[i].1 = groups[i + 1].1;
                    groups.remove(i + 1);
                }
                None => break,
            }
        }
        for g in groups.iter().filter(|g| g.1 > g.0) {
            let (top, _) = placed(g);
            for (r, p) in column[g.0..=g.1].iter().enumerate() {
                series[p.2][p.3].1 = top + r as f64 * NUDGE_PX;
            }
            moved = true;
        }
        start = end;
    }
    moved
}

/// A legend entry's text from (x, y), wrapped to `width`; returns the next entry's y.
fn legend_text(svg: &mut Svg, text: &str, x: f64, y: f64, width: f64) -> f64 {
    let lines = wrap(text, width, LEGEND_FONT);
    for (i, t) in lines.iter().enumerate() {
        svg.text("legend", t, x, y + i as f64 * LEGEND_FONT * LINE, LEGEND_FONT, Anchor::Start, "");
    }
    y + lines.len() as f64 * LEGEND_FONT * LINE + 5.0
}

/// `c` with a logarithmic y axis spanning its (positive) values.
pub fn plot_log(c: &Chart, style: Style) -> Result<String> {
    render(c, style, true)
}

/// `c` with a linear y axis spanning its values (and zero).
pub fn plot_linear(c: &Chart, style: Style) -> Result<String> {
    render(c, style, false)
}

/// One bar of a bar chart.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub colour: Colour,
    /// Hatched, and the note after the value: a bar that is not like the others (a
    /// design that cannot carry the load).
    pub note: Option<String>,
}

/// Horizontal bars, one per row with its label at the left and its value at its end, on
/// a linear axis from zero; bars far longer than the rest are cut at the right edge and
/// marked. `legend`: (colour, text) swatches at the right.
pub fn bars(rows: &[Bar], x_desc: &str, legend: &[(Colour, String)]) -> Result<String> {
    let width = f64::from(WIDTH);
    let legend_w = 150.0;
    let row_h = 20.0;
    let label_w = rows.iter().map(|b| text_width(&b.label, TICK_FONT)).fold(0.0, f64::max);
    let left = 10.0 + label_w + 8.0;
    let right = width - legend_w - 20.0;
    let top = 10.0;
    let bottom = top + row_h * rows.len().max(1) as f64;
    let height = bottom + TICK_FONT * LINE + 44.0;
    let values: Vec<f64> = rows.iter().map(|b| b.value).filter(|v| v.is_finite()).collect();
    let cap = outlier_cap(&values, false, 0.0);
    let hi = values.iter().copied().filter(|v| cap.is_none_or(|k| *v <= k)).fold(0.0, f64::max).max(cap.unwrap_or(0.0));
    // Room at the right for the longest value written after its bar.
    let value_text = |b: &Bar| format!("{}{}", tick_value(b.value), b.note.as_ref().map(|n| format!(" {n}")).unwrap_or_default());
    let widest_value = rows.iter().map(|b| text_width(&value_text(b), LABEL_FONT)).fold(0.0, f64::max);
    let px = (right - left - widest_value - 8.0).max(100.0);
    let ext = |s: &str| text_width(s, TICK_FONT);
    let ((lo, hi), ticks) = linear_ticks(0.0, if hi > 0.0 { hi } else { 1.0 }, px, &ext);
    let scale = Scale { lo, hi, log: false, p0: left, p1: left + px };
    let mut svg = Svg { out: String::new() };
    let _ = writeln!(
        svg.out,
        r#"<svg class="chart" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif" role="img"><rect width="100%" height="100%" fill="white"/>"#
    );
    let _ = writeln!(
        svg.out,
        r##"<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#555" stroke-width="3"/></pattern></defs>"##
    );
    for (v, l) in &ticks {
        let x = scale.at(*v);
        svg.line(x, top, x, bottom, "#e4e4e4", 1.0, "");
        if let Some(l) = l {
            svg.line(x, bottom, x, bottom + 5.0, "#444", 1.0, "");
            svg.text("tick-x", l, x, bottom + 8.0 + TICK_FONT * 0.5, TICK_FONT, Anchor::Middle, "");
        }
    }
    for (i, b) in rows.iter().enumerate() {
        let y = top + row_h * (i as f64 + 0.5);
        svg.text("tick-y", &b.label, left - 8.0, y, TICK_FONT, Anchor::End, "");
        if !b.value.is_finite() {
            svg.text("point-label", "not measured", left + 4.0, y, LABEL_FONT, Anchor::Start, "");
            continue;
        }
        let cut = cap.is_some_and(|k| b.value > k);
        let end = if cut { left + px } else { scale.at(b.value.max(0.0)) };
        let fill = if b.note.is_some() { "url(#hatch)".to_string() } else { b.colour.hex() };
        let _ = writeln!(svg.out, r#"<rect x="{left:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="{}"/>"#, y - row_h * 0.38, (end - left).max(0.5), row_h * 0.76, b.colour.hex());
        if cut {
            let _ = writeln!(svg.out, r#"<path d="M{:.1},{:.1} l6,-{:.1} M{:.1},{:.1} l6,-{:.1}" stroke="white" stroke-width="3"/>"#, end - 16.0, y + 8.0, 16.0, end - 10.0, y + 8.0, 16.0);
        }
        svg.text("point-label", &value_text(b), end + 5.0, y, LABEL_FONT, Anchor::Start, "");
    }
    svg.line(left, top, left, bottom, "#444", 1.2, "");
    svg.line(left, bottom, left + px, bottom, "#444", 1.2, "");
    svg.text("axis-title", x_desc, left + px / 2.0, bottom + TICK_FONT * LINE + 30.0, TITLE_FONT, Anchor::Middle, "");
    let lx = width - legend_w + 4.0;
    for (i, (colour, text)) in legend.iter().enumerate() {
        let y = top + 8.0 + i as f64 * 20.0;
        let _ = writeln!(svg.out, r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="12" fill="{}"/>"#, y - 6.0, colour.hex());
        svg.text("legend", text, lx + 22.0, y, LEGEND_FONT, Anchor::Start, "");
    }
    svg.out.push_str("</svg>");
    Ok(svg.out)
}

/// A value as a bar chart writes it: three significant figures, grouped thousands.
pub fn tick_value(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let decimals = if a >= 100.0 { 0 } else if a >= 10.0 { 1 } else if a >= 1.0 { 2 } else if a >= 0.01 { 3 } else if a == 0.0 { 0 } else { 5 };
    grouped(v, decimals)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STYLE: Style = Style { height: 400, legend_width: 180, zero_based: true };

    #[test]
    fn text_is_escaped_and_numbers_are_short() {
        assert_eq!(esc(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!((num(10.0), num(0.5), num(12.5), num(1400.0), num(0.0)), ("10".into(), "0.5".into(), "12.5".into(), "1400".into(), "0".into()));
        assert_eq!((grouped(913_310.4, 0), grouped(-1234.5, 1), grouped(12.0, 0)), ("913,310".into(), "-1,234.5".into(), "12".into()));
        let labels: Vec<String> = [0.1, 1.0, 5000.0, 10_000.0, 2e5, 1e6, 2.5e7, 1e9].map(tick_label).to_vec();
        assert_eq!(labels, ["0.1", "1", "5000", "10k", "200k", "1M", "25M", "1G"]);
        assert_eq!((bytes_label(4096.0), bytes_label(1024.0 * 1024.0 * 512.0), bytes_label(512.0)), ("4 KiB".into(), "512 MiB".into(), "512 B".into()));
    }

    #[test]
    fn a_page_starts_with_its_title_and_styles() {
        let head = page_head("a <b>", ".x{color:red}");
        assert!(head.starts_with("<!doctype html>\n") && head.ends_with("<h1>a &lt;b&gt;</h1>\n"), "{head}");
        assert!(head.contains("<title>a &lt;b&gt;</title>") && head.contains("figcaption{") && head.contains("\n.x{color:red}</style>"), "{head}");
    }

    /// The points of each `<polyline>` of an SVG with `class`.
    fn polylines(svg: &str, class: &str) -> Vec<Vec<(f64, f64)>> {
        let tag = format!(r#"<polyline class="{class}" points=""#);
        svg.match_indices(&tag)
            .map(|(i, _)| {
                let rest = &svg[i + tag.len()..];
                rest[..rest.find('"').unwrap()].split(' ').map(|p| p.split_once(',').map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap())).unwrap()).collect()
            })
            .collect()
    }

    /// Cache curves of two algorithms once drew the same miss ratios on the same line, and
    /// the one drawn later hid the other: equal series are drawn apart, and the legend says so.
    #[test]
    fn joined_series_of_equal_values_are_drawn_apart() {
        let curve = |label: &str, k: usize, ys: [f64; 4]| Series {
            label: label.into(),
            colour: PALETTE[k],
            dashed: false,
            marker: Marker::ALL[k],
            points: ys.iter().enumerate().map(|(i, y)| ((i + 1) as f64 * 1e6, *y, true)).collect(),
        };
        let series = [curve("fifo", 0, [0.5, 0.4, 0.3, 0.2]), curve("sieve", 1, [0.5, 0.4, 0.3, 0.2]), curve("lru", 2, [0.6, 0.45, 0.3, 0.25]), curve("arc", 3, [0.9, 0.8, 0.7, 0.6])];
        for x in [XAxis::Log, XAxis::Linear] {
            let svg = plot_linear(&Chart::new("size", "miss ratio", x, &series).joined(), STYLE).unwrap();
            let lines = polylines(&svg, "series-line");
            assert_eq!(lines.len(), 4);
            for i in 0..4 {
                for j in i + 1..4 {
                    for p in &lines[i] {
                        assert!(lines[j].iter().all(|q| (p.0 - q.0).abs() >= 1.0 || (p.1 - q.1).abs() >= 1.5), "lines {i} and {j} meet at {p:?}: {svg}");
                    }
                }
            }
            // Equal values stay within a few pixels of each other.
            for (a, b) in lines[0].iter().zip(&lines[1]) {
                assert!((a.1 - b.1).abs() <= 2.0 * NUDGE_PX, "{a:?} {b:?}");
            }
            assert!(svg.contains(">Equal values: lines drawn") && svg.contains("3\u{a0}px apart<"), "{svg}");
        }
        // Nothing equal: nothing moved, no note.
        let svg = plot_linear(&Chart::new("size", "miss ratio", XAxis::Log, &series[2..]).joined(), STYLE).unwrap();
        assert!(!svg.contains("Equal values"), "{svg}");
    }

    fn labels(ticks: &[Tick]) -> Vec<String> {
        ticks.iter().filter_map(|t| t.1.clone()).collect()
    }

    /// The compare report's cost axis once labelled "10000000" twice and nothing below
    /// 1 M: every decade is labelled, each once, with 2 and 5 where there is room.
    #[test]
    fn a_log_axis_labels_every_decade_once() {
        let ext = |s: &str| text_width(s, TICK_FONT);
        let ticks = log_ticks(100.0, 2e7, 400.0, &|_| 15.0);
        let l = labels(&ticks);
        for d in ["100", "1000", "10k", "100k", "1M", "10M"] {
            assert_eq!(l.iter().filter(|x| *x == d).count(), 1, "{d} in {l:?}");
        }
        let mut dedup = l.clone();
        dedup.dedup();
        assert_eq!(dedup, l);
        // Two decades over 400 px: room for 2 and 5.
        let l = labels(&log_ticks(0.1, 10.0, 400.0, &|_| 15.0));
        assert_eq!(l, ["0.1", "0.2", "0.5", "1", "2", "5", "10"]);
        // Less than a decade still has two labels.
        assert!(labels(&log_ticks(0.3, 0.9, 300.0, &|_| 15.0)).len() >= 2);
        // Twelve decades on 200 px of x axis: thinned, never touching.
        let l = labels(&log_ticks(1.0, 1e12, 200.0, &ext));
        assert!(l.len() >= 2 && l.len() <= 7, "{l:?}");
    }

    #[test]
    fn byte_sizes_are_labelled_at_powers_of_two() {
        let l = labels(&log2_ticks(1e6, 1.1e9, 600.0, &|s| text_width(s, TICK_FONT)));
        assert!(l.contains(&"1 MiB".to_string()) || l.contains(&"2 MiB".to_string()), "{l:?}");
        assert!(l.iter().all(|s| s.ends_with("iB")), "{l:?}");
        assert!(l.len() >= 4, "{l:?}");
    }

    #[test]
    fn linear_ticks_are_round_and_cover_the_range() {
        let ((a, b), t) = linear_ticks(0.0, 93.0, 300.0, &|_| 15.0);
        assert_eq!((a, b), (0.0, 100.0));
        assert!(t.iter().all(|t| t.1.is_some()) && t.len() >= 3);
    }

    #[test]
    fn one_far_value_is_an_outlier_and_ordinary_spread_is_not() {
        let ms = [8.0, 9.5, 11.0, 12.0, 14.0, 20.0, 913_310.0];
        assert!(outlier_cap(&ms, true, 10.0).is_some_and(|c| c < 913_310.0 && c >= 20.0));
        assert_eq!(outlier_cap(&[1.0, 3.0, 10.0, 30.0, 100.0], true, 0.0), None);
        assert_eq!(outlier_cap(&[1.0, 2.0, 3.0], true, 0.0), None);
    }

    fn boxes_of(svg: &str) -> Vec<(String, f64)> {
        svg.match_indices("class=\"").map(|(i, _)| (svg[i + 7..].split('"').next().unwrap().to_string(), 0.0)).collect()
    }

    #[test]
    fn a_chart_renders_as_inline_svg_without_fonts_or_addresses() {
        let cats = vec!["7 req/s".to_string(), "<14> & more".to_string()];
        let series = vec![
            Series { label: "dashed".into(), colour: PALETTE[1], dashed: true, marker: Marker::Triangle, points: vec![(0.0, 3.0, true), (1.0, 30.0, false)] },
            Series { label: "solid".into(), colour: PALETTE[0], dashed: false, marker: Marker::Circle, points: vec![(0.0, 5.0, false)] },
        ];
        let chart = Chart::new("load", "ms", XAxis::Categories(&cats), &series).joined().reference(Reference::level("R_limit 10 ms", 10.0));
        let svg = plot_log(&chart, STYLE).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("dashed") && svg.contains("R_limit") && svg.contains("&lt;14&gt; &amp; more"), "{svg}");
        assert!(!svg.contains("http"));
        assert!(boxes_of(&svg).iter().filter(|(c, _)| c == "tick-y").count() >= 2, "{svg}");
        let chart = Chart::new("load", "ms", XAxis::Categories(&cats), &series);
        let svg = plot_linear(&chart, STYLE).unwrap();
        assert!(!svg.contains("R_limit") && svg.contains("<svg") && svg.contains("solid"));
    }

    #[test]
    fn an_outlier_is_drawn_at_the_edge_with_its_value() {
        let cats: Vec<String> = (0..5).map(|i| format!("{i} req/s")).collect();
        let series = vec![Series {
            label: "maid".into(),
            colour: PALETTE[0],
            dashed: false,
            marker: Marker::Circle,
            points: vec![(0.0, 8.0, true), (1.0, 9.0, true), (2.0, 12.0, true), (3.0, 15.0, true), (4.0, 913_310.0, false)],
        }];
        let svg = plot_log(&Chart::new("load", "mean ms", XAxis::Categories(&cats), &series).joined().unit("ms").reference(Reference::level("goal", 10.0)), STYLE).unwrap();
        assert!(svg.contains(r#"class="outlier""#) && svg.contains("913,310 ms"), "{svg}");
        // The axis stops far below the outlier: no 100k or 1M label.
        assert!(!svg.contains(">100k<") && !svg.contains(">1M<"), "{svg}");
    }

    #[test]
    fn unjoined_series_at_one_value_sit_side_by_side() {
        let cats = vec!["a".to_string()];
        let s = |label: &str| Series { label: label.into(), colour: PALETTE[0], dashed: false, marker: Marker::Circle, points: vec![(0.0, 5.0, true)] };
        let series = vec![s("one"), s("two")];
        let svg = plot_linear(&Chart::new("x", "y", XAxis::Categories(&cats), &series), STYLE).unwrap();
        let cx: Vec<&str> = svg.match_indices("<circle cx=\"").map(|(i, _)| svg[i + 12..].split('"').next().unwrap()).collect();
        assert!(cx.len() >= 2 && cx[0] != cx[1], "{cx:?}");
    }

    #[test]
    fn labels_that_would_touch_are_turned() {
        let wide: Vec<String> = (0..33).map(|i| format!("H-R-{i}-long-class")).collect();
        let (rot, every) = category_layout(&wide, 20.0);
        assert!(rot == 90 && every >= 1);
        assert_eq!(category_layout(&["a".into(), "b".into()], 100.0), (0, 1));
    }
}
