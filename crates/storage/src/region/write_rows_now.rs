//! Several rows written in place with one WAL append (docs/rfcs/0013-request-path.md,
//! Decision 27): a server that read several single-row writes from a connection at once
//! applies them together, as [`Region::try_mutate_row_now`] applies one, but logs all those of
//! one WAL with one append (one system call) instead of one append each.
//!
//! Each row is checked, locked and given its sequence id in order, as on its own; a row that
//! would decline or is refused gets that outcome and changes nothing. The rows of `SYNC_WAL`
//! (the default) sharing a WAL are then logged with one append — all or none: if it would
//! wait, each declines (its sequence id completed with nothing logged, as on its own); if it
//! fails, each gets the error. Only then are they inserted, so no row is in a memtable before
//! it is logged. Rows of another durability are logged on their own. Row locks and each
//! region's `updates` lock are held until the rows are inserted, as for one row: a flush or
//! close waits for them (never the other way round: every lock here is only tried).

use std::sync::Arc;

use strata_model::ops::RowMutations;
use strata_model::schema::Durability;

use super::write_now::Prepared;
use super::{Region, WriteNow};

impl Region {
    /// Applies each `(region, row)` as [`Region::try_mutate_row_now`] would, logging the rows
    /// of each WAL with one append; the outcomes in the order of `rows`.
    pub fn try_mutate_rows_now(rows: &[(&Region, &RowMutations)]) -> Vec<WriteNow> {
        let mut outcomes: Vec<Option<WriteNow>> = rows.iter().map(|_| None).collect();
        let mut locks = Vec::with_capacity(rows.len());
        let mut together: Vec<(usize, Prepared<'_>)> = Vec::with_capacity(rows.len());
        for (i, &(region, rm)) in rows.iter().enumerate() {
            if let Some(outcome) = region.check_now(rm) {
                outcomes[i] = Some(outcome);
                continue;
            }
            let Some(lock) = region.inner.row_locks.try_lock(&rm.row) else {
                outcomes[i] = Some(WriteNow::Declined);
                continue;
            };
            locks.push(lock);
            match region.prepare_now_locked(rm) {
                Err(outcome) => outcomes[i] = Some(outcome),
                Ok(p) if matches!(p.durability, Durability::SyncWal | Durability::UseDefault) => {
                    together.push((i, p));
                }
                Ok(p) => outcomes[i] = Some(region.log_and_finish_now(p)),
            }
        }
        while !together.is_empty() {
            let wal = rows[together[0].0].0.inner.config.wal.clone();
            let (group, rest): (Vec<_>, Vec<_>) = together
                .into_iter()
                .partition(|(i, _)| Arc::ptr_eq(&rows[*i].0.inner.config.wal, &wal));
            together = rest;
            let entries: Vec<_> = group.iter().map(|(_, p)| &p.entry).collect();
            let logged = wal.try_append_written_now(&entries);
            for (i, p) in group {
                let region = rows[i].0;
                outcomes[i] = Some(match &logged {
                    Some(Ok(())) => region.finish_now(p),
                    None => {
                        region.inner.mvcc.complete(p.entry.seq);
                        WriteNow::Declined
                    }
                    Some(Err(e)) => {
                        region.inner.mvcc.complete(p.entry.seq);
                        WriteNow::Done(Err(e.clone().into()))
                    }
                });
            }
        }
        drop(locks);
        outcomes
            .into_iter()
            .zip(rows)
            .map(|(outcome, &(region, _))| {
                let outcome = outcome.unwrap_or(WriteNow::Declined);
                if !matches!(outcome, WriteNow::Declined) {
                    region.after_write();
                }
                outcome
            })
            .collect()
    }
}
