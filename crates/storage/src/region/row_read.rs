//! Reading one family's cells of one row, cell by cell, as HBase's `StoreScanner` with its
//! `UserScanQueryMatcher` does: the visibility and version check, then the read's filter,
//! then the versions after the filter, then the per-family limit and offset.

use std::collections::BTreeSet;

use bytes::Bytes;
use strata_model::cell::{compare_bytes, Cell, CellKey};
use strata_sstable::CellRef;

use crate::error::Result;
use crate::read::filter::{Advance, Hint, RowFilter};
use crate::read::{Cursor, Verdict, Visibility};

/// The cells a read returns per family of a row (HBase's `maxResultsPerColumnFamily` and
/// `rowOffsetPerColumnFamily`, its `StoreScanner`'s `storeLimit` and `storeOffset`): the first
/// `offset` cells the filter kept are dropped, and the family stops after `limit` more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct PerFamily {
    /// Most cells returned; `None`: no limit.
    pub(super) limit: Option<u32>,
    /// Cells dropped first.
    pub(super) offset: u32,
}

impl PerFamily {
    /// What the cell numbered `counted` (from 1) of a family's row becomes: `Some(true)`
    /// returned, `Some(false)` dropped by the offset, `None` past the limit (the family's row
    /// ends).
    fn place(self, counted: u64) -> Option<bool> {
        let offset = u64::from(self.offset);
        if self
            .limit
            .is_some_and(|limit| counted > u64::from(limit) + offset)
        {
            return None;
        }
        Some(counted > offset)
    }
}

/// One family's read of a row: the family, the columns wanted (`None`: all), its visibility
/// state, the read's filter and the per-family limit.
pub(super) struct RowRead<'a> {
    pub(super) family: &'a Bytes,
    pub(super) qualifiers: Option<&'a BTreeSet<Bytes>>,
    pub(super) visibility: &'a mut Visibility,
    pub(super) filter: &'a mut RowFilter,
    pub(super) per_family: PerFamily,
}

/// Appends the cells `read` returns of `row` from `cursor` (positioned at or before the row's
/// first cell) to `out`, leaving the cursor on the first cell after the row. The cells share
/// `row`'s buffer; the filter's `transform_cell` is applied.
pub(super) fn read_row<C: Cursor>(
    cursor: &mut C,
    read: RowRead<'_>,
    row: &Bytes,
    out: &mut Vec<Cell>,
) -> Result<()> {
    let family = read.family;
    visit_row(cursor, read, row, |c, filter| {
        let mut cell = c.to_cell_in_row(row, family);
        filter.transform_cell(&mut cell);
        out.push(cell);
    })?;
    Ok(())
}

/// As [`read_row`], but lends each cell returned to `emit` (with the filter, to transform it)
/// instead of copying it out; returns how many cells it lent.
///
/// Per cell, in store order: [`Visibility::decide`] (deletes, time range, TTL, the versions
/// offered to the filter; a raw read's markers), the column selection, the filter's
/// `filter_cell`, [`Visibility::admit`] (the versions returned), then [`PerFamily`]. A filter
/// answer that skips the column or the row, a column past its versions and a family past its
/// limit move the cursor on without reading what is skipped, except the empty qualifier's
/// column, whose later cells may be family delete markers that mask other columns: it is
/// walked, unreturned (HBase's `ScanQueryMatcher.getKeyForNextColumn`, HBASE-18471).
///
/// A filter's seek hint moves the cursor there (HBase's `SEEK_NEXT_USING_HINT`): to a later
/// row (this family's row ends) or a later column; a hint to an older version of the column
/// steps over the newer versions, reading only their delete markers. A filter that is done
/// mid-row (`WhileMatch`, `ColumnCountGet`) ends the family's row, as HBase's `DONE_SCAN`.
pub(super) fn visit_row<C: Cursor>(
    cursor: &mut C,
    read: RowRead<'_>,
    row: &Bytes,
    mut emit: impl FnMut(&CellRef<'_>, &RowFilter),
) -> Result<usize> {
    let RowRead {
        family,
        qualifiers,
        visibility,
        filter,
        per_family,
    } = read;
    let mut emitted = 0;
    let mut counted: u64 = 0;
    // The column being skipped, kept across the cursor's moves (one buffer per row).
    let mut skipped = Vec::new();
    // The empty qualifier's column is being walked unreturned.
    let mut passing_empty = false;
    // A version hint: the versions of column `skipped` newer than this are stepped over.
    let mut walk_to: Option<i64> = None;
    while cursor.valid() {
        let c = cursor.current();
        if compare_bytes(c.row, row).is_ne() {
            break;
        }
        if let Some(ts) = walk_to {
            if c.qualifier == skipped.as_slice() && c.timestamp > ts {
                if c.cell_type.is_delete() && !visibility.spec().raw {
                    visibility.decide(&c);
                } else {
                    visibility.count_passed();
                }
                cursor.next()?;
                continue;
            }
            walk_to = None;
        }
        if filter.is_done() {
            skip_row(cursor, row)?;
            break;
        }
        let verdict = visibility.decide(&c);
        if passing_empty && !c.qualifier.is_empty() {
            passing_empty = false;
        }
        let wanted = qualifiers.is_none_or(|qs| qs.contains(c.qualifier));
        let mut advance = Advance::Cell;
        let mut hint = None;
        if verdict == Verdict::Include && wanted && !passing_empty {
            let rc = filter.filter_cell(&c, family);
            advance = rc.advance();
            if advance == Advance::Hint {
                hint = filter.next_cell_hint(&c, family).filter(|h| h.is_after(&c));
                if hint.is_none() {
                    advance = Advance::Cell;
                }
            }
            if rc.includes() {
                if visibility.admit() {
                    counted += 1;
                    match per_family.place(counted) {
                        Some(true) => {
                            emit(&c, filter);
                            emitted += 1;
                        }
                        Some(false) => {}
                        None => advance = Advance::Row,
                    }
                } else {
                    advance = advance.max(Advance::Column);
                }
            }
        }
        if advance == Advance::Cell && visibility.column_done(c.qualifier) {
            advance = Advance::Column;
        }
        match advance {
            Advance::Cell => {
                cursor.next()?;
            }
            Advance::Column if c.qualifier.is_empty() => {
                passing_empty = true;
                cursor.next()?;
            }
            Advance::Column => {
                skipped.clear();
                skipped.extend_from_slice(c.qualifier);
                skip_column(cursor, row, &mut skipped)?;
            }
            Advance::Row => {
                skip_row(cursor, row)?;
                break;
            }
            Advance::Hint => match hint {
                Some(Hint::Row(next)) => {
                    cursor.reseek(&CellKey::first_on_row(next))?;
                    break;
                }
                Some(Hint::Version(q, ts)) if q.as_ref() == c.qualifier => {
                    skipped.clear();
                    skipped.extend_from_slice(&q);
                    walk_to = Some(ts);
                    cursor.next()?;
                }
                // Past the empty qualifier's column: walk it for family markers first.
                _ if c.qualifier.is_empty() => {
                    passing_empty = true;
                    cursor.next()?;
                }
                Some(h) => {
                    cursor.reseek(&h.key(row))?;
                }
                None => {
                    cursor.next()?;
                }
            },
        }
    }
    Ok(emitted)
}

/// Moves past the remaining versions of `qualifier` (a hot column updated many times keeps
/// every version in the memtable until a flush): one step (enough when the column has one
/// version), then one forward seek to the next column, as HBase's `SEEK_NEXT_COL` does
/// (sources already past the column stay put; a memtable segment hops over the column's run
/// of versions: a flat one by its run ends, a skiplist by its run tails).
fn skip_column<C: Cursor>(cursor: &mut C, row: &Bytes, qualifier: &mut Vec<u8>) -> Result<()> {
    const STEPS_BEFORE_SEEK: usize = 1;
    for _ in 0..STEPS_BEFORE_SEEK {
        cursor.next()?;
        if !cursor.valid() {
            return Ok(());
        }
        let c = cursor.current();
        if c.row != &row[..] || c.qualifier != qualifier.as_slice() {
            return Ok(());
        }
    }
    qualifier.push(0);
    cursor.reseek(&CellKey::first_on_column(
        row.clone(),
        Bytes::copy_from_slice(qualifier),
    ))?;
    Ok(())
}

/// Moves a cursor at or before the cells of `row` to the first cell after the row (a cursor
/// already past the row stays).
pub(super) fn skip_row<C: Cursor>(cursor: &mut C, row: &Bytes) -> Result<()> {
    if !cursor.valid() || compare_bytes(cursor.current().row, row).is_gt() {
        return Ok(());
    }
    let mut next = Vec::with_capacity(row.len() + 1);
    next.extend_from_slice(row);
    next.push(0);
    cursor.reseek(&CellKey::first_on_row(Bytes::from(next)))?;
    Ok(())
}
