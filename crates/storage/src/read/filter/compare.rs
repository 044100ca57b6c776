//! Compiled comparators: `subject op operand` for comparison filters and conditions.

use std::cmp::Ordering;

use bytes::Bytes;
use strata_model::cell::compare_bytes;
use strata_model::ops::{Comparator, CompareOp};

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
        })
    }

    /// How `subject` compares with the operand. Text comparators answer `Equal` for a match
    /// and `Less` otherwise (HBase's comparators answer 0 or 1 for `operand ? subject`).
    pub(super) fn ordering(&self, subject: &[u8]) -> Ordering {
        let found = |yes: bool| if yes { Ordering::Equal } else { Ordering::Less };
        match self {
            Matcher::Binary(operand) => compare_bytes(subject, operand),
            Matcher::BinaryPrefix(operand) => {
                let n = subject.len().min(operand.len());
                compare_bytes(&subject[..n], operand)
            }
            Matcher::Substring(needle) => found(contains_ignore_case(subject, needle)),
            Matcher::Regex(re) => found(re.is_match_bytes(subject)),
        }
    }

    /// True if `subject op operand` holds: the comparison filter keeps the cell.
    pub(super) fn keeps(&self, op: CompareOp, subject: &[u8]) -> bool {
        op.matches(self.ordering(subject))
    }
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
