//! Region placement through [`Admin`]: HBase's `move`, `assign`, `unassign`, `balance`,
//! `balancerSwitch`, `isBalancerEnabled`, `decommissionRegionServers`,
//! `recommissionRegionServer` and `listDecommissionedRegionServers`. The server resolves the
//! names given (a region's cluster name, HBase's full or encoded name, or its numeric id; a
//! server's `host:port:startcode`, `host,port,startcode` or `host:port`) and waits until a
//! region's procedure finished.

use strata_proto::pb;

use crate::admin::Admin;
use crate::error::Error;

/// Where a region is once its move, assign or unassign finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionPlacement {
    /// The region's cluster name (`table,seq`).
    pub region: String,
    /// Its server (`host:port:startcode`) when open.
    pub server: Option<String>,
    /// `open` or `closed`.
    pub state: String,
}

impl From<pb::RegionPlacement> for RegionPlacement {
    fn from(p: pb::RegionPlacement) -> RegionPlacement {
        RegionPlacement {
            region: p.region,
            server: (!p.server.is_empty()).then_some(p.server),
            state: p.state,
        }
    }
}

/// What one balancer round did (HBase's `BalanceResponse`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BalanceOutcome {
    /// False when the balancer is off or procedures were in progress.
    pub ran: bool,
    /// Regions it moved.
    pub moves: u32,
    /// Why it did not run, or what it did.
    pub message: String,
}

impl Admin {
    async fn place(
        &self,
        how: Placement,
        region: &str,
        server: Option<&str>,
    ) -> Result<RegionPlacement, Error> {
        let request = pb::RegionPlacementRequest {
            region: region.to_string(),
            server: server.unwrap_or_default().to_string(),
        };
        let answer = self
            .change(|mut m| async move {
                match how {
                    Placement::Move => m.move_region(request).await,
                    Placement::Assign => m.assign_region(request).await,
                    Placement::Unassign => m.unassign_region(request).await,
                }
            })
            .await?;
        Ok(answer.into())
    }

    /// Closes `region` and opens it again, on `server` if given (else where the master picks);
    /// answers where it is once the move finished.
    ///
    /// # Errors
    /// An unknown region or server (nothing changed), or the master's refusal.
    pub async fn move_region(
        &self,
        region: &str,
        server: Option<&str>,
    ) -> Result<RegionPlacement, Error> {
        self.place(Placement::Move, region, server).await
    }

    /// Opens a closed `region`.
    ///
    /// # Errors
    /// An unknown region, or the master's refusal.
    pub async fn assign(&self, region: &str) -> Result<RegionPlacement, Error> {
        self.place(Placement::Assign, region, None).await
    }

    /// Closes an open `region`; it stays closed until assigned.
    ///
    /// # Errors
    /// An unknown region, or the master's refusal.
    pub async fn unassign(&self, region: &str) -> Result<RegionPlacement, Error> {
        self.place(Placement::Unassign, region, None).await
    }

    /// Runs the balancer once (HBase's `balance()`): `ran` is false, with the reason, while
    /// the balancer is off or procedures are in progress.
    ///
    /// # Errors
    /// The master is unavailable.
    pub async fn balance(&self) -> Result<BalanceOutcome, Error> {
        let r = self
            .change(|mut m| async move { m.balance(pb::Empty {}).await })
            .await?;
        Ok(BalanceOutcome {
            ran: r.ran,
            moves: r.moves,
            message: r.message,
        })
    }

    /// Drains each of `servers` and assigns nothing to them; answers their full names.
    ///
    /// # Errors
    /// An unknown or dead server (checked for all first; nothing changed), or the master's
    /// refusal (the last server not decommissioned).
    pub async fn decommission(&self, servers: &[String]) -> Result<Vec<String>, Error> {
        let request = pb::ServersRequest {
            servers: servers.to_vec(),
        };
        let r = self
            .change(|mut m| async move { m.decommission(request).await })
            .await?;
        Ok(r.servers)
    }

    /// Lets decommissioned `servers` take regions again; answers their full names.
    ///
    /// # Errors
    /// A server that is not decommissioned (nothing changed).
    pub async fn recommission(&self, servers: &[String]) -> Result<Vec<String>, Error> {
        let request = pb::ServersRequest {
            servers: servers.to_vec(),
        };
        let r = self
            .change(|mut m| async move { m.recommission(request).await })
            .await?;
        Ok(r.servers)
    }

    /// The decommissioned servers (`host:port:startcode`).
    ///
    /// # Errors
    /// The server's error.
    pub async fn decommissioned(&self) -> Result<Vec<String>, Error> {
        let r = self
            .read(|mut m| async move { m.list_decommissioned(pb::Empty {}).await })
            .await?;
        Ok(r.servers)
    }
}

#[derive(Clone, Copy)]
enum Placement {
    Move,
    Assign,
    Unassign,
}
