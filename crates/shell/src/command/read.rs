//! Options shared by `get`, `scan` and `count`: columns, timestamps, versions, filter.

use strata_model::ops::{parse_filter, Columns, Filter, TimeRange};

use super::args::{Args, Column, Options};
use crate::value::Value;
use crate::ShellError;

/// The read options of a `get` or `scan` hash.
#[derive(Default)]
pub(super) struct ReadOptions {
    pub(super) columns: Columns,
    pub(super) time_range: Option<TimeRange>,
    pub(super) max_versions: Option<u32>,
    pub(super) filter: Option<Filter>,
}

/// The keys [`take_read_options`] understands.
pub(super) const READ_KEYS: [&str; 6] = [
    "COLUMN",
    "COLUMNS",
    "TIMESTAMP",
    "TIMERANGE",
    "VERSIONS",
    "FILTER",
];

/// Takes the shared read options out of `opts`.
pub(super) fn take_read_options(
    args: &Args,
    opts: &mut Options,
) -> Result<ReadOptions, ShellError> {
    let mut out = ReadOptions::default();
    if opts.has("COLUMN") && opts.has("COLUMNS") {
        return Err(args.usage("give COLUMN or COLUMNS, not both"));
    }
    if let Some(v) = opts.take("COLUMN").or_else(|| opts.take("COLUMNS")) {
        add_columns(args, &mut out.columns, v)?;
    }
    let timestamp = opts.take("TIMESTAMP");
    let range = opts.take("TIMERANGE");
    out.time_range = match (timestamp, range) {
        (Some(_), Some(_)) => return Err(args.usage("give TIMESTAMP or TIMERANGE, not both")),
        (Some(ts), None) => {
            let ts = args.int(&ts, "TIMESTAMP")?;
            Some(TimeRange::at(ts).map_err(|e| args.invalid(e))?)
        }
        (None, Some(range)) => Some(time_range(args, &range)?),
        (None, None) => None,
    };
    if let Some(v) = opts.take("VERSIONS") {
        out.max_versions = Some(args.count(&v, "VERSIONS")?);
    }
    if let Some(v) = opts.take("FILTER") {
        out.filter = Some(filter(args, &v)?);
    }
    Ok(out)
}

/// Adds a column spec, or an array of them, to `columns`.
pub(super) fn add_columns(args: &Args, columns: &mut Columns, v: Value) -> Result<(), ShellError> {
    let specs = match v {
        Value::Array(items) if items.is_empty() => {
            return Err(args.usage("the column list must not be empty"))
        }
        Value::Array(items) => items,
        other => vec![other],
    };
    for spec in &specs {
        let Column { family, qualifier } = args.column(spec)?;
        match qualifier {
            Some(q) => columns.add_column(family, q),
            None => columns.add_family(family),
        }
    }
    Ok(())
}

/// `[min, max]`: milliseconds, `min` inclusive, `max` exclusive.
fn time_range(args: &Args, v: &Value) -> Result<TimeRange, ShellError> {
    match v {
        Value::Array(items) if items.len() == 2 => {
            let min = args.int(&items[0], "TIMERANGE start")?;
            let max = args.int(&items[1], "TIMERANGE end")?;
            TimeRange::new(min, max).map_err(|e| args.invalid(e))
        }
        other => Err(args.usage(format!(
            "TIMERANGE must be [min, max] in milliseconds, got {}",
            other.kind()
        ))),
    }
}

/// `FILTER => "..."` in HBase's filter language.
fn filter(args: &Args, v: &Value) -> Result<Filter, ShellError> {
    let text = args.text(v, "FILTER")?;
    parse_filter(&text).map_err(|e| args.invalid(format!("FILTER: {e}")))
}
