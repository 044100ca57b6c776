//! Calls about servers through [`Admin`]: HBase's `updateConfiguration(ServerName)` and
//! `updateConfiguration()`, reloading servers' configuration files, and
//! `clearBlockCache(TableName)`, dropping a table's blocks from the servers' block caches, and
//! `getProcedures`, the procedures in progress; and `alter_async` with `getAlterStatus`.

use strata_model::schema::TableDescriptor;
use strata_proto::pb;

use crate::admin::Admin;
use crate::error::Error;

/// One server's configuration reload (a `key: old → new` line per changed key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigurationUpdate {
    /// The server, `host:port`.
    pub server: String,
    /// Keys applied now.
    pub applied: Vec<String>,
    /// Keys whose change waits for a restart.
    pub needs_restart: Vec<String>,
    /// Why the server reloaded nothing (no configuration file, a bad file), if it did not.
    pub error: Option<String>,
}

impl From<pb::ServerConfigurationUpdate> for ConfigurationUpdate {
    fn from(u: pb::ServerConfigurationUpdate) -> ConfigurationUpdate {
        ConfigurationUpdate {
            server: u.server,
            applied: u.applied,
            needs_restart: u.needs_restart,
            error: (!u.error.is_empty()).then_some(u.error),
        }
    }
}

/// A procedure in progress (HBase's `getProcedures`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcedureInfo {
    /// Its id.
    pub id: String,
    /// HBase's name for the procedure of the same work (`CreateTableProcedure`, ...).
    pub name: String,
    /// `RUNNABLE` while in progress.
    pub state: String,
    /// Its table or region and the step it is at.
    pub parameters: String,
}

impl From<pb::ProcedureInfo> for ProcedureInfo {
    fn from(p: pb::ProcedureInfo) -> ProcedureInfo {
        ProcedureInfo {
            id: p.id,
            name: p.name,
            state: p.state,
            parameters: p.parameters,
        }
    }
}

/// What [`Admin::clear_block_cache`] dropped (HBase's `CacheEvictionStats`), summed over the
/// servers hosting the table's regions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheEvictionStats {
    /// Blocks evicted (data, index and bloom).
    pub evicted_blocks: u64,
    /// Their bytes, as the caches weigh them.
    pub evicted_bytes: u64,
    /// The capacities of the block caches reached, summed.
    pub max_cache_size: u64,
    /// Regions not cleared, as `name: reason`.
    pub failed_regions: Vec<String>,
}

impl From<pb::CacheEvictionStats> for CacheEvictionStats {
    fn from(s: pb::CacheEvictionStats) -> CacheEvictionStats {
        CacheEvictionStats {
            evicted_blocks: s.evicted_blocks,
            evicted_bytes: s.evicted_bytes,
            max_cache_size: s.max_cache_size,
            failed_regions: s.failed_regions,
        }
    }
}

impl Admin {
    /// Replaces a table's schema as [`Admin::alter_table`] does, answering once the schema is
    /// stored and the reopening of its regions submitted (HBase's `alter_async`);
    /// [`Admin::alter_status`] follows the reopening.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `TABLE_NOT_FOUND` or the master's error.
    pub async fn alter_table_async(&self, table: &TableDescriptor) -> Result<(), Error> {
        table.validate().map_err(Error::invalid)?;
        let request = pb::AlterTableRequest {
            schema: Some(strata_proto::convert::table_to_pb(table)),
            no_wait: true,
        };
        self.change(|mut m| async move { m.alter_table(request).await })
            .await
            .map(drop)
    }

    /// How many of a table's regions serve its current schema, of how many (HBase's
    /// `getAlterStatus`, as `(updated, regions)`).
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND` or the server's error.
    pub async fn alter_status(&self, name: &str) -> Result<(u32, u32), Error> {
        let request = pb::TableRequest {
            table: name.to_string(),
        };
        let response = self
            .read(|mut m| {
                let request = request.clone();
                async move { m.alter_status(request).await }
            })
            .await?;
        Ok((response.updated, response.regions))
    }

    /// The procedures in progress (table changes, assignments, splits, merges, crash
    /// recoveries), by id; finished ones are not kept.
    ///
    /// # Errors
    /// The server's error.
    pub async fn list_procedures(&self) -> Result<Vec<ProcedureInfo>, Error> {
        let response = self
            .read(|mut m| async move { m.list_procedures(pb::Empty {}).await })
            .await?;
        Ok(response.procedures.into_iter().map(Into::into).collect())
    }

    /// Drops every cached block of enabled table `name`'s store files from the block caches
    /// of the servers hosting its regions. Later reads read them from the files again.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `TABLE_DISABLED`, `UNAVAILABLE` while a region is in transition, or
    /// the server's error. A region that could not be cleared is named in the answer.
    pub async fn clear_block_cache(&self, name: &str) -> Result<CacheEvictionStats, Error> {
        let request = pb::TableRequest {
            table: name.to_string(),
        };
        self.change(|mut m| async move { m.clear_block_cache(request).await })
            .await
            .map(Into::into)
    }

    /// Reloads the configuration file of the live server `server` (`host:port`,
    /// `host:port:startcode` or `host,port,startcode`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` if no live server has that name, or the server's error. A server
    /// that reloads nothing (no file, a bad file) is an answer, with its reason.
    pub async fn update_configuration(&self, server: &str) -> Result<ConfigurationUpdate, Error> {
        if server.trim().is_empty() {
            return Err(Error::invalid("a server name is required"));
        }
        let mut all = self.reload(server).await?;
        match all.len() {
            1 => Ok(all.remove(0)),
            n => Err(Error::bad_response(format!(
                "{n} servers answered a reload of one"
            ))),
        }
    }

    /// Reloads the configuration file of every live server, by server.
    ///
    /// # Errors
    /// The server's error; each server's own outcome is in its answer.
    pub async fn update_all_configuration(&self) -> Result<Vec<ConfigurationUpdate>, Error> {
        self.reload("").await
    }

    async fn reload(&self, server: &str) -> Result<Vec<ConfigurationUpdate>, Error> {
        let request = pb::UpdateConfigurationRequest {
            server: server.to_string(),
        };
        let response = self
            .change(|mut m| async move { m.update_configuration(request).await })
            .await?;
        Ok(response.servers.into_iter().map(Into::into).collect())
    }

    /// Turns the cluster-wide `switch` (`split`, `merge`, `balancer` or `rpc_throttle`) on or
    /// off; answers whether it was on (HBase's `splitSwitch`/`mergeSwitch`/`balancerSwitch`/
    /// `switchRpcThrottle`). While off, the master refuses every split (merge), asked for or
    /// automatic, or balances nothing; or the throttles refuse nothing (they stay set).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for another name, or the master's error.
    pub async fn set_switch(&self, switch: &str, on: bool) -> Result<bool, Error> {
        let request = pb::SwitchRequest {
            name: switch.to_string(),
            on,
        };
        let response = self
            .change(|mut m| async move { m.set_switch(request).await })
            .await?;
        Ok(response.on)
    }

    /// Whether the cluster-wide `switch` (`split`, `merge`, `balancer` or `rpc_throttle`) is
    /// on (HBase's `isSplitEnabled`/`isMergeEnabled`/`isBalancerEnabled`/
    /// `isRpcThrottleEnabled`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for another name, or the server's error.
    pub async fn switch_enabled(&self, switch: &str) -> Result<bool, Error> {
        let request = pb::SwitchRequest {
            name: switch.to_string(),
            on: false,
        };
        let response = self
            .read(|mut m| {
                let request = request.clone();
                async move { m.get_switch(request).await }
            })
            .await?;
        Ok(response.on)
    }
}
