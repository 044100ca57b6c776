use std::ops::Bound::{Excluded, Included, Unbounded};

use super::*;
use crate::ops::{Comparator, CompareOp, SingleColumnValue};

fn b(s: &[u8]) -> Bytes {
    Bytes::copy_from_slice(s)
}

#[test]
fn defaults() {
    let s = Scan::new();
    assert_eq!(s.max_versions, 1);
    assert!(s.cache_blocks && !s.reversed && s.time_range.is_all());
    assert_eq!(s.bounds(), (Unbounded, Unbounded));
    assert_eq!(s.validate(), Ok(()));
}

#[test]
fn bounds_follow_hbase_and_apply_the_prefix() {
    let s = Scan::range("b", "d");
    assert_eq!(s.bounds(), (Included(b(b"b")), Excluded(b(b"d"))));

    let mut r = Scan::range("d", "b");
    r.reversed = true;
    assert_eq!(r.bounds(), (Excluded(b(b"b")), Included(b(b"d"))));
    assert_eq!(r.validate(), Ok(()));

    let p = Scan::with_prefix("ab");
    assert_eq!(p.bounds(), (Included(b(b"ab")), Excluded(b(b"ac"))));

    let mut both = Scan::range("abc", "b");
    both.prefix = b(b"ab");
    assert_eq!(both.bounds(), (Included(b(b"abc")), Excluded(b(b"ac"))));

    let mut narrow = Scan::range("a", "ab\x05");
    narrow.prefix = b(b"ab");
    assert_eq!(
        narrow.bounds(),
        (Included(b(b"ab")), Excluded(b(b"ab\x05")))
    );

    let mut rev = Scan::range("zz", "");
    rev.reversed = true;
    rev.prefix = b(b"a");
    assert_eq!(rev.bounds(), (Included(b(b"a")), Excluded(b(b"b"))));

    assert_eq!(
        Scan::with_prefix(&b"\xff\xff"[..]).bounds(),
        (Included(b(b"\xff\xff")), Unbounded)
    );
}

#[test]
fn prefix_successor_skips_trailing_ff() {
    assert_eq!(prefix_successor(b"a\xff"), Some(b(b"b")));
    assert_eq!(prefix_successor(b"a\x00"), Some(b(b"a\x01")));
    assert_eq!(prefix_successor(b"\xff"), None);
    assert_eq!(prefix_successor(b""), None);
}

#[test]
fn validation_names_the_problem() {
    assert_eq!(
        Scan::range("d", "b").validate().unwrap_err().to_string(),
        "invalid scan: start row sorts after stop row"
    );
    let mut r = Scan::range("b", "d");
    r.reversed = true;
    assert!(r.validate().is_err());

    for (what, scan) in [
        (
            "max_versions",
            Scan {
                max_versions: 0,
                ..Scan::new()
            },
        ),
        (
            "limit",
            Scan {
                limit: Some(0),
                ..Scan::new()
            },
        ),
        (
            "caching",
            Scan {
                caching: Some(0),
                ..Scan::new()
            },
        ),
        (
            "batch",
            Scan {
                batch: Some(0),
                ..Scan::new()
            },
        ),
    ] {
        assert_eq!(scan.validate(), Err(OpError::Zero { what }));
    }

    let scv = SingleColumnValue::new("cf", "q", CompareOp::Equal, Comparator::Binary(b(b"v")));
    let s = Scan {
        batch: Some(10),
        filter: Some(Filter::all(vec![
            Filter::FirstKeyOnly,
            Filter::SingleColumnValue(scv),
        ])),
        ..Scan::new()
    };
    assert!(s.validate().unwrap_err().to_string().contains("whole rows"));
    let s = Scan {
        batch: Some(10),
        filter: Some(Filter::KeyOnly {
            len_as_value: false,
        }),
        ..Scan::new()
    };
    assert_eq!(s.validate(), Ok(()));
    let long = Scan::with_prefix(vec![b'p'; crate::limits::MAX_ROW_LEN + 1]);
    assert!(matches!(
        long.validate(),
        Err(OpError::TooLong { what: "row", .. })
    ));
}

#[test]
fn an_inclusive_stop_row_is_an_included_bound_either_way() {
    let mut s = Scan::range("b", "d");
    s.include_stop_row = true;
    assert_eq!(s.bounds(), (Included(b(b"b")), Included(b(b"d"))));
    let mut r = Scan::range("d", "b");
    r.reversed = true;
    r.include_stop_row = true;
    assert_eq!(r.bounds(), (Included(b(b"b")), Included(b(b"d"))));
    // An empty stop row stays open.
    let mut open = Scan::range("d", "");
    open.reversed = true;
    open.include_stop_row = true;
    assert_eq!(open.bounds(), (Unbounded, Included(b(b"d"))));
}
