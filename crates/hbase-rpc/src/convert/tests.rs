use bytes::Bytes;

use super::*;

fn raw_attr(value: &[u8]) -> pb::NameBytesPair {
    pb::NameBytesPair {
        name: "_raw_".into(),
        value: Some(Bytes::copy_from_slice(value)),
    }
}

/// `Scan.setRaw(true)` sets the `_raw_` attribute to `Bytes.toBytes(true)` (one byte, -1).
#[test]
fn the_raw_attribute_makes_a_raw_scan() {
    let plain = scan_from_pb(&pb::Scan::default(), 0).unwrap();
    assert!(!plain.scan.raw);
    for (value, raw) in [
        (&[0xFFu8][..], true),
        (&[0u8][..], false),
        (&[1u8][..], true),
    ] {
        let s = pb::Scan {
            attribute: vec![raw_attr(value)],
            ..pb::Scan::default()
        };
        assert_eq!(scan_from_pb(&s, 0).unwrap().scan.raw, raw, "{value:?}");
    }
}

/// `Bytes.toBoolean` refuses any length but one; HBase's `StoreScanner` refuses columns in a
/// raw scan.
#[test]
fn bad_raw_scans_are_refused() {
    let s = pb::Scan {
        attribute: vec![raw_attr(b"true")],
        ..pb::Scan::default()
    };
    let e = scan_from_pb(&s, 0).unwrap_err();
    assert!(
        e.do_not_retry && e.message.contains("_raw_"),
        "{}",
        e.message
    );
    let s = pb::Scan {
        attribute: vec![raw_attr(&[1])],
        column: vec![pb::Column {
            family: Bytes::from_static(b"f"),
            qualifier: vec![Bytes::from_static(b"q")],
        }],
        ..pb::Scan::default()
    };
    let e = scan_from_pb(&s, 0).unwrap_err();
    assert!(e.message.contains("raw scan"), "{}", e.message);
}

/// `setMaxResultsPerColumnFamily` / `setRowOffsetPerColumnFamily` travel as `store_limit` and
/// `store_offset` (absent when unset: -1 and 0 in the client).
#[test]
fn store_limit_and_offset_reach_gets_and_scans() {
    let g = pb::Get {
        row: Bytes::from_static(b"r"),
        store_limit: Some(2),
        store_offset: Some(1),
        ..pb::Get::default()
    };
    let (get, _) = get_from_pb(&g).unwrap();
    assert_eq!(
        (get.max_results_per_family, get.offset_per_family),
        (Some(2), 1)
    );
    let (plain, _) = get_from_pb(&pb::Get {
        row: Bytes::from_static(b"r"),
        ..pb::Get::default()
    })
    .unwrap();
    assert_eq!(
        (plain.max_results_per_family, plain.offset_per_family),
        (None, 0)
    );
    let s = pb::Scan {
        store_limit: Some(0),
        store_offset: Some(5),
        ..pb::Scan::default()
    };
    let scan = scan_from_pb(&s, 0).unwrap().scan;
    assert_eq!(
        (scan.max_results_per_family, scan.offset_per_family),
        (Some(0), 5)
    );
}

#[test]
fn an_inclusive_stop_row_is_kept_in_both_directions() {
    for reversed in [false, true] {
        let (start, stop) = if reversed { ("r9", "r1") } else { ("r1", "r9") };
        let s = pb::Scan {
            start_row: Some(Bytes::from_static(start.as_bytes())),
            stop_row: Some(Bytes::from_static(stop.as_bytes())),
            include_stop_row: Some(true),
            reversed: Some(reversed),
            ..pb::Scan::default()
        };
        let scan = scan_from_pb(&s, 0).unwrap().scan;
        assert!(scan.include_stop_row && scan.stop_row.as_ref() == stop.as_bytes());
        let (lower, upper) = scan.bounds();
        let stop_bound = if reversed { lower } else { upper };
        assert_eq!(
            stop_bound,
            std::ops::Bound::Included(Bytes::from_static(stop.as_bytes()))
        );
    }
}

#[test]
fn a_range_past_its_stop_reads_nothing_instead_of_failing() {
    // HBase answers such a scan with no rows; a forward scan from r9 to r1 and a reversed one
    // from r1 to r9 become the empty range [start, start).
    for (reversed, start, stop) in [(false, "r9", "r1"), (true, "r1", "r9")] {
        let s = pb::Scan {
            start_row: Some(Bytes::from_static(start.as_bytes())),
            stop_row: Some(Bytes::from_static(stop.as_bytes())),
            include_stop_row: Some(true),
            reversed: Some(reversed),
            ..pb::Scan::default()
        };
        let scan = scan_from_pb(&s, 0).unwrap().scan;
        assert_eq!(scan.stop_row, scan.start_row);
        assert!(!scan.include_stop_row);
        let (lower, upper) = scan.bounds();
        let empty = match (lower, upper) {
            (std::ops::Bound::Included(l), std::ops::Bound::Excluded(u)) => l >= u,
            (std::ops::Bound::Excluded(l), std::ops::Bound::Included(u)) => l >= u,
            (std::ops::Bound::Excluded(l), std::ops::Bound::Excluded(u)) => l >= u,
            _ => false,
        };
        assert!(empty, "reversed={reversed}");
    }
}
