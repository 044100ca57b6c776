//! The HBase RPC listener's region administration over real sockets, as a raw client:
//! merging regions named by encoded name, region loads and name patterns, and clearing a
//! region's cached blocks, the regions open on a server; and a raw scan's typed delete
//! markers.
#![allow(missing_docs, clippy::unwrap_used)]

mod wire_support;

use bytes::Bytes;
use strata_hbase_rpc::region_name::region_name;
use strata_hbase_rpc::{pb, HBaseRpcConfig};
use strata_model::cell::CellType;

use wire_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_table_regions_by_encoded_name() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    let mut master = Conn::open(addr, "MasterService", None).await;
    let _: pb::ProcedureResponse = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: pb::TableSchema {
                    table_name: Some(table("mt")),
                    column_families: vec![pb::ColumnFamilySchema {
                        name: Bytes::from_static(b"f"),
                        ..pb::ColumnFamilySchema::default()
                    }],
                    ..pb::TableSchema::default()
                },
                split_keys: vec![Bytes::from_static(b"g"), Bytes::from_static(b"p")],
                nonce_group: None,
                nonce: None,
            },
        )
        .await;
    let regions = serving(&c, "mt");
    assert_eq!(regions.len(), 3);
    // What `Admin.mergeRegionsAsync` sends: the regions' encoded names.
    let encoded = |(start, id): &(Bytes, u64)| {
        let name = region_name("mt", start, *id);
        let text = std::str::from_utf8(&name).unwrap();
        let enc = text.trim_end_matches('.').rsplit('.').next().unwrap();
        pb::RegionSpecifier {
            r#type: 2,
            value: Bytes::copy_from_slice(enc.as_bytes()),
        }
    };
    let merge =
        |specs: Vec<pb::RegionSpecifier>, forcible: Option<bool>| pb::MergeTableRegionsRequest {
            region: specs,
            forcible,
            nonce_group: None,
            nonce: None,
        };
    // Refused, nothing changed: one region, regions not adjacent, forcible, unknown.
    for (req, want) in [
        (merge(vec![encoded(&regions[0])], None), "two regions"),
        (
            merge(vec![encoded(&regions[0]), encoded(&regions[2])], None),
            "adjacent",
        ),
        (
            merge(vec![encoded(&regions[0]), encoded(&regions[1])], Some(true)),
            "forcible",
        ),
        (
            merge(
                vec![
                    encoded(&regions[0]),
                    pb::RegionSpecifier {
                        r#type: 2,
                        value: Bytes::from_static(b"0123456789abcdef0123456789abcdef"),
                    },
                ],
                None,
            ),
            "no region",
        ),
    ] {
        let (header, _, _) = master.call_with("MergeTableRegions", &req, &[]).await;
        let e = format!("{:?}", header.exception.expect("an exception"));
        assert!(e.contains(want), "{e}");
    }
    assert_eq!(serving(&c, "mt"), regions);
    // The upper two, by encoded name, then the rest by full name.
    let _: pb::ProcedureResponse = master
        .call(
            "MergeTableRegions",
            &merge(vec![encoded(&regions[2]), encoded(&regions[1])], None),
        )
        .await;
    let two = serving(&c, "mt");
    assert_eq!(two.len(), 2, "{two:?}");
    assert_eq!(two[1].0, Bytes::from_static(b"g"));
    let by_name = |(start, id): &(Bytes, u64)| region("mt", start, *id);
    let _: pb::ProcedureResponse = master
        .call(
            "MergeTableRegions",
            &merge(vec![by_name(&two[0]), by_name(&two[1])], None),
        )
        .await;
    assert_eq!(serving(&c, "mt").len(), 1);
    c.stop().await;
}

/// `Scan.setRaw(true)` (the `_raw_` attribute): the delete marker comes back before the put it
/// masks, typed with HBase's code, as `RawScanQueryMatcher` returns them; the same scan without
/// the attribute sees nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_scans_return_typed_delete_markers() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "t").await;
    let id = only_region(addr, "t").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    let delete = pb::MutationProto {
        row: Some(Bytes::from_static(b"r")),
        mutate_type: Some(pb::mutation_proto::MutationType::Delete as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                timestamp: Some(5),
                delete_type: Some(pb::mutation_proto::DeleteType::DeleteOneVersion as i32),
                ..Default::default()
            }],
        }],
        ..pb::MutationProto::default()
    };
    for m in [put("r", "v"), delete] {
        let _: pb::MutateResponse = client
            .call(
                "Mutate",
                &pb::MutateRequest {
                    region: region("t", b"", id),
                    mutation: m,
                    condition: None,
                    nonce_group: None,
                },
            )
            .await;
    }
    let cells = |responses: Vec<pb::ScanResponse>| -> Vec<(i32, u64)> {
        responses
            .iter()
            .flat_map(|r| &r.results)
            .flat_map(|r| &r.cell)
            .map(|c| (c.cell_type.unwrap(), c.timestamp.unwrap()))
            .collect()
    };
    let raw = pb::Scan {
        attribute: vec![pb::NameBytesPair {
            name: "_raw_".into(),
            value: Some(Bytes::from_static(&[0xFF])),
        }],
        ..pb::Scan::default()
    };
    let got = cells(scan_all(&mut client, id, raw, 100).await);
    assert_eq!(
        got,
        [
            (i32::from(CellType::Delete.code()), 5),
            (i32::from(CellType::Put.code()), 5)
        ]
    );
    assert!(cells(scan_all(&mut client, id, pb::Scan::default(), 100).await).is_empty());
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn region_loads_name_patterns_and_disabled_tables() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "rl_one").await;
    create_table(addr, "rl_two").await;
    // Three writes and two reads of rl_one's region: its request counts.
    let id = only_region(addr, "rl_one").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    for row in ["a", "b", "c"] {
        let _: pb::MutateResponse = client
            .call(
                "Mutate",
                &pb::MutateRequest {
                    region: region("rl_one", b"", id),
                    mutation: put(row, "v"),
                    condition: None,
                    nonce_group: None,
                },
            )
            .await;
    }
    for row in ["a", "z"] {
        let _: pb::GetResponse = client.call("Get", &get("rl_one", id, row)).await;
    }

    // GetRegionLoad: the regions open here, of one table or of all.
    let mut admin = Conn::open(addr, "AdminService", None).await;
    let one: pb::GetRegionLoadResponse = admin
        .call(
            "GetRegionLoad",
            &pb::GetRegionLoadRequest {
                table_name: Some(table("rl_one")),
            },
        )
        .await;
    assert_eq!(one.region_loads.len(), 1);
    let load = &one.region_loads[0];
    assert!(load.region_specifier.value.starts_with(b"rl_one,"));
    assert_eq!((load.stores, load.storefiles), (Some(1), Some(0)));
    assert_eq!(
        (load.read_requests_count, load.write_requests_count),
        (Some(2), Some(3))
    );
    // No file a major compaction wrote: HBase's 0.
    assert_eq!(load.last_major_compaction_ts, Some(0));
    let all: pb::GetRegionLoadResponse = admin
        .call(
            "GetRegionLoad",
            &pb::GetRegionLoadRequest { table_name: None },
        )
        .await;
    assert_eq!(all.region_loads.len(), 2);

    // GetTableNames with a pattern: whole names, also as `default:t`; a pattern the regex
    // crate cannot read is refused.
    let mut master = Conn::open(addr, "MasterService", None).await;
    let names = |regex: &str| pb::GetTableNamesRequest {
        regex: Some(regex.into()),
        include_sys_tables: None,
        namespace: None,
    };
    let got: pb::GetTableNamesResponse = master.call("GetTableNames", &names("rl_t.*")).await;
    assert_eq!(got.table_names, vec![table("rl_two")]);
    let got: pb::GetTableNamesResponse = master
        .call("GetTableNames", &names("default:rl_(one|two)"))
        .await;
    assert_eq!(got.table_names.len(), 2);
    let got: pb::GetTableNamesResponse = master.call("GetTableNames", &names("one")).await;
    assert!(got.table_names.is_empty());
    assert_eq!(
        master
            .exception("GetTableNames", &names("(r)\\1"), &[])
            .await,
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );

    // A disabled table's region stays in meta with a server, CLOSED; a request to it is
    // NotServingRegionException (the client then finds the table disabled).
    let id = only_region(addr, "rl_one").await;
    let _: pb::ProcedureResponse = master
        .call(
            "DisableTable",
            &pb::TableNameRequest {
                table_name: table("rl_one"),
                ..pb::TableNameRequest::default()
            },
        )
        .await;
    assert_eq!(only_region(addr, "rl_one").await, id);
    let mut client = Conn::open(addr, "ClientService", None).await;
    let get = pb::GetRequest {
        region: region("rl_one", b"", id),
        get: pb::Get {
            row: Bytes::from_static(b"r"),
            ..pb::Get::default()
        },
    };
    assert_eq!(
        client.exception("Get", &get, &[]).await,
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    c.stop().await;
}

/// `ClearRegionBlockCache` (what `Admin.clearBlockCache(table)` sends each server): the named
/// regions' cached blocks leave the block cache and are counted; a region not open here is an
/// exception in the answer, not a failed call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_region_block_cache_counts_what_left_the_cache() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "bc").await;
    let id = only_region(addr, "bc").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    for i in 0..50 {
        let _: pb::MutateResponse = client
            .call(
                "Mutate",
                &pb::MutateRequest {
                    region: region("bc", b"", id),
                    mutation: put(&format!("r{i:02}"), &"v".repeat(200)),
                    condition: None,
                    nonce_group: None,
                },
            )
            .await;
    }
    let mut admin = Conn::open(addr, "AdminService", None).await;
    let _: pb::FlushRegionResponse = admin
        .call(
            "FlushRegion",
            &pb::FlushRegionRequest {
                region: region("bc", b"", id),
                if_older_than_ts: None,
                write_flush_wal_marker: None,
            },
        )
        .await;
    let got: pb::GetResponse = client.call("Get", &get("bc", id, "r07")).await;
    assert!(got.result.is_some());
    let cache = c.single.region_server().block_cache().unwrap().clone();
    let before = cache.stats();

    let clear =
        |regions: Vec<pb::RegionSpecifier>| pb::ClearRegionBlockCacheRequest { region: regions };
    let answer: pb::ClearRegionBlockCacheResponse = admin
        .call(
            "ClearRegionBlockCache",
            &clear(vec![region("bc", b"", id), region("bc", b"", id + 1000)]),
        )
        .await;
    let stats = answer.stats;
    let blocks = u64::try_from(stats.evicted_blocks.unwrap()).unwrap();
    assert!(blocks >= 1, "{stats:?}");
    assert!(stats.bytes_evicted.unwrap() > 0, "{stats:?}");
    assert_eq!(
        u64::try_from(stats.max_cache_size.unwrap()).unwrap(),
        before.capacity
    );
    assert_eq!(cache.stats().entries, before.entries - blocks);
    assert_eq!(stats.exception.len(), 1, "{stats:?}");
    assert_eq!(stats.exception[0].region, region("bc", b"", id + 1000));
    assert_eq!(
        stats.exception[0].exception.name,
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    // Nothing cached since: nothing left to evict.
    let again: pb::ClearRegionBlockCacheResponse = admin
        .call("ClearRegionBlockCache", &clear(vec![region("bc", b"", id)]))
        .await;
    assert_eq!(again.stats.evicted_blocks, Some(0));
    c.stop().await;
}

/// `GetRegionInfo` (what `Admin.getCompactionState(table)` sends for each region): the region's
/// info, and with `compaction_state` the compactions running in it — `MAJOR` while a major
/// compaction (slowed by the compaction throughput limit) runs, `NONE` once it ended; meta's
/// info, never splittable; a region not open here is `NotServingRegionException`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn region_info_and_the_compactions_running() {
    use pb::get_region_info_response::CompactionState;
    use strata_storage::compaction::throughput::ThroughputConfig;
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "ri").await;
    let id = only_region(addr, "ri").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    let mut admin = Conn::open(addr, "AdminService", None).await;
    // Four flushed files of 300 rows with 1 KB values that do not compress.
    let mut seed = 7u64;
    for file in 0..4 {
        for i in 0..300 {
            let value: String = (0..1024)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    char::from(b'a' + (seed >> 59) as u8 % 26)
                })
                .collect();
            let _: pb::MutateResponse = client
                .call(
                    "Mutate",
                    &pb::MutateRequest {
                        region: region("ri", b"", id),
                        mutation: put(&format!("r{file}-{i:03}"), &value),
                        condition: None,
                        nonce_group: None,
                    },
                )
                .await;
        }
        let _: pb::FlushRegionResponse = admin
            .call(
                "FlushRegion",
                &pb::FlushRegionRequest {
                    region: region("ri", b"", id),
                    if_older_than_ts: None,
                    write_flush_wal_marker: None,
                },
            )
            .await;
    }
    let ask = |spec: pb::RegionSpecifier| pb::GetRegionInfoRequest {
        region: spec,
        compaction_state: Some(true),
        best_split_row: None,
    };
    let idle: pb::GetRegionInfoResponse = admin
        .call("GetRegionInfo", &ask(region("ri", b"", id)))
        .await;
    assert_eq!(idle.region_info.region_id, id);
    assert_eq!(idle.region_info.table_name.qualifier.as_ref(), b"ri");
    assert_eq!(idle.region_info.start_key.as_deref(), Some(&b""[..]));
    assert_eq!(idle.compaction_state, Some(CompactionState::None as i32));
    assert_eq!((idle.splittable, idle.mergeable), (Some(true), Some(true)));
    assert_eq!(idle.best_split_row, None);

    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    // A major compaction of ~1.2 MB at 200 KB/s runs for seconds: it is seen running.
    let server = c.single.region_server().clone();
    server.config().compaction_throughput.set(ThroughputConfig {
        lower_bytes_per_sec: 200 << 10,
        upper_bytes_per_sec: 200 << 10,
        enabled: true,
    });
    let compacting = std::thread::spawn(move || server.compact_region(id, None, true));
    let started = std::time::Instant::now();
    let mut seen = None;
    while seen.is_none() && started.elapsed() < std::time::Duration::from_secs(20) {
        let r: pb::GetRegionInfoResponse = admin
            .call("GetRegionInfo", &ask(region("ri", b"", id)))
            .await;
        if r.compaction_state != Some(CompactionState::None as i32) {
            seen = r.compaction_state;
        }
        if compacting.is_finished() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        seen,
        Some(CompactionState::Major as i32),
        "no major compaction seen running"
    );
    compacting.join().unwrap().unwrap();
    let after: pb::GetRegionInfoResponse = admin
        .call("GetRegionInfo", &ask(region("ri", b"", id)))
        .await;
    assert_eq!(after.compaction_state, Some(CompactionState::None as i32));
    // `RegionMetrics.getLastMajorCompactionTimestamp`: when the compaction wrote its file.
    let major = last_major_compaction(&mut admin, "ri").await.unwrap();
    assert!(major >= before.saturating_sub(1_000), "{major} vs {before}");
    // The master's `getLastMajorCompactionTimestamp(table)` and `…ForRegion`: the same value
    // (one region); 0 for a table or region that does not exist, as HBase answers.
    let mut master = Conn::open(addr, "MasterService", None).await;
    for (t, want) in [("ri", major), ("no_such_table", 0)] {
        let of_table: pb::MajorCompactionTimestampResponse = master
            .call(
                "getLastMajorCompactionTimestamp",
                &pb::MajorCompactionTimestampRequest {
                    table_name: table(t),
                },
            )
            .await;
        assert_eq!(of_table.compaction_timestamp, want as i64, "{t}");
    }
    for (spec, want) in [
        (region("ri", b"", id), major),
        (region("ri", b"", id + 1), 0),
    ] {
        let of_region: pb::MajorCompactionTimestampResponse = master
            .call(
                "getLastMajorCompactionTimestampForRegion",
                &pb::MajorCompactionTimestampForRegionRequest { region: spec },
            )
            .await;
        assert_eq!(of_region.compaction_timestamp, want as i64);
    }

    // Without `compaction_state`, none is reported; meta is never split or merged.
    let meta: pb::GetRegionInfoResponse = admin
        .call(
            "GetRegionInfo",
            &pb::GetRegionInfoRequest {
                region: pb::RegionSpecifier {
                    r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                    value: Bytes::from_static(strata_hbase_rpc::region_name::META_REGION_NAME),
                },
                compaction_state: None,
                best_split_row: None,
            },
        )
        .await;
    assert_eq!(meta.compaction_state, None);
    assert_eq!(
        (meta.splittable, meta.mergeable),
        (Some(false), Some(false))
    );
    let gone = admin
        .exception("GetRegionInfo", &ask(region("ri", b"", id + 1000)), &[])
        .await;
    assert_eq!(gone, "org.apache.hadoop.hbase.NotServingRegionException");
    c.stop().await;
}

/// `Admin.getRegions(server)` (`GetOnlineRegion`): the user regions open here, by table and
/// start row; `GetServerInfo` names this server; the master is never in maintenance mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_regions_server_info_and_maintenance_mode() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    let mut admin = Conn::open(addr, "AdminService", None).await;
    let none: pb::GetOnlineRegionResponse = admin
        .call("GetOnlineRegion", &pb::GetOnlineRegionRequest {})
        .await;
    assert!(none.region_info.is_empty(), "{none:?}");
    create_table(addr, "zz").await;
    create_table(addr, "aa").await;
    let (aa, zz) = (only_region(addr, "aa").await, only_region(addr, "zz").await);
    let online: pb::GetOnlineRegionResponse = admin
        .call("GetOnlineRegion", &pb::GetOnlineRegionRequest {})
        .await;
    let listed: Vec<(Bytes, u64)> = online
        .region_info
        .iter()
        .map(|r| (r.table_name.qualifier.clone(), r.region_id))
        .collect();
    assert_eq!(
        listed,
        vec![
            (Bytes::from_static(b"aa"), aa),
            (Bytes::from_static(b"zz"), zz)
        ]
    );

    let info: pb::GetServerInfoResponse = admin
        .call("GetServerInfo", &pb::GetServerInfoRequest {})
        .await;
    assert_eq!(
        info.server_info.server_name.port,
        Some(u32::from(addr.port()))
    );
    assert_eq!(info.server_info.webui_port, None);

    let mut master = Conn::open(addr, "MasterService", None).await;
    let mode: pb::IsInMaintenanceModeResponse = master
        .call(
            "IsMasterInMaintenanceMode",
            &pb::IsInMaintenanceModeRequest {},
        )
        .await;
    assert!(!mode.in_maintenance_mode);
    c.stop().await;
}

/// `RegionMetrics.getLastMajorCompactionTimestamp` of a one-region table.
async fn last_major_compaction(admin: &mut Conn, name: &str) -> Option<u64> {
    let r: pb::GetRegionLoadResponse = admin
        .call(
            "GetRegionLoad",
            &pb::GetRegionLoadRequest {
                table_name: Some(table(name)),
            },
        )
        .await;
    r.region_loads[0].last_major_compaction_ts
}
