//! HBase's serialized filters and comparators (`Filter { name, serialized_filter }`, the
//! name a Java class, the bytes that filter's own protobuf) to Strata's [`Filter`]. Every
//! filter Strata evaluates is understood; any other class is refused with a
//! `DoNotRetryIOException` naming it.

use bytes::Bytes;
use prost::Message;
use strata_model::ops::{
    BitOp, Chance, ColumnCondition, ColumnPagination, ColumnRange, Comparator, CompareOp, Decimal,
    DependentColumn, Filter, FilterList, FuzzyKey, ListOp, RowRange, SingleColumnValue,
    MAX_FILTER_DEPTH,
};

use crate::error::{HBaseError, HResult};
use crate::pb;

const FILTER_PKG: &str = "org.apache.hadoop.hbase.filter.";

fn short(class: &str) -> &str {
    class.strip_prefix(FILTER_PKG).unwrap_or(class)
}

fn decode<M: Message + Default>(class: &str, bytes: &[u8]) -> HResult<M> {
    M::decode(bytes).map_err(|e| HBaseError::do_not_retry(format!("malformed {class}: {e}")))
}

/// HBase's compare type as Strata's operator.
///
/// # Errors
/// `NO_OP` or an unknown code.
pub fn compare_op(code: i32) -> HResult<CompareOp> {
    Ok(match pb::CompareType::try_from(code) {
        Ok(pb::CompareType::Less) => CompareOp::Less,
        Ok(pb::CompareType::LessOrEqual) => CompareOp::LessOrEqual,
        Ok(pb::CompareType::Equal) => CompareOp::Equal,
        Ok(pb::CompareType::NotEqual) => CompareOp::NotEqual,
        Ok(pb::CompareType::GreaterOrEqual) => CompareOp::GreaterOrEqual,
        Ok(pb::CompareType::Greater) => CompareOp::Greater,
        _ => {
            return Err(HBaseError::do_not_retry(format!(
                "unsupported compare operator {code}"
            )))
        }
    })
}

/// A serialized comparator.
///
/// # Errors
/// Malformed bytes (a `LongComparator` operand that is not 8 bytes, a `BigDecimalComparator`
/// one shorter than 5), a comparator class Strata does not know, or unsupported regex flags.
pub fn comparator(c: &pb::Comparator) -> HResult<Comparator> {
    let bytes = c.serialized_comparator.as_deref().unwrap_or_default();
    let name = short(&c.name);
    Ok(match name {
        "BinaryComparator" => {
            let m: pb::BinaryComparator = decode(name, bytes)?;
            Comparator::Binary(m.comparable.value.unwrap_or_default())
        }
        "BinaryPrefixComparator" => {
            let m: pb::BinaryPrefixComparator = decode(name, bytes)?;
            Comparator::BinaryPrefix(m.comparable.value.unwrap_or_default())
        }
        "SubstringComparator" => {
            let m: pb::SubstringComparator = decode(name, bytes)?;
            Comparator::Substring(m.substr)
        }
        "RegexStringComparator" => {
            let m: pb::RegexStringComparator = decode(name, bytes)?;
            Comparator::Regex(format!("{}{}", regex_flags(m.pattern_flags)?, m.pattern))
        }
        "LongComparator" => {
            let m: pb::LongComparator = decode(name, bytes)?;
            let v = m.comparable.value.unwrap_or_default();
            let n: [u8; 8] = v.as_ref().try_into().map_err(|_| {
                HBaseError::do_not_retry(format!(
                    "LongComparator: operand of {} bytes, not 8",
                    v.len()
                ))
            })?;
            Comparator::Long(i64::from_be_bytes(n))
        }
        "BigDecimalComparator" => {
            let m: pb::BigDecimalComparator = decode(name, bytes)?;
            let v = m.comparable.value.unwrap_or_default();
            let d = Decimal::from_hbase(&v).ok_or_else(|| {
                HBaseError::do_not_retry("BigDecimalComparator: operand shorter than 5 bytes")
            })?;
            Comparator::BigDecimal(d)
        }
        "BitComparator" => {
            let m: pb::BitComparator = decode(name, bytes)?;
            let op = match pb::bit_comparator::BitwiseOp::try_from(m.bitwise_op) {
                Ok(pb::bit_comparator::BitwiseOp::And) => BitOp::And,
                Ok(pb::bit_comparator::BitwiseOp::Or) => BitOp::Or,
                Ok(pb::bit_comparator::BitwiseOp::Xor) => BitOp::Xor,
                Err(_) => {
                    return Err(HBaseError::do_not_retry(format!(
                        "BitComparator: unknown bitwise operation {}",
                        m.bitwise_op
                    )))
                }
            };
            Comparator::Bit(op, m.comparable.value.unwrap_or_default())
        }
        "NullComparator" => {
            let _: pb::NullComparator = decode(name, bytes)?;
            Comparator::Null
        }
        "BinaryComponentComparator" => {
            let m: pb::BinaryComponentComparator = decode(name, bytes)?;
            Comparator::BinaryComponent {
                offset: m.offset,
                value: m.value,
            }
        }
        _ => {
            return Err(HBaseError::do_not_retry(format!(
                "comparator {} is not supported by Strata",
                c.name
            )))
        }
    })
}

/// Java `Pattern` flags as an inline prefix: `CASE_INSENSITIVE` (2) `(?i)`, `MULTILINE` (8)
/// `(?m)`, `DOTALL` (32, the comparator's default) `(?s)`.
fn regex_flags(flags: i32) -> HResult<String> {
    const KNOWN: [(i32, char); 3] = [(2, 'i'), (8, 'm'), (32, 's')];
    let unknown = KNOWN.iter().fold(flags, |rest, (bit, _)| rest & !bit);
    if unknown != 0 {
        return Err(HBaseError::do_not_retry(format!(
            "RegexStringComparator pattern flags {unknown:#x} are not supported by Strata \
             (CASE_INSENSITIVE, MULTILINE and DOTALL are)"
        )));
    }
    let letters: String = KNOWN
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, c)| *c)
        .collect();
    Ok(if letters.is_empty() {
        String::new()
    } else {
        format!("(?{letters})")
    })
}

fn compare_filter(class: &str, bytes: &[u8]) -> HResult<(CompareOp, Comparator)> {
    let m: pb::CompareFilterWrapper = decode(class, bytes)?;
    let cf = m.compare_filter;
    let c = cf
        .comparator
        .as_ref()
        .ok_or_else(|| HBaseError::do_not_retry(format!("{class} without a comparator")))?;
    Ok((compare_op(cf.compare_op)?, comparator(c)?))
}

/// A serialized filter as Strata's filter.
///
/// # Errors
/// Malformed bytes, nesting deeper than [`MAX_FILTER_DEPTH`], or a filter class Strata does
/// not evaluate (named in the message).
pub fn filter(f: &pb::Filter) -> HResult<Filter> {
    filter_at(f, 1)
}

fn filter_at(f: &pb::Filter, depth: usize) -> HResult<Filter> {
    if depth > MAX_FILTER_DEPTH {
        return Err(HBaseError::do_not_retry(format!(
            "filters nested deeper than {MAX_FILTER_DEPTH}"
        )));
    }
    let bytes = f.serialized_filter.as_deref().unwrap_or_default();
    let name = short(&f.name);
    Ok(match name {
        "PrefixFilter" => {
            let m: pb::PrefixFilter = decode(name, bytes)?;
            Filter::Prefix(m.prefix.unwrap_or_default())
        }
        "ColumnPrefixFilter" => {
            let m: pb::ColumnPrefixFilter = decode(name, bytes)?;
            Filter::ColumnPrefix(m.prefix)
        }
        "MultipleColumnPrefixFilter" => {
            let m: pb::MultipleColumnPrefixFilter = decode(name, bytes)?;
            Filter::MultipleColumnPrefix(m.sorted_prefixes)
        }
        "ColumnRangeFilter" => {
            let m: pb::ColumnRangeFilter = decode(name, bytes)?;
            Filter::ColumnRange(ColumnRange {
                min: m.min_column.filter(|c| !c.is_empty()),
                min_inclusive: m.min_column_inclusive.unwrap_or(false),
                max: m.max_column.filter(|c| !c.is_empty()),
                max_inclusive: m.max_column_inclusive.unwrap_or(false),
            })
        }
        "RowFilter" => {
            let (op, c) = compare_filter(name, bytes)?;
            Filter::Row(op, c)
        }
        "FamilyFilter" => {
            let (op, c) = compare_filter(name, bytes)?;
            Filter::Family(op, c)
        }
        "QualifierFilter" => {
            let (op, c) = compare_filter(name, bytes)?;
            Filter::Qualifier(op, c)
        }
        "ValueFilter" => {
            let (op, c) = compare_filter(name, bytes)?;
            Filter::Value(op, c)
        }
        "SingleColumnValueFilter" => {
            let m: pb::SingleColumnValueFilter = decode(name, bytes)?;
            Filter::SingleColumnValue(single_column_value(m)?)
        }
        "SingleColumnValueExcludeFilter" => {
            let m: pb::SingleColumnValueExcludeFilter = decode(name, bytes)?;
            Filter::SingleColumnValueExclude(single_column_value(m.single_column_value_filter)?)
        }
        "ColumnValueFilter" => {
            let m: pb::ColumnValueFilter = decode(name, bytes)?;
            Filter::ColumnValue(ColumnCondition {
                family: m.family,
                qualifier: m.qualifier,
                op: compare_op(m.compare_op)?,
                comparator: comparator(&m.comparator)?,
            })
        }
        "DependentColumnFilter" => {
            let m: pb::DependentColumnFilter = decode(name, bytes)?;
            let cf = m.compare_filter;
            // The two- and three-argument constructors send NO_OP and no comparator. NO_OP
            // with a comparator fails every version in HBase (`compareValue` is true for
            // NO_OP): refused rather than answered differently.
            let compare = match (&cf.comparator, cf.compare_op) {
                (None, _) => None,
                (Some(_), op) if op == pb::CompareType::NoOp as i32 => {
                    return Err(HBaseError::do_not_retry(
                        "DependentColumnFilter with NO_OP and a comparator is not supported \
                         by Strata",
                    ))
                }
                (Some(c), op) => Some((compare_op(op)?, comparator(c)?)),
            };
            Filter::DependentColumn(DependentColumn {
                family: m.column_family.unwrap_or_default(),
                qualifier: m.column_qualifier.unwrap_or_default(),
                drop_dependent_column: m.drop_dependent_column.unwrap_or(false),
                compare,
            })
        }
        "ColumnCountGetFilter" => {
            let m: pb::ColumnCountGetFilter = decode(name, bytes)?;
            Filter::ColumnCountGet(non_negative(name, "limit", m.limit)?)
        }
        "ColumnPaginationFilter" => {
            let m: pb::ColumnPaginationFilter = decode(name, bytes)?;
            Filter::ColumnPagination(ColumnPagination {
                limit: non_negative(name, "limit", m.limit)?,
                offset: non_negative(name, "offset", m.offset.unwrap_or(0))?,
                column_offset: m.column_offset,
            })
        }
        "FirstKeyValueMatchingQualifiersFilter" => {
            let m: pb::FirstKeyValueMatchingQualifiersFilter = decode(name, bytes)?;
            Filter::FirstKeyValueMatchingQualifiers(m.qualifiers)
        }
        "FuzzyRowFilter" => {
            let m: pb::FuzzyRowFilter = decode(name, bytes)?;
            Filter::FuzzyRow(
                m.fuzzy_keys_data
                    .into_iter()
                    .map(|p| fuzzy_key(p.first, &p.second))
                    .collect::<HResult<_>>()?,
            )
        }
        "InclusiveStopFilter" => {
            let m: pb::InclusiveStopFilter = decode(name, bytes)?;
            Filter::InclusiveStop(m.stop_row_key.unwrap_or_default())
        }
        "RandomRowFilter" => {
            let m: pb::RandomRowFilter = decode(name, bytes)?;
            Filter::RandomRow(Chance(m.chance))
        }
        "SkipFilter" | "WhileMatchFilter" => {
            let m: pb::WrappingFilter = decode(name, bytes)?;
            let inner = Box::new(filter_at(&m.filter, depth + 1)?);
            if name == "SkipFilter" {
                Filter::Skip(inner)
            } else {
                Filter::WhileMatch(inner)
            }
        }
        "PageFilter" => {
            let m: pb::PageFilter = decode(name, bytes)?;
            let size = u64::try_from(m.page_size)
                .map_err(|_| HBaseError::do_not_retry("PageFilter with a negative page size"))?;
            Filter::Page(size)
        }
        "FirstKeyOnlyFilter" => Filter::FirstKeyOnly,
        "KeyOnlyFilter" => {
            let m: pb::KeyOnlyFilter = decode(name, bytes)?;
            Filter::KeyOnly {
                len_as_value: m.len_as_val,
            }
        }
        "TimestampsFilter" => {
            let m: pb::TimestampsFilter = decode(name, bytes)?;
            Filter::Timestamps {
                timestamps: m.timestamps,
                can_hint: m.can_hint.unwrap_or(false),
            }
        }
        "MultiRowRangeFilter" => {
            let m: pb::MultiRowRangeFilter = decode(name, bytes)?;
            Filter::MultiRowRange(
                m.row_range_list
                    .into_iter()
                    .map(|r| RowRange {
                        start: r.start_row.unwrap_or_default(),
                        start_inclusive: r.start_row_inclusive.unwrap_or(true),
                        stop: r.stop_row.unwrap_or_default(),
                        stop_inclusive: r.stop_row_inclusive.unwrap_or(false),
                    })
                    .collect(),
            )
        }
        "FilterList" => {
            let m: pb::FilterList = decode(name, bytes)?;
            let op = match pb::filter_list::Operator::try_from(m.operator) {
                Ok(pb::filter_list::Operator::MustPassOne) => ListOp::MustPassOne,
                Ok(pb::filter_list::Operator::MustPassAll) => ListOp::MustPassAll,
                Err(_) => {
                    return Err(HBaseError::do_not_retry(format!(
                        "FilterList with unknown operator {}",
                        m.operator
                    )))
                }
            };
            let filters = m
                .filters
                .iter()
                .map(|f| filter_at(f, depth + 1))
                .collect::<HResult<Vec<_>>>()?;
            Filter::List(FilterList { op, filters })
        }
        _ => {
            return Err(HBaseError::do_not_retry(format!(
                "filter {} is not supported by Strata",
                f.name
            )))
        }
    })
}

fn single_column_value(m: pb::SingleColumnValueFilter) -> HResult<SingleColumnValue> {
    Ok(SingleColumnValue {
        family: m.column_family.unwrap_or_default(),
        qualifier: m.column_qualifier.unwrap_or_default(),
        op: compare_op(m.compare_op)?,
        comparator: comparator(&m.comparator)?,
        filter_if_missing: m.filter_if_missing.unwrap_or(false),
        latest_version_only: m.latest_version_only.unwrap_or(true),
    })
}

fn non_negative(class: &str, what: &str, n: i32) -> HResult<u32> {
    u32::try_from(n)
        .map_err(|_| HBaseError::do_not_retry(format!("{class} with a negative {what} ({n})")))
}

/// A fuzzy pattern as the client sends it: a mask byte is 0 (fixed) or 1 (free) as written,
/// or -1 (fixed) or 2 (free) once the client's `FuzzyRowFilter` has preprocessed it, which
/// it does before serializing on most platforms.
fn fuzzy_key(key: Bytes, mask: &[u8]) -> HResult<FuzzyKey> {
    if key.len() != mask.len() {
        return Err(HBaseError::do_not_retry(format!(
            "FuzzyRowFilter pair lengths do not match: key of {} bytes, mask of {}",
            key.len(),
            mask.len()
        )));
    }
    let mask = mask
        .iter()
        .map(|&m| match m {
            0 | 0xff => Ok(0),
            1 | 2 => Ok(1),
            other => Err(HBaseError::do_not_retry(format!(
                "FuzzyRowFilter mask byte {other} is neither fixed (0, -1) nor free (1, 2)"
            ))),
        })
        .collect::<HResult<Vec<u8>>>()?;
    Ok(FuzzyKey {
        key,
        mask: Bytes::from(mask),
    })
}

/// A protobuf filter (for tests and tools): the inverse of [`filter`] for the simple cases.
pub fn encode_prefix_filter(prefix: &[u8]) -> pb::Filter {
    pb::Filter {
        name: format!("{FILTER_PKG}PrefixFilter"),
        serialized_filter: Some(Bytes::from(
            pb::PrefixFilter {
                prefix: Some(Bytes::copy_from_slice(prefix)),
            }
            .encode_to_vec(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(v: &[u8]) -> pb::Comparator {
        pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(
                pb::BinaryComparator {
                    comparable: pb::ByteArrayComparable {
                        value: Some(Bytes::copy_from_slice(v)),
                    },
                }
                .encode_to_vec()
                .into(),
            ),
        }
    }

    #[test]
    fn list_of_prefix_and_value_filters_decodes() {
        let value = pb::Filter {
            name: "org.apache.hadoop.hbase.filter.ValueFilter".into(),
            serialized_filter: Some(
                pb::CompareFilterWrapper {
                    compare_filter: pb::CompareFilter {
                        compare_op: pb::CompareType::GreaterOrEqual as i32,
                        comparator: Some(binary(b"v")),
                    },
                }
                .encode_to_vec()
                .into(),
            ),
        };
        let list = pb::Filter {
            name: "org.apache.hadoop.hbase.filter.FilterList".into(),
            serialized_filter: Some(
                pb::FilterList {
                    operator: pb::filter_list::Operator::MustPassOne as i32,
                    filters: vec![encode_prefix_filter(b"r"), value],
                }
                .encode_to_vec()
                .into(),
            ),
        };
        assert_eq!(
            filter(&list).unwrap(),
            Filter::any(vec![
                Filter::Prefix(Bytes::from_static(b"r")),
                Filter::Value(
                    CompareOp::GreaterOrEqual,
                    Comparator::Binary(Bytes::from_static(b"v"))
                ),
            ])
        );
    }

    fn named(class: &str, m: &impl Message) -> pb::Filter {
        pb::Filter {
            name: format!("{FILTER_PKG}{class}"),
            serialized_filter: Some(m.encode_to_vec().into()),
        }
    }

    #[test]
    fn fuzzy_masks_decode_raw_or_preprocessed() {
        let pair = |mask: &[u8]| pb::BytesBytesPair {
            first: Bytes::from_static(b"ab_1"),
            second: Bytes::copy_from_slice(mask),
        };
        let want = Filter::FuzzyRow(vec![FuzzyKey {
            key: Bytes::from_static(b"ab_1"),
            mask: Bytes::from_static(&[1, 1, 0, 0]),
        }]);
        for mask in [[1u8, 1, 0, 0], [2, 2, 0xff, 0xff]] {
            let f = named(
                "FuzzyRowFilter",
                &pb::FuzzyRowFilter {
                    fuzzy_keys_data: vec![pair(&mask)],
                },
            );
            assert_eq!(filter(&f).unwrap(), want);
        }
        let bad = named(
            "FuzzyRowFilter",
            &pb::FuzzyRowFilter {
                fuzzy_keys_data: vec![pair(&[1, 7, 0, 0])],
            },
        );
        assert!(filter(&bad).unwrap_err().message.contains("mask byte 7"));
    }

    #[test]
    fn wrappers_and_paging_filters_decode() {
        let page = named(
            "ColumnPaginationFilter",
            &pb::ColumnPaginationFilter {
                limit: 3,
                offset: None,
                column_offset: Some(Bytes::from_static(b"q")),
            },
        );
        let skip = named("SkipFilter", &pb::WrappingFilter { filter: page });
        assert_eq!(
            filter(&skip).unwrap(),
            Filter::Skip(Box::new(Filter::ColumnPagination(ColumnPagination {
                limit: 3,
                offset: 0,
                column_offset: Some(Bytes::from_static(b"q")),
            })))
        );
        let negative = named(
            "ColumnCountGetFilter",
            &pb::ColumnCountGetFilter { limit: -1 },
        );
        assert!(filter(&negative)
            .unwrap_err()
            .message
            .contains("negative limit"));
        let dependent = named(
            "DependentColumnFilter",
            &pb::DependentColumnFilter {
                compare_filter: pb::CompareFilter {
                    compare_op: pb::CompareType::NoOp as i32,
                    comparator: None,
                },
                column_family: Some(Bytes::from_static(b"f")),
                column_qualifier: Some(Bytes::from_static(b"q")),
                drop_dependent_column: Some(true),
            },
        );
        assert_eq!(
            filter(&dependent).unwrap(),
            Filter::DependentColumn(DependentColumn {
                family: Bytes::from_static(b"f"),
                qualifier: Bytes::from_static(b"q"),
                drop_dependent_column: true,
                compare: None,
            })
        );
    }

    #[test]
    fn unsupported_and_malformed_filters_are_refused_by_name() {
        let other = pb::Filter {
            name: "org.apache.hadoop.hbase.filter.FilterAllFilter".into(),
            serialized_filter: None,
        };
        let e = filter(&other).unwrap_err();
        assert!(e.do_not_retry && e.message.contains("FilterAllFilter"));
        let broken = pb::Filter {
            name: "org.apache.hadoop.hbase.filter.PageFilter".into(),
            serialized_filter: Some(Bytes::from_static(b"\xff\xff")),
        };
        assert!(filter(&broken)
            .unwrap_err()
            .message
            .contains("malformed PageFilter"));
    }

    fn comparator_pb(class: &str, message: &impl Message) -> pb::Comparator {
        pb::Comparator {
            name: format!("org.apache.hadoop.hbase.filter.{class}"),
            serialized_comparator: Some(message.encode_to_vec().into()),
        }
    }

    fn comparable(v: &[u8]) -> pb::ByteArrayComparable {
        pb::ByteArrayComparable {
            value: Some(Bytes::copy_from_slice(v)),
        }
    }

    #[test]
    fn numeric_and_bit_comparators_decode() {
        let long = comparator_pb(
            "LongComparator",
            &pb::LongComparator {
                comparable: comparable(&(-3i64).to_be_bytes()),
            },
        );
        assert_eq!(comparator(&long).unwrap(), Comparator::Long(-3));
        let short_long = comparator_pb(
            "LongComparator",
            &pb::LongComparator {
                comparable: comparable(b"abc"),
            },
        );
        assert!(comparator(&short_long)
            .unwrap_err()
            .message
            .contains("not 8"));
        let bit = comparator_pb(
            "BitComparator",
            &pb::BitComparator {
                comparable: comparable(&[0x0f]),
                bitwise_op: pb::bit_comparator::BitwiseOp::Xor as i32,
            },
        );
        assert_eq!(
            comparator(&bit).unwrap(),
            Comparator::Bit(BitOp::Xor, Bytes::from_static(&[0x0f]))
        );
        let null = comparator_pb("NullComparator", &pb::NullComparator {});
        assert_eq!(comparator(&null).unwrap(), Comparator::Null);
        let dec = comparator_pb(
            "BigDecimalComparator",
            &pb::BigDecimalComparator {
                comparable: comparable(&[0, 0, 0, 1, 0x7b]),
            },
        );
        assert_eq!(
            comparator(&dec).unwrap(),
            Comparator::BigDecimal(Decimal::parse("12.3").unwrap())
        );
        let comp = comparator_pb(
            "BinaryComponentComparator",
            &pb::BinaryComponentComparator {
                value: Bytes::from_static(b"xy"),
                offset: 3,
            },
        );
        assert_eq!(
            comparator(&comp).unwrap(),
            Comparator::BinaryComponent {
                offset: 3,
                value: Bytes::from_static(b"xy")
            }
        );
    }
}
