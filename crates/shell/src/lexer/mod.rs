//! Tokens of the Ruby literal subset that HBase shell users type.
//!
//! Strings follow Ruby: single-quoted strings know only `\'` and `\\`; double-quoted strings
//! take `\xHH`, octal, `\u` and the usual letter escapes, and yield bytes (so `"\x00\xff"` is a
//! two-byte row key). A `#` outside a string starts a comment.
//!
//! Columns are 1-based and count characters, not bytes. String and number literals are read
//! in `literal`.

mod literal;

use super::ShellError;

/// One token and the column where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What was read.
    pub kind: TokenKind,
    /// 1-based column of the token's first character.
    pub column: usize,
}

/// The kinds of token.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// A string literal, unescaped to bytes.
    Str(Vec<u8>),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A name starting with a lowercase letter or `_`: a command, `true`, `false`, `nil`.
    Ident(String),
    /// A name starting with an uppercase letter: a constant such as `VERSIONS`.
    Const(String),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `=>`
    Arrow,
    /// `.` (only ever part of a method call, which is rejected later)
    Dot,
    /// `;`
    Semicolon,
}

impl TokenKind {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Str(_) => "a string".into(),
            TokenKind::Int(n) => format!("'{n}'"),
            TokenKind::Float(x) => format!("'{x}'"),
            TokenKind::Ident(s) | TokenKind::Const(s) => format!("'{s}'"),
            TokenKind::LBrace => "'{'".into(),
            TokenKind::RBrace => "'}'".into(),
            TokenKind::LBracket => "'['".into(),
            TokenKind::RBracket => "']'".into(),
            TokenKind::LParen => "'('".into(),
            TokenKind::RParen => "')'".into(),
            TokenKind::Comma => "','".into(),
            TokenKind::Arrow => "'=>'".into(),
            TokenKind::Dot => "'.'".into(),
            TokenKind::Semicolon => "';'".into(),
        }
    }
}

/// Splits `line` into tokens, stopping at a `#` comment.
///
/// # Errors
/// [`ShellError::Syntax`] for an unterminated string, a bad escape or number, or a character
/// that starts no token.
pub fn tokenize(line: &str) -> Result<Vec<Token>, ShellError> {
    let chars: Vec<char> = line.chars().collect();
    let mut lexer = Lexer { chars, pos: 0 };
    let mut tokens = Vec::new();
    while let Some(token) = lexer.next_token()? {
        tokens.push(token);
    }
    Ok(tokens)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    /// The 1-based column of the character at `pos`.
    fn column(pos: usize) -> usize {
        pos + 1
    }

    fn next_token(&mut self) -> Result<Option<Token>, ShellError> {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        let start = self.pos;
        let column = Self::column(start);
        let Some(c) = self.peek(0) else {
            return Ok(None);
        };
        let single = |kind| Some(Token { kind, column });
        let kind = match c {
            '#' => {
                self.pos = self.chars.len();
                return Ok(None);
            }
            '\'' => TokenKind::Str(self.single_quoted()?),
            '"' => TokenKind::Str(self.double_quoted()?),
            '0'..='9' => self.number()?,
            '-' | '+' if self.peek(1).is_some_and(|d| d.is_ascii_digit()) => self.number()?,
            c if c.is_ascii_alphabetic() || c == '_' => self.name(),
            '=' if self.peek(1) == Some('>') => {
                self.pos += 2;
                return Ok(single(TokenKind::Arrow));
            }
            _ => {
                let kind = match c {
                    '{' => TokenKind::LBrace,
                    '}' => TokenKind::RBrace,
                    '[' => TokenKind::LBracket,
                    ']' => TokenKind::RBracket,
                    '(' => TokenKind::LParen,
                    ')' => TokenKind::RParen,
                    ',' => TokenKind::Comma,
                    '.' => TokenKind::Dot,
                    ';' => TokenKind::Semicolon,
                    ':' => {
                        return Err(ShellError::syntax(
                            column,
                            format!(
                                "unexpected ':' at column {column}: symbols and `key: value` \
                                 hashes are not supported; write 'NAME' => value"
                            ),
                        ))
                    }
                    _ => {
                        return Err(ShellError::syntax(
                            column,
                            format!("unexpected character '{c}' at column {column}"),
                        ))
                    }
                };
                self.pos += 1;
                return Ok(single(kind));
            }
        };
        Ok(Some(Token { kind, column }))
    }

    fn name(&mut self) -> TokenKind {
        let start = self.pos;
        while self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.pos += 1;
        }
        // Ruby method names may end in `?` or `!`.
        if matches!(self.peek(0), Some('?' | '!')) {
            self.pos += 1;
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            TokenKind::Const(word)
        } else {
            TokenKind::Ident(word)
        }
    }
}
