//! String and number literals, with Ruby's escapes and `_` digit separators.

use super::{Lexer, TokenKind};
use crate::ShellError;

impl Lexer {
    pub(super) fn unterminated(start: usize) -> ShellError {
        let column = Self::column(start);
        ShellError::syntax(
            column,
            format!("unterminated string starting at column {column}"),
        )
    }

    pub(super) fn single_quoted(&mut self) -> Result<Vec<u8>, ShellError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let c = self.peek(0).ok_or_else(|| Self::unterminated(start))?;
            self.pos += 1;
            match c {
                '\'' => return Ok(out.into_bytes()),
                '\\' if matches!(self.peek(0), Some('\'' | '\\')) => {
                    out.extend(self.peek(0));
                    self.pos += 1;
                }
                c => out.push(c),
            }
        }
    }

    pub(super) fn double_quoted(&mut self) -> Result<Vec<u8>, ShellError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek(0).ok_or_else(|| Self::unterminated(start))?;
            let at = self.pos;
            self.pos += 1;
            match c {
                '"' => return Ok(out),
                '\\' => self.escape(at, start, &mut out)?,
                '#' if self.peek(0) == Some('{') => {
                    let column = Self::column(at);
                    return Err(ShellError::syntax(
                        column,
                        format!(
                            "string interpolation '#{{...}}' at column {column} is not \
                             supported; escape it as \\#{{"
                        ),
                    ));
                }
                c => push_char(&mut out, c),
            }
        }
    }

    /// Reads the escape after a `\` at `at` inside the double-quoted string starting at `start`.
    fn escape(&mut self, at: usize, start: usize, out: &mut Vec<u8>) -> Result<(), ShellError> {
        let c = self.peek(0).ok_or_else(|| Self::unterminated(start))?;
        self.pos += 1;
        let bad = |what: &str| {
            let column = Self::column(at);
            ShellError::syntax(column, format!("invalid {what} escape at column {column}"))
        };
        match c {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            'r' => out.push(b'\r'),
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'e' => out.push(0x1b),
            'f' => out.push(0x0c),
            'v' => out.push(0x0b),
            's' => out.push(b' '),
            'x' => {
                let digits = self.take_while_max(2, |d| d.is_ascii_hexdigit());
                out.push(u8::from_str_radix(&digits, 16).map_err(|_| bad("\\x"))?);
            }
            '0'..='7' => {
                self.pos -= 1;
                let digits = self.take_while_max(3, |d| ('0'..='7').contains(&d));
                let n = u16::from_str_radix(&digits, 8).map_err(|_| bad("octal"))?;
                // Ruby keeps the low byte of octal escapes above \377.
                out.push(n.to_be_bytes()[1]);
            }
            'u' => {
                let digits = if self.peek(0) == Some('{') {
                    self.pos += 1;
                    let d = self.take_while_max(6, |d| d.is_ascii_hexdigit());
                    if self.peek(0) != Some('}') {
                        return Err(bad("\\u{...}"));
                    }
                    self.pos += 1;
                    d
                } else {
                    let d = self.take_while_max(4, |d| d.is_ascii_hexdigit());
                    if d.len() != 4 {
                        return Err(bad("\\u"));
                    }
                    d
                };
                let ch = u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| bad("\\u"))?;
                push_char(out, ch);
            }
            // Ruby drops the backslash of any other escape: `\"`, `\\`, `\#`, `\q`.
            c => push_char(out, c),
        }
        Ok(())
    }

    fn take_while_max(&mut self, max: usize, pred: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while s.len() < max {
            match self.peek(0) {
                Some(c) if pred(c) => {
                    s.push(c);
                    self.pos += 1;
                }
                _ => break,
            }
        }
        s
    }

    pub(super) fn number(&mut self) -> Result<TokenKind, ShellError> {
        let start = self.pos;
        let column = Self::column(start);
        let negative = self.peek(0) == Some('-');
        if matches!(self.peek(0), Some('-' | '+')) {
            self.pos += 1;
        }
        let radix = match (self.peek(0), self.peek(1).map(|c| c.to_ascii_lowercase())) {
            (Some('0'), Some('x')) => 16,
            (Some('0'), Some('b')) => 2,
            (Some('0'), Some('o')) => 8,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
        }
        let mut digits = self.digits(radix, column)?;
        let mut is_float = false;
        if radix == 10 {
            if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
                is_float = true;
                digits.push('.');
                digits.push_str(&self.digits(10, column)?);
            }
            if matches!(self.peek(0), Some('e' | 'E')) {
                let sign = usize::from(matches!(self.peek(1), Some('-' | '+')));
                if self.peek(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                    is_float = true;
                    digits.push('e');
                    if sign == 1 {
                        digits.extend(self.peek(1));
                    }
                    self.pos += 1 + sign;
                    digits.push_str(&self.digits(10, column)?);
                }
            }
        }
        if self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(ShellError::syntax(
                column,
                format!("malformed number at column {column}"),
            ));
        }
        if is_float {
            let text = if negative {
                format!("-{digits}")
            } else {
                digits
            };
            let x: f64 = text.parse().map_err(|_| {
                ShellError::syntax(column, format!("malformed number at column {column}"))
            })?;
            return Ok(TokenKind::Float(x));
        }
        let magnitude = u64::from_str_radix(&digits, radix).ok();
        let value = magnitude.and_then(|m| {
            if negative {
                0i64.checked_sub_unsigned(m)
            } else {
                i64::try_from(m).ok()
            }
        });
        value.map(TokenKind::Int).ok_or_else(|| {
            ShellError::syntax(
                column,
                format!("integer at column {column} does not fit in 64 bits"),
            )
        })
    }

    /// Digits of `radix` with Ruby's `_` separators (only between digits).
    fn digits(&mut self, radix: u32, column: usize) -> Result<String, ShellError> {
        let mut s = String::new();
        let mut last_underscore = false;
        while let Some(c) = self.peek(0) {
            if c == '_' {
                if s.is_empty() || last_underscore {
                    break;
                }
                last_underscore = true;
            } else if c.is_digit(radix) {
                s.push(c);
                last_underscore = false;
            } else {
                break;
            }
            self.pos += 1;
        }
        if s.is_empty() || last_underscore {
            return Err(ShellError::syntax(
                column,
                format!("malformed number at column {column}"),
            ));
        }
        Ok(s)
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}
