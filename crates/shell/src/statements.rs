//! [`StatementReader`]: cuts input lines into statements, as the HBase shell reads them.
//!
//! A statement ends at the end of a line unless a bracket is still open or the line ends
//! with `,`, `=>` or `\` (then the next line continues it), and at a `;` outside strings and
//! brackets. `#` outside a string starts a comment that runs to the end of its line. A
//! string left open at the end of a line ends the statement there, so the parser reports it.

/// One complete statement and the 1-based line it started on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The statement, comments removed and continuation lines joined by a space.
    pub text: String,
    /// Where it started.
    pub line: usize,
}

/// Accumulates lines until statements are complete.
#[derive(Debug, Default)]
pub struct StatementReader {
    current: String,
    start_line: usize,
    depth: i32,
    lines: usize,
}

impl StatementReader {
    /// A reader with nothing pending.
    pub fn new() -> StatementReader {
        StatementReader::default()
    }

    /// True while a statement is open across lines.
    pub fn is_pending(&self) -> bool {
        !self.current.trim().is_empty()
    }

    /// Forgets the open statement (Ctrl-C at a continuation prompt).
    pub fn clear(&mut self) {
        self.current.clear();
        self.depth = 0;
    }

    /// Reads one line (without its newline) and returns the statements it completes.
    pub fn feed(&mut self, line: &str) -> Vec<Statement> {
        self.lines += 1;
        let mut done = Vec::new();
        let mut quote: Option<char> = None;
        let mut escaped = false;
        if !self.is_pending() {
            self.start_line = self.lines;
        }
        for c in line.chars() {
            if let Some(q) = quote {
                self.current.push(c);
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
                continue;
            }
            match c {
                '#' => break,
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth -= 1,
                ';' if self.depth <= 0 => {
                    self.emit(&mut done);
                    continue;
                }
                _ => {}
            }
            self.current.push(c);
        }
        let trimmed = self.current.trim_end();
        let continues = quote.is_none()
            && (self.depth > 0
                || trimmed.ends_with(',')
                || trimmed.ends_with("=>")
                || trimmed.ends_with('\\'));
        if continues {
            if trimmed.ends_with('\\') {
                let keep = trimmed.len() - 1;
                self.current.truncate(keep);
            }
            self.current.push(' ');
        } else {
            self.emit(&mut done);
        }
        done
    }

    /// The statement left open at the end of input, if any (it will not parse, and the
    /// parser says why).
    pub fn finish(&mut self) -> Option<Statement> {
        let mut done = Vec::new();
        self.emit(&mut done);
        done.pop()
    }

    fn emit(&mut self, done: &mut Vec<Statement>) {
        let text = self.current.trim();
        if !text.is_empty() {
            done.push(Statement {
                text: text.to_string(),
                line: self.start_line,
            });
        }
        self.clear();
        self.start_line = self.lines;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &str) -> Vec<(String, usize)> {
        let mut reader = StatementReader::new();
        let mut out: Vec<Statement> = input.lines().flat_map(|l| reader.feed(l)).collect();
        out.extend(reader.finish());
        out.into_iter().map(|s| (s.text, s.line)).collect()
    }

    #[test]
    fn one_statement_per_line() {
        assert_eq!(
            texts("list\n\n  # a comment\nscan 't' # trailing\n"),
            vec![("list".into(), 1), ("scan 't'".into(), 4)]
        );
    }

    #[test]
    fn open_brackets_and_trailing_commas_continue() {
        let input = "create 't',\n  {NAME => 'f',\n   VERSIONS => 3}\nlist";
        assert_eq!(
            texts(input),
            vec![
                ("create 't',   {NAME => 'f',    VERSIONS => 3}".into(), 1),
                ("list".into(), 4)
            ]
        );
        assert_eq!(
            texts("scan 't', \\\n{LIMIT => 1}")[0].0,
            "scan 't',  {LIMIT => 1}"
        );
    }

    #[test]
    fn semicolons_split_outside_strings() {
        assert_eq!(
            texts("put 't', 'a;b', 'f:q', 'v'; get 't', 'a;b'"),
            vec![
                ("put 't', 'a;b', 'f:q', 'v'".into(), 1),
                ("get 't', 'a;b'".into(), 1)
            ]
        );
    }

    #[test]
    fn brackets_and_hashes_inside_strings_do_not_count() {
        assert_eq!(
            texts("put 't', '{[#', 'f:q', \"it's\"\nlist"),
            vec![
                ("put 't', '{[#', 'f:q', \"it's\"".into(), 1),
                ("list".into(), 2)
            ]
        );
    }

    #[test]
    fn an_unterminated_string_ends_the_statement() {
        assert_eq!(
            texts("put 't', 'oops\nlist"),
            vec![("put 't', 'oops".into(), 1), ("list".into(), 2)]
        );
    }
}
