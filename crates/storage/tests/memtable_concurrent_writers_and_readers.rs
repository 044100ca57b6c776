//! Several writers insert while readers scan and a flusher snapshots: readers never see cells
//! out of order or a row mutation in part, and nothing is lost.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread;

use strata_model::cell::{CellKey, CellType};
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;
use strata_storage::memtable::{Iter, Memtable, Options};

const WRITERS: u64 = 3;
const MUTATIONS: u64 = 10_000;
const QUALIFIERS: [&[u8]; 3] = [b"a", b"b", b"c"];

/// A minimal MVCC: sequence ids are handed out in order; the read point is just below the
/// oldest mutation still being inserted.
#[derive(Default)]
struct Mvcc {
    state: Mutex<(u64, BTreeSet<u64>)>,
}

impl Mvcc {
    fn begin(&self) -> u64 {
        let mut s = self.state.lock().expect("mvcc");
        s.0 += 1;
        let seq = s.0;
        s.1.insert(seq);
        seq
    }

    fn commit(&self, seq: u64) {
        self.state.lock().expect("mvcc").1.remove(&seq);
    }

    fn read_point(&self) -> u64 {
        let s = self.state.lock().expect("mvcc");
        s.1.first().map_or(s.0, |oldest| oldest - 1)
    }
}

/// Writes `MUTATIONS` three-cell row mutations with 100-byte values.
fn write(table: &Memtable, mvcc: &Mvcc, writer: u64) {
    let value = [writer as u8; 100];
    for i in 0..MUTATIONS {
        let row = format!("row{:08}", (i * 7919 + writer * 104_729) % 1_000_003);
        let seq = mvcc.begin();
        for qualifier in QUALIFIERS {
            let cell = CellRef {
                row: row.as_bytes(),
                qualifier,
                timestamp: 1,
                cell_type: CellType::Put,
                seq,
                value: &value,
                ttl: None,
            };
            assert!(table.insert(&cell).expect("insert"));
        }
        mvcc.commit(seq);
    }
}

/// Scans `it` whole in one direction, checking strict order; returns the keys in store order.
fn scan(it: &mut Iter, forward: bool) -> Vec<CellKey> {
    let mut keys: Vec<CellKey> = Vec::new();
    let mut more = if forward {
        it.seek_to_first()
    } else {
        it.seek_to_last()
    };
    while more {
        let key = it.current().to_key();
        if let Some(last) = keys.last() {
            assert_eq!(last < &key, forward, "out of order: {last:?} then {key:?}");
        }
        keys.push(key);
        more = if forward { it.next() } else { it.prev() };
    }
    if !forward {
        keys.reverse();
    }
    keys
}

fn spawn_writers(table: &Arc<Memtable>, mvcc: &Arc<Mvcc>) -> Vec<thread::JoinHandle<()>> {
    (0..WRITERS)
        .map(|w| {
            let (table, mvcc) = (Arc::clone(table), Arc::clone(mvcc));
            thread::spawn(move || write(&table, &mvcc, w))
        })
        .collect()
}

#[test]
fn memtable_readers_see_whole_mutations_in_order_while_writers_insert() {
    readers_see_whole_mutations(Options {
        chunk_size: 64 << 10,
        ..Options::default()
    });
}

/// BASIC with small in-memory flushes: writers seal, flatten and merge the pipeline while
/// other writers seal more segments at its head and readers scan.
#[test]
fn basic_compactions_racing_seals_keep_every_mutation_whole() {
    let table = readers_see_whole_mutations(Options {
        chunk_size: 64 << 10,
        in_memory_flush_size: 4 << 10,
        policy: InMemoryCompaction::Basic,
        ..Options::default()
    });
    // A seal whose compaction found another running may have left a skiplist segment or a
    // longer pipeline; one more compaction brings it to BASIC's shape, every cell still there:
    // the active segment and flat size tiers, about log₂ of the seals at most.
    table.compact_in_memory(u64::MAX);
    let stats = table.stats();
    let seals = stats.data_bytes / (4 << 10);
    let tiers = 2 + u64::from(seals.max(1).ilog2());
    assert!(stats.segments as u64 <= 1 + tiers, "{stats:?}");
    assert_eq!(stats.flat_segments + 1, stats.segments, "{stats:?}");
    assert_eq!(
        scan(&mut table.iter(u64::MAX), true).len() as u64,
        stats.cells
    );
    assert_eq!(stats.cells, WRITERS * MUTATIONS * 3);
}

fn readers_see_whole_mutations(options: Options) -> Arc<Memtable> {
    let table = Arc::new(Memtable::new(options));
    let mvcc = Arc::new(Mvcc::default());
    let done = Arc::new(AtomicBool::new(false));
    let writers = spawn_writers(&table, &mvcc);
    let reader = {
        let (table, mvcc, done) = (Arc::clone(&table), Arc::clone(&mvcc), Arc::clone(&done));
        thread::spawn(move || {
            let mut scans = 0;
            while !done.load(Relaxed) || scans < 2 {
                let read_point = mvcc.read_point();
                let mut it = table.iter(read_point);
                let keys = scan(&mut it, scans % 2 == 0);
                // Every mutation up to the read point is there, whole, and nothing newer.
                let mut per_seq: BTreeMap<u64, usize> = BTreeMap::new();
                for k in &keys {
                    *per_seq.entry(k.seq).or_default() += 1;
                }
                assert_eq!(
                    per_seq.len() as u64,
                    read_point,
                    "mutations at {read_point}"
                );
                assert!(per_seq.values().all(|&n| n == QUALIFIERS.len()));
                assert!(per_seq.keys().all(|&s| s <= read_point));
                scans += 1;
                if scans % 4 == 0 {
                    table.seal_active(); // in-memory flushes: more segments to merge
                }
            }
            scans
        })
    };
    for w in writers {
        w.join().expect("writer");
    }
    done.store(true, Relaxed);
    let scans = reader.join().expect("reader");
    let all = scan(&mut table.iter(u64::MAX), true);
    assert_eq!(all.len() as u64, WRITERS * MUTATIONS * 3);
    assert_eq!(table.stats().cells, WRITERS * MUTATIONS * 3);
    eprintln!("{scans} scans, {:?}", table.stats());
    table
}

#[test]
fn memtable_flushes_lose_nothing_while_writers_insert() {
    let table = Arc::new(Memtable::new(Options {
        chunk_size: 64 << 10,
        ..Options::default()
    }));
    let mvcc = Arc::new(Mvcc::default());
    let done = Arc::new(AtomicBool::new(false));
    let writers = spawn_writers(&table, &mvcc);
    let flush = |table: &Memtable, files: &mut Vec<Vec<CellKey>>| {
        let snapshot = table.snapshot();
        let first = scan(&mut snapshot.iter(), true);
        // A snapshot never changes, though writers keep going.
        assert_eq!(scan(&mut snapshot.iter(), false), first);
        assert_eq!(first.len() as u64, snapshot.stats().cells);
        files.push(first);
        table.release(snapshot).expect("release");
    };
    let flusher = {
        let (table, done) = (Arc::clone(&table), Arc::clone(&done));
        thread::spawn(move || {
            let mut files = Vec::new();
            while !done.load(Relaxed) {
                flush(&table, &mut files);
                // Readers meanwhile: order holds across segments coming and going.
                scan(&mut table.iter(u64::MAX), false);
            }
            files
        })
    };
    for w in writers {
        w.join().expect("writer");
    }
    done.store(true, Relaxed);
    let mut files = flusher.join().expect("flusher");
    eprintln!("{} flushes", files.len());
    flush(&table, &mut files);
    assert!(table.is_empty());
    assert_eq!(table.size_bytes(), 0);
    let flushed: Vec<CellKey> = files.into_iter().flatten().collect();
    let distinct: BTreeSet<&CellKey> = flushed.iter().collect();
    assert_eq!(flushed.len(), distinct.len(), "a cell was flushed twice");
    assert_eq!(flushed.len() as u64, WRITERS * MUTATIONS * 3);
}

#[test]
fn memtable_iterators_and_snapshots_cross_threads() {
    fn shared<T: Send + Sync>() {}
    fn sent<T: Send>() {}
    shared::<Memtable>();
    sent::<Iter>();
    sent::<strata_storage::memtable::FlushSnapshot>();
}
