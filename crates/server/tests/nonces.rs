//! The nonces of increments and appends (RFC 0032): a server that opens a region whose WAL
//! entries it replays knows the operations those entries applied, so a client sending one
//! again (after its answer was lost to the crash) is not applied twice.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use strata_model::ops::{Get, Increment, RowMutations};
use strata_server::nonces::Start;
use strata_storage::wal::Nonce;
use strata_testkit::fixtures;

#[test]
fn a_nonce_replayed_from_the_wal_is_done_on_the_next_opening() {
    let dir = tempfile::tempdir().unwrap();
    let table = fixtures::table("t", &["f"]);
    let regions = [fixtures::region("t", 1, "", "")];
    let server = fixtures::server(fixtures::server_config(dir.path(), 64), &table, &regions);
    let nonce = Nonce {
        group: 1,
        nonce: 77,
    };
    let increment = RowMutations::new("row")
        .with(Increment::new("row").add("f", "n", 5))
        .unwrap();
    let Ok(Start::Run(op)) = server.nonces().start(nonce, Duration::ZERO) else {
        panic!("a new nonce runs");
    };
    server
        .hosted(1)
        .unwrap()
        .mutate_row_nonced(&increment, Some(nonce))
        .unwrap();
    op.succeeded();
    // As after a crash: the region's edit is only in the WAL, and a new server process opens it.
    server.close_region(1, false).unwrap();
    drop(server);
    let server = fixtures::server(fixtures::server_config(dir.path(), 64), &table, &regions);
    assert!(
        matches!(
            server.nonces().start(nonce, Duration::ZERO),
            Ok(Start::Done)
        ),
        "the replayed entry's nonce is done"
    );
    let other = Nonce {
        group: 1,
        nonce: 78,
    };
    assert!(matches!(
        server.nonces().start(other, Duration::ZERO),
        Ok(Start::Run(_))
    ));
    let cells = server
        .hosted(1)
        .unwrap()
        .get(&Get::new("row").with_column("f", "n"))
        .unwrap();
    assert_eq!(cells[0].value.as_ref(), 5i64.to_be_bytes());
}
