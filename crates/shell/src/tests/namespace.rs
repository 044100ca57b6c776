//! Parsing the namespace commands.

use super::{message, parse};
use crate::{Command, NamespaceChange};

#[test]
fn create_namespace_with_and_without_properties() {
    assert_eq!(
        parse("create_namespace 'ns1'"),
        Command::CreateNamespace {
            name: "ns1".into(),
            properties: vec![],
        }
    );
    assert_eq!(
        parse("create_namespace 'ns1', {'hbase.namespace.quota.maxtables' => 5, 'owner' => 'ann'}"),
        Command::CreateNamespace {
            name: "ns1".into(),
            properties: vec![
                ("hbase.namespace.quota.maxtables".into(), "5".into()),
                ("owner".into(), "ann".into()),
            ],
        }
    );
    assert!(message("create_namespace").contains("wrong number of arguments"));
    assert!(message("create_namespace 'a-b'").contains("illegal namespace name 'a-b'"));
    assert!(message("create_namespace 'ns', 'x'").contains("expected a hash"));
}

#[test]
fn alter_namespace_sets_and_unsets() {
    assert_eq!(
        parse("alter_namespace 'ns1', {METHOD => 'set', 'k' => 'v', 'n' => 3}"),
        Command::AlterNamespace {
            name: "ns1".into(),
            changes: vec![NamespaceChange::Set(vec![
                ("k".into(), "v".into()),
                ("n".into(), "3".into()),
            ])],
        }
    );
    assert_eq!(
        parse("alter_namespace 'ns1', {METHOD => 'unset', NAME => 'k'}"),
        Command::AlterNamespace {
            name: "ns1".into(),
            changes: vec![NamespaceChange::Unset("k".into())],
        }
    );
    // The trailing pairs form one hash, as in Ruby.
    assert_eq!(
        parse("alter_namespace 'ns1', METHOD => 'unset', NAME => 'k'"),
        parse("alter_namespace 'ns1', {METHOD => 'unset', NAME => 'k'}")
    );
    assert!(message("alter_namespace 'ns1', {METHOD => 'drop'}").contains("Unknown method drop"));
    assert!(message("alter_namespace 'ns1', {METHOD => 'unset'}").contains("needs NAME"));
    assert!(message("alter_namespace 'ns1'").contains("wrong number of arguments"));
}

#[test]
fn the_other_namespace_commands() {
    assert_eq!(
        parse("describe_namespace 'ns1'"),
        Command::DescribeNamespace("ns1".into())
    );
    assert_eq!(
        parse("drop_namespace 'ns1'"),
        Command::DropNamespace("ns1".into())
    );
    assert_eq!(
        parse("list_namespace_tables 'ns1'"),
        Command::ListNamespaceTables("ns1".into())
    );
    assert_eq!(
        parse("list_namespace"),
        Command::ListNamespace { pattern: None }
    );
    assert_eq!(
        parse("list_namespace 'n.*'"),
        Command::ListNamespace {
            pattern: Some("n.*".into())
        }
    );
    assert!(message("drop_namespace").contains("wrong number of arguments"));
    assert!(message("describe_namespace 'x', 'y'").contains("wrong number of arguments"));
}

#[test]
fn properties_apply_in_order() {
    let mut props = std::collections::BTreeMap::from([("a".to_string(), "1".to_string())]);
    NamespaceChange::apply_all(
        &[
            NamespaceChange::Set(vec![("b".into(), "2".into()), ("a".into(), "3".into())]),
            NamespaceChange::Unset("b".into()),
            NamespaceChange::Unset("missing".into()),
        ],
        &mut props,
    );
    assert_eq!(
        props,
        std::collections::BTreeMap::from([("a".into(), "3".into())])
    );
}
