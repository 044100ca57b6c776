//! Namespaces through the admin service (the Rust client's admin) on a cluster of one:
//! create, get, list, modify, delete; tables refused in a namespace that does not exist;
//! `default` and `hbase` always there and never deleted; a namespace holding tables kept;
//! the table and region quotas checked on create and on split.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use crate::support::{b, start, table};
use strata_client::{Admin, NamespaceDescriptor};
use strata_model::ops::Put;
use strata_proto::pb::ErrorCode;

const MAX_TABLES: &str = "hbase.namespace.quota.maxtables";
const MAX_REGIONS: &str = "hbase.namespace.quota.maxregions";

async fn names(admin: &Admin) -> Vec<String> {
    admin
        .list_namespaces()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.name)
        .collect()
}

async fn code<T: std::fmt::Debug>(
    r: impl std::future::Future<Output = Result<T, strata_client::Error>>,
) -> (ErrorCode, String) {
    let e = r.await.unwrap_err();
    (e.code, e.message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespaces_lifecycle_and_their_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    assert_eq!(names(&admin).await, ["default", "hbase"]);
    assert_eq!(
        admin.get_namespace("default").await.unwrap(),
        NamespaceDescriptor::new("default")
    );

    // A table in a namespace that does not exist is refused, and nothing is left of it.
    let (c, m) = code(admin.create_table(&table("ns1:t", &["f"]), &[])).await;
    assert_eq!((c, m.as_str()), (ErrorCode::NamespaceNotFound, "ns1"));
    assert!(admin.list_tables().await.unwrap().is_empty());
    let (c, _) = code(admin.get_namespace("ns1")).await;
    assert_eq!(c, ErrorCode::NamespaceNotFound);

    let ns1 = NamespaceDescriptor::new("ns1").with_property("owner", "ann");
    admin.create_namespace(&ns1).await.unwrap();
    assert_eq!(admin.get_namespace("ns1").await.unwrap(), ns1);
    let (c, m) = code(admin.create_namespace(&NamespaceDescriptor::new("ns1"))).await;
    assert_eq!(
        (c, m.as_str()),
        (ErrorCode::NamespaceExists, "Namespace ns1 already exists")
    );
    let (c, _) = code(admin.create_namespace(&NamespaceDescriptor::new("bad-name!"))).await;
    assert_eq!(c, ErrorCode::InvalidArgument);
    assert_eq!(names(&admin).await, ["default", "hbase", "ns1"]);

    // Modify replaces the properties; `default` takes properties too.
    let changed = NamespaceDescriptor::new("ns1").with_property("team", "db");
    admin.modify_namespace(&changed).await.unwrap();
    assert_eq!(admin.get_namespace("ns1").await.unwrap(), changed);
    let (c, _) = code(admin.modify_namespace(&NamespaceDescriptor::new("nope"))).await;
    assert_eq!(c, ErrorCode::NamespaceNotFound);
    let d = NamespaceDescriptor::new("default").with_property("k", "v");
    admin.modify_namespace(&d).await.unwrap();
    let listed = admin.list_namespaces().await.unwrap();
    assert_eq!(listed.len(), 3, "default once: {listed:?}");
    assert_eq!(listed[0], d);

    admin
        .create_table(&table("ns1:t", &["f"]), &[])
        .await
        .unwrap();
    let tables: Vec<String> = admin
        .list_tables()
        .await
        .unwrap()
        .iter()
        .map(|t| t.descriptor.name.to_string())
        .collect();
    assert_eq!(tables, ["ns1:t"]);

    // Deleting: not while it holds a table; never `default` or `hbase`.
    let (c, m) = code(admin.delete_namespace("ns1")).await;
    assert_eq!(c, ErrorCode::Constraint);
    assert_eq!(
        m,
        "Only empty namespaces can be removed. Namespace ns1 has 1 tables"
    );
    for system in ["default", "hbase"] {
        let (c, m) = code(admin.delete_namespace(system)).await;
        assert_eq!(c, ErrorCode::Constraint, "{system}");
        assert_eq!(m, format!("Reserved namespace {system} cannot be removed."));
    }
    let (c, _) = code(admin.delete_namespace("nope")).await;
    assert_eq!(c, ErrorCode::NamespaceNotFound);
    admin.disable_table("ns1:t").await.unwrap();
    admin.delete_table("ns1:t").await.unwrap();
    admin.delete_namespace("ns1").await.unwrap();
    assert_eq!(names(&admin).await, ["default", "hbase"]);
    let (c, _) = code(admin.create_table(&table("ns1:t", &["f"]), &[])).await;
    assert_eq!(c, ErrorCode::NamespaceNotFound);
    server.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quotas_limit_tables_and_regions() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();

    // Quotas must be whole numbers above zero (HBase's validateTableAndRegionCount).
    for (value, expected) in [
        ("0", ErrorCode::Constraint),
        ("-1", ErrorCode::Constraint),
        ("x", ErrorCode::InvalidArgument),
    ] {
        let d = NamespaceDescriptor::new("q").with_property(MAX_TABLES, value);
        let (c, _) = code(admin.create_namespace(&d)).await;
        assert_eq!(c, expected, "{value}");
    }
    assert_eq!(names(&admin).await, ["default", "hbase"], "nothing created");

    let q = NamespaceDescriptor::new("q")
        .with_property(MAX_TABLES, "2")
        .with_property(MAX_REGIONS, "4");
    admin.create_namespace(&q).await.unwrap();
    let (c, m) =
        code(admin.create_table(&table("q:big", &["f"]), &[b("1"), b("2"), b("3"), b("4")])).await;
    assert_eq!(c, ErrorCode::QuotaExceeded);
    assert!(m.starts_with("The table q:big is not allowed to have 5 regions. The total number of regions permitted is only 4, while current region count is 0."), "{m}");
    admin
        .create_table(&table("q:a", &["f"]), &[b("m")])
        .await
        .unwrap();
    admin
        .create_table(&table("q:b", &["f"]), &[])
        .await
        .unwrap();
    let (c, m) = code(admin.create_table(&table("q:c", &["f"]), &[])).await;
    assert_eq!(c, ErrorCode::QuotaExceeded);
    assert!(
        m.contains("The total number of tables permitted is 2"),
        "{m}"
    );

    // Three regions of four: one split fits, a second does not.
    for name in ["q:a", "q:b"] {
        let t = conn.table(name).unwrap();
        for row in ["a", "c", "g", "k", "p", "x"] {
            t.put(&Put::new(b(row)).add(b("f"), b("q"), b("v")))
                .await
                .unwrap();
        }
    }
    admin.split("q:a", Some(b("f"))).await.unwrap();
    assert_eq!(admin.regions("q:a").await.unwrap().len(), 3);
    let (c, m) = code(admin.split("q:b", Some(b("k")))).await;
    assert_eq!(c, ErrorCode::QuotaExceeded);
    assert!(m.starts_with("Region split not possible for :q:b,"), "{m}");
    assert_eq!(admin.regions("q:b").await.unwrap().len(), 1);

    // Raising the quota (modify) admits them; removing it lifts the limit.
    let mut props: BTreeMap<String, String> = q.properties.clone();
    props.insert(MAX_REGIONS.into(), "10".into());
    admin
        .modify_namespace(&NamespaceDescriptor {
            name: "q".into(),
            properties: props,
        })
        .await
        .unwrap();
    admin.split("q:b", Some(b("k"))).await.unwrap();
    admin
        .modify_namespace(&NamespaceDescriptor::new("q"))
        .await
        .unwrap();
    admin
        .create_table(&table("q:c", &["f"]), &[])
        .await
        .unwrap();
    server.stop().unwrap();
}
