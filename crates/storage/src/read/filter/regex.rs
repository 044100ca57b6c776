//! `regexstring:` patterns: a parser for the subset of Java's regular expressions HBase users
//! rely on. The parsed pattern is lowered ([`super::regex_lower`]) to the `regex` crate,
//! which does the matching.

use super::regex_lower::{lower, CharSet};
use super::FilterError;

/// Compiled-automaton size limit handed to the `regex` crate. Patterns are already held to a
/// step bound when lowered; this only keeps the crate from refusing one of those.
const AUTOMATON_BYTES: usize = 64 << 20;

/// Deepest group nesting accepted.
const MAX_GROUP_DEPTH: usize = 64;
/// Largest `{n,m}` bound accepted.
const MAX_REPEAT: u32 = 1_000;

/// A compiled `regexstring:` pattern, matched as HBase's `RegexStringComparator` does: the
/// value is decoded as UTF-8 and *searched* (Java's `Matcher.find`), with `DOTALL` (`.` also
/// matches line terminators).
///
/// Supported syntax (Java's meaning):
/// - literal characters; `\` before any non-alphanumeric character; `\t \n \r \f \a \e`,
///   `\xhh`, `\x{h…}`, `\uhhhh`, `\0ooo`; `\Q…\E` quoting;
/// - `.`; `^` and `\A` (start of the text); `$` and `\Z` (end, or before a final line
///   terminator); `\z` (end);
/// - classes `[abc]`, `[a-z]`, `[^…]` and the shorthands `\d \D \w \W \s \S` (inside classes
///   too);
/// - groups `(…)` and `(?:…)`, alternation `|`;
/// - quantifiers `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (n, m ≤ 1000), also lazy (`*?` …: a
///   search only asks *whether* a match exists, so laziness changes nothing);
/// - leading flags `(?i)` (ASCII case-insensitive, as Java's default) and `(?s)` (no effect).
///
/// Rejected when the filter is compiled: backreferences, lookaround, possessive quantifiers,
/// word boundaries `\b \B`, `\p{…}` classes, nested or intersected classes, inline flags
/// other than a leading `(?i)`/`(?s)`, named groups, and anything but `$` after a `$`/`\Z`
/// (`a$\n`, `$\z`, `(a$)+`: such a pattern could only match inside the final line
/// terminator).
///
/// Matching runs the `regex` crate's lazy DFA: time linear in the text, with no
/// catastrophic backtracking.
#[derive(Clone, Debug)]
pub struct Regex {
    matcher: regex::Regex,
}

impl Regex {
    /// Compiles `pattern`.
    ///
    /// # Errors
    /// [`FilterError::Regex`] for malformed or unsupported syntax.
    pub fn new(pattern: &str) -> Result<Regex, FilterError> {
        let mut p = Parser {
            pattern,
            chars: pattern.chars().collect(),
            pos: 0,
            fold: false,
            depth: 0,
        };
        p.leading_flags()?;
        let ast = p.alternation()?;
        if p.pos < p.chars.len() {
            return Err(p.error("unmatched ')'"));
        }
        let lowered = lower(&ast).map_err(|reason| p.error(reason))?;
        let matcher = regex::RegexBuilder::new(&lowered)
            .size_limit(AUTOMATON_BYTES)
            .nest_limit(u32::try_from(4 * MAX_GROUP_DEPTH + 16).unwrap_or(u32::MAX))
            .build()
            .map_err(|e| p.error(format!("pattern too large or malformed ({e})")))?;
        Ok(Regex { matcher })
    }

    /// True if the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.matcher.is_match(text)
    }

    /// True if the pattern matches somewhere in `bytes` decoded as UTF-8 (invalid sequences
    /// become U+FFFD, as Java's decoder does). Valid UTF-8 is searched in place.
    pub fn is_match_bytes(&self, bytes: &[u8]) -> bool {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.is_match(text),
            Err(_) => self.is_match(&String::from_utf8_lossy(bytes)),
        }
    }
}

/// A parsed pattern.
#[derive(Clone, Debug)]
pub(super) enum Ast {
    /// Matches the empty string.
    Empty,
    /// One character.
    Char(char),
    /// One character of a set.
    Set(CharSet),
    /// Any character.
    Any,
    /// Start of the text.
    Start,
    /// End of the text, or before a final line terminator.
    End,
    /// End of the text.
    EndOfText,
    /// One after the other.
    Concat(Vec<Ast>),
    /// One of.
    Alt(Vec<Ast>),
    /// Between `min` and `max` (unbounded: `None`) repetitions.
    Repeat {
        /// What repeats.
        node: Box<Ast>,
        /// Fewest.
        min: u32,
        /// Most.
        max: Option<u32>,
    },
}

pub(super) struct Parser<'p> {
    pub(super) pattern: &'p str,
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    /// ASCII case-insensitive (`(?i)`).
    pub(super) fold: bool,
    pub(super) depth: usize,
}

impl Parser<'_> {
    pub(super) fn error(&self, reason: impl Into<String>) -> FilterError {
        FilterError::Regex {
            pattern: self.pattern.to_string(),
            position: self.pos,
            reason: reason.into(),
        }
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += 1;
        }
        hit
    }

    /// `(?i)`, `(?s)`, `(?is)` … at the very start.
    fn leading_flags(&mut self) -> Result<(), FilterError> {
        while self.peek() == Some('(') && self.peek_at(1) == Some('?') {
            let mut end = self.pos + 2;
            while matches!(self.chars.get(end), Some('i' | 's')) {
                end += 1;
            }
            if end == self.pos + 2 || self.chars.get(end) != Some(&')') {
                return Ok(()); // not a flag group; the group parser reports it
            }
            self.fold |= self.chars[self.pos + 2..end].contains(&'i');
            self.pos = end + 1;
        }
        Ok(())
    }

    fn alternation(&mut self) -> Result<Ast, FilterError> {
        let mut branches = vec![self.concat()?];
        while self.eat('|') {
            branches.push(self.concat()?);
        }
        Ok(match branches.len() {
            1 => branches.pop().unwrap_or(Ast::Empty),
            _ => Ast::Alt(branches),
        })
    }

    fn concat(&mut self) -> Result<Ast, FilterError> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            if c == '\\' && self.peek_at(1) == Some('Q') {
                // A quantifier after `\Q…\E` repeats the last quoted character, as in Java.
                self.pos += 2;
                let mut quoted = self.quoted();
                if let Some(last) = quoted.pop() {
                    items.append(&mut quoted);
                    items.push(self.quantified(last)?);
                }
                continue;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(match items.len() {
            0 => Ast::Empty,
            1 => items.pop().unwrap_or(Ast::Empty),
            _ => Ast::Concat(items),
        })
    }

    fn atom(&mut self) -> Result<Ast, FilterError> {
        let Some(c) = self.bump() else {
            return Ok(Ast::Empty);
        };
        match c {
            '(' => self.group(),
            '[' => self.class(),
            '.' => Ok(Ast::Any),
            '^' => Ok(Ast::Start),
            '$' => Ok(Ast::End),
            '\\' => self.escape(),
            '*' | '+' | '?' => Err(self.error(format!("nothing to repeat before '{c}'"))),
            '{' => Err(self.error("nothing to repeat before '{' (write '\\{' for the character)")),
            c => Ok(self.literal(c)),
        }
    }

    fn group(&mut self) -> Result<Ast, FilterError> {
        if self.eat('?') && !self.eat(':') {
            return Err(self.error(
                "only (?:…) groups and leading (?i)/(?s) flags are supported (no lookaround, \
                 named groups or inline flags)",
            ));
        }
        self.depth += 1;
        if self.depth > MAX_GROUP_DEPTH {
            return Err(self.error(format!("groups nest deeper than {MAX_GROUP_DEPTH}")));
        }
        let inner = self.alternation()?;
        self.depth -= 1;
        if !self.eat(')') {
            return Err(self.error("unclosed group"));
        }
        Ok(inner)
    }

    pub(super) fn literal(&self, c: char) -> Ast {
        if self.fold && c.is_ascii_alphabetic() {
            let mut set = CharSet::default();
            set.add(c.to_ascii_lowercase(), c.to_ascii_lowercase());
            set.add(c.to_ascii_uppercase(), c.to_ascii_uppercase());
            Ast::Set(set)
        } else {
            Ast::Char(c)
        }
    }

    fn quantified(&mut self, atom: Ast) -> Result<Ast, FilterError> {
        let bounds = match self.peek() {
            Some('*') => Some((0, None)),
            Some('+') => Some((1, None)),
            Some('?') => Some((0, Some(1))),
            Some('{') => None,
            _ => return Ok(atom),
        };
        self.pos += 1;
        let (min, max) = match bounds {
            Some(b) => b,
            None => self.counts()?,
        };
        if matches!(atom, Ast::Start | Ast::End | Ast::EndOfText | Ast::Empty) {
            return Err(self.error("a quantifier must follow something that matches characters"));
        }
        if self.peek() == Some('+') {
            return Err(self.error("possessive quantifiers (*+, ++, ?+, {n}+) are not supported"));
        }
        self.eat('?'); // lazy: the same texts match
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err(self.error("a quantifier cannot follow another quantifier"));
        }
        Ok(Ast::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    /// After `{`: `n}`, `n,}` or `n,m}`.
    fn counts(&mut self) -> Result<(u32, Option<u32>), FilterError> {
        let min = self
            .number()?
            .ok_or_else(|| self.error("'{' must start a repetition {n}, {n,} or {n,m}"))?;
        let max = if self.eat(',') {
            self.number()?
        } else {
            Some(min)
        };
        if !self.eat('}') {
            return Err(self.error("unclosed repetition: expected '}'"));
        }
        if max.is_some_and(|m| m < min) {
            return Err(self.error("repetition {n,m} with m < n"));
        }
        Ok((min, max))
    }

    fn number(&mut self) -> Result<Option<u32>, FilterError> {
        let start = self.pos;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.pos += 1;
        }
        if n > MAX_REPEAT {
            return Err(self.error(format!("repetition counts above {MAX_REPEAT}")));
        }
        Ok((self.pos > start).then_some(n))
    }
}
