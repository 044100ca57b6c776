//! The admin calls about servers rather than tables' schemas: `UpdateConfiguration` (HBase's
//! `updateConfiguration`) reloads the configuration file of one live server or of every one;
//! `ClearBlockCache` (HBase's `clearBlockCache`) drops a table's blocks from the block cache
//! of every server hosting one of its regions. The server that receives the call acts on its
//! own process and forwards to the others, marked [`crate::route::LOCAL`], as flushes are
//! forwarded.

use strata_cluster::kv::{range_all, Kv};
use strata_proto::pb::{self, ErrorCode};
use tonic::Status;

use crate::admin::{table_name, unavailable, ClusterAdmin};
use crate::names::server_address;
use crate::route::{local_request, servers_of};

/// `host:port` of a server named `host:port`, `host:port:startcode` or HBase's
/// `host,port,startcode`.
pub(crate) fn address_of(server: &str) -> String {
    let server = server.trim();
    if server.contains(',') {
        let mut parts = server.split(',');
        if let (Some(host), Some(port)) = (parts.next(), parts.next()) {
            return format!("{host}:{port}");
        }
    }
    if server.matches(':').count() >= 2 {
        return server_address(server).to_string();
    }
    server.to_string()
}

/// This process's reload, on a blocking thread, as one server's answer.
pub(crate) async fn reload_here(address: String) -> pb::ServerConfigurationUpdate {
    let outcome = tokio::task::spawn_blocking(strata_server::config_reload::reload)
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    match outcome {
        Ok(o) => pb::ServerConfigurationUpdate {
            server: address,
            applied: o.applied,
            needs_restart: o.needs_restart,
            error: String::new(),
        },
        Err(error) => pb::ServerConfigurationUpdate {
            server: address,
            error,
            ..Default::default()
        },
    }
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// `host:port` of every live server, sorted.
    async fn live_addresses(&self) -> Result<Vec<String>, Status> {
        self.run(|kv, layout, _| {
            let servers = range_all(kv, &layout.servers(), 1000).map_err(unavailable)?;
            let mut out: Vec<String> = servers
                .kvs
                .iter()
                .filter_map(|s| s.key.strip_prefix(&layout.servers()))
                .map(|name| server_address(name).to_string())
                .collect();
            out.sort();
            out.dedup();
            Ok(out)
        })
        .await
        .map(tonic::Response::into_inner)
    }

    /// `UpdateConfiguration`: `local` (forwarded here) reloads this process only.
    pub(crate) async fn update_configuration_now(
        &self,
        server: &str,
        local: bool,
    ) -> Result<pb::UpdateConfigurationResponse, Status> {
        let here = self
            .server
            .as_ref()
            .map(|s| s.config().advertised_address.clone())
            .unwrap_or_default();
        if local {
            return Ok(pb::UpdateConfigurationResponse {
                servers: vec![reload_here(here).await],
            });
        }
        let live = self.live_addresses().await?;
        let targets = if server.trim().is_empty() {
            live
        } else {
            let wanted = address_of(server);
            if !live.contains(&wanted) {
                return Err(strata_proto::status(
                    ErrorCode::InvalidArgument,
                    format!(
                        "no live server '{server}' (live: {})",
                        if live.is_empty() {
                            "none".to_string()
                        } else {
                            live.join(", ")
                        }
                    ),
                ));
            }
            vec![wanted]
        };
        let mut servers = Vec::with_capacity(targets.len());
        for addr in targets {
            if addr == here {
                servers.push(reload_here(addr).await);
                continue;
            }
            let request = pb::UpdateConfigurationRequest {
                server: addr.clone(),
            };
            let answer = match self.peer(&addr).await {
                Ok(mut client) => client
                    .update_configuration(local_request(request))
                    .await
                    .map(tonic::Response::into_inner),
                Err(e) => Err(e),
            };
            servers.push(match answer {
                Ok(r) => r
                    .servers
                    .into_iter()
                    .next()
                    .map(|u| pb::ServerConfigurationUpdate {
                        server: addr.clone(),
                        ..u
                    })
                    .unwrap_or_else(|| pb::ServerConfigurationUpdate {
                        server: addr.clone(),
                        error: "the server answered nothing".into(),
                        ..Default::default()
                    }),
                Err(e) => pb::ServerConfigurationUpdate {
                    server: addr,
                    error: e.message().to_string(),
                    ..Default::default()
                },
            });
        }
        Ok(pb::UpdateConfigurationResponse { servers })
    }
}

/// Evicts the blocks of `regions` open on `server` (on a blocking thread's time): a region
/// not open here is a failed region, as HBase reports one.
fn evict_here(
    server: &strata_server::RegionServer,
    regions: &[pb::RegionLocation],
) -> pb::CacheEvictionStats {
    let mut stats = pb::CacheEvictionStats {
        max_cache_size: server.block_cache().map_or(0, |c| c.stats().capacity),
        ..Default::default()
    };
    for r in regions {
        match server.hosted(r.region_id) {
            Ok(hosted) => {
                let evicted = hosted.region.evict_cached_blocks();
                stats.evicted_blocks += evicted.blocks;
                stats.evicted_bytes += evicted.bytes;
            }
            Err(_) => stats
                .failed_regions
                .push(format!("{}: not open on {}", r.name, r.server)),
        }
    }
    stats
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// Evicts the blocks of `regions` from this process's region server.
    async fn evict_local(
        &self,
        regions: Vec<pb::RegionLocation>,
    ) -> Result<pb::CacheEvictionStats, Status> {
        self.run(move |_, _, server| {
            let server = server.ok_or_else(|| {
                strata_proto::status(ErrorCode::NotServingRegion, "this process holds no regions")
            })?;
            Ok(evict_here(server, &regions))
        })
        .await
        .map(tonic::Response::into_inner)
    }

    /// `ClearBlockCache` of `table`: `local` (forwarded here) acts on the regions open here
    /// only; otherwise every server hosting a region of the table is asked, and their answers
    /// summed.
    pub(crate) async fn clear_block_cache_now(
        &self,
        table: &str,
        local: bool,
    ) -> Result<pb::CacheEvictionStats, Status> {
        let name = table_name(table)?;
        let regions = self.hosted_regions(&name, None).await?;
        let here = self
            .server
            .as_ref()
            .map(|s| s.config().advertised_address.clone())
            .unwrap_or_default();
        let on_server = |addr: &str| -> Vec<pb::RegionLocation> {
            regions
                .iter()
                .filter(|r| r.server == addr)
                .cloned()
                .collect()
        };
        if local {
            return self.evict_local(on_server(&here)).await;
        }
        let mut total = pb::CacheEvictionStats::default();
        for addr in servers_of(&regions) {
            let answer = if addr == here {
                self.evict_local(on_server(&addr)).await
            } else {
                match self.peer(&addr).await {
                    Ok(mut client) => client
                        .clear_block_cache(local_request(pb::TableRequest {
                            table: name.clone(),
                        }))
                        .await
                        .map(tonic::Response::into_inner),
                    Err(e) => Err(e),
                }
            };
            match answer {
                Ok(s) => {
                    total.evicted_blocks += s.evicted_blocks;
                    total.evicted_bytes += s.evicted_bytes;
                    total.max_cache_size += s.max_cache_size;
                    total.failed_regions.extend(s.failed_regions);
                }
                Err(e) => total.failed_regions.extend(
                    on_server(&addr)
                        .iter()
                        .map(|r| format!("{}: {addr}: {}", r.name, e.message())),
                ),
            }
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::address_of;

    #[test]
    fn every_spelling_of_a_server_names_its_address() {
        assert_eq!(address_of("h:1"), "h:1");
        assert_eq!(address_of("h:1:1700000000000"), "h:1");
        assert_eq!(address_of("h,1,1700000000000"), "h:1");
        assert_eq!(address_of(" h:1 "), "h:1");
    }
}
