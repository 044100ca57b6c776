//! The compaction throughput limit changes at run time: a new limit reaches every open
//! region of every server built from the config, and regions opened afterwards start with it.

#![allow(clippy::unwrap_used)]

use strata_model::schema::TableDescriptor;
use strata_server::compaction_throughput::CompactionThroughput;
use strata_server::RegionServer;
use strata_storage::compaction::throughput::ThroughputConfig;
use strata_storage::manifest::RegionInfo;
use strata_testkit::fixtures;

fn table() -> TableDescriptor {
    fixtures::table("t", &["f"])
}

fn info(id: u64, start: &str, end: &str) -> RegionInfo {
    fixtures::region("t", id, start, end)
}

fn limit(server: &RegionServer, id: u64) -> ThroughputConfig {
    server
        .hosted(id)
        .unwrap()
        .region
        .compaction_options()
        .throughput
}

#[test]
fn a_new_limit_reaches_open_regions_and_regions_opened_later() {
    let dir = tempfile::tempdir().unwrap();
    let first = ThroughputConfig {
        lower_bytes_per_sec: 10 << 20,
        upper_bytes_per_sec: 20 << 20,
        enabled: true,
    };
    let mut config = fixtures::server_config(dir.path(), 64);
    config.compaction_throughput = CompactionThroughput::new(first);
    let live = config.compaction_throughput.clone();
    let server = RegionServer::open(config).unwrap();
    server.open_region(&table(), &info(1, "", "m")).unwrap();
    assert_eq!(limit(&server, 1), first);

    let second = ThroughputConfig {
        lower_bytes_per_sec: 1 << 20,
        upper_bytes_per_sec: 2 << 20,
        enabled: true,
    };
    live.set(second);
    assert_eq!(live.get(), second);
    assert_eq!(limit(&server, 1), second);
    server.open_region(&table(), &info(2, "m", "")).unwrap();
    assert_eq!(limit(&server, 2), second);

    let off = ThroughputConfig {
        enabled: false,
        ..second
    };
    live.set(off);
    assert_eq!(limit(&server, 1), off);
    assert_eq!(limit(&server, 2), off);
    server.shutdown().unwrap();
}
