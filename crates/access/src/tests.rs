//! The covering rules, groups, superusers and narrowing of reads, after HBase's
//! `TestAccessController` and `TestTablePermissions` where they apply.

use bytes::Bytes;
use strata_model::ops::Columns;

use crate::*;

fn grant(who: &str, letters: &str, scope: Scope) -> Grant {
    Grant {
        who: who.into(),
        scope,
        perms: Perms::parse(letters).unwrap(),
    }
}

fn table(name: &str) -> Scope {
    Scope::table(name, None, None).unwrap()
}

fn family(name: &str, f: &str) -> Scope {
    Scope::table(name, Some(Bytes::copy_from_slice(f.as_bytes())), None).unwrap()
}

fn column(name: &str, f: &str, q: &str) -> Scope {
    Scope::table(
        name,
        Some(Bytes::copy_from_slice(f.as_bytes())),
        Some(Bytes::copy_from_slice(q.as_bytes())),
    )
    .unwrap()
}

#[test]
fn letters_parse_and_print_as_hbase_writes_them() {
    assert_eq!(Perms::parse("rwxca").unwrap(), Perms::ALL);
    assert_eq!(Perms::parse("WR").unwrap().to_string(), "RW");
    assert_eq!(Perms::parse("RW").unwrap().names(), "READ,WRITE");
    assert!(Perms::parse("RZ").unwrap_err().contains("'Z'"));
    assert!(Perms::parse("").is_err());
}

#[test]
fn each_scope_covers_what_is_under_it() {
    let all = [
        Scope::Global,
        Scope::Namespace("ns".into()),
        table("ns:t"),
        family("ns:t", "f"),
        column("ns:t", "f", "q"),
    ];
    for (i, wide) in all.iter().enumerate() {
        for (j, narrow) in all.iter().enumerate() {
            assert_eq!(wide.covers(narrow), i <= j, "{wide:?} over {narrow:?}");
        }
    }
    assert!(!Scope::Namespace("ns".into()).covers(&table("other:t")));
    assert!(!table("t").covers(&table("t2")));
    assert!(!family("t", "f").covers(&family("t", "g")));
    assert!(!column("t", "f", "q").covers(&column("t", "f", "r")));
    assert!(
        table("t").covers(&table("default:t")),
        "a table without namespace is in default"
    );
}

#[test]
fn scope_keys_round_trip_with_any_bytes() {
    let odd = Scope::table(
        "ns:t-1",
        Some(Bytes::from_static(b"f/%:")),
        Some(Bytes::from_static(b"\x00\xffq")),
    )
    .unwrap();
    for scope in [
        Scope::Global,
        Scope::Namespace("ns_1".into()),
        table("t"),
        family("ns:t", "f"),
        odd,
    ] {
        let key = scope.key();
        assert_eq!(Scope::from_key(&key).unwrap(), scope, "{key}");
    }
    assert!(Scope::from_key("nocolon").is_err());
    assert!(Scope::from_key("ns:t/f/q/extra").is_err());
    assert!(Scope::from_key("ns:t/%zz").is_err());
}

#[test]
fn grants_add_up_and_groups_count() {
    let access = Access::from_grants([
        grant("alice", "R", table("t")),
        grant("alice", "W", table("t")),
        grant("@ops", "C", Scope::Namespace("default".into())),
    ]);
    let mut alice = User::named("alice");
    assert_eq!(access.perms_on(&alice, &table("t")).to_string(), "RW");
    assert!(!access.allows(&alice, Action::Create, &table("t")));
    alice.groups.push("ops".into());
    assert!(access.allows(&alice, Action::Create, &table("t")));
    assert!(!access.allows(&alice, Action::Create, &table("other:t")));
    let bob = User::named("bob");
    assert!(!access.allows(&bob, Action::Read, &table("t")));
    let root = User {
        superuser: true,
        ..User::named("root")
    };
    assert!(access.allows(&root, Action::Admin, &Scope::Global));
}

#[test]
fn a_family_grant_narrows_reads_to_its_family() {
    let access = Access::from_grants([
        grant("alice", "R", family("t", "f")),
        grant("alice", "R", column("t", "g", "q")),
        grant("bob", "W", table("t")),
    ]);
    let alice = User::named("alice");
    let t = TableScope::table("t");
    let Readable::Columns(cols) = access.readable(&alice, &t) else {
        panic!("columns expected");
    };
    assert!(cols.includes(b"f", b"anything"));
    assert!(cols.includes(b"g", b"q"));
    assert!(!cols.includes(b"g", b"r"));
    assert!(!cols.includes(b"h", b"q"));
    // Writing needs W: alice has none, bob has it on the whole table but cannot read.
    assert!(access
        .first_denied(&alice, Action::Write, &t, [(&b"f"[..], Some(&b"q"[..]))])
        .is_some());
    let bob = User::named("bob");
    assert_eq!(
        access.first_denied(&bob, Action::Write, &t, [(&b"f"[..], None)]),
        None
    );
    assert_eq!(access.readable(&bob, &t), Readable::Nothing);
    assert!(access.any_within(&bob, &t));
    assert!(access.any_within(&alice, &t));
    assert!(!access.any_within(&User::named("carol"), &t));
}

#[test]
fn a_column_grant_does_not_cover_its_family() {
    let access = Access::from_grants([grant("alice", "W", column("t", "f", "q"))]);
    let alice = User::named("alice");
    let t = TableScope::table("t");
    assert_eq!(
        access.first_denied(&alice, Action::Write, &t, [(&b"f"[..], Some(&b"q"[..]))]),
        None
    );
    // A family delete touches every column of the family.
    assert_eq!(
        access.first_denied(&alice, Action::Write, &t, [(&b"f"[..], None)]),
        Some(family("t", "f"))
    );
    assert_eq!(
        access.first_denied(&alice, Action::Write, &t, [(&b"f"[..], Some(&b"r"[..]))]),
        Some(column("t", "f", "r"))
    );
}

#[test]
fn narrowing_intersects_what_is_asked_with_what_may_be_read() {
    let mut allowed = Columns::default();
    allowed.add_family(Bytes::from_static(b"f"));
    allowed.add_column(Bytes::from_static(b"g"), Bytes::from_static(b"q"));
    let readable = Readable::Columns(allowed.clone());
    assert_eq!(readable.narrow(&Columns::default()), Some(allowed));
    let mut asked = Columns::default();
    asked.add_column(Bytes::from_static(b"f"), Bytes::from_static(b"x"));
    asked.add_family(Bytes::from_static(b"g"));
    asked.add_family(Bytes::from_static(b"h"));
    let got = readable.narrow(&asked).unwrap();
    assert!(got.includes(b"f", b"x"));
    assert!(!got.includes(b"f", b"y"));
    assert!(got.includes(b"g", b"q"));
    assert!(!got.includes(b"g", b"r"));
    assert!(!got.includes(b"h", b"q"));
    let mut elsewhere = Columns::default();
    elsewhere.add_family(Bytes::from_static(b"h"));
    assert_eq!(readable.narrow(&elsewhere), None);
    assert_eq!(Readable::All.narrow(&elsewhere), Some(elsewhere.clone()));
}

#[test]
fn a_guard_that_is_on_refuses_the_unnamed_and_waits_for_grants() {
    let guard = Guard::on(
        GuardConfig {
            superusers: vec!["admin".into(), "@wheel".into()],
            groups: [("carol".to_string(), vec!["wheel".to_string()])].into(),
        },
        Some("strata"),
        Audit::to_log(),
    );
    let anon = Caller::anonymous(None);
    let alice = Caller::certified("alice", None);
    let err = guard
        .check(&anon, "get", &[Action::Read], &table("t"))
        .unwrap_err();
    assert!(err.message.contains("no authenticated user"), "{err}");
    let err = guard
        .check(&alice, "get", &[Action::Read], &table("t"))
        .unwrap_err();
    assert!(err.message.contains("not loaded"), "{err}");
    // Superusers need no grants, loaded or not.
    for su in ["admin", "strata", "carol"] {
        guard
            .check(
                &Caller::certified(su, None),
                "grant",
                &[Action::Admin],
                &Scope::Global,
            )
            .unwrap();
    }
    guard.install(Access::from_grants([grant("alice", "R", table("t"))]), 7);
    guard
        .check(&alice, "get", &[Action::Read], &table("t"))
        .unwrap();
    let err = guard
        .columns(
            &alice,
            "put",
            Action::Write,
            "t",
            [(&b"f"[..], Some(&b"q"[..]))],
        )
        .unwrap_err();
    assert!(
        err.message.contains("'alice'") && err.message.contains("WRITE"),
        "{err}"
    );
    assert!(guard
        .readable(&Caller::certified("bob", None), "scan", "t")
        .is_err());
    assert_eq!(guard.readable(&alice, "scan", "t").unwrap(), Readable::All);
}

#[test]
fn a_guard_that_is_off_allows_everything() {
    let guard = Guard::off();
    let anon = Caller::anonymous(None);
    guard
        .check(&anon, "delete_table", &[Action::Admin], &Scope::Global)
        .unwrap();
    assert_eq!(guard.readable(&anon, "get", "t").unwrap(), Readable::All);
}

#[test]
fn audit_lines_are_json() {
    let line = audit::line(
        &audit::Entry {
            user: "al\"ice",
            client: Some("127.0.0.1:5".parse().unwrap()),
            call: "put",
            scope: "default:t",
            result: "denied",
            detail: "line\nbreak",
        },
        3,
    );
    assert!(line.starts_with("{\"time_ms\":"), "{line}");
    assert!(line.contains("\"user\":\"al\\\"ice\""), "{line}");
    assert!(line.contains("\"detail\":\"line\\nbreak\""), "{line}");
    assert!(line.ends_with(",\"left_out_before\":3}"), "{line}");
}

#[test]
fn check_and_mutate_needs_read_and_write_on_the_checked_column() {
    use strata_model::ops::{Put, RowMutations};
    let guard = Guard::on(GuardConfig::default(), None, Audit::to_log());
    // HBase's preCheckAndPut asks READ and WRITE on the column checked; prePut then WRITE on
    // each column written.
    guard.install(
        Access::from_grants([
            grant("alice", "R", column("t", "f", "a")),
            grant("alice", "W", column("t", "f", "b")),
            grant("bob", "RW", column("t", "f", "a")),
            grant("bob", "W", column("t", "f", "b")),
        ]),
        1,
    );
    let rm = RowMutations::from(strata_model::ops::Mutation::from(
        Put::new("r").add("f", "b", "v"),
    ));
    let checked = Some((&b"f"[..], &b"a"[..]));
    let alice = Caller::certified("alice", None);
    let err = guard
        .check_and_mutate(&alice, "check_and_mutate", "t", checked, &rm)
        .unwrap_err();
    assert!(
        err.message.contains("WRITE") && err.message.contains("t/f/a"),
        "{err}"
    );
    let bob = Caller::certified("bob", None);
    guard
        .check_and_mutate(&bob, "check_and_mutate", "t", checked, &rm)
        .unwrap();
    // A filter's condition reads the row: R on the table.
    let err = guard
        .check_and_mutate(&bob, "check_and_mutate", "t", None, &rm)
        .unwrap_err();
    assert!(err.message.contains("READ"), "{err}");
}

#[test]
fn splits_and_merges_need_admin_as_in_hbase() {
    // HBase's preSplitRegion and preMergeRegions require ADMIN on the table; C is not enough.
    for rpc in ["Split", "Merge"] {
        let rule = admin::rule(rpc).unwrap();
        assert_eq!(rule.actions, &[Action::Admin][..], "{rpc}");
        assert_eq!(rule.on, admin::On::Table, "{rpc}");
    }
    let guard = Guard::on(GuardConfig::default(), None, Audit::to_log());
    guard.install(Access::from_grants([grant("carol", "C", table("t"))]), 1);
    let carol = Caller::certified("carol", None);
    guard.admin(&carol, "Flush", Some("t")).unwrap();
    assert!(guard.admin(&carol, "Split", Some("t")).is_err());
}

#[test]
fn region_placement_needs_global_admin() {
    // HBase's preBalance, preBalanceSwitch and preDecommissionRegionServers need global ADMIN;
    // moving a region does here too (HBase: ADMIN on its table; RFC 0026, "Differences").
    let guard = Guard::on(GuardConfig::default(), None, Audit::to_log());
    guard.install(
        Access::from_grants([
            grant("carol", "A", table("t")),
            grant("dan", "A", Scope::Global),
        ]),
        1,
    );
    let (carol, dan) = (
        Caller::certified("carol", None),
        Caller::certified("dan", None),
    );
    for rpc in [
        "MoveRegion",
        "AssignRegion",
        "UnassignRegion",
        "Balance",
        "Decommission",
        "Recommission",
        "ListDecommissioned",
    ] {
        assert!(guard.admin(&carol, rpc, None).is_err(), "{rpc}");
        guard.admin(&dan, rpc, None).unwrap();
    }
}

#[test]
fn has_permissions_answers_for_oneself_and_for_others_only_with_admin() {
    let guard = Guard::on(GuardConfig::default(), None, Audit::to_log());
    guard.install(
        Access::from_grants([
            grant("alice", "R", family("t", "f")),
            grant("bob", "A", table("t")),
        ]),
        1,
    );
    let (alice, bob) = (
        Caller::certified("alice", None),
        Caller::certified("bob", None),
    );
    let p = |letters: &str| Perms::parse(letters).unwrap();
    let wanted = [
        (family("t", "f"), p("R")),
        (column("t", "f", "q"), p("R")),
        (family("t", "f"), p("RW")),
        (family("t", "g"), p("R")),
        (table("t"), p("R")),
    ];
    assert_eq!(
        guard.has_permissions(&alice, None, &wanted).unwrap(),
        [true, true, false, false, false]
    );
    // Asking about oneself by name is the same question.
    assert_eq!(
        guard
            .has_permissions(&alice, Some("alice"), &wanted[..1])
            .unwrap(),
        [true]
    );
    // Another user: A on each scope asked about.
    let err = guard
        .has_permissions(&alice, Some("bob"), &[(table("t"), p("A"))])
        .unwrap_err();
    assert!(err.message.contains("ADMIN"), "{err}");
    assert_eq!(
        guard
            .has_permissions(&bob, Some("alice"), &wanted[..2])
            .unwrap(),
        [true, true]
    );
    assert!(guard
        .has_permissions(&bob, Some("alice"), &[(Scope::Global, p("R"))])
        .is_err());
    let off = Guard::off();
    assert!(off.has_permissions(&alice, None, &wanted).is_err());
}
