//! The `regexstring:` subset against Java's `Pattern.compile(p, DOTALL).matcher(s).find()`.

use super::{FilterError, Regex};

fn find(pattern: &str, text: &str) -> bool {
    Regex::new(pattern)
        .unwrap_or_else(|e| panic!("{pattern}: {e}"))
        .is_match(text)
}

fn rejects(pattern: &str, why: &str) {
    match Regex::new(pattern) {
        Err(FilterError::Regex { reason, .. }) => {
            assert!(reason.contains(why), "{pattern}: {reason:?} lacks {why:?}")
        }
        other => panic!("{pattern}: expected an error, got {other:?}"),
    }
}

#[test]
fn literals_search_anywhere() {
    assert!(find("abc", "xxabcxx"));
    assert!(!find("abc", "ab c"));
    assert!(find("", "anything"));
    assert!(find("", ""));
    assert!(find("a\\.b", "a.b") && !find("a\\.b", "axb"));
    assert!(find("é+", "café"));
    assert!(find("\\x41\\u0042\\x{43}\\t", "ABC\t"));
    assert!(find("\\Q.*+\\E!", "a.*+!") && !find("\\Q.*\\E", "ab"));
    assert!(find("^\\Qab\\E+$", "abbb") && !find("^\\Qab\\E+$", "abab"));
    assert!(find("^\\Qa|b", "a|b") && !find("^\\Qa|b", "b"));
}

#[test]
fn dot_matches_everything_including_newlines() {
    assert!(find("a.c", "abc") && find("a.c", "a\nc"));
    assert!(find("^.*$", "") && find("^.+$", "x\ny"));
    assert!(!find("a.c", "ac"));
}

#[test]
fn anchors_follow_java() {
    assert!(find("^ab", "abc") && !find("^ab", "cab"));
    assert!(find("bc$", "abc") && !find("bc$", "bca"));
    assert!(find("bc$", "abc\n") && find("bc$", "abc\r\n") && find("bc$", "abc\r"));
    assert!(!find("bc$", "abc\n\n"));
    assert!(!find("\\r$", "a\r\n"), "no $ between \\r and \\n");
    assert!(find("bc\\z", "abc") && !find("bc\\z", "abc\n"));
    assert!(find("\\Aab\\Z", "ab\n"));
    assert!(find("^$", "") && !find("^$", "x"));
    assert!(!find("a^b", "a^b"), "^ only at the start without MULTILINE");
}

#[test]
fn classes() {
    assert!(find("^[a-c]+$", "abcabc") && !find("^[a-c]+$", "abcd"));
    assert!(find("[^0-9]", "12a") && !find("[^0-9]", "123"));
    assert!(find("^[-a]+$", "a-a") && find("^[a-]+$", "-a"));
    assert!(find("[\\]x]", "]") && find("[.]", ".") && !find("[.]", "a"));
    assert!(find("^\\d{3}-\\d{4}$", "555-1234") && !find("^\\d{3}$", "12a"));
    assert!(find("^\\w+$", "snake_Case9") && !find("^\\w+$", "a b"));
    assert!(find("\\s", "a b") && !find("\\S", " \t\n"));
    assert!(find("^[\\d\\s]+$", "1 2") && find("[\\D]", "1a") && !find("[\\D]", "12"));
    assert!(find("^[^\\w]$", "-") && !find("^[^\\w]$", "a"));
}

#[test]
fn quantifiers_and_repetitions() {
    assert!(find("^ab*c$", "ac") && find("^ab*c$", "abbbc"));
    assert!(find("^ab+c$", "abc") && !find("^ab+c$", "ac"));
    assert!(find("^ab?c$", "ac") && find("^ab?c$", "abc") && !find("^ab?c$", "abbc"));
    assert!(find("^a{2}$", "aa") && !find("^a{2}$", "aaa"));
    assert!(find("^a{2,}$", "aaaa") && !find("^a{2,}$", "a"));
    assert!(find("^a{1,3}$", "aaa") && !find("^a{1,3}$", "aaaa"));
    assert!(
        find("^a*?b+?$", "aabb"),
        "lazy quantifiers accept the same texts"
    );
    assert!(find("^a{0}b$", "b"));
}

#[test]
fn groups_and_alternation() {
    assert!(find("^(foo|bar)-\\d+$", "bar-12") && !find("^(foo|bar)-\\d+$", "baz-12"));
    assert!(find("^(?:ab)+$", "ababab") && !find("^(?:ab)+$", "aba"));
    assert!(find("a|^b", "cb-a") && find("a|^b", "bc") && !find("x|^b", "cb"));
    assert!(find("^(a|)$", "") && find("^(|a)b", "ab"));
    assert!(find("^((a|b)c)*$", "acbcac"));
}

#[test]
fn leading_flags() {
    assert!(find("(?i)^hello$", "HeLLo") && !find("^hello$", "HeLLo"));
    assert!(find("(?i)[a-c]x", "BX") && find("(?i)[^a]", "b") && !find("(?i)^[^a]$", "A"));
    assert!(find("(?s)a.b", "a\nb") && find("(?is)A.B", "a\nb"));
    assert!(
        !find("(?i)é", "É"),
        "Java's default case folding is ASCII only"
    );
}

#[test]
fn unsupported_syntax_is_rejected_at_compile_time() {
    rejects("(?=a)b", "lookaround");
    rejects("(?<name>a)", "named groups");
    rejects("a(?i)b", "inline flags");
    rejects("(a)\\1", "backreferences");
    rejects("a*+", "possessive");
    rejects("\\bword\\b", "unsupported escape \\b");
    rejects("\\p{Alpha}", "unsupported escape \\p");
    rejects("[a-z&&[^e]]", "intersections");
    rejects("[a[b]]", "nested");
    rejects("*a", "nothing to repeat");
    rejects("a**", "another quantifier");
    rejects("^*", "must follow something");
    rejects("(ab", "unclosed group");
    rejects("ab)", "unmatched ')'");
    rejects("[ab", "unclosed character class");
    rejects("[]", "empty character class");
    rejects("[z-a]", "out of order");
    rejects("a{3,2}", "m < n");
    rejects("a{2000}", "above 1000");
    rejects("a{x}", "must start a repetition");
    rejects("(a{1000}){1000}", "too large");
    rejects("ab\\", "trailing backslash");
    rejects("a$\\n", "must end the pattern");
    rejects("a$\\z", "must end the pattern");
    rejects("(a$)+", "must end the pattern");
    rejects("(a$|b)c", "must end the pattern");
    rejects("$^", "must end the pattern");
}

#[test]
fn end_assertions_in_last_position() {
    assert!(find("a$|b", "xa\n") && find("a$|b", "b!") && !find("a$|c", "a!"));
    assert!(find("a$$", "a\r\n") && find("a\\Z$", "a") && !find("a$$", "a\n\n"));
    assert!(find("^$", "\n") && find("^$", "\u{2028}") && !find("^$", "\n\n"));
    assert!(
        find("a(?:b$)?", "ab\nx"),
        "an optional group may hold the end"
    );
    assert!(find("^(a$)?", "a\n") && find("(a$){1}", "a\r"));
    assert!(find("\\r$", "a\r") && find("\\r$", "a\r\r") && !find("a\\r$", "a\r\r\r"));
    assert!(find("$", "") && find("$", "anything"));
}

#[test]
fn classes_across_the_whole_code_space() {
    assert!(find("^\\D+$", "a\u{10FFFF}\u{E000}\u{D7FF}") && !find("\\D", "123"));
    assert!(find("^[^a]$", "\u{10FFFF}") && find("^[\\x{0}-\\x{10FFFF}]$", "\u{1F600}"));
    assert!(
        find("(?i)^[^\\x{0}-@\\[-`{-\\x{10FFFF}]+$", "aZ"),
        "folding a negated class"
    );
    assert!(find("(?i)[X-Z]", "y") && !find("(?i)[X-Z]", "w"));
    assert!(
        !find("[^\\x{0}-\\x{10FFFF}]", "abc"),
        "a class matching nothing"
    );
}

#[test]
fn invalid_utf8_is_searched_as_its_replacement() {
    let re = Regex::new("^a.b$").unwrap();
    assert!(re.is_match_bytes(b"a\xFFb") && re.is_match_bytes(b"a\xE2\x82b"));
    assert!(!re.is_match_bytes(b"a\xFF\xFFb"));
    assert!(Regex::new("^é$").unwrap().is_match_bytes("é".as_bytes()));
}

#[test]
fn no_catastrophic_backtracking() {
    let text = "a".repeat(5_000);
    assert!(!find("^(a*)*b$", &text));
    assert!(!find("(a|aa)+c", &text));
    assert!(!find(".*.*.*.*.*=", &text));
    assert!(find("(a|aa)+$", &text));
}

#[test]
fn bytes_decode_lossily() {
    let re = Regex::new("^a\u{FFFD}b$").unwrap();
    assert!(re.is_match_bytes(b"a\xFFb"));
}

/// Java's `$` without MULTILINE, written out: the end, or before a line terminator that ends
/// the text, never between `\r` and `\n`.
fn java_end(text: &str, pos: usize) -> bool {
    match &text[pos..] {
        "" | "\r\n" | "\r" | "\u{85}" | "\u{2028}" | "\u{2029}" => true,
        "\n" => !text[..pos].ends_with('\r'),
        _ => false,
    }
}

proptest::proptest! {
    /// `x$` and `^$`, against the definition, over texts dense in line terminators.
    #[test]
    fn java_end_matches_its_definition(
        chars in proptest::collection::vec(
            proptest::sample::select(vec!['a', 'x', '\r', '\n', '\u{85}', '\u{2028}']), 0..8)
    ) {
        let text: String = chars.into_iter().collect();
        for (pattern, atom) in [("a$", "a"), ("\\r$", "\r"), ("\\n$", "\n"), ("x\\Z", "x")] {
            let expected = text
                .match_indices(atom)
                .any(|(i, m)| java_end(&text, i + m.len()));
            proptest::prop_assert_eq!(find(pattern, &text), expected, "{:?} on {:?}", pattern, text);
        }
        proptest::prop_assert_eq!(find("^$", &text), java_end(&text, 0));
    }
}
