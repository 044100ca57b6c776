//! Writes: `mutateRow(s)(Ts)`, `deleteAll*`, `atomicIncrement`, `increment(Rows)`, `append`,
//! `checkAndPut`.
//!
//! A Thrift row's mutations become one atomic [`RowMutations`]: its deletes, then its puts
//! (HBase's order in `mutateRowTs`). A delete of `family:qualifier` removes every version up
//! to the timestamp (HBase's `addColumns`), of a bare `family` the whole family. Every row is
//! built and validated before anything is sent.

use bytes::Bytes;
use strata_model::ops::{
    ttl_from_attribute, Append, CheckAndMutate, Condition, Delete, Durability, Increment,
    Mutation as Op, Put, RowMutations, TTL_ATTRIBUTE,
};

use super::{split_column, Service};
use crate::error::{Result, ThriftError};
use crate::idl::{tcells, AppendSpec, BatchMutation, Fields, Increment as TIncrement, Mutation};
use crate::protocol::Value;

/// Runs write method `name`.
pub(super) async fn call(s: &Service, name: &str, f: &Fields<'_>) -> Result<Option<Value>> {
    match name {
        "mutateRow" | "mutateRowTs" => {
            let table = s.table(f, 1)?;
            let ts = if name == "mutateRowTs" {
                Some(f.i64(4, "timestamp")?)
            } else {
                None
            };
            let mutations = read_mutations(f, 3)?;
            let ttl = ttl_attribute(f, if ts.is_some() { 5 } else { 4 })?;
            let rm = row_mutations(f.bytes(2, "row")?, &mutations, ts, ttl)?;
            if !rm.mutations.is_empty() {
                table.mutate_row(&rm).await?;
            }
        }
        "mutateRows" | "mutateRowsTs" => {
            let table = s.table(f, 1)?;
            let ts = if name == "mutateRowsTs" {
                Some(f.i64(3, "timestamp")?)
            } else {
                None
            };
            let ttl = ttl_attribute(f, if ts.is_some() { 4 } else { 3 })?;
            let mut rows = Vec::new();
            for batch in f.struct_list(2, "rowBatches")? {
                let batch = BatchMutation::read(batch)?;
                let rm = row_mutations(batch.row, &batch.mutations, ts, ttl)?;
                if !rm.mutations.is_empty() {
                    rows.push(rm);
                }
            }
            if !rows.is_empty() {
                for outcome in table.batch(&rows).await? {
                    outcome?;
                }
            }
        }
        "atomicIncrement" => {
            let table = s.table(f, 1)?;
            let row = f.bytes(2, "row")?;
            let (family, qualifier) = split_column(&f.bytes(3, "column")?);
            let qualifier = qualifier.unwrap_or_default();
            let amount = f.i64(4, "value")?;
            // Adding 0 reads the counter and writes nothing (the engine's rule, as HBase's).
            let inc = Increment::new(row).add(family, qualifier, amount);
            let cells = table.increment(&inc).await?;
            let value = cells.first().map(|c| c.value.clone()).unwrap_or_default();
            let bytes: [u8; 8] = value.as_ref().try_into().map_err(|_| {
                ThriftError::io(format!("counter holds {} bytes, not 8", value.len()))
            })?;
            return Ok(Some(Value::I64(i64::from_be_bytes(bytes))));
        }
        "deleteAll" | "deleteAllTs" => {
            let table = s.table(f, 1)?;
            let ts = if name == "deleteAllTs" {
                Some(f.i64(4, "timestamp")?)
            } else {
                None
            };
            let delete = delete_column(Delete::new(f.bytes(2, "row")?), &f.bytes(3, "column")?, ts);
            delete.validate()?;
            table.delete(&delete).await?;
        }
        "deleteAllRow" | "deleteAllRowTs" => {
            let table = s.table(f, 1)?;
            let mut delete = Delete::new(f.bytes(2, "row")?);
            if name == "deleteAllRowTs" {
                delete.timestamp = Some(f.i64(3, "timestamp")?);
            }
            delete.validate()?;
            table.delete(&delete).await?;
        }
        "increment" => {
            let inc = TIncrement::read(f.structure(1, "increment")?)?;
            increment(s, &[inc]).await?;
        }
        "incrementRows" => {
            let incs = f
                .struct_list(1, "increments")?
                .into_iter()
                .map(TIncrement::read)
                .collect::<Result<Vec<_>>>()?;
            increment(s, &incs).await?;
        }
        "append" => return append(s, &AppendSpec::read(f.structure(1, "append")?)?).await,
        "checkAndPut" => return check_and_put(s, f).await.map(|b| Some(Value::Bool(b))),
        _ => return Err(ThriftError::io(format!("{name} is not a write"))),
    }
    Ok(None)
}

fn read_mutations(f: &Fields<'_>, id: i16) -> Result<Vec<Mutation>> {
    f.struct_list(id, "mutations")?
        .into_iter()
        .map(Mutation::read)
        .collect()
}

/// The `_ttl` entry of a call's attributes (field `id`): HBase's Thrift1 handler copies every
/// attribute onto the `Put` it builds (`addAttributes`), so `_ttl` (`Mutation.setTTL`'s
/// attribute, an 8-byte big-endian long in ms) gives the written cells their own TTL there.
/// Other attributes are accepted and ignored. `Long.MAX_VALUE` is none; negative is 0.
fn ttl_attribute(f: &Fields<'_>, id: i16) -> Result<Option<u64>> {
    let Some((_, value)) = f
        .bytes_map(id, "attributes")?
        .into_iter()
        .find(|(k, _)| k.as_ref() == TTL_ATTRIBUTE.as_bytes())
    else {
        return Ok(None);
    };
    ttl_from_attribute(&value).map_err(ThriftError::illegal)
}

/// One Thrift row's mutations, deletes first, all at `ts` (or the server's now); the puts
/// carry `ttl`.
fn row_mutations(
    row: Bytes,
    mutations: &[Mutation],
    ts: Option<i64>,
    ttl: Option<u64>,
) -> Result<RowMutations> {
    let mut put = Put::new(row.clone());
    put.ttl = ttl;
    let mut delete = Delete::new(row.clone());
    for m in mutations {
        if !m.write_to_wal {
            put.durability = Durability::SkipWal;
            delete.durability = Durability::SkipWal;
        }
        if m.is_delete {
            delete = delete_column(delete, &m.column, ts);
        } else {
            let (family, qualifier) = split_column(&m.column);
            let qualifier = qualifier.unwrap_or_default();
            put = match ts {
                Some(ts) => put.add_at(family, qualifier, ts, m.value.clone()),
                None => put.add(family, qualifier, m.value.clone()),
            };
        }
    }
    let mut rm = RowMutations::new(row);
    if !delete.markers.is_empty() {
        rm.add(Op::Delete(delete))?;
    }
    if !put.cells.is_empty() {
        rm.add(Op::Put(put))?;
    }
    if !rm.mutations.is_empty() {
        rm.validate()?;
    }
    Ok(rm)
}

/// Adds a marker deleting every version of `column` (or its whole family) up to `ts`.
fn delete_column(delete: Delete, column: &Bytes, ts: Option<i64>) -> Delete {
    match (split_column(column), ts) {
        ((family, Some(q)), Some(ts)) => delete.column_upto(family, q, ts),
        ((family, Some(q)), None) => delete.column(family, q),
        ((family, None), Some(ts)) => delete.family_upto(family, ts),
        ((family, None), None) => delete.family(family),
    }
}

/// Applies `TIncrement`s, one request per row (counters of one row together).
async fn increment(s: &Service, incs: &[TIncrement]) -> Result<()> {
    let mut requests = Vec::with_capacity(incs.len());
    for inc in incs {
        let table = s.conn.table(&inc.table)?;
        let (family, qualifier) = split_column(&inc.column);
        let request =
            Increment::new(inc.row.clone()).add(family, qualifier.unwrap_or_default(), inc.amount);
        request.validate()?;
        requests.push((table, request));
    }
    for (table, request) in requests {
        table.increment(&request).await?;
    }
    Ok(())
}

async fn append(s: &Service, spec: &AppendSpec) -> Result<Option<Value>> {
    if spec.columns.len() != spec.values.len() {
        return Err(ThriftError::illegal(format!(
            "TAppend has {} columns but {} values",
            spec.columns.len(),
            spec.values.len()
        )));
    }
    let table = s.conn.table(&spec.table)?;
    let mut append = Append::new(spec.row.clone());
    for (column, value) in spec.columns.iter().zip(&spec.values) {
        let (family, qualifier) = split_column(column);
        append = append.add(family, qualifier.unwrap_or_default(), value.clone());
    }
    append.validate()?;
    let cells = table.append(&append).await?;
    Ok(Some(tcells(&cells)))
}

/// `checkAndPut(1: tableName, 2: row, 3: column, 5: value, 6: mput)`: without `value`, the
/// check is that the column has none.
async fn check_and_put(s: &Service, f: &Fields<'_>) -> Result<bool> {
    let table = s.table(f, 1)?;
    let row = f.bytes(2, "row")?;
    let (family, qualifier) = split_column(&f.bytes(3, "column")?);
    let qualifier = qualifier.unwrap_or_default();
    let condition = match f.opt_bytes(5, "value")? {
        Some(value) => Condition::equals(family, qualifier, value),
        None => Condition::absent(family, qualifier),
    };
    let mput = Mutation::read(f.structure(6, "mput")?)?;
    let rm = row_mutations(row, &[mput], None, ttl_attribute(f, 7)?)?;
    let cam = CheckAndMutate::new(condition, rm);
    cam.validate()?;
    Ok(table.check_and_mutate(&cam).await?)
}
