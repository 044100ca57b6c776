//! Space quotas, as HBase's `set_quota TYPE => SPACE` gives them: a table or a namespace, a
//! limit in bytes of store files, and the violation policy applied while the usage is at or
//! above the limit (`NO_INSERTS`, `NO_WRITES`, `NO_WRITES_COMPACTIONS`, `DISABLE`).

use std::fmt;

use super::settings::Subject;

/// HBase's `SpaceViolationPolicy`: what a table in violation may no longer do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpacePolicy {
    /// The table is disabled.
    Disable,
    /// No writes, bulk loads or compactions.
    NoWritesCompactions,
    /// No writes or bulk loads.
    NoWrites,
    /// No puts, increments, appends or bulk loads; deletes are allowed.
    NoInserts,
}

impl SpacePolicy {
    /// Every policy, in HBase's order.
    pub const ALL: [SpacePolicy; 4] = [
        SpacePolicy::Disable,
        SpacePolicy::NoWritesCompactions,
        SpacePolicy::NoWrites,
        SpacePolicy::NoInserts,
    ];

    /// HBase's name (`NO_INSERTS`, …).
    pub fn name(self) -> &'static str {
        match self {
            SpacePolicy::Disable => "DISABLE",
            SpacePolicy::NoWritesCompactions => "NO_WRITES_COMPACTIONS",
            SpacePolicy::NoWrites => "NO_WRITES",
            SpacePolicy::NoInserts => "NO_INSERTS",
        }
    }

    /// The policy HBase names `name` (any case).
    pub fn from_name(name: &str) -> Option<SpacePolicy> {
        let upper = name.trim().to_ascii_uppercase();
        SpacePolicy::ALL.into_iter().find(|p| p.name() == upper)
    }

    /// HBase's `Quota.proto` number (`DISABLE` = 1 … `NO_INSERTS` = 4).
    pub fn number(self) -> i32 {
        match self {
            SpacePolicy::Disable => 1,
            SpacePolicy::NoWritesCompactions => 2,
            SpacePolicy::NoWrites => 3,
            SpacePolicy::NoInserts => 4,
        }
    }

    /// The policy of a `Quota.proto` number.
    pub fn from_number(n: i32) -> Option<SpacePolicy> {
        SpacePolicy::ALL.into_iter().find(|p| p.number() == n)
    }
}

impl fmt::Display for SpacePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One space quota: on a table (`ns:table`) or a namespace, at most `limit` bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpaceQuota {
    /// A table or a namespace (never a user).
    pub subject: Subject,
    /// Bytes of store files.
    pub limit: u64,
    /// What a table in violation may no longer do.
    pub policy: SpacePolicy,
}

impl fmt::Display for SpaceQuota {
    /// As HBase's `SpaceLimitSettings.toString`: `TYPE => SPACE, TABLE => t1, LIMIT =>
    /// 1073741824, VIOLATION_POLICY => NO_INSERTS`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TYPE => SPACE, {}, LIMIT => {}, VIOLATION_POLICY => {}",
            self.subject, self.limit, self.policy
        )
    }
}

const SIZES: [(char, u64); 6] = [
    ('b', 1),
    ('k', 1 << 10),
    ('m', 1 << 20),
    ('g', 1 << 30),
    ('t', 1 << 40),
    ('p', 1 << 50),
];

/// Parses a space limit as HBase's shell does (`_parse_size`): a number of bytes, or a
/// number and one of `B`, `K`, `M`, `G`, `T`, `P` (any case): `'1G'`, `'512M'`, `1024`.
///
/// # Errors
/// Anything else, or a limit too large for 64 bits.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "'{text}' is not a space limit: expected <number>[B|K|M|G|T|P] (e.g. '1G', '512M') \
             or a number of bytes"
        )
    };
    let lower = text.trim().to_ascii_lowercase();
    let digits = lower.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(bad());
    }
    let (number, suffix) = lower.split_at(digits);
    let number: u64 = number.parse().map_err(|_| bad())?;
    let scale = match suffix {
        "" => 1,
        s if s.len() == 1 => SIZES
            .iter()
            .find(|(l, _)| s.starts_with(*l))
            .map(|(_, scale)| *scale)
            .ok_or_else(bad)?,
        _ => return Err(bad()),
    };
    number
        .checked_mul(scale)
        .ok_or_else(|| format!("'{text}' is too large a space limit"))
}

/// Why a request was refused by a space quota in violation, worded as HBase's
/// `SpaceLimitingException` (`getMessage`): the policy's name, then the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpaceLimited {
    /// The policy in force.
    pub policy: SpacePolicy,
    /// The reason (`Puts are disallowed due to a space quota.`).
    pub reason: String,
}

/// HBase's `SpaceLimitingException` class name.
pub const SPACE_HBASE_CLASS: &str = "org.apache.hadoop.hbase.quotas.SpaceLimitingException";

impl fmt::Display for SpaceLimited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.policy, self.reason)
    }
}

impl std::error::Error for SpaceLimited {}

/// A table's state under the space quota that covers it, as the master publishes it (HBase's
/// `SpaceQuotaSnapshot`): whether it is in violation, under which policy, its usage and limit
/// (the namespace's, when a namespace quota covers it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceState {
    /// The quota's policy.
    pub policy: SpacePolicy,
    /// Whether the policy is in force.
    pub in_violation: bool,
    /// Bytes of store files counted against the limit.
    pub usage: u64,
    /// The limit.
    pub limit: u64,
}

impl SpaceState {
    /// The stored form: `<violation|observance> <POLICY> <usage> <limit>`.
    pub fn encode(&self) -> String {
        format!(
            "{} {} {} {}",
            if self.in_violation {
                "violation"
            } else {
                "observance"
            },
            self.policy,
            self.usage,
            self.limit
        )
    }

    /// A state from its stored form (`None`: not one).
    pub fn decode(text: &str) -> Option<SpaceState> {
        let mut parts = text.split(' ');
        let in_violation = match parts.next()? {
            "violation" => true,
            "observance" => false,
            _ => return None,
        };
        let policy = SpacePolicy::from_name(parts.next()?)?;
        let usage = parts.next()?.parse().ok()?;
        let limit = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(SpaceState {
            policy,
            in_violation,
            usage,
            limit,
        })
    }
}
