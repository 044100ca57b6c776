//! An increment's nonce is logged with its WAL entry and handed back when the entry is
//! replayed (RFC 0032): the server reopening the region after a crash learns which client
//! operations are done.
#![allow(clippy::unwrap_used)]

mod region_support;

use region_support::{table, Env};
use strata_model::ops::{Increment, Put, RowMutations};
use strata_storage::wal::Nonce;

fn increment(row: &str) -> RowMutations {
    RowMutations::new(row.to_string())
        .with(Increment::new(row.to_string()).add("f", "n", 1))
        .unwrap()
}

#[test]
fn replayed_entries_give_back_their_nonces_once() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let nonce = Nonce { group: 3, nonce: 9 };
    r.mutate_row_nonced(&increment("a"), Some(nonce)).unwrap();
    r.mutate_row(&increment("b")).unwrap();
    r.put(&Put::new("c").add("f", "q", "v")).unwrap();
    // Nothing was replayed by the first open.
    assert!(r.take_replayed_nonces().is_empty());
    drop(r);

    let r = env.open();
    // The environment's clock stands at 1,000,000 ms.
    assert_eq!(r.take_replayed_nonces(), vec![(nonce, 1_000_000)]);
    assert!(r.take_replayed_nonces().is_empty(), "handed back once");
    let cells = r
        .get(&strata_model::ops::Get::new("a").with_column("f", "n"))
        .unwrap();
    assert_eq!(cells[0].value.as_ref(), 1i64.to_be_bytes());

    // Flushed, the entry is not replayed: its nonce is not handed back.
    r.flush().unwrap();
    drop(r);
    let r = env.open();
    assert!(r.take_replayed_nonces().is_empty());
}
