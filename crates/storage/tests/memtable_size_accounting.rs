//! Size accounting grows with inserts and drops on release; snapshots are stable and
//! re-offered until released; large cells get their own allocation and read back whole.

use bytes::Bytes;
use strata_model::cell::{Cell, CellKey, CellType};
use strata_sstable::CellRef;
use strata_storage::memtable::{InsertError, Memtable, Options, ReleaseError, MAX_SEQ};

fn put(row: &str, seq: u64, value: &[u8]) -> Cell {
    let mut cell = Cell::put(
        Bytes::copy_from_slice(row.as_bytes()),
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        1,
        Bytes::copy_from_slice(value),
    );
    cell.seq = seq;
    cell
}

fn rows(table: &Memtable, read_point: u64) -> Vec<String> {
    let mut it = table.iter(read_point);
    let mut out = Vec::new();
    let mut more = it.seek_to_first();
    while more {
        out.push(String::from_utf8_lossy(it.current().row).into_owned());
        more = it.next();
    }
    out
}

#[test]
fn memtable_size_grows_with_inserts_and_drops_on_release() {
    let table = Memtable::new(Options {
        chunk_size: 4096,
        ..Options::default()
    });
    assert_eq!((table.size_bytes(), table.stats().chunks), (0, 0));
    let mut last = 0;
    for i in 0..500u64 {
        assert!(table
            .insert_cell(&put(&format!("r{i:04}"), i, &[7; 40]))
            .expect("insert"));
        let size = table.size_bytes();
        assert!(size > last, "size must grow with a new cell");
        last = size;
        // A duplicate (same key and sequence id) stores nothing.
        assert!(!table
            .insert_cell(&put(&format!("r{i:04}"), i, &[7; 40]))
            .expect("insert"));
        assert_eq!(table.size_bytes(), last);
    }
    let stats = table.stats();
    assert_eq!(stats.cells, 500);
    assert_eq!(stats.data_bytes, 500 * (5 + 1 + 40));
    assert_eq!(stats.size_bytes(), last);
    assert!(stats.chunks >= 500 * 48 / 4096, "{stats:?}");
    assert_eq!((stats.min_seq, stats.max_seq), (Some(0), Some(499)));

    // Snapshot: the cells move, the size does not.
    let snapshot = table.snapshot();
    assert_eq!(table.size_bytes(), last);
    assert_eq!(snapshot.stats().size_bytes(), last);
    for i in 0..10u64 {
        table
            .insert_cell(&put(&format!("s{i}"), 1000 + i, b"v"))
            .expect("insert");
    }
    let after = table.size_bytes();
    assert!(after > last);
    assert_eq!(table.stats().segments, 2);
    table.release(snapshot).expect("release");
    assert_eq!(table.size_bytes(), after - last);
    assert_eq!(table.stats().cells, 10);
    assert_eq!(table.stats().min_seq, Some(1000));

    let rest = table.snapshot();
    table.release(rest).expect("release");
    assert_eq!(
        (
            table.size_bytes(),
            table.stats().cells,
            table.stats().chunks
        ),
        (0, 0, 0)
    );
    assert_eq!(table.stats().segments, 1);
}

#[test]
fn memtable_offers_a_pending_snapshot_again_until_released() {
    let table = Memtable::default();
    let empty = table.snapshot();
    assert!(empty.is_empty());
    assert_eq!(empty.max_seq(), None);
    table
        .release(empty)
        .expect("an empty snapshot always releases");

    table.insert_cell(&put("a", 5, b"1")).expect("insert");
    let first = table.snapshot();
    table.insert_cell(&put("b", 6, b"2")).expect("insert");
    // The flush failed, say: the retry gets the same cells, not the newer ones.
    let again = table.snapshot();
    assert_eq!(again.id(), first.id());
    assert_eq!(again.stats().cells, 1);
    assert_eq!(again.max_seq(), Some(5));
    // Readers see both the snapshot and the active segment.
    assert_eq!(rows(&table, u64::MAX), ["a", "b"]);

    // An iterator keeps its segments after the release.
    let mut old = table.iter(u64::MAX);
    table.release(first.clone()).expect("release");
    assert_eq!(
        table.release(first.clone()),
        Err(ReleaseError::NotPending { id: first.id() })
    );
    assert_eq!(rows(&table, u64::MAX), ["b"]);
    assert!(old.seek(&CellKey::first_on_row(Bytes::from_static(b"a"))));
    assert_eq!(old.current().row, b"a");

    let next = table.snapshot();
    assert_ne!(next.id(), first.id());
    assert_eq!(next.max_seq(), Some(6));
}

#[test]
fn memtable_stores_large_cells_outside_chunks() {
    let table = Memtable::default(); // 2 MiB chunks: above 512 KiB a cell gets its own
    let big: Vec<u8> = (0..3 << 20).map(|i: u32| (i % 251) as u8).collect();
    let half: Vec<u8> = big[..(512 << 10) + 1].to_vec();
    table.insert_cell(&put("big", 1, &big)).expect("insert");
    table.insert_cell(&put("half", 2, &half)).expect("insert");
    table.insert_cell(&put("small", 3, b"x")).expect("insert");
    let stats = table.stats();
    assert_eq!((stats.large_cells, stats.chunks), (2, 1));
    assert!(stats.reserved_bytes >= (2 << 20) + big.len() as u64 + half.len() as u64);
    assert!(stats.size_bytes() >= big.len() as u64 + half.len() as u64);

    let mut it = table.iter(u64::MAX);
    assert!(it.seek_to_first());
    assert_eq!(it.current().value, &big[..]);
    assert!(it.next());
    assert_eq!(it.current().value, &half[..]);
    assert!(it.next());
    assert_eq!(it.current().value, b"x");
    assert!(!it.next());
}

#[test]
fn memtable_refuses_sequence_ids_beyond_56_bits() {
    let table = Memtable::default();
    let cell = CellRef {
        row: b"r",
        qualifier: b"",
        timestamp: 0,
        cell_type: CellType::DeleteFamily,
        seq: MAX_SEQ + 1,
        value: b"",
        ttl: None,
    };
    assert_eq!(
        table.insert(&cell),
        Err(InsertError::SeqTooLarge { seq: MAX_SEQ + 1 })
    );
    assert!(table
        .insert(&CellRef {
            seq: MAX_SEQ,
            ..cell
        })
        .expect("max fits"));
    let mut it = table.iter(u64::MAX);
    assert!(it.seek_to_first());
    assert_eq!(
        it.current(),
        CellRef {
            seq: MAX_SEQ,
            ..cell
        }
    );
}
