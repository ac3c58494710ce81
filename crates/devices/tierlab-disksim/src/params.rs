//! A parser for DiskSim's parameter language into a tree that remembers where every
//! value came from.
//!
//! The language (DiskSim manual, CMU-PDL-08-101): a file is a sequence of
//! - block definitions `type name { key = value, ... }`,
//! - `source file` (include, relative to the including file),
//! - `instantiate [ names ] as name`,
//! - `topology type name [ type name [ ... ], ... ]`;
//!
//! values are numbers, bare words, quoted strings, lists `[ v, ... ]`, nested blocks
//! `type { ... }` and `source file` (the value is that file's contents). Keys may contain
//! spaces and punctuation (`Segment size (in blks)`). `#` starts a comment.

use crate::error::Error;
use std::path::{Path, PathBuf};

/// Where something was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: u64,
}

/// A `type [name] { entries }` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub type_name: String,
    pub name: Option<String>,
    pub entries: Vec<Entry>,
    pub loc: Loc,
}

/// One `key = value` of a block.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub value: Value,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    /// A bare word or a quoted string.
    Text(String),
    List(Vec<Value>),
    Block(Block),
    /// `source file`: the included file's items.
    Source { path: PathBuf, items: Vec<Item> },
}

/// A node of a `topology` tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TopoNode {
    pub type_name: String,
    pub name: String,
    pub children: Vec<TopoNode>,
    pub loc: Loc,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Block(Block),
    Instantiate { names: Vec<String>, as_name: String, loc: Loc },
    Topology(TopoNode),
    /// A top-level `source file`, with the included file's items.
    Source { path: PathBuf, items: Vec<Item> },
}

/// How included files are read (the file system, or a map in tests).
pub trait Loader {
    fn load(&self, path: &Path) -> Result<String, String>;
}

/// Reads included files from disk.
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
}

/// A loader that refuses every include (for parsing text on its own).
pub struct NoIncludes;

impl Loader for NoIncludes {
    fn load(&self, path: &Path) -> Result<String, String> {
        Err(format!("includes are not available here ({})", path.display()))
    }
}

const MAX_DEPTH: usize = 64;
const MAX_INCLUDE_DEPTH: usize = 16;

/// Parse the file at `path`, resolving `source` includes relative to each file.
pub fn parse_file(path: &Path) -> Result<Vec<Item>, Error> {
    let text = FsLoader.load(path).map_err(|e| Error::new(path.display().to_string(), 0, "", format!("cannot read: {e}")))?;
    parse_str(&text, path, &FsLoader)
}

/// Parse `text` as the contents of file `path`.
pub fn parse_str(text: &str, path: &Path, loader: &dyn Loader) -> Result<Vec<Item>, Error> {
    Parser::new(text, path, loader, 0).items()
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    line: u64,
    path: &'a Path,
    file: String,
    loader: &'a dyn Loader,
    include_depth: usize,
}

fn is_word_byte(b: u8) -> bool {
    !(b.is_ascii_whitespace() || matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b'=' | b'#' | b'"'))
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, path: &'a Path, loader: &'a dyn Loader, include_depth: usize) -> Parser<'a> {
        Parser { s: text.as_bytes(), pos: 0, line: 1, path, file: path.display().to_string(), loader, include_depth }
    }

    fn loc(&self) -> Loc {
        Loc { file: self.file.clone(), line: self.line }
    }

    fn err(&self, field: &str, msg: impl Into<String>) -> Error {
        Error::new(self.file.clone(), self.line, field, msg)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    /// Skip whitespace and comments.
    fn ws(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'#' {
                while let Some(c) = self.peek() {
                    if c == b'\n' {
                        break;
                    }
                    self.bump();
                }
            } else if b.is_ascii_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
    }

    fn word(&mut self) -> Option<String> {
        let start = self.pos;
        while self.peek().is_some_and(is_word_byte) {
            self.bump();
        }
        (self.pos > start).then(|| String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn expect_word(&mut self, what: &str) -> Result<String, Error> {
        self.ws();
        self.word().ok_or_else(|| self.err("", format!("expected {what}, found {}", self.found())))
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "end of file".into(),
            Some(b) => format!("`{}`", char::from(b).escape_default()),
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), Error> {
        self.ws();
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.err("", format!("expected `{}`, found {}", char::from(c), self.found())))
        }
    }

    fn items(&mut self) -> Result<Vec<Item>, Error> {
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.peek().is_none() {
                return Ok(items);
            }
            let loc = self.loc();
            let Some(w) = self.word() else {
                return Err(self.err("", format!("expected a block, `source`, `instantiate` or `topology`, found {}", self.found())));
            };
            match w.as_str() {
                "source" => {
                    let (path, sub) = self.include()?;
                    items.push(Item::Source { path, items: sub });
                }
                "instantiate" => {
                    let names = self.bracket_list(|p| p.expect_word("an instance name or `]`"))?;
                    let kw = self.expect_word("`as`")?;
                    if kw != "as" {
                        return Err(self.err("", format!("expected `as`, found `{kw}`")));
                    }
                    let as_name = self.expect_word("the name of the block to instantiate")?;
                    items.push(Item::Instantiate { names, as_name, loc });
                }
                "topology" => {
                    let t = self.expect_word("a component type")?;
                    let node = self.topo_node_after_type(t, loc, 0)?;
                    items.push(Item::Topology(node));
                }
                _ => {
                    let name = self.expect_word(&format!("a name for the `{w}` block"))?;
                    self.expect(b'{')?;
                    let entries = self.entries(0)?;
                    items.push(Item::Block(Block { type_name: w, name: Some(name), entries, loc }));
                }
            }
        }
    }

    /// `source file`: parse the named file relative to this one.
    fn include(&mut self) -> Result<(PathBuf, Vec<Item>), Error> {
        let name = self.expect_word("a file name after `source`")?;
        if self.include_depth >= MAX_INCLUDE_DEPTH {
            return Err(self.err("source", "includes nested too deeply (a cycle?)"));
        }
        let path = self.path.parent().map_or_else(|| PathBuf::from(&name), |d| d.join(&name));
        let text = self.loader.load(&path).map_err(|e| self.err("source", format!("cannot read `{}`: {e}", path.display())))?;
        let items = Parser::new(&text, &path, self.loader, self.include_depth + 1).items()?;
        Ok((path, items))
    }

    /// After a component type: `name [ children ]`.
    fn topo_node_after_type(&mut self, type_name: String, loc: Loc, depth: usize) -> Result<TopoNode, Error> {
        if depth > MAX_DEPTH {
            return Err(self.err("topology", "nested too deeply"));
        }
        let name = self.expect_word("a component name")?;
        let children = self.bracket_list(|p| {
            let cloc = p.loc();
            let t = p.expect_word("a component type or `]`")?;
            p.topo_node_after_type(t, cloc, depth + 1)
        })?;
        Ok(TopoNode { type_name, name, children, loc })
    }

    /// `[ item, item … ]` (commas optional, as DiskSim reads them), each item read by `item`.
    fn bracket_list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T, Error>) -> Result<Vec<T>, Error> {
        self.expect(b'[')?;
        let mut out = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(b']') => {
                    self.bump();
                    return Ok(out);
                }
                Some(b',') => {
                    self.bump();
                }
                _ => out.push(item(self)?),
            }
        }
    }

    /// Entries up to and including the closing `}`.
    fn entries(&mut self, depth: usize) -> Result<Vec<Entry>, Error> {
        let mut entries = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None => return Err(self.err("", "expected `}` before the end of the file")),
                Some(b'}') => {
                    self.bump();
                    return Ok(entries);
                }
                Some(b',') => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            let loc = self.loc();
            let start = self.pos;
            while let Some(b) = self.peek() {
                if matches!(b, b'=' | b'\n' | b'{' | b'}' | b'[' | b']' | b',' | b'#') {
                    break;
                }
                self.bump();
            }
            let key = String::from_utf8_lossy(&self.s[start..self.pos]).trim().to_string();
            if key.is_empty() || self.peek() != Some(b'=') {
                return Err(self.err(&key, format!("expected `key = value`, found {}", self.found())));
            }
            self.bump();
            let value = self.value(&key, depth + 1)?;
            entries.push(Entry { key, value, loc });
        }
    }

    fn value(&mut self, key: &str, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(self.err(key, "values nested too deeply"));
        }
        self.ws();
        match self.peek() {
            Some(b'[') => {
                self.bump();
                let mut list = Vec::new();
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b']') => {
                            self.bump();
                            return Ok(Value::List(list));
                        }
                        Some(b',') => {
                            self.bump();
                        }
                        None => return Err(self.err(key, "expected `]` before the end of the file")),
                        _ => list.push(self.value(key, depth + 1)?),
                    }
                }
            }
            Some(b'"') => {
                self.bump();
                let start = self.pos;
                while self.peek().is_some_and(|b| b != b'"') {
                    self.bump();
                }
                if self.peek().is_none() {
                    return Err(self.err(key, "unterminated string"));
                }
                let s = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                self.bump();
                Ok(Value::Text(s))
            }
            _ => {
                let loc = self.loc();
                let Some(w) = self.word() else {
                    return Err(self.err(key, format!("expected a value, found {}", self.found())));
                };
                if w == "source" {
                    let (path, items) = self.include()?;
                    return Ok(Value::Source { path, items });
                }
                self.ws();
                if self.peek() == Some(b'{') {
                    self.bump();
                    let entries = self.entries(depth + 1)?;
                    return Ok(Value::Block(Block { type_name: w, name: None, entries, loc }));
                }
                Ok(match w.parse::<f64>() {
                    Ok(x) if x.is_finite() => Value::Number(x),
                    _ => Value::Text(w),
                })
            }
        }
    }
}

impl Block {
    /// The entry named `key` (DiskSim's keys are matched case-sensitively, spaces trimmed).
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }
}

/// Every block in `items`, including those in included files, in file order.
pub fn all_blocks(items: &[Item]) -> Vec<&Block> {
    let mut out = Vec::new();
    fn walk<'a>(items: &'a [Item], out: &mut Vec<&'a Block>) {
        for it in items {
            match it {
                Item::Block(b) => out.push(b),
                Item::Source { items, .. } => walk(items, out),
                _ => {}
            }
        }
    }
    walk(items, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct MapLoader(BTreeMap<PathBuf, String>);
    impl Loader for MapLoader {
        fn load(&self, path: &Path) -> Result<String, String> {
            self.0.get(path).cloned().ok_or_else(|| "not found".into())
        }
    }

    #[test]
    fn parses_blocks_lists_nested_blocks_and_keys_with_spaces() {
        let text = "# a comment\ndisksim_disk D {\n  Segment size (in blks) = 561, # trailing\n  Seek type = extracted,\n  Add. write settling delay = -0.483,\n  slips = [ 1, 2,\n 3 ],\n  defects = [],\n  Scheduler = disksim_ioqueue { Scheduling policy = 1 },\n  Name = \"a b\"\n}\n";
        let items = parse_str(text, Path::new("x.diskspecs"), &NoIncludes).expect("parses");
        let Item::Block(b) = &items[0] else { panic!("block expected") };
        assert_eq!(b.type_name, "disksim_disk");
        assert_eq!(b.name.as_deref(), Some("D"));
        assert_eq!(b.get("Segment size (in blks)").map(|e| &e.value), Some(&Value::Number(561.0)));
        assert_eq!(b.get("Seek type").map(|e| &e.value), Some(&Value::Text("extracted".into())));
        assert_eq!(b.get("Add. write settling delay").map(|e| &e.value), Some(&Value::Number(-0.483)));
        assert_eq!(
            b.get("slips").map(|e| &e.value),
            Some(&Value::List(vec![Value::Number(1.0), Value::Number(2.0), Value::Number(3.0)]))
        );
        assert_eq!(b.get("slips").map(|e| e.loc.line), Some(6));
        assert_eq!(b.get("defects").map(|e| &e.value), Some(&Value::List(vec![])));
        let Some(Value::Block(s)) = b.get("Scheduler").map(|e| &e.value) else { panic!("nested block") };
        assert_eq!(s.type_name, "disksim_ioqueue");
        assert_eq!(b.get("Name").map(|e| &e.value), Some(&Value::Text("a b".into())));
    }

    #[test]
    fn parses_instantiate_topology_and_sources_relative_to_the_file() {
        let mut files = BTreeMap::new();
        files.insert(PathBuf::from("dir/d.diskspecs"), "disksim_disk D { Model = source m.model }".to_string());
        files.insert(PathBuf::from("dir/m.model"), "dm_disk M { Block count = 7 }".to_string());
        let text = "source d.diskspecs\ninstantiate [ disk0 ] as D\ntopology disksim_iodriver driver0 [\n disksim_bus bus0 [ disksim_disk disk0 [] ] ]";
        let items = parse_str(text, Path::new("dir/x.parv"), &MapLoader(files)).expect("parses");
        assert_eq!(items.len(), 3);
        let blocks = all_blocks(&items);
        assert_eq!(blocks.len(), 1);
        let Some(Value::Source { items: model, .. }) = blocks[0].get("Model").map(|e| &e.value) else { panic!("source value") };
        assert_eq!(all_blocks(model)[0].get("Block count").map(|e| &e.value), Some(&Value::Number(7.0)));
        let Item::Instantiate { names, as_name, .. } = &items[1] else { panic!("instantiate") };
        assert_eq!((names.clone(), as_name.as_str()), (vec!["disk0".to_string()], "D"));
        let Item::Topology(t) = &items[2] else { panic!("topology") };
        assert_eq!(t.children[0].children[0].name, "disk0");
    }

    #[test]
    fn errors_name_file_line_and_what_was_expected() {
        let e = parse_str("disksim_disk D {\n  Foo = 1,\n  Bar 2\n}", Path::new("f.parv"), &NoIncludes).unwrap_err();
        assert_eq!(e.location.file, "f.parv");
        assert_eq!(e.location.line, 3);
        assert!(e.message.contains("expected `key = value`"), "{}", e.message);
        let e = parse_str("disksim_disk D {\n  Foo = [1, 2\n", Path::new("f.parv"), &NoIncludes).unwrap_err();
        assert!(e.message.contains("expected `]`"), "{}", e.message);
        let e = parse_str("source missing.model", Path::new("f.parv"), &NoIncludes).unwrap_err();
        assert_eq!(e.location.field, "source");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = format!("t n {{ k = {} }}", "[".repeat(100_000));
        assert!(parse_str(&text, Path::new("deep"), &NoIncludes).is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(s in "\\PC{0,300}") {
            let _ = parse_str(&s, Path::new("fuzz"), &NoIncludes);
        }

        #[test]
        fn never_panics_on_language_like_text(parts in proptest::collection::vec(
            proptest::sample::select(vec!["{", "}", "[", "]", ",", "=", "#c\n", "\n", " ", "source", "x", "1.5", "-2", "\"s", "\"", "k k", "instantiate", "as", "topology"]), 0..60)) {
            let s: String = parts.concat();
            let _ = parse_str(&s, Path::new("fuzz"), &NoIncludes);
        }
    }
}
