//! Data commands: `put`, `get`, `scan`, `delete`, `deleteall`, `incr`, `append`,
//! `get_counter`, `count`.

use strata_model::ops::{Append, Delete, Filter, Get, Increment, OpError, Put, Scan};

use super::args::{Args, Options};
use super::read::{add_columns, take_read_options, READ_KEYS};
use super::Command;
use crate::value::Value;
use crate::ShellError;

/// `count`'s progress interval when none is given (HBase's).
pub const DEFAULT_COUNT_INTERVAL: u64 = 1000;
/// `count`'s rows per round trip when none is given (HBase's).
pub const DEFAULT_COUNT_CACHE: u32 = 10;

fn checked(args: &Args, result: Result<(), OpError>) -> Result<(), ShellError> {
    result.map_err(|e| args.invalid(e))
}

/// The keys HBase's `put` takes in its options hash that Strata has no use for, with why.
const PUT_UNSUPPORTED: [(&str, &str); 2] = [
    ("ATTRIBUTES", "Strata keeps no custom mutation attributes"),
    ("VISIBILITY", "Strata has no cell visibility labels"),
];

pub(super) fn put(mut args: Args) -> Result<Command, ShellError> {
    args.arity(4, 6)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let column = args.next_column()?;
    let value = args.next_bytes("value")?;
    let qualifier = column.qualifier_or_empty();
    let rest = args.rest();
    let (ts, opts) = match rest.as_slice() {
        [] => (None, None),
        [Value::Hash(_)] => (None, rest.into_iter().next()),
        [ts] => (Some(args.int(ts, "timestamp")?), None),
        [ts, Value::Hash(_)] => (Some(args.int(ts, "timestamp")?), rest.into_iter().nth(1)),
        _ => return Err(args.usage("the options hash must come last")),
    };
    let mut put = match ts {
        Some(ts) => Put::new(row).add_at(column.family, qualifier, ts, value),
        None => Put::new(row).add(column.family, qualifier, value),
    };
    if let Some(opts) = opts {
        let mut opts = args.options(opts)?;
        if let Some(v) = opts.take("TTL") {
            let ttl = args.int(&v, "TTL")?;
            let ttl = u64::try_from(ttl)
                .map_err(|_| args.invalid(format!("TTL must be at least 0 ms, got {ttl}")))?;
            put = put.with_ttl(ttl);
        }
        for (key, why) in PUT_UNSUPPORTED {
            if opts.has(key) {
                return Err(args.usage(format!("{key} is not supported: {why}")));
            }
        }
        opts.finish(&args, &["TTL"])?;
    }
    checked(&args, put.validate())?;
    Ok(Command::Put { table, put })
}

pub(super) fn get(mut args: Args) -> Result<Command, ShellError> {
    args.arity(2, usize::MAX)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let mut get = Get::new(row);
    let rest = args.rest();
    let count = rest.len();
    for (i, v) in rest.into_iter().enumerate() {
        match v {
            Value::Hash(_) if i + 1 == count => {
                let mut opts = args.options(v)?;
                let read = take_read_options(&args, &mut opts)?;
                opts.finish(&args, &READ_KEYS)?;
                for (family, qualifiers) in read.columns.families {
                    match qualifiers {
                        None => get.columns.add_family(family),
                        Some(qs) => qs
                            .into_iter()
                            .for_each(|q| get.columns.add_column(family.clone(), q)),
                    }
                }
                get.time_range = read.time_range.unwrap_or(get.time_range);
                get.max_versions = read.max_versions.unwrap_or(get.max_versions);
                get.filter = read.filter;
            }
            Value::Hash(_) => return Err(args.usage("the options hash must come last")),
            other => add_columns(&args, &mut get.columns, other)?,
        }
    }
    checked(&args, get.validate())?;
    Ok(Command::Get { table, get })
}

const SCAN_KEYS: [&str; 16] = [
    "STARTROW",
    "STOPROW",
    "ROWPREFIXFILTER",
    "LIMIT",
    "REVERSED",
    "CACHE",
    "BATCH",
    "CACHE_BLOCKS",
    "RAW",
    "COLUMN",
    "COLUMNS",
    "TIMESTAMP",
    "TIMERANGE",
    "VERSIONS",
    "FILTER",
    "ENDROW",
];

/// A scan from the scan keys of `opts`, which are taken out.
fn scan_options(args: &Args, opts: &mut Options) -> Result<Scan, ShellError> {
    let mut scan = Scan::new();
    if let Some(v) = opts.take("STARTROW") {
        scan.start_row = args.bytes(&v, "STARTROW")?;
    }
    if opts.has("STOPROW") && opts.has("ENDROW") {
        return Err(args.usage("give STOPROW or ENDROW, not both"));
    }
    if let Some(v) = opts.take("STOPROW").or_else(|| opts.take("ENDROW")) {
        scan.stop_row = args.bytes(&v, "STOPROW")?;
    }
    if let Some(v) = opts.take("ROWPREFIXFILTER") {
        scan.prefix = args.bytes(&v, "ROWPREFIXFILTER")?;
    }
    if let Some(v) = opts.take("LIMIT") {
        scan.limit = Some(args.count(&v, "LIMIT")?);
    }
    if let Some(v) = opts.take("REVERSED") {
        scan.reversed = args.boolean(&v, "REVERSED")?;
    }
    if let Some(v) = opts.take("CACHE") {
        scan.caching = Some(args.count(&v, "CACHE")?);
    }
    if let Some(v) = opts.take("BATCH") {
        scan.batch = Some(args.count(&v, "BATCH")?);
    }
    if let Some(v) = opts.take("CACHE_BLOCKS") {
        scan.cache_blocks = args.boolean(&v, "CACHE_BLOCKS")?;
    }
    if let Some(v) = opts.take("RAW") {
        scan.raw = args.boolean(&v, "RAW")?;
    }
    let read = take_read_options(args, opts)?;
    scan.columns = read.columns;
    scan.time_range = read.time_range.unwrap_or(scan.time_range);
    scan.max_versions = read.max_versions.unwrap_or(scan.max_versions);
    scan.filter = read.filter;
    Ok(scan)
}

pub(super) fn scan(mut args: Args) -> Result<Command, ShellError> {
    args.arity(1, 2)?;
    let table = args.table()?;
    let scan = match args.next() {
        Some(v) => {
            let mut opts = args.options(v)?;
            let scan = scan_options(&args, &mut opts)?;
            opts.finish(&args, &SCAN_KEYS)?;
            scan
        }
        None => Scan::new(),
    };
    checked(&args, scan.validate())?;
    Ok(Command::Scan { table, scan })
}

pub(super) fn count(mut args: Args) -> Result<Command, ShellError> {
    args.arity(1, 2)?;
    let table = args.table()?;
    let mut interval = DEFAULT_COUNT_INTERVAL;
    let mut scan = match args.next() {
        Some(v) => {
            let mut opts = args.options(v)?;
            if let Some(v) = opts.take("INTERVAL") {
                interval = args.count(&v, "INTERVAL")?;
            }
            let scan = scan_options(&args, &mut opts)?;
            let mut accepted = vec!["INTERVAL"];
            accepted.extend(SCAN_KEYS);
            opts.finish(&args, &accepted)?;
            scan
        }
        None => Scan::new(),
    };
    // As HBase's count: only each row's first cell is needed, and a one-off pass over the
    // table should not churn the block cache.
    scan.caching = scan.caching.or(Some(DEFAULT_COUNT_CACHE));
    scan.cache_blocks = false;
    scan.filter = Some(match scan.filter.take() {
        None => Filter::FirstKeyOnly,
        Some(f) => Filter::all(vec![f, Filter::FirstKeyOnly]),
    });
    checked(&args, scan.validate())?;
    Ok(Command::Count {
        table,
        scan,
        interval,
    })
}

pub(super) fn delete(mut args: Args) -> Result<Command, ShellError> {
    args.arity(3, 4)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let column = args.next_column()?;
    let ts = match args.next() {
        Some(v) => Some(args.int(&v, "timestamp")?),
        None => None,
    };
    let delete = delete_column(Delete::new(row), column.family, column.qualifier, ts);
    checked(&args, delete.validate())?;
    Ok(Command::Delete { table, delete })
}

pub(super) fn deleteall(mut args: Args) -> Result<Command, ShellError> {
    args.arity(2, 4)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let column = match args.next() {
        None | Some(Value::Nil) => None,
        Some(v) => Some(args.column(&v)?),
    };
    let ts = match args.next() {
        Some(v) => Some(args.int(&v, "timestamp")?),
        None => None,
    };
    let mut delete = Delete::new(row);
    match column {
        Some(c) => delete = delete_column(delete, c.family, c.qualifier, ts),
        None => delete.timestamp = ts,
    }
    checked(&args, delete.validate())?;
    Ok(Command::Delete { table, delete })
}

/// Every version at or before `ts` of a column, or of a whole family when there is no
/// qualifier (HBase's shell: `addColumns` / `addFamily`).
fn delete_column(
    delete: Delete,
    family: bytes::Bytes,
    qualifier: Option<bytes::Bytes>,
    ts: Option<i64>,
) -> Delete {
    match (qualifier, ts) {
        (Some(q), Some(ts)) => delete.column_upto(family, q, ts),
        (Some(q), None) => delete.column(family, q),
        (None, Some(ts)) => delete.family_upto(family, ts),
        (None, None) => delete.family(family),
    }
}

pub(super) fn incr(mut args: Args) -> Result<Command, ShellError> {
    args.arity(3, 4)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let column = args.next_column()?;
    let amount = match args.next() {
        Some(v) => args.int(&v, "increment")?,
        None => 1,
    };
    let qualifier = column.qualifier_or_empty();
    let increment = Increment::new(row).add(column.family, qualifier, amount);
    checked(&args, increment.validate())?;
    Ok(Command::Increment { table, increment })
}

pub(super) fn append(mut args: Args) -> Result<Command, ShellError> {
    args.arity(4, 4)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let column = args.next_column()?;
    let value = args.next_bytes("value")?;
    let qualifier = column.qualifier_or_empty();
    let append = Append::new(row).add(column.family, qualifier, value);
    checked(&args, append.validate())?;
    Ok(Command::Append { table, append })
}

pub(super) fn get_counter(mut args: Args) -> Result<Command, ShellError> {
    args.arity(3, 3)?;
    let table = args.table()?;
    let row = args.next_bytes("row")?;
    let column = args.next_column()?;
    let qualifier = column.qualifier_or_empty();
    let get = Get::new(row).with_column(column.family, qualifier);
    checked(&args, get.validate())?;
    Ok(Command::GetCounter { table, get })
}
