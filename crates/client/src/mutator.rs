//! [`BufferedMutator`]: collects row mutations and sends them in per-region batches in the
//! background, for bulk loads.
//!
//! Once the buffer reaches `max_buffer_bytes`, its rows are grouped by region into chunks of
//! at most [`MAX_ROWS_PER_RPC`] rows (largest first), and chunks go out one at a time, each as
//! a background send (`multi::batch`), until the buffer is below its limit again: a
//! `mutate()` that finds the buffer full waits for at most one send slot (one RPC's worth of
//! rows), not for a whole buffer to be written (as HBase's `BufferedMutator` submits what it
//! can and waits only for a task slot). At most `max_in_flight` sends are outstanding and,
//! across them, at most `max_in_flight` batch RPCs. Row errors are collected and reported by
//! the next [`BufferedMutator::flush`]. Every [`CALLS_PER_YIELD`] calls `mutate` yields its
//! thread once, so a caller filling the buffer in a tight loop does not keep the tasks that
//! read its sends' answers waiting.

use std::collections::VecDeque;
use std::sync::Arc;

use strata_model::ops::{Mutation, RowMutations};
use strata_proto::pb::ErrorCode;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::error::Error;
use crate::locate::Regions;
use crate::multi::{group_by_region, MAX_ROWS_PER_RPC};
use crate::options::BufferedMutatorOptions;
use crate::table::Table;

/// Bytes counted per mutation and per cell on top of their keys and values.
const OVERHEAD_BYTES: usize = 16;

/// `mutate` calls between two yields of the caller's thread (see `mutate`).
const CALLS_PER_YIELD: usize = 512;

/// Rows sent and the errors of those that failed.
type SendOutcome = (usize, Result<Vec<Error>, Error>);

/// A write buffer over one table. Dropping it discards unsent rows and cancels sends in
/// flight: call [`BufferedMutator::close`] (or `flush`) first.
#[derive(Debug)]
pub struct BufferedMutator {
    table: Table,
    options: BufferedMutatorOptions,
    /// Rows not yet grouped, in arrival order, with their estimated bytes.
    buffer: Vec<(RowMutations, usize)>,
    /// Grouped rows waiting for a send slot: each chunk one region's (as the client's region
    /// cache saw it), in arrival order within the region, largest chunks first.
    ready: VecDeque<Chunk>,
    /// Estimated bytes of `buffer` and `ready`.
    buffered_bytes: usize,
    rpc_permits: Arc<Semaphore>,
    sending: JoinSet<SendOutcome>,
    failed_rows: usize,
    first_error: Option<Error>,
    /// `mutate` calls since it last yielded its thread.
    calls_since_yield: usize,
}

impl BufferedMutator {
    pub(crate) fn new(table: Table, options: BufferedMutatorOptions) -> BufferedMutator {
        let rpc_permits = Arc::new(Semaphore::new(options.max_in_flight.max(1)));
        BufferedMutator {
            table,
            options,
            buffer: Vec::new(),
            ready: VecDeque::new(),
            buffered_bytes: 0,
            rpc_permits,
            sending: JoinSet::new(),
            failed_rows: 0,
            first_error: None,
            calls_since_yield: 0,
        }
    }

    /// Buffers `m`; while the buffer is at `max_buffer_bytes`, sends a chunk of it (waiting
    /// for a send slot if `max_in_flight` sends are outstanding).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed mutation (not buffered). Send errors are reported by
    /// [`BufferedMutator::flush`].
    pub async fn mutate(&mut self, m: RowMutations) -> Result<(), Error> {
        m.validate()?;
        let bytes = estimated_bytes(&m);
        self.buffered_bytes += bytes;
        self.buffer.push((m, bytes));
        while self.buffered_bytes >= self.options.max_buffer_bytes {
            if !self.send_chunk().await {
                break;
            }
        }
        // A caller filling the buffer in a loop completes every call at once until the
        // buffer is full and a send slot busy: without a yield now and then it holds its
        // worker thread for the whole buffer, and the connection tasks reading its sends'
        // answers wait behind it.
        self.calls_since_yield += 1;
        if self.calls_since_yield >= CALLS_PER_YIELD {
            self.calls_since_yield = 0;
            tokio::task::yield_now().await;
        }
        Ok(())
    }

    /// Sends everything buffered and waits for every send.
    ///
    /// # Errors
    /// If any row failed since the last flush: the first error, its message prefixed with
    /// the number of failed rows. The counts start again after each flush.
    pub async fn flush(&mut self) -> Result<(), Error> {
        while self.send_chunk().await {}
        while let Some(joined) = self.sending.join_next().await {
            self.record(joined);
        }
        let failed = std::mem::take(&mut self.failed_rows);
        match self.first_error.take() {
            Some(e) => Err(Error::new(
                e.code,
                format!("{failed} rows failed; first: {}", e.message),
            )),
            None => Ok(()),
        }
    }

    /// Flushes and closes the mutator.
    ///
    /// # Errors
    /// As [`BufferedMutator::flush`].
    pub async fn close(mut self) -> Result<(), Error> {
        self.flush().await
    }

    /// Sends the next ready chunk (grouping the buffer first if none is ready), once a send
    /// slot is free. Returns false when nothing was buffered.
    async fn send_chunk(&mut self) -> bool {
        if self.ready.is_empty() {
            self.group_buffer().await;
        }
        let Some(Chunk { rows, bytes }) = self.ready.pop_front() else {
            return false;
        };
        self.buffered_bytes = self.buffered_bytes.saturating_sub(bytes);
        while let Some(joined) = self.sending.try_join_next() {
            self.record(joined);
        }
        while self.sending.len() >= self.options.max_in_flight.max(1) {
            match self.sending.join_next().await {
                Some(joined) => self.record(joined),
                None => break,
            }
        }
        let table = self.table.clone();
        let permits = self.rpc_permits.clone();
        self.sending.spawn(async move {
            let outcome = crate::multi::batch_valid(&table, &rows, Some(permits))
                .await
                .map(|results| results.into_iter().filter_map(Result::err).collect());
            (rows.len(), outcome)
        });
        true
    }

    /// Moves the buffer into `ready`, grouped by the cached regions of the table. Without
    /// them (the lookup failed), in arrival order: `multi::batch` locates and retries.
    async fn group_buffer(&mut self) {
        let rows = std::mem::take(&mut self.buffer);
        if rows.is_empty() {
            return;
        }
        let regions = self.table.conn.regions(self.table.name()).await.ok();
        self.ready = chunks_by_region(regions.as_deref(), rows);
    }

    fn record(&mut self, joined: Result<SendOutcome, tokio::task::JoinError>) {
        let (failed, first) = match joined {
            Ok((_, Ok(errors))) => (errors.len(), errors.into_iter().next()),
            Ok((rows, Err(e))) => (rows, Some(e)),
            Err(e) => (
                0,
                Some(Error::new(ErrorCode::Unknown, format!("send task: {e}"))),
            ),
        };
        self.failed_rows += failed;
        if self.first_error.is_none() {
            self.first_error = first;
        }
    }
}

/// Rows of one region (as the region cache saw them) for one RPC, and their estimated bytes.
#[derive(Debug)]
struct Chunk {
    rows: Vec<RowMutations>,
    bytes: usize,
}

/// `rows` (each with its estimated bytes) grouped by the region holding them in `regions`
/// (rows no region holds, or all rows without `regions`, form their own group), each group
/// cut into chunks of at most [`MAX_ROWS_PER_RPC`] rows in arrival order; the largest chunks
/// first (a stable sort, so a region's chunks keep their order).
fn chunks_by_region(
    regions: Option<&Regions>,
    rows: Vec<(RowMutations, usize)>,
) -> VecDeque<Chunk> {
    let groups: Vec<Vec<usize>> = match regions {
        Some(regions) => {
            let (groups, missing) = group_by_region(
                regions,
                rows.iter()
                    .enumerate()
                    .map(|(i, (r, _))| (i, r.row.as_ref())),
            );
            let mut groups: Vec<Vec<usize>> = groups.into_iter().map(|(_, g)| g).collect();
            if !missing.is_empty() {
                groups.push(missing);
            }
            groups
        }
        None => vec![(0..rows.len()).collect()],
    };
    let mut slots: Vec<Option<(RowMutations, usize)>> = rows.into_iter().map(Some).collect();
    let mut chunks: Vec<Chunk> = groups
        .iter()
        .flat_map(|g| g.chunks(MAX_ROWS_PER_RPC))
        .map(|indexes| {
            let mut chunk = Chunk {
                rows: Vec::with_capacity(indexes.len()),
                bytes: 0,
            };
            for (row, bytes) in indexes.iter().filter_map(|&i| slots[i].take()) {
                chunk.rows.push(row);
                chunk.bytes += bytes;
            }
            chunk
        })
        .collect();
    chunks.sort_by_key(|c| std::cmp::Reverse(c.rows.len()));
    chunks.into()
}

/// Rough wire size of `m`: keys, values and a fixed overhead per mutation and cell.
fn estimated_bytes(m: &RowMutations) -> usize {
    let cells: usize = m
        .mutations
        .iter()
        .map(|mutation| -> usize {
            match mutation {
                Mutation::Put(p) => p
                    .cells
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + OVERHEAD_BYTES)
                    .sum(),
                Mutation::Delete(d) => d
                    .markers
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + OVERHEAD_BYTES)
                    .sum(),
                Mutation::Increment(i) => i
                    .cells
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + OVERHEAD_BYTES)
                    .sum(),
                Mutation::Append(a) => a
                    .cells
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + OVERHEAD_BYTES)
                    .sum(),
            }
        })
        .sum();
    m.row.len() + cells + OVERHEAD_BYTES * (1 + m.mutations.len())
}

#[cfg(test)]
mod tests {
    use strata_model::ops::Put;

    use super::*;
    use crate::locate::RegionLocation;

    fn put(row: &str, q: usize) -> RowMutations {
        Mutation::Put(Put::new(row.to_owned()).add("f", format!("q{q}"), "v")).into()
    }

    fn location(id: u64, start: &'static [u8], end: &'static [u8]) -> RegionLocation {
        RegionLocation {
            region_id: id,
            start_row: bytes::Bytes::from_static(start),
            end_row: bytes::Bytes::from_static(end),
            server: format!("s:{id}"),
            store_bytes: 0,
            memtable_bytes: 0,
            store_files: 0,
            name: String::new(),
            requests: 0,
            minor_compactions: 0,
            major_compactions: 0,
        }
    }

    /// Rows with their estimated bytes, as the mutator buffers them.
    fn sized(rows: Vec<RowMutations>) -> Vec<(RowMutations, usize)> {
        rows.into_iter()
            .map(|r| {
                let bytes = estimated_bytes(&r);
                (r, bytes)
            })
            .collect()
    }

    /// (row, qualifier number) of each chunk's rows.
    fn shape(chunks: &VecDeque<Chunk>) -> Vec<Vec<String>> {
        chunks
            .iter()
            .map(|c| {
                c.rows
                    .iter()
                    .map(|rm| String::from_utf8_lossy(&rm.row).into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn chunks_hold_one_region_in_arrival_order_largest_first() {
        let regions = Regions::new(vec![location(1, b"", b"m"), location(2, b"m", b"")]);
        let rows = sized(vec![
            put("x", 0),
            put("a", 1),
            put("y", 2),
            put("b", 3),
            put("z", 4),
        ]);
        let chunks = chunks_by_region(Some(&regions), rows);
        assert_eq!(shape(&chunks), vec![vec!["x", "y", "z"], vec!["a", "b"]]);
        let each = estimated_bytes(&put("x", 0));
        assert_eq!(
            chunks[0].bytes,
            3 * each,
            "a chunk carries its rows' estimates"
        );
        assert_eq!(chunks[1].bytes, 2 * each);
        // Without regions: one group in arrival order.
        let chunks = chunks_by_region(None, sized(vec![put("x", 0), put("a", 1)]));
        assert_eq!(shape(&chunks), vec![vec!["x", "a"]]);
    }

    #[test]
    fn a_large_region_group_is_cut_into_rpc_sized_chunks_in_order() {
        let regions = Regions::new(vec![location(1, b"", b"")]);
        let rows = sized(
            (0..MAX_ROWS_PER_RPC + 5)
                .map(|i| put(&format!("r{i:05}"), i))
                .collect(),
        );
        let chunks = chunks_by_region(Some(&regions), rows);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].rows.len(), MAX_ROWS_PER_RPC);
        assert_eq!(chunks[1].rows.len(), 5);
        assert_eq!(chunks[0].rows[0].row.as_ref(), b"r00000");
        assert_eq!(
            chunks[1].rows[0].row.as_ref(),
            format!("r{MAX_ROWS_PER_RPC:05}").as_bytes()
        );
    }

    #[test]
    fn estimates_grow_with_values() {
        let small: RowMutations = Mutation::Put(Put::new("r").add("f", "q", "v")).into();
        let big: RowMutations = Mutation::Put(Put::new("r").add("f", "q", vec![0u8; 1000])).into();
        assert_eq!(estimated_bytes(&small), 1 + 3 + 16 + 32);
        assert_eq!(estimated_bytes(&big) - estimated_bytes(&small), 999);
    }
}
