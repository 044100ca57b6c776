//! Compiled comparators: `subject op operand` for comparison filters and conditions.

use std::cmp::Ordering;

use bytes::Bytes;
use strata_model::cell::compare_bytes;
use strata_model::ops::{BitOp, Comparator, CompareOp, Decimal};

use super::regex::Regex;
use super::FilterError;

/// A [`Comparator`] ready to test subjects.
#[derive(Clone, Debug)]
pub(super) enum Matcher {
    /// Whole byte strings.
    Binary(Bytes),
    /// The subject's first `len(operand)` bytes.
    BinaryPrefix(Bytes),
    /// Case-insensitive containment; the needle is already lowercased.
    Substring(String),
    /// A regular-expression search.
    Regex(Box<Regex>),
    /// The subject as a big-endian `i64`.
    Long(i64),
    /// A bitwise test of a subject of the operand's length.
    Bit(BitOp, Bytes),
    /// Never equal.
    Null,
    /// The subject decoded as HBase's `BigDecimal` bytes.
    BigDecimal(Decimal),
    /// The operand against the subject's bytes at an offset.
    Component(usize, Bytes),
}

impl Matcher {
    /// Compiles `comparator`.
    ///
    /// # Errors
    /// A regular expression outside the supported subset.
    pub(super) fn compile(comparator: &Comparator) -> Result<Matcher, FilterError> {
        Ok(match comparator {
            Comparator::Binary(b) => Matcher::Binary(b.clone()),
            Comparator::BinaryPrefix(b) => Matcher::BinaryPrefix(b.clone()),
            Comparator::Substring(s) => Matcher::Substring(s.to_lowercase()),
            Comparator::Regex(p) => Matcher::Regex(Box::new(Regex::new(p)?)),
            Comparator::Long(n) => Matcher::Long(*n),
            Comparator::Bit(op, b) => Matcher::Bit(*op, b.clone()),
            Comparator::Null => Matcher::Null,
            Comparator::BigDecimal(d) => Matcher::BigDecimal(d.clone()),
            Comparator::BinaryComponent { offset, value } => {
                Matcher::Component(*offset as usize, value.clone())
            }
        })
    }

    /// How `subject` compares with the operand. Text, bit and null comparators answer `Equal`
    /// for a match and `Less` otherwise (HBase's comparators answer 0 or 1 for
    /// `operand ? subject`). `None` where HBase's comparator throws (a `long:` subject that is
    /// not 8 bytes, a `bigdecimal:` subject shorter than 5): such a cell matches no operator
    /// (RFC 0020, "Deliberate differences").
    pub(super) fn ordering(&self, subject: &[u8]) -> Option<Ordering> {
        let found = |yes: bool| if yes { Ordering::Equal } else { Ordering::Less };
        Some(match self {
            Matcher::Binary(operand) => compare_bytes(subject, operand),
            Matcher::BinaryPrefix(operand) => {
                let n = subject.len().min(operand.len());
                compare_bytes(&subject[..n], operand)
            }
            Matcher::Substring(needle) => found(contains_ignore_case(subject, needle)),
            Matcher::Regex(re) => found(re.is_match_bytes(subject)),
            Matcher::Long(operand) => {
                let subject = i64::from_be_bytes(subject.try_into().ok()?);
                subject.cmp(operand)
            }
            Matcher::Bit(op, operand) => found(bits_match(*op, operand, subject)),
            Matcher::Null => Ordering::Less,
            Matcher::BigDecimal(operand) => Decimal::from_hbase(subject)?.cmp_value(operand),
            Matcher::Component(offset, operand) => {
                // HBase compares operand.len() bytes at the offset; a shorter subject compares
                // what it has.
                let from = (*offset).min(subject.len());
                let to = offset.saturating_add(operand.len()).min(subject.len());
                compare_bytes(&subject[from..to], operand)
            }
        })
    }

    /// True if `subject op operand` holds: the comparison filter keeps the cell.
    pub(super) fn keeps(&self, op: CompareOp, subject: &[u8]) -> bool {
        self.ordering(subject).is_some_and(|o| op.matches(o))
    }
}

/// HBase's `BitComparator.compareTo` as a match: same length, and some byte of
/// `operand OP subject` is non-zero.
fn bits_match(op: BitOp, operand: &[u8], subject: &[u8]) -> bool {
    subject.len() == operand.len()
        && operand.iter().zip(subject).any(|(a, b)| {
            let r = match op {
                BitOp::And => a & b,
                BitOp::Or => a | b,
                BitOp::Xor => a ^ b,
            };
            r != 0
        })
}

/// True if the text of `haystack` (UTF-8, invalid bytes replaced as Java's decoder does),
/// lowercased, contains `needle` (already lowercased). ASCII text takes a fast path without
/// allocating.
fn contains_ignore_case(haystack: &[u8], needle: &str) -> bool {
    let n = needle.as_bytes();
    if n.is_empty() {
        return true;
    }
    if haystack.is_ascii() && needle.is_ascii() {
        return haystack
            .windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b));
    }
    String::from_utf8_lossy(haystack)
        .to_lowercase()
        .contains(needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keeps(c: Comparator, op: CompareOp, subject: &str) -> bool {
        Matcher::compile(&c).unwrap().keeps(op, subject.as_bytes())
    }

    #[test]
    fn binary_orders_subject_against_operand() {
        let m = || Comparator::Binary(Bytes::from_static(b"m"));
        assert!(keeps(m(), CompareOp::Less, "a"));
        assert!(!keeps(m(), CompareOp::Less, "m"));
        assert!(keeps(m(), CompareOp::GreaterOrEqual, "m"));
        assert!(keeps(m(), CompareOp::Greater, "ma"));
    }

    #[test]
    fn binary_prefix_truncates_the_subject() {
        let p = || Comparator::BinaryPrefix(Bytes::from_static(b"abc"));
        assert!(keeps(p(), CompareOp::Equal, "abcdef"));
        assert!(keeps(p(), CompareOp::Less, "ab"));
        assert!(keeps(p(), CompareOp::Greater, "abd"));
        assert!(keeps(
            Comparator::BinaryPrefix(Bytes::new()),
            CompareOp::Equal,
            "x"
        ));
    }

    fn keeps_bytes(c: Comparator, op: CompareOp, subject: &[u8]) -> bool {
        Matcher::compile(&c).unwrap().keeps(op, subject)
    }

    #[test]
    fn long_compares_signed_eight_byte_subjects() {
        let five = || Comparator::Long(5);
        assert!(keeps_bytes(five(), CompareOp::Equal, &5i64.to_be_bytes()));
        assert!(keeps_bytes(five(), CompareOp::Less, &(-7i64).to_be_bytes()));
        assert!(keeps_bytes(five(), CompareOp::Greater, &6i64.to_be_bytes()));
        // Not 8 bytes: HBase throws; no operator matches.
        for op in CompareOp::ALL {
            assert!(!keeps_bytes(five(), op, b"5"));
        }
    }

    #[test]
    fn bit_null_decimal_and_component_follow_hbase() {
        let and = || Comparator::Bit(BitOp::And, Bytes::from_static(&[0x01]));
        assert!(keeps_bytes(and(), CompareOp::Equal, &[0x03]));
        assert!(keeps_bytes(and(), CompareOp::NotEqual, &[0x02]));
        assert!(
            keeps_bytes(and(), CompareOp::NotEqual, &[0x01, 0x01]),
            "length differs"
        );
        let xor = Comparator::Bit(BitOp::Xor, Bytes::from_static(&[0x0f]));
        assert!(keeps_bytes(xor.clone(), CompareOp::NotEqual, &[0x0f]));
        assert!(keeps_bytes(xor, CompareOp::Equal, &[0x0e]));
        let or = Comparator::Bit(BitOp::Or, Bytes::from_static(&[0x00]));
        assert!(keeps_bytes(or, CompareOp::NotEqual, &[0x00]));
        assert!(keeps_bytes(Comparator::Null, CompareOp::NotEqual, b""));
        assert!(!keeps_bytes(Comparator::Null, CompareOp::Equal, b""));
        assert!(keeps_bytes(Comparator::Null, CompareOp::Less, b"x"));

        let dec = |s: &str| Comparator::BigDecimal(Decimal::parse(s).unwrap());
        let enc = |scale: i32, unscaled: &[u8]| [&scale.to_be_bytes()[..], unscaled].concat();
        // 12.50 against 12.5: equal by value.
        assert!(keeps_bytes(
            dec("12.5"),
            CompareOp::Equal,
            &enc(2, &[0x04, 0xE2])
        ));
        assert!(keeps_bytes(
            dec("13"),
            CompareOp::Less,
            &enc(2, &[0x04, 0xE2])
        ));
        assert!(!keeps_bytes(dec("13"), CompareOp::NotEqual, b"ab"));

        let comp = || Comparator::BinaryComponent {
            offset: 2,
            value: Bytes::from_static(b"cd"),
        };
        assert!(keeps_bytes(comp(), CompareOp::Equal, b"abcdef"));
        assert!(keeps_bytes(comp(), CompareOp::Greater, b"abce"));
        assert!(keeps_bytes(comp(), CompareOp::Less, b"abc"));
        assert!(keeps_bytes(comp(), CompareOp::Less, b"a"));
    }

    #[test]
    fn substring_ignores_case() {
        let s = || Comparator::Substring("ErR".into());
        assert!(keeps(s(), CompareOp::Equal, "an ERROR here"));
        assert!(keeps(s(), CompareOp::NotEqual, "fine"));
        assert!(keeps(s(), CompareOp::Equal, "ÉCHEC: Err"));
        assert!(keeps(
            Comparator::Substring("é".into()),
            CompareOp::Equal,
            "CAFÉ"
        ));
        assert!(!keeps(s(), CompareOp::Equal, "e r r"));
    }
}
