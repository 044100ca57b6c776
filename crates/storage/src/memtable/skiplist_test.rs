use std::sync::Arc;

use bytes::BytesMut;
use strata_model::cell::CellType;
use strata_sstable::CellRef;

use super::*;

fn cell(row: &[u8], seq: u64) -> CellRef<'_> {
    CellRef {
        row,
        qualifier: b"q",
        timestamp: 1,
        cell_type: CellType::Put,
        seq,
        value: b"v",
        ttl: None,
    }
}

fn key_of(c: &CellRef<'_>) -> Key {
    let mut out = BytesMut::new();
    Key::encode(c, &mut out);
    Key::new(out.freeze(), c)
}

fn insert(list: &SkipList, c: &CellRef<'_>) -> Insert {
    list.insert(&Probe::of_cell(c), || key_of(c))
}

fn rows(list: &SkipList) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut id = list.successor(HEAD);
    while let Some(key) = list.key(id) {
        out.push(key.cell().row.to_vec());
        id = list.successor(id);
    }
    out
}

#[test]
fn level_zero_is_sorted_and_duplicates_are_refused() {
    let list = SkipList::new(None);
    let mut expect = Vec::new();
    for i in 0..5000u32 {
        let row = (i.wrapping_mul(2_654_435_761) % 10_007).to_be_bytes();
        let first = !expect.contains(&row.to_vec());
        let r = insert(&list, &cell(&row, 1));
        assert_eq!(r == Insert::Duplicate, !first);
        if first {
            expect.push(row.to_vec());
        }
    }
    expect.sort();
    assert_eq!(rows(&list), expect);
    // Same key with another sequence id is another cell.
    assert!(matches!(
        insert(&list, &cell(&expect[0], 2)),
        Insert::Inserted { .. }
    ));
}

#[test]
fn last_where_finds_predecessors() {
    let list = SkipList::new(None);
    assert_eq!(list.last_where(|_| true), HEAD);
    for i in (0..100u8).step_by(2) {
        insert(&list, &cell(&[i], 0));
    }
    let below = |row: u8| {
        let id = list.last_where(|k| k.cell().row < &[row][..]);
        list.key(id).map(|k| k.cell().row[0])
    };
    assert_eq!(below(0), None);
    assert_eq!(below(1), Some(0));
    assert_eq!(below(51), Some(50));
    assert_eq!(below(200), Some(98));
}

#[test]
fn about_one_upper_link_per_three_nodes() {
    let links: usize = (0..30_000u32).map(|id| height(id) - 1).sum();
    let per_node = links as f64 / 30_000.0;
    assert!((0.28..0.39).contains(&per_node), "{per_node}");
}

#[test]
fn concurrent_inserts_all_land_in_order() {
    let list = Arc::new(SkipList::new(None));
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let list = Arc::clone(&list);
            std::thread::spawn(move || {
                for i in 0..3000u32 {
                    let row = (i * 4 + t).to_be_bytes();
                    assert!(matches!(
                        insert(&list, &cell(&row, 0)),
                        Insert::Inserted { .. }
                    ));
                    // Every thread also races on a shared key.
                    insert(&list, &cell(b"shared", u64::from(i % 7)));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("writer");
    }
    let got = rows(&list);
    assert_eq!(got.len(), 12_000 + 7);
    assert!(got.windows(2).all(|w| w[0] <= w[1]));
    check_levels(&list);
}

fn insert_hinted(list: &SkipList, c: &CellRef<'_>, splice: &mut Splice) -> Insert {
    list.insert_hinted(&Probe::of_cell(c), || key_of(c), splice)
}

#[test]
fn hinted_inserts_in_any_order_build_the_same_list() {
    let keys: Vec<[u8; 4]> = (0..4000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) % 3001).to_be_bytes())
        .collect();
    let mut ascending = keys.clone();
    ascending.sort();
    let mut descending = ascending.clone();
    descending.reverse();
    // Runs of ascending keys from scattered starting points, as rows of cells arrive.
    let runs: Vec<[u8; 4]> = (0..400u32)
        .flat_map(|r| {
            let start = r.wrapping_mul(7919) % 3000;
            (start..start + 10).map(u32::to_be_bytes)
        })
        .collect();
    for order in [keys, ascending, descending, runs] {
        let plain = SkipList::new(None);
        let hinted = SkipList::new(None);
        let mut splice = Splice::default();
        for row in &order {
            let a = insert(&plain, &cell(row, 1));
            let b = insert_hinted(&hinted, &cell(row, 1), &mut splice);
            assert_eq!(
                a == Insert::Duplicate,
                b == Insert::Duplicate,
                "row {row:?}"
            );
        }
        assert_eq!(rows(&plain), rows(&hinted));
        check_levels(&hinted);
    }
}

#[test]
fn concurrent_hinted_inserts_all_land_in_order() {
    let list = Arc::new(SkipList::new(None));
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let list = Arc::clone(&list);
            std::thread::spawn(move || {
                let mut splice = Splice::default();
                for i in 0..3000u32 {
                    // Interleaved ascending runs: each thread's next key usually has other
                    // threads' keys linked right before it.
                    let row = (i * 4 + t).to_be_bytes();
                    assert!(matches!(
                        insert_hinted(&list, &cell(&row, 0), &mut splice),
                        Insert::Inserted { .. }
                    ));
                    insert_hinted(&list, &cell(b"shared", u64::from(i % 7)), &mut splice);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("writer");
    }
    let got = rows(&list);
    assert_eq!(got.len(), 12_000 + 7);
    assert!(got.windows(2).all(|w| w[0] <= w[1]));
    check_levels(&list);
}

/// Every level is strictly increasing and a subsequence of the level below.
fn check_levels(list: &SkipList) {
    let mut above: Option<Vec<u32>> = None;
    for level in (0..MAX_HEIGHT).rev() {
        let mut ids = Vec::new();
        let mut id = list.next(HEAD, level);
        while let Some(key) = list.key(id) {
            if let Some(&last) = ids.last() {
                let prev = list.key(last).expect("linked node");
                assert_eq!(prev.cmp_probe(&key.probe()), Less, "level {level}");
            }
            ids.push(id);
            id = list.next(id, level);
        }
        if let Some(upper) = &above {
            let set: std::collections::HashSet<u32> = ids.iter().copied().collect();
            assert!(upper.iter().all(|id| set.contains(id)), "level {level}");
        }
        above = Some(ids);
    }
    // Every node is found by a search.
    for id in above.unwrap_or_default() {
        let key = list.key(id).expect("linked node");
        let (mut p, mut s) = ([HEAD; MAX_HEIGHT], [NIL; MAX_HEIGHT]);
        assert!(list.find_splice(&key.probe(), 0, &mut p, &mut s));
    }
}

#[test]
#[cfg(target_pointer_width = "64")]
fn a_node_is_one_cache_line() {
    assert_eq!((NODE_BYTES, align_of::<Node>()), (64, 64));
}

/// A search forward from any node below the probe finds what a search from the head finds,
/// whatever the distance.
#[test]
fn finger_searches_match_searches_from_the_head() {
    let list = SkipList::new(None);
    let mut splice = Splice::default();
    let mut keys: Vec<[u8; 4]> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) % 1_000_003).to_be_bytes())
        .collect();
    for (i, row) in keys.iter().enumerate() {
        insert_hinted(&list, &cell(row, 1), &mut splice);
        if i % 7 == 0 {
            splice = Splice::default();
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let mut ids = Vec::new();
    let mut id = list.successor(HEAD);
    while list.key(id).is_some() {
        ids.push(id);
        id = list.successor(id);
    }
    assert_eq!(ids.len(), keys.len());
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..5_000 {
        let from = rand(ids.len());
        // Targets near (a column's versions) and far (across the list), present or not.
        let ahead = if rand(2) == 0 {
            rand(8)
        } else {
            rand(ids.len())
        };
        let target = (from + ahead).min(keys.len() - 1);
        let mut row = keys[target];
        if rand(2) == 0 {
            row[3] = row[3].wrapping_add(1); // usually absent
        }
        if row <= keys[from] {
            continue;
        }
        let c = cell(&row, 1);
        let probe = Probe::of_cell(&c);
        let before = |k: &Key| k.cmp_probe(&probe) == Less;
        assert_eq!(
            list.last_where_from(ids[from], before),
            list.last_where(before),
            "from {from} to {row:?}"
        );
    }
    // From the head or past the end: a search from the head.
    let c = cell(&keys[100], 1);
    let probe = Probe::of_cell(&c);
    let before = |k: &Key| k.cmp_probe(&probe) == Less;
    assert_eq!(list.last_where_from(HEAD, before), list.last_where(before));
}

fn version<'a>(row: &'a [u8], qualifier: &'a [u8], timestamp: i64) -> CellRef<'a> {
    CellRef {
        row,
        qualifier,
        timestamp,
        cell_type: CellType::Put,
        seq: 1,
        value: b"v",
        ttl: None,
    }
}

/// Every node's run tail is at or after it and of its column; versions written newest last
/// (as with the current time) all point at their column's oldest.
#[test]
fn run_tails_stay_within_their_column() {
    let list = SkipList::new(None);
    let mut splice = Splice::default();
    let (rows, qualifiers) = ([&b"a"[..], b"b", b"c"], [&b"x"[..], b"y"]);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut ordered_tail = Vec::new();
    for i in 0..3_000i64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let (row, q) = (
            rows[(state % 3) as usize],
            qualifiers[(state / 3 % 2) as usize],
        );
        // Row "a" gets rising timestamps only (new versions in front); the others any.
        let ts = if row == b"a" {
            i
        } else {
            (state >> 8) as i64 % 500
        };
        let c = version(row, q, ts);
        insert_hinted(&list, &c, &mut splice);
        if state.is_multiple_of(5) {
            splice = Splice::default();
        }
        if row == b"a" && q == b"x" {
            ordered_tail.push(ts);
        }
    }
    let mut ids = Vec::new();
    let mut id = list.successor(HEAD);
    while list.key(id).is_some() {
        ids.push(id);
        id = list.successor(id);
    }
    let mut hops = 0;
    for (i, &id) in ids.iter().enumerate() {
        let tail = list.run_tail(id);
        let at = ids
            .iter()
            .position(|&n| n == tail)
            .expect("a tail is a node");
        let (key, tail_key) = (list.key(id).unwrap(), list.key(tail).unwrap());
        assert!(at >= i, "a tail never points back");
        assert_eq!(key.column(), tail_key.column());
        if tail != id {
            hops += 1;
        }
        let c = key.cell();
        if (c.row, c.qualifier) == (&b"a"[..], &b"x"[..]) {
            let oldest = ordered_tail.iter().min().copied();
            assert_eq!(Some(tail_key.timestamp()), oldest, "one hop to the oldest");
        }
    }
    assert!(
        hops > ids.len() / 2,
        "most versions know a later one: {hops}"
    );
}
