//! The device catalog: published drive figures as data files citing their sources.
//!
//! The shipped entries (`catalog/hdd/*.toml` at the repository root) are embedded in the
//! binary and parsed by [`builtin`]; [`Catalog::load_dir`] reads a catalog directory of
//! the same layout at run time. Files are read through `tierlab-config`, so a bad entry
//! is reported with its file, line and key path. See `catalog/README.md` for the schema.

mod hdd;

pub use hdd::{AverageSeek, HddEntry, InnerZoneRate, LayoutMapping, LayoutSpec, LayoutVariant, PowerProfile, Price, SeekSpec, TimingSpec, TransferSpec};

use std::collections::BTreeMap;
use std::path::Path;
use tierlab_config::ConfigError;

/// The shipped entries, as (file name, text). A test checks this list against the
/// directory, so a file added there and not here is caught.
const BUILTIN_HDDS: [(&str, &str); 7] = [
    (
        "catalog/hdd/hibernator-two-speed-36z15.toml",
        include_str!("../../../../catalog/hdd/hibernator-two-speed-36z15.toml"),
    ),
    (
        "catalog/hdd/hitachi-deskstar-t7k250.toml",
        include_str!("../../../../catalog/hdd/hitachi-deskstar-t7k250.toml"),
    ),
    (
        "catalog/hdd/ibm-ultrastar-36z15.toml",
        include_str!("../../../../catalog/hdd/ibm-ultrastar-36z15.toml"),
    ),
    (
        "catalog/hdd/maxtor-atlas-10k-v-73gb.toml",
        include_str!("../../../../catalog/hdd/maxtor-atlas-10k-v-73gb.toml"),
    ),
    (
        "catalog/hdd/samsung-spinpoint-f1-ecogreen-hd103ui.toml",
        include_str!("../../../../catalog/hdd/samsung-spinpoint-f1-ecogreen-hd103ui.toml"),
    ),
    (
        "catalog/hdd/seagate-barracuda-xt-st32000641as.toml",
        include_str!("../../../../catalog/hdd/seagate-barracuda-xt-st32000641as.toml"),
    ),
    (
        "catalog/hdd/seagate-cheetah-15k5-300gb.toml",
        include_str!("../../../../catalog/hdd/seagate-cheetah-15k5-300gb.toml"),
    ),
];

/// Problems loading a catalog or looking an entry up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("no hdd `{id}` in the catalog; known ids: {}", known.join(", "))]
    UnknownHdd { id: String, known: Vec<String> },
    #[error("hdd id `{id}` is defined twice: in {first} and in {second}")]
    DuplicateId {
        id: String,
        first: String,
        second: String,
    },
    #[error("{file}: id `{id}` does not match the file name (expected `{id}.toml`)")]
    FileNameMismatch { file: String, id: String },
}

/// Drive entries by id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    hdds: BTreeMap<String, (String, HddEntry)>,
}

/// The catalog shipped with tierlab.
///
/// # Panics
/// Never in a released build: the embedded files are constants and the test
/// `builtin_catalog_parses` guarantees they parse and validate.
pub fn builtin() -> Catalog {
    match Catalog::from_texts(BUILTIN_HDDS.iter().copied()) {
        Ok(c) => c,
        Err(e) => panic!("the built-in catalog is invalid (a test should have caught this): {e}"),
    }
}

impl Catalog {
    /// Read every `*.toml` under `<dir>/hdd/`, in file-name order.
    pub fn load_dir(dir: &Path) -> Result<Catalog, CatalogError> {
        let hdd_dir = dir.join("hdd");
        let io = |e: std::io::Error| CatalogError::Io {
            path: hdd_dir.display().to_string(),
            message: e.to_string(),
        };
        let mut paths = Vec::new();
        for item in std::fs::read_dir(&hdd_dir).map_err(io)? {
            let path = item.map_err(io)?.path();
            if path.extension().is_some_and(|e| e == "toml") {
                paths.push(path);
            }
        }
        paths.sort();
        let mut texts = Vec::with_capacity(paths.len());
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| CatalogError::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
            texts.push((path.display().to_string(), text));
        }
        Catalog::from_texts(texts.iter().map(|(n, t)| (n.as_str(), t.as_str())))
    }

    /// Parse and check entries given as (file name, text) pairs.
    pub fn from_texts<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Catalog, CatalogError> {
        let mut hdds: BTreeMap<String, (String, HddEntry)> = BTreeMap::new();
        for (name, text) in files {
            let entry: HddEntry = tierlab_config::parse_toml_validated(text, name)?;
            let stem = Path::new(name)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            if stem != entry.id {
                return Err(CatalogError::FileNameMismatch {
                    file: name.to_string(),
                    id: entry.id,
                });
            }
            if let Some((first, _)) = hdds.get(&entry.id) {
                return Err(CatalogError::DuplicateId {
                    id: entry.id,
                    first: first.clone(),
                    second: name.to_string(),
                });
            }
            hdds.insert(entry.id.clone(), (name.to_string(), entry));
        }
        Ok(Catalog { hdds })
    }

    /// The entry `id`; the error lists the known ids.
    pub fn hdd(&self, id: &str) -> Result<&HddEntry, CatalogError> {
        self.hdds
            .get(id)
            .map(|(_, e)| e)
            .ok_or_else(|| CatalogError::UnknownHdd {
                id: id.to_string(),
                known: self.hdds.keys().cloned().collect(),
            })
    }

    /// All entries, by id.
    pub fn hdds(&self) -> impl Iterator<Item = &HddEntry> {
        self.hdds.values().map(|(_, e)| e)
    }

    /// The file an entry was read from.
    pub fn hdd_file(&self, id: &str) -> Option<&str> {
        self.hdds.get(id).map(|(f, _)| f.as_str())
    }
}
