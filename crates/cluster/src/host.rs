//! What a region server's coordination needs from its storage side: open a region (replaying
//! recovered edits), close it (flushing), split it and merge
//! two. The region server of `strata-server` implements it
//! on shared storage; the simulation and the tests use models.

/// Opening and closing regions on this server.
///
/// Every method is required, none has a default: a wrapper (one that counts, say) must forward
/// each one, and a host that cannot split or merge says so itself. A default that refused
/// would let a wrapper silently refuse what the host it wraps can do.
pub trait RegionHost {
    /// Opens `region` for serving at `epoch`: replays its recovered edits first.
    ///
    /// # Errors
    /// The region cannot be opened (the master is told and picks again).
    fn open(&self, region: &str, epoch: u64) -> Result<(), String>;

    /// Closes `region`, flushing its memtables so no replay is needed.
    ///
    /// # Errors
    /// The flush failed; the server must abort (its WAL still holds the edits).
    fn close(&self, region: &str) -> Result<(), String>;

    /// Drops every region without flushing: the server lost its lease or its WAL.
    fn abort(&self);

    /// Opens `region` at `epoch` without blocking the caller for long: `None` while the open
    /// is still in progress (the caller asks again at its next tick), then its outcome, once.
    /// A host whose opens take long (replaying recovered edits from shared storage) answers
    /// `None` so the region server keeps renewing its lease meanwhile; one whose opens are
    /// quick answers `Some(self.open(region, epoch))`.
    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>>;

    /// Closes `region` without blocking the caller for long: `None` while its flush is still
    /// in progress (the caller asks again at its next tick), then the outcome, once. The
    /// region refuses writes from the first call. A host whose closes are quick answers
    /// `Some(self.close(region))`.
    fn try_close(&self, region: &str) -> Option<Result<(), String>>;

    /// Gives up an open [`RegionHost::try_open`] left in progress: the region was ordered
    /// closed meanwhile. The host must not serve it. A host whose opens finish at once has
    /// nothing to do.
    fn cancel_open(&self, region: &str);

    /// Splits open `region` (at `epoch`) into `daughters` (lower half first) at `row`, or at
    /// its middle key without one, without blocking the caller for long: `None` while the
    /// split is in progress (the caller asks again at its next tick), then its outcome, once:
    /// the split row, with the daughters' directories complete and the region no longer
    /// served, or an error with the region still served and no daughter directory left. The
    /// daughters are not opened (the master sends open orders once it recorded them). A host
    /// that cannot split answers an error at once.
    fn try_split(
        &self,
        region: &str,
        epoch: u64,
        daughters: &(String, String),
        row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>>;

    /// Merges open regions `low` and `high` (adjacent, `low` first) into `merged`, without
    /// blocking the caller for long: `None` while the merge is in progress (the caller asks
    /// again at its next tick), then its outcome, once: with the merged region's directory
    /// complete and neither region served any more, or an error with both still served and
    /// no merged directory left. The merged region is not opened (the master sends its open
    /// order once it recorded it). A host that cannot merge answers an error at once.
    fn try_merge(&self, low: &str, high: &str, merged: &str) -> Option<Result<(), String>>;

    /// Reads and writes served so far by each open region (cumulative counters; the region
    /// server turns their differences into the rates and counts it reports in its load). A
    /// host that counts nothing answers none (every region then counts as idle).
    fn requests(&self) -> Vec<(String, crate::load::Accesses)>;

    /// Each open region's statistics (stores, store files and bytes, memtable bytes, reads
    /// and writes since it opened here, last major compaction), which the region server
    /// publishes for the cluster with its load reports. A host that keeps none answers none.
    fn region_metrics(&self) -> Vec<(String, crate::region_metrics::RegionMetrics)>;
}
