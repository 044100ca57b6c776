//! What a throttle is, as HBase's `set_quota TYPE => THROTTLE` gives it: a subject (a user, a
//! table or a namespace), a throttle type (`REQUEST_NUMBER`, `READ_SIZE`, …) and a limit per
//! time unit (`100req/sec`, `10M/min`).

use std::fmt;
use std::time::Duration;

use crate::scope::{split_table, TableScope};

/// Whom a throttle limits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    /// Every request of a user, on any table.
    User(String),
    /// Every request on a table (`ns:table`; `default:` is spelled out).
    Table(String),
    /// Every request on the tables of a namespace.
    Namespace(String),
}

impl Subject {
    /// The subject of table `name` (`ns:table` or `table`), with its namespace spelled out.
    pub fn table(name: &str) -> Subject {
        let (ns, t) = split_table(name);
        Subject::Table(format!("{ns}:{t}"))
    }

    /// The kind's letter in the coordination store's keys (`u`, `t`, `n`).
    pub fn letter(&self) -> &'static str {
        match self {
            Subject::User(_) => "u",
            Subject::Table(_) => "t",
            Subject::Namespace(_) => "n",
        }
    }

    /// The name (user, `ns:table` or namespace).
    pub fn name(&self) -> &str {
        match self {
            Subject::User(n) | Subject::Table(n) | Subject::Namespace(n) => n,
        }
    }

    /// The subject of a key's letter and name.
    pub fn from_letter(letter: &str, name: String) -> Option<Subject> {
        match letter {
            "u" => Some(Subject::User(name)),
            "t" => Some(Subject::Table(name)),
            "n" => Some(Subject::Namespace(name)),
            _ => None,
        }
    }
}

impl fmt::Display for Subject {
    /// As HBase's `list_quotas` prints it: `USER => u`, `TABLE => ns:t` (`t` in `default`),
    /// `NAMESPACE => ns`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::User(n) => write!(f, "USER => {n}"),
            Subject::Table(n) => write!(f, "TABLE => {}", TableScope::table(n).table_name()),
            Subject::Namespace(n) => write!(f, "NAMESPACE => {n}"),
        }
    }
}

/// Which requests a throttle counts (HBase's `THROTTLE_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Every request (no `THROTTLE_TYPE`).
    Request,
    /// Reads: gets and scans.
    Read,
    /// Writes: puts, deletes, increments, appends.
    Write,
}

/// What a throttle counts of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    /// Requests (`req`).
    Number,
    /// Bytes (`B`, `K`, `M`, `G`, `T`, `P`).
    Size,
}

/// HBase's `ThrottleType`: a scope and a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThrottleType {
    /// Which requests.
    pub scope: Scope,
    /// What of them.
    pub unit: Unit,
}

impl ThrottleType {
    /// Every type, in HBase's order.
    pub const ALL: [ThrottleType; 6] = [
        ThrottleType::new(Scope::Request, Unit::Number),
        ThrottleType::new(Scope::Request, Unit::Size),
        ThrottleType::new(Scope::Write, Unit::Number),
        ThrottleType::new(Scope::Write, Unit::Size),
        ThrottleType::new(Scope::Read, Unit::Number),
        ThrottleType::new(Scope::Read, Unit::Size),
    ];

    /// The type of `scope` and `unit`.
    pub const fn new(scope: Scope, unit: Unit) -> ThrottleType {
        ThrottleType { scope, unit }
    }

    /// HBase's name (`REQUEST_NUMBER`, `WRITE_SIZE`, …).
    pub fn name(self) -> &'static str {
        match (self.scope, self.unit) {
            (Scope::Request, Unit::Number) => "REQUEST_NUMBER",
            (Scope::Request, Unit::Size) => "REQUEST_SIZE",
            (Scope::Write, Unit::Number) => "WRITE_NUMBER",
            (Scope::Write, Unit::Size) => "WRITE_SIZE",
            (Scope::Read, Unit::Number) => "READ_NUMBER",
            (Scope::Read, Unit::Size) => "READ_SIZE",
        }
    }

    /// The type HBase names `name`.
    pub fn from_name(name: &str) -> Option<ThrottleType> {
        ThrottleType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// HBase's `ThrottleType` enum number in its `Quota.proto`.
    pub fn number(self) -> i32 {
        match self.name() {
            "REQUEST_NUMBER" => 1,
            "REQUEST_SIZE" => 2,
            "WRITE_NUMBER" => 3,
            "WRITE_SIZE" => 4,
            "READ_NUMBER" => 5,
            _ => 6,
        }
    }

    /// The type of HBase's `Quota.proto` number `n` (capacity units are not among them).
    pub fn from_number(n: i32) -> Option<ThrottleType> {
        ThrottleType::ALL.into_iter().find(|t| t.number() == n)
    }
}

/// A throttle's time unit (HBase's `sec`, `min`, `hour`, `day`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Per {
    /// A second.
    Sec,
    /// A minute.
    Min,
    /// An hour.
    Hour,
    /// A day.
    Day,
}

impl Per {
    /// The unit's length.
    pub fn duration(self) -> Duration {
        Duration::from_secs(match self {
            Per::Sec => 1,
            Per::Min => 60,
            Per::Hour => 3600,
            Per::Day => 86_400,
        })
    }

    /// Its word in a limit (`sec`).
    pub fn word(self) -> &'static str {
        match self {
            Per::Sec => "sec",
            Per::Min => "min",
            Per::Hour => "hour",
            Per::Day => "day",
        }
    }

    /// HBase's `TimeUnit` name (`SECONDS`, …).
    pub fn time_unit(self) -> &'static str {
        match self {
            Per::Sec => "SECONDS",
            Per::Min => "MINUTES",
            Per::Hour => "HOURS",
            Per::Day => "DAYS",
        }
    }

    /// The unit of a word or HBase `TimeUnit` name.
    pub fn parse(text: &str) -> Option<Per> {
        match text.to_ascii_lowercase().as_str() {
            "sec" | "seconds" => Some(Per::Sec),
            "min" | "minutes" => Some(Per::Min),
            "hour" | "hours" => Some(Per::Hour),
            "day" | "days" => Some(Per::Day),
            _ => None,
        }
    }

    /// HBase's `HBaseProtos.TimeUnit` number (SECONDS = 4 … DAYS = 7).
    pub fn number(self) -> i32 {
        match self {
            Per::Sec => 4,
            Per::Min => 5,
            Per::Hour => 6,
            Per::Day => 7,
        }
    }

    /// The unit of an `HBaseProtos.TimeUnit` number; finer units than seconds are refused.
    pub fn from_number(n: i32) -> Option<Per> {
        [Per::Sec, Per::Min, Per::Hour, Per::Day]
            .into_iter()
            .find(|p| p.number() == n)
    }
}

/// A limit: `amount` requests or bytes per time unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limit {
    /// How many requests or bytes.
    pub amount: u64,
    /// Requests or bytes.
    pub unit: Unit,
    /// Per what.
    pub per: Per,
}

const SIZES: [(char, u64); 6] = [
    ('b', 1),
    ('k', 1 << 10),
    ('m', 1 << 20),
    ('g', 1 << 30),
    ('t', 1 << 40),
    ('p', 1 << 50),
];

impl Limit {
    /// Parses HBase's shell form: `100req/sec`, `10M/sec`, `512K/min`, `1G/day` (case does
    /// not matter, as in HBase's `quotas.rb`).
    ///
    /// # Errors
    /// Text that is not such a limit, or a limit of zero.
    pub fn parse(text: &str) -> Result<Limit, String> {
        let bad = || {
            format!(
                "'{text}' is not a throttle limit: expected <number>req/<unit> or \
                 <number>[B|K|M|G|T|P]/<unit>, <unit> one of sec, min, hour, day \
                 (e.g. '100req/sec', '10M/sec')"
            )
        };
        let lower = text.trim().to_ascii_lowercase();
        let (amount, per) = lower.split_once('/').ok_or_else(bad)?;
        let per = Per::parse(per)
            .filter(|_| !per.ends_with('s'))
            .ok_or_else(bad)?;
        let digits = amount.bytes().take_while(u8::is_ascii_digit).count();
        let (number, suffix) = amount.split_at(digits);
        let number: u64 = number.parse().map_err(|_| bad())?;
        let (unit, scale) = match suffix {
            "req" => (Unit::Number, 1),
            "cu" => {
                return Err(format!(
                    "'{text}': capacity units (CU) are not supported; limit requests (req) \
                     or bytes (B, K, M, G, T, P)"
                ))
            }
            s if s.len() == 1 => {
                let c = s.chars().next().unwrap_or(' ');
                let scale = SIZES
                    .iter()
                    .find(|(l, _)| *l == c)
                    .map(|(_, s)| *s)
                    .ok_or_else(bad)?;
                (Unit::Size, scale)
            }
            _ => return Err(bad()),
        };
        let amount = number
            .checked_mul(scale)
            .ok_or_else(|| format!("'{text}' is too large a limit"))?;
        if amount == 0 {
            return Err(format!(
                "'{text}': a limit of zero would refuse everything; remove the throttle with \
                 LIMIT => NONE instead"
            ));
        }
        Ok(Limit { amount, unit, per })
    }

    /// Requests or bytes per second.
    pub fn per_second(&self) -> f64 {
        self.amount as f64 / self.per.duration().as_secs_f64()
    }
}

impl fmt::Display for Limit {
    /// As HBase's `list_quotas` prints it: `100req/sec`, `10M/sec` (the largest whole size).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.unit {
            Unit::Number => write!(f, "{}req/{}", self.amount, self.per.word()),
            Unit::Size => {
                let (letter, scale) = SIZES
                    .iter()
                    .rev()
                    .find(|(_, s)| self.amount.is_multiple_of(*s))
                    .copied()
                    .unwrap_or(('b', 1));
                write!(
                    f,
                    "{}{}/{}",
                    self.amount / scale,
                    letter.to_ascii_uppercase(),
                    self.per.word()
                )
            }
        }
    }
}

/// One throttle in force: on `subject`, of `kind`, at most `limit`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Throttle {
    /// Whom it limits.
    pub subject: Subject,
    /// What it counts.
    pub kind: ThrottleType,
    /// How much.
    pub limit: Limit,
}

impl fmt::Display for Throttle {
    /// A line of `list_quotas`: `USER => bob, TYPE => THROTTLE, THROTTLE_TYPE =>
    /// REQUEST_NUMBER, LIMIT => 100req/sec, SCOPE => MACHINE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, TYPE => THROTTLE, THROTTLE_TYPE => {}, LIMIT => {}, SCOPE => MACHINE",
            self.subject,
            self.kind.name(),
            self.limit
        )
    }
}
