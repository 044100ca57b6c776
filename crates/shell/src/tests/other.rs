//! Table administration, tools and general commands.

use bytes::Bytes;
use strata_model::schema::TableName;

use super::{message, parse};
use crate::{help, parse_command, Command, StatusDetail};

fn t(name: &str) -> TableName {
    TableName::parse(name).unwrap()
}

#[test]
fn table_commands() {
    assert_eq!(parse("describe 't'"), Command::Describe(t("t")));
    assert_eq!(parse("desc 'ns:t'"), Command::Describe(t("ns:t")));
    assert_eq!(parse("disable 't'"), Command::Disable(t("t")));
    assert_eq!(parse("enable 't'"), Command::Enable(t("t")));
    assert_eq!(parse("is_enabled 't'"), Command::IsEnabled(t("t")));
    assert_eq!(parse("is_disabled 't'"), Command::IsDisabled(t("t")));
    assert_eq!(parse("drop 't'"), Command::Drop(t("t")));
    assert_eq!(parse("exists 't'"), Command::Exists(t("t")));
    assert_eq!(parse("files 't'"), Command::Files(t("t")));
    assert_eq!(parse("list_files 'ns:t'"), Command::Files(t("ns:t")));
    assert_eq!(
        parse("truncate 't'"),
        Command::Truncate {
            table: t("t"),
            preserve_splits: false
        }
    );
    assert_eq!(
        parse("truncate_preserve 't'"),
        Command::Truncate {
            table: t("t"),
            preserve_splits: true
        }
    );
    assert_eq!(parse("list"), Command::List { pattern: None });
    assert_eq!(
        parse("list 'ns:.*'"),
        Command::List {
            pattern: Some("ns:.*".into())
        }
    );
}

#[test]
fn tools() {
    assert_eq!(
        parse("flush 't'"),
        Command::Flush {
            table: t("t"),
            family: None
        }
    );
    assert_eq!(
        parse("flush 't', 'cf'"),
        Command::Flush {
            table: t("t"),
            family: Some("cf".into())
        }
    );
    assert_eq!(
        parse("compact 't'"),
        Command::Compact {
            table: t("t"),
            family: None,
            major: false
        }
    );
    assert_eq!(
        parse("major_compact 't', 'cf'"),
        Command::Compact {
            table: t("t"),
            family: Some("cf".into()),
            major: true
        }
    );
    assert_eq!(
        parse("compaction_state 'ns:t'"),
        Command::CompactionState(t("ns:t"))
    );
    assert_eq!(
        parse("split 't'"),
        Command::Split {
            table: t("t"),
            split_key: None
        }
    );
    assert_eq!(
        parse(r#"split 't', "\x80""#),
        Command::Split {
            table: t("t"),
            split_key: Some(Bytes::from_static(b"\x80"))
        }
    );
    assert_eq!(
        parse("split 'ns:t,1a-3.00000002', 'm'"),
        Command::SplitRegion {
            region: "ns:t,1a-3.00000002".into(),
            split_key: Some(Bytes::from_static(b"m"))
        }
    );
}

#[test]
fn general_commands() {
    assert_eq!(parse("status"), Command::Status(StatusDetail::Summary));
    assert_eq!(
        parse("status 'simple'"),
        Command::Status(StatusDetail::Simple)
    );
    assert_eq!(
        parse("status 'detailed'"),
        Command::Status(StatusDetail::Detailed)
    );
    assert_eq!(parse("version"), Command::Version);
    assert_eq!(parse("whoami"), Command::Whoami);
    assert_eq!(parse("table_help"), Command::TableHelp);
    assert_eq!(parse("processlist"), Command::Processlist);
    assert_eq!(
        parse("compact_rs 'h:1', true"),
        Command::CompactServer {
            server: "h:1".into(),
            major: true
        }
    );
    assert_eq!(
        parse("compact_rs 'h:1'"),
        Command::CompactServer {
            server: "h:1".into(),
            major: false
        }
    );
    assert!(parse_command("compact_rs 'h:1', 'yes'").is_err());
    assert_eq!(
        parse("update_config 'h:1:17'"),
        Command::UpdateConfig(Some("h:1:17".into()))
    );
    assert_eq!(parse("update_all_config"), Command::UpdateConfig(None));
    assert_eq!(parse("list_procedures"), Command::ListProcedures);
    assert_eq!(parse("list_locks"), Command::ListLocks);
    assert!(parse_command("list_locks 't'").is_err());
    assert!(matches!(
        parse("alter_async 't', {NAME => 'f', VERSIONS => 5}"),
        Command::AlterAsync { ref changes, .. } if changes.len() == 1
    ));
    assert!(matches!(parse("alter_status 't'"), Command::AlterStatus(_)));
    assert!(parse_command("alter_status").is_err());
    assert!(parse_command("update_config").is_err());
    assert!(parse_command("update_config ''").is_err());
    assert!(parse_command("update_all_config 'h:1'").is_err());
    assert_eq!(parse("exit"), Command::Exit);
    assert_eq!(parse("quit"), Command::Exit);
    assert_eq!(parse("help"), Command::Help(None));
    assert_eq!(parse("help 'scan'"), Command::Help(help::find("scan")));
    assert_eq!(parse("help 'desc'"), Command::Help(help::find("describe")));
    assert_eq!(parse_command("").unwrap(), None);
    assert_eq!(parse_command("  # a comment").unwrap(), None);
}

#[test]
fn simple_command_errors() {
    for (line, expected) in [
        (
            "describe",
            "describe: wrong number of arguments (given 0, expected 1)\nusage: describe 't'",
        ),
        ("drop 't', 'u'", "given 2, expected 1"),
        ("files", "usage: files 't'"),
        ("list_files 't', 'f'", "given 2, expected 1"),
        ("list 'a', 'b'", "given 2, expected 0 to 1"),
        ("list 5", "pattern must be a string"),
        ("status 'verbose'", "unknown status format 'verbose'"),
        ("version 1", "given 1, expected 0"),
        (
            "help 'scna'",
            "unknown command 'scna'; did you mean 'scan'?",
        ),
        ("flush 't', 1", "column family must be a string"),
        (
            "compaction_state",
            "compaction_state: wrong number of arguments (given 0, expected 1)\n\
             usage: compaction_state 't'",
        ),
        ("compaction_state 't', 'f'", "given 2, expected 1"),
        ("compaction_state 't:u:v'", "invalid table name 'u:v'"),
        ("split 't', ''", "the split key must not be empty"),
        ("exit 0", "given 1, expected 0"),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}

#[test]
fn every_command_has_help_and_parses_its_examples() {
    for c in help::COMMANDS {
        assert!(
            !c.usage.is_empty() && !c.description.is_empty(),
            "{}",
            c.name
        );
        assert!(c.usage.starts_with(c.name), "{}", c.name);
        for example in c.examples {
            assert!(
                parse_command(example).is_ok_and(|c| c.is_some()),
                "{example}: {:?}",
                parse_command(example)
            );
        }
        assert!(help::detail(c).contains(c.usage));
        assert!(help::overview().contains(c.name));
    }
}

#[test]
fn help_text_has_no_runs_of_spaces_and_wraps_descriptions() {
    for c in crate::help::COMMANDS {
        assert!(
            !c.description.contains("  "),
            "{}: {:?}",
            c.name,
            c.description
        );
        let detail = crate::help::detail(c);
        let description = detail.split("\n\n").next().unwrap();
        for line in description.lines() {
            assert!(line.chars().count() <= 80, "{}: {line:?}", c.name);
        }
    }
    let overview = crate::help::overview();
    for line in overview.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
    assert!(overview.contains("\n    move               Moves a region"));
}
