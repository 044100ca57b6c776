//! [`Service`]: HBase's Thrift1 methods over a [`strata_client::Connection`]; one handler
//! file per kind of request (`admin`, `read`, `write`, `scan`).
//!
//! Every method reads its arguments through [`Fields`] first and builds the whole request
//! (validated by the model) before sending anything, so bad input is answered with
//! `IllegalArgument` (or `IOError` where the IDL declares no `IllegalArgument`) and changes
//! nothing.

mod admin;
mod read;
mod scan;
mod write;

use std::sync::Arc;

use bytes::Bytes;
use strata_client::{Connection, Table};
use strata_model::ops::{Columns, TimeRange};

use crate::error::{Result, ThriftError};
use crate::idl::Fields;
use crate::protocol::{
    application_exception, encode_message, AppErrorKind, Header, MessageKind, Struct, Value,
};
use crate::scanners::Scanners;

/// The Thrift1 service of one gateway, shared by all its connections.
#[derive(Debug)]
pub struct Service {
    conn: Connection,
    scanners: Arc<Scanners>,
    /// Rows stop being added to a `scannerGetList` reply past this many bytes of cells.
    max_reply_bytes: usize,
}

impl Service {
    /// A service over `conn`.
    pub fn new(conn: Connection, scanners: Arc<Scanners>, max_reply_bytes: usize) -> Service {
        Service {
            conn,
            scanners,
            max_reply_bytes,
        }
    }

    /// The open scanners.
    pub fn scanners(&self) -> &Arc<Scanners> {
        &self.scanners
    }

    /// Runs one call from connection `conn_id` and encodes the reply message.
    pub async fn handle(&self, header: &Header, args: &Struct, conn_id: u64) -> Vec<u8> {
        let name = header.name.as_str();
        let outcome = self.dispatch(name, &Fields::new(args, name), conn_id).await;
        match outcome {
            None => encode_message(
                name,
                MessageKind::Exception,
                header.seqid,
                &application_exception(
                    AppErrorKind::UnknownMethod,
                    &format!("Invalid method name: '{name}'"),
                ),
            ),
            Some(Ok(value)) => encode_message(
                name,
                MessageKind::Reply,
                header.seqid,
                &Struct::new().with_opt(0, value),
            ),
            Some(Err(e)) => {
                let (illegal, exists) = declared_exceptions(name);
                encode_message(
                    name,
                    MessageKind::Reply,
                    header.seqid,
                    &e.to_result(illegal, exists),
                )
            }
        }
    }

    /// The method's result (`None` inside for `void`), or `None` for an unknown method.
    async fn dispatch(
        &self,
        name: &str,
        f: &Fields<'_>,
        conn_id: u64,
    ) -> Option<Result<Option<Value>>> {
        Some(match name {
            "enableTable"
            | "disableTable"
            | "isTableEnabled"
            | "compact"
            | "majorCompact"
            | "getTableNames"
            | "getTableNamesWithIsTableEnabled"
            | "getColumnDescriptors"
            | "getTableRegions"
            | "createTable"
            | "deleteTable"
            | "getRegionInfo"
            | "getThriftServerType"
            | "getClusterId"
            | "grant"
            | "revoke" => admin::call(self, name, f).await,
            "get"
            | "getVer"
            | "getVerTs"
            | "getRow"
            | "getRowWithColumns"
            | "getRowTs"
            | "getRowWithColumnsTs"
            | "getRows"
            | "getRowsWithColumns"
            | "getRowsTs"
            | "getRowsWithColumnsTs"
            | "getRowOrBefore" => read::call(self, name, f).await,
            "mutateRow" | "mutateRowTs" | "mutateRows" | "mutateRowsTs" | "atomicIncrement"
            | "deleteAll" | "deleteAllTs" | "deleteAllRow" | "deleteAllRowTs" | "increment"
            | "incrementRows" | "append" | "checkAndPut" => write::call(self, name, f).await,
            "scannerOpenWithScan"
            | "scannerOpen"
            | "scannerOpenWithStop"
            | "scannerOpenWithPrefix"
            | "scannerOpenTs"
            | "scannerOpenWithStopTs"
            | "scannerGet"
            | "scannerGetList"
            | "scannerClose" => scan::call(self, name, f, conn_id).await,
            _ => return None,
        })
    }

    /// The table named by field `id`.
    fn table(&self, f: &Fields<'_>, id: i16) -> Result<Table> {
        let name = f.string(id, "tableName")?;
        Ok(self.conn.table(&name)?)
    }
}

/// Whether a method's IDL declares `IllegalArgument` and `AlreadyExists`.
fn declared_exceptions(method: &str) -> (bool, bool) {
    let illegal = matches!(
        method,
        "createTable"
            | "mutateRow"
            | "mutateRowTs"
            | "mutateRows"
            | "mutateRowsTs"
            | "atomicIncrement"
            | "scannerGet"
            | "scannerGetList"
            | "scannerClose"
            | "checkAndPut"
    );
    (illegal, method == "createTable")
}

/// `family` or `family:qualifier` split at the first colon, as HBase's `parseColumn`:
/// `(family, None)` names the whole family, `cf:` the empty qualifier.
pub(crate) fn split_column(column: &Bytes) -> (Bytes, Option<Bytes>) {
    match column.iter().position(|&b| b == b':') {
        Some(i) => (column.slice(..i), Some(column.slice(i + 1..))),
        None => (column.clone(), None),
    }
}

/// The columns named by a Thrift column list; empty means all.
pub(crate) fn columns_of(names: &[Bytes]) -> Columns {
    let mut columns = Columns::default();
    for name in names {
        match split_column(name) {
            (family, Some(qualifier)) => columns.add_column(family, qualifier),
            (family, None) => columns.add_family(family),
        }
    }
    columns
}

/// HBase Thrift's timestamp bound for reads: versions strictly older than `ts`.
///
/// # Errors
/// `IllegalArgument` for `ts <= 0`, which no version can satisfy.
pub(crate) fn older_than(ts: i64) -> Result<TimeRange> {
    TimeRange::new(0, ts).map_err(|_| {
        ThriftError::illegal(format!(
            "timestamp {ts}: only versions older than it are read, so it must be positive"
        ))
    })
}
