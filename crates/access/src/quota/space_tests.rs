use std::collections::{BTreeMap, HashMap};

use strata_model::ops::{Append, Delete, Increment, Mutation, Put};

use super::*;

fn quota(subject: Subject, limit: u64, policy: SpacePolicy) -> SpaceQuota {
    SpaceQuota {
        subject,
        limit,
        policy,
    }
}

#[test]
fn sizes_parse_as_hbase_shell_reads_them() {
    assert_eq!(parse_size("1G"), Ok(1 << 30));
    assert_eq!(parse_size("512m"), Ok(512 << 20));
    assert_eq!(parse_size("10K"), Ok(10 << 10));
    assert_eq!(parse_size("2048"), Ok(2048));
    assert_eq!(parse_size("7b"), Ok(7));
    assert_eq!(parse_size("1P"), Ok(1 << 50));
    for bad in ["", "G", "1X", "1GB", "-1G", "1.5G", "10req/sec"] {
        assert!(parse_size(bad).is_err(), "{bad}");
    }
    assert!(parse_size("99999999P").unwrap_err().contains("too large"));
}

#[test]
fn policies_have_hbase_names_and_numbers() {
    for p in SpacePolicy::ALL {
        assert_eq!(SpacePolicy::from_name(p.name()), Some(p));
        assert_eq!(SpacePolicy::from_number(p.number()), Some(p));
    }
    assert_eq!(
        SpacePolicy::from_name("no_inserts"),
        Some(SpacePolicy::NoInserts)
    );
    assert_eq!(SpacePolicy::NoInserts.number(), 4);
    assert_eq!(SpacePolicy::Disable.number(), 1);
    assert_eq!(SpacePolicy::from_name("NO_READS"), None);
}

#[test]
fn quotas_print_as_hbase_space_limit_settings() {
    let q = quota(Subject::table("t1"), 1 << 30, SpacePolicy::NoInserts);
    assert_eq!(
        q.to_string(),
        "TYPE => SPACE, TABLE => t1, LIMIT => 1073741824, VIOLATION_POLICY => NO_INSERTS"
    );
    let q = quota(Subject::Namespace("ns".into()), 10, SpacePolicy::Disable);
    assert_eq!(
        q.to_string(),
        "TYPE => SPACE, NAMESPACE => ns, LIMIT => 10, VIOLATION_POLICY => DISABLE"
    );
}

#[test]
fn states_round_trip() {
    let s = SpaceState {
        policy: SpacePolicy::NoWritesCompactions,
        in_violation: true,
        usage: 2048,
        limit: 1024,
    };
    assert_eq!(s.encode(), "violation NO_WRITES_COMPACTIONS 2048 1024");
    assert_eq!(SpaceState::decode(&s.encode()), Some(s));
    let ok = SpaceState {
        in_violation: false,
        ..s
    };
    assert_eq!(SpaceState::decode(&ok.encode()), Some(ok));
    for bad in [
        "",
        "violation",
        "violation NO_READS 1 2",
        "x NO_WRITES 1 2",
        "violation NO_WRITES 1 2 3",
    ] {
        assert_eq!(SpaceState::decode(bad), None, "{bad}");
    }
}

#[test]
fn a_table_quota_overrides_its_namespace_quota() {
    let quotas = vec![
        quota(Subject::Namespace("ns".into()), 100, SpacePolicy::NoWrites),
        quota(Subject::table("ns:big"), 1000, SpacePolicy::NoInserts),
        quota(Subject::table("t"), 10, SpacePolicy::Disable),
    ];
    let usage: BTreeMap<String, u64> = [
        ("ns:big".to_owned(), 500),
        ("ns:small".to_owned(), 20),
        ("default:t".to_owned(), 10),
        ("other:x".to_owned(), 1 << 40),
    ]
    .into();
    let states = decide(&quotas, &usage);
    let big = states["ns:big"];
    assert_eq!(
        (big.policy, big.in_violation, big.usage, big.limit),
        (SpacePolicy::NoInserts, false, 500, 1000),
        "its own quota, not the namespace's"
    );
    let small = states["ns:small"];
    assert_eq!(
        (small.policy, small.in_violation, small.usage, small.limit),
        (SpacePolicy::NoWrites, true, 520, 100),
        "the namespace counts every table in it"
    );
    assert!(
        !states["default:t"].in_violation,
        "at the limit is observance"
    );
    assert!(!states.contains_key("other:x"), "no quota covers it");
}

fn states(table: &str, policy: SpacePolicy, in_violation: bool) -> SpaceStates {
    let s = SpaceStates::default();
    let state = SpaceState {
        policy,
        in_violation,
        usage: 200,
        limit: 100,
    };
    s.install(HashMap::from([(table.to_owned(), state)]), 7);
    s
}

fn all() -> Vec<Mutation> {
    vec![
        Mutation::Delete(Delete::new("r")),
        Mutation::Put(Put::new("r")),
        Mutation::Increment(Increment::new("r")),
        Mutation::Append(Append::new("r")),
    ]
}

#[test]
fn no_inserts_allows_deletes_only() {
    let s = states("default:t", SpacePolicy::NoInserts, true);
    let delete = [Mutation::Delete(Delete::new("r"))];
    assert!(s.check_mutations("t", &delete).is_ok());
    let e = s.check_mutations("default:t", &all()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "NO_INSERTS Puts are disallowed due to a space quota."
    );
    let e = s
        .check_mutations("t", &[Mutation::Append(Append::new("r"))])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "NO_INSERTS Appends are disallowed due to a space quota."
    );
    assert!(s.check_mutations("other", &all()).is_ok());
    assert!(!s.compactions_disabled("t"));
}

#[test]
fn no_writes_refuses_every_mutation_and_compactions_only_with_its_variant() {
    let s = states("ns:t", SpacePolicy::NoWrites, true);
    let e = s
        .check_mutations("ns:t", &[Mutation::Delete(Delete::new("r"))])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "NO_WRITES Deletes are disallowed due to a space quota."
    );
    assert!(!s.compactions_disabled("ns:t"));
    let s = states("ns:t", SpacePolicy::NoWritesCompactions, true);
    assert!(s.check_mutations("ns:t", &all()).is_err());
    assert!(s.compactions_disabled("ns:t"));
    let s = states("ns:t", SpacePolicy::Disable, true);
    assert_eq!(
        s.check_mutations("ns:t", &all()).unwrap_err().to_string(),
        "DISABLE This table is disabled due to violating a space quota."
    );
}

#[test]
fn observance_allows_writes_and_bulk_loads_that_fit() {
    let s = SpaceStates::default();
    assert!(!s.any());
    let state = SpaceState {
        policy: SpacePolicy::NoWrites,
        in_violation: false,
        usage: 60,
        limit: 100,
    };
    s.install(HashMap::from([("default:t".to_owned(), state)]), 3);
    assert!(s.any());
    assert_eq!(s.revision(), 3);
    assert!(s.check_mutations("t", &all()).is_ok());
    assert!(s.check_bulk_load("t", 1, 40).is_ok());
    let e = s.check_bulk_load("t", 2, 41).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("NO_WRITES Bulk load of 2 file(s)"),
        "{e}"
    );
    let v = states("default:t", SpacePolicy::NoInserts, true);
    assert!(v.check_bulk_load("t", 1, 0).is_err(), "in violation: none");
    assert!(s.check_bulk_load("other", 1, 1 << 40).is_ok());
    assert!(s.violations().is_empty());
    assert_eq!(v.violations().len(), 1);
}

#[test]
fn every_state_in_force_is_listed_by_table() {
    let s = states("ns:b", SpacePolicy::NoWrites, true);
    assert_eq!(s.all().len(), 1);
    let b = s.state("ns:b").unwrap();
    let a = SpaceState {
        policy: SpacePolicy::Disable,
        in_violation: false,
        usage: 1,
        limit: 2,
    };
    s.install(
        [("default:a".to_string(), a), ("ns:b".to_string(), b)].into(),
        2,
    );
    assert_eq!(
        s.all(),
        vec![("default:a".to_string(), a), ("ns:b".to_string(), b)]
    );
    assert!(SpaceStates::default().all().is_empty());
}
