//! [`BufferedMutator`]: collects row mutations and sends them in per-region batches in the
//! background, for bulk loads.
//!
//! A full buffer is handed to a background send (`multi::batch`); at most `max_in_flight`
//! sends are outstanding and, across them, at most `max_in_flight` batch RPCs. Row errors are
//! collected and reported by the next [`BufferedMutator::flush`].

use std::sync::Arc;

use strata_model::ops::{Mutation, RowMutations};
use strata_proto::pb::ErrorCode;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::error::Error;
use crate::options::BufferedMutatorOptions;
use crate::table::Table;

/// Bytes counted per mutation and per cell on top of their keys and values.
const OVERHEAD_BYTES: usize = 16;

/// Rows sent and the errors of those that failed.
type SendOutcome = (usize, Result<Vec<Error>, Error>);

/// A write buffer over one table. Dropping it discards unsent rows and cancels sends in
/// flight: call [`BufferedMutator::close`] (or `flush`) first.
#[derive(Debug)]
pub struct BufferedMutator {
    table: Table,
    options: BufferedMutatorOptions,
    buffer: Vec<RowMutations>,
    buffered_bytes: usize,
    rpc_permits: Arc<Semaphore>,
    sending: JoinSet<SendOutcome>,
    failed_rows: usize,
    first_error: Option<Error>,
}

impl BufferedMutator {
    pub(crate) fn new(table: Table, options: BufferedMutatorOptions) -> BufferedMutator {
        let rpc_permits = Arc::new(Semaphore::new(options.max_in_flight.max(1)));
        BufferedMutator {
            table,
            options,
            buffer: Vec::new(),
            buffered_bytes: 0,
            rpc_permits,
            sending: JoinSet::new(),
            failed_rows: 0,
            first_error: None,
        }
    }

    /// Buffers `m`; sends the buffer when it reaches `max_buffer_bytes` (waiting if
    /// `max_in_flight` sends are outstanding).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed mutation (not buffered). Send errors are reported by
    /// [`BufferedMutator::flush`].
    pub async fn mutate(&mut self, m: RowMutations) -> Result<(), Error> {
        m.validate()?;
        self.buffered_bytes += estimated_bytes(&m);
        self.buffer.push(m);
        if self.buffered_bytes >= self.options.max_buffer_bytes {
            self.send_buffer().await;
        }
        Ok(())
    }

    /// Sends everything buffered and waits for every send.
    ///
    /// # Errors
    /// If any row failed since the last flush: the first error, its message prefixed with
    /// the number of failed rows. The counts start again after each flush.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.send_buffer().await;
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

    async fn send_buffer(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        while self.sending.len() >= self.options.max_in_flight.max(1) {
            match self.sending.join_next().await {
                Some(joined) => self.record(joined),
                None => break,
            }
        }
        let rows = std::mem::take(&mut self.buffer);
        self.buffered_bytes = 0;
        let table = self.table.clone();
        let permits = self.rpc_permits.clone();
        self.sending.spawn(async move {
            let outcome = crate::multi::batch(&table, &rows, Some(permits))
                .await
                .map(|results| results.into_iter().filter_map(Result::err).collect());
            (rows.len(), outcome)
        });
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

    #[test]
    fn estimates_grow_with_values() {
        let small: RowMutations = Mutation::Put(Put::new("r").add("f", "q", "v")).into();
        let big: RowMutations = Mutation::Put(Put::new("r").add("f", "q", vec![0u8; 1000])).into();
        assert_eq!(estimated_bytes(&small), 1 + 3 + 16 + 32);
        assert_eq!(estimated_bytes(&big) - estimated_bytes(&small), 999);
    }
}
