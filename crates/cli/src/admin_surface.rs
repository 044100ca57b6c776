//! One admin surface, enumerated (ARCHITECTURE.md, "Adding an admin operation"): every rpc of
//! the gRPC `Admin` service (`crates/proto/proto/strata.proto`, implemented once by
//! `ClusterAdmin`) and what each front end maps it to — HBase RPC's `MasterService` methods,
//! the Rust client's `Admin` methods, the shell's commands, the Thrift1 gateway's methods — or
//! why a front end has none.
//!
//! The test reads the rpcs from the proto file, so a new rpc without a row here fails it; and
//! it checks every claimed mapping: the client's methods by naming them (this file does not
//! compile without them), the shell's commands in its command table, and the HBase RPC and
//! Thrift1 methods by calling each on a running cluster of one and seeing that the dispatcher
//! knows it (the calls carry no arguments, so each is refused before it changes anything).

/// What one front end maps an rpc to.
#[derive(Debug)]
enum Front {
    /// These methods or commands.
    To(&'static [&'static str]),
    /// None, for this reason.
    Without(&'static str),
}

/// One rpc of the gRPC `Admin` service and its mappings.
#[derive(Debug)]
struct Mapping {
    /// The rpc, as the proto file names it.
    rpc: &'static str,
    /// HBase RPC `MasterService` methods.
    hbase: Front,
    /// `strata_client::Admin` methods.
    client: Front,
    /// Shell commands.
    shell: Front,
    /// Thrift1 (`Hbase.thrift` of HBase 2.6) methods.
    thrift: Front,
}

/// `strata_client::Admin` methods, each checked to exist when this file compiles.
macro_rules! client {
    ($($method:ident),+) => {{
        $(const _: () = {
            let _ = strata_client::Admin::$method;
        };)+
        Front::To(&[$(stringify!($method)),+])
    }};
}

use Front::{To, Without as No};

const NO_THRIFT: &str = "Hbase.thrift (Thrift1, HBase 2.6) has no such call";

/// Every rpc of the gRPC `Admin` service. Add a row with a new rpc.
const SURFACE: &[Mapping] = &[
    Mapping {
        rpc: "CreateTable",
        hbase: To(&["CreateTable"]),
        client: client!(create_table),
        shell: To(&["create"]),
        thrift: To(&["createTable"]),
    },
    Mapping {
        rpc: "AlterTable",
        hbase: To(&["ModifyTable", "AddColumn", "ModifyColumn", "DeleteColumn"]),
        client: client!(alter_table, alter_table_async),
        shell: To(&["alter", "alter_async"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "DisableTable",
        hbase: To(&["DisableTable"]),
        client: client!(disable_table),
        shell: To(&["disable"]),
        thrift: To(&["disableTable"]),
    },
    Mapping {
        rpc: "EnableTable",
        hbase: To(&["EnableTable"]),
        client: client!(enable_table),
        shell: To(&["enable"]),
        thrift: To(&["enableTable"]),
    },
    Mapping {
        rpc: "TruncateTable",
        hbase: To(&["TruncateTable", "truncateTable"]),
        client: client!(truncate_table),
        shell: To(&["truncate", "truncate_preserve"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "DeleteTable",
        hbase: To(&["DeleteTable"]),
        client: client!(delete_table),
        shell: To(&["drop"]),
        thrift: To(&["deleteTable"]),
    },
    Mapping {
        rpc: "ListTables",
        hbase: To(&["GetTableDescriptors", "GetTableNames"]),
        client: client!(list_tables),
        shell: To(&["list"]),
        thrift: To(&["getTableNames", "getTableNamesWithIsTableEnabled"]),
    },
    Mapping {
        rpc: "DescribeTable",
        hbase: To(&["GetTableDescriptors", "GetTableState"]),
        client: client!(describe_table, table_exists),
        shell: To(&["describe", "exists", "is_enabled", "is_disabled"]),
        thrift: To(&["getColumnDescriptors", "isTableEnabled"]),
    },
    Mapping {
        rpc: "Flush",
        hbase: To(&["ExecProcedure"]),
        client: client!(flush),
        shell: To(&["flush"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Compact",
        hbase: No("HBase's client compacts through AdminService (CompactRegion), a region server call answered by the region server itself, not through the master"),
        client: client!(compact),
        shell: To(&["compact", "major_compact"]),
        thrift: To(&["compact", "majorCompact"]),
    },
    Mapping {
        rpc: "Split",
        hbase: To(&["SplitRegion"]),
        client: client!(split),
        shell: To(&["split"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Merge",
        hbase: To(&["MergeTableRegions"]),
        client: client!(merge),
        shell: To(&["merge_region"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Locate",
        hbase: No("HBase's client locates regions by reading hbase:meta and the registry (ClientService and ClientMetaService), and asks each region's compaction state of its server (AdminService GetRegionInfo), not the master"),
        client: client!(regions, regions_with_load, compaction_state),
        shell: To(&["list_regions", "get_splits", "locate_region", "compaction_state"]),
        thrift: To(&["getTableRegions", "getRegionInfo"]),
    },
    Mapping {
        rpc: "Status",
        hbase: To(&[
            "GetClusterStatus",
            "getLastMajorCompactionTimestamp",
            "getLastMajorCompactionTimestampForRegion",
        ]),
        client: client!(status),
        shell: To(&["status"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ListFiles",
        hbase: No("HBase has no call listing a table's store files"),
        client: client!(list_files),
        shell: To(&["files"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "CreateNamespace",
        hbase: To(&["CreateNamespace"]),
        client: client!(create_namespace),
        shell: To(&["create_namespace"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ModifyNamespace",
        hbase: To(&["ModifyNamespace"]),
        client: client!(modify_namespace),
        shell: To(&["alter_namespace"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "DeleteNamespace",
        hbase: To(&["DeleteNamespace"]),
        client: client!(delete_namespace),
        shell: To(&["drop_namespace"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "GetNamespace",
        hbase: To(&[
            "GetNamespaceDescriptor",
            "ListTableDescriptorsByNamespace",
            "ListTableNamesByNamespace",
        ]),
        client: client!(get_namespace),
        shell: To(&["describe_namespace", "list_namespace_tables"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ListNamespaces",
        hbase: To(&["ListNamespaceDescriptors", "ListNamespaces"]),
        client: client!(list_namespaces),
        shell: To(&["list_namespace"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Snapshot",
        hbase: To(&["Snapshot", "IsSnapshotDone"]),
        client: client!(snapshot),
        shell: To(&["snapshot"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ListSnapshots",
        hbase: To(&["GetCompletedSnapshots"]),
        client: client!(list_snapshots, list_table_snapshots),
        shell: To(&["list_snapshots", "list_table_snapshots"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "DeleteSnapshot",
        hbase: To(&["DeleteSnapshot"]),
        client: client!(delete_snapshot),
        shell: To(&["delete_snapshot"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "CloneSnapshot",
        hbase: To(&["RestoreSnapshot"]),
        client: client!(clone_snapshot),
        shell: To(&["clone_snapshot"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ImportSnapshot",
        hbase: No("HBase has no such call: its ExportSnapshot tool copies into the target's snapshot directory, which HBase reads as its list"),
        client: client!(import_snapshot),
        shell: No("`strata snapshot import` (and `export`), commands of the binary as HBase's ExportSnapshot is a tool"),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "RestoreSnapshot",
        hbase: To(&["RestoreSnapshot", "IsRestoreSnapshotDone"]),
        client: client!(restore_snapshot),
        shell: To(&["restore_snapshot"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "UpdateConfiguration",
        hbase: No("HBase's client reloads a server's configuration through AdminService (UpdateConfiguration), a call the server it reaches answers for itself, not through the master"),
        client: client!(update_configuration, update_all_configuration),
        shell: To(&["update_config", "update_all_config"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ClearBlockCache",
        hbase: No("HBase's client clears a table's blocks through AdminService (ClearRegionBlockCache) on each server hosting its regions, answered by that server, not through the master"),
        client: client!(clear_block_cache),
        shell: To(&["clear_block_cache"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ListProcedures",
        hbase: No("HBase's GetProcedures answers with each procedure's serialized Java state, which Strata's procedures do not have; not answered"),
        client: client!(list_procedures),
        shell: To(&["list_procedures", "processlist"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "AlterStatus",
        hbase: No("HBase's client follows an alteration through its procedure (GetProcedureResult), not GetSchemaAlterStatus, which Strata does not answer"),
        client: client!(alter_status),
        shell: To(&["alter_status"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Grant",
        hbase: To(&["Grant"]),
        client: client!(grant),
        shell: To(&["grant"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Revoke",
        hbase: To(&["Revoke"]),
        client: client!(revoke),
        shell: To(&["revoke"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "GetUserPermissions",
        hbase: To(&["GetUserPermissions"]),
        client: client!(user_permissions),
        shell: To(&["user_permission"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "WhoAmI",
        hbase: No("HBase's client knows its own user (User.getCurrent); no RPC asks the server"),
        client: client!(who_am_i),
        shell: To(&["whoami"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "SetQuota",
        hbase: To(&["SetQuota"]),
        client: client!(set_throttle, remove_throttle),
        shell: To(&["set_quota"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ListQuotas",
        hbase: No("HBase's Admin.getQuota scans the hbase:quota table, which Strata does not \
                   serve; quotas are listed by the shell and the Rust client (RFC 0029)"),
        client: client!(list_quotas),
        shell: To(&["list_quotas"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "SetSwitch",
        hbase: To(&["SetSplitOrMergeEnabled", "SetBalancerRunning", "SwitchRpcThrottle"]),
        client: client!(set_switch),
        shell: To(&[
            "splitormerge_switch",
            "balance_switch",
            "enable_rpc_throttle",
            "disable_rpc_throttle",
        ]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "GetSwitch",
        hbase: To(&[
            "IsSplitOrMergeEnabled",
            "IsBalancerEnabled",
            "IsRpcThrottleEnabled",
        ]),
        client: client!(switch_enabled),
        shell: To(&["splitormerge_enabled", "balancer_enabled"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "MoveRegion",
        hbase: To(&["MoveRegion"]),
        client: client!(move_region),
        shell: To(&["move"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "AssignRegion",
        hbase: To(&["AssignRegion"]),
        client: client!(assign),
        shell: To(&["assign"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "UnassignRegion",
        hbase: To(&["UnassignRegion"]),
        client: client!(unassign),
        shell: To(&["unassign"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Balance",
        hbase: To(&["Balance"]),
        client: client!(balance),
        shell: To(&["balancer"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Decommission",
        hbase: To(&["DecommissionRegionServers"]),
        client: client!(decommission),
        shell: To(&["decommission_regionservers"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "Recommission",
        hbase: To(&["RecommissionRegionServer"]),
        client: client!(recommission),
        shell: To(&["recommission_regionserver"]),
        thrift: No(NO_THRIFT),
    },
    Mapping {
        rpc: "ListDecommissioned",
        hbase: To(&["ListDecommissionedRegionServers"]),
        client: client!(decommissioned),
        shell: To(&["list_decommissioned_regionservers"]),
        thrift: No(NO_THRIFT),
    },
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeSet;
    use std::net::SocketAddr;

    use bytes::Bytes;
    use prost::Message;
    use strata_gateway::protocol::{encode_message, read_header, Decoder, MessageKind, Struct};
    use strata_hbase_rpc::frame::{decode_reply, encode_request, read_frame};
    use strata_hbase_rpc::pb;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::{Front, SURFACE};

    /// The rpcs of `service Admin` in the proto file.
    fn admin_rpcs() -> BTreeSet<String> {
        let proto = include_str!("../../proto/proto/strata.proto");
        let start = proto.find("service Admin {").unwrap();
        let body = &proto[start..start + proto[start..].find("\n}").unwrap()];
        body.lines()
            .filter_map(|l| l.trim().strip_prefix("rpc "))
            .map(|rest| rest[..rest.find('(').unwrap()].trim().to_string())
            .collect()
    }

    fn claimed(front: impl Fn(&super::Mapping) -> &Front) -> BTreeSet<&'static str> {
        SURFACE
            .iter()
            .filter_map(|m| match front(m) {
                Front::To(names) => Some(*names),
                Front::Without(reason) => {
                    assert!(reason.len() > 10, "{}: a reason in words", m.rpc);
                    None
                }
            })
            .flatten()
            .copied()
            .collect()
    }

    #[test]
    fn every_rpc_has_a_row_and_no_row_is_stale() {
        let rpcs = admin_rpcs();
        assert!(rpcs.len() >= 20, "the proto's rpcs were read: {rpcs:?}");
        let rows: BTreeSet<String> = SURFACE.iter().map(|m| m.rpc.to_string()).collect();
        let missing: Vec<_> = rpcs.difference(&rows).collect();
        assert!(
            missing.is_empty(),
            "rpcs of the Admin service without a row in SURFACE: {missing:?}"
        );
        let stale: Vec<_> = rows.difference(&rpcs).collect();
        assert!(
            stale.is_empty(),
            "rows for rpcs that do not exist: {stale:?}"
        );
        assert_eq!(rows.len(), SURFACE.len(), "one row per rpc");
    }

    #[test]
    fn the_rust_client_maps_every_rpc() {
        // Its methods exist (the table names them as paths); every rpc has at least one.
        for m in SURFACE {
            assert!(
                matches!(m.client, Front::To(names) if !names.is_empty()),
                "{}: the Rust client has no method for it",
                m.rpc
            );
        }
        assert!(claimed(|m| &m.client).contains("create_namespace"));
    }

    #[test]
    fn shell_commands_are_in_the_command_table() {
        for name in claimed(|m| &m.shell) {
            let help = strata_shell::help::find(name);
            assert!(help.is_some_and(|h| h.name == name), "shell command {name}");
        }
    }

    /// Calls `method` of HBase RPC's `MasterService` with an empty message: the exception's
    /// message, if any.
    async fn hbase_call(addr: SocketAddr, method: &str) -> Option<String> {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let header = pb::ConnectionHeader {
            user_info: Some(pb::UserInformation {
                effective_user: "test".into(),
                real_user: None,
            }),
            service_name: Some("MasterService".into()),
            ..pb::ConnectionHeader::default()
        }
        .encode_to_vec();
        let mut hello = b"HBas\x00\x50".to_vec();
        hello.extend_from_slice(&u32::try_from(header.len()).unwrap().to_be_bytes());
        hello.extend_from_slice(&header);
        stream.write_all(&hello).await.unwrap();
        let empty = pb::IsMasterRunningRequest {};
        stream
            .write_all(&encode_request(1, method, &empty, &[]))
            .await
            .unwrap();
        let frame = read_frame(&mut stream, 1 << 30).await.unwrap().unwrap();
        let (header, _, _) = decode_reply(frame).unwrap();
        header.exception.and_then(|e| e.stack_trace)
    }

    /// Calls Thrift1 `method` without arguments over a framed connection: the reply's kind.
    async fn thrift_call(addr: SocketAddr, method: &str) -> MessageKind {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let message = encode_message(method, MessageKind::Call, 1, &Struct::new());
        let mut framed = u32::try_from(message.len()).unwrap().to_be_bytes().to_vec();
        framed.extend_from_slice(&message);
        stream.write_all(&framed).await.unwrap();
        let mut len = [0u8; 4];
        stream.read_exact(&mut len).await.unwrap();
        let mut reply = vec![0u8; u32::from_be_bytes(len) as usize];
        stream.read_exact(&mut reply).await.unwrap();
        let bytes = Bytes::from(reply);
        read_header(&mut Decoder::shared(&bytes, 1 << 20))
            .unwrap()
            .kind
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hbase_rpc_and_thrift_dispatchers_know_the_claimed_methods() {
        let dir = tempfile::tempdir().unwrap();
        let single = strata_testkit::Single::start(dir.path());
        let conn = strata_client::Connection::connect(&single.address())
            .await
            .unwrap();
        let gateway = strata_gateway::Gateway::start(
            strata_gateway::GatewayConfig::new("127.0.0.1:0".parse().unwrap()),
            conn,
        )
        .await
        .unwrap();

        let unknown = |m: &str| format!("method {m} of MasterService is not supported by Strata");
        let made_up = hbase_call(single.hbase_rpc(), "NoSuchMethod").await;
        assert!(
            made_up
                .as_deref()
                .is_some_and(|e| e.contains(&unknown("NoSuchMethod"))),
            "an unknown method is told apart: {made_up:?}"
        );
        for method in claimed(|m| &m.hbase) {
            let outcome = hbase_call(single.hbase_rpc(), method).await;
            assert!(
                !outcome
                    .as_deref()
                    .is_some_and(|e| e.contains(&unknown(method))),
                "HBase RPC MasterService does not dispatch {method}"
            );
        }

        assert_eq!(
            thrift_call(gateway.addr(), "noSuchMethod").await,
            MessageKind::Exception,
            "an unknown Thrift method is told apart"
        );
        for method in claimed(|m| &m.thrift) {
            assert_eq!(
                thrift_call(gateway.addr(), method).await,
                MessageKind::Reply,
                "the Thrift1 gateway does not dispatch {method}"
            );
        }
        assert!(
            single.region_server().hosted_regions().is_empty(),
            "the calls created nothing"
        );
        gateway.shutdown().await;
        single.stop().unwrap();
    }
}
