//! The structs of HBase's `Hbase.thrift` (Thrift1) the gateway reads or writes, with their
//! field ids. Read structs are parsed into plain Rust types; written ones are built as
//! [`Struct`]s directly.

use bytes::Bytes;
use strata_model::cell::Cell;

use super::fields::Fields;
use crate::error::Result;
use crate::protocol::{Struct, TType, Value};

/// `Mutation {1: bool isDelete, 2: Text column, 3: Text value, 4: bool writeToWAL}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation {
    /// A delete of the column (all versions up to the timestamp) instead of a put.
    pub is_delete: bool,
    /// `family` or `family:qualifier`.
    pub column: Bytes,
    /// The value put (empty if unset).
    pub value: Bytes,
    /// False skips the WAL.
    pub write_to_wal: bool,
}

impl Mutation {
    /// Reads a `Mutation`.
    ///
    /// # Errors
    /// `IllegalArgument` for a missing column or a mistyped field.
    pub fn read(s: &Struct) -> Result<Mutation> {
        let f = Fields::new(s, "Mutation");
        Ok(Mutation {
            is_delete: f.opt_bool(1, "isDelete")?.unwrap_or(false),
            column: f.bytes(2, "column")?,
            value: f.opt_bytes(3, "value")?.unwrap_or_default(),
            write_to_wal: f.opt_bool(4, "writeToWAL")?.unwrap_or(true),
        })
    }
}

/// `BatchMutation {1: Text row, 2: list<Mutation> mutations}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchMutation {
    /// The row.
    pub row: Bytes,
    /// Its mutations, in order.
    pub mutations: Vec<Mutation>,
}

impl BatchMutation {
    /// Reads a `BatchMutation`.
    ///
    /// # Errors
    /// As [`Mutation::read`].
    pub fn read(s: &Struct) -> Result<BatchMutation> {
        let f = Fields::new(s, "BatchMutation");
        let mutations = f.struct_list(2, "mutations")?;
        Ok(BatchMutation {
            row: f.bytes(1, "row")?,
            mutations: mutations
                .into_iter()
                .map(Mutation::read)
                .collect::<Result<_>>()?,
        })
    }
}

/// `TIncrement {1: Text table, 2: Text row, 3: Text column, 4: i64 ammount}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Increment {
    /// The table.
    pub table: String,
    /// The row.
    pub row: Bytes,
    /// `family:qualifier`.
    pub column: Bytes,
    /// Added to the counter (the IDL's spelling is `ammount`).
    pub amount: i64,
}

impl Increment {
    /// Reads a `TIncrement`.
    ///
    /// # Errors
    /// `IllegalArgument` for a missing or mistyped field.
    pub fn read(s: &Struct) -> Result<Increment> {
        let f = Fields::new(s, "TIncrement");
        Ok(Increment {
            table: f.string(1, "table")?,
            row: f.bytes(2, "row")?,
            column: f.bytes(3, "column")?,
            amount: f.opt_i64(4, "ammount")?.unwrap_or(0),
        })
    }
}

/// `TScan`: every field optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanSpec {
    /// 1: first row (inclusive).
    pub start_row: Option<Bytes>,
    /// 2: stop row (exclusive).
    pub stop_row: Option<Bytes>,
    /// 3: only versions older than this.
    pub timestamp: Option<i64>,
    /// 4: `family` or `family:qualifier` names.
    pub columns: Vec<Bytes>,
    /// 5: rows per round trip to the region servers.
    pub caching: Option<i32>,
    /// 6: a filter in HBase's filter language.
    pub filter_string: Option<Bytes>,
    /// 7: most cells per result.
    pub batch_size: Option<i32>,
    /// 8: answer with `sortedColumns` instead of the `columns` map.
    pub sort_columns: bool,
    /// 9: descending rows.
    pub reversed: bool,
    /// 10: let the blocks read be cached.
    pub cache_blocks: Option<bool>,
}

impl ScanSpec {
    /// Reads a `TScan`.
    ///
    /// # Errors
    /// `IllegalArgument` for a mistyped field.
    pub fn read(s: &Struct) -> Result<ScanSpec> {
        let f = Fields::new(s, "TScan");
        Ok(ScanSpec {
            start_row: f.opt_bytes(1, "startRow")?,
            stop_row: f.opt_bytes(2, "stopRow")?,
            timestamp: f.opt_i64(3, "timestamp")?,
            columns: f.bytes_list(4, "columns")?,
            caching: f.opt_i32(5, "caching")?,
            filter_string: f.opt_bytes(6, "filterString")?,
            batch_size: f.opt_i32(7, "batchSize")?,
            sort_columns: f.opt_bool(8, "sortColumns")?.unwrap_or(false),
            reversed: f.opt_bool(9, "reversed")?.unwrap_or(false),
            cache_blocks: f.opt_bool(10, "cacheBlocks")?,
        })
    }
}

/// `TAppend {1: Text table, 2: Text row, 3: list<Text> columns, 4: list<Text> values}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendSpec {
    /// The table.
    pub table: String,
    /// The row.
    pub row: Bytes,
    /// `family:qualifier` names, one per value.
    pub columns: Vec<Bytes>,
    /// Values appended.
    pub values: Vec<Bytes>,
}

impl AppendSpec {
    /// Reads a `TAppend`.
    ///
    /// # Errors
    /// `IllegalArgument` for a missing or mistyped field.
    pub fn read(s: &Struct) -> Result<AppendSpec> {
        let f = Fields::new(s, "TAppend");
        Ok(AppendSpec {
            table: f.string(1, "table")?,
            row: f.bytes(2, "row")?,
            columns: f.bytes_list(3, "columns")?,
            values: f.bytes_list(4, "values")?,
        })
    }
}

/// `TCell {1: Bytes value, 2: i64 timestamp}`.
pub fn tcell(cell: &Cell) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, Value::Binary(cell.value.clone()))
            .with(2, Value::I64(cell.timestamp)),
    )
}

/// A list of `TCell`s.
pub fn tcells<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Value {
    Value::list(TType::Struct, cells.into_iter().map(tcell).collect())
}

/// `family:qualifier`, as HBase's Thrift names a cell's column.
pub fn column_name(cell: &Cell) -> Bytes {
    let mut name = Vec::with_capacity(cell.family.len() + 1 + cell.qualifier.len());
    name.extend_from_slice(&cell.family);
    name.push(b':');
    name.extend_from_slice(&cell.qualifier);
    name.into()
}

/// `TRowResult {1: row, 2: map<Text, TCell> columns}` or, sorted,
/// `{1: row, 3: list<TColumn {1: columnName, 2: cell}> sortedColumns}`. Cells must be one
/// row's, in key order; only the newest version of each column is kept, as HBase does.
pub fn row_result(row: &Bytes, cells: &[Cell], sorted: bool) -> Value {
    let mut columns: Vec<(Bytes, Value)> = Vec::with_capacity(cells.len());
    for cell in cells {
        let name = column_name(cell);
        if columns.last().is_some_and(|(last, _)| *last == name) {
            continue;
        }
        columns.push((name, tcell(cell)));
    }
    let result = Struct::new().with(1, Value::Binary(row.clone()));
    Value::Struct(if sorted {
        let items = columns
            .into_iter()
            .map(|(name, cell)| {
                Value::Struct(Struct::new().with(1, Value::Binary(name)).with(2, cell))
            })
            .collect();
        result.with(3, Value::list(TType::Struct, items))
    } else {
        let entries = columns
            .into_iter()
            .map(|(name, cell)| (Value::Binary(name), cell))
            .collect();
        result.with(
            2,
            Value::Map {
                key: TType::String,
                value: TType::Struct,
                entries,
            },
        )
    })
}
