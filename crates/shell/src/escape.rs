//! Printing binary keys: printable ASCII as is, everything else as `\xNN` (HBase's
//! `Bytes.toStringBinary`), and parsing that form back.

/// Escapes `bytes` for display.
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02X}"));
        }
    }
    s
}

/// Parses the escaped form.
///
/// # Errors
/// A malformed `\x` escape.
pub fn from_string_binary(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            let hex = s
                .get(i + 2..i + 4)
                .ok_or_else(|| format!("bad escape at {i} in {s:?}"))?;
            out.push(
                u8::from_str_radix(hex, 16).map_err(|_| format!("bad escape at {i} in {s:?}"))?,
            );
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let raw = b"row\x00\xff\\x".to_vec();
        let s = to_string_binary(&raw);
        assert_eq!(s, "row\\x00\\xFF\\x5Cx");
        assert_eq!(from_string_binary(&s).unwrap(), raw);
        assert!(from_string_binary("\\xZZ").is_err());
        assert!(from_string_binary("\\x1").is_err());
    }
}
