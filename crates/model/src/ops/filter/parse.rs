//! [`parse_filter`]: HBase's filter language (`ParseFilter`), text to [`Filter`].
//!
//! ```text
//! expr    := and ("OR" and)*
//! and     := unary ("AND" unary)*
//! unary   := ("SKIP" | "WHILE") unary | primary
//! primary := "(" expr ")" | Name "(" [arg ("," arg)*] ")"
//!          | "FilterList" "(" ("AND" | "OR") ("," expr)* ")"
//! arg     := 'quoted string' | number | true | false | < | <= | = | != | >= | >
//! ```
//!
//! AND binds tighter than OR; a chain `a AND b AND c` is one list, a parenthesised group stays
//! a list of its own. Keywords and booleans are case-insensitive, filter names are not (as in
//! HBase). Inside quotes, `''` is a quote; byte arguments (rows, families, qualifiers, prefixes,
//! `binary:` and `binaryprefix:` operands) decode `\xHH` as one byte, like HBase's
//! `Bytes.toBytesBinary`, while `substring:` and `regexstring:` operands are taken verbatim so
//! regular expressions keep their backslashes.
//!
//! `FilterList(AND|OR, filter, ...)` is Strata's extension: HBase's language cannot write a
//! list of zero or one filters, and [`Filter`]'s `Display` needs it for those. So are the
//! filters HBase's language does not name (`FuzzyRowFilter('key', 'mask', ...)` with masks of
//! `\x00` fixed / `\x01` free bytes, `FirstKeyValueMatchingQualifiersFilter('q', ...)`,
//! `RandomRowFilter(chance)`, `MultiRowRangeFilter`), `ColumnPaginationFilter(limit,
//! 'qualifier')` (a column offset) and a trailing `true` in `TimestampsFilter` (`canHint`).

use bytes::Bytes;

use super::{
    BitOp, Chance, ColumnCondition, ColumnPagination, ColumnRange, Comparator, CompareOp, Decimal,
    DependentColumn, Filter, FilterList, FuzzyKey, ListOp, RowRange, SingleColumnValue,
    MAX_FILTER_DEPTH,
};

/// Longest filter text accepted, in bytes.
const MAX_TEXT_LEN: usize = 64 * 1024;

/// Why a filter string does not parse, with the byte offset where the problem was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("filter syntax error at byte {offset}: {message}")]
pub struct FilterParseError {
    offset: usize,
    message: String,
}

impl FilterParseError {
    fn new(offset: usize, message: impl Into<String>) -> FilterParseError {
        FilterParseError {
            offset,
            message: message.into(),
        }
    }

    /// Byte offset into the input where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What was wrong, usually naming what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }
}

type Result<T> = std::result::Result<T, FilterParseError>;

/// Parses HBase's filter language into a [`Filter`] that passes [`Filter::validate`].
///
/// Supported: every filter of HBase's language — `PrefixFilter`, `ColumnPrefixFilter`,
/// `MultipleColumnPrefixFilter`, `ColumnRangeFilter` (`''` is an open bound), `RowFilter`,
/// `FamilyFilter`, `QualifierFilter`, `ValueFilter`, `SingleColumnValueFilter` and
/// `SingleColumnValueExcludeFilter` (4 or 6 arguments), `PageFilter`, `FirstKeyOnlyFilter`,
/// `KeyOnlyFilter` (0 or 1 argument), `TimestampsFilter`, `ColumnCountGetFilter`,
/// `ColumnPaginationFilter`, `InclusiveStopFilter`, `DependentColumnFilter` (2, 3 or 5
/// arguments), `ColumnValueFilter` — with the `SKIP` and `WHILE` prefixes, combined with
/// `AND`, `OR` and parentheses; and Strata's extensions (module doc). See the module doc for
/// the grammar.
///
/// # Errors
/// [`FilterParseError`] for text over 64 KiB, lexical and syntax errors, unknown filters,
/// wrong arguments,
/// nesting deeper than [`MAX_FILTER_DEPTH`], or a filter that fails [`Filter::validate`].
pub fn parse_filter(text: &str) -> Result<Filter> {
    if text.len() > MAX_TEXT_LEN {
        return Err(FilterParseError::new(
            MAX_TEXT_LEN,
            format!(
                "filter text is {} bytes; at most {MAX_TEXT_LEN} allowed",
                text.len()
            ),
        ));
    }
    let mut parser = Parser {
        tokens: lex(text)?,
        pos: 0,
        depth: 0,
    };
    let filter = parser.expr()?;
    let end = parser.next();
    match end.tok {
        Tok::End => {}
        Tok::RParen => {
            return Err(FilterParseError::new(
                end.offset,
                "')' without matching '('",
            ))
        }
        _ => {
            return Err(FilterParseError::new(
                end.offset,
                format!("expected AND, OR or end of input, found {}", end.tok),
            ))
        }
    }
    filter
        .validate()
        .map_err(|e| FilterParseError::new(0, e.to_string()))?;
    Ok(filter)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A filter name, keyword or boolean.
    Word(String),
    /// Text starting with a digit or `-`; checked where a number is expected.
    Number(String),
    /// A quoted string, with `''` already turned into `'`.
    Str(String),
    Op(CompareOp),
    LParen,
    RParen,
    Comma,
    End,
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "'{}'", shorten(w)),
            Tok::Number(n) => write!(f, "number {}", shorten(n)),
            Tok::Str(s) => write!(f, "string '{}'", shorten(s)),
            Tok::Op(op) => write!(f, "operator {op}"),
            Tok::LParen => f.write_str("'('"),
            Tok::RParen => f.write_str("')'"),
            Tok::Comma => f.write_str("','"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

/// At most 20 characters of `s`, for error messages.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(20) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    offset: usize,
}

fn lex(text: &str) -> Result<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((offset, c)) = chars.next() {
        let tok = match c {
            c if c.is_ascii_whitespace() => continue,
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            '=' => Tok::Op(CompareOp::Equal),
            '<' | '>' | '!' => {
                let eq = chars.next_if(|&(_, n)| n == '=').is_some();
                Tok::Op(match (c, eq) {
                    ('<', false) => CompareOp::Less,
                    ('<', true) => CompareOp::LessOrEqual,
                    ('>', false) => CompareOp::Greater,
                    ('>', true) => CompareOp::GreaterOrEqual,
                    (_, true) => CompareOp::NotEqual,
                    (_, false) => {
                        return Err(FilterParseError::new(offset, "expected '!=', found '!'"))
                    }
                })
            }
            '\'' => {
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some((_, '\'')) => {
                            if chars.next_if(|&(_, n)| n == '\'').is_none() {
                                break;
                            }
                            s.push('\'');
                        }
                        Some((_, c)) => s.push(c),
                        None => {
                            return Err(FilterParseError::new(
                                offset,
                                "unterminated string: expected a closing '",
                            ))
                        }
                    }
                }
                Tok::Str(s)
            }
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => {
                let number = c.is_ascii_digit() || c == '-';
                let mut word = String::from(c);
                loop {
                    // A number may hold a point and a signed exponent (`RandomRowFilter`).
                    let exponent = number && word.ends_with(['e', 'E']);
                    let Some((_, n)) = chars.next_if(|&(_, n)| {
                        n.is_ascii_alphanumeric()
                            || n == '_'
                            || (number && n == '.')
                            || (exponent && (n == '-' || n == '+'))
                    }) else {
                        break;
                    };
                    word.push(n);
                }
                if number {
                    Tok::Number(word)
                } else {
                    Tok::Word(word)
                }
            }
            c => {
                return Err(FilterParseError::new(
                    offset,
                    format!("unexpected character {c:?}"),
                ))
            }
        };
        tokens.push(Token { tok, offset });
    }
    tokens.push(Token {
        tok: Tok::End,
        offset: text.len(),
    });
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Open parentheses and `FilterList(`s around the current position.
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.tokens.get(self.pos).map_or(&Tok::End, |t| &t.tok)
    }

    fn next(&mut self) -> Token {
        let token = self.tokens.get(self.pos).cloned().unwrap_or(Token {
            tok: Tok::End,
            offset: self.tokens.last().map_or(0, |t| t.offset),
        });
        self.pos += 1;
        token
    }

    fn eat_keyword(&mut self, keyword: &str) -> bool {
        let found = matches!(self.peek(), Tok::Word(w) if w.eq_ignore_ascii_case(keyword));
        if found {
            self.pos += 1;
        }
        found
    }

    fn expr(&mut self) -> Result<Filter> {
        self.chain("OR", ListOp::MustPassOne, Parser::and)
    }

    fn and(&mut self) -> Result<Filter> {
        self.chain("AND", ListOp::MustPassAll, Parser::unary)
    }

    /// `operand (keyword operand)*`, as one list when the keyword occurs.
    fn chain(
        &mut self,
        keyword: &str,
        op: ListOp,
        operand: fn(&mut Parser) -> Result<Filter>,
    ) -> Result<Filter> {
        let first = operand(self)?;
        if !self.eat_keyword(keyword) {
            return Ok(first);
        }
        let mut filters = vec![first, operand(self)?];
        while self.eat_keyword(keyword) {
            filters.push(operand(self)?);
        }
        Ok(Filter::List(FilterList { op, filters }))
    }

    fn unary(&mut self) -> Result<Filter> {
        let token = self.next();
        match &token.tok {
            Tok::Word(w) if w.eq_ignore_ascii_case("SKIP") || w.eq_ignore_ascii_case("WHILE") => {
                let skip = w.eq_ignore_ascii_case("SKIP");
                self.enter(token.offset)?;
                let inner = Box::new(self.unary()?);
                self.depth -= 1;
                Ok(if skip {
                    Filter::Skip(inner)
                } else {
                    Filter::WhileMatch(inner)
                })
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("AND") || w.eq_ignore_ascii_case("OR") => Err(
                FilterParseError::new(token.offset, format!("expected a filter, found {w}")),
            ),
            Tok::LParen => {
                self.enter(token.offset)?;
                let filter = self.expr()?;
                self.close(token.offset, "'('")?;
                self.depth -= 1;
                Ok(filter)
            }
            Tok::Word(name) => {
                let open = self.next();
                if open.tok != Tok::LParen {
                    return Err(FilterParseError::new(
                        open.offset,
                        format!("expected '(' after filter name {name}, found {}", open.tok),
                    ));
                }
                if name == "FilterList" {
                    self.enter(open.offset)?;
                    let filter = self.list(open.offset)?;
                    self.depth -= 1;
                    return Ok(filter);
                }
                let args = self.args(name, open.offset)?;
                let filter = build(name, token.offset, &args)?;
                filter
                    .validate()
                    .map_err(|e| FilterParseError::new(token.offset, e.to_string()))?;
                Ok(filter)
            }
            other => Err(FilterParseError::new(
                token.offset,
                format!("expected a filter name or '(', found {other}"),
            )),
        }
    }

    /// Counts one level of nesting opened at `offset`.
    fn enter(&mut self, offset: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_FILTER_DEPTH {
            return Err(FilterParseError::new(
                offset,
                format!("filters nest deeper than {MAX_FILTER_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    /// Expects the `)` closing `what`, opened at `open`.
    fn close(&mut self, open: usize, what: &str) -> Result<()> {
        let token = self.next();
        if token.tok == Tok::RParen {
            return Ok(());
        }
        Err(FilterParseError::new(
            token.offset,
            format!(
                "expected ')' to close {what} at byte {open}, found {}",
                token.tok
            ),
        ))
    }

    /// `FilterList(` has been read: `AND|OR (, expr)* )`.
    fn list(&mut self, open: usize) -> Result<Filter> {
        let token = self.next();
        let op = match &token.tok {
            Tok::Word(w) if w.eq_ignore_ascii_case("AND") => ListOp::MustPassAll,
            Tok::Word(w) if w.eq_ignore_ascii_case("OR") => ListOp::MustPassOne,
            other => {
                return Err(FilterParseError::new(
                    token.offset,
                    format!("expected AND or OR as FilterList's first argument, found {other}"),
                ))
            }
        };
        let mut filters = Vec::new();
        while *self.peek() == Tok::Comma {
            self.pos += 1;
            filters.push(self.expr()?);
        }
        self.close(open, "the arguments of FilterList")?;
        Ok(Filter::List(FilterList { op, filters }))
    }

    /// `Name(` has been read: the arguments up to and including `)`.
    fn args(&mut self, name: &str, open: usize) -> Result<Vec<Arg>> {
        let mut args = Vec::new();
        if *self.peek() == Tok::RParen {
            self.pos += 1;
            return Ok(args);
        }
        loop {
            let token = self.next();
            let value = match token.tok {
                Tok::Str(s) => Value::Str(s),
                Tok::Number(n) => Value::Number(n),
                Tok::Op(op) => Value::Op(op),
                Tok::Word(w) if w.eq_ignore_ascii_case("true") => Value::Bool(true),
                Tok::Word(w) if w.eq_ignore_ascii_case("false") => Value::Bool(false),
                other => {
                    return Err(FilterParseError::new(
                        token.offset,
                        format!(
                            "expected an argument of {name} (a quoted string, number, \
                             true, false or comparison operator), found {other}"
                        ),
                    ))
                }
            };
            args.push(Arg {
                value,
                offset: token.offset,
            });
            let sep = self.next();
            match sep.tok {
                Tok::Comma => {}
                Tok::RParen => return Ok(args),
                other => {
                    return Err(FilterParseError::new(
                        sep.offset,
                        format!(
                            "expected ',' or ')' to close the arguments of {name} at byte \
                             {open}, found {other}"
                        ),
                    ))
                }
            }
        }
    }
}

#[derive(Debug)]
enum Value {
    Str(String),
    Number(String),
    Bool(bool),
    Op(CompareOp),
}

impl Value {
    fn describe(&self) -> String {
        match self {
            Value::Str(s) => format!("string '{}'", shorten(s)),
            Value::Number(n) => format!("number {}", shorten(n)),
            Value::Bool(b) => format!("{b}"),
            Value::Op(op) => format!("operator {op}"),
        }
    }
}

#[derive(Debug)]
struct Arg {
    value: Value,
    offset: usize,
}

/// The filters [`build`] knows, for "did you mean" hints.
const SUPPORTED: [&str; 24] = [
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnRangeFilter",
    "RowFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ValueFilter",
    "SingleColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "PageFilter",
    "FirstKeyOnlyFilter",
    "KeyOnlyFilter",
    "TimestampsFilter",
    "MultiRowRangeFilter",
    "ColumnCountGetFilter",
    "ColumnPaginationFilter",
    "ColumnValueFilter",
    "DependentColumnFilter",
    "FirstKeyValueMatchingQualifiersFilter",
    "FuzzyRowFilter",
    "InclusiveStopFilter",
    "RandomRowFilter",
    "FilterList",
];

/// One filter call's arguments, with typed accessors that report positions.
struct Call<'a> {
    name: &'a str,
    offset: usize,
    args: &'a [Arg],
}

impl Call<'_> {
    fn count(&self, allowed: &[usize], what: &str) -> Result<()> {
        if allowed.contains(&self.args.len()) {
            return Ok(());
        }
        Err(FilterParseError::new(
            self.offset,
            format!(
                "{} takes {what}, found {} argument(s)",
                self.name,
                self.args.len()
            ),
        ))
    }

    fn wrong(&self, i: usize, expected: &str) -> FilterParseError {
        let (offset, found) = self
            .args
            .get(i)
            .map_or((self.offset, "nothing".to_string()), |a| {
                (a.offset, a.value.describe())
            });
        FilterParseError::new(
            offset,
            format!(
                "argument {} of {}: expected {expected}, found {found}",
                i + 1,
                self.name
            ),
        )
    }

    fn str(&self, i: usize) -> Result<&str> {
        match self.args.get(i).map(|a| &a.value) {
            Some(Value::Str(s)) => Ok(s),
            _ => Err(self.wrong(i, "a quoted string")),
        }
    }

    fn bytes(&self, i: usize) -> Result<Bytes> {
        self.str(i).map(decode_binary)
    }

    fn bool(&self, i: usize) -> Result<bool> {
        match self.args.get(i).map(|a| &a.value) {
            Some(Value::Bool(b)) => Ok(*b),
            _ => Err(self.wrong(i, "true or false")),
        }
    }

    fn op(&self, i: usize) -> Result<CompareOp> {
        match self.args.get(i).map(|a| &a.value) {
            Some(Value::Op(op)) => Ok(*op),
            _ => Err(self.wrong(i, "a comparison operator (<, <=, =, !=, >=, >)")),
        }
    }

    fn number<T: std::str::FromStr>(&self, i: usize, expected: &str) -> Result<T> {
        match self.args.get(i).map(|a| &a.value) {
            Some(Value::Number(n)) => n.parse().map_err(|_| self.wrong(i, expected)),
            _ => Err(self.wrong(i, expected)),
        }
    }

    fn comparator(&self, i: usize) -> Result<Comparator> {
        const EXPECTED: &str = "a comparator 'binary:...', 'binaryprefix:...', \
                                'substring:...' or 'regexstring:...' (or Strata's 'long:n', \
                                'bitand:...', 'bitor:...', 'bitxor:...', 'null:', \
                                'bigdecimal:n', 'binarycomponent:offset:...')";
        let s = self.str(i).map_err(|_| self.wrong(i, EXPECTED))?;
        let (kind, operand) = s.split_once(':').ok_or_else(|| self.wrong(i, EXPECTED))?;
        let bad_operand = |what: &str| {
            FilterParseError::new(
                self.args.get(i).map_or(self.offset, |a| a.offset),
                format!("comparator '{}': {what}", shorten(kind)),
            )
        };
        match kind.to_ascii_lowercase().as_str() {
            "binary" => Ok(Comparator::Binary(decode_binary(operand))),
            "binaryprefix" => Ok(Comparator::BinaryPrefix(decode_binary(operand))),
            "substring" => Ok(Comparator::Substring(operand.to_string())),
            "regexstring" => Ok(Comparator::Regex(operand.to_string())),
            "long" => operand
                .trim()
                .parse()
                .map(Comparator::Long)
                .map_err(|_| bad_operand("expected a 64-bit integer")),
            "bitand" => Ok(Comparator::Bit(BitOp::And, decode_binary(operand))),
            "bitor" => Ok(Comparator::Bit(BitOp::Or, decode_binary(operand))),
            "bitxor" => Ok(Comparator::Bit(BitOp::Xor, decode_binary(operand))),
            "null" if operand.is_empty() => Ok(Comparator::Null),
            "null" => Err(bad_operand("takes no operand ('null:')")),
            "bigdecimal" => Decimal::parse(operand)
                .map(Comparator::BigDecimal)
                .ok_or_else(|| bad_operand("expected a decimal number such as -12.50")),
            "binarycomponent" => {
                let (offset, value) = operand
                    .split_once(':')
                    .and_then(|(o, v)| Some((o.trim().parse().ok()?, v)))
                    .ok_or_else(|| bad_operand("expected 'binarycomponent:offset:bytes'"))?;
                Ok(Comparator::BinaryComponent {
                    offset,
                    value: decode_binary(value),
                })
            }
            _ => Err(FilterParseError::new(
                self.args.get(i).map_or(self.offset, |a| a.offset),
                format!(
                    "unknown comparator type '{}'; expected {EXPECTED}",
                    shorten(kind)
                ),
            )),
        }
    }
}

/// Builds filter `name` from its arguments; `offset` is the name's position.
fn build(name: &str, offset: usize, args: &[Arg]) -> Result<Filter> {
    let call = Call { name, offset, args };
    let filter = match name {
        "PrefixFilter" => {
            call.count(&[1], "1 argument (row prefix)")?;
            Filter::Prefix(call.bytes(0)?)
        }
        "ColumnPrefixFilter" => {
            call.count(&[1], "1 argument (qualifier prefix)")?;
            Filter::ColumnPrefix(call.bytes(0)?)
        }
        "MultipleColumnPrefixFilter" => Filter::MultipleColumnPrefix(
            (0..args.len())
                .map(|i| call.bytes(i))
                .collect::<Result<_>>()?,
        ),
        "ColumnRangeFilter" => {
            call.count(&[4], "4 arguments ('min', inclusive, 'max', inclusive)")?;
            let bound = |b: Bytes| (!b.is_empty()).then_some(b);
            Filter::ColumnRange(ColumnRange {
                min: bound(call.bytes(0)?),
                min_inclusive: call.bool(1)?,
                max: bound(call.bytes(2)?),
                max_inclusive: call.bool(3)?,
            })
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            call.count(&[2], "2 arguments (operator, 'comparator')")?;
            let (op, comparator) = (call.op(0)?, call.comparator(1)?);
            match name {
                "RowFilter" => Filter::Row(op, comparator),
                "FamilyFilter" => Filter::Family(op, comparator),
                "QualifierFilter" => Filter::Qualifier(op, comparator),
                _ => Filter::Value(op, comparator),
            }
        }
        "SingleColumnValueFilter" => Filter::SingleColumnValue(scv(&call)?),
        "SingleColumnValueExcludeFilter" => Filter::SingleColumnValueExclude(scv(&call)?),
        "ColumnValueFilter" => {
            call.count(
                &[4],
                "4 arguments ('family', 'qualifier', operator, 'comparator')",
            )?;
            Filter::ColumnValue(ColumnCondition {
                family: call.bytes(0)?,
                qualifier: call.bytes(1)?,
                op: call.op(2)?,
                comparator: call.comparator(3)?,
            })
        }
        "DependentColumnFilter" => {
            call.count(
                &[2, 3, 5],
                "2 arguments ('family', 'qualifier'), 3 (adding dropDependentColumn) \
                 or 5 (adding operator, 'comparator')",
            )?;
            Filter::DependentColumn(DependentColumn {
                family: call.bytes(0)?,
                qualifier: call.bytes(1)?,
                drop_dependent_column: if args.len() >= 3 {
                    call.bool(2)?
                } else {
                    false
                },
                compare: if args.len() == 5 {
                    Some((call.op(3)?, call.comparator(4)?))
                } else {
                    None
                },
            })
        }
        "ColumnCountGetFilter" => {
            call.count(&[1], "1 argument (columns per row)")?;
            Filter::ColumnCountGet(call.number(0, "a non-negative column count")?)
        }
        "ColumnPaginationFilter" => {
            call.count(
                &[2],
                "2 arguments (limit, offset) or (limit, 'column offset')",
            )?;
            let limit = call.number(0, "a non-negative limit")?;
            Filter::ColumnPagination(match args.get(1).map(|a| &a.value) {
                Some(Value::Str(_)) => ColumnPagination {
                    limit,
                    offset: 0,
                    column_offset: Some(call.bytes(1)?),
                },
                _ => ColumnPagination {
                    limit,
                    offset: call.number(1, "a non-negative offset or a quoted qualifier")?,
                    column_offset: None,
                },
            })
        }
        "InclusiveStopFilter" => {
            call.count(&[1], "1 argument (stop row)")?;
            Filter::InclusiveStop(call.bytes(0)?)
        }
        "FirstKeyValueMatchingQualifiersFilter" => Filter::FirstKeyValueMatchingQualifiers(
            (0..args.len())
                .map(|i| call.bytes(i))
                .collect::<Result<_>>()?,
        ),
        "FuzzyRowFilter" => {
            if !args.len().is_multiple_of(2) {
                return Err(FilterParseError::new(
                    offset,
                    format!(
                        "FuzzyRowFilter takes pairs of arguments ('key', 'mask'), found {} \
                         argument(s)",
                        args.len()
                    ),
                ));
            }
            Filter::FuzzyRow(
                (0..args.len() / 2)
                    .map(|k| {
                        Ok(FuzzyKey {
                            key: call.bytes(2 * k)?,
                            mask: call.bytes(2 * k + 1)?,
                        })
                    })
                    .collect::<Result<_>>()?,
            )
        }
        "RandomRowFilter" => {
            call.count(&[1], "1 argument (the chance a row passes)")?;
            Filter::RandomRow(Chance(call.number(0, "a number (the chance)")?))
        }
        "PageFilter" => {
            call.count(&[1], "1 argument (page size)")?;
            Filter::Page(call.number(0, "a non-negative page size")?)
        }
        "FirstKeyOnlyFilter" => {
            call.count(&[0], "no arguments")?;
            Filter::FirstKeyOnly
        }
        "KeyOnlyFilter" => {
            call.count(&[0, 1], "no arguments or 1 (lenAsValue)")?;
            let len_as_value = if args.is_empty() {
                false
            } else {
                call.bool(0)?
            };
            Filter::KeyOnly { len_as_value }
        }
        "TimestampsFilter" => {
            let can_hint = matches!(args.last().map(|a| &a.value), Some(Value::Bool(_)));
            let n = args.len() - usize::from(can_hint);
            Filter::Timestamps {
                timestamps: (0..n)
                    .map(|i| call.number(i, "a timestamp (milliseconds)"))
                    .collect::<Result<_>>()?,
                can_hint: can_hint && call.bool(n)?,
            }
        }
        "MultiRowRangeFilter" => {
            if !args.len().is_multiple_of(4) {
                return Err(FilterParseError::new(
                    offset,
                    format!(
                        "MultiRowRangeFilter takes groups of 4 arguments ('start', inclusive, \
                         'stop', inclusive), found {} argument(s)",
                        args.len()
                    ),
                ));
            }
            let ranges = (0..args.len() / 4)
                .map(|r| {
                    Ok(RowRange {
                        start: call.bytes(4 * r)?,
                        start_inclusive: call.bool(4 * r + 1)?,
                        stop: call.bytes(4 * r + 2)?,
                        stop_inclusive: call.bool(4 * r + 3)?,
                    })
                })
                .collect::<Result<_>>()?;
            Filter::MultiRowRange(ranges)
        }
        _ => {
            let hint = SUPPORTED
                .iter()
                .find(|known| known.eq_ignore_ascii_case(name))
                .map_or(String::new(), |known| format!("; did you mean {known}?"));
            return Err(FilterParseError::new(
                offset,
                format!("unknown filter name '{}'{hint}", shorten(name)),
            ));
        }
    };
    Ok(filter)
}

/// `SingleColumnValueFilter`'s and `SingleColumnValueExcludeFilter`'s arguments.
fn scv(call: &Call<'_>) -> Result<SingleColumnValue> {
    call.count(
        &[4, 6],
        "4 arguments ('family', 'qualifier', operator, 'comparator') \
         or 6 (adding filterIfMissing, latestVersionOnly)",
    )?;
    let mut scv = SingleColumnValue::new(
        call.bytes(0)?,
        call.bytes(1)?,
        call.op(2)?,
        call.comparator(3)?,
    );
    if call.args.len() == 6 {
        scv.filter_if_missing = call.bool(4)?;
        scv.latest_version_only = call.bool(5)?;
    }
    Ok(scv)
}

/// HBase's `Bytes.toBytesBinary`: `\xHH` is one byte, everything else stands for itself.
fn decode_binary(text: &str) -> Bytes {
    let hex = |b: Option<&u8>| b.and_then(|&b| char::from(b).to_digit(16));
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'\\' && bytes.get(i + 1) == Some(&b'x') {
            if let (Some(hi), Some(lo)) = (hex(bytes.get(i + 2)), hex(bytes.get(i + 3))) {
                out.push(u8::try_from(hi << 4 | lo).unwrap_or(b));
                i += 4;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    Bytes::from(out)
}
