//! Charts for the self-contained HTML reports, and the page they sit in. A chart is drawn
//! with `plotters` as inline SVG (no scripts, no fonts, no network): categories at equal
//! spacing on x, a linear or logarithmic y axis, one line of markers per series (filled
//! or hollow), an optional black reference line, and a legend beside the plot.

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, KeyPointHint, ValueFormatter};
use plotters::prelude::*;
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
         {css}</style></head><body>\n<h1>{title}</h1>\n"
    )
}

/// A chart with its caption.
pub fn figure(out: &mut String, caption: &str, svg: &str) {
    let _ = write!(out, "<figure><figcaption>{}</figcaption>\n{svg}\n</figure>\n", esc(caption));
}

/// Ten distinct colours (the category10 scheme), for series without a colour of their
/// own; take them round with `PALETTE[i % PALETTE.len()]`.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// How a series marks its points: circles, or triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Triangle,
}

/// One line of a chart.
pub struct Series {
    pub label: String,
    pub colour: RGBColor,
    /// A dashed line, in the chart and in the legend.
    pub dashed: bool,
    pub marker: Marker,
    /// (category index, value, filled marker); a hollow marker has a white centre.
    pub points: Vec<(f64, f64, bool)>,
}

/// A dashed black line drawn behind the series (a goal such as R_limit).
pub struct Reference {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

pub struct Chart<'a> {
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub categories: &'a [String],
    pub series: &'a [Series],
    /// Join a series' points with lines (an ordered axis); unjoined markers otherwise.
    pub joined: bool,
    pub reference: Option<Reference>,
}

/// What a report sets for all its charts.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Height of the whole chart, px (it is [`WIDTH`] wide).
    pub height: u32,
    /// Width of the legend at the right, px.
    pub legend_width: u32,
    /// A linear y axis without negative values starts at zero; otherwise, and without
    /// this, it is padded below its lowest value (zero included) as above its highest.
    pub zero_based: bool,
}

/// Width of a chart, legend included, px.
pub const WIDTH: u32 = 900;
const FONT: &str = "sans-serif";

/// A short, exact-enough axis number: 0.5, 2, 10, 12.5, 1000.
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

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// A category axis: categories 0 … n − 1 at equal spacing, a tick at each.
#[derive(Clone, Copy)]
struct Categories(usize);

impl Ranged for Categories {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let r = self.range();
        let f = (value - r.start) / (r.end - r.start);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        (0..self.0).map(|i| i as f64).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..self.0.max(1) as f64 - 0.5
    }
}

/// Draw `c` with the y axis `y` (linear or logarithmic) and return the `<svg>` element.
fn plot<Y>(c: &Chart, style: Style, y: Y) -> Result<String>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, style.height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (area, legend) = root.split_horizontally(WIDTH - style.legend_width);
        let x = Categories(c.categories.len().max(1));
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(70)
            .build_cartesian_2d(x, y)
            .map_err(draw_err)?;
        let cats = c.categories;
        let x_fmt = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                cats.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        let y_fmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .x_desc(c.x_desc)
            .y_desc(c.y_desc)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .max_light_lines(4)
            .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()
            .map_err(draw_err)?;
        if let Some(r) = &c.reference {
            chart
                .draw_series(DashedLineSeries::new(r.points.iter().copied(), 8, 5, BLACK.stroke_width(2)))
                .map_err(draw_err)?;
        }
        for s in c.series {
            let line = s.colour.stroke_width(2);
            let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0, p.1)).collect();
            if c.joined && s.dashed {
                chart.draw_series(DashedLineSeries::new(pts, 7, 4, line)).map_err(draw_err)?;
            } else if c.joined {
                chart.draw_series(LineSeries::new(pts, line)).map_err(draw_err)?;
            }
            for &(px, py, filled) in &s.points {
                match s.marker {
                    Marker::Triangle => {
                        chart.draw_series(std::iter::once(TriangleMarker::new((px, py), 7, s.colour.filled()))).map_err(draw_err)?;
                        if !filled {
                            chart.draw_series(std::iter::once(TriangleMarker::new((px, py), 3, WHITE.filled()))).map_err(draw_err)?;
                        }
                    }
                    Marker::Circle => {
                        chart.draw_series(std::iter::once(Circle::new((px, py), 5, s.colour.filled()))).map_err(draw_err)?;
                        if !filled {
                            chart.draw_series(std::iter::once(Circle::new((px, py), 3, WHITE.filled()))).map_err(draw_err)?;
                        }
                    }
                }
            }
        }
        // The legend, beside the plot.
        let mut y = 24;
        let text = (FONT, 13).into_font().color(&BLACK);
        for s in c.series {
            let line = s.colour.stroke_width(2);
            if s.dashed {
                legend.draw(&PathElement::new(vec![(8, y), (16, y)], line)).map_err(draw_err)?;
                legend.draw(&PathElement::new(vec![(22, y), (30, y)], line)).map_err(draw_err)?;
            } else {
                legend.draw(&PathElement::new(vec![(8, y), (30, y)], line)).map_err(draw_err)?;
            }
            match s.marker {
                Marker::Triangle => legend.draw(&TriangleMarker::new((19, y), 6, s.colour.filled())).map_err(draw_err)?,
                Marker::Circle => legend.draw(&Circle::new((19, y), 4, s.colour.filled())).map_err(draw_err)?,
            }
            legend.draw(&Text::new(s.label.clone(), (38, y - 7), text.clone())).map_err(draw_err)?;
            y += 20;
        }
        if let Some(r) = &c.reference {
            legend.draw(&PathElement::new(vec![(8, y), (16, y)], BLACK.stroke_width(2))).map_err(draw_err)?;
            legend.draw(&PathElement::new(vec![(22, y), (30, y)], BLACK.stroke_width(2))).map_err(draw_err)?;
            legend.draw(&Text::new(r.label.clone(), (38, y - 7), text.clone())).map_err(draw_err)?;
        }
        root.present().map_err(draw_err)?;
    }
    // Inline SVG in HTML needs no namespace declaration; without it the page names no
    // outside address at all.
    Ok(svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1))
}

/// The values `c` plots: its series' and its reference line's.
fn values<'a>(c: &'a Chart) -> impl Iterator<Item = f64> + 'a {
    c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(c.reference.iter().flat_map(|r| r.points.iter().map(|p| p.1)))
}

/// `c` with a logarithmic y axis spanning its (positive) values.
pub fn plot_log(c: &Chart, style: Style) -> Result<String> {
    let (lo, hi) = values(c).filter(|v| v.is_finite() && *v > 0.0).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo.is_finite() { (lo / 1.5, hi * 1.5) } else { (0.1, 10.0) };
    plot(c, style, (lo..hi).log_scale())
}

/// `c` with a linear y axis spanning its values and zero.
pub fn plot_linear(c: &Chart, style: Style) -> Result<String> {
    let (lo, hi) = values(c).filter(|v| v.is_finite()).fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.08).max(1.0);
    let bottom = if style.zero_based && lo >= 0.0 { 0.0 } else { lo - pad };
    plot(c, style, bottom..(hi + pad))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STYLE: Style = Style { height: 400, legend_width: 180, zero_based: true };

    #[test]
    fn text_is_escaped_and_numbers_are_short() {
        assert_eq!(esc(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!((num(10.0), num(0.5), num(12.5), num(1400.0), num(0.0)), ("10".into(), "0.5".into(), "12.5".into(), "1400".into(), "0".into()));
    }

    #[test]
    fn a_page_starts_with_its_title_and_styles() {
        let head = page_head("a <b>", ".x{color:red}");
        assert!(head.starts_with("<!doctype html>\n") && head.ends_with("<h1>a &lt;b&gt;</h1>\n"), "{head}");
        assert!(head.contains("<title>a &lt;b&gt;</title>") && head.contains("figcaption{") && head.contains("\n.x{color:red}</style>"), "{head}");
    }

    #[test]
    fn a_chart_renders_as_inline_svg_without_fonts_or_addresses() {
        let cats = vec!["7 req/s".to_string(), "<14> & more".to_string()];
        let series = vec![
            Series { label: "dashed".into(), colour: RED, dashed: true, marker: Marker::Triangle, points: vec![(0.0, 3.0, true), (1.0, 30.0, false)] },
            Series { label: "solid".into(), colour: BLUE, dashed: false, marker: Marker::Circle, points: vec![(0.0, 5.0, false)] },
        ];
        let reference = Reference { label: "R_limit 10 ms".into(), points: vec![(-0.5, 10.0), (1.5, 10.0)] };
        let chart = Chart { x_desc: "load", y_desc: "ms", categories: &cats, series: &series, joined: true, reference: Some(reference) };
        let svg = plot_log(&chart, STYLE).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("dashed") && svg.contains("R_limit") && svg.contains("&lt;14&gt; &amp; more"), "{svg}");
        assert!(!svg.contains("http"));
        let svg = plot_linear(&Chart { reference: None, joined: false, ..chart }, STYLE).unwrap();
        assert!(!svg.contains("R_limit") && svg.contains("<svg") && svg.contains("solid"));
    }
}
