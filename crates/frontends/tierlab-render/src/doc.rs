//! A text report made of lines and tables, printed as plain text on a terminal and as
//! HTML (paragraphs, headings and real tables) in a report page.

use crate::charts::esc;
use std::fmt::Write;
use tierlab_report::Table;

enum Block {
    Text(String),
    /// A line `key        value`, the values of successive fields aligned.
    Field(String, String),
    Table(Table),
}

/// Lines (written with `write!`/`push_str`) and tables, in order.
#[derive(Default)]
pub struct Doc {
    blocks: Vec<Block>,
}

impl Write for Doc {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        match self.blocks.last_mut() {
            Some(Block::Text(t)) => t.push_str(s),
            _ => self.blocks.push(Block::Text(s.to_string())),
        }
        Ok(())
    }
}

impl Doc {
    pub fn push_str(&mut self, s: &str) {
        let _ = self.write_str(s);
    }

    /// A line `key` (padded to 12 characters) `value`.
    pub fn field(&mut self, key: &str, value: impl std::fmt::Display) {
        self.blocks.push(Block::Field(key.to_string(), value.to_string()));
    }

    pub fn table(&mut self, t: Table) {
        self.blocks.push(Block::Table(t));
    }

    /// The plain text: lines as written, tables in aligned columns.
    pub fn text(&self) -> String {
        self.blocks
            .iter()
            .map(|b| match b {
                Block::Text(t) => t.clone(),
                Block::Field(k, v) => format!("{k:<11} {v}\n"),
                Block::Table(t) => t.render(),
            })
            .collect()
    }

    /// HTML: fields are rows of a definition list, the line just before a table is its
    /// heading, other lines are paragraphs; tables are `<table>`s.
    pub fn html(&self) -> String {
        let mut out = String::new();
        for (i, b) in self.blocks.iter().enumerate() {
            match b {
                Block::Text(t) => {
                    let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                    let before_table = matches!(self.blocks.get(i + 1), Some(Block::Table(_)));
                    for (k, line) in lines.iter().enumerate() {
                        let tag = if before_table && k + 1 == lines.len() { "h3" } else { "p" };
                        let _ = writeln!(out, "<{tag}>{}</{tag}>", esc(line));
                    }
                }
                Block::Field(k, v) => {
                    if !matches!(i.checked_sub(1).and_then(|p| self.blocks.get(p)), Some(Block::Field(..))) {
                        out.push_str("<dl class=\"columns\">\n");
                    }
                    let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
                    if !matches!(self.blocks.get(i + 1), Some(Block::Field(..))) {
                        out.push_str("</dl>\n");
                    }
                }
                Block::Table(t) => {
                    out.push_str("<table><thead><tr>");
                    for h in t.header() {
                        let _ = write!(out, "<th>{}</th>", esc(h));
                    }
                    out.push_str("</tr></thead><tbody>\n");
                    for row in t.rows() {
                        out.push_str("<tr>");
                        for c in row {
                            let _ = write!(out, "<td>{}</td>", esc(c));
                        }
                        out.push_str("</tr>\n");
                    }
                    out.push_str("</tbody></table>\n");
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_as_written_and_html_has_real_tables() {
        let mut d = Doc::default();
        d.field("plan", "a <b> with catalog c");
        d.push_str("\nrunner-ups (the cheapest plans)\n");
        let mut t = Table::new(["plan", "total"]);
        t.row(["1 x ssd", "$1.00"]);
        d.table(t.clone());
        let _ = writeln!(d, "cannot meet x: y");
        assert_eq!(d.text(), format!("plan        a <b> with catalog c\n\nrunner-ups (the cheapest plans)\n{}cannot meet x: y\n", t.render()));
        let html = d.html();
        assert!(html.contains("<dl class=\"columns\">\n<dt>plan</dt><dd>a &lt;b&gt; with catalog c</dd>\n</dl>\n"), "{html}");
        assert!(html.contains("<h3>runner-ups (the cheapest plans)</h3>\n<table><thead><tr><th>plan</th><th>total</th></tr></thead><tbody>\n<tr><td>1 x ssd</td><td>$1.00</td></tr>\n</tbody></table>\n"), "{html}");
        assert!(html.ends_with("<p>cannot meet x: y</p>\n"), "{html}");
        assert!(!html.contains("<pre"), "{html}");
    }
}
