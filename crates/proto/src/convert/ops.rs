//! Cells, mutations, gets, scans and conditions.

use bytes::Bytes;
use strata_model::cell::{Cell, CellType};
use strata_model::ops::{
    parse_filter, Append, AppendCell, CheckAndMutate, Columns, CompareOp, Condition, Delete,
    DeleteKind, DeleteMarker, Filter, Get, Increment, IncrementCell, Mutation, Put, PutCell,
    RowMutations, Scan, TimeRange,
};
use strata_model::schema::Durability;

use super::ConvertError;
use crate::pb;

/// A cell on the wire (its sequence id stays on the server).
pub fn cell_to_pb(cell: &Cell) -> pb::Cell {
    pb::Cell {
        row: cell.row.clone(),
        family: cell.family.clone(),
        qualifier: cell.qualifier.clone(),
        timestamp: cell.timestamp,
        r#type: cell_type_to_pb(cell.cell_type) as i32,
        value: cell.value.clone(),
    }
}

/// A wire cell as a model cell with sequence id 0.
///
/// # Errors
/// An unknown cell type.
pub fn cell_from_pb(cell: pb::Cell) -> Result<Cell, ConvertError> {
    let cell_type = match pb::CellType::try_from(cell.r#type) {
        Ok(pb::CellType::Put) => CellType::Put,
        Ok(pb::CellType::Delete) => CellType::Delete,
        Ok(pb::CellType::DeleteColumn) => CellType::DeleteColumn,
        Ok(pb::CellType::DeleteFamily) => CellType::DeleteFamily,
        Ok(pb::CellType::DeleteFamilyVersion) => CellType::DeleteFamilyVersion,
        Err(_) => return Err(ConvertError(format!("unknown cell type {}", cell.r#type))),
    };
    Ok(Cell {
        row: cell.row,
        family: cell.family,
        qualifier: cell.qualifier,
        timestamp: cell.timestamp,
        cell_type,
        seq: 0,
        value: cell.value,
        ttl: None,
    })
}

fn cell_type_to_pb(t: CellType) -> pb::CellType {
    match t {
        CellType::Put => pb::CellType::Put,
        CellType::Delete => pb::CellType::Delete,
        CellType::DeleteColumn => pb::CellType::DeleteColumn,
        CellType::DeleteFamily => pb::CellType::DeleteFamily,
        CellType::DeleteFamilyVersion => pb::CellType::DeleteFamilyVersion,
    }
}

/// Cells as a wire result.
pub fn result_to_pb(cells: &[Cell]) -> pb::Result {
    pb::Result {
        cells: cells.iter().map(cell_to_pb).collect(),
        cell_block: Bytes::new(),
    }
}

/// Cells as a wire result in the form the request asked for: a cell block
/// ([`super::encode_cell_block`]) or one message per cell.
pub fn result_to_pb_as(cells: &[Cell], cell_block: bool) -> pb::Result {
    if cell_block {
        pb::Result {
            cells: Vec::new(),
            cell_block: super::encode_cell_block(cells),
        }
    } else {
        result_to_pb(cells)
    }
}

/// A wire result as cells, from its `cells` or its `cell_block`.
///
/// # Errors
/// An unknown cell type, a malformed cell block, or both forms at once.
pub fn result_from_pb(result: pb::Result) -> Result<Vec<Cell>, ConvertError> {
    match (result.cells.is_empty(), result.cell_block.is_empty()) {
        (_, true) => result.cells.into_iter().map(cell_from_pb).collect(),
        (true, false) => super::decode_cell_block(&result.cell_block),
        (false, false) => Err(ConvertError::new(
            "a result carries both cells and a cell block",
        )),
    }
}

pub(crate) fn durability_to_pb(d: Durability) -> pb::Durability {
    match d {
        Durability::UseDefault => pb::Durability::UseDefault,
        Durability::SkipWal => pb::Durability::SkipWal,
        Durability::AsyncWal => pb::Durability::AsyncWal,
        Durability::SyncWal => pb::Durability::SyncWal,
        Durability::FsyncWal => pb::Durability::FsyncWal,
    }
}

pub(super) fn durability_from_pb(d: i32) -> Result<Durability, ConvertError> {
    Ok(match pb::Durability::try_from(d) {
        Ok(pb::Durability::UseDefault) => Durability::UseDefault,
        Ok(pb::Durability::SkipWal) => Durability::SkipWal,
        Ok(pb::Durability::AsyncWal) => Durability::AsyncWal,
        Ok(pb::Durability::SyncWal) => Durability::SyncWal,
        Ok(pb::Durability::FsyncWal) => Durability::FsyncWal,
        Err(_) => return Err(ConvertError(format!("unknown durability {d}"))),
    })
}

/// A mutation on the wire.
pub fn mutation_to_pb(m: &Mutation) -> pb::Mutation {
    use pb::mutation::Kind;
    let kind = match m {
        Mutation::Put(p) => Kind::Put(pb::Put {
            cells: p
                .cells
                .iter()
                .map(|c| pb::PutCell {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    timestamp: c.timestamp,
                    value: c.value.clone(),
                })
                .collect(),
            ttl_ms: p.ttl,
        }),
        Mutation::Delete(d) => Kind::Delete(pb::Delete {
            markers: d
                .markers
                .iter()
                .map(|m| pb::DeleteMarker {
                    kind: delete_kind_to_pb(m.kind) as i32,
                    family: m.family.clone(),
                    qualifier: m.qualifier.clone(),
                    timestamp: m.timestamp,
                })
                .collect(),
            timestamp: d.timestamp,
        }),
        Mutation::Increment(i) => Kind::Increment(pb::Increment {
            cells: i
                .cells
                .iter()
                .map(|c| pb::IncrementCell {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    amount: c.amount,
                })
                .collect(),
            return_results: i.return_results,
            ttl_ms: i.ttl,
        }),
        Mutation::Append(a) => Kind::Append(pb::Append {
            cells: a
                .cells
                .iter()
                .map(|c| pb::AppendCell {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    value: c.value.clone(),
                })
                .collect(),
            return_results: a.return_results,
            ttl_ms: a.ttl,
        }),
    };
    pb::Mutation {
        durability: durability_to_pb(m.durability()) as i32,
        kind: Some(kind),
    }
}

pub(crate) fn delete_kind_to_pb(k: DeleteKind) -> pb::DeleteKind {
    match k {
        DeleteKind::Version => pb::DeleteKind::Version,
        DeleteKind::Column => pb::DeleteKind::Column,
        DeleteKind::Family => pb::DeleteKind::Family,
        DeleteKind::FamilyVersion => pb::DeleteKind::FamilyVersion,
    }
}

fn delete_kind_from_pb(k: i32) -> Result<DeleteKind, ConvertError> {
    Ok(match pb::DeleteKind::try_from(k) {
        Ok(pb::DeleteKind::Version) => DeleteKind::Version,
        Ok(pb::DeleteKind::Column) => DeleteKind::Column,
        Ok(pb::DeleteKind::Family) => DeleteKind::Family,
        Ok(pb::DeleteKind::FamilyVersion) => DeleteKind::FamilyVersion,
        Err(_) => return Err(ConvertError(format!("unknown delete kind {k}"))),
    })
}

/// A wire mutation of `row` as a model mutation.
///
/// # Errors
/// A missing kind or an unknown enum value.
pub fn mutation_from_pb(row: &Bytes, m: pb::Mutation) -> Result<Mutation, ConvertError> {
    use pb::mutation::Kind;
    let durability = durability_from_pb(m.durability)?;
    let row = row.clone();
    Ok(match m.kind {
        None => return Err(ConvertError::new("a mutation has no kind")),
        Some(Kind::Put(p)) => Mutation::Put(Put {
            row,
            cells: p
                .cells
                .into_iter()
                .map(|c| PutCell {
                    family: c.family,
                    qualifier: c.qualifier,
                    timestamp: c.timestamp,
                    value: c.value,
                })
                .collect(),
            durability,
            ttl: p.ttl_ms,
        }),
        Some(Kind::Delete(d)) => Mutation::Delete(Delete {
            row,
            markers: d
                .markers
                .into_iter()
                .map(|m| {
                    Ok(DeleteMarker {
                        kind: delete_kind_from_pb(m.kind)?,
                        family: m.family,
                        qualifier: m.qualifier,
                        timestamp: m.timestamp,
                    })
                })
                .collect::<Result<_, ConvertError>>()?,
            timestamp: d.timestamp,
            durability,
        }),
        Some(Kind::Increment(i)) => Mutation::Increment(Increment {
            row,
            cells: i
                .cells
                .into_iter()
                .map(|c| IncrementCell {
                    family: c.family,
                    qualifier: c.qualifier,
                    amount: c.amount,
                })
                .collect(),
            durability,
            return_results: i.return_results,
            ttl: i.ttl_ms,
        }),
        Some(Kind::Append(a)) => Mutation::Append(Append {
            row,
            cells: a
                .cells
                .into_iter()
                .map(|c| AppendCell {
                    family: c.family,
                    qualifier: c.qualifier,
                    value: c.value,
                })
                .collect(),
            durability,
            return_results: a.return_results,
            ttl: a.ttl_ms,
        }),
    })
}

/// Row mutations on the wire.
pub fn row_mutations_to_pb(rm: &RowMutations) -> pb::RowMutations {
    pb::RowMutations {
        row: rm.row.clone(),
        mutations: rm.mutations.iter().map(mutation_to_pb).collect(),
    }
}

/// Wire row mutations as model row mutations (not yet validated).
///
/// # Errors
/// As [`mutation_from_pb`].
pub fn row_mutations_from_pb(rm: pb::RowMutations) -> Result<RowMutations, ConvertError> {
    let row = rm.row;
    let mutations = rm
        .mutations
        .into_iter()
        .map(|m| mutation_from_pb(&row, m))
        .collect::<Result<_, _>>()?;
    Ok(RowMutations { row, mutations })
}

fn time_range_to_pb(tr: &TimeRange) -> Option<pb::TimeRange> {
    (!tr.is_all()).then_some(pb::TimeRange {
        min: tr.min,
        max: tr.max,
    })
}

fn time_range_from_pb(tr: Option<pb::TimeRange>) -> Result<TimeRange, ConvertError> {
    match tr {
        None => Ok(TimeRange::ALL),
        Some(tr) => TimeRange::new(tr.min, tr.max).map_err(|e| ConvertError(e.to_string())),
    }
}

fn columns_to_pb(columns: &Columns) -> Vec<pb::FamilyColumns> {
    columns
        .families
        .iter()
        .map(|(family, qualifiers)| pb::FamilyColumns {
            family: family.clone(),
            qualifiers: qualifiers.iter().flatten().cloned().collect(),
        })
        .collect()
}

fn columns_from_pb(columns: Vec<pb::FamilyColumns>) -> Columns {
    let mut out = Columns::default();
    for fc in columns {
        if fc.qualifiers.is_empty() {
            out.add_family(fc.family);
        } else {
            for q in fc.qualifiers {
                out.add_column(fc.family.clone(), q);
            }
        }
    }
    out
}

fn filter_to_pb(filter: Option<&Filter>) -> String {
    filter.map(ToString::to_string).unwrap_or_default()
}

fn filter_from_pb(text: &str) -> Result<Option<Filter>, ConvertError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_filter(text)
        .map(Some)
        .map_err(|e| ConvertError(format!("filter: {e}")))
}

/// A get on the wire.
pub fn get_to_pb(get: &Get) -> pb::Get {
    pb::Get {
        row: get.row.clone(),
        columns: columns_to_pb(&get.columns),
        time_range: time_range_to_pb(&get.time_range),
        max_versions: get.max_versions,
        filter: filter_to_pb(get.filter.as_ref()),
        no_cache_blocks: !get.cache_blocks,
        max_results_per_family: get.max_results_per_family,
        offset_per_family: get.offset_per_family,
    }
}

/// A wire get as a model get (not yet validated).
///
/// # Errors
/// A bad time range or filter text.
pub fn get_from_pb(get: pb::Get) -> Result<Get, ConvertError> {
    Ok(Get {
        row: get.row,
        columns: columns_from_pb(get.columns),
        time_range: time_range_from_pb(get.time_range)?,
        max_versions: get.max_versions.max(1),
        filter: filter_from_pb(&get.filter)?,
        cache_blocks: !get.no_cache_blocks,
        max_results_per_family: get.max_results_per_family,
        offset_per_family: get.offset_per_family,
    })
}

/// A scan on the wire.
pub fn scan_to_pb(scan: &Scan) -> pb::Scan {
    pb::Scan {
        start_row: scan.start_row.clone(),
        stop_row: scan.stop_row.clone(),
        include_stop_row: scan.include_stop_row,
        prefix: scan.prefix.clone(),
        reversed: scan.reversed,
        time_range: time_range_to_pb(&scan.time_range),
        max_versions: scan.max_versions,
        limit: scan.limit,
        caching: scan.caching,
        batch: scan.batch,
        columns: columns_to_pb(&scan.columns),
        filter: filter_to_pb(scan.filter.as_ref()),
        no_cache_blocks: !scan.cache_blocks,
        raw: scan.raw,
        max_results_per_family: scan.max_results_per_family,
        offset_per_family: scan.offset_per_family,
    }
}

/// A wire scan as a model scan (not yet validated).
///
/// # Errors
/// A bad time range or filter text.
pub fn scan_from_pb(scan: pb::Scan) -> Result<Scan, ConvertError> {
    Ok(Scan {
        start_row: scan.start_row,
        stop_row: scan.stop_row,
        include_stop_row: scan.include_stop_row,
        prefix: scan.prefix,
        reversed: scan.reversed,
        time_range: time_range_from_pb(scan.time_range)?,
        max_versions: scan.max_versions.max(1),
        limit: scan.limit,
        caching: scan.caching,
        batch: scan.batch,
        columns: columns_from_pb(scan.columns),
        filter: filter_from_pb(&scan.filter)?,
        cache_blocks: !scan.no_cache_blocks,
        raw: scan.raw,
        max_results_per_family: scan.max_results_per_family,
        offset_per_family: scan.offset_per_family,
    })
}

fn compare_op_to_pb(op: CompareOp) -> pb::CompareOp {
    match op {
        CompareOp::Equal => pb::CompareOp::Equal,
        CompareOp::NotEqual => pb::CompareOp::NotEqual,
        CompareOp::Less => pb::CompareOp::Less,
        CompareOp::LessOrEqual => pb::CompareOp::LessOrEqual,
        CompareOp::Greater => pb::CompareOp::Greater,
        CompareOp::GreaterOrEqual => pb::CompareOp::GreaterOrEqual,
    }
}

fn compare_op_from_pb(op: i32) -> Result<CompareOp, ConvertError> {
    Ok(match pb::CompareOp::try_from(op) {
        Ok(pb::CompareOp::Equal) => CompareOp::Equal,
        Ok(pb::CompareOp::NotEqual) => CompareOp::NotEqual,
        Ok(pb::CompareOp::Less) => CompareOp::Less,
        Ok(pb::CompareOp::LessOrEqual) => CompareOp::LessOrEqual,
        Ok(pb::CompareOp::Greater) => CompareOp::Greater,
        Ok(pb::CompareOp::GreaterOrEqual) => CompareOp::GreaterOrEqual,
        Err(_) => return Err(ConvertError(format!("unknown compare op {op}"))),
    })
}

/// A check-and-mutate on the wire, for `table`.
pub fn check_and_mutate_to_pb(table: &str, cam: &CheckAndMutate) -> pb::CheckAndMutateRequest {
    use pb::check_and_mutate_request::Condition as C;
    let condition = match &cam.condition {
        Condition::Column {
            family,
            qualifier,
            op,
            expected,
        } => C::Column(pb::ColumnCondition {
            family: family.clone(),
            qualifier: qualifier.clone(),
            op: compare_op_to_pb(*op) as i32,
            expected: expected.clone(),
        }),
        Condition::Filter(f) => C::Filter(f.to_string()),
    };
    pb::CheckAndMutateRequest {
        table: table.to_string(),
        row: cam.row.clone(),
        condition: Some(condition),
        time_range: time_range_to_pb(&cam.time_range),
        mutations: Some(row_mutations_to_pb(&cam.mutations)),
    }
}

/// A wire check-and-mutate as a model one (not yet validated).
///
/// # Errors
/// A missing condition or mutations, bad enum values or filter text.
pub fn check_and_mutate_from_pb(
    req: pb::CheckAndMutateRequest,
) -> Result<CheckAndMutate, ConvertError> {
    use pb::check_and_mutate_request::Condition as C;
    let condition = match req.condition {
        None => return Err(ConvertError::new("check-and-mutate without a condition")),
        Some(C::Column(c)) => Condition::Column {
            family: c.family,
            qualifier: c.qualifier,
            op: compare_op_from_pb(c.op)?,
            expected: c.expected,
        },
        Some(C::Filter(text)) => Condition::Filter(
            filter_from_pb(&text)?.ok_or_else(|| ConvertError::new("empty condition filter"))?,
        ),
    };
    let mutations = row_mutations_from_pb(
        req.mutations
            .ok_or_else(|| ConvertError::new("check-and-mutate without mutations"))?,
    )?;
    Ok(CheckAndMutate {
        row: req.row,
        condition,
        time_range: time_range_from_pb(req.time_range)?,
        mutations,
    })
}
