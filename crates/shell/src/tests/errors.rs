//! Error messages: unknown commands with suggestions, usage lines, syntax errors.

use super::{fail, message};
use crate::help::{edit_distance, suggest};
use crate::ShellError;

#[test]
fn unknown_commands_suggest_the_closest_name() {
    assert_eq!(
        fail("scna 't'"),
        ShellError::UnknownCommand {
            name: "scna".into(),
            suggestion: Some("scan"),
        }
    );
    assert_eq!(suggest("delteall"), Some("deleteall"));
    assert_eq!(suggest("majorcompact"), Some("major_compact"));
    assert_eq!(suggest("dscribe"), Some("describe"));
    assert_eq!(suggest("xyzzy_plugh"), None);
    assert_eq!(suggest("lsit"), Some("list"));
    assert_eq!(suggest("exti"), Some("exit"));
    assert_eq!(suggest("dsecribe"), Some("describe"));
    let m = message("frobnicate 't'");
    assert_eq!(
        m,
        "unknown command 'frobnicate' (type 'help' for the list of commands)"
    );
    let m = message("pt 't', 'r', 'f:q', 'v'");
    assert!(m.contains("did you mean 'put'?"), "{m}");
}

#[test]
fn edit_distances() {
    assert_eq!(edit_distance("", ""), 0);
    assert_eq!(edit_distance("scan", "scan"), 0);
    assert_eq!(edit_distance("scan", "scna"), 1, "a swap is one edit");
    assert_eq!(edit_distance("lsit", "list"), 1);
    assert_eq!(edit_distance("lsit", "exit"), 2);
    assert_eq!(edit_distance("ca", "abc"), 3);
    assert_eq!(edit_distance("get", "gets"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
}

#[test]
fn usage_errors_name_the_command_and_show_its_usage() {
    match fail("put 't', 'r'") {
        ShellError::Usage {
            command,
            message,
            usage,
        } => {
            assert_eq!(command, "put");
            assert_eq!(
                message,
                "wrong number of arguments (given 2, expected 4 to 6)"
            );
            assert_eq!(
                usage,
                "put 't', 'row', 'cf:q', 'value' [, ts] [, {TTL => ms}]"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        message("put 't', 'r', 'f:q', ['v']"),
        "put: value must be a string, got an array\nusage: put 't', 'row', 'cf:q', 'value' [, ts] [, {TTL => ms}]"
    );
}

#[test]
fn invalid_values_name_the_command() {
    assert_eq!(
        message("put 't', '', 'f:q', 'v'"),
        "put: row must not be empty"
    );
    assert!(matches!(
        fail("put 't', 'r', 'f:q', 'v', -3"),
        ShellError::Invalid { .. }
    ));
}

#[test]
fn syntax_errors_read_well() {
    assert_eq!(
        message("put 't', 'r"),
        "syntax error: unterminated string starting at column 10"
    );
    assert!(matches!(
        fail("get 't' 'r'"),
        ShellError::Syntax { column: 9, .. }
    ));
}

#[test]
fn bad_filters_are_reported_with_the_command() {
    let m = message(r#"scan 't', {FILTER => "NoSuchFilter('a')"}"#);
    assert!(m.starts_with("scan: FILTER: "), "{m}");
    let m = message(r#"get 't', 'r', {FILTER => "PrefixFilter('a'"}"#);
    assert!(m.starts_with("get: FILTER: "), "{m}");
}
