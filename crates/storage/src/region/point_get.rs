//! Point gets: one row, read from only the sources that hold it.
//!
//! A get without a filter takes, per family, the sources a get consults (the memtable unless
//! it is empty, and the files whose time range, key range and bloom filter admit the row,
//! newest first), seeks each to the row and keeps those positioned on one of its cells. One
//! left — the usual case: a row written once, or flushed and not rewritten since — is read
//! straight from its cursor; several are merged as a scan merges them. Sources dropped hold
//! no cell of the row, so the cells, their order and every visibility rule (versions, time
//! range, the four delete kinds, TTL, MIN_VERSIONS, KEEP_DELETED_CELLS, the read point) are
//! exactly those of the merged read. A get with a filter takes the general path.

use std::collections::BTreeSet;

use bytes::Bytes;
use strata_model::cell::{Cell, CellKey};
use strata_model::ops::Get;

use super::read::{read_spec, FamilyAsk};
use super::row_read::{read_row, RowRead};
use super::store::{SourceCursor, Store};
use super::Region;
use crate::error::Result;
use crate::read::filter::RowFilter;
use crate::read::{Cursor, MergeCursor, Visibility};

impl Region {
    /// The cells of `get.row` at `read_point`, for a get without a filter.
    pub(super) fn point_get(&self, get: &Get, read_point: u64) -> Result<Vec<Cell>> {
        let now = self.inner.config.clock.now_ms();
        // An owned copy of the row: the cells returned share it, and `get.row` may be a slice
        // of a larger request buffer that a cached row must not keep alive.
        let start = CellKey::first_on_row(Bytes::copy_from_slice(&get.row));
        let mut out = Vec::new();
        if get.columns.is_all() {
            for store in self.inner.stores.values() {
                self.point_get_family(store, None, get, read_point, now, &start, &mut out)?;
            }
        } else {
            for family in get.columns.families.keys() {
                self.check_family(family)?;
            }
            for (family, qualifiers) in &get.columns.families {
                if let Some(store) = self.inner.stores.get(family) {
                    let qualifiers = qualifiers.as_ref();
                    self.point_get_family(
                        store, qualifiers, get, read_point, now, &start, &mut out,
                    )?;
                }
            }
        }
        Ok(out)
    }

    /// Appends the visible cells of the row in `store` to `out`.
    #[allow(clippy::too_many_arguments)]
    fn point_get_family(
        &self,
        store: &Store,
        qualifiers: Option<&BTreeSet<Bytes>>,
        get: &Get,
        read_point: u64,
        now: i64,
        start: &CellKey,
        out: &mut Vec<Cell>,
    ) -> Result<()> {
        let mut sources = self.sources(
            store,
            &get.time_range,
            read_point,
            Some(get),
            qualifiers,
            get.cache_blocks,
        )?;
        let mut on_row = 0;
        for i in 0..sources.len() {
            let s = &mut sources[i];
            if s.seek(start)? && s.current().row == get.row.as_ref() {
                sources.swap(on_row, i);
                on_row += 1;
            }
        }
        // Swapping kept the positioned sources in their newest-first order.
        sources.truncate(on_row);
        let ask = FamilyAsk::of_get(get);
        let mut visibility = Visibility::new(read_spec(store, &ask, read_point, now));
        let mut no_filter = RowFilter::default();
        let read = RowRead {
            family: &store.name,
            qualifiers,
            visibility: &mut visibility,
            filter: &mut no_filter,
            per_family: ask.per_family,
        };
        match sources.len() {
            0 => Ok(()),
            1 => {
                let mut only: SourceCursor = sources.pop().expect("one source");
                read_row(&mut only, read, &start.row, out)
            }
            _ => {
                let mut merged = MergeCursor::positioned(sources);
                read_row(&mut merged, read, &start.row, out)
            }
        }
    }
}
