//! The citation rules shared by the tariff and price files: every figure names a
//! document listed under `[sources]`, and a figure no source gives is left out and its
//! key listed in `unknown`. Both directions are checked, so an absent figure is always a
//! deliberate "unknown", never an omission, and a listed one is never also given.

use std::collections::{BTreeMap, BTreeSet};
use tierlab_config::FieldError;

/// Collects the optional figures of one file as they are checked.
pub(crate) struct Citations<'a> {
    sources: &'a BTreeMap<String, String>,
    unknown: BTreeSet<&'a str>,
    absent: BTreeSet<String>,
}

impl<'a> Citations<'a> {
    pub(crate) fn new(
        sources: &'a BTreeMap<String, String>,
        unknown: &'a [String],
    ) -> Result<Self, FieldError> {
        let mut set = BTreeSet::new();
        for (i, key) in unknown.iter().enumerate() {
            if !set.insert(key.as_str()) {
                return Err(FieldError::new(
                    format!("unknown[{i}]"),
                    format!("`{key}` is listed twice"),
                ));
            }
        }
        Ok(Citations {
            sources,
            unknown: set,
            absent: BTreeSet::new(),
        })
    }

    /// `key` must name a document in `[sources]`.
    pub(crate) fn source(&self, field: &str, key: &str) -> Result<(), FieldError> {
        if self.sources.contains_key(key) {
            Ok(())
        } else {
            Err(FieldError::new(
                field,
                format!(
                    "source `{key}` is not in [sources]; known: {}",
                    self.sources.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ))
        }
    }

    /// An optional figure at `path`: present and finite ≥ 0, or absent and listed in
    /// `unknown` (checked in [`Citations::finish`]).
    pub(crate) fn figure(&mut self, path: &str, value: Option<f64>) -> Result<(), FieldError> {
        match value {
            Some(v) if !(v.is_finite() && v >= 0.0) => Err(FieldError::new(
                path,
                format!("expected a finite number >= 0, got {v}"),
            )),
            Some(_) if self.unknown.contains(path) => Err(FieldError::new(
                path,
                "is given but also listed in `unknown`; remove one",
            )),
            Some(_) => Ok(()),
            None => {
                self.absent.insert(path.to_string());
                Ok(())
            }
        }
    }

    /// Every absent figure must be listed in `unknown`, and every listed key absent.
    pub(crate) fn finish(self) -> Result<(), FieldError> {
        if let Some(missing) = self
            .absent
            .iter()
            .find(|k| !self.unknown.contains(k.as_str()))
        {
            return Err(FieldError::new(
                missing.clone(),
                "is missing: give it with a source, or list it in `unknown`",
            ));
        }
        if let Some(extra) = self.unknown.iter().find(|k| !self.absent.contains(**k)) {
            return Err(FieldError::new(
                "unknown",
                format!("lists `{extra}`, which is not an absent optional figure of this file"),
            ));
        }
        Ok(())
    }
}

/// Ids are lower-case `[a-z0-9-]`, non-empty.
pub(crate) fn check_id(field: &str, id: &str) -> Result<(), FieldError> {
    let ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(FieldError::new(
            field,
            format!("expected a lower-case id of [a-z0-9-], got `{id}`"),
        ))
    }
}
