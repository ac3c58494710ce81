//! Strict TOML loading with errors a user can act on.
//!
//! Every tierlab configuration and catalog file is read through this crate so that a bad
//! file always produces the same kind of message: the file, the 1-based line, the full
//! key path (`power.standby[1].power_w`) and what was expected. Structs loaded here are
//! meant to use `#[serde(deny_unknown_fields)]`, so a misspelt key is an error rather than
//! a silently ignored setting.
//!
//! Two kinds of problem are reported:
//! - shape errors found while deserializing (syntax, unknown key, wrong type, missing
//!   field): located with toml's spans and `serde_path_to_error`'s key path;
//! - value errors found afterwards by a type's [`Validate`] impl (a negative power, an
//!   empty list): the impl names the key path and this crate finds its line in the text.

mod locate;

use serde::de::DeserializeOwned;
use std::fmt;
use std::path::Path;
use tierlab_types::SourceLocation;

pub use locate::line_of_key;

/// A problem with one configuration file, located as precisely as the input allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// File name as given by the caller, 1-based line (0 when unknown, e.g. an
    /// unreadable file) and full key path (empty when the problem is not under one key,
    /// e.g. a syntax error).
    pub location: SourceLocation,
    /// What was wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// A value that deserialized but is not acceptable, found by [`Validate`].
/// `key` is the full key path relative to the value validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub key: String,
    pub message: String,
}

impl FieldError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The same error seen from an enclosing value stored under `prefix`
    /// (`"power"` + `"standby[1].power_w"` → `"power.standby[1].power_w"`).
    pub fn within(self, prefix: &str) -> Self {
        let key = if self.key.is_empty() {
            prefix.to_string()
        } else if self.key.starts_with('[') {
            format!("{prefix}{}", self.key)
        } else {
            format!("{prefix}.{}", self.key)
        };
        FieldError {
            key,
            message: self.message,
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.key, self.message)
    }
}

impl std::error::Error for FieldError {}

/// Checks on values that the type system cannot express (ranges, non-empty lists,
/// cross-field consistency). Returns the first problem found.
pub trait Validate {
    fn validate(&self) -> Result<(), FieldError>;
}

/// Read and deserialize the TOML file at `path`; the error names the path as given.
pub fn load_toml<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = read(path)?;
    parse_toml(&text, &path.display().to_string())
}

/// Like [`load_toml`], then run the type's [`Validate`] checks.
pub fn load_toml_validated<T: DeserializeOwned + Validate>(path: &Path) -> Result<T, ConfigError> {
    let text = read(path)?;
    parse_toml_validated(&text, &path.display().to_string())
}

/// Deserialize TOML `text`; `display_name` (a file name) is used in errors.
pub fn parse_toml<T: DeserializeOwned>(text: &str, display_name: &str) -> Result<T, ConfigError> {
    let deserializer = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(deserializer).map_err(|e| shape_error(text, display_name, e))
}

/// Like [`parse_toml`], then run the type's [`Validate`] checks; a failed check is
/// reported at the line of the offending key.
pub fn parse_toml_validated<T: DeserializeOwned + Validate>(
    text: &str,
    display_name: &str,
) -> Result<T, ConfigError> {
    let value: T = parse_toml(text, display_name)?;
    value
        .validate()
        .map_err(|e| field_error(text, display_name, e))?;
    Ok(value)
}

/// Turn a [`FieldError`] found in a value parsed from `text` into a located error.
pub fn field_error(text: &str, display_name: &str, e: FieldError) -> ConfigError {
    ConfigError {
        location: SourceLocation {
            file: display_name.to_string(),
            line: line_of_key(text, &e.key),
            field: e.key,
        },
        message: e.message,
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        location: SourceLocation {
            file: path.display().to_string(),
            line: 0,
            field: String::new(),
        },
        message: format!("cannot read file: {e}"),
    })
}

fn shape_error(
    text: &str,
    display_name: &str,
    e: serde_path_to_error::Error<toml::de::Error>,
) -> ConfigError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let message = inner.message().trim().replace('\n', "; ");
    // serde reports a missing field at the table that lacks it; name the field itself.
    let mut key = if path == "." { String::new() } else { path };
    if let Some(missing) = missing_field_name(&message) {
        key = FieldError::new(missing, "").within(&key).key;
        if key.starts_with('.') {
            key.remove(0);
        }
    }
    let line = match inner.span() {
        Some(span) => line_of_offset(text, span.start),
        None => line_of_key(text, &key),
    };
    ConfigError {
        location: SourceLocation {
            file: display_name.to_string(),
            line,
            field: key,
        },
        message,
    }
}

/// The field name in serde's standard "missing field `x`" message.
fn missing_field_name(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

/// 1-based line number of byte `offset` in `text`.
pub fn line_of_offset(text: &str, offset: usize) -> u64 {
    let end = offset.min(text.len());
    let before = text.as_bytes().get(..end).unwrap_or_default();
    1 + before.iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests;
