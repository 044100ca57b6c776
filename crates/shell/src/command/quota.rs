//! Quota commands, as HBase's shell takes them (RFC 0029):
//! `set_quota TYPE => THROTTLE, USER => 'u' | TABLE => 't' | NAMESPACE => 'ns'[,
//! THROTTLE_TYPE => READ | WRITE | REQUEST], LIMIT => '100req/sec' | '10M/sec' | NONE`,
//! `set_quota TYPE => SPACE, TABLE => 't' | NAMESPACE => 'ns', LIMIT => '1G' | NONE[,
//! POLICY => NO_INSERTS | NO_WRITES | NO_WRITES_COMPACTIONS | DISABLE]` and
//! `list_quotas [USER => 'regex'][, TABLE => 'regex'][, NAMESPACE => 'regex']`,
//! `list_quota_snapshots [TABLE => 't'][, NAMESPACE => 'ns']` and `list_quota_table_sizes`.

use strata_access::quota::{parse_size, Limit, SpacePolicy, Subject};

use super::args::{Args, Options};
use super::Command;
use crate::value::Value;
use crate::ShellError;

const SET_KEYS: &[&str] = &[
    "TYPE",
    "USER",
    "TABLE",
    "NAMESPACE",
    "THROTTLE_TYPE",
    "LIMIT",
];
const SPACE_KEYS: &[&str] = &["TYPE", "TABLE", "NAMESPACE", "LIMIT", "POLICY"];
const LIST_KEYS: &[&str] = &["USER", "TABLE", "NAMESPACE"];
const SNAPSHOT_KEYS: &[&str] = &["TABLE", "NAMESPACE"];

/// A value that is a name: a string, or a bare constant (`READ`, `NONE`).
fn word(args: &Args, key: &str, v: &Value) -> Result<String, ShellError> {
    v.as_name()
        .ok_or_else(|| args.usage(format!("{key}: expected a string, got {}", v.kind())))
}

fn take(args: &Args, options: &mut Options, key: &str) -> Result<Option<String>, ShellError> {
    options.take(key).map(|v| word(args, key, &v)).transpose()
}

fn options(args: &mut Args) -> Result<Options, ShellError> {
    match args.next() {
        Some(v) => args.options(v),
        None => args.options(Value::Hash(Vec::new())),
    }
}

fn set_quota(mut args: Args) -> Result<Command, ShellError> {
    args.arity(1, 1)?;
    let mut o = options(&mut args)?;
    let kind =
        take(&args, &mut o, "TYPE")?.ok_or_else(|| args.usage("TYPE => THROTTLE is required"))?;
    match kind.to_ascii_uppercase().as_str() {
        "THROTTLE" => {}
        "SPACE" => return space_quota(&args, o),
        other => {
            return Err(args.invalid(format!("TYPE => {other}: expected THROTTLE or SPACE")));
        }
    }
    let user = take(&args, &mut o, "USER")?;
    let table = take(&args, &mut o, "TABLE")?;
    let namespace = take(&args, &mut o, "NAMESPACE")?;
    let subject = match (user, table, namespace) {
        (Some(u), None, None) if !u.is_empty() => Subject::User(u),
        (None, Some(t), None) if !t.is_empty() => {
            let table = args.table_name(&Value::Str(t.into_bytes()))?;
            Subject::table(&table.to_string())
        }
        (None, None, Some(ns)) if !ns.is_empty() => Subject::Namespace(ns),
        _ => {
            return Err(args.usage(
                "name exactly one of USER, TABLE or NAMESPACE (Strata has no quotas of a user \
                 on one table or namespace)",
            ))
        }
    };
    let throttle_type = take(&args, &mut o, "THROTTLE_TYPE")?.unwrap_or_default();
    let throttle_type = throttle_type.to_ascii_uppercase();
    if !matches!(throttle_type.as_str(), "" | "READ" | "WRITE" | "REQUEST") {
        return Err(args.invalid(format!(
            "THROTTLE_TYPE => {throttle_type}: expected READ, WRITE or REQUEST"
        )));
    }
    let limit = take(&args, &mut o, "LIMIT")?.ok_or_else(|| args.usage("LIMIT is required"))?;
    let limit = if limit.eq_ignore_ascii_case("NONE") {
        None
    } else {
        Limit::parse(&limit).map_err(|e| args.invalid(e))?;
        Some(limit)
    };
    o.finish(&args, SET_KEYS)?;
    Ok(Command::SetQuota {
        subject,
        throttle_type,
        limit,
    })
}

/// `set_quota TYPE => SPACE, TABLE => 't' | NAMESPACE => 'ns', LIMIT => '1G' | NONE,
/// POLICY => …` (HBase's shell asks for a POLICY unless the limit is NONE).
fn space_quota(args: &Args, mut o: Options) -> Result<Command, ShellError> {
    let table = take(args, &mut o, "TABLE")?;
    let namespace = take(args, &mut o, "NAMESPACE")?;
    let subject = match (table, namespace) {
        (Some(t), None) if !t.is_empty() => {
            let table = args.table_name(&Value::Str(t.into_bytes()))?;
            Subject::table(&table.to_string())
        }
        (None, Some(ns)) if !ns.is_empty() => Subject::Namespace(ns),
        _ => {
            return Err(
                args.usage("a space quota names exactly one of TABLE or NAMESPACE (not USER)")
            )
        }
    };
    let limit = take(args, &mut o, "LIMIT")?.ok_or_else(|| args.usage("LIMIT is required"))?;
    let policy = take(args, &mut o, "POLICY")?;
    o.finish(args, SPACE_KEYS)?;
    if limit.eq_ignore_ascii_case("NONE") {
        return Ok(Command::SetSpaceQuota {
            subject,
            limit: None,
        });
    }
    parse_size(&limit).map_err(|e| args.invalid(e))?;
    let policy = policy.ok_or_else(|| {
        args.usage("POLICY => NO_INSERTS | NO_WRITES | NO_WRITES_COMPACTIONS | DISABLE is required")
    })?;
    let policy = SpacePolicy::from_name(&policy).ok_or_else(|| {
        args.invalid(format!(
            "POLICY => {policy}: expected NO_INSERTS, NO_WRITES, NO_WRITES_COMPACTIONS or \
             DISABLE"
        ))
    })?;
    Ok(Command::SetSpaceQuota {
        subject,
        limit: Some((limit, policy)),
    })
}

fn list_quotas(mut args: Args) -> Result<Command, ShellError> {
    args.arity(0, 1)?;
    let mut o = options(&mut args)?;
    let filters = QuotaFilters {
        user: take(&args, &mut o, "USER")?,
        table: take(&args, &mut o, "TABLE")?,
        namespace: take(&args, &mut o, "NAMESPACE")?,
    };
    o.finish(&args, LIST_KEYS)?;
    Ok(Command::ListQuotas(filters))
}

/// `list_quotas`' filters: regexes the whole name must match (HBase's `QuotaFilter`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuotaFilters {
    /// Users'.
    pub user: Option<String>,
    /// Tables' (`ns:table`, or `table` in `default`).
    pub table: Option<String>,
    /// Namespaces'.
    pub namespace: Option<String>,
}

/// `list_quota_snapshots`: HBase's `TABLE` is a table's name without its namespace and
/// `NAMESPACE` a namespace, each compared whole. HBase's `REGIONSERVER` (a server's cached
/// copy of the states) is refused: every region server enforces the states the master
/// published, which this command lists.
fn list_quota_snapshots(mut args: Args) -> Result<Command, ShellError> {
    args.arity(0, 1)?;
    let mut o = options(&mut args)?;
    if o.take("REGIONSERVER").is_some() {
        return Err(args.invalid(
            "REGIONSERVER: not supported: every region server enforces the states the master \
             published, which list_quota_snapshots lists",
        ));
    }
    let table = take(&args, &mut o, "TABLE")?;
    let namespace = take(&args, &mut o, "NAMESPACE")?;
    o.finish(&args, SNAPSHOT_KEYS)?;
    Ok(Command::ListQuotaSnapshots { table, namespace })
}

/// Parses a quota command.
pub(super) fn parse(args: Args) -> Result<Command, ShellError> {
    match args.name() {
        "set_quota" => set_quota(args),
        "list_quota_snapshots" => list_quota_snapshots(args),
        "list_quota_table_sizes" => {
            args.arity(0, 0)?;
            Ok(Command::ListQuotaTableSizes)
        }
        "enable_rpc_throttle" | "disable_rpc_throttle" => {
            args.arity(0, 0)?;
            Ok(Command::SwitchRpcThrottle(
                args.name() == "enable_rpc_throttle",
            ))
        }
        _ => list_quotas(args),
    }
}
