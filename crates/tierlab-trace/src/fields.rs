//! Allocation-free helpers the line parsers share: splitting a line into fields and
//! parsing numbers straight from bytes. Parsing by hand (rather than through `str::parse`)
//! avoids a UTF-8 check and an allocation per field, which matters at millions of lines
//! per second.

use crate::error::FieldError;
use tierlab_types::{Op, SECTOR_BYTES};

/// How fields are separated on a line.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sep {
    /// Runs of spaces or tabs.
    Whitespace,
    /// One byte (`,` or `;`); spaces and tabs around each field are trimmed.
    Byte(u8),
}

/// Iterates over the fields of one line, naming the field in any error.
pub(crate) struct Fields<'a> {
    rest: Option<&'a [u8]>,
    sep: Sep,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `bytes` without leading and trailing spaces and tabs.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| !is_blank(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| !is_blank(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

impl<'a> Fields<'a> {
    pub fn new(line: &'a [u8], sep: Sep) -> Self {
        let line = trim(line);
        Fields {
            rest: if line.is_empty() { None } else { Some(line) },
            sep,
        }
    }

    /// The next field, or `None` at the end of the line.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        match self.sep {
            Sep::Whitespace => match rest.iter().position(|&b| is_blank(b)) {
                Some(i) => {
                    let after = &rest[i..];
                    let skip = after
                        .iter()
                        .position(|&b| !is_blank(b))
                        .unwrap_or(after.len());
                    let after = &after[skip..];
                    self.rest = if after.is_empty() { None } else { Some(after) };
                    Some(&rest[..i])
                }
                None => {
                    self.rest = None;
                    Some(rest)
                }
            },
            // Fields are short: a plain scan beats memchr's call overhead here.
            Sep::Byte(sep) => match rest.iter().position(|&b| b == sep) {
                Some(i) => {
                    self.rest = Some(&rest[i + 1..]);
                    Some(trim(&rest[..i]))
                }
                None => {
                    self.rest = None;
                    Some(trim(rest))
                }
            },
        }
    }

    /// The next field, which must be present: `name` and `expected` describe it.
    pub fn field(&mut self, name: &'static str, expected: &str) -> Result<&'a [u8], FieldError> {
        self.next()
            .ok_or_else(|| FieldError::new(name, expected, b"end of line"))
    }

    /// Checks that no field is left; `count` is how many the format has.
    pub fn end(&mut self, count: usize) -> Result<(), FieldError> {
        match self.next() {
            None => Ok(()),
            Some(extra) => Err(FieldError::new(
                "line",
                format!("{count} fields and no more"),
                extra,
            )),
        }
    }
}

/// A whole number without sign; `None` if empty, not all digits, or above `u64::MAX`.
pub(crate) fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() {
        return None;
    }
    // No length cut-off: leading zeros are valid; the checked arithmetic catches overflow.
    let mut value: u64 = 0;
    for &b in bytes {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(value)
}

/// A non-negative decimal number such as `12`, `0.221` or `3599.220233553`, returned as
/// an integer count of `10^-scale` units (e.g. seconds with `scale = 9` gives
/// nanoseconds). Digits beyond `scale` are dropped (rounded toward zero). `None` if the
/// text is not such a number or the result exceeds `u64::MAX`.
pub(crate) fn parse_decimal(bytes: &[u8], scale: u32) -> Option<u64> {
    let mut whole: u64 = 0;
    let mut digits = 0usize;
    let mut rest = bytes;
    while let Some((&b, tail)) = rest.split_first() {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        whole = whole.checked_mul(10)?.checked_add(u64::from(digit))?;
        digits += 1;
        rest = tail;
    }
    let mut value = whole.checked_mul(10u64.checked_pow(scale)?)?;
    let Some(frac) = rest.strip_prefix(b".") else {
        // No fraction: the whole text must have been digits.
        return (digits > 0 && rest.is_empty()).then_some(value);
    };
    if digits == 0 && frac.is_empty() {
        return None;
    }
    let mut unit = 10u64.pow(scale);
    for &b in frac {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        unit /= 10;
        value = value.checked_add(u64::from(digit) * unit)?;
    }
    Some(value)
}

/// A whole number of 512-byte sectors as a byte offset.
pub(crate) fn sectors_to_bytes(field: &'static str, bytes: &[u8]) -> Result<u64, FieldError> {
    parse_u64(bytes)
        .and_then(|s| s.checked_mul(SECTOR_BYTES))
        .ok_or_else(|| {
            FieldError::new(
                field,
                "a whole number of 512-byte sectors (below 2^55)",
                bytes,
            )
        })
}

/// The largest request length accepted. No block trace holds a single request near
/// this; a larger value means a corrupt line, and would make consumers that walk a
/// request block by block (working sets, caches) take unbounded time.
pub const MAX_REQUEST_BYTES: u64 = 1 << 30;

/// A positive whole number of 512-byte sectors as a byte length.
pub(crate) fn sector_len_to_bytes(field: &'static str, bytes: &[u8]) -> Result<u64, FieldError> {
    match parse_u64(bytes).and_then(|s| s.checked_mul(SECTOR_BYTES)) {
        Some(n) if n > 0 && n <= MAX_REQUEST_BYTES => Ok(n),
        _ => Err(FieldError::new(
            field,
            "a positive whole number of 512-byte sectors (at most 1 GiB)",
            bytes,
        )),
    }
}

/// A whole number of bytes (an offset).
pub(crate) fn offset_bytes(field: &'static str, bytes: &[u8]) -> Result<u64, FieldError> {
    parse_u64(bytes).ok_or_else(|| FieldError::new(field, "a whole number of bytes", bytes))
}

/// A positive whole number of bytes (a length).
pub(crate) fn len_bytes(field: &'static str, bytes: &[u8]) -> Result<u64, FieldError> {
    match parse_u64(bytes) {
        Some(n) if n > 0 && n <= MAX_REQUEST_BYTES => Ok(n),
        _ => Err(FieldError::new(
            field,
            "a positive whole number of bytes (at most 1 GiB)",
            bytes,
        )),
    }
}

/// A volume or device number that fits in 32 bits.
pub(crate) fn volume(field: &'static str, bytes: &[u8]) -> Result<u32, FieldError> {
    parse_u64(bytes)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| FieldError::new(field, "a whole number below 2^32", bytes))
}

/// A non-negative time in a decimal unit, converted to nanoseconds: `scale` is how many
/// decimal digits separate the unit from a nanosecond (9 for seconds, 6 for ms).
pub(crate) fn time_ns(
    field: &'static str,
    bytes: &[u8],
    scale: u32,
    unit: &str,
) -> Result<u64, FieldError> {
    parse_decimal(bytes, scale)
        .ok_or_else(|| FieldError::new(field, format!("a non-negative number of {unit}"), bytes))
}

/// `R`/`W` in either case (also `Read`/`Write`), the spelling most formats use.
pub(crate) fn op_letter(field: &'static str, bytes: &[u8]) -> Result<Op, FieldError> {
    if bytes.eq_ignore_ascii_case(b"r") || bytes.eq_ignore_ascii_case(b"read") {
        Ok(Op::Read)
    } else if bytes.eq_ignore_ascii_case(b"w") || bytes.eq_ignore_ascii_case(b"write") {
        Ok(Op::Write)
    } else {
        Err(FieldError::new(field, "`R` or `W`", bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_fields_skip_runs_and_padding() {
        let mut f = Fields::new(b"  12 \t 0  34 ", Sep::Whitespace);
        assert_eq!(f.next(), Some(&b"12"[..]));
        assert_eq!(f.next(), Some(&b"0"[..]));
        assert_eq!(f.next(), Some(&b"34"[..]));
        assert_eq!(f.next(), None);
    }

    #[test]
    fn byte_separated_fields_are_trimmed_and_keep_empty_ones() {
        let mut f = Fields::new(b" 1.5 ;  7 ;; W ", Sep::Byte(b';'));
        assert_eq!(f.next(), Some(&b"1.5"[..]));
        assert_eq!(f.next(), Some(&b"7"[..]));
        assert_eq!(f.next(), Some(&b""[..]));
        assert_eq!(f.next(), Some(&b"W"[..]));
        assert_eq!(f.next(), None);
    }

    #[test]
    fn integers_reject_signs_blanks_and_overflow() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-4"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"1 2"), None);
    }

    #[test]
    fn decimals_scale_to_integer_units() {
        assert_eq!(parse_decimal(b"0.221", 6), Some(221_000));
        assert_eq!(parse_decimal(b"3599.220233553", 9), Some(3_599_220_233_553));
        assert_eq!(parse_decimal(b"12", 6), Some(12_000_000));
        assert_eq!(parse_decimal(b".5", 3), Some(500));
        assert_eq!(
            parse_decimal(b"1.23456789", 3),
            Some(1234),
            "extra digits truncate"
        );
        assert_eq!(parse_decimal(b"1.2x", 3), None);
        assert_eq!(parse_decimal(b".", 3), None);
        assert_eq!(parse_decimal(b"-1.0", 3), None);
        assert_eq!(parse_decimal(b"1e3", 3), None);
        assert_eq!(parse_decimal(b"99999999999999999999", 9), None, "overflow");
        assert_eq!(parse_u64(b"000000000000000000000"), Some(0), "leading zeros (found by proptest)");
        assert_eq!(parse_u64(b"18446744073709551616"), None, "overflow");
    }

    proptest::proptest! {
        #[test]
        fn integers_agree_with_std(text in "[0-9]{0,24}|[0-9 +.-]{0,6}") {
            proptest::prop_assert_eq!(parse_u64(text.as_bytes()), text.parse::<u64>().ok().filter(|_| !text.starts_with('+')));
        }

        #[test]
        fn decimals_agree_with_exact_arithmetic(whole in 0u64..1_000_000_000, frac in "[0-9]{0,12}", scale in 0u32..10) {
            let text = format!("{whole}.{frac}");
            let kept: String = frac.chars().chain(std::iter::repeat('0')).take(scale as usize).collect();
            let expected = whole as u128 * 10u128.pow(scale) + kept.parse::<u128>().unwrap_or(0);
            let expected = u64::try_from(expected).ok();
            proptest::prop_assert_eq!(parse_decimal(text.as_bytes(), scale), expected);
        }
    }
}
