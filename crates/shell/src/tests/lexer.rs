//! Literals: strings and their escapes, numbers, hashes, arrays, statement forms.

use crate::value::{parse_statement, Value};
use crate::ShellError;

fn args(line: &str) -> Vec<Value> {
    parse_statement(line).unwrap().unwrap().args
}

fn one(literal: &str) -> Value {
    let mut a = args(&format!("x {literal}"));
    assert_eq!(a.len(), 1, "{literal}");
    a.remove(0)
}

fn s(bytes: &[u8]) -> Value {
    Value::Str(bytes.to_vec())
}

#[test]
fn single_quoted_strings_know_only_two_escapes() {
    assert_eq!(one(r"'it\'s'"), s(b"it's"));
    assert_eq!(one(r"'a\\b'"), s(b"a\\b"));
    assert_eq!(one(r"'\x00\n'"), s(b"\\x00\\n"));
    assert_eq!(one("''"), s(b""));
    assert_eq!(one("'h\u{e9}'"), s("h\u{e9}".as_bytes()));
}

#[test]
fn double_quoted_strings_yield_bytes() {
    assert_eq!(one(r#""\x00\xff""#), s(&[0x00, 0xff]));
    assert_eq!(one(r#""\xA""#), s(&[0x0a]));
    assert_eq!(one(r#""a\tb\nc\"d\\e""#), s(b"a\tb\nc\"d\\e"));
    assert_eq!(one(r#""\0\101\e\s""#), s(&[0, b'A', 0x1b, b' ']));
    assert_eq!(one(r#""\u00e9\u{1F600}""#), s("\u{e9}\u{1F600}".as_bytes()));
    assert_eq!(one(r#""\q\#{x}""#), s(b"q#{x}"));
    assert_eq!(one(r##""a#b""##), s(b"a#b"));
}

#[test]
fn numbers() {
    assert_eq!(one("42"), Value::Int(42));
    assert_eq!(one("-42"), Value::Int(-42));
    assert_eq!(one("+7"), Value::Int(7));
    assert_eq!(one("1_000_000"), Value::Int(1_000_000));
    assert_eq!(one("0x1F"), Value::Int(31));
    assert_eq!(one("0b101"), Value::Int(5));
    assert_eq!(one("-9223372036854775808"), Value::Int(i64::MIN));
    assert_eq!(one("9223372036854775807"), Value::Int(i64::MAX));
    assert_eq!(one("1.5"), Value::Float(1.5));
    assert_eq!(one("-2.5e3"), Value::Float(-2500.0));
    assert_eq!(one("1e-2"), Value::Float(0.01));
}

#[test]
fn constants_keywords_arrays_hashes() {
    assert_eq!(one("true"), Value::Bool(true));
    assert_eq!(one("false"), Value::Bool(false));
    assert_eq!(one("nil"), Value::Nil);
    assert_eq!(one("VERSIONS"), Value::Const("VERSIONS".into()));
    assert_eq!(one("[]"), Value::Array(vec![]));
    assert_eq!(
        one("['a', 1, [2],]"),
        Value::Array(vec![
            s(b"a"),
            Value::Int(1),
            Value::Array(vec![Value::Int(2)])
        ])
    );
    assert_eq!(
        one("{NAME => 'f', CONFIGURATION => {'k' => 'v'}}"),
        Value::Hash(vec![
            (Value::Const("NAME".into()), s(b"f")),
            (
                Value::Const("CONFIGURATION".into()),
                Value::Hash(vec![(s(b"k"), s(b"v"))])
            ),
        ])
    );
}

#[test]
fn statement_forms() {
    let st = parse_statement("  get 't', 'r'  # comment")
        .unwrap()
        .unwrap();
    assert_eq!((st.command.as_str(), st.column), ("get", 3));
    assert_eq!(st.args, vec![s(b"t"), s(b"r")]);
    assert_eq!(args("get('t', 'r',)"), vec![s(b"t"), s(b"r")]);
    assert_eq!(args("get ('t')"), vec![s(b"t")]);
    assert_eq!(args("list;"), vec![]);
    // Trailing pairs form one implicit hash.
    assert_eq!(
        args("alter 't', NAME => 'f', METHOD => 'delete'"),
        vec![
            s(b"t"),
            Value::Hash(vec![
                (Value::Const("NAME".into()), s(b"f")),
                (Value::Const("METHOD".into()), s(b"delete")),
            ])
        ]
    );
    assert_eq!(parse_statement("").unwrap(), None);
    assert_eq!(parse_statement("   # only a comment").unwrap(), None);
    assert_eq!(parse_statement(";").unwrap(), None);
}

fn syntax(line: &str) -> (usize, String) {
    match parse_statement(line) {
        Err(ShellError::Syntax { column, message }) => (column, message),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn syntax_errors_carry_the_column() {
    assert_eq!(
        syntax("put 't', 'r', 'abc"),
        (15, "unterminated string starting at column 15".into())
    );
    assert_eq!(syntax(r#"put "a\"#).0, 5);
    let (col, msg) = syntax("get 't' 'r'");
    assert_eq!(col, 9);
    assert!(msg.contains("expected ','"), "{msg}");
    let (col, msg) = syntax("get 't', @");
    assert_eq!(col, 10);
    assert!(msg.contains("unexpected character '@'"), "{msg}");
    assert!(syntax("get 't', {NAME 'f'}").1.contains("'=>'"));
    assert!(syntax("get 't', [1, 2").1.contains("end of line"));
    assert!(syntax("get 't',").1.contains("expected a value"));
    assert!(syntax("get 't', 1__0").1.contains("malformed number"));
    assert!(syntax("get 't', 12ab").1.contains("malformed number"));
    assert!(syntax("get 't', 99999999999999999999")
        .1
        .contains("64 bits"));
    assert!(syntax(r#"get "\xZZ""#).1.contains("invalid \\x escape"));
    assert!(syntax(r#"get "\u12""#).1.contains("\\u"));
    assert!(syntax(r#"get "a#{b}""#).1.contains("interpolation"));
    assert!(syntax("get {NAME: 'f'}").1.contains("symbols"));
    assert!(syntax("get 't', x").1.contains("unknown name 'x'"));
    assert!(syntax("'t'").1.contains("expected a command name"));
    assert!(syntax("get 't', NAME => 'f', 'r'")
        .1
        .contains("after `key => value`"));
    assert!(syntax("get('t'").1.contains("')'"));
    assert!(syntax("get 't' = 1").1.contains("'='"));
}

#[test]
fn java_calls_are_rejected_clearly() {
    for line in [
        "put 't', org.apache.hadoop.hbase.util.Bytes.toBytes(1), 'f:q', 'v'",
        "put 't', Bytes.toBytes(1)",
        "t.put 'r', 'f:q', 'v'",
    ] {
        let (_, msg) = syntax(line);
        assert!(msg.contains("not supported"), "{line}: {msg}");
    }
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("get {}{}", "[".repeat(100), "]".repeat(100));
    assert!(syntax(&deep).1.contains("nested deeper"));
    let ok = format!("get {}{}", "[".repeat(10), "]".repeat(10));
    assert!(parse_statement(&ok).is_ok());
}
