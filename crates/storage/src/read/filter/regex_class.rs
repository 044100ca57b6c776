//! Escapes and character classes of `regexstring:` patterns (see [`super::Regex`]).

use super::regex::{Ast, Parser};
use super::regex_lower::CharSet;
use super::FilterError;

impl Parser<'_> {
    pub(super) fn escape(&mut self) -> Result<Ast, FilterError> {
        let c = self
            .bump()
            .ok_or_else(|| self.error("trailing backslash"))?;
        Ok(match c {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                let mut set = CharSet::default();
                set.add_shorthand(c);
                Ast::Set(set)
            }
            'A' => Ast::Start,
            'Z' => Ast::End,
            'z' => Ast::EndOfText,
            c => {
                let c = self.escaped_char(c)?;
                self.literal(c)
            }
        })
    }

    /// After `\\Q`: literal characters up to `\\E` or the end.
    pub(super) fn quoted(&mut self) -> Vec<Ast> {
        let mut items = Vec::new();
        while let Some(q) = self.bump() {
            if q == '\\' && self.peek() == Some('E') {
                self.pos += 1;
                break;
            }
            items.push(self.literal(q));
        }
        items
    }

    /// The character an escape `\c` (after the backslash) stands for.
    fn escaped_char(&mut self, c: char) -> Result<char, FilterError> {
        let code = match c {
            't' => '\t' as u32,
            'n' => '\n' as u32,
            'r' => '\r' as u32,
            'f' => 0x0C,
            'a' => 0x07,
            'e' => 0x1B,
            'x' if self.eat('{') => {
                let v = self.digits(16, 8)?;
                if !self.eat('}') {
                    return Err(self.error("unclosed \\x{…}"));
                }
                v
            }
            'x' => self.fixed_digits(16, 2)?,
            'u' => self.fixed_digits(16, 4)?,
            '0' => self.digits(8, 3)?,
            '1'..='9' => return Err(self.error("backreferences are not supported")),
            c if c.is_ascii_alphanumeric() => {
                return Err(self.error(format!("unsupported escape \\{c}")))
            }
            c => c as u32,
        };
        char::from_u32(code).ok_or_else(|| self.error("escape is not a valid character"))
    }

    fn digits(&mut self, radix: u32, most: usize) -> Result<u32, FilterError> {
        let start = self.pos;
        let mut v: u32 = 0;
        while self.pos - start < most {
            let Some(d) = self.peek().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            v = v * radix + d;
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("escape needs digits"));
        }
        Ok(v)
    }

    fn fixed_digits(&mut self, radix: u32, n: usize) -> Result<u32, FilterError> {
        let start = self.pos;
        let v = self.digits(radix, n)?;
        if self.pos - start != n {
            return Err(self.error(format!("escape needs {n} digits")));
        }
        Ok(v)
    }

    /// After `[`: the class up to its `]`.
    pub(super) fn class(&mut self) -> Result<Ast, FilterError> {
        let mut set = CharSet {
            negated: self.eat('^'),
            fold: self.fold,
            ..CharSet::default()
        };
        if self.peek() == Some(']') {
            return Err(self.error("empty character class; write '\\]' for the character"));
        }
        loop {
            let c = self
                .bump()
                .ok_or_else(|| self.error("unclosed character class"))?;
            let lo = match c {
                ']' => break,
                '[' => return Err(self.error("nested character classes are not supported")),
                '&' if self.peek() == Some('&') => {
                    return Err(self.error("class intersections (&&) are not supported"))
                }
                '\\' => {
                    let e = self
                        .bump()
                        .ok_or_else(|| self.error("unclosed character class"))?;
                    if matches!(e, 'd' | 'D' | 'w' | 'W' | 's' | 'S') {
                        set.add_shorthand(e);
                        continue;
                    }
                    self.escaped_char(e)?
                }
                c => c,
            };
            if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                self.pos += 1;
                let hi = match self.bump() {
                    Some('\\') => {
                        let e = self.bump().unwrap_or('\\');
                        if e.is_ascii_alphabetic() && "dDwWsS".contains(e) {
                            return Err(self.error("a range cannot end in a class shorthand"));
                        }
                        self.escaped_char(e)?
                    }
                    Some('[') => {
                        return Err(self.error("nested character classes are not supported"))
                    }
                    Some(h) => h,
                    None => return Err(self.error("unclosed character class")),
                };
                if hi < lo {
                    return Err(self.error(format!("character range {lo}-{hi} is out of order")));
                }
                set.add(lo, hi);
            } else {
                set.add(lo, lo);
            }
        }
        Ok(Ast::Set(set))
    }
}
