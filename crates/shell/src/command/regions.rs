//! Region listing commands, as HBase's shell takes them: `list_regions 't' [, SERVER |
//! {SERVER_NAME => 'host'} [, ['COLUMN', ...]]]`, `get_splits 't'`, `locate_region 't', 'row'`.

use super::args::Args;
use super::Command;
use crate::value::Value;
use crate::ShellError;

/// A column of `list_regions`, in HBase's default order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionColumn {
    /// The server holding the region.
    ServerName,
    /// HBase's region name, `table,start,id.encoded.`.
    RegionName,
    /// First row.
    StartKey,
    /// End row (exclusive).
    EndKey,
    /// Store file bytes, in MB.
    Size,
    /// Reads and writes served since the region opened.
    Req,
    /// HDFS block locality: Strata does not measure it (`-`).
    Locality,
}

impl RegionColumn {
    /// Every column, in HBase's order.
    pub const ALL: [RegionColumn; 7] = [
        RegionColumn::ServerName,
        RegionColumn::RegionName,
        RegionColumn::StartKey,
        RegionColumn::EndKey,
        RegionColumn::Size,
        RegionColumn::Req,
        RegionColumn::Locality,
    ];

    /// The column's heading, also its name in a projection.
    pub fn title(self) -> &'static str {
        match self {
            RegionColumn::ServerName => "SERVER_NAME",
            RegionColumn::RegionName => "REGION_NAME",
            RegionColumn::StartKey => "START_KEY",
            RegionColumn::EndKey => "END_KEY",
            RegionColumn::Size => "SIZE",
            RegionColumn::Req => "REQ",
            RegionColumn::Locality => "LOCALITY",
        }
    }

    /// The narrowest the column prints (HBase's `size_hash`).
    pub fn min_width(self) -> usize {
        match self {
            RegionColumn::ServerName | RegionColumn::RegionName => 12,
            RegionColumn::StartKey | RegionColumn::EndKey | RegionColumn::Locality => 10,
            RegionColumn::Size | RegionColumn::Req => 5,
        }
    }
}

const COLUMNS_HINT: &str =
    "Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.";

/// Parses `list_regions`, `get_splits` or `locate_region`.
pub(super) fn parse(mut args: Args) -> Result<Command, ShellError> {
    Ok(match args.name() {
        "get_splits" => {
            args.arity(1, 1)?;
            Command::GetSplits(args.table()?)
        }
        "locate_region" => {
            args.arity(2, 2)?;
            let table = args.table()?;
            let row = args.next_bytes("row key")?;
            Command::LocateRegion { table, row }
        }
        _ => {
            args.arity(1, 3)?;
            let table = args.table()?;
            let server = match args.next() {
                None | Some(Value::Nil) => None,
                Some(Value::Hash(pairs)) => {
                    let mut options = args.options(Value::Hash(pairs))?;
                    if options.has("LOCALITY_THRESHOLD") {
                        return Err(args.invalid(
                            "LOCALITY_THRESHOLD is not supported: Strata does not measure \
                             HDFS block locality",
                        ));
                    }
                    let server = match options.take("SERVER_NAME") {
                        Some(v) => Some(args.text(&v, "server name")?),
                        None => None,
                    };
                    options.finish(&args, &["SERVER_NAME"])?;
                    server
                }
                Some(v) => Some(args.text(&v, "server name")?),
            };
            let columns = match args.next() {
                None | Some(Value::Nil) => RegionColumn::ALL.to_vec(),
                Some(Value::Array(items)) => {
                    let mut columns = Vec::with_capacity(items.len());
                    for item in &items {
                        let name = args.text(item, "column")?;
                        let column = RegionColumn::ALL
                            .into_iter()
                            .find(|c| c.title().eq_ignore_ascii_case(&name))
                            .ok_or_else(|| {
                                args.invalid(format!(
                                    "{name} is not a valid column. {COLUMNS_HINT}"
                                ))
                            })?;
                        if !columns.contains(&column) {
                            columns.push(column);
                        }
                    }
                    columns
                }
                Some(v) => {
                    return Err(args.invalid(format!(
                        "{} must be an array of strings. {COLUMNS_HINT}",
                        v.kind()
                    )))
                }
            };
            // An empty server name (HBase's `''` placeholder) filters nothing.
            let server = server.filter(|s| !s.is_empty());
            Command::ListRegions {
                table,
                server,
                columns,
            }
        }
    })
}
