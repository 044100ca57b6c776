//! HBase's request protobufs to Strata's operations, and cells back to `Result`s.
//!
//! Mutations carry their cells either inside the protobuf (`column_value`) or in the call's
//! cell block (`associated_cell_count` of them, in order); both become the same model
//! mutation. `LATEST_TIMESTAMP` (`Long.MAX_VALUE`) means "the server's clock", as in HBase.

use bytes::Bytes;
use strata_model::cell::{Cell, CellType, LATEST_TIMESTAMP};
use strata_model::ops::{
    ttl_from_attribute, Append, AppendCell, CheckAndMutate, Columns, Condition, Delete, DeleteKind,
    DeleteMarker, Durability, Get, Increment, IncrementCell, Mutation, Put, PutCell, RowMutations,
    Scan, TimeRange, TTL_ATTRIBUTE,
};

use crate::error::{HBaseError, HResult};
use crate::filters;
use crate::pb;
use crate::pb::mutation_proto::{DeleteType, MutationType};

fn invalid(e: impl std::fmt::Display) -> HBaseError {
    HBaseError::do_not_retry(e.to_string())
}

/// A client time range `[from, to)` (absent: all time).
///
/// # Errors
/// `from >= to`.
pub fn time_range(tr: Option<&pb::TimeRange>) -> HResult<TimeRange> {
    let Some(tr) = tr else {
        return Ok(TimeRange::ALL);
    };
    let from = i64::try_from(tr.from.unwrap_or(0)).unwrap_or(i64::MAX);
    let to = i64::try_from(tr.to.unwrap_or(i64::MAX as u64)).unwrap_or(i64::MAX);
    TimeRange::new(from, to).map_err(invalid)
}

fn columns(cols: &[pb::Column]) -> Columns {
    let mut out = Columns::default();
    for c in cols {
        if c.qualifier.is_empty() {
            out.add_family(c.family.clone());
        } else {
            for q in &c.qualifier {
                out.add_column(c.family.clone(), q.clone());
            }
        }
    }
    out
}

/// A client `Get`, and whether it only asks whether the row exists.
///
/// # Errors
/// A bad time range, filter or limit; `closest_row_before` (gone since HBase 2.0).
pub fn get_from_pb(g: &pb::Get) -> HResult<(Get, bool)> {
    if g.closest_row_before() {
        return Err(HBaseError::do_not_retry(
            "closest_row_before is not supported (HBase 2 removed it)",
        ));
    }
    if !g.cf_time_range.is_empty() {
        return Err(HBaseError::do_not_retry(
            "per-family time ranges are not supported by Strata",
        ));
    }
    let mut get = Get::new(g.row.clone());
    get.columns = columns(&g.column);
    get.time_range = time_range(g.time_range.as_ref())?;
    get.max_versions = g.max_versions().max(1);
    get.cache_blocks = g.cache_blocks();
    get.max_results_per_family = g.store_limit;
    get.offset_per_family = g.store_offset();
    get.filter = g.filter.as_ref().map(filters::filter).transpose()?;
    get.validate().map_err(invalid)?;
    Ok((get, g.existence_only()))
}

fn durability(code: Option<i32>) -> Durability {
    use pb::mutation_proto::Durability as D;
    match code.and_then(|c| D::try_from(c).ok()) {
        Some(D::SkipWal) => Durability::SkipWal,
        Some(D::AsyncWal) => Durability::AsyncWal,
        Some(D::SyncWal) => Durability::SyncWal,
        Some(D::FsyncWal) => Durability::FsyncWal,
        _ => Durability::UseDefault,
    }
}

fn explicit(ts: i64) -> Option<i64> {
    (ts != LATEST_TIMESTAMP).then_some(ts)
}

/// One cell of a mutation, from the protobuf or the cell block.
struct MCell {
    family: Bytes,
    qualifier: Bytes,
    timestamp: i64,
    value: Bytes,
    cell_type: CellType,
}

fn cells_of(
    m: &pb::MutationProto,
    kind: MutationType,
    block: &mut dyn Iterator<Item = Cell>,
) -> HResult<Vec<MCell>> {
    let default_ts = m.timestamp.map_or(LATEST_TIMESTAMP, |t| t as i64);
    let mut out = Vec::new();
    for cv in &m.column_value {
        for qv in &cv.qualifier_value {
            let cell_type = if kind == MutationType::Delete {
                match qv.delete_type.and_then(|d| DeleteType::try_from(d).ok()) {
                    Some(DeleteType::DeleteOneVersion) | None => CellType::Delete,
                    Some(DeleteType::DeleteMultipleVersions) => CellType::DeleteColumn,
                    Some(DeleteType::DeleteFamily) => CellType::DeleteFamily,
                    Some(DeleteType::DeleteFamilyVersion) => CellType::DeleteFamilyVersion,
                }
            } else {
                CellType::Put
            };
            out.push(MCell {
                family: cv.family.clone(),
                qualifier: qv.qualifier.clone().unwrap_or_default(),
                timestamp: qv.timestamp.map_or(default_ts, |t| t as i64),
                value: qv.value.clone().unwrap_or_default(),
                cell_type,
            });
        }
    }
    let n = usize::try_from(m.associated_cell_count.unwrap_or(0))
        .map_err(|_| invalid("negative associated_cell_count"))?;
    for _ in 0..n {
        let c = block.next().ok_or_else(|| {
            invalid(format!(
                "mutation announces {n} cells, the cell block has fewer"
            ))
        })?;
        if c.row != m.row.clone().unwrap_or_default() {
            return Err(invalid("a cell's row differs from its mutation's row"));
        }
        out.push(MCell {
            family: c.family,
            qualifier: c.qualifier,
            timestamp: c.timestamp,
            value: c.value,
            cell_type: c.cell_type,
        });
    }
    Ok(out)
}

/// HBase's `Scan.RAW_ATTR` (`_raw_`), which `Scan.setRaw` sets to `Bytes.toBytes(raw)`: one
/// byte, non-zero for true. Any other length is refused, as `Bytes.toBoolean` refuses it.
fn raw_attribute(attributes: &[pb::NameBytesPair]) -> HResult<bool> {
    match attributes.iter().rev().find(|a| a.name == "_raw_") {
        None => Ok(false),
        Some(a) => match a.value.as_deref() {
            Some([b]) => Ok(*b != 0),
            other => Err(HBaseError::do_not_retry(format!(
                "scan attribute _raw_ must be one byte, got {}",
                other.map_or(0, <[u8]>::len)
            ))),
        },
    }
}

fn return_results(m: &pb::MutationProto) -> bool {
    // HBase's `Mutation.RETURN_RESULTS` attribute: `Bytes.toBytes(false)` is a single 0 byte.
    !m.attribute
        .iter()
        .any(|a| a.name == "_rr_" && a.value.as_deref() == Some(&[0u8][..]))
}

/// HBase's `Mutation.OP_ATTRIBUTE_TTL` (`_ttl`, set by `Mutation.setTTL`): the written cells'
/// own time to live in ms, `Bytes.toBytes(long)`. `Long.MAX_VALUE` (HBase's "none") and no
/// attribute are `None`; a negative TTL expires the cells at once, as `0` does.
///
/// # Errors
/// An attribute that is not 8 bytes (HBase's `Bytes.toLong` refuses it too).
fn ttl_of(m: &pb::MutationProto) -> HResult<Option<u64>> {
    match m.attribute.iter().find(|a| a.name == TTL_ATTRIBUTE) {
        Some(a) => ttl_from_attribute(a.value.as_deref().unwrap_or_default()).map_err(invalid),
        None => Ok(None),
    }
}

/// A client mutation, taking its cells from the protobuf and then from `block`.
///
/// # Errors
/// No row, an unknown type, missing or malformed cells (increments need 8-byte amounts).
pub fn mutation_from_pb(
    m: &pb::MutationProto,
    block: &mut dyn Iterator<Item = Cell>,
) -> HResult<Mutation> {
    let row = m
        .row
        .clone()
        .ok_or_else(|| invalid("mutation without a row"))?;
    let kind = m
        .mutate_type
        .and_then(|t| MutationType::try_from(t).ok())
        .ok_or_else(|| invalid("mutation without a known type"))?;
    let cells = cells_of(m, kind, block)?;
    let durability = durability(m.durability);
    // Deletes ignore it, as HBase's region does (`Delete.setTTL` refuses to set it).
    let ttl = ttl_of(m)?;
    let mutation = match kind {
        MutationType::Put => {
            for c in &cells {
                if c.cell_type != CellType::Put {
                    return Err(invalid("a put carries a delete cell"));
                }
            }
            Mutation::Put(Put {
                row,
                cells: cells
                    .into_iter()
                    .map(|c| PutCell {
                        family: c.family,
                        qualifier: c.qualifier,
                        timestamp: explicit(c.timestamp),
                        value: c.value,
                    })
                    .collect(),
                durability,
                ttl,
            })
        }
        MutationType::Delete => {
            let markers = cells
                .into_iter()
                .map(|c| {
                    let kind = match c.cell_type {
                        CellType::Delete => DeleteKind::Version,
                        CellType::DeleteColumn => DeleteKind::Column,
                        CellType::DeleteFamily => DeleteKind::Family,
                        CellType::DeleteFamilyVersion => DeleteKind::FamilyVersion,
                        CellType::Put => return Err(invalid("a delete carries a put cell")),
                    };
                    Ok(DeleteMarker {
                        kind,
                        qualifier: if kind.is_family() {
                            Bytes::new()
                        } else {
                            c.qualifier
                        },
                        family: c.family,
                        timestamp: explicit(c.timestamp),
                    })
                })
                .collect::<HResult<Vec<_>>>()?;
            Mutation::Delete(Delete {
                row,
                markers,
                timestamp: m.timestamp.and_then(|t| explicit(t as i64)),
                durability,
            })
        }
        MutationType::Increment => Mutation::Increment(Increment {
            row,
            cells: cells
                .into_iter()
                .map(|c| {
                    let amount: [u8; 8] = c.value.as_ref().try_into().map_err(|_| {
                        invalid(format!(
                            "increment amount must be an 8-byte long, got {} bytes",
                            c.value.len()
                        ))
                    })?;
                    Ok(IncrementCell {
                        family: c.family,
                        qualifier: c.qualifier,
                        amount: i64::from_be_bytes(amount),
                    })
                })
                .collect::<HResult<Vec<_>>>()?,
            durability,
            return_results: return_results(m),
            ttl,
        }),
        MutationType::Append => Mutation::Append(Append {
            row,
            cells: cells
                .into_iter()
                .map(|c| AppendCell {
                    family: c.family,
                    qualifier: c.qualifier,
                    value: c.value,
                })
                .collect(),
            durability,
            return_results: return_results(m),
            ttl,
        }),
    };
    mutation.validate().map_err(invalid)?;
    Ok(mutation)
}

/// A check-and-mutate condition with the time range it reads at.
///
/// # Errors
/// Neither a column comparison nor a filter, or a malformed one.
pub fn condition_from_pb(c: &pb::Condition) -> HResult<(Condition, TimeRange)> {
    let tr = time_range(c.time_range.as_ref())?;
    if let Some(f) = &c.filter {
        return Ok((Condition::Filter(filters::filter(f)?), tr));
    }
    let (Some(family), Some(qualifier)) = (&c.family, &c.qualifier) else {
        return Err(invalid("condition without a column or a filter"));
    };
    let op = filters::compare_op(c.compare_type.unwrap_or(pb::CompareType::Equal as i32))?;
    let comparator = c
        .comparator
        .as_ref()
        .ok_or_else(|| invalid("condition without a comparator"))?;
    let expected = match filters::comparator(comparator)? {
        strata_model::ops::Comparator::Binary(v) => v,
        other => {
            return Err(HBaseError::do_not_retry(format!(
                "check-and-mutate compares with a BinaryComparator; {} is not supported",
                other.type_name()
            )))
        }
    };
    // HBase: an empty expected value with EQUAL matches a missing column (`ifNotExists`).
    let expected = if expected.is_empty() && op == strata_model::ops::CompareOp::Equal {
        None
    } else {
        Some(expected)
    };
    Ok((
        Condition::Column {
            family: family.clone(),
            qualifier: qualifier.clone(),
            op,
            expected,
        },
        tr,
    ))
}

/// Builds a check-and-mutate over `mutations` (all on `row`).
///
/// # Errors
/// Mutations on another row, or an invalid whole.
pub fn check_and_mutate(
    row: Bytes,
    condition: Condition,
    time_range: TimeRange,
    mutations: Vec<Mutation>,
) -> HResult<CheckAndMutate> {
    let mut rm = RowMutations::new(row);
    for m in mutations {
        rm.add(m).map_err(invalid)?;
    }
    let mut cam = CheckAndMutate::new(condition, rm);
    cam.time_range = time_range;
    cam.validate().map_err(invalid)?;
    Ok(cam)
}

/// What a client scan asks beyond the model's [`Scan`].
#[derive(Clone, Debug)]
pub struct ScanSpec {
    /// The model scan (start inclusive, stop exclusive, limit, batch, filter).
    pub scan: Scan,
    /// Skip the start row itself (HBase's `include_start_row = false`).
    pub exclude_start: bool,
    /// Most bytes of cells per response (`max_result_size`); `None`: the server's limit.
    pub max_result_bytes: Option<u64>,
}

/// A client scan.
///
/// # Errors
/// Bad ranges, limits or filters.
pub fn scan_from_pb(s: &pb::Scan, limit_of_rows: u32) -> HResult<ScanSpec> {
    if !s.cf_time_range.is_empty() {
        return Err(HBaseError::do_not_retry(
            "per-family time ranges are not supported by Strata",
        ));
    }
    let mut scan = Scan::new();
    scan.reversed = s.reversed();
    scan.start_row = s.start_row.clone().unwrap_or_default();
    scan.stop_row = s.stop_row.clone().unwrap_or_default();
    scan.include_stop_row = s.include_stop_row() && !scan.stop_row.is_empty();
    scan.time_range = time_range(s.time_range.as_ref())?;
    scan.max_versions = s.max_versions().max(1);
    scan.cache_blocks = s.cache_blocks();
    scan.columns = columns(&s.column);
    scan.raw = raw_attribute(&s.attribute)?;
    scan.max_results_per_family = s.store_limit;
    scan.offset_per_family = s.store_offset();
    scan.batch = s.batch_size.filter(|&b| b > 0);
    scan.caching = s.caching.filter(|&c| c > 0 && c < u32::MAX);
    scan.limit = (limit_of_rows > 0).then_some(u64::from(limit_of_rows));
    scan.filter = s.filter.as_ref().map(filters::filter).transpose()?;
    let exclude_start = !s.include_start_row() && !scan.start_row.is_empty();
    if exclude_start && !scan.reversed {
        let mut v = scan.start_row.to_vec();
        v.push(0);
        scan.start_row = Bytes::from(v);
    }
    // A range whose start lies past its stop in the scan's direction reads nothing, as in
    // HBase (which answers no rows, not an error): it becomes the empty range [start, start).
    let (start, stop) = (&scan.start_row, &scan.stop_row);
    let past = if scan.reversed {
        start < stop
    } else {
        start > stop
    };
    if past && !start.is_empty() && !stop.is_empty() {
        scan.stop_row = scan.start_row.clone();
        scan.include_stop_row = false;
    }
    scan.validate().map_err(invalid)?;
    Ok(ScanSpec {
        exclude_start: exclude_start && scan.reversed,
        max_result_bytes: s.max_result_size.filter(|&n| n > 0 && n < u64::MAX),
        scan,
    })
}

/// A protobuf cell (for results carried inside the protobuf).
pub fn cell_to_pb(c: &Cell) -> pb::Cell {
    pb::Cell {
        row: Some(c.row.clone()),
        family: Some(c.family.clone()),
        qualifier: Some(c.qualifier.clone()),
        timestamp: Some(c.timestamp as u64),
        cell_type: Some(i32::from(c.cell_type.code())),
        value: Some(c.value.clone()),
        tags: None,
    }
}

#[cfg(test)]
mod tests;
