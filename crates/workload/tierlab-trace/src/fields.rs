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

/// Whether `line` is a CSV header: exactly the fields `names`, in order, in any case, with
/// blanks around them allowed.
pub(crate) fn is_header(line: &[u8], names: &[&str]) -> bool {
    let mut fields = Fields::new(line, Sep::Byte(b','));
    names.iter().all(|name| {
        fields
            .next()
            .is_some_and(|field| field.eq_ignore_ascii_case(name.as_bytes()))
    }) && fields.next().is_none()
}

/// The fast path of the CSV parsers: a strict, single-pass reader of `sep`-separated
/// fields in the plain shape real files use (no blanks, no quotes). It never reports an
/// error: on anything unusual it returns `None`, and the format falls back to its general
/// parser, which reads the same line the same way and names the bad field. It accepts only
/// fields the general parser reads identically (blank-free fields need no trimming).
pub(crate) struct Plain<'a> {
    /// The unread part of the line; `None` once its last field has been read.
    rest: Option<&'a [u8]>,
    sep: u8,
}

impl<'a> Plain<'a> {
    pub fn new(line: &'a [u8], sep: u8) -> Self {
        Plain { rest: Some(line), sep }
    }

    /// Steps past a field of `len` bytes and its separator; `false` if the field is
    /// empty or followed by anything else.
    #[inline]
    fn advance(&mut self, rest: &'a [u8], len: usize) -> bool {
        if len == 0 {
            return false;
        }
        match rest.get(len) {
            None => self.rest = None,
            Some(&b) if b == self.sep => self.rest = Some(&rest[len + 1..]),
            Some(_) => return false,
        }
        true
    }

    /// The next field (up to the separator or the end of the line): `None` if it is
    /// empty, holds a blank or other control byte, or the line is used up.
    #[inline]
    pub fn field(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        let sep = self.sep;
        // Blanks and control bytes sort below b'!': one comparison catches them all.
        let len = rest
            .iter()
            .position(|&b| b == sep || b <= b' ')
            .unwrap_or(rest.len());
        self.advance(rest, len).then(|| &rest[..len])
    }

    /// The next field as a decimal number of at most 19 whole digits and at most `scale`
    /// fraction digits (`12`, `3.25`), as a count of `10^-scale` units: what
    /// [`parse_decimal`] gives for such text, read in one pass.
    #[inline]
    pub fn decimal(&mut self, scale: u32) -> Option<u64> {
        let rest = self.rest?;
        let (whole, whole_len) = digits(rest);
        let (frac, frac_len) = match rest.get(whole_len) {
            Some(b'.') => digits(&rest[whole_len + 1..]),
            _ => (0, 0),
        };
        let len = match frac_len {
            0 if rest.get(whole_len) == Some(&b'.') => whole_len + 1,
            0 => whole_len,
            n => whole_len + 1 + n,
        };
        if whole_len == 0 || whole_len > 19 || frac_len > scale as usize || !self.advance(rest, len) {
            return None;
        }
        let frac_units = frac * *POW10.get(scale as usize - frac_len)?;
        whole.checked_mul(*POW10.get(scale as usize)?)?.checked_add(frac_units)
    }

    /// The next field as a whole number of at most 19 digits (so it cannot overflow),
    /// read in the same pass that finds its end.
    #[inline]
    pub fn number(&mut self) -> Option<u64> {
        let rest = self.rest?;
        let (value, len) = digits(rest);
        (len <= 19 && self.advance(rest, len)).then_some(value)
    }

    /// Whether the last field has been read (a line ending in a separator never is).
    pub fn done(&self) -> bool {
        self.rest.is_none()
    }
}

/// Powers of ten that fit in a `u64`.
const POW10: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// The value and count of the leading decimal digits of `bytes` (the value is meaningful
/// for up to 19 digits only: it wraps beyond). Eight bytes are examined at a time while
/// eight are left ([`digits8`]), the rest one by one.
#[inline]
fn digits(bytes: &[u8]) -> (u64, usize) {
    let mut value: u64 = 0;
    let mut len = 0;
    while let Some(chunk) = bytes[len..].first_chunk::<8>() {
        let (v, n) = digits8(u64::from_le_bytes(*chunk));
        value = value.wrapping_mul(POW10[n]).wrapping_add(v);
        len += n;
        if n < 8 {
            return (value, len);
        }
    }
    for &b in &bytes[len..] {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        len += 1;
    }
    (value, len)
}

/// The value and count of the leading decimal digits among 8 bytes read as a
/// little-endian word (the first byte lowest), with whole-word arithmetic: a per-byte
/// loop costs about as much per digit as this does for all eight.
#[inline]
fn digits8(word: u64) -> (u64, usize) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Each byte minus b'0' is a digit iff it is at most 9: adding 0x76 then carries into
    // the byte's high bit exactly for values 10..=127, and values at or above 0x80
    // (including a borrow from bytes below b'0') have it set already. A borrow makes
    // every later byte a non-digit too, which is harmless: only the first non-digit
    // counts.
    let x = word.wrapping_sub(ONES * u64::from(b'0'));
    let not_digit = (x | x.wrapping_add(ONES * 0x76)) & HIGH;
    let n = (not_digit.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // Keep the n digits, moved to the top bytes: the bytes below read as leading zeros.
    let x = x << (8 * (8 - n));
    // Combine neighbours: pairs of digits, then groups of four, then all eight.
    let x = (x & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(10 * 256 + 1) >> 8;
    let x = (x & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 * 65536 + 1) >> 16;
    let x = (x & 0x0000_ffff_0000_ffff).wrapping_mul(10000 * (1 << 32) + 1) >> 32;
    (x, n)
}

/// A whole number without sign; `None` if empty, not all digits, or above `u64::MAX`.
pub(crate) fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() {
        return None;
    }
    // Up to 19 digits cannot overflow: skip the checks on the common short numbers.
    if bytes.len() <= 19 {
        let mut value: u64 = 0;
        for &b in bytes {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            value = value * 10 + u64::from(digit);
        }
        return Some(value);
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

/// Whether `len_bytes` is a request length the readers accept: positive, at most
/// [`MAX_REQUEST_BYTES`].
pub(crate) fn is_request_len(len_bytes: u64) -> bool {
    len_bytes > 0 && len_bytes <= MAX_REQUEST_BYTES
}

/// A positive whole number of 512-byte sectors as a byte length.
pub(crate) fn sector_len_to_bytes(field: &'static str, bytes: &[u8]) -> Result<u64, FieldError> {
    match parse_u64(bytes).and_then(|s| s.checked_mul(SECTOR_BYTES)) {
        Some(n) if is_request_len(n) => Ok(n),
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
        Some(n) if is_request_len(n) => Ok(n),
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
    fn headers_match_whole_lines_in_any_case() {
        let names = ["Timestamp", "Response", "IOType"];
        assert!(is_header(b"Timestamp,Response,IOType", &names));
        assert!(is_header(b" timestamp , RESPONSE,iotype ", &names));
        assert!(!is_header(b"Timestamp,Response", &names));
        assert!(!is_header(b"Timestamp,Response,IOType,", &names));
        assert!(!is_header(b"Timestamp;Response;IOType", &names));
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

    #[test]
    fn plain_fields_need_no_trimming_and_no_trailing_separator() {
        let mut f = Plain::new(b"12,3.5,ab,7", b',');
        assert_eq!(f.number(), Some(12));
        assert_eq!(f.decimal(3), Some(3500));
        assert_eq!(f.field(), Some(&b"ab"[..]));
        assert!(!f.done());
        assert_eq!(f.number(), Some(7));
        assert!(f.done());
        assert_eq!(f.number(), None, "nothing after the last field");
        for line in [&b"12,"[..], b" 12", b"12 ", b",", b"", b"1\t"] {
            let mut f = Plain::new(line, b',');
            assert!(f.number().is_none() || !f.done(), "{line:?}");
        }
        assert_eq!(Plain::new(b"a b", b',').field(), None);
        assert_eq!(Plain::new(b"5.", b',').decimal(3), Some(5000));
        assert_eq!(Plain::new(b".5", b',').decimal(3), None, "left to the general parser");
    }

    proptest::proptest! {
        /// The fast decimal reads what `parse_decimal` reads, or leaves the field alone.
        #[test]
        fn plain_decimals_agree_with_parse_decimal(text in "[0-9]{0,21}(\\.[0-9]{0,11})?[0-9a. ]{0,2}", scale in 0u32..10) {
            let mut f = Plain::new(text.as_bytes(), b',');
            match f.decimal(scale) {
                Some(v) => {
                    proptest::prop_assert!(f.done());
                    proptest::prop_assert_eq!(parse_decimal(text.as_bytes(), scale), Some(v));
                }
                None => {
                    let frac_len = text.split_once('.').map_or(0, |(_, f)| f.len());
                    let whole_len = text.split('.').next().map_or(0, str::len);
                    let plain = (1..=19).contains(&whole_len) && frac_len <= scale as usize;
                    proptest::prop_assert!(!plain || parse_decimal(text.as_bytes(), scale).is_none());
                }
            }
        }

        /// The word-at-a-time digit reader agrees with a byte loop on any bytes.
        #[test]
        fn digits_agree_with_a_byte_loop(bytes in proptest::collection::vec(proptest::prop_oneof![b'0'..=b'9', proptest::num::u8::ANY], 0..24)) {
            let len = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            let value = bytes[..len].iter().fold(0u64, |v, &b| v.wrapping_mul(10).wrapping_add(u64::from(b - b'0')));
            proptest::prop_assert_eq!(digits(&bytes), (value, len));
        }

        #[test]
        fn plain_numbers_agree_with_parse_u64(text in "[0-9]{0,21}[0-9a ,]{0,2}") {
            let mut f = Plain::new(text.as_bytes(), b',');
            if let Some(v) = f.number() {
                let field = text.split(',').next().unwrap_or("");
                proptest::prop_assert_eq!(parse_u64(field.as_bytes()), Some(v));
                proptest::prop_assert_eq!(f.done(), !text.contains(','));
            }
        }

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
