//! The access matrix (RFC 0026): every operation × every grant scope (global, namespace,
//! table, family, column, scopes beside them, none) × each relevant permission granted or
//! not, with the outcome derived from one table of what HBase's `AccessController` asks
//! (`spec`), run against one `strata standalone --auth` with mutual TLS through the Rust
//! client and the shell's executor; every case asserted, and a summary printed.
//!
//! Each case has a user of its own, so grants never need revoking between cases: the grants
//! are made up front (a few at a time), except a dropped table's, which go with the table and
//! are made just before its case. `STRATA_ACL_MATRIX_CASES=FILE` writes the cases of HBase's
//! Java client (`strata.hbase.MatrixTest`, run by `scripts/hbase-client-test.sh`) to FILE.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../support/mod.rs"]
mod support;

mod cases;
mod client;
mod happybase;
mod scopes;
mod server;
mod shell;
mod spec;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cases::Case;
use server::Secured;
use spec::Front;

/// What a case's user saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The operation ran (a read returned the secret cell; a listing showed the table).
    Allowed,
    /// Refused with an access denial.
    Refused,
    /// It ran, but left out what it was not allowed to see (a read, a listing).
    LeftOut,
}

#[derive(Default)]
struct Summary {
    cases: usize,
    allowed: usize,
    refused: usize,
    left_out: usize,
}

/// Runs every case of `front`: grants, then each operation as the case's user (through
/// happybase: as the gateway's user, `driver`'s).
async fn run_front(
    s: &Secured,
    front: Front,
    first: usize,
    mut driver: Option<&mut happybase::Driver>,
) -> Summary {
    let cases = cases::generate(front, first);
    cases::check(&cases);
    let user = |c: &Case| format!("u{}", c.id);
    // Grants up front, a few at a time; a dropped table's own just before its case. The
    // gateway's user is granted and revoked around each case instead.
    let early: Vec<&Case> = cases
        .iter()
        .filter(|c| c.op.name != "drop" && front != Front::Thrift)
        .collect();
    for chunk in early.chunks(32) {
        let mut set = tokio::task::JoinSet::new();
        for c in chunk {
            let (c, name) = ((*c).clone(), user(c));
            let admin = s.admin.clone();
            set.spawn(async move { server::grant_with(&admin, &c, &name).await });
        }
        while let Some(r) = set.join_next().await {
            r.unwrap();
        }
    }
    let mut summary = Summary::default();
    let mut failures = Vec::new();
    let mut by_op: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for case in &cases {
        s.prepare(case).await;
        let name = user(case);
        if case.op.name == "drop" {
            s.grant(case, &name).await;
        }
        let seen = match (front, driver.as_deref_mut()) {
            (Front::Rust, _) => client::run(s, &s.connect_as(&name).await, case).await,
            (Front::Shell, _) => shell::run(&s.connect_as(&name).await, case).await,
            (Front::Thrift, Some(driver)) => driver.run(s, case).await,
            (Front::Thrift, None) => unreachable!("happybase runs through its driver"),
            (Front::Java, _) => unreachable!("the Java client runs its cases itself"),
        };
        summary.cases += 1;
        let counts = by_op.entry(case.op.name).or_default();
        match seen {
            Ok(Seen::Allowed) => {
                summary.allowed += 1;
                counts.0 += 1;
            }
            Ok(Seen::Refused) => {
                summary.refused += 1;
                counts.1 += 1;
            }
            Ok(Seen::LeftOut) => {
                summary.left_out += 1;
                counts.1 += 1;
            }
            Err(_) => {}
        }
        match seen {
            Ok(seen) if (seen == Seen::Allowed) == case.allowed => {}
            Ok(seen) => failures.push(format!(
                "{}: expected {}, saw {seen:?} (HBase: {})",
                case.describe(),
                if case.allowed { "allowed" } else { "denied" },
                case.op.hbase
            )),
            Err(e) => failures.push(e),
        }
    }
    let ops: Vec<String> = by_op
        .iter()
        .map(|(op, (a, d))| format!("{op} {a}/{d}"))
        .collect();
    println!(
        "{front:?}: {} cases, {} allowed, {} denied ({} refused, {} left out); per operation \
         allowed/denied: {}",
        summary.cases,
        summary.allowed,
        summary.refused + summary.left_out,
        summary.refused,
        summary.left_out,
        ops.join(", ")
    );
    assert!(
        failures.is_empty(),
        "{front:?}: {} of {} cases wrong:\n{}",
        failures.len(),
        summary.cases,
        failures.join("\n")
    );
    summary
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_is_allowed_exactly_when_a_grant_covers_it() {
    tokio::time::timeout(Duration::from_secs(240), async {
        let started = Instant::now();
        let s = Secured::start().await;
        let rust = run_front(&s, Front::Rust, 0, None).await;
        let shell = run_front(&s, Front::Shell, 10_000, None).await;
        println!(
            "matrix: {} cases ({} allowed) in {:.1} s",
            rust.cases + shell.cases,
            rust.allowed + shell.allowed,
            started.elapsed().as_secs_f64()
        );
        grants_go_with_a_deleted_namespace(&s).await;
    })
    .await
    .expect("the matrix did not finish in 240 s");
}

/// A namespace deleted and made again starts with no grants (HBase's
/// `postDeleteNamespace` removes them).
async fn grants_go_with_a_deleted_namespace(s: &Secured) {
    use strata_client::access::{Perms, Scope};
    use strata_client::NamespaceDescriptor;
    let admin = s.admin.admin();
    let scope = Scope::Namespace("mxagain".into());
    admin
        .create_namespace(&NamespaceDescriptor::new("mxagain"))
        .await
        .unwrap();
    admin
        .grant("someone", Perms::parse("RW").unwrap(), &scope, false)
        .await
        .unwrap();
    assert_eq!(
        admin
            .user_permissions(Some(&scope), None)
            .await
            .unwrap()
            .len(),
        1
    );
    admin.delete_namespace("mxagain").await.unwrap();
    admin
        .create_namespace(&NamespaceDescriptor::new("mxagain"))
        .await
        .unwrap();
    let left = admin.user_permissions(Some(&scope), None).await.unwrap();
    assert!(left.is_empty(), "grants outlived their namespace: {left:?}");
}

/// The data operations through happybase and the Thrift gateway (skipped without
/// `STRATA_HAPPYBASE_PYTHON`; `scripts/gateway/happybase-acl.sh` sets it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_operations_through_happybase_follow_the_same_table() {
    let Some(python) = happybase::python() else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(240), async {
        let started = Instant::now();
        let s = Secured::start().await;
        let mut driver = happybase::Driver::start(&s, &python);
        let thrift = run_front(&s, Front::Thrift, 30_000, Some(&mut driver)).await;
        println!(
            "happybase: {} cases ({} allowed) in {:.1} s",
            thrift.cases,
            thrift.allowed,
            started.elapsed().as_secs_f64()
        );
    })
    .await
    .expect("the happybase cases did not finish in 240 s");
}

/// The cases of HBase's Java client, derived from the same table; written to
/// `STRATA_ACL_MATRIX_CASES` when it is set.
#[test]
fn cases_of_the_java_client() {
    let cases = cases::generate(Front::Java, 20_000);
    cases::check(&cases);
    let json = cases::to_json_lines(&cases);
    assert_eq!(json.lines().count(), cases.len());
    if let Some(path) = std::env::var_os("STRATA_ACL_MATRIX_CASES") {
        std::fs::write(&path, json).unwrap();
        println!(
            "{} cases written to {}",
            cases.len(),
            path.to_string_lossy()
        );
    }
}
