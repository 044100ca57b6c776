//! Failing statements print one clear error and leave the shell usable.

use super::Cluster;

#[tokio::test(flavor = "multi_thread")]
async fn errors_are_reported_and_the_next_statement_runs() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', 'f'\n\
             scna 't'\n\
             scan 'nope'\n\
             put 'nope', 'r', 'f:q', 'v'\n\
             put 't', 'r', 'zz:q', 'v'\n\
             get 't', 'r', 'zz'\n\
             scan 't', {COLUMNS => ['zz']}\n\
             put 't'\n\
             create 't', 'f'\n\
             drop 't'\n\
             flush 't', 'zz'\n\
             list '(oops'\n\
             put 't', 'r', 'f:q', 'fine', 7\n\
             get 't', 'r'",
        )
        .await;
    assert_eq!(
        out,
        "Created table t\n\
         ERROR: unknown command 'scna'; did you mean 'scan'? (type 'help' for the list of commands)\n\
         ERROR: table nope does not exist\n\
         ERROR: table nope does not exist\n\
         ERROR: table 't': no such column family: zz\n\
         ERROR: table 't': no such column family: zz\n\
         ERROR: table 't': no such column family: zz\n\
         ERROR: put: wrong number of arguments (given 1, expected 4 to 6)\n\
         usage: put 't', 'row', 'cf:q', 'value' [, ts] [, {TTL => ms}]\n\
         ERROR: table t already exists\n\
         ERROR: table t is enabled; disable it first\n\
         ERROR: table 't' has no column family 'zz'\n\
         ERROR: list: bad pattern '(oops': unclosed '(' at position 1\n\
         COLUMN                         CELL\n \
         f:q                           timestamp=7, value=fine\n\
         1 row(s)\n"
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn disabled_tables_refuse_reads_and_writes() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', 'f'\ndisable 't'\nscan 't'\nput 't', 'r', 'f:q', 'v'\n\
             disable 't'\nenable 't'\nenable 't'\ncount 't'",
        )
        .await;
    assert_eq!(
        out,
        "Created table t\n\
         ERROR: table t is not enabled\n\
         ERROR: table t is not enabled\n\
         ERROR: table t is disabled\n\
         ERROR: table t is enabled\n\
         0 row(s)\n"
    );
    c.stop().await;
}
