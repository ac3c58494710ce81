//! Finding the line of a key path (`a.b[2].c`) in TOML text, for errors raised after
//! deserialization. Uses toml_edit's span-preserving parse; when the full path does not
//! exist (a missing field) the line of its deepest existing ancestor is given.

use toml_edit::{ImDocument, Item};

/// One step of a key path.
#[derive(Debug, PartialEq, Eq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Split `a.b[2].c` into steps; quoted keys are not supported (tierlab keys are bare).
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        while let Some(open) = rest.strip_prefix('[') {
            let Some(close) = open.find(']') else { break };
            if let Ok(i) = open[..close].parse() {
                out.push(Step::Index(i));
            }
            rest = &open[close + 1..];
        }
    }
    out
}

/// 1-based line of the deepest part of `path` that exists in `text`; 0 when the text
/// does not parse or nothing of the path has a position.
pub fn line_of_key(text: &str, path: &str) -> u64 {
    let Ok(doc) = ImDocument::parse(text) else {
        return 0;
    };
    let mut item: &Item = doc.as_item();
    let mut best: Option<usize> = None;
    for step in steps(path) {
        let next = match step {
            Step::Key(k) => {
                // Prefer the key's own position: for a table it is its header line.
                if let Some(span) = item
                    .as_table_like()
                    .and_then(|t| t.key(k))
                    .and_then(|k| k.span())
                {
                    best = Some(span.start);
                }
                item.get(k)
            }
            Step::Index(i) => item.get(i),
        };
        let Some(next) = next else { break };
        if let Some(span) = next.span() {
            best = Some(span.start);
        }
        item = next;
    }
    best.map_or(0, |offset| crate::line_of_offset(text, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_split_keys_and_indexes() {
        assert_eq!(
            steps("power.standby[1].power_w"),
            vec![
                Step::Key("power"),
                Step::Key("standby"),
                Step::Index(1),
                Step::Key("power_w")
            ]
        );
        assert_eq!(
            steps("m[0][2]"),
            vec![Step::Key("m"), Step::Index(0), Step::Index(2)]
        );
    }

    #[test]
    fn finds_lines_in_tables_arrays_of_tables_and_inline_tables() {
        let text = "id = 1\n[power]\nidle_w = 2.0\n[[power.standby]]\nname = 'a'\n[[power.standby]]\nname = 'b'\npower_w = -1.0\n[x]\nlist = [{ a = 1 },\n  { a = 2 }]\n";
        assert_eq!(line_of_key(text, "id"), 1);
        assert_eq!(line_of_key(text, "power.idle_w"), 3);
        assert_eq!(line_of_key(text, "power.standby[1].power_w"), 8);
        assert_eq!(line_of_key(text, "power.standby[1].name"), 7);
        assert_eq!(line_of_key(text, "x.list[1].a"), 11);
        // A missing leaf falls back to its deepest existing ancestor.
        assert_eq!(line_of_key(text, "power.standby[0].power_w"), 4);
        assert_eq!(line_of_key(text, "nothing.here"), 0);
        assert_eq!(line_of_key("not = = toml", "a"), 0);
    }
}
