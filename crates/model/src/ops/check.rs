//! Cheap checks shared by every operation: key parts within [`crate::limits`], timestamps.

use super::OpError;
use crate::cell::Timestamp;
use crate::limits::{MAX_FAMILY_LEN, MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};

/// Checks a row key: non-empty, at most [`MAX_ROW_LEN`] bytes.
///
/// # Errors
/// [`OpError::EmptyRow`] or [`OpError::TooLong`].
pub fn check_row(row: &[u8]) -> Result<(), OpError> {
    if row.is_empty() {
        return Err(OpError::EmptyRow);
    }
    check_len("row", row, MAX_ROW_LEN)
}

/// Checks a family name: non-empty, at most [`MAX_FAMILY_LEN`] bytes. Whether the table has
/// the family is the server's check.
///
/// # Errors
/// [`OpError::EmptyFamily`] or [`OpError::TooLong`].
pub fn check_family(family: &[u8]) -> Result<(), OpError> {
    if family.is_empty() {
        return Err(OpError::EmptyFamily);
    }
    check_len("column family", family, MAX_FAMILY_LEN)
}

/// Checks a qualifier: at most [`MAX_QUALIFIER_LEN`] bytes (empty is allowed).
///
/// # Errors
/// [`OpError::TooLong`].
pub fn check_qualifier(qualifier: &[u8]) -> Result<(), OpError> {
    check_len("qualifier", qualifier, MAX_QUALIFIER_LEN)
}

/// Checks a value: at most [`MAX_VALUE_LEN`] bytes.
///
/// # Errors
/// [`OpError::TooLong`].
pub fn check_value(value: &[u8]) -> Result<(), OpError> {
    check_len("value", value, MAX_VALUE_LEN)
}

/// Checks a client-given timestamp: non-negative (absent means "the server's now").
///
/// # Errors
/// [`OpError::NegativeTimestamp`].
pub fn check_timestamp(ts: Option<Timestamp>) -> Result<(), OpError> {
    match ts {
        Some(t) if t < 0 => Err(OpError::NegativeTimestamp(t)),
        _ => Ok(()),
    }
}

/// Checks a family and a qualifier together.
pub(crate) fn check_column(family: &[u8], qualifier: &[u8]) -> Result<(), OpError> {
    check_family(family)?;
    check_qualifier(qualifier)
}

fn check_len(what: &'static str, bytes: &[u8], max: usize) -> Result<(), OpError> {
    if bytes.len() > max {
        return Err(OpError::TooLong {
            what,
            len: bytes.len(),
            max,
        });
    }
    Ok(())
}

/// Bytes as HBase's `Bytes.toStringBinary` shows them: printable ASCII as is, every other byte
/// (and `\`) as `\xHH`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (b' '..=b'~').contains(&b) && b != b'\\' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_enforced() {
        assert_eq!(check_row(b""), Err(OpError::EmptyRow));
        assert!(check_row(&vec![b'r'; MAX_ROW_LEN]).is_ok());
        assert_eq!(
            check_row(&vec![b'r'; MAX_ROW_LEN + 1])
                .unwrap_err()
                .to_string(),
            "row is 32768 bytes; at most 32767 allowed"
        );
        assert_eq!(check_family(b""), Err(OpError::EmptyFamily));
        assert!(check_family(&[b'f'; 256]).is_err());
        assert!(check_qualifier(b"").is_ok());
        assert_eq!(
            check_timestamp(Some(-1)),
            Err(OpError::NegativeTimestamp(-1))
        );
        assert!(check_timestamp(None).is_ok());
    }

    #[test]
    fn escape_matches_to_string_binary() {
        assert_eq!(escape(b"row-1"), "row-1");
        assert_eq!(escape(b"a\x00\xff\\"), "a\\x00\\xFF\\x5C");
    }
}
