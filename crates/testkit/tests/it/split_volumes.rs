//! A split parent whose files sit on another local volume than the data directory (a family
//! with `STORAGE_POLICY => 'ALL_SSD'` and an SSD `--volume`) is deleted there too, once no
//! daughter reads its files.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{b, key, table};
use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_model::schema::{StoragePolicy, TableName};
use strata_server::ServerConfig;
use strata_storage::tiers::{StorageType, Volume};
use strata_testkit::Single;

fn region_dirs(table_dir: &Path) -> Vec<String> {
    match std::fs::read_dir(table_dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_parent_on_another_volume_is_deleted_once_no_daughter_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let ssd = dir.path().join("ssd");
    let mut config = crate::support::config(&dir.path().join("data"));
    config.server.volumes = vec![Volume {
        kind: StorageType::Ssd,
        path: ssd.clone(),
    }];
    let server = Single::start_with(config).unwrap();
    let conn = Connection::connect(&server.address()).await.unwrap();
    let admin = conn.admin();
    let mut desc = table("v", &["f"]);
    desc.families[0].storage_policy = StoragePolicy::AllSsd;
    admin.create_table(&desc, &[]).await.unwrap();
    let t = conn.table("v").unwrap();
    for i in 0..100 {
        t.put(&Put::new(key(i)).add(b("f"), b("q"), b("v")))
            .await
            .unwrap();
    }
    admin.flush("v").await.unwrap();
    let table_dir =
        ServerConfig::new(ssd.clone(), String::new()).table_dir(&TableName::parse("v").unwrap());
    let before = region_dirs(&table_dir);
    assert_eq!(before.len(), 1, "{before:?}");
    let parent = table_dir.join(&before[0]);

    admin.split("v", Some(key(50))).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while parent.exists() {
        assert!(
            Instant::now() < deadline,
            "{} still exists 90 s after the split; on the volume: {:?}",
            parent.display(),
            region_dirs(&table_dir)
        );
        // Rewrites the daughters' references into files of their own.
        admin.compact("v", None, true).await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(region_dirs(&table_dir).len(), 2, "the daughters stay");
    for i in 0..100 {
        assert_eq!(t.get(&Get::new(key(i))).await.unwrap().len(), 1, "row {i}");
    }
    server.stop().unwrap();
}
