//! [`Decimal`]: the operand of HBase's `BigDecimalComparator`, a `java.math.BigDecimal`
//! (unscaled integer × 10^-scale) compared by value as `BigDecimal.compareTo` does (`1.0`
//! equals `1.00`).

use std::cmp::Ordering;
use std::fmt;

/// A decimal number: sign, unscaled digits and scale.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    negative: bool,
    /// Base-10 digits of the unscaled value, most significant first, no leading zeros
    /// (empty for zero).
    digits: Vec<u8>,
    scale: i32,
}

impl Decimal {
    /// Decodes HBase's `Bytes.toBytes(BigDecimal)`: a big-endian `int` scale, then the
    /// unscaled value in two's complement (`BigInteger.toByteArray`). `None` for fewer than 5
    /// bytes (HBase's `Bytes.toBigDecimal` answers `null` then).
    pub fn from_hbase(bytes: &[u8]) -> Option<Decimal> {
        if bytes.len() < 5 {
            return None;
        }
        let scale = i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let mut magnitude = bytes[4..].to_vec();
        let negative = magnitude[0] & 0x80 != 0;
        if negative {
            // Two's complement: invert and add one.
            for b in &mut magnitude {
                *b = !*b;
            }
            for b in magnitude.iter_mut().rev() {
                let (sum, carry) = b.overflowing_add(1);
                *b = sum;
                if !carry {
                    break;
                }
            }
        }
        let digits = base256_to_digits(magnitude);
        Some(Decimal {
            negative: negative && !digits.is_empty(),
            digits,
            scale,
        })
    }

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]`, as Java's `new BigDecimal(String)`.
    pub fn parse(text: &str) -> Option<Decimal> {
        let t = text.trim();
        let (negative, rest) = match t.as_bytes().first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let all = int.bytes().chain(frac.bytes());
        let mut digits = Vec::new();
        for c in all {
            if !c.is_ascii_digit() {
                return None;
            }
            if !(digits.is_empty() && c == b'0') {
                digits.push(c - b'0');
            }
        }
        let scale = i32::try_from(i64::try_from(frac.len()).ok()? - exponent).ok()?;
        Some(Decimal {
            negative: negative && !digits.is_empty(),
            digits,
            scale,
        })
    }

    /// `BigDecimal.compareTo`: by value, whatever the scales.
    pub fn cmp_value(&self, other: &Decimal) -> Ordering {
        let sign = |d: &Decimal| match (d.digits.is_empty(), d.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        let by_sign = sign(self).cmp(&sign(other));
        if by_sign != Ordering::Equal || sign(self) == 0 {
            return by_sign;
        }
        let magnitude = self.cmp_magnitude(other);
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        let (a, ea) = self.normalized();
        let (b, eb) = other.normalized();
        ea.cmp(&eb).then_with(|| a.cmp(b))
    }

    /// Digits without trailing zeros, and the position of the most significant digit
    /// (digits − scale): equal positions compare by digits.
    fn normalized(&self) -> (&[u8], i64) {
        let end = self
            .digits
            .iter()
            .rposition(|&d| d != 0)
            .map_or(0, |i| i + 1);
        (
            &self.digits[..end],
            self.digits.len() as i64 - i64::from(self.scale),
        )
    }
}

/// Shows the number so that [`Decimal::parse`] gives it back: `-12.50`, or `12E+3` for a
/// negative scale.
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        if text.is_empty() {
            text.push('0');
        }
        if self.negative {
            f.write_str("-")?;
        }
        if self.scale <= 0 {
            return if self.scale == 0 {
                f.write_str(&text)
            } else {
                write!(f, "{text}E+{}", -i64::from(self.scale))
            };
        }
        let scale = usize::try_from(self.scale).unwrap_or(usize::MAX);
        if scale >= text.len() {
            if scale - text.len() > 64 {
                return write!(f, "{text}E-{scale}");
            }
            let zeros = "0".repeat(scale - text.len());
            write!(f, "0.{zeros}{text}")
        } else {
            let (int, frac) = text.split_at(text.len() - scale);
            write!(f, "{int}.{frac}")
        }
    }
}

/// A big-endian base-256 magnitude as base-10 digits (no leading zeros; empty for zero).
fn base256_to_digits(mut n: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        while n.first() == Some(&0) {
            n.remove(0);
        }
        if n.is_empty() {
            break;
        }
        let mut rem = 0u32;
        for b in &mut n {
            let cur = (rem << 8) | u32::from(*b);
            *b = (cur / 10) as u8;
            rem = cur % 10;
        }
        out.push(rem as u8);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn compares_by_value_across_scales_and_signs() {
        assert_eq!(d("1.0").cmp_value(&d("1.00")), Ordering::Equal);
        assert_eq!(d("-0").cmp_value(&d("0.000")), Ordering::Equal);
        assert_eq!(d("12.5").cmp_value(&d("12.49")), Ordering::Greater);
        assert_eq!(d("-12.5").cmp_value(&d("-12.49")), Ordering::Less);
        assert_eq!(d("1E+3").cmp_value(&d("999.999")), Ordering::Greater);
        assert_eq!(d("0.001").cmp_value(&d("-5")), Ordering::Greater);
        assert_eq!(d("100").cmp_value(&d("99")), Ordering::Greater);
        assert!(Decimal::parse("1.2.3").is_none() && Decimal::parse("").is_none());
    }

    #[test]
    fn decodes_hbase_bytes() {
        // 12.50 = 1250 × 10^-2; -1.5 = -15 × 10^-1; -128 = 0x80.
        let enc = |scale: i32, unscaled: &[u8]| [&scale.to_be_bytes()[..], unscaled].concat();
        assert_eq!(
            Decimal::from_hbase(&enc(2, &[0x04, 0xE2])),
            Some(d("12.50"))
        );
        assert_eq!(Decimal::from_hbase(&enc(1, &[0xF1])), Some(d("-1.5")));
        assert_eq!(Decimal::from_hbase(&enc(0, &[0x80])), Some(d("-128")));
        assert_eq!(Decimal::from_hbase(&enc(0, &[0xFF, 0x7F])), Some(d("-129")));
        assert_eq!(Decimal::from_hbase(&enc(0, &[0x00])), Some(d("0")));
        assert_eq!(Decimal::from_hbase(&[0, 0, 0, 1]), None);
    }

    #[test]
    fn text_round_trips() {
        for s in ["12.50", "-0.05", "7", "12E+3", "0"] {
            assert_eq!(d(&d(s).to_string()), d(s), "{s}");
            assert_eq!(d(s).to_string(), s);
        }
    }
}
