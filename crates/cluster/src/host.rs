//! What a region server's coordination needs from its storage side: open a region (replaying
//! recovered edits) and close it (flushing). The region server of `strata-server` implements it
//! on shared storage; the simulation and the tests use models.

/// Opening and closing regions on this server.
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
}
