//! [`Pattern`]: the regular expressions `list 'regex'` takes, matched against whole table
//! names as Java's `Pattern.matcher(name).matches()` does in HBase's shell.
//!
//! The subset: literals, `.`, classes (`[a-z_]`, `[^0-9]`), escapes (`\.`, `\d`, `\w`, `\s`),
//! groups with alternation (`(a|b)`, `(?:a|b)`), the quantifiers `*`, `+`, `?`, `{n}`,
//! `{n,}`, `{n,m}`, and the anchors `^` and `$`. Matching tracks the set of reachable
//! positions, so its cost is polynomial whatever the pattern.

use std::collections::BTreeSet;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    alternatives: Vec<Vec<Node>>,
}

#[derive(Clone, Debug)]
enum Node {
    Char(char),
    Any,
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    Group(Vec<Vec<Node>>),
    Repeat {
        node: Box<Node>,
        min: usize,
        max: Option<usize>,
    },
    Start,
    End,
}

impl Pattern {
    /// Compiles `source`.
    ///
    /// # Errors
    /// A message naming what is malformed or unsupported.
    pub fn new(source: &str) -> Result<Pattern, String> {
        let chars: Vec<char> = source.chars().collect();
        let mut parser = Parser { chars, pos: 0 };
        let alternatives = parser.alternatives()?;
        if parser.pos < parser.chars.len() {
            return Err(format!("unbalanced ')' at position {}", parser.pos + 1));
        }
        Ok(Pattern { alternatives })
    }

    /// True if the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let input: Vec<char> = text.chars().collect();
        alternatives_ends(&self.alternatives, &input, 0).contains(&input.len())
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += usize::from(c.is_some());
        c
    }

    fn alternatives(&mut self) -> Result<Vec<Vec<Node>>, String> {
        let mut alternatives = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            alternatives.push(self.sequence()?);
        }
        Ok(alternatives)
    }

    fn sequence(&mut self) -> Result<Vec<Node>, String> {
        let mut nodes = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            nodes.push(self.quantified(atom)?);
        }
        Ok(nodes)
    }

    fn atom(&mut self) -> Result<Node, String> {
        let at = self.pos + 1;
        match self.bump() {
            Some('.') => Ok(Node::Any),
            Some('^') => Ok(Node::Start),
            Some('$') => Ok(Node::End),
            Some('(') => {
                if self.chars.get(self.pos..self.pos + 2) == Some(&['?', ':']) {
                    self.pos += 2;
                }
                let group = self.alternatives()?;
                match self.bump() {
                    Some(')') => Ok(Node::Group(group)),
                    _ => Err(format!("unclosed '(' at position {at}")),
                }
            }
            Some('[') => self.class(at),
            Some('\\') => self.escape(at),
            Some(c @ ('*' | '+' | '?' | '{')) => {
                Err(format!("'{c}' at position {at} follows nothing"))
            }
            Some(c) => Ok(Node::Char(c)),
            None => Err("unexpected end of pattern".to_string()),
        }
    }

    fn escape(&mut self, at: usize) -> Result<Node, String> {
        let class = |ranges: &[(char, char)], negated| Node::Class {
            ranges: ranges.to_vec(),
            negated,
        };
        const DIGIT: [(char, char); 1] = [('0', '9')];
        const WORD: [(char, char); 4] = [('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
        const SPACE: [(char, char); 3] = [(' ', ' '), ('\t', '\r'), ('\u{b}', '\u{b}')];
        match self.bump() {
            Some('d') => Ok(class(&DIGIT, false)),
            Some('D') => Ok(class(&DIGIT, true)),
            Some('w') => Ok(class(&WORD, false)),
            Some('W') => Ok(class(&WORD, true)),
            Some('s') => Ok(class(&SPACE, false)),
            Some('S') => Ok(class(&SPACE, true)),
            Some(c) if !c.is_ascii_alphanumeric() => Ok(Node::Char(c)),
            Some(c) => Err(format!("unsupported escape '\\{c}' at position {at}")),
            None => Err(format!("dangling '\\' at position {at}")),
        }
    }

    fn class(&mut self, at: usize) -> Result<Node, String> {
        let negated = self.peek() == Some('^');
        self.pos += usize::from(negated);
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = match self.bump() {
                None => return Err(format!("unclosed '[' at position {at}")),
                Some(']') if !first => break,
                Some('\\') => self
                    .bump()
                    .ok_or_else(|| format!("unclosed '[' at position {at}"))?,
                Some(c) => c,
            };
            first = false;
            let is_range = self.peek() == Some('-') && self.chars.get(self.pos + 1) != Some(&']');
            if is_range && self.chars.get(self.pos + 1).is_some() {
                self.pos += 1;
                let end = self.bump().unwrap_or(c);
                if end < c {
                    return Err(format!("bad range '{c}-{end}' at position {at}"));
                }
                ranges.push((c, end));
            } else {
                ranges.push((c, c));
            }
        }
        Ok(Node::Class { ranges, negated })
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => return self.braces(atom),
            _ => return Ok(atom),
        };
        self.pos += 1;
        // A lazy or possessive suffix changes which match is found, not whether one is.
        if matches!(self.peek(), Some('?' | '+')) {
            self.pos += 1;
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    fn braces(&mut self, atom: Node) -> Result<Node, String> {
        let at = self.pos + 1;
        let close = self.chars[self.pos..]
            .iter()
            .position(|&c| c == '}')
            .ok_or_else(|| format!("unclosed '{{' at position {at}"))?;
        let body: String = self.chars[self.pos + 1..self.pos + close].iter().collect();
        self.pos += close + 1;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("bad repetition '{{{body}}}' at position {at}"))
        };
        let (min, max) = match body.split_once(',') {
            None => {
                let n = number(&body)?;
                (n, Some(n))
            }
            Some((lo, "")) => (number(lo)?, None),
            Some((lo, hi)) => (number(lo)?, Some(number(hi)?)),
        };
        if max.is_some_and(|m| m < min) {
            return Err(format!("bad repetition '{{{body}}}' at position {at}"));
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }
}

/// Every position a match of one of `alternatives` starting at `pos` can end at.
fn alternatives_ends(alternatives: &[Vec<Node>], input: &[char], pos: usize) -> BTreeSet<usize> {
    alternatives
        .iter()
        .flat_map(|seq| sequence_ends(seq, input, BTreeSet::from([pos])))
        .collect()
}

fn sequence_ends(nodes: &[Node], input: &[char], starts: BTreeSet<usize>) -> BTreeSet<usize> {
    nodes.iter().fold(starts, |positions, node| {
        positions
            .into_iter()
            .flat_map(|p| node_ends(node, input, p))
            .collect()
    })
}

fn node_ends(node: &Node, input: &[char], pos: usize) -> BTreeSet<usize> {
    let one = |ok: bool| {
        if ok {
            BTreeSet::from([pos + 1])
        } else {
            BTreeSet::new()
        }
    };
    match node {
        Node::Char(c) => one(input.get(pos) == Some(c)),
        Node::Any => one(pos < input.len()),
        Node::Class { ranges, negated } => one(input
            .get(pos)
            .is_some_and(|c| ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(c)) != *negated)),
        Node::Group(alternatives) => alternatives_ends(alternatives, input, pos),
        Node::Start => (pos == 0).then_some(pos).into_iter().collect(),
        Node::End => (pos == input.len()).then_some(pos).into_iter().collect(),
        Node::Repeat { node, min, max } => {
            let mut reached = BTreeSet::new();
            let mut frontier = BTreeSet::from([pos]);
            // Past input.len() + min rounds nothing new can be reached.
            let rounds = max.unwrap_or(input.len() + min + 1);
            for round in 0..=rounds {
                if round >= *min {
                    reached.extend(frontier.iter().copied());
                }
                if round == rounds || frontier.is_empty() {
                    break;
                }
                frontier = frontier
                    .iter()
                    .flat_map(|&p| node_ends(node, input, p))
                    .collect();
            }
            reached
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn matches(pattern: &str, text: &str) -> bool {
        Pattern::new(pattern).unwrap().matches(text)
    }

    #[test]
    fn whole_names_match() {
        assert!(matches("abc", "abc"));
        assert!(!matches("abc", "abcd"));
        assert!(matches("abc.*", "abcd"));
        assert!(matches("ns:.*", "ns:t1"));
        assert!(!matches("ns:.*", "t1"));
        assert!(matches("^t\\d+$", "t42"));
        assert!(!matches("t\\d+", "t4x"));
    }

    #[test]
    fn classes_groups_and_repetition() {
        assert!(matches("[a-c_]+", "a_b_c"));
        assert!(!matches("[^a-c]+", "xyzb"));
        assert!(matches("(foo|bar)_\\w*", "bar_1"));
        assert!(matches("(?:foo|bar)s?", "foos"));
        assert!(matches("a{2,3}", "aaa"));
        assert!(!matches("a{2,3}", "aaaa"));
        assert!(matches("a{2,}b", "aaaab"));
        assert!(matches("(a*)*b", "aaab"));
        assert!(!matches("(a*)*b", &"a".repeat(40)));
    }

    #[test]
    fn malformed_patterns_are_errors() {
        for bad in ["(ab", "ab)", "[ab", "*a", "a{3,1}", "\\q", "a\\"] {
            assert!(Pattern::new(bad).is_err(), "{bad}");
        }
    }
}
