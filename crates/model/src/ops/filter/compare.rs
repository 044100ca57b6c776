//! [`CompareOp`] and [`Comparator`]: how comparison filters and conditions compare bytes.

use std::cmp::Ordering;
use std::fmt;

use bytes::Bytes;

use super::decimal::Decimal;

/// A comparison operator (HBase's `CompareOperator`, without `NO_OP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `=`
    Equal,
    /// `!=`
    NotEqual,
    /// `>=`
    GreaterOrEqual,
    /// `>`
    Greater,
}

impl CompareOp {
    /// Every operator.
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Less,
        CompareOp::LessOrEqual,
        CompareOp::Equal,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Greater,
    ];

    /// True if `left op right` holds, given `ordering = left.cmp(right)`.
    pub fn matches(self, ordering: Ordering) -> bool {
        match self {
            CompareOp::Less => ordering == Ordering::Less,
            CompareOp::LessOrEqual => ordering != Ordering::Greater,
            CompareOp::Equal => ordering == Ordering::Equal,
            CompareOp::NotEqual => ordering != Ordering::Equal,
            CompareOp::GreaterOrEqual => ordering != Ordering::Less,
            CompareOp::Greater => ordering == Ordering::Greater,
        }
    }

    /// The symbol in HBase's filter language (`<`, `<=`, `=`, `!=`, `>=`, `>`).
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Less => "<",
            CompareOp::LessOrEqual => "<=",
            CompareOp::Equal => "=",
            CompareOp::NotEqual => "!=",
            CompareOp::GreaterOrEqual => ">=",
            CompareOp::Greater => ">",
        }
    }

    /// HBase's enum name (`LESS`, `LESS_OR_EQUAL`, `EQUAL`, `NOT_EQUAL`, `GREATER_OR_EQUAL`,
    /// `GREATER`).
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Less => "LESS",
            CompareOp::LessOrEqual => "LESS_OR_EQUAL",
            CompareOp::Equal => "EQUAL",
            CompareOp::NotEqual => "NOT_EQUAL",
            CompareOp::GreaterOrEqual => "GREATER_OR_EQUAL",
            CompareOp::Greater => "GREATER",
        }
    }

    /// Parses a symbol or HBase's enum name (case-insensitive).
    pub fn parse(s: &str) -> Option<CompareOp> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|op| op.symbol() == s || op.name().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for CompareOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// What a comparison filter compares a row, family, qualifier or value with. The names are
/// HBase's filter-language comparator types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `binary:` — whole byte strings, unsigned lexicographic order.
    Binary(Bytes),
    /// `binaryprefix:` — only the first `len(operand)` bytes of the subject.
    BinaryPrefix(Bytes),
    /// `substring:` — the subject contains the text, case-insensitively.
    /// Only `=` and `!=` apply.
    Substring(String),
    /// `regexstring:` — the subject (as text) matches the regular expression (Java syntax, as
    /// HBase's `RegexStringComparator`; the engine compiles it). Only `=` and `!=` apply.
    Regex(String),
    /// `long:` (Strata's spelling; HBase's `LongComparator`, which its filter language lacks)
    /// — the subject as a big-endian 64-bit signed integer (8 bytes) against the operand.
    Long(i64),
    /// `bitand:`, `bitor:`, `bitxor:` (HBase's `BitComparator`) — equal when the subject has
    /// the operand's length and `subject OP operand` has a non-zero byte.
    Bit(BitOp, Bytes),
    /// `null:` (HBase's `NullComparator`) — never equal to a cell's subject (HBase's
    /// `compareTo` answers 1 for any non-null array).
    Null,
    /// `bigdecimal:` (HBase's `BigDecimalComparator`) — the subject decoded as
    /// `Bytes.toBigDecimal` against the operand, by value.
    BigDecimal(Decimal),
    /// `binarycomponent:` (HBase's `BinaryComponentComparator`) — the operand against the
    /// subject's bytes at `offset`, as many as the operand has.
    BinaryComponent {
        /// Where in the subject the component starts.
        offset: u32,
        /// The bytes compared.
        value: Bytes,
    },
}

/// The operation of a [`Comparator::Bit`] (HBase's `BitComparator.BitwiseOp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `XOR`
    Xor,
}

impl Comparator {
    /// The filter-language type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Comparator::Binary(_) => "binary",
            Comparator::BinaryPrefix(_) => "binaryprefix",
            Comparator::Substring(_) => "substring",
            Comparator::Regex(_) => "regexstring",
            Comparator::Long(_) => "long",
            Comparator::Bit(BitOp::And, _) => "bitand",
            Comparator::Bit(BitOp::Or, _) => "bitor",
            Comparator::Bit(BitOp::Xor, _) => "bitxor",
            Comparator::Null => "null",
            Comparator::BigDecimal(_) => "bigdecimal",
            Comparator::BinaryComponent { .. } => "binarycomponent",
        }
    }

    /// True for comparators that only answer equal / not equal in HBase's filter language.
    /// `bit*:` and `null:` take every operator, as HBase applies them over its RPC (their
    /// `compareTo` answers 0 or 1, so "not equal" reads as "subject less").
    pub fn is_equality_only(&self) -> bool {
        matches!(self, Comparator::Substring(_) | Comparator::Regex(_))
    }

    /// True if `op` applies to this comparator.
    pub fn supports(&self, op: CompareOp) -> bool {
        !self.is_equality_only() || matches!(op, CompareOp::Equal | CompareOp::NotEqual)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_match_orderings() {
        use Ordering::*;
        assert!(CompareOp::Less.matches(Less) && !CompareOp::Less.matches(Equal));
        assert!(CompareOp::LessOrEqual.matches(Equal) && !CompareOp::LessOrEqual.matches(Greater));
        assert!(CompareOp::NotEqual.matches(Greater) && !CompareOp::NotEqual.matches(Equal));
        assert!(CompareOp::GreaterOrEqual.matches(Equal) && CompareOp::Greater.matches(Greater));
        for op in CompareOp::ALL {
            assert_eq!(CompareOp::parse(op.symbol()), Some(op));
            assert_eq!(CompareOp::parse(&op.name().to_lowercase()), Some(op));
        }
        assert_eq!(CompareOp::parse("=="), None);
    }

    #[test]
    fn text_comparators_take_only_equality() {
        let c = Comparator::Substring("abc".into());
        assert!(c.supports(CompareOp::Equal) && c.supports(CompareOp::NotEqual));
        assert!(!c.supports(CompareOp::Less));
        assert!(Comparator::Binary(Bytes::new()).supports(CompareOp::Greater));
        assert_eq!(Comparator::Regex(".*".into()).type_name(), "regexstring");
    }
}
