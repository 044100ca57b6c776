//! Arbitrary input never panics: it parses or fails with an error.

use proptest::prelude::*;

use crate::parse_command;

/// Fragments of the shell language, so random lines reach deep into the parsers.
const PIECES: &[&str] = &[
    "put",
    "get",
    "scan",
    "create",
    "alter",
    "delete",
    "deleteall",
    "count",
    "incr",
    "split",
    "'t'",
    "'r'",
    "'cf:q'",
    "\"\\x00\\xff\"",
    "'",
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    "=>",
    "NAME",
    "VERSIONS",
    "SPLITS",
    "NUMREGIONS",
    "SPLITALGO",
    "'HexStringSplit'",
    "TIMERANGE",
    "COLUMNS",
    "METHOD",
    "'delete'",
    "1",
    "-1",
    "0",
    "9223372036854775807",
    "-9223372036854775808",
    "1.5e308",
    "1_0",
    "nil",
    "true",
    " ",
    "#",
    ":",
    ".",
    "\u{e9}",
];

fn line_of_pieces() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..24).prop_map(|p| p.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(line in any::<String>()) {
        let _ = parse_command(&line);
    }

    #[test]
    fn shell_like_text_never_panics(line in line_of_pieces()) {
        let _ = parse_command(&line);
    }

    #[test]
    fn commands_with_random_numbers_never_panic(
        n in any::<i64>(),
        m in any::<i64>(),
        regions in any::<u32>(),
    ) {
        for line in [
            format!("put 't', 'r', 'f:q', 'v', {n}"),
            format!("get 't', 'r', {{TIMERANGE => [{n}, {m}], VERSIONS => {m}}}"),
            format!("scan 't', {{LIMIT => {n}, CACHE => {m}, TIMESTAMP => {n}}}"),
            format!("deleteall 't', 'r', nil, {n}"),
            format!("incr 't', 'r', 'f:q', {n}"),
            format!("create 't', 'f', {{NUMREGIONS => {regions}, SPLITALGO => 'UniformSplit'}}"),
            format!("create 't', {{NAME => 'f', VERSIONS => {n}, TTL => {m}}}"),
        ] {
            let _ = parse_command(&line);
        }
    }
}
