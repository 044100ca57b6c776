//! Parsing setting values from the strings the shell and the gateway receive.
//!
//! Keywords and booleans are case-insensitive, as in HBase's shell. Every failure is a
//! [`SchemaError`] naming the setting and what it accepts.

use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;

use super::{Compression, DataBlockEncoding, SchemaError};

/// A setting whose values are keywords (`NONE`, `SNAPPY`, …).
pub(crate) trait Keyword: Copy + 'static {
    /// Every value, in the order error messages list them.
    const KEYWORDS: &'static [Self];
    /// HBase's spelling of the value.
    fn keyword(self) -> &'static str;
}

/// Declares a keyword enum: the variants with their HBase spelling, `ALL`, `name()`,
/// `parse()`, `Display` and [`Keyword`]. Exactly one variant must carry `#[default]`.
macro_rules! keyword_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $kw:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// HBase's (or Strata's) spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $kw,)+
                }
            }

            /// Parses the spelling, case-insensitively.
            pub fn parse(s: &str) -> Option<$name> {
                let s = s.trim();
                Self::ALL.iter().copied().find(|v| v.name().eq_ignore_ascii_case(s))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl $crate::schema::value::Keyword for $name {
            const KEYWORDS: &'static [$name] = $name::ALL;
            fn keyword(self) -> &'static str {
                self.name()
            }
        }
    };
}
pub(crate) use keyword_enum;

impl Keyword for DataBlockEncoding {
    const KEYWORDS: &'static [Self] = &DataBlockEncoding::ALL;
    fn keyword(self) -> &'static str {
        self.name()
    }
}

impl Keyword for Compression {
    const KEYWORDS: &'static [Self] = &Compression::ALL;
    fn keyword(self) -> &'static str {
        self.name()
    }
}

/// The accepted spellings of `K`, comma-separated.
pub(crate) fn allowed<K: Keyword>() -> String {
    let names: Vec<&str> = K::KEYWORDS.iter().map(|k| k.keyword()).collect();
    names.join(", ")
}

/// The error for a word `K` does not know.
pub(crate) fn unknown_value<K: Keyword>(setting: &'static str, value: &str) -> SchemaError {
    SchemaError::UnknownValue {
        setting,
        value: value.to_string(),
        allowed: allowed::<K>(),
    }
}

/// Parses a keyword of `K` by its exact spelling (case-insensitive).
pub(crate) fn parse_keyword<K: Keyword>(
    setting: &'static str,
    value: &str,
) -> Result<K, SchemaError> {
    let v = value.trim();
    K::KEYWORDS
        .iter()
        .copied()
        .find(|k| k.keyword().eq_ignore_ascii_case(v))
        .ok_or_else(|| unknown_value::<K>(setting, value))
}

/// Parses `TRUE` / `FALSE` (case-insensitive).
pub(crate) fn parse_bool(setting: &'static str, value: &str) -> Result<bool, SchemaError> {
    match value.trim().to_ascii_uppercase().as_str() {
        "TRUE" => Ok(true),
        "FALSE" => Ok(false),
        _ => Err(SchemaError::UnknownValue {
            setting,
            value: value.to_string(),
            allowed: "TRUE, FALSE".to_string(),
        }),
    }
}

/// The error for a number outside `range` (or not a number).
pub(crate) fn out_of_range<T: Display>(
    setting: &'static str,
    value: impl Display,
    range: &RangeInclusive<T>,
) -> SchemaError {
    SchemaError::InvalidValue {
        setting,
        value: value.to_string(),
        expected: format!("an integer in {}..={}", range.start(), range.end()),
    }
}

/// Checks a typed value against its allowed range.
pub(crate) fn check_range<T: PartialOrd + Display>(
    setting: &'static str,
    value: T,
    range: RangeInclusive<T>,
) -> Result<T, SchemaError> {
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(out_of_range(setting, value, &range))
    }
}

/// Parses a decimal integer within `range`.
pub(crate) fn parse_int<T: FromStr + PartialOrd + Display>(
    setting: &'static str,
    value: &str,
    range: RangeInclusive<T>,
) -> Result<T, SchemaError> {
    match value.trim().parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(out_of_range(setting, value, &range)),
    }
}

/// Parses a byte size within `range`: an integer, optionally followed by a binary unit as HBase
/// prints them (`65536`, `64KB`, `64 K`, `10 GB`, `128MB`; `B`, `K(B)`, `M(B)`, `G(B)`,
/// `T(B)`, powers of 1024).
pub(crate) fn parse_size(
    setting: &'static str,
    value: &str,
    range: RangeInclusive<u64>,
) -> Result<u64, SchemaError> {
    let bad = || SchemaError::InvalidValue {
        setting,
        value: value.to_string(),
        expected: format!(
            "a size in bytes in {}..={} (units B, KB, MB, GB, TB allowed)",
            range.start(),
            range.end()
        ),
    };
    let s = value.trim();
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(digits_end);
    let number: u64 = digits.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" => 10,
        "M" | "MB" => 20,
        "G" | "GB" => 30,
        "T" | "TB" => 40,
        _ => return Err(bad()),
    };
    let bytes = number.checked_mul(1 << shift).ok_or_else(bad)?;
    if range.contains(&bytes) {
        Ok(bytes)
    } else {
        Err(bad())
    }
}

/// Parses a probability in the half-open interval (0, `max`].
pub(crate) fn parse_rate(setting: &'static str, value: &str, max: f64) -> Result<f64, SchemaError> {
    match value.trim().parse::<f64>() {
        Ok(r) => check_rate(setting, r, max),
        Err(_) => Err(rate_error(setting, value, max)),
    }
}

/// Checks a probability against (0, `max`].
pub(crate) fn check_rate(setting: &'static str, rate: f64, max: f64) -> Result<f64, SchemaError> {
    if rate > 0.0 && rate <= max {
        Ok(rate)
    } else {
        Err(rate_error(setting, rate, max))
    }
}

fn rate_error(setting: &'static str, value: impl Display, max: f64) -> SchemaError {
    SchemaError::InvalidValue {
        setting,
        value: value.to_string(),
        expected: format!("a number in (0, {max}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_accept_units() {
        let r = 0..=u64::MAX;
        assert_eq!(parse_size("X", "65536", r.clone()), Ok(65536));
        assert_eq!(parse_size("X", "64KB", r.clone()), Ok(65536));
        assert_eq!(parse_size("X", " 10 gb ", r.clone()), Ok(10 << 30));
        assert_eq!(parse_size("X", "128M", r.clone()), Ok(128 << 20));
        assert!(parse_size("X", "12 parsecs", r.clone()).is_err());
        assert!(parse_size("X", "", r.clone()).is_err());
        assert!(parse_size("X", "99999999999999999999", r).is_err());
        assert!(parse_size("X", "1KB", 2048..=4096).is_err());
    }

    #[test]
    fn booleans_and_rates() {
        assert_eq!(parse_bool("X", "true"), Ok(true));
        assert_eq!(parse_bool("X", "FALSE"), Ok(false));
        let err = parse_bool("BLOCKCACHE", "yes").unwrap_err();
        assert_eq!(
            err.to_string(),
            "BLOCKCACHE: unknown value 'yes'; allowed: TRUE, FALSE"
        );
        assert_eq!(parse_rate("X", "0.5", 0.5), Ok(0.5));
        assert!(parse_rate("X", "0", 0.5).is_err());
        assert!(parse_rate("X", "NaN", 0.5).is_err());
        assert!(parse_rate("X", "0.6", 0.5).is_err());
    }
}
