//! Row rules: the bytes every row held so far shares, learnt at each seal, and searches
//! under them (see [`key`](super::key)).

use strata_model::cell::{CellKey, CellType};
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;

use super::*;

fn memtable() -> Memtable {
    Memtable::new(Options {
        chunk_size: 64 << 10,
        policy: InMemoryCompaction::Basic,
        in_memory_flush_size: u64::MAX,
        pipeline_limit: usize::MAX,
        ..Options::default()
    })
}

fn put(m: &Memtable, row: &[u8], seq: u64) {
    let cell = CellRef {
        row,
        qualifier: b"q",
        timestamp: 1,
        cell_type: CellType::Put,
        seq,
        value: b"v",
        ttl: None,
    };
    assert_eq!(m.insert(&cell), Ok(true));
}

impl Memtable {
    /// The bytes of the active segment's rule.
    fn rule_bytes(&self) -> Option<Vec<u8>> {
        self.state.read().rule.as_ref().map(|r| r.shared().to_vec())
    }
}

/// Every row the memtable shows, in order.
fn rows(m: &Memtable) -> Vec<Vec<u8>> {
    let mut it = m.iter(u64::MAX);
    let mut out = Vec::new();
    let mut more = it.seek_to_first();
    while more {
        out.push(it.current().row.to_vec());
        more = it.next();
    }
    out
}

/// True when a seek to `row` lands on it, in an iterator over every segment and in one over
/// the segments that may hold it.
fn found(m: &Memtable, row: &[u8]) -> bool {
    let key = CellKey::first_on_row(bytes::Bytes::copy_from_slice(row));
    let mut all = m.iter(u64::MAX);
    let one = all.seek(&key) && all.current().row == row;
    let two = m
        .iter_for_row(u64::MAX, row)
        .is_some_and(|mut it| it.seek(&key) && it.current().row == row);
    one && two
}

fn padded(n: u64) -> Vec<u8> {
    format!("{n:020}").into_bytes()
}

#[test]
fn a_seal_learns_the_shared_row_bytes_and_later_rows_search_under_them() {
    let m = memtable();
    assert_eq!(m.rule_bytes(), None, "nothing sealed yet");
    let mut seq = 0;
    let mut all = Vec::new();
    // Keys in [0, 10⁷) in a scattered order: 13 leading zeros shared.
    for round in 0..4u64 {
        for i in 0..500u64 {
            seq += 1;
            let n = (i * 7_919 + round * 104_729) % 10_000_000;
            put(&m, &padded(n), seq);
            all.push(padded(n));
        }
        m.seal_active();
    }
    let shared = m.rule_bytes().expect("a rule after a seal");
    assert!(
        shared.len() >= 13 && shared.iter().all(|&b| b == b'0'),
        "{shared:?}"
    );
    // Under the rule: inserts, duplicates and seeks in the active segment.
    for i in 0..500u64 {
        seq += 1;
        let n = 9_999_999 - i * 13;
        put(&m, &padded(n), seq);
        all.push(padded(n));
    }
    all.sort();
    assert!(rows(&m) == all, "rows out of order");
    for row in all.iter().step_by(37) {
        assert!(found(&m, row), "{row:?}");
    }
    assert!(!found(&m, &padded(10_000_001)));
}

#[test]
fn rows_outside_the_rule_still_sort_and_the_rule_only_shrinks() {
    let m = memtable();
    let mut seq = 0;
    let mut all = Vec::new();
    for i in 0..200u64 {
        seq += 1;
        put(&m, &padded(i * 3), seq);
        all.push(padded(i * 3));
    }
    m.seal_active();
    let first = m.rule_bytes().expect("a rule");
    // Rows not starting with the rule (shorter, other bytes, empty) go to the active
    // segment with plain prefixes, among rows under the rule.
    let outside: [&[u8]; 5] = [b"", b"0", b"00000000000000000", b"1", b"\xff\xff"];
    for row in outside {
        seq += 1;
        put(&m, row, seq);
        all.push(row.to_vec());
    }
    for i in 0..200u64 {
        seq += 1;
        put(&m, &padded(i * 3 + 1), seq);
        all.push(padded(i * 3 + 1));
    }
    all.sort();
    assert!(rows(&m) == all, "rows out of order");
    for row in outside.iter().skip(1) {
        assert!(found(&m, row), "{row:?}");
    }
    assert!(found(&m, &padded(301)));
    m.seal_active();
    // The sealed rows spanned "" to "\xff\xff": nothing is shared any more, and nothing
    // ever will be again.
    assert!(!first.is_empty());
    assert_eq!(m.rule_bytes(), None);
    for i in 0..100u64 {
        seq += 1;
        put(&m, &padded(i * 3 + 2), seq);
        all.push(padded(i * 3 + 2));
    }
    m.seal_active();
    assert_eq!(m.rule_bytes(), None);
    all.sort();
    assert!(rows(&m) == all, "rows out of order");
}

#[test]
fn a_narrower_share_makes_a_new_rule_and_old_keys_still_compare() {
    let m = memtable();
    let mut seq = 0;
    let mut all = Vec::new();
    for i in 0..100u64 {
        seq += 1;
        let row = format!("user0000{i:04}").into_bytes();
        put(&m, &row, seq);
        all.push(row);
    }
    m.seal_active();
    assert_eq!(m.rule_bytes().as_deref(), Some(&b"user000000"[..]));
    for i in 0..100u64 {
        seq += 1;
        let row = format!("user{:08}", i * 99_991).into_bytes();
        put(&m, &row, seq);
        all.push(row);
    }
    m.seal_active();
    assert_eq!(m.rule_bytes().as_deref(), Some(&b"user0"[..]));
    // Three segments under three rules (none, "user000000", "user0") searched together.
    for i in 0..100u64 {
        seq += 1;
        let row = format!("user5{i:07}").into_bytes();
        put(&m, &row, seq);
        all.push(row);
    }
    // "user00000000" twice: two versions of it.
    all.sort();
    assert!(rows(&m) == all, "rows out of order");
    for row in &all {
        assert!(found(&m, row), "{row:?}");
    }
}
