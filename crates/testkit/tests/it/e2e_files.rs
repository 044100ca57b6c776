//! `Admin::list_files` through the server: a table's store files with their regions,
//! date-tiered windows, storage tiers and paths.
#![allow(clippy::unwrap_used)]

use std::time::{SystemTime, UNIX_EPOCH};

use crate::support::{b, start, table};
use strata_model::ops::Put;
use strata_model::schema::{CompactionPolicy, DateTiered, FamilyDescriptor};
use strata_proto::pb::ErrorCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flushed_files_are_listed_with_region_tier_window_and_path() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    let mut dated = FamilyDescriptor::new("d");
    dated.compaction_policy = CompactionPolicy::DateTiered(DateTiered::default());
    admin
        .create_table(&table("t", &["f"]).with_family(dated), &[b("m")])
        .await
        .unwrap();
    assert!(admin.list_files("t").await.unwrap().is_empty());

    let t = conn.table("t").unwrap();
    for row in ["a", "b", "c", "z"] {
        t.put(&Put::new(b(row)).add_at(b("f"), b("q"), 1000, b("v")))
            .await
            .unwrap();
    }
    let before = now_ms();
    // The server's clock stamps this cell.
    t.put(&Put::new(b("a")).add(b("d"), b("q"), b("v")))
        .await
        .unwrap();
    let after = now_ms();
    admin.flush("t").await.unwrap();

    let files = admin.list_files("t").await.unwrap();
    let got: Vec<(&[u8], &str, u64)> = files
        .iter()
        .map(|f| (f.region_start.as_ref(), f.family.as_str(), f.cells))
        .collect();
    assert_eq!(got, [(&b""[..], "d", 1), (b"", "f", 3), (b"m", "f", 1)]);
    for f in &files {
        assert_eq!(f.tier, "HDD", "{f:?}");
        assert!(!f.reference && !f.major, "{f:?}");
        assert!(f.max_seq_id > 0, "{f:?}");
        let on_disk = std::fs::metadata(&f.path)
            .unwrap_or_else(|e| panic!("{}: {e}", f.path))
            .len();
        assert_eq!(f.size, on_disk, "{f:?}");
        assert!(f.size > 0, "{f:?}");
        assert!(f.path.ends_with(&f.name), "{f:?}");
    }
    assert_eq!(files[0].region_end, b("m"));
    assert!(files[2].region_end.is_empty());
    assert_ne!(files[0].region_id, files[2].region_id);
    assert_eq!(files[1].time_range, Some((1000, 1000)));
    assert_eq!(files[1].window, None, "an exploring family has no window");

    // The date-tiered file sits in the window that holds its newest cell.
    let (min, max) = files[0].time_range.unwrap();
    assert!(
        before <= min && min == max && max <= after,
        "{:?}",
        files[0]
    );
    let (start, end) = files[0].window.unwrap();
    assert!(start <= max && max < end, "{:?}", files[0]);

    server.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_disabled_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    let e = admin.list_files("nope").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::TableNotFound);
    assert!(e.message.contains("nope"), "{e}");

    admin.create_table(&table("t", &["f"]), &[]).await.unwrap();
    admin.disable_table("t").await.unwrap();
    let e = admin.list_files("t").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::TableDisabled);
    server.stop().unwrap();
}

fn now_ms() -> i64 {
    let elapsed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i64::try_from(elapsed.as_millis()).unwrap()
}
