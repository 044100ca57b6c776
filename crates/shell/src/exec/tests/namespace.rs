//! create_namespace, describe_namespace, alter_namespace, list_namespace,
//! list_namespace_tables, drop_namespace, and tables in namespaces.

use super::Cluster;

#[tokio::test(flavor = "multi_thread")]
async fn namespace_commands_print_as_hbase_does() {
    let c = Cluster::start().await;
    assert_eq!(
        c.run("list_namespace").await,
        "NAMESPACE\ndefault\nhbase\n2 row(s)\n"
    );
    assert_eq!(
        c.run("create 'ns1:t', 'f'").await,
        "ERROR: Unknown namespace ns1!\n"
    );
    assert_eq!(c.run("create_namespace 'ns1'").await, "");
    assert_eq!(
        c.run("create_namespace 'ns1'").await,
        "ERROR: Namespace ns1 already exists\n"
    );
    assert_eq!(
        c.run("create_namespace 'ns2', {'owner' => 'ann', 'hbase.namespace.quota.maxtables' => 1}")
            .await,
        ""
    );
    assert_eq!(
        c.run("describe_namespace 'ns2'").await,
        "DESCRIPTION\n\
         {NAME => 'ns2', hbase.namespace.quota.maxtables => '1', owner => 'ann'}\n\
         Quota is disabled\n"
    );
    assert_eq!(
        c.run(
            "alter_namespace 'ns2', {METHOD => 'set', 'team' => 'db'}\n\
             alter_namespace 'ns2', {METHOD => 'unset', NAME => 'owner'}\n\
             describe_namespace 'ns2'"
        )
        .await,
        "DESCRIPTION\n\
         {NAME => 'ns2', hbase.namespace.quota.maxtables => '1', team => 'db'}\n\
         Quota is disabled\n"
    );
    assert_eq!(
        c.run("describe_namespace 'nope'").await,
        "ERROR: Unknown namespace nope!\n"
    );
    assert_eq!(
        c.run("list_namespace\nlist_namespace 's2'\nlist_namespace '^ns'")
            .await,
        "NAMESPACE\ndefault\nhbase\nns1\nns2\n4 row(s)\n\
         NAMESPACE\nns2\n1 row(s)\n\
         NAMESPACE\nns1\nns2\n2 row(s)\n"
    );

    assert_eq!(
        c.run("create 'ns1:t', 'f'\ncreate 'ns1:a', 'f'\ncreate 't', 'f'")
            .await,
        "Created table ns1:t\nCreated table ns1:a\nCreated table t\n"
    );
    assert_eq!(c.run("list").await, "TABLE\nns1:a\nns1:t\nt\n3 row(s)\n");
    assert_eq!(
        c.run("list_namespace_tables 'ns1'\nlist_namespace_tables 'default'\nlist_namespace_tables 'ns2'")
            .await,
        "TABLE\na\nt\n2 row(s)\nTABLE\nt\n1 row(s)\nTABLE\n0 row(s)\n"
    );
    assert_eq!(
        c.run("list_namespace_tables 'nope'").await,
        "ERROR: Unknown namespace nope!\n"
    );

    // The quota of ns2: one table.
    assert_eq!(c.run("create 'ns2:a', 'f'").await, "Created table ns2:a\n");
    let out = c.run("create 'ns2:b', 'f'").await;
    assert!(
        out.starts_with(
            "ERROR: The table ns2:b cannot be created as it would exceed maximum number of tables"
        ),
        "{out}"
    );

    assert_eq!(
        c.run("drop_namespace 'ns1'").await,
        "ERROR: Only empty namespaces can be removed. Namespace ns1 has 2 tables\n"
    );
    assert_eq!(
        c.run("drop_namespace 'default'\ndrop_namespace 'hbase'")
            .await,
        "ERROR: Reserved namespace default cannot be removed.\n\
         ERROR: Reserved namespace hbase cannot be removed.\n"
    );
    assert_eq!(
        c.run("disable 'ns1:t'\ndrop 'ns1:t'\ndisable 'ns1:a'\ndrop 'ns1:a'\ndrop_namespace 'ns1'\nlist_namespace")
            .await,
        "NAMESPACE\ndefault\nhbase\nns2\n3 row(s)\n"
    );
    assert_eq!(
        c.run("drop_namespace 'ns1'").await,
        "ERROR: Unknown namespace ns1!\n"
    );
    c.stop().await;
}
