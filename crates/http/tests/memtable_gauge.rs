//! The memtable budget's gauge is true when read: right after an admin flush (no write
//! since), `strata_memtable_budget_used_bytes` is the memtables' size, not the size before
//! the flush. The server page counts the store files it lists.
#![allow(clippy::unwrap_used)]

mod support;

use strata_model::ops::Put;
use support::exposition::parse_classic;
use support::{b, get, start, table};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_gauge_drops_with_an_admin_flush() {
    let dir = tempfile::tempdir().unwrap();
    let run = start(dir.path()).await;
    let admin = run.conn.admin();
    admin
        .create_table(&table("gauge_t", &["f"]), &[b("m")])
        .await
        .unwrap();
    let t = run.conn.table("gauge_t").unwrap();
    for i in 0..200 {
        t.put(&Put::new(b(&format!("{:03}", i % 26 * 7 + i))).add(
            b("f"),
            b("q"),
            vec![b'v'; 1000],
        ))
        .await
        .unwrap();
    }
    let read = || async {
        let body = get(run.http.addr(), "/metrics").await.body;
        let m = parse_classic(&body).unwrap();
        (
            m.sum("strata_memtable_budget_used_bytes", &[]),
            m.sum("strata_memtable_bytes", &[]),
        )
    };
    let (used, stores) = read().await;
    assert!(used >= 200_000.0, "{used}");
    assert_eq!(used, stores);

    admin.flush("gauge_t").await.unwrap();
    let (used_after, stores_after) = read().await;
    assert_eq!(used_after, stores_after, "the gauge is the memtables' size");
    assert!(
        used_after < used / 10.0,
        "{used_after} of {used} before the flush"
    );
    // The server page counts the table's store files (one: every row sorts before the split
    // at 'm', and one flush wrote them) and shows their bytes in a column of their own.
    let page = get(run.http.addr(), "/").await.body;
    assert!(
        page.contains("<th>Store files</th><th>File bytes</th>"),
        "{page}"
    );
    let here = page
        .split("<h2>Regions open here</h2>")
        .nth(1)
        .unwrap_or_else(|| panic!("{page}"));
    let row = here
        .split("<tr>")
        .find(|r| r.contains(">gauge_t</a>"))
        .unwrap_or_else(|| panic!("{page}"));
    let cells: Vec<&str> = row.split("<td").collect();
    assert_eq!(cells[5], " class=\"n\">1</td>", "{row}");
    assert!(cells[6].ends_with("B</td>"), "{row}");
    run.stop().await;
}
