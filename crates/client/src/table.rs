//! [`Table`]: reads and writes of one table. Single-row requests go to the row's region
//! through [`Connection::call_at`]; multi-row requests are grouped per region
//! ([`crate::multi`]); scans page through regions ([`crate::scanner`]).
//!
//! Every request is validated by the model before it is sent, so a malformed one fails with
//! `INVALID_ARGUMENT` without a round trip.

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::{
    Append, CheckAndMutate, Delete, Filter, Get, Increment, Mutation, Put, RowMutations, Scan,
};
use strata_proto::{convert, pb};

use crate::connection::Connection;
use crate::error::Error;
use crate::locate::Position;
use crate::retry::Idempotence;

/// A handle to one table. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Table {
    pub(crate) conn: Connection,
    name: String,
}

impl Table {
    pub(crate) fn new(conn: Connection, name: String) -> Table {
        Table { conn, name }
    }

    /// The table's name (`table` in the default namespace, else `ns:table`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads one row's cells (empty if the row has none matching).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed get; the server's error otherwise.
    pub async fn get(&self, get: &Get) -> Result<Vec<Cell>, Error> {
        get.validate()?;
        let request = pb::GetRequest {
            table: self.name.clone(),
            get: Some(convert::get_to_pb(get)),
            cell_block: true,
        };
        let response = self
            .call_row(&get.row, Idempotence::Idempotent, |mut client| {
                let request = request.clone();
                async move { client.get(request).await }
            })
            .await?;
        cells_of(response.result.unwrap_or_default())
    }

    /// Reads several rows, one result per get in request order; one RPC per region.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed get; else the first error of any region.
    pub async fn get_many(&self, gets: &[Get]) -> Result<Vec<Vec<Cell>>, Error> {
        crate::multi::get_many(self, gets).await
    }

    /// True if the get finds at least one cell. Without a filter of its own, the server
    /// returns only the first cell's key.
    ///
    /// # Errors
    /// As [`Table::get`].
    pub async fn exists(&self, get: &Get) -> Result<bool, Error> {
        let mut get = get.clone();
        if get.filter.is_none() {
            get.filter = Some(Filter::all(vec![
                Filter::FirstKeyOnly,
                Filter::KeyOnly {
                    len_as_value: false,
                },
            ]));
        }
        Ok(!self.get(&get).await?.is_empty())
    }

    /// Writes a put. After a connection lost mid-request or an attempt with no answer it is
    /// sent again only if every cell has a timestamp of the caller's; one stamped by the
    /// server fails then with `UNAVAILABLE`, outcome unknown (see the crate's documentation).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed put; the server's error otherwise.
    pub async fn put(&self, put: &Put) -> Result<(), Error> {
        self.mutate_row(&Mutation::Put(put.clone()).into())
            .await
            .map(drop)
    }

    /// Writes several puts, one batch RPC per region.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed put, else the first row's error. Rows of other
    /// regions may have been written.
    pub async fn put_many(&self, puts: &[Put]) -> Result<(), Error> {
        let rows: Vec<RowMutations> = puts
            .iter()
            .map(|p| Mutation::Put(p.clone()).into())
            .collect();
        for outcome in self.batch(&rows).await? {
            outcome?;
        }
        Ok(())
    }

    /// Writes a delete.
    ///
    /// # Errors
    /// As [`Table::put`].
    pub async fn delete(&self, delete: &Delete) -> Result<(), Error> {
        self.mutate_row(&Mutation::Delete(delete.clone()).into())
            .await
            .map(drop)
    }

    /// Adds to counters; returns their new values if `return_results`. Not retried after a
    /// lost connection, since it may have been applied.
    ///
    /// # Errors
    /// As [`Table::put`].
    pub async fn increment(&self, inc: &Increment) -> Result<Vec<Cell>, Error> {
        self.mutate_row(&Mutation::Increment(inc.clone()).into())
            .await
    }

    /// Appends to values; returns the new values if `return_results`. Retried like
    /// [`Table::increment`].
    ///
    /// # Errors
    /// As [`Table::put`].
    pub async fn append(&self, app: &Append) -> Result<Vec<Cell>, Error> {
        self.mutate_row(&Mutation::Append(app.clone()).into()).await
    }

    /// Applies mutations of one row atomically; returns new values of incremented and
    /// appended columns.
    ///
    /// # Errors
    /// As [`Table::put`].
    pub async fn mutate_row(&self, rm: &RowMutations) -> Result<Vec<Cell>, Error> {
        rm.validate()?;
        let request = pb::MutateRequest {
            table: self.name.clone(),
            mutations: Some(convert::row_mutations_to_pb(rm)),
        };
        let response = self
            .call_row(&rm.row, idempotence_of(rm), |mut client| {
                let request = request.clone();
                async move { client.mutate(request).await }
            })
            .await?;
        response
            .cells
            .into_iter()
            .map(|c| convert::cell_from_pb(c).map_err(Error::bad_response))
            .collect()
    }

    /// Applies many rows' mutations (each row atomic on its own), one batch RPC per region;
    /// one outcome per row in request order.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` if any row is malformed (nothing is sent then); per-row failures are
    /// in the outcomes.
    pub async fn batch(
        &self,
        rows: &[RowMutations],
    ) -> Result<Vec<Result<Vec<Cell>, Error>>, Error> {
        crate::multi::batch(self, rows, None).await
    }

    /// Applies `cam.mutations` if its condition holds; returns whether it did. Retried like
    /// [`Table::increment`].
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed request; the server's error otherwise.
    pub async fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<bool, Error> {
        cam.validate()?;
        let request = convert::check_and_mutate_to_pb(&self.name, cam);
        let response = self
            .call_row(&cam.row, Idempotence::NotIdempotent, |mut client| {
                let request = request.clone();
                async move { client.check_and_mutate(request).await }
            })
            .await?;
        Ok(response.processed)
    }

    /// A scanner over `scan`'s rows. Lazy: pages are fetched as rows are read.
    pub fn scan(&self, scan: &Scan) -> crate::Scanner {
        crate::Scanner::new(self.clone(), scan.clone())
    }

    /// Every row of `scan`.
    ///
    /// # Errors
    /// As [`crate::Scanner::next_row`].
    pub async fn scan_all(&self, scan: &Scan) -> Result<Vec<Vec<Cell>>, Error> {
        let mut scanner = self.scan(scan);
        let mut rows = Vec::new();
        while let Some(row) = scanner.next_row().await? {
            rows.push(row);
        }
        Ok(rows)
    }

    /// Scans every region's part of `scan` concurrently (at most `parallelism` at once).
    /// With `ordered`, rows come in scan order; otherwise as they arrive.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed scan, or the master's error listing regions.
    pub async fn parallel_scan(
        &self,
        scan: &Scan,
        parallelism: usize,
        ordered: bool,
    ) -> Result<crate::ParallelScanner, Error> {
        crate::ParallelScanner::start(self, scan, parallelism, ordered).await
    }

    /// A buffered mutator writing to this table.
    pub fn buffered_mutator(
        &self,
        options: crate::BufferedMutatorOptions,
    ) -> crate::BufferedMutator {
        crate::BufferedMutator::new(self.clone(), options)
    }

    async fn call_row<T, F, Fut>(
        &self,
        row: &Bytes,
        idempotence: Idempotence,
        send: F,
    ) -> Result<T, Error>
    where
        F: FnMut(crate::link::DataLink) -> Fut,
        Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        let position = Position::From(row.clone());
        let response = self
            .conn
            .call_at(&self.name, &position, false, idempotence, send)
            .await?;
        Ok(response.into_inner())
    }
}

/// `NotIdempotent` if the row holds an increment, an append, or a put or delete that takes
/// the server's clock (Bigtable's clients likewise retry a `SetCell` only with a timestamp of
/// the client's): only a row whose every timestamp the client chose may be sent twice.
pub(crate) fn idempotence_of(rm: &RowMutations) -> Idempotence {
    let repeats_differ = rm.mutations.iter().any(|m| match m {
        Mutation::Increment(_) | Mutation::Append(_) => true,
        Mutation::Put(p) => p.cells.iter().any(|c| c.timestamp.is_none()),
        Mutation::Delete(d) => {
            (d.markers.is_empty() && d.timestamp.is_none())
                || d.markers.iter().any(|k| k.timestamp.is_none())
        }
    });
    if repeats_differ {
        Idempotence::NotIdempotent
    } else {
        Idempotence::Idempotent
    }
}

/// The cells of a wire result.
pub(crate) fn cells_of(result: pb::Result) -> Result<Vec<Cell>, Error> {
    convert::result_from_pb(result).map_err(Error::bad_response)
}

#[cfg(test)]
mod tests {
    use strata_model::ops::{Delete, Increment, Mutation, Put, RowMutations};

    use super::idempotence_of;
    use crate::retry::Idempotence::{Idempotent, NotIdempotent};

    fn of(m: impl Into<Mutation>) -> crate::retry::Idempotence {
        idempotence_of(&RowMutations::from(m.into()))
    }

    /// Only a row whose every timestamp the client chose may be sent twice: a repeat of one
    /// stamped by the server is a new version that can land after other clients' writes.
    #[test]
    fn server_timestamps_make_a_write_unsafe_to_repeat() {
        assert_eq!(of(Put::new("r").add_at("f", "q", 5, "v")), Idempotent);
        assert_eq!(of(Put::new("r").add("f", "q", "v")), NotIdempotent);
        assert_eq!(
            of(Put::new("r").add_at("f", "q", 5, "v").add("f", "p", "v")),
            NotIdempotent
        );
        assert_eq!(of(Delete::new("r").column_upto("f", "q", 5)), Idempotent);
        assert_eq!(of(Delete::new("r").version_at("f", "q", 5)), Idempotent);
        assert_eq!(of(Delete::new("r").column("f", "q")), NotIdempotent);
        assert_eq!(of(Delete::new("r").version("f", "q")), NotIdempotent);
        assert_eq!(of(Delete::new("r")), NotIdempotent);
        let mut whole_row = Delete::new("r");
        whole_row.timestamp = Some(5);
        assert_eq!(of(whole_row), Idempotent);
        assert_eq!(of(Increment::new("r").add("f", "q", 1)), NotIdempotent);
    }
}
