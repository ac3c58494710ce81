//! Loader for the SSD catalog files (`catalog/ssd/*.toml`). A file is self-describing: a
//! `description`, the `[ssd]` spec of this crate's model, optionally the drive's
//! `[datasheet]` figures (for `tierlab_ssd_datasheet`, the SSD timed from its data sheet),
//! and a `[sources]` table giving, for every value (by dotted key: `timing.page_read_ns`,
//! `datasheet.read_iops`; or for a whole section by its name), the data sheet or paper it
//! comes from, or `estimate: …` with the reasoning. The loader rejects unknown keys,
//! values without a source, and invalid specs, naming file, line and field.

use crate::error::SsdError;
use crate::spec::SsdSpec;
use serde::Deserialize;
use tierlab_ssd_datasheet::{DatasheetError, DatasheetSpec};
use std::collections::BTreeMap;
use std::path::Path;
use tierlab_types::SourceLocation;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogEntry {
    pub description: String,
    pub ssd: SsdSpec,
    /// The drive's data-sheet figures, where the entry gives them.
    #[serde(default)]
    pub datasheet: Option<DatasheetSpec>,
    /// Dotted spec key (or section name) -> citation or `estimate: …`.
    pub sources: BTreeMap<String, String>,
}

fn line_of_offset(text: &str, offset: usize) -> u64 {
    text[..offset.min(text.len())].matches('\n').count() as u64 + 1
}

/// Line where `key = …` first appears in its table: `dotted` is the full path,
/// `ssd.timing.page_read_ns` or `datasheet.read_iops`.
fn line_of_key(text: &str, dotted: &str) -> u64 {
    let (section, key) = dotted.rsplit_once('.').unwrap_or(("", dotted));
    let header = format!("[{section}]");
    let mut in_section = section.is_empty();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with('[') {
            in_section = l == header;
            continue;
        }
        if in_section && l.split('=').next().map(str::trim) == Some(key) {
            return i as u64 + 1;
        }
    }
    0
}

fn leaf_keys(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, child) in t {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaf_keys(child, &p, out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

/// Parse and check one catalog file's text; `file` names it in errors.
pub fn parse_catalog(text: &str, file: &str) -> Result<CatalogEntry, SsdError> {
    let loc = |line: u64, field: &str| SourceLocation {
        file: file.to_string(),
        line,
        field: field.to_string(),
    };
    let entry: CatalogEntry = toml::from_str(text).map_err(|e| SsdError::SpecFile {
        location: loc(e.span().map_or(0, |s| line_of_offset(text, s.start)), ""),
        reason: e.message().to_string(),
    })?;
    entry.ssd.validate().map_err(|e| match e {
        SsdError::InvalidSpec { param, reason } => SsdError::SpecFile {
            location: loc(line_of_key(text, &format!("ssd.{param}")), &format!("ssd.{param}")),
            reason: format!("invalid value: {reason}"),
        },
        other => other,
    })?;
    if let Some(d) = &entry.datasheet {
        d.validate(entry.ssd.energy.idle_w).map_err(|e| {
            let DatasheetError::Invalid { field, reason } = e else {
                return SsdError::SpecFile { location: loc(0, "datasheet"), reason: e.to_string() };
            };
            // The idle power the data sheet is checked against is the spec's.
            let path = if field == "idle_w" { "ssd.energy.idle_w".to_string() } else { format!("datasheet.{field}") };
            SsdError::SpecFile { location: loc(line_of_key(text, &path), &path), reason: format!("invalid value: {reason}") }
        })?;
    }
    let as_value = |v: Result<toml::Value, toml::ser::Error>, section: &str| {
        v.map_err(|e| SsdError::SpecFile { location: loc(0, section), reason: e.to_string() })
    };
    // Source keys name values below the spec (`timing.page_read_ns`) or, for the data
    // sheet, below `datasheet.`.
    let mut leaves = Vec::new();
    leaf_keys(&as_value(toml::Value::try_from(&entry.ssd), "ssd")?, "", &mut leaves);
    if let Some(d) = &entry.datasheet {
        leaf_keys(&as_value(toml::Value::try_from(d), "datasheet")?, "datasheet", &mut leaves);
    }
    // Every value but the profile's own name needs a source.
    for leaf in leaves.iter().filter(|l| *l != "name") {
        let covered = entry
            .sources
            .keys()
            .any(|k| leaf == k || leaf.starts_with(&format!("{k}.")));
        if !covered {
            let path = if leaf.starts_with("datasheet.") { leaf.clone() } else { format!("ssd.{leaf}") };
            return Err(SsdError::SpecFile {
                location: loc(line_of_key(text, &path), &path),
                reason: "no entry in [sources]: cite where the value comes from or write `estimate: why`".into(),
            });
        }
    }
    for key in entry.sources.keys() {
        if !leaves
            .iter()
            .any(|l| l == key || l.starts_with(&format!("{key}.")))
        {
            return Err(SsdError::SpecFile {
                location: loc(0, &format!("sources.{key}")),
                reason: "names no value of the [ssd] spec or the [datasheet]".into(),
            });
        }
    }
    Ok(entry)
}

/// Load one catalog file.
pub fn load_catalog_file(path: &Path) -> Result<CatalogEntry, SsdError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SsdError::SpecFile {
        location: SourceLocation {
            file: file.clone(),
            line: 0,
            field: String::new(),
        },
        reason: e.to_string(),
    })?;
    parse_catalog(&text, &file)
}

/// Load every `*.toml` of a directory, in file-name order.
pub fn load_catalog_dir(dir: &Path) -> Result<Vec<(String, CatalogEntry)>, SsdError> {
    let err = |reason: String| SsdError::SpecFile {
        location: SourceLocation {
            file: dir.display().to_string(),
            line: 0,
            field: String::new(),
        },
        reason,
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| err(e.to_string()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            load_catalog_file(&p).map(|e| (name, e))
        })
        .collect()
}

/// The SSD catalog shipped with tierlab (`catalog/ssd/*.toml`), embedded at build time:
/// (id, file text).
pub const BUILTIN: [(&str, &str); 5] = [
    ("intel-320-300gb", include_str!("../../../../catalog/ssd/intel-320-300gb.toml")),
    ("intel-x25m-80gb", include_str!("../../../../catalog/ssd/intel-x25m-80gb.toml")),
    ("mtron-msp7000", include_str!("../../../../catalog/ssd/mtron-msp7000.toml")),
    ("samsung-990pro-1tb", include_str!("../../../../catalog/ssd/samsung-990pro-1tb.toml")),
    ("study-slc", include_str!("../../../../catalog/ssd/study-slc.toml")),
];

/// A shipped SSD by id, or an error listing the known ids.
pub fn builtin(id: &str) -> Result<CatalogEntry, SsdError> {
    match BUILTIN.iter().find(|(known, _)| *known == id) {
        Some((known, text)) => parse_catalog(text, &format!("catalog/ssd/{known}.toml")),
        None => Err(SsdError::SpecFile {
            location: SourceLocation { file: "catalog/ssd".into(), line: 0, field: "id".into() },
            reason: format!(
                "no SSD `{id}` in the catalog; known ids: {}",
                BUILTIN.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}

#[cfg(test)]
mod builtin_tests {
    #[test]
    fn every_shipped_ssd_parses_and_unknown_ids_list_the_known_ones() {
        for (id, _) in super::BUILTIN {
            let e = super::builtin(id).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(e.ssd.name, id);
        }
        let err = super::builtin("nope").unwrap_err().to_string();
        assert!(err.contains("intel-320-300gb"), "{err}");
    }
}
