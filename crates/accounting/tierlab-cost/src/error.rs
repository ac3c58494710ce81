//! The one error type of this crate: bad numbers handed to the model (named by the
//! field that holds them), bad data files (file, line and key), and tariffs or price
//! entries whose figures are recorded as unknown and so cannot be priced.

use tierlab_config::ConfigError;

/// Why a cost or endurance figure could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CostError {
    /// A value given to the model is out of range: `field` is its path in the input
    /// (`devices[1].wear.rated_cycles`), `message` says what was expected.
    #[error("field `{field}`: {message}")]
    Input { field: String, message: String },
    /// A data file failed to load or validate.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A figure the model needs is listed as unknown in the data file `file`.
    #[error("{file}: `{field}` is unknown (listed in `unknown`), so {what} cannot be computed")]
    Unknown {
        file: String,
        field: String,
        what: String,
    },
}

impl CostError {
    pub(crate) fn input(field: impl Into<String>, message: impl Into<String>) -> Self {
        CostError::Input {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Check that `value` is finite and ≥ 0; `field` names it in the error.
pub(crate) fn non_negative(value: f64, field: &str) -> Result<f64, CostError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(CostError::input(
            field,
            format!("expected a finite number >= 0, got {value}"),
        ))
    }
}

/// Check that `value` is finite and > 0; `field` names it in the error.
pub(crate) fn positive(value: f64, field: &str) -> Result<f64, CostError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(CostError::input(
            field,
            format!("expected a finite number > 0, got {value}"),
        ))
    }
}
