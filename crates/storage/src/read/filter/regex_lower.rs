//! Lowers a parsed `regexstring:` pattern ([`super::regex::Ast`], Java's meaning) into the
//! syntax of the `regex` crate, whose lazy DFA then searches in time linear in the text.
//!
//! Every construct is spelled out explicitly so the crate's own defaults never leak in:
//! characters as `\x{…}` escapes, classes as code-point ranges (Java's ASCII `\d \w \s` and
//! ASCII case folding already expanded), `.` as `(?s:.)`, and Java's `$` as a consuming
//! alternative that ends at the end of the text (see [`JAVA_END`]).

use super::regex::Ast;

/// Most steps a pattern may expand to once repetitions are unrolled (the bound the patterns
/// accepted so far were held to; it keeps compiled automata small).
const MAX_STEPS: u64 = 10_000;

/// Java's `$` (and `\Z`) without `MULTILINE`: the end of the text, or just before a line
/// terminator that ends it (`\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029), never between `\r`
/// and `\n`. The crate has no lookahead, so the terminator is *consumed*; `(?mR:$)` (CRLF
/// multi-line end) supplies the "not between `\r` and `\n`" rule. Consuming is exact only
/// when nothing but other end assertions can follow, which [`check_end_is_last`] enforces.
const JAVA_END: &str = r"(?:(?mR:$)(?:\r\n|[\r\n])?\z|[\x{85}\x{2028}\x{2029}]\z)";

/// A set of characters: ranges of code points, maybe negated, maybe ASCII case-insensitive.
#[derive(Clone, Debug, Default)]
pub(super) struct CharSet {
    /// Inclusive code-point ranges.
    pub(super) ranges: Vec<(u32, u32)>,
    /// Matches the characters *not* in the ranges.
    pub(super) negated: bool,
    /// Also matches the other ASCII case of a character in the ranges.
    pub(super) fold: bool,
}

impl CharSet {
    /// Adds `lo..=hi`.
    pub(super) fn add(&mut self, lo: char, hi: char) {
        self.ranges.push((lo as u32, hi as u32));
    }

    /// Adds Java's `\d \D \w \W \s \S`.
    pub(super) fn add_shorthand(&mut self, c: char) {
        let base: &[(u32, u32)] = match c.to_ascii_lowercase() {
            'd' => &[(0x30, 0x39)],
            'w' => &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
            _ => &[(0x09, 0x0D), (0x20, 0x20)], // \s: [ \t\n\x0B\f\r]
        };
        if c.is_ascii_lowercase() {
            self.ranges.extend_from_slice(base);
        } else {
            let mut next = 0;
            for &(lo, hi) in base {
                if lo > next {
                    self.ranges.push((next, lo - 1));
                }
                next = hi + 1;
            }
            self.ranges.push((next, char::MAX as u32));
        }
    }

    fn has(&self, c: u32) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }

    /// The set as a class of the crate's syntax.
    fn lower(&self, out: &mut String) {
        let mut ranges = self.ranges.clone();
        if self.fold {
            // Java's default CASE_INSENSITIVE folds ASCII letters only.
            for c in (b'a'..=b'z').chain(b'A'..=b'Z') {
                let other = u32::from(c.to_ascii_uppercase() ^ c.to_ascii_lowercase() ^ c);
                if self.has(other) {
                    ranges.push((u32::from(c), u32::from(c)));
                }
            }
        }
        out.push('[');
        if self.negated {
            out.push('^');
        }
        for (lo, hi) in ranges {
            // Ranges come from Java's UTF-16 view and may span the surrogates, which are not
            // characters of a Rust string; drop that part.
            for (lo, hi) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
                if lo <= hi {
                    out.push_str(&format!(r"\x{{{lo:X}}}-\x{{{hi:X}}}"));
                }
            }
        }
        out.push(']');
    }
}

/// The pattern `ast` in the crate's syntax.
///
/// # Errors
/// The pattern expands to more than [`MAX_STEPS`] steps, or has something able to match
/// after a `$`/`\Z` (see [`check_end_is_last`]).
pub(super) fn lower(ast: &Ast) -> Result<String, String> {
    if steps(ast).saturating_add(1) > MAX_STEPS {
        return Err(format!(
            "pattern too large (over {MAX_STEPS} steps once repetitions are expanded)"
        ));
    }
    check_end_is_last(ast, false)?;
    let mut out = String::new();
    emit(ast, &mut out);
    Ok(out)
}

/// How many automaton steps `ast` unrolls to (a character, an assertion, a branch or a loop
/// each count one).
fn steps(ast: &Ast) -> u64 {
    match ast {
        Ast::Empty => 0,
        Ast::Char(_) | Ast::Set(_) | Ast::Any | Ast::Start | Ast::End | Ast::EndOfText => 1,
        Ast::Concat(items) => items.iter().map(steps).fold(0, u64::saturating_add),
        Ast::Alt(branches) => branches.iter().map(steps).fold(
            2 * (branches.len() as u64).saturating_sub(1),
            u64::saturating_add,
        ),
        Ast::Repeat { node, min, max } => {
            let one = steps(node);
            let required = one.saturating_mul(u64::from(*min));
            let optional = match max {
                None => one.saturating_add(2),
                Some(max) => u64::from(max - min).saturating_mul(one.saturating_add(1)),
            };
            required.saturating_add(optional)
        }
    }
}

/// True if `ast` can match at least one character or a start-of-text assertion: anything
/// but end assertions and empty nodes.
fn consumes(ast: &Ast) -> bool {
    match ast {
        Ast::Empty | Ast::End | Ast::EndOfText => false,
        Ast::Char(_) | Ast::Set(_) | Ast::Any | Ast::Start => true,
        Ast::Concat(items) | Ast::Alt(items) => items.iter().any(consumes),
        Ast::Repeat { node, max, .. } => *max != Some(0) && consumes(node),
    }
}

/// Rejects a `$`/`\Z` that something other than end assertions may follow (`a$\n`, `$\z`,
/// `(a$)+`): Java tests the assertion without consuming the final line terminator, which the
/// crate cannot express. Such a pattern can only ever match inside that terminator.
fn check_end_is_last(ast: &Ast, followed: bool) -> Result<(), String> {
    match ast {
        Ast::End if followed => Err("'$' or '\\Z' must end the pattern (or its branch of '|'); \
             only '$' may follow it"
            .to_string()),
        Ast::EndOfText if followed => Ok(()),
        Ast::Empty | Ast::Char(_) | Ast::Set(_) | Ast::Any | Ast::Start | Ast::End => Ok(()),
        Ast::EndOfText => Ok(()),
        Ast::Concat(items) => {
            for (i, item) in items.iter().enumerate() {
                let rest = items[i + 1..]
                    .iter()
                    .any(|a| consumes(a) || matches!(a, Ast::EndOfText) || has_end_of_text(a));
                check_end_is_last(item, followed || rest)?;
            }
            Ok(())
        }
        Ast::Alt(branches) => branches
            .iter()
            .try_for_each(|b| check_end_is_last(b, followed)),
        Ast::Repeat { node, max, .. } => {
            let again = max.is_none_or(|m| m > 1) && (consumes(node) || has_end_of_text(node));
            check_end_is_last(node, followed || again)
        }
    }
}

/// True if `ast` contains a `\z`.
fn has_end_of_text(ast: &Ast) -> bool {
    match ast {
        Ast::EndOfText => true,
        Ast::Concat(items) | Ast::Alt(items) => items.iter().any(has_end_of_text),
        Ast::Repeat { node, .. } => has_end_of_text(node),
        _ => false,
    }
}

fn emit(ast: &Ast, out: &mut String) {
    match ast {
        Ast::Empty => out.push_str("(?:)"),
        Ast::Char(c) if c.is_ascii_alphanumeric() => out.push(*c),
        Ast::Char(c) => out.push_str(&format!(r"\x{{{:X}}}", u32::from(*c))),
        Ast::Set(set) => set.lower(out),
        Ast::Any => out.push_str("(?s:.)"),
        Ast::Start => out.push_str(r"\A"),
        Ast::End => out.push_str(JAVA_END),
        Ast::EndOfText => out.push_str(r"\z"),
        Ast::Concat(items) => {
            for item in items {
                emit(item, out);
            }
        }
        Ast::Alt(branches) => {
            out.push_str("(?:");
            for (i, branch) in branches.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(branch, out);
            }
            out.push(')');
        }
        Ast::Repeat { node, min, max } => {
            out.push_str("(?:");
            emit(node, out);
            out.push(')');
            match max {
                None => out.push_str(&format!("{{{min},}}")),
                Some(max) => out.push_str(&format!("{{{min},{max}}}")),
            }
        }
    }
}
