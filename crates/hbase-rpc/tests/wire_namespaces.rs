//! Namespaces over HBase RPC's `MasterService` as a raw client, on a cluster of one: a
//! descriptor's configuration round-trips through create, get, list and modify, and each
//! refusal carries HBase's exception class.
#![allow(missing_docs, clippy::unwrap_used)]

use std::net::SocketAddr;

use bytes::Bytes;
use prost::Message;
use strata_hbase_rpc::frame::{decode_reply, encode_request, read_frame};
use strata_hbase_rpc::pb;
use strata_testkit::Single;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

struct Master {
    stream: TcpStream,
    next_id: u32,
}

impl Master {
    async fn open(addr: SocketAddr) -> Master {
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
        hello.extend_from_slice(&(header.len() as u32).to_be_bytes());
        hello.extend_from_slice(&header);
        stream.write_all(&hello).await.unwrap();
        Master { stream, next_id: 1 }
    }

    /// The reply's message, or the exception's class and message.
    async fn call(
        &mut self,
        method: &str,
        param: &impl Message,
    ) -> Result<Bytes, (String, String)> {
        let id = self.next_id;
        self.next_id += 1;
        self.stream
            .write_all(&encode_request(id, method, param, &[]))
            .await
            .unwrap();
        let frame = read_frame(&mut self.stream, 1 << 30)
            .await
            .unwrap()
            .unwrap();
        let (header, message, _) = decode_reply(frame).unwrap();
        match header.exception {
            None => Ok(message),
            Some(e) => Err((
                e.exception_class_name.unwrap_or_default(),
                e.stack_trace.unwrap_or_default(),
            )),
        }
    }

    async fn class(&mut self, method: &str, param: &impl Message) -> String {
        match self.call(method, param).await {
            Ok(_) => panic!("{method}: no exception"),
            Err((class, _)) => class,
        }
    }
}

fn descriptor(name: &str, config: &[(&str, &str)]) -> pb::NamespaceDescriptorRequest {
    pb::NamespaceDescriptorRequest {
        namespace_descriptor: pb::NamespaceDescriptor {
            name: Bytes::copy_from_slice(name.as_bytes()),
            configuration: config
                .iter()
                .map(|(k, v)| pb::NameStringPair {
                    name: (*k).into(),
                    value: (*v).into(),
                })
                .collect(),
        },
        nonce_group: None,
        nonce: None,
    }
}

fn name(ns: &str) -> pb::NamespaceNameRequest {
    pb::NamespaceNameRequest {
        namespace_name: ns.into(),
    }
}

fn create_table(ns: &str, qualifier: &str, splits: &[&str]) -> pb::CreateTableRequest {
    pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(pb::TableName {
                namespace: Bytes::copy_from_slice(ns.as_bytes()),
                qualifier: Bytes::copy_from_slice(qualifier.as_bytes()),
            }),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..pb::ColumnFamilySchema::default()
            }],
            ..pb::TableSchema::default()
        },
        split_keys: splits
            .iter()
            .map(|s| Bytes::copy_from_slice(s.as_bytes()))
            .collect(),
        nonce_group: None,
        nonce: None,
    }
}

fn config_of(d: &pb::NamespaceDescriptor) -> Vec<(String, String)> {
    let mut c: Vec<_> = d
        .configuration
        .iter()
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect();
    c.sort();
    c
}

const NOT_FOUND: &str = "org.apache.hadoop.hbase.NamespaceNotFoundException";
const EXISTS: &str = "org.apache.hadoop.hbase.NamespaceExistException";
const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";
const QUOTA: &str = "org.apache.hadoop.hbase.quotas.QuotaExceededException";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespaces_over_master_service() {
    let dir = tempfile::tempdir().unwrap();
    let single = Single::start(dir.path());
    let mut m = Master::open(single.hbase_rpc()).await;

    assert_eq!(
        m.class("CreateTable", &create_table("ns", "t", &[])).await,
        NOT_FOUND
    );
    let owner = [("owner", "ann"), ("hbase.namespace.quota.maxtables", "1")];
    m.call("CreateNamespace", &descriptor("ns", &owner))
        .await
        .unwrap();
    assert_eq!(
        m.class("CreateNamespace", &descriptor("ns", &[])).await,
        EXISTS
    );
    let got = pb::GetNamespaceDescriptorResponse::decode(
        m.call("GetNamespaceDescriptor", &name("ns")).await.unwrap(),
    )
    .unwrap();
    assert_eq!(got.namespace_descriptor.name.as_ref(), b"ns");
    assert_eq!(
        config_of(&got.namespace_descriptor),
        [
            (
                "hbase.namespace.quota.maxtables".to_string(),
                "1".to_string()
            ),
            ("owner".to_string(), "ann".to_string())
        ]
    );
    let listed = pb::ListNamespaceDescriptorsResponse::decode(
        m.call("ListNamespaceDescriptors", &pb::IsMasterRunningRequest {})
            .await
            .unwrap(),
    )
    .unwrap();
    let names: Vec<_> = listed
        .namespace_descriptor
        .iter()
        .map(|d| String::from_utf8_lossy(&d.name).into_owned())
        .collect();
    assert_eq!(names, ["default", "hbase", "ns"]);
    assert_eq!(
        config_of(&listed.namespace_descriptor[2]),
        config_of(&got.namespace_descriptor)
    );
    let plain = pb::ListNamespacesResponse::decode(
        m.call("ListNamespaces", &pb::IsMasterRunningRequest {})
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(plain.namespace_name, ["default", "hbase", "ns"]);

    // Modify replaces the configuration.
    m.call("ModifyNamespace", &descriptor("ns", &[("team", "db")]))
        .await
        .unwrap();
    let got = pb::GetNamespaceDescriptorResponse::decode(
        m.call("GetNamespaceDescriptor", &name("ns")).await.unwrap(),
    )
    .unwrap();
    assert_eq!(
        config_of(&got.namespace_descriptor),
        [("team".to_string(), "db".to_string())]
    );
    assert_eq!(
        m.class("ModifyNamespace", &descriptor("nope", &[])).await,
        NOT_FOUND
    );
    assert_eq!(
        m.class(
            "ModifyNamespace",
            &descriptor("ns", &[("hbase.namespace.quota.maxregions", "0")])
        )
        .await,
        CONSTRAINT
    );

    m.call("CreateTable", &create_table("ns", "t", &[]))
        .await
        .unwrap();
    let tables = pb::ListTableNamesByNamespaceResponse::decode(
        m.call("ListTableNamesByNamespace", &name("ns"))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(tables.table_name.len(), 1);
    assert_eq!(tables.table_name[0].qualifier.as_ref(), b"t");
    assert_eq!(
        m.class("ListTableNamesByNamespace", &name("nope")).await,
        NOT_FOUND
    );
    assert_eq!(m.class("DeleteNamespace", &name("ns")).await, CONSTRAINT);
    assert_eq!(
        m.class("DeleteNamespace", &name("default")).await,
        CONSTRAINT
    );
    assert_eq!(m.class("DeleteNamespace", &name("nope")).await, NOT_FOUND);
    assert_eq!(
        m.class("GetNamespaceDescriptor", &name("nope")).await,
        NOT_FOUND
    );

    // Quotas: two regions at most.
    m.call(
        "ModifyNamespace",
        &descriptor("ns", &[("hbase.namespace.quota.maxregions", "2")]),
    )
    .await
    .unwrap();
    let (class, message) = m
        .call("CreateTable", &create_table("ns", "u", &["m", "n"]))
        .await
        .unwrap_err();
    assert_eq!(class, QUOTA);
    assert!(
        message.contains("is not allowed to have 3 regions"),
        "{message}"
    );
    m.call("CreateTable", &create_table("ns", "u", &[]))
        .await
        .unwrap();
    single.stop().unwrap();
}
