//! What every handler shares: the region server the calls go to (none on a cluster's master),
//! where meta's rows come from, the master operations, this server's identity, open scanners,
//! and the response cell block.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use strata_model::cell::Cell;
use strata_server::{HostedRegion, RegionServer};

use crate::cellblock::{self, Codec};
use crate::config::HBaseRpcConfig;
use crate::convert::cell_to_pb;
use crate::error::{HBaseError, HResult};
use crate::meta::{MetaRow, ServerIdentity};
use crate::ops::MasterOps;
use crate::pb;
use crate::region_name::{parse_region_name, RegionRef};
use crate::scanners::Scanners;

/// Where a cluster's regions are (RFC 0018): `hbase:meta` and the registry are answered from
/// it.
pub trait Directory: Send + Sync + 'static {
    /// Every row of `hbase:meta`: one per table, one per region with the HBase RPC address of
    /// the server holding it.
    ///
    /// # Errors
    /// The directory cannot be read now (the client retries).
    fn meta_rows(&self) -> HResult<Vec<MetaRow>>;

    /// The HBase RPC listeners of the cluster's servers (the registry's bootstrap nodes).
    fn servers(&self) -> Vec<ServerIdentity>;

    /// Whether this server may serve its regions now (it holds its lease).
    fn serving(&self) -> bool;

    /// The HBase RPC listeners of the cluster's masters, with whether each is the active
    /// one (empty: no master takes HBase RPC; each listener answers for the master).
    fn masters(&self) -> Vec<(ServerIdentity, bool)> {
        Vec::new()
    }
}

/// The shared state of one HBase RPC server.
pub struct Context {
    /// The region server the data calls go to (none on a cluster's master).
    pub server: Option<Arc<RegionServer>>,
    /// Where meta's rows and the registry's answers come from.
    pub directory: Arc<dyn Directory>,
    /// What `MasterService` runs on.
    pub ops: Arc<dyn MasterOps>,
    /// Host, port and start code clients see.
    pub identity: ServerIdentity,
    /// The cluster id the registry reports.
    pub cluster_id: String,
    /// Open scanners.
    pub scanners: Scanners,
    /// The last procedure id handed out (admin operations finish before they answer).
    pub procedures: AtomicU64,
    /// Ids above this one were handed out here (it is derived from the start code, so a
    /// restarted server does not report another process's ids as its own).
    pub first_procedure: u64,
    /// Settings.
    pub config: HBaseRpcConfig,
    /// Log every call and refused connection to stderr (`STRATA_HBASE_RPC_TRACE=1`).
    pub trace: bool,
}

/// The region a request names.
pub enum Target {
    /// `hbase:meta,,1`.
    Meta,
    /// An open user region.
    User(HostedRegion),
}

impl Context {
    /// The region server.
    ///
    /// # Errors
    /// A cluster's master holds no regions (`NotServingRegionException`: the client reads
    /// meta again and goes to the region's server).
    pub fn server(&self) -> HResult<&Arc<RegionServer>> {
        self.server.as_ref().ok_or_else(|| {
            HBaseError::not_serving("a master holds no regions: read hbase:meta for their servers")
        })
    }

    /// Every row of `hbase:meta`.
    ///
    /// # Errors
    /// A cluster's directory cannot be read now.
    pub fn meta_rows(&self) -> HResult<Vec<MetaRow>> {
        self.directory.meta_rows()
    }

    /// Resolves a region specifier to meta or an open region of this server.
    ///
    /// # Errors
    /// A malformed name (`DoNotRetryIOException`), or a region not open here
    /// (`NotServingRegionException`: split, merged, or its table disabled or dropped).
    pub fn target(&self, spec: &pb::RegionSpecifier) -> HResult<Target> {
        if spec.r#type != pb::region_specifier::RegionSpecifierType::RegionName as i32 {
            return Err(HBaseError::do_not_retry(
                "regions must be named by full region name",
            ));
        }
        match parse_region_name(&spec.value).map_err(HBaseError::do_not_retry)? {
            RegionRef::Meta => Ok(Target::Meta),
            RegionRef::User { table, region_id } => {
                if !self.directory.serving() {
                    return Err(HBaseError::not_serving(
                        "this region server is not serving (its lease is not held)",
                    ));
                }
                let hosted = self.server()?.hosted(region_id).map_err(|_| {
                    HBaseError::not_serving(format!(
                        "region {} is not online",
                        String::from_utf8_lossy(&spec.value)
                    ))
                })?;
                if hosted.region.info().table != table {
                    return Err(HBaseError::not_serving(format!(
                        "region {region_id} does not belong to {table}"
                    )));
                }
                Ok(Target::User(hosted))
            }
        }
    }
}

/// Checks that `row` is in `hosted`'s range.
///
/// # Errors
/// `NotServingRegionException` (the client's location is stale).
pub fn check_row(hosted: &HostedRegion, row: &[u8]) -> HResult<()> {
    let info = hosted.region.info();
    if row < info.start_row.as_ref() || (!info.end_row.is_empty() && row >= info.end_row.as_ref()) {
        return Err(HBaseError::not_serving(format!(
            "row '{}' is not in region {} of {}",
            strata_model::ops::escape(row),
            info.region_id,
            info.table
        )));
    }
    Ok(())
}

/// Collects result cells for a response: into a cell block when the connection has a
/// codec, else inside the protobuf.
pub struct CellsOut {
    codec: Option<Codec>,
    block: BytesMut,
}

impl CellsOut {
    /// For a connection with `codec` (none: cells travel inside the protobuf).
    pub fn new(codec: Option<Codec>) -> CellsOut {
        CellsOut {
            codec,
            block: BytesMut::new(),
        }
    }

    /// True if cells go into a cell block.
    pub fn uses_block(&self) -> bool {
        self.codec.is_some()
    }

    /// A `Result` for `cells`.
    pub fn result(&mut self, cells: &[Cell]) -> pb::Result {
        match self.codec {
            Some(codec) => {
                cellblock::encode(codec, cells, &mut self.block);
                pb::Result {
                    associated_cell_count: Some(cells.len() as i32),
                    ..pb::Result::default()
                }
            }
            None => pb::Result {
                cell: cells.iter().map(cell_to_pb).collect(),
                ..pb::Result::default()
            },
        }
    }

    /// Appends cells to the block (the caller records the count elsewhere).
    pub fn push_block(&mut self, cells: &[Cell]) {
        if let Some(codec) = self.codec {
            cellblock::encode(codec, cells, &mut self.block);
        }
    }

    /// The cell block, if any cells went into one.
    pub fn finish(self) -> Option<Bytes> {
        (!self.block.is_empty()).then(|| self.block.freeze())
    }
}
