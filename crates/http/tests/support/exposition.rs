//! Strict checkers of the two text formats `/metrics` serves. OpenMetrics ([`parse`]): every
//! line is a `# HELP`, `# TYPE`, `# UNIT`, a sample of the family declared last, or the final
//! `# EOF`. The Prometheus text format 0.0.4 ([`parse_classic`]), as a classic parser reads
//! it: `# HELP`, `# TYPE` (counter, gauge, histogram, summary, untyped) and samples named as
//! their family (a histogram's with `_bucket`, `_sum`, `_count`), no `# UNIT`, no `# EOF`.

use std::collections::BTreeMap;

/// One sample: its full name, labels and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// The families (name → type) and samples of an exposition.
#[derive(Debug, Default)]
pub struct Exposition {
    pub types: BTreeMap<String, String>,
    pub samples: Vec<Sample>,
}

impl Exposition {
    /// The samples named `name` whose labels include `labels`.
    pub fn find(&self, name: &str, labels: &[(&str, &str)]) -> Vec<&Sample> {
        self.samples
            .iter()
            .filter(|s| {
                s.name == name
                    && labels
                        .iter()
                        .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
            })
            .collect()
    }

    /// The sum of the values of [`Exposition::find`].
    pub fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.find(name, labels).iter().map(|s| s.value).sum()
    }
}

fn valid_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// Parses `text` as OpenMetrics, failing on the first line that breaks the format.
pub fn parse(text: &str) -> Result<Exposition, String> {
    parse_as(text, true)
}

/// Parses `text` as the Prometheus text format 0.0.4, failing on the first line that breaks
/// it.
pub fn parse_classic(text: &str) -> Result<Exposition, String> {
    parse_as(text, false)
}

fn parse_as(text: &str, openmetrics: bool) -> Result<Exposition, String> {
    let types: &[&str] = if openmetrics {
        &["counter", "gauge", "histogram", "info", "unknown"]
    } else {
        &["counter", "gauge", "histogram", "summary", "untyped"]
    };
    let mut out = Exposition::default();
    let mut current: Option<(String, String)> = None;
    let mut eof = false;
    for (i, line) in text.lines().enumerate() {
        let at = |m: &str| format!("line {}: {m}: {line}", i + 1);
        if eof {
            return Err(at("content after # EOF"));
        }
        if line == "# EOF" && openmetrics {
            eof = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("# ") {
            let mut parts = rest.splitn(3, ' ');
            let (kw, name, arg) = (parts.next(), parts.next(), parts.next());
            let (Some(kw), Some(name)) = (kw, name) else {
                return Err(at("bad comment"));
            };
            if !valid_name(name) {
                return Err(at("bad family name"));
            }
            match kw {
                "TYPE" => {
                    let t = arg.ok_or_else(|| at("TYPE without a type"))?;
                    if !types.contains(&t) {
                        return Err(at("unknown type"));
                    }
                    if out.types.insert(name.to_owned(), t.to_owned()).is_some() {
                        return Err(at("family declared twice"));
                    }
                    current = Some((name.to_owned(), t.to_owned()));
                }
                "HELP" => {}
                "UNIT" if openmetrics => {}
                _ => return Err(at("unknown comment")),
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').ok_or_else(|| at("no value"))?;
        let value: f64 = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v.parse().map_err(|_| at("bad value"))?,
        };
        let (name, labels) = match series.split_once('{') {
            None => (series, BTreeMap::new()),
            Some((name, rest)) => {
                let inner = rest
                    .strip_suffix('}')
                    .ok_or_else(|| at("unclosed labels"))?;
                (name, parse_labels(inner).map_err(|e| at(&e))?)
            }
        };
        if !valid_name(name) {
            return Err(at("bad metric name"));
        }
        let (family, kind) = current.as_ref().ok_or_else(|| at("sample before TYPE"))?;
        let suffixes: &[&str] = match (kind.as_str(), openmetrics) {
            ("counter", true) => &["_total", "_created"],
            ("histogram", true) => &["_bucket", "_sum", "_count", "_created"],
            ("histogram", false) => &["_bucket", "_sum", "_count"],
            ("summary", false) => &["", "_sum", "_count"],
            _ => &[""],
        };
        if !suffixes.iter().any(|s| name == format!("{family}{s}")) {
            return Err(at(&format!("sample outside its family {family}")));
        }
        if name.ends_with("_bucket") && !labels.contains_key("le") {
            return Err(at("bucket without le"));
        }
        out.samples.push(Sample {
            name: name.to_owned(),
            labels,
            value,
        });
    }
    if !eof && openmetrics {
        return Err("no # EOF at the end".to_owned());
    }
    Ok(out)
}

fn parse_labels(mut s: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    while !s.is_empty() {
        let (name, rest) = s.split_once("=\"").ok_or("label without =\"")?;
        if !valid_name(name) || name.contains(':') {
            return Err(format!("bad label name {name}"));
        }
        let mut value = String::new();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next() {
                None => return Err("unterminated label value".to_owned()),
                Some((i, '"')) => break i,
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c @ ('\\' | '"'))) => value.push(c),
                    _ => return Err("bad escape in label value".to_owned()),
                },
                Some((_, c)) => value.push(c),
            }
        };
        if out.insert(name.to_owned(), value).is_some() {
            return Err(format!("label {name} twice"));
        }
        s = &rest[end + 1..];
        s = s.strip_prefix(',').unwrap_or(s);
    }
    Ok(out)
}
