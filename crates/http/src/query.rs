//! Strict parsing of the UI's query strings: at most [`MAX_QUERY_BYTES`] bytes, only the
//! parameters a page declares, each at most once, with valid percent-encoding and UTF-8.
//! Anything else is refused (HTTP 400) rather than guessed at.

use std::collections::HashMap;

/// Longest query string accepted.
pub const MAX_QUERY_BYTES: usize = 1024;

/// Why a query string was refused.
#[derive(Debug, PartialEq, Eq)]
pub struct BadQuery(pub String);

/// The parameters of `raw` (`None`: no query), each named in `allowed`.
///
/// # Errors
/// Too long, an unknown or repeated parameter, a parameter without `=`, or bad
/// percent-encoding or UTF-8.
pub fn parse(raw: Option<&str>, allowed: &[&str]) -> Result<HashMap<String, String>, BadQuery> {
    let mut out = HashMap::new();
    let Some(raw) = raw.filter(|r| !r.is_empty()) else {
        return Ok(out);
    };
    if raw.len() > MAX_QUERY_BYTES {
        return Err(BadQuery(format!(
            "query string of {} bytes exceeds the limit of {MAX_QUERY_BYTES}",
            raw.len()
        )));
    }
    for pair in raw.split('&') {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| BadQuery(format!("parameter '{}' has no value", clip(pair))))?;
        let key = decode(key)?;
        if !allowed.contains(&key.as_str()) {
            return Err(BadQuery(format!("unknown parameter '{}'", clip(&key))));
        }
        let value = decode(value)?;
        if out.insert(key.clone(), value).is_some() {
            return Err(BadQuery(format!("parameter '{key}' given twice")));
        }
    }
    Ok(out)
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Percent-decodes (`+` is a space, as forms send it).
fn decode(s: &str) -> Result<String, BadQuery> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| BadQuery("bad percent-encoding".to_owned()))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| BadQuery("parameter is not UTF-8".to_owned()))
}

/// Percent-encodes a value for a link.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~:".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_declared_parameters_and_decodes_them() {
        let q = parse(Some("name=ns%3At+1&kind=reads"), &["name", "kind"]).expect("valid");
        assert_eq!(q["name"], "ns:t 1");
        assert_eq!(q["kind"], "reads");
        assert!(parse(None, &[]).expect("no query").is_empty());
        assert_eq!(encode("ns:t 1/é"), "ns:t%201%2F%C3%A9");
    }

    #[test]
    fn refuses_malformed_unknown_repeated_and_oversized_queries() {
        for bad in [
            "name",
            "x=1",
            "name=1&name=2",
            "name=%zz",
            "name=%c3",
            "name=%4",
        ] {
            assert!(parse(Some(bad), &["name"]).is_err(), "{bad} accepted");
        }
        let long = format!("name={}", "a".repeat(MAX_QUERY_BYTES));
        assert!(parse(Some(&long), &["name"]).is_err());
    }
}
