//! [`Value`]s and the statement form `command 'arg', 'arg', {K => V}`.
//!
//! As in Ruby, parentheses around the arguments are optional, and `K => V` pairs at the end of
//! the argument list form one implicit hash (`alter 't', NAME => 'f', METHOD => 'delete'`).
//! Variables and method calls are not supported.

use super::lexer::{tokenize, Token, TokenKind};
use super::ShellError;

/// Deepest nesting of arrays and hashes accepted, so hostile input cannot exhaust the stack.
pub const MAX_NESTING: usize = 32;

/// A Ruby literal.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string, as bytes (double-quoted escapes may make it non-UTF-8).
    Str(Vec<u8>),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// A bare constant such as `VERSIONS`; HBase's constants are their own names.
    Const(String),
    /// `[a, b]`.
    Array(Vec<Value>),
    /// `{k => v}`, in source order.
    Hash(Vec<(Value, Value)>),
}

impl Value {
    /// The kind of value, for error messages ("a string", "an integer", ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Nil => "nil",
            Value::Const(_) => "a constant",
            Value::Array(_) => "an array",
            Value::Hash(_) => "a hash",
        }
    }

    /// The name of a string or constant, as used for hash keys and keywords.
    pub fn as_name(&self) -> Option<String> {
        match self {
            Value::Str(b) => String::from_utf8(b.clone()).ok(),
            Value::Const(c) => Some(c.clone()),
            _ => None,
        }
    }
}

/// One parsed statement: the command word and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// The command word, as typed.
    pub command: String,
    /// Column of the command word.
    pub column: usize,
    /// The arguments; trailing `K => V` pairs are collected into one final [`Value::Hash`].
    pub args: Vec<Value>,
}

/// Parses one statement; `None` for an empty or comment-only line.
///
/// # Errors
/// [`ShellError::Syntax`] naming the column of the first problem.
pub fn parse_statement(line: &str) -> Result<Option<Statement>, ShellError> {
    let tokens = tokenize(line)?;
    let end_column = line.chars().count() + 1;
    let mut parser = Parser {
        tokens,
        pos: 0,
        end_column,
    };
    parser.statement()
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end_column: usize,
}

impl Parser {
    fn peek(&self) -> Option<&TokenKind> {
        self.tokens.get(self.pos).map(|t| &t.kind)
    }

    fn column(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.end_column, |t| t.column)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn eat(&mut self, kind: &TokenKind) -> bool {
        if self.peek() == Some(kind) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// An error about the current token (or the end of the line).
    fn unexpected(&self, expected: &str) -> ShellError {
        let column = self.column();
        let found = match self.peek() {
            Some(k) => format!("unexpected {}", k.describe()),
            None => "unexpected end of line".to_string(),
        };
        ShellError::syntax(
            column,
            format!("{found} at column {column}; expected {expected}"),
        )
    }

    fn statement(&mut self) -> Result<Option<Statement>, ShellError> {
        let Some(first) = self.bump() else {
            return Ok(None);
        };
        let command = match first.kind {
            TokenKind::Ident(name) => name,
            TokenKind::Semicolon if self.peek().is_none() => return Ok(None),
            other => {
                let column = first.column;
                return Err(ShellError::syntax(
                    column,
                    format!(
                        "expected a command name at column {column}, found {}",
                        other.describe()
                    ),
                ));
            }
        };
        if self.peek() == Some(&TokenKind::Dot) {
            return Err(self.method_call(first.column));
        }
        let args = if self.eat(&TokenKind::LParen) {
            let args = self.arguments(Some(&TokenKind::RParen))?;
            if !self.eat(&TokenKind::RParen) {
                return Err(self.unexpected("')'"));
            }
            args
        } else {
            self.arguments(None)?
        };
        self.eat(&TokenKind::Semicolon);
        if self.peek().is_some() {
            return Err(self.unexpected("',' or the end of the statement"));
        }
        Ok(Some(Statement {
            command,
            column: first.column,
            args,
        }))
    }

    /// Comma-separated arguments up to `close` (or the end), trailing pairs as one hash.
    fn arguments(&mut self, close: Option<&TokenKind>) -> Result<Vec<Value>, ShellError> {
        let mut args = Vec::new();
        let mut pairs: Vec<(Value, Value)> = Vec::new();
        let at_end = |p: &Parser| match p.peek() {
            None | Some(TokenKind::Semicolon) => true,
            Some(k) => Some(k) == close,
        };
        if at_end(self) {
            return Ok(args);
        }
        loop {
            let column = self.column();
            let value = self.value(0)?;
            if self.eat(&TokenKind::Arrow) {
                let v = self.value(0)?;
                pairs.push((value, v));
            } else if !pairs.is_empty() {
                return Err(ShellError::syntax(
                    column,
                    format!(
                        "positional argument at column {column} after `key => value` pairs; \
                         put them first or wrap the pairs in {{...}}"
                    ),
                ));
            } else {
                args.push(value);
            }
            if !self.eat(&TokenKind::Comma) {
                break;
            }
            // A trailing comma is fine inside parentheses.
            if close.is_some() && at_end(self) {
                break;
            }
        }
        if !at_end(self) {
            let expected = if close.is_some() { "',' or ')'" } else { "','" };
            return Err(self.unexpected(expected));
        }
        if !pairs.is_empty() {
            args.push(Value::Hash(pairs));
        }
        Ok(args)
    }

    fn value(&mut self, depth: usize) -> Result<Value, ShellError> {
        let column = self.column();
        if depth >= MAX_NESTING {
            return Err(ShellError::syntax(
                column,
                format!("arrays and hashes nested deeper than {MAX_NESTING} at column {column}"),
            ));
        }
        let Some(token) = self.bump() else {
            return Err(self.unexpected("a value"));
        };
        let value = match token.kind {
            TokenKind::Str(b) => Value::Str(b),
            TokenKind::Int(n) => Value::Int(n),
            TokenKind::Float(x) => Value::Float(x),
            TokenKind::Ident(word) => match word.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "nil" => Value::Nil,
                _ if self.peek() == Some(&TokenKind::Dot) => return Err(self.method_call(column)),
                _ => {
                    return Err(ShellError::syntax(
                        column,
                        format!(
                            "unknown name '{word}' at column {column}: variables and method \
                             calls are not supported; quote strings ('{word}')"
                        ),
                    ))
                }
            },
            TokenKind::Const(name) => {
                if self.peek() == Some(&TokenKind::Dot) {
                    return Err(self.method_call(column));
                }
                Value::Const(name)
            }
            TokenKind::LBracket => Value::Array(self.array(depth)?),
            TokenKind::LBrace => Value::Hash(self.hash(depth)?),
            _ => {
                self.pos -= 1;
                return Err(self.unexpected("a value"));
            }
        };
        Ok(value)
    }

    fn array(&mut self, depth: usize) -> Result<Vec<Value>, ShellError> {
        let mut items = Vec::new();
        while !self.eat(&TokenKind::RBracket) {
            items.push(self.value(depth + 1)?);
            if !self.eat(&TokenKind::Comma) {
                if self.eat(&TokenKind::RBracket) {
                    break;
                }
                return Err(self.unexpected("',' or ']'"));
            }
        }
        Ok(items)
    }

    fn hash(&mut self, depth: usize) -> Result<Vec<(Value, Value)>, ShellError> {
        let mut pairs = Vec::new();
        while !self.eat(&TokenKind::RBrace) {
            let key = self.value(depth + 1)?;
            if !self.eat(&TokenKind::Arrow) {
                return Err(self.unexpected("'=>'"));
            }
            let value = self.value(depth + 1)?;
            pairs.push((key, value));
            if !self.eat(&TokenKind::Comma) {
                if self.eat(&TokenKind::RBrace) {
                    break;
                }
                return Err(self.unexpected("',' or '}'"));
            }
        }
        Ok(pairs)
    }

    fn method_call(&self, column: usize) -> ShellError {
        ShellError::syntax(
            column,
            format!(
                "method call at column {column}: Java and Ruby calls (such as \
                 org.apache.hadoop.hbase.util.Bytes.toBytes) are not supported; write the bytes \
                 as a string literal, e.g. \"\\x00\\x01\""
            ),
        )
    }
}
